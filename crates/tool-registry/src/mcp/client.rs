//! The client side of MCP, with no I/O: requests written and responses read as JSON
//! text, a [`Transport`] the caller gives for the round trips, and [`McpClient::import`]
//! of a server's tools into a [`ToolRegistry`].

use super::jsonrpc::{self, RequestId};
use super::{LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS};
use crate::{CallContext, Error, ToolError, ToolOutput, ToolRegistry, ToolResultOf, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use wire_convert::model::Part;
use wire_types::mcp::{CallToolParams, CallToolResult, ListToolsResult, Tool};

/// A program on one side of MCP: `clientInfo` in `initialize`, `serverInfo` in its
/// result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Other members (`description`, `icons`, `websiteUrl`, …), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Implementation {
    /// A name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            extra: Map::new(),
        }
    }
}

/// The result of `initialize`, as the client reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The protocol version the server chose (one of [`PROTOCOL_VERSIONS`], or reading
    /// it fails).
    pub protocol_version: String,
    /// What the server offers (`tools`, `logging`, …), as sent.
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the client's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Other members (`_meta`, …), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `initialize` request: the latest protocol version, no client capabilities (a
/// client of tools needs none).
pub fn initialize_request(id: &RequestId, client: &Implementation) -> String {
    jsonrpc::request(
        id,
        "initialize",
        Some(json!({
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": client,
        })),
    )
}

/// The `notifications/initialized` notification, sent once `initialize` was answered.
pub fn initialized_notification() -> String {
    jsonrpc::notification("notifications/initialized", None)
}

/// A `tools/list` request for the first page (`cursor` `None`) or the page after
/// `cursor` (the previous page's `nextCursor`).
pub fn list_tools_request(id: &RequestId, cursor: Option<&str>) -> String {
    jsonrpc::request(id, "tools/list", cursor.map(|c| json!({ "cursor": c })))
}

/// A `tools/call` request.
pub fn call_tool_request(id: &RequestId, params: &CallToolParams) -> String {
    jsonrpc::request(id, "tools/call", Some(wire_types::to_value(params)))
}

/// Reads the response to `initialize` request `id`; a protocol version this crate does
/// not speak is an error (`/result/protocolVersion`).
pub fn read_initialize(response: &str, id: &RequestId) -> Result<InitializeResult, Error> {
    let result = read_result(response, id)?;
    let init: InitializeResult =
        wire_types::from_value(&result).map_err(|e| Error::Read(e.within("/result")))?;
    if !PROTOCOL_VERSIONS.contains(&init.protocol_version.as_str()) {
        return Err(Error::Protocol {
            pointer: "/result/protocolVersion".into(),
            message: format!(
                "the server chose protocol version {:?}; this client speaks {}",
                init.protocol_version,
                PROTOCOL_VERSIONS.join(", ")
            ),
        });
    }
    Ok(init)
}

/// Reads the response to `tools/list` request `id`: one page.
pub fn read_list_tools(response: &str, id: &RequestId) -> Result<ListToolsResult, Error> {
    let result = read_result(response, id)?;
    wire_types::from_value(&result).map_err(|e| Error::Read(e.within("/result")))
}

/// Reads the response to `tools/call` request `id`. A tool that failed is a result with
/// `is_error`, not an error; an unknown tool is [`Error::Rpc`] (`-32602`).
pub fn read_call_tool(response: &str, id: &RequestId) -> Result<CallToolResult, Error> {
    let result = read_result(response, id)?;
    wire_types::from_value(&result).map_err(|e| Error::Read(e.within("/result")))
}

/// The `result` of the response to request `id`, or the error it carries.
fn read_result(response: &str, id: &RequestId) -> Result<Value, Error> {
    let protocol = |pointer: &str, message: String| Error::Protocol {
        pointer: pointer.to_owned(),
        message,
    };
    let value: Value = serde_json::from_str(response)
        .map_err(|e| protocol("", format!("the response is not JSON: {e}")))?;
    let Value::Object(mut m) = value else {
        return Err(protocol(
            "",
            format!(
                "expected a JSON-RPC response object, found {}",
                jsonrpc::kind(&value)
            ),
        ));
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(protocol("/jsonrpc", "expected \"2.0\"".into()));
    }
    let got = m.get("id").and_then(RequestId::from_value);
    let error = m.remove("error");
    if got.as_ref() != Some(id) {
        // An error about a message the server could not read carries `id: null`.
        if let (None, Some(e)) = (&got, &error) {
            return Err(rpc_error(e));
        }
        return Err(protocol(
            "/id",
            format!(
                "expected the id of the request, {id}, found {}",
                m.get("id").map_or("nothing".to_owned(), Value::to_string)
            ),
        ));
    }
    if let Some(e) = error {
        return Err(rpc_error(&e));
    }
    m.remove("result")
        .ok_or_else(|| protocol("/result", "missing field (and no `error`)".into()))
}

fn rpc_error(e: &Value) -> Error {
    Error::Rpc {
        code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        data: e.get("data").cloned(),
    }
}

