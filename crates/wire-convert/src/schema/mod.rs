//! JSON Schema dialects: what each format accepts as a tool's input schema, and the
//! rewrites that get a schema there, each change recorded as a loss.
//!
//! * **JSON Schema** as written: Anthropic `input_schema`, Bedrock `inputSchema.json`,
//!   Mistral, Cohere, OpenAI without `strict`, Gemini `parametersJsonSchema`, and
//!   Ollama's own tools written back to Ollama.
//! * **Ollama** ([`to_ollama`]), for every tool written to Ollama that did not come from
//!   it (conversions, `tools_for`, `adapt_schema`): what its server's `ToolProperty`
//!   keeps, `$ref`s inlined, `oneOf` as `anyOf`, `const` as a one-value `enum`, every
//!   other keyword dropped with a loss.
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
//! unwrapped to match. A root that is only a `$ref` into the schema's own `$defs` is the
//! schema it references ([`is_object_schema`] follows it, [`resolve_root_ref`] inlines
//! it for the dialects that want `type: object` at the root); a wrapped schema takes its
//! `$defs` along to the new root, so no `$ref` is left dangling.
//!
//! # Bounded work
//!
//! Inlining `$ref`s copies a definition per use, so a small schema whose definitions each
//! use the previous one twice would grow exponentially. Every expansion here has a
//! [`Budget`]: at most `factor` × the input's nodes + `slack` nodes are copied in, and an
//! inlined definition never takes the output deeper than `depth` levels. A `$ref` past the
//! budget is not inlined: it is written as an open schema with a `changed` loss at its
//! pointer (with [`Options::strict`](crate::Options::strict), an error), and the loss says
//! that Gemini's `parametersJsonSchema` ([`GeminiSchema::JsonSchema`](crate::GeminiSchema))
//! keeps the `$ref` as it is. Every other rewrite here is linear in the input.

use crate::{Ctx, LossCode};
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

/// How far `$ref` inlining may grow a schema, for the dialects that cannot hold a `$ref`
/// (Gemini's `parameters`, Ollama): past it a reference is written as an open schema
/// with a `changed` loss (an error with [`Options::strict`](crate::Options::strict)).
/// Set it with [`Options::schema_budget`](crate::Options::schema_budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Budget {
    /// Nodes (JSON values: objects, arrays, scalars) that inlining may copy in, per node
    /// of the input schema.
    pub factor: usize,
    /// Nodes that inlining may copy in whatever the input's size.
    pub slack: usize,
    /// Nesting levels (JSON containers) that an inlined definition may reach in the
    /// output schema; serde_json reads no body nested deeper than 128.
    pub depth: usize,
}

impl Budget {
    /// 8 nodes per input node plus 10 000, 64 levels deep: far more than a real schema's
    /// definitions need (a definition used twenty times in a schema of a hundred nodes
    /// copies in a few thousand), and a few milliseconds of work at most.
    pub const DEFAULT: Budget = Budget {
        factor: 8,
        slack: 10_000,
        depth: 64,
    };

    fn limit(&self, input_nodes: usize) -> usize {
        self.factor
            .saturating_mul(input_nodes)
            .saturating_add(self.slack)
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// The definition a local `$ref` names in `root`: `#/$defs/<name>` or
/// `#/definitions/<name>` (RFC 6901 escapes undone).
fn local_def<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    for key in ["$defs", "definitions"] {
        let Some(rest) = r.strip_prefix("#/").and_then(|r| r.strip_prefix(key)) else {
            continue;
        };
        let name = rest.strip_prefix('/')?;
        if name.contains('/') {
            return None;
        }
        let name = name.replace("~1", "/").replace("~0", "~");
        return root.get(key)?.get(&name);
    }
    None
}

/// What a root `$ref` resolves to: follows `$ref` → definition → `$ref` … through the
/// root's own definitions (each at most once), to the first that is not a bare `$ref`.
/// `None` when the root has no `$ref`, or it dangles or loops.
fn root_target(schema: &Value) -> Option<&Value> {
    let mut r = schema.get("$ref")?.as_str()?;
    let mut seen: Vec<&str> = Vec::new();
    loop {
        if seen.contains(&r) {
            return None;
        }
        seen.push(r);
        let target = local_def(schema, r)?;
        match target.get("$ref").and_then(Value::as_str) {
            Some(next) if target.as_object().is_some_and(|t| t.len() == 1) => r = next,
            _ => return Some(target),
        }
    }
}

/// Whether `schema` describes an object at its root (`type: object`, or no type but
/// `properties`), or is the empty schema. A root `$ref` into the schema's own `$defs` is
/// followed: `{"$ref": "#/$defs/Args", "$defs": {"Args": {"type": "object", …}}}` is an
/// object schema.
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => match m.get("type") {
            Some(Value::String(t)) => t.eq_ignore_ascii_case("object"),
            Some(_) => false,
            None if m.contains_key("$ref") => {
                root_target(schema).is_some_and(|t| t.get("$ref").is_none() && is_object_schema(t))
            }
            None => {
                m.contains_key("properties")
                    || !(m.contains_key("anyOf")
                        || m.contains_key("oneOf")
                        || m.contains_key("allOf")
                        || m.contains_key("enum")
                        || m.contains_key("const")
                        || m.contains_key("items"))
            }
        },
        Value::Bool(true) => true,
        _ => false,
    }
}

