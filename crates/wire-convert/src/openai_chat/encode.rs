//! Encoding requests: neutral messages and parts into OpenAI Chat messages.

use super::F;
use super::hints::{
    ARGS_JSON, EMPTY_FILE, FLAT, FUNCTION_ROLE, NO_ID, PARTS, RAW_FILE_DATA, REFUSAL_FIELD,
};
use super::settings::{encode_output_format, encode_settings, encode_tool_choice};
use super::tools::encode_tools;
use crate::ctx::extra_from;
use crate::media::data_url;
use crate::model::{self, Json, Message, Part, Role, Source, ToolCall, ToolResult, Vendor};
use crate::passes;
use crate::passes::tools::function_type;
use crate::util::{self, drop_cache, drop_cache_and_signature, opaque_elsewhere, set_path};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::openai_chat as w;
use wire_types::{Extra, TextOrParts};

/// Encodes a neutral request as Chat Completions.
pub(crate) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model = passes::settings::model_or_blank(req.model, ctx);
    let mut tools = encode_tools(req.tools, ctx);
    // Built-in tools that are request fields here (`web_search_options`).
    let builtin_fields = std::mem::take(&mut ctx.request_fields);
    if !builtin_fields.is_empty() && tools.as_ref().is_some_and(Vec::is_empty) {
        tools = None;
    }
    // A neutral tool message becomes one message per result.
    let count = req
        .messages
        .iter()
        .map(|m| match m.role {
            Role::Tool => m.content.len().max(1),
            _ => 1,
        })
        .sum();
    let mut messages = Vec::with_capacity(count);
    for (i, m) in req.messages.into_iter().enumerate() {
        encode_message(m, i, &mut messages, ctx);
    }
    let mut out = w::Request {
        model,
        messages,
        tools,
        tool_choice: req.tool_choice.map(encode_tool_choice),
        parallel_tool_calls: None,
        response_format: req.output_format.map(encode_output_format),
        max_tokens: None,
        max_completion_tokens: None,
        temperature: None,
        top_p: None,
        n: None,
        stop: None,
        seed: None,
        presence_penalty: None,
        frequency_penalty: None,
        logit_bias: None,
        logprobs: None,
        top_logprobs: None,
        reasoning_effort: None,
        stream: None,
        stream_options: None,
        store: None,
        metadata: None,
        service_tier: None,
        user: None,
        functions: None,
        function_call: None,
        extra: ctx.extra(&req.vendor, w::Request::FIELDS, ""),
    };
    for (key, value, at) in builtin_fields {
        if out.extra.get(&key).is_some() {
            let detail = format!("a second web search: {F} has one `{key}`");
            ctx.dropped(LossCode::ToolUnsupported, at, detail);
            continue;
        }
        out.extra.insert(key, value);
    }
    encode_settings(req.settings, &req.vendor, &mut out, ctx);
    Ok(out)
}

/// Appends the wire messages of neutral message `i` to `out` (a tool message becomes one
/// message per result).
fn encode_message(m: Message, i: usize, out: &mut Vec<w::Message>, ctx: &mut Ctx<'_>) {
    let mut at_buf = ctx.buf();
    set_path(&mut at_buf, "", "messages", i);
    let at = at_buf.as_str();
    match m.role {
        Role::System | Role::Developer | Role::User => {
            let mut fields = ctx.vendor_fields(&m.vendor, at);
            let name = fields.take_as("name");
            let content = encode_content(m.content, &m.vendor, at, ctx)
                .unwrap_or(TextOrParts::Text(String::new()));
            out.push(match m.role {
                Role::User => w::Message::User(w::UserMessage {
                    content,
                    name,
                    extra: extra_from(fields, &m.vendor, w::UserMessage::FIELDS, at, ctx),
                }),
                role => {
                    let msg = w::SystemMessage {
                        content,
                        name,
                        extra: extra_from(fields, &m.vendor, w::SystemMessage::FIELDS, at, ctx),
                    };
                    if role == Role::System {
                        w::Message::System(msg)
                    } else {
                        w::Message::Developer(msg)
                    }
                }
            });
        }
        Role::Assistant => out.push(w::Message::Assistant(encode_assistant(m, at, ctx))),
        Role::Tool => {
            let mut moved: Vec<w::ContentPart> = Vec::new();
            util::tool_results(m.content, at, ctx, |r, pat, ctx| {
                out.push(encode_result(r, pat, &mut moved, ctx));
            });
            if !moved.is_empty() {
                out.push(w::Message::User(w::UserMessage {
                    content: TextOrParts::Parts(moved),
                    name: None,
                    extra: Extra::new(),
                }));
            }
        }
    }
    ctx.give_back(at_buf);
}

