//! [`McpServer`]: the server side of MCP over a [`ToolRegistry`], one message at a time.

use super::jsonrpc::{
    self, INVALID_PARAMS, INVALID_REQUEST, Incoming, METHOD_NOT_FOUND, RequestId,
};
use super::{LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS};
use crate::context::{CallContext, LogLevel, Notice};
use crate::registry::{Done, Entry, Started, start, to_tool_result};
use crate::{ToolError, ToolErrorKind, ToolRegistry, ToolSpec};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use wire_convert::model::Part;

/// How the server presents itself and what it accepts. `Default` gives the values each
/// field's doc names.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerOptions {
    /// `serverInfo.name`. Default: `"toolwire"`.
    pub name: String,
    /// `serverInfo.version`. Default: this crate's version.
    pub version: String,
    /// `serverInfo.title`, a display name. Default: none.
    pub title: Option<String>,
    /// `instructions` for the client's model. Default: none.
    pub instructions: Option<String>,
    /// Tools per `tools/list` page (at least 1). Default: 100.
    pub page_size: usize,
    /// The longest message accepted, in bytes; a longer one is refused with `-32600`
    /// before it is parsed. Default: 4 MiB.
    pub max_message_bytes: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            name: "toolwire".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            title: None,
            instructions: None,
            page_size: 100,
            max_message_bytes: 4 << 20,
        }
    }
}

/// What [`McpServer::handle`] made of one message.
#[derive(Debug, Default)]
#[must_use = "the messages must be sent and the call, if any, run"]
pub struct Handled {
    /// Messages to send now, each one JSON-RPC message as JSON text (responses, errors).
    pub messages: Vec<String>,
    /// A `tools/call` that was accepted and is still to run: run it (on another thread,
    /// or as a task) and send what it produces. Its response is not in `messages`.
    pub call: Option<PendingCall>,
}

impl Handled {
    /// Runs the call, if any, on this thread, and returns every message to send in order:
    /// `messages`, then the call's notifications and its response. For transports that
    /// handle one message at a time (no cancellation of a running call is then possible:
    /// the next message is only read after it).
    pub fn finish(self) -> Vec<String> {
        let mut out = self.messages;
        if let Some(call) = self.call {
            let sent = Arc::new(Mutex::new(Vec::new()));
            let sink = sent.clone();
            let response = call.run(move |m| lock(&sink).push(m));
            out.append(&mut lock(&sent));
            out.extend(response);
        }
        out
    }
}

/// The calls still running, by request id, and the log level the client set.
struct Shared {
    calls: Mutex<HashMap<RequestId, CallContext>>,
    /// The lowest level sent, as an index into [`LogLevel::ALL`].
    log_level: AtomicU8,
}

impl Shared {
    fn log_level(&self) -> LogLevel {
        let i = usize::from(self.log_level.load(Ordering::Relaxed));
        LogLevel::ALL.get(i).copied().unwrap_or(LogLevel::Info)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Waiting for `initialize`.
    New,
    /// `initialize` answered with this protocol version.
    Ready(String),
}

/// An MCP server over a [`ToolRegistry`], with no I/O: one message in, messages out.
///
/// See the [module docs](super) for how a transport drives it, and how calls run
/// concurrently with further messages.
pub struct McpServer {
    registry: ToolRegistry,
    options: ServerOptions,
    phase: Phase,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("registry", &self.registry)
            .field("phase", &self.phase)
            .field("running", &lock(&self.shared.calls).len())
            .finish()
    }
}

impl McpServer {
    /// A server for `registry`'s tools.
    pub fn new(registry: ToolRegistry, options: ServerOptions) -> Self {
        McpServer {
            registry,
            options,
            phase: Phase::New,
            shared: Arc::new(Shared {
                calls: Mutex::new(HashMap::new()),
                log_level: AtomicU8::new(LogLevel::Info as u8),
            }),
        }
    }

    /// The registry served.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The protocol version agreed in `initialize`, once it was answered.
    pub fn protocol_version(&self) -> Option<&str> {
        match &self.phase {
            Phase::New => None,
            Phase::Ready(v) => Some(v),
        }
    }

    /// How many calls are still running (accepted, not finished, not dropped).
    pub fn running(&self) -> usize {
        lock(&self.shared.calls).len()
    }