/// A root `$ref` into the schema's own `$defs` inlined: the definition's keywords at the
/// root (the root's other keywords win), `$defs` kept for the references within. The same
/// schema, written so that a dialect that wants `type: object` at the root sees it. Any
/// other schema is returned as it is. Copies one definition, once.
pub(crate) fn resolve_root_ref(schema: Value) -> Value {
    let Some(Value::Object(target)) = root_target(&schema).cloned() else {
        return schema;
    };
    let Value::Object(mut root) = schema else {
        return schema;
    };
    root.shift_remove("$ref");
    let mut out = Map::new();
    for (k, v) in target {
        if !root.contains_key(&k) {
            out.insert(k, v);
        }
    }
    out.extend(root);
    Value::Object(out)
}

/// Wraps a non-object schema as an object with one required property `input`;
/// `None` when the schema already describes an object. The schema's `$defs` (and
/// `definitions`) move to the new root, and its references to its own root
/// (`#`, `#/items`, …) are rebased under `#/properties/input`, so every `$ref` still
/// points where it did.
pub(crate) fn wrap_non_object(schema: &Value) -> Option<Value> {
    if is_object_schema(schema) {
        return None;
    }
    let mut inner = schema.clone();
    let mut defs = Vec::new();
    if let Value::Object(m) = &mut inner {
        for key in ["$defs", "definitions"] {
            if let Some(d) = m.shift_remove(key) {
                defs.push((key, d));
            }
        }
    }
    rebase_refs(&mut inner, "/properties/input");
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), json!({ "input": inner }));
    out.insert("required".into(), json!(["input"]));
    for (key, mut d) in defs {
        rebase_refs(&mut d, "/properties/input");
        out.insert(key.into(), d);
    }
    Some(Value::Object(out))
}

/// Rewrites every local `$ref` in `schema` that points into its root (not into its
/// `$defs`/`definitions`) to point under `prefix`. Values that are data, not schemas
/// (`enum`, `const`, `default`, `examples`, `example`), are left alone. Linear.
fn rebase_refs(schema: &mut Value, prefix: &str) {
    match schema {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                match k.as_str() {
                    "enum" | "const" | "default" | "examples" | "example" => {}
                    "$ref" => {
                        if let Value::String(r) = v {
                            let into_defs =
                                r.starts_with("#/$defs/") || r.starts_with("#/definitions/");
                            if r == "#" || (r.starts_with("#/") && !into_defs) {
                                *r = format!("#{prefix}{}", &r[1..]);
                            }
                        }
                    }
                    _ => rebase_refs(v, prefix),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rebase_refs(v, prefix)),
        _ => {}
    }
}

/// The state of one `$ref`-inlining pass: the definitions, the ones being inlined (a
/// recursive `$ref` is never followed twice), and what the [`Budget`] has left.
struct Inline {
    defs: Map<String, Value>,
    stack: Vec<String>,
    /// Nodes copied in so far, and the most allowed.
    spent: usize,
    limit: usize,
    /// Deepest nesting an inlined definition may reach.
    depth: usize,
    /// Size and height of each definition, computed on first use.
    sizes: std::collections::HashMap<String, (usize, usize)>,
}

impl Inline {
    fn new(schema: &Value, budget: Budget) -> Self {
        Inline {
            defs: definitions(schema),
            stack: Vec::new(),
            spent: 0,
            limit: budget.limit(size(schema).0),
            depth: budget.depth,
            sizes: Default::default(),
        }
    }

