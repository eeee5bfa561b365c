//! Responses both ways: the answer, its stop reason and usage.

use super::F;
use super::decode::{Turn, decode_turn};
use super::encode::encode_turn;
use super::hints::{FINISH_NULL, INDEX, OBJECT, PROMPT_DETAILS};
use crate::ctx::extra_from;
use crate::model::{self, Choice, StopKind, StopReason, Usage, Vendor};
use crate::passes::finish::{closed_stop, counts_dropped};
use crate::vendor::Fields;
use crate::{Ctx, Error};
use serde_json::Value;
use wire_types::mistral as w;

/// Decodes a Mistral chat response.
pub(crate) fn decode_response(
    resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.id,
        model: resp.model,
        ..Default::default()
    };
    for (i, c) in resp.choices.into_iter().enumerate() {
        let neutral = format!("/choices/{i}/message");
        let m = c.message;
        let turn = Turn {
            role: m.role,
            content: m.content,
            tool_calls: m.tool_calls,
            prefix: m.prefix,
            extra: m.extra,
        };
        let message = decode_turn(turn, &neutral, &neutral, ctx);
        let mut v = Vendor::from_extra(F, &c.extra, &["finish_reason"]);
        if let Some(ix) = c.index {
            v.set_hint(F, INDEX, ix);
        }
        v.keep(F, "logprobs", &c.logprobs);
        if c.finish_reason.is_none() && c.extra.was_null("finish_reason") {
            v.set_hint(F, FINISH_NULL, true);
        }
        if !v.is_empty() {
            v.format = Some(F);
        }
        ctx.map(
            format_args!("/choices/{i}/stop_reason"),
            format_args!("/choices/{i}/finish_reason"),
        );
        out.choices.push(Choice {
            message,
            stop_reason: c.finish_reason.map(|f| stop_reason(&f)),
            vendor: v,
        });
    }
    out.usage = resp.usage.map(|u| decode_usage(u, ctx));
    let mut v = Vendor::from_extra(F, &resp.extra, &[]);
    if let Some(object) = resp.object {
        v.set_hint(F, OBJECT, object);
    }
    out.created = resp.created;
    v.format = Some(F);
    out.vendor = v;
    Ok(out)
}

/// The neutral stop reason of a `finish_reason` (its wire value kept).
pub(super) fn stop_reason(f: &w::FinishReason) -> StopReason {
    let kind = match f {
        w::FinishReason::Stop => StopKind::EndTurn,
        w::FinishReason::Length | w::FinishReason::ModelLength => StopKind::MaxTokens,
        w::FinishReason::ToolCalls => StopKind::ToolUse,
        w::FinishReason::Error => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason::read(kind, f.as_str(), F)
}

pub(super) fn decode_usage(u: w::Usage, ctx: &mut Ctx<'_>) -> Usage {
    ctx.map("/usage/input_tokens", "/usage/prompt_tokens");
    ctx.map("/usage/output_tokens", "/usage/completion_tokens");
    let mut out = Usage {
        input_tokens: u.prompt_tokens,
        output_tokens: u.completion_tokens,
        total_tokens: u.total_tokens,
        ..Default::default()
    };
    let mut v = Vendor::from_extra(F, &u.extra, &[]);
    if let Some(p) = u.prompt_tokens_details {
        out.cached_input_tokens = p.cached_tokens;
        v.set_hint(F, PROMPT_DETAILS, true);
        if !p.extra.is_empty() {
            v.set_field(
                F,
                "prompt_tokens_details",
                wire_types::to_value(&w::PromptTokensDetails {
                    cached_tokens: None,
                    ..p
                }),
            );
        }
    }
    out.vendor = v;
    out
}

/// Encodes a neutral response as a Mistral chat response.
pub(crate) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let object = crate::passes::response::object_tag(&v, F, OBJECT);
    let created = resp.created.or_else(|| fields.take_as("created"));
    let mut choices = Vec::with_capacity(resp.choices.len());
    for (i, c) in resp.choices.into_iter().enumerate() {
        choices.push(encode_choice(c, i, ctx));
    }
    Ok(w::Response {
        id: resp.id,
        object,
        created,
        model: resp.model,
        choices,
        usage: resp.usage.map(|u| encode_usage(u, ctx)),
        extra: extra_from(fields, &v, w::Response::FIELDS, "", ctx),
    })
}

