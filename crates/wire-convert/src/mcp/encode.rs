//! Writing calls (`tools/call` params) and results (`CallToolResult`) from the neutral
//! model.

use super::F;
use super::hints::{IS_ERROR_FALSE, NO_ARGUMENTS, RESOURCE, RESOURCE_NULLS, STRUCTURED};
use crate::ctx::extra_from;
use crate::model::{Media, Part, Source, ToolCall, ToolResult, Vendor};
use crate::util::{drop_cache_and_signature, opaque_elsewhere};
use crate::vendor::Fields;
use crate::{Ctx, LossCode, media, passes};
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::mcp as w;

/// Writes a tool call as `tools/call` params (its id goes in the JSON-RPC envelope).
pub(crate) fn encode_call(c: ToolCall, ctx: &mut Ctx<'_>) -> w::CallToolParams {
    let v = &c.meta.vendor;
    let mut fields = ctx.vendor_fields(v, "");
    drop_cache_and_signature(&c.meta, "", ctx);
    let arguments = passes::object_arguments(c.arguments, "", ctx);
    // `{}` from a call that had no `arguments` leaves them out again.
    let arguments =
        (!(arguments.is_empty() && v.flag(F, NO_ARGUMENTS))).then(|| arguments.into_map());
    w::CallToolParams {
        name: c.name,
        arguments,
        meta: fields.take_as("_meta"),
        task: fields.take_as("task"),
        extra: extra_from(fields, v, w::CallToolParams::FIELDS, "", ctx),
    }
}

/// Writes a neutral tool result as a `CallToolResult`. Losses point into the result
/// (`/content/2`, `/is_error`).
pub(crate) fn encode_result(r: ToolResult, ctx: &mut Ctx<'_>) -> w::CallToolResult {
    let mut fields = ctx.vendor_fields(&r.meta.vendor, "");
    drop_cache_and_signature(&r.meta, "", ctx);
    let mut content = Vec::with_capacity(r.content.len());
    let mut structured: Option<Map<String, Value>> = None;
    for (k, p) in r.content.into_iter().enumerate() {
        let at = format!("/content/{k}");
        drop_cache_and_signature(p.meta(), &at, ctx);
        match p {
            Part::Text(t) => content.push(text_block(t.text, &t.meta.vendor, &at, ctx)),
            Part::Refusal(t) => {
                ctx.changed(
                    LossCode::PartAsText,
                    at.clone(),
                    "MCP has no refusal block: sent as text",
                );
                content.push(text_block(t.text, &t.meta.vendor, &at, ctx));
            }
            Part::Json(j) => {
                let own = j.meta.vendor.flag(F, STRUCTURED);
                ctx.report_foreign_fields(&j.meta.vendor, &at);
                match j.value {
                    Value::Object(m) if structured.is_none() => {
                        if !own {
                            content.push(plain_text(Value::Object(m.clone()).to_string()));
                        }
                        structured = Some(m);
                    }
                    other => {
                        ctx.changed(
                            LossCode::PartAsText,
                            at,
                            "MCP has one structured result, an object: this JSON part is sent as its JSON text",
                        );
                        content.push(plain_text(other.to_string()));
                    }
                }
            }
            Part::Image(m) | Part::Audio(m)
                if matches!(m.source, Source::Base64 { .. }) && m.meta.vendor.flag(F, RESOURCE) =>
            {
                content.extend(resource(m, k, &at, ctx));
            }
            Part::Image(m) => content.extend(media_block(m, true, k, &at, ctx)),
            Part::Audio(m) => content.extend(media_block(m, false, k, &at, ctx)),
            Part::Document(m) => content.extend(resource(m, k, &at, ctx)),
            Part::Opaque(o) if o.format == F => match serde_json::from_value(o.value) {
                Ok(b) => content.push(b),
                Err(e) => ctx.dropped(
                    LossCode::PartUnsupported,
                    at,
                    format!("not an MCP content block: {e}"),
                ),
            },
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &at) {
                    content.push(plain_text(t.text));
                }
            }
            other => {
                let code = match other {
                    Part::Reasoning(_) => LossCode::ReasoningDropped,
                    _ => LossCode::PartUnsupported,
                };
                ctx.dropped(
                    code,
                    at,
                    format!("a {} part has no place in an MCP tool result", other.kind()),
                );
            }
        }
    }
    let is_error = if r.is_error {
        Some(true)
    } else if r.meta.vendor.flag(F, IS_ERROR_FALSE) {
        Some(false)
    } else {
        None
    };
    w::CallToolResult {
        content,
        structured_content: structured,
        is_error,
        meta: fields.take_as("_meta"),
        extra: extra_from(fields, &r.meta.vendor, w::CallToolResult::FIELDS, "", ctx),
    }
}

