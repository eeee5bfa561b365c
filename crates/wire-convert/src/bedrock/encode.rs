//! Encoding requests: neutral messages and parts into Bedrock Converse messages.

use super::settings::{
    encode_amrf, encode_inference_config, encode_output_config, encode_tool_choice,
    report_unplaced_settings, unforce_while_thinking,
};
use super::tools::{ToolsOut, encode_tool_config, encode_tool_list, tool_names};
use super::{
    AUDIO_TYPES, DOC_TYPES, F, IMAGE_TYPES, VIDEO_TYPES, cache_point, format_of, hints,
    valid_doc_name,
};
use crate::ctx::extra_from;
use crate::media::{self, parse_data_url};
use crate::model::{
    self, Media, Message, Part, PartMeta, Reasoning, Role, Source, Text, ToolCall, ToolResult,
    Vendor,
};
use crate::passes::{self, thinking};
use crate::util::opaque_elsewhere;
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::bedrock as w;

/// Encodes a neutral request as a Converse request.
pub(super) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let mut env = Env::default();
    let history = tool_names(&req.messages);
    let count = req.tools.len();
    let forced = req.tool_choice.as_ref().and_then(thinking::forced_choice);
    let open_loop = thinking::open_loop_without_own_reasoning(&req.messages, F);
    let tools = encode_tool_list(req.tools, ctx);
    let (system, messages) = encode_messages(req.messages, &mut env, ctx);

    let choice_field = fields.shift_remove("toolChoice");
    let (choice, none) = encode_tool_choice(req.tool_choice, choice_field, ctx);
    let tools = ToolsOut {
        tools,
        count,
        history,
        choice,
        none,
    };
    let tool_config = encode_tool_config(tools, &messages, &mut fields, &v, ctx);

    let s = req.settings;
    report_unplaced_settings(&s, ctx);
    // Thinking before inferenceConfig: its budget must stay below maxTokens.
    let (amrf, budget) = encode_amrf(
        &mut fields,
        &v,
        s.top_k,
        s.reasoning.as_ref(),
        open_loop,
        ctx,
    );
    let inference_config = encode_inference_config(s, budget, &mut fields, &v, ctx);
    let output_config = encode_output_config(req.output_format, &mut fields, &v, ctx);
    let mut tool_config = tool_config;
    unforce_while_thinking(&mut tool_config, amrf.as_ref(), forced.as_deref(), ctx);

    Ok(w::Request {
        model_id: req.model,
        messages: if messages.is_empty() && v.flag(F, hints::NO_MESSAGES) {
            None
        } else {
            Some(messages)
        },
        system: if system.is_empty() {
            v.flag(F, hints::EMPTY_SYSTEM).then(Vec::new)
        } else {
            Some(system)
        },
        inference_config,
        tool_config,
        guardrail_config: fields.take_as("guardrailConfig"),
        additional_model_request_fields: amrf,
        additional_model_response_field_paths: fields.take_as("additionalModelResponseFieldPaths"),
        prompt_variables: fields.take_as("promptVariables"),
        request_metadata: fields.take_as("requestMetadata"),
        performance_config: fields.take_as("performanceConfig"),
        service_tier: fields.take_as("serviceTier"),
        output_config,
        extra: extra_from(fields, &v, w::Request::FIELDS, "", ctx),
    })
}

/// What the encoder of one request keeps track of.
#[derive(Debug, Default)]
pub(super) struct Env {
    /// Documents named so far for want of a name.
    unnamed: usize,
}

/// The Converse role a neutral message is written with.
fn wire_role(role: Role) -> w::Role {
    match role {
        Role::User | Role::Tool => w::Role::User,
        Role::Assistant => w::Role::Assistant,
        Role::System | Role::Developer => w::Role::System,
    }
}

