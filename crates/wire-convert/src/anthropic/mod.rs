//! Anthropic Messages ↔ the neutral model.
//!
//! * **System prompt.** The top-level `system` (a string or text blocks) decodes as one
//!   leading system message. On encode every leading system or developer message goes
//!   there (a string for one plain text, text blocks otherwise), and a system message later
//!   in the conversation is appended to it, in order, with a `moved` loss. A `system`-role
//!   message inside `messages` (SDK 2026) decodes with the `inline` hint and stays in place.
//! * **Turns.** A user message holding `tool_result` blocks decodes as a tool message (the
//!   results, in order) followed by a user message with the other blocks, if any. Encoding
//!   merges a tool message and the user message right after it into one user turn, results
//!   first: Anthropic's own shape, no loss. Other consecutive messages that become turns of
//!   one role are merged too, with a `changed` loss (a `moved` one when results are placed
//!   ahead of user content already in the turn). Empty text blocks are left out (the API
//!   rejects them); a message left with nothing is dropped with a loss.
//! * **Tool calls.** `input` must be an object: JSON text that parses to one is sent as
//!   that object; invalid JSON as `{"invalid_json": text}`, another JSON value as
//!   `{"value": v}`, `null` or empty text as `{}`, each with a `changed` loss. Calls to a
//!   tool whose schema had to be wrapped ([`schema::wrap_non_object`]) get `{"input": …}`.
//! * **Tool results.** Content is a string or text, image and document blocks; `is_error`
//!   is the error flag. JSON parts are sent as text holding the JSON (a `changed` loss).
//! * **Reasoning.** `thinking` ↔ text and signature, `redacted_thinking` ↔ encrypted
//!   payload, tagged with this format. Anthropic rejects thinking blocks it did not sign, so
//!   reasoning from another provider is dropped with a loss.
//! * **Media.** Image and document sources: base64, URL (a `data:` URL becomes base64),
//!   Files API id, plain text (base64 `text/*` documents are decoded into text sources).
//!   Images must be JPEG, PNG, GIF or WebP (sniffed from the bytes when the media type is
//!   unknown). No audio input: a loss.
//! * **Cache markers.** `cache_control` on blocks, system blocks and tools ↔ neutral
//!   `Cache` (ttl `5m`/`1h`); the top-level `cache_control` is a vendor field.
//! * **Settings.** `max_tokens` is required: when the source has none a default is
//!   written (4096, or the thinking budget plus 4096) with a `changed` loss at
//!   `/max_tokens`. `tool_choice` auto/any/tool/none ↔ tool choice, and
//!   `disable_parallel_tool_use` ↔ `parallel_tool_calls` (with no tool choice, `false`
//!   becomes `{"type":"auto","disable_parallel_tool_use":true}`). `thinking` ↔ reasoning
//!   settings (enabled + budget, adaptive, disabled; `display` ↔ `include`); an effort
//!   without a budget becomes a budget (`passes::settings::effort_to_budget`, a
//!   `changed` loss); `output_config.effort` ↔ effort, `output_config.format` ↔ a
//!   JSON-schema output format.
//! * **Thinking constraints.** With thinking on (enabled or adaptive) the API rejects
//!   three things, which the encoder repairs, each with a `changed` loss: a budget not
//!   below `max_tokens` (`max_tokens` is raised to the budget plus 1024, at
//!   `/settings/max_tokens`); a forced tool choice (`required`, one tool, or a required
//!   `allowed` set is sent as `auto`, thinking kept, at `/tool_choice`); and a
//!   conversation ending in an open tool loop (only tool results after the last assistant
//!   message, which calls tools) whose assistant message does not start with a thinking
//!   block this format signed (thinking is left out of the request, at
//!   `/settings/reasoning`). An Anthropic source that sent such a combination gets it back
//!   unchanged (hints `forced_thinking`, `budget_over_max`, `open_loop_thinking`).
//! * **Sampling and streaming.** The official request schema (SDK 2.14) describes the
//!   non-streaming body and has no `temperature`, `top_p` or `top_k`: `stream: true` and
//!   those settings go back to this format when it sent them, and are a loss from any
//!   other.
//! * **Responses.** The content blocks are one choice. `stop_reason` ↔ stop kind
//!   (`refusal` ↔ content filter, `pause_turn` ↔ pause, `model_context_window_exceeded` →
//!   max tokens); `stop_sequence` is a vendor field. Neutral input tokens count cache reads
//!   and writes, Anthropic's `input_tokens` does not: `input = neutral input − cached −
//!   cache writes` (saturating) and back.
//!
//! Hints: see `hints.rs`.

