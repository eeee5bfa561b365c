//! Encoding: neutral stream parts in, the stream's events out.

use super::super::F;
use super::super::hints::{ARGS_JSON, INDEX, NO_ID};
use super::super::response::{encode_stop, encode_usage};
use crate::model::{Part, StopReason, ToolCall, Usage, Vendor};
use crate::openai_chat::stream::MESSAGE;
use crate::stream::{
    ChunkHead, EventEncoder, Events, Gate, HeldCall, PartId, Rule, StreamPart, StreamStart,
    UNFINISHED, Whole, at, call_type, error_code, meta_lost, no_place, reasoning_dropped,
    signature_lost, summary_as_thinking,
};
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::TextOrParts;
use wire_types::mistral as w;

/// A call being written: it goes out whole at its end.
#[derive(Debug)]
struct Call {
    part: PartId,
    choice: u32,
    held: HeldCall,
}

/// What a choice's chunk carries besides its delta: on its finish, the reason, the
/// logprobs, the usage and the choice's other members.
#[derive(Debug, Default)]
struct End {
    finish: Option<w::FinishReason>,
    logprobs: Option<Value>,
    usage: Option<w::Usage>,
    extra: wire_types::Extra,
}

/// What an open text or reasoning part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    Reasoning,
}

/// The Mistral stream encoder: a chunk per text or reasoning delta as it comes (the role
/// on a choice's first), each call whole when its arguments are complete, the finish
/// chunk with the usage (it waits for the usage, or the end), then `data: [DONE]`. A
/// source that ends without a finish ends with an error object instead.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    /// The id, model and source's format, from the start.
    head: ChunkHead,
    created: Option<u64>,
    /// The start's own members, written on the first chunk.
    first: Map<String, Value>,
    /// Choices whose role went out.
    roles: Vec<u32>,
    open: Vec<(PartId, u32, Open)>,
    calls: Vec<Call>,
    /// Started, over, and the parts left out (reasoning dropped), with what belongs to
    /// them.
    gate: Gate,
    usage: Option<Usage>,
    /// Finish chunks waiting for the usage: (choice, reason, vendor).
    held: Vec<(u32, Option<StopReason>, Vendor)>,
    any_finish: bool,
}

impl Encoder {
    /// One chunk with one choice (and its logprobs and the usage, on a finish).
    fn chunk(
        &mut self,
        index: u32,
        mut delta: w::Delta,
        end: End,
        out: &mut Events,
    ) -> Result<(), Error> {
        if !self.roles.contains(&index) {
            self.roles.push(index);
            delta.role.get_or_insert_with(|| "assistant".to_owned());
        }
        let mut choice = w::ChunkChoice {
            index: Some(index),
            delta: Some(delta),
            finish_reason: end.finish,
            logprobs: end.logprobs,
            extra: end.extra,
        };
        if choice.finish_reason.is_none() {
            choice.extra.mark_null("finish_reason");
        }
        let chunk = w::Chunk {
            id: Some(self.head.id.clone()),
            object: Some("chat.completion.chunk".to_owned()),
            created: self.created,
            model: Some(self.head.model.clone()),
            choices: vec![choice],
            usage: end.usage,
            extra: wire_types::Extra::from(std::mem::take(&mut self.first)),
        };
        out.push(None, &chunk)
    }

    fn content(
        &mut self,
        index: u32,
        content: TextOrParts<w::ContentChunk>,
        out: &mut Events,
    ) -> Result<(), Error> {
        let delta = w::Delta {
            content: Some(content),
            ..Default::default()
        };
        self.chunk(index, delta, End::default(), out)
    }

    fn text(&mut self, index: u32, text: String, out: &mut Events) -> Result<(), Error> {
        self.content(index, TextOrParts::Text(text), out)
    }

    fn thinking(&mut self, index: u32, text: String, out: &mut Events) -> Result<(), Error> {
        let chunk = w::ContentChunk::Thinking(w::ThinkingChunk {
            thinking: vec![w::ContentChunk::Text(w::TextChunk {
                text,
                extra: Default::default(),
            })],
            closed: None,
            extra: Default::default(),
        });
        self.content(index, TextOrParts::Parts(vec![chunk]), out)
    }

