//! Encoding requests: neutral messages and parts into Cohere messages.

use super::hints::{ARGS_JSON, NO_ARGUMENTS, NO_ID, PARTS, ROLE, TOOL_PLAN};
use super::settings::{encode_response_format, encode_thinking_config, encode_tool_choice};
use super::tools::encode_request_tools;
use super::{DOCUMENT, F, FUNCTION, Turn};
use crate::ctx::extra_from;
use crate::media::data_url;
use crate::model::{self, Arguments, Message, Part, Role, Source, ToolCall, ToolResult, Vendor};
use crate::passes;
use crate::passes::results;
use crate::passes::tools::function_type;
use crate::util::{self, Place, take_prefixed};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use std::collections::HashSet;
use wire_types::cohere as w;
use wire_types::{Extra, TextOrParts};

/// Encodes a neutral request as a Cohere v2 chat request.
pub(super) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model = passes::settings::model_or_blank(req.model, ctx);
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let (tools, all_strict) = encode_request_tools(req.tools, ctx);
    let calls: HashSet<String> = req
        .messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.id.clone()),
            _ => None,
        })
        .collect();
    let mut messages = Vec::with_capacity(req.messages.len());
    for (i, m) in req.messages.into_iter().enumerate() {
        encode_message(m, i, &calls, &mut messages, ctx);
    }
    let tool_choice = encode_tool_choice(req.tool_choice, &mut fields, ctx);
    let s = req.settings;
    passes::settings::no_parallel_switch(
        s.parallel_tool_calls,
        "/settings/parallel_tool_calls",
        F,
        ctx,
    );
    let thinking = encode_thinking_config(s.reasoning.as_ref(), &mut fields, ctx);
    let response_format = encode_response_format(req.output_format, &mut fields, ctx);
    Ok(w::Request {
        model,
        messages,
        tools,
        strict_tools: ctx
            .take_fit(&mut fields, "strict_tools", "")
            .or(all_strict.then_some(true)),
        documents: fields.take_as("documents"),
        citation_options: fields.take_as("citation_options"),
        response_format,
        safety_mode: fields.take_as("safety_mode"),
        max_tokens: s.max_tokens,
        stop_sequences: s.stop,
        temperature: s.temperature,
        seed: s.seed,
        frequency_penalty: s.frequency_penalty,
        presence_penalty: s.presence_penalty,
        k: s.top_k,
        p: s.top_p,
        logprobs: fields.take_as("logprobs"),
        tool_choice,
        thinking,
        stream: s.stream,
        extra: extra_from(fields, &v, w::Request::FIELDS, "", ctx),
    })
}

/// Request message `i`; a tool message becomes one `tool` message per result (`calls`:
/// the ids of the calls in the conversation).
fn encode_message(
    m: Message,
    i: usize,
    calls: &HashSet<String>,
    out: &mut Vec<w::Message>,
    ctx: &mut Ctx<'_>,
) {
    let at = format!("/messages/{i}");
    match m.role {
        Role::System | Role::Developer | Role::User => {
            let fields = ctx.vendor_fields(&m.vendor, &at);
            let place = if m.role == Role::User {
                Place::User
            } else {
                Place::System
            };
            let parts = m.content.into_iter().enumerate().collect();
            let content = encode_content(parts, &m.vendor, &at, place, ctx)
                .unwrap_or(TextOrParts::Text(String::new()));
            out.push(if place == Place::User {
                w::Message::User(w::UserMessage {
                    content,
                    extra: extra_from(fields, &m.vendor, w::UserMessage::FIELDS, &at, ctx),
                })
            } else {
                w::Message::System(w::SystemMessage {
                    content,
                    extra: extra_from(fields, &m.vendor, w::SystemMessage::FIELDS, &at, ctx),
                })
            });
        }
        Role::Assistant => {
            let t = encode_turn(m, &at, ctx);
            out.push(w::Message::Assistant(w::AssistantMessage {
                content: t.content,
                tool_plan: t.tool_plan,
                tool_calls: t.tool_calls,
                citations: t.citations,
                extra: t.extra,
            }));
        }
        Role::Tool => util::tool_results(m.content, &at, ctx, |r, pat, ctx| {
            out.push(encode_result(r, pat, calls, ctx));
        }),
    }
}

/// Whether Cohere content at `place` may hold `p`: text everywhere, images from users,
/// thinking in assistant turns, text documents in tool results.
fn takes(place: Place, p: &Part) -> bool {
    match p {
        Part::Text(_) | Part::Refusal(_) | Part::Opaque(_) => true,
        Part::Image(_) => place == Place::User,
        Part::Reasoning(_) => place == Place::Assistant,
        Part::Json(_) => true,
        Part::Document(m) => place == Place::Tool && matches!(m.source, Source::Text { .. }),
        Part::Audio(_) | Part::ToolCall(_) | Part::ToolResult(_) => false,
    }
}

