//! AWS Bedrock Converse ↔ the neutral model.
//!
//! * **System**: the top-level `system` blocks (text, `cachePoint`, `guardContent`) are one
//!   leading system message. Leading system and developer messages of another format go
//!   into `system`; a later one moves there too (a `moved` loss). A `system`-role message
//!   inside `messages` (in the service model since 2026) is read in place and written back
//!   in place (hint `inline`).
//! * **Turns**: Converse wants user and assistant turns to alternate. A user message is
//!   read as a tool message (its `toolResult` blocks) and a user message (the rest), in
//!   block order; tool results are put in call order (the calls of the last assistant
//!   message). When writing, a tool message and the user message after it become one user
//!   message, results first (the normal shape, no loss); any other run of messages with
//!   the same Converse role is merged into one message with a `changed` loss.
//! * **Content**: text; `image` ↔ image (base64 `bytes` with media type
//!   `image/<format>`; an `s3Location` ↔ an `s3://` URL); `document` ↔ document (bytes,
//!   S3, or plain `text`; `name` required: a missing or invalid one is derived from the
//!   neutral name, a `changed` loss); `video` ↔ a document whose media type is `video/*`;
//!   `audio` ↔ audio. Converse takes bytes or S3 only: an `http(s)` URL or a provider file
//!   id from another format is dropped with a loss, never fetched. Blank text blocks are
//!   rejected by Converse: whitespace-only text of another format is left out (a loss).
//! * **Tools**: `toolUse.input` is an object. JSON text is parsed; invalid JSON is sent as
//!   `{"invalid_json": "<text>"}`, a non-object value as `{"value": …}` (a `changed` loss
//!   each), `null` or empty text as `{}`. A tool whose schema is not an object is declared
//!   as `{"input": <schema>}` and the arguments of its calls are wrapped to match.
//!   `toolResult` blocks carry text, `json`, image, document and video content; `status:
//!   error` ↔ the error flag (an error result with no content gets a text block: the API
//!   rejects it empty). A result of another format always gets a `status` (`success` or
//!   `error`: the agent step relies on it); a bedrock result without one is written back
//!   without one (hint `no_status`).
//! * **Reasoning**: `reasoningContent.reasoningText` (text + signature) and
//!   `redactedContent` ↔ reasoning with [`Signed`] tokens of format `bedrock`; tokens of
//!   another format are dropped (a loss), and so is reasoning of another provider left
//!   with no bedrock token (Claude on Bedrock rejects unsigned reasoning, as the Anthropic
//!   API does). Bedrock's own unsigned reasoning (other model families) stays; summaries
//!   are sent as its text when there is no text.
//! * **Cache**: a `cachePoint` block caches what comes before it, so it is read as a
//!   neutral [`Cache`] on the part (or tool) before it, and written after the part that
//!   carries one. A cache point with nothing before it is kept as an opaque part.
//! * **Opaque**: `guardContent`, `citationsContent`, `searchResult`, server-side
//!   `toolUse`/`toolResult` (with a `type`), `systemTool`, and unknown blocks are kept
//!   whole ([`Part::Opaque`] / [`Tool::Opaque`]).
//! * **toolConfig**: `toolSpec` ↔ function tools, `toolChoice` `auto`/`any`/`tool` ↔
//!   auto/required/one tool. Converse has no `none`: without tool blocks in the messages
//!   toolConfig is left out (the tools with it, a loss each); with them toolConfig must
//!   stay (the API refuses tool blocks without it), so the choice is dropped (a loss).
//!   Tool blocks with no tool declared get placeholder `toolSpec`s named after the tools in
//!   the history (a `changed` loss). There is no parallel-call switch (`false` is a loss).
//! * **Settings**: `inferenceConfig` ↔ max tokens, temperature, top_p, stop. `top_k` and
//!   reasoning settings travel in `additionalModelRequestFields` as Anthropic Claude
//!   names them (`top_k`; `thinking: {type: enabled, budget_tokens}` or `{type:
//!   disabled}`): read from there, and written there for another format with a `changed`
//!   loss (other model families name them differently). An effort level becomes a token
//!   budget (`passes::settings::effort_to_budget`). For another format, Claude's rules
//!   for thinking apply, each with a `changed` loss: a `maxTokens` not above the budget
//!   is raised to the budget plus 1024 (`/settings/max_tokens`; without `maxTokens` the
//!   model's maximum applies and nothing is written), and thinking is not switched on when the
//!   conversation ends in an open tool loop (only tool results after the last assistant
//!   message, which calls tools) whose assistant message does not start with reasoning
//!   (`/settings/reasoning`), and a tool choice that forces a call (`any`, one tool) is
//!   sent as `auto` while thinking is on (`/tool_choice`). The other keys of `additionalModelRequestFields` are kept
//!   one vendor field each, so another format reports just those keys as dropped.
//!   `outputConfig.textFormat` (a JSON schema given as text) ↔ the structured-output
//!   request. Seed and penalties have no place (a loss).
//! * **Responses**: `output.message` is the one choice. Stop reasons: `end_turn`,
//!   `stop_sequence`, `max_tokens`, `model_context_window_exceeded` (max tokens),
//!   `tool_use`, `guardrail_intervened` and `content_filtered` (content filter),
//!   `malformed_model_output` and `malformed_tool_use` (error). Usage: `inputTokens`
//!   excludes cache reads and writes (the prompt-caching guide: total input =
//!   `inputTokens + cacheReadInputTokens + cacheWriteInputTokens`), so the neutral input
//!   count is that sum and the written `inputTokens` is the neutral count minus both.
//!   `metrics`, `trace` and the other response fields are vendor fields. Required fields a
//!   neutral response lacks: `metrics` is written as `{"latencyMs": 0}` and a missing
//!   stop reason as `end_turn` (`tool_use` when the message calls tools), without a loss;
//!   missing usage is written as zeros with a `changed` loss. Usage values that say
//!   nothing (zero cache counts, unknown zero counts, an empty `serverToolUsage`) are
//!   hints, not neutral counts or vendor fields: another format neither gets nor loses
//!   them.
//! * **Streams** (`stream.rs`): ConverseStream events in their `{"<eventType>": payload}`
//!   form. Text and reasoning blocks begin with their first delta (they get no
//!   `contentBlockStart`), calls with `contentBlockStart`; the usage in `metadata` comes
//!   after `messageStop`, so the finish is sent once both came (or at the end: a stream
//!   is incomplete only without `messageStop`); exceptions are provider errors named by
//!   their event. Citation deltas are kept on their text part (`citations`), written back
//!   as citation deltas, and as a `citationsContent` block in a whole response. The
//!   encoder writes `metadata` after `messageStop`, as soon as the usage is known.
//! * The model id is `modelId`, as the SDK input form (and the fixtures) carry it; on the
//!   REST wire it is in the URL path.
//!
//! Hints: see `hints.rs`. Vendor fields `$inferenceConfig.<key>` and `$toolConfig.<key>`
//! hold unknown fields of those objects, and `$additionalModelRequestFields.<key>` the keys
//! of that object the neutral model has no place for.

