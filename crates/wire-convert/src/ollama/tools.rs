//! Tool definitions both ways: OpenAI-style function tools, through the shared
//! [`passes::tools`](crate::passes::tools) rules.

use super::F;
use crate::model::Tool;
use crate::passes::tools::{self as shared, FunctionTool, Strict};
use crate::{Ctx, schema};
use wire_types::ollama as w;

/// Reads a tool of the `tools` array.
pub(super) fn decode_tool(t: w::Tool) -> Tool {
    t.decode(F)
}

/// Encodes tool definitions as an Ollama `tools` array (`None` for none). The parameters
/// of a tool that did not come from Ollama go through Ollama's schema dialect
/// ([`schema::to_ollama`]: what its server keeps, every other keyword a loss, since
/// Ollama would drop it silently); Ollama's own tools are written back as they were.
pub(super) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    let dialect = ctx.source != Some(F);
    shared::encode_tools(tools, ctx, |def, at, ctx| {
        let mut f = shared::encode_function::<w::Tool>(
            def,
            at,
            Strict::Unsupported("ollama tools have no strict mode"),
            ctx,
        );
        if dialect {
            f.parameters = f
                .parameters
                .map(|p| schema::to_ollama(&p, ctx, &format!("{at}/input_schema")));
        }
        w::Tool::from_function(f)
    })
}
