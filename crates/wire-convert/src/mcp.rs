//! MCP tool shapes ↔ the neutral model: tool definitions (`tools/list`), calls (`tools/call`
//! params) and their results (`CallToolResult`), both ways. MCP has no chat request: the
//! tool registry calls these functions directly (they are not in the format dispatch).
//!
//! * **Tools**: `inputSchema` ↔ [`ToolDef::input_schema`], `outputSchema` ↔
//!   [`ToolDef::output_schema`]; `title`, `annotations`, `execution`, `icons` and `_meta`
//!   are vendor fields of format `mcp` (dropped with a loss elsewhere). Reading accepts any
//!   non-empty name: the naming rule (1–128 of `[A-Za-z0-9._-]`) is a SHOULD and servers
//!   break it. Writing a name outside the rule rewrites it (every other character `_`; a
//!   name over 128 characters keeps 119 plus `_` and 8 hex digits of its hash; an empty
//!   one becomes `tool`) with a `changed` loss naming both, so the caller can map calls
//!   back; [`encode_tools_list`] also keeps the rewritten names unique. Writing an input
//!   schema: none becomes `{"type": "object"}`; a non-object schema is wrapped as
//!   `{"input": <schema>}` (`schema::wrap_non_object`); an object schema without
//!   `"type": "object"` gets it (a `changed` loss); Gemini's OpenAPI dialect is read as
//!   JSON Schema first. An output schema that is not an object schema is dropped (MCP
//!   requires one); `strict` and cache markers have no place (a loss each).
//! * **Results**: `text` ↔ text; `image` / `audio` ↔ image / audio (base64 with their
//!   media type); `resource_link` ↔ a document whose source is the link's URI (its `name`
//!   is the neutral name; `title`, `description`, `size`, `icons` are vendor fields); an
//!   embedded `resource` ↔ a document named by the resource URI, with a plain-text source
//!   (`text`) or base64 (`blob`; an `image/*` or `audio/*` blob is an image or audio part
//!   with hint `resource`). `structuredContent` ↔ a JSON part at the end (hint
//!   `structured`). `isError` ↔ the error flag. An unknown block is kept whole
//!   ([`Part::Opaque`]).
//! * Writing a result from another format: the first JSON part holding an object becomes
//!   `structuredContent`, and a text block with its JSON is written in its place, so that
//!   clients without structured-content support still see it (the spec's advice); any
//!   other JSON part is written as text (a `changed` loss). An image or audio part by URL
//!   becomes a `resource_link` (a `changed` loss: MCP image blocks carry bytes); a
//!   document with bytes or text becomes an embedded resource whose URI is its name when
//!   that is an absolute URI, else `attachment:<name>` (`attachment:document-<k>` without
//!   a name); a file id of another provider is dropped. A missing media type is taken
//!   from the bytes' magic number when it can be, else `application/octet-stream` (a
//!   `changed` loss). The call id and the tool name belong to the JSON-RPC envelope and
//!   the request, not to `CallToolResult`: they are not written and not a loss.
//! * **Calls**: `name` and `arguments` (an object) ↔ a tool call whose id the caller gives
//!   (the JSON-RPC request id); `_meta` and `task` are vendor fields. Writing arguments:
//!   JSON text is parsed; invalid JSON becomes `{"invalid_json": "<text>"}`, a non-object
//!   value `{"value": …}` (a `changed` loss each); `null` leaves `arguments` out.
//!
//! Loss pointers are relative to the neutral value written: `/name`, `/input_schema/…` for
//! one tool, `/tools/<k>/…` for a list, `/content/<k>/…` for a result, `/arguments` for a
//! call.
//!
//! Hints (see [`Vendor`]) this module writes and reads: `structured` (a JSON part that was
//! `structuredContent`), `resource` (an image or audio part that was an embedded blob
//! resource), `is_error_false` (`isError: false` was written), `no_arguments` (a call
//! without `arguments`), `nulls`, `nulls.resource`. Vendor fields `resource.<key>` hold
//! the fields of an embedded resource's contents object other than those modeled.

use crate::ctx::vendor_from_extra;
use crate::model::{
    self, Arguments, Dialect, Json, Media, Part, PartMeta, Source, Text, Tool, ToolCall, ToolDef,
    ToolResult, Vendor,
};
use crate::util::opaque_elsewhere;
use crate::{Ctx, Error, LossKind, schema};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::HashSet;
use wire_types::mcp as w;
use wire_types::{Extra, Format};

const F: Format = Format::Mcp;

/// One page of `tools/list`: the tools, the cursor of the next page, and what else the
/// result carried.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolsPage {
    /// The tools (every one a [`Tool::Function`] when read from MCP).
    pub tools: Vec<Tool>,
    /// Opaque cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// `_meta` and unknown fields of the result.
    pub vendor: Vendor,
}

// ---------------------------------------------------------------------------------------
// Shared helpers

/// Puts the JSON of `value` into `v`'s fields under `key`.
fn field<T: serde::Serialize>(v: &mut Vendor, key: &str, value: &Option<T>) {
    if let Some(x) = value {
        v.set_field(F, key, wire_types::to_value(x));
    }
}

