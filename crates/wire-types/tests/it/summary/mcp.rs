//! Summaries for `mcp` (placeholder until the types are written), and its dispatch:
//! MCP fixtures sit in `tools-list/` (a `tools/list` result), `call/` (`tools/call`
//! params) and `result/` (a `CallToolResult`).

use wire_types::mcp::*;

pub fn read_write(
    what: &str,
    text: &str,
) -> Result<(serde_json::Value, String), wire_types::Error> {
    match what {
        "tools-list" => {
            let v: ListToolsResult = wire_types::from_str(text)?;
            Ok((
                wire_types::to_value(&v),
                format!("(not summarized yet){}\n", super::extra(&v.extra)),
            ))
        }
        "call" => {
            let v: CallToolParams = wire_types::from_str(text)?;
            Ok((
                wire_types::to_value(&v),
                format!("(not summarized yet){}\n", super::extra(&v.extra)),
            ))
        }
        _ => {
            let v: CallToolResult = wire_types::from_str(text)?;
            Ok((
                wire_types::to_value(&v),
                format!("(not summarized yet){}\n", super::extra(&v.extra)),
            ))
        }
    }
}
