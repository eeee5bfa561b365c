//! Anthropic Messages ↔ the neutral model.
//!
//! * **System prompt.** The top-level `system` (a string or text blocks) decodes as one
//!   leading system message. On encode every leading system or developer message goes
//!   there (a string for one plain text, text blocks otherwise), and a system message later
//!   in the conversation is appended to it, in order, with a `moved` loss. A `system`-role
//!   message inside `messages` (SDK 2026) decodes with the `inline` hint and stays in place.
//! * **Turns.** A user message holding `tool_result` blocks decodes as a tool message (the
//!   results, in order) followed by a user message with the other blocks, if any. Encoding
//!   merges a tool message and the user message right after it into one user turn, results
//!   first: Anthropic's own shape, no loss. Other consecutive messages that become turns of
//!   one role are merged too, with a `changed` loss (a `moved` one when results are placed
//!   ahead of user content already in the turn). Empty text blocks are left out (the API
//!   rejects them); a message left with nothing is dropped with a loss.
//! * **Tool calls.** `input` must be an object: JSON text that parses to one is sent as
//!   that object; invalid JSON as `{"invalid_json": text}`, another JSON value as
//!   `{"value": v}`, `null` or empty text as `{}`, each with a `changed` loss. Calls to a
//!   tool whose schema had to be wrapped ([`schema::wrap_non_object`]) get `{"input": …}`.
//! * **Tool results.** Content is a string or text, image and document blocks; `is_error`
//!   is the error flag. JSON parts are sent as text holding the JSON (a `changed` loss).
//! * **Reasoning.** `thinking` ↔ text and signature, `redacted_thinking` ↔ encrypted
//!   payload, tagged with this format. Anthropic rejects thinking blocks it did not sign, so
//!   reasoning from another provider is dropped with a loss.
//! * **Media.** Image and document sources: base64, URL (a `data:` URL becomes base64),
//!   Files API id, plain text (base64 `text/*` documents are decoded into text sources).
//!   Images must be JPEG, PNG, GIF or WebP (sniffed from the bytes when the media type is
//!   unknown). No audio input: a loss.
//! * **Cache markers.** `cache_control` on blocks, system blocks and tools ↔ neutral
//!   `Cache` (ttl `5m`/`1h`); the top-level `cache_control` is a vendor field.
//! * **Settings.** `max_tokens` is required: when the source has none a default is
//!   written (4096, or the thinking budget plus 4096) with a `changed` loss at
//!   `/max_tokens`. `tool_choice` auto/any/tool/none ↔ tool choice, and
//!   `disable_parallel_tool_use` ↔ `parallel_tool_calls` (with no tool choice, `false`
//!   becomes `{"type":"auto","disable_parallel_tool_use":true}`). `thinking` ↔ reasoning
//!   settings (enabled + budget, adaptive, disabled; `display` ↔ `include`); an effort
//!   without a budget becomes a budget (`util::effort_to_budget`, a `changed` loss);
//!   `output_config.effort` ↔ effort, `output_config.format` ↔ a JSON-schema output
//!   format.
//! * **Thinking constraints.** With thinking on (enabled or adaptive) the API rejects
//!   three things, which the encoder repairs, each with a `changed` loss: a budget not
//!   below `max_tokens` (`max_tokens` is raised to the budget plus 1024, at
//!   `/settings/max_tokens`); a forced tool choice (`required`, one tool, or a required
//!   `allowed` set is sent as `auto`, thinking kept, at `/tool_choice`); and a
//!   conversation ending in an open tool loop (only tool results after the last assistant
//!   message, which calls tools) whose assistant message does not start with a thinking
//!   block this format signed (thinking is left out of the request, at
//!   `/settings/reasoning`). An Anthropic source that sent such a combination gets it back
//!   unchanged (hints `forced_thinking`, `budget_over_max`, `open_loop_thinking`).
//! * **Sampling and streaming.** The official request schema (SDK 2.14) describes the
//!   non-streaming body and has no `temperature`, `top_p` or `top_k`: `stream: true` and
//!   those settings go back to this format when it sent them, and are a loss from any
//!   other.
//! * **Responses.** The content blocks are one choice. `stop_reason` ↔ stop kind
//!   (`refusal` ↔ content filter, `pause_turn` ↔ pause, `model_context_window_exceeded` →
//!   max tokens); `stop_sequence` is a vendor field. Neutral input tokens count cache reads
//!   and writes, Anthropic's `input_tokens` does not: `input = neutral input − cached −
//!   cache writes` (saturating) and back.
//!
//! Hints (see [`Vendor`]) this module writes and reads: on messages `parts` (content was
//! blocks), `separate` (its own wire message where the encoder would merge it into the
//! previous turn), `inline` (a `system` message inside `messages`); on tool results
//! `parts` and `is_error_false`; on media `file` (an Anthropic Files API id); on tools
//! `custom_type` (`"type": "custom"`); on the request `effort` (the effort was
//! `output_config.effort`), `stream` (`stream: true`), `sampling` (which of
//! `temperature`, `top_p`, `top_k` it sent), `empty_tools` (`"tools": []`),
//! `forced_thinking`, `budget_over_max` and `open_loop_thinking` (the source sent thinking
//! with a forced tool choice, a budget not below `max_tokens`, an open tool loop without
//! thinking: written back as it was); on responses
//! `no_type`, `no_role`, `no_id`, `no_model`, `no_usage`; on usage `details`; and `nulls`
//! (explicit nulls) everywhere.

use crate::ctx::{extra_from, vendor_from_extra};
use crate::model::{
    self, Arguments, Cache, Choice, Dialect, Media, Message, Opaque, OutputFormat, Part, PartMeta,
    Reasoning, ReasoningConfig, Role, Settings, Signed, Source, StopKind, StopReason, Text, Tool,
    ToolCall, ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::util::{
    self, drop_cache, effort_to_budget, opaque, opaque_elsewhere, parse_data_url, set_path,
};
use crate::{Ctx, Error, LossKind, schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use wire_types::anthropic as w;
use wire_types::{Extra, Format, MaybeRaw, TextOrParts};

const F: Format = Format::Anthropic;

/// `max_tokens` written when the source has none.
const DEFAULT_MAX_TOKENS: u64 = 4096;

/// The image media types the Messages API takes.
const IMAGE_TYPES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

// ---------------------------------------------------------------------------------------
// Small helpers

/// Puts `value` into `v.fields` under `key` (and tags `v` with this format).
fn field<T: Serialize>(v: &mut Vendor, key: &str, value: &Option<T>) {
    if let Some(x) = value {
        v.set_field(F, key, wire_types::to_value(x));
    }
}

/// Takes a field written by this module's decoder back out of `fields`.
fn take<T: DeserializeOwned>(fields: &mut Map<String, Value>, key: &str) -> Option<T> {
    fields
        .shift_remove(key)
        .and_then(|v| serde_json::from_value(v).ok())
}

fn meta_of(extra: &Extra) -> PartMeta {
    PartMeta {
        vendor: vendor_from_extra(F, extra, &[]),
        ..Default::default()
    }
}

fn merge_vendor(into: &mut Vendor, from: Vendor) {
    if from.is_empty() {
        return;
    }
    into.format = from.format.or(into.format);
    into.fields.extend(from.fields);
    into.hints.extend(from.hints);
}

/// Reports what a part carries that no Anthropic block has: a signature on a
/// non-reasoning part (Gemini `thoughtSignature`).
fn part_checks(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    if let Some(sig) = &meta.signature {
        let path = format!("{at}/signature");
        if sig.format == F {
            ctx.loss(
                path,
                LossKind::Dropped,
                "anthropic carries signatures on thinking blocks only",
            );
        } else {
            let _ = ctx.own(Some(sig), format_args!("{path}"), "a reasoning signature");
        }
    }
}

/// A `cache_control` as a neutral cache marker, or (anything unusual) as a vendor field.
fn decode_cache(cc: Option<Box<w::CacheControl>>, cache: &mut Option<Cache>, vendor: &mut Vendor) {
    let Some(cc) = cc else { return };
    let plain = cc.kind == w::CacheType::Ephemeral
        && cc.extra.is_empty()
        && cc.ttl.as_ref().is_none_or(|t| t.is_known());
    if plain {
        *cache = Some(Cache {
            ttl: cc.ttl.map(|t| t.as_str().to_owned()),
        });
    } else {
        vendor.set_field(F, "cache_control", wire_types::to_value(&cc));
    }
}

/// The `cache_control` to write: this format's own (from `fields`) or the neutral marker.
fn encode_cache(
    cache: Option<Cache>,
    fields: &mut Map<String, Value>,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<Box<w::CacheControl>> {
    if let Some(cc) = take(fields, "cache_control") {
        return Some(Box::new(cc));
    }
    let c = cache?;
    let ttl = c.ttl.and_then(|t| {
        let ttl = w::CacheTtl::from(t.as_str());
        if ttl.is_known() {
            Some(ttl)
        } else {
            ctx.loss(
                format!("{at}/cache/ttl"),
                LossKind::Changed,
                format!("anthropic caches for 5m or 1h: ttl `{t}` left out (5m)"),
            );
            None
        }
    });
    Some(Box::new(w::CacheControl {
        kind: w::CacheType::Ephemeral,
        ttl,
        extra: Extra::new(),
    }))
}

/// Standard base64 (or URL-safe) to bytes; `None` on a character outside the alphabet.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let mut buf: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b'\r' | b'\n' | b' ' | b'\t' => continue,
            _ => return None,
        };
        buf = (buf << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The media type of base64 image bytes, from their first bytes.
fn sniff_image(data: &str) -> Option<&'static str> {
    [
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("R0lGOD", "image/gif"),
        ("UklGR", "image/webp"),
    ]
    .into_iter()
    .find(|(prefix, _)| data.starts_with(prefix))
    .map(|(_, t)| t)
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Where a block sits: which blocks the decoder reads as neutral parts there, and which
/// parts the encoder can write there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The top-level `system`, or a `system` message.
    System,
    /// A user turn.
    User,
    /// An assistant turn of a request.
    Assistant,
    /// The content of a `tool_result`.
    Nested,
    /// The content of a response.
    Response,
}

impl Place {
    fn describe(self) -> &'static str {
        match self {
            Place::System => "the system prompt",
            Place::User => "a user turn",
            Place::Assistant => "an assistant turn",
            Place::Nested => "a tool result",
            Place::Response => "a response",
        }
    }

    fn media(self) -> bool {
        matches!(self, Place::User | Place::Assistant | Place::Nested)
    }

    fn model(self) -> bool {
        matches!(self, Place::Assistant | Place::Response)
    }
}

/// The role of the wire message a neutral message becomes (`None`: the top-level system).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    User,
    Assistant,
    System,
}

fn turn_of(m: &Message) -> Option<Turn> {
    match m.role {
        Role::User | Role::Tool => Some(Turn::User),
        Role::Assistant => Some(Turn::Assistant),
        Role::System | Role::Developer => m.vendor.flag(F, "inline").then_some(Turn::System),
    }
}