fn encode_messages(
    messages: Vec<Message>,
    env: &mut Env,
    ctx: &mut Ctx<'_>,
) -> (Vec<w::SystemContentBlock>, Vec<w::Message>) {
    let mut system = Vec::new();
    let mut out: Vec<w::Message> = Vec::new();
    // The neutral role of the last message written to `out`.
    let mut last: Option<Role> = None;
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        if m.role.is_system() && !m.vendor.flag(F, hints::INLINE) {
            if last.is_some() {
                ctx.moved(
                    LossCode::SystemMoved,
                    at.clone(),
                    "bedrock takes system instructions in the top-level `system` only: this mid-conversation message moved there",
                );
            }
            encode_system(m, &at, &mut system, ctx);
            continue;
        }
        let role = wire_role(m.role);
        let separate = m.vendor.flag(F, hints::SEPARATE);
        let joined = m.vendor.flag(F, hints::JOINED);
        let keep_empty = m.vendor.flag(F, hints::EMPTY);
        let had_parts = !m.content.is_empty();
        let extra = ctx.extra(&m.vendor, w::Message::FIELDS, &at);
        let content = encode_content(m.content, m.role, &m.vendor, &at, env, ctx);
        if content.is_empty() && !keep_empty {
            if !had_parts {
                ctx.dropped(
                    LossCode::TurnsChanged,
                    at,
                    "an empty message: bedrock rejects a message without content",
                );
            }
            continue;
        }
        match out.last_mut() {
            Some(prev) if prev.role == role && !separate => {
                let normal = last == Some(Role::Tool) && m.role == Role::User;
                if !normal && !joined {
                    ctx.changed(
                        LossCode::TurnsChanged,
                        at,
                        format!(
                            "merged into the previous {role} message: bedrock requires user and assistant turns to alternate"
                        ),
                    );
                }
                prev.content.extend(content);
                for (k, val) in extra.fields() {
                    prev.extra.insert(k.clone(), val.clone());
                }
            }
            _ => out.push(w::Message {
                role,
                content,
                extra,
            }),
        }
        last = Some(m.role);
    }
    (system, out)
}

fn encode_system(m: Message, at: &str, out: &mut Vec<w::SystemContentBlock>, ctx: &mut Ctx<'_>) {
    ctx.report_foreign_fields(&m.vendor, at);
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        report_signature(&p, &pat, ctx);
        let cache = p.meta().cache.clone();
        let before = out.len();
        match p {
            Part::Text(t) => {
                if let Some(text) = text_of(t, &pat, ctx) {
                    out.push(w::SystemContentBlock::Text(text));
                }
            }
            Part::Json(j) => {
                ctx.changed(
                    LossCode::PartAsText,
                    pat.clone(),
                    "a JSON part is sent as its JSON text",
                );
                out.push(w::SystemContentBlock::Text(j.value.to_string()));
            }
            Part::Opaque(o) if o.format == F => {
                out.extend(own_block(o.value, "system block", &pat, ctx));
            }
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &pat) {
                    out.push(w::SystemContentBlock::Text(t.text));
                }
            }
            other => ctx.dropped(
                LossCode::PartUnsupported,
                pat.clone(),
                format!(
                    "bedrock system prompts hold text only: a {} part has no place there",
                    other.kind()
                ),
            ),
        }
        if let Some(c) = cache {
            if out.len() > before {
                out.push(w::SystemContentBlock::CachePoint(cache_point(c)));
            } else {
                cache_lost(&pat, ctx);
            }
        }
    }
}

fn cache_lost(pat: &str, ctx: &mut Ctx<'_>) {
    ctx.dropped(
        LossCode::CacheUnsupported,
        format!("{pat}/cache"),
        "the cache marker's part was left out",
    );
}

/// The text of a text part, if it is written: Converse rejects blank text blocks, so one
/// from another format is left out (a loss when it held whitespace).
fn text_of(t: Text, pat: &str, ctx: &mut Ctx<'_>) -> Option<String> {
    if t.text.trim().is_empty() && !t.meta.vendor.flag(F, hints::BLANK) {
        if !t.text.is_empty() {
            ctx.dropped(
                LossCode::PartUnsupported,
                pat.to_owned(),
                "bedrock rejects blank text blocks: whitespace-only text left out",
            );
        }
        return None;
    }
    ctx.report_foreign_fields(&t.meta.vendor, pat);
    Some(t.text)
}

