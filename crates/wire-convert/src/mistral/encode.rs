//! Encoding requests: neutral messages and parts into Mistral messages.

use super::hints::{
    ARGS_JSON, CLOSED, IMAGE_URL_STRING, INDEX, NO_ID, NO_NAME, PARTS, ROLE, THINKING_CHUNKS,
};
use super::settings::{encode_output_format, encode_settings, encode_tool_choice};
use super::tools::encode_tools;
use super::{F, FUNCTION_FIELD};
use crate::ctx::extra_from;
use crate::media::data_url;
use crate::model::{
    self, Json, Message, Part, PartMeta, Role, Source, Text, ToolCall, ToolResult, Vendor,
};
use crate::passes;
use crate::passes::results;
use crate::passes::tools::function_type;
use crate::util::{self, Place, drop_cache_and_signature};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::mistral as w;
use wire_types::{Extra, TextOrParts};

/// The assistant message inserted between tool results and a user message from another
/// format (Mistral rejects a user message right after tool results).
pub(super) const BRIDGE: &str = "OK.";

/// Encodes a neutral request as a Mistral chat request.
pub(crate) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model = passes::settings::model_or_blank(req.model, ctx);
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let tools = encode_tools(req.tools, ctx);
    let mut messages = Vec::with_capacity(req.messages.len());
    let roles: Vec<Role> = req.messages.iter().map(|m| m.role).collect();
    // Images of tool results, for the user message that follows them.
    let mut carried = Vec::new();
    for (i, m) in req.messages.into_iter().enumerate() {
        let next_user = roles.get(i + 1) == Some(&Role::User);
        let tool = m.role == Role::Tool;
        encode_message(m, i, next_user, &mut carried, &mut messages, ctx);
        if tool && next_user && ctx.source != Some(F) {
            // "Unexpected role 'user' after role 'tool'": Mistral wants the model's turn
            // between the results and the user's next words (Anthropic puts both in one
            // user turn; OpenAI takes them in a row).
            ctx.changed(
                LossCode::TurnsChanged,
                format!("/messages/{}", i + 1),
                format!(
                    "mistral rejects a user message right after tool results: an assistant message `{BRIDGE}` is inserted before it"
                ),
            );
            messages.push(w::Message::Assistant(w::AssistantMessage {
                content: Some(TextOrParts::Text(BRIDGE.to_owned())),
                ..Default::default()
            }));
        }
    }
    let tool_choice = match req.tool_choice {
        Some(c) => Some(encode_tool_choice(c, &v, ctx)),
        None => fields.take_as("tool_choice"),
    };
    let mut out = w::Request {
        model,
        messages,
        tools,
        tool_choice,
        ..Default::default()
    };
    encode_settings(req.settings, &v, &mut fields, &mut out, ctx);
    out.response_format = match req.output_format {
        None => fields.take_as("response_format"),
        Some(f) => Some(encode_output_format(f)),
    };
    out.n = fields.take_as("n");
    out.prediction = fields.shift_remove("prediction");
    out.prompt_mode = fields.take_as("prompt_mode");
    out.safe_prompt = fields.take_as("safe_prompt");
    out.extra = extra_from(fields, &v, w::Request::FIELDS, "", ctx);
    Ok(out)
}

