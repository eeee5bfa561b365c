//! Placeholder: MCP tool shapes ↔ the neutral model are being written.