    /// Changes the registry (add, remove or replace tools) and returns the messages to
    /// send: `notifications/tools/list_changed` when the session is initialized and the
    /// list the client would see changed, else nothing. Calls already running finish with
    /// the tool they started with.
    pub fn update_tools(&mut self, change: impl FnOnce(&mut ToolRegistry)) -> Vec<String> {
        let before: Vec<ToolSpec> = self.registry.specs().cloned().collect();
        change(&mut self.registry);
        let same = self.registry.specs().eq(before.iter());
        if same || self.phase == Phase::New {
            return Vec::new();
        }
        vec![jsonrpc::notification(
            "notifications/tools/list_changed",
            None,
        )]
    }

    /// Cancels every running call: for a transport whose peer went away (stdin closed, a
    /// session deleted). Their handlers see [`CallContext::is_cancelled`]; their
    /// responses are not produced.
    pub fn cancel_all(&self) {
        for ctx in lock(&self.shared.calls).values() {
            ctx.cancel();
        }
    }

    /// Cancels one running call, as `notifications/cancelled` does; returns whether a
    /// call with that id was running.
    pub fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.shared.calls).get(id) {
            Some(ctx) => {
                ctx.cancel();
                true
            }
            None => false,
        }
    }

    /// The longest message accepted, in bytes ([`ServerOptions::max_message_bytes`]):
    /// a transport need not read more of one message than this plus one.
    pub fn max_message_bytes(&self) -> usize {
        self.options.max_message_bytes
    }

    /// The error to send for a message a transport stopped reading because it is over
    /// [`McpServer::max_message_bytes`] (`bytes` is how much it saw; its id is unknown).
    pub fn refuse_oversized(&self, bytes: usize) -> String {
        jsonrpc::error(
            None,
            INVALID_REQUEST,
            &format!(
                "invalid request: the message is {bytes} bytes or more, over the limit of {}",
                self.options.max_message_bytes
            ),
        )
    }

    /// [`McpServer::handle`] for bytes as a transport reads them: text that is not UTF-8
    /// is a parse error (`-32700`) naming the byte offset.
    pub fn handle_bytes(&mut self, message: &[u8]) -> Handled {
        if message.len() > self.options.max_message_bytes {
            return reply(self.refuse_oversized(message.len()));
        }
        match std::str::from_utf8(message) {
            Ok(text) => self.handle(text),
            Err(e) => reply(jsonrpc::error(
                None,
                jsonrpc::PARSE_ERROR,
                &format!(
                    "parse error: the message is not UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            )),
        }
    }

    /// Handles one message (JSON text of one JSON-RPC message). Never panics, whatever
    /// the text: what cannot be handled is a JSON-RPC error in [`Handled::messages`]
    /// (none for a notification, which gets no response).
    pub fn handle(&mut self, message: &str) -> Handled {
        if message.len() > self.options.max_message_bytes {
            return reply(self.refuse_oversized(message.len()));
        }
        match jsonrpc::read(message) {
            Err(r) => reply(jsonrpc::error(r.id.as_ref(), r.code, &r.message)),
            Ok(Incoming::Response) => Handled::default(),
            Ok(Incoming::Notification { method, params }) => {
                self.notification(&method, &params);
                Handled::default()
            }
            Ok(Incoming::Request { id, method, params }) => self.request(id, &method, params),
        }
    }

    fn notification(&mut self, method: &str, params: &Map<String, Value>) {
        if method == "notifications/cancelled" {
            // An unknown or finished id is ignored, as the spec asks.
            if let Some(id) = params.get("requestId").and_then(RequestId::from_value) {
                self.cancel(&id);
            }
        }
        // `notifications/initialized` needs nothing (requests are served from the
        // `initialize` response on); any other notification is ignored.
    }

    fn request(&mut self, id: RequestId, method: &str, params: Map<String, Value>) -> Handled {
        let result = match (method, &self.phase) {
            ("ping", _) => Ok(json!({})),
            ("initialize", Phase::New) => self.initialize(&params),
            ("initialize", Phase::Ready(_)) => Err((
                INVALID_REQUEST,
                "invalid request: the session is already initialized".to_owned(),
            )),
            (_, Phase::New) => Err((
                INVALID_REQUEST,
                format!(
                    "invalid request: `{method}` before `initialize`: the first request of a session must be `initialize`"
                ),
            )),
            ("tools/list", _) => self.tools_list(&params),
            ("tools/call", _) => return self.tools_call(id, params),
            ("logging/setLevel", _) => set_level(&self.shared, &params),
            _ => Err((
                METHOD_NOT_FOUND,
                format!("method not found: `{method}` (this server has tools and logging)"),
            )),
        };
        reply(match result {
            Ok(value) => jsonrpc::result(&id, value),
            Err((code, message)) => jsonrpc::error(Some(&id), code, &message),
        })
    }

    fn initialize(&mut self, params: &Map<String, Value>) -> Result<Value, (i64, String)> {
        let asked = match params.get("protocolVersion") {
            Some(Value::String(v)) => v.as_str(),
            Some(other) => {
                return Err((
                    INVALID_PARAMS,
                    format!(
                        "invalid params: /protocolVersion: expected a string, found {}",
                        jsonrpc::kind(other)
                    ),
                ));
            }
            None => {
                return Err((
                    INVALID_PARAMS,
                    "invalid params: /protocolVersion: missing field".to_owned(),
                ));
            }
        };
        // The client's version when supported, else the latest (the client then decides
        // whether it can speak it).
        let version = PROTOCOL_VERSIONS
            .iter()
            .find(|v| **v == asked)
            .copied()
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let o = &self.options;
        let mut info = Map::new();
        info.insert("name".into(), o.name.clone().into());
        info.insert("version".into(), o.version.clone().into());
        if let Some(t) = &o.title {
            info.insert("title".into(), t.clone().into());
        }
        let mut result = Map::new();
        result.insert("protocolVersion".into(), version.into());
        result.insert(
            "capabilities".into(),
            json!({"tools": {"listChanged": true}, "logging": {}}),
        );
        result.insert("serverInfo".into(), Value::Object(info));
        if let Some(i) = &o.instructions {
            result.insert("instructions".into(), i.clone().into());
        }
        self.phase = Phase::Ready(version.to_owned());
        Ok(Value::Object(result))
    }

    fn tools_list(&self, params: &Map<String, Value>) -> Result<Value, (i64, String)> {
        use std::ops::Bound;
        let after = match params.get("cursor") {
            None | Some(Value::Null) => None,
            // A cursor is the name of the last tool of the previous page: listing goes on
            // after it even if that tool was removed meanwhile.
            Some(Value::String(c)) if crate::spec::check_name(c).is_ok() => Some(c.as_str()),
            Some(other) => {
                return Err((
                    INVALID_PARAMS,
                    format!("invalid params: /cursor: {other} is not a cursor this server gave"),
                ));
            }
        };
        let size = self.options.page_size.max(1);
        let mut specs: Vec<&ToolSpec> = match after {
            None => self.registry.specs().take(size + 1).collect(),
            Some(a) => self
                .registry
                .specs_after(Bound::Excluded(a))
                .take(size + 1)
                .collect(),
        };
        let more = specs.len() > size;
        specs.truncate(size);
        let tools: Vec<Value> = specs
            .iter()
            .map(|s| wire_types::to_value(&s.to_mcp_tool()))
            .collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(tools));
        if more {
            if let Some(last) = specs.last() {
                result.insert("nextCursor".into(), last.name().into());
            }
        }
        Ok(Value::Object(result))
    }

    fn tools_call(&mut self, id: RequestId, params: Map<String, Value>) -> Handled {
        let refuse = |code, message: String| reply(jsonrpc::error(Some(&id), code, &message));
        let params: wire_types::mcp::CallToolParams =
            match wire_types::from_value(&Value::Object(params)) {
                Ok(p) => p,
                Err(e) => return refuse(INVALID_PARAMS, format!("invalid params: {e}")),
            };
        let Some(entry) = self.registry.entry(&params.name) else {
            let message = self.registry.unknown_message(&params.name);
            return refuse(INVALID_PARAMS, format!("invalid params: {message}"));
        };
        let progress_token = params
            .meta
            .as_ref()
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_number())
            .cloned();
        let call_id = match &id {
            RequestId::String(s) | RequestId::Number(s) => s.clone(),
        };
        let ctx = CallContext::detached().with_call(Some(call_id), params.name.as_str());
        {
            let mut calls = lock(&self.shared.calls);
            if calls.contains_key(&id) {
                drop(calls);
                return refuse(
                    INVALID_REQUEST,
                    format!(
                        "invalid request: request id {id} is already used by a call still running"
                    ),
                );
            }
            calls.insert(id.clone(), ctx.clone());
        }
        let input = Value::Object(params.arguments.unwrap_or_default());
        Handled {
            messages: Vec::new(),
            call: Some(PendingCall {
                registration: Registration {
                    id,
                    shared: self.shared.clone(),
                },
                entry,
                input,
                progress_token,
                ctx,
            }),
        }
    }
}

