//! Decoding: the stream's events in, neutral stream parts out.

use super::super::F;
use super::super::decode::decode_call;
use super::super::hints::TOOL_PLAN;
use super::super::response::{decode_usage, stop_reason};
use crate::model::{Part, PartMeta, Vendor};
use crate::stream::{
    Event, EventDecoder, Finish, Once, Over, PartId, Parts, StreamPart, StreamStart, Whole,
    call_start, end_call, event_type, incomplete, provider_error, read,
};
use crate::{Ctx, Error, LossCode};
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
    /// `message-end` came.
    over: Over,
    /// What was reported once: unknown event types, `logprobs`.
    reported: Once,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = read::<w::StreamEvent>(event.data)?;
        if self.over.after(
            false,
            ctx,
            || "events after message-end are not part of the message: left out",
        ) {
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
                    self.reported.report(
                        "content-start",
                        "a content-start without content: left out".to_owned(),
                        ctx,
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
                    self.reported.report(
                        "logprobs",
                        "logprobs of a stream have no neutral part".to_owned(),
                        ctx,
                    );
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
                        let (start, args) = call_start(part, 0, c);
                        let first = args.text();
                        out.push(start);
                        let args = !first.is_empty();
                        if args {
                            out.push(StreamPart::ToolDelta { part, json: first });
                        }
                        self.calls.push((index, part, args));
                    }
                    // A call without a name: kept whole, as in a whole response.
                    other => out.push(StreamPart::Whole(Whole {
                        part,
                        choice: 0,
                        content: other,
                    })),
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
                self.over.end();
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
                    let code = d.finish_reason.as_ref().map(|f| f.as_str().to_owned());
                    out.push(provider_error(code, message.clone(), &message));
                }
                out.push(StreamPart::Finish(Finish {
                    choice: 0,
                    stop_reason: d.finish_reason.as_ref().map(stop_reason),
                    vendor,
                }));
            }
            w::StreamEvent::Debug(d) => {
                let mut vendor = Vendor::default();
                vendor.set_field(F, "debug", wire_types::to_value(&d));
                out.push(StreamPart::ResponseMeta(vendor));
            }
            other => {
                self.reported
                    .unknown_event("a cohere", &event_type(&other), ctx);
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.over.is_over() {
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
            end_call(part, args, out);
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
