//! Encoding: neutral stream parts in, the stream's events out.

use super::super::F;
use super::super::encode::{encode_call, encode_part, part_meta};
use super::super::response::encode_response;
use crate::model::{self, Choice, Message, Part, Role, StopReason, ToolCall, Usage, Vendor};
use crate::stream::{
    EventEncoder, Events, Gate, HeldCall, PartId, Rule, StreamPart, StreamStart, UNFINISHED, Whole,
    at, reasoning_id_lost, reasoning_token_lost, summary_as_thinking,
};
use crate::{Ctx, Error, util};
use serde_json::Value;
use wire_types::ollama as w;

/// What an open part is.
#[derive(Debug)]
enum Open {
    Text,
    Reasoning,
    /// A call, held until its end: Ollama sends calls whole.
    Call(Box<HeldCall>),
}

/// The `/api/chat` stream encoder: a line per text or thinking delta as it comes, a line
/// with the whole call(s) once every open call has ended (in the order they started),
/// and at the end the `done: true` line with `done_reason`, the counts and the source's
/// vendor data (it waits for the end because usage may follow the finish). An error
/// becomes an `{"error": "…"}` line.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    model: Option<String>,
    created_at: Option<String>,
    source: Option<crate::Format>,
    /// The response's vendor data: the start's and every `ResponseMeta`.
    vendor: Vendor,
    /// Open parts, in the order they started.
    open: Vec<(PartId, Open)>,
    /// Started, over (the last line, done or error, written), and the parts left out
    /// (another choice, reasoning dropped), with what belongs to them.
    gate: Gate,
    /// Calls that ended, waiting for the calls still open before them.
    ready: Vec<(PartId, ToolCall)>,
    usage: Option<Usage>,
    finish: Option<(Option<StopReason>, Vendor)>,
}

impl Encoder {
    fn line(&self, message: w::Message, out: &mut Events) -> Result<(), Error> {
        out.push(
            None,
            &w::Response {
                model: self.model.clone(),
                created_at: self.created_at.clone(),
                message: Some(message),
                done: Some(false),
                ..Default::default()
            },
        )
    }

    fn text_line(&self, text: String, thinking: bool, out: &mut Events) -> Result<(), Error> {
        if text.is_empty() {
            return Ok(());
        }
        let mut m = super::super::plain_message(w::Role::Assistant);
        if thinking {
            m.thinking = Some(text);
        } else {
            m.content = Some(text);
        }
        self.line(m, out)
    }

    fn kind(&self, part: PartId) -> Option<&Open> {
        self.open.iter().find(|(p, _)| *p == part).map(|(_, o)| o)
    }

    /// Ends a part; a call is ready, and the ready calls go out once no call is open.
    fn end_part(&mut self, part: PartId, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let Some(i) = self.open.iter().position(|(p, _)| *p == part) else {
            return Ok(());
        };
        if let (_, Open::Call(call)) = self.open.remove(i) {
            self.ready.push((part, call.done()));
        }
        if !self.open.iter().any(|(_, o)| matches!(o, Open::Call(..))) {
            self.flush(out, ctx)?;
        }
        Ok(())
    }

    /// Writes the calls that are ready, in one line.
    fn flush(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.ready.is_empty() {
            return Ok(());
        }
        self.ready.sort_by_key(|(p, _)| *p);
        let calls = std::mem::take(&mut self.ready)
            .into_iter()
            .map(|(p, c)| encode_call(c, &at(p), ctx))
            .collect();
        let mut m = super::super::plain_message(w::Role::Assistant);
        m.tool_calls = Some(calls);
        self.line(m, out)
    }

    /// Ends every open part (a call open at the finish is complete).
    fn close_all(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        while let Some((part, _)) = self.open.first() {
            let part = *part;
            self.end_part(part, out, ctx)?;
        }
        self.flush(out, ctx)
    }

    /// The `done: true` line.
    fn done_line(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let (stop_reason, vendor) = self.finish.take().unwrap_or_default();
        let response = model::Response {
            id: None,
            model: self.model.clone(),
            created: None,
            choices: vec![Choice {
                message: Message::new(Role::Assistant, Vec::new()),
                stop_reason,
                vendor,
            }],
            usage: self.usage.take(),
            vendor: std::mem::take(&mut self.vendor),
            source: self.source,
        };
        // The whole-response encoder, its pointers those of a stream.
        let before = ctx.take_losses();
        let mut line = encode_response(response, ctx)?;
        let mut losses = before;
        for mut l in ctx.take_losses() {
            if let Some(rest) = l.path.strip_prefix("/choices/0") {
                l.path = format!("/finish{rest}");
            }
            losses.push(l);
        }
        ctx.extend_losses(losses);
        line.done = Some(true);
        if line.created_at.is_none() {
            line.created_at = self.created_at.clone();
        }
        self.gate.finished = true;
        out.push(None, &line)
    }