fn set_level(shared: &Shared, params: &Map<String, Value>) -> Result<Value, (i64, String)> {
    let level = params.get("level");
    match level.and_then(Value::as_str).and_then(LogLevel::parse) {
        Some(l) => {
            shared.log_level.store(l as u8, Ordering::Relaxed);
            Ok(json!({}))
        }
        None => Err((
            INVALID_PARAMS,
            format!(
                "invalid params: /level: expected one of debug, info, notice, warning, error, critical, alert, emergency, found {}",
                level.map_or("nothing".to_owned(), Value::to_string)
            ),
        )),
    }
}

fn reply(message: String) -> Handled {
    Handled {
        messages: vec![message],
        call: None,
    }
}

/// A running call's place in the server's table; leaving it (the call finished or was
/// dropped) frees its id.
struct Registration {
    id: RequestId,
    shared: Arc<Shared>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock(&self.shared.calls).remove(&self.id);
    }
}

/// A `tools/call` accepted by [`McpServer::handle`], still to run.
///
/// Run it with [`PendingCall::run`] (blocking, e.g. on a thread of its own) or
/// [`PendingCall::run_async`] (as a task of any runtime). While it runs, the server keeps
/// handling messages: a `notifications/cancelled` for its id cancels it. Dropping it
/// without running it abandons the call (no response is sent).
pub struct PendingCall {
    registration: Registration,
    entry: Arc<Entry>,
    input: Value,
    progress_token: Option<Value>,
    ctx: CallContext,
}

