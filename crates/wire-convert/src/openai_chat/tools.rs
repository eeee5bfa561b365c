//! Tool definitions both ways: OpenAI's function tool, through the shared
//! [`passes::tools`](crate::passes::tools) rules (strict tools get the strict schema rules).

use super::F;
use crate::Ctx;
use crate::model::{Opaque, PartMeta, Tool};
use crate::passes::tools::{self as shared, Strict, WireFunction};
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
    shared::decode_function(
        WireFunction {
            name: f.function.name,
            description: f.function.description,
            parameters: f.function.parameters,
            strict: f.function.strict,
            kind: None,
            has_kind: false,
            function_extra: &f.function.extra,
            tool_extra: &f.extra,
        },
        F,
    )
}

/// Encodes tool definitions as a Chat Completions `tools` array (`None` for none).
pub(crate) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    shared::encode_tools(tools, ctx, |def, at, ctx| {
        let f = shared::encode_function(
            def,
            at,
            Strict::Schema,
            w::FunctionDef::FIELDS,
            w::FunctionTool::FIELDS,
            ctx,
        );
        w::Tool::Function(w::FunctionTool {
            function: w::FunctionDef {
                name: f.name,
                description: f.description,
                parameters: f.parameters,
                strict: f.strict,
                extra: f.function_extra,
            },
            extra: f.tool_extra,
        })
    })
}
