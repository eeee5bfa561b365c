//! Model Context Protocol tool shapes: a [`Tool`], the `tools/list` result
//! ([`ListToolsResult`]), the `tools/call` params ([`CallToolParams`]) and result
//! ([`CallToolResult`]) with its [`ContentBlock`]s.
//!
//! Transcribed from the MCP schema `schema/2025-11-25/schema.ts`
//! (`modelcontextprotocol/modelcontextprotocol`, read 2026); see
//! `../shared/docs/providers.md` §9 as vendored in `ARCHITECTURE.md`. Hand-made payloads
//! after the spec's examples: `fixtures/mcp/{tools-list,call,result}/`.
//!
//! These are the `params` / `result` members of JSON-RPC 2.0 messages; the envelope
//! (`jsonrpc`, `id`, `method`, `error`) is not modeled here.
//!
//! ## Style
//! * camelCase on the wire (`inputSchema`, `isError`), snake_case in Rust; `_meta` is
//!   `meta`.
//! * JSON Schemas, `arguments`, `structuredContent` and `_meta` are JSON objects
//!   ([`Map`]), kept in their key order.
//! * Content blocks are tagged by `type`; an unknown type is kept whole.

use crate::error::{Category, Error};
use serde_json::{Map, Number, Value};

wire_struct! {
    /// A tool a server offers.
    pub struct Tool {
        /// Name, unique per server. Should be 1–128 of `[A-Za-z0-9._-]` (see
        /// [`validate_tool`]).
        req name: String = "name",
        /// Display name.
        opt title: String = "title",
        /// What the tool does, for the model.
        opt description: String = "description",
        /// JSON Schema of `arguments`: an object schema (`"type": "object"`).
        req input_schema: Map<String, Value> = "inputSchema",
        /// JSON Schema of `structuredContent` (an object schema; 2020-12 by default).
        opt output_schema: Map<String, Value> = "outputSchema",
        /// Behaviour hints (untrusted unless the server is).
        opt annotations: ToolAnnotations = "annotations",
        /// Task-augmented execution support.
        opt execution: ToolExecution = "execution",
        /// Icons for a user interface.
        opt icons: Vec<Icon> = "icons",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// Hints about a tool's behaviour. All are hints: clients must not trust them from an
    /// untrusted server.
    #[derive(Default)]
    pub struct ToolAnnotations {
        /// Display name (after `Tool::title`).
        opt title: String = "title",
        /// Does not modify its environment (default `false`).
        opt read_only_hint: bool = "readOnlyHint",
        /// May destroy data, when not read-only (default `true`).
        opt destructive_hint: bool = "destructiveHint",
        /// Repeating a call with the same arguments has no further effect (default
        /// `false`).
        opt idempotent_hint: bool = "idempotentHint",
        /// Talks to an open world of external entities (default `true`).
        opt open_world_hint: bool = "openWorldHint",
    }
}

open_enum! {
    /// Whether a tool runs as a task.
    pub enum TaskSupport {
        /// Never (the default).
        Forbidden = "forbidden",
        /// The caller may ask for a task.
        Optional = "optional",
        /// Only as a task.
        Required = "required",
    }
}

wire_struct! {
    /// Execution properties of a tool.
    #[derive(Default)]
    pub struct ToolExecution {
        /// `forbidden`, `optional` or `required`.
        opt task_support: TaskSupport = "taskSupport",
    }
}

wire_struct! {
    /// An icon.
    #[derive(Default)]
    pub struct Icon {
        /// An `https:` URL or a `data:` URI.
        req src: String = "src",
        /// MIME type, when the source does not say.
        opt mime_type: String = "mimeType",
        /// Sizes (`48x48`, `any`).
        opt sizes: Vec<String> = "sizes",
        /// `light` or `dark`.
        opt theme: String = "theme",
    }
}

wire_struct! {
    /// The result of `tools/list`.
    #[derive(Default)]
    pub struct ListToolsResult {
        /// The tools (one page).
        req tools: Vec<Tool> = "tools",
        /// Opaque cursor of the next page; absent on the last page.
        opt next_cursor: String = "nextCursor",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// The params of `tools/call`.
    #[derive(Default)]
    pub struct CallToolParams {
        /// The tool to call.
        req name: String = "name",
        /// The arguments, matching the tool's `inputSchema`.
        opt arguments: Map<String, Value> = "arguments",
        /// Protocol metadata (`progressToken`, …).
        opt meta: Map<String, Value> = "_meta",
        /// Asks for task-augmented execution.
        opt task: TaskMetadata = "task",
    }
}

wire_struct! {
    /// Task-augmented execution request.
    #[derive(Default)]
    pub struct TaskMetadata {
        /// How long to keep the task, in milliseconds.
        opt ttl: u64 = "ttl",
    }
}

wire_struct! {
    /// The result of `tools/call`. A tool that failed says so here (`isError`); an unknown
    /// tool or bad params is a JSON-RPC error instead.
    #[derive(Default)]
    pub struct CallToolResult {
        /// The unstructured result (may be empty).
        req content: Vec<ContentBlock> = "content",
        /// The structured result: an object matching the tool's `outputSchema`.
        opt structured_content: Map<String, Value> = "structuredContent",
        /// Whether the tool failed (default `false`).
        opt is_error: bool = "isError",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_tagged! {
    /// A content block, tagged by `type`.
    pub enum ContentBlock, tag = "type" {
        /// `{"type":"text","text":…}`
        Text(TextContent) = "text",
        /// `{"type":"image","data":…,"mimeType":…}`
        Image(MediaContent) = "image",
        /// `{"type":"audio","data":…,"mimeType":…}`
        Audio(MediaContent) = "audio",
        /// `{"type":"resource_link","uri":…,"name":…}`: a resource the client can read.
        ResourceLink(ResourceLink) = "resource_link",
        /// `{"type":"resource","resource":{…}}`: a resource's contents, embedded.
        Resource(EmbeddedResource) = "resource",
    }
}

wire_struct! {
    /// Text content.
    #[derive(Default)]
    pub struct TextContent {
        /// The text.
        req text: String = "text",
        /// Audience and priority hints.
        opt annotations: Annotations = "annotations",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// Image or audio content.
    #[derive(Default)]
    pub struct MediaContent {
        /// Base64 bytes.
        req data: String = "data",
        /// MIME type (`image/png`, `audio/wav`, …).
        req mime_type: String = "mimeType",
        /// Audience and priority hints.
        opt annotations: Annotations = "annotations",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// A link to a resource.
    #[derive(Default)]
    pub struct ResourceLink {
        /// The resource URI (any scheme).
        req uri: String = "uri",
        /// Its name.
        req name: String = "name",
        /// Display name.
        opt title: String = "title",
        /// What it is.
        opt description: String = "description",
        /// MIME type, if known.
        opt mime_type: String = "mimeType",
        /// Size in bytes before base64 encoding, if known.
        opt size: u64 = "size",
        /// Icons for a user interface.
        opt icons: Vec<Icon> = "icons",
        /// Audience and priority hints.
        opt annotations: Annotations = "annotations",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// A resource's contents, embedded in a result.
    #[derive(Default)]
    pub struct EmbeddedResource {
        /// The contents: text or a base64 blob.
        req resource: ResourceContents = "resource",
        /// Audience and priority hints.
        opt annotations: Annotations = "annotations",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

wire_struct! {
    /// The contents of a resource: text (`TextResourceContents`) or a base64 blob
    /// (`BlobResourceContents`). The spec sets exactly one of `text` and `blob`.
    #[derive(Default)]
    pub struct ResourceContents {
        /// The resource URI.
        req uri: String = "uri",
        /// MIME type, if known.
        opt mime_type: String = "mimeType",
        /// Text contents.
        opt text: String = "text",
        /// Binary contents, base64.
        opt blob: String = "blob",
        /// Protocol metadata.
        opt meta: Map<String, Value> = "_meta",
    }
}

open_enum! {
    /// Who content is for.
    pub enum Role {
        /// The user.
        User = "user",
        /// The model.
        Assistant = "assistant",
    }
}

wire_struct! {
    /// Hints on how content is used or shown.
    #[derive(Default)]
    pub struct Annotations {
        /// Who the content is for.
        opt audience: Vec<Role> = "audience",
        /// Importance, 0 (optional) to 1 (required).
        opt priority: Number = "priority",
        /// ISO 8601 time of the last change.
        opt last_modified: String = "lastModified",
    }
}

/// Checks what the types leave open in a tool definition: the name follows the spec's
/// naming guidance (1–128 of `[A-Za-z0-9._-]`; a SHOULD, so servers may break it), and
/// the input and output schemas are object schemas (`"type": "object"`).
///
/// Pointers are relative to the tool (`/name`); use [`Error::within`] for a tool inside
/// a `tools/list` result.
pub fn validate_tool(tool: &Tool) -> Result<(), Error> {
    let n = tool.name.chars().count();
    if n == 0 || n > 128 {
        return Err(Error::new(
            Category::Shape,
            "/name",
            format!("tool name has {n} characters (expected 1 to 128)"),
        ));
    }
    if let Some(bad) = tool
        .name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(Error::new(
            Category::Shape,
            "/name",
            format!(
                "tool name {} contains {:?} (allowed: A-Z, a-z, 0-9, `_`, `-`, `.`)",
                Value::from(tool.name.as_str()),
                bad
            ),
        ));
    }
    object_schema(&tool.input_schema, "/inputSchema")?;
    if let Some(schema) = &tool.output_schema {
        object_schema(schema, "/outputSchema")?;
    }
    Ok(())
}

fn object_schema(schema: &Map<String, Value>, at: &str) -> Result<(), Error> {
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => Ok(()),
        None => Err(Error::new(
            Category::Shape,
            format!("{at}/type"),
            "missing field (the schema must have \"type\": \"object\")",
        )),
        Some(other) => Err(Error::new(
            Category::Shape,
            format!("{at}/type"),
            format!("expected \"object\", found {other}"),
        )),
    }
}
