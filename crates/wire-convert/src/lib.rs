//! Any LLM wire format to any other, through one neutral model, with a report of
//! everything that could not be carried.
//!
//! Every format has a decoder into the [neutral model](model) and an encoder out of it:
//! `format A → neutral → format B`. Each conversion returns the converted body and a list
//! of [`Loss`]es: what was dropped, changed or moved, with the JSON pointer in the input,
//! a [`LossCode`] to filter on, and the reason. Nothing disappears silently;
//! [`Options::strict`] turns any loss into an error.
//!
//! # Entry points
//!
//! One family, like serde_json's `from_*`/`to_*`:
//!
//! | | text | `serde_json::Value` |
//! |---|---|---|
//! | decode a body into the neutral model | [`decode_request`], [`decode_response`] | [`decode_request_value`], [`decode_response_value`] |
//! | encode the neutral model as a body | [`encode_request`], [`encode_response`] | [`encode_request_value`], [`encode_response_value`] |
//! | convert a body between formats | [`convert_request`], [`convert_response`] | [`convert_request_value`], [`convert_response_value`] |
//! | decode a bare conversation (one message or an array) | [`decode_messages`] | [`decode_messages_value`] |
//! | decode a bare tools value | [`decode_tools`] | [`decode_tools_value`] |
//!
//! and, for the pieces of a conversation: [`encode_messages`] (a request's messages
//! alone, each as JSON text), [`encode_tools`] (a tools array in any format, MCP
//! included), [`adapt_schema`] (a JSON Schema in a format's dialect), and MCP's tool
//! shapes ([`encode_mcp_tools`], [`decode_mcp_tools`], [`encode_mcp_call`],
//! [`decode_mcp_call`], [`encode_mcp_result`], [`decode_mcp_result`]). Settings are
//! [`Options`].
//!
//! What you will not find here: I/O of any kind (an image URL stays a URL or becomes a
//! loss; nothing is fetched), HTTP, or streaming conversion.
//!
//! # Example
//!
//! ```
//! use wire_convert::{Format, Options, convert_request};
//!
//! let openai = r#"{"model":"gpt-4o","messages":[
//!   {"role":"system","content":"Be terse."},
//!   {"role":"user","content":"Weather in Paris?"},
//!   {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
//!     "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
//!   {"role":"tool","tool_call_id":"call_1","content":"21°C"}]}"#;
//! let out = convert_request(openai, Format::OpenaiChat, Format::Anthropic, &Options::default())?;
//! let body: serde_json::Value = serde_json::from_str(&out.value)?;
//! assert_eq!(body["system"], "Be terse.");
//! assert_eq!(body["messages"][1]["content"][0]["input"]["city"], "Paris");
//! assert_eq!(body["messages"][2]["content"][0]["tool_use_id"], "call_1");
//! // Anthropic requires `max_tokens`, which the source did not have: that is a loss.
//! let loss = out.losses.iter().find(|l| l.path == "/max_tokens").unwrap();
//! assert_eq!(loss.code, wire_convert::LossCode::FieldDefaulted);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod api;
mod codec;
mod ctx;
mod error;
mod ids;
mod loss;
mod media;
pub mod model;
mod names;
mod options;
mod passes;
mod schema;
pub mod stream;
mod util;
mod vendor;

mod anthropic;
mod bedrock;
mod cohere;
mod gemini;
mod mcp;
mod mistral;
mod ollama;
mod openai_chat;
mod openai_responses;

pub use api::{
    Converted, Decoded, adapt_schema, convert_request, convert_request_value, convert_response,
    convert_response_value, decode_custom_call, decode_mcp_call, decode_mcp_result,
    decode_mcp_tools, decode_messages, decode_messages_value, decode_request, decode_request_value,
    decode_response, decode_response_value, decode_tools, decode_tools_value, encode_custom_output,
    encode_custom_tool, encode_mcp_call, encode_mcp_result, encode_mcp_tools, encode_messages,
    encode_request, encode_request_value, encode_response, encode_response_value, encode_tools,
    is_object_schema,
};
pub use error::Error;
pub use ids::{IdMap, IdRule};
pub use loss::{Loss, LossCode, LossKind};
pub use names::{NameMap, NameRule};
pub use options::{GeminiSchema, OpaqueMode, Options, ReasoningMode};
pub use schema::Budget as SchemaBudget;
pub use wire_types::Format;

pub(crate) use ctx::Ctx;