    /// Writes a call whole.
    fn call(&mut self, c: Call, ctx: &mut Ctx<'_>, out: &mut Events) -> Result<(), Error> {
        let ToolCall {
            id,
            name,
            arguments,
            meta,
            ..
        } = c.held.done();
        signature_lost(meta.signature.as_ref(), c.part, ctx);
        let v = &meta.vendor;
        let pat = at(c.part);
        let mut fields = ctx.vendor_fields(v, &pat);
        let kind = call_type(v, &mut fields, F);
        let index = v
            .hint(F, INDEX)
            .and_then(Value::as_u64)
            .and_then(|x| u32::try_from(x).ok());
        let mut function = Map::new();
        fields.retain(
            |k, val| match k.strip_prefix(super::super::FUNCTION_FIELD) {
                Some(name) => {
                    function.insert(name.to_owned(), val.clone());
                    false
                }
                None => true,
            },
        );
        let arguments = arguments.text();
        let arguments = if v.flag(F, ARGS_JSON) {
            match serde_json::from_str::<Value>(&arguments) {
                Ok(j) => wire_types::Arguments::Json(j),
                Err(_) => wire_types::Arguments::Text(arguments),
            }
        } else {
            wire_types::Arguments::Text(arguments)
        };
        let call = w::ToolCall {
            id: (!v.flag(F, NO_ID)).then_some(id),
            kind,
            function: w::FunctionCall {
                name,
                arguments,
                extra: wire_types::Extra::from(ctx.unknown_only(
                    function,
                    w::FunctionCall::FIELDS,
                    (pat.as_str(), "/function"),
                )),
            },
            index,
            extra: wire_types::Extra::from(ctx.unknown_only(
                fields,
                w::ToolCall::FIELDS,
                pat.as_str(),
            )),
        };
        let delta = w::Delta {
            tool_calls: Some(vec![call]),
            ..Default::default()
        };
        self.chunk(c.choice, delta, End::default(), out)
    }

    fn end_part(&mut self, part: PartId, ctx: &mut Ctx<'_>, out: &mut Events) -> Result<(), Error> {
        self.open.retain(|(p, _, _)| *p != part);
        if let Some(i) = self.calls.iter().position(|c| c.part == part) {
            let c = self.calls.remove(i);
            self.call(c, ctx, out)?;
        }
        Ok(())
    }

