//! OpenAI Chat Completions ↔ the neutral model.
//!
//! * System and developer messages stay in place (Chat Completions allows them anywhere).
//! * Each neutral tool message becomes one `tool` message per result, in order; a
//!   failed result has no flag here, so its text is prefixed `Error: ` (a `changed`
//!   loss). Tool messages carry text only: images and documents in a result move to a
//!   `user` message right after the results (a `moved` loss).
//! * Arguments are JSON text: the source's text is written back byte for byte; values
//!   are written as compact JSON.
//! * Reasoning has no place in Chat Completions requests (the OpenAI-compatible
//!   `reasoning_content` of DeepSeek-style servers is read and written back, but only to
//!   this format); signatures and cache markers are dropped with a loss.
//! * Streams (`stream.rs`): `chat.completion.chunk`s through a decoder core that Mistral
//!   shares (calls matched by `index`, then by id and name, complete at the finish); the
//!   encoder writes a chunk per delta, the usage chunk with `choices: []`, `[DONE]`.
//!
//! Hints: see `hints.rs`.

use crate::codec::Codec;
use crate::passes::response::Required;
use serde_json::Value;
use wire_types::Format;
use wire_types::openai_chat as w;

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
pub(crate) mod stream;
#[cfg(test)]
mod tests;
mod tools;

/// The OpenAI Chat Completions format.
pub(crate) struct OpenaiChat;

impl Codec for OpenaiChat {
    // Required by the SDK's response type: `id`, `model`, `created` and every choice's
    // `finish_reason`.
    const RESPONSE_REQUIRES: Required = Required::NONE.id().model().created().stop_reason();

    /// A bare tools array may leave out `"type": "function"` (`[{"function": {…}}]`, as
    /// some clients write it): such a tool is read as a function tool, and written back
    /// with its `type`.
    fn bare_request(items: Value, mut tools: Value) -> Value {
        if let Value::Array(ts) = &mut tools {
            for t in ts.iter_mut().filter_map(Value::as_object_mut) {
                if !t.contains_key("type") && t.get("function").is_some_and(Value::is_object) {
                    t.insert("type".into(), Value::from("function"));
                }
            }
        }
        Value::Object(crate::codec::bare_body::<Self>(items, tools))
    }

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(&request.messages)
    }

    crate::codec::forward_to_folder!();
}

const F: Format = Format::OpenaiChat;
