//! JSON Schema dialects: what each format accepts as a tool's input schema, and the
//! rewrites that get a schema there, each change recorded as a loss.
//!
//! * **JSON Schema** as written: Anthropic `input_schema`, Bedrock `inputSchema.json`,
//!   Ollama, Mistral, Cohere, OpenAI without `strict`, Gemini `parametersJsonSchema`.
//! * **OpenAI strict** ([`to_openai_strict`]): every object closed
//!   (`additionalProperties: false`), every property required, the optional ones made
//!   nullable; `allOf`, `not`, `if`/`then`/`else`, `dependentRequired`,
//!   `dependentSchemas` and `patternProperties` are not supported and dropped.
//! * **Gemini `parameters`** ([`to_gemini`]): the OpenAPI 3.0 `Schema` subset — type names
//!   upper-case, `$ref` inlined from `$defs`, `anyOf`/type arrays with `null` become
//!   `nullable`, `const` becomes a one-value `enum`, only string enums, and every keyword
//!   outside the subset dropped. A recursive `$ref` cannot be inlined: it is reported and
//!   replaced by an open object, never followed twice.
//!
//! Every format wants an object at the root: a schema for anything else is wrapped as
//! `{"type":"object","properties":{"input": <schema>},"required":["input"]}`
//! ([`wrap_non_object`]), and the arguments of calls to that tool are wrapped and
//! unwrapped to match.

use crate::{Ctx, LossKind};
use serde_json::{Map, Value, json};

/// Keywords of Gemini's OpenAPI `Schema` subset.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "anyOf",
    "propertyOrdering",
    "default",
    "example",
];

/// `format` values Gemini's subset documents.
const GEMINI_FORMATS: &[&str] = &["enum", "date-time", "float", "double", "int32", "int64"];

/// Keywords OpenAI strict mode does not support.
const OPENAI_STRICT_UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
];

/// Whether `schema` describes an object at its root (`type: object`, or no type but
/// `properties`), or is the empty schema.
pub fn is_object_schema(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => match m.get("type") {
            Some(Value::String(t)) => t.eq_ignore_ascii_case("object"),
            Some(_) => false,
            None => {
                m.contains_key("properties")
                    || !(m.contains_key("anyOf")
                        || m.contains_key("oneOf")
                        || m.contains_key("allOf")
                        || m.contains_key("enum")
                        || m.contains_key("const")
                        || m.contains_key("items")
                        || m.contains_key("$ref"))
            }
        },
        Value::Bool(true) => true,
        _ => false,
    }
}

/// Wraps a non-object schema as an object with one required property `input`;
/// `None` when the schema already describes an object.
pub fn wrap_non_object(schema: &Value) -> Option<Value> {
    if is_object_schema(schema) {
        return None;
    }
    Some(json!({"type": "object", "properties": {"input": schema}, "required": ["input"]}))
}

/// Gemini `parameters` (OpenAPI subset) → JSON Schema: lower-case type names,
/// `nullable: true` as a `null` type. Exact: nothing is lost.
pub fn from_gemini(schema: &Value) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    let nullable = m.get("nullable").and_then(Value::as_bool) == Some(true);
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "type" => {
                let t = v
                    .as_str()
                    .map(str::to_ascii_lowercase)
                    .map(Value::String)
                    .unwrap_or_else(|| v.clone());
                if nullable {
                    out.insert(k.clone(), json!([t, "null"]));
                } else {
                    out.insert(k.clone(), t);
                }
            }
            "nullable" if nullable && m.contains_key("type") => {}
            "properties" => {
                let props = v
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(n, s)| (n.clone(), from_gemini(s)))
                            .collect::<Map<_, _>>()
                    })
                    .map(Value::Object)
                    .unwrap_or_else(|| v.clone());
                out.insert(k.clone(), props);
            }
            "items" => {
                out.insert(k.clone(), from_gemini(v));
            }
            "anyOf" => {
                let branches = v
                    .as_array()
                    .map(|a| a.iter().map(from_gemini).collect::<Vec<_>>())
                    .map(Value::Array)
                    .unwrap_or_else(|| v.clone());
                out.insert(k.clone(), branches);
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// JSON Schema → Gemini `parameters` (OpenAPI subset). Losses are recorded under `at`
/// (a neutral pointer to the schema).
pub fn to_gemini(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    let defs = definitions(schema);
    let mut stack = Vec::new();
    gemini_node(schema, &defs, &mut stack, ctx, at)
}

fn definitions(root: &Value) -> Map<String, Value> {
    let mut defs = Map::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = root.get(key) {
            for (name, s) in d {
                defs.insert(format!("#/{key}/{name}"), s.clone());
            }
        }
    }
    defs
}

