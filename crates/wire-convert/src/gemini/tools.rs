//! Tool definitions both ways.

use super::hints::{ENTRY, JSON_SCHEMA};
use super::{F, keep_rest, rebuild, rebuild_from, rest};
use crate::model::{Dialect, Opaque, PartMeta, Tool, ToolDef, Vendor};
use crate::{Ctx, GeminiSchema, LossCode, passes, schema};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use wire_types::gemini as w;

/// Decodes `tools` entries: one neutral tool per function declaration and per built-in
/// tool key, each remembering its entry ([`ENTRY`]).
pub(super) fn decode_tools(tools: Vec<w::Tool>, out: &mut Vec<Tool>, ctx: &mut Ctx<'_>) {
    for (e, mut tool) in tools.into_iter().enumerate() {
        let at = format!("/tools/{e}");
        for (d, mut decl) in tool
            .function_declarations
            .take()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let k = out.len();
            let dat = format!("{at}/functionDeclarations/{d}");
            ctx.map(format_args!("/tools/{k}"), dat.clone());
            let mut v = Vendor::default();
            v.set_hint(F, ENTRY, e);
            let name = std::mem::take(&mut decl.name);
            let description = decl.description.take();
            let (input_schema, dialect) =
                match (decl.parameters.take(), decl.parameters_json_schema.take()) {
                    (Some(p), None) => {
                        ctx.map(
                            format_args!("/tools/{k}/input_schema"),
                            format_args!("{dat}/parameters"),
                        );
                        (Some(p), Dialect::GeminiOpenapi)
                    }
                    (None, Some(s)) => {
                        ctx.map(
                            format_args!("/tools/{k}/input_schema"),
                            format_args!("{dat}/parametersJsonSchema"),
                        );
                        v.set_hint(F, JSON_SCHEMA, true);
                        (Some(s), Dialect::JsonSchema)
                    }
                    (p, s) => {
                        // Both at once: `validate_request` refuses it; keep the second whole.
                        decl.parameters_json_schema = s;
                        (p, Dialect::GeminiOpenapi)
                    }
                };
            let output_schema = decl.response_json_schema.take();
            keep_rest(&mut v, "", rest(&decl, &["name"]));
            out.push(Tool::Function(ToolDef {
                name,
                description,
                input_schema,
                dialect,
                output_schema,
                strict: None,
                cache: None,
                vendor: v,
            }));
        }
        if let Value::Object(others) = wire_types::to_value(&tool) {
            for (key, value) in others {
                let k = out.len();
                let mut p = String::new();
                wire_types::push_token(&mut p, &key);
                ctx.map(format_args!("/tools/{k}"), format_args!("{at}{p}"));
                let mut meta = PartMeta::default();
                meta.vendor.set_hint(F, ENTRY, e);
                let mut obj = Map::new();
                obj.insert(key, value);
                out.push(Tool::Opaque(Opaque {
                    format: F,
                    value: Value::Object(obj),
                    meta,
                }));
            }
        }
    }
}

/// Encodes tool definitions as Gemini `tools` entries (`None` for none): function
/// declarations share one entry (a Gemini source's grouping is kept), each built-in tool
/// has its own.
pub(crate) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    if tools.is_empty() {
        return None;
    }
    struct Entry {
        decls: Vec<w::FunctionDeclaration>,
        others: Map<String, Value>,
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_source: HashMap<i64, usize> = HashMap::new();
    let mut shared: Option<usize> = None;
    let mut slot = |entries: &mut Vec<Entry>, source: Option<i64>, function: bool| -> usize {
        let new = |entries: &mut Vec<Entry>| {
            entries.push(Entry {
                decls: Vec::new(),
                others: Map::new(),
            });
            entries.len() - 1
        };
        match source {
            Some(e) => *by_source.entry(e).or_insert_with(|| new(entries)),
            None if function => *shared.get_or_insert_with(|| new(entries)),
            None => new(entries),
        }
    };
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => {
                let source = def.vendor.hint(F, ENTRY).and_then(Value::as_i64);
                let decl = encode_declaration(def, &at, ctx);
                let i = slot(&mut entries, source, true);
                if let Some(e) = entries.get_mut(i) {
                    e.decls.push(decl);
                }
            }
            Tool::Opaque(o) if o.format == F => {
                let source = o.meta.vendor.hint(F, ENTRY).and_then(Value::as_i64);
                let i = slot(&mut entries, source, false);
                if let (Some(e), Value::Object(m)) = (entries.get_mut(i), o.value) {
                    e.others.extend(m);
                }
            }
            Tool::Opaque(o) => {
                if let Some(Value::Object(m)) = passes::builtin::translate(&o, &at, ctx) {
                    let i = slot(&mut entries, None, false);
                    if let Some(e) = entries.get_mut(i) {
                        e.others.extend(m);
                    }
                }
            }
        }
    }
    Some(
        entries
            .into_iter()
            .map(|e| {
                let mut t: w::Tool = rebuild(e.others, &[], "/tools", "", ctx);
                if !e.decls.is_empty() {
                    t.function_declarations = Some(e.decls);
                }
                t
            })
            .collect(),
    )
}

/// Whether a Gemini schema is an object without properties (Gemini rejects those).
fn is_empty_object(s: &Value) -> bool {
    let Value::Object(m) = s else { return false };
    m.get("type").and_then(Value::as_str) == Some("OBJECT")
        && m.iter().all(|(k, v)| match k.as_str() {
            "type" => true,
            "properties" => v.as_object().is_some_and(Map::is_empty),
            "required" => v.as_array().is_some_and(Vec::is_empty),
            _ => false,
        })
}

/// A neutral function tool as a function declaration.
fn encode_declaration(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::FunctionDeclaration {
    let v = &def.vendor;
    let mut d: w::FunctionDeclaration = rebuild_from(v, at, &[("name", json!(""))], ctx);
    let json_field = v.flag(F, JSON_SCHEMA);
    d.name = def.name;
    d.description = def.description;
    if let Some(s) = def.input_schema {
        let sat = format!("{at}/input_schema");
        let object = schema::is_object_schema(&s);
        if !object {
            ctx.changed(
                LossCode::SchemaChanged,
                sat.clone(),
                "a non-object input schema is exposed as {\"input\": <schema>}",
            );
        }
        match def.dialect {
            Dialect::GeminiOpenapi => {
                d.parameters = Some(if object {
                    s
                } else {
                    json!({"type": "OBJECT", "properties": {"input": s}, "required": ["input"]})
                });
            }
            Dialect::JsonSchema => {
                let s = if object {
                    s
                } else {
                    schema::wrap_non_object(&s).unwrap_or(s)
                };
                if json_field || ctx.options.gemini_schema == GeminiSchema::JsonSchema {
                    d.parameters_json_schema = Some(s);
                } else {
                    let g = schema::to_gemini(&s, ctx, &sat);
                    if !is_empty_object(&g) {
                        d.parameters = Some(g);
                    }
                }
            }
        }
    }
    if let Some(o) = def.output_schema {
        d.response_json_schema = Some(o);
    }
    if def.strict == Some(true) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            format!("{at}/strict"),
            "gemini function declarations have no strict flag",
        );
    }
    if def.cache.is_some() {
        ctx.dropped(
            LossCode::CacheUnsupported,
            format!("{at}/cache"),
            "gemini has no cache marker",
        );
    }
    d
}
