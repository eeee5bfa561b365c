//! Responses both ways: the answer, its stop reason and usage.

use super::decode::decode_turn;
use super::encode::{encode_turn, text_item};
use super::hints::{CONTENT_EMPTY, PARTS, TOKENS};
use super::{F, Turn};
use crate::ctx::extra_from;
use crate::model::{self, Choice, StopKind, StopReason, Usage, Vendor};
use crate::passes::finish::{closed_stop, usage_dropped};
use crate::passes::response::{drop_created, drop_unplaced, first_choice};
use crate::vendor::Fields;
use crate::{Ctx, Error};
use wire_types::TextOrParts;
use wire_types::cohere as w;

/// Decodes a Cohere v2 chat response.
pub(super) fn decode_response(
    resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.id,
        ..Default::default()
    };
    let m = resp.message;
    let empty = m.content.as_ref().is_some_and(Vec::is_empty);
    let turn = Turn {
        role: m.role,
        content: m.content.map(TextOrParts::Parts),
        tool_plan: m.tool_plan,
        tool_calls: m.tool_calls,
        citations: m.citations,
        extra: m.extra,
    };
    let mut message = decode_turn(turn, "/choices/0/message", "/message", ctx);
    // Response content is always an array: no `parts` hint needed.
    message.vendor.hints.shift_remove(PARTS);
    if empty {
        message.vendor.set_hint(F, CONTENT_EMPTY, true);
    }
    if message.vendor.is_empty() {
        message.vendor.format = None;
    }
    ctx.map("/choices/0", "");
    ctx.map("/choices/0/stop_reason", "/finish_reason");
    out.choices.push(Choice {
        message,
        stop_reason: resp.finish_reason.as_ref().map(stop_reason),
        vendor: Vendor::default(),
    });
    out.usage = resp.usage.map(|u| decode_usage(u, ctx));
    let mut v = Vendor::from_extra(F, &resp.extra, &[]);
    v.keep(F, "logprobs", &resp.logprobs);
    v.format = Some(F);
    out.vendor = v;
    Ok(out)
}

