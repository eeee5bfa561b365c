//! Decoding: the stream's events in, neutral stream parts out.

use super::super::Place;
use super::super::decode::decode_block;
use super::super::response::{decode_response, decode_usage, stop_reason_of};
use super::super::{F, w};
use crate::model::{Part, PartMeta, Signed, StopReason, Vendor};
use crate::stream::{
    Event, EventDecoder, Finish, Once, Over, PartId, Parts, Signature, StreamPart, StreamStart,
    Whole, call_start, event_type, held_arguments, incomplete, provider_error, read,
    reasoning_start,
};
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
/// What an open block is, by its `index`.
#[derive(Debug)]
enum Open {
    Text {
        part: PartId,
        /// Citations so far (sent at the stop, as the block's `citations` field).
        citations: Vec<Value>,
    },
    Thinking(PartId),
    Tool {
        part: PartId,
        /// The `input` of `content_block_start` as text, used when no delta comes.
        start_input: String,
        deltas: bool,
    },
    /// A block kept whole that deltas fill in: a server tool's `input`
    /// (`server_tool_use`), a compaction's `content`.
    Whole {
        part: PartId,
        value: Value,
        input: String,
    },
    /// A block sent whole at its start: nothing more to do.
    Done,
}

/// The Messages stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    open: Vec<(u32, Open)>,
    /// Usage as the wire said it so far: `message_start`'s, with `message_delta`'s counts
    /// laid over it.
    usage: Option<Value>,
    stop_reason: Option<StopReason>,
    /// `message_stop` came.
    over: Over,
    /// Event types reported as having no neutral part (each once).
    unknown: Once,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = read::<w::StreamEvent>(event.data)?;
        let ping = matches!(event, w::StreamEvent::Ping(_));
        if self.over.after(
            ping,
            ctx,
            || "events after message_stop are not part of the message: left out",
        ) {
            return Ok(());
        }
        match event {
            w::StreamEvent::MessageStart(s) => {
                if out.started() {
                    // A repeated `message_start` (some servers send two) starts nothing.
                    return Ok(());
                }
                let usage = s.message.usage.as_ref().map(wire_types::to_value);
                let r = decode_response(s.message, ctx)?;
                out.start(StreamStart {
                    format: Some(F),
                    id: r.id,
                    model: r.model,
                    created: r.created,
                    vendor: r.vendor,
                });
                if let Some(u) = r.usage {
                    out.push(StreamPart::Usage(u));
                }
                self.usage = usage;
            }
            w::StreamEvent::ContentBlockStart(s) => self.start(s.index, s.content_block, out, ctx),
            w::StreamEvent::ContentBlockDelta(d) => self.delta(d.index, d.delta, out, ctx),
            w::StreamEvent::ContentBlockStop(s) => self.stop(s.index, out),
            w::StreamEvent::MessageDelta(d) => {
                if let Some(r) = &d.delta.stop_reason {
                    self.stop_reason = Some(stop_reason_of(r));
                }
                let mut vendor = Vendor::default();
                vendor.keep(F, "stop_sequence", &d.delta.stop_sequence);
                vendor.keep(F, "stop_details", &d.delta.stop_details);
                vendor.keep(F, "container", &d.delta.container);
                vendor.keep(F, "context_management", &d.context_management);
                // What else the delta changes on the message stays with it.
                for (k, v) in d.delta.extra.fields() {
                    vendor.set_field(F, k, v.clone());
                }
                if !vendor.is_empty() {
                    out.push(StreamPart::ResponseMeta(vendor));
                }
                if let Some(u) = d.usage {
                    let later = wire_types::to_value(&u);
                    let merged = match (self.usage.take(), later) {
                        (Some(Value::Object(mut so_far)), Value::Object(l)) => {
                            so_far.extend(l);
                            Value::Object(so_far)
                        }
                        (_, l) => l,
                    };
                    let wire: w::Usage = read(&merged.to_string())?;
                    out.push(StreamPart::Usage(decode_usage(wire)));
                    self.usage = Some(merged);
                }
            }
            w::StreamEvent::MessageStop(_) => {
                self.close_all(out);
                self.over.end();
                out.push(StreamPart::Finish(Finish {
                    choice: 0,
                    stop_reason: self.stop_reason.take(),
                    vendor: Vendor::default(),
                }));
            }
            w::StreamEvent::Ping(_) => {}
            w::StreamEvent::Error(e) => out.push(provider_error(
                e.error.kind.clone(),
                e.error.message.clone().unwrap_or_default(),
                &e.error,
            )),
            other => {
                // An event this decoder does not know (new, or typed later).
                self.unknown
                    .unknown_event("an anthropic", &event_type(&other), ctx);
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.over.is_over() {
            self.close_all(out);
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    fn start(&mut self, index: u32, block: w::ContentBlock, out: &mut Parts, ctx: &mut Ctx<'_>) {
        // Kept whole, but filled in by deltas: a server tool's input, a compaction's text.
        let streams_input = matches!(&block, w::ContentBlock::Compaction(_))
            || matches!(&block, w::ContentBlock::Other(v)
                if v.get("input").is_some_and(Value::is_object));
        let part = decode_block(block, Place::Response, ctx);
        let id = out.id();
        let open = match part {
            Part::Text(t) => {
                let mut meta = t.meta;
                let citations = match meta.vendor.fields.shift_remove("citations") {
                    Some(Value::Array(c)) => c,
                    _ => Vec::new(),
                };
                out.push(StreamPart::TextStart {
                    part: id,
                    choice: 0,
                    meta,
                });
                if !t.text.is_empty() {
                    out.push(StreamPart::TextDelta {
                        part: id,
                        text: t.text,
                    });
                }
                Open::Text {
                    part: id,
                    citations,
                }
            }
            Part::Reasoning(r) => {
                let (start, r) = reasoning_start(id, 0, r);
                out.push(start);
                if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                    out.push(StreamPart::ReasoningDelta { part: id, text });
                }
                for (token, encrypted) in [(r.signature, false), (r.encrypted, true)] {
                    if let Some(token) = token.filter(|t| !t.value.is_empty()) {
                        out.push(StreamPart::Signature(Signature {
                            part: id,
                            token,
                            encrypted,
                        }));
                    }
                }
                Open::Thinking(id)
            }
            Part::ToolCall(c) => {
                let (start, args) = call_start(id, 0, c);
                let start_input = args.text();
                out.push(start);
                Open::Tool {
                    part: id,
                    start_input,
                    deltas: false,
                }
            }
            Part::Opaque(o) if streams_input => Open::Whole {
                part: id,
                value: o.value,
                input: String::new(),
            },
            whole => {
                out.push(StreamPart::Whole(Whole {
                    part: id,
                    choice: 0,
                    content: whole,
                }));
                Open::Done
            }
        };
        self.open.retain(|(i, _)| *i != index);
        self.open.push((index, open));
    }

    fn delta(&mut self, index: u32, delta: w::BlockDelta, out: &mut Parts, ctx: &mut Ctx<'_>) {
        let Some((_, open)) = self.open.iter_mut().find(|(i, _)| *i == index) else {
            // A delta for a block that never started: nothing to add it to.
            ctx.dropped(
                LossCode::PartUnsupported,
                "",
                format!("an anthropic delta for block {index}, which never started"),
            );
            return;
        };
        match (open, delta) {
            (Open::Text { part, .. }, w::BlockDelta::Text(t)) => out.push(StreamPart::TextDelta {
                part: *part,
                text: t.text,
            }),
            (Open::Text { citations, .. }, w::BlockDelta::Citations(c)) => {
                citations.push(c.citation);
            }
            (Open::Thinking(part), w::BlockDelta::Thinking(t)) => {
                out.push(StreamPart::ReasoningDelta {
                    part: *part,
                    text: t.thinking,
                });
            }
            (Open::Thinking(part), w::BlockDelta::Signature(s)) => {
                out.push(StreamPart::Signature(Signature {
                    part: *part,
                    token: Signed {
                        value: s.signature,
                        format: F,
                    },
                    encrypted: false,
                }));
            }
            (Open::Tool { part, deltas, .. }, w::BlockDelta::InputJson(j)) => {
                // The first delta is often empty: nothing to send.
                if !j.partial_json.is_empty() {
                    *deltas = true;
                    out.push(StreamPart::ToolDelta {
                        part: *part,
                        json: j.partial_json,
                    });
                }
            }
            (Open::Whole { input, .. }, w::BlockDelta::InputJson(j)) => {
                input.push_str(&j.partial_json);
            }
            (Open::Whole { value, .. }, w::BlockDelta::Compaction(c)) => {
                if let Some(m) = value.as_object_mut() {
                    // Each delta carries the whole summary: it replaces the content, as the
                    // SDK's accumulator does (an explicit `null`: compaction failed).
                    for (key, value) in [
                        ("content", c.content),
                        ("encrypted_content", c.encrypted_content),
                    ] {
                        match value {
                            Some(v) => {
                                m.insert(key.to_owned(), Value::String(v));
                            }
                            None if c.extra.was_null(key) => {
                                m.insert(key.to_owned(), Value::Null);
                            }
                            None => {}
                        }
                    }
                }
            }
            (_, other) => {
                let kind = match &other {
                    w::BlockDelta::Other(v) => v.get("type").and_then(Value::as_str).unwrap_or("?"),
                    _ => "a delta of another kind",
                }
                .to_owned();
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    format!("anthropic delta `{kind}` for block {index} has no neutral place"),
                );
            }
        }
    }

    fn stop(&mut self, index: u32, out: &mut Parts) {
        if let Some(i) = self.open.iter().position(|(i, _)| *i == index) {
            let (_, open) = self.open.remove(i);
            close(open, out);
        }
    }

    fn close_all(&mut self, out: &mut Parts) {
        for (_, open) in std::mem::take(&mut self.open) {
            close(open, out);
        }
    }
}