/// Encodes message `i`. `next_user` says whether a user message follows it; `carried`
/// holds the images of tool results waiting for that user message.
fn encode_message(
    m: Message,
    i: usize,
    next_user: bool,
    carried: &mut Vec<w::ContentChunk>,
    out: &mut Vec<w::Message>,
    ctx: &mut Ctx<'_>,
) {
    let at = format!("/messages/{i}");
    match m.role {
        Role::System | Role::Developer => {
            let fields = ctx.vendor_fields(&m.vendor, &at);
            let parts = m.content.into_iter().enumerate().collect();
            let content = encode_content(parts, &m.vendor, &at, Place::System, ctx);
            out.push(w::Message::System(w::SystemMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                extra: extra_from(fields, &m.vendor, w::SystemMessage::FIELDS, &at, ctx),
            }));
        }
        Role::User => {
            let fields = ctx.vendor_fields(&m.vendor, &at);
            let parts = m.content.into_iter().enumerate().collect();
            let mut content = encode_content(parts, &m.vendor, &at, Place::User, ctx);
            if !carried.is_empty() {
                // The images of the results just before, ahead of what the user says.
                let mut chunks = std::mem::take(carried);
                match content {
                    Some(TextOrParts::Text(t)) if !t.is_empty() => chunks.push(text_chunk(t)),
                    Some(TextOrParts::Parts(p)) => chunks.extend(p),
                    _ => {}
                }
                content = Some(TextOrParts::Parts(chunks));
            }
            out.push(w::Message::User(w::UserMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                extra: extra_from(fields, &m.vendor, w::UserMessage::FIELDS, &at, ctx),
            }));
        }
        Role::Assistant => {
            let t = encode_turn(m, &at, ctx);
            out.push(w::Message::Assistant(w::AssistantMessage {
                content: t.content,
                tool_calls: t.tool_calls,
                prefix: t.prefix,
                extra: t.extra,
            }));
        }
        Role::Tool => {
            let mut moved = Vec::new();
            util::tool_results(m.content, &at, ctx, |r, pat, ctx| {
                out.push(encode_result(r, pat, &mut moved, ctx));
            });
            // Mistral rejects a user message right after tool results ("Unexpected role
            // 'user' after role 'tool'"): the images join the user message that follows
            // anyway, if there is one; otherwise they cannot be sent.
            for (pat, chunk) in moved {
                if next_user {
                    ctx.moved(
                        LossCode::PartUnsupported,
                        pat,
                        "mistral tool messages carry no images: this image is sent at the start of the user message after the results",
                    );
                    carried.push(chunk);
                } else {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        pat,
                        "mistral tool messages carry no images, and mistral takes no user message right after tool results",
                    );
                }
            }
        }
    }
}

