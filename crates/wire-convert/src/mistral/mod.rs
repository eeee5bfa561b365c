//! Mistral chat completions ↔ the neutral model.
//!
//! Mistral is shaped like OpenAI Chat Completions; this module follows
//! [`openai_chat`](crate::openai_chat) and differs where the wire does:
//!
//! * System messages stay in place (Mistral allows them anywhere); `developer` is written
//!   as `system`. System content carries text only; other parts are dropped with a loss.
//! * Content chunks: `text` ↔ text, `image_url` (a bare URL string or `{url, detail}`;
//!   `data:` URLs ↔ base64) ↔ image, `document_url` (with `document_name`) ↔ document by
//!   URL (base64 documents are written as `data:` URLs), `file` ↔ document by file id,
//!   `input_audio` (a base64 string or a URL) ↔ audio, `thinking` ↔ [`Reasoning`](crate::model::Reasoning) with
//!   source `mistral` (its `text` chunks joined; the chunk list is kept as a hint so it
//!   round-trips exactly), `reference` and unknown chunks ↔ opaque parts. An image's
//!   `detail` is a vendor field; the `detail` of OpenAI Chat and Cohere images is
//!   carried too (same word, same values). An empty text part of another format (a
//!   Gemini signature-only part, say) is not sent as an empty `text` chunk; Mistral's own
//!   chunk list (hint `parts`) is written back as it came.
//! * Tool calls: JSON-text arguments kept byte for byte (an object, which the SDK also
//!   takes, comes back as an object). Ids are already `[a-zA-Z0-9]{9}` when the encoder
//!   runs (the id pass in [`ids`](crate::ids) rewrites the others, with a loss). Each
//!   result is one `tool` message with `tool_call_id` and `name` (the tool name); no
//!   error flag: a failed result's text is prefixed `Error: ` (a `changed` loss; a text
//!   that already starts with `Error:` keeps its text). Mistral takes no images in tool
//!   results (providers.md §10.10), and rejects a user message right after tool
//!   results ("Unexpected role 'user' after role 'tool'"): another format's result
//!   images go at the start of the user message that follows the results, if one does
//!   (a `moved` loss each), and are dropped otherwise (a `dropped` loss each); and an
//!   assistant message [`BRIDGE`](encode::BRIDGE) is inserted between the results and
//!   that user message (a `changed` loss), unless the history is Mistral's own.
//!   Mistral's own results (hint `parts`) keep their chunks.
//! * `tool_choice`: `auto`, `none`, `any` ↔ required (`required` is read too and written
//!   back as it came), `{type: function, function: {name}}` ↔ one tool; an allowed-tools
//!   list cannot be said (a loss; `any` when a call is required).
//! * Settings: `max_tokens`, `random_seed` ↔ seed, `stop` (string or array), sampling
//!   and penalties, `parallel_tool_calls`, `stream`; `response_format` `text` /
//!   `json_object` / `json_schema`. No `top_k` and no reasoning setting (`prompt_mode`
//!   only picks a system prompt): losses. `safe_prompt`, `prompt_mode`, `prediction`,
//!   `n` and the assistant `prefix` flag are vendor fields.
//! * Responses: `finish_reason` `stop` → end of turn, `length` and `model_length` → max
//!   tokens, `tool_calls` → tool use, `error` → error; usage with cached prompt tokens.
//!   Mistral's own value is written back as it came. Another format's stop reason is
//!   mapped by kind into the closed set: a stop sequence → `stop`; a content filter or
//!   refusal → `error` (the answer did not end by itself, and `stop` would pass it off
//!   as complete); a pause or an unknown reason → `stop`; each of those three a
//!   `changed` loss.
//! * Streams (`stream.rs`): read by OpenAI Chat's decoder core (Magistral's thinking
//!   chunks as reasoning); written with each call whole and the usage on the finish chunk.
//!
//! Hints: see `hints.rs`.

use crate::codec::Codec;
use crate::passes::response::Required;
use wire_types::Format;
use wire_types::mistral as w;

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
mod stream;
#[cfg(test)]
mod tests;
mod tools;

/// The Mistral Chat format.
pub(crate) struct Mistral;

impl Codec for Mistral {
    // Required by the SDK's response type: `id`, `model`, `created`, `usage` and every
    // choice's `finish_reason`.
    const RESPONSE_REQUIRES: Required = Required::NONE.id().model().created().usage().stop_reason();

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(&request.messages)
    }

    crate::codec::forward_to_folder!();
}

const F: Format = Format::Mistral;

/// The prefix of a call's `function` member kept as a field of the call's vendor record
/// (`function.<name>`), beside the call object's own.
const FUNCTION_FIELD: &str = "function.";
