//! Encoding: neutral stream parts in, the stream's events out.

use super::super::F;
use super::super::encode::part_meta;
use super::super::hints::TOOL_PLAN;
use super::super::response::{encode_stop, encode_usage};
use crate::model::{Part, Reasoning, StopReason, Usage, Vendor};
use crate::stream::{
    EventEncoder, Events, Gate, PartId, Rule, StreamPart, StreamStart, UNFINISHED, Whole, at,
    no_place, reasoning_id_lost, reasoning_token_lost, start_once, streamed, summary_as_thinking,
};
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::cohere as w;

/// What an open part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// A content item (`thinking`: a thinking item) at its index.
    Content { index: u32, thinking: bool },
    /// The tool plan.
    Plan,
    /// A call at its index.
    Call(u32),
}

/// The v2 chat stream encoder: `message-start` first, content items, the tool plan and
/// calls as they come (index-keyed), the citations of the finish, then `message-end`
/// with the finish reason and usage (at the end: usage may follow the finish). An error
/// is a `message-end` with `finish_reason: ERROR` and its `error`.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    /// Started, over (`message-end` written), and the parts left out (another choice,
    /// reasoning dropped), with what belongs to them.
    gate: Gate,
    open: Vec<(PartId, Open)>,
    next_content: u32,
    next_call: u32,
    source: Option<crate::Format>,
    usage: Option<Usage>,
    finish: Option<Option<StopReason>>,
}

fn content_event(index: u32, fragment: w::ContentFragment) -> w::ContentEvent {
    w::ContentEvent {
        index: Some(index),
        delta: Some(w::ContentDelta {
            message: Some(w::ContentDeltaMessage {
                content: Some(fragment),
                extra: Default::default(),
            }),
            extra: Default::default(),
        }),
        logprobs: None,
        extra: Default::default(),
    }
}

fn call_event(index: u32, call: w::ToolCall) -> w::ToolCallEvent {
    w::ToolCallEvent {
        index: Some(index),
        delta: Some(w::ToolCallDelta {
            message: Some(w::ToolCallDeltaMessage {
                tool_calls: Some(call),
                extra: Default::default(),
            }),
            extra: Default::default(),
        }),
        extra: Default::default(),
    }
}

fn index_event(index: u32) -> w::IndexEvent {
    w::IndexEvent {
        index: Some(index),
        extra: Default::default(),
    }
}

impl Encoder {
    fn kind(&self, part: PartId) -> Option<Open> {
        self.open.iter().find(|(p, _)| *p == part).map(|(_, o)| *o)
    }

    fn open_content(
        &mut self,
        part: PartId,
        thinking: bool,
        out: &mut Events,
    ) -> Result<(), Error> {
        let index = self.next_content;
        self.next_content += 1;
        self.open.push((part, Open::Content { index, thinking }));
        let fragment = w::ContentFragment {
            kind: Some(if thinking {
                w::ContentType::Thinking
            } else {
                w::ContentType::Text
            }),
            text: (!thinking).then(String::new),
            thinking: thinking.then(String::new),
            extra: Default::default(),
        };
        out.push(
            Some("content-start"),
            &w::StreamEvent::ContentStart(content_event(index, fragment)),
        )
    }

    fn text(&self, part: PartId, text: String, out: &mut Events) -> Result<(), Error> {
        if text.is_empty() {
            return Ok(());
        }
        match self.kind(part) {
            Some(Open::Content { index, thinking }) => {
                let fragment = w::ContentFragment {
                    kind: None,
                    text: (!thinking).then(|| text.clone()),
                    thinking: thinking.then_some(text),
                    extra: Default::default(),
                };
                out.push(
                    Some("content-delta"),
                    &w::StreamEvent::ContentDelta(content_event(index, fragment)),
                )
            }
            Some(Open::Plan) => out.push(
                Some("tool-plan-delta"),
                &w::StreamEvent::ToolPlanDelta(w::ToolPlanDeltaEvent {
                    delta: Some(w::ToolPlanDelta {
                        message: Some(w::ToolPlanDeltaMessage {
                            tool_plan: Some(text),
                            extra: Default::default(),
                        }),
                        extra: Default::default(),
                    }),
                    extra: Default::default(),
                }),
            ),
            _ => Ok(()),
        }
    }

