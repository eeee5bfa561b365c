//! Placeholder: MCP tool shapes ↔ the neutral model are being written.

use crate::Ctx;
use crate::model::{ToolDef, ToolResult};
use wire_types::mcp as w;

/// Encodes a tool definition as an MCP tool (placeholder).
pub fn encode_tool(def: ToolDef, _ctx: &mut Ctx<'_>) -> w::Tool {
    w::Tool {
        name: def.name,
        title: None,
        description: def.description,
        input_schema: def
            .input_schema
            .and_then(|s| s.as_object().cloned())
            .unwrap_or_default(),
        output_schema: None,
        annotations: None,
        execution: None,
        icons: None,
        meta: None,
        extra: Default::default(),
    }
}

/// Encodes a tool result as an MCP `CallToolResult` (placeholder).
pub fn encode_result(r: ToolResult, _ctx: &mut Ctx<'_>) -> w::CallToolResult {
    w::CallToolResult {
        content: Vec::new(),
        structured_content: None,
        is_error: Some(r.is_error),
        meta: None,
        extra: Default::default(),
    }
}