impl std::fmt::Debug for PendingCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingCall")
            .field("id", &self.registration.id)
            .field("tool", &self.entry.spec.name())
            .finish()
    }
}

impl PendingCall {
    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.registration.id
    }

    /// The tool called.
    pub fn tool(&self) -> &str {
        self.entry.spec.name()
    }

    /// The call's context: a transport cancels the call with it when its peer goes away
    /// (a closed stream), as `notifications/cancelled` would.
    pub fn context(&self) -> &CallContext {
        &self.ctx
    }

    /// Runs the call to its end on this thread. `send` gets each notification the tool
    /// sends while it runs (`notifications/progress` when the request asked for progress,
    /// `notifications/message` at or above the client's log level), as JSON text, on the
    /// tool's thread. Returns the response, or `None` when the call was cancelled (MCP
    /// sends no response to a cancelled request).
    pub fn run(self, send: impl Fn(String) + Send + Sync + 'static) -> Option<String> {
        crate::exec::block_on(self.run_async(send))
    }

    /// [`PendingCall::run`] as a future; an async tool's future is dropped as soon as the
    /// call is cancelled.
    pub async fn run_async(self, send: impl Fn(String) + Send + Sync + 'static) -> Option<String> {
        let PendingCall {
            registration,
            entry,
            input,
            progress_token,
            ctx,
        } = self;
        ctx.set_sink(sink(
            send,
            progress_token,
            registration.shared.clone(),
            entry.spec.name().to_owned(),
        ));
        let done = match start(&entry, input, &ctx) {
            Started::Done(done) => Some(done),
            Started::Running(future) => {
                UntilCancelled {
                    future,
                    ctx: ctx.clone(),
                }
                .await
            }
        };
        // A cancelled call sends nothing, even when the tool finished anyway.
        let done = done.filter(|_| !ctx.is_cancelled())?;
        let response = respond(&registration.id, &entry, done, &ctx);
        drop(registration);
        Some(response)
    }
}