/// Encodes parts (with their neutral indices) as content: the string form for one plain
/// text part (unless the source used chunks), chunks otherwise. `None` when nothing is
/// left.
fn encode_content(
    parts: Vec<(usize, Part)>,
    v: &Vendor,
    at: &str,
    place: Place,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::ContentChunk>> {
    // Mistral's own chunk list is written back as it came; otherwise an empty text part
    // (a Gemini signature-only part, say) is not sent as an empty chunk.
    util::encode_items(parts, v.flag(F, PARTS), at, ctx, |p, pat, ctx| {
        let allowed = matches!(
            (&p, place),
            (
                Part::Text(_) | Part::Refusal(_) | Part::Json(_) | Part::Opaque(_),
                _
            ) | (Part::Reasoning(_), Place::Assistant)
                | (
                    Part::Image(_) | Part::Audio(_) | Part::Document(_),
                    Place::User | Place::Tool
                )
        );
        if !allowed {
            let role = place.name();
            ctx.dropped(
                LossCode::PartUnsupported,
                pat.to_owned(),
                format!("mistral {role} messages carry no {} parts", p.kind()),
            );
            return None;
        }
        encode_chunk(p, pat, ctx)
    })
}

util::text_item!(w::ContentChunk, w::ContentChunk::Text, text_chunk);

/// A text chunk with nothing but its text.
fn text_chunk(text: String) -> w::ContentChunk {
    w::ContentChunk::Text(w::TextChunk {
        text,
        extra: Extra::new(),
    })
}

/// One content chunk. Tool calls and results are handled by the callers.
fn encode_chunk(p: Part, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentChunk> {
    drop_cache_and_signature(p.meta(), at, ctx);
    match p {
        Part::Text(t) => Some(w::ContentChunk::Text(w::TextChunk {
            text: t.text,
            extra: ctx.extra(&t.meta.vendor, w::TextChunk::FIELDS, at),
        })),
        Part::Refusal(t) => Some(text_chunk(util::refusal_as_text(t, at, ctx))),
        Part::Json(Json { value, meta }) => {
            ctx.report_foreign_fields(&meta.vendor, at);
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                "a JSON part is sent as its JSON text",
            );
            Some(text_chunk(value.to_string()))
        }
        Part::Image(m) => {
            let (detail, vendor) = util::shared_image_detail(&m.meta.vendor, F);
            let mut fields = ctx.vendor_fields(&vendor, at);
            let detail = detail.or_else(|| {
                fields
                    .shift_remove("detail")
                    .and_then(|d| d.as_str().map(str::to_owned))
            });
            let url = crate::media::image_url(m.source, m.media_type.as_deref(), F, at, ctx)?;
            util::drop_image_name(m.name.as_deref(), at, ctx);
            let image_url = if m.meta.vendor.flag(F, IMAGE_URL_STRING) && detail.is_none() {
                w::ImageUrlValue::Url(url)
            } else {
                w::ImageUrlValue::Object(w::ImageUrl {
                    url,
                    detail,
                    extra: Extra::new(),
                })
            };
            Some(w::ContentChunk::ImageUrl(w::ImageUrlChunk {
                image_url,
                extra: extra_from(fields, &vendor, w::ImageUrlChunk::FIELDS, at, ctx),
            }))
        }
        Part::Audio(m) => {
            let fields = ctx.vendor_fields(&m.meta.vendor, at);
            let input_audio = match m.source {
                Source::Base64 { data } => data,
                Source::Url { url } => url,
                Source::FileId { .. } | Source::Text { .. } => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at.to_owned(),
                        "mistral takes audio as base64 or a URL only",
                    );
                    return None;
                }
            };
            Some(w::ContentChunk::InputAudio(w::InputAudioChunk {
                input_audio,
                extra: extra_from(fields, &m.meta.vendor, w::InputAudioChunk::FIELDS, at, ctx),
            }))
        }
        Part::Document(m) => {
            let fields = ctx.vendor_fields(&m.meta.vendor, at);
            match m.source {
                Source::Url { url } => Some(w::ContentChunk::DocumentUrl(w::DocumentUrlChunk {
                    document_url: url,
                    document_name: m.name,
                    extra: extra_from(fields, &m.meta.vendor, w::DocumentUrlChunk::FIELDS, at, ctx),
                })),
                Source::Base64 { data } => {
                    Some(w::ContentChunk::DocumentUrl(w::DocumentUrlChunk {
                        document_url: data_url(m.media_type.as_deref(), &data),
                        document_name: m.name,
                        extra: extra_from(
                            fields,
                            &m.meta.vendor,
                            w::DocumentUrlChunk::FIELDS,
                            at,
                            ctx,
                        ),
                    }))
                }
                Source::FileId { file_id } => {
                    if let Some(name) = &m.name {
                        ctx.dropped(
                            LossCode::PartChanged,
                            format!("{at}/name"),
                            format!("mistral file chunks have no name (`{name}`)"),
                        );
                    }
                    Some(w::ContentChunk::File(w::FileChunk {
                        file_id,
                        extra: extra_from(fields, &m.meta.vendor, w::FileChunk::FIELDS, at, ctx),
                    }))
                }
                Source::Text { text } => {
                    ctx.changed(
                        LossCode::PartAsText,
                        at.to_owned(),
                        "mistral has no text documents: sent as a text chunk",
                    );
                    Some(text_chunk(text))
                }
            }
        }
        Part::Reasoning(r) => encode_thinking(r, at, ctx),
        Part::Opaque(o) => util::opaque_item(o, at, ctx, text_chunk),
        Part::ToolCall(_) | Part::ToolResult(_) => {
            util::drop_misplaced_call(at, ctx);
            None
        }
    }
}

