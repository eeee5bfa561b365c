//! Decoding: the stream's events in, neutral stream parts out.

use super::super::F;
use super::super::hints::{DONE, NO_MESSAGE};
use super::super::response::{decode_response, stop_of};
use crate::model::{Message, Part, ToolCall, Vendor};
use crate::stream::{
    Event, EventDecoder, Finish, Over, PartId, Parts, StreamPart, StreamStart, Whole, call_start,
    held_arguments, incomplete, provider_error, read,
};
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::ollama as w;
/// What kind of part is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Running {
    Text,
    Reasoning,
}

/// The `/api/chat` stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// The text or reasoning part still open.
    open: Option<(PartId, Running)>,
    /// Calls so far (the position of the next one among the turn's calls).
    calls: usize,
    /// The `done: true` line came.
    over: Over,
    /// `/api/generate` lines were read (reported once).
    generate: bool,
    /// Message fields with no stream part, reported once each.
    unplaced: Vec<String>,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let mut line = match read::<w::StreamEvent>(event.data)? {
            w::StreamEvent::Error(e) => {
                self.close(out);
                out.push(provider_error(None, e.error.clone(), &e));
                return Ok(());
            }
            w::StreamEvent::Chunk(line) => line,
        };
        if self.over.after(
            false,
            ctx,
            || "lines after the `done: true` line are not part of the response: left out",
        ) {
            return Ok(());
        }
        if line.message.is_none() {
            self.generate_line(&mut line, ctx);
        }
        let done = line.done == Some(true);
        let done_reason = line.done_reason.clone();
        let first = !out.started();
        let mut r = decode_response(line, ctx)?;
        let mut vendor = std::mem::take(&mut r.vendor);
        // Whether this is the last line is the finish's to say.
        vendor.hints.remove(DONE);
        if !done {
            // A message-less line (a keep-alive) says nothing of the response's message.
            vendor.hints.remove(NO_MESSAGE);
        }
        if first {
            out.start(StreamStart {
                format: Some(F),
                id: None,
                model: r.model.take(),
                created: r.created,
                vendor: if done {
                    Vendor::default()
                } else {
                    std::mem::take(&mut vendor)
                },
            });
        } else {
            // Each line has its time: the response's is the first line's.
            vendor.fields.remove("created_at");
        }
        if !done && vendor.fields.remove("logprobs").is_some() {
            self.unplaced(ctx, "logprobs");
        }
        if let Some(choice) = r.choices.pop() {
            self.message(choice.message, out, ctx);
        }
        if done {
            self.close(out);
            vendor.set_hint(F, DONE, true);
            out.push(StreamPart::ResponseMeta(vendor));
            if let Some(u) = r.usage {
                out.push(StreamPart::Usage(u));
            }
            let (stop_reason, vendor) = stop_of(done_reason.as_ref(), Some(true), self.calls > 0);
            self.over.end();
            out.push(StreamPart::Finish(Finish {
                choice: 0,
                stop_reason,
                vendor,
            }));
        } else if !vendor.fields.is_empty() {
            vendor.hints = Default::default();
            out.push(StreamPart::ResponseMeta(vendor));
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.over.is_over() {
            self.close(out);
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    /// An `/api/generate` line: its `response` and top-level `thinking` become a message.
    fn generate_line(&mut self, line: &mut w::Response, ctx: &mut Ctx<'_>) {
        let text = match line.extra.remove("response") {
            Some(Value::String(t)) => t,
            Some(other) => {
                line.extra.insert("response".to_owned(), other);
                return;
            }
            None => return,
        };
        let thinking = match line.extra.remove("thinking") {
            Some(Value::String(t)) => Some(t),
            Some(other) => {
                line.extra.insert("thinking".to_owned(), other);
                None
            }
            None => None,
        };
        if !self.generate {
            self.generate = true;
            ctx.changed(
                LossCode::StreamChanged,
                "/response",
                "an /api/generate stream: its `response` text is read as the message's content",
            );
        }
        line.message = Some(w::Message {
            role: w::Role::Assistant,
            content: Some(text),
            thinking,
            images: None,
            tool_calls: None,
            tool_name: None,
            tool_call_id: None,
            extra: wire_types::Extra::new(),
        });
    }

    /// A message field that has no stream part, reported once.
    fn unplaced(&mut self, ctx: &mut Ctx<'_>, key: &str) {
        if !self.unplaced.iter().any(|k| k == key) {
            self.unplaced.push(key.to_owned());
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/{key}"),
                format!("`{key}` of a stream line has no neutral stream part: left out"),
            );
        }
    }

    /// The parts of one line's message.
    fn message(&mut self, m: Message, out: &mut Parts, ctx: &mut Ctx<'_>) {
        if let Some(fields) = m.vendor.fields_for(F) {
            let keys: Vec<String> = fields.keys().cloned().collect();
            for k in keys {
                self.unplaced(ctx, &format!("message/{k}"));
            }
        }
        for p in m.content {
            match p {
                Part::Text(t) => {
                    if !t.text.is_empty() {
                        let part = self.running(Running::Text, out);
                        out.push(StreamPart::TextDelta { part, text: t.text });
                    }
                }
                Part::Reasoning(r) => {
                    if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                        let part = self.running(Running::Reasoning, out);
                        out.push(StreamPart::ReasoningDelta { part, text });
                    }
                }
                Part::ToolCall(c) => {
                    self.close(out);
                    let id = if c.synthetic_id {
                        crate::ids::synthetic_id("/choices/0", self.calls, &c.name)
                    } else {
                        c.id
                    };
                    self.calls += 1;
                    let part = out.id();
                    let (start, args) = call_start(part, 0, ToolCall { id, ..c });
                    out.push(start);
                    // Ollama sends a call whole: its arguments in one delta, `{}` when none.
                    let json = held_arguments(args.text());
                    out.push(StreamPart::ToolDelta { part, json });
                    out.push(StreamPart::End { part });
                }
                other => {
                    self.close(out);
                    let part = out.id();
                    out.push(StreamPart::Whole(Whole {
                        part,
                        choice: 0,
                        content: other,
                    }));
                }
            }
        }
    }

    /// The open part of `kind`, opened now (ending another) if need be.
    fn running(&mut self, kind: Running, out: &mut Parts) -> PartId {
        if let Some((part, k)) = self.open {
            if k == kind {
                return part;
            }
        }
        self.close(out);
        let part = out.id();
        out.push(match kind {
            Running::Text => StreamPart::TextStart {
                part,
                choice: 0,
                meta: Default::default(),
            },
            Running::Reasoning => StreamPart::ReasoningStart {
                part,
                choice: 0,
                id: None,
                meta: Default::default(),
            },
        });
        self.open = Some((part, kind));
        part
    }

    fn close(&mut self, out: &mut Parts) {
        if let Some((part, _)) = self.open.take() {
            out.push(StreamPart::End { part });
        }
    }
}
