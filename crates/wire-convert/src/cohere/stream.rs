//! The v2 chat stream: `message-start`; per content item `content-start` (`text` or
//! `thinking`), `content-delta`s and `content-end`; `tool-plan-delta`s before the calls;
//! per call `tool-call-start` (id, name, often empty arguments), `tool-call-delta`s (none
//! for a call without arguments) and `tool-call-end`, keyed by `index`;
//! `citation-start` / `citation-end` pairs; `message-end` (finish reason, usage, and an
//! `error` when generation failed); `debug` (the rendered prompt) on debug requests.
//!
//! Each call's start is decoded by the whole-response decoder (its synthetic id when it
//! has none is the one the whole body gives); the tool plan is a reasoning part with the
//! `tool_plan` hint, as in a whole response. Citations are the message's: they are held
//! and come with the finish, in its vendor record (the whole-response encoder writes them
//! on the message). The `debug` prompt is response vendor data (`debug`), written back as
//! a `debug` event by the encoder.

use super::F;
use super::decode::decode_call;
use super::encode::part_meta;
use super::hints::TOOL_PLAN;
use super::response::{decode_usage, encode_stop, encode_usage, stop_reason};
use crate::model::{Part, PartMeta, StopReason, Usage, Vendor};
use crate::stream::{
    Event, EventDecoder, EventEncoder, Events, PartId, Parts, StreamError, StreamErrorKind,
    StreamPart, StreamStart, incomplete, read,
};
use crate::{Ctx, Error, LossCode, ReasoningMode};
use serde_json::Value;
use wire_types::cohere as w;