/// A block of this format kept whole (an opaque part), read back as a `what`; `None`,
/// with a loss, when it no longer reads as one.
fn own_block<T: DeserializeOwned>(
    value: Value,
    what: &str,
    pat: &str,
    ctx: &mut Ctx<'_>,
) -> Option<T> {
    match serde_json::from_value(value) {
        Ok(b) => Some(b),
        Err(e) => {
            ctx.dropped(
                LossCode::PartUnsupported,
                pat.to_owned(),
                format!("not a bedrock {what}: {e}"),
            );
            None
        }
    }
}

/// Reports a signature on a part that is not reasoning (Gemini's `thoughtSignature`):
/// no Converse block carries one.
fn report_signature(p: &Part, pat: &str, ctx: &mut Ctx<'_>) {
    ctx.report_unplaced_token(
        p.meta().signature.as_ref(),
        format_args!("{pat}/signature"),
        "a reasoning signature",
    );
}

/// The parts of a tool message in source order (hint `order`), with their neutral
/// indices.
fn source_order(parts: Vec<Part>, v: &Vendor) -> Vec<(usize, Part)> {
    let mut indexed: Vec<(usize, Part)> = parts.into_iter().enumerate().collect();
    let Some(order) = v.hint(F, hints::ORDER).and_then(Value::as_array) else {
        return indexed;
    };
    let order: Vec<usize> = order
        .iter()
        .filter_map(Value::as_u64)
        .map(|n| n as usize)
        .collect();
    let n = indexed.len();
    let mut seen = vec![false; n];
    let valid = order.len() == n
        && order.iter().all(|&o| match seen.get_mut(o) {
            Some(s) if !*s => {
                *s = true;
                true
            }
            _ => false,
        });
    if !valid {
        return indexed;
    }
    let mut slots: Vec<Option<(usize, Part)>> = (0..n).map(|_| None).collect();
    for (item, &o) in indexed.drain(..).zip(&order) {
        if let Some(s) = slots.get_mut(o) {
            *s = Some(item);
        }
    }
    slots.into_iter().flatten().collect()
}

pub(super) fn encode_content(
    parts: Vec<Part>,
    role: Role,
    v: &Vendor,
    at: &str,
    env: &mut Env,
    ctx: &mut Ctx<'_>,
) -> Vec<w::ContentBlock> {
    let indexed = if role == Role::Tool {
        source_order(parts, v)
    } else {
        parts.into_iter().enumerate().collect()
    };
    let mut out = Vec::with_capacity(indexed.len());
    for (j, p) in indexed {
        let pat = format!("{at}/content/{j}");
        let cache = p.meta().cache.clone();
        let before = out.len();
        encode_part(p, &pat, env, &mut out, ctx);
        if let Some(c) = cache {
            if out.len() > before {
                out.push(w::ContentBlock::CachePoint(cache_point(c)));
            } else {
                cache_lost(&pat, ctx);
            }
        }
    }
    out
}

fn encode_part(
    p: Part,
    pat: &str,
    env: &mut Env,
    out: &mut Vec<w::ContentBlock>,
    ctx: &mut Ctx<'_>,
) {
    report_signature(&p, pat, ctx);
    match p {
        Part::Text(mut t) => {
            // Cited text read from a stream keeps its citation deltas on the part: written
            // as the block a non-streamed response has for it.
            let citations = match t.meta.vendor.format {
                Some(F) => t.meta.vendor.fields.shift_remove("citations"),
                _ => None,
            };
            if let Some(text) = text_of(t, pat, ctx) {
                out.push(match citations {
                    Some(citations) => w::ContentBlock::CitationsContent(serde_json::json!({
                        "content": [{"text": text}],
                        "citations": citations,
                    })),
                    None => w::ContentBlock::Text(text),
                });
            }
        }
        Part::Refusal(t) => {
            ctx.changed(
                LossCode::PartAsText,
                pat.to_owned(),
                "bedrock has no refusal part: sent as text",
            );
            ctx.report_foreign_fields(&t.meta.vendor, pat);
            out.push(w::ContentBlock::Text(t.text));
        }
        Part::Image(m) => {
            if let Some(b) = encode_image(m, pat, ctx) {
                out.push(w::ContentBlock::Image(b));
            }
        }
        Part::Audio(m) => {
            if let Some(b) = encode_audio(m, pat, ctx) {
                out.push(w::ContentBlock::Audio(b));
            }
        }
        Part::Document(m) => match encode_document(m, pat, env, ctx) {
            Some(Doc::Document(d)) => out.push(w::ContentBlock::Document(d)),
            Some(Doc::Video(vb)) => out.push(w::ContentBlock::Video(vb)),
            None => {}
        },
        Part::Json(j) => {
            ctx.changed(
                LossCode::PartAsText,
                pat.to_owned(),
                "a JSON part outside a tool result is sent as its JSON text",
            );
            out.push(w::ContentBlock::Text(j.value.to_string()));
        }
        Part::ToolCall(c) => out.push(w::ContentBlock::ToolUse(encode_call(c, pat, ctx))),
        Part::ToolResult(r) => {
            out.push(w::ContentBlock::ToolResult(encode_result(r, pat, env, ctx)))
        }
        Part::Reasoning(r) => encode_reasoning(r, pat, out, ctx),
        Part::Opaque(o) if o.format == F => {
            out.extend(own_block(o.value, "content block", pat, ctx))
        }
        Part::Opaque(o) => {
            if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, pat) {
                if !t.text.trim().is_empty() {
                    out.push(w::ContentBlock::Text(t.text));
                }
            }
        }
    }
}