/// The sink of a call's context: notices as MCP notifications, filtered.
fn sink(
    send: impl Fn(String) + Send + Sync + 'static,
    token: Option<Value>,
    shared: Arc<Shared>,
    tool: String,
) -> Arc<dyn Fn(Notice) + Send + Sync> {
    let last = Mutex::new(None::<f64>);
    Arc::new(move |notice| match notice {
        Notice::Progress {
            progress,
            total,
            message,
        } => {
            let Some(token) = &token else { return };
            let mut last = lock(&last);
            // MCP: progress increases with each notification.
            if !progress.is_finite() || last.is_some_and(|l| progress <= l) {
                return;
            }
            *last = Some(progress);
            drop(last);
            let mut p = Map::new();
            p.insert("progressToken".into(), token.clone());
            p.insert("progress".into(), number(progress));
            if let Some(t) = total.filter(|t| t.is_finite()) {
                p.insert("total".into(), number(t));
            }
            if let Some(m) = message {
                p.insert("message".into(), m.into());
            }
            send(jsonrpc::notification(
                "notifications/progress",
                Some(Value::Object(p)),
            ));
        }
        Notice::Log { level, data } => {
            if level >= shared.log_level() {
                send(jsonrpc::notification(
                    "notifications/message",
                    Some(json!({"level": level.as_str(), "logger": tool, "data": data})),
                ));
            }
        }
    })
}

/// A number as JSON: an integral value as an integer (`50`, not `50.0`).
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// An async call's future, ended early (with `None`) when its call is cancelled.
struct UntilCancelled {
    future: crate::exec::BoxFuture<Done>,
    ctx: CallContext,
}

impl Future for UntilCancelled {
    type Output = Option<Done>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Done>> {
        if self.ctx.poll_cancelled(cx).is_ready() {
            return Poll::Ready(None);
        }
        self.future.as_mut().poll(cx).map(Some)
    }
}

/// The `tools/call` response for a finished call: the result through wire-convert's MCP
/// encoder, structured content checked against the output schema. What MCP cannot carry
/// of the result (a part only another format understands, say) is not thrown away: each
/// loss goes to the client as a `warning` log notification of the call.
fn respond(id: &RequestId, entry: &Entry, done: Done, ctx: &CallContext) -> String {
    let name = done.name.clone();
    let mut result = to_tool_result(done.result, done.name, id.to_string());
    if let (Some(_), false) = (entry.spec.output_schema(), result.is_error) {
        if let Err(e) = check_structured(entry, &result.content) {
            result = to_tool_result(Err(e), name, id.to_string());
        }
    }
    match wire_convert::encode_mcp_result(result, &wire_convert::Options::default()) {
        Ok(out) => {
            for loss in &out.losses {
                ctx.log(
                    LogLevel::Warning,
                    json!({"loss": loss.to_string(), "code": loss.code.name()}),
                );
            }
            jsonrpc::result(id, wire_types::to_value(&out.value))
        }
        Err(e) => jsonrpc::error(Some(id), jsonrpc::INTERNAL_ERROR, &e.to_string()),
    }
}

/// A tool with an output schema must return structured content (an object, the first
/// JSON part) that matches it.
fn check_structured(entry: &Entry, content: &[Part]) -> Result<(), ToolError> {
    let name = entry.spec.name();
    let structured = content.iter().find_map(|p| match p {
        Part::Json(j) if j.value.is_object() => Some(&j.value),
        _ => None,
    });
    let Some(value) = structured else {
        return Err(ToolError::of(
            ToolErrorKind::InvalidOutput,
            format!(
                "tool {name} declares an output schema but returned no structured content (a JSON object)"
            ),
        ));
    };
    #[cfg(feature = "validate")]
    if let Some(v) = entry
        .output_validator
        .as_ref()
        .filter(|v| !v.is_valid(value))
    {
        let problems: Vec<String> = v
            .iter_errors(value)
            .take(5)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "/".to_owned() } else { at })
            })
            .collect();
        return Err(ToolError::of(
            ToolErrorKind::InvalidOutput,
            format!(
                "tool {name} returned structured content that does not match its output schema: {}",
                problems.join("; ")
            ),
        ));
    }
    #[cfg(not(feature = "validate"))]
    let _ = value;
    Ok(())
}

/// A lock that survives a panic of another holder.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
