//! Tool definitions both ways.

use super::{F, from_map, is_absent, note_absent, rebuild, rest, tagged, to_map};
use crate::model::{Dialect, Opaque, PartMeta, Tool, ToolDef, Vendor};
use crate::{Ctx, Error, LossCode, passes, schema};
use serde_json::Value;
use wire_types::openai_responses as w;

/// A wire tool as a neutral one: a function tool mapped, a hosted tool kept whole.
pub(super) fn decode_tool(t: w::Tool) -> Tool {
    match t {
        w::Tool::Function(mut f) => {
            let mut vendor = Vendor::default();
            let missing = [
                ("parameters", f.parameters.is_none()),
                ("strict", f.strict.is_none()),
            ];
            note_absent(&mut vendor, &f.extra, "", &missing);
            let name = std::mem::take(&mut f.name);
            let description = f.description.take();
            let parameters = f.parameters.take();
            let strict = f.strict.take();
            let mut map = to_map(&f);
            map.remove("name");
            let output_schema = match map.get("output_schema") {
                Some(Value::Object(_)) => map.remove("output_schema"),
                _ => None,
            };
            vendor.merge(rest(map));
            Tool::Function(ToolDef {
                name,
                description,
                input_schema: parameters,
                dialect: Dialect::JsonSchema,
                output_schema,
                strict,
                cache: None,
                vendor,
            })
        }
        other => Tool::Opaque(Opaque {
            format: F,
            value: wire_types::to_value(&other),
            meta: PartMeta::default(),
        }),
    }
}

/// Encodes tool definitions as a Responses `tools` array (`None` for none), through the
/// shared tools loop. A function tool whose kept fields do not fit is dropped with a loss
/// (the loop reads it as `None`).
pub(super) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    let tools = passes::tools::encode_tools(tools, ctx, |def, at, ctx| {
        encode_tool_def(def, at, ctx)
            .map_err(|e| ctx.dropped(LossCode::ToolUnsupported, at, e.to_string()))
            .ok()
    })?;
    Some(tools.into_iter().flatten().collect())
}

/// A neutral function tool as a flat `function` tool (`strict: true` with OpenAI's strict
/// schema rules).
fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> Result<w::Tool, Error> {
    let v = &def.vendor;
    let mut map = rebuild(v, ctx, at);
    map.insert("name".into(), Value::String(def.name));
    if let Some(d) = def.description {
        map.insert("description".into(), Value::String(d));
    }
    let parameters = def.input_schema.map(|s| {
        let s = schema::json_schema_input(s, def.dialect, ctx, at);
        if def.strict == Some(true) {
            schema::to_openai_strict(&s, ctx, &format!("{at}/input_schema"))
        } else {
            s
        }
    });
    match parameters {
        Some(p) => {
            map.insert("parameters".into(), p);
        }
        // Required (nullable) by the SDK.
        None if !is_absent(v, "parameters") && !map.contains_key("parameters") => {
            map.insert("parameters".into(), Value::Null);
        }
        None => {}
    }
    match def.strict {
        Some(b) => {
            map.insert("strict".into(), Value::Bool(b));
        }
        // Always sent (providers.md §2.3): `false` keeps the source's non-strict schema.
        None if !is_absent(v, "strict") && !map.contains_key("strict") => {
            map.insert("strict".into(), Value::Bool(false));
        }
        None => {}
    }
    if let Some(os) = def.output_schema {
        map.insert("output_schema".into(), os);
    }
    if def.cache.is_some() {
        ctx.dropped(
            LossCode::CacheUnsupported,
            format!("{at}/cache"),
            format!("{F} has no cache marker"),
        );
    }
    from_map(tagged("function", map), at)
}
