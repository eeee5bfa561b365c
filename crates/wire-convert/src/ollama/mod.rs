//! Ollama native chat (`POST /api/chat`) ↔ the neutral model.
//!
//! * Content is one plain string: the neutral text parts of a message are joined with
//!   `\n` (a part boundary is not content, so no loss); an empty text part (a Gemini
//!   signature-only part, say) adds nothing, not even a line break. Images travel as raw
//!   base64 in `images` and decode to [`Source::Base64`] image parts; Ollama never says
//!   which media type, so it is read from the bytes' signature (PNG, JPEG, GIF, WebP;
//!   none for anything else) — the encoder writes no media type, so nothing needs
//!   giving back. An image by URL or file id cannot be sent (Ollama wants the bytes and
//!   nothing is fetched), nor can audio or documents: `dropped` losses. Decoded, a
//!   message is its reasoning (`thinking`), its text, its images, its calls.
//! * Tool calls carry object arguments. JSON-text arguments are parsed; text that is not
//!   JSON is sent as `{"invalid_json": <text>}`, a non-object value as `{"value": …}`
//!   (`{"input": …}` for a tool whose schema was wrapped), `null` as `{}`, all `changed`
//!   losses; empty text is `{}`.
//! * Call ids are optional in Ollama: a call without one gets a deterministic
//!   [`synthetic_id`](crate::ids::synthetic_id) (position and name) on decode, and a
//!   synthetic id is left out on encode. Each result is one `role: tool` message with
//!   `tool_name`. A result without `tool_call_id` is matched to the first unanswered call
//!   of the last assistant turn with its `tool_name` (or to the first unanswered call
//!   when it has no name); a result nothing matches gets a synthetic id of its own. The
//!   encoder writes `tool_call_id` only when that matching would not find the right call
//!   again (or the source had the field, or the result has no name): Ollama's SDK
//!   message type has no such field, the server and its templates tie results by name
//!   and order.
//! * No error flag on results: a failed result's text is prefixed `Error: ` (`changed`;
//!   a text that already starts with `Error:` keeps its text, the loss is still
//!   reported). Ollama takes no images in tool results (providers.md §10.10): another
//!   format's result images go to a user message right after the results (a `moved`
//!   loss each); images Ollama itself put on a `tool` message (hint `images`) go back
//!   there.
//! * Assistant `thinking` ↔ [`Reasoning`](crate::model::Reasoning) with source `ollama`
//!   (no signature; foreign signatures are dropped with a loss). A reasoning summary
//!   without text is sent as thinking (`changed`).
//! * Settings live in `options`: `temperature`, `top_p`, `top_k`, `seed`, `stop`,
//!   `presence_penalty`, `frequency_penalty`, and `num_predict` ↔ `max_tokens`; every
//!   other option is a vendor field of its own, `options.<key>`, so that another format
//!   reports each option it drops at `/options/<key>`. Ollama streams unless `stream`
//!   says otherwise: an absent `stream` decodes as `stream: true` (hint `no_stream`),
//!   and a request from another format (which answers with one JSON body unless asked
//!   to stream) gets `stream` written out, `false` unless it asked to stream.
//!   `format: "json"` ↔ [`OutputFormat::JsonObject`], a
//!   schema ↔ [`OutputFormat::JsonSchema`]; `think` (bool or level) ↔
//!   [`ReasoningConfig`] (`enabled` / `effort`; a token budget becomes `true`, a
//!   `changed` loss).
//! * No `tool_choice`: `auto` is the default; `none` is honoured by leaving the tools out
//!   (a `dropped` loss per tool); `required`, a named tool and an allowed list cannot be
//!   said (a `dropped` loss). No parallel switch: `parallel_tool_calls: false` is a loss.
//! * Responses: `done_reason` `stop` → end of turn (tool use when the message calls
//!   tools), `length` → max tokens, others kept raw (and written back raw). Encoding
//!   another format's stop reason: end of turn, stop sequence and tool use → `stop`, max
//!   tokens → `length`; a content filter, a pause, an error or an unknown reason has no
//!   value of its own and is sent as `stop` (a `changed` loss). `done: true` without a
//!   reason (older servers) is the end of the turn. `prompt_eval_count` ↔ input tokens,
//!   `eval_count` ↔ output tokens; the durations and `created_at` are vendor fields
//!   (`done` is a hint: the stop reason carries its meaning). One message only: further
//!   choices are dropped with a loss.
//!
//! Hints: see `hints.rs`.
//!
//! [`Source::Base64`]: crate::model::Source::Base64
//! [`OutputFormat::JsonObject`]: crate::model::OutputFormat::JsonObject
//! [`OutputFormat::JsonSchema`]: crate::model::OutputFormat::JsonSchema
//! [`ReasoningConfig`]: crate::model::ReasoningConfig

use crate::codec::Codec;
use crate::model::{self};
use wire_types::Format;
use wire_types::ollama as w;

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
mod stream;
#[cfg(test)]
mod tests;
mod tools;

/// The Ollama /api/chat format.
pub(crate) struct Ollama;

impl Codec for Ollama {
    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(&request.messages)
    }

    crate::codec::forward_to_folder!();
}

const F: Format = Format::Ollama;

/// The prefix of the vendor fields that hold the `options` with no neutral setting.
const OPTION: &str = "options.";

/// The prefix of the vendor fields of a call that hold its `function` object's unknown
/// fields.
const FUNCTION: &str = "function.";

/// The calls of the last assistant turn, for results that carry no call id. The decoder
/// and the encoder run the same matching, so the encoder knows when a result needs its
/// id written out.
#[derive(Debug, Default)]
struct Pending {
    /// (call id, tool name, answered)
    calls: Vec<(String, String, bool)>,
}

impl Pending {
    /// Starts over with the calls of a new assistant turn (id, tool name), none answered.
    fn reset(&mut self, calls: Vec<(String, String)>) {
        self.calls = calls.into_iter().map(|(i, n)| (i, n, false)).collect();
    }

    /// The position of the call a result would be matched to.
    fn find(&self, id: Option<&str>, name: Option<&str>) -> Option<usize> {
        match (id, name) {
            (Some(id), _) => self.calls.iter().position(|c| c.0 == id),
            (None, Some(name)) => self.calls.iter().position(|c| !c.2 && c.1 == name),
            (None, None) => self.calls.iter().position(|c| !c.2),
        }
    }

    /// The call id a result answers (marking that call answered).
    fn answer(&mut self, id: Option<&str>, name: Option<&str>) -> Option<String> {
        let found = self.find(id, name);
        if let Some(c) = found.and_then(|p| self.calls.get_mut(p)) {
            c.2 = true;
            return Some(c.0.clone());
        }
        id.map(str::to_owned)
    }

    /// The call id a result without `tool_call_id` would be matched to.
    fn peek(&self, name: Option<&str>) -> Option<&str> {
        self.find(None, name)
            .and_then(|p| self.calls.get(p))
            .map(|c| c.0.as_str())
    }
}

/// How Ollama spells a neutral role (`developer` is `system`).
fn role_name(role: model::Role) -> &'static str {
    use model::Role;
    match role {
        Role::System | Role::Developer => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// A message of `role` with empty `content` and nothing else.
fn plain_message(role: w::Role) -> w::Message {
    w::Message {
        role,
        content: Some(String::new()),
        thinking: None,
        images: None,
        tool_calls: None,
        tool_name: None,
        tool_call_id: None,
        extra: wire_types::Extra::new(),
    }
}
