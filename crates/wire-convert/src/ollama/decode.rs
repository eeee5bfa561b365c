//! Decoding requests: Ollama messages and their parts into the neutral model.

use super::hints::{
    CALL_ID, FUNCTION_NULLS, IMAGES, IMAGES_EMPTY, INDEX, NO_CONTENT, NO_TOOL_NAME, ORPHAN, ROLE,
    TYPE,
};
use super::settings::{decode_format, decode_settings};
use super::tools::decode_tool;
use super::{F, FUNCTION, Pending, role_name};
use crate::ids::synthetic_id;
use crate::model::{
    self, Media, Message, Part, PartMeta, Role, Source, ToolCall, ToolResult, Vendor,
};
use crate::passes::request::open_request;
use crate::passes::tools::{decode_tools, decoded_call, map_function_call};
use crate::vendor::keep_fields;
use crate::{Ctx, Error, media, util};
use serde_json::Value;
use wire_types::ollama as w;

/// Decodes an `/api/chat` request.
pub(crate) fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let (mut out, mut v) = open_request(req.model, &req.extra, F);

    let mut pending = Pending::default();
    for (i, m) in req.messages.into_iter().enumerate() {
        decode_message(m, i, &mut out.messages, &mut pending, ctx)?;
    }

    out.tools = decode_tools(req.tools, decode_tool, ctx);

    out.settings = decode_settings(req.options, req.stream, req.think, &mut v, ctx);
    out.output_format = decode_format(req.format, &mut v, ctx);
    keep_fields!(v, F, req; keep_alive, logprobs, top_logprobs);
    out.vendor = v;
    Ok(out)
}

/// Request message `i`: a system, user or assistant turn, or a `tool` message whose
/// result joins the tool message at the end of `out`.
fn decode_message(
    m: w::Message,
    i: usize,
    out: &mut Vec<Message>,
    pending: &mut Pending,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let at = format!("/messages/{i}");
    let spelled = m.role.as_str().to_owned();
    let role = match w::Role::from(spelled.to_ascii_lowercase()) {
        w::Role::System => Role::System,
        w::Role::User => Role::User,
        w::Role::Assistant => Role::Assistant,
        w::Role::Tool => {
            decode_result(m, &spelled, out, pending, &at, ctx);
            return Ok(());
        }
        _ => {
            return Err(Error::invalid(
                format!("{at}/role"),
                format!("unknown role `{spelled}`"),
            ));
        }
    };
    let n = out.len();
    let msg = decode_turn(m, role, &spelled, &format!("/messages/{n}"), &at, ctx);
    if role == Role::Assistant {
        pending.reset(
            msg.content
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall(c) => Some((c.id.clone(), c.name.clone())),
                    _ => None,
                })
                .collect(),
        );
    }
    out.push(msg);
    Ok(())
}

/// A system, user or assistant message (or a response message) at neutral pointer
/// `neutral`, source pointer `at`.
pub(super) fn decode_turn(
    m: w::Message,
    role: Role,
    spelled: &str,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let mut msg = crate::passes::content::message(F, role, &m.extra, neutral, at, ctx);
    if spelled != role_name(role) {
        msg.vendor.set_hint(F, ROLE, spelled);
    }
    let assistant = role == Role::Assistant;
    if let Some(t) = m.thinking {
        if assistant {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/thinking"),
            );
            msg.content.push(Part::Reasoning(model::Reasoning {
                text: Some(t),
                source: Some(F),
                ..Default::default()
            }));
        } else {
            msg.vendor.set_field(F, "thinking", Value::String(t));
        }
    }
    match m.content {
        None => msg.vendor.set_hint(F, NO_CONTENT, true),
        Some(c) if c.is_empty() => {}
        Some(c) => {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/content"),
            );
            msg.content.push(Part::text(c));
        }
    }
    if let Some(images) = m.images {
        if images.is_empty() {
            msg.vendor.set_hint(F, IMAGES_EMPTY, true);
        }
        for (j, data) in images.into_iter().enumerate() {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/images/{j}"),
            );
            msg.content.push(image(data));
        }
    }
    if let Some(calls) = m.tool_calls {
        if assistant {
            for (c, call) in calls.into_iter().enumerate() {
                map_function_call(ctx, neutral, msg.content.len(), at, c);
                // `/choices/0/message` → ids `call_0_<c>_<name>`.
                let id_base = neutral.strip_suffix("/message").unwrap_or(neutral);
                msg.content
                    .push(Part::ToolCall(decode_call(call, id_base, c)));
            }
        } else {
            msg.vendor
                .set_field(F, "tool_calls", wire_types::to_value(&calls));
        }
    }
    msg.vendor.keep(F, "tool_name", &m.tool_name);
    msg.vendor.keep(F, "tool_call_id", &m.tool_call_id);
    msg
}

