//! Tool definitions both ways.

use super::{F, from_map, is_absent, note_absent, rebuild, rest, tagged, to_map};
use crate::model::{
    Arguments, CustomTool, Dialect, Opaque, Part, PartMeta, Tool, ToolCall, ToolDef, ToolResult,
    Vendor,
};
use crate::{Ctx, Error, LossCode, passes, schema};
use serde_json::{Map, Value};
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

/// A custom tool as a Responses `custom` tool (`{"type": "custom", "name", "description",
/// "format": {"type": "grammar", "syntax", "definition"}}`; no `format` for free text),
/// kept whole as an opaque tool of this format.
pub(crate) fn custom_tool(tool: CustomTool) -> Tool {
    let mut map = Map::new();
    map.insert("type".into(), Value::from("custom"));
    map.insert("name".into(), Value::String(tool.name));
    if let Some(d) = tool.description {
        map.insert("description".into(), Value::String(d));
    }
    if let Some(g) = tool.grammar {
        let mut format = Map::new();
        format.insert("type".into(), Value::from("grammar"));
        format.insert("syntax".into(), Value::String(g.syntax));
        format.insert("definition".into(), Value::String(g.definition));
        map.insert("format".into(), Value::Object(format));
    }
    Tool::Opaque(Opaque {
        format: F,
        value: Value::Object(map),
        meta: PartMeta::default(),
    })
}

/// The call a `custom_tool_call` item (kept whole as an opaque item) makes: its
/// `call_id`, `name`, and `input` text as a JSON string in the arguments. `None` for
/// any other part, or an item without those three strings.
pub(crate) fn custom_call(part: &Part) -> Option<ToolCall> {
    let Part::Opaque(o) = part else { return None };
    if !super::is_item(o) || o.value.get("type").and_then(Value::as_str) != Some("custom_tool_call")
    {
        return None;
    }
    let text = |k: &str| o.value.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(ToolCall {
        id: text("call_id")?,
        synthetic_id: false,
        name: text("name")?,
        arguments: Arguments::Value(Value::String(text("input")?)),
        meta: PartMeta::default(),
    })
}

/// The `custom_tool_call_output` item answering a custom call with `result`, kept whole
/// as an opaque item: written by the rules of a `function_call_output` (its `output`
/// text or content parts, a failure prefixed `Error: `), losses pointing into the result.
pub(crate) fn custom_output(result: ToolResult, ctx: &mut Ctx<'_>) -> Result<Part, Error> {
    let item = super::encode::encode_function_output(result, "", ctx)?;
    let Value::Object(mut map) = wire_types::to_value(&item) else {
        return Err(Error::invalid(
            "",
            "a function call output is not an object",
        ));
    };
    map.insert("type".into(), Value::from("custom_tool_call_output"));
    // A custom tool call output has no `status`.
    map.shift_remove("status");
    Ok(super::opaque_item(map))
}
