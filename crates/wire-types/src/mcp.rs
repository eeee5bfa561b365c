//! Placeholder: MCP tool shapes are being written.

wire_struct! {
    /// An MCP tool.
    #[derive(Default)]
    pub struct Tool {}
}

wire_struct! {
    /// `tools/list` result.
    #[derive(Default)]
    pub struct ListToolsResult {}
}

wire_struct! {
    /// `tools/call` params.
    #[derive(Default)]
    pub struct CallToolParams {}
}

wire_struct! {
    /// `tools/call` result.
    #[derive(Default)]
    pub struct CallToolResult {}
}
