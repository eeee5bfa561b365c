//! Register tools once, serve them to every provider's format, and dispatch the model's
//! calls safely.
//!
//! * [`ToolSpec`] and [`ToolRegistry::register`] (raw JSON Schema, checked at
//!   registration), [`ToolRegistry::register_typed`] (schema from a Rust type via
//!   schemars, input parsed with serde), [`ToolRegistry::register_async`], and custom
//!   tools whose input is free text ([`ToolSpec::custom`], [`ToolRegistry::register_custom`]:
//!   OpenAI Responses' `custom` tools, optionally held to a grammar).
//! * Dispatch ([`ToolRegistry::dispatch`], [`ToolRegistry::dispatch_call`],
//!   [`ToolRegistry::dispatch_all`]): arguments validated against the schema, handler
//!   panics caught, every failure a [`ToolError`] the model can read — the agent keeps
//!   going. The synchronous handlers of one turn run in parallel on scoped threads, at
//!   most [`ToolRegistry::max_parallel`] at once, results in call order; each handler's
//!   [`CallContext`] names its call.
//! * [`ToolRegistry::tools_for`]: the `tools` array of any format, sorted by name, through
//!   wire-convert's schema dialects (Gemini's, Ollama's, OpenAI strict mode for a
//!   [strict](ToolSpec::with_strict) tool), with its loss report.
//! * [`ToolRegistry::step`]: the agent step — parse a response of any format, dispatch its
//!   calls, return the final answer or the messages to append, in the same format (or,
//!   for a turn of calls only the caller can answer, [`Step::Unhandled`]).
//! * [`mcp`]: serve the registry as an MCP server ([`mcp::McpServer`], one message in,
//!   messages out, long calls run apart with progress, logging and cancellation through
//!   a [`CallContext`]), and import an MCP server's tools into a registry
//!   ([`mcp::McpClient::import`]) so any provider's model can call them. The transport
//!   is yours.
//!
//! One naming rule for every method that runs tools: the plain name blocks until the
//! calls are done ([`ToolRegistry::dispatch`], [`ToolRegistry::dispatch_all`],
//! [`ToolRegistry::step`]), and the `_async` name is the same work as a future
//! ([`ToolRegistry::dispatch_async`], [`ToolRegistry::dispatch_all_async`],
//! [`ToolRegistry::step_async`]).
//!
//! What you will not find here: an HTTP client, an async runtime (async handlers run on
//! whatever polls them; the blocking methods drive them on the calling thread with a
//! small built-in executor, so no runtime is needed; synchronous handlers run on std
//! scoped threads), or code that matches a provider's
//! JSON by hand — every format goes through wire-types and wire-convert.
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
//! let Step::Continue { id, follow_up, .. } = registry.step(Format::OpenaiChat, response)? else { unreachable!() };
//! assert_eq!(id.as_deref(), Some("chatcmpl-1"));
//! // Append the assistant turn and the `tool` message (JSON text, ready for the next
//! // request body), then call the model again.
//! assert_eq!(follow_up.len(), 2);
//! assert_eq!(follow_up[1].get(), r#"{"role":"tool","tool_call_id":"call_1","content":"Paris: 21°C"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod context;
mod exec;
pub mod mcp;
mod registry;
mod spec;
mod step;

