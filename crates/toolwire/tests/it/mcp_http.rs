use crate::{http, registry};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toolwire::registry::mcp::{McpServer, ServerOptions};
use toolwire::registry::{ToolRegistry, ToolSpec};

/// A server on a free loopback port, stopped when dropped.
struct Running {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn start(new_registry: impl Fn() -> ToolRegistry + Send + Sync + 'static, limit: usize) -> Running {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let addr = server.server_addr().to_ip().unwrap();
    let endpoint = Arc::new(http::Endpoint::new(move || {
        let options = ServerOptions {
            max_message_bytes: limit,
            ..Default::default()
        };
        McpServer::new(new_registry(), options)
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let thread = Some(std::thread::spawn(move || http::serve(server, endpoint, s)));
    Running { addr, stop, thread }
}

fn demo() -> Running {
    start(|| registry::registry().unwrap(), 1 << 20)
}

/// One HTTP/1.1 exchange: status, headers (lower-case names), body (chunked decoded).
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The `data:` of each SSE event.
    fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }
}

fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    read_reply(&mut BufReader::new(s))
}

fn read_reply(r: &mut impl BufRead) -> Reply {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (n, v) = l.split_once(':').unwrap();
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let find = |n: &str| headers.iter().find(|(h, _)| h == n).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            line.clear();
            r.read_line(&mut line).unwrap();
            let size = usize::from_str_radix(line.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            r.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(n) = find("content-length") {
        let mut b = vec![0; n.parse().unwrap()];
        r.read_exact(&mut b).unwrap();
        body = b;
    } else {
        r.read_to_end(&mut body).unwrap();
    }
    Reply {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

const BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");

fn init_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

/// Initializes a session; returns its id.
fn session(addr: SocketAddr) -> String {
    let r = send(addr, "POST", &[BOTH, JSON], &init_body());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-11-25");
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    assert!(
        id.len() >= 16 && id.bytes().all(|b| b.is_ascii_graphic()),
        "{id}"
    );
    id
}

#[test]
fn a_session_lists_calls_streams_progress_and_ends() {
    let server = demo();
    let a = server.addr;
    let sid = session(a);
    assert_ne!(session(a), sid, "each initialize makes its own session");
    let sess = ("Mcp-Session-Id", sid.as_str());
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let r = send(
        a,
        "POST",
        &[BOTH, JSON, sess, version],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    let r = send(
        a,
        "POST",
        &[BOTH, JSON, sess, version],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["result"]["tools"].as_array().map(Vec::len),
        Some(13)
    );
    // A call, streamed: the progress notifications, then the response, as SSE events.
    let call = r#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":5}}}"#;
    let r = send(a, "POST", &[BOTH, JSON, sess, version], call);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.events();
    let progress: Vec<&Value> = events.iter().map(|e| &e["params"]["progress"]).collect();
    assert_eq!(progress[..3], [&json!(0), &json!(50), &json!(100)]);
    assert_eq!(events[3]["id"], "p");
    assert_eq!(events.len(), 4);
    // A client that takes JSON only gets the response alone.
    let r = send(
        a,
        "POST",
        &[("Accept", "application/json"), JSON, sess],
        call,
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "Tool with progress executed successfully"
    );
    // No stream of the server's own; then the session ends, and is gone.
    assert_eq!(
        send(a, "GET", &[("Accept", "text/event-stream"), sess], "").status,
        405
    );
    assert_eq!(send(a, "DELETE", &[sess], "").status, 200);
    let r = send(
        a,
        "POST",
        &[BOTH, JSON, sess],
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    );
    assert_eq!(r.status, 404);
}

#[test]
fn requests_without_a_session_a_bad_version_a_foreign_origin_or_too_big_are_refused() {
    let server = start(|| registry::registry().unwrap(), 4096);
    let a = server.addr;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(
        send(a, "POST", &[BOTH, JSON], ping).status,
        400,
        "no session"
    );
    assert_eq!(
        send(a, "POST", &[BOTH, JSON, ("Mcp-Session-Id", "nope")], ping).status,
        404
    );
    let sid = session(a);
    let sess = ("Mcp-Session-Id", sid.as_str());
    let r = send(
        a,
        "POST",
        &[BOTH, JSON, sess, ("MCP-Protocol-Version", "1999-01-01")],
        ping,
    );
    assert_eq!(r.status, 400);
    assert!(
        r.body.contains("unsupported MCP-Protocol-Version"),
        "{}",
        r.body
    );
    assert_eq!(
        send(
            a,
            "POST",
            &[BOTH, JSON, sess, ("Origin", "http://evil.example")],
            ping
        )
        .status,
        403
    );
    let r = send(
        a,
        "POST",
        &[BOTH, JSON, sess, ("Origin", "http://localhost:3000")],
        ping,
    );
    assert_eq!(r.status, 200, "a local origin is fine");
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"{}\"}}",
        "a".repeat(5000)
    );
    let r = send(a, "POST", &[BOTH, JSON, sess], &big);
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["error"]["code"], -32600);
    // A JSON-RPC error is a 200 with the error, its id echoed.
    let r = send(
        a,
        "POST",
        &[BOTH, JSON, sess],
        r#"{"jsonrpc":"2.0","id":"x","method":"nope"}"#,
    );
    assert_eq!(
        (
            r.status,
            r.json()["error"]["code"].clone(),
            r.json()["id"].clone()
        ),
        (200, json!(-32601), json!("x"))
    );
}

#[test]
fn a_client_that_goes_away_mid_call_gets_its_call_cancelled() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = cancelled.clone();
    let server = start(
        move || {
            let mut r = ToolRegistry::new();
            let flag = flag.clone();
            r.register_with_context(
                ToolSpec::new("hold", "Waits to be cancelled", json!({"type": "object"})).unwrap(),
                move |_, ctx| {
                    if ctx.wait(Duration::from_secs(20)) {
                        flag.store(true, Ordering::SeqCst);
                    }
                    Ok("done".into())
                },
            )
            .unwrap();
            r
        },
        1 << 20,
    );
    let sid = session(server.addr);
    let body =
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hold","arguments":{}}}"#;
    let mut s = TcpStream::connect(server.addr).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: x\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {sid}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut first = String::new();
    let mut r = BufReader::new(s.try_clone().unwrap());
    r.read_line(&mut first).unwrap();
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    // The client goes away mid-call.
    s.shutdown(std::net::Shutdown::Both).unwrap();
    drop((r, s));
    let started = Instant::now();
    while !cancelled.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the call was cancelled, not left running 20 s"
    );
}