    fn error_line(&mut self, message: String, out: &mut Events) -> Result<(), Error> {
        self.gate.finished = true;
        out.push(
            None,
            &w::ErrorResponse {
                error: message,
                extra: Default::default(),
            },
        )
    }
}

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        Rule::one("message", self.source != Some(F))
    }

    fn start(&mut self, s: StreamStart, _out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.source = s.format;
        self.model = s.model;
        let own = s.vendor.fields_for(F).and_then(|f| f.get("created_at"));
        self.created_at = own
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| s.created.map(util::rfc3339_of_unix));
        crate::passes::response::drop_unplaced(s.id.as_deref(), "/id", "have no id", ctx);
        self.vendor.merge(s.vendor);
        Ok(())
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match part {
            // A later start, read as the first was.
            StreamPart::Start(s) => self.start(s, out, ctx)?,
            StreamPart::TextStart { part, meta, .. } => {
                part_meta(&meta, &at(part), ctx);
                self.open.push((part, Open::Text));
            }
            StreamPart::TextDelta { part, text } => match self.kind(part) {
                Some(Open::Text) => self.text_line(text, false, out)?,
                Some(Open::Reasoning) => self.text_line(text, true, out)?,
                _ => {}
            },
            StreamPart::ReasoningStart { part, id, meta, .. } => {
                reasoning_id_lost(id.as_deref(), part, F, ctx);
                part_meta(&meta, &at(part), ctx);
                self.open.push((part, Open::Reasoning));
            }
            StreamPart::ReasoningDelta { part, text } => {
                if matches!(self.kind(part), Some(Open::Reasoning)) {
                    self.text_line(text, true, out)?;
                }
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if matches!(self.kind(part), Some(Open::Reasoning)) {
                    summary_as_thinking(part, ctx);
                    self.text_line(text, true, out)?;
                }
            }
            StreamPart::Signature(s) => {
                if matches!(self.kind(s.part), Some(Open::Reasoning)) {
                    reasoning_token_lost(&s.token, s.encrypted, true, s.part, ctx);
                }
            }
            StreamPart::ToolStart(t) => {
                let part = t.part;
                self.open
                    .push((part, Open::Call(Box::new(HeldCall::new(t)))));
            }
            StreamPart::ToolDelta { part, json } => {
                if let Some((_, Open::Call(call))) = self.open.iter_mut().find(|(p, _)| *p == part)
                {
                    call.push(&json);
                }
            }
            StreamPart::Whole(Whole { part, content, .. }) => match content {
                Part::ToolCall(call) => {
                    self.ready.push((part, call));
                    if !self.open.iter().any(|(_, o)| matches!(o, Open::Call(..))) {
                        self.flush(out, ctx)?;
                    }
                }
                other => {
                    let m = encode_part(other, &at(part), ctx);
                    let empty = m.content.as_deref().is_none_or(str::is_empty)
                        && m.thinking.is_none()
                        && m.images.is_none();
                    if !empty {
                        self.line(m, out)?;
                    }
                }
            },
            StreamPart::Meta { part, meta } => {
                if let Some(Open::Call(call)) = self
                    .open
                    .iter_mut()
                    .find(|(p, _)| *p == part)
                    .map(|(_, o)| o)
                {
                    // Written with the call.
                    call.merge(meta);
                } else if matches!(self.kind(part), Some(Open::Text | Open::Reasoning)) {
                    part_meta(&meta, &at(part), ctx);
                }
            }
            StreamPart::End { part } => self.end_part(part, out, ctx)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish(f) => {
                self.close_all(out, ctx)?;
                self.finish = Some((f.stop_reason, f.vendor));
            }
            StreamPart::ResponseMeta(v) => self.vendor.merge(v),
            StreamPart::Error(e) => {
                // What is complete goes out; a call still open never ran.
                self.flush(out, ctx)?;
                self.error_line(e.to_string(), out)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.finish.is_some() {
            self.close_all(out, ctx)?;
            return self.done_line(out, ctx);
        }
        // The source ended without a finish (its decoder reports why): not a normal end
        // here either.
        self.flush(out, ctx)?;
        self.error_line(UNFINISHED.to_owned(), out)
    }
}