    fn open_call(
        &mut self,
        part: PartId,
        id: String,
        name: String,
        out: &mut Events,
    ) -> Result<(), Error> {
        let index = self.next_call;
        self.next_call += 1;
        self.open.push((part, Open::Call(index)));
        let call = w::ToolCall {
            id: Some(id),
            kind: Some("function".to_owned()),
            function: Some(w::FunctionCall {
                name: Some(name),
                arguments: Some(wire_types::Arguments::Text(String::new())),
                extra: Default::default(),
            }),
            extra: Default::default(),
        };
        out.push(
            Some("tool-call-start"),
            &w::StreamEvent::ToolCallStart(call_event(index, call)),
        )
    }

    fn args(&self, part: PartId, json: String, out: &mut Events) -> Result<(), Error> {
        let Some(Open::Call(index)) = self.kind(part) else {
            return Ok(());
        };
        if json.is_empty() {
            return Ok(());
        }
        let call = w::ToolCall {
            function: Some(w::FunctionCall {
                arguments: Some(wire_types::Arguments::Text(json)),
                ..Default::default()
            }),
            ..Default::default()
        };
        out.push(
            Some("tool-call-delta"),
            &w::StreamEvent::ToolCallDelta(call_event(index, call)),
        )
    }

    fn end_part(&mut self, part: PartId, out: &mut Events) -> Result<(), Error> {
        let Some(i) = self.open.iter().position(|(p, _)| *p == part) else {
            return Ok(());
        };
        match self.open.remove(i).1 {
            Open::Content { index, .. } => out.push(
                Some("content-end"),
                &w::StreamEvent::ContentEnd(index_event(index)),
            ),
            Open::Call(index) => out.push(
                Some("tool-call-end"),
                &w::StreamEvent::ToolCallEnd(index_event(index)),
            ),
            Open::Plan => Ok(()),
        }
    }

    fn end_all(&mut self, out: &mut Events) -> Result<(), Error> {
        while let Some((part, _)) = self.open.first().copied() {
            self.end_part(part, out)?;
        }
        Ok(())
    }

