//! Small helpers every format module uses: the conversion rules several formats share
//! (here), arguments ([`args`]), item pointers ([`paths`]), small lookup structures
//! ([`small`]) and date-times ([`time`]).

mod args;
mod paths;
mod small;
#[cfg(test)]
mod tests;
mod time;

pub(crate) use args::{args_of, raw_object, read_arguments, write_arguments};
pub(crate) use paths::{ItemPaths, push_index, set_path};
pub(crate) use small::{AsciiSet, SmallMap};
pub(crate) use time::{read_timestamp, rfc3339_of_unix};

use crate::model::{Opaque, Part, PartMeta, Reasoning, Text, ToolResult, Vendor};
use crate::{Ctx, Format, LossCode, OpaqueMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wire_types::{Extra, TextOrParts};

/// Puts the JSON of `value` into `fields` under `key` (for wire fields that have no
/// neutral equivalent).
pub(crate) fn keep<T: Serialize>(
    fields: &mut impl Extend<(String, Value)>,
    key: &str,
    value: &Option<T>,
) {
    if let Some(v) = value {
        fields.extend([(key.to_owned(), wire_types::to_value(v))]);
    }
}

/// Keys of an opaque part whose values are tokens only their own provider may read
/// (signatures, encrypted payloads): never written into another format's conversation,
/// not even as text.
const SECRET_KEYS: &[&str] = &[
    "signature",
    "thoughtSignature",
    "thought_signature",
    "encrypted_content",
    "encrypted_index",
    "encrypted_stdout",
];

/// `value` without the [`SECRET_KEYS`] (at any depth); whether any was removed.
fn without_secrets(value: &Value) -> (Value, bool) {
    match value {
        Value::Object(m) => {
            let mut removed = false;
            let mut out = serde_json::Map::with_capacity(m.len());
            for (k, v) in m {
                if SECRET_KEYS.contains(&k.as_str()) {
                    removed = true;
                    continue;
                }
                let (v, r) = without_secrets(v);
                removed |= r;
                out.insert(k.clone(), v);
            }
            (Value::Object(out), removed)
        }
        Value::Array(a) => {
            let mut removed = false;
            let out = a
                .iter()
                .map(|v| {
                    let (v, r) = without_secrets(v);
                    removed |= r;
                    v
                })
                .collect();
            (Value::Array(out), removed)
        }
        other => (other.clone(), false),
    }
}

/// What an opaque part becomes in a format that does not understand it. With
/// [`OpaqueMode::AsText`]: a hosted tool's call or result (web search, code execution) as
/// its readable text ([`crate::passes::builtin::hosted_text`]); any other part's `text`
/// field, if it has one, as a text part; otherwise the
/// part itself as its compact JSON text, without the signatures and encrypted payloads in
/// it (those are only ever sent to the format that made them); a `changed` loss either
/// way. With [`OpaqueMode::Drop`]: nothing (a `dropped` loss).
pub(crate) fn opaque_elsewhere(ctx: &mut Ctx<'_>, opaque: &Opaque, at: &str) -> Option<Part> {
    let kind = opaque
        .value
        .get("type")
        .and_then(Value::as_str)
        .map(|t| format!("`{t}` "))
        .unwrap_or_default();
    if ctx.options.opaque == OpaqueMode::Drop {
        ctx.dropped(
            LossCode::PartUnsupported,
            at.to_owned(),
            format!(
                "{} part {kind}has no equivalent in {}",
                opaque.format, ctx.format
            ),
        );
        return None;
    }
    let hosted = crate::passes::builtin::hosted_text(opaque);
    let (text, how) = match (hosted, opaque.value.get("text").and_then(Value::as_str)) {
        (Some(text), _) => (
            text,
            "the hosted call or result is sent as its text (code, output, query, sources)",
        ),
        (None, Some(text)) => (text.to_owned(), "its text is sent as a text part"),
        (None, None) => {
            let (value, removed) = without_secrets(&opaque.value);
            let how = if removed {
                "it is sent as its JSON text, without its signatures and encrypted payloads"
            } else {
                "it is sent as its JSON text"
            };
            (value.to_string(), how)
        }
    };
    ctx.changed(
        LossCode::PartAsText,
        at.to_owned(),
        format!(
            "{} part {kind}has no equivalent in {}; {how}",
            opaque.format, ctx.format
        ),
    );
    Some(Part::Text(Text {
        text,
        meta: PartMeta::default(),
    }))
}

/// An opaque part of `ctx.format` holding `value` whole.
pub(crate) fn opaque(ctx: &Ctx<'_>, value: Value) -> Part {
    Part::Opaque(Opaque {
        format: ctx.format,
        value,
        meta: PartMeta::default(),
    })
}

/// Reports a cache marker the target cannot carry.
pub(crate) fn drop_cache(ctx: &mut Ctx<'_>, meta: &PartMeta, at: &str) {
    if meta.cache.is_some() {
        ctx.dropped(
            LossCode::CacheUnsupported,
            format!("{at}/cache"),
            format!("{} has no cache marker", ctx.format),
        );
    }
}

/// The index of the neutral tool message a decoded result joins: the one at the end of
/// `messages`, or a new one (mapped to `at`, the wire message the result came from) when
/// the last message is not a tool message. Consecutive results make one tool message.
pub(crate) fn tool_message(
    messages: &mut Vec<crate::model::Message>,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> usize {
    use crate::model::{Message, Role};
    if messages.last().is_none_or(|m| m.role != Role::Tool) {
        ctx.map(("/messages/", messages.len()), at);
        messages.push(Message::new(Role::Tool, Vec::new()));
    }
    messages.len() - 1
}

/// Reports a part's cache marker and signature, for a target that has a place for
/// neither (Cohere, Mistral, OpenAI Chat and Responses, Ollama, MCP).
pub(crate) fn drop_cache_and_signature(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    drop_cache(ctx, meta, at);
    ctx.report_unplaced_token(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
}

/// Reports a part other than a tool result in a neutral tool message, which the target
/// (a format whose tool messages hold results only) drops.
pub(crate) fn drop_tool_message_part(
    part: &Part,
    at: impl AsRef<str> + Into<String>,
    ctx: &mut Ctx<'_>,
) {
    let detail = format!(
        "a {} part in a tool message has no place in {}",
        part.kind(),
        ctx.format
    );
    ctx.dropped(LossCode::PartUnsupported, at, detail);
}

/// Puts the fields of `extra` into `v` as fields of `format` under `prefix`
/// (`num_ctx` → `options.num_ctx`), in their order; [`take_prefixed`] takes them back.
pub(crate) fn put_prefixed(v: &mut Vendor, format: Format, prefix: &str, extra: &Extra) {
    for (key, value) in extra.fields() {
        v.set_field(format, &format!("{prefix}{key}"), value.clone());
    }
}

/// Takes the fields whose key starts with `prefix` out of `fields`, keyed without it
/// (`options.num_ctx` → `num_ctx`), in their order.
pub(crate) fn take_prefixed(
    fields: &mut serde_json::Map<String, Value>,
    prefix: &str,
) -> serde_json::Map<String, Value> {
    let keys: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with(prefix))
        .cloned()
        .collect();
    let mut out = serde_json::Map::new();
    for k in keys {
        if let Some(val) = fields.shift_remove(&k) {
            out.insert(k[prefix.len()..].to_owned(), val);
        }
    }
    out
}

/// Whether `p` (at `at`) is left out of a message's content items: a text part with no
/// text and nothing of the target's own on it (a Gemini signature-only part, say) is not
/// sent as an empty item, unless the items are the target's own (`own`), written back as
/// they came. What a part left out carries is reported (its cache marker, signature and
/// another format's fields).
pub(crate) fn skip_empty_text(p: &Part, own: bool, at: &str, ctx: &mut Ctx<'_>) -> bool {
    let empty = matches!(p, Part::Text(t) if t.text.is_empty()
        && t.meta.vendor.fields_for(ctx.format).is_none_or(crate::model::VendorMap::is_empty));
    if own || !empty {
        return false;
    }
    drop_cache_and_signature(p.meta(), at, ctx);
    ctx.report_foreign_fields(&p.meta().vendor, at);
    true
}

/// A message's content as a format with a string form and an item list writes it: none
/// when no item is left (the empty string when only empty text was, `empty`), one plain
/// text item as the string (unless the source used items, `own`), else the items.
/// `plain` gives an item's text when it is a text with nothing more on it.
pub(crate) fn text_or_items<T>(
    mut items: Vec<T>,
    empty: bool,
    own: bool,
    plain: impl FnOnce(T) -> Result<String, T>,
) -> Option<TextOrParts<T>> {
    if items.is_empty() {
        return empty.then(|| TextOrParts::Text(String::new()));
    }
    if !own && items.len() == 1 {
        if let Some(only) = items.pop() {
            match plain(only) {
                Ok(text) => return Some(TextOrParts::Text(text)),
                Err(only) => items.push(only),
            }
        }
    }
    Some(TextOrParts::Parts(items))
}

/// A content item of a format whose content is a string or a list of items (Cohere,
/// Mistral), as the encoders' shared rules need it.
pub(crate) trait TextItem: Sized {
    /// A text item with nothing but `text`.
    fn text(text: String) -> Self;
    /// The item's text, when it is a text item.
    fn text_mut(&mut self) -> Option<&mut String>;
    /// The item's text when it is a text with nothing more on it; else the item back.
    fn plain(self) -> Result<String, Self>;
}

/// Implements [`TextItem`] for the item enum `$item` whose text variant `$text` holds a
/// struct of a `text` and its `extra` fields; `$make` makes a text item.
macro_rules! text_item {
    ($item:ty, $text:path, $make:path) => {
        impl $crate::util::TextItem for $item {
            fn text(text: String) -> Self {
                $make(text)
            }

            fn text_mut(&mut self) -> Option<&mut String> {
                match self {
                    $text(t) => Some(&mut t.text),
                    _ => None,
                }
            }

            fn plain(self) -> Result<String, Self> {
                match self {
                    $text(t) if t.extra.is_empty() => Ok(t.text),
                    other => Err(other),
                }
            }
        }
    };
}
pub(crate) use text_item;

/// Where content goes in a format whose messages take different parts by role (Cohere,
/// Mistral).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A system (or developer) message.
    System,
    /// A user message.
    User,
    /// An assistant turn.
    Assistant,
    /// A tool result.
    Tool,
}

impl Place {
    /// The role whose content this is, as loss texts name it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Place::System => "system",
            Place::User => "user",
            Place::Assistant => "assistant",
            Place::Tool => "tool",
        }
    }
}

