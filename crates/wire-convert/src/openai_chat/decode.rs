//! Decoding requests: OpenAI Chat messages and their parts into the neutral model.

use super::F;
use super::hints::{
    ARGS_JSON, EMPTY_FILE, FLAT, FUNCTION_ROLE, NO_ID, PARTS, RAW_FILE_DATA, REFUSAL_FIELD,
};
use super::settings::{decode_output_format, decode_settings, decode_tool_choice};
use super::tools::decode_tool;
use crate::media::parse_data_url;
use crate::model::{self, Media, Message, Part, PartMeta, Role, Source, Text, ToolResult, Vendor};
use crate::passes::request::open_request;
use crate::passes::tools::decode_tools;
use crate::passes::tools::{decoded_call, read_function_type};
use crate::util::{self, keep, opaque};
use crate::vendor::keep_fields;
use crate::{Ctx, Error};
use serde_json::{Map, Value};
use wire_types::TextOrParts;
use wire_types::openai_chat as w;

/// Decodes a Chat Completions request.
pub(crate) fn decode_request(
    mut req: w::Request,
    ctx: &mut Ctx<'_>,
) -> Result<model::Request, Error> {
    let (mut out, mut v) = open_request(std::mem::take(&mut req.model), &req.extra, F);

    // Messages: consecutive tool messages become one neutral tool message.
    let mut paths = util::ItemPaths::new(String::new(), "", "messages");
    // At most one neutral message per wire message (tool messages merge).
    out.messages.reserve(req.messages.len());
    for (i, m) in std::mem::take(&mut req.messages).into_iter().enumerate() {
        let at = paths.at(i);
        match m {
            w::Message::System(s) => push_system(&mut out.messages, Role::System, s, at, ctx),
            w::Message::Developer(s) => push_system(&mut out.messages, Role::Developer, s, at, ctx),
            w::Message::User(u) => {
                let n = out.messages.len();
                let mut msg = Message::new(Role::User, Vec::new());
                decode_content(u.content, &mut msg, n, at, ctx);
                let mut v = Vendor::from_extra(F, &u.extra, &[]);
                if let Some(name) = u.name {
                    v.set_field(F, "name", Value::String(name));
                }
                msg.vendor = v;
                ctx.map(("/messages/", n), at);
                out.messages.push(msg);
            }
            w::Message::Assistant(a) => {
                let n = out.messages.len();
                let mut fields = Map::new();
                keep(&mut fields, "function_call", &a.function_call);
                keep(&mut fields, "audio", &a.audio);
                keep(&mut fields, "name", &a.name);
                let mut neutral = ctx.buf();
                neutral.push_str("/messages/");
                util::push_index(&mut neutral, n);
                let msg = decode_assistant(a, fields, &neutral, at, ctx);
                ctx.give_back(neutral);
                out.messages.push(msg);
            }
            w::Message::Tool(t) => {
                let result = decode_tool_message(t, ctx);
                push_result(&mut out.messages, result, at, ctx);
            }
            w::Message::Function(f) => {
                let mut meta = PartMeta::from_extra(F, &f.extra);
                meta.vendor.set_hint(F, FUNCTION_ROLE, true);
                let content = f.content.map(|c| vec![Part::text(c)]).unwrap_or_default();
                let result = ToolResult {
                    call_id: f.name.clone(),
                    name: Some(f.name),
                    content,
                    is_error: false,
                    meta,
                };
                push_result(&mut out.messages, result, at, ctx);
            }
            other => {
                // `validate_request` refuses these before decoding; never panic on one.
                return Err(Error::unknown_role(at, other.tag()));
            }
        }
    }

    out.tools
        .extend(decode_tools(req.tools.take(), decode_tool, ctx));
    out.tool_choice = decode_tool_choice(req.tool_choice.take(), &mut v);
    out.settings = decode_settings(&mut req, &mut v, ctx);
    out.output_format = decode_output_format(req.response_format.take(), &mut v, ctx);
    keep_fields!(v, F, req; n, logit_bias, logprobs, top_logprobs, store, metadata, service_tier,
        user, functions, function_call);
    out.vendor = v;
    Ok(out)
}

