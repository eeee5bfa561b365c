//! Decoding requests: Bedrock Converse messages and their parts into the neutral model.

use super::settings::{
    decode_amrf, decode_inference_config, decode_output_config, decode_tool_choice,
    sub_extra_decode,
};
use super::tools::decode_tools;
use super::{
    AUDIO_TYPES, DOC_TYPES, F, IMAGE_TYPES, VIDEO_TYPES, hints, read_format, valid_doc_name,
};
use crate::model::{
    self, Cache, Json, Media, Message, Part, PartMeta, Reasoning, Role, Settings, Signed, Source,
    Text, Tool, ToolCall, ToolResult, Vendor,
};
use crate::util::{self, opaque};
use crate::{Ctx, Error};
use serde_json::Value;
use wire_types::Extra;
use wire_types::bedrock as w;

/// A decoded part and where it came from.
pub(super) struct Dp {
    part: Part,
    /// Source pointer of the block.
    src: String,
    /// Source pointer of the `cachePoint` folded into the part, if any.
    cache_src: Option<String>,
}

impl Dp {
    /// The part (for a stream, where no source map is kept).
    pub(super) fn into_part(self) -> Part {
        self.part
    }

    /// A part decoded from the block at `src`.
    fn new(part: Part, src: String) -> Dp {
        Dp {
            part,
            src,
            cache_src: None,
        }
    }
}

/// Decodes a Converse request.
pub(super) fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request {
        model: req.model_id,
        ..Default::default()
    };
    if out.model.is_some() {
        ctx.map("/model", "/modelId");
    }
    let mut v = Vendor::from_extra(F, &req.extra, &[]);

    match req.system {
        Some(blocks) if blocks.is_empty() => v.set_hint(F, hints::EMPTY_SYSTEM, true),
        Some(blocks) => {
            let parts = decode_system(blocks, ctx);
            let mut msg = Message::new(Role::System, Vec::new());
            ctx.map("/messages/0", "/system");
            for dp in parts {
                push_dp(&mut msg, "/messages/0", dp, ctx);
            }
            out.messages.push(msg);
        }
        None => {}
    }

    match req.messages {
        None => v.set_hint(F, hints::NO_MESSAGES, true),
        Some(messages) => decode_messages(messages, &mut out.messages, ctx)?,
    }

    if let Some(tc) = req.tool_config {
        sub_extra_decode(&mut v, "toolConfig", &tc.extra);
        out.tools = decode_tools(tc.tools, ctx);
        if !out.tools.iter().any(|t| matches!(t, Tool::Function(_))) {
            v.set_hint(F, hints::TOOL_CONFIG, true);
        }
        out.tool_choice = decode_tool_choice(tc.tool_choice, &mut v, ctx);
    }

    let mut s = Settings::default();
    if let Some(ic) = req.inference_config {
        decode_inference_config(ic, &mut s, &mut v, ctx);
    }
    if let Some(amrf) = req.additional_model_request_fields {
        decode_amrf(amrf, &mut s, &mut v, ctx);
    }
    out.settings = s;
    if let Some(oc) = req.output_config {
        out.output_format = decode_output_config(oc, &mut v, ctx);
    }

    v.keep(F, "guardrailConfig", &req.guardrail_config);
    v.keep(
        F,
        "additionalModelResponseFieldPaths",
        &req.additional_model_response_field_paths,
    );
    v.keep(F, "promptVariables", &req.prompt_variables);
    v.keep(F, "requestMetadata", &req.request_metadata);
    v.keep(F, "performanceConfig", &req.performance_config);
    v.keep(F, "serviceTier", &req.service_tier);
    out.vendor = v;
    Ok(out)
}

/// Folds a plain cache point into the part before it; gives it back when it cannot be.
fn attach_cache(last: Option<&mut Dp>, c: w::CachePoint, src: &str) -> Option<w::CachePoint> {
    if c.kind != w::CachePointType::Default || !c.extra.is_empty() {
        return Some(c);
    }
    match last {
        Some(dp) if dp.part.meta().cache.is_none() => {
            dp.part.meta_mut().cache = Some(Cache { ttl: c.ttl });
            dp.cache_src = Some(src.to_owned());
            None
        }
        _ => Some(c),
    }
}