/// Decodes a Messages request.
pub fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let w::Request {
        model,
        max_tokens,
        messages,
        system,
        tools,
        tool_choice,
        thinking,
        temperature,
        top_p,
        top_k,
        stop_sequences,
        stream,
        metadata,
        service_tier,
        output_config,
        cache_control,
        container,
        inference_geo,
        extra,
    } = req;
    let mut out = model::Request {
        model: Some(model),
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &extra, &[]);

    // Combinations the API rejects with thinking on: the encoder repairs them for other
    // formats, and writes them back unchanged when the source itself sent them.
    if matches!(
        thinking,
        Some(w::ThinkingConfig::Enabled(_) | w::ThinkingConfig::Adaptive(_))
    ) {
        if matches!(
            tool_choice,
            Some(w::ToolChoice::Any(_) | w::ToolChoice::Tool(_))
        ) {
            v.set_hint(F, "forced_thinking", true);
        }
        if let Some(w::ThinkingConfig::Enabled(e)) = &thinking {
            if e.budget_tokens >= max_tokens {
                v.set_hint(F, "budget_over_max", true);
            }
        }
        if open_loop_without_thinking(&messages) {
            v.set_hint(F, "open_loop_thinking", true);
        }
    }

    if let Some(system) = system {
        let mut msg = Message::new(Role::System, Vec::new());
        ctx.map("/messages/0", "/system");
        match system {
            TextOrParts::Text(s) => {
                ctx.map("/messages/0/content/0", "/system");
                msg.content.push(Part::text(s));
            }
            TextOrParts::Parts(blocks) => {
                msg.vendor.set_hint(F, "parts", true);
                for (j, b) in blocks.into_iter().enumerate() {
                    ctx.map(
                        format_args!("/messages/0/content/{j}"),
                        format_args!("/system/{j}"),
                    );
                    msg.content.push(decode_block(b, Place::System, ctx));
                }
            }
        }
        out.messages.push(msg);
    }

    let mut prev: Option<Turn> = None;
    let mut at_buf = String::new();
    for (i, m) in messages.into_iter().enumerate() {
        set_path(&mut at_buf, "", "messages", i);
        let at = at_buf.as_str();
        let first = out.messages.len();
        let w::Message {
            role,
            content,
            extra,
        } = m;
        match role {
            w::Role::User => decode_user(content, at, &mut out.messages, ctx),
            w::Role::Assistant => {
                let msg = decode_turn(Role::Assistant, content, Place::Assistant, first, at, ctx);
                out.messages.push(msg);
            }
            w::Role::System => {
                let mut msg = decode_turn(Role::System, content, Place::System, first, at, ctx);
                msg.vendor.set_hint(F, "inline", true);
                out.messages.push(msg);
            }
            other => {
                // `validate_request` refuses these before decoding; never panic on one.
                return Err(Error::invalid(
                    format!("{at}/role"),
                    format!("unknown role `{}`", other.as_str()),
                ));
            }
        }
        if let Some(msg) = out.messages.get_mut(first) {
            merge_vendor(&mut msg.vendor, vendor_from_extra(F, &extra, &[]));
            if prev.is_some() && turn_of(msg) == prev {
                msg.vendor.set_hint(F, "separate", true);
            }
        }
        prev = out.messages.last().and_then(turn_of);
    }

    if tools.as_ref().is_some_and(Vec::is_empty) {
        v.set_hint(F, "empty_tools", true);
    }
    for (k, t) in tools.into_iter().flatten().enumerate() {
        ctx.map(format_args!("/tools/{k}"), format_args!("/tools/{k}"));
        out.tools.push(decode_tool(t));
    }

    let mut s = Settings {
        max_tokens: Some(max_tokens),
        temperature,
        top_p,
        top_k,
        stop: stop_sequences,
        stream,
        ..Default::default()
    };
    for (neutral, source) in [
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("top_k", "top_k"),
        ("stop", "stop_sequences"),
        ("stream", "stream"),
    ] {
        ctx.map(
            format_args!("/settings/{neutral}"),
            format_args!("/{source}"),
        );
    }
    if stream == Some(true) {
        v.set_hint(F, "stream", true);
    }
    let sampling: Vec<Value> = [
        ("temperature", s.temperature.is_some()),
        ("top_p", s.top_p.is_some()),
        ("top_k", s.top_k.is_some()),
    ]
    .into_iter()
    .filter(|(_, present)| *present)
    .map(|(name, _)| Value::from(name))
    .collect();
    if !sampling.is_empty() {
        v.set_hint(F, "sampling", Value::Array(sampling));
    }

    ctx.map("/tool_choice", "/tool_choice");
    ctx.map(
        "/settings/parallel_tool_calls",
        "/tool_choice/disable_parallel_tool_use",
    );
    let parallel = |d: Option<bool>| d.map(|d| !d);
    out.tool_choice = match tool_choice {
        None => None,
        Some(w::ToolChoice::Auto(o)) if o.extra.is_empty() => {
            s.parallel_tool_calls = parallel(o.disable_parallel_tool_use);
            Some(ToolChoice::Auto)
        }
        Some(w::ToolChoice::Any(o)) if o.extra.is_empty() => {
            s.parallel_tool_calls = parallel(o.disable_parallel_tool_use);
            Some(ToolChoice::Required)
        }
        Some(w::ToolChoice::Tool(t)) if t.extra.is_empty() => {
            s.parallel_tool_calls = parallel(t.disable_parallel_tool_use);
            Some(ToolChoice::Tool { name: t.name })
        }
        Some(w::ToolChoice::None(n)) if n.extra.is_empty() => Some(ToolChoice::None),
        Some(other) => {
            v.set_field(F, "tool_choice", wire_types::to_value(&other));
            None
        }
    };

    ctx.map("/settings/reasoning", "/thinking");
    let display = |d: Option<&w::ThinkingDisplay>| match d {
        None => Some(None),
        Some(w::ThinkingDisplay::Summarized) => Some(Some(true)),
        Some(w::ThinkingDisplay::Omitted) => Some(Some(false)),
        Some(_) => None,
    };
    let mut reasoning = match thinking {
        None => None,
        Some(w::ThinkingConfig::Enabled(e)) if e.extra.is_empty() => {
            match (display(e.display.as_ref()), i64::try_from(e.budget_tokens)) {
                (Some(include), Ok(budget)) => Some(ReasoningConfig {
                    enabled: Some(true),
                    budget_tokens: Some(budget),
                    include,
                    ..Default::default()
                }),
                _ => {
                    v.set_field(
                        F,
                        "thinking",
                        wire_types::to_value(&w::ThinkingConfig::Enabled(e)),
                    );
                    None
                }
            }
        }
        Some(w::ThinkingConfig::Disabled(n)) if n.extra.is_empty() => Some(ReasoningConfig {
            enabled: Some(false),
            ..Default::default()
        }),
        Some(w::ThinkingConfig::Adaptive(a))
            if a.extra.is_empty() && display(a.display.as_ref()).is_some() =>
        {
            Some(ReasoningConfig {
                enabled: Some(true),
                include: display(a.display.as_ref()).flatten(),
                ..Default::default()
            })
        }
        Some(other) => {
            v.set_field(F, "thinking", wire_types::to_value(&other));
            None
        }
    };

    if let Some(oc) = output_config {
        let format_ok = oc.format.as_ref().is_none_or(is_plain_json_schema);
        if oc.extra.is_empty() && format_ok && (oc.effort.is_some() || oc.format.is_some()) {
            if let Some(e) = oc.effort {
                ctx.map("/settings/reasoning/effort", "/output_config/effort");
                v.set_hint(F, "effort", true);
                reasoning.get_or_insert_with(Default::default).effort = Some(e.as_str().to_owned());
            }
            if let Some(Value::Object(mut f)) = oc.format {
                ctx.map("/output_format", "/output_config/format");
                out.output_format = Some(OutputFormat::JsonSchema {
                    name: None,
                    schema: f.shift_remove("schema").unwrap_or(Value::Null),
                    strict: None,
                });
            }
        } else {
            v.set_field(F, "output_config", wire_types::to_value(&oc));
        }
    }
    s.reasoning = reasoning;
    out.settings = s;

    field(&mut v, "metadata", &metadata);
    field(&mut v, "service_tier", &service_tier);
    field(&mut v, "cache_control", &cache_control);
    field(&mut v, "container", &container);
    field(&mut v, "inference_geo", &inference_geo);
    out.vendor = v;
    Ok(out)
}

/// `{"type":"json_schema","schema":{…}}` and nothing else.
fn is_plain_json_schema(f: &Value) -> bool {
    f.as_object().is_some_and(|m| {
        m.len() == 2
            && m.get("type").and_then(Value::as_str) == Some("json_schema")
            && m.get("schema").is_some_and(Value::is_object)
    })
}

/// A user message: its `tool_result` blocks become a tool message, the rest a user
/// message after it.
fn decode_user(
    content: TextOrParts<w::ContentBlock>,
    at: &str,
    messages: &mut Vec<Message>,
    ctx: &mut Ctx<'_>,
) {
    let blocks = match content {
        TextOrParts::Text(s) => {
            let n = messages.len();
            ctx.map(format_args!("/messages/{n}"), at.to_owned());
            ctx.map(
                format_args!("/messages/{n}/content/0"),
                format_args!("{at}/content"),
            );
            messages.push(Message::text(Role::User, s));
            return;
        }
        TextOrParts::Parts(b) => b,
    };
    let mut results = Vec::new();
    let mut others = Vec::new();
    for (j, b) in blocks.into_iter().enumerate() {
        match b {
            w::ContentBlock::ToolResult(r) => results.push((j, r)),
            other => others.push((j, other)),
        }
    }
    if !results.is_empty() {
        let n = messages.len();
        ctx.map(format_args!("/messages/{n}"), at.to_owned());
        let mut msg = Message::new(Role::Tool, Vec::with_capacity(results.len()));
        for (k, (j, r)) in results.into_iter().enumerate() {
            let neutral = format!("/messages/{n}/content/{k}");
            let source = format!("{at}/content/{j}");
            msg.content
                .push(Part::ToolResult(decode_result(r, &neutral, &source, ctx)));
            ctx.map(neutral, source);
        }
        messages.push(msg);
        if others.is_empty() {
            return;
        }
    }
    let n = messages.len();
    ctx.map(format_args!("/messages/{n}"), at.to_owned());
    let mut msg = Message::new(Role::User, Vec::with_capacity(others.len()));
    msg.vendor.set_hint(F, "parts", true);
    for (k, (j, b)) in others.into_iter().enumerate() {
        ctx.map(
            format_args!("/messages/{n}/content/{k}"),
            format_args!("{at}/content/{j}"),
        );
        msg.content.push(decode_block(b, Place::User, ctx));
    }
    messages.push(msg);
}

/// An assistant or system message (`n`: its neutral index).
fn decode_turn(
    role: Role,
    content: TextOrParts<w::ContentBlock>,
    place: Place,
    n: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let mut msg = Message::new(role, Vec::new());
    ctx.map(format_args!("/messages/{n}"), at.to_owned());
    match content {
        TextOrParts::Text(s) => {
            ctx.map(
                format_args!("/messages/{n}/content/0"),
                format_args!("{at}/content"),
            );
            msg.content.push(Part::text(s));
        }
        TextOrParts::Parts(blocks) => {
            msg.vendor.set_hint(F, "parts", true);
            msg.content.reserve(blocks.len());
            for (j, b) in blocks.into_iter().enumerate() {
                ctx.map(
                    format_args!("/messages/{n}/content/{j}"),
                    format_args!("{at}/content/{j}"),
                );
                msg.content.push(decode_block(b, place, ctx));
            }
        }
    }
    msg
}

fn image_ok(s: &w::Source) -> bool {
    match s {
        w::Source::Base64(d) => d.extra.is_empty() && IMAGE_TYPES.contains(&d.media_type.as_str()),
        w::Source::Url(u) => u.extra.is_empty(),
        w::Source::File(f) => f.extra.is_empty(),
        _ => false,
    }
}

fn document_ok(s: &w::Source) -> bool {
    match s {
        w::Source::Base64(d) => d.extra.is_empty() && d.media_type == "application/pdf",
        w::Source::Text(d) => d.extra.is_empty() && d.media_type == "text/plain",
        w::Source::Url(u) => u.extra.is_empty(),
        w::Source::File(f) => f.extra.is_empty(),
        _ => false,
    }
}

/// A source checked by [`image_ok`] or [`document_ok`]: the neutral source, its media
/// type, and whether it is a Files API id.
fn source_of(s: w::Source) -> (Source, Option<String>, bool) {
    match s {
        w::Source::Base64(d) => (Source::Base64 { data: d.data }, Some(d.media_type), false),
        w::Source::Text(d) => (Source::Text { text: d.data }, Some(d.media_type), false),
        w::Source::Url(u) => (Source::Url { url: u.url }, None, false),
        w::Source::File(f) => (Source::FileId { file_id: f.file_id }, None, true),
        // Not reached: the callers check the source first.
        other => (
            Source::Text {
                text: wire_types::to_value(&other).to_string(),
            },
            None,
            false,
        ),
    }
}

