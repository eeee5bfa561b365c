//! Tool definitions both ways: OpenAI-style function tools, through the shared
//! [`passes::tools`](crate::passes::tools) rules.

use super::F;
use crate::Ctx;
use crate::model::Tool;
use crate::passes::tools::{self as shared, FunctionTool, Strict};
use wire_types::mistral as w;

/// Reads a function tool.
pub(super) fn decode_tool(t: w::Tool) -> Tool {
    t.decode(F)
}

/// Encodes tool definitions as a Mistral `tools` array (`None` for none).
pub(crate) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    shared::encode_tools(tools, ctx, |def, at, ctx| {
        shared::encode_function_tool::<w::Tool>(def, at, Strict::Carried, ctx)
    })
}

shared::function_tool!(w::Tool, w::FunctionDef, kind: [kind], strict: [strict]);
