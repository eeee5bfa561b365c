#![allow(unreachable_pub)] // a test binary: its `pub` items are reachable only within it, by design
//! The one integration-test binary of the facade: the MCP examples' transports (stdio and
//! Streamable HTTP) and demo registry, included from `examples/mcp_demo/`, run against
//! in-memory pipes and a loopback socket.

#[allow(dead_code)] // the examples use all of it; these tests some
#[path = "../../examples/mcp_demo/http.rs"]
mod http;
#[allow(dead_code)]
#[path = "../../examples/mcp_demo/registry.rs"]
mod registry;
#[allow(dead_code)]
#[path = "../../examples/mcp_demo/stdio.rs"]
mod stdio;

/// The Streamable HTTP transport: sessions, SSE, headers, refusals, a client gone mid-call.
mod mcp_http;
/// The stdio transport: the recorded session, a client gone mid-call, an endless line.
mod mcp_stdio;
