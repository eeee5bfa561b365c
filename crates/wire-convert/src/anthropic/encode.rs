//! Encoding requests: neutral messages and parts into Anthropic messages.

use super::settings::{
    encode_max_tokens, encode_output_config, encode_sampling, encode_tool_choice,
    plan_request_reasoning, thinking_on,
};
use super::tools::encode_tools;
use super::{F, IMAGE_TYPES, Place, Turn, encode_cache, hints, part_checks, turn_of};
use crate::ctx::extra_from;
use crate::media::{self, parse_data_url};
use crate::model::{
    self, Media, Message, Part, PartMeta, Reasoning, Role, Source, Text, ToolCall, ToolResult,
};
use crate::passes::{self, thinking};
use crate::util::{ItemPaths, drop_cache, opaque_elsewhere};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use std::collections::HashSet;
use wire_types::anthropic as w;
use wire_types::{Extra, TextOrParts};

/// Encodes a neutral request as a Messages request.
pub(super) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model::Request {
        model,
        messages,
        tools,
        tool_choice,
        settings: mut s,
        output_format,
        vendor: v,
        source: _,
    } = req;
    let model = passes::settings::model_or_blank(model, ctx);
    let mut fields = ctx.vendor_fields(&v, "");
    let known = Known::of(&messages);
    let open_loop = thinking::open_loop_without_own_reasoning(&messages, F);
    let has_tools = !tools.is_empty();
    let tools = match encode_tools(tools, ctx) {
        None if v.flag(F, hints::EMPTY_TOOLS) => Some(Vec::new()),
        t => t,
    };
    let (system, messages) = encode_messages(messages, &known, ctx);

    // Reasoning first: a thinking budget needs room below `max_tokens`, and thinking
    // decides which tool choices are allowed.
    let mut plan = plan_request_reasoning(s.reasoning.take(), &v, open_loop, ctx);
    if let Some(t) = fields.take_as::<w::ThinkingConfig>("thinking") {
        plan.thinking = Some(t);
    }
    let max_tokens = encode_max_tokens(s.max_tokens, plan.budget, &v, ctx);

    let thinking = thinking_on(plan.thinking.as_ref()) && !v.flag(F, hints::FORCED_THINKING);
    let tool_choice = match fields.take_as::<w::ToolChoice>("tool_choice") {
        Some(own) => Some(own),
        None => encode_tool_choice(tool_choice, s.parallel_tool_calls, has_tools, thinking, ctx),
    };
    let output_config = match fields.take_as::<w::OutputConfig>("output_config") {
        Some(own) => Some(own),
        None => encode_output_config(output_format, plan.effort.take(), ctx),
    };
    let sampling = encode_sampling(&s, &v, ctx);

    Ok(w::Request {
        model,
        max_tokens,
        messages,
        system,
        tools,
        tool_choice,
        thinking: plan.thinking,
        temperature: sampling.temperature,
        top_p: sampling.top_p,
        top_k: sampling.top_k,
        stop_sequences: s.stop,
        stream: sampling.stream,
        metadata: fields.take_as("metadata"),
        service_tier: fields.take_as("service_tier"),
        output_config,
        cache_control: fields.take_as("cache_control"),
        container: fields.shift_remove("container"),
        inference_geo: fields.take_as("inference_geo"),
        extra: extra_from(fields, &v, w::Request::FIELDS, "", ctx),
    })
}

/// What the encoder of a part needs to know about the whole request.
#[derive(Debug, Default)]
pub(super) struct Known {
    /// The call ids of the named tool results whose call is not in the conversation
    /// (their name has nowhere to go). Usually empty: only those ids are copied.
    orphans: HashSet<String>,
}

