//! Any provider's model using an MCP server's tools: the server's tools are imported into
//! a `ToolRegistry` (`McpClient::import`), offered to the model in its format, and the
//! model's calls run through the agent step, which forwards them to the server and writes
//! the results back in the model's format.
//!
//! `cargo run -p toolwire --example mcp_bridge` bridges to the demo registry served in
//! the same process (`mcp_demo/registry.rs` behind an `McpServer`);
//! `cargo run -p toolwire --example mcp_bridge -- COMMAND [ARGS…]` spawns an MCP server
//! over stdio instead (CI runs it against a server written with the official Python SDK,
//! `crates/tool-registry/tests/mcp/sdk_server.py`). Either way the same recorded OpenAI
//! Chat and Anthropic responses call `add`, `get_weather` (structured output),
//! `always_fails` and `test_image_content`, and what comes back is checked.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use toolwire::prelude::*;
use toolwire::registry::mcp::{Implementation, McpClient, McpServer, ServerOptions, Transport};

#[path = "mcp_demo/registry.rs"]
mod registry;

/// An MCP server as a child process: one JSON-RPC message per line on its stdin and
/// stdout (the MCP stdio transport).
struct StdioServer {
    child: Mutex<Child>,
    /// `None` once closed.
    stdin: Mutex<Option<ChildStdin>>,
    stdout: Mutex<BufReader<ChildStdout>>,
}

impl StdioServer {
    fn spawn(command: &str, args: &[String]) -> std::io::Result<Self> {
        let mut child = Command::new(command)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child.stdin.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        let stdout = child.stdout.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        Ok(StdioServer {
            child: Mutex::new(child),
            stdin: Mutex::new(Some(stdin)),
            stdout: Mutex::new(BufReader::new(stdout)),
        })
    }

    fn send(&self, message: &str) -> Result<(), String> {
        let mut w = self.stdin.lock().map_err(|e| e.to_string())?;
        let w = w.as_mut().ok_or("the server's stdin is closed")?;
        writeln!(w, "{message}")
            .and_then(|()| w.flush())
            .map_err(|e| format!("writing to the server: {e}"))
    }
}

impl Transport for StdioServer {
    fn request(&self, message: &str) -> Result<String, String> {
        let id = serde_json::from_str::<Value>(message)
            .ok()
            .and_then(|v| v.get("id").cloned());
        // One request at a time: the reader is held until its response came.
        let mut r = self.stdout.lock().map_err(|e| e.to_string())?;
        self.send(message)?;
        let mut line = String::new();
        loop {
            line.clear();
            if r.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the server closed its stdout".into());
            }
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let is_response = v.get("method").is_none();
            if is_response && v.get("id") == id.as_ref() {
                return Ok(line.trim_end().to_owned());
            }
            if let (Some(req), false) = (v.get("id"), is_response) {
                // A request of the server's (ping, sampling): this client offers none
                // but ping.
                let reply = if v["method"] == "ping" {
                    serde_json::json!({"jsonrpc": "2.0", "id": req, "result": {}})
                } else {
                    serde_json::json!({"jsonrpc": "2.0", "id": req, "error": {"code": -32601, "message": "method not found"}})
                };
                self.send(&reply.to_string())?;
            }
            // Notifications (progress, log messages) are dropped.
        }
    }

    fn notify(&self, message: &str) -> Result<(), String> {
        self.send(message)
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        // Closing stdin is the stdio transport's shutdown; then wait for the exit.
        if let Ok(stdin) = self.stdin.get_mut() {
            drop(stdin.take());
        }
        if let Ok(child) = self.child.get_mut() {
            let _ = child.wait();
        }
    }
}

const OPENAI: &str = r#"{"id":"chatcmpl-bridge","object":"chat.completion","created":1,"model":"gpt-4o",
  "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
    {"id":"call_add","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":40}"}},
    {"id":"call_weather","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}},
    {"id":"call_fail","type":"function","function":{"name":"always_fails","arguments":"{}"}},
    {"id":"call_image","type":"function","function":{"name":"test_image_content","arguments":"{}"}}]}}],
  "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}"#;

