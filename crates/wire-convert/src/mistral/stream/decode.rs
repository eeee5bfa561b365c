//! Decoding: the stream's events in, neutral stream parts out.

use super::super::F;
use super::super::decode::decode_chunk;
use super::super::hints::{ARGS_JSON, INDEX, NO_ID, OBJECT};
use super::super::response::{decode_usage, stop_reason};
use crate::model::{PartMeta, Vendor};
use crate::openai_chat::stream::{CallDelta, ChoiceDelta, Core, ReadChunks, Shaped};
use crate::stream::{Event, Parts, StreamStart, error_code_of, provider_error, read};
use crate::{Ctx, Error, Format};
use serde_json::Value;
use wire_types::TextOrParts;
use wire_types::mistral as w;
// ---------------------------------------------------------------------------------------
// Decoding

/// The Mistral stream decoder.
pub(crate) type Decoder = Shaped<Chunks>;

/// What the Mistral decoder reads itself: its chunks and error objects.
#[derive(Debug, Default)]
pub(crate) struct Chunks;

impl ReadChunks for Chunks {
    const FORMAT: Format = F;
    const NO_ID: &'static str = NO_ID;

    fn event(
        &mut self,
        event: Event<'_>,
        core: &mut Core,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        match read::<w::StreamEvent>(event.data)? {
            w::StreamEvent::Chunk(chunk) => chunk_of(chunk, core, out, ctx),
            w::StreamEvent::Error(e) => {
                let code = error_code_of(e.code.as_ref(), e.kind.as_ref());
                let message = match &e.message {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => e.detail.as_ref().map(Value::to_string).unwrap_or_default(),
                };
                out.push(provider_error(code, message, &e));
            }
        }
        Ok(())
    }
}

/// One chunk: the start on the first, then its choices and usage, handed to `core`.
fn chunk_of(mut chunk: w::Chunk, core: &mut Core, out: &mut Parts, ctx: &mut Ctx<'_>) {
    let choices = std::mem::take(&mut chunk.choices);
    let usage = chunk.usage.take();
    if !out.started() {
        let mut vendor = Vendor::from_extra(F, &chunk.extra, &["usage"]);
        let object = match chunk.object.as_deref() {
            Some("chat.completion.chunk") => Some("chat.completion".to_owned()),
            other => other.map(str::to_owned),
        };
        if let Some(o) = object {
            vendor.set_hint(F, OBJECT, o);
        }
        vendor.format = Some(F);
        out.start(StreamStart {
            format: Some(F),
            id: chunk.id.filter(|i| !i.is_empty()),
            model: chunk.model.filter(|m| !m.is_empty()),
            created: chunk.created,
            vendor,
        });
    }
    for c in choices {
        let d = delta(c, ctx);
        core.choice(d, out, ctx);
    }
    if let Some(u) = usage {
        core.usage(decode_usage(u, ctx), out);
    }
}

/// A Mistral choice delta in the core's terms.
fn delta(c: w::ChunkChoice, ctx: &mut Ctx<'_>) -> ChoiceDelta {
    let d = c.delta.unwrap_or_default();
    let mut out = ChoiceDelta {
        index: c.index.unwrap_or(0),
        finish: c
            .finish_reason
            .filter(|f| !f.as_str().is_empty())
            .map(|f| stop_reason(&f)),
        logprobs: c.logprobs.filter(|l| !l.is_null()),
        fields: c.extra.fields().clone(),
        message: d.extra.fields().clone(),
        ..Default::default()
    };
    if let Some(ix) = c.index {
        // As a whole body's choice: its index as it came.
        out.hints.insert(INDEX.to_owned(), Value::from(ix));
    }
    if let Some(role) = d.role.filter(|r| !r.is_empty() && r != "assistant") {
        out.message.insert("role".to_owned(), Value::String(role));
    }
    match d.content {
        None => {}
        Some(TextOrParts::Text(t)) => out.text = Some(t),
        Some(TextOrParts::Parts(chunks)) => {
            for chunk in chunks {
                match chunk {
                    w::ContentChunk::Text(t) => {
                        out.text.get_or_insert_with(String::new).push_str(&t.text);
                    }
                    w::ContentChunk::Thinking(t) => out
                        .reasoning
                        .get_or_insert_with(String::new)
                        .push_str(&w::thinking_text(&t)),
                    other => out.parts.push(decode_chunk(other, ctx)),
                }
            }
        }
    }
    for call in d.tool_calls.into_iter().flatten() {
        let mut meta = PartMeta::from_extra(F, &call.extra);
        let f = call.function;
        let name = Some(f.name).filter(|n| !n.is_empty());
        if let (Some(ix), true) = (call.index, name.is_some()) {
            // Read on the call's first fragment (the one that names it).
            meta.vendor.set_hint(F, INDEX, ix);
        }
        for (k, val) in f.extra.fields() {
            meta.vendor.set_field(
                F,
                &format!("{}{k}", super::super::FUNCTION_FIELD),
                val.clone(),
            );
        }
        let arguments = match f.arguments {
            wire_types::Arguments::Text(t) => t,
            wire_types::Arguments::Json(j) => {
                meta.vendor.set_hint(F, ARGS_JSON, true);
                j.to_string()
            }
        };
        if !meta.vendor.is_empty() {
            meta.vendor.format = Some(F);
        }
        out.calls.push(CallDelta {
            index: call.index,
            id: call.id.filter(|i| !i.is_empty()),
            name,
            arguments: Some(arguments),
            kind: call.kind,
            meta,
        });
    }
    out
}