/// One content block. Blocks that have no neutral part here (server-tool blocks, unusual
/// sources, a `tool_use` outside an assistant turn) are kept whole as opaque parts.
fn decode_block(b: w::ContentBlock, place: Place, ctx: &Ctx<'_>) -> Part {
    match b {
        w::ContentBlock::Text(t) => {
            let mut meta = meta_of(&t.extra);
            field(&mut meta.vendor, "citations", &t.citations);
            decode_cache(t.cache_control, &mut meta.cache, &mut meta.vendor);
            Part::Text(Text { text: t.text, meta })
        }
        w::ContentBlock::Image(i) if place.media() && image_ok(&i.source) => {
            let (source, media_type, file) = source_of(i.source);
            let mut meta = meta_of(&i.extra);
            if file {
                meta.vendor.set_hint(F, "file", true);
            }
            decode_cache(i.cache_control, &mut meta.cache, &mut meta.vendor);
            Part::Image(Media {
                source,
                media_type,
                name: None,
                meta,
            })
        }
        w::ContentBlock::Document(d) if place.media() && document_ok(&d.source) => {
            let (source, media_type, file) = source_of(d.source);
            let mut meta = meta_of(&d.extra);
            if file {
                meta.vendor.set_hint(F, "file", true);
            }
            field(&mut meta.vendor, "context", &d.context);
            field(&mut meta.vendor, "citations", &d.citations);
            decode_cache(d.cache_control, &mut meta.cache, &mut meta.vendor);
            Part::Document(Media {
                source,
                media_type,
                name: d.title,
                meta,
            })
        }
        w::ContentBlock::ToolUse(u) if place.model() => {
            let mut meta = meta_of(&u.extra);
            match u.caller.as_deref() {
                // A direct call is what a call is in every format: only the spelling is
                // kept (a hint), so writing the call elsewhere loses nothing.
                Some(c) if c.kind == "direct" && c.tool_id.is_none() && c.extra.is_empty() => {
                    meta.vendor.set_hint(F, "direct_caller", true);
                }
                // A call made by code execution (programmatic tool calling) is Anthropic's.
                _ => field(&mut meta.vendor, "caller", &u.caller),
            }
            decode_cache(u.cache_control, &mut meta.cache, &mut meta.vendor);
            Part::ToolCall(ToolCall {
                id: u.id,
                synthetic_id: false,
                name: u.name,
                arguments: util::args_of(u.input),
                meta,
            })
        }
        w::ContentBlock::Thinking(t) if place.model() => Part::Reasoning(Reasoning {
            text: Some(t.thinking),
            signature: t.signature.map(|value| Signed { value, format: F }),
            source: Some(F),
            meta: meta_of(&t.extra),
            ..Default::default()
        }),
        w::ContentBlock::RedactedThinking(r) if place.model() => Part::Reasoning(Reasoning {
            encrypted: Some(Signed {
                value: r.data,
                format: F,
            }),
            source: Some(F),
            meta: meta_of(&r.extra),
            ..Default::default()
        }),
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// A `tool_result` block (`neutral`, `source`: its pointers, for its content's map).
fn decode_result(
    r: w::ToolResultBlock,
    neutral: &str,
    source: &str,
    ctx: &mut Ctx<'_>,
) -> ToolResult {
    let w::ToolResultBlock {
        tool_use_id,
        content,
        is_error,
        cache_control,
        extra,
    } = r;
    let mut meta = meta_of(&extra);
    decode_cache(cache_control, &mut meta.cache, &mut meta.vendor);
    if is_error == Some(false) {
        meta.vendor.set_hint(F, "is_error_false", true);
    }
    let mut parts = Vec::new();
    match content {
        None => {}
        Some(TextOrParts::Text(s)) => parts.push(Part::text(s)),
        Some(TextOrParts::Parts(blocks)) => {
            meta.vendor.set_hint(F, "parts", true);
            for (m, b) in blocks.into_iter().enumerate() {
                ctx.map(
                    format_args!("{neutral}/content/{m}"),
                    format_args!("{source}/content/{m}"),
                );
                parts.push(decode_block(b, Place::Nested, ctx));
            }
        }
    }
    ToolResult {
        call_id: tool_use_id,
        name: None,
        content: parts,
        is_error: is_error == Some(true),
        meta,
    }
}

fn decode_tool(t: w::Tool) -> Tool {
    match t {
        w::Tool::Custom(c) => {
            let mut v = vendor_from_extra(F, &c.extra, &[]);
            match c.kind.as_deref() {
                Some("custom") => v.set_hint(F, "custom_type", true),
                Some(other) => v.set_field(F, "type", Value::String(other.to_owned())),
                None => {}
            }
            field(&mut v, "input_examples", &c.input_examples);
            field(&mut v, "eager_input_streaming", &c.eager_input_streaming);
            field(&mut v, "defer_loading", &c.defer_loading);
            field(&mut v, "allowed_callers", &c.allowed_callers);
            let mut cache = None;
            decode_cache(c.cache_control, &mut cache, &mut v);
            Tool::Function(ToolDef {
                name: c.name,
                description: c.description,
                input_schema: Some(Value::Object(c.input_schema)),
                dialect: Dialect::JsonSchema,
                output_schema: None,
                strict: c.strict,
                cache,
                vendor: v,
            })
        }
        w::Tool::Other(map) => Tool::Opaque(Opaque {
            format: F,
            value: Value::Object(map),
            meta: PartMeta::default(),
        }),
    }
}

/// Decodes a Messages response: its content is one choice.
pub fn decode_response(resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let w::Response {
        id,
        kind,
        role,
        model,
        content,
        stop_reason,
        stop_sequence,
        stop_details,
        usage,
        container,
        extra,
    } = resp;
    let mut v = vendor_from_extra(F, &extra, &[]);
    // `type: message` and `role: assistant` are what every response says: hints only
    // when they are absent, fields when they say something else.
    match kind.as_deref() {
        Some("message") => {}
        Some(k) => v.set_field(F, "type", Value::String(k.to_owned())),
        None => v.set_hint(F, "no_type", true),
    }
    match &role {
        Some(w::Role::Assistant) => {}
        Some(r) => v.set_field(F, "role", Value::String(r.as_str().to_owned())),
        None => v.set_hint(F, "no_role", true),
    }
    if id.is_none() {
        v.set_hint(F, "no_id", true);
    }
    if model.is_none() {
        v.set_hint(F, "no_model", true);
    }
    if usage.is_none() {
        v.set_hint(F, "no_usage", true);
    }
    field(&mut v, "stop_sequence", &stop_sequence);
    field(&mut v, "stop_details", &stop_details);
    field(&mut v, "container", &container);

    let mut message = Message::new(Role::Assistant, Vec::with_capacity(content.len()));
    ctx.map("/choices/0/message", "/content");
    for (j, b) in content.into_iter().enumerate() {
        ctx.map(
            format_args!("/choices/0/message/content/{j}"),
            format_args!("/content/{j}"),
        );
        message.content.push(decode_block(b, Place::Response, ctx));
    }
    ctx.map("/choices/0/stop_reason", "/stop_reason");
    Ok(model::Response {
        id,
        model,
        created: None,
        choices: vec![Choice {
            message,
            stop_reason: stop_reason.as_ref().map(stop_reason_of),
            vendor: Vendor::default(),
        }],
        usage: usage.map(decode_usage),
        vendor: v,
    })
}

fn stop_reason_of(r: &w::StopReason) -> StopReason {
    let kind = match r {
        w::StopReason::EndTurn => StopKind::EndTurn,
        w::StopReason::StopSequence => StopKind::StopSequence,
        w::StopReason::MaxTokens | w::StopReason::ModelContextWindowExceeded => StopKind::MaxTokens,
        w::StopReason::ToolUse => StopKind::ToolUse,
        w::StopReason::Refusal => StopKind::ContentFilter,
        w::StopReason::PauseTurn => StopKind::Pause,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: Some(r.as_str().to_owned()),
        format: Some(F),
    }
}

fn decode_usage(u: w::Usage) -> Usage {
    let w::Usage {
        input_tokens,
        output_tokens,
        cache_creation_input_tokens: writes,
        cache_read_input_tokens: reads,
        cache_creation,
        server_tool_use,
        service_tier,
        inference_geo,
        output_tokens_details,
        extra,
    } = u;
    let mut v = vendor_from_extra(F, &extra, &[]);
    match &cache_creation {
        // Nothing written to either cache: the breakdown says no more than a write count
        // of 0, so it is a hint (written back here, not reported elsewhere).
        Some(c)
            if c.ephemeral_5m_input_tokens == Some(0)
                && c.ephemeral_1h_input_tokens == Some(0)
                && c.extra.is_empty()
                && writes.is_none_or(|n| n == 0) =>
        {
            v.set_hint(F, "no_cache_writes", true);
        }
        _ => field(&mut v, "cache_creation", &cache_creation),
    }
    field(&mut v, "server_tool_use", &server_tool_use);
    field(&mut v, "service_tier", &service_tier);
    field(&mut v, "inference_geo", &inference_geo);
    let mut reasoning_tokens = None;
    if let Some(d) = output_tokens_details {
        reasoning_tokens = d.thinking_tokens;
        v.set_hint(F, "details", true);
        let rest = wire_types::to_value(&w::OutputTokensDetails {
            thinking_tokens: None,
            ..d
        });
        if rest.as_object().is_some_and(|m| !m.is_empty()) {
            v.set_field(F, "output_tokens_details", rest);
        }
    }
    Usage {
        input_tokens: input_tokens.map(|i| {
            i.saturating_add(writes.unwrap_or(0))
                .saturating_add(reads.unwrap_or(0))
        }),
        output_tokens,
        total_tokens: None,
        cached_input_tokens: reads,
        cache_write_tokens: writes,
        reasoning_tokens,
        vendor: v,
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// Encodes a neutral request as a Messages request.
pub fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model::Request {
        model,
        messages,
        tools,
        tool_choice,
        settings: s,
        output_format,
        vendor: v,
    } = req;
    let model = model.unwrap_or_else(|| {
        ctx.loss(
            "/model",
            LossKind::Changed,
            "the source has no model (it may be in its URL); set `model` before sending",
        );
        String::new()
    });
    let mut fields = ctx.vendor_fields(&v, "");
    let known = Known::of(&tools, &messages);
    let has_tools = !tools.is_empty();
    let tools = match encode_tools(tools, ctx) {
        None if v.flag(F, "empty_tools") => Some(Vec::new()),
        t => t,
    };
    let (system, messages) = encode_messages(messages, &known, ctx);

    // Reasoning first: a thinking budget needs room below `max_tokens`, and thinking
    // decides which tool choices are allowed.
    let mut plan = match s.reasoning {
        Some(r) => {
            // Planned aside: if thinking has to stay off, what the plan would have said
            // about the settings is no longer true.
            let mut aside = Ctx::new(F, ctx.options);
            let plan = plan_reasoning(r, v.flag(F, "effort"), &mut aside);
            if thinking_on(plan.thinking.as_ref())
                && open_loop_without_thinking(&messages)
                && !v.flag(F, "open_loop_thinking")
            {
                ctx.loss(
                    "/settings/reasoning",
                    LossKind::Changed,
                    "thinking is left off for this request: the conversation ends in a tool loop (tool results answering the last assistant message), and with thinking on anthropic requires that message to start with a thinking block it signed; it has none (reasoning from another provider cannot be sent)",
                );
                Plan {
                    effort: plan.effort,
                    ..Plan::default()
                }
            } else {
                for l in aside.take_losses() {
                    ctx.loss(l.path, l.kind, l.detail);
                }
                plan
            }
        }
        None => Plan::default(),
    };
    if let Some(t) = take::<w::ThinkingConfig>(&mut fields, "thinking") {
        plan.thinking = Some(t);
    }
    let max_tokens = match (s.max_tokens, plan.budget) {
        (Some(m), Some(b)) if m <= b && !v.flag(F, "budget_over_max") => {
            let raised = b.saturating_add(1024);
            ctx.loss(
                "/settings/max_tokens",
                LossKind::Changed,
                format!(
                    "anthropic requires the thinking budget ({b}) below max_tokens: max_tokens raised from {m} to {raised}"
                ),
            );
            raised
        }
        (Some(m), _) => m,
        (None, budget) => {
            let (d, why) = match budget {
                Some(b) => (
                    b.saturating_add(DEFAULT_MAX_TOKENS),
                    format!(" (the thinking budget {b} plus {DEFAULT_MAX_TOKENS})"),
                ),
                None => (DEFAULT_MAX_TOKENS, String::new()),
            };
            ctx.loss(
                "/max_tokens",
                LossKind::Changed,
                format!("anthropic requires max_tokens and the source has none: {d} written{why}"),
            );
            d
        }
    };

    let thinking = thinking_on(plan.thinking.as_ref()) && !v.flag(F, "forced_thinking");
    let tool_choice = match take::<w::ToolChoice>(&mut fields, "tool_choice") {
        Some(own) => Some(own),
        None => encode_tool_choice(tool_choice, s.parallel_tool_calls, has_tools, thinking, ctx),
    };

    let output_config = match take::<w::OutputConfig>(&mut fields, "output_config") {
        Some(own) => Some(own),
        None => {
            let format = encode_output_format(output_format, ctx);
            (format.is_some() || plan.effort.is_some()).then(|| w::OutputConfig {
                effort: plan.effort.take(),
                format,
                extra: Extra::new(),
            })
        }
    };

    // The official request schema (SDK 2.14) has no sampling settings any more: they go
    // back to a source that had them, and are a loss from anywhere else.
    let keep_sampling = |name: &str, ctx: &mut Ctx<'_>| {
        let own = v
            .hint(F, "sampling")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x == name));
        if !own {
            ctx.loss(
                format!("/settings/{name}"),
                LossKind::Dropped,
                format!("the anthropic request schema (SDK 2.14) has no `{name}`"),
            );
        }
        own
    };
    let temperature = s.temperature.filter(|_| keep_sampling("temperature", ctx));
    let top_p = s.top_p.filter(|_| keep_sampling("top_p", ctx));
    let top_k = s.top_k.filter(|_| keep_sampling("top_k", ctx));
    let stream = match s.stream {
        Some(true) if !v.flag(F, "stream") => {
            ctx.loss(
                "/settings/stream",
                LossKind::Dropped,
                "written as a non-streaming anthropic body (the official request schema is the non-streaming one); set `stream: true` to stream",
            );
            None
        }
        other => other,
    };
    if s.seed.is_some() {
        ctx.loss("/settings/seed", LossKind::Dropped, "anthropic has no seed");
    }
    if s.presence_penalty.is_some() {
        ctx.loss(
            "/settings/presence_penalty",
            LossKind::Dropped,
            "anthropic has no presence penalty",
        );
    }
    if s.frequency_penalty.is_some() {
        ctx.loss(
            "/settings/frequency_penalty",
            LossKind::Dropped,
            "anthropic has no frequency penalty",
        );
    }

    Ok(w::Request {
        model,
        max_tokens,
        messages,
        system,
        tools,
        tool_choice,
        thinking: plan.thinking,
        temperature,
        top_p,
        top_k,
        stop_sequences: s.stop,
        stream,
        metadata: take(&mut fields, "metadata"),
        service_tier: take(&mut fields, "service_tier"),
        output_config,
        cache_control: take(&mut fields, "cache_control"),
        container: fields.shift_remove("container"),
        inference_geo: take(&mut fields, "inference_geo"),
        extra: extra_from(fields, &v, w::Request::FIELDS, ctx),
    })
}

/// What the encoder of a part needs to know about the whole request.
#[derive(Debug, Default)]
struct Known {
    /// The names of the tools whose input schema is not an object (so it is wrapped as
    /// `{"input": …}`, and so are the arguments of their calls).
    wrapped: HashSet<String>,
    /// The call ids of the named tool results whose call is not in the conversation
    /// (their name has nowhere to go). Usually empty: only those ids are copied.
    orphans: HashSet<String>,
}