/// A text block with nothing but its text.
fn plain_text(text: String) -> w::ContentBlock {
    w::ContentBlock::Text(w::TextContent {
        text,
        annotations: None,
        meta: None,
        extra: Extra::new(),
    })
}

/// A text block, with what MCP kept of it in `v`.
fn text_block(text: String, v: &Vendor, at: &str, ctx: &mut Ctx<'_>) -> w::ContentBlock {
    let mut fields = ctx.vendor_fields(v, at);
    w::ContentBlock::Text(w::TextContent {
        text,
        annotations: fields.take_as("annotations"),
        meta: fields.take_as("_meta"),
        extra: extra_from(fields, v, w::TextContent::FIELDS, at, ctx),
    })
}

/// A media type for bytes without one: from their magic number, else
/// `application/octet-stream` (a loss).
fn media_type_for(media_type: Option<&str>, data: &str, at: &str, ctx: &mut Ctx<'_>) -> String {
    if let Some(t) = media_type {
        return t.to_owned();
    }
    let sniffed = media::sniff_image(data).or_else(|| media::sniff_pdf(data));
    match sniffed {
        Some(t) => t.to_owned(),
        None => {
            ctx.changed(
                LossCode::PartChanged,
                format!("{at}/media_type"),
                "MCP needs a MIME type and the source has none: `application/octet-stream` written",
            );
            "application/octet-stream".to_owned()
        }
    }
}

/// An image or audio block; by URL, a resource link.
fn media_block(
    m: Media,
    image: bool,
    k: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::ContentBlock> {
    let what = if image { "image" } else { "audio" };
    let data = match m.source {
        Source::Base64 { data } => data,
        source => {
            if matches!(source, Source::Url { .. }) {
                ctx.changed(
                    LossCode::PartChanged,
                    at,
                    format!(
                        "MCP {what} blocks carry bytes: this one by URL is sent as a resource link"
                    ),
                );
            }
            return resource(Media { source, ..m }, k, at, ctx);
        }
    };
    let mime_type = media_type_for(m.media_type.as_deref(), &data, at, ctx);
    let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
    if m.name.is_some() {
        ctx.dropped(
            LossCode::PartChanged,
            format!("{at}/name"),
            format!("MCP {what} blocks have no name"),
        );
    }
    let block = w::MediaContent {
        data,
        mime_type,
        annotations: fields.take_as("annotations"),
        meta: fields.take_as("_meta"),
        extra: extra_from(fields, &m.meta.vendor, w::MediaContent::FIELDS, at, ctx),
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

/// Whether `s` starts with a URI scheme (`file:`, `https:`, `urn:`).
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
    let (text, blob, mime_type) = match m.source {
        Source::Url { url } => return Some(resource_link(url, m.name, m.media_type, v, at, ctx)),
        Source::FileId { file_id } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at,
                format!("MCP has no file ids (`{file_id}`) and nothing is fetched"),
            );
            return None;
        }
        Source::Text { text } => (Some(text), None, m.media_type.clone()),
        Source::Base64 { data } => {
            let t = media_type_for(m.media_type.as_deref(), &data, at, ctx);
            (None, Some(data), Some(t))
        }
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
    let inner = ctx.unknown_only(inner, w::ResourceContents::FIELDS, (at, "/resource"));
    let mut inner = Extra::from(inner);
    if let Some(Value::Array(nulls)) = v.hint(F, RESOURCE_NULLS) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = w::ResourceContents::FIELDS.iter().find(|f| **f == n) {
                inner.mark_null(f);
            }
        }
    }
    let contents = w::ResourceContents {
        uri: resource_uri(m.name.as_deref(), k),
        mime_type,
        text,
        blob,
        meta: fields.take_as("resource._meta"),
        extra: inner,
    };
    Some(w::ContentBlock::Resource(w::EmbeddedResource {
        resource: contents,
        annotations: fields.take_as("annotations"),
        meta: fields.take_as("_meta"),
        extra: extra_from(fields, v, w::EmbeddedResource::FIELDS, at, ctx),
    }))
}

/// A resource link to `url` (its name, when the part has none, the URL's last segment).
fn resource_link(
    url: String,
    name: Option<String>,
    mime_type: Option<String>,
    v: &Vendor,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> w::ContentBlock {
    let mut fields = ctx.vendor_fields(v, at);
    let name = name.unwrap_or_else(|| {
        url.trim_end_matches('/')
            .rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(&url)
            .to_owned()
    });
    w::ContentBlock::ResourceLink(w::ResourceLink {
        uri: url,
        name,
        title: fields.take_as("title"),
        description: fields.take_as("description"),
        mime_type,
        size: fields.take_as("size"),
        icons: fields.take_as("icons"),
        annotations: fields.take_as("annotations"),
        meta: fields.take_as("_meta"),
        extra: extra_from(fields, v, w::ResourceLink::FIELDS, at, ctx),
    })
}
