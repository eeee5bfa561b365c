//! MCP's Streamable HTTP transport (protocol 2025-03-26 and later) over [`McpServer`],
//! on tiny_http, with std threads:
//!
//! * `POST /mcp` carries one JSON-RPC message. A notification or response gets `202
//!   Accepted`; a request gets its response as `application/json`, except a `tools/call`
//!   when the client accepts `text/event-stream`: then the response is an SSE stream of
//!   the call's notifications (progress, log messages) and its response, with a comment
//!   line every second so that a client that went away is noticed (its call is then
//!   cancelled).
//! * Sessions: `initialize` creates one and its response carries `Mcp-Session-Id`; every
//!   later request must send it (`400` without, `404` for a session that is not or no
//!   longer there). `DELETE /mcp` ends a session (its running calls are cancelled).
//! * `MCP-Protocol-Version`: a version the server does not speak is `400`; absent, the
//!   session's version is assumed.
//! * `GET /mcp` is `405`: this server opens no stream of its own (it has nothing to say
//!   outside a request).
//! * An `Origin` that is not localhost is `403` (DNS rebinding), a body over the
//!   server's message limit `413`.

use serde_json::Value;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tiny_http::{Header, Method, Request, Response, Server};
use toolwire::registry::mcp::{McpServer, PROTOCOL_VERSIONS, PendingCall};

type Session = Arc<Mutex<McpServer>>;

/// Sessions by id, and a way to make a new one.
pub(crate) struct Endpoint {
    new_server: Box<dyn Fn() -> McpServer + Send + Sync>,
    /// The servers' message limit, in bytes.
    limit: usize,
    sessions: Mutex<HashMap<String, Session>>,
    counter: AtomicU64,
}

impl Endpoint {
    /// An endpoint whose sessions each get a server from `new_server`.
    pub(crate) fn new(new_server: impl Fn() -> McpServer + Send + Sync + 'static) -> Self {
        Endpoint {
            limit: new_server().max_message_bytes(),
            new_server: Box::new(new_server),
            sessions: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(0),
        }
    }

    /// An id no one can guess from another: a random hasher's output over a counter and
    /// the time (std only; enough for a loopback demo, not a secret).
    fn session_id(&self) -> String {
        use std::hash::{BuildHasher, Hasher};
        let mut out = String::new();
        for _ in 0..2 {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(self.counter.fetch_add(1, Ordering::Relaxed));
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0),
            );
            out.push_str(&format!("{:016x}", h.finish()));
        }
        out
    }
}

/// Serves `endpoint` on `server` until `stop` is set (checked every 100 ms). Each request
/// is handled on a thread of its own.
pub(crate) fn serve(server: Server, endpoint: Arc<Endpoint>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        match server.recv_timeout(Duration::from_millis(100)) {
            Ok(Some(request)) => {
                let endpoint = endpoint.clone();
                std::thread::spawn(move || handle(&endpoint, request));
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("mcp_http: {e}");
                return;
            }
        }
    }
    // Stopping: calls still running are cancelled.
    for session in lock(&endpoint.sessions).values() {
        lock(session).cancel_all();
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap_or_else(|()| {
        Header::from_bytes(&b"X-Invalid"[..], &b"1"[..]).expect("a valid header")
    })
}

fn get<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

fn status(request: Request, code: u16, text: &str) {
    let _ = request.respond(
        Response::from_string(text)
            .with_status_code(code)
            .with_header(header("Content-Type", "text/plain; charset=utf-8")),
    );
}

fn json(request: Request, code: u16, body: String, session: Option<&str>) {
    let mut response = Response::from_string(body)
        .with_status_code(code)
        .with_header(header("Content-Type", "application/json"));
    if let Some(id) = session {
        response.add_header(header("Mcp-Session-Id", id));
    }
    let _ = request.respond(response);
}

/// Whether an `Origin` is this machine (`http://localhost:…`, `http://127.0.0.1:…`,
/// `http://[::1]:…`).
fn local_origin(origin: &str) -> bool {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().map(|h| format!("[{h}]"))
    } else {
        rest.split([':', '/']).next().map(str::to_owned)
    };
    matches!(host.as_deref(), Some("localhost" | "127.0.0.1" | "[::1]"))
}

