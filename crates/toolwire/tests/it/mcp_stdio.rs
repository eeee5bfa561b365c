use crate::{registry, stdio};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolwire::registry::mcp::{McpServer, ServerOptions};

/// An output shared with the test.
#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buf {
    fn lines(&self) -> Vec<String> {
        String::from_utf8(self.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

fn demo(options: ServerOptions) -> McpServer {
    let options = ServerOptions {
        name: "toolwire-demo".into(),
        ..options
    };
    McpServer::new(registry::registry().unwrap(), options)
}

#[test]
fn the_recorded_session_gets_the_recorded_answers() {
    // What `cargo run -p toolwire --example mcp_server < mcp_server.stdin` prints, as
    // reviewed in `mcp_server.stdout`. Calls run concurrently, so lines are compared as
    // a set (each is one whole message).
    let input = include_str!("../../examples/mcp_server.stdin");
    let out = Buf::default();
    stdio::serve(
        demo(ServerOptions::default()),
        input.as_bytes(),
        out.clone(),
        Duration::from_secs(10),
    )
    .unwrap();
    let mut got = out.lines();
    let mut want: Vec<String> = include_str!("../../examples/mcp_server.stdout")
        .lines()
        .map(str::to_owned)
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn closing_stdin_mid_call_cancels_the_call_after_the_grace_period() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"seconds":20}}}"#,
        "\n",
    );
    let out = Buf::default();
    let started = Instant::now();
    stdio::serve(
        demo(ServerOptions::default()),
        input.as_bytes(),
        out.clone(),
        Duration::from_millis(100),
    )
    .unwrap();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "stopped after {took:?}, not 20 s"
    );
    let lines = out.lines();
    assert_eq!(lines.len(), 1, "the initialize response only: {lines:?}");
    assert!(lines[0].contains(r#""id":1"#));
}

#[test]
fn a_line_over_the_limit_is_refused_without_being_kept_and_the_next_is_served() {
    let long = format!("{{\"x\":\"{}\"}}", "a".repeat(5000));
    let input = format!(
        "{long}\n\n{}\n",
        r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#
    );
    let out = Buf::default();
    let options = ServerOptions {
        max_message_bytes: 1000,
        ..Default::default()
    };
    stdio::serve(demo(options), input.as_bytes(), out.clone(), Duration::ZERO).unwrap();
    assert_eq!(
        out.lines(),
        [
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the message is 5008 bytes or more, over the limit of 1000"}}"#,
            r#"{"jsonrpc":"2.0","id":"p","result":{}}"#,
        ]
    );
}
