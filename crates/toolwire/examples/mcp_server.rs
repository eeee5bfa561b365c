//! An MCP server over stdio (the MCP stdio transport: newline-delimited JSON-RPC on
//! stdin/stdout) serving the demo registry (`mcp_demo/registry.rs`). The protocol is
//! `toolwire::registry::mcp::McpServer`'s; this file and `mcp_demo/stdio.rs` are only the
//! framing and the threads.
//!
//! `cargo run -p toolwire --example mcp_server < crates/toolwire/examples/mcp_server.stdin`
//! answers a recorded session; the answers are checked against `mcp_server.stdout` by
//! `crates/toolwire/tests/it/mcp_examples.rs`. Any MCP client can also spawn it; it
//! stops when its stdin closes (calls still running get 5 s to finish).

use std::time::Duration;
use toolwire::registry::mcp::{McpServer, ServerOptions};

#[path = "mcp_demo/registry.rs"]
mod registry;
#[path = "mcp_demo/stdio.rs"]
mod stdio;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = ServerOptions {
        name: "toolwire-demo".into(),
        ..Default::default()
    };
    let server = McpServer::new(registry::registry()?, options);
    stdio::serve(
        server,
        std::io::stdin().lock(),
        std::io::stdout(),
        Duration::from_secs(5),
    )?;
    Ok(())
}
