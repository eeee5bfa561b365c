//! An MCP server over stdio backed by a `ToolRegistry`: newline-delimited JSON-RPC 2.0 on
//! stdin/stdout (the MCP stdio transport), answering `initialize`, `tools/list` and
//! `tools/call`. The registry does the tool work; this file is only the framing.
//!
//! Run it and type (or pipe) requests, one per line:
//! `cargo run -p toolwire --example mcp_server < crates/toolwire/examples/mcp_server.stdin`

use serde_json::{Value, json};
use std::io::{BufRead, Write};
use toolwire::prelude::*;
use toolwire::types::mcp::CallToolParams;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

fn registry() -> Result<ToolRegistry, toolwire::registry::Error> {
    let mut r = ToolRegistry::new();
    r.register_typed("add", "Add two numbers", |x: Add| {
        Ok::<_, String>(json!(x.a + x.b))
    })?;
    r.register(
        ToolSpec::new("divide", "Divide a by b", json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}))?,
        |v| {
            let b = v["b"].as_f64().unwrap_or(0.0);
            if b == 0.0 {
                return Err("division by zero".into());
            }
            Ok(json!(v["a"].as_f64().unwrap_or(0.0) / b).into())
        },
    )?;
    Ok(r)
}

fn reply(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn handle(registry: &ToolRegistry, request: &Value) -> Option<Value> {
    let id = request.get("id")?; // notifications get no reply
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    Some(match method {
        "initialize" => reply(
            id,
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": {"name": "toolwire-example", "version": env!("CARGO_PKG_VERSION")}
            }),
        ),
        "tools/list" => reply(
            id,
            serde_json::to_value(registry.mcp_list()).unwrap_or(Value::Null),
        ),
        "tools/call" => match serde_json::from_value::<CallToolParams>(
            request.get("params").cloned().unwrap_or(Value::Null),
        ) {
            Err(e) => error(id, -32602, format!("invalid params: {e}")),
            Ok(params) => match registry.mcp_call(&params) {
                Ok(result) => reply(id, serde_json::to_value(result).unwrap_or(Value::Null)),
                Err(e) => error(id, -32602, e.to_string()),
            },
        },
        "ping" => reply(id, json!({})),
        other => error(id, -32601, format!("method not found: {other}")),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = registry()?;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = match serde_json::from_str::<Value>(&line) {
            Ok(request) => handle(&registry, &request),
            Err(e) => Some(error(&Value::Null, -32700, format!("parse error: {e}"))),
        };
        if let Some(r) = response {
            writeln!(stdout, "{r}")?;
            stdout.flush()?;
        }
    }
    Ok(())
}