impl Known {
    fn of(tools: &[Tool], messages: &[Message]) -> Known {
        // A result's call is nearly always in the latest message with calls before it,
        // which is searched first; every call id is hashed only when one is not there.
        let mut latest: Option<&Message> = None;
        let mut all: Option<HashSet<&str>> = None;
        let mut orphans = HashSet::new();
        for m in messages {
            for p in &m.content {
                match p {
                    Part::ToolCall(_) => latest = Some(m),
                    Part::ToolResult(r) if r.name.is_some() => {
                        let id = r.call_id.as_str();
                        let near = latest.is_some_and(|l| {
                            l.content
                                .iter()
                                .any(|p| matches!(p, Part::ToolCall(c) if c.id == id))
                        });
                        if !near && !all.get_or_insert_with(|| call_ids(messages)).contains(id) {
                            orphans.insert(r.call_id.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
        Known {
            wrapped: wrapped_tools(tools),
            orphans,
        }
    }
}

/// Every tool call id of the conversation.
fn call_ids(messages: &[Message]) -> HashSet<&str> {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.id.as_str()),
            _ => None,
        })
        .collect()
}

fn wrapped_tools(tools: &[Tool]) -> HashSet<String> {
    tools
        .iter()
        .filter_map(|t| match t {
            Tool::Function(d) => {
                let s = d.input_schema.as_ref()?;
                let object = match d.dialect {
                    Dialect::JsonSchema => schema::is_object_schema(s),
                    Dialect::GeminiOpenapi => schema::is_object_schema(&schema::from_gemini(s)),
                };
                (!object).then(|| d.name.clone())
            }
            Tool::Opaque(_) => None,
        })
        .collect()
}

/// What the reasoning settings become.
#[derive(Debug, Default)]
struct Plan {
    thinking: Option<w::ThinkingConfig>,
    effort: Option<w::Effort>,
    /// The thinking budget written, if any.
    budget: Option<u64>,
}

/// Whether a thinking configuration switches thinking on.
fn thinking_on(t: Option<&w::ThinkingConfig>) -> bool {
    matches!(
        t,
        Some(w::ThinkingConfig::Enabled(_) | w::ThinkingConfig::Adaptive(_))
    )
}

/// Whether the conversation ends in an open tool loop (the last assistant message calls
/// tools and only user turns of tool results follow it) whose assistant message does not
/// start with a thinking block. With thinking on, the API rejects that ("a final
/// `assistant` message must start with a thinking block").
fn open_loop_without_thinking(messages: &[w::Message]) -> bool {
    fn blocks(m: &w::Message) -> &[w::ContentBlock] {
        match &m.content {
            TextOrParts::Parts(b) => b,
            TextOrParts::Text(_) => &[],
        }
    }
    let Some(last) = messages.iter().rposition(|m| m.role == w::Role::Assistant) else {
        return false;
    };
    let after = messages.get(last + 1..).unwrap_or_default();
    let results_only = !after.is_empty()
        && after.iter().all(|m| {
            m.role == w::Role::User
                && !blocks(m).is_empty()
                && blocks(m)
                    .iter()
                    .all(|b| matches!(b, w::ContentBlock::ToolResult(_)))
        });
    let assistant = messages.get(last).map(blocks).unwrap_or_default();
    results_only
        && assistant
            .iter()
            .any(|b| matches!(b, w::ContentBlock::ToolUse(_)))
        && !matches!(
            assistant.first(),
            Some(w::ContentBlock::Thinking(_) | w::ContentBlock::RedactedThinking(_))
        )
}

fn plan_reasoning(r: ReasoningConfig, effort_hint: bool, ctx: &mut Ctx<'_>) -> Plan {
    const AT: &str = "/settings/reasoning";
    let display = r.include.map(|i| {
        if i {
            w::ThinkingDisplay::Summarized
        } else {
            w::ThinkingDisplay::Omitted
        }
    });
    let enabled = |budget_tokens: u64, display: Option<w::ThinkingDisplay>| {
        w::ThinkingConfig::Enabled(w::ThinkingEnabled {
            budget_tokens,
            display,
            extra: Extra::new(),
        })
    };
    let adaptive = |display: Option<w::ThinkingDisplay>| {
        w::ThinkingConfig::Adaptive(w::ThinkingAdaptive {
            display,
            extra: Extra::new(),
        })
    };
    let disabled = || w::ThinkingConfig::Disabled(w::NoFields::default());
    let mut plan = Plan::default();
    let foreign_effort = if effort_hint {
        plan.effort = r.effort.as_deref().map(w::Effort::from);
        None
    } else {
        r.effort.clone()
    };

    if r.enabled == Some(false) {
        plan.thinking = Some(disabled());
        if r.include == Some(true) {
            ctx.loss(
                format!("{AT}/include"),
                LossKind::Dropped,
                "thinking is disabled: there is no thinking to return",
            );
        }
        if foreign_effort.is_some() {
            ctx.loss(
                format!("{AT}/effort"),
                LossKind::Dropped,
                "thinking is disabled: the effort level is not sent",
            );
        }
        if r.budget_tokens.is_some() {
            ctx.loss(
                format!("{AT}/budget_tokens"),
                LossKind::Dropped,
                "thinking is disabled: the budget is not sent",
            );
        }
        return plan;
    }
    if let Some(b) = r.budget_tokens {
        if let Some(e) = foreign_effort {
            ctx.loss(
                format!("{AT}/effort"),
                LossKind::Dropped,
                format!(
                    "anthropic takes a thinking budget: effort `{e}` is not sent, the budget is"
                ),
            );
        }
        plan.thinking = Some(match u64::try_from(b) {
            Ok(0) => disabled(),
            Ok(b) => {
                plan.budget = Some(b);
                enabled(b, display)
            }
            Err(_) => {
                ctx.loss(
                    format!("{AT}/budget_tokens"),
                    LossKind::Changed,
                    format!("a budget of {b} (dynamic) is sent as adaptive thinking"),
                );
                adaptive(display)
            }
        });
        return plan;
    }
    if let Some(e) = foreign_effort {
        match effort_to_budget(&e).map(u64::try_from) {
            Some(Ok(0)) => plan.thinking = Some(disabled()),
            Some(Ok(b)) => {
                ctx.loss(
                    format!("{AT}/effort"),
                    LossKind::Changed,
                    format!("anthropic takes a thinking budget, not an effort level: `{e}` sent as budget_tokens {b}"),
                );
                plan.thinking = Some(enabled(b, display));
                plan.budget = Some(b);
            }
            _ => ctx.loss(
                format!("{AT}/effort"),
                LossKind::Dropped,
                format!("effort level `{e}` has no anthropic thinking budget"),
            ),
        }
        return plan;
    }
    if r.enabled == Some(true) || display.is_some() {
        plan.thinking = Some(adaptive(display));
    }
    plan
}

/// The tool choice (`thinking`: thinking is on, so only `auto` and `none` are allowed: a
/// forced choice is sent as `auto`, a `changed` loss).
fn encode_tool_choice(
    choice: Option<ToolChoice>,
    parallel: Option<bool>,
    has_tools: bool,
    thinking: bool,
    ctx: &mut Ctx<'_>,
) -> Option<w::ToolChoice> {
    let disable = parallel.map(|p| !p);
    let options = |d: Option<bool>| w::ToolChoiceOptions {
        disable_parallel_tool_use: d,
        extra: Extra::new(),
    };
    let tool = |name: String| {
        w::ToolChoice::Tool(w::ToolChoiceTool {
            name,
            disable_parallel_tool_use: disable,
            extra: Extra::new(),
        })
    };
    let unforced = |what: String, ctx: &mut Ctx<'_>| {
        ctx.loss(
            "/tool_choice",
            LossKind::Changed,
            format!(
                "with extended thinking anthropic allows only the `auto` and `none` tool choices: {what} is sent as `auto` (thinking is kept)"
            ),
        );
        Some(w::ToolChoice::Auto(options(disable)))
    };
    match choice {
        Some(ToolChoice::Required) if thinking => {
            unforced("`required` (some tool must be called)".to_owned(), ctx)
        }
        Some(ToolChoice::Tool { name }) if thinking => {
            unforced(format!("forcing the tool `{name}`"), ctx)
        }
        Some(ToolChoice::Allowed {
            names,
            required: true,
        }) if thinking => unforced(
            format!(
                "a required call of one of the tools ({}), which anthropic cannot limit either,",
                names.join(", ")
            ),
            ctx,
        ),
        Some(ToolChoice::Auto) => Some(w::ToolChoice::Auto(options(disable))),
        Some(ToolChoice::Required) => Some(w::ToolChoice::Any(options(disable))),
        Some(ToolChoice::Tool { name }) => Some(tool(name)),
        Some(ToolChoice::None) => {
            if parallel == Some(false) {
                ctx.loss(
                    "/settings/parallel_tool_calls",
                    LossKind::Dropped,
                    "anthropic's `none` tool choice takes no parallel setting (no tool is called)",
                );
            }
            Some(w::ToolChoice::None(w::NoFields::default()))
        }
        Some(ToolChoice::Allowed {
            mut names,
            required,
        }) => {
            if required && names.len() == 1 {
                return names.pop().map(tool);
            }
            let (choice, what) = if required {
                (
                    w::ToolChoice::Any(options(disable)),
                    "`any` (some tool must be called)",
                )
            } else {
                (w::ToolChoice::Auto(options(disable)), "`auto`")
            };
            ctx.loss(
                "/tool_choice",
                LossKind::Changed,
                format!(
                    "anthropic cannot limit calls to some of the tools ({}): sent as {what}",
                    names.join(", ")
                ),
            );
            Some(choice)
        }
        None => match parallel {
            Some(false) if has_tools => Some(w::ToolChoice::Auto(options(Some(true)))),
            Some(false) => {
                ctx.loss(
                    "/settings/parallel_tool_calls",
                    LossKind::Dropped,
                    "anthropic sets parallel tool use on a tool choice, and there are no tools",
                );
                None
            }
            _ => None,
        },
    }
}

fn encode_output_format(f: Option<OutputFormat>, ctx: &mut Ctx<'_>) -> Option<Value> {
    match f? {
        OutputFormat::Text => None,
        OutputFormat::JsonObject => {
            ctx.loss(
                "/output_format",
                LossKind::Changed,
                "anthropic structured output takes a schema: any JSON object is asked for as {\"type\":\"object\"}",
            );
            Some(json!({"type": "json_schema", "schema": {"type": "object"}}))
        }
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => {
            if name.is_some() {
                ctx.loss(
                    "/output_format/name",
                    LossKind::Dropped,
                    "anthropic output formats have no name",
                );
            }
            if strict == Some(false) {
                ctx.loss(
                    "/output_format/strict",
                    LossKind::Changed,
                    "anthropic always holds the output to its schema",
                );
            }
            let schema = if schema.is_object() {
                schema
            } else {
                ctx.loss(
                    "/output_format/schema",
                    LossKind::Changed,
                    "anthropic output schemas are objects: this one is sent as {\"type\":\"object\"}",
                );
                json!({"type": "object"})
            };
            Some(json!({"type": "json_schema", "schema": schema}))
        }
    }
}

/// Encodes tool definitions as a Messages `tools` array (`None` for none).
pub fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    if tools.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(tools.len());
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => out.push(encode_tool_def(def, &at, ctx)),
            Tool::Opaque(o) if o.format == F => match serde_json::from_value::<w::Tool>(o.value) {
                Ok(t) => out.push(t),
                Err(e) => ctx.loss(
                    at,
                    LossKind::Dropped,
                    format!("an anthropic tool that no longer reads as one: {e}"),
                ),
            },
            Tool::Opaque(o) => ctx.loss(
                at,
                LossKind::Dropped,
                format!(
                    "{} tool {} has no equivalent in {F}",
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
    Some(out)
}

fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::Tool {
    let ToolDef {
        name,
        description,
        input_schema,
        dialect,
        output_schema,
        strict,
        cache,
        vendor,
    } = def;
    let mut fields = ctx.vendor_fields(&vendor, at);
    let schema_at = format!("{at}/input_schema");
    let schema = match input_schema {
        // A tool without parameters takes an empty object.
        None => json!({"type": "object", "properties": {}}),
        Some(s) => {
            let s = match dialect {
                Dialect::GeminiOpenapi => schema::from_gemini(&s),
                Dialect::JsonSchema => s,
            };
            match schema::wrap_non_object(&s) {
                Some(wrapped) => {
                    ctx.loss(
                        schema_at.clone(),
                        LossKind::Changed,
                        "a non-object input schema is exposed as {\"input\": <schema>}",
                    );
                    wrapped
                }
                None => s,
            }
        }
    };
    let input_schema = match schema {
        Value::Object(m) => m,
        _ => {
            ctx.loss(
                schema_at,
                LossKind::Changed,
                "a boolean schema is sent as {\"type\":\"object\"}",
            );
            let mut m = Map::new();
            m.insert("type".into(), Value::String("object".into()));
            m
        }
    };
    if output_schema.is_some() {
        ctx.loss(
            format!("{at}/output_schema"),
            LossKind::Dropped,
            "anthropic tools have no output schema",
        );
    }
    let kind = if vendor.flag(F, "custom_type") {
        Some("custom".to_owned())
    } else {
        take(&mut fields, "type")
    };
    let cache_control = encode_cache(cache, &mut fields, at, ctx);
    w::Tool::Custom(w::CustomTool {
        kind,
        name,
        description,
        input_schema,
        cache_control,
        strict,
        input_examples: take(&mut fields, "input_examples"),
        eager_input_streaming: take(&mut fields, "eager_input_streaming"),
        defer_loading: take(&mut fields, "defer_loading"),
        allowed_callers: take(&mut fields, "allowed_callers"),
        extra: extra_from(fields, &vendor, w::CustomTool::FIELDS, ctx),
    })
}

/// A wire message being built from one or more neutral messages.
struct TurnOut {
    role: w::Role,
    kind: Turn,
    blocks: Vec<w::ContentBlock>,
    /// Written as a string if it is still one plain text block.
    string: bool,
    extra: Extra,
    /// Index of its first neutral message.
    first: usize,
    /// Some neutral message in it had content.
    had_content: bool,
    /// Its last neutral message was a tool message.
    last_tool: bool,
}

/// The top-level `system` and the `messages` of a request.
fn encode_messages(
    messages: Vec<Message>,
    known: &Known,
    ctx: &mut Ctx<'_>,
) -> (Option<TextOrParts<w::ContentBlock>>, Vec<w::Message>) {
    let mut top: Vec<(String, Message)> = Vec::new();
    let mut turns: Vec<TurnOut> = Vec::with_capacity(messages.len());
    let mut leading = true;
    let mut at = String::new();
    for (i, m) in messages.into_iter().enumerate() {
        crate::util::set_path(&mut at, "", "messages", i);
        if m.role.is_system() && !m.vendor.flag(F, "inline") {
            if !leading {
                ctx.loss(
                    at.clone(),
                    LossKind::Moved,
                    "anthropic takes instructions in the top-level `system` only: this mid-conversation system message is appended there",
                );
            }
            top.push((at.clone(), m));
            continue;
        }
        if !m.role.is_system() {
            leading = false;
        }
        push_turn(&mut turns, m, (i, &at), known, ctx);
    }
    let system = encode_system(top, ctx);
    let messages = turns
        .into_iter()
        .filter_map(|t| finish_turn(t, ctx))
        .collect();
    (system, messages)
}

fn encode_system(
    top: Vec<(String, Message)>,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::ContentBlock>> {
    if top.is_empty() {
        return None;
    }
    let string = top.len() == 1
        && top.iter().all(|(_, m)| {
            !m.vendor.flag(F, "parts")
                && m.content.len() == 1
                && matches!(m.content.first(), Some(Part::Text(_)))
        });
    let mut parts_hint = false;
    let mut blocks = Vec::new();
    for (at, m) in top {
        parts_hint |= m.vendor.flag(F, "parts");
        let _ = ctx.vendor_fields(&m.vendor, &at);
        let mut pat_buf = ctx.buf();
        for (j, p) in m.content.into_iter().enumerate() {
            set_path(&mut pat_buf, &at, "content", j);
            let pat = pat_buf.as_str();
            encode_part(p, pat, Place::System, &Known::default(), &mut blocks, ctx);
        }
        ctx.give_back(pat_buf);
    }
    if string {
        if let Some(text) = plain_text(&mut blocks) {
            return Some(TextOrParts::Text(text));
        }
    }
    drop_empty_text(&mut blocks);
    if blocks.is_empty() && !parts_hint {
        return None;
    }
    Some(TextOrParts::Parts(blocks))
}

/// The text of `blocks` when they are exactly one text block with nothing else on it.
fn plain_text(blocks: &mut Vec<w::ContentBlock>) -> Option<String> {
    match blocks.as_slice() {
        [w::ContentBlock::Text(t)]
            if t.citations.is_none() && t.cache_control.is_none() && t.extra.is_empty() => {}
        _ => return None,
    }
    match blocks.pop() {
        Some(w::ContentBlock::Text(t)) => Some(t.text),
        _ => None,
    }
}

/// Leaves out empty text blocks: the API rejects them, and they carry nothing.
fn drop_empty_text(blocks: &mut Vec<w::ContentBlock>) {
    blocks.retain(|b| !matches!(b, w::ContentBlock::Text(t) if t.text.is_empty()));
}

/// Adds a message to the turns: a turn of its own, or merged into the previous one.
/// `(i, at)`: the message's index and neutral pointer.
fn push_turn(
    turns: &mut Vec<TurnOut>,
    m: Message,
    (i, at): (usize, &str),
    known: &Known,
    ctx: &mut Ctx<'_>,
) {
    // Only inline system messages get here (the others go to the top-level `system`).
    let kind = turn_of(&m).unwrap_or(Turn::System);
    let (role, place) = match kind {
        Turn::User => (w::Role::User, Place::User),
        Turn::Assistant => (w::Role::Assistant, Place::Assistant),
        Turn::System => (w::Role::System, Place::System),
    };
    let is_tool = m.role == Role::Tool;
    let is_user = m.role == Role::User;
    let string = !is_tool
        && !m.vendor.flag(F, "parts")
        && m.content.len() == 1
        && matches!(m.content.first(), Some(Part::Text(_)));
    let separate = m.vendor.flag(F, "separate");
    let had_content = !m.content.is_empty();
    let Message {
        content,
        mut vendor,
        ..
    } = m;
    let mut blocks = Vec::with_capacity(content.len());
    let mut pat = ctx.buf();
    for (j, p) in content.into_iter().enumerate() {
        crate::util::set_path(&mut pat, at, "content", j);
        encode_part(p, &pat, place, known, &mut blocks, ctx);
    }
    ctx.give_back(pat);

    let merge = kind != Turn::System && !separate;
    if let Some(prev) = turns.last_mut().filter(|t| merge && t.kind == kind) {
        for (k, val) in ctx.take_vendor_fields(&mut vendor, at) {
            prev.extra.insert(k, val);
        }
        let lead = prev
            .blocks
            .iter()
            .take_while(|b| matches!(b, w::ContentBlock::ToolResult(_)))
            .count();
        if is_tool && lead < prev.blocks.len() {
            ctx.loss(
                at.to_owned(),
                LossKind::Moved,
                "tool results go first in an anthropic user turn: merged into the previous user turn, ahead of its other content",
            );
            let (results, rest): (Vec<_>, Vec<_>) = blocks
                .into_iter()
                .partition(|b| matches!(b, w::ContentBlock::ToolResult(_)));
            prev.blocks.splice(lead..lead, results);
            prev.blocks.extend(rest);
        } else {
            // A tool message and the user message after it are one turn in Anthropic's
            // own shape; any other pair is a merge the source did not have.
            if !(is_user && prev.last_tool && lead == prev.blocks.len()) {
                ctx.loss(
                    at.to_owned(),
                    LossKind::Changed,
                    format!(
                        "merged into the previous {} turn (anthropic alternates user and assistant turns)",
                        prev.role
                    ),
                );
            }
            prev.blocks.extend(blocks);
        }
        prev.string = false;
        prev.had_content |= had_content;
        prev.last_tool = is_tool;
        return;
    }
    let fields = ctx.take_vendor_fields(&mut vendor, at);
    let extra = extra_from(fields, &vendor, w::Message::FIELDS, ctx);
    turns.push(TurnOut {
        role,
        kind,
        blocks,
        string,
        extra,
        first: i,
        had_content,
        last_tool: is_tool,
    });
}

fn finish_turn(t: TurnOut, ctx: &mut Ctx<'_>) -> Option<w::Message> {
    let TurnOut {
        role,
        mut blocks,
        string,
        extra,
        first,
        had_content,
        ..
    } = t;
    if string {
        if let Some(text) = plain_text(&mut blocks) {
            return Some(w::Message {
                role,
                content: TextOrParts::Text(text),
                extra,
            });
        }
    }
    drop_empty_text(&mut blocks);
    if blocks.is_empty() && had_content {
        ctx.loss(
            format!("/messages/{first}"),
            LossKind::Dropped,
            "nothing of this message is left to send, and anthropic rejects empty messages",
        );
        return None;
    }
    Some(w::Message {
        role,
        content: TextOrParts::Parts(blocks),
        extra,
    })
}

/// Encodes one part into `out` (nothing, with a loss, when `place` cannot hold it).
fn encode_part(
    p: Part,
    at: &str,
    place: Place,
    known: &Known,
    out: &mut Vec<w::ContentBlock>,
    ctx: &mut Ctx<'_>,
) {
    let nowhere = |ctx: &mut Ctx<'_>, what: &str| {
        ctx.loss(
            at.to_owned(),
            LossKind::Dropped,
            format!("{what} has no place in {} for anthropic", place.describe()),
        );
    };
    match p {
        Part::Text(t) => out.push(w::ContentBlock::Text(encode_text(t, at, ctx))),
        Part::Refusal(t) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "anthropic has no refusal part: sent as text",
            );
            out.push(w::ContentBlock::Text(encode_text(t, at, ctx)));
        }
        Part::Json(j) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "a JSON part is sent as a text block holding its JSON",
            );
            let text = Text {
                text: j.value.to_string(),
                meta: j.meta,
            };
            out.push(w::ContentBlock::Text(encode_text(text, at, ctx)));
        }
        Part::Image(m) if place.media() => {
            if let Some(b) = encode_image(m, at, ctx) {
                out.push(b);
            }
        }
        Part::Document(m) if place.media() => {
            if let Some(b) = encode_document(m, at, ctx) {
                out.push(b);
            }
        }
        Part::Image(_) => nowhere(ctx, "an image"),
        Part::Document(_) => nowhere(ctx, "a document"),
        Part::Audio(_) => ctx.loss(
            at.to_owned(),
            LossKind::Dropped,
            "anthropic takes no audio input",
        ),
        Part::ToolCall(c) if place.model() => out.push(encode_call(c, at, known, ctx)),
        Part::ToolCall(_) => nowhere(ctx, "a tool call"),
        Part::ToolResult(r) if place == Place::User => out.push(encode_result(r, at, known, ctx)),
        Part::ToolResult(_) => nowhere(ctx, "a tool result"),
        Part::Reasoning(r) if place.model() => encode_reasoning(r, at, out, ctx),
        Part::Reasoning(_) => nowhere(ctx, "reasoning"),
        Part::Opaque(o) if o.format == F => {
            match serde_json::from_value::<w::ContentBlock>(o.value) {
                Ok(b) => out.push(b),
                Err(e) => ctx.loss(
                    at.to_owned(),
                    LossKind::Dropped,
                    format!("an anthropic block that no longer reads as one: {e}"),
                ),
            }
        }
        Part::Opaque(o) => {
            if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, at) {
                out.push(w::ContentBlock::Text(w::TextBlock {
                    text: t.text,
                    ..Default::default()
                }));
            }
        }
    }
}