fn encode_reasoning(r: Reasoning, pat: &str, out: &mut Vec<w::ContentBlock>, ctx: &mut Ctx<'_>) {
    let Some(view) = ctx.reasoning(&r, pat) else {
        return;
    };
    let detail = |from: &str| {
        format!(
            "Claude on bedrock accepts only reasoning it signed: reasoning from {from} is dropped (it would go as reasoningText without a signature)"
        )
    };
    if !thinking::claude_takes(&r, &view, pat, detail, ctx) {
        return;
    }
    if r.id.is_some() {
        ctx.dropped(
            LossCode::PartChanged,
            format!("{pat}/id"),
            "bedrock reasoning blocks have no id",
        );
    }
    if let Some(enc) = view.encrypted {
        out.push(w::ContentBlock::ReasoningContent(
            w::ReasoningContent::RedactedContent(enc.to_owned()),
        ));
    }
    let text = match (view.text, view.summary.is_empty()) {
        (Some(t), true) => Some(t.to_owned()),
        (Some(t), false) => {
            ctx.dropped(
                LossCode::ReasoningDropped,
                format!("{pat}/summary"),
                "bedrock reasoning has no summary (the reasoning text is sent)",
            );
            Some(t.to_owned())
        }
        (None, false) => {
            ctx.changed(
                LossCode::PartAsText,
                format!("{pat}/summary"),
                "bedrock reasoning has no summary: sent as the reasoning text",
            );
            Some(view.summary.join("\n\n"))
        }
        (None, true) => None,
    };
    if text.is_some() || view.signature.is_some() {
        out.push(w::ContentBlock::ReasoningContent(
            w::ReasoningContent::ReasoningText(w::ReasoningText {
                text: text.unwrap_or_default(),
                signature: view.signature.map(str::to_owned),
                extra: ctx.extra(&r.meta.vendor, w::ReasoningText::FIELDS, pat),
            }),
        ));
    } else {
        ctx.report_foreign_fields(&r.meta.vendor, pat);
    }
}

fn encode_call(c: ToolCall, pat: &str, ctx: &mut Ctx<'_>) -> w::ToolUseBlock {
    let input = passes::object_arguments(c.arguments, pat, ctx).into_wire();
    w::ToolUseBlock {
        tool_use_id: c.id,
        name: c.name,
        input,
        kind: None,
        extra: ctx.extra(&c.meta.vendor, w::ToolUseBlock::FIELDS, pat),
    }
}

