//! Any bytes as MCP messages, one a line, to a server with one tool: never a panic;
//! every message it sends is one JSON-RPC 2.0 object.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::mcp::{McpServer, ServerOptions};
use tool_registry::{ToolRegistry, ToolSpec};

fuzz_target!(|data: &[u8]| {
    let mut registry = ToolRegistry::new();
    let spec = ToolSpec::new(
        "echo",
        "Echoes its arguments",
        serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
    .unwrap();
    registry
        .register(spec, |args| Ok(args.to_string().into()))
        .unwrap();
    let mut server = McpServer::new(registry, ServerOptions::default());
    for line in data.split(|&b| b == b'\n') {
        for message in server.handle_bytes(line).finish() {
            let v: serde_json::Value = serde_json::from_str(&message)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {message}"));
            assert_eq!(v["jsonrpc"], "2.0", "{message}");
        }
    }
});