impl Known {
    fn of(messages: &[Message]) -> Known {
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
        Known { orphans }
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
    let mut paths = ItemPaths::new(String::new(), "", "messages");
    for (i, m) in messages.into_iter().enumerate() {
        let at = paths.at(i);
        if m.role.is_system() && !m.vendor.flag(F, hints::INLINE) {
            if !leading {
                ctx.moved(
                    LossCode::SystemMoved,
                    at.to_owned(),
                    "anthropic takes instructions in the top-level `system` only: this mid-conversation system message is appended there",
                );
            }
            top.push((at.to_owned(), m));
            continue;
        }
        if !m.role.is_system() {
            leading = false;
        }
        push_turn(&mut turns, m, (i, at), known, ctx);
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
            !m.vendor.flag(F, hints::PARTS)
                && m.content.len() == 1
                && matches!(m.content.first(), Some(Part::Text(_)))
        });
    let mut parts_hint = false;
    let mut blocks = Vec::new();
    for (at, m) in top {
        parts_hint |= m.vendor.flag(F, hints::PARTS);
        ctx.report_foreign_fields(&m.vendor, &at);
        let mut pat = ItemPaths::new(ctx.buf(), &at, "content");
        for (j, p) in m.content.into_iter().enumerate() {
            encode_part(
                p,
                pat.at(j),
                Place::System,
                &Known::default(),
                &mut blocks,
                ctx,
            );
        }
        ctx.give_back(pat.into_buf());
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
        && !m.vendor.flag(F, hints::PARTS)
        && m.content.len() == 1
        && matches!(m.content.first(), Some(Part::Text(_)));
    let separate = m.vendor.flag(F, hints::SEPARATE);
    let had_content = !m.content.is_empty();
    let Message {
        content,
        mut vendor,
        ..
    } = m;
    let mut blocks = Vec::with_capacity(content.len());
    let mut pat = ItemPaths::new(ctx.buf(), at, "content");
    for (j, p) in content.into_iter().enumerate() {
        encode_part(p, pat.at(j), place, known, &mut blocks, ctx);
    }
    ctx.give_back(pat.into_buf());

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
            ctx.moved(
                LossCode::TurnsChanged,
                at.to_owned(),
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
                ctx.changed(
                    LossCode::TurnsChanged,
                    at.to_owned(),
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
    let extra = extra_from(fields, &vendor, w::Message::FIELDS, at, ctx);
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
        ctx.dropped(
            LossCode::TurnsChanged,
            format!("/messages/{first}"),
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
pub(super) fn encode_part(
    p: Part,
    at: &str,
    place: Place,
    known: &Known,
    out: &mut Vec<w::ContentBlock>,
    ctx: &mut Ctx<'_>,
) {
    let nowhere = |ctx: &mut Ctx<'_>, what: &str| {
        ctx.dropped(
            LossCode::PartUnsupported,
            at.to_owned(),
            format!("{what} has no place in {} for anthropic", place.describe()),
        );
    };
    match p {
        Part::Text(t) => out.push(w::ContentBlock::Text(encode_text(t, at, ctx))),
        Part::Refusal(t) => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                "anthropic has no refusal part: sent as text",
            );
            out.push(w::ContentBlock::Text(encode_text(t, at, ctx)));
        }
        Part::Json(j) => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                "a JSON part is sent as a text block holding its JSON",
            );
            let text = Text {
                text: j.value.to_string(),
                meta: j.meta,
            };
            out.push(w::ContentBlock::Text(encode_text(text, at, ctx)));
        }
        Part::Image(m) if place.media() => out.extend(encode_media(MediaKind::Image, m, at, ctx)),
        Part::Document(m) if place.media() => {
            out.extend(encode_media(MediaKind::Document, m, at, ctx));
        }
        Part::Image(_) => nowhere(ctx, "an image"),
        Part::Document(_) => nowhere(ctx, "a document"),
        Part::Audio(_) => ctx.dropped(
            LossCode::PartUnsupported,
            at.to_owned(),
            "anthropic takes no audio input",
        ),
        Part::ToolCall(c) if place.model() => out.push(encode_call(c, at, ctx)),
        Part::ToolCall(_) => nowhere(ctx, "a tool call"),
        Part::ToolResult(r) if place == Place::User => out.push(encode_result(r, at, known, ctx)),
        Part::ToolResult(_) => nowhere(ctx, "a tool result"),
        Part::Reasoning(r) if place.model() => encode_reasoning(r, at, out, ctx),
        Part::Reasoning(_) => nowhere(ctx, "reasoning"),
        Part::Opaque(o) if o.format == F => {
            match serde_json::from_value::<w::ContentBlock>(o.value) {
                Ok(b) => out.push(b),
                Err(e) => ctx.dropped(
                    LossCode::PartUnsupported,
                    at.to_owned(),
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
    let citations = fields.take_as("citations");
    let cache_control = encode_cache(t.meta.cache, &mut fields, at, ctx);
    w::TextBlock {
        text: t.text,
        citations,
        cache_control,
        extra: extra_from(fields, &t.meta.vendor, w::TextBlock::FIELDS, at, ctx),
    }
}

/// An image or document block; `None`, with a loss, when the part has no Anthropic form.
fn encode_media(kind: MediaKind, m: Media, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentBlock> {
    part_checks(&m.meta, at, ctx);
    let source = media_source(kind, m.source, m.media_type.as_deref(), &m.meta, at, ctx)?;
    let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
    let block = match kind {
        MediaKind::Image => {
            if m.name.is_some() {
                ctx.dropped(
                    LossCode::PartChanged,
                    format!("{at}/name"),
                    "anthropic images have no name",
                );
            }
            let cache_control = encode_cache(m.meta.cache, &mut fields, at, ctx);
            w::ContentBlock::Image(w::ImageBlock {
                source,
                cache_control,
                extra: extra_from(fields, &m.meta.vendor, w::ImageBlock::FIELDS, at, ctx),
            })
        }
        MediaKind::Document => {
            let context = fields.take_as("context");
            let citations = fields.take_as("citations");
            let cache_control = encode_cache(m.meta.cache, &mut fields, at, ctx);
            w::ContentBlock::Document(w::DocumentBlock {
                source,
                title: m.name,
                context,
                citations,
                cache_control,
                extra: extra_from(fields, &m.meta.vendor, w::DocumentBlock::FIELDS, at, ctx),
            })
        }
    };
    Some(block)
}

/// The block a media part becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MediaKind {
    Image,
    Document,
}

/// The source of an image or document block (`media_type`: the part's): base64 data, a
/// `data:` URL's included, if its media type is one Anthropic takes there; another URL and
/// a Files API id as they are; text as a plain-text document (no image is text). `None`,
/// with a loss, when it has no Anthropic form.
fn media_source(
    kind: MediaKind,
    source: Source,
    media_type: Option<&str>,
    meta: &PartMeta,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::Source> {
    let data = |media_type: Option<&str>, data: String, ctx: &mut Ctx<'_>| match kind {
        MediaKind::Image => image_data(media_type, data, at, ctx),
        MediaKind::Document => document_data(media_type, data, at, ctx),
    };
    match source {
        Source::Base64 { data: d } => data(media_type, d, ctx),
        Source::Url { url } => match parse_data_url(&url) {
            Some((media_type, d)) => data(Some(&media_type), d, ctx),
            None => {
                let not_pdf = media_type.filter(|t| *t != "application/pdf");
                if let (MediaKind::Document, Some(t)) = (kind, not_pdf) {
                    ctx.changed(
                        LossCode::PartChanged,
                        format!("{at}/media_type"),
                        format!("anthropic reads a document URL as a PDF (this one is `{t}`)"),
                    );
                }
                Some(w::Source::Url(w::UrlSource {
                    url,
                    extra: Extra::new(),
                }))
            }
        },
        Source::FileId { file_id } => {
            // A Files API id from another format names nothing on Anthropic's side.
            if !meta.vendor.flag(F, hints::FILE) {
                ctx.changed(
                    LossCode::PartChanged,
                    format!("{at}/source"),
                    format!("file id `{file_id}` is sent as an anthropic Files API id: it must name a file uploaded to anthropic"),
                );
            }
            Some(w::Source::File(w::FileSource {
                file_id,
                extra: Extra::new(),
            }))
        }
        Source::Text { text } => match kind {
            MediaKind::Document => Some(text_document(text, media_type, at, ctx)),
            MediaKind::Image => {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at.to_owned(),
                    "an image given as text has no anthropic form",
                );
                None
            }
        },
    }
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
        None => media::sniff_image(&data),
    };
    match media_type {
        Some(t) if IMAGE_TYPES.contains(&t) => Some(w::Source::Base64(w::DataSource {
            media_type: t.to_owned(),
            data,
            extra: Extra::new(),
        })),
        other => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!(
                    "anthropic takes JPEG, PNG, GIF and WebP images, not {}",
                    other.unwrap_or("an image of unknown type")
                ),
            );
            None
        }
    }
}