fn gemini_node(
    schema: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
    ctx: &mut Ctx<'_>,
    at: &str,
) -> Value {
    let Value::Object(m) = schema else {
        if schema == &Value::Bool(true) {
            return json!({});
        }
        ctx.loss(
            at.to_owned(),
            LossKind::Changed,
            "a boolean schema has no Gemini form; written as an open schema",
        );
        return json!({});
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        if stack.contains(r) {
            ctx.loss(
                format!("{at}/$ref"),
                LossKind::Changed,
                format!(
                    "recursive `$ref` {r} cannot be inlined for gemini; written as an open object"
                ),
            );
            return json!({"type": "OBJECT"});
        }
        let Some(target) = defs.get(r) else {
            ctx.loss(
                format!("{at}/$ref"),
                LossKind::Dropped,
                format!(
                    "`$ref` {r} does not point into this schema's $defs; written as an open schema"
                ),
            );
            return json!({});
        };
        stack.push(r.clone());
        let mut inlined = gemini_node(target, defs, stack, ctx, at);
        stack.pop();
        // Sibling keywords of `$ref` (a description, say) apply too.
        let siblings: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| *k != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !siblings.is_empty() {
            if let (Value::Object(into), Value::Object(extra)) = (
                &mut inlined,
                gemini_node(&Value::Object(siblings), defs, stack, ctx, at),
            ) {
                for (k, v) in extra {
                    into.insert(k, v);
                }
            }
        }
        return inlined;
    }

    let mut out = Map::new();
    let mut nullable = m.get("nullable").and_then(Value::as_bool) == Some(true);

    // Type: a string, or an array possibly with "null".
    let mut types: Vec<String> = match m.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    if types.iter().any(|t| t == "null") {
        nullable = true;
        types.retain(|t| t != "null");
    }

    // anyOf / oneOf: null branches become `nullable`.
    let mut branches: Vec<Value> = Vec::new();
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(bs)) = m.get(key) {
            if key == "oneOf" {
                ctx.loss(
                    format!("{at}/oneOf"),
                    LossKind::Changed,
                    "`oneOf` written as `anyOf` (gemini has no oneOf)",
                );
            }
            for (i, b) in bs.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) == Some("null")
                    && b.as_object().is_some_and(|o| o.len() == 1)
                {
                    nullable = true;
                } else {
                    branches.push(gemini_node(b, defs, stack, ctx, &format!("{at}/{key}/{i}")));
                }
            }
        }
    }

    if types.len() > 1 {
        for t in &types {
            branches.push(json!({"type": t.to_ascii_uppercase()}));
        }
        types.clear();
    }
    if let Some(t) = types.first() {
        out.insert("type".into(), Value::String(t.to_ascii_uppercase()));
    }

    for (k, v) in m {
        let here = format!("{at}/{k}");
        match k.as_str() {
            "type" | "anyOf" | "oneOf" | "nullable" | "$defs" | "definitions" => {}
            "properties" => {
                if let Value::Object(props) = v {
                    let mut p = Map::new();
                    for (name, s) in props {
                        let mut path = here.clone();
                        wire_types::push_token(&mut path, name);
                        p.insert(name.clone(), gemini_node(s, defs, stack, ctx, &path));
                    }
                    out.insert(k.clone(), Value::Object(p));
                }
            }
            "items" => {
                out.insert(k.clone(), gemini_node(v, defs, stack, ctx, &here));
            }
            "const" => match v {
                Value::String(_) => {
                    out.insert("enum".into(), Value::Array(vec![v.clone()]));
                    out.entry("type").or_insert(json!("STRING"));
                }
                _ => ctx.loss(
                    here,
                    LossKind::Dropped,
                    "a non-string `const` has no Gemini form",
                ),
            },
            "enum" => match v {
                Value::Array(vals) if vals.iter().all(Value::is_string) => {
                    out.insert(k.clone(), v.clone());
                    out.entry("type").or_insert(json!("STRING"));
                }
                Value::Array(vals) if vals.iter().all(|x| x.is_string() || x.is_null()) => {
                    nullable = true;
                    out.insert(
                        k.clone(),
                        Value::Array(vals.iter().filter(|x| x.is_string()).cloned().collect()),
                    );
                    out.entry("type").or_insert(json!("STRING"));
                }
                _ => ctx.loss(
                    here,
                    LossKind::Dropped,
                    "gemini enums hold strings only; this enum was dropped",
                ),
            },
            "allOf" => {
                if let Value::Array(parts) = v {
                    ctx.loss(
                        here.clone(),
                        LossKind::Changed,
                        "`allOf` merged into one schema (gemini has no allOf)",
                    );
                    for (i, part) in parts.iter().enumerate() {
                        if let Value::Object(conv) =
                            gemini_node(part, defs, stack, ctx, &format!("{here}/{i}"))
                        {
                            merge_schema(&mut out, conv);
                        }
                    }
                }
            }
            "format" => match v.as_str() {
                Some(f) if GEMINI_FORMATS.contains(&f) => {
                    out.insert(k.clone(), v.clone());
                }
                _ => ctx.loss(
                    here,
                    LossKind::Dropped,
                    format!("`format: {v}` is not one gemini supports"),
                ),
            },
            "examples" => match v.as_array().and_then(|a| a.first()) {
                Some(first) => {
                    ctx.loss(
                        here,
                        LossKind::Changed,
                        "`examples` written as gemini's single `example` (the first)",
                    );
                    out.insert("example".into(), first.clone());
                }
                None => ctx.loss(here, LossKind::Dropped, "empty `examples` dropped"),
            },
            _ if GEMINI_KEYWORDS.contains(&k.as_str()) => {
                out.insert(k.clone(), v.clone());
            }
            _ => ctx.loss(
                here,
                LossKind::Dropped,
                format!("`{k}` is not in gemini's schema subset"),
            ),
        }
    }

    if branches.len() == 1 && !out.contains_key("type") {
        if let Some(Value::Object(only)) = branches.pop() {
            merge_schema(&mut out, only);
        }
    } else if !branches.is_empty() {
        out.insert("anyOf".into(), Value::Array(branches));
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    Value::Object(out)
}