/// Appends a system or developer message.
fn push_system(
    messages: &mut Vec<Message>,
    role: Role,
    s: w::SystemMessage,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let n = messages.len();
    let mut msg = Message::new(role, Vec::new());
    decode_content(s.content, &mut msg, n, at, ctx);
    let mut v = Vendor::from_extra(F, &s.extra, &[]);
    if let Some(name) = s.name {
        v.set_field(F, "name", Value::String(name));
    }
    msg.vendor.merge(v);
    ctx.map(("/messages/", n), at);
    messages.push(msg);
}

/// Decodes `content` into `msg.content`, recording the [`PARTS`] hint for the array form.
fn decode_content(
    content: TextOrParts<w::ContentPart>,
    msg: &mut Message,
    n: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    // Sized exactly: most messages hold one part, and a first push would make room for
    // four.
    msg.content.reserve_exact(match &content {
        TextOrParts::Text(_) => 1,
        TextOrParts::Parts(p) => p.len(),
    });
    match content {
        TextOrParts::Text(t) => msg.content.push(Part::text(t)),
        TextOrParts::Parts(parts) => {
            msg.vendor.set_hint(F, PARTS, true);
            for (j, p) in parts.into_iter().enumerate() {
                let k = msg.content.len();
                ctx.map(("/messages/", n, "/content/", k), (at, "/content/", j));
                msg.content.push(decode_part(p, ctx));
            }
        }
    }
}