const ANTHROPIC: &str = r#"{"id":"msg_bridge","type":"message","role":"assistant","model":"claude-sonnet-4-5",
  "content":[{"type":"tool_use","id":"toolu_add","name":"add","input":{"a":2,"b":40}},
             {"type":"tool_use","id":"toolu_fail","name":"always_fails","input":{}},
             {"type":"tool_use","id":"toolu_image","name":"test_image_content","input":{}}],
  "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":20}}"#;

fn run<T: Transport>(client: McpClient<T>) -> Result<(), Box<dyn std::error::Error>> {
    let server = client.server().server_info.name.clone();
    let client = Arc::new(client);
    let mut tools = ToolRegistry::new();
    let imported = client.import(&mut tools)?;
    println!(
        "imported from {server}: {}",
        imported
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for s in &imported.skipped {
        println!("  skipped {}: {}", s.mcp_name, s.reason);
    }
    for format in [Format::OpenaiChat, Format::Anthropic] {
        let offered = tools.tools_for(format, &Options::default())?;
        println!(
            "{format}: {} tools offered",
            offered.value.as_array().map_or(0, Vec::len)
        );
    }

    // OpenAI Chat: four parallel calls, four `tool` messages.
    let step = tools.step(Format::OpenaiChat, OPENAI)?;
    let items = step.follow_up_values();
    let Step::Continue {
        results, losses, ..
    } = step
    else {
        return Err("the OpenAI response calls tools".into());
    };
    for item in &items[1..] {
        println!("openai-chat follow-up: {item}");
    }
    for l in &losses {
        println!("  loss: {l}");
    }
    assert!(
        items[1]["content"]
            .as_str()
            .is_some_and(|t| t.starts_with("42")),
        "add"
    );
    assert!(
        items[2]["content"]
            .as_str()
            .is_some_and(|t| t.contains("21.5")),
        "structured weather"
    );
    assert!(
        items[3]["content"]
            .as_str()
            .is_some_and(|t| t.starts_with("Error:") && t.contains("always fails")),
        "the failure, as OpenAI tool messages say it"
    );
    assert_eq!(results.iter().filter(|r| r.is_error).count(), 1);
    // OpenAI tool messages carry no image: it moves to a user message, with a loss.
    assert!(
        items
            .iter()
            .any(|i| i["role"] == "user" && i.to_string().contains("image_url")),
        "the image reaches the model in a user message"
    );
    assert!(!losses.is_empty(), "the move is reported");

    // Anthropic: one user message of tool_result blocks; the image stays in its block.
    let step = tools.step(Format::Anthropic, ANTHROPIC)?;
    let items = step.follow_up_values();
    let blocks = &items[1]["content"];
    println!("anthropic follow-up: {}", items[1]);
    assert!(blocks[0].to_string().contains("42"), "add");
    assert_eq!(blocks[1]["is_error"], true);
    assert_eq!(blocks[2]["content"][0]["type"], "image");
    assert_eq!(blocks[2]["content"][0]["source"]["media_type"], "image/png");
    println!("ok: {server}'s tools answered an OpenAI Chat and an Anthropic model");
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let me = Implementation::new("toolwire-mcp-bridge", env!("CARGO_PKG_VERSION"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        Some((command, rest)) => run(McpClient::connect(StdioServer::spawn(command, rest)?, me)?),
        None => {
            let options = ServerOptions {
                name: "toolwire-demo (in process)".into(),
                ..Default::default()
            };
            let server = Mutex::new(McpServer::new(registry::registry()?, options));
            // An in-process transport: each message handled, calls run in place.
            let transport = move |m: &str| -> Result<Option<String>, String> {
                let mut s = server.lock().map_err(|e| e.to_string())?;
                Ok(s.handle(m).finish().pop())
            };
            run(McpClient::connect(transport, me)?)
        }
    }
}