use crate::codec::Codec;
use crate::model::{Cache, PartMeta};
use crate::passes::response::Required;
use wire_types::bedrock as w;
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

/// The Bedrock Converse format.
pub(crate) struct Bedrock;

impl Codec for Bedrock {
    const TOOLS: &'static str = "toolConfig";
    // Required by the SDK's response type: `usage`, `stopReason` and the `output` message.
    const RESPONSE_REQUIRES: Required = Required::NONE.usage().stop_reason().choice();

    /// Converse needs a `toolConfig` beside messages that hold tool blocks: a bare
    /// conversation gets an empty one (its tools are not read).
    fn bare_request(items: serde_json::Value, tools: serde_json::Value) -> serde_json::Value {
        let tools = match tools {
            serde_json::Value::Null => serde_json::json!({"tools": []}),
            t => t,
        };
        serde_json::json!({"messages": items, "toolConfig": tools})
    }

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(request.messages.as_deref().unwrap_or_default())
    }

    crate::codec::forward_to_folder!(tools: Option<w::ToolConfig>);
}

const F: Format = Format::Bedrock;

/// The prefix of the vendor fields that hold the keys of `additionalModelRequestFields`
/// the neutral model has no place for (one field per key).
const AMRF: &str = "$additionalModelRequestFields.";