/// The v2 chat stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// Open content items: index → (part, reasoning?).
    content: Vec<(u32, PartId, bool)>,
    /// The tool plan, while it runs.
    plan: Option<PartId>,
    /// Open calls: index → (part, whether argument text came).
    calls: Vec<(u32, PartId, bool)>,
    /// Calls so far (the position of the next one, for a synthetic id).
    count: usize,
    /// Citations so far, for the finish.
    citations: Vec<Value>,
    ended: bool,
    /// Events came after `message-end` (reported once).
    after_end: bool,
    /// What was reported once: unknown event types, `logprobs`.
    reported: Vec<String>,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = read::<w::StreamEvent>(event.data)?;
        if self.ended {
            if !self.after_end {
                self.after_end = true;
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    "events after message-end are not part of the message: left out",
                );
            }
            return Ok(());
        }
        match event {
            w::StreamEvent::MessageStart(s) => {
                if !out.started() {
                    out.start(StreamStart {
                        format: Some(F),
                        id: s.id,
                        model: None,
                        created: None,
                        vendor: Vendor::from_extra(F, &s.extra, &[]),
                    });
                }
            }
            w::StreamEvent::ContentStart(e) => {
                let index = e.index.unwrap_or(0);
                self.end_content(index, out);
                self.end_plan(out);
                let fragment = e.delta.and_then(|d| d.message).and_then(|m| m.content);
                let Some(fragment) = fragment else {
                    self.once(
                        ctx,
                        "content-start",
                        "a content-start without content: left out",
                    );
                    return Ok(());
                };
                let meta = PartMeta::from_extra(F, &fragment.extra);
                let part = out.id();
                let (reasoning, first) = match fragment.kind {
                    Some(w::ContentType::Thinking) => {
                        out.push(StreamPart::ReasoningStart {
                            part,
                            choice: 0,
                            id: None,
                            meta,
                        });
                        (true, fragment.thinking)
                    }
                    _ => {
                        out.push(StreamPart::TextStart {
                            part,
                            choice: 0,
                            meta,
                        });
                        (false, fragment.text)
                    }
                };
                self.content.push((index, part, reasoning));
                if let Some(text) = first.filter(|t| !t.is_empty()) {
                    out.push(delta(part, reasoning, text));
                }
            }
            w::StreamEvent::ContentDelta(e) => {
                if e.logprobs.is_some() {
                    self.once(ctx, "logprobs", "logprobs of a stream have no neutral part");
                }
                let index = e.index.unwrap_or(0);
                let fragment = e.delta.and_then(|d| d.message).and_then(|m| m.content);
                let Some((_, part, reasoning)) =
                    self.content.iter().find(|(i, _, _)| *i == index).copied()
                else {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        "",
                        format!("a cohere content-delta for item {index}, which never started"),
                    );
                    return Ok(());
                };
                if let Some(f) = fragment {
                    for (text, thinking) in [(f.text, false), (f.thinking, true)] {
                        if let Some(text) = text.filter(|t| !t.is_empty()) {
                            out.push(delta(part, reasoning || thinking, text));
                        }
                    }
                }
            }
            w::StreamEvent::ContentEnd(e) => self.end_content(e.index.unwrap_or(0), out),
            w::StreamEvent::ToolPlanDelta(e) => {
                let text = e
                    .delta
                    .and_then(|d| d.message)
                    .and_then(|m| m.tool_plan)
                    .unwrap_or_default();
                let part = match self.plan {
                    Some(p) => p,
                    None => {
                        let part = out.id();
                        let mut meta = PartMeta::default();
                        meta.vendor.set_hint(F, TOOL_PLAN, true);
                        out.push(StreamPart::ReasoningStart {
                            part,
                            choice: 0,
                            id: None,
                            meta,
                        });
                        self.plan = Some(part);
                        part
                    }
                };
                if !text.is_empty() {
                    out.push(StreamPart::ReasoningDelta { part, text });
                }
            }
            w::StreamEvent::ToolCallStart(e) => {
                self.end_plan(out);
                let index = e.index.unwrap_or(0);
                self.end_call(index, out);
                let call = e
                    .delta
                    .and_then(|d| d.message)
                    .and_then(|m| m.tool_calls)
                    .unwrap_or_default();
                let part = out.id();
                match decode_call(call, "/choices/0", self.count, ctx) {
                    Part::ToolCall(c) => {
                        self.count += 1;
                        let first = c.arguments.text();
                        out.push(StreamPart::ToolStart {
                            part,
                            choice: 0,
                            id: c.id,
                            synthetic_id: c.synthetic_id,
                            name: c.name,
                            meta: c.meta,
                        });
                        let args = !first.is_empty();
                        if args {
                            out.push(StreamPart::ToolDelta { part, json: first });
                        }
                        self.calls.push((index, part, args));
                    }
                    // A call without a name: kept whole, as in a whole response.
                    other => out.push(StreamPart::Whole {
                        part,
                        choice: 0,
                        content: other,
                    }),
                }
            }
            w::StreamEvent::ToolCallDelta(e) => {
                let index = e.index.unwrap_or(0);
                let json = match e
                    .delta
                    .and_then(|d| d.message)
                    .and_then(|m| m.tool_calls)
                    .and_then(|c| c.function)
                    .and_then(|f| f.arguments)
                {
                    Some(wire_types::Arguments::Text(t)) => t,
                    Some(wire_types::Arguments::Json(v)) => v.to_string(),
                    None => String::new(),
                };
                let Some((_, part, args)) = self.calls.iter_mut().find(|(i, _, _)| *i == index)
                else {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        "",
                        format!("a cohere tool-call-delta for call {index}, which never started"),
                    );
                    return Ok(());
                };
                if !json.is_empty() {
                    *args = true;
                    out.push(StreamPart::ToolDelta { part: *part, json });
                }
            }
            w::StreamEvent::ToolCallEnd(e) => self.end_call(e.index.unwrap_or(0), out),
            w::StreamEvent::CitationStart(e) => {
                if let Some(c) = e.delta.and_then(|d| d.message).and_then(|m| m.citations) {
                    self.citations.push(wire_types::to_value(&c));
                }
            }
            w::StreamEvent::CitationEnd(_) => {}
            w::StreamEvent::MessageEnd(e) => {
                self.end_all(out);
                self.ended = true;
                let d = e.delta.unwrap_or_default();
                if let Some(u) = d.usage {
                    out.push(StreamPart::Usage(decode_usage(u, ctx)));
                }
                let mut vendor = Vendor::from_extra(F, &d.extra, &[]);
                if !self.citations.is_empty() {
                    let citations = std::mem::take(&mut self.citations);
                    vendor.set_field(F, "citations", Value::Array(citations));
                }
                if let Some(message) = d.error {
                    out.push(StreamPart::Error(StreamError {
                        kind: StreamErrorKind::Provider,
                        code: d.finish_reason.as_ref().map(|f| f.as_str().to_owned()),
                        message: message.clone(),
                        value: Some(Value::String(message)),
                    }));
                }
                out.push(StreamPart::Finish {
                    choice: 0,
                    stop_reason: d.finish_reason.as_ref().map(stop_reason),
                    vendor,
                });
            }
            w::StreamEvent::Debug(d) => {
                let mut vendor = Vendor::default();
                vendor.set_field(F, "debug", wire_types::to_value(&d));
                out.push(StreamPart::ResponseMeta(vendor));
            }
            other => {
                let v = wire_types::to_value(&other);
                let kind = v.get("type").and_then(Value::as_str).unwrap_or("?");
                let detail = format!("a cohere stream event `{kind}` has no neutral part");
                self.once(ctx, kind, &detail);
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.ended {
            self.end_all(out);
            out.push(incomplete(F));
        }
        Ok(())
    }
}