/// The `tool` message (or deprecated `function` message) of a result. Its images, audio
/// and documents go to `moved`, for a user message after the results.
fn encode_result(
    r: ToolResult,
    at: &str,
    moved: &mut Vec<w::ContentPart>,
    ctx: &mut Ctx<'_>,
) -> w::Message {
    let fields = ctx.vendor_fields(&r.meta.vendor, at);
    drop_cache_and_signature(&r.meta, at, ctx);
    let as_parts = r.meta.vendor.flag(F, PARTS);
    let function_role = r.meta.vendor.flag(F, FUNCTION_ROLE);
    // The common result, one plain text, becomes the string content without a list.
    let one_text = !as_parts
        && !function_role
        && matches!(r.content.as_slice(), [Part::Text(t)] if t.meta.is_empty());
    let mut parts: Vec<w::ContentPart> = if one_text {
        Vec::new()
    } else {
        Vec::with_capacity(r.content.len())
    };
    let mut text = None;
    let mut pat_buf = ctx.buf();
    for (k, p) in r.content.into_iter().enumerate() {
        set_path(&mut pat_buf, at, "content", k);
        let pat = pat_buf.as_str();
        match p {
            Part::Text(t) if one_text => text = Some(t.text),
            Part::Text(t) => {
                drop_cache(ctx, &t.meta, pat);
                parts.push(w::ContentPart::Text(w::TextPart {
                    text: t.text,
                    extra: ctx.extra(&t.meta.vendor, w::TextPart::FIELDS, pat),
                }));
            }
            Part::Json(j) => {
                ctx.report_foreign_fields(&j.meta.vendor, pat);
                parts.push(text_part(j.value.to_string()));
            }
            p @ (Part::Image(_) | Part::Document(_) | Part::Audio(_)) => {
                if let Some(enc) = encode_part(p, pat, ctx) {
                    ctx.moved(
                        LossCode::PartUnsupported,
                        pat,
                        "openai-chat tool messages carry text only: this part is sent in a user message after the results",
                    );
                    moved.push(enc);
                }
            }
            Part::Opaque(o) if o.format == F => match serde_json::from_value(o.value) {
                Ok(p) => parts.push(p),
                Err(e) => ctx.dropped(
                    LossCode::PartUnsupported,
                    pat,
                    format!("this {F} part, kept whole, is no longer a valid content part: {e}"),
                ),
            },
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, pat) {
                    parts.push(text_part(t.text));
                }
            }
            other => ctx.dropped(
                LossCode::PartUnsupported,
                pat,
                format!("a {} part has no place in a {F} tool message", other.kind()),
            ),
        }
    }
    ctx.give_back(pat_buf);
    if r.is_error {
        crate::passes::results::error_flag_lost(F, at, ctx);
        match (text.as_mut(), parts.first_mut()) {
            (Some(t), _) if t.starts_with("Error:") => {}
            (Some(t), _) => t.insert_str(0, "Error: "),
            (None, Some(w::ContentPart::Text(t))) if t.text.starts_with("Error:") => {}
            (None, Some(w::ContentPart::Text(t))) => t.text.insert_str(0, "Error: "),
            _ => parts.insert(0, text_part("Error: ".into())),
        }
    }
    if function_role {
        let content = parts.into_iter().find_map(|p| match p {
            w::ContentPart::Text(t) => Some(t.text),
            _ => None,
        });
        return w::Message::Function(w::FunctionMessage {
            name: r.name.unwrap_or(r.call_id),
            content,
            extra: ctx.extra(&r.meta.vendor, w::FunctionMessage::FIELDS, at),
        });
    }
    let content = if let Some(text) = text {
        TextOrParts::Text(text)
    } else if !as_parts && all_plain(&parts) {
        // Plain texts (another format's metadata reported and left out, opaque parts
        // turned into text) take the string form, one line each.
        TextOrParts::Text(joined(parts, "\n"))
    } else {
        TextOrParts::Parts(parts)
    };
    w::Message::Tool(w::ToolMessage {
        tool_call_id: r.call_id,
        content,
        extra: extra_from(fields, &r.meta.vendor, w::ToolMessage::FIELDS, at, ctx),
    })
}