/// Encodes parts (with their neutral indices) as content: the string form for one plain
/// text part (unless the source used items), items otherwise. `None` when nothing is
/// left.
fn encode_content(
    parts: Vec<(usize, Part)>,
    v: &Vendor,
    at: &str,
    place: Place,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::Content>> {
    // Cohere's own item list is written back as it came; otherwise an empty text part
    // (a Gemini signature-only part, say) is not sent as an empty item.
    util::encode_items(parts, v.flag(F, PARTS), at, ctx, |p, pat, ctx| {
        if !takes(place, &p) {
            let why = match &p {
                Part::Document(_) => format!(
                    "cohere {} messages carry no document by URL, file or bytes",
                    place.name()
                ),
                _ => format!(
                    "cohere {} messages carry no {} parts",
                    place.name(),
                    p.kind()
                ),
            };
            let code = match &p {
                Part::Reasoning(_) => LossCode::ReasoningDropped,
                _ => LossCode::PartUnsupported,
            };
            ctx.dropped(code, pat.to_owned(), why);
            return None;
        }
        encode_item(p, pat, place, ctx)
    })
}

util::text_item!(w::Content, w::Content::Text, text_item);

/// Reports a part's cache marker and signature: Cohere has a place for neither.
pub(super) use crate::util::drop_cache_and_signature as part_meta;

/// A text item.
pub(super) fn text_item(text: String) -> w::Content {
    w::Content::Text(w::TextContent {
        text,
        extra: Extra::new(),
    })
}

/// One content item.
fn encode_item(p: Part, at: &str, place: Place, ctx: &mut Ctx<'_>) -> Option<w::Content> {
    part_meta(p.meta(), at, ctx);
    match p {
        Part::Text(t) => Some(w::Content::Text(w::TextContent {
            text: t.text,
            extra: ctx.extra(&t.meta.vendor, w::TextContent::FIELDS, at),
        })),
        Part::Refusal(t) => Some(text_item(util::refusal_as_text(t, at, ctx))),
        Part::Json(j) => {
            let mut fields = ctx.vendor_fields(&j.meta.vendor, at);
            match (place, j.value) {
                (Place::Tool, Value::Object(data)) => {
                    let id = fields.take_as("id");
                    let doc_extra = take_prefixed(&mut fields, DOCUMENT);
                    let doc_extra =
                        ctx.unknown_only(doc_extra, w::Document::FIELDS, (at, "/document"));
                    Some(w::Content::Document(w::DocumentContent {
                        document: w::Document {
                            data,
                            id,
                            extra: Extra::from(doc_extra),
                        },
                        extra: extra_from(
                            fields,
                            &j.meta.vendor,
                            w::DocumentContent::FIELDS,
                            at,
                            ctx,
                        ),
                    }))
                }
                (Place::Tool, value) => Some(text_item(value.to_string())),
                (_, value) => {
                    ctx.changed(
                        LossCode::PartAsText,
                        at,
                        "a JSON part is sent as its JSON text",
                    );
                    Some(text_item(value.to_string()))
                }
            }
        }
        Part::Image(m) => {
            let (detail, vendor) = util::shared_image_detail(&m.meta.vendor, F);
            let mut fields = ctx.vendor_fields(&vendor, at);
            let detail = detail.or_else(|| fields.take_as("detail"));
            let url = match m.source {
                Source::Url { url } => url,
                Source::Base64 { data } => data_url(m.media_type.as_deref(), &data),
                Source::FileId { file_id } => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at,
                        format!("cohere images take a URL, not a file id (`{file_id}`)"),
                    );
                    return None;
                }
                Source::Text { .. } => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at,
                        "an image given as text has no form in cohere",
                    );
                    return None;
                }
            };
            util::drop_image_name(m.name.as_deref(), at, ctx);
            Some(w::Content::ImageUrl(w::ImageUrlContent {
                image_url: w::ImageUrl {
                    url,
                    detail,
                    extra: Extra::new(),
                },
                extra: extra_from(fields, &vendor, w::ImageUrlContent::FIELDS, at, ctx),
            }))
        }
        Part::Document(m) => {
            ctx.report_foreign_fields(&m.meta.vendor, at);
            let Source::Text { text } = m.source else {
                return None; // refused by `takes`
            };
            let mut data = Map::new();
            if let Some(name) = m.name {
                data.insert("title".to_owned(), Value::String(name));
            }
            data.insert("text".to_owned(), Value::String(text));
            Some(w::Content::Document(w::DocumentContent {
                document: w::Document {
                    data,
                    id: None,
                    extra: Extra::new(),
                },
                extra: Extra::new(),
            }))
        }
        Part::Reasoning(r) => encode_thinking(r, at, ctx)
            .map(|(thinking, extra)| w::Content::Thinking(w::ThinkingContent { thinking, extra })),
        Part::Opaque(o) => util::opaque_item(o, at, ctx, text_item),
        Part::Audio(_) | Part::ToolCall(_) | Part::ToolResult(_) => None, // refused by `takes`
    }
}