/// A text or reasoning delta.
fn delta(part: PartId, reasoning: bool, text: String) -> StreamPart {
    if reasoning {
        StreamPart::ReasoningDelta { part, text }
    } else {
        StreamPart::TextDelta { part, text }
    }
}

impl Decoder {
    /// A loss reported once per `key`.
    fn once(&mut self, ctx: &mut Ctx<'_>, key: &str, detail: &str) {
        if !self.reported.iter().any(|k| k == key) {
            self.reported.push(key.to_owned());
            ctx.dropped(LossCode::PartUnsupported, "", detail.to_owned());
        }
    }

    fn end_content(&mut self, index: u32, out: &mut Parts) {
        if let Some(i) = self.content.iter().position(|(x, _, _)| *x == index) {
            let (_, part, _) = self.content.remove(i);
            out.push(StreamPart::End { part });
        }
    }

    fn end_plan(&mut self, out: &mut Parts) {
        if let Some(part) = self.plan.take() {
            out.push(StreamPart::End { part });
        }
    }

    fn end_call(&mut self, index: u32, out: &mut Parts) {
        if let Some(i) = self.calls.iter().position(|(x, _, _)| *x == index) {
            let (_, part, args) = self.calls.remove(i);
            if !args {
                // A call without arguments (no delta): `{}`.
                out.push(StreamPart::ToolDelta {
                    part,
                    json: "{}".to_owned(),
                });
            }
            out.push(StreamPart::End { part });
        }
    }