/// A `thinking` chunk; the chunk list of Mistral's own reasoning comes back as it came.
fn encode_thinking(r: model::Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentChunk> {
    let own = r.source == Some(F) && r.signature.is_none() && r.encrypted.is_none();
    let text = if own {
        r.text.clone().unwrap_or_default()
    } else {
        util::reasoning_text(&r, at, ctx)?
    };
    let v = &r.meta.vendor;
    let kept: Option<Vec<w::ContentChunk>> = v
        .hint(F, THINKING_CHUNKS)
        .and_then(|c| serde_json::from_value(c.clone()).ok());
    let thinking = match kept {
        Some(chunks)
            if w::thinking_text(&w::ThinkingChunk {
                thinking: chunks.clone(),
                closed: None,
                extra: Extra::new(),
            }) == text =>
        {
            chunks
        }
        _ => vec![text_chunk(text)],
    };
    Some(w::ContentChunk::Thinking(w::ThinkingChunk {
        thinking,
        closed: v.hint(F, CLOSED).and_then(Value::as_bool),
        extra: ctx.extra(v, w::ThinkingChunk::FIELDS, at),
    }))
}

/// The parts of an assistant turn, encoded.
pub(super) struct EncodedTurn {
    pub(super) role: Option<String>,
    pub(super) content: Option<TextOrParts<w::ContentChunk>>,
    pub(super) tool_calls: Option<Vec<w::ToolCall>>,
    pub(super) prefix: Option<bool>,
    pub(super) extra: Extra,
}

pub(super) fn encode_turn(m: Message, at: &str, ctx: &mut Ctx<'_>) -> EncodedTurn {
    let v = m.vendor;
    let mut fields = ctx.vendor_fields(&v, at);
    let mut content = Vec::new();
    let mut calls = Vec::new();
    for (j, p) in m.content.into_iter().enumerate() {
        match p {
            Part::ToolCall(c) => calls.push(encode_call(c, &format!("{at}/content/{j}"), ctx)),
            other => content.push((j, other)),
        }
    }
    let content = encode_content(content, &v, at, Place::Assistant, ctx);
    let role = v.hint(F, ROLE).and_then(Value::as_str).map(str::to_owned);
    let prefix = fields.take_as("prefix");
    EncodedTurn {
        role,
        content,
        tool_calls: (!calls.is_empty()).then_some(calls),
        prefix,
        extra: extra_from(fields, &v, w::AssistantMessage::FIELDS, at, ctx),
    }
}

fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ToolCall {
    drop_cache_and_signature(&c.meta, at, ctx);
    let v = &c.meta.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    let arguments = util::write_arguments(c.arguments, v.flag(F, ARGS_JSON));
    let kind = function_type(v, at, &mut fields, ctx);
    let function_extra = util::take_prefixed(&mut fields, FUNCTION_FIELD);
    let function_extra =
        ctx.unknown_only(function_extra, w::FunctionCall::FIELDS, (at, "/function"));
    w::ToolCall {
        id: (!v.flag(F, NO_ID)).then_some(c.id),
        kind,
        function: w::FunctionCall {
            name: c.name,
            arguments,
            extra: Extra::from(function_extra),
        },
        index: v
            .hint(F, INDEX)
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok()),
        extra: extra_from(fields, v, w::ToolCall::FIELDS, at, ctx),
    }
}

/// A `tool` message for a result. Mistral takes no images in tool results (providers.md
/// §10.10): another format's images go to `moved` with their neutral pointers (the
/// caller says where they go); Mistral's own chunk list is written back as it came.
fn encode_result(
    r: ToolResult,
    at: &str,
    moved: &mut Vec<(String, w::ContentChunk)>,
    ctx: &mut Ctx<'_>,
) -> w::Message {
    let v = &r.meta.vendor;
    let fields = ctx.vendor_fields(v, at);
    drop_cache_and_signature(&r.meta, at, ctx);
    // A structured result is the tool's answer: its JSON text is the content.
    let mut parts = Vec::with_capacity(r.content.len());
    for (k, p) in r.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{k}");
        if matches!(p, Part::Image(_)) && !v.flag(F, PARTS) {
            if let Some(chunk) = encode_chunk(p, &pat, ctx) {
                moved.push((pat, chunk));
            }
            continue;
        }
        parts.push((
            k,
            match p {
                Part::Json(j) => {
                    drop_cache_and_signature(&j.meta, &pat, ctx);
                    ctx.report_foreign_fields(&j.meta.vendor, &pat);
                    Part::Text(Text {
                        text: j.value.to_string(),
                        meta: PartMeta::default(),
                    })
                }
                other => other,
            },
        ));
    }
    let content = encode_content(parts, v, at, Place::Tool, ctx);
    let content = results::error_as_text(content, r.is_error, at, ctx);
    w::Message::Tool(w::ToolMessage {
        content: content.unwrap_or(TextOrParts::Text(String::new())),
        tool_call_id: Some(r.call_id),
        name: if v.flag(F, NO_NAME) { None } else { r.name },
        extra: extra_from(fields, v, w::ToolMessage::FIELDS, at, ctx),
    })
}