fn encode_result(r: ToolResult, pat: &str, env: &mut Env, ctx: &mut Ctx<'_>) -> w::ToolResultBlock {
    let mut fields = ctx.vendor_fields(&r.meta.vendor, pat);
    let status_field = fields
        .shift_remove("status")
        .and_then(|s| s.as_str().map(w::ToolResultStatus::from));
    let mut content = Vec::with_capacity(r.content.len());
    for (k, p) in r.content.into_iter().enumerate() {
        let cpat = format!("{pat}/content/{k}");
        if p.meta().cache.is_some() {
            ctx.dropped(
                LossCode::CacheUnsupported,
                format!("{cpat}/cache"),
                "bedrock has no cache point inside a tool result",
            );
        }
        report_signature(&p, &cpat, ctx);
        match p {
            Part::Text(t) => {
                if let Some(text) = text_of(t, &cpat, ctx) {
                    content.push(w::ToolResultContentBlock::Text(text));
                }
            }
            Part::Refusal(t) => {
                ctx.changed(
                    LossCode::PartAsText,
                    cpat.clone(),
                    "bedrock has no refusal part: sent as text",
                );
                content.push(w::ToolResultContentBlock::Text(t.text));
            }
            Part::Json(j) => {
                ctx.report_foreign_fields(&j.meta.vendor, &cpat);
                content.push(w::ToolResultContentBlock::Json(j.value));
            }
            Part::Image(m) => {
                if let Some(b) = encode_image(m, &cpat, ctx) {
                    content.push(w::ToolResultContentBlock::Image(b));
                }
            }
            Part::Document(m) => match encode_document(m, &cpat, env, ctx) {
                Some(Doc::Document(d)) => content.push(w::ToolResultContentBlock::Document(d)),
                Some(Doc::Video(vb)) => content.push(w::ToolResultContentBlock::Video(vb)),
                None => {}
            },
            Part::Opaque(o) if o.format == F => {
                content.extend(own_block(o.value, "tool-result block", &cpat, ctx));
            }
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &cpat) {
                    content.push(w::ToolResultContentBlock::Text(t.text));
                }
            }
            Part::Audio(_) => ctx.dropped(
                LossCode::PartUnsupported,
                cpat,
                "bedrock tool results carry no audio",
            ),
            other => ctx.dropped(
                LossCode::PartUnsupported,
                cpat,
                format!(
                    "a {} part has no place in a bedrock tool result",
                    other.kind()
                ),
            ),
        }
    }
    // Always a status (the agent step reads it), except where a bedrock source had none.
    let status = if r.is_error {
        Some(w::ToolResultStatus::Error)
    } else if status_field.is_some() {
        status_field
    } else if r.meta.vendor.flag(F, hints::NO_STATUS) {
        None
    } else {
        Some(w::ToolResultStatus::Success)
    };
    if r.is_error && content.is_empty() {
        ctx.changed(
            LossCode::FieldDefaulted,
            format!("{pat}/content"),
            "bedrock rejects an error result without content: a text block `Error` added",
        );
        content.push(w::ToolResultContentBlock::Text("Error".to_owned()));
    }
    w::ToolResultBlock {
        tool_use_id: r.call_id,
        content,
        status,
        kind: None,
        extra: extra_from(fields, &r.meta.vendor, w::ToolResultBlock::FIELDS, pat, ctx),
    }
}

/// A media source: bytes or S3. A URL (other than `s3://` and `data:`) or a file id of
/// another provider is dropped with a loss: Converse never fetches, and nothing is
/// fetched here either.
fn encode_source(
    src: Source,
    fields: &mut Map<String, Value>,
    text: bool,
    what: &str,
    pat: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::Source> {
    match src {
        Source::Base64 { data } => Some(w::Source::Bytes(data)),
        Source::Url { url } if url.starts_with("s3://") => {
            Some(w::Source::S3Location(w::S3Location {
                uri: url,
                bucket_owner: fields
                    .shift_remove("bucketOwner")
                    .and_then(|o| o.as_str().map(str::to_owned)),
                extra: Extra::new(),
            }))
        }
        Source::Url { url } => match parse_data_url(&url) {
            Some((_, data)) => Some(w::Source::Bytes(data)),
            None => {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    pat.to_owned(),
                    format!(
                        "bedrock takes {what} as bytes or an S3 location, not a URL ({url}); nothing is fetched"
                    ),
                );
                None
            }
        },
        Source::FileId { file_id } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                pat.to_owned(),
                format!(
                    "bedrock takes {what} as bytes or an S3 location, not a file id (`{file_id}`)"
                ),
            );
            None
        }
        Source::Text { text: t } if text => Some(w::Source::Text(t)),
        Source::Text { .. } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                pat.to_owned(),
                format!("bedrock has no {what} given as text"),
            );
            None
        }
    }
}