fn handle(endpoint: &Endpoint, mut request: Request) {
    let path = request.url().split('?').next().unwrap_or("");
    if path != "/mcp" {
        return status(request, 404, "not found: the MCP endpoint is /mcp");
    }
    if get(&request, "Origin").is_some_and(|o| !local_origin(o)) {
        return status(request, 403, "forbidden: Origin is not this machine");
    }
    let session_id = get(&request, "Mcp-Session-Id").map(str::to_owned);
    match request.method() {
        Method::Post => {}
        Method::Delete => {
            let removed = session_id
                .as_deref()
                .and_then(|id| lock(&endpoint.sessions).remove(id));
            return match removed {
                Some(session) => {
                    lock(&session).cancel_all();
                    status(request, 200, "session ended")
                }
                None => status(request, 404, "no such session"),
            };
        }
        Method::Get => {
            let _ = request.respond(
                Response::from_string("this server opens no SSE stream of its own")
                    .with_status_code(405)
                    .with_header(header("Allow", "POST, DELETE")),
            );
            return;
        }
        _ => {
            let _ = request.respond(
                Response::from_string("method not allowed")
                    .with_status_code(405)
                    .with_header(header("Allow", "POST, DELETE")),
            );
            return;
        }
    }
    // The body, read to at most one byte over the limit.
    let limit = endpoint.limit;
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(limit as u64 + 1)
        .read_to_end(&mut body);
    if read.is_err() {
        return status(request, 400, "bad request: the body could not be read");
    }
    let accepts_sse = get(&request, "Accept").is_some_and(|a| a.contains("text/event-stream"));
    let version = get(&request, "MCP-Protocol-Version").map(str::to_owned);
    if version
        .as_deref()
        .is_some_and(|v| !PROTOCOL_VERSIONS.contains(&v))
    {
        return status(
            request,
            400,
            &format!(
                "bad request: unsupported MCP-Protocol-Version (this server speaks {})",
                PROTOCOL_VERSIONS.join(", ")
            ),
        );
    }
    let (session, new_id) = match session_id {
        Some(id) => match lock(&endpoint.sessions).get(&id).cloned() {
            Some(s) => (s, None),
            None => return status(request, 404, "no such session (it ended or never was)"),
        },
        None if is_initialize(&body) => {
            let server = (endpoint.new_server)();
            if body.len() > limit {
                return json(request, 413, server.refuse_oversized(body.len()), None);
            }
            (Arc::new(Mutex::new(server)), Some(endpoint.session_id()))
        }
        None => {
            return status(
                request,
                400,
                "bad request: Mcp-Session-Id is required (send `initialize` first)",
            );
        }
    };
    let handled = {
        let mut server = lock(&session);
        if body.len() > limit {
            let refusal = server.refuse_oversized(body.len());
            drop(server);
            return json(request, 413, refusal, None);
        }
        server.handle_bytes(&body)
    };
    // A session exists once `initialize` was answered (a refused one makes none).
    let new_id = new_id.filter(|_| lock(&session).protocol_version().is_some());
    if let Some(id) = &new_id {
        lock(&endpoint.sessions).insert(id.clone(), session.clone());
    }
    let sid = new_id.as_deref();
    match (handled.call, handled.messages.into_iter().next()) {
        (Some(call), _) if accepts_sse => stream(request, call, sid),
        (Some(call), _) => match call.run(|_| {}) {
            Some(response) => json(request, 200, response, sid),
            // Cancelled: MCP sends no response.
            None => status(request, 202, ""),
        },
        (None, Some(message)) => json(request, 200, message, sid),
        (None, None) => status(request, 202, ""),
    }
}

fn is_initialize(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .ok()
        .is_some_and(|v| v.get("method").and_then(Value::as_str) == Some("initialize"))
}

/// Runs a call and streams it as SSE: one `message` event per notification, then the
/// response; the body is chunked by hand so each event leaves at once.
fn stream(request: Request, call: PendingCall, session: Option<&str>) {
    let ctx = call.context().clone();
    let mut head = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n",
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    let mut w = request.into_writer();
    let chunk = |w: &mut Box<dyn Write + Send>, data: &str| -> std::io::Result<()> {
        write!(w, "{:x}\r\n{data}\r\n", data.len())?;
        w.flush()
    };
    if w.write_all(head.as_bytes())
        .and_then(|()| w.flush())
        .is_err()
    {
        ctx.cancel();
        return;
    }
    // The call's notifications, then its end (the response, or none when cancelled).
    enum Event {
        Notification(String),
        Done(Option<String>),
    }
    let (tx, rx) = channel::<Event>();
    let notify = Mutex::new(tx.clone());
    let runner = std::thread::spawn(move || {
        let response = call.run(move |n| {
            let _ = lock(&notify).send(Event::Notification(n));
        });
        let _ = tx.send(Event::Done(response));
    });
    let gone = std::cell::Cell::new(false);
    let write = |w: &mut Box<dyn Write + Send>, data: &str| {
        if !gone.get() && chunk(w, data).is_err() {
            // The client went away: its call is cancelled.
            gone.set(true);
            ctx.cancel();
        }
    };
    loop {
        match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(Event::Notification(m)) => write(&mut w, &format!("event: message\ndata: {m}\n\n")),
            Ok(Event::Done(response)) => {
                if let Some(m) = response {
                    write(&mut w, &format!("event: message\ndata: {m}\n\n"));
                }
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
            // A comment line: a client that went away shows up as a failed write.
            Err(RecvTimeoutError::Timeout) => write(&mut w, ": keep-alive\n\n"),
        }
    }
    let _ = runner.join();
    if !gone.get() {
        let _ = w.write_all(b"0\r\n\r\n").and_then(|()| w.flush());
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
