//! Tool definitions both ways: OpenAI-style function tools, through the shared
//! [`passes::tools`](crate::passes::tools) rules, and `strict_tools`.

use super::F;
use crate::Ctx;
use crate::model::Tool;
use crate::passes::tools::{self as shared, FunctionTool, Strict};
use wire_types::cohere as w;

/// Reads a tool of the `tools` array.
pub(super) fn decode_tool(t: w::Tool) -> Tool {
    t.decode(F)
}

/// A request's `tools`, and whether every tool is strict: Cohere says that once, with
/// `strict_tools: true`, and has no strict flag per tool (a strict flag on some tools
/// only is a loss each).
pub(super) fn encode_request_tools(
    mut tools: Vec<Tool>,
    ctx: &mut Ctx<'_>,
) -> (Option<Vec<w::Tool>>, bool) {
    let all_strict = !tools.is_empty()
        && tools
            .iter()
            .all(|t| matches!(t, Tool::Function(d) if d.strict == Some(true)));
    if all_strict {
        for t in &mut tools {
            if let Tool::Function(d) = t {
                d.strict = None;
            }
        }
    }
    (encode_tools(tools, ctx), all_strict)
}

/// Encodes tool definitions as a Cohere `tools` array (`None` for none).
pub(super) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    shared::encode_tools(tools, ctx, |def, at, ctx| {
        shared::encode_function_tool::<w::Tool>(
            def,
            at,
            Strict::Unsupported(
                "cohere has no strict flag per tool (only `strict_tools` for all of them)",
            ),
            ctx,
        )
    })
}
