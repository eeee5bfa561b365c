//! Small helpers every format module uses.

use crate::model::{Opaque, Part, PartMeta, Text};
use crate::{Ctx, LossKind, OpaqueMode};
use serde::Serialize;
use serde_json::{Map, Value};

/// Splits a `data:<media type>;base64,<data>` URL into its media type and base64 data.
pub(crate) fn parse_data_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    Some((media_type.to_owned(), data.to_owned()))
}

/// Rewrites `buf` to `args`: a pointer built in a buffer reused across the items of a
/// loop, instead of a fresh `String` per item (the hot path of long transcripts).
pub(crate) fn set_path(buf: &mut String, args: std::fmt::Arguments<'_>) {
    use std::fmt::Write;
    buf.clear();
    let _ = buf.write_fmt(args);
}

/// Builds a `data:` URL.
pub(crate) fn data_url(media_type: Option<&str>, data: &str) -> String {
    format!(
        "data:{};base64,{data}",
        media_type.unwrap_or("application/octet-stream")
    )
}

/// Puts the JSON of `value` into `fields` under `key` (for wire fields that have no
/// neutral equivalent).
pub(crate) fn keep<T: Serialize>(fields: &mut Map<String, Value>, key: &str, value: &Option<T>) {
    if let Some(v) = value {
        fields.insert(key.to_owned(), wire_types::to_value(v));
    }
}

/// What an opaque part becomes in a format that does not understand it: with
/// [`OpaqueMode::AsText`] and a `text` field, that text as a text part (a `changed`
/// loss); otherwise nothing (a `dropped` loss). Parts without text (server-tool blocks,
/// hosted-tool items) are never dumped as JSON into the conversation.
pub(crate) fn opaque_elsewhere(ctx: &mut Ctx<'_>, opaque: &Opaque, at: &str) -> Option<Part> {
    let kind = opaque
        .value
        .get("type")
        .and_then(Value::as_str)
        .map(|t| format!("`{t}` "))
        .unwrap_or_default();
    let text = opaque.value.get("text").and_then(Value::as_str);
    match (ctx.options.opaque, text) {
        (OpaqueMode::AsText, Some(text)) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!(
                    "{} part {kind}has no equivalent in {}; its text is sent as a text part",
                    opaque.format, ctx.format
                ),
            );
            Some(Part::Text(Text {
                text: text.to_owned(),
                meta: PartMeta::default(),
            }))
        }
        _ => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!(
                    "{} part {kind}has no equivalent in {}",
                    opaque.format, ctx.format
                ),
            );
            None
        }
    }
}

/// An opaque part of `ctx.format` holding `value` whole.
pub(crate) fn opaque(ctx: &Ctx<'_>, value: Value) -> Part {
    Part::Opaque(Opaque {
        format: ctx.format,
        value,
        meta: PartMeta::default(),
    })
}

/// An effort level for a reasoning token budget (for formats that take levels only).
pub(crate) fn budget_to_effort(budget: i64) -> &'static str {
    match budget {
        i64::MIN..=0 => "none",
        1..=2048 => "low",
        2049..=8192 => "medium",
        _ => "high",
    }
}

/// A reasoning token budget for an effort level (for formats that take budgets only).
#[allow(dead_code)] // used by the budget-only formats' encoders
pub(crate) fn effort_to_budget(effort: &str) -> Option<i64> {
    match effort {
        "none" => Some(0),
        "minimal" => Some(1024),
        "low" => Some(2048),
        "medium" => Some(8192),
        "high" => Some(16384),
        "xhigh" | "max" => Some(32768),
        _ => None,
    }
}

/// Reports a cache marker the target cannot carry.
pub(crate) fn drop_cache(ctx: &mut Ctx<'_>, meta: &PartMeta, at: &str) {
    if meta.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            format!("{} has no cache marker", ctx.format),
        );
    }
}