/// Encodes the parts of a user or system message: one plain text part as the string
/// form (unless the source used parts, hint [`PARTS`]), parts otherwise. `None` when
/// nothing is left.
fn encode_content(
    parts: Vec<Part>,
    v: &Vendor,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::ContentPart>> {
    let mut out = Vec::with_capacity(parts.len());
    let mut pat_buf = ctx.buf();
    for (j, p) in parts.into_iter().enumerate() {
        set_path(&mut pat_buf, at, "content", j);
        if let Some(enc) = encode_part(p, &pat_buf, ctx) {
            out.push(enc);
        }
    }
    ctx.give_back(pat_buf);
    if out.is_empty() {
        return None;
    }
    Some(if !v.flag(F, PARTS) && out.len() == 1 && all_plain(&out) {
        TextOrParts::Text(joined(out, ""))
    } else {
        TextOrParts::Parts(out)
    })
}

/// A text part with nothing but its text.
fn text_part(text: String) -> w::ContentPart {
    w::ContentPart::Text(w::TextPart {
        text,
        extra: Extra::new(),
    })
}

/// Whether every part is a text part with nothing but its text (so the parts can be
/// written as the string form).
fn all_plain(parts: &[w::ContentPart]) -> bool {
    parts
        .iter()
        .all(|p| matches!(p, w::ContentPart::Text(t) if t.extra.is_empty()))
}

/// The texts of the text parts, joined by `sep` (other parts have none).
fn joined(parts: Vec<w::ContentPart>, sep: &str) -> String {
    let texts: Vec<String> = parts
        .into_iter()
        .filter_map(|p| match p {
            w::ContentPart::Text(t) => Some(t.text),
            _ => None,
        })
        .collect();
    texts.join(sep)
}

/// One content part. Tool calls, results and reasoning are handled by the callers.
fn encode_part(p: Part, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentPart> {
    drop_cache_and_signature(p.meta(), at, ctx);
    match p {
        Part::Text(t) => Some(w::ContentPart::Text(w::TextPart {
            text: t.text,
            extra: ctx.extra(&t.meta.vendor, w::TextPart::FIELDS, at),
        })),
        Part::Refusal(t) => Some(w::ContentPart::Refusal(w::RefusalPart {
            refusal: t.text,
            extra: ctx.extra(&t.meta.vendor, w::RefusalPart::FIELDS, at),
        })),
        Part::Image(m) => {
            let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
            let detail = fields.take_as("detail");
            let url = crate::media::image_url(m.source, m.media_type.as_deref(), F, at, ctx)?;
            if m.name.is_some() {
                ctx.dropped(
                    LossCode::PartChanged,
                    format!("{at}/name"),
                    "openai-chat images have no name",
                );
            }
            Some(w::ContentPart::ImageUrl(w::ImageUrlPart {
                image_url: w::ImageUrl {
                    url,
                    detail,
                    extra: Extra::new(),
                },
                extra: extra_from(fields, &m.meta.vendor, w::ImageUrlPart::FIELDS, at, ctx),
            }))
        }
        Part::Audio(m) => {
            let format = m
                .media_type
                .as_deref()
                .and_then(|t| t.strip_prefix("audio/"))
                .map(|f| match f {
                    "mpeg" => "mp3",
                    "x-wav" | "wave" => "wav",
                    other => other,
                });
            match (m.source, format) {
                (Source::Base64 { data }, Some(format)) => {
                    Some(w::ContentPart::InputAudio(w::InputAudioPart {
                        input_audio: w::InputAudio {
                            data,
                            format: format.to_owned(),
                            extra: Extra::new(),
                        },
                        extra: ctx.extra(&m.meta.vendor, w::InputAudioPart::FIELDS, at),
                    }))
                }
                _ => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at.to_owned(),
                        "openai-chat takes audio as base64 wav or mp3 only",
                    );
                    None
                }
            }
        }
        Part::Document(m) => {
            let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
            let extra_data = fields.take_as("file_data");
            let file = match m.source {
                Source::FileId { file_id }
                    if m.meta.vendor.flag(F, EMPTY_FILE) && file_id.is_empty() =>
                {
                    w::FileRef::default()
                }
                Source::FileId { file_id } => w::FileRef {
                    file_id: Some(file_id),
                    file_data: extra_data,
                    filename: m.name,
                    extra: Extra::new(),
                },
                Source::Base64 { data } => w::FileRef {
                    file_id: None,
                    file_data: Some(if m.meta.vendor.flag(F, RAW_FILE_DATA) {
                        data
                    } else {
                        data_url(m.media_type.as_deref(), &data)
                    }),
                    filename: m.name,
                    extra: Extra::new(),
                },
                Source::Text { text } => {
                    ctx.changed(
                        LossCode::PartAsText,
                        at.to_owned(),
                        "openai-chat has no text documents: sent as a text part",
                    );
                    return Some(w::ContentPart::Text(w::TextPart {
                        text,
                        extra: Extra::new(),
                    }));
                }
                Source::Url { url } => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at.to_owned(),
                        format!("openai-chat file parts take a file id or inline data, not a URL ({url}); nothing is fetched"),
                    );
                    return None;
                }
            };
            Some(w::ContentPart::File(w::FilePart {
                file,
                extra: extra_from(fields, &m.meta.vendor, w::FilePart::FIELDS, at, ctx),
            }))
        }
        Part::Json(Json { value, .. }) => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                "a JSON part is sent as its JSON text",
            );
            Some(text_part(value.to_string()))
        }
        Part::Opaque(o) => util::opaque_item(o, at, ctx, text_part),
        Part::Reasoning(_) => {
            ctx.dropped(
                LossCode::ReasoningDropped,
                at.to_owned(),
                "openai-chat has no place for reasoning here",
            );
            None
        }
        Part::ToolCall(_) | Part::ToolResult(_) => {
            util::drop_misplaced_call(at, ctx);
            None
        }
    }
}

