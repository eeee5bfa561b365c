//! Register tools once, serve them to every provider's format, and dispatch the model's
//! calls safely.
//!
//! * [`ToolSpec`] and [`ToolRegistry::register`] (raw JSON Schema, checked at
//!   registration), [`ToolRegistry::register_typed`] (schema from a Rust type via
//!   schemars, input parsed with serde), [`ToolRegistry::register_async`].
//! * Dispatch ([`ToolRegistry::dispatch`], [`ToolRegistry::dispatch_call`],
//!   [`ToolRegistry::dispatch_all`]): arguments validated against the schema, handler
//!   panics caught, every failure a result the model can read — the agent keeps going.
//! * [`ToolRegistry::tools_for`]: the `tools` array of any format, sorted by name, through
//!   wire-convert's schema dialects, with its loss report.
//! * [`ToolRegistry::step`]: the agent step — parse a response of any format, dispatch its
//!   calls, return the final answer or the messages to append, in the same format.
//! * [`ToolRegistry::mcp_list`] and [`ToolRegistry::mcp_call`]: answer MCP `tools/list`
//!   and `tools/call` (the transport is yours).
//!
//! What you will not find here: an HTTP client, an async runtime (async handlers run on
//! whatever polls them; the blocking methods use a small built-in `block_on`), or code
//! that matches a provider's JSON by hand — every format goes through wire-types and
//! wire-convert.
//!
//! # Example
//!
//! ```
//! use tool_registry::{Step, ToolRegistry};
//! use wire_types::Format;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Weather { city: String }
//!
//! let mut registry = ToolRegistry::new();
//! registry.register_typed("get_weather", "Current weather", |w: Weather| {
//!     Ok::<_, String>(format!("{}: 21°C", w.city))
//! })?;
//!
//! // What the model saw.
//! let tools = registry.tools_for(Format::OpenaiChat, &Default::default())?;
//! assert_eq!(tools.value[0]["function"]["name"], "get_weather");
//!
//! // What it answered: a tool call.
//! let response = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o",
//!   "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
//!   "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}"#;
//! let Step::Continue { append, .. } = registry.step(Format::OpenaiChat, response)? else { unreachable!() };
//! // Append the assistant turn and the `tool` message (JSON text, ready for the next
//! // request body), then call the model again.
//! assert_eq!(append.len(), 2);
//! assert_eq!(append[1].get(), r#"{"role":"tool","tool_call_id":"call_1","content":"Paris: 21°C"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod exec;
mod mcp;
mod registry;
mod spec;
mod step;

pub use exec::block_on;
pub use registry::{Outcome, ToolError, ToolOutput, ToolRegistry, ToolResultOf};
pub use spec::ToolSpec;
pub use step::Step;

/// What the registry refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tool name breaks a rule.
    #[error("tool name `{name}` is invalid: {rule}")]
    Name {
        /// The name.
        name: String,
        /// The rule it breaks.
        rule: String,
    },
    /// A schema is not JSON, not a schema object, or does not compile.
    #[error("tool `{tool}`: {message}")]
    Schema {
        /// The tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// A second tool with the same name.
    #[error("a tool named `{0}` is already registered")]
    Duplicate(String),
    /// `dispatch` of a name nobody registered.
    #[error("unknown tool `{name}` (registered: {})", if available.is_empty() { "none".to_owned() } else { available.join(", ") })]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The registered names.
        available: Vec<String>,
    },
    /// Reading a response or writing a tools array or follow-up failed.
    #[error(transparent)]
    Convert(#[from] wire_convert::Error),
    /// Reading an MCP request failed.
    #[error(transparent)]
    Read(#[from] wire_types::Error),
}

impl ToolRegistry {
    /// The tool definitions for `format`, sorted by name so the bytes are stable, through
    /// the format's schema dialect, with its loss report (the value is that format's
    /// `tools` array; for Bedrock, `toolConfig.tools`). A name the format would reject
    /// is an error naming the format's rule.
    pub fn tools_for(
        &self,
        format: wire_types::Format,
        options: &wire_convert::Options,
    ) -> Result<wire_convert::Converted<serde_json::Value>, Error> {
        let mut tools = Vec::new();
        for spec in self.specs() {
            spec.check_for(format)?;
            tools.push(wire_convert::model::Tool::Function(spec.to_def()));
        }
        Ok(wire_convert::encode_tools(tools, format, options)?)
    }
}