/// The parts that end an open block.
fn close(open: Open, out: &mut Parts) {
    match open {
        Open::Text { part, citations } => {
            if !citations.is_empty() {
                let mut meta = PartMeta::default();
                meta.vendor
                    .set_field(F, "citations", Value::Array(citations));
                out.push(StreamPart::Meta { part, meta });
            }
            out.push(StreamPart::End { part });
        }
        Open::Thinking(part) => out.push(StreamPart::End { part }),
        Open::Tool {
            part,
            start_input,
            deltas,
        } => {
            if !deltas {
                // No delta: the start's input is the input (`{}` for a call without
                // arguments).
                let json = held_arguments(start_input);
                out.push(StreamPart::ToolDelta { part, json });
            }
            out.push(StreamPart::End { part });
        }
        Open::Whole {
            part,
            mut value,
            input,
        } => {
            if !input.trim().is_empty() {
                if let (Ok(v), Some(m)) =
                    (serde_json::from_str::<Value>(&input), value.as_object_mut())
                {
                    m.insert("input".to_owned(), v);
                }
            }
            out.push(StreamPart::Whole(Whole {
                part,
                choice: 0,
                content: Part::Opaque(crate::model::Opaque {
                    format: F,
                    value,
                    meta: PartMeta::default(),
                }),
            }));
        }
        Open::Done => {}
    }
}
