//! Responses both ways: the answer, its stop reason and usage.

use super::decode::decode_block;
use super::encode::{Known, encode_part};
use super::{F, Place, hints};
use crate::ctx::extra_from;
use crate::model::{self, Choice, Message, Role, StopKind, StopReason, Usage, Vendor};
use crate::passes::response::first_choice;
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::Extra;
use wire_types::anthropic as w;

/// Decodes a Messages response: its content is one choice.
pub(super) fn decode_response(
    resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let w::Response {
        id,
        kind,
        role,
        model,
        content,
        stop_reason,
        stop_sequence,
        stop_details,
        usage,
        container,
        extra,
    } = resp;
    let mut v = Vendor::from_extra(F, &extra, &[]);
    // `type: message` and `role: assistant` are what every response says: hints only
    // when they are absent, fields when they say something else.
    match kind.as_deref() {
        Some("message") => {}
        Some(k) => v.set_field(F, "type", Value::String(k.to_owned())),
        None => v.set_hint(F, hints::NO_RESPONSE_TYPE, true),
    }
    match &role {
        Some(w::Role::Assistant) => {}
        Some(r) => v.set_field(F, "role", Value::String(r.as_str().to_owned())),
        None => v.set_hint(F, hints::NO_ROLE, true),
    }
    v.keep(F, "stop_sequence", &stop_sequence);
    v.keep(F, "stop_details", &stop_details);
    v.keep(F, "container", &container);

    let mut message = Message::new(Role::Assistant, Vec::with_capacity(content.len()));
    ctx.map("/choices/0/message", "/content");
    for (j, b) in content.into_iter().enumerate() {
        ctx.map(
            format_args!("/choices/0/message/content/{j}"),
            format_args!("/content/{j}"),
        );
        message.content.push(decode_block(b, Place::Response, ctx));
    }
    ctx.map("/choices/0/stop_reason", "/stop_reason");
    Ok(model::Response {
        id,
        model,
        created: None,
        choices: vec![Choice {
            message,
            stop_reason: stop_reason.as_ref().map(stop_reason_of),
            vendor: Vendor::default(),
        }],
        usage: usage.map(decode_usage),
        vendor: v,
        source: None,
    })
}

pub(super) fn stop_reason_of(r: &w::StopReason) -> StopReason {
    let kind = match r {
        w::StopReason::EndTurn => StopKind::EndTurn,
        w::StopReason::StopSequence => StopKind::StopSequence,
        w::StopReason::MaxTokens | w::StopReason::ModelContextWindowExceeded => StopKind::MaxTokens,
        w::StopReason::ToolUse => StopKind::ToolUse,
        w::StopReason::Refusal => StopKind::ContentFilter,
        w::StopReason::PauseTurn => StopKind::Pause,
        _ => StopKind::Other,
    };
    StopReason::read(kind, r.as_str(), F)
}

pub(super) fn decode_usage(u: w::Usage) -> Usage {
    let w::Usage {
        input_tokens,
        output_tokens,
        cache_creation_input_tokens: writes,
        cache_read_input_tokens: reads,
        cache_creation,
        server_tool_use,
        service_tier,
        inference_geo,
        output_tokens_details,
        extra,
    } = u;
    let mut v = Vendor::from_extra(F, &extra, &[]);
    match &cache_creation {
        // Nothing written to either cache: the breakdown says no more than a write count
        // of 0, so it is a hint (written back here, not reported elsewhere).
        Some(c)
            if c.ephemeral_5m_input_tokens == Some(0)
                && c.ephemeral_1h_input_tokens == Some(0)
                && c.extra.is_empty()
                && writes.is_none_or(|n| n == 0) =>
        {
            v.set_hint(F, hints::NO_CACHE_WRITES, true);
        }
        _ => v.keep(F, "cache_creation", &cache_creation),
    }
    v.keep(F, "server_tool_use", &server_tool_use);
    v.keep(F, "service_tier", &service_tier);
    v.keep(F, "inference_geo", &inference_geo);
    let mut reasoning_tokens = None;
    if let Some(d) = output_tokens_details {
        reasoning_tokens = d.thinking_tokens;
        v.set_hint(F, hints::DETAILS, true);
        let rest = wire_types::to_value(&w::OutputTokensDetails {
            thinking_tokens: None,
            ..d
        });
        if rest.as_object().is_some_and(|m| !m.is_empty()) {
            v.set_field(F, "output_tokens_details", rest);
        }
    }
    Usage {
        input_tokens: input_tokens.map(|i| {
            i.saturating_add(writes.unwrap_or(0))
                .saturating_add(reads.unwrap_or(0))
        }),
        output_tokens,
        total_tokens: None,
        cached_input_tokens: reads,
        cache_write_tokens: writes,
        reasoning_tokens,
        vendor: v,
    }
}