/// The members of an assistant turn, encoded for a request message or a response
/// message.
pub(super) struct AssistantParts {
    pub(super) content: Option<TextOrParts<w::ContentPart>>,
    pub(super) refusal: Option<String>,
    pub(super) tool_calls: Option<Vec<w::ToolCall>>,
    pub(super) reasoning_content: Option<String>,
    /// The message's known members that have no neutral place (`function_call`,
    /// `audio`, `name`; a response's `role` and `annotations`), by their wire name.
    pub(super) fields: Map<String, Value>,
    pub(super) extra: Extra,
}

/// A request's assistant message.
fn encode_assistant(m: Message, at: &str, ctx: &mut Ctx<'_>) -> w::AssistantMessage {
    let parts = encode_assistant_parts(m, at, ctx);
    w::AssistantMessage {
        content: parts.content,
        refusal: parts.refusal,
        tool_calls: parts.tool_calls,
        function_call: parts.fields.get("function_call").cloned().map(Box::new),
        audio: parts.fields.get("audio").cloned().map(Box::new),
        name: parts
            .fields
            .get("name")
            .and_then(|n| n.as_str().map(str::to_owned)),
        reasoning_content: parts.reasoning_content,
        extra: parts.extra,
    }
}

/// The members of an assistant turn, for a request message or a response message.
pub(super) fn encode_assistant_parts(m: Message, at: &str, ctx: &mut Ctx<'_>) -> AssistantParts {
    let mut v = m.vendor;
    let mut fields = ctx.take_vendor_fields(&mut v, at);
    let mut content_parts: Vec<Part> = Vec::new();
    let mut refusal = None;
    let calls = m
        .content
        .iter()
        .filter(|p| matches!(p, Part::ToolCall(_)))
        .count();
    let mut tool_calls: Vec<w::ToolCall> = Vec::with_capacity(calls);
    let mut reasoning_content = None;
    let mut content_at = Vec::new();
    let mut pat = ctx.buf();
    for (j, p) in m.content.into_iter().enumerate() {
        set_path(&mut pat, at, "content", j);
        match p {
            Part::ToolCall(c) => tool_calls.push(encode_call(c, &pat, ctx)),
            Part::Refusal(t)
                if (v.flag(F, REFUSAL_FIELD) || v.format != Some(F)) && refusal.is_none() =>
            {
                drop_cache(ctx, &t.meta, &pat);
                ctx.report_foreign_fields(&t.meta.vendor, &pat);
                refusal = Some(t.text)
            }
            Part::Reasoning(r) => {
                let view = ctx.reasoning(&r, &pat);
                match view {
                    Some(view) if r.source == Some(F) && reasoning_content.is_none() => {
                        reasoning_content = view.text.map(str::to_owned);
                    }
                    Some(_) => ctx.dropped(
                        LossCode::ReasoningDropped,
                        pat.clone(),
                        "openai-chat requests have no field for reasoning",
                    ),
                    None => {}
                }
            }
            other => {
                content_at.push(j);
                content_parts.push(other);
            }
        }
    }
    ctx.give_back(pat);
    // Content: the single-text string form unless the source used parts.
    let as_parts = v.flag(F, PARTS);
    let content = if content_parts.is_empty() {
        None
    } else if !as_parts
        && content_parts.iter().all(
            |p| matches!(p, Part::Text(t) if t.meta.vendor.fields_for(F).is_none_or(model::VendorMap::is_empty)),
        )
    {
        // Plain text (a foreign signature or cache marker on it is reported and dropped).
        let mut text: Vec<String> = Vec::new();
        let mut pat_buf = ctx.buf();
        for (p, j) in content_parts.into_iter().zip(&content_at) {
            set_path(&mut pat_buf, at, "content", *j);
            let pat = pat_buf.as_str();
            drop_cache_and_signature(p.meta(), pat, ctx);
            ctx.report_foreign_fields(&p.meta().vendor, pat);
            if let Part::Text(t) = p {
                text.push(t.text);
            }
        }
        ctx.give_back(pat_buf);
        Some(TextOrParts::Text(text.join("")))
    } else {
        let mut parts = Vec::new();
        let mut pat_buf = ctx.buf();
        for (p, j) in content_parts.into_iter().zip(content_at) {
            set_path(&mut pat_buf, at, "content", j);
            let pat = pat_buf.as_str();
            if matches!(p, Part::Image(_) | Part::Audio(_) | Part::Document(_)) {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    pat,
                    format!("openai-chat assistant messages carry no {} parts", p.kind()),
                );
                continue;
            }
            if let Some(enc) = encode_part(p, pat, ctx) {
                parts.push(enc);
            }
        }
        ctx.give_back(pat_buf);
        // Parts that all came out as plain text (another format's metadata reported and
        // left out, opaque parts turned into text) take the string form as well.
        if parts.is_empty() {
            // Everything was dropped (with a loss each): no content at all.
            None
        } else if !as_parts && all_plain(&parts) {
            Some(TextOrParts::Text(joined(parts, "")))
        } else {
            Some(TextOrParts::Parts(parts))
        }
    };
    let mut extra = Extra::new();
    ctx.mark_nulls(&mut extra, &v, w::AssistantMessage::FIELDS);
    let mut rest = Map::new();
    for (k, val) in std::mem::take(&mut fields) {
        if ["function_call", "audio", "name", "role", "annotations"].contains(&k.as_str()) {
            rest.insert(k, val);
        } else {
            extra.insert(k, val);
        }
    }
    AssistantParts {
        content,
        refusal,
        tool_calls: if tool_calls.is_empty() {
            None
        } else {
            Some(tool_calls)
        },
        reasoning_content,
        fields: rest,
        extra,
    }
}