/// How the client reaches a server: the caller's I/O (a child process's stdin and
/// stdout, an HTTP client, an in-process [`McpServer`](super::McpServer)).
///
/// A closure `Fn(&str) -> Result<Option<String>, String>` is a transport: it gets every
/// message and returns the response for a request (a message with an `id`), `None` for a
/// notification.
pub trait Transport: Send + Sync + 'static {
    /// Sends a request (JSON text) and returns the server's response to it (JSON text of
    /// the JSON-RPC response with the same id). Notifications the server sends
    /// meanwhile (progress, log messages) are the transport's to show or drop.
    fn request(&self, message: &str) -> Result<String, String>;

    /// Sends a notification (JSON text); nothing comes back.
    fn notify(&self, message: &str) -> Result<(), String>;
}

impl<F> Transport for F
where
    F: Fn(&str) -> Result<Option<String>, String> + Send + Sync + 'static,
{
    fn request(&self, message: &str) -> Result<String, String> {
        self(message)?.ok_or_else(|| "the transport gave no response to a request".to_owned())
    }

    fn notify(&self, message: &str) -> Result<(), String> {
        self(message).map(|_| ())
    }
}

/// The most `tools/list` pages [`McpClient::list_tools`] follows (a server whose cursors
/// never end would otherwise keep it busy forever).
pub const MAX_PAGES: usize = 1000;

/// A client session over a [`Transport`]: initialized, ready to list and call tools.
///
/// `Send + Sync`: share it in an `Arc` and call from any thread (requests get distinct
/// ids; the transport must match responses to requests when several are in flight).
#[derive(Debug)]
pub struct McpClient<T> {
    transport: T,
    next_id: AtomicI64,
    server: InitializeResult,
}

impl<T: Transport> McpClient<T> {
    /// Opens a session: `initialize` (latest protocol version), checks the server's
    /// answer, then `notifications/initialized`.
    pub fn connect(transport: T, client: Implementation) -> Result<Self, Error> {
        let id = RequestId::from(1);
        let response = transport
            .request(&initialize_request(&id, &client))
            .map_err(Error::Transport)?;
        let server = read_initialize(&response, &id)?;
        transport
            .notify(&initialized_notification())
            .map_err(Error::Transport)?;
        Ok(McpClient {
            transport,
            next_id: AtomicI64::new(2),
            server,
        })
    }

    /// What the server said in `initialize`.
    pub fn server(&self) -> &InitializeResult {
        &self.server
    }

    fn id(&self) -> RequestId {
        RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Every tool of the server, following `nextCursor` page after page (at most
    /// [`MAX_PAGES`]; a cursor seen twice is an error, not a loop).
    pub fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..MAX_PAGES {
            let id = self.id();
            let response = self
                .transport
                .request(&list_tools_request(&id, cursor.as_deref()))
                .map_err(Error::Transport)?;
            let page = read_list_tools(&response, &id)?;
            tools.extend(page.tools);
            match page.next_cursor {
                None => return Ok(tools),
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(Error::Protocol {
                        pointer: "/result/nextCursor".into(),
                        message: format!("the server gave cursor {c:?} twice"),
                    });
                }
                Some(c) => cursor = Some(c),
            }
        }
        Err(Error::Protocol {
            pointer: "/result/nextCursor".into(),
            message: format!("more than {MAX_PAGES} pages of tools"),
        })
    }

    /// Calls a tool. A tool that failed is a result with `is_error`; an unknown tool or
    /// bad params is [`Error::Rpc`].
    pub fn call_tool(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<CallToolResult, Error> {
        let params = CallToolParams {
            name: name.to_owned(),
            arguments,
            ..Default::default()
        };
        let id = self.id();
        let response = self
            .transport
            .request(&call_tool_request(&id, &params))
            .map_err(Error::Transport)?;
        read_call_tool(&response, &id)
    }

    /// Registers every tool of the server in `registry`, each with a handler that
    /// forwards the call through this client, so that `tools_for` any format and the
    /// agent step use them like local tools. The result reaches the model in its
    /// provider's shape: MCP content is read by wire-convert's MCP decoder (text, images,
    /// audio, resources, `structuredContent` as a JSON part), a result with `isError` is
    /// a failed result; what a provider cannot carry is in the step's losses.
    ///
    /// A tool name outside the registry's rule (MCP allows `.` and 128 characters) is
    /// registered under a rewritten name ([`ImportedTool::name`]) and called by its own.
    /// A tool whose schema the registry refuses, or whose name is taken, is skipped and
    /// listed in [`Imported::skipped`]. Arguments are not checked here: the server checks
    /// its own.
    pub fn import(self: &Arc<Self>, registry: &mut ToolRegistry) -> Result<Imported, Error> {
        let mut imported = Imported::default();
        let tools = self.list_tools()?;
        // The registry's rule through wire-convert's one rewrite: names already registered
        // are kept apart, and so are the server's own.
        let registered: Vec<String> = registry.specs().map(|s| s.name().to_owned()).collect();
        let names = wire_convert::NameMap::build(
            wire_convert::NameRule::of(wire_types::Format::OpenaiChat),
            registered
                .iter()
                .map(String::as_str)
                .chain(tools.iter().map(|t| t.name.as_str())),
        );
        for tool in tools {
            let mcp_name = tool.name.clone();
            let name = names.get(&mcp_name).to_owned();
            match spec_of(&name, tool).and_then(|spec| {
                let client = self.clone();
                let (called, local) = (mcp_name.clone(), name.clone());
                registry.register_unchecked(spec, move |args, _: &CallContext| {
                    forward(&client, &called, &local, args)
                })
            }) {
                Ok(()) => imported.tools.push(ImportedTool { name, mcp_name }),
                Err(e) => imported.skipped.push(Skipped {
                    mcp_name,
                    reason: e.to_string(),
                }),
            }
        }
        Ok(imported)
    }
}

/// What [`McpClient::import`] registered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imported {
    /// The tools registered, in the server's order.
    pub tools: Vec<ImportedTool>,
    /// The tools not registered, and why.
    pub skipped: Vec<Skipped>,
}