/// Takes a vendor field back into its typed form; a value that does not fit stays in
/// `fields` (and is written as it was).
fn take<T: DeserializeOwned>(fields: &mut Map<String, Value>, key: &str) -> Option<T> {
    let value = fields.shift_remove(key)?;
    match serde_json::from_value(value.clone()) {
        Ok(t) => Some(t),
        Err(_) => {
            fields.insert(key.to_owned(), value);
            None
        }
    }
}

/// An `Extra` from the fields left after the known ones were taken, with the explicit
/// nulls (hint `hint`) of `v` marked again.
fn rest(
    fields: Map<String, Value>,
    v: &Vendor,
    hint: &str,
    known: &'static [&'static str],
) -> Extra {
    let mut extra = Extra::from(fields);
    if let Some(Value::Array(nulls)) = v.hint(F, hint) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = known.iter().find(|f| **f == n) {
                extra.mark_null(f);
            }
        }
    }
    extra
}

fn meta_vendor(
    extra: &Extra,
    annotations: &Option<w::Annotations>,
    meta: &Option<Map<String, Value>>,
) -> PartMeta {
    let mut v = vendor_from_extra(F, extra, &[]);
    field(&mut v, "annotations", annotations);
    field(&mut v, "_meta", meta);
    PartMeta {
        vendor: v,
        ..Default::default()
    }
}

fn fnv1a(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Whether a name keeps to MCP's naming rule: 1–128 of `[A-Za-z0-9._-]`.
pub fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A name that keeps to MCP's rule, derived deterministically from `name` (itself when it
/// already does).
pub fn mcp_name(name: &str) -> String {
    if valid_name(name) {
        return name.to_owned();
    }
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push_str("tool");
    }
    if out.len() > 128 {
        out.truncate(119);
        out = format!("{out}_{:08x}", fnv1a(name));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Tools

/// Reads an MCP tool definition. Errors point into the tool (`/name`).
pub fn decode_tool(t: w::Tool, ctx: &mut Ctx<'_>) -> Result<ToolDef, Error> {
    decode_tool_at(t, "", ctx)
}

fn decode_tool_at(t: w::Tool, at: &str, _ctx: &mut Ctx<'_>) -> Result<ToolDef, Error> {
    if t.name.is_empty() {
        return Err(Error::invalid(
            format!("{at}/name"),
            "a tool without a name",
        ));
    }
    let mut v = vendor_from_extra(F, &t.extra, &[]);
    field(&mut v, "title", &t.title);
    field(&mut v, "annotations", &t.annotations);
    field(&mut v, "execution", &t.execution);
    field(&mut v, "icons", &t.icons);
    field(&mut v, "_meta", &t.meta);
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

/// Writes a tool definition as an MCP tool. Losses point into the neutral tool (`/name`,
/// `/input_schema`, …).
pub fn encode_tool(def: ToolDef, ctx: &mut Ctx<'_>) -> w::Tool {
    encode_tool_at(def, "", None, ctx)
}

/// An object schema with `"type": "object"` first, and whether it had to be added or
/// replaced.
fn with_object_type(mut m: Map<String, Value>) -> (Map<String, Value>, bool) {
    if m.get("type").and_then(Value::as_str) == Some("object") {
        return (m, false);
    }
    m.shift_remove("type");
    let mut out = Map::with_capacity(m.len() + 1);
    out.insert("type".into(), Value::String("object".into()));
    out.extend(m);
    (out, true)
}

/// `used`: the names taken so far in a list; a rewritten name is kept apart from them.
fn encode_tool_at(
    def: ToolDef,
    at: &str,
    used: Option<&mut HashSet<String>>,
    ctx: &mut Ctx<'_>,
) -> w::Tool {
    let mut fields = ctx.vendor_fields(&def.vendor, at);
    let mut name = mcp_name(&def.name);
    if name != def.name {
        if let Some(used) = used {
            let base = name.clone();
            let mut n = 2;
            while used.contains(&name) {
                name = mcp_name(&format!("{base}_{n}"));
                n += 1;
            }
            used.insert(name.clone());
        }
        ctx.loss(
            format!("{at}/name"),
            LossKind::Changed,
            format!(
                "tool name `{}` breaks MCP's naming rule (1-128 of [A-Za-z0-9._-]): written as `{name}`",
                def.name
            ),
        );
    }
    let input_schema = match def.input_schema {
        None => {
            let mut m = Map::new();
            m.insert("type".into(), Value::String("object".into()));
            m
        }
        Some(s) => {
            let s = match def.dialect {
                Dialect::GeminiOpenapi => schema::from_gemini(&s),
                Dialect::JsonSchema => s,
            };
            let s = match schema::wrap_non_object(&s) {
                Some(wrapped) => {
                    ctx.loss(
                        format!("{at}/input_schema"),
                        LossKind::Changed,
                        "a non-object input schema is exposed as {\"input\": <schema>}",
                    );
                    wrapped
                }
                None => s,
            };
            match s {
                Value::Object(m) => {
                    let (m, added) = with_object_type(m);
                    if added {
                        ctx.loss(
                            format!("{at}/input_schema/type"),
                            LossKind::Changed,
                            "MCP input schemas declare \"type\": \"object\": added",
                        );
                    }
                    m
                }
                // `true` (any value): an object schema without constraints.
                _ => with_object_type(Map::new()).0,
            }
        }
    };
    let output_schema = match def.output_schema {
        None => None,
        Some(Value::Object(m)) if m.get("type").is_none_or(|t| t.as_str() == Some("object")) => {
            let (m, added) = with_object_type(m);
            if added {
                ctx.loss(
                    format!("{at}/output_schema/type"),
                    LossKind::Changed,
                    "MCP output schemas declare \"type\": \"object\": added",
                );
            }
            Some(m)
        }
        Some(_) => {
            ctx.loss(
                format!("{at}/output_schema"),
                LossKind::Dropped,
                "MCP output schemas describe an object; this one does not",
            );
            None
        }
    };
    if def.strict.is_some() {
        ctx.loss(
            format!("{at}/strict"),
            LossKind::Dropped,
            "MCP tools have no strict flag",
        );
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "MCP has no cache marker",
        );
    }
    let title = take(&mut fields, "title");
    let annotations = take(&mut fields, "annotations");
    let execution = take(&mut fields, "execution");
    let icons = take(&mut fields, "icons");
    let meta = take(&mut fields, "_meta");
    w::Tool {
        name,
        title,
        description: def.description,
        input_schema,
        output_schema,
        annotations,
        execution,
        icons,
        meta,
        extra: rest(fields, &def.vendor, "nulls", w::Tool::FIELDS),
    }
}

/// Reads one page of `tools/list`. Errors point into the result (`/tools/1/name`).
pub fn decode_tools_list(l: w::ListToolsResult, ctx: &mut Ctx<'_>) -> Result<ToolsPage, Error> {
    let mut tools = Vec::with_capacity(l.tools.len());
    for (k, t) in l.tools.into_iter().enumerate() {
        tools.push(Tool::Function(decode_tool_at(
            t,
            &format!("/tools/{k}"),
            ctx,
        )?));
    }
    let mut vendor = vendor_from_extra(F, &l.extra, &[]);
    field(&mut vendor, "_meta", &l.meta);
    Ok(ToolsPage {
        tools,
        next_cursor: l.next_cursor,
        vendor,
    })
}

/// Writes tools as one page of `tools/list`. Tools only another format knows (hosted
/// tools) are dropped with a loss; rewritten names are kept unique.
pub fn encode_tools_list(page: ToolsPage, ctx: &mut Ctx<'_>) -> w::ListToolsResult {
    let mut fields = ctx.vendor_fields(&page.vendor, "");
    let mut used: HashSet<String> = page
        .tools
        .iter()
        .filter_map(|t| match t {
            Tool::Function(d) if valid_name(&d.name) => Some(d.name.clone()),
            _ => None,
        })
        .collect();
    let mut tools = Vec::with_capacity(page.tools.len());
    for (k, t) in page.tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => tools.push(encode_tool_at(def, &at, Some(&mut used), ctx)),
            Tool::Opaque(o) => ctx.loss(
                at,
                LossKind::Dropped,
                format!(
                    "{} tool {} has no equivalent in MCP",
                    o.format,
                    o.value
                        .get("type")
                        .or(o.value.get("name"))
                        .cloned()
                        .unwrap_or(Value::Null)
                ),
            ),
        }
    }
    let meta = take(&mut fields, "_meta");
    w::ListToolsResult {
        tools,
        next_cursor: page.next_cursor,
        meta,
        extra: rest(fields, &page.vendor, "nulls", w::ListToolsResult::FIELDS),
    }
}

