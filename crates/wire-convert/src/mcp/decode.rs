//! Reading calls (`tools/call` params) and results (`CallToolResult`) into the neutral
//! model.

use super::F;
use super::hints::{IS_ERROR_FALSE, NO_ARGUMENTS, RESOURCE, RESOURCE_NULLS, STRUCTURED};
use crate::model::{
    Arguments, Json, Media, Part, PartMeta, Source, Text, ToolCall, ToolResult, Vendor,
};
use crate::util::opaque;
use crate::vendor::keep_fields;
use crate::{Ctx, Error};
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::mcp as w;

/// Reads `tools/call` params as a tool call with id `call_id` (the JSON-RPC request id, or
/// one the caller makes). Errors point into the params (`/name`).
pub(crate) fn decode_call(
    p: w::CallToolParams,
    call_id: &str,
    _ctx: &mut Ctx<'_>,
) -> Result<ToolCall, Error> {
    if p.name.is_empty() {
        return Err(Error::invalid("/name", "a call without a tool name"));
    }
    let mut v = Vendor::from_extra(F, &p.extra, &[]);
    v.keep(F, "_meta", &p.meta);
    v.keep(F, "task", &p.task);
    let arguments = match p.arguments {
        Some(m) => Value::Object(m),
        None => {
            v.set_hint(F, NO_ARGUMENTS, true);
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

/// Reads a `CallToolResult` as the result of call `call_id` of tool `name`. Errors point
/// into the result.
pub(crate) fn decode_result(
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
        vendor: Vendor::from_extra(F, &r.extra, &[]),
        ..Default::default()
    };
    meta.vendor.keep(F, "_meta", &r.meta);
    let is_error = match r.is_error {
        Some(true) => true,
        Some(false) => {
            meta.vendor.set_hint(F, IS_ERROR_FALSE, true);
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
        v.set_hint(F, STRUCTURED, true);
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

/// A content block as a part; a block kind the neutral model lacks is kept whole.
fn decode_block(b: w::ContentBlock, ctx: &mut Ctx<'_>) -> Part {
    match b {
        w::ContentBlock::Text(t) => Part::Text(Text {
            meta: block_meta(&t.extra, &t.annotations, &t.meta),
            text: t.text,
        }),
        w::ContentBlock::Image(m) => Part::Image(media_content(m)),
        w::ContentBlock::Audio(m) => Part::Audio(media_content(m)),
        w::ContentBlock::ResourceLink(l) => {
            let mut meta = block_meta(&l.extra, &l.annotations, &l.meta);
            keep_fields!(meta.vendor, F, l; title, description, size, icons);
            Part::Document(Media {
                source: Source::Url { url: l.uri },
                media_type: l.mime_type,
                name: Some(l.name),
                meta,
            })
        }
        w::ContentBlock::Resource(e) if e.resource.text.is_some() != e.resource.blob.is_some() => {
            embedded_resource(e)
        }
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// An embedded resource holding text (a document) or a blob (an image, audio or a
/// document, by its MIME type).
fn embedded_resource(e: w::EmbeddedResource) -> Part {
    let mut meta = block_meta(&e.extra, &e.annotations, &e.meta);
    let c = e.resource;
    for (k, val) in c.extra.fields() {
        meta.vendor
            .set_field(F, &format!("resource.{k}"), val.clone());
    }
    if !c.extra.nulls().is_empty() {
        let nulls: Vec<Value> = c.extra.nulls().iter().map(|n| Value::from(*n)).collect();
        meta.vendor.set_hint(F, RESOURCE_NULLS, nulls);
    }
    meta.vendor.keep(F, "resource._meta", &c.meta);
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
                meta.vendor.set_hint(F, RESOURCE, true);
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
        // Excluded by the caller's guard (exactly one of `text` and `blob`).
        (None, None) => Part::Document(media(
            Source::Text {
                text: String::new(),
            },
            meta,
        )),
    }
}

/// An image or audio block: base64 with its MIME type.
fn media_content(m: w::MediaContent) -> Media {
    Media {
        source: Source::Base64 { data: m.data },
        media_type: Some(m.mime_type),
        name: None,
        meta: block_meta(&m.extra, &m.annotations, &m.meta),
    }
}

/// The meta of a block: its unknown fields, `annotations` and `_meta` as vendor fields.
fn block_meta(
    extra: &Extra,
    annotations: &Option<w::Annotations>,
    meta: &Option<Map<String, Value>>,
) -> PartMeta {
    let mut v = Vendor::from_extra(F, extra, &[]);
    v.keep(F, "annotations", annotations);
    v.keep(F, "_meta", meta);
    PartMeta {
        vendor: v,
        ..Default::default()
    }
}