/// The Converse format of a media part: the source's own (hint `format`), else the one
/// its media type names, else the one its bytes show.
fn media_format(
    m: &Media,
    table: &[(&'static str, &'static str)],
    sniff: fn(&str) -> Option<&'static str>,
) -> Option<String> {
    if let Some(f) = m.meta.vendor.hint(F, hints::FORMAT).and_then(Value::as_str) {
        return Some(f.to_owned());
    }
    m.media_type
        .as_deref()
        .and_then(|t| format_of(table, t))
        .or_else(|| match &m.source {
            Source::Base64 { data } => sniff(data),
            _ => None,
        })
        .map(str::to_owned)
}

/// Reports a media part whose media type names no Converse format of its kind.
fn unsupported(media_type: Option<&str>, pat: &str, what: &str, formats: &str, ctx: &mut Ctx<'_>) {
    ctx.dropped(
        LossCode::PartUnsupported,
        pat.to_owned(),
        format!(
            "bedrock {what} are {formats}; {}",
            match media_type {
                Some(t) => format!("`{t}` is not one of them"),
                None => "this one has no media type".to_owned(),
            }
        ),
    );
}

/// An image, audio or video block kind: what its formats are, and how they are said.
struct MediaKind {
    /// The formats and their media types.
    table: &'static [(&'static str, &'static str)],
    /// The format base64 data shows, if it can be told from its bytes.
    sniff: fn(&str) -> Option<&'static str>,
    /// The kind, plural, for a loss about its source.
    source: &'static str,
    /// The kind, plural, for a loss about the part.
    what: &'static str,
    /// The formats, for a loss.
    formats: &'static str,
}

fn sniff_image(data: &str) -> Option<&'static str> {
    media::sniff_image(data).and_then(|t| t.strip_prefix("image/"))
}

fn sniff_nothing(_: &str) -> Option<&'static str> {
    None
}

const IMAGE: MediaKind = MediaKind {
    table: IMAGE_TYPES,
    sniff: sniff_image,
    source: "images",
    what: "images",
    formats: "png, jpeg, gif or webp",
};

const AUDIO: MediaKind = MediaKind {
    table: AUDIO_TYPES,
    sniff: sniff_nothing,
    source: "audio",
    what: "audio clips",
    formats: "mp3, opus, wav, aac, flac, mp4, ogg, mkv, mka, x-aac, m4a, mpeg, mpga, pcm or webm",
};

const VIDEO: MediaKind = MediaKind {
    table: VIDEO_TYPES,
    sniff: sniff_nothing,
    source: "videos",
    what: "videos",
    formats: "mkv, mov, mp4, webm, flv, mpeg, mpg, wmv or three_gp",
};

/// What an image, audio or video block is made of: its Converse format, its source, and
/// the part's vendor fields (taken) and meta. `None`, with a loss, when it has no
/// Converse form; a name is a loss (these blocks have none).
fn media_block(
    m: Media,
    kind: &MediaKind,
    pat: &str,
    ctx: &mut Ctx<'_>,
) -> Option<(String, w::Source, Map<String, Value>, PartMeta)> {
    let format = media_format(&m, kind.table, kind.sniff);
    let mut fields = ctx.vendor_fields(&m.meta.vendor, pat);
    let source = encode_source(m.source, &mut fields, false, kind.source, pat, ctx)?;
    let Some(format) = format else {
        unsupported(m.media_type.as_deref(), pat, kind.what, kind.formats, ctx);
        return None;
    };
    if m.name.is_some() {
        ctx.dropped(
            LossCode::PartChanged,
            format!("{pat}/name"),
            format!("bedrock {} have no name", kind.what),
        );
    }
    Some((format, source, fields, m.meta))
}

pub(super) fn encode_image(m: Media, pat: &str, ctx: &mut Ctx<'_>) -> Option<w::ImageBlock> {
    let (format, source, mut fields, meta) = media_block(m, &IMAGE, pat, ctx)?;
    let error = fields.shift_remove("error");
    Some(w::ImageBlock {
        format: w::ImageFormat::from(format),
        source,
        error,
        extra: extra_from(fields, &meta.vendor, w::ImageBlock::FIELDS, pat, ctx),
    })
}