fn merge_schema(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (k.as_str(), into.get_mut(&k), v) {
            ("properties", Some(Value::Object(a)), Value::Object(b)) => a.extend(b),
            ("required", Some(Value::Array(a)), Value::Array(b)) => {
                for r in b {
                    if !a.contains(&r) {
                        a.push(r);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// JSON Schema → OpenAI strict mode. A schema that already follows the rules comes back
/// unchanged, with no loss.
pub fn to_openai_strict(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    strict_node(schema, ctx, at)
}

fn strict_node(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        let here = format!("{at}/{k}");
        if OPENAI_STRICT_UNSUPPORTED.contains(&k.as_str()) {
            ctx.loss(
                here,
                LossKind::Dropped,
                format!("`{k}` is not supported by openai strict mode"),
            );
            continue;
        }
        let v = match (k.as_str(), v) {
            ("properties" | "$defs" | "definitions", Value::Object(ps)) => Value::Object(
                ps.iter()
                    .map(|(n, s)| {
                        let mut path = here.clone();
                        wire_types::push_token(&mut path, n);
                        (n.clone(), strict_node(s, ctx, &path))
                    })
                    .collect(),
            ),
            ("items", s) => strict_node(s, ctx, &here),
            ("anyOf" | "oneOf", Value::Array(bs)) => Value::Array(
                bs.iter()
                    .enumerate()
                    .map(|(i, b)| strict_node(b, ctx, &format!("{here}/{i}")))
                    .collect(),
            ),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    let is_object =
        out.get("type").and_then(Value::as_str) == Some("object") || out.contains_key("properties");
    if is_object {
        match out.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(_) => {
                ctx.loss(
                    format!("{at}/additionalProperties"),
                    LossKind::Changed,
                    "openai strict mode closes every object: `additionalProperties` set to false",
                );
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            None => {
                ctx.loss(
                    format!("{at}/additionalProperties"),
                    LossKind::Changed,
                    "openai strict mode closes every object: `additionalProperties: false` added",
                );
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
        let names: Vec<String> = out
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let required: Vec<String> = out
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let optional: Vec<&String> = names.iter().filter(|n| !required.contains(n)).collect();
        if !optional.is_empty() {
            if let Some(Value::Object(props)) = out.get_mut("properties") {
                for name in &optional {
                    if let Some(p) = props.get_mut(name.as_str()) {
                        make_nullable(p);
                    }
                }
            }
            ctx.loss(
                format!("{at}/required"),
                LossKind::Changed,
                format!(
                    "openai strict mode requires every property: optional {} made required and nullable",
                    optional.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        if !names.is_empty() || out.contains_key("required") {
            let mut all: Vec<Value> = required
                .iter()
                .filter(|r| names.contains(r))
                .map(|r| Value::String(r.clone()))
                .collect();
            for n in &optional {
                all.push(Value::String((*n).clone()));
            }
            if out.get("required") != Some(&Value::Array(all.clone())) {
                out.insert("required".into(), Value::Array(all));
            }
        }
    }
    Value::Object(out)
}

fn make_nullable(schema: &mut Value) {
    let Value::Object(m) = schema else { return };
    match m.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            m.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
            }
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(bs)) = m.get_mut("anyOf") {
                if !bs.iter().any(|b| b.get("type") == Some(&json!("null"))) {
                    bs.push(json!({"type": "null"}));
                }
                return;
            }
            let inner = Value::Object(std::mem::take(m));
            m.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            return;
        }
    }
    if let Some(Value::Array(e)) = m.get_mut("enum") {
        if !e.contains(&Value::Null) {
            e.push(Value::Null);
        }
    }
}

/// A tool's input schema as plain JSON Schema with an object at the root: a Gemini
/// `parameters` schema read back ([`from_gemini`]), a non-object schema wrapped
/// ([`wrap_non_object`]) with a `changed` loss at `{at}/input_schema`.
pub fn json_schema_input(
    schema: Value,
    dialect: crate::model::Dialect,
    ctx: &mut Ctx<'_>,
    at: &str,
) -> Value {
    let schema = match dialect {
        crate::model::Dialect::GeminiOpenapi => from_gemini(&schema),
        crate::model::Dialect::JsonSchema => schema,
    };
    match wrap_non_object(&schema) {
        Some(wrapped) => {
            ctx.loss(
                format!("{at}/input_schema"),
                LossKind::Changed,
                "a non-object input schema is exposed as {\"input\": <schema>}",
            );
            wrapped
        }
        None => schema,
    }
}

/// Keywords Ollama keeps: its server parses tool parameters into `ToolProperty` (`anyOf`,
/// `type`, `items`, `description`, `enum`, `properties`, `required`) and drops the rest
/// before templating.
const OLLAMA_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "enum",
    "items",
    "properties",
    "required",
    "anyOf",
];

/// JSON Schema → what Ollama's server keeps: `$ref` inlined from `$defs` (a recursive one
/// is reported and replaced by an open object), `oneOf` as `anyOf`, `const` as a one-value
/// `enum`, every other keyword dropped with a loss (Ollama would drop it silently).
pub fn to_ollama(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    let defs = definitions(schema);
    let mut stack = Vec::new();
    ollama_node(schema, &defs, &mut stack, ctx, at)
}

fn ollama_node(
    schema: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
    ctx: &mut Ctx<'_>,
    at: &str,
) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        if stack.contains(r) {
            ctx.loss(
                format!("{at}/$ref"),
                LossKind::Changed,
                format!(
                    "recursive `$ref` {r} cannot be inlined for ollama; written as an open object"
                ),
            );
            return json!({"type": "object"});
        }
        let Some(target) = defs.get(r) else {
            ctx.loss(
                format!("{at}/$ref"),
                LossKind::Dropped,
                format!("`$ref` {r} does not point into this schema's $defs"),
            );
            return json!({});
        };
        stack.push(r.clone());
        let mut inlined = ollama_node(target, defs, stack, ctx, at);
        stack.pop();
        let siblings: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| *k != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !siblings.is_empty() {
            if let (Value::Object(into), Value::Object(extra)) = (
                &mut inlined,
                ollama_node(&Value::Object(siblings), defs, stack, ctx, at),
            ) {
                for (k, v) in extra {
                    into.insert(k, v);
                }
            }
        }
        return inlined;
    }
    let mut out = Map::new();
    for (k, v) in m {
        let here = format!("{at}/{k}");
        match k.as_str() {
            "$defs" | "definitions" => {}
            "properties" => {
                if let Value::Object(props) = v {
                    let mut p = Map::new();
                    for (name, s) in props {
                        let mut path = here.clone();
                        wire_types::push_token(&mut path, name);
                        p.insert(name.clone(), ollama_node(s, defs, stack, ctx, &path));
                    }
                    out.insert(k.clone(), Value::Object(p));
                }
            }
            "items" => {
                out.insert(k.clone(), ollama_node(v, defs, stack, ctx, &here));
            }
            "anyOf" | "oneOf" => {
                if k == "oneOf" {
                    ctx.loss(
                        here.clone(),
                        LossKind::Changed,
                        "`oneOf` written as `anyOf` (ollama keeps anyOf only)",
                    );
                }
                if let Value::Array(bs) = v {
                    let branches = bs
                        .iter()
                        .enumerate()
                        .map(|(i, b)| ollama_node(b, defs, stack, ctx, &format!("{here}/{i}")))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(branches));
                }
            }
            "const" => {
                ctx.loss(
                    here,
                    LossKind::Changed,
                    "`const` written as a one-value `enum` (ollama keeps enum only)",
                );
                out.insert("enum".into(), Value::Array(vec![v.clone()]));
            }
            _ if OLLAMA_KEYWORDS.contains(&k.as_str()) => {
                out.insert(k.clone(), v.clone());
            }
            _ => ctx.loss(
                here,
                LossKind::Dropped,
                format!("`{k}` is dropped by ollama's tool schema parser"),
            ),
        }
    }
    Value::Object(out)
}

/// Adapts a JSON Schema to `format`'s dialect for a tool's input, the way every encoder
/// does for a tool definition: Gemini `parameters` get the OpenAPI subset (or, with
/// [`GeminiSchema::JsonSchema`](crate::GeminiSchema::JsonSchema), the schema as is); every
/// format gets a non-object schema wrapped as `{"input": …}`. Losses point into the given
/// schema.
pub fn adapt(
    schema: &Value,
    format: wire_types::Format,
    options: &crate::Options,
) -> crate::Converted<Value> {
    let mut ctx = Ctx::new(format, options);
    let mut value = match wrap_non_object(schema) {
        Some(w) => {
            ctx.loss(
                "",
                LossKind::Changed,
                "a non-object schema is exposed as {\"input\": <schema>}",
            );
            w
        }
        None => schema.clone(),
    };
    if format == wire_types::Format::Gemini
        && options.gemini_schema == crate::GeminiSchema::Parameters
    {
        value = to_gemini(&value, &mut ctx, "");
    }
    if format == wire_types::Format::Ollama {
        value = to_ollama(&value, &mut ctx, "");
    }
    crate::Converted {
        value,
        losses: ctx.take_losses(),
        ids: crate::IdMap::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;
    use wire_types::Format;

    #[test]
    fn gemini_inlines_refs_and_rewrites_nullables() {
        let opts = Options::default();
        let mut ctx = Ctx::new(Format::Gemini, &opts);
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]},
                "days": {"type": ["integer", "null"], "format": "uint32", "minimum": 0}
            },
            "required": ["city"],
            "additionalProperties": false,
            "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}
        });
        let out = to_gemini(&schema, &mut ctx, "/tools/0/input_schema");
        assert_eq!(
            out,
            json!({
                "type": "OBJECT",
                "properties": {
                    "city": {"type": "STRING"},
                    "unit": {"type": "STRING", "enum": ["c", "f"], "nullable": true},
                    "days": {"type": "INTEGER", "minimum": 0, "nullable": true}
                },
                "required": ["city"]
            })
        );
        let paths: Vec<&str> = ctx.losses().iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/tools/0/input_schema/$schema",
                "/tools/0/input_schema/properties/days/format",
                "/tools/0/input_schema/additionalProperties",
            ]
        );
    }

    #[test]
    fn a_recursive_ref_is_reported_not_followed() {
        let opts = Options::default();
        let mut ctx = Ctx::new(Format::Gemini, &opts);
        let schema = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        let out = to_gemini(&schema, &mut ctx, "");
        assert_eq!(
            out,
            json!({"type": "OBJECT", "properties": {"next": {"type": "OBJECT"}}})
        );
        assert_eq!(ctx.losses().len(), 1);
        assert_eq!(ctx.losses()[0].path, "/properties/next/$ref");
    }

    #[test]
    fn strict_closes_objects_and_makes_optionals_nullable() {
        let opts = Options::default();
        let mut ctx = Ctx::new(Format::OpenaiChat, &opts);
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer", "enum": [1, 2]}}, "required": ["a"]});
        let out = to_openai_strict(&schema, &mut ctx, "");
        assert_eq!(
            out,
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"], "enum": [1, 2, null]}}, "required": ["a", "b"], "additionalProperties": false})
        );
        assert_eq!(ctx.losses().len(), 2);
        // Already strict: unchanged, no loss.
        let mut ctx = Ctx::new(Format::OpenaiChat, &opts);
        assert_eq!(to_openai_strict(&out, &mut ctx, ""), out);
        assert!(ctx.losses().is_empty());
    }

    #[test]
    fn gemini_parameters_read_back_as_json_schema() {
        let g = json!({"type": "OBJECT", "properties": {"x": {"type": "STRING", "nullable": true}}, "required": ["x"]});
        assert_eq!(
            from_gemini(&g),
            json!({"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "required": ["x"]})
        );
    }
}
