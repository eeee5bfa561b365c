//! Tool definitions both ways: OpenAI's function tool, through the shared
//! [`passes::tools`](crate::passes::tools) rules (strict tools get the strict schema rules).

use super::F;
use crate::Ctx;
use crate::model::{Opaque, PartMeta, Tool};
use crate::passes::tools::{self as shared, FunctionTool, Strict};
use wire_types::openai_chat as w;

/// Reads a tool: a `function` tool as a neutral one, any other (a `custom` tool) kept
/// whole as an opaque tool of this format.
pub(super) fn decode_tool(t: w::Tool) -> Tool {
    let f = match t {
        w::Tool::Function(f) => f,
        other => {
            return Tool::Opaque(Opaque {
                format: F,
                value: wire_types::to_value(&other),
                meta: PartMeta::default(),
            });
        }
    };
    f.decode(F)
}

/// Encodes tool definitions as a Chat Completions `tools` array (`None` for none).
pub(crate) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    shared::encode_tools(tools, ctx, |def, at, ctx| {
        w::Tool::Function(shared::encode_function_tool(def, at, Strict::Schema, ctx))
    })
}

shared::function_tool!(w::FunctionTool, w::FunctionDef, kind: [], strict: [strict]);