/// Appends a decoded part to `msg` (at neutral pointer `neutral`), recording where it and
/// what it holds came from.
pub(super) fn push_dp(msg: &mut Message, neutral: &str, dp: Dp, ctx: &mut Ctx<'_>) {
    let at = format!("{neutral}/content/{}", msg.content.len());
    if let Part::ToolResult(r) = &dp.part {
        for m in 0..r.content.len() {
            ctx.map(
                format_args!("{at}/content/{m}"),
                format_args!("{}/toolResult/content/{m}", dp.src),
            );
        }
    }
    if let Some(c) = dp.cache_src {
        ctx.map(format_args!("{at}/cache"), c);
    }
    // A media block's own fields are kept under flat keys: each is mapped to where it
    // sits in the block, so a loss names it there.
    if let Part::Image(m) | Part::Audio(m) | Part::Document(m) = &dp.part {
        let key = match &dp.part {
            Part::Image(_) => "image",
            Part::Audio(_) => "audio",
            _ if m
                .media_type
                .as_deref()
                .is_some_and(|t| t.starts_with("video/")) =>
            {
                "video"
            }
            _ => "document",
        };
        for field in m.meta.vendor.fields.keys() {
            let nested = match field.as_str() {
                "bucketOwner" => format!("source/s3Location/{field}"),
                _ => field.clone(),
            };
            ctx.map(
                format_args!("{at}/{field}"),
                format_args!("{}/{key}/{nested}", dp.src),
            );
        }
    }
    ctx.map(at, dp.src);
    msg.content.push(dp.part);
}

fn decode_system(blocks: Vec<w::SystemContentBlock>, ctx: &mut Ctx<'_>) -> Vec<Dp> {
    let mut out: Vec<Dp> = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.into_iter().enumerate() {
        let src = format!("/system/{k}");
        let part = match b {
            w::SystemContentBlock::Text(t) => text_part(t),
            w::SystemContentBlock::CachePoint(c) => match attach_cache(out.last_mut(), c, &src) {
                None => continue,
                Some(c) => opaque(
                    ctx,
                    wire_types::to_value(&w::SystemContentBlock::CachePoint(c)),
                ),
            },
            other => opaque(ctx, wire_types::to_value(&other)),
        };
        out.push(Dp::new(part, src));
    }
    out
}

fn text_part(t: String) -> Part {
    let mut meta = PartMeta::default();
    if t.trim().is_empty() {
        meta.vendor.set_hint(F, hints::BLANK, true);
    }
    Part::Text(Text { text: t, meta })
}

/// The Converse role of a message as the neutral role it decodes to.
fn neutral_role(role: &w::Role, at: &str) -> Result<Role, Error> {
    match role {
        w::Role::User => Ok(Role::User),
        w::Role::Assistant => Ok(Role::Assistant),
        w::Role::System => Ok(Role::System),
        other => Err(Error::invalid(
            format!("{at}/role"),
            format!("unknown role `{}`", other.as_str()),
        )),
    }
}

fn decode_messages(
    messages: Vec<w::Message>,
    out: &mut Vec<Message>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mut prev_role: Option<w::Role> = None;
    let mut last_calls: Vec<String> = Vec::new();
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        let role = neutral_role(&m.role, &at)?;
        let mut first = Vendor::from_extra(F, &m.extra, &[]);
        if prev_role.as_ref() == Some(&m.role) {
            first.set_hint(F, hints::SEPARATE, true);
        }
        if role == Role::System {
            first.set_hint(F, hints::INLINE, true);
        }
        let parts = decode_blocks(m.content, &m.role, &at, ctx);
        prev_role = Some(m.role);
        if role == Role::Assistant {
            last_calls = parts
                .iter()
                .filter_map(|dp| match &dp.part {
                    Part::ToolCall(c) => Some(c.id.clone()),
                    _ => None,
                })
                .collect();
        }

        // A user message is split into tool messages (its results) and user messages
        // (the rest), in block order.
        let mut segments: Vec<(Role, Vec<Dp>)> = Vec::new();
        for dp in parts {
            let r = if role == Role::User && matches!(dp.part, Part::ToolResult(_)) {
                Role::Tool
            } else {
                role
            };
            match segments.last_mut() {
                Some((last, seg)) if *last == r => seg.push(dp),
                _ => segments.push((r, vec![dp])),
            }
        }
        if segments.is_empty() {
            first.set_hint(F, hints::EMPTY, true);
            segments.push((role, Vec::new()));
        }
        let mut first = Some(first);
        let mut prev_seg: Option<Role> = None;
        for (r, mut seg) in segments {
            let mut msg = Message::new(r, Vec::new());
            if let Some(v) = first.take() {
                msg.vendor = v;
            } else if !(prev_seg == Some(Role::Tool) && r == Role::User) {
                msg.vendor.set_hint(F, hints::JOINED, true);
            }
            if r == Role::Tool {
                call_order(&mut seg, &last_calls, &mut msg.vendor);
            }
            prev_seg = Some(r);
            let n = format!("/messages/{}", out.len());
            ctx.map(n.clone(), at.clone());
            for dp in seg {
                push_dp(&mut msg, &n, dp, ctx);
            }
            out.push(msg);
        }
    }
    Ok(())
}