    /// Whether inlining `r` (a definition that exists) at nesting `depth` stays within
    /// the budget; if so it is charged.
    fn afford(&mut self, r: &str, depth: usize) -> bool {
        let (nodes, height) = match self.sizes.get(r) {
            Some(s) => *s,
            None => {
                let s = self.defs.get(r).map(size).unwrap_or((1, 1));
                self.sizes.insert(r.to_owned(), s);
                s
            }
        };
        if self.spent.saturating_add(nodes) > self.limit
            || depth.saturating_add(height) > self.depth
        {
            return false;
        }
        self.spent += nodes;
        true
    }
}

/// Nodes (every JSON value) and height (nesting of containers, a scalar is 1) of a
/// value, without recursion (a schema may be as deep as serde_json reads).
fn size(value: &Value) -> (usize, usize) {
    let (mut nodes, mut height) = (0usize, 0usize);
    let mut todo = vec![(value, 1usize)];
    while let Some((v, d)) = todo.pop() {
        nodes += 1;
        height = height.max(d);
        match v {
            Value::Array(a) => todo.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(m) => todo.extend(m.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    (nodes, height)
}

/// The loss for a `$ref` left out because of the budget.
fn over_budget(ctx: &mut Ctx<'_>, at: &str, r: &str, dialect: &str) {
    ctx.changed(
        LossCode::SchemaChanged,
        format!("{at}/$ref"),
        format!(
            "`$ref` {r} not inlined for {dialect}: inlining it would pass the expansion budget \
             (schema::Budget); written as an open schema (gemini's parametersJsonSchema keeps \
             `$ref`s as they are)"
        ),
    );
}

/// Gemini `parameters` (OpenAPI subset) → JSON Schema: lower-case type names,
/// `nullable: true` as a `null` type. Exact: nothing is lost.
pub(crate) fn from_gemini(schema: &Value) -> Value {
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
///
/// `$ref`s are inlined within the options' budget; see [`to_gemini_with`].
pub(crate) fn to_gemini(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    let budget = ctx.options.schema_budget;
    to_gemini_with(schema, ctx, at, budget)
}

/// [`to_gemini`] with an inlining budget: a `$ref` past it is written as an open schema
/// with a `changed` loss.
pub(crate) fn to_gemini_with(schema: &Value, ctx: &mut Ctx<'_>, at: &str, budget: Budget) -> Value {
    let mut inl = Inline::new(schema, budget);
    gemini_node(schema, &mut inl, ctx, at, 0)
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

/// `depth`: how deep in the output schema this node is (JSON containers above it).
fn gemini_node(
    schema: &Value,
    inl: &mut Inline,
    ctx: &mut Ctx<'_>,
    at: &str,
    depth: usize,
) -> Value {
    let Value::Object(m) = schema else {
        if schema == &Value::Bool(true) {
            return json!({});
        }
        ctx.changed(
            LossCode::SchemaChanged,
            at.to_owned(),
            "a boolean schema has no Gemini form; written as an open schema",
        );
        return json!({});
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        if inl.stack.contains(r) {
            ctx.changed(
                LossCode::SchemaChanged,
                format!("{at}/$ref"),
                format!(
                    "recursive `$ref` {r} cannot be inlined for gemini; written as an open object"
                ),
            );
            return json!({"type": "OBJECT"});
        }
        if !inl.defs.contains_key(r) {
            ctx.dropped(
                LossCode::SchemaChanged,
                format!("{at}/$ref"),
                format!(
                    "`$ref` {r} does not point into this schema's $defs; written as an open schema"
                ),
            );
            return json!({});
        }
        if !inl.afford(r, depth) {
            over_budget(ctx, at, r, "gemini");
            return json!({});
        }
        let target = inl.defs.get(r).cloned().unwrap_or_default();
        inl.stack.push(r.clone());
        let mut inlined = gemini_node(&target, inl, ctx, at, depth);
        inl.stack.pop();
        // Sibling keywords of `$ref` (a description, say) apply too.
        let siblings: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| *k != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !siblings.is_empty() {
            if let (Value::Object(into), Value::Object(extra)) = (
                &mut inlined,
                gemini_node(&Value::Object(siblings), inl, ctx, at, depth),
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
                ctx.changed(
                    LossCode::SchemaChanged,
                    format!("{at}/oneOf"),
                    "`oneOf` written as `anyOf` (gemini has no oneOf)",
                );
            }
            for (i, b) in bs.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) == Some("null")
                    && b.as_object().is_some_and(|o| o.len() == 1)
                {
                    nullable = true;
                } else {
                    branches.push(gemini_node(
                        b,
                        inl,
                        ctx,
                        &format!("{at}/{key}/{i}"),
                        depth + 2,
                    ));
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
                        p.insert(name.clone(), gemini_node(s, inl, ctx, &path, depth + 2));
                    }
                    out.insert(k.clone(), Value::Object(p));
                }
            }
            "items" => {
                out.insert(k.clone(), gemini_node(v, inl, ctx, &here, depth + 1));
            }
            "const" => match v {
                Value::String(_) => {
                    out.insert("enum".into(), Value::Array(vec![v.clone()]));
                    out.entry("type").or_insert(json!("STRING"));
                }
                _ => ctx.dropped(
                    LossCode::SchemaChanged,
                    here,
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
                _ => ctx.dropped(
                    LossCode::SchemaChanged,
                    here,
                    "gemini enums hold strings only; this enum was dropped",
                ),
            },
            "allOf" => {
                if let Value::Array(parts) = v {
                    ctx.changed(
                        LossCode::SchemaChanged,
                        here.clone(),
                        "`allOf` merged into one schema (gemini has no allOf)",
                    );
                    for (i, part) in parts.iter().enumerate() {
                        if let Value::Object(conv) =
                            gemini_node(part, inl, ctx, &format!("{here}/{i}"), depth)
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
                _ => ctx.dropped(
                    LossCode::SchemaChanged,
                    here,
                    format!("`format: {v}` is not one gemini supports"),
                ),
            },
            "examples" => match v.as_array().and_then(|a| a.first()) {
                Some(first) => {
                    ctx.changed(
                        LossCode::SchemaChanged,
                        here,
                        "`examples` written as gemini's single `example` (the first)",
                    );
                    out.insert("example".into(), first.clone());
                }
                None => ctx.dropped(LossCode::SchemaChanged, here, "empty `examples` dropped"),
            },
            _ if GEMINI_KEYWORDS.contains(&k.as_str()) => {
                out.insert(k.clone(), v.clone());
            }
            _ => ctx.dropped(
                LossCode::SchemaChanged,
                here,
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
///
/// A root that is only a `$ref` is first inlined ([`resolve_root_ref`]): strict mode
/// wants `type: object` at the root.
pub(crate) fn to_openai_strict(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    if schema.get("$ref").is_some() && root_target(schema).is_some() {
        return strict_node(&resolve_root_ref(schema.clone()), ctx, at);
    }
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
            ctx.dropped(
                LossCode::SchemaChanged,
                here,
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
                ctx.changed(
                    LossCode::SchemaChanged,
                    format!("{at}/additionalProperties"),
                    "openai strict mode closes every object: `additionalProperties` set to false",
                );
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            None => {
                ctx.changed(
                    LossCode::SchemaChanged,
                    format!("{at}/additionalProperties"),
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
            ctx.changed(
                LossCode::SchemaChanged,
                format!("{at}/required"),
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
/// ([`wrap_non_object`]) with a `changed` loss at `{at}/input_schema`, a root `$ref`
/// inlined ([`resolve_root_ref`]).
pub(crate) fn json_schema_input(
    schema: Value,
    dialect: crate::model::Dialect,
    ctx: &mut Ctx<'_>,
    at: &str,
) -> Value {
    match read_input(schema, dialect, ctx, at) {
        Ok(schema) => resolve_root_ref(schema),
        Err(wrapped) => wrapped,
    }
}

/// A tool's input schema as JSON Schema with an object at the root, as the formats whose
/// tools take an object schema write it (Anthropic, Bedrock, MCP): a Gemini `parameters`
/// schema read back ([`from_gemini`]), a non-object schema wrapped ([`wrap_non_object`])
/// with a `changed` loss at `{at}/input_schema`.
pub(crate) fn object_input(
    schema: Value,
    dialect: crate::model::Dialect,
    ctx: &mut Ctx<'_>,
    at: &str,
) -> Value {
    read_input(schema, dialect, ctx, at).unwrap_or_else(|wrapped| wrapped)
}

/// [`object_input`], saying which it did: `Ok` holds a schema left as it was, `Err` a
/// wrapped one.
fn read_input(
    schema: Value,
    dialect: crate::model::Dialect,
    ctx: &mut Ctx<'_>,
    at: &str,
) -> Result<Value, Value> {
    let schema = match dialect {
        crate::model::Dialect::GeminiOpenapi => from_gemini(&schema),
        crate::model::Dialect::JsonSchema => schema,
    };
    match wrap_non_object(&schema) {
        Some(wrapped) => {
            ctx.changed(
                LossCode::SchemaChanged,
                format!("{at}/input_schema"),
                "a non-object input schema is exposed as {\"input\": <schema>}",
            );
            Err(wrapped)
        }
        None => Ok(schema),
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
///
/// `$ref`s are inlined within the options' budget; see [`to_ollama_with`].
pub(crate) fn to_ollama(schema: &Value, ctx: &mut Ctx<'_>, at: &str) -> Value {
    let budget = ctx.options.schema_budget;
    to_ollama_with(schema, ctx, at, budget)
}

/// [`to_ollama`] with an inlining budget: a `$ref` past it is written as an open schema
/// with a `changed` loss.
pub(crate) fn to_ollama_with(schema: &Value, ctx: &mut Ctx<'_>, at: &str, budget: Budget) -> Value {
    let mut inl = Inline::new(schema, budget);
    ollama_node(schema, &mut inl, ctx, at, 0)
}

/// `depth`: how deep in the output schema this node is (JSON containers above it).
fn ollama_node(
    schema: &Value,
    inl: &mut Inline,
    ctx: &mut Ctx<'_>,
    at: &str,
    depth: usize,
) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        // `#` is the schema itself: always recursive.
        if r == "#" || inl.stack.contains(r) {
            ctx.changed(
                LossCode::SchemaChanged,
                format!("{at}/$ref"),
                format!(
                    "recursive `$ref` {r} cannot be inlined for ollama; written as an open object"
                ),
            );
            return json!({"type": "object"});
        }
        if !inl.defs.contains_key(r) {
            ctx.dropped(
                LossCode::SchemaChanged,
                format!("{at}/$ref"),
                format!("`$ref` {r} does not point into this schema's $defs"),
            );
            return json!({});
        }
        if !inl.afford(r, depth) {
            over_budget(ctx, at, r, "ollama");
            return json!({});
        }
        let target = inl.defs.get(r).cloned().unwrap_or_default();
        inl.stack.push(r.clone());
        let mut inlined = ollama_node(&target, inl, ctx, at, depth);
        inl.stack.pop();
        let siblings: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| *k != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !siblings.is_empty() {
            if let (Value::Object(into), Value::Object(extra)) = (
                &mut inlined,
                ollama_node(&Value::Object(siblings), inl, ctx, at, depth),
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
                        p.insert(name.clone(), ollama_node(s, inl, ctx, &path, depth + 2));
                    }
                    out.insert(k.clone(), Value::Object(p));
                }
            }
            "items" => {
                out.insert(k.clone(), ollama_node(v, inl, ctx, &here, depth + 1));
            }
            "anyOf" | "oneOf" => {
                if k == "oneOf" {
                    ctx.changed(
                        LossCode::SchemaChanged,
                        here.clone(),
                        "`oneOf` written as `anyOf` (ollama keeps anyOf only)",
                    );
                }
                if let Value::Array(bs) = v {
                    let branches = bs
                        .iter()
                        .enumerate()
                        .map(|(i, b)| ollama_node(b, inl, ctx, &format!("{here}/{i}"), depth + 2))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(branches));
                }
            }
            "const" => {
                ctx.changed(
                    LossCode::SchemaChanged,
                    here,
                    "`const` written as a one-value `enum` (ollama keeps enum only)",
                );
                out.insert("enum".into(), Value::Array(vec![v.clone()]));
            }
            _ if OLLAMA_KEYWORDS.contains(&k.as_str()) => {
                out.insert(k.clone(), v.clone());
            }
            _ => ctx.dropped(
                LossCode::SchemaChanged,
                here,
                format!("`{k}` is dropped by ollama's tool schema parser"),
            ),
        }
    }
    Value::Object(out)
}

/// Adapts a JSON Schema to `format`'s dialect for a tool's input, the way every encoder
/// does for a tool definition: Gemini `parameters` get the OpenAPI subset (or, with
/// [`GeminiSchema::JsonSchema`](crate::GeminiSchema::JsonSchema), the schema as is); every
/// format gets a non-object schema wrapped as `{"input": …}`, and a root `$ref` inlined.
/// Losses point into the given schema. `$ref` inlining stays within the options' budget.
pub(crate) fn adapt(
    schema: &Value,
    format: wire_types::Format,
    options: &crate::Options,
) -> crate::Converted<Value> {
    let mut ctx = Ctx::new(format, options);
    let mut value = match wrap_non_object(schema) {
        Some(w) => {
            ctx.changed(
                LossCode::SchemaChanged,
                "",
                "a non-object schema is exposed as {\"input\": <schema>}",
            );
            w
        }
        None => resolve_root_ref(schema.clone()),
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
        names: crate::NameMap::default(),
    }
}

#[cfg(test)]
mod tests;