use crate::codec::Codec;
use crate::model::{Cache, Message, PartMeta, Role, Vendor};
use crate::passes::response::Required;
use crate::vendor::Fields;
use crate::{Ctx, LossCode};
use serde_json::{Map, Value};
use wire_types::anthropic as w;
use wire_types::{Extra, Format};

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
mod stream;
#[cfg(test)]
mod tests;
mod tools;

/// The Anthropic Messages format.
pub(crate) struct Anthropic;

impl Codec for Anthropic {
    // Required by the SDK's response type: `id`, `model` and `usage`.
    const RESPONSE_REQUIRES: Required = Required::NONE.id().model().usage();

    /// The default body, with the `max_tokens` a Messages body requires.
    fn bare_request(items: Value, tools: Value) -> Value {
        let mut body = crate::codec::bare_body::<Self>(items, tools);
        body.insert("max_tokens".into(), Value::from(1));
        Value::Object(body)
    }

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(&request.messages)
    }

    crate::codec::forward_to_folder!();
}

const F: Format = Format::Anthropic;

/// The image media types the Messages API takes.
const IMAGE_TYPES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

// ---------------------------------------------------------------------------------------
// Small helpers

/// Where a block sits: which blocks the decoder reads as neutral parts there, and which
/// parts the encoder can write there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The top-level `system`, or a `system` message.
    System,
    /// A user turn.
    User,
    /// An assistant turn of a request.
    Assistant,
    /// The content of a `tool_result`.
    Nested,
    /// The content of a response.
    Response,
}

impl Place {
    /// The place, said for a loss.
    fn describe(self) -> &'static str {
        match self {
            Place::System => "the system prompt",
            Place::User => "a user turn",
            Place::Assistant => "an assistant turn",
            Place::Nested => "a tool result",
            Place::Response => "a response",
        }
    }

    /// Whether images and documents may stand here.
    fn media(self) -> bool {
        matches!(self, Place::User | Place::Assistant | Place::Nested)
    }

    /// Whether the model's own blocks (tool calls, thinking) may stand here.
    fn model(self) -> bool {
        matches!(self, Place::Assistant | Place::Response)
    }
}

/// The role of the wire message a neutral message becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// A user turn: user messages, and tool messages (their results).
    User,
    /// An assistant turn.
    Assistant,
    /// A `system` message inside `messages` (hint `inline`).
    System,
}

/// The turn `m` is written in; `None` for a system or developer message that goes into
/// the top-level `system`.
fn turn_of(m: &Message) -> Option<Turn> {
    match m.role {
        Role::User | Role::Tool => Some(Turn::User),
        Role::Assistant => Some(Turn::Assistant),
        Role::System | Role::Developer => m.vendor.flag(F, hints::INLINE).then_some(Turn::System),
    }
}

/// Reports what a part carries that no Anthropic block has: a signature on a
/// non-reasoning part (Gemini `thoughtSignature`).
fn part_checks(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    if let Some(sig) = &meta.signature {
        let path = format!("{at}/signature");
        if sig.format == F {
            ctx.dropped(
                LossCode::PartChanged,
                path,
                "anthropic carries signatures on thinking blocks only",
            );
        } else {
            ctx.report_unplaced_token(Some(sig), format_args!("{path}"), "a reasoning signature");
        }
    }
}

/// A `cache_control` as a neutral cache marker, or (anything unusual) as a vendor field.
fn decode_cache(cc: Option<Box<w::CacheControl>>, cache: &mut Option<Cache>, vendor: &mut Vendor) {
    let Some(cc) = cc else { return };
    let plain = cc.kind == w::CacheType::Ephemeral
        && cc.extra.is_empty()
        && cc.ttl.as_ref().is_none_or(|t| t.is_known());
    if plain {
        *cache = Some(Cache {
            ttl: cc.ttl.map(|t| t.as_str().to_owned()),
        });
    } else {
        vendor.set_field(F, "cache_control", wire_types::to_value(&cc));
    }
}

/// The `cache_control` to write: this format's own (from `fields`) or the neutral marker.
fn encode_cache(
    cache: Option<Cache>,
    fields: &mut Map<String, Value>,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<Box<w::CacheControl>> {
    if let Some(cc) = fields.take_as("cache_control") {
        return Some(Box::new(cc));
    }
    let c = cache?;
    let ttl = c.ttl.and_then(|t| {
        let ttl = w::CacheTtl::from(t.as_str());
        if ttl.is_known() {
            Some(ttl)
        } else {
            ctx.changed(
                LossCode::CacheUnsupported,
                format!("{at}/cache/ttl"),
                format!("anthropic caches for 5m or 1h: ttl `{t}` left out (5m)"),
            );
            None
        }
    });
    Some(Box::new(w::CacheControl {
        kind: w::CacheType::Ephemeral,
        ttl,
        extra: Extra::new(),
    }))
}