fn encode_text(mut t: Text, at: &str, ctx: &mut Ctx<'_>) -> w::TextBlock {
    part_checks(&t.meta, at, ctx);
    let mut fields = ctx.take_vendor_fields(&mut t.meta.vendor, at);
    let citations = take(&mut fields, "citations");
    let cache_control = encode_cache(t.meta.cache, &mut fields, at, ctx);
    w::TextBlock {
        text: t.text,
        citations,
        cache_control,
        extra: extra_from(fields, &t.meta.vendor, w::TextBlock::FIELDS, ctx),
    }
}

/// A Files API id from another format names nothing on Anthropic's side: a loss.
fn check_file_id(meta: &PartMeta, file_id: &str, at: &str, ctx: &mut Ctx<'_>) {
    if !meta.vendor.flag(F, "file") {
        ctx.loss(
            format!("{at}/source"),
            LossKind::Changed,
            format!("file id `{file_id}` is sent as an anthropic Files API id: it must name a file uploaded to anthropic"),
        );
    }
}

fn encode_image(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentBlock> {
    part_checks(&m.meta, at, ctx);
    let source = match m.source {
        Source::Base64 { data } => image_data(m.media_type.as_deref(), data, at, ctx)?,
        Source::Url { url } => match parse_data_url(&url) {
            Some((media_type, data)) => image_data(Some(&media_type), data, at, ctx)?,
            None => w::Source::Url(w::UrlSource {
                url,
                extra: Extra::new(),
            }),
        },
        Source::FileId { file_id } => {
            check_file_id(&m.meta, &file_id, at, ctx);
            w::Source::File(w::FileSource {
                file_id,
                extra: Extra::new(),
            })
        }
        Source::Text { .. } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                "an image given as text has no anthropic form",
            );
            return None;
        }
    };
    if m.name.is_some() {
        ctx.loss(
            format!("{at}/name"),
            LossKind::Dropped,
            "anthropic images have no name",
        );
    }
    let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
    let cache_control = encode_cache(m.meta.cache, &mut fields, at, ctx);
    Some(w::ContentBlock::Image(w::ImageBlock {
        source,
        cache_control,
        extra: extra_from(fields, &m.meta.vendor, w::ImageBlock::FIELDS, ctx),
    }))
}

/// A base64 image source, if its media type is one Anthropic takes.
fn image_data(
    media_type: Option<&str>,
    data: String,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::Source> {
    let media_type = match media_type {
        Some("image/jpg") => Some("image/jpeg"),
        Some(t) => Some(t),
        None => sniff_image(&data),
    };
    match media_type {
        Some(t) if IMAGE_TYPES.contains(&t) => Some(w::Source::Base64(w::DataSource {
            media_type: t.to_owned(),
            data,
            extra: Extra::new(),
        })),
        other => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!(
                    "anthropic takes JPEG, PNG, GIF and WebP images, not {}",
                    other.unwrap_or("an image of unknown type")
                ),
            );
            None
        }
    }
}

