//! Tool definitions both ways.

use super::{F, decode_cache, encode_cache, hints};
use crate::ctx::extra_from;
use crate::model::{Dialect, Opaque, PartMeta, Tool, ToolDef, Vendor};
use crate::vendor::Fields;
use crate::vendor::keep_fields;
use crate::{Ctx, LossCode, passes, schema};
use serde_json::{Map, Value};
use wire_types::anthropic as w;

/// A tool definition; a tool that is not a custom (function) tool is kept whole.
pub(super) fn decode_tool(t: w::Tool) -> Tool {
    match t {
        w::Tool::Custom(c) => {
            let mut v = Vendor::from_extra(F, &c.extra, &[]);
            match c.kind.as_deref() {
                Some("custom") => v.set_hint(F, hints::CUSTOM_TYPE, true),
                Some(other) => v.set_field(F, "type", Value::String(other.to_owned())),
                None => {}
            }
            keep_fields!(v, F, c; input_examples, eager_input_streaming, defer_loading,
                allowed_callers);
            let mut cache = None;
            decode_cache(c.cache_control, &mut cache, &mut v);
            Tool::Function(ToolDef {
                name: c.name,
                description: c.description,
                input_schema: Some(Value::Object(c.input_schema)),
                dialect: Dialect::JsonSchema,
                output_schema: None,
                strict: c.strict,
                cache,
                vendor: v,
            })
        }
        w::Tool::Other(map) => Tool::Opaque(Opaque {
            format: F,
            value: Value::Object(map),
            meta: PartMeta::default(),
        }),
    }
}

/// Encodes tool definitions as a Messages `tools` array (`None` for none).
pub(super) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    passes::tools::encode_tools(tools, ctx, encode_tool_def)
}

fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::Tool {
    let ToolDef {
        name,
        description,
        input_schema,
        dialect,
        output_schema,
        strict,
        cache,
        vendor,
    } = def;
    let mut fields = ctx.vendor_fields(&vendor, at);
    let schema_at = format!("{at}/input_schema");
    let schema = match input_schema {
        None => passes::tools::no_parameters(),
        Some(s) => schema::object_input(s, dialect, ctx, at),
    };
    let input_schema = match schema {
        Value::Object(m) => m,
        _ => {
            ctx.changed(
                LossCode::SchemaChanged,
                schema_at,
                "a boolean schema is sent as {\"type\":\"object\"}",
            );
            let mut m = Map::new();
            m.insert("type".into(), Value::String("object".into()));
            m
        }
    };
    if output_schema.is_some() {
        ctx.dropped(
            LossCode::SchemaChanged,
            format!("{at}/output_schema"),
            "anthropic tools have no output schema",
        );
    }
    let kind = if vendor.flag(F, hints::CUSTOM_TYPE) {
        Some("custom".to_owned())
    } else {
        fields.take_as("type")
    };
    let cache_control = encode_cache(cache, &mut fields, at, ctx);
    w::Tool::Custom(w::CustomTool {
        kind,
        name,
        description,
        input_schema,
        cache_control,
        strict,
        input_examples: fields.take_as("input_examples"),
        eager_input_streaming: fields.take_as("eager_input_streaming"),
        defer_loading: fields.take_as("defer_loading"),
        allowed_callers: fields.take_as("allowed_callers"),
        extra: extra_from(fields, &vendor, w::CustomTool::FIELDS, at, ctx),
    })
}