// ---------------------------------------------------------------------------------------
// Calls

/// Reads `tools/call` params as a tool call with id `call_id` (the JSON-RPC request id, or
/// one the caller makes). Errors point into the params (`/name`).
pub fn decode_call(
    p: w::CallToolParams,
    call_id: &str,
    _ctx: &mut Ctx<'_>,
) -> Result<ToolCall, Error> {
    if p.name.is_empty() {
        return Err(Error::invalid("/name", "a call without a tool name"));
    }
    let mut v = vendor_from_extra(F, &p.extra, &[]);
    field(&mut v, "_meta", &p.meta);
    field(&mut v, "task", &p.task);
    let arguments = match p.arguments {
        Some(m) => Value::Object(m),
        None => {
            v.set_hint(F, "no_arguments", true);
            Value::Object(Map::new())
        }
    };
    Ok(ToolCall {
        id: call_id.to_owned(),
        synthetic_id: false,
        name: p.name,
        arguments: Arguments::Value(arguments),
        meta: PartMeta {
            vendor: v,
            ..Default::default()
        },
    })
}

/// Writes a tool call as `tools/call` params (its id goes in the JSON-RPC envelope).
pub fn encode_call(c: ToolCall, ctx: &mut Ctx<'_>) -> w::CallToolParams {
    let v = &c.meta.vendor;
    let mut fields = ctx.vendor_fields(v, "");
    part_extras(&c.meta, "", ctx);
    let value = match c.arguments {
        Arguments::Value(x) => Ok(x),
        Arguments::Text(t) if t.trim().is_empty() => Ok(Value::Null),
        Arguments::Text(t) => serde_json::from_str::<Value>(&t).map_err(|_| t),
    };
    let arguments = match value {
        Err(text) => {
            ctx.loss(
                "/arguments",
                LossKind::Changed,
                "the arguments are not valid JSON: sent as {\"invalid_json\": <text>} (MCP takes an object)",
            );
            let mut m = Map::new();
            m.insert("invalid_json".into(), Value::String(text));
            Some(m)
        }
        Ok(Value::Object(m)) if m.is_empty() && v.flag(F, "no_arguments") => None,
        Ok(Value::Object(m)) => Some(m),
        Ok(Value::Null) => None,
        Ok(other) => {
            ctx.loss(
                "/arguments",
                LossKind::Changed,
                "the arguments are not a JSON object: sent as {\"value\": …} (MCP takes an object)",
            );
            let mut m = Map::new();
            m.insert("value".into(), other);
            Some(m)
        }
    };
    let meta = take(&mut fields, "_meta");
    let task = take(&mut fields, "task");
    w::CallToolParams {
        name: c.name,
        arguments,
        meta,
        task,
        extra: rest(fields, v, "nulls", w::CallToolParams::FIELDS),
    }
}