/// A base64 document source: a PDF as it is, a `text/*` document as a text source.
pub(super) fn document_data(
    media_type: Option<&str>,
    data: String,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::Source> {
    match media_type.or_else(|| media::sniff_pdf(&data)) {
        Some("application/pdf") => Some(w::Source::Base64(w::DataSource {
            media_type: "application/pdf".to_owned(),
            data,
            extra: Extra::new(),
        })),
        Some(t) if t.starts_with("text/") => {
            match media::decode_base64(&data).and_then(|b| String::from_utf8(b).ok()) {
                Some(text) => Some(text_document(text, Some(t), at, ctx)),
                None => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at.to_owned(),
                        format!("a `{t}` document that is not UTF-8 base64 has no anthropic form"),
                    );
                    None
                }
            }
        }
        other => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!(
                    "anthropic takes PDF and plain-text documents, not {}",
                    other.unwrap_or("a document of unknown type")
                ),
            );
            None
        }
    }
}

/// A plain-text document source; a `text/*` media type other than `text/plain` is a loss.
fn text_document(text: String, media_type: Option<&str>, at: &str, ctx: &mut Ctx<'_>) -> w::Source {
    if let Some(t) = media_type.filter(|t| *t != "text/plain") {
        ctx.changed(
            LossCode::PartChanged,
            format!("{at}/media_type"),
            format!("anthropic text documents are text/plain (this one is `{t}`)"),
        );
    }
    w::Source::Text(w::DataSource {
        media_type: "text/plain".to_owned(),
        data: text,
        extra: Extra::new(),
    })
}