fn encode_audio(m: Media, pat: &str, ctx: &mut Ctx<'_>) -> Option<w::AudioBlock> {
    let (format, source, mut fields, meta) = media_block(m, &AUDIO, pat, ctx)?;
    let error = fields.shift_remove("error");
    Some(w::AudioBlock {
        format: w::AudioFormat::from(format),
        source,
        error,
        extra: extra_from(fields, &meta.vendor, w::AudioBlock::FIELDS, pat, ctx),
    })
}

/// The block a document part becomes.
enum Doc {
    Document(w::DocumentBlock),
    /// A document whose media type is `video/*`.
    Video(w::VideoBlock),
}

fn encode_document(m: Media, pat: &str, env: &mut Env, ctx: &mut Ctx<'_>) -> Option<Doc> {
    let video = m
        .media_type
        .as_deref()
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("video/"));
    if video {
        let (format, source, fields, meta) = media_block(m, &VIDEO, pat, ctx)?;
        return Some(Doc::Video(w::VideoBlock {
            format: w::VideoFormat::from(format),
            source,
            extra: extra_from(fields, &meta.vendor, w::VideoBlock::FIELDS, pat, ctx),
        }));
    }

    let v = &m.meta.vendor;
    let known = media_format(&m, DOC_TYPES, |d| media::sniff_pdf(d).map(|_| "pdf"));
    let text_source = matches!(m.source, Source::Text { .. });
    let mut fields = ctx.vendor_fields(v, pat);
    let source = encode_source(m.source, &mut fields, true, "documents", pat, ctx)?;
    let format = if v.flag(F, hints::NO_FORMAT) {
        None
    } else if known.is_some() {
        known
    } else {
        match &m.media_type {
            Some(t) if t.to_ascii_lowercase().starts_with("text/") => {
                ctx.changed(
                    LossCode::PartChanged,
                    format!("{pat}/media_type"),
                    format!("bedrock has no `{t}` document format: sent as txt"),
                );
                Some("txt".to_owned())
            }
            // The format is optional for a text source.
            _ if text_source => None,
            _ => {
                unsupported(
                    m.media_type.as_deref(),
                    pat,
                    "documents",
                    "pdf, csv, doc, docx, xls, xlsx, html, txt or md",
                    ctx,
                );
                return None;
            }
        }
    };
    let name = match m.name {
        Some(n) if valid_doc_name(&n) || v.flag(F, hints::RAW_NAME) => n,
        Some(n) => {
            let mut d = doc_name(&n);
            if d.is_empty() {
                env.unnamed += 1;
                d = format!("Document {}", env.unnamed);
            }
            ctx.changed(
                LossCode::PartChanged,
                format!("{pat}/name"),
                format!(
                    "bedrock document names hold letters, digits, single spaces, hyphens, parentheses and square brackets: `{n}` sent as `{d}`"
                ),
            );
            d
        }
        None => {
            env.unnamed += 1;
            let d = format!("Document {}", env.unnamed);
            ctx.changed(
                LossCode::FieldDefaulted,
                format!("{pat}/name"),
                format!("bedrock documents need a name: named `{d}`"),
            );
            d
        }
    };
    let context = fields
        .shift_remove("context")
        .and_then(|c| c.as_str().map(str::to_owned));
    let citations = fields.take_as("citations");
    Some(Doc::Document(w::DocumentBlock {
        format: format.map(w::DocumentFormat::from),
        name,
        source,
        context,
        citations,
        extra: extra_from(fields, &m.meta.vendor, w::DocumentBlock::FIELDS, pat, ctx),
    }))
}

/// A valid document name from a file name: the extension cut, every other character a
/// space, runs of spaces one space, no space at either end (empty if nothing is left).
pub(super) fn doc_name(n: &str) -> String {
    let stem = match n.rsplit_once('.') {
        Some((s, ext))
            if !s.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            s
        }
        _ => n,
    };
    let mut out = String::with_capacity(stem.len());
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') {
            c
        } else {
            ' '
        };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end().to_owned()
}