/// Reports a cache marker or signature on a part (MCP has neither).
fn part_extras(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    if meta.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "MCP has no cache marker",
        );
    }
    let _ = ctx.own(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
}

// ---------------------------------------------------------------------------------------
// Results

/// Reads a `CallToolResult` as the result of call `call_id` of tool `name`. Errors point
/// into the result.
pub fn decode_result(
    r: w::CallToolResult,
    call_id: &str,
    name: Option<&str>,
    ctx: &mut Ctx<'_>,
) -> Result<ToolResult, Error> {
    if call_id.is_empty() {
        return Err(Error::invalid(
            "",
            "a tool result needs the id of the call it answers",
        ));
    }
    let mut meta = PartMeta {
        vendor: vendor_from_extra(F, &r.extra, &[]),
        ..Default::default()
    };
    field(&mut meta.vendor, "_meta", &r.meta);
    let is_error = match r.is_error {
        Some(true) => true,
        Some(false) => {
            meta.vendor.set_hint(F, "is_error_false", true);
            false
        }
        None => false,
    };
    let mut content: Vec<Part> = r
        .content
        .into_iter()
        .map(|b| decode_block(b, ctx))
        .collect();
    if let Some(s) = r.structured_content {
        let mut v = Vendor::default();
        v.set_hint(F, "structured", true);
        content.push(Part::Json(Json {
            value: Value::Object(s),
            meta: PartMeta {
                vendor: v,
                ..Default::default()
            },
        }));
    }
    Ok(ToolResult {
        call_id: call_id.to_owned(),
        name: name.map(str::to_owned),
        content,
        is_error,
        meta,
    })
}

fn decode_block(b: w::ContentBlock, ctx: &mut Ctx<'_>) -> Part {
    match b {
        w::ContentBlock::Text(t) => Part::Text(Text {
            meta: meta_vendor(&t.extra, &t.annotations, &t.meta),
            text: t.text,
        }),
        w::ContentBlock::Image(m) => Part::Image(media_content(m)),
        w::ContentBlock::Audio(m) => Part::Audio(media_content(m)),
        w::ContentBlock::ResourceLink(l) => {
            let mut meta = meta_vendor(&l.extra, &l.annotations, &l.meta);
            field(&mut meta.vendor, "title", &l.title);
            field(&mut meta.vendor, "description", &l.description);
            field(&mut meta.vendor, "size", &l.size);
            field(&mut meta.vendor, "icons", &l.icons);
            Part::Document(Media {
                source: Source::Url { url: l.uri },
                media_type: l.mime_type,
                name: Some(l.name),
                meta,
            })
        }
        w::ContentBlock::Resource(e) if e.resource.text.is_some() != e.resource.blob.is_some() => {
            let mut meta = meta_vendor(&e.extra, &e.annotations, &e.meta);
            let c = e.resource;
            for (k, val) in c.extra.fields() {
                meta.vendor
                    .set_field(F, &format!("resource.{k}"), val.clone());
            }
            if !c.extra.nulls().is_empty() {
                let nulls: Vec<Value> = c.extra.nulls().iter().map(|n| Value::from(*n)).collect();
                meta.vendor.set_hint(F, "nulls.resource", nulls);
            }
            field(&mut meta.vendor, "resource._meta", &c.meta);
            let media = |source, meta| Media {
                source,
                media_type: c.mime_type.clone(),
                name: Some(c.uri.clone()),
                meta,
            };
            match (c.text.clone(), c.blob.clone()) {
                (Some(text), _) => Part::Document(media(Source::Text { text }, meta)),
                (None, Some(data)) => {
                    let kind = c
                        .mime_type
                        .as_deref()
                        .map(str::to_ascii_lowercase)
                        .unwrap_or_default();
                    if kind.starts_with("image/") || kind.starts_with("audio/") {
                        meta.vendor.set_hint(F, "resource", true);
                    }
                    let m = media(Source::Base64 { data }, meta);
                    if kind.starts_with("image/") {
                        Part::Image(m)
                    } else if kind.starts_with("audio/") {
                        Part::Audio(m)
                    } else {
                        Part::Document(m)
                    }
                }
                // Excluded by the guard.
                (None, None) => Part::Document(media(
                    Source::Text {
                        text: String::new(),
                    },
                    meta,
                )),
            }
        }
        other => Part::Opaque(model::Opaque {
            format: ctx.format,
            value: wire_types::to_value(&other),
            meta: PartMeta::default(),
        }),
    }
}