/// Puts the results of a tool message in the order of `calls` (stable; results of
/// unknown calls last), recording the source order as the `order` hint when it differs.
fn call_order(parts: &mut Vec<Dp>, calls: &[String], v: &mut Vendor) {
    let pos = |dp: &Dp| match &dp.part {
        Part::ToolResult(r) => calls
            .iter()
            .position(|c| *c == r.call_id)
            .unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    let keys: Vec<usize> = parts.iter().map(pos).collect();
    let mut idx: Vec<usize> = (0..parts.len()).collect();
    idx.sort_by_key(|&i| keys.get(i).copied().unwrap_or(usize::MAX));
    if idx.iter().enumerate().all(|(a, b)| a == *b) {
        return;
    }
    v.set_hint(
        F,
        hints::ORDER,
        idx.iter().map(|&i| Value::from(i)).collect::<Vec<_>>(),
    );
    let mut slots: Vec<Option<Dp>> = parts.drain(..).map(Some).collect();
    *parts = idx
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .collect();
}

/// Decodes the blocks of a message with role `role` (at source pointer `at`).
pub(super) fn decode_blocks(
    blocks: Vec<w::ContentBlock>,
    role: &w::Role,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Vec<Dp> {
    let mut out: Vec<Dp> = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.into_iter().enumerate() {
        let src = format!("{at}/content/{k}");
        let part = match b {
            w::ContentBlock::CachePoint(c) => match attach_cache(out.last_mut(), c, &src) {
                None => continue,
                Some(c) => opaque(ctx, wire_types::to_value(&w::ContentBlock::CachePoint(c))),
            },
            w::ContentBlock::Text(t) => text_part(t),
            w::ContentBlock::Image(i) => decode_image(i)
                .unwrap_or_else(|i| opaque(ctx, wire_types::to_value(&w::ContentBlock::Image(i)))),
            w::ContentBlock::Document(d) => decode_document(d).unwrap_or_else(|d| {
                opaque(ctx, wire_types::to_value(&w::ContentBlock::Document(d)))
            }),
            w::ContentBlock::Video(vb) => decode_video(vb).unwrap_or_else(|vb| {
                opaque(ctx, wire_types::to_value(&w::ContentBlock::Video(vb)))
            }),
            w::ContentBlock::Audio(a) => decode_audio(a)
                .unwrap_or_else(|a| opaque(ctx, wire_types::to_value(&w::ContentBlock::Audio(a)))),
            w::ContentBlock::ToolUse(u) if *role == w::Role::Assistant && u.kind.is_none() => {
                Part::ToolCall(ToolCall {
                    id: u.tool_use_id,
                    synthetic_id: false,
                    name: u.name,
                    arguments: util::args_of(u.input),
                    meta: PartMeta::from_extra(F, &u.extra),
                })
            }
            w::ContentBlock::ToolResult(r) if *role == w::Role::User && r.kind.is_none() => {
                decode_tool_result(r, ctx)
            }
            w::ContentBlock::ReasoningContent(rc) => decode_reasoning(rc).unwrap_or_else(|rc| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ContentBlock::ReasoningContent(rc)),
                )
            }),
            other => opaque(ctx, wire_types::to_value(&other)),
        };
        out.push(Dp::new(part, src));
    }
    out
}

/// Whether a source has a neutral form (`text` only for documents).
fn source_ok(s: &w::Source, text: bool) -> bool {
    match s {
        w::Source::Bytes(_) => true,
        w::Source::S3Location(l) => l.extra.is_empty(),
        w::Source::Text(_) => text,
        _ => false,
    }
}

fn decode_source(s: w::Source, meta: &mut PartMeta) -> Source {
    match s {
        w::Source::Bytes(data) => Source::Base64 { data },
        w::Source::S3Location(l) => {
            if let Some(owner) = l.bucket_owner {
                meta.vendor
                    .set_field(F, "bucketOwner", Value::String(owner));
            }
            Source::Url { url: l.uri }
        }
        w::Source::Text(text) => Source::Text { text },
        // `source_ok` was checked first.
        _ => Source::Text {
            text: String::new(),
        },
    }
}

