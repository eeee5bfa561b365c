//! The registry as the back end of an MCP server: `tools/list` and `tools/call`.

use crate::{Error, ToolRegistry};
use wire_convert::model::{Arguments, ToolCall};
use wire_convert::{Ctx, Options};
use wire_types::Format;
use wire_types::mcp::{CallToolParams, CallToolResult, ListToolsResult};

impl ToolRegistry {
    /// The `tools/list` result: every tool as an MCP `Tool`, sorted by name.
    pub fn mcp_list(&self) -> ListToolsResult {
        let options = Options::default();
        let mut ctx = Ctx::new(Format::Mcp, &options);
        ListToolsResult {
            tools: self
                .specs()
                .map(|s| wire_convert::mcp::encode_tool(s.to_def(), &mut ctx))
                .collect(),
            next_cursor: None,
            meta: None,
            extra: Default::default(),
        }
    }

    /// Answers `tools/call`: a `CallToolResult` with `isError` on failure and
    /// `structuredContent` when the tool has an output schema (or returns JSON). A tool
    /// nobody registered is an error (a JSON-RPC error for the caller, per the spec).
    pub fn mcp_call(&self, params: &CallToolParams) -> Result<CallToolResult, Error> {
        crate::block_on(self.mcp_call_async(params))
    }

    /// [`ToolRegistry::mcp_call`] for async callers.
    pub async fn mcp_call_async(&self, params: &CallToolParams) -> Result<CallToolResult, Error> {
        if self.spec(&params.name).is_none() {
            return Err(Error::UnknownTool {
                name: params.name.clone(),
                available: self.names().map(str::to_owned).collect(),
            });
        }
        let call = ToolCall {
            id: "mcp".to_owned(),
            synthetic_id: true,
            name: params.name.clone(),
            arguments: Arguments::Value(serde_json::Value::Object(
                params.arguments.clone().unwrap_or_default(),
            )),
            meta: Default::default(),
        };
        let result = self.dispatch_call_async(&call).await;
        let options = Options::default();
        let mut ctx = Ctx::new(Format::Mcp, &options);
        Ok(wire_convert::mcp::encode_result(result, &mut ctx))
    }
}
