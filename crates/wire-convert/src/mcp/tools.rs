//! Tool definitions both ways: `tools/list` pages and MCP `Tool`s, the naming rule and
//! the object input schema MCP requires.

use super::F;
use crate::ctx::extra_from;
use crate::model::{Dialect, Tool, ToolDef, Vendor};
use crate::vendor::Fields;
use crate::vendor::keep_fields;
use crate::{Ctx, Error, LossCode, NameMap, NameRule, passes, schema};
use serde_json::{Map, Value};
use wire_types::mcp as w;

/// One page of `tools/list`: the tools, the cursor of the next page, and what else the
/// result carried.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ToolsPage {
    /// The tools (every one a [`Tool::Function`] when read from MCP).
    pub tools: Vec<Tool>,
    /// Opaque cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// `_meta` and unknown fields of the result.
    pub vendor: Vendor,
}

/// Reads one page of `tools/list`. Errors point into the result (`/tools/1/name`).
pub(crate) fn decode_tools_list(
    l: w::ListToolsResult,
    _ctx: &mut Ctx<'_>,
) -> Result<ToolsPage, Error> {
    let mut tools = Vec::with_capacity(l.tools.len());
    for (k, t) in l.tools.into_iter().enumerate() {
        tools.push(Tool::Function(decode_tool(t, &format!("/tools/{k}"))?));
    }
    let mut vendor = Vendor::from_extra(F, &l.extra, &[]);
    vendor.keep(F, "_meta", &l.meta);
    Ok(ToolsPage {
        tools,
        next_cursor: l.next_cursor,
        vendor,
    })
}

/// Writes tools as one page of `tools/list`. Tools only another format knows (hosted
/// tools) are dropped with a loss; names MCP rejects are rewritten by its [`NameRule`]
/// (the same rewrite as every conversion's, kept unique), and the map is returned.
pub(crate) fn encode_tools_list(
    page: ToolsPage,
    ctx: &mut Ctx<'_>,
) -> (w::ListToolsResult, NameMap) {
    let mut fields = ctx.vendor_fields(&page.vendor, "");
    let names = NameMap::build(
        NameRule::of(F),
        page.tools.iter().filter_map(|t| match t {
            Tool::Function(d) => Some(d.name.as_str()),
            Tool::Opaque(_) => None,
        }),
    );
    let mut tools = Vec::with_capacity(page.tools.len());
    for (k, t) in page.tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => tools.push(encode_tool(def, &at, &names, ctx)),
            Tool::Opaque(o) => passes::tools::drop_foreign_tool(&o, &at, ctx),
        }
    }
    let meta = fields.take_as("_meta");
    let list = w::ListToolsResult {
        tools,
        next_cursor: page.next_cursor,
        meta,
        extra: extra_from(fields, &page.vendor, w::ListToolsResult::FIELDS, "", ctx),
    };
    (list, names)
}

/// The tool at `at` (a pointer into the list, for errors): any non-empty name is read.
fn decode_tool(t: w::Tool, at: &str) -> Result<ToolDef, Error> {
    if t.name.is_empty() {
        return Err(Error::invalid(
            format!("{at}/name"),
            "a tool without a name",
        ));
    }
    let mut v = Vendor::from_extra(F, &t.extra, &[]);
    keep_fields!(v, F, t; title, annotations, execution, icons);
    v.keep(F, "_meta", &t.meta);
    Ok(ToolDef {
        name: t.name,
        description: t.description,
        input_schema: Some(Value::Object(t.input_schema)),
        dialect: Dialect::JsonSchema,
        output_schema: t.output_schema.map(Value::Object),
        strict: None,
        cache: None,
        vendor: v,
    })
}

/// The tool `def` at neutral pointer `at`, named by `names` (the list's rewrites).
fn encode_tool(def: ToolDef, at: &str, names: &NameMap, ctx: &mut Ctx<'_>) -> w::Tool {
    let mut fields = ctx.vendor_fields(&def.vendor, at);
    let name = names.get(&def.name).to_owned();
    if name != def.name {
        ctx.changed(
            LossCode::NameRewritten,
            format!("{at}/name"),
            format!(
                "tool name `{}` breaks MCP's naming rule ({}): written as `{name}`",
                def.name,
                NameRule::of(F).describe()
            ),
        );
    }
    let input_schema = match def.input_schema {
        None => object_type(Map::new()).0,
        Some(s) => input_schema(s, def.dialect, at, ctx),
    };
    let output_schema = match def.output_schema {
        None => None,
        Some(Value::Object(m)) if m.get("type").is_none_or(|t| t.as_str() == Some("object")) => {
            let (m, added) = object_type(m);
            if added {
                ctx.changed(
                    LossCode::SchemaChanged,
                    format!("{at}/output_schema/type"),
                    "MCP output schemas declare \"type\": \"object\": added",
                );
            }
            Some(m)
        }
        Some(_) => {
            ctx.dropped(
                LossCode::SchemaChanged,
                format!("{at}/output_schema"),
                "MCP output schemas describe an object; this one does not",
            );
            None
        }
    };
    if def.strict.is_some() {
        ctx.dropped(
            LossCode::FieldUnsupported,
            format!("{at}/strict"),
            "MCP tools have no strict flag",
        );
    }
    if def.cache.is_some() {
        ctx.dropped(
            LossCode::CacheUnsupported,
            format!("{at}/cache"),
            "MCP has no cache marker",
        );
    }
    w::Tool {
        name,
        title: fields.take_as("title"),
        description: def.description,
        input_schema,
        output_schema,
        annotations: fields.take_as("annotations"),
        execution: fields.take_as("execution"),
        icons: fields.take_as("icons"),
        meta: fields.take_as("_meta"),
        extra: extra_from(fields, &def.vendor, w::Tool::FIELDS, at, ctx),
    }
}

/// An input schema as MCP requires it: JSON Schema (Gemini's dialect read as one), an
/// object schema (another one wrapped as `{"input": <schema>}`), `"type": "object"`
/// declared; a loss for each change.
fn input_schema(s: Value, dialect: Dialect, at: &str, ctx: &mut Ctx<'_>) -> Map<String, Value> {
    let s = schema::object_input(s, dialect, ctx, at);
    match s {
        Value::Object(m) => {
            let (m, added) = object_type(m);
            if added {
                ctx.changed(
                    LossCode::SchemaChanged,
                    format!("{at}/input_schema/type"),
                    "MCP input schemas declare \"type\": \"object\": added",
                );
            }
            m
        }
        // `true` (any value): an object schema without constraints.
        _ => object_type(Map::new()).0,
    }
}

/// An object schema with `"type": "object"` first, and whether it had to be added or
/// replaced.
fn object_type(mut m: Map<String, Value>) -> (Map<String, Value>, bool) {
    if m.get("type").and_then(Value::as_str) == Some("object") {
        return (m, false);
    }
    m.shift_remove("type");
    let mut out = Map::with_capacity(m.len() + 1);
    out.insert("type".into(), Value::String("object".into()));
    out.extend(m);
    (out, true)
}