fn encode_call(mut c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ContentBlock {
    part_checks(&c.meta, at, ctx);
    let mut fields = ctx.take_vendor_fields(&mut c.meta.vendor, at);
    let caller = ctx.take_fit(&mut fields, "caller", at).or_else(|| {
        c.meta.vendor.flag(F, hints::DIRECT_CALLER).then(|| {
            Box::new(w::Caller {
                kind: "direct".to_owned(),
                tool_id: None,
                extra: Default::default(),
            })
        })
    });
    let cache_control = encode_cache(c.meta.cache, &mut fields, at, ctx);
    let input = passes::object_arguments(c.arguments, at, ctx).into_wire();
    w::ContentBlock::ToolUse(w::ToolUseBlock {
        id: c.id,
        name: c.name,
        input,
        caller,
        cache_control,
        extra: extra_from(fields, &c.meta.vendor, w::ToolUseBlock::FIELDS, at, ctx),
    })
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
        ctx.dropped(
            LossCode::PartChanged,
            format!("{at}/name"),
            format!("anthropic tool results carry no tool name, and the call of `{name}` is not in the conversation"),
        );
    }
    let mut meta = meta;
    let mut fields = ctx.take_vendor_fields(&mut meta.vendor, at);
    let v = &meta.vendor;
    let cache_control = encode_cache(meta.cache.clone(), &mut fields, at, ctx);
    let parts_hint = v.flag(F, hints::PARTS);
    let string =
        !parts_hint && content.len() == 1 && matches!(content.first(), Some(Part::Text(_)));
    let mut blocks = Vec::with_capacity(content.len());
    let mut pat = ItemPaths::new(ctx.buf(), at, "content");
    for (k, p) in content.into_iter().enumerate() {
        encode_part(
            p,
            pat.at(k),
            Place::Nested,
            &Known::default(),
            &mut blocks,
            ctx,
        );
    }
    ctx.give_back(pat.into_buf());
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
        v.flag(F, hints::IS_ERROR_FALSE).then_some(false)
    };
    w::ContentBlock::ToolResult(w::ToolResultBlock {
        tool_use_id: call_id,
        content,
        is_error,
        cache_control,
        extra: extra_from(fields, v, w::ToolResultBlock::FIELDS, at, ctx),
    })
}

fn encode_reasoning(r: Reasoning, at: &str, out: &mut Vec<w::ContentBlock>, ctx: &mut Ctx<'_>) {
    part_checks(&r.meta, at, ctx);
    drop_cache(ctx, &r.meta, at);
    let Some(view) = ctx.reasoning(&r, at) else {
        return;
    };
    let detail = |from: &str| {
        format!("anthropic accepts only thinking it signed: reasoning from {from} is dropped")
    };
    if !thinking::claude_takes(&r, &view, at, detail, ctx) {
        return;
    }
    if !view.summary.is_empty() {
        ctx.dropped(
            LossCode::ReasoningDropped,
            format!("{at}/summary"),
            "anthropic thinking blocks have no summaries",
        );
    }
    if r.id.is_some() {
        ctx.dropped(
            LossCode::PartChanged,
            format!("{at}/id"),
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
        at,
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