/// Encodes parts (with their neutral indices, under the message at `at`) as content
/// items, by `item` (`None`: the part is left out, its loss reported): an empty text part
/// is skipped ([`skip_empty_text`]; `own`: the items are the target's own, written back
/// as they came), and the items written as [`text_or_items`] says.
pub(crate) fn encode_items<T: TextItem>(
    parts: Vec<(usize, Part)>,
    own: bool,
    at: &str,
    ctx: &mut Ctx<'_>,
    mut item: impl FnMut(Part, &str, &mut Ctx<'_>) -> Option<T>,
) -> Option<TextOrParts<T>> {
    let mut empty = false;
    let mut out = Vec::with_capacity(parts.len());
    for (j, p) in parts {
        let pat = format!("{at}/content/{j}");
        if skip_empty_text(&p, own, &pat, ctx) {
            empty = true;
            continue;
        }
        if let Some(enc) = item(p, &pat, ctx) {
            out.push(enc);
        }
    }
    text_or_items(out, empty, own, T::plain)
}

/// The results of the neutral tool message at `at`, for a target whose tool messages hold
/// results only: each is given to `result` with its pointer; any other part is dropped
/// ([`drop_tool_message_part`]).
pub(crate) fn tool_results(
    content: Vec<Part>,
    at: &str,
    ctx: &mut Ctx<'_>,
    mut result: impl FnMut(ToolResult, &str, &mut Ctx<'_>),
) {
    let mut pat = ctx.buf();
    for (j, p) in content.into_iter().enumerate() {
        set_path(&mut pat, at, "content", j);
        match p {
            Part::ToolResult(r) => result(r, &pat, ctx),
            other => drop_tool_message_part(&other, pat.clone(), ctx),
        }
    }
    ctx.give_back(pat);
}

/// The text of a refusal part (at `at`), for a target without refusals: a `changed`
/// loss; another format's fields on it are reported.
pub(crate) fn refusal_as_text(t: Text, at: &str, ctx: &mut Ctx<'_>) -> String {
    ctx.report_foreign_fields(&t.meta.vendor, at);
    let detail = format!("{} has no refusal: it is sent as text", ctx.format);
    ctx.changed(LossCode::PartAsText, at.to_owned(), detail);
    t.text
}

/// Reports the name of an image (at `at`), for a target whose images have none.
pub(crate) fn drop_image_name(name: Option<&str>, at: &str, ctx: &mut Ctx<'_>) {
    if let Some(name) = name {
        let detail = format!("{} images have no name (`{name}`)", ctx.format);
        ctx.dropped(LossCode::PartChanged, format!("{at}/name"), detail);
    }
}

/// The plain thinking text a target that takes reasoning as one string (Cohere, Mistral,
/// Ollama) writes for a reasoning part of another format: its text; without one, its
/// summaries joined by a blank line (a `changed` loss at `at/summary`); with neither,
/// nothing (a `dropped` loss). `None` also where [`Ctx::reasoning`] lets nothing through.
pub(crate) fn reasoning_text(r: &Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<String> {
    let view = ctx.reasoning(r, at)?;
    match view.text.filter(|t| !t.is_empty()) {
        Some(t) => Some(t.to_owned()),
        None if !view.summary.is_empty() => {
            let detail = format!(
                "{} has no reasoning summary: the summary is sent as thinking",
                ctx.format
            );
            ctx.changed(LossCode::PartChanged, format!("{at}/summary"), detail);
            Some(view.summary.join("\n\n"))
        }
        None => {
            let detail = format!("reasoning without text has no place in {}", ctx.format);
            ctx.dropped(LossCode::ReasoningDropped, at.to_owned(), detail);
            None
        }
    }
}

/// A text part read from a wire text item of `format` (`extra`: the item's unknown
/// members).
pub(crate) fn text_part(format: Format, text: String, extra: &Extra) -> Part {
    Part::Text(Text {
        text,
        meta: PartMeta::from_extra(format, extra),
    })
}

/// The image part of an OpenAI-style `image_url` item of `format` (OpenAI Chat, Mistral,
/// Cohere, whose `image_url` object is one shared wire type; `extra`: the item's unknown
/// members, then the object's).
pub(crate) fn image_of_url(
    format: Format,
    image_url: wire_types::openai_chat::ImageUrl,
    extra: &Extra,
) -> Part {
    let mut meta = PartMeta::from_extra(format, extra);
    meta.vendor
        .merge(Vendor::from_extra(format, &image_url.extra, &[]));
    image_part(format, image_url.url, image_url.detail, meta)
}

/// The image part of an image URL of `format`: its source and media type read from the
/// URL, its `detail` kept as the vendor field that [`shared_image_detail`] gives the
/// other formats that spell it alike.
pub(crate) fn image_part(
    format: Format,
    url: String,
    detail: Option<String>,
    mut meta: PartMeta,
) -> Part {
    if let Some(d) = detail {
        meta.vendor.set_field(format, "detail", Value::String(d));
    }
    let (source, media_type) = crate::media::source_of_url(url);
    Part::Image(crate::model::Media {
        source,
        media_type,
        name: None,
        meta,
    })
}

/// The image `detail` (`auto`, `low`, `high`) that OpenAI Chat, Mistral and Cohere all
/// spell the same way and keep as a vendor field (the neutral model has no place for
/// it), taken from another of the three for `target`, and the vendor record without it.
/// The target's own `detail` stays in the record, as its other fields do.
pub(crate) fn shared_image_detail(v: &Vendor, target: Format) -> (Option<String>, Vendor) {
    let shared = matches!(
        v.format,
        Some(Format::OpenaiChat | Format::Mistral | Format::Cohere)
    );
    match v.fields.get("detail").and_then(Value::as_str) {
        Some(d) if shared && v.format != Some(target) => {
            let mut rest = v.clone();
            rest.fields.shift_remove("detail");
            (Some(d.to_owned()), rest)
        }
        _ => (None, v.clone()),
    }
}

/// Reports a tool call or result among the content parts of a message that is neither
/// an assistant nor a tool message, which the target drops.
pub(crate) fn drop_misplaced_call(at: &str, ctx: &mut Ctx<'_>) {
    ctx.dropped(
        LossCode::PartUnsupported,
        at.to_owned(),
        "a tool call or result outside an assistant or tool message",
    );
}

/// An opaque part as a content item of the target: the target's own item as it came
/// (`None` if it no longer reads as one), another format's as its text through
/// [`opaque_elsewhere`], made an item by `text`.
pub(crate) fn opaque_item<T: DeserializeOwned>(
    o: Opaque,
    at: &str,
    ctx: &mut Ctx<'_>,
    text: impl FnOnce(String) -> T,
) -> Option<T> {
    if o.format == ctx.format {
        return serde_json::from_value(o.value).ok();
    }
    match opaque_elsewhere(ctx, &o, at) {
        Some(Part::Text(t)) => Some(text(t.text)),
        _ => None,
    }
}
