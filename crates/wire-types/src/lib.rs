//! Typed, lossless serde structs for the JSON of every major LLM API's tool calling:
//! requests, responses and stream events of OpenAI Chat Completions, OpenAI Responses,
//! Anthropic Messages, Gemini, Ollama, Bedrock Converse, Mistral and Cohere, and the tool
//! shapes of MCP.
//!
//! This crate reads and writes; it does not translate between formats (that is
//! `wire-convert`) and it does no I/O. One module per format, named as the format is:
//! [`openai_chat`], [`openai_responses`], [`anthropic`], [`gemini`], [`ollama`],
//! [`bedrock`], [`mistral`], [`cohere`], [`mcp`].
//!
//! # Lossless
//!
//! Reading a body and writing it back gives the same JSON (equal as `serde_json::Value`):
//!
//! * every object keeps the fields it does not model in its `extra` field ([`Extra`]),
//!   and remembers which known optional fields arrived as explicit `null`;
//! * every provider-controlled string (roles, block and event types, stop reasons) is an
//!   open set: an enum with an `Other` arm that keeps an unknown value;
//! * unions of objects (content blocks, items, events) keep an unknown member whole;
//! * numbers that are settings (`temperature`) are `serde_json::Number`, so `1` stays `1`;
//!   a negative zero is written `-0` (serde_json reads `-0` as a float and would write
//!   `-0.0`; `-0.0` is written `-0` too, the same number).
//!
//! # One reading of every body
//!
//! Text is read once, one way: an object with the same key twice, anywhere in the body,
//! is an error naming the key's pointer, and a union's tag is the one `type` there is. A
//! leading byte order mark is skipped. A body already parsed into a `serde_json::Value`
//! holds no duplicate (its parser kept one); [`value_from_str`] parses text into a `Value`
//! by the same rules, for a body whose format is not known yet.
//!
//! # Errors that point
//!
//! [`from_str`] and its siblings return an [`Error`] naming the JSON pointer of the value
//! at fault and what was expected there.
//!
//! ```
//! use wire_types::openai_chat::{Message, Request};
//!
//! let body = r#"{"model":"gpt-4o","messages":[
//!     {"role":"user","content":"Weather in Paris?"},
//!     {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
//!       "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}
//! ]}"#;
//! let request: Request = wire_types::from_str(body)?;
//! let Message::Assistant(turn) = &request.messages[1] else { unreachable!() };
//! assert_eq!(turn.tool_calls.as_ref().unwrap()[0].name(), Some("get_weather"));
//!
//! // Written back, the explicit `"content": null` is still there.
//! let again: serde_json::Value = serde_json::from_str(&wire_types::to_string(&request))?;
//! assert_eq!(again, serde_json::from_str::<serde_json::Value>(body)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

#[macro_use]
#[doc(hidden)]
pub mod macros;

mod common;
mod detect;
mod error;
mod extra;
mod format;
pub mod stream;

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod gemini;
pub mod mcp;
pub mod mistral;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;

pub use common::{Arguments, MaybeRaw, TextOrParts};
pub use detect::{Detected, detect};
pub use error::{
    Category, Error, from_slice, from_str, from_value, push_token, to_raw, to_string,
    to_string_pretty, to_value, value_from_slice, value_from_str,
};
pub use extra::Extra;
pub use format::{Format, Kind, UnknownFormat};
