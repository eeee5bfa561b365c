//! Responses both ways: the answer, its stop reason and usage.

use super::F;
use super::decode::decode_assistant;
use super::encode::encode_assistant_parts;
use super::hints::{COMPLETION_DETAILS, NO_INDEX, NO_LOGPROBS, NO_ROLE, OBJECT, PROMPT_DETAILS};
use crate::ctx::extra_from;
use crate::model::{self, Choice, StopKind, StopReason, Usage, Vendor};
use crate::util::keep;
use crate::vendor::keep_fields;
use crate::vendor::{Fields, NULLS};
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::openai_chat as w;

/// Decodes a Chat Completions response.
pub(crate) fn decode_response(
    resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.id,
        model: resp.model,
        created: resp.created,
        choices: Vec::with_capacity(resp.choices.len()),
        ..Default::default()
    };
    for (i, c) in resp.choices.into_iter().enumerate() {
        let neutral = format!("/choices/{i}/message");
        let m = *c.message;
        let no_role = m.role.is_none();
        let mut fields = Map::new();
        // `assistant` is what the encoder writes back: only another role is kept (an
        // absent one is the hint `NO_ROLE`).
        if m.role.as_deref() != Some("assistant") {
            keep(&mut fields, "role", &m.role);
        }
        keep(&mut fields, "annotations", &m.annotations);
        keep(&mut fields, "audio", &m.audio);
        keep(&mut fields, "function_call", &m.function_call);
        let turn = w::AssistantMessage {
            content: m.content,
            refusal: m.refusal,
            tool_calls: m.tool_calls,
            reasoning_content: m.reasoning_content,
            extra: m.extra,
            ..Default::default()
        };
        // The same pointer on both sides.
        let mut message = decode_assistant(turn, fields, &neutral, &neutral, ctx);
        if no_role {
            message.vendor.set_hint(F, NO_ROLE, true);
            message.vendor.format = Some(F);
        }
        // What the encoder writes back unless told otherwise: `index` = the position,
        // `logprobs: null`. Only a difference is kept.
        let mut v = Vendor::from_extra(F, &c.extra, &["finish_reason", "logprobs"]);
        match c.index {
            Some(n) if n as usize == i => {}
            Some(_) => v.keep(F, "index", &c.index),
            None => v.set_hint(F, NO_INDEX, true),
        }
        match &c.logprobs {
            Some(_) => v.keep(F, "logprobs", &c.logprobs),
            None if c.extra.was_null("logprobs") => {}
            None => v.set_hint(F, NO_LOGPROBS, true),
        }
        if !v.is_empty() {
            v.format = Some(F);
        }
        out.choices.push(Choice {
            message,
            stop_reason: c.finish_reason.map(|f| stop_reason(&f)),
            vendor: v,
        });
    }
    out.usage = resp.usage.map(decode_usage);
    let mut v = Vendor::from_extra(F, &resp.extra, &[]);
    // `object` is the body's type tag, not content: a hint, so another format does not
    // report it as a loss.
    if let Some(object) = resp.object {
        v.set_hint(F, OBJECT, object);
    }
    keep_fields!(v, F, resp; system_fingerprint, service_tier);
    if !v.is_empty() {
        v.format = Some(F);
    }
    out.vendor = v;
    Ok(out)
}

/// The neutral stop reason of a `finish_reason` (its wire value kept).
pub(super) fn stop_reason(f: &w::FinishReason) -> StopReason {
    let kind = match f {
        w::FinishReason::Stop => StopKind::EndTurn,
        w::FinishReason::Length => StopKind::MaxTokens,
        w::FinishReason::ToolCalls | w::FinishReason::FunctionCall => StopKind::ToolUse,
        w::FinishReason::ContentFilter => StopKind::ContentFilter,
        _ => StopKind::Other,
    };
    StopReason::read(kind, f.as_str(), F)
}

pub(super) fn decode_usage(u: w::Usage) -> Usage {
    let mut out = Usage {
        input_tokens: u.prompt_tokens,
        output_tokens: u.completion_tokens,
        total_tokens: u.total_tokens,
        ..Default::default()
    };
    let mut v = Vendor::from_extra(F, &u.extra, &[]);
    if let Some(p) = u.prompt_tokens_details {
        out.cached_input_tokens = p.cached_tokens;
        out.cache_write_tokens = p.cache_write_tokens;
        // The encoder writes the object back for a count it holds; the hint is for one
        // that held none.
        if p.cached_tokens.is_none() && p.cache_write_tokens.is_none() {
            v.set_hint(F, PROMPT_DETAILS, true);
        }
        let rest = wire_types::to_value(&w::PromptTokensDetails {
            cached_tokens: None,
            cache_write_tokens: None,
            ..p
        });
        if rest.as_object().is_some_and(|m| !m.is_empty()) {
            v.set_field(F, "prompt_tokens_details", rest);
        }
    }
    if let Some(c) = u.completion_tokens_details {
        out.reasoning_tokens = c.reasoning_tokens;
        if c.reasoning_tokens.is_none() {
            v.set_hint(F, COMPLETION_DETAILS, true);
        }
        let rest = wire_types::to_value(&w::CompletionTokensDetails {
            reasoning_tokens: None,
            ..c
        });
        if rest.as_object().is_some_and(|m| !m.is_empty()) {
            v.set_field(F, "completion_tokens_details", rest);
        }
    }
    out.vendor = v;
    out
}