/// The stop reason of a `finish_reason`.
pub(super) fn stop_reason(f: &w::FinishReason) -> StopReason {
    let kind = match f {
        w::FinishReason::Complete => StopKind::EndTurn,
        w::FinishReason::StopSequence => StopKind::StopSequence,
        w::FinishReason::MaxTokens => StopKind::MaxTokens,
        w::FinishReason::ToolCall => StopKind::ToolUse,
        w::FinishReason::Error | w::FinishReason::Timeout => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason::read(kind, f.as_str(), F)
}

/// The usage: `tokens` counts, `cached_tokens`; `billed_units` is a vendor field.
pub(super) fn decode_usage(u: w::Usage, ctx: &mut Ctx<'_>) -> Usage {
    ctx.map("/usage/input_tokens", "/usage/tokens/input_tokens");
    ctx.map("/usage/output_tokens", "/usage/tokens/output_tokens");
    ctx.map("/usage/cached_input_tokens", "/usage/cached_tokens");
    let mut out = Usage {
        cached_input_tokens: u.cached_tokens,
        ..Default::default()
    };
    let mut v = Vendor::from_extra(F, &u.extra, &[]);
    if let Some(t) = u.tokens {
        out.input_tokens = t.input_tokens;
        out.output_tokens = t.output_tokens;
        v.set_hint(F, TOKENS, true);
        if !t.extra.is_empty() {
            v.set_field(
                F,
                "tokens",
                wire_types::to_value(&w::Tokens {
                    input_tokens: None,
                    output_tokens: None,
                    ..t
                }),
            );
        }
    }
    v.keep(F, "billed_units", &u.billed_units);
    out.vendor = v;
    out
}

/// Encodes a neutral response as a Cohere v2 chat response.
pub(super) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let same = v.format == Some(F);
    let mut fields = ctx.vendor_fields(&v, "");
    drop_created(resp.created, ctx);
    drop_unplaced(
        resp.model.as_deref(),
        "/model",
        "do not name the model",
        ctx,
    );
    let why = "a cohere response has one message: further choices are dropped";
    let first = first_choice(resp.choices, why, ctx, |mut c, at, ctx| {
        if c.vendor.format == Some(F)
            && matches!(c.message.vendor.format, None | Some(F))
            && !c.message.vendor.fields.contains_key("citations")
        {
            // A stream's citations come with its finish: they are the message's.
            if let Some(citations) = c.vendor.fields.shift_remove("citations") {
                c.message.vendor.set_field(F, "citations", citations);
            }
        }
        let mat = format!("{at}/message");
        let empty = c.message.vendor.flag(F, CONTENT_EMPTY);
        let mut t = encode_turn(c.message, &mat, ctx);
        let content = match t.content.take() {
            None if empty => Some(Vec::new()),
            None => None,
            Some(TextOrParts::Parts(p)) => Some(p),
            // No text at all: no empty text item.
            Some(TextOrParts::Text(s)) if s.is_empty() => empty.then(Vec::new),
            Some(TextOrParts::Text(s)) => Some(vec![text_item(s)]),
        };
        let message = w::ResponseMessage {
            role: t.role.or_else(|| (!same).then(|| "assistant".to_owned())),
            content,
            tool_plan: t.tool_plan,
            tool_calls: t.tool_calls,
            citations: t.citations,
            extra: t.extra,
        };
        let finish_reason = c
            .stop_reason
            .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
        (message, finish_reason)
    });
    let (message, finish_reason) = first.unzip();
    let finish_reason = finish_reason.flatten();
    Ok(w::Response {
        id: resp.id,
        finish_reason,
        message: message.unwrap_or_else(|| w::ResponseMessage {
            role: Some("assistant".to_owned()),
            ..Default::default()
        }),
        usage: resp.usage.map(|u| encode_usage(u, ctx)),
        logprobs: fields.take_as("logprobs"),
        extra: extra_from(fields, &v, w::Response::FIELDS, "", ctx),
    })
}

/// The `finish_reason` of a stop reason at neutral pointer `at`.
pub(super) fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    // `finish_reason` is a closed set: `COMPLETE`, `STOP_SEQUENCE`, `MAX_TOKENS`,
    // `TOOL_CALL`, `ERROR`, `TIMEOUT`. A content filter (or refusal) ended the answer
    // before its natural end: `ERROR`, so that a client does not take the answer as
    // complete. A pause and an unknown reason become `COMPLETE`.
    closed_stop(r, F, at, ctx, |kind| match kind {
        StopKind::EndTurn => Ok(w::FinishReason::Complete),
        StopKind::StopSequence => Ok(w::FinishReason::StopSequence),
        StopKind::MaxTokens => Ok(w::FinishReason::MaxTokens),
        StopKind::ToolUse => Ok(w::FinishReason::ToolCall),
        StopKind::Error => Ok(w::FinishReason::Error),
        StopKind::ContentFilter => Err((w::FinishReason::Error, "ERROR")),
        StopKind::Pause | StopKind::Other => Err((w::FinishReason::Complete, "COMPLETE")),
    })
}

/// The usage; the counts Cohere has no field for are losses.
pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    usage_dropped(
        &u,
        F,
        &[
            ("cache_write_tokens", u.cache_write_tokens),
            ("reasoning_tokens", u.reasoning_tokens),
        ],
        ctx,
    );
    let kept = fields.shift_remove("tokens");
    let tokens = if kept.is_some()
        || u.input_tokens.is_some()
        || u.output_tokens.is_some()
        || u.vendor.flag(F, TOKENS)
    {
        let mut t: w::Tokens = kept
            .and_then(|t| serde_json::from_value(t).ok())
            .unwrap_or_default();
        t.input_tokens = u.input_tokens;
        t.output_tokens = u.output_tokens;
        Some(t)
    } else {
        None
    };
    w::Usage {
        billed_units: fields.take_as("billed_units"),
        tokens,
        cached_tokens: u.cached_input_tokens,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, "/usage", ctx),
    }
}