/// A tool registered by [`McpClient::import`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedTool {
    /// Its name in the registry (what models see and call).
    pub name: String,
    /// Its name on the server (what is called there).
    pub mcp_name: String,
}

/// A tool [`McpClient::import`] could not register.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// Its name on the server.
    pub mcp_name: String,
    /// Why (the registry's error).
    pub reason: String,
}

/// A registry spec for an MCP tool.
fn spec_of(name: &str, tool: Tool) -> Result<ToolSpec, Error> {
    let mut spec = ToolSpec::new(
        name,
        tool.description.unwrap_or_default(),
        Value::Object(tool.input_schema),
    )?;
    if let Some(out) = tool.output_schema {
        spec = spec.with_output_schema(Value::Object(out))?;
    }
    if let Some(t) = tool.title {
        spec = spec.with_title(t);
    }
    if let Some(a) = tool.annotations {
        spec = spec.with_annotations(a);
    }
    if let Some(i) = tool.icons {
        spec = spec.with_icons(i);
    }
    if let Some(m) = tool.meta {
        spec = spec.with_meta(m);
    }
    Ok(spec)
}

/// The content without the text block that only repeats the structured content as JSON
/// text (what MCP asks servers to add for clients without structured-content support):
/// the model gets the structured part once, in its format's best shape. A text that
/// says anything else is kept.
fn without_echo(mut content: Vec<Part>) -> Vec<Part> {
    let structured = content.iter().rev().find_map(|p| match p {
        Part::Json(j) => Some(j.value.clone()),
        _ => None,
    });
    if let Some(s) = structured {
        if let Some(i) = content.iter().position(|p| {
            matches!(p, Part::Text(t) if serde_json::from_str::<Value>(&t.text).is_ok_and(|v| v == s))
        }) {
            content.remove(i);
        }
    }
    content
}

/// One forwarded call: `tools/call` on the server, its result in the neutral model.
fn forward<T: Transport>(
    client: &McpClient<T>,
    mcp_name: &str,
    name: &str,
    args: Value,
) -> ToolResultOf {
    let arguments = match args {
        Value::Object(m) => m,
        other => {
            return Err(ToolError::of(
                crate::ToolErrorKind::InvalidArguments,
                format!(
                    "the arguments of `{name}` must be a JSON object, found {}",
                    jsonrpc::kind(&other)
                ),
            ));
        }
    };
    let result = match client.call_tool(mcp_name, Some(arguments)) {
        Ok(r) => r,
        Err(Error::Rpc { code, message, .. }) => {
            return Err(ToolError::new(format!(
                "the MCP server refused the call ({code}): {message}"
            )));
        }
        Err(e) => return Err(ToolError::new(format!("the MCP call failed: {e}"))),
    };
    // Reading MCP into the neutral model reports no losses (what it does not model is
    // kept as MCP vendor data); what a provider cannot carry is reported when the step
    // writes the follow-up.
    let result = wire_convert::decode_mcp_result(
        result,
        "mcp",
        Some(name),
        &wire_convert::Options::default(),
    )
    .map_err(|e| ToolError::new(format!("the MCP server's result cannot be read: {e}")))?
    .value;
    if !result.is_error {
        let mut content = without_echo(result.content);
        // One plain text is a text output, like a local tool's.
        if let [Part::Text(t)] = content.as_mut_slice() {
            if t.meta.is_empty() {
                return Ok(ToolOutput::Text(std::mem::take(&mut t.text)));
            }
        }
        return Ok(ToolOutput::Parts(content));
    }
    let (texts, rest): (Vec<Part>, Vec<Part>) = result
        .content
        .into_iter()
        .partition(|p| matches!(p, Part::Text(_)));
    let message: Vec<String> = texts
        .into_iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.text),
            _ => None,
        })
        .collect();
    let message = if message.is_empty() {
        format!("tool {name} failed")
    } else {
        message.join("\n")
    };
    Err(ToolError::new(message).with_content(rest))
}