fn media_content(m: w::MediaContent) -> Media {
    Media {
        source: Source::Base64 { data: m.data },
        media_type: Some(m.mime_type),
        name: None,
        meta: meta_vendor(&m.extra, &m.annotations, &m.meta),
    }
}

/// Writes a neutral tool result as a `CallToolResult`. Losses point into the result
/// (`/content/2`, `/is_error`).
pub fn encode_result(r: ToolResult, ctx: &mut Ctx<'_>) -> w::CallToolResult {
    let mut fields = ctx.vendor_fields(&r.meta.vendor, "");
    part_extras(&r.meta, "", ctx);
    let mut content = Vec::with_capacity(r.content.len());
    let mut structured: Option<Map<String, Value>> = None;
    for (k, p) in r.content.into_iter().enumerate() {
        let at = format!("/content/{k}");
        part_extras(p.meta(), &at, ctx);
        match p {
            Part::Text(t) => content.push(text_block(t.text, &t.meta.vendor, &at, ctx)),
            Part::Refusal(t) => {
                ctx.loss(
                    at.clone(),
                    LossKind::Changed,
                    "MCP has no refusal block: sent as text",
                );
                content.push(text_block(t.text, &t.meta.vendor, &at, ctx));
            }
            Part::Json(j) => {
                let own = j.meta.vendor.flag(F, "structured");
                let _ = ctx.vendor_fields(&j.meta.vendor, &at);
                match j.value {
                    Value::Object(m) if structured.is_none() => {
                        if !own {
                            content.push(plain_text(Value::Object(m.clone()).to_string()));
                        }
                        structured = Some(m);
                    }
                    other => {
                        ctx.loss(
                            at,
                            LossKind::Changed,
                            "MCP has one structured result, an object: this JSON part is sent as its JSON text",
                        );
                        content.push(plain_text(other.to_string()));
                    }
                }
            }
            Part::Image(m) | Part::Audio(m)
                if matches!(m.source, Source::Base64 { .. })
                    && m.meta.vendor.flag(F, "resource") =>
            {
                content.extend(resource(m, k, &at, ctx));
            }
            Part::Image(m) => content.extend(media_block(m, true, k, &at, ctx)),
            Part::Audio(m) => content.extend(media_block(m, false, k, &at, ctx)),
            Part::Document(m) => content.extend(resource(m, k, &at, ctx)),
            Part::Opaque(o) if o.format == F => match serde_json::from_value(o.value) {
                Ok(b) => content.push(b),
                Err(e) => ctx.loss(
                    at,
                    LossKind::Dropped,
                    format!("not an MCP content block: {e}"),
                ),
            },
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &at) {
                    content.push(plain_text(t.text));
                }
            }
            other => ctx.loss(
                at,
                LossKind::Dropped,
                format!("a {} part has no place in an MCP tool result", other.kind()),
            ),
        }
    }
    let is_error = if r.is_error {
        Some(true)
    } else if r.meta.vendor.flag(F, "is_error_false") {
        Some(false)
    } else {
        None
    };
    let meta = take(&mut fields, "_meta");
    w::CallToolResult {
        content,
        structured_content: structured,
        is_error,
        meta,
        extra: rest(fields, &r.meta.vendor, "nulls", w::CallToolResult::FIELDS),
    }
}

fn plain_text(text: String) -> w::ContentBlock {
    w::ContentBlock::Text(w::TextContent {
        text,
        annotations: None,
        meta: None,
        extra: Extra::new(),
    })
}

fn text_block(text: String, v: &Vendor, at: &str, ctx: &mut Ctx<'_>) -> w::ContentBlock {
    let mut fields = ctx.vendor_fields(v, at);
    w::ContentBlock::Text(w::TextContent {
        text,
        annotations: take(&mut fields, "annotations"),
        meta: take(&mut fields, "_meta"),
        extra: rest(fields, v, "nulls", w::TextContent::FIELDS),
    })
}

/// A media type for bytes without one: from their magic number, else
/// `application/octet-stream` (a loss).
fn media_type_for(m: &Media, at: &str, ctx: &mut Ctx<'_>) -> String {
    if let Some(t) = &m.media_type {
        return t.clone();
    }
    let sniffed = match &m.source {
        Source::Base64 { data } => crate::bedrock::sniff_image(data)
            .map(|f| format!("image/{f}"))
            .or_else(|| {
                data.starts_with("JVBERi0")
                    .then(|| "application/pdf".to_owned())
            }),
        _ => None,
    };
    sniffed.unwrap_or_else(|| {
        ctx.loss(
            format!("{at}/media_type"),
            LossKind::Changed,
            "MCP needs a MIME type and the source has none: `application/octet-stream` written",
        );
        "application/octet-stream".to_owned()
    })
}