/// Encodes a neutral response as a Messages response (the first choice; Anthropic has
/// one).
pub(super) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let model::Response {
        id,
        model,
        created,
        choices,
        usage,
        vendor: v,
        source: _,
    } = resp;
    crate::passes::response::drop_created(created, ctx);
    let mut fields = ctx.vendor_fields(&v, "");
    let kind = ctx
        .take_fit::<String>(&mut fields, "type", "")
        .or_else(|| (!v.flag(F, hints::NO_RESPONSE_TYPE)).then(|| "message".to_owned()));
    let role = ctx
        .take_fit::<String>(&mut fields, "role", "")
        .map(w::Role::from)
        .or_else(|| (!v.flag(F, hints::NO_ROLE)).then_some(w::Role::Assistant));
    let stop_sequence = fields.take_as("stop_sequence");
    let stop_details = fields.take_as("stop_details");
    let container = fields.shift_remove("container");

    let mut content = Vec::new();
    let why = "an anthropic response has one answer: only the first choice is kept";
    let stop_reason = first_choice(choices, why, ctx, |c, at, ctx| {
        let mat = format!("{at}/message");
        ctx.report_foreign_fields(&c.message.vendor, &mat);
        for (j, p) in c.message.content.into_iter().enumerate() {
            let pat = format!("{mat}/content/{j}");
            encode_part(
                p,
                &pat,
                Place::Response,
                &Known::default(),
                &mut content,
                ctx,
            );
        }
        c.stop_reason
            .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx))
    })
    .flatten();

    // `id`, `model` and `usage`, which the SDK requires, are filled by
    // `passes::response` when the source has none.
    let usage = usage.map(|u| encode_usage(u, ctx));
    Ok(w::Response {
        extra: extra_from(fields, &v, w::Response::FIELDS, "", ctx),
        id,
        kind,
        role,
        model,
        content,
        stop_reason,
        stop_sequence,
        stop_details,
        usage,
        container,
    })
}

pub(super) fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::StopReason {
    if let Some(raw) = r.raw_for(F) {
        return w::StopReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn => w::StopReason::EndTurn,
        StopKind::StopSequence => w::StopReason::StopSequence,
        StopKind::MaxTokens => w::StopReason::MaxTokens,
        StopKind::ToolUse => w::StopReason::ToolUse,
        StopKind::ContentFilter => w::StopReason::Refusal,
        StopKind::Pause => w::StopReason::PauseTurn,
        StopKind::Error | StopKind::Other => {
            let raw = r.raw.as_deref().unwrap_or("(none)");
            ctx.changed(
                LossCode::StopReasonChanged,
                at.to_owned(),
                format!("stop reason `{raw}` has no anthropic equivalent: sent as end_turn"),
            );
            w::StopReason::EndTurn
        }
    }
}

pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let same = u.vendor.format == Some(F);
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    let reads = u.cached_input_tokens;
    let writes = u.cache_write_tokens;
    let input_tokens = u.input_tokens.map(|i| {
        i.saturating_sub(reads.unwrap_or(0))
            .saturating_sub(writes.unwrap_or(0))
    });
    crate::passes::finish::total_dropped(
        &u,
        |total, sum| {
            format!("anthropic has no total token count ({total}, not input + output = {sum})")
        },
        ctx,
    );
    let details = ctx
        .take_fit::<w::OutputTokensDetails>(&mut fields, "output_tokens_details", "/usage")
        .or_else(|| u.vendor.flag(F, hints::DETAILS).then(Default::default));
    let output_tokens_details = match (details, u.reasoning_tokens) {
        (Some(mut d), r) => {
            d.thinking_tokens = r;
            Some(d)
        }
        (None, Some(r)) => Some(w::OutputTokensDetails {
            thinking_tokens: Some(r),
            extra: Extra::new(),
        }),
        (None, None) => None,
    };
    let mut zero = |count: Option<u64>, name: &str| match count {
        Some(c) => Some(c),
        None if same => None,
        None => {
            ctx.changed(
                LossCode::FieldDefaulted,
                format!("/usage/{name}"),
                format!("anthropic usage has {name} and the source has none: 0 written"),
            );
            Some(0)
        }
    };
    let input_tokens = zero(input_tokens, "input_tokens");
    let output_tokens = zero(u.output_tokens, "output_tokens");
    w::Usage {
        input_tokens,
        output_tokens,
        cache_creation_input_tokens: writes,
        cache_read_input_tokens: reads,
        cache_creation: ctx
            .take_fit(&mut fields, "cache_creation", "/usage")
            .or_else(|| {
                u.vendor
                    .flag(F, hints::NO_CACHE_WRITES)
                    .then(|| w::CacheCreation {
                        ephemeral_5m_input_tokens: Some(0),
                        ephemeral_1h_input_tokens: Some(0),
                        extra: Extra::new(),
                    })
            }),
        server_tool_use: fields.take_as("server_tool_use"),
        service_tier: fields.take_as("service_tier"),
        inference_geo: fields.take_as("inference_geo"),
        output_tokens_details,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, "/usage", ctx),
    }
}
