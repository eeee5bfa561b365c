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

/// Keeps a wire value the neutral model cannot say whole, as the field `key` (its wire
/// name) of `format` in `v`, for the same format to write back and any other to report;
/// the neutral value is absent (`None`).
pub(crate) fn keep_whole<T>(
    v: &mut Vendor,
    format: Format,
    key: &str,
    value: &impl Serialize,
) -> Option<T> {
    v.set_field(format, key, wire_types::to_value(value));
    None
}

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

/// Reports the seed and penalties of `s`, for a target that has none of them: a
/// `dropped` loss each, at `/settings/<key>`, saying "`<target> has no <what>`" (the seed
/// named `seed`).
pub(crate) fn drop_seed_and_penalties(
    s: &crate::model::Settings,
    target: &str,
    seed: &str,
    ctx: &mut Ctx<'_>,
) {
    for (set, key, what) in [
        (s.seed.is_some(), "seed", seed),
        (
            s.presence_penalty.is_some(),
            "presence_penalty",
            "presence penalty",
        ),
        (
            s.frequency_penalty.is_some(),
            "frequency_penalty",
            "frequency penalty",
        ),
    ] {
        if set {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/settings/{key}"),
                format!("{target} has no {what}"),
            );
        }
    }
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

/// A request's model, which the target requires: the empty string, and a loss saying to
/// set it, when the source has none (it may be in the source's URL).
pub(crate) fn model_or_blank(model: Option<String>, ctx: &mut Ctx<'_>) -> String {
    model.unwrap_or_else(|| {
        model_missing(ctx);
        String::new()
    })
}

/// The loss of a request without a model, where the target requires one.
pub(crate) fn model_missing(ctx: &mut Ctx<'_>) {
    ctx.changed(
        LossCode::FieldDefaulted,
        "/model",
        "the source has no model (it may be in its URL); set `model` before sending",
    );
}

/// The loss of `parallel_tool_calls: false` (at `at`) for `format`, which has no such
/// switch.
pub(crate) fn no_parallel_switch(off: Option<bool>, at: &str, format: Format, ctx: &mut Ctx<'_>) {
    if off == Some(false) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            at.to_owned(),
            format!("{format} has no switch for parallel tool calls"),
        );
    }
}

/// Stop sequences as a format that takes a string or a list writes them: one sequence
/// as the string when the source wrote it so (`as_string`), else the list.
pub(crate) fn stop_sequences(
    stop: Option<Vec<String>>,
    as_string: bool,
) -> Option<TextOrParts<String>> {
    stop.map(|mut st| {
        if as_string && st.len() == 1 {
            TextOrParts::Text(st.remove(0))
        } else {
            TextOrParts::Parts(st)
        }
    })
}

/// Stop sequences as a format that takes a string or a list reads them: the string is one
/// sequence, with the `as_string` hint of `format` in `v` for [`stop_sequences`].
pub(crate) fn read_stop_sequences(
    stop: Option<TextOrParts<String>>,
    v: &mut Vendor,
    format: Format,
    as_string: &str,
) -> Option<Vec<String>> {
    stop.map(|st| match st {
        TextOrParts::Text(t) => {
            v.set_hint(format, as_string, true);
            vec![t]
        }
        TextOrParts::Parts(p) => p,
    })
}

/// Reports a `top_k` the target has no place for.
pub(crate) fn drop_top_k(top_k: Option<u64>, ctx: &mut Ctx<'_>) {
    if top_k.is_some() {
        let detail = format!("{} has no top_k", ctx.format);
        ctx.dropped(LossCode::FieldUnsupported, "/settings/top_k", detail);
    }
}

/// The name a target that requires one (OpenAI Chat and Responses, Mistral) gives an
/// output schema without a name.
pub(crate) fn schema_name(name: Option<String>) -> String {
    name.unwrap_or_else(|| "output".to_owned())
}

/// The schema of an output format that is one (`None` otherwise), for a target that
/// takes the bare schema (Cohere, Ollama): its name and a `strict: false` are losses
/// ([`drop_schema_name`], [`always_strict`]).
pub(crate) fn bare_schema(f: crate::model::OutputFormat, ctx: &mut Ctx<'_>) -> Option<Value> {
    match f {
        crate::model::OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => {
            drop_schema_name(name.as_deref(), ctx);
            always_strict(strict, ctx);
            Some(schema)
        }
        _ => None,
    }
}

/// Reports the name of an output schema, for a target whose output schemas have none.
pub(crate) fn drop_schema_name(name: Option<&str>, ctx: &mut Ctx<'_>) {
    if let Some(name) = name {
        let detail = format!("{} output schemas have no name (`{name}`)", ctx.format);
        ctx.dropped(LossCode::FieldUnsupported, "/output_format/name", detail);
    }
}

/// Reports an output schema that is not strict (`strict: false`), for a target that
/// always constrains the output to the schema (Cohere, Ollama).
pub(crate) fn always_strict(strict: Option<bool>, ctx: &mut Ctx<'_>) {
    if strict == Some(false) {
        let detail = format!("{} always constrains the output to the schema", ctx.format);
        ctx.changed(LossCode::SettingChanged, "/output_format/strict", detail);
    }
}

/// Reports reasoning settings that ask to hide the thinking (`include: false`, at
/// `at/include`), for a target that always returns the thinking of a `model` model.
pub(crate) fn thinking_always_returned(
    r: &crate::model::ReasoningConfig,
    model: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    if r.include == Some(false) {
        let detail = format!(
            "{} returns the thinking of a {model} model; it cannot be hidden",
            ctx.format
        );
        ctx.dropped(LossCode::FieldUnsupported, format!("{at}/include"), detail);
    }
}

/// The effort level a target that takes no token budget sends for `budget` tokens (the
/// nearest, [`budget_to_effort`]), with a `changed` loss at `at/budget_tokens`.
pub(crate) fn effort_for_budget(budget: i64, at: &str, ctx: &mut Ctx<'_>) -> &'static str {
    let e = budget_to_effort(budget);
    let detail = format!(
        "{} takes an effort level, not a token budget: {budget} tokens sent as `{e}`",
        ctx.format
    );
    ctx.changed(
        LossCode::SettingChanged,
        format!("{at}/budget_tokens"),
        detail,
    );
    e
}

/// The effort level of reasoning settings without one, for a target that takes levels
/// only (OpenAI Chat, Responses): `none` when reasoning is off, else the level nearest a
/// token budget ([`effort_for_budget`]); `None` when the settings say neither.
pub(crate) fn effort_off_or_budget(
    r: &crate::model::ReasoningConfig,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<wire_types::openai_chat::ReasoningEffort> {
    use wire_types::openai_chat::ReasoningEffort;
    if r.enabled == Some(false) {
        return Some(ReasoningEffort::None);
    }
    let b = r.budget_tokens?;
    Some(ReasoningEffort::from(effort_for_budget(b, at, ctx)))
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
