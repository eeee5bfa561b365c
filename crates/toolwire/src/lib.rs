//! toolwire: speak the JSON of every major LLM API for tool calling — with no HTTP client
//! of its own.
//!
//! This crate only re-exports the three layers, each usable on its own:
//!
//! * [`types`] (`wire-types`): typed, lossless serde structs for each provider's requests,
//!   responses and stream events (OpenAI Chat and Responses, Anthropic, Gemini, Ollama,
//!   Bedrock, Mistral, Cohere) and MCP's tool shapes; errors name the JSON pointer at
//!   fault. Start here to read or write one provider's JSON.
//! * [`convert`] (`wire-convert`): any format to any other through one neutral model,
//!   with a report of everything that could not be carried. Start here to switch or mix
//!   providers, or to store one canonical transcript.
//! * [`registry`] (`tool-registry`): register tools once, get every provider's tools
//!   array, dispatch the model's calls safely, run the agent step; serve the tools over
//!   MCP and use any MCP server's tools from any provider ([`registry::mcp`]).
//!
//! [`prelude`] brings the names most programs need.
//!
//! # Example: one tool, two providers, one agent step
//!
//! ```
//! use toolwire::prelude::*;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Weather {
//!     /// City name.
//!     city: String,
//! }
//!
//! let mut registry = ToolRegistry::new();
//! registry.register_typed("get_weather", "Current weather in a city", |w: Weather| {
//!     Ok::<_, String>(format!("{}: 21°C, clear", w.city))
//! })?;
//!
//! // The same tool, offered to two providers.
//! let openai = registry.tools_for(Format::OpenaiChat, &Options::default())?;
//! let anthropic = registry.tools_for(Format::Anthropic, &Options::default())?;
//! assert_eq!(openai.value[0]["function"]["name"], "get_weather");
//! assert_eq!(anthropic.value[0]["input_schema"]["required"][0], "city");
//!
//! // A recorded Anthropic response that calls it.
//! let response = r#"{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
//!   "content":[{"type":"text","text":"Let me check."},
//!              {"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}],
//!   "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":20}}"#;
//!
//! let step = registry.step(Format::Anthropic, response)?;
//! // The follow-up comes as JSON text per message; here it is read as values.
//! let follow_up = step.follow_up_values();
//! match step {
//!     Step::Continue { id, usage, .. } => {
//!         assert_eq!(id.as_deref(), Some("msg_01"));
//!         assert_eq!(usage.and_then(|u| u.output_tokens), Some(20));
//!         // Append the assistant turn and one user message of tool_result blocks.
//!         assert_eq!(follow_up[0]["role"], "assistant");
//!         assert_eq!(follow_up[1]["content"][0]["type"], "tool_result");
//!         assert_eq!(follow_up[1]["content"][0]["tool_use_id"], "toolu_01");
//!         assert_eq!(follow_up[1]["content"][0]["content"], "Paris: 21°C, clear");
//!     }
//!     Step::Final { .. } | Step::Unhandled { .. } => unreachable!("the response calls a tool"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub use tool_registry as registry;
pub use wire_convert as convert;
pub use wire_types as types;

/// The README's examples, run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The names most programs need, from all three layers.
pub mod prelude {
    pub use crate::convert::{
        Converted, Loss, LossKind, Options, convert_request, convert_response, decode_request,
        decode_response, encode_request, encode_response,
    };
    pub use crate::registry::{Step, ToolError, ToolOutput, ToolRegistry, ToolSpec};
    pub use crate::types::{Detected, Format, Kind, detect};
}