/// An image or audio block; by URL, a resource link.
fn media_block(
    m: Media,
    image: bool,
    k: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::ContentBlock> {
    if !matches!(m.source, Source::Base64 { .. }) {
        if matches!(m.source, Source::Url { .. }) {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!(
                    "MCP {} blocks carry bytes: this one by URL is sent as a resource link",
                    if image { "image" } else { "audio" }
                ),
            );
        }
        return resource(m, k, at, ctx);
    }
    let mime_type = media_type_for(&m, at, ctx);
    let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
    if m.name.is_some() {
        ctx.loss(
            format!("{at}/name"),
            LossKind::Dropped,
            format!(
                "MCP {} blocks have no name",
                if image { "image" } else { "audio" }
            ),
        );
    }
    let data = match m.source {
        Source::Base64 { data } => data,
        _ => String::new(),
    };
    let block = w::MediaContent {
        data,
        mime_type,
        annotations: take(&mut fields, "annotations"),
        meta: take(&mut fields, "_meta"),
        extra: rest(fields, &m.meta.vendor, "nulls", w::MediaContent::FIELDS),
    };
    Some(if image {
        w::ContentBlock::Image(block)
    } else {
        w::ContentBlock::Audio(block)
    })
}

/// The URI of an embedded resource: the name when it is an absolute URI, else
/// `attachment:<name>` (`attachment:document-<k>` without a name).
fn resource_uri(name: Option<&str>, k: usize) -> String {
    match name {
        Some(n) if is_absolute_uri(n) => n.to_owned(),
        Some(n) => format!("attachment:{n}"),
        None => format!("attachment:document-{k}"),
    }
}