// ---------------------------------------------------------------------------------------
// Media formats

/// Image formats and their media types.
const IMAGE_TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
];

/// Document formats and their media types.
const DOC_TYPES: &[(&str, &str)] = &[
    ("pdf", "application/pdf"),
    ("csv", "text/csv"),
    ("doc", "application/msword"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("html", "text/html"),
    ("txt", "text/plain"),
    ("md", "text/markdown"),
];

/// Video formats and their media types (first match wins when writing).
const VIDEO_TYPES: &[(&str, &str)] = &[
    ("mkv", "video/x-matroska"),
    ("mov", "video/quicktime"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("flv", "video/x-flv"),
    ("mpeg", "video/mpeg"),
    ("mpg", "video/mpeg"),
    ("wmv", "video/x-ms-wmv"),
    ("three_gp", "video/3gpp"),
];

/// Audio formats and their media types (first match wins when writing).
const AUDIO_TYPES: &[(&str, &str)] = &[
    ("mp3", "audio/mpeg"),
    ("opus", "audio/opus"),
    ("wav", "audio/wav"),
    ("aac", "audio/aac"),
    ("flac", "audio/flac"),
    ("mp4", "audio/mp4"),
    ("ogg", "audio/ogg"),
    ("mkv", "audio/x-matroska"),
    ("mka", "audio/x-matroska"),
    ("x-aac", "audio/x-aac"),
    ("m4a", "audio/mp4"),
    ("mpeg", "audio/mpeg"),
    ("mpga", "audio/mpeg"),
    ("pcm", "audio/pcm"),
    ("webm", "audio/webm"),
];

/// Media types other formats use for the same thing, with the Converse format.
const ALIASES: &[(&str, &str)] = &[
    ("image/jpg", "jpeg"),
    ("audio/mp3", "mp3"),
    ("audio/x-wav", "wav"),
    ("audio/wave", "wav"),
    ("audio/x-flac", "flac"),
    ("audio/x-m4a", "m4a"),
    ("audio/m4a", "m4a"),
    ("audio/l16", "pcm"),
    ("text/x-markdown", "md"),
];

fn media_type_of(table: &[(&'static str, &'static str)], format: &str) -> Option<&'static str> {
    table.iter().find(|(f, _)| *f == format).map(|(_, t)| *t)
}

/// The Converse format of a media type (parameters and case ignored).
fn format_of(table: &[(&'static str, &'static str)], media_type: &str) -> Option<&'static str> {
    let t = media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    table
        .iter()
        .find(|(_, m)| *m == t)
        .map(|(f, _)| *f)
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(m, f)| *m == t && table.iter().any(|(g, _)| g == f))
                .map(|(_, f)| *f)
        })
}

/// The media type for a format read from the wire, and the `format` hint when the media
/// type does not map back to the same format.
fn read_format(
    table: &[(&'static str, &'static str)],
    kind: Option<&str>,
    format: &str,
    meta: &mut PartMeta,
) -> Option<String> {
    let media_type = media_type_of(table, format)
        .map(str::to_owned)
        .or_else(|| kind.map(|k| format!("{k}/{format}")));
    if media_type.as_deref().and_then(|t| format_of(table, t)) != Some(format) {
        meta.vendor.set_hint(F, hints::FORMAT, format);
    }
    media_type
}

/// Whether a document name keeps to the documented charset: letters, digits, hyphens,
/// parentheses, square brackets, and whitespace no more than one in a row.
fn valid_doc_name(n: &str) -> bool {
    !n.is_empty()
        && !n.contains("  ")
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '(' | ')' | '[' | ']'))
}

/// A cache point that caches what comes before it (`ttl`: the marker's, if any).
fn cache_point(c: Cache) -> w::CachePoint {
    w::CachePoint {
        kind: w::CachePointType::Default,
        ttl: c.ttl,
        extra: Extra::new(),
    }
}
