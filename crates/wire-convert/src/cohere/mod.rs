//! Cohere v2 chat ↔ the neutral model.
//!
//! * Roles `system`, `user`, `assistant`, `tool`; system messages stay in place (Cohere
//!   allows them anywhere); `developer` is written as `system`. Content is a string or
//!   items: system `text`; user `text` and `image_url` (`data:` URLs ↔ base64); assistant
//!   `text` and `thinking`; tool `text` and `document`. What a role cannot carry is
//!   dropped with a loss. An image's `detail` is a vendor field; the `detail` of OpenAI
//!   Chat and Mistral images is carried too (same word, same values). An empty text part
//!   of another format (a Gemini signature-only part, say) is not sent as an empty `text`
//!   item; Cohere's own item list (hint `parts`) is written back as it came.
//! * Assistant `thinking` items ↔ [`Reasoning`](crate::model::Reasoning) with source
//!   `cohere` (no signature). The assistant's `tool_plan` (the model's plan, written
//!   before it calls tools) is reasoning too: a [`Reasoning`](crate::model::Reasoning)
//!   with source `cohere` and the hint `tool_plan`, placed after the content and before
//!   the calls, written back as `tool_plan`; elsewhere it travels as the target's
//!   reasoning. Foreign reasoning becomes a `thinking` item.
//!   `citations` are a vendor field of the message.
//! * Tool calls carry JSON-text arguments (kept byte for byte, `"null"` included). Each
//!   result is one `tool` message with `tool_call_id`; Cohere has no tool name on results
//!   (a loss only when the call is not in the conversation to name it) and no error flag:
//!   a failed result's text is prefixed `Error: ` (a `changed` loss; a text that already
//!   starts with `Error:` keeps its text). A `document` item
//!   of a result ↔ a [`Json`] part (its `data`; its `id` is a vendor field); a text
//!   document becomes a `document` item with `text` (and `title`); images in results
//!   cannot be sent.
//! * `tool_choice`: `REQUIRED` ↔ required, `NONE` ↔ none, absent ↔ auto; a named tool or
//!   an allowed list is sent as `REQUIRED` (or left out) with a `changed` loss. No parallel
//!   switch: `parallel_tool_calls: false` is a loss.
//! * Settings: `max_tokens`, `temperature`, `p` ↔ top_p, `k` ↔ top_k, `seed`,
//!   `stop_sequences`, penalties, `stream`; `thinking` `{type, token_budget}` ↔
//!   [`ReasoningConfig`] (`enabled`, `budget_tokens`; an effort level becomes a budget, a
//!   `changed` loss; losses about them point at `thinking/type` and
//!   `thinking/token_budget`); `response_format` `text` / `json_object` (with a schema ↔
//!   [`OutputFormat::JsonSchema`]). `documents`, `citation_options`, `safety_mode`,
//!   `strict_tools` and `logprobs` are vendor fields; tools that are all strict are
//!   sent with `strict_tools: true` (a strict flag on some tools only is a loss).
//! * Responses: `finish_reason` `COMPLETE` → end of turn, `STOP_SEQUENCE` → stop
//!   sequence, `MAX_TOKENS` → max tokens, `TOOL_CALL` → tool use, `ERROR` and `TIMEOUT` →
//!   error (Cohere's own value is written back as it came). Another format's stop reason
//!   is mapped by kind into the closed set: a content filter or refusal → `ERROR` (the
//!   answer did not end by itself, and `COMPLETE` would pass it off as complete); a
//!   pause or an unknown reason → `COMPLETE`; each a `changed` loss. Usage
//!   `tokens.input_tokens` / `output_tokens` ↔ input / output tokens and
//!   `cached_tokens` ↔ cached input tokens (it is the part of the input read from the
//!   cache); `billed_units` is a vendor field. One message only: further choices are
//!   dropped with a loss.
//!
//! Hints: see `hints.rs`.
//!
//! [`Json`]: crate::model::Json
//! [`ReasoningConfig`]: crate::model::ReasoningConfig
//! [`OutputFormat::JsonSchema`]: crate::model::OutputFormat::JsonSchema

use crate::codec::Codec;
use crate::passes::response::Required;
use wire_types::cohere as w;
use wire_types::{Extra, Format, TextOrParts};

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
mod stream;
#[cfg(test)]
mod tests;
mod tools;

/// The Cohere v2 Chat format.
pub(crate) struct Cohere;

impl Codec for Cohere {
    // Required by the SDK's response type: `id`, `finish_reason` and the `message`.
    const RESPONSE_REQUIRES: Required = Required::NONE.id().stop_reason().choice();

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(&request.messages)
    }

    crate::codec::forward_to_folder!();
}

const F: Format = Format::Cohere;

/// The prefix of the vendor fields of a call that hold its `function` object's unknown
/// fields.
const FUNCTION: &str = "function.";

/// The prefix of the vendor fields of a JSON part that hold its `document` object's
/// unknown fields.
const DOCUMENT: &str = "document.";

/// An assistant turn as the wire has it, in a request message or a response message:
/// what the decoder reads and the encoder writes.
struct Turn {
    /// The role as spelled (response messages only).
    role: Option<String>,
    content: Option<TextOrParts<w::Content>>,
    /// The model's plan before it calls tools.
    tool_plan: Option<String>,
    tool_calls: Option<Vec<w::ToolCall>>,
    citations: Option<Vec<w::Citation>>,
    extra: Extra,
}
