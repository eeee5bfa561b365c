//! MCP (the Model Context Protocol) both ways, with no I/O: serve a [`ToolRegistry`](crate::ToolRegistry) as
//! an MCP server ([`McpServer`]), and use an MCP server's tools from any provider
//! ([`McpClient::import`]).
//!
//! Protocol versions 2025-11-25, 2025-06-18 and 2025-03-26 ([`PROTOCOL_VERSIONS`]):
//! JSON-RPC 2.0 messages, `initialize` / `notifications/initialized`, `ping`,
//! `tools/list` (paged), `tools/call`, `logging/setLevel`, `notifications/progress`,
//! `notifications/message`, `notifications/cancelled` and
//! `notifications/tools/list_changed`. The transports (stdio, Streamable HTTP) are the
//! caller's: `crates/toolwire/examples/mcp_server.rs` and `mcp_http.rs` are two.
//!
//! # The server: one message in, messages out, calls run apart
//!
//! [`McpServer::handle`] takes one message (the JSON text of one JSON-RPC message) and
//! returns a [`Handled`]: the messages to send now ([`Handled::messages`]), and, for a
//! `tools/call` that was accepted, a [`PendingCall`] to run ([`Handled::call`]).
//! Everything but running a tool is answered at once, so `handle` never blocks.
//!
//! A `tools/call` is not run inside `handle` because MCP calls are long-running and
//! concurrent: while one runs, the client may send further requests (other calls, with
//! string or number ids, `ping`) and `notifications/cancelled` for a call in flight. So
//! `handle` checks the request (known tool, params, a fresh id), records the call as
//! running, and hands it back; the transport runs it where it likes —
//! [`PendingCall::run`] on a thread of its own, or [`PendingCall::run_async`] as a task —
//! and keeps calling `handle` meanwhile. While it runs, the tool reports progress and
//! log messages through its [`CallContext`]; `run` passes them to the transport's `send`
//! as `notifications/progress` (only when the request had a `progressToken`, and only
//! increasing values) and `notifications/message` (at or above the level set by
//! `logging/setLevel`, `info` until then). When `notifications/cancelled` names a call
//! still running, `handle` cancels its context: a synchronous handler sees
//! [`CallContext::is_cancelled`] (and [`CallContext::wait`] returns early), an async
//! handler's future is dropped at once, and `run` returns `None`: no response is sent,
//! as the spec asks. A transport whose peer went away calls [`McpServer::cancel_all`]
//! (or cancels one call through [`PendingCall::context`]).
//!
//! The server's state (the calls running, the log level) is shared with the pending
//! calls behind an `Arc` and a mutex, so `handle` takes `&mut self` on one thread while
//! calls finish on others. A transport that handles one message at a time can use
//! [`Handled::finish`], which runs the call in place.
//!
//! What goes wrong is answered as the spec says: a tool that fails, panics, or gets
//! arguments that break its input schema gives a result with `isError: true` and a
//! message the model can read; a tool with an output schema must return structured
//! content matching it (else an `isError` result says so). An unknown tool is `-32602`,
//! text that is not JSON `-32700`, a batch or a message that is not a JSON-RPC request
//! `-32600` (as is a request before `initialize`, and one over
//! [`ServerOptions::max_message_bytes`]), an unknown method `-32601`, with the request's
//! id echoed, string or number. Nothing a peer sends makes `handle` panic.
//!
//! ```
//! use tool_registry::ToolRegistry;
//! use tool_registry::mcp::{McpServer, ServerOptions};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add { a: f64, b: f64 }
//!
//! let mut registry = ToolRegistry::new();
//! registry.register_typed("add", "Add two numbers", |x: Add| Ok::<_, String>(format!("{}", x.a + x.b)))?;
//! let mut server = McpServer::new(registry, ServerOptions::default());
//! let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
//! let out = server.handle(init).finish();
//! assert!(out[0].contains(r#""protocolVersion":"2025-06-18""#));
//! let call = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}"#;
//! let out = server.handle(call).finish();
//! assert_eq!(out, [r#"{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"42"}]}}"#]);
//! # Ok::<(), tool_registry::Error>(())
//! ```
//!
//! # The client: requests, responses, and tools imported
//!
//! [`initialize_request`], [`list_tools_request`], [`call_tool_request`] write requests;
//! [`read_initialize`], [`read_list_tools`], [`read_call_tool`] read their responses.
//! [`McpClient`] runs them over a [`Transport`] (a trait, or a closure) and follows
//! `tools/list` cursors; [`McpClient::import`] registers the server's tools in a
//! registry whose handlers forward each call, so the agent step works with them in any
//! provider's format.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use tool_registry::{Step, ToolRegistry};
//! use tool_registry::mcp::{Implementation, McpClient, McpServer, ServerOptions};
//! use wire_types::Format;
//!
//! // A server to talk to: here in the same process; normally a child process or a URL.
//! let mut tools = ToolRegistry::new();
//! tools.register_typed("shout", "Upper-cases", |s: String| Ok::<_, String>(s.to_uppercase()))?;
//! let server = Mutex::new(McpServer::new(tools, ServerOptions::default()));
//! let transport = move |m: &str| Ok::<_, String>(server.lock().unwrap().handle(m).finish().pop());
//!
//! let client = Arc::new(McpClient::connect(transport, Implementation::new("bridge", "1"))?);
//! let mut registry = ToolRegistry::new();
//! client.import(&mut registry)?;
//! let response = r#"{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"shout","input":{"input":"hi"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}"#;
//! let step = registry.step(Format::Anthropic, response)?;
//! assert_eq!(step.follow_up_values()[1]["content"][0]["content"], "HI");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod client;
mod jsonrpc;
mod server;

pub use crate::context::{CallContext, LogLevel, Notice};
pub use client::{
    Implementation, Imported, ImportedTool, InitializeResult, MAX_PAGES, McpClient, Skipped,
    Transport, call_tool_request, initialize_request, initialized_notification, list_tools_request,
    read_call_tool, read_initialize, read_list_tools,
};
pub use jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RequestId};
pub use server::{Handled, McpServer, PendingCall, ServerOptions};

/// The protocol versions spoken, latest first.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The latest protocol version: what the client asks for, and what the server answers
/// when the client asks for one it does not speak.
pub const LATEST_PROTOCOL_VERSION: &str = PROTOCOL_VERSIONS[0];