    fn whole(&mut self, whole: Whole, ctx: &mut Ctx<'_>, out: &mut Events) -> Result<(), Error> {
        let (part, choice) = (whole.part, whole.choice);
        match whole.content {
            Part::Text(t) => {
                ctx.report_unwritten_fields(&t.meta.vendor, &at(part));
                self.text(choice, t.text, out)
            }
            Part::Refusal(_) => {
                // As in the other stream encoders: a refusal is no part of the answer's
                // text (the whole-body encoder, which sees the whole message, sends it as
                // text).
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at(part),
                    "a refusal has no place in a mistral response stream",
                );
                Ok(())
            }
            Part::ToolCall(c) => self.call(
                Call {
                    part,
                    choice,
                    held: HeldCall::whole(c),
                },
                ctx,
                out,
            ),
            Part::Reasoning(r) => {
                // Mistral's own, or another's text (as the whole-body encoder sends it),
                // unless the options drop it.
                if !reasoning_dropped(part, true, ctx) {
                    if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                        self.thinking(choice, text, out)?;
                    }
                }
                Ok(())
            }
            other => {
                no_place(part, &other, "a mistral response stream", ctx);
                Ok(())
            }
        }
    }

    /// The usage for the finish chunk. The SDK's stream `UsageInfo` has no
    /// `prompt_tokens_details`: another format's cached count is left out (a loss when it
    /// is not zero); Mistral's own is written back as it came.
    fn usage_of(&self, u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
        let mut usage = encode_usage(u, ctx);
        if self.head.source != Some(F) {
            if let Some(d) = usage.prompt_tokens_details.take() {
                if let Some(n) = d.cached_tokens.filter(|n| *n > 0) {
                    ctx.dropped(
                        LossCode::UsageChanged,
                        "/usage/cached_input_tokens",
                        format!("a mistral stream chunk reports no cached tokens ({n})"),
                    );
                }
            }
        }
        usage
    }

    /// Writes the finish chunks that waited, the usage on the last.
    fn flush(&mut self, ctx: &mut Ctx<'_>, out: &mut Events) -> Result<(), Error> {
        let held = std::mem::take(&mut self.held);
        let last = held.len().saturating_sub(1);
        for (k, (choice, stop, vendor)) in held.into_iter().enumerate() {
            // Calls still open end with their choice.
            let open: Vec<PartId> = self
                .calls
                .iter()
                .filter(|c| c.choice == choice)
                .map(|c| c.part)
                .collect();
            for p in open {
                self.end_part(p, ctx, out)?;
            }
            let mut fields = ctx.vendor_fields(&vendor, "/finish");
            let mut delta = w::Delta::default();
            if let Some(Value::Object(mut m)) = fields.shift_remove(MESSAGE) {
                if let Some(r) = m
                    .shift_remove("role")
                    .and_then(|r| r.as_str().map(str::to_owned))
                {
                    delta.role = Some(r);
                }
                delta.extra = wire_types::Extra::from(ctx.unknown_only(
                    m,
                    w::Delta::FIELDS,
                    "/finish/message",
                ));
            }
            if delta.role.is_none() && delta.extra.is_empty() && self.roles.contains(&choice) {
                // What Mistral sends on its last chunk: an empty text.
                delta.content = Some(TextOrParts::Text(String::new()));
            }
            let finish = Some(match stop {
                Some(r) => encode_stop(&r, "/finish/stop_reason", ctx),
                None => w::FinishReason::Stop,
            });
            let usage = if k == last {
                self.usage.take().map(|u| self.usage_of(u, ctx))
            } else {
                None
            };
            let logprobs = fields.shift_remove("logprobs");
            let end = End {
                finish,
                logprobs,
                usage,
                extra: wire_types::Extra::from(ctx.unknown_only(
                    fields,
                    w::ChunkChoice::FIELDS,
                    "/finish",
                )),
            };
            self.chunk(choice, delta, end, out)?;
        }
        Ok(())
    }
}

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        Rule::every_choice(true).no_tokens()
    }

    fn start(&mut self, s: StreamStart, _out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.head = ChunkHead::new(s.format, s.id, s.model, ctx);
        self.created = s.created;
        self.first = ctx.vendor_fields(&s.vendor, "");
        Ok(())
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match part {
            // Signatures are the gate's to report (`Rule::no_tokens`).
            StreamPart::Start(_) | StreamPart::Signature(_) => {}
            StreamPart::TextStart { part, choice, meta } => {
                meta_lost(&meta, part, ctx);
                self.open.push((part, choice, Open::Text));
                if !self.roles.contains(&choice) {
                    self.text(choice, String::new(), out)?;
                }
            }
            StreamPart::TextDelta { part, text } => {
                match self.open.iter().find(|(p, _, _)| *p == part) {
                    Some(&(_, choice, Open::Text)) if !text.is_empty() => {
                        self.text(choice, text, out)?
                    }
                    Some(&(_, choice, Open::Reasoning)) if !text.is_empty() => {
                        self.thinking(choice, text, out)?
                    }
                    _ => {}
                }
            }
            StreamPart::ReasoningStart {
                part, choice, meta, ..
            } => {
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                self.open.push((part, choice, Open::Reasoning));
            }
            StreamPart::ReasoningDelta { part, text } => {
                if let Some(&(_, choice, Open::Reasoning)) =
                    self.open.iter().find(|(p, _, _)| *p == part)
                {
                    if !text.is_empty() {
                        self.thinking(choice, text, out)?;
                    }
                }
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if let Some(&(_, choice, Open::Reasoning)) =
                    self.open.iter().find(|(p, _, _)| *p == part)
                {
                    summary_as_thinking(part, ctx);
                    if !text.is_empty() {
                        self.thinking(choice, text, out)?;
                    }
                }
            }
            StreamPart::ToolStart(t) => self.calls.push(Call {
                part: t.part,
                choice: t.choice,
                held: HeldCall::new(t),
            }),
            StreamPart::ToolDelta { part, json } => {
                if let Some(c) = self.calls.iter_mut().find(|c| c.part == part) {
                    c.held.push(&json);
                }
            }
            StreamPart::Whole(whole) => self.whole(whole, ctx, out)?,
            StreamPart::Meta { part, meta } => {
                match self.calls.iter_mut().find(|c| c.part == part) {
                    // A call's vendor data and signature go out with it (its cache marker
                    // is not written).
                    Some(c) => c.held.merge(meta),
                    None => meta_lost(&meta, part, ctx),
                }
            }
            StreamPart::End { part } => self.end_part(part, ctx, out)?,
            StreamPart::Usage(u) => {
                self.usage = Some(u);
                if !self.held.is_empty() {
                    self.flush(ctx, out)?;
                }
            }
            StreamPart::Finish(f) => {
                self.any_finish = true;
                self.held.push((f.choice, f.stop_reason, f.vendor));
                if self.usage.is_some() {
                    // The usage is known: the finish need not wait (a later usage, if
                    // any, would have no chunk to go on).
                    self.flush(ctx, out)?;
                }
            }
            StreamPart::ResponseMeta(v) => ctx.report_unwritten_fields(&v, ""),
            StreamPart::Error(e) => {
                let code = error_code(&e);
                error_event(out, e.message, code)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.any_finish {
            return error_event(out, UNFINISHED.to_owned(), None);
        }
        self.flush(ctx, out)?;
        out.done();
        Ok(())
    }
}

/// An error object, as Mistral answers one.
fn error_event(out: &mut Events, message: String, code: Option<String>) -> Result<(), Error> {
    out.push(
        None,
        &w::ErrorResponse {
            object: Some("error".to_owned()),
            message: Some(Value::String(message)),
            kind: Some(code.clone().unwrap_or_else(|| "api_error".to_owned())),
            param: None,
            code: code.map(Value::String),
            detail: None,
            extra: Default::default(),
        },
    )
}