/// The media part of an image, video or audio block (`kind`: the top-level name of its
/// media type; `error`: the block's `error`, kept as a vendor field).
fn media_of(
    table: &[(&'static str, &'static str)],
    kind: &str,
    format: &str,
    source: w::Source,
    extra: &Extra,
    error: &Option<Value>,
) -> Media {
    let mut meta = PartMeta::from_extra(F, extra);
    let media_type = read_format(table, Some(kind), format, &mut meta);
    meta.vendor.keep(F, "error", error);
    let source = decode_source(source, &mut meta);
    Media {
        source,
        media_type,
        name: None,
        meta,
    }
}

fn decode_image(i: w::ImageBlock) -> Result<Part, w::ImageBlock> {
    if !source_ok(&i.source, false) {
        return Err(i);
    }
    let (format, error) = (i.format.as_str(), &i.error);
    let m = media_of(IMAGE_TYPES, "image", format, i.source, &i.extra, error);
    Ok(Part::Image(m))
}

fn decode_document(d: w::DocumentBlock) -> Result<Part, w::DocumentBlock> {
    if !source_ok(&d.source, true) {
        return Err(d);
    }
    let mut meta = PartMeta::from_extra(F, &d.extra);
    let media_type = match &d.format {
        Some(f) => read_format(DOC_TYPES, None, f.as_str(), &mut meta),
        None => {
            meta.vendor.set_hint(F, hints::NO_FORMAT, true);
            None
        }
    };
    if !valid_doc_name(&d.name) {
        meta.vendor.set_hint(F, hints::RAW_NAME, true);
    }
    meta.vendor.keep(F, "context", &d.context);
    meta.vendor.keep(F, "citations", &d.citations);
    let source = decode_source(d.source, &mut meta);
    Ok(Part::Document(Media {
        source,
        media_type,
        name: Some(d.name),
        meta,
    }))
}

/// A video block, as a document whose media type is `video/*`.
fn decode_video(vb: w::VideoBlock) -> Result<Part, w::VideoBlock> {
    if !source_ok(&vb.source, false) {
        return Err(vb);
    }
    let format = vb.format.as_str();
    let m = media_of(VIDEO_TYPES, "video", format, vb.source, &vb.extra, &None);
    Ok(Part::Document(m))
}

fn decode_audio(a: w::AudioBlock) -> Result<Part, w::AudioBlock> {
    if !source_ok(&a.source, false) {
        return Err(a);
    }
    let (format, error) = (a.format.as_str(), &a.error);
    let m = media_of(AUDIO_TYPES, "audio", format, a.source, &a.extra, error);
    Ok(Part::Audio(m))
}

fn decode_tool_result(r: w::ToolResultBlock, ctx: &mut Ctx<'_>) -> Part {
    let mut meta = PartMeta::from_extra(F, &r.extra);
    let is_error = match r.status {
        None => {
            meta.vendor.set_hint(F, hints::NO_STATUS, true);
            false
        }
        Some(w::ToolResultStatus::Error) => true,
        Some(w::ToolResultStatus::Success) => false,
        Some(other) => {
            meta.vendor
                .set_field(F, "status", Value::String(other.as_str().to_owned()));
            false
        }
    };
    let mut content = Vec::with_capacity(r.content.len());
    for b in r.content {
        content.push(match b {
            w::ToolResultContentBlock::Json(value) => Part::Json(Json {
                value,
                meta: PartMeta::default(),
            }),
            w::ToolResultContentBlock::Text(t) => text_part(t),
            w::ToolResultContentBlock::Image(i) => decode_image(i).unwrap_or_else(|i| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ToolResultContentBlock::Image(i)),
                )
            }),
            w::ToolResultContentBlock::Document(d) => decode_document(d).unwrap_or_else(|d| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ToolResultContentBlock::Document(d)),
                )
            }),
            w::ToolResultContentBlock::Video(vb) => decode_video(vb).unwrap_or_else(|vb| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ToolResultContentBlock::Video(vb)),
                )
            }),
            other => opaque(ctx, wire_types::to_value(&other)),
        });
    }
    Part::ToolResult(ToolResult {
        call_id: r.tool_use_id,
        name: None,
        content,
        is_error,
        meta,
    })
}

fn decode_reasoning(rc: w::ReasoningContent) -> Result<Part, w::ReasoningContent> {
    match rc {
        w::ReasoningContent::ReasoningText(t) => Ok(Part::Reasoning(Reasoning {
            text: Some(t.text),
            signature: t.signature.map(|value| Signed { value, format: F }),
            source: Some(F),
            meta: PartMeta::from_extra(F, &t.extra),
            ..Default::default()
        })),
        w::ReasoningContent::RedactedContent(value) => Ok(Part::Reasoning(Reasoning {
            encrypted: Some(Signed { value, format: F }),
            source: Some(F),
            ..Default::default()
        })),
        other => Err(other),
    }
}