    /// The citations of a finish, as `citation-start` / `citation-end` pairs.
    fn citations(&self, vendor: &Vendor, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let mut rest = vendor.clone();
        let citations = match rest.format {
            Some(f) if f == F => rest.fields.shift_remove("citations"),
            _ => None,
        };
        ctx.report_unwritten_fields(&rest, "/finish");
        let Some(Value::Array(citations)) = citations else {
            return Ok(());
        };
        for (i, c) in citations.into_iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            match serde_json::from_value::<w::Citation>(c) {
                Ok(citation) => {
                    out.push(
                        Some("citation-start"),
                        &w::StreamEvent::CitationStart(w::CitationStartEvent {
                            index: Some(index),
                            delta: Some(w::CitationDelta {
                                message: Some(w::CitationDeltaMessage {
                                    citations: Some(citation),
                                    extra: Default::default(),
                                }),
                                extra: Default::default(),
                            }),
                            extra: Default::default(),
                        }),
                    )?;
                    out.push(
                        Some("citation-end"),
                        &w::StreamEvent::CitationEnd(index_event(index)),
                    )?;
                }
                Err(e) => ctx.dropped(
                    LossCode::FieldUnsupported,
                    format!("/finish/citations/{i}"),
                    format!("this cohere citation is no longer a valid citation: {e}"),
                ),
            }
        }
        Ok(())
    }

    fn message_end(
        &mut self,
        finish_reason: Option<w::FinishReason>,
        error: Option<String>,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        self.gate.finished = true;
        let usage = self.usage.take().map(|u| encode_usage(u, ctx));
        out.push(
            Some("message-end"),
            &w::StreamEvent::MessageEnd(w::MessageEndEvent {
                id: None,
                delta: Some(w::MessageEndDelta {
                    finish_reason,
                    usage,
                    error,
                    extra: Default::default(),
                }),
                extra: Default::default(),
            }),
        )
    }

    /// A whole reasoning part: the tool plan, or a thinking item, with its text (else its
    /// summaries) in one delta.
    fn whole_reasoning(
        &mut self,
        part: PartId,
        r: Reasoning,
        out: &mut Events,
    ) -> Result<(), Error> {
        if r.meta.vendor.flag(F, TOOL_PLAN) {
            self.open.push((part, Open::Plan));
        } else {
            self.open_content(part, true, out)?;
        }
        let text = r
            .text
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| r.summary.join("\n\n"));
        self.text(part, text, out)?;
        self.end_part(part, out)
    }
}

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        Rule::one("message", self.source != Some(F))
    }

    fn start(&mut self, s: StreamStart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.source = s.format;
        ctx.report_unwritten_fields(&s.vendor, "");
        if let Some(model) = &s.model {
            ctx.dropped(
                LossCode::FieldUnsupported,
                "/model",
                format!("cohere streams do not name the model (`{model}`)"),
            );
        }
        if s.created.is_some() {
            ctx.dropped(
                LossCode::FieldUnsupported,
                "/created",
                "cohere streams carry no creation time",
            );
        }
        out.push(
            Some("message-start"),
            &w::StreamEvent::MessageStart(w::MessageStartEvent {
                id: s.id,
                delta: Some(w::MessageStartDelta {
                    message: Some(w::ResponseMessage {
                        role: Some("assistant".to_owned()),
                        ..Default::default()
                    }),
                    extra: Default::default(),
                }),
                extra: Default::default(),
            }),
        )
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match part {
            StreamPart::Start(_) => {}
            StreamPart::TextStart { part, meta, .. } => {
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                part_meta(&meta, &at(part), ctx);
                self.open_content(part, false, out)?;
            }
            StreamPart::TextDelta { part, text } | StreamPart::ReasoningDelta { part, text } => {
                self.text(part, text, out)?;
            }
            StreamPart::ReasoningStart { part, id, meta, .. } => {
                reasoning_id_lost(id.as_deref(), part, F, ctx);
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                part_meta(&meta, &at(part), ctx);
                if meta.vendor.flag(F, TOOL_PLAN) {
                    self.open.push((part, Open::Plan));
                } else {
                    self.open_content(part, true, out)?;
                }
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if self.kind(part).is_some() {
                    summary_as_thinking(part, ctx);
                }
                self.text(part, text, out)?;
            }
            StreamPart::Signature(s) => {
                if self.kind(s.part).is_some() {
                    reasoning_token_lost(&s.token, s.encrypted, true, s.part, ctx);
                }
            }
            StreamPart::ToolStart(t) => {
                part_meta(&t.meta, &at(t.part), ctx);
                ctx.report_unwritten_fields(&t.meta.vendor, &at(t.part));
                self.open_call(t.part, t.id, t.name, out)?;
            }
            StreamPart::ToolDelta { part, json } => self.args(part, json, out)?,
            StreamPart::Whole(whole) => match streamed(whole) {
                Ok(parts) => self.parts(parts, out, ctx)?,
                Err(Whole { part, content, .. }) => match content {
                    Part::Reasoning(r) => self.whole_reasoning(part, r, out)?,
                    other => no_place(part, &other, "a cohere stream", ctx),
                },
            },
            StreamPart::Meta { part, meta } => {
                if self.kind(part).is_some() {
                    ctx.report_unwritten_fields(&meta.vendor, &at(part));
                    part_meta(&meta, &at(part), ctx);
                }
            }
            StreamPart::End { part } => self.end_part(part, out)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish(f) => {
                self.end_all(out)?;
                self.citations(&f.vendor, out, ctx)?;
                self.finish = Some(f.stop_reason);
            }
            StreamPart::ResponseMeta(v) => {
                let mut rest = v;
                let debug = match rest.format {
                    Some(f) if f == F => rest.fields.shift_remove("debug"),
                    _ => None,
                };
                ctx.report_unwritten_fields(&rest, "");
                if let Some(d) = debug {
                    match serde_json::from_value::<w::DebugEvent>(d) {
                        Ok(d) => out.push(Some("debug"), &w::StreamEvent::Debug(d))?,
                        Err(e) => ctx.dropped(
                            LossCode::FieldUnsupported,
                            "/debug",
                            format!("this cohere debug event is no longer valid: {e}"),
                        ),
                    }
                }
            }
            StreamPart::Error(e) => {
                self.end_all(out)?;
                let message = e.to_string();
                self.message_end(Some(w::FinishReason::Error), Some(message), out, ctx)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        start_once(self, StreamStart::default(), out, ctx)?;
        self.end_all(out)?;
        match self.finish.take() {
            Some(stop) => {
                let reason = stop.map(|r| encode_stop(&r, "/finish/stop_reason", ctx));
                self.message_end(reason, None, out, ctx)
            }
            // The source ended without a finish (its decoder reports why): not a normal
            // end here either.
            None => self.message_end(
                Some(w::FinishReason::Error),
                Some(UNFINISHED.to_owned()),
                out,
                ctx,
            ),
        }
    }
}
