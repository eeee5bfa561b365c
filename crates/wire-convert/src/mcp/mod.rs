//! MCP tool shapes ↔ the neutral model: tool definitions (`tools/list`), calls (`tools/call`
//! params) and their results (`CallToolResult`), both ways. MCP has no chat request, so no
//! [`Codec`](crate::codec::Codec): the MCP entry points of `api.rs` call these functions.
//!
//! * **Tools**: `inputSchema` ↔ [`ToolDef::input_schema`](crate::model::ToolDef),
//!   `outputSchema` ↔ [`ToolDef::output_schema`](crate::model::ToolDef); `title`,
//!   `annotations`, `execution`, `icons` and `_meta` are vendor fields of format `mcp`
//!   (dropped with a loss elsewhere). Reading accepts any non-empty name: the naming rule
//!   (1–128 of `[A-Za-z0-9._-]`) is a SHOULD and servers break it. Writing a name
//!   outside the rule rewrites it by the one rewrite every conversion uses
//!   ([`NameMap::build`](crate::NameMap::build) under `NameRule::of(Format::Mcp)`: every
//!   other character `_`, too long cut with a hash, an empty one `tool`, kept unique)
//!   with a `changed` loss naming both, and [`encode_tools_list`] returns the map so the
//!   caller can map calls back. Writing an input schema: none becomes
//!   `{"type": "object"}`; a non-object schema is wrapped as `{"input": <schema>}`
//!   (`schema::wrap_non_object`); an object schema without `"type": "object"` gets it (a
//!   `changed` loss); Gemini's OpenAPI dialect is read as JSON Schema first. An output
//!   schema that is not an object schema is dropped (MCP requires one); `strict` and
//!   cache markers have no place (a loss each).
//! * **Results**: `text` ↔ text; `image` / `audio` ↔ image / audio (base64 with their
//!   media type); `resource_link` ↔ a document whose source is the link's URI (its `name`
//!   is the neutral name; `title`, `description`, `size`, `icons` are vendor fields); an
//!   embedded `resource` ↔ a document named by the resource URI, with a plain-text source
//!   (`text`) or base64 (`blob`; an `image/*` or `audio/*` blob is an image or audio part
//!   with hint `resource`). `structuredContent` ↔ a JSON part at the end (hint
//!   `structured`). `isError` ↔ the error flag. An unknown block is kept whole
//!   ([`Part::Opaque`](crate::model::Part::Opaque)).
//! * Writing a result from another format: the first JSON part holding an object becomes
//!   `structuredContent`, and a text block with its JSON is written in its place, so that
//!   clients without structured-content support still see it (the spec's advice); any
//!   other JSON part is written as text (a `changed` loss). An image or audio part by URL
//!   becomes a `resource_link` (a `changed` loss: MCP image blocks carry bytes); a
//!   document with bytes or text becomes an embedded resource whose URI is its name when
//!   that is an absolute URI, else `attachment:<name>` (`attachment:document-<k>` without
//!   a name); a file id of another provider is dropped. A missing media type is taken
//!   from the bytes' magic number when it can be, else `application/octet-stream` (a
//!   `changed` loss). The call id and the tool name belong to the JSON-RPC envelope and
//!   the request, not to `CallToolResult`: they are not written and not a loss.
//! * **Calls**: `name` and `arguments` (an object) ↔ a tool call whose id the caller gives
//!   (the JSON-RPC request id); `_meta` and `task` are vendor fields. Writing arguments:
//!   JSON text is parsed and any other value becomes an object by the rule every format
//!   shares ([`passes::object_arguments`](crate::passes::object_arguments): a `changed`
//!   loss each); `{}` for a call that had no `arguments` leaves them out again.
//!
//! Loss pointers are relative to the neutral value written: `/tools/<k>/…` for a list of
//! tools, `/content/<k>/…` for a result, `/arguments` for a call.
//!
//! Hints: see `hints.rs`. Vendor fields `resource.<key>` hold the fields of an embedded
//! resource's contents object other than those modeled.

use wire_types::Format;

mod decode;
mod encode;
mod hints;
#[cfg(test)]
mod tests;
mod tools;

pub(crate) use decode::{decode_call, decode_result};
pub(crate) use encode::{encode_call, encode_result};
pub(crate) use tools::{ToolsPage, decode_tools_list, encode_tools_list};

const F: Format = Format::Mcp;