/// A tool call: the nested form unless the source used the flat one (hint [`FLAT`]).
fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ToolCall {
    drop_cache_and_signature(&c.meta, at, ctx);
    let mut vendor = c.meta.vendor;
    let mut fields = ctx.take_vendor_fields(&mut vendor, at);
    let v = &vendor;
    let args_json = v.flag(F, ARGS_JSON);
    let arguments = util::write_arguments(c.arguments, args_json);
    let kind = function_type(v, at, &mut fields, ctx);
    let id = if v.flag(F, NO_ID) { None } else { Some(c.id) };
    // Not `take_as`: a name that is not a string must not stay in the fields and go out
    // beside the flat form's own.
    let flat_name = fields
        .shift_remove("name")
        .and_then(|n| n.as_str().map(str::to_owned));
    let flat_args = fields.shift_remove("arguments").map(|a| match a {
        Value::String(s) => wire_types::Arguments::Text(s),
        other => wire_types::Arguments::Json(other),
    });
    let extra = extra_from(fields, v, w::ToolCall::FIELDS, at, ctx);
    if v.flag(F, FLAT) {
        w::ToolCall {
            id,
            kind,
            function: None,
            custom: None,
            name: Some(c.name),
            arguments: Some(Box::new(arguments)),
            extra,
        }
    } else {
        w::ToolCall {
            id,
            kind,
            function: Some(w::FunctionCall {
                name: c.name,
                arguments,
                extra: Extra::new(),
            }),
            custom: None,
            name: flat_name,
            arguments: flat_args.map(Box::new),
            extra,
        }
    }
}