/// The text of a reasoning part for a `thinking` item or the `tool_plan`, and the extra
/// fields of its item; Cohere's own reasoning comes back as it came.
fn encode_thinking(r: model::Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<(String, Extra)> {
    let own = r.source == Some(F) && r.signature.is_none() && r.encrypted.is_none();
    let text = if own {
        r.text.clone().unwrap_or_default()
    } else {
        util::reasoning_text(&r, at, ctx)?
    };
    let extra = ctx.extra(&r.meta.vendor, w::ThinkingContent::FIELDS, at);
    Some((text, extra))
}

/// An assistant turn (request or response message): calls as `tool_calls`, Cohere's own
/// plan as `tool_plan`, everything else as content.
pub(super) fn encode_turn(m: Message, at: &str, ctx: &mut Ctx<'_>) -> Turn {
    let v = m.vendor;
    let mut fields = ctx.vendor_fields(&v, at);
    let mut content = Vec::new();
    let mut calls = Vec::new();
    let mut plans: Vec<String> = Vec::new();
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        match p {
            Part::ToolCall(c) => calls.push(encode_call(c, &pat, ctx)),
            Part::Reasoning(r) if r.meta.vendor.flag(F, TOOL_PLAN) => {
                part_meta(&r.meta, &pat, ctx);
                if let Some((text, _)) = encode_thinking(r, &pat, ctx) {
                    plans.push(text);
                }
            }
            other => content.push((j, other)),
        }
    }
    let content = encode_content(content, &v, at, Place::Assistant, ctx);
    Turn {
        role: v.hint(F, ROLE).and_then(Value::as_str).map(str::to_owned),
        content,
        tool_plan: (!plans.is_empty()).then(|| plans.join("\n")),
        tool_calls: (!calls.is_empty()).then_some(calls),
        citations: fields.take_as("citations"),
        extra: extra_from(fields, &v, w::AssistantMessage::FIELDS, at, ctx),
    }
}

/// A tool call: arguments, `type`, `id` and `function` fields as the source had them.
fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ToolCall {
    part_meta(&c.meta, at, ctx);
    let v = &c.meta.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    let arguments = match c.arguments {
        Arguments::Text(t) if t.is_empty() && v.flag(F, NO_ARGUMENTS) => None,
        args => Some(util::write_arguments(args, v.flag(F, ARGS_JSON))),
    };
    let kind = function_type(v, at, &mut fields, ctx);
    let function_extra = take_prefixed(&mut fields, FUNCTION);
    let function_extra =
        ctx.unknown_only(function_extra, w::FunctionCall::FIELDS, (at, "/function"));
    w::ToolCall {
        id: (!v.flag(F, NO_ID)).then_some(c.id),
        kind,
        function: Some(w::FunctionCall {
            name: Some(c.name),
            arguments,
            extra: Extra::from(function_extra),
        }),
        extra: extra_from(fields, v, w::ToolCall::FIELDS, at, ctx),
    }
}

/// A `tool` message for a result (`calls`: the ids of the calls in the conversation).
fn encode_result(
    r: ToolResult,
    at: &str,
    calls: &HashSet<String>,
    ctx: &mut Ctx<'_>,
) -> w::Message {
    let v = &r.meta.vendor;
    let fields = ctx.vendor_fields(v, at);
    part_meta(&r.meta, at, ctx);
    if let Some(name) = &r.name {
        if !calls.contains(&r.call_id) {
            ctx.dropped(
                LossCode::PartChanged,
                format!("{at}/name"),
                format!("cohere tool results have no tool name (`{name}`), and its call is not in the conversation"),
            );
        }
    }
    let parts = r.content.into_iter().enumerate().collect();
    let content = encode_content(parts, v, at, Place::Tool, ctx);
    let content = results::error_as_text(content, r.is_error, at, ctx);
    w::Message::Tool(w::ToolMessage {
        tool_call_id: r.call_id,
        content: content.unwrap_or(TextOrParts::Text(String::new())),
        extra: extra_from(fields, v, w::ToolMessage::FIELDS, at, ctx),
    })
}