    fn end_all(&mut self, out: &mut Parts) {
        while let Some((index, _, _)) = self.content.first().copied() {
            self.end_content(index, out);
        }
        self.end_plan(out);
        while let Some((index, _, _)) = self.calls.first().copied() {
            self.end_call(index, out);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// What an open part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// A content item (`thinking`: a thinking item) at its index.
    Content { index: u32, thinking: bool },
    /// The tool plan.
    Plan,
    /// A call at its index.
    Call(u32),
    /// Left out (another choice, reasoning dropped): its deltas with it.
    Dropped,
}

/// The v2 chat stream encoder: `message-start` first, content items, the tool plan and
/// calls as they come (index-keyed), the citations of the finish, then `message-end`
/// with the finish reason and usage (at the end: usage may follow the finish). An error
/// is a `message-end` with `finish_reason: ERROR` and its `error`.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    started: bool,
    open: Vec<(PartId, Open)>,
    next_content: u32,
    next_call: u32,
    source: Option<crate::Format>,
    usage: Option<Usage>,
    finish: Option<Option<StopReason>>,
    ended: bool,
}

fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
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
    fn start(&mut self, s: StreamStart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.started = true;
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
            Open::Plan | Open::Dropped => Ok(()),
        }
    }

    fn end_all(&mut self, out: &mut Events) -> Result<(), Error> {
        while let Some((part, _)) = self.open.first().copied() {
            self.end_part(part, out)?;
        }
        Ok(())
    }

    fn choice_ok(&mut self, part: PartId, choice: u32, ctx: &mut Ctx<'_>) -> bool {
        if choice == 0 {
            return true;
        }
        self.open.push((part, Open::Dropped));
        ctx.dropped(
            LossCode::ChoicesDropped,
            at(part),
            format!("cohere streams one message: a part of choice {choice} is not sent"),
        );
        false
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
        self.ended = true;
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

    fn whole(
        &mut self,
        part: PartId,
        content: Part,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        match content {
            Part::Text(t) => {
                ctx.report_unwritten_fields(&t.meta.vendor, &at(part));
                part_meta(&t.meta, &at(part), ctx);
                self.open_content(part, false, out)?;
                self.text(part, t.text, out)?;
                self.end_part(part, out)
            }
            Part::Reasoning(r) => {
                let plan = r.meta.vendor.flag(F, TOOL_PLAN);
                if plan {
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
            Part::ToolCall(c) => {
                part_meta(&c.meta, &at(part), ctx);
                ctx.report_unwritten_fields(&c.meta.vendor, &at(part));
                self.open_call(part, c.id, c.name, out)?;
                self.args(part, c.arguments.text(), out)?;
                self.end_part(part, out)
            }
            other => {
                let what = match &other {
                    Part::Opaque(o) => format!("a {} part", o.format),
                    p => format!("a {} part", p.kind()),
                };
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at(part),
                    format!("{what} has no place in a cohere stream"),
                );
                Ok(())
            }
        }
    }
}

impl EventEncoder for Encoder {
    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        if !self.started {
            let start = match &part {
                StreamPart::Start(s) => s.clone(),
                _ => StreamStart::default(),
            };
            self.start(start, out, ctx)?;
        }
        match part {
            StreamPart::Start(_) => {}
            StreamPart::TextStart { part, choice, meta } => {
                if self.choice_ok(part, choice, ctx) {
                    ctx.report_unwritten_fields(&meta.vendor, &at(part));
                    part_meta(&meta, &at(part), ctx);
                    self.open_content(part, false, out)?;
                }
            }
            StreamPart::TextDelta { part, text } | StreamPart::ReasoningDelta { part, text } => {
                self.text(part, text, out)?;
            }
            StreamPart::ReasoningStart {
                part,
                choice,
                id,
                meta,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                if ctx.options.reasoning == ReasoningMode::Drop && self.source != Some(F) {
                    self.open.push((part, Open::Dropped));
                    ctx.dropped(
                        LossCode::ReasoningDropped,
                        at(part),
                        "reasoning dropped (option reasoning = drop)",
                    );
                    return Ok(());
                }
                if let Some(id) = id {
                    ctx.dropped(
                        LossCode::SignatureForeign,
                        format!("{}/id", at(part)),
                        format!("reasoning item id `{id}` means nothing to cohere"),
                    );
                }
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                part_meta(&meta, &at(part), ctx);
                if meta.vendor.flag(F, TOOL_PLAN) {
                    self.open.push((part, Open::Plan));
                } else {
                    self.open_content(part, true, out)?;
                }
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if self.kind(part).is_some_and(|k| k != Open::Dropped) {
                    ctx.changed(
                        LossCode::PartChanged,
                        format!("{}/summary", at(part)),
                        "cohere has no reasoning summary: the summary is sent as thinking",
                    );
                }
                self.text(part, text, out)?;
            }
            StreamPart::Signature {
                part,
                token,
                encrypted,
            } => {
                if self.kind(part).is_some_and(|k| k != Open::Dropped) {
                    let (field, what) = if encrypted {
                        ("encrypted", "encrypted reasoning")
                    } else {
                        ("signature", "a reasoning signature")
                    };
                    ctx.report_unplaced_token(
                        Some(&token),
                        format_args!("{}/{field}", at(part)),
                        what,
                    );
                }
            }
            StreamPart::ToolStart {
                part,
                choice,
                id,
                name,
                meta,
                ..
            } => {
                if self.choice_ok(part, choice, ctx) {
                    part_meta(&meta, &at(part), ctx);
                    ctx.report_unwritten_fields(&meta.vendor, &at(part));
                    self.open_call(part, id, name, out)?;
                }
            }
            StreamPart::ToolDelta { part, json } => self.args(part, json, out)?,
            StreamPart::Whole {
                part,
                choice,
                content,
            } => {
                if self.choice_ok(part, choice, ctx) {
                    self.whole(part, content, out, ctx)?;
                }
            }
            StreamPart::Meta { part, meta } => {
                if self.kind(part).is_some_and(|k| k != Open::Dropped) {
                    ctx.report_unwritten_fields(&meta.vendor, &at(part));
                    part_meta(&meta, &at(part), ctx);
                }
            }
            StreamPart::End { part } => self.end_part(part, out)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish {
                choice,
                stop_reason,
                vendor,
            } => {
                if choice == 0 {
                    self.end_all(out)?;
                    self.citations(&vendor, out, ctx)?;
                    self.finish = Some(stop_reason);
                }
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
                let message = match &e.code {
                    Some(code) => format!("{code}: {}", e.message),
                    None => e.message,
                };
                self.message_end(Some(w::FinishReason::Error), Some(message), out, ctx)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        if !self.started {
            self.start(StreamStart::default(), out, ctx)?;
        }
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
                Some("the source stream ended before it finished".to_owned()),
                out,
                ctx,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::F;
    use crate::model::Part;
    use crate::stream::{
        Accumulator, Framing, PartId, StreamDecoder, StreamEncoder, StreamErrorKind, StreamPart,
    };
    use crate::{Error, Format, Options};
    use serde_json::{Value, json};
    use wire_types::cohere as w;

    fn chunks(values: &[Value]) -> Vec<u8> {
        let mut out = String::new();
        for v in values {
            out.push_str(&format!("data: {v}\n\n"));
        }
        out.into_bytes()
    }

    fn decode(bytes: &[u8]) -> Vec<StreamPart> {
        let mut d = StreamDecoder::new(F, &Options::default()).unwrap();
        let mut parts = d.push(bytes).unwrap();
        parts.extend(d.finish().unwrap());
        parts
    }

    fn accumulate(parts: Vec<StreamPart>) -> Result<crate::model::Response, Error> {
        let mut acc = Accumulator::new();
        acc.extend(parts);
        acc.finish()
    }

    /// The JSON of each event an encoder wrote (SSE `data:` lines).
    fn events(bytes: &[u8]) -> Vec<Value> {
        std::str::from_utf8(bytes)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }

    fn start() -> Value {
        json!({"id": "r1", "type": "message-start", "delta": {"message": {"role": "assistant"}}})
    }

    fn call_start(index: u32, id: Option<&str>, name: &str, args: &str) -> Value {
        let mut call = json!({"type": "function", "function": {"name": name, "arguments": args}});
        if let Some(id) = id {
            call["id"] = json!(id);
        }
        json!({"type": "tool-call-start", "index": index,
            "delta": {"message": {"tool_calls": call}}})
    }

    fn call_delta(index: u32, args: &str) -> Value {
        json!({"type": "tool-call-delta", "index": index,
            "delta": {"message": {"tool_calls": {"function": {"arguments": args}}}}})
    }

    fn end(kind: &str, index: u32) -> Value {
        json!({"type": kind, "index": index})
    }

    fn message_end(delta: Value) -> Value {
        json!({"type": "message-end", "delta": delta})
    }

    fn calls(r: &crate::model::Response) -> Vec<(String, String, String)> {
        r.choices[0]
            .message
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolCall(c) => Some((c.id.clone(), c.name.clone(), c.arguments.text())),
                _ => None,
            })
            .collect()
    }

    /// Calls that reuse an index stay apart; a call without an id gets the whole body's
    /// synthetic id; a call without arguments ends with `{}`.
    #[test]
    fn calls_stay_apart_and_get_the_whole_body_ids() {
        let parts = decode(&chunks(&[
            start(),
            call_start(0, Some("a_1"), "a", ""),
            call_delta(0, "{\"x\":"),
            call_delta(0, "1}"),
            end("tool-call-end", 0),
            call_start(0, None, "b", ""),
            end("tool-call-end", 0),
            message_end(json!({"finish_reason": "TOOL_CALL"})),
        ]));
        let streamed = accumulate(parts).unwrap();
        let whole = crate::decode_response_value(
            &json!({"id": "r1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant",
                "tool_calls": [
                    {"id": "a_1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
                    {"type": "function", "function": {"name": "b", "arguments": "{}"}}]}}),
            F,
            &Options::default(),
        )
        .unwrap()
        .value;
        assert_eq!(calls(&streamed), calls(&whole));
        assert_eq!(calls(&streamed)[1].0, "call_0_1_b");
        assert_eq!(calls(&streamed)[1].2, "{}");
        assert_eq!(
            streamed.choices[0].stop_reason,
            whole.choices[0].stop_reason
        );
    }

    /// The tool plan is reasoning with the `tool_plan` hint, before the calls, as the
    /// whole body decodes it.
    #[test]
    fn the_tool_plan_is_where_the_whole_body_puts_it() {
        let parts = decode(&chunks(&[
            start(),
            json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will "}}}),
            json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "look."}}}),
            call_start(0, Some("a_1"), "a", "{}"),
            end("tool-call-end", 0),
            message_end(json!({"finish_reason": "TOOL_CALL"})),
        ]));
        let streamed = accumulate(parts).unwrap();
        let whole = crate::decode_response_value(
            &json!({"id": "r1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant",
                "tool_plan": "I will look.", "tool_calls": [
                    {"id": "a_1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}}),
            F,
            &Options::default(),
        )
        .unwrap()
        .value;
        assert_eq!(
            streamed.choices[0].message.content,
            whole.choices[0].message.content
        );
    }

    #[test]
    fn an_error_at_the_end_is_a_provider_error_and_no_end_is_incomplete() {
        let parts = decode(&chunks(&[
            start(),
            message_end(json!({"finish_reason": "ERROR", "error": "overloaded"})),
        ]));
        assert!(parts.iter().any(|p| matches!(
            p,
            StreamPart::Error(e) if e.kind == StreamErrorKind::Provider && e.message == "overloaded"
        )));
        assert!(accumulate(parts).is_err());
        let parts = decode(&chunks(&[start(), call_start(0, Some("a_1"), "a", "")]));
        assert!(matches!(
            parts.last(),
            Some(StreamPart::Error(e)) if e.kind == StreamErrorKind::Incomplete
        ));
        assert!(matches!(accumulate(parts), Err(Error::Incomplete { .. })));
    }

    /// Text goes out as it comes; the finish reason and usage wait for the end.
    #[test]
    fn the_encoder_writes_each_event_as_it_comes() {
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let first = events(
            &e.encode(StreamPart::TextStart {
                part: PartId(0),
                choice: 0,
                meta: Default::default(),
            })
            .unwrap(),
        );
        assert_eq!(first[0]["type"], "message-start");
        assert_eq!(first[1]["type"], "content-start");
        let delta = events(
            &e.encode(StreamPart::TextDelta {
                part: PartId(0),
                text: "Hi".to_owned(),
            })
            .unwrap(),
        );
        assert_eq!(delta[0]["delta"]["message"]["content"]["text"], "Hi");
        let call = events(
            &e.encode(StreamPart::ToolStart {
                part: PartId(1),
                choice: 0,
                id: "c1".to_owned(),
                synthetic_id: false,
                name: "f".to_owned(),
                meta: Default::default(),
            })
            .unwrap(),
        );
        assert_eq!(call[0]["type"], "tool-call-start");
        assert_eq!(call[0]["index"], 0);
        e.encode(StreamPart::Finish {
            choice: 0,
            stop_reason: Some(crate::model::StopReason::new(
                crate::model::StopKind::ToolUse,
            )),
            vendor: Default::default(),
        })
        .unwrap();
        e.encode(StreamPart::Usage(crate::model::Usage {
            input_tokens: Some(3),
            output_tokens: Some(4),
            ..Default::default()
        }))
        .unwrap();
        let last = events(&e.finish().unwrap());
        let end = last.last().unwrap();
        assert_eq!(end["type"], "message-end");
        assert_eq!(end["delta"]["finish_reason"], "TOOL_CALL");
        assert_eq!(end["delta"]["usage"]["tokens"]["output_tokens"], 4);
    }

    #[test]
    fn the_debug_prompt_goes_back_as_a_debug_event() {
        let stream = chunks(&[
            start(),
            json!({"type": "debug", "prompt": "<prompt>"}),
            message_end(json!({"finish_reason": "COMPLETE"})),
        ]);
        let parts = decode(&stream);
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let mut out = e.encode_all(parts.clone()).unwrap();
        out.extend(e.finish().unwrap());
        assert!(
            events(&out)
                .iter()
                .any(|v| v["type"] == "debug" && v["prompt"] == "<prompt>")
        );
        assert_eq!(decode(&out), parts);
    }

    /// Every stream fixture of every format with a decoder, written as a Cohere stream:
    /// each event reads as a Cohere event and is valid against the SDK's event type;
    /// Cohere's own fixtures read back to the same parts.
    #[test]
    fn every_event_written_is_valid_and_cohere_streams_round_trip() {
        let schema = test_support::conformance("cohere.event").unwrap();
        let mut checked = 0;
        for f in test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]) {
            let Ok(format) = f.format.parse::<Format>() else {
                continue;
            };
            let framing = if f.name.ends_with(".sse.txt") {
                Framing::Sse
            } else {
                Framing::Ndjson
            };
            let bytes = std::fs::read(&f.path).unwrap();
            let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).unwrap();
            let Ok(parts) = d.push(&bytes).and_then(|mut p| {
                p.extend(d.finish()?);
                Ok(p)
            }) else {
                continue;
            };
            let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
            let mut out = e.encode_all(parts.clone()).unwrap();
            out.extend(e.finish().unwrap());
            for event in events(&out) {
                wire_types::from_value::<w::StreamEvent>(&event)
                    .unwrap_or_else(|e| panic!("{}: {e}: {event}", f.rel()));
                let errors = test_support::schema_errors(schema, &event);
                assert!(errors.is_empty(), "{}: {event}: {errors:?}", f.rel());
            }
            if format == F {
                assert_eq!(decode(&out), parts, "{}", f.rel());
            }
            checked += 1;
        }
        assert!(checked > 5);
    }
}