/// An image of `images`: base64 bytes, their media type read from their signature.
fn image(data: String) -> Part {
    Part::Image(Media {
        media_type: media::sniff_image(&data).map(str::to_owned),
        source: Source::Base64 { data },
        name: None,
        meta: PartMeta::default(),
    })
}

/// A call of the message at neutral pointer `neutral` (`c`: its index among the calls,
/// for a synthetic id when it has none).
fn decode_call(call: w::ToolCall, neutral: &str, c: usize) -> ToolCall {
    let mut v = Vendor::from_extra(F, &call.extra, &[]);
    match call.kind.as_deref() {
        None => {}
        Some("function") => v.set_hint(F, TYPE, true),
        Some(other) => v.set_field(F, "type", Value::String(other.to_owned())),
    }
    let f = call.function;
    util::put_prefixed(&mut v, F, FUNCTION, &f.extra);
    let nulls: Vec<Value> = f.extra.nulls().iter().map(|n| Value::from(*n)).collect();
    if !nulls.is_empty() {
        v.set_hint(F, FUNCTION_NULLS, nulls);
    }
    if let Some(ix) = f.index {
        v.set_hint(F, INDEX, ix);
    }
    let meta = PartMeta {
        vendor: v,
        ..Default::default()
    };
    let arguments = util::args_of(f.arguments);
    decoded_call(call.id, (neutral, c), f.name, arguments, meta, None)
}

/// A `tool` message: one result, appended to the tool message at the end or a new one.
fn decode_result(
    m: w::Message,
    spelled: &str,
    out: &mut Vec<Message>,
    pending: &mut Pending,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let (n, k) = match out.last() {
        Some(last) if last.role == Role::Tool => (out.len() - 1, last.content.len()),
        _ => (out.len(), 0),
    };
    let neutral = format!("/messages/{n}/content/{k}");
    let mut meta = PartMeta {
        vendor: Vendor::from_extra(F, &m.extra, &[]),
        ..Default::default()
    };
    let v = &mut meta.vendor;
    if spelled != "tool" {
        v.set_hint(F, ROLE, spelled);
    }
    if m.tool_call_id.is_some() {
        v.set_hint(F, CALL_ID, true);
    }
    if m.tool_name.is_none() {
        v.set_hint(F, NO_TOOL_NAME, true);
    }
    let call_id = match pending.answer(m.tool_call_id.as_deref(), m.tool_name.as_deref()) {
        Some(id) => id,
        None => {
            // No call to answer (it was pruned): an id of its own, left out again.
            v.set_hint(F, ORPHAN, true);
            synthetic_id(
                &format!("/messages/{n}"),
                k,
                m.tool_name.as_deref().unwrap_or("tool"),
            )
        }
    };
    let mut content = Vec::new();
    match m.content {
        None => v.set_hint(F, NO_CONTENT, true),
        Some(c) if c.is_empty() => {}
        Some(c) => {
            ctx.map(
                format_args!("{neutral}/content/{}", content.len()),
                format_args!("{at}/content"),
            );
            content.push(Part::text(c));
        }
    }
    if let Some(images) = m.images {
        if images.is_empty() {
            v.set_hint(F, IMAGES_EMPTY, true);
        } else {
            // Ollama's own images on a tool message go back there; another format's
            // images in a result are moved to a user message.
            v.set_hint(F, IMAGES, true);
        }
        for (j, data) in images.into_iter().enumerate() {
            ctx.map(
                format_args!("{neutral}/content/{}", content.len()),
                format_args!("{at}/images/{j}"),
            );
            content.push(image(data));
        }
    }
    v.keep(F, "thinking", &m.thinking);
    v.keep(F, "tool_calls", &m.tool_calls);
    let result = ToolResult {
        call_id,
        name: m.tool_name,
        content,
        is_error: false,
        meta,
    };
    if k == 0 {
        ctx.map(format_args!("/messages/{n}"), at.to_owned());
        out.push(Message::new(Role::Tool, Vec::new()));
    }
    ctx.map(neutral, at.to_owned());
    if let Some(last) = out.last_mut() {
        last.content.push(Part::ToolResult(result));
    }
}