/// One content part; a part this format does not know is kept whole as an opaque part.
fn decode_part(p: w::ContentPart, ctx: &mut Ctx<'_>) -> Part {
    match p {
        w::ContentPart::Text(t) => util::text_part(F, t.text, &t.extra),
        w::ContentPart::Refusal(r) => Part::Refusal(Text {
            text: r.refusal,
            meta: PartMeta::from_extra(F, &r.extra),
        }),
        w::ContentPart::ImageUrl(i) => util::image_of_url(F, i.image_url, &i.extra),
        w::ContentPart::InputAudio(a) => {
            let mut meta = PartMeta::from_extra(F, &a.extra);
            meta.vendor
                .merge(Vendor::from_extra(F, &a.input_audio.extra, &[]));
            Part::Audio(Media {
                source: Source::Base64 {
                    data: a.input_audio.data,
                },
                media_type: Some(format!("audio/{}", a.input_audio.format)),
                name: None,
                meta,
            })
        }
        w::ContentPart::File(f) => {
            let mut meta = PartMeta::from_extra(F, &f.extra);
            meta.vendor.merge(Vendor::from_extra(F, &f.file.extra, &[]));
            let (source, media_type) = match (f.file.file_id, f.file.file_data) {
                (Some(id), data) => {
                    if let Some(d) = data {
                        meta.vendor.set_field(F, "file_data", Value::String(d));
                    }
                    (Source::FileId { file_id: id }, None)
                }
                (None, Some(data)) => match parse_data_url(&data) {
                    Some((mt, b64)) => (Source::Base64 { data: b64 }, Some(mt)),
                    None => {
                        meta.vendor.set_hint(F, RAW_FILE_DATA, true);
                        (Source::Base64 { data }, None)
                    }
                },
                (None, None) => {
                    meta.vendor.set_hint(F, EMPTY_FILE, true);
                    (
                        Source::FileId {
                            file_id: String::new(),
                        },
                        None,
                    )
                }
            };
            Part::Document(Media {
                source,
                media_type,
                name: f.file.filename,
                meta,
            })
        }
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// An assistant turn: `neutral` is the neutral pointer of the message (`/messages/3`,
/// `/choices/0/message`), `at` its source pointer. It reads the `content`, `refusal`,
/// `tool_calls`, `reasoning_content` and `extra` of `a`; `fields` are the message's
/// known members that have no neutral place (`function_call`, `audio`, `name`; a
/// response's `role` and `annotations`), which the caller picked out in their order.
pub(super) fn decode_assistant(
    a: w::AssistantMessage,
    fields: Map<String, Value>,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let parts = usize::from(a.reasoning_content.is_some())
        + match &a.content {
            None => 0,
            Some(TextOrParts::Text(_)) => 1,
            Some(TextOrParts::Parts(p)) => p.len(),
        }
        + usize::from(a.refusal.is_some())
        + a.tool_calls.as_ref().map_or(0, Vec::len);
    let mut msg = Message::new(Role::Assistant, Vec::with_capacity(parts));
    msg.vendor = Vendor::from_extra(F, &a.extra, &[]);
    for (k, v) in fields {
        msg.vendor.set_field(F, &k, v);
    }
    ctx.map(neutral, at);
    if let Some(r) = a.reasoning_content {
        ctx.map(
            (neutral, "/content/", msg.content.len()),
            (at, "/reasoning_content"),
        );
        msg.content.push(Part::Reasoning(model::Reasoning {
            text: Some(r),
            source: Some(F),
            ..Default::default()
        }));
    }
    match a.content {
        None => {}
        Some(TextOrParts::Text(t)) => {
            ctx.map((neutral, "/content/", msg.content.len()), (at, "/content"));
            msg.content.push(Part::text(t));
        }
        Some(TextOrParts::Parts(parts)) => {
            msg.vendor.set_hint(F, PARTS, true);
            for (j, p) in parts.into_iter().enumerate() {
                ctx.map(
                    (neutral, "/content/", msg.content.len()),
                    (at, "/content/", j),
                );
                msg.content.push(decode_part(p, ctx));
            }
        }
    }
    if let Some(r) = a.refusal {
        ctx.map((neutral, "/content/", msg.content.len()), (at, "/refusal"));
        msg.vendor.set_hint(F, REFUSAL_FIELD, true);
        msg.content.push(Part::Refusal(Text {
            text: r,
            meta: PartMeta::default(),
        }));
    }
    for (c, call) in a.tool_calls.into_iter().flatten().enumerate() {
        ctx.map(
            (neutral, "/content/", msg.content.len()),
            (at, "/tool_calls/", c),
        );
        msg.content.push(decode_call(call, neutral, c, ctx));
    }
    msg
}

/// A tool call (`neutral`: the message's neutral pointer, `c`: the call's index, for a
/// synthetic id); a `custom` call, or one without a name, is kept whole as an opaque part.
fn decode_call(call: w::ToolCall, neutral: &str, c: usize, ctx: &mut Ctx<'_>) -> Part {
    if call.custom.is_some() || (call.function.is_none() && call.name.is_none()) {
        return opaque(ctx, wire_types::to_value(&call));
    }
    let mut meta = PartMeta::from_extra(F, &call.extra);
    let v = &mut meta.vendor;
    let (name, arguments) = match (call.function, call.name, call.arguments) {
        (Some(f), name, args) => {
            v.merge(Vendor::from_extra(F, &f.extra, &[]));
            if let Some(n) = name {
                v.set_field(F, "name", Value::String(n));
            }
            v.keep(F, "arguments", &args);
            (f.name, f.arguments)
        }
        (None, Some(name), args) => {
            v.set_hint(F, FLAT, true);
            (
                name,
                args.map_or(wire_types::Arguments::Text(String::new()), |a| *a),
            )
        }
        (None, None, _) => unreachable!("checked above"),
    };
    read_function_type(call.kind.as_ref().map(w::ToolCallType::as_str), v, F);
    if !v.fields.is_empty() || !v.hints.is_empty() {
        v.format = Some(F);
    }
    let arguments = util::read_arguments(arguments, v, F, ARGS_JSON);
    let no_id = Some((F, NO_ID));
    Part::ToolCall(decoded_call(
        call.id,
        (neutral, c),
        name,
        arguments,
        meta,
        no_id,
    ))
}

/// The result a `tool` message carries.
fn decode_tool_message(t: w::ToolMessage, ctx: &mut Ctx<'_>) -> ToolResult {
    let mut meta = PartMeta::from_extra(F, &t.extra);
    let mut content = Vec::with_capacity(match &t.content {
        TextOrParts::Text(_) => 1,
        TextOrParts::Parts(p) => p.len(),
    });
    match t.content {
        TextOrParts::Text(s) => content.push(Part::text(s)),
        TextOrParts::Parts(parts) => {
            meta.vendor.set_hint(F, PARTS, true);
            content.extend(parts.into_iter().map(|p| decode_part(p, ctx)));
        }
    }
    ToolResult {
        call_id: t.tool_call_id,
        name: None,
        content,
        is_error: false,
        meta,
    }
}

/// Appends a result to the tool message at the end, or starts one.
fn push_result(messages: &mut Vec<Message>, result: ToolResult, at: &str, ctx: &mut Ctx<'_>) {
    let n = util::tool_message(messages, at, ctx);
    if let Some(last) = messages.last_mut() {
        ctx.map(("/messages/", n, "/content/", last.content.len()), at);
        last.content.push(Part::ToolResult(result));
    }
}