fn is_absolute_uri(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, _)) => {
            let mut chars = scheme.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// A document (or media by URL, or an embedded blob) as a resource link or an embedded
/// resource.
fn resource(m: Media, k: usize, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentBlock> {
    let v = &m.meta.vendor;
    match m.source {
        Source::Url { url } => {
            let mut fields = ctx.vendor_fields(v, at);
            let name = m.name.unwrap_or_else(|| {
                url.trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .filter(|s| !s.is_empty())
                    .unwrap_or(&url)
                    .to_owned()
            });
            Some(w::ContentBlock::ResourceLink(w::ResourceLink {
                uri: url,
                name,
                title: take(&mut fields, "title"),
                description: take(&mut fields, "description"),
                mime_type: m.media_type,
                size: take(&mut fields, "size"),
                icons: take(&mut fields, "icons"),
                annotations: take(&mut fields, "annotations"),
                meta: take(&mut fields, "_meta"),
                extra: rest(fields, v, "nulls", w::ResourceLink::FIELDS),
            }))
        }
        Source::FileId { file_id } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("MCP has no file ids (`{file_id}`) and nothing is fetched"),
            );
            None
        }
        source => {
            let uri = resource_uri(m.name.as_deref(), k);
            let (text, blob, mime_type) = match source {
                Source::Text { text } => (Some(text), None, m.media_type.clone()),
                Source::Base64 { data } => {
                    let probe = Media {
                        source: Source::Base64 { data },
                        media_type: m.media_type.clone(),
                        name: None,
                        meta: PartMeta::default(),
                    };
                    let t = media_type_for(&probe, at, ctx);
                    let data = match probe.source {
                        Source::Base64 { data } => data,
                        _ => String::new(),
                    };
                    (None, Some(data), Some(t))
                }
                _ => (None, None, None),
            };
            let mut fields = ctx.vendor_fields(v, at);
            let prefix = "resource.";
            let keys: Vec<String> = fields
                .keys()
                .filter(|k| k.starts_with(prefix) && k.as_str() != "resource._meta")
                .cloned()
                .collect();
            let mut inner = Map::new();
            for key in keys {
                if let Some(val) = fields.shift_remove(&key) {
                    inner.insert(key[prefix.len()..].to_owned(), val);
                }
            }
            let contents = w::ResourceContents {
                uri,
                mime_type,
                text,
                blob,
                meta: take(&mut fields, "resource._meta"),
                extra: rest(inner, v, "nulls.resource", w::ResourceContents::FIELDS),
            };
            Some(w::ContentBlock::Resource(w::EmbeddedResource {
                resource: contents,
                annotations: take(&mut fields, "annotations"),
                meta: take(&mut fields, "_meta"),
                extra: rest(fields, v, "nulls", w::EmbeddedResource::FIELDS),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;
    use crate::model::{Message, Role};
    use serde_json::json;

    fn ctx(opts: &Options) -> Ctx<'_> {
        Ctx::new(F, opts)
    }

    fn read<T: DeserializeOwned>(text: &str) -> (T, Value) {
        let v: Value = serde_json::from_str(text).unwrap();
        (wire_types::from_value(&v).unwrap(), v)
    }

    /// Schema errors of an MCP value (`tools`: the `tools` array; else a call result).
    fn conformance(tools: bool, value: &Value) -> Vec<String> {
        let schema: Value = serde_json::from_str(if tools {
            include_str!("../../../fixtures/conformance/mcp.tools.schema.json")
        } else {
            include_str!("../../../fixtures/conformance/mcp.call-result.schema.json")
        })
        .unwrap();
        let v = jsonschema::validator_for(&schema).unwrap();
        v.iter_errors(value).map(|e| e.to_string()).collect()
    }

    const RESULTS: [&str; 4] = [
        include_str!("../../../fixtures/mcp/result/handmade-text.json"),
        include_str!("../../../fixtures/mcp/result/handmade-structured.json"),
        include_str!("../../../fixtures/mcp/result/handmade-error.json"),
        include_str!("../../../fixtures/mcp/result/handmade-mixed-content.json"),
    ];

    #[test]
    fn tools_list_round_trips_exactly() {
        let opts = Options::default();
        let (list, json) = read::<w::ListToolsResult>(include_str!(
            "../../../fixtures/mcp/tools-list/handmade-two-tools.json"
        ));
        let mut c = ctx(&opts);
        let page = decode_tools_list(list, &mut c).unwrap();
        let Tool::Function(weather) = &page.tools[0] else {
            panic!("a function tool")
        };
        assert_eq!(weather.name, "get_weather");
        assert_eq!(
            weather.output_schema.as_ref().unwrap()["required"][2],
            "humidity"
        );
        assert_eq!(
            weather.vendor.fields["title"],
            "Weather Information Provider"
        );
        assert_eq!(weather.vendor.fields["annotations"]["readOnlyHint"], true);
        assert_eq!(page.next_cursor.as_deref(), Some("eyJwYWdlIjoyfQ=="));
        let back = encode_tools_list(page, &mut c);
        assert!(c.losses().is_empty(), "{:?}", c.losses());
        assert_eq!(wire_types::to_value(&back), json);
        assert_eq!(conformance(true, &json["tools"]), Vec::<String>::new());
    }

    #[test]
    fn results_round_trip_exactly() {
        let opts = Options::default();
        for text in RESULTS {
            let (r, json) = read::<w::CallToolResult>(text);
            let mut c = ctx(&opts);
            let n = decode_result(r, "call_1", Some("get_weather"), &mut c).unwrap();
            let back = encode_result(n, &mut c);
            assert!(c.losses().is_empty(), "{:?}", c.losses());
            assert_eq!(wire_types::to_value(&back), json);
            assert_eq!(conformance(false, &json), Vec::<String>::new());
        }
    }

    #[test]
    fn calls_round_trip_exactly() {
        let opts = Options::default();
        for text in [
            include_str!("../../../fixtures/mcp/call/handmade-get-weather.json"),
            include_str!("../../../fixtures/mcp/call/handmade-task.json"),
        ] {
            let (p, json) = read::<w::CallToolParams>(text);
            let mut c = ctx(&opts);
            let call = decode_call(p, "7", &mut c).unwrap();
            assert_eq!(call.id, "7");
            let back = encode_call(call, &mut c);
            assert!(c.losses().is_empty());
            assert_eq!(wire_types::to_value(&back), json);
        }
    }

    #[test]
    fn result_blocks_decode_to_the_expected_parts() {
        let opts = Options::default();
        let (r, _) = read::<w::CallToolResult>(RESULTS[3]);
        let n = decode_result(r, "c", None, &mut ctx(&opts)).unwrap();
        let kinds: Vec<(&str, Option<&str>)> = n
            .content
            .iter()
            .map(|p| {
                let name = match p {
                    Part::Image(m) | Part::Audio(m) | Part::Document(m) => m.name.as_deref(),
                    _ => None,
                };
                (p.kind(), name)
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("text", None),
                ("image", None),
                ("document", Some("nyc-7day.csv")),
                ("document", Some("file:///project/forecast/summary.md")),
                ("image", Some("file:///project/forecast/radar.gif")),
                ("audio", None),
                ("document", Some("file:///project/src/main.rs")),
            ]
        );
        let (r, _) = read::<w::CallToolResult>(RESULTS[1]);
        let n = decode_result(r, "c", None, &mut ctx(&opts)).unwrap();
        assert!(matches!(&n.content[1], Part::Json(j) if j.value["humidity"] == 65));
        let (r, _) = read::<w::CallToolResult>(RESULTS[2]);
        assert!(
            decode_result(r, "c", None, &mut ctx(&opts))
                .unwrap()
                .is_error
        );
    }

    #[test]
    fn a_neutral_result_is_written_as_mcp() {
        let opts = Options::default();
        let mut c = ctx(&opts);
        let r = ToolResult {
            call_id: "call_1".into(),
            name: Some("report".into()),
            content: vec![
                Part::Json(Json {
                    value: json!({"ok": false}),
                    meta: PartMeta::default(),
                }),
                Part::Json(Json {
                    value: json!([1, 2]),
                    meta: PartMeta::default(),
                }),
                Part::Image(Media {
                    source: Source::Base64 {
                        data: "iVBORw0KGgoAAAANSUhEUg==".into(),
                    },
                    media_type: None,
                    name: None,
                    meta: PartMeta::default(),
                }),
                Part::Image(Media {
                    source: Source::Url {
                        url: "https://example.com/a/chart.png".into(),
                    },
                    media_type: Some("image/png".into()),
                    name: None,
                    meta: PartMeta::default(),
                }),
                Part::Document(Media {
                    source: Source::Base64 {
                        data: "JVBERi0xLjQK".into(),
                    },
                    media_type: Some("application/pdf".into()),
                    name: Some("report.pdf".into()),
                    meta: PartMeta::default(),
                }),
                Part::Document(Media {
                    source: Source::Text {
                        text: "plain notes".into(),
                    },
                    media_type: None,
                    name: None,
                    meta: PartMeta::default(),
                }),
            ],
            is_error: true,
            meta: PartMeta::default(),
        };
        let out = wire_types::to_value(&encode_result(r, &mut c));
        assert_eq!(
            out,
            json!({
                "content": [
                    {"type": "text", "text": "{\"ok\":false}"},
                    {"type": "text", "text": "[1,2]"},
                    {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"},
                    {"type": "resource_link", "uri": "https://example.com/a/chart.png", "name": "chart.png", "mimeType": "image/png"},
                    {"type": "resource", "resource": {"uri": "attachment:report.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjQK"}},
                    {"type": "resource", "resource": {"uri": "attachment:document-5", "text": "plain notes"}}
                ],
                "structuredContent": {"ok": false},
                "isError": true
            })
        );
        assert_eq!(conformance(false, &out), Vec::<String>::new());
        let paths: Vec<&str> = c.losses().iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["/content/1", "/content/3"]);
    }

    #[test]
    fn tools_from_other_formats_are_made_valid() {
        let opts = Options::default();
        let mut c = ctx(&opts);
        let mut odd = ToolDef::new("get weather!", "Weather", json!({"type": "array"}));
        odd.strict = Some(true);
        let mut open = ToolDef::new(
            "get_weather_",
            "Same name once fixed",
            json!({"properties": {"x": {"type": "string"}}}),
        );
        open.vendor
            .set_field(Format::OpenaiChat, "x-extra", json!(1));
        let bare = ToolDef {
            input_schema: None,
            ..ToolDef::new("now", "Current time", Value::Null)
        };
        let page = ToolsPage {
            tools: vec![
                Tool::Function(open),
                Tool::Function(odd),
                Tool::Function(bare),
            ],
            ..Default::default()
        };
        let out = wire_types::to_value(&encode_tools_list(page, &mut c));
        assert_eq!(
            out,
            json!({"tools": [
                {"name": "get_weather_", "description": "Same name once fixed", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
                {"name": "get_weather__2", "description": "Weather", "inputSchema": {"type": "object", "properties": {"input": {"type": "array"}}, "required": ["input"]}},
                {"name": "now", "description": "Current time", "inputSchema": {"type": "object"}}
            ]})
        );
        assert_eq!(conformance(true, &out["tools"]), Vec::<String>::new());
        let paths: Vec<&str> = c.losses().iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/tools/0/x-extra",
                "/tools/0/input_schema/type",
                "/tools/1/name",
                "/tools/1/input_schema",
                "/tools/1/strict",
            ]
        );
        assert_eq!(mcp_name(&"x".repeat(200)).len(), 128);
        assert_eq!(mcp_name(""), "tool");
    }

    #[test]
    fn mcp_tools_and_results_travel_to_bedrock() {
        let opts = Options::default();
        let (list, _) = read::<w::ListToolsResult>(include_str!(
            "../../../fixtures/mcp/tools-list/handmade-two-tools.json"
        ));
        let page = decode_tools_list(list, &mut ctx(&opts)).unwrap();
        let (r, _) = read::<w::CallToolResult>(RESULTS[1]);
        let result = decode_result(r, "call_1", Some("get_weather"), &mut ctx(&opts)).unwrap();
        let req = model::Request {
            messages: vec![
                Message::text(Role::User, "Weather in New York?"),
                Message::new(
                    Role::Assistant,
                    vec![Part::ToolCall(ToolCall {
                        id: "call_1".into(),
                        synthetic_id: false,
                        name: "get_weather".into(),
                        arguments: Arguments::Value(json!({"location": "New York"})),
                        meta: PartMeta::default(),
                    })],
                ),
                Message::new(Role::Tool, vec![Part::ToolResult(result)]),
            ],
            tools: page.tools,
            ..Default::default()
        };
        let out = crate::encode_request(req, Format::Bedrock, &opts).unwrap();
        let b = out.value;
        assert_eq!(
            b["messages"][2]["content"][0]["toolResult"]["content"][1],
            json!({"json": {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}})
        );
        assert_eq!(
            b["toolConfig"]["tools"][1]["toolSpec"]["name"],
            "files.delete"
        );
        // MCP-only tool fields are reported, each at its place.
        let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert!(paths.contains(&"/tools/0/title"));
        assert!(paths.contains(&"/tools/0/output_schema"));
        assert!(paths.contains(&"/tools/1/execution"));
    }
}