fn encode_document(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentBlock> {
    part_checks(&m.meta, at, ctx);
    let text_source = |text: String| {
        w::Source::Text(w::DataSource {
            media_type: "text/plain".to_owned(),
            data: text,
            extra: Extra::new(),
        })
    };
    let source = match m.source {
        Source::Base64 { data } => document_data(m.media_type.as_deref(), data, at, ctx)?,
        Source::Url { url } => match parse_data_url(&url) {
            Some((media_type, data)) => document_data(Some(&media_type), data, at, ctx)?,
            None => {
                if let Some(t) = m.media_type.as_deref().filter(|t| *t != "application/pdf") {
                    ctx.loss(
                        format!("{at}/media_type"),
                        LossKind::Changed,
                        format!("anthropic reads a document URL as a PDF (this one is `{t}`)"),
                    );
                }
                w::Source::Url(w::UrlSource {
                    url,
                    extra: Extra::new(),
                })
            }
        },
        Source::FileId { file_id } => {
            check_file_id(&m.meta, &file_id, at, ctx);
            w::Source::File(w::FileSource {
                file_id,
                extra: Extra::new(),
            })
        }
        Source::Text { text } => {
            if let Some(t) = m.media_type.as_deref().filter(|t| *t != "text/plain") {
                ctx.loss(
                    format!("{at}/media_type"),
                    LossKind::Changed,
                    format!("anthropic text documents are text/plain (this one is `{t}`)"),
                );
            }
            text_source(text)
        }
    };
    let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
    let context = take(&mut fields, "context");
    let citations = take(&mut fields, "citations");
    let cache_control = encode_cache(m.meta.cache, &mut fields, at, ctx);
    Some(w::ContentBlock::Document(w::DocumentBlock {
        source,
        title: m.name,
        context,
        citations,
        cache_control,
        extra: extra_from(fields, &m.meta.vendor, w::DocumentBlock::FIELDS, ctx),
    }))
}

/// A base64 document source: a PDF as it is, a `text/*` document as a text source.
fn document_data(
    media_type: Option<&str>,
    data: String,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::Source> {
    let media_type = media_type.or_else(|| data.starts_with("JVBER").then_some("application/pdf"));
    match media_type {
        Some("application/pdf") => Some(w::Source::Base64(w::DataSource {
            media_type: "application/pdf".to_owned(),
            data,
            extra: Extra::new(),
        })),
        Some(t) if t.starts_with("text/") => {
            match base64_decode(&data).and_then(|b| String::from_utf8(b).ok()) {
                Some(text) => {
                    if t != "text/plain" {
                        ctx.loss(
                            format!("{at}/media_type"),
                            LossKind::Changed,
                            format!("anthropic text documents are text/plain (this one is `{t}`)"),
                        );
                    }
                    Some(w::Source::Text(w::DataSource {
                        media_type: "text/plain".to_owned(),
                        data: text,
                        extra: Extra::new(),
                    }))
                }
                None => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        format!("a `{t}` document that is not UTF-8 base64 has no anthropic form"),
                    );
                    None
                }
            }
        }
        other => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!(
                    "anthropic takes PDF and plain-text documents, not {}",
                    other.unwrap_or("a document of unknown type")
                ),
            );
            None
        }
    }
}

fn encode_call(mut c: ToolCall, at: &str, known: &Known, ctx: &mut Ctx<'_>) -> w::ContentBlock {
    part_checks(&c.meta, at, ctx);
    let mut fields = ctx.take_vendor_fields(&mut c.meta.vendor, at);
    let caller = take(&mut fields, "caller").or_else(|| {
        c.meta.vendor.flag(F, "direct_caller").then(|| {
            Box::new(w::Caller {
                kind: "direct".to_owned(),
                tool_id: None,
                extra: Default::default(),
            })
        })
    });
    let cache_control = encode_cache(c.meta.cache, &mut fields, at, ctx);
    // Calls to a tool with a non-object schema were wrapped before encoding
    // (`passes::wrap_non_object_calls`); `known.wrapped` only guards against wrapping twice.
    let _ = &known.wrapped;
    let input = match util::raw_object(c.arguments) {
        Ok(raw) => MaybeRaw::Raw(raw),
        Err(args) => MaybeRaw::Parsed(input_object(args, false, at, ctx)),
    };
    w::ContentBlock::ToolUse(w::ToolUseBlock {
        id: c.id,
        name: c.name,
        input,
        caller,
        cache_control,
        extra: extra_from(fields, &c.meta.vendor, w::ToolUseBlock::FIELDS, ctx),
    })
}

/// Tool-call arguments as the JSON object `tool_use.input` must be (`call`: the neutral
/// pointer of the call; a loss is at its `/arguments`).
fn input_object(args: Arguments, wrap: bool, call: &str, ctx: &mut Ctx<'_>) -> Map<String, Value> {
    let one = |key: &str, value: Value| {
        let mut m = Map::new();
        m.insert(key.to_owned(), value);
        m
    };
    let parsed = match args {
        Arguments::Value(v) => Ok(v),
        Arguments::Text(t) if t.trim().is_empty() => Ok(Value::Null),
        Arguments::Text(t) => serde_json::from_str::<Value>(&t).map_err(|_| t),
    };
    if wrap {
        ctx.loss(
            format!("{call}/arguments"),
            LossKind::Changed,
            "the tool's schema is not an object: its arguments are sent as {\"input\": …}",
        );
        return one(
            "input",
            match parsed {
                Ok(v) => v,
                Err(t) => Value::Object(one("invalid_json", Value::String(t))),
            },
        );
    }
    match parsed {
        Ok(Value::Object(m)) => m,
        Ok(Value::Null) => {
            ctx.loss(
                format!("{call}/arguments"),
                LossKind::Changed,
                "no arguments (null or empty): sent as {}",
            );
            Map::new()
        }
        Ok(other) => {
            ctx.loss(
                format!("{call}/arguments"),
                LossKind::Changed,
                "arguments that are not a JSON object are sent as {\"value\": …}",
            );
            one("value", other)
        }
        Err(t) => {
            ctx.loss(
                format!("{call}/arguments"),
                LossKind::Changed,
                "arguments that are not valid JSON are sent as {\"invalid_json\": \"<text>\"}",
            );
            one("invalid_json", Value::String(t))
        }
    }
}

fn encode_result(r: ToolResult, at: &str, known: &Known, ctx: &mut Ctx<'_>) -> w::ContentBlock {
    let ToolResult {
        call_id,
        name,
        content,
        is_error,
        meta,
    } = r;
    part_checks(&meta, at, ctx);
    if let Some(name) = name.filter(|_| known.orphans.contains(&call_id)) {
        ctx.loss(
            format!("{at}/name"),
            LossKind::Dropped,
            format!("anthropic tool results carry no tool name, and the call of `{name}` is not in the conversation"),
        );
    }
    let mut meta = meta;
    let mut fields = ctx.take_vendor_fields(&mut meta.vendor, at);
    let v = &meta.vendor;
    let cache_control = encode_cache(meta.cache.clone(), &mut fields, at, ctx);
    let parts_hint = v.flag(F, "parts");
    let string =
        !parts_hint && content.len() == 1 && matches!(content.first(), Some(Part::Text(_)));
    let mut blocks = Vec::with_capacity(content.len());
    let mut pat = ctx.buf();
    for (k, p) in content.into_iter().enumerate() {
        crate::util::set_path(&mut pat, at, "content", k);
        encode_part(p, &pat, Place::Nested, &Known::default(), &mut blocks, ctx);
    }
    ctx.give_back(pat);
    let text = if string {
        plain_text(&mut blocks)
    } else {
        None
    };
    let content = match text {
        Some(s) => Some(TextOrParts::Text(s)),
        None => {
            drop_empty_text(&mut blocks);
            (parts_hint || !blocks.is_empty()).then_some(TextOrParts::Parts(blocks))
        }
    };
    let is_error = if is_error {
        Some(true)
    } else {
        v.flag(F, "is_error_false").then_some(false)
    };
    w::ContentBlock::ToolResult(w::ToolResultBlock {
        tool_use_id: call_id,
        content,
        is_error,
        cache_control,
        extra: extra_from(fields, v, w::ToolResultBlock::FIELDS, ctx),
    })
}

fn encode_reasoning(r: Reasoning, at: &str, out: &mut Vec<w::ContentBlock>, ctx: &mut Ctx<'_>) {
    part_checks(&r.meta, at, ctx);
    drop_cache(ctx, &r.meta, at);
    let Some(view) = ctx.reasoning(&r, at) else {
        return;
    };
    if view.signature.is_none() && view.encrypted.is_none() && r.source != Some(F) {
        let from = r
            .source
            .map_or_else(|| "an unknown provider".to_owned(), |f| f.to_string());
        ctx.loss(
            at.to_owned(),
            LossKind::Dropped,
            format!("anthropic accepts only thinking it signed: reasoning from {from} is dropped"),
        );
        return;
    }
    if !view.summary.is_empty() {
        ctx.loss(
            format!("{at}/summary"),
            LossKind::Dropped,
            "anthropic thinking blocks have no summaries",
        );
    }
    if r.id.is_some() {
        ctx.loss(
            format!("{at}/id"),
            LossKind::Dropped,
            "anthropic thinking blocks have no id",
        );
    }
    let fields = ctx.vendor_fields(&r.meta.vendor, at);
    let thinking = view.signature.is_some() || view.encrypted.is_none();
    let mut extra = Some(extra_from(
        fields,
        &r.meta.vendor,
        if thinking {
            w::ThinkingBlock::FIELDS
        } else {
            w::RedactedThinkingBlock::FIELDS
        },
        ctx,
    ));
    if thinking {
        out.push(w::ContentBlock::Thinking(w::ThinkingBlock {
            thinking: view.text.unwrap_or_default().to_owned(),
            signature: view.signature.map(str::to_owned),
            extra: extra.take().unwrap_or_default(),
        }));
    }
    if let Some(data) = view.encrypted {
        out.push(w::ContentBlock::RedactedThinking(
            w::RedactedThinkingBlock {
                data: data.to_owned(),
                extra: extra.take().unwrap_or_default(),
            },
        ));
    }
}

/// Encodes a neutral response as a Messages response (the first choice; Anthropic has
/// one).
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let model::Response {
        id,
        model,
        created,
        choices,
        usage,
        vendor: v,
    } = resp;
    if created.is_some() {
        ctx.loss(
            "/created",
            LossKind::Dropped,
            "anthropic responses carry no creation time",
        );
    }
    let mut fields = ctx.vendor_fields(&v, "");
    let kind = take::<String>(&mut fields, "type")
        .or_else(|| (!v.flag(F, "no_type")).then(|| "message".to_owned()));
    let role = take::<String>(&mut fields, "role")
        .map(w::Role::from)
        .or_else(|| (!v.flag(F, "no_role")).then_some(w::Role::Assistant));
    let stop_sequence = take(&mut fields, "stop_sequence");
    let stop_details = take(&mut fields, "stop_details");
    let container = fields.shift_remove("container");

    let mut content = Vec::new();
    let mut stop_reason = None;
    for (i, c) in choices.into_iter().enumerate() {
        let at = format!("/choices/{i}");
        if i > 0 {
            ctx.loss(
                at,
                LossKind::Dropped,
                "an anthropic response has one answer: only the first choice is kept",
            );
            continue;
        }
        let _ = ctx.vendor_fields(&c.vendor, &at);
        let mat = format!("{at}/message");
        let _ = ctx.vendor_fields(&c.message.vendor, &mat);
        for (j, p) in c.message.content.into_iter().enumerate() {
            let pat = format!("{mat}/content/{j}");
            encode_part(
                p,
                &pat,
                Place::Response,
                &Known::default(),
                &mut content,
                ctx,
            );
        }
        stop_reason = c
            .stop_reason
            .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    }

    let usage = match usage {
        Some(u) => Some(encode_usage(u, ctx)),
        None if v.flag(F, "no_usage") => None,
        None => {
            ctx.loss(
                "/usage",
                LossKind::Changed,
                "anthropic responses carry usage and the source has none: zeros written",
            );
            Some(w::Usage {
                input_tokens: Some(0),
                output_tokens: Some(0),
                ..Default::default()
            })
        }
    };
    // `id` and `model` are required by the response schema.
    let id = id.or_else(|| (!v.flag(F, "no_id")).then(String::new));
    let model = model.or_else(|| (!v.flag(F, "no_model")).then(String::new));
    Ok(w::Response {
        extra: extra_from(fields, &v, w::Response::FIELDS, ctx),
        id,
        kind,
        role,
        model,
        content,
        stop_reason,
        stop_sequence,
        stop_details,
        usage,
        container,
    })
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::StopReason {
    if let Some(raw) = r.raw_for(F) {
        return w::StopReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn => w::StopReason::EndTurn,
        StopKind::StopSequence => w::StopReason::StopSequence,
        StopKind::MaxTokens => w::StopReason::MaxTokens,
        StopKind::ToolUse => w::StopReason::ToolUse,
        StopKind::ContentFilter => w::StopReason::Refusal,
        StopKind::Pause => w::StopReason::PauseTurn,
        StopKind::Error | StopKind::Other => {
            let raw = r.raw.as_deref().unwrap_or("(none)");
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!("stop reason `{raw}` has no anthropic equivalent: sent as end_turn"),
            );
            w::StopReason::EndTurn
        }
    }
}

fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let same = u.vendor.format == Some(F);
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    let reads = u.cached_input_tokens;
    let writes = u.cache_write_tokens;
    let input_tokens = u.input_tokens.map(|i| {
        i.saturating_sub(reads.unwrap_or(0))
            .saturating_sub(writes.unwrap_or(0))
    });
    if let Some(total) = u.total_tokens {
        let sum = u.input_tokens.unwrap_or(0) + u.output_tokens.unwrap_or(0);
        if total != sum {
            ctx.loss(
                "/usage/total_tokens",
                LossKind::Dropped,
                format!("anthropic has no total token count ({total}, not input + output = {sum})"),
            );
        }
    }
    let details = take::<w::OutputTokensDetails>(&mut fields, "output_tokens_details")
        .or_else(|| u.vendor.flag(F, "details").then(Default::default));
    let output_tokens_details = match (details, u.reasoning_tokens) {
        (Some(mut d), r) => {
            d.thinking_tokens = r;
            Some(d)
        }
        (None, Some(r)) => Some(w::OutputTokensDetails {
            thinking_tokens: Some(r),
            extra: Extra::new(),
        }),
        (None, None) => None,
    };
    let mut zero = |count: Option<u64>, name: &str| match count {
        Some(c) => Some(c),
        None if same => None,
        None => {
            ctx.loss(
                format!("/usage/{name}"),
                LossKind::Changed,
                format!("anthropic usage has {name} and the source has none: 0 written"),
            );
            Some(0)
        }
    };
    let input_tokens = zero(input_tokens, "input_tokens");
    let output_tokens = zero(u.output_tokens, "output_tokens");
    w::Usage {
        input_tokens,
        output_tokens,
        cache_creation_input_tokens: writes,
        cache_read_input_tokens: reads,
        cache_creation: take(&mut fields, "cache_creation").or_else(|| {
            u.vendor
                .flag(F, "no_cache_writes")
                .then(|| w::CacheCreation {
                    ephemeral_5m_input_tokens: Some(0),
                    ephemeral_1h_input_tokens: Some(0),
                    extra: Extra::new(),
                })
        }),
        server_tool_use: take(&mut fields, "server_tool_use"),
        service_tier: take(&mut fields, "service_tier"),
        inference_geo: take(&mut fields, "inference_geo"),
        output_tokens_details,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, ctx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Loss, Options, convert_request, convert_response};
    use serde_json::json;

    fn to_anthropic(neutral: model::Request) -> (Value, Vec<Loss>) {
        let out = crate::encode_request(neutral, F, &Options::default()).unwrap();
        (out.value, out.losses)
    }

    fn paths(losses: &[Loss]) -> Vec<(&str, LossKind)> {
        losses.iter().map(|l| (l.path.as_str(), l.kind)).collect()
    }

    fn call(id: &str, name: &str, arguments: Arguments) -> Part {
        Part::ToolCall(ToolCall {
            id: id.into(),
            synthetic_id: false,
            name: name.into(),
            arguments,
            meta: PartMeta::default(),
        })
    }

    fn result(id: &str, text: &str, is_error: bool) -> Part {
        Part::ToolResult(ToolResult {
            call_id: id.into(),
            name: None,
            content: vec![Part::text(text)],
            is_error,
            meta: PartMeta::default(),
        })
    }

    #[test]
    fn a_result_name_is_a_loss_only_when_its_call_is_nowhere_in_the_conversation() {
        let named = |id: &str| match result(id, "ok", false) {
            Part::ToolResult(mut r) => {
                r.name = Some(format!("name_{id}"));
                Part::ToolResult(r)
            }
            _ => unreachable!(),
        };
        let args = || Arguments::Value(json!({}));
        let messages = vec![
            Message::new(Role::Assistant, vec![call("early", "f", args())]),
            Message::new(Role::Assistant, vec![call("latest", "f", args())]),
            // `latest` is in the message before, `early` further back, `later` comes after
            // (in the conversation all the same), `gone` is nowhere.
            Message::new(
                Role::Tool,
                vec![
                    named("latest"),
                    named("early"),
                    named("later"),
                    named("gone"),
                ],
            ),
            Message::new(Role::Assistant, vec![call("later", "f", args())]),
            Message::new(Role::Tool, vec![named("later")]),
        ];
        let (_, losses) = to_anthropic(request(messages));
        let names: Vec<_> = losses
            .iter()
            .filter(|l| l.path.ends_with("/name"))
            .map(|l| l.detail.as_str())
            .collect();
        assert_eq!(names.len(), 1, "{losses:?}");
        assert!(names[0].contains("name_gone"), "{names:?}");
    }

    fn request(messages: Vec<Message>) -> model::Request {
        model::Request {
            model: Some("claude-haiku-4-5".into()),
            messages,
            settings: Settings {
                max_tokens: Some(512),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn stop_reasons_map_both_ways() {
        let kinds = [
            ("end_turn", StopKind::EndTurn),
            ("stop_sequence", StopKind::StopSequence),
            ("max_tokens", StopKind::MaxTokens),
            ("model_context_window_exceeded", StopKind::MaxTokens),
            ("tool_use", StopKind::ToolUse),
            ("refusal", StopKind::ContentFilter),
            ("pause_turn", StopKind::Pause),
            ("brand_new_reason", StopKind::Other),
        ];
        for (raw, kind) in kinds {
            let r = stop_reason_of(&w::StopReason::from(raw));
            assert_eq!((r.kind, r.raw.as_deref()), (kind, Some(raw)));
            // Back to this format: the raw spelling, unknown values included.
            let opts = Options::default();
            let mut ctx = Ctx::new(F, &opts);
            assert_eq!(encode_stop(&r, "", &mut ctx).as_str(), raw);
        }
        // From another format: by kind; a kind with no Anthropic value is a loss.
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let foreign = |kind, raw: &str| StopReason {
            kind,
            raw: Some(raw.into()),
            format: Some(Format::Gemini),
        };
        let r = encode_stop(&foreign(StopKind::ContentFilter, "SAFETY"), "/s", &mut ctx);
        assert_eq!(r, w::StopReason::Refusal);
        let r = encode_stop(&foreign(StopKind::MaxTokens, "MAX_TOKENS"), "/s", &mut ctx);
        assert_eq!(r, w::StopReason::MaxTokens);
        assert!(ctx.losses().is_empty());
        let r = encode_stop(
            &foreign(StopKind::Error, "MALFORMED_FUNCTION_CALL"),
            "/s",
            &mut ctx,
        );
        assert_eq!(r, w::StopReason::EndTurn);
        assert_eq!(paths(ctx.losses()), [("/s", LossKind::Changed)]);
    }

    #[test]
    fn usage_counts_cache_tokens_as_input_and_back() {
        let wire: w::Usage = serde_json::from_value(json!({
            "input_tokens": 42, "output_tokens": 61,
            "cache_creation_input_tokens": 1536, "cache_read_input_tokens": 8192,
            "output_tokens_details": {"thinking_tokens": 22}
        }))
        .unwrap();
        let u = decode_usage(wire);
        assert_eq!(u.input_tokens, Some(42 + 1536 + 8192));
        assert_eq!(u.cached_input_tokens, Some(8192));
        assert_eq!(u.cache_write_tokens, Some(1536));
        assert_eq!(u.output_tokens, Some(61));
        assert_eq!(u.reasoning_tokens, Some(22));

        // An OpenAI-style usage: 100 prompt tokens of which 80 cached.
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let back = encode_usage(
            Usage {
                input_tokens: Some(100),
                output_tokens: Some(7),
                total_tokens: Some(107),
                cached_input_tokens: Some(80),
                ..Default::default()
            },
            &mut ctx,
        );
        assert_eq!(back.input_tokens, Some(20));
        assert_eq!(back.cache_read_input_tokens, Some(80));
        assert_eq!(back.cache_creation_input_tokens, None);
        // The total is input + output: nothing lost.
        assert!(ctx.losses().is_empty());

        // More cached than counted input: saturates at 0 rather than wrapping.
        let back = encode_usage(
            Usage {
                input_tokens: Some(10),
                output_tokens: Some(1),
                cached_input_tokens: Some(8),
                cache_write_tokens: Some(5),
                ..Default::default()
            },
            &mut ctx,
        );
        assert_eq!(back.input_tokens, Some(0));
    }

    #[test]
    fn arguments_become_an_object_whatever_they_were() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let mut obj = |args, wrap| Value::Object(input_object(args, wrap, "/a", &mut ctx));
        let text = |t: &str| Arguments::Text(t.into());
        assert_eq!(
            obj(text(r#"{"city":"Paris"}"#), false),
            json!({"city": "Paris"})
        );
        assert_eq!(
            obj(text(r#"{"city":"Par"#), false),
            json!({"invalid_json": r#"{"city":"Par"#})
        );
        assert_eq!(obj(text("[1,2]"), false), json!({"value": [1, 2]}));
        assert_eq!(obj(text("null"), false), json!({}));
        assert_eq!(obj(text(""), false), json!({}));
        assert_eq!(
            obj(Arguments::Value(json!("x")), false),
            json!({"value": "x"})
        );
        assert_eq!(obj(text("42"), true), json!({"input": 42}));
        assert_eq!(
            obj(text("oops"), true),
            json!({"input": {"invalid_json": "oops"}})
        );
        // Every one but the first is a `changed` loss.
        assert_eq!(ctx.losses().len(), 7);
        assert!(ctx.losses().iter().all(|l| l.kind == LossKind::Changed));
    }

    #[test]
    fn a_user_turn_of_results_and_text_decodes_as_a_tool_and_a_user_message() {
        let body = json!({"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}},
                {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {"x": 1}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "content": "bad", "is_error": true},
                {"type": "text", "text": "thanks"}]}
        ]});
        let d = crate::decode_request(&body.to_string(), F).unwrap();
        let roles: Vec<Role> = d.value.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::User]);
        let Part::ToolResult(b) = &d.value.messages[2].content[1] else {
            panic!("not a result")
        };
        assert!(b.is_error);
        assert_eq!(b.name.as_deref(), Some("g"));
        assert_eq!(
            d.source_path("/messages/3/content/0"),
            "/messages/2/content/2"
        );
        assert_eq!(
            d.source_path("/messages/2/content/1"),
            "/messages/2/content/1"
        );
    }

    #[test]
    fn results_and_the_user_message_after_them_are_one_turn_results_first() {
        let (out, losses) = to_anthropic(request(vec![
            Message::text(Role::User, "weather?"),
            Message::new(
                Role::Assistant,
                vec![
                    Part::text(""),
                    call("c1", "w", Arguments::Text(r#"{"c":"Paris"}"#.into())),
                    call("c2", "w", Arguments::Text(r#"{"c":"Lyon"}"#.into())),
                ],
            ),
            Message::new(
                Role::Tool,
                vec![result("c1", "18C", false), result("c2", "timeout", true)],
            ),
            Message::text(Role::User, "and tomorrow?"),
        ]));
        assert!(losses.is_empty(), "{losses:?}");
        assert_eq!(
            out["messages"],
            json!([
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "c1", "name": "w", "input": {"c": "Paris"}},
                    {"type": "tool_use", "id": "c2", "name": "w", "input": {"c": "Lyon"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "18C"},
                    {"type": "tool_result", "tool_use_id": "c2", "content": "timeout", "is_error": true},
                    {"type": "text", "text": "and tomorrow?"}]}
            ])
        );
    }

    #[test]
    fn other_same_role_neighbours_are_merged_with_a_loss() {
        let (out, losses) = to_anthropic(request(vec![
            Message::text(Role::User, "one"),
            Message::text(Role::User, "two"),
            Message::new(
                Role::Assistant,
                vec![call("c1", "f", Arguments::Value(json!({})))],
            ),
            Message::text(Role::User, "interjection"),
            Message::new(Role::Tool, vec![result("c1", "done", false)]),
        ]));
        assert_eq!(
            out["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "done"},
                    {"type": "text", "text": "interjection"}]}
            ])
        );
        assert_eq!(
            paths(&losses),
            [
                ("/messages/1", LossKind::Changed),
                ("/messages/4", LossKind::Moved)
            ]
        );
    }

    #[test]
    fn system_messages_go_to_the_top_and_a_late_one_moves_there() {
        let (out, losses) = to_anthropic(request(vec![
            Message::text(Role::System, "Be terse."),
            Message::text(Role::User, "hi"),
        ]));
        assert_eq!(out["system"], "Be terse.");
        assert!(losses.is_empty());

        let (out, losses) = to_anthropic(request(vec![
            Message::text(Role::System, "Be terse."),
            Message::text(Role::Developer, "Use metric units."),
            Message::text(Role::User, "hi"),
            Message::text(Role::Assistant, "hello"),
            Message::text(Role::System, "Now answer in French."),
            Message::text(Role::User, "weather?"),
        ]));
        assert_eq!(
            out["system"],
            json!([
                {"type": "text", "text": "Be terse."},
                {"type": "text", "text": "Use metric units."},
                {"type": "text", "text": "Now answer in French."}
            ])
        );
        assert_eq!(out["messages"].as_array().map(Vec::len), Some(3));
        assert_eq!(paths(&losses), [("/messages/4", LossKind::Moved)]);
    }

    #[test]
    fn a_non_object_schema_and_its_calls_are_wrapped() {
        let mut req = request(vec![
            Message::text(Role::User, "shout"),
            Message::new(
                Role::Assistant,
                vec![call("c1", "echo", Arguments::Text("\"hi\"".into()))],
            ),
        ]);
        req.tools = vec![Tool::Function(ToolDef::new(
            "echo",
            "echoes",
            json!({"type": "string"}),
        ))];
        let (out, losses) = to_anthropic(req);
        assert_eq!(
            out["tools"][0]["input_schema"],
            json!({"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]})
        );
        assert_eq!(
            out["messages"][1]["content"][0]["input"],
            json!({"input": "hi"})
        );
        assert_eq!(
            paths(&losses),
            [
                ("/messages/1/content/0/arguments", LossKind::Changed),
                ("/tools/0/input_schema", LossKind::Changed)
            ]
        );
    }

    #[test]
    fn the_name_of_a_result_whose_call_was_pruned_is_a_loss() {
        let mut named = result("c9", "42", false);
        if let Part::ToolResult(r) = &mut named {
            r.name = Some("answer".into());
        }
        let (out, losses) = to_anthropic(request(vec![Message::new(Role::Tool, vec![named])]));
        assert_eq!(
            out["messages"],
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c9", "content": "42"}]}])
        );
        assert_eq!(
            paths(&losses),
            [("/messages/0/content/0/name", LossKind::Dropped)]
        );
    }

    #[test]
    fn parallel_false_without_a_tool_choice_is_auto_with_parallel_use_disabled() {
        let mut req = request(vec![Message::text(Role::User, "hi")]);
        req.tools = vec![Tool::Function(ToolDef::new(
            "f",
            "does f",
            json!({"type": "object"}),
        ))];
        req.settings.parallel_tool_calls = Some(false);
        let (out, losses) = to_anthropic(req);
        assert_eq!(
            out["tool_choice"],
            json!({"type": "auto", "disable_parallel_tool_use": true})
        );
        assert!(losses.is_empty());
    }

    #[test]
    fn an_effort_alone_becomes_a_budget_with_room_below_max_tokens() {
        let mut req = request(vec![Message::text(Role::User, "hi")]);
        req.settings.max_tokens = None;
        req.settings.reasoning = Some(ReasoningConfig {
            effort: Some("high".into()),
            ..Default::default()
        });
        let (out, losses) = to_anthropic(req);
        assert_eq!(
            out["thinking"],
            json!({"type": "enabled", "budget_tokens": 16384})
        );
        assert_eq!(out["max_tokens"], 16384 + 4096);
        assert_eq!(
            paths(&losses),
            [
                ("/settings/reasoning/effort", LossKind::Changed),
                ("/max_tokens", LossKind::Changed)
            ]
        );

        // A budget with no max_tokens: the budget plus 4096.
        let mut req = request(vec![Message::text(Role::User, "hi")]);
        req.settings.max_tokens = None;
        req.settings.reasoning = Some(ReasoningConfig {
            budget_tokens: Some(2048),
            ..Default::default()
        });
        let (out, losses) = to_anthropic(req);
        assert_eq!(out["max_tokens"], 2048 + 4096);
        assert_eq!(paths(&losses), [("/max_tokens", LossKind::Changed)]);
        assert!(losses[0].detail.contains("6144 written"), "{losses:?}");
    }

    #[test]
    fn a_budget_not_below_max_tokens_raises_max_tokens() {
        // An effort's budget (medium: 8192) above max_tokens 512: the budget is kept and
        // max_tokens raised to the budget plus 1024.
        let mut req = request(vec![Message::text(Role::User, "hi")]);
        req.settings.reasoning = Some(ReasoningConfig {
            effort: Some("medium".into()),
            ..Default::default()
        });
        let (out, losses) = to_anthropic(req);
        assert_eq!(out["thinking"]["budget_tokens"], 8192);
        assert_eq!(out["max_tokens"], 8192 + 1024);
        assert_eq!(
            paths(&losses),
            [
                ("/settings/reasoning/effort", LossKind::Changed),
                ("/settings/max_tokens", LossKind::Changed)
            ]
        );
        assert!(
            losses[1].detail.contains("raised from 512 to 9216"),
            "{losses:?}"
        );

        // An explicit budget equal to max_tokens is not below it either.
        let mut req = request(vec![Message::text(Role::User, "hi")]);
        req.settings.max_tokens = Some(2048);
        req.settings.reasoning = Some(ReasoningConfig {
            enabled: Some(true),
            budget_tokens: Some(2048),
            ..Default::default()
        });
        let (out, losses) = to_anthropic(req);
        assert_eq!(
            (&out["thinking"]["budget_tokens"], &out["max_tokens"]),
            (&json!(2048), &json!(3072))
        );
        assert_eq!(
            paths(&losses),
            [("/settings/max_tokens", LossKind::Changed)]
        );

        // Room enough: nothing changes.
        let mut req = request(vec![Message::text(Role::User, "hi")]);
        req.settings.max_tokens = Some(10_000);
        req.settings.reasoning = Some(ReasoningConfig {
            budget_tokens: Some(4096),
            ..Default::default()
        });
        let (out, losses) = to_anthropic(req);
        assert_eq!(out["max_tokens"], 10_000);
        assert!(losses.is_empty(), "{losses:?}");

        // An anthropic source that sent such a budget gets it back as it was.
        let body = json!({"model": "m", "max_tokens": 1024,
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "messages": [{"role": "user", "content": "hi"}]});
        let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    fn with_tools(mut req: model::Request) -> model::Request {
        req.tools = vec![
            Tool::Function(ToolDef::new("f", "does f", json!({"type": "object"}))),
            Tool::Function(ToolDef::new("g", "does g", json!({"type": "object"}))),
        ];
        req
    }

    #[test]
    fn a_forced_tool_choice_with_thinking_is_sent_as_auto() {
        let forced = [
            ToolChoice::Required,
            ToolChoice::Tool { name: "f".into() },
            ToolChoice::Allowed {
                names: vec!["f".into()],
                required: true,
            },
            ToolChoice::Allowed {
                names: vec!["f".into(), "g".into()],
                required: true,
            },
        ];
        for choice in forced {
            let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
            req.settings.max_tokens = Some(8192);
            req.settings.parallel_tool_calls = Some(false);
            req.settings.reasoning = Some(ReasoningConfig {
                enabled: Some(true),
                budget_tokens: Some(2048),
                ..Default::default()
            });
            req.tool_choice = Some(choice.clone());
            let (out, losses) = to_anthropic(req);
            assert_eq!(
                out["thinking"],
                json!({"type": "enabled", "budget_tokens": 2048}),
                "{choice:?}"
            );
            assert_eq!(
                out["tool_choice"],
                json!({"type": "auto", "disable_parallel_tool_use": true}),
                "{choice:?}"
            );
            assert_eq!(
                paths(&losses),
                [("/tool_choice", LossKind::Changed)],
                "{choice:?}"
            );
            assert!(losses[0].detail.contains("`auto`"), "{losses:?}");
        }

        // Adaptive thinking (on, no budget) counts too; `none` and `auto` stay.
        let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
        req.settings.reasoning = Some(ReasoningConfig {
            enabled: Some(true),
            ..Default::default()
        });
        req.tool_choice = Some(ToolChoice::Tool { name: "g".into() });
        let (out, losses) = to_anthropic(req);
        assert_eq!(out["thinking"], json!({"type": "adaptive"}));
        assert_eq!(out["tool_choice"], json!({"type": "auto"}));
        assert_eq!(paths(&losses), [("/tool_choice", LossKind::Changed)]);
        for (choice, wire) in [(ToolChoice::None, "none"), (ToolChoice::Auto, "auto")] {
            let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
            req.settings.reasoning = Some(ReasoningConfig {
                enabled: Some(true),
                ..Default::default()
            });
            req.tool_choice = Some(choice);
            let (out, losses) = to_anthropic(req);
            assert_eq!(out["tool_choice"], json!({"type": wire}));
            assert!(losses.is_empty(), "{losses:?}");
        }

        // Without thinking (or with it disabled) a forced choice stays forced.
        let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
        req.settings.reasoning = Some(ReasoningConfig {
            enabled: Some(false),
            ..Default::default()
        });
        req.tool_choice = Some(ToolChoice::Required);
        let (out, losses) = to_anthropic(req);
        assert_eq!(out["tool_choice"], json!({"type": "any"}));
        assert!(losses.is_empty(), "{losses:?}");

        // An anthropic source that sent the combination gets it back as it was.
        let body = json!({"model": "m", "max_tokens": 4096,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "tool_choice": {"type": "any"},
            "tools": [{"name": "f", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "hi"}]});
        let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    #[test]
    fn thinking_is_left_off_in_an_open_tool_loop_without_own_thinking() {
        let gemini_thought = Part::Reasoning(Reasoning {
            text: Some("I should call f".into()),
            source: Some(Format::Gemini),
            ..Default::default()
        });
        let own = Part::Reasoning(Reasoning {
            text: Some("I should call f".into()),
            signature: Some(Signed {
                value: "sig".into(),
                format: F,
            }),
            source: Some(F),
            ..Default::default()
        });
        let loop_of = |reasoning: Option<Part>, then_user: bool| {
            let mut assistant: Vec<Part> = reasoning.into_iter().collect();
            assistant.push(call("toolu_1", "f", Arguments::Value(json!({}))));
            let mut messages = vec![
                Message::text(Role::User, "hi"),
                Message::new(Role::Assistant, assistant),
                Message::new(Role::Tool, vec![result("toolu_1", "42", false)]),
            ];
            if then_user {
                messages.push(Message::text(Role::User, "and then?"));
            }
            let mut req = with_tools(request(messages));
            req.settings.max_tokens = Some(8192);
            req.settings.reasoning = Some(ReasoningConfig {
                effort: Some("low".into()),
                ..Default::default()
            });
            req.tool_choice = Some(ToolChoice::Required);
            req
        };

        // Foreign reasoning is dropped, so the last assistant message has no thinking:
        // thinking is left out, and so the forced choice and the effort stay as they are.
        let (out, losses) = to_anthropic(loop_of(Some(gemini_thought), false));
        assert_eq!(out.get("thinking"), None);
        assert_eq!(out["tool_choice"], json!({"type": "any"}));
        assert_eq!(out["max_tokens"], 8192);
        assert_eq!(
            out["messages"][1]["content"],
            json!([{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}])
        );
        assert_eq!(
            paths(&losses),
            [
                ("/messages/1/content/0", LossKind::Dropped),
                ("/settings/reasoning", LossKind::Changed)
            ]
        );
        assert!(losses[1].detail.contains("thinking is left off"));

        // No reasoning at all: the same.
        let (out, losses) = to_anthropic(loop_of(None, false));
        assert_eq!(out.get("thinking"), None);
        assert_eq!(paths(&losses), [("/settings/reasoning", LossKind::Changed)]);

        // Its own signed thinking first: thinking stays on (and the choice becomes auto).
        let (out, losses) = to_anthropic(loop_of(Some(own), false));
        assert_eq!(
            out["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        );
        assert_eq!(
            paths(&losses),
            [
                ("/settings/reasoning/effort", LossKind::Changed),
                ("/tool_choice", LossKind::Changed)
            ]
        );

        // A user message after the results closes the loop: thinking stays on.
        let (out, _) = to_anthropic(loop_of(None, true));
        assert_eq!(out["thinking"]["type"], "enabled");

        // An anthropic source with the shape is written back as it was.
        let body = json!({"model": "m", "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}]}
        ]});
        let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    #[test]
    fn only_anthropic_signed_reasoning_is_sent() {
        let own = Part::Reasoning(Reasoning {
            text: Some("thinking".into()),
            signature: Some(Signed {
                value: "sig".into(),
                format: F,
            }),
            source: Some(F),
            ..Default::default()
        });
        let foreign = Part::Reasoning(Reasoning {
            text: Some("gemini thought".into()),
            signature: Some(Signed {
                value: "g-sig".into(),
                format: Format::Gemini,
            }),
            source: Some(Format::Gemini),
            ..Default::default()
        });
        let (out, losses) = to_anthropic(request(vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, vec![foreign, own, Part::text("hello")]),
        ]));
        assert_eq!(
            out["messages"][1]["content"],
            json!([
                {"type": "thinking", "thinking": "thinking", "signature": "sig"},
                {"type": "text", "text": "hello"}
            ])
        );
        assert_eq!(
            paths(&losses),
            [
                ("/messages/1/content/0/signature", LossKind::Dropped),
                ("/messages/1/content/0", LossKind::Dropped)
            ]
        );
    }

    #[test]
    fn openai_data_urls_and_audio_map_to_anthropic_sources_or_losses() {
        let body = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/jpg;base64,/9j/4AAQ"}},
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
            {"type": "text", "text": "what is this?"}
        ]}]});
        let out = convert_request(
            &body.to_string(),
            Format::OpenaiChat,
            F,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(
            v["messages"][0]["content"],
            json!([
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
                {"type": "text", "text": "what is this?"}
            ])
        );
        let p: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(p, ["/messages/0/content/1", "/max_tokens"]);
    }

    #[test]
    fn a_base64_text_document_becomes_a_text_source() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let s = document_data(
            Some("text/markdown"),
            "IyBUaXRsZQpib2R5".into(),
            "/d",
            &mut ctx,
        );
        assert_eq!(
            s.map(|s| wire_types::to_value(&s)),
            Some(json!({"type": "text", "media_type": "text/plain", "data": "# Title\nbody"}))
        );
        assert_eq!(paths(ctx.losses()), [("/d/media_type", LossKind::Changed)]);
    }

    #[test]
    fn a_foreign_response_gets_the_required_fields() {
        let body = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
            "model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "hi"}}]});
        let out = convert_response(
            &body.to_string(),
            Format::OpenaiChat,
            F,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(
            v,
            json!({"id": "chatcmpl-1", "type": "message", "role": "assistant", "model": "gpt-4o",
                "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 0, "output_tokens": 0}})
        );
        assert!(out.losses.iter().any(|l| l.path == "/usage"));
    }
}