/// Encodes a neutral response as a Chat Completions response.
pub(crate) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let object = crate::passes::response::object_tag(&v, F, OBJECT);
    // `id`, `created` and `model`, which the SDK requires, are filled by
    // `passes::response` when the source has none.
    let created = resp.created.or_else(|| fields.take_as("created"));
    let system_fingerprint = fields.take_as("system_fingerprint");
    let service_tier = fields.take_as("service_tier");
    let mut choices = Vec::with_capacity(resp.choices.len());
    for (i, c) in resp.choices.into_iter().enumerate() {
        choices.push(encode_choice(c, i, v.format == Some(F), ctx));
    }
    let extra = extra_from(fields, &v, w::Response::FIELDS, "", ctx);
    Ok(w::Response {
        id: resp.id,
        object,
        created,
        model: resp.model,
        choices,
        usage: resp.usage.map(|u| encode_usage(u, ctx)),
        system_fingerprint,
        service_tier,
        extra,
    })
}

/// `same_response`: the response was decoded from this format.
fn encode_choice(c: Choice, i: usize, same_response: bool, ctx: &mut Ctx<'_>) -> w::Choice {
    let at = format!("/choices/{i}");
    let mut fields = ctx.vendor_fields(&c.vendor, &at);
    let same = same_response || c.vendor.format == Some(F) || c.message.vendor.format == Some(F);
    let no_role = c.message.vendor.flag(F, NO_ROLE);
    let parts = encode_assistant_parts(c.message, &format!("{at}/message"), ctx);
    let mut pf = parts.fields;
    let mut message = w::ResponseMessage {
        // Not `take_as`: a role that is not a string must not stay in the fields and go
        // out beside the default one.
        role: pf
            .shift_remove("role")
            .and_then(|r| r.as_str().map(str::to_owned))
            .or_else(|| (!no_role).then(|| "assistant".to_owned())),
        content: parts.content,
        refusal: parts.refusal,
        tool_calls: parts.tool_calls,
        annotations: pf.take_as("annotations"),
        audio: pf.shift_remove("audio").map(Box::new),
        function_call: pf.shift_remove("function_call").map(Box::new),
        reasoning_content: parts.reasoning_content,
        extra: parts.extra,
    };
    // A stream's message members (`extra_content`, a role other than `assistant`) come on
    // its finish, the choice's vendor field `message` (see `stream.rs`).
    super::stream::put_message_members(&mut fields, &mut message.role, &mut message.extra);
    if !same {
        // What OpenAI itself sends: explicit nulls for an absent content and refusal.
        if message.content.is_none() {
            message.extra.mark_null("content");
        }
        if message.refusal.is_none() {
            message.extra.mark_null("refusal");
        }
    }
    let index = fields
        .shift_remove("index")
        .and_then(|x| x.as_u64())
        .map(|x| x as u32)
        .or_else(|| (!c.vendor.flag(F, NO_INDEX)).then_some(i as u32));
    let logprobs = fields.shift_remove("logprobs");
    let null_logprobs = same && logprobs.is_none() && !c.vendor.flag(F, NO_LOGPROBS);
    let finish_reason = c
        .stop_reason
        .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    let mut extra = extra_from(fields, &c.vendor, w::Choice::FIELDS, &at, ctx);
    if null_logprobs {
        extra.mark_null("logprobs");
    }
    if finish_reason.is_none() && c.vendor.format == Some(F) {
        // `finish_reason: null` was handled as a neutral `None`; put it back.
        if c.vendor
            .hints
            .get(NULLS)
            .and_then(Value::as_array)
            .is_some_and(|n| n.iter().any(|x| x == "finish_reason"))
        {
            extra.mark_null("finish_reason");
        }
    }
    w::Choice {
        index,
        message: Box::new(message),
        finish_reason,
        logprobs: logprobs.map(Box::new),
        extra,
    }
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence => w::FinishReason::Stop,
        StopKind::MaxTokens => w::FinishReason::Length,
        StopKind::ToolUse => w::FinishReason::ToolCalls,
        StopKind::ContentFilter => w::FinishReason::ContentFilter,
        StopKind::Pause | StopKind::Error | StopKind::Other => {
            let raw = r.raw.clone().unwrap_or_else(|| "stop".to_owned());
            ctx.changed(
                LossCode::StopReasonChanged,
                at.to_owned(),
                format!("stop reason `{raw}` has no openai-chat equivalent; kept as is"),
            );
            w::FinishReason::from(raw)
        }
    }
}

pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    let mut details = |key: &str, hint: &str| -> Option<Map<String, Value>> {
        match fields.shift_remove(key) {
            Some(Value::Object(m)) => Some(m),
            _ if u.vendor.flag(F, hint) => Some(Map::new()),
            _ => None,
        }
    };
    let pd = details("prompt_tokens_details", PROMPT_DETAILS);
    let cd = details("completion_tokens_details", COMPLETION_DETAILS);
    let prompt_tokens_details =
        if pd.is_some() || u.cached_input_tokens.is_some() || u.cache_write_tokens.is_some() {
            let mut d: w::PromptTokensDetails = pd
                .map(|m| serde_json::from_value(Value::Object(m)).unwrap_or_default())
                .unwrap_or_default();
            d.cached_tokens = u.cached_input_tokens;
            d.cache_write_tokens = u.cache_write_tokens;
            Some(d)
        } else {
            None
        };
    let completion_tokens_details = if cd.is_some() || u.reasoning_tokens.is_some() {
        let mut d: w::CompletionTokensDetails = cd
            .map(|m| serde_json::from_value(Value::Object(m)).unwrap_or_default())
            .unwrap_or_default();
        d.reasoning_tokens = u.reasoning_tokens;
        Some(d)
    } else {
        None
    };
    let total = crate::passes::finish::total_tokens(&u, F);
    w::Usage {
        prompt_tokens: u.input_tokens,
        completion_tokens: u.output_tokens,
        total_tokens: total,
        prompt_tokens_details,
        completion_tokens_details,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, "/usage", ctx),
    }
}