pub use context::{CallContext, LogLevel, Notice};
pub use registry::{ToolError, ToolErrorKind, ToolOutput, ToolRegistry, ToolResultOf};
pub use spec::ToolSpec;
pub use step::Step;
use wire_types::Format;

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
    /// Reading a response or writing a tools array or follow-up failed.
    #[error(transparent)]
    Convert(#[from] wire_convert::Error),
    /// Reading an MCP response's result failed (the pointer is into the response).
    #[error(transparent)]
    Read(#[from] wire_types::Error),
    /// An MCP server answered a request with a JSON-RPC error.
    #[error("the MCP server answered with error {code}: {message}")]
    Rpc {
        /// The JSON-RPC error code (`-32602`: an unknown tool or bad params).
        code: i64,
        /// The server's message.
        message: String,
        /// The error's `data`, if any.
        data: Option<serde_json::Value>,
    },
    /// An MCP message broke the protocol: not a JSON-RPC response, the wrong id, a
    /// protocol version not spoken, endless pages.
    #[error("{}: {message}", if pointer.is_empty() { "/" } else { pointer.as_str() })]
    Protocol {
        /// JSON pointer into the message.
        pointer: String,
        /// What was expected.
        message: String,
    },
    /// The transport the caller gave failed.
    #[error("transport: {0}")]
    Transport(String),
}

impl ToolRegistry {
    /// The tool definitions for `format`, sorted by name so the bytes are stable, through
    /// the format's schema dialect (Gemini's OpenAPI subset, Ollama's subset, OpenAI strict
    /// mode for a [strict](ToolSpec::with_strict) tool), with its loss report (the value is that format's
    /// `tools` array; for Bedrock, `toolConfig.tools`). A name the format rejects (a
    /// registered `2fa` for Gemini, whose names start with a letter or `_`) is rewritten
    /// by wire-convert's [`NameRule`](wire_convert::NameRule) with a `name_rewritten` loss,
    /// the map in [`Converted::names`](wire_convert::Converted::names) (the same as
    /// [`ToolRegistry::names_for`]); [`ToolRegistry::step`] dispatches a call of the
    /// rewritten name to the tool.
    pub fn tools_for(
        &self,
        format: Format,
        options: &wire_convert::Options,
    ) -> Result<wire_convert::Converted<serde_json::Value>, Error> {
        // Strict mode is OpenAI's: other formats get the tool as it is without it.
        let strict_here = matches!(format, Format::OpenaiChat | Format::OpenaiResponses);
        let mut tools = Vec::new();
        let mut custom_losses = Vec::new();
        for spec in self.specs() {
            if let Some(custom) = spec.to_custom_tool() {
                let out = wire_convert::encode_custom_tool(custom, format);
                let at = format!("/tools/{}", tools.len());
                custom_losses.extend(out.losses.into_iter().map(|mut l| {
                    l.path.insert_str(0, &at);
                    l
                }));
                tools.push(out.value);
                continue;
            }
            let mut def = spec.to_def();
            if !strict_here {
                def.strict = None;
            }
            tools.push(wire_convert::model::Tool::Function(def));
        }
        if options.strict && !custom_losses.is_empty() {
            return Err(wire_convert::Error::Lossy {
                losses: custom_losses,
            }
            .into());
        }
        let mut out = wire_convert::encode_tools(tools, format, options)?;
        custom_losses.append(&mut out.losses);
        // In tool order: the custom tools' own losses, then the encoder's.
        custom_losses.sort_by_key(|l| tool_index(&l.path));
        out.losses = custom_losses;
        Ok(out)
    }
}

impl ToolRegistry {
    /// The tool names [`ToolRegistry::tools_for`] gives `format` where its rule rejects
    /// the registered one (registered name → the name `format`'s model sees): empty when
    /// every name is valid there. Deterministic, so the step finds the tool again.
    ///
    /// ```
    /// use tool_registry::{ToolRegistry, ToolSpec};
    /// use wire_types::Format;
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register(ToolSpec::new("2fa", "A second factor", serde_json::json!({"type": "object"}))?, |_| Ok("ok".into()))?;
    /// assert!(registry.names_for(Format::OpenaiChat).is_empty());
    /// let gemini = registry.names_for(Format::Gemini);
    /// assert_eq!(gemini.get("2fa"), "t_2fa");
    /// assert_eq!(gemini.reverse("t_2fa"), "2fa");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn names_for(&self, format: Format) -> wire_convert::NameMap {
        self.names_of(format).clone()
    }

    /// [`ToolRegistry::names_for`], borrowed from the registry's per-format memo.
    pub(crate) fn names_of(&self, format: Format) -> &wire_convert::NameMap {
        let made = || {
            let rule = wire_convert::NameRule::of(format);
            let functions: Vec<&str> = self
                .specs()
                .filter(|s| s.to_custom_tool().is_none())
                .map(ToolSpec::name)
                .collect();
            if functions.iter().all(|n| rule.accepts(n)) {
                return wire_convert::NameMap::default();
            }
            wire_convert::NameMap::build(rule, functions)
        };
        // `Format::ALL` lists the formats in declaration order, so `format as usize` is
        // its place there (checked by a test).
        self.names[format as usize].get_or_init(made)
    }
}

/// The tool index a loss path starts with (`/tools/3/…` → 3), for ordering.
fn tool_index(path: &str) -> usize {
    path.strip_prefix("/tools/")
        .and_then(|rest| rest.split('/').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or(usize::MAX)
}