fn encode_choice(c: Choice, i: usize, ctx: &mut Ctx<'_>) -> w::Choice {
    let at = format!("/choices/{i}");
    let mut fields = ctx.vendor_fields(&c.vendor, &at);
    let same = c.vendor.format == Some(F) || c.message.vendor.format == Some(F);
    let t = encode_turn(c.message, &format!("{at}/message"), ctx);
    let mut message = w::ResponseMessage {
        role: t.role.or_else(|| (!same).then(|| "assistant".to_owned())),
        content: t.content,
        tool_calls: t.tool_calls,
        prefix: t.prefix,
        extra: t.extra,
    };
    // A stream's message members come on its finish (see `openai_chat/stream.rs`).
    crate::openai_chat::stream::put_message_members(
        &mut fields,
        &mut message.role,
        &mut message.extra,
    );
    let index = c
        .vendor
        .hint(F, INDEX)
        .and_then(Value::as_u64)
        .and_then(|x| u32::try_from(x).ok())
        .or_else(|| (!same).then_some(i as u32));
    let logprobs = fields.shift_remove("logprobs");
    let finish_reason = c
        .stop_reason
        .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    let mut extra = extra_from(fields, &c.vendor, w::Choice::FIELDS, &at, ctx);
    if finish_reason.is_none() && c.vendor.flag(F, FINISH_NULL) {
        extra.mark_null("finish_reason");
    }
    w::Choice {
        index,
        message,
        finish_reason,
        logprobs,
        extra,
    }
}

pub(super) fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    // `finish_reason` is a closed set: `stop`, `length`, `model_length`, `error`,
    // `tool_calls`. A content filter (or refusal) ended the answer before its natural
    // end and the SDK has no value for it: `error`, so that a client does not take the
    // answer as complete. A pause and an unknown reason become `stop`.
    closed_stop(r, F, at, ctx, |kind| match kind {
        StopKind::EndTurn | StopKind::StopSequence => Ok(w::FinishReason::Stop),
        StopKind::MaxTokens => Ok(w::FinishReason::Length),
        StopKind::ToolUse => Ok(w::FinishReason::ToolCalls),
        StopKind::Error => Ok(w::FinishReason::Error),
        StopKind::ContentFilter => Err((w::FinishReason::Error, "error")),
        StopKind::Pause | StopKind::Other => Err((w::FinishReason::Stop, "stop")),
    })
}

/// The usage: the counts of the SDK's `UsageInfo` (`prompt_tokens`, `completion_tokens`,
/// `total_tokens`). `prompt_tokens_details` (the cached count), which the API sends but
/// the SDK does not know, is written back only to a usage that came from Mistral with it;
/// elsewhere a cached count is a loss like the other counts Mistral has no field for.
pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    let details = fields.shift_remove("prompt_tokens_details");
    let own_details = details.is_some() || u.vendor.flag(F, PROMPT_DETAILS);
    let cached = if own_details {
        None
    } else {
        u.cached_input_tokens
    };
    counts_dropped(
        F,
        &[
            ("cached_input_tokens", cached),
            ("cache_write_tokens", u.cache_write_tokens),
            ("reasoning_tokens", u.reasoning_tokens),
        ],
        ctx,
    );
    let prompt_tokens_details = if own_details {
        let mut d: w::PromptTokensDetails = details
            .and_then(|d| serde_json::from_value(d).ok())
            .unwrap_or_default();
        d.cached_tokens = u.cached_input_tokens;
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
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, "/usage", ctx),
    }
}
