//! Decoding requests: Anthropic messages and their parts into the neutral model.

use super::settings::{
    decode_output_config, decode_sampling, decode_thinking, decode_tool_choice, thinking_on,
};
use super::tools::decode_tool;
use super::{F, IMAGE_TYPES, Place, Turn, decode_cache, hints, turn_of};
use crate::model::{
    self, Media, Message, Part, PartMeta, Reasoning, Role, Settings, Signed, Source, Text,
    ToolCall, ToolResult, Vendor,
};
use crate::passes::request::open_request;
use crate::passes::thinking;
use crate::util::{self, opaque, set_path};
use crate::{Ctx, Error};
use wire_types::TextOrParts;
use wire_types::anthropic as w;

/// Decodes a Messages request.
pub(super) fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
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
    let (mut out, mut v) = open_request(model, &extra, F);

    // Combinations the API rejects with thinking on: the encoder repairs them for other
    // formats, and writes them back unchanged when the source itself sent them.
    let thinking_on = thinking_on(thinking.as_ref());
    if thinking_on {
        if matches!(
            tool_choice,
            Some(w::ToolChoice::Any(_) | w::ToolChoice::Tool(_))
        ) {
            v.set_hint(F, hints::FORCED_THINKING, true);
        }
        if let Some(w::ThinkingConfig::Enabled(e)) = &thinking {
            if e.budget_tokens >= max_tokens {
                v.set_hint(F, hints::BUDGET_OVER_MAX, true);
            }
        }
    }

    if let Some(system) = system {
        out.messages.push(decode_system(system, ctx));
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
                msg.vendor.set_hint(F, hints::INLINE, true);
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
            msg.vendor.merge(Vendor::from_extra(F, &extra, &[]));
            if prev.is_some() && turn_of(msg) == prev {
                msg.vendor.set_hint(F, hints::SEPARATE, true);
            }
        }
        prev = out.messages.last().and_then(turn_of);
    }

    if tools.as_ref().is_some_and(Vec::is_empty) {
        v.set_hint(F, hints::EMPTY_TOOLS, true);
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
    decode_sampling(&s, &mut v, ctx);
    out.tool_choice = decode_tool_choice(tool_choice, &mut s, &mut v, ctx);
    let mut reasoning = decode_thinking(thinking, &mut v, ctx);
    out.output_format = decode_output_config(output_config, &mut reasoning, &mut v, ctx);
    s.reasoning = reasoning;
    out.settings = s;

    v.keep(F, "metadata", &metadata);
    v.keep(F, "service_tier", &service_tier);
    v.keep(F, "cache_control", &cache_control);
    v.keep(F, "container", &container);
    v.keep(F, "inference_geo", &inference_geo);
    if thinking_on && thinking::open_loop_without_own_reasoning(&out.messages, F) {
        v.set_hint(F, hints::OPEN_LOOP_THINKING, true);
    }
    out.vendor = v;
    Ok(out)
}

/// The top-level `system`: one leading system message.
fn decode_system(system: TextOrParts<w::ContentBlock>, ctx: &mut Ctx<'_>) -> Message {
    let mut msg = Message::new(Role::System, Vec::new());
    ctx.map("/messages/0", "/system");
    match system {
        TextOrParts::Text(s) => {
            ctx.map("/messages/0/content/0", "/system");
            msg.content.push(Part::text(s));
        }
        TextOrParts::Parts(blocks) => {
            msg.vendor.set_hint(F, hints::PARTS, true);
            for (j, b) in blocks.into_iter().enumerate() {
                ctx.map(
                    format_args!("/messages/0/content/{j}"),
                    format_args!("/system/{j}"),
                );
                msg.content.push(decode_block(b, Place::System, ctx));
            }
        }
    }
    msg
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
    msg.vendor.set_hint(F, hints::PARTS, true);
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
            msg.vendor.set_hint(F, hints::PARTS, true);
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
pub(super) fn decode_block(b: w::ContentBlock, place: Place, ctx: &Ctx<'_>) -> Part {
    match b {
        w::ContentBlock::Text(t) => {
            let mut meta = PartMeta::from_extra(F, &t.extra);
            meta.vendor.keep(F, "citations", &t.citations);
            decode_cache(t.cache_control, &mut meta.cache, &mut meta.vendor);
            Part::Text(Text { text: t.text, meta })
        }
        w::ContentBlock::Image(i) if place.media() && image_ok(&i.source) => {
            let (source, media_type, file) = source_of(i.source);
            let mut meta = PartMeta::from_extra(F, &i.extra);
            if file {
                meta.vendor.set_hint(F, hints::FILE, true);
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
            let mut meta = PartMeta::from_extra(F, &d.extra);
            if file {
                meta.vendor.set_hint(F, hints::FILE, true);
            }
            meta.vendor.keep(F, "context", &d.context);
            meta.vendor.keep(F, "citations", &d.citations);
            decode_cache(d.cache_control, &mut meta.cache, &mut meta.vendor);
            Part::Document(Media {
                source,
                media_type,
                name: d.title,
                meta,
            })
        }
        w::ContentBlock::ToolUse(u) if place.model() => {
            let mut meta = PartMeta::from_extra(F, &u.extra);
            match u.caller.as_deref() {
                // A direct call is what a call is in every format: only the spelling is
                // kept (a hint), so writing the call elsewhere loses nothing.
                Some(c) if c.kind == "direct" && c.tool_id.is_none() && c.extra.is_empty() => {
                    meta.vendor.set_hint(F, hints::DIRECT_CALLER, true);
                }
                // A call made by code execution (programmatic tool calling) is Anthropic's.
                _ => meta.vendor.keep(F, "caller", &u.caller),
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
            meta: PartMeta::from_extra(F, &t.extra),
            ..Default::default()
        }),
        w::ContentBlock::RedactedThinking(r) if place.model() => Part::Reasoning(Reasoning {
            encrypted: Some(Signed {
                value: r.data,
                format: F,
            }),
            source: Some(F),
            meta: PartMeta::from_extra(F, &r.extra),
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
    let mut meta = PartMeta::from_extra(F, &extra);
    decode_cache(cache_control, &mut meta.cache, &mut meta.vendor);
    if is_error == Some(false) {
        meta.vendor.set_hint(F, hints::IS_ERROR_FALSE, true);
    }
    let mut parts = Vec::new();
    match content {
        None => {}
        Some(TextOrParts::Text(s)) => parts.push(Part::text(s)),
        Some(TextOrParts::Parts(blocks)) => {
            meta.vendor.set_hint(F, hints::PARTS, true);
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
