//! Responses both ways: the answer, its stop reason and usage.

use super::decode::{decode_blocks, push_dp};
use super::encode::{Env, encode_content};
use super::{F, hints};
use crate::ctx::extra_from;
use crate::model::{self, Choice, Message, Part, Role, StopKind, StopReason, Usage, Vendor};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::bedrock as w;

/// Decodes a Converse response.
pub(super) fn decode_response(
    resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let mut out = model::Response::default();
    let mut v = Vendor::from_extra(F, &resp.extra, &[]);
    match resp.output {
        w::Output::Message(m) => {
            let mut msg = Message::new(Role::Assistant, Vec::new());
            msg.vendor = Vendor::from_extra(F, &m.extra, &[]);
            if m.role != w::Role::Assistant {
                msg.vendor.set_hint(F, hints::ROLE, m.role.as_str());
            }
            ctx.map("/choices/0/message", "/output/message");
            for dp in decode_blocks(m.content, &m.role, "/output/message", ctx) {
                push_dp(&mut msg, "/choices/0/message", dp, ctx);
            }
            ctx.map("/choices/0/stop_reason", "/stopReason");
            out.choices.push(Choice {
                message: msg,
                stop_reason: Some(stop_reason(&resp.stop_reason)),
                vendor: Vendor::default(),
            });
        }
        other => {
            v.set_field(F, "output", wire_types::to_value(&other));
            v.set_field(
                F,
                "stopReason",
                Value::String(resp.stop_reason.as_str().to_owned()),
            );
        }
    }
    out.usage = resp.usage.map(decode_usage);
    match &resp.metrics {
        Some(_) => v.keep(F, "metrics", &resp.metrics),
        None => v.set_hint(F, hints::NO_METRICS, true),
    }
    v.keep(
        F,
        "additionalModelResponseFields",
        &resp.additional_model_response_fields,
    );
    v.keep(F, "trace", &resp.trace);
    v.keep(F, "performanceConfig", &resp.performance_config);
    v.keep(F, "serviceTier", &resp.service_tier);
    out.vendor = v;
    Ok(out)
}

pub(super) fn stop_reason(r: &w::StopReason) -> StopReason {
    let kind = match r {
        w::StopReason::EndTurn => StopKind::EndTurn,
        w::StopReason::StopSequence => StopKind::StopSequence,
        w::StopReason::MaxTokens | w::StopReason::ModelContextWindowExceeded => StopKind::MaxTokens,
        w::StopReason::ToolUse => StopKind::ToolUse,
        w::StopReason::GuardrailIntervened | w::StopReason::ContentFiltered => {
            StopKind::ContentFilter
        }
        w::StopReason::MalformedModelOutput | w::StopReason::MalformedToolUse => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason::read(kind, r.as_str(), F)
}

/// Whether a usage value says nothing: zero, or an empty object (`serverToolUsage: {}`).
fn says_nothing(v: &Value) -> bool {
    v.as_f64() == Some(0.0) || v.as_object().is_some_and(Map::is_empty)
}

pub(super) fn decode_usage(u: w::Usage) -> Usage {
    let mut v = Vendor::from_extra(F, &u.extra, &[]);
    // Zero counts and empty objects carry nothing, so another format loses nothing: they
    // are hints (written back here only), not fields or neutral counts.
    let quiet: Map<String, Value> = v
        .fields
        .iter()
        .filter(|(_, x)| says_nothing(x))
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect();
    let mut zeros = Vec::new();
    let mut counted = |key: &str, n: Option<u64>| match n {
        Some(0) => {
            zeros.push(Value::from(key));
            None
        }
        n => n,
    };
    let read = counted("cacheReadInputTokens", u.cache_read_input_tokens);
    let write = counted("cacheWriteInputTokens", u.cache_write_input_tokens);
    if !quiet.is_empty() {
        v.fields.retain(|k, _| !quiet.contains_key(k));
        v.set_hint(F, hints::QUIET, Value::Object(quiet));
    }
    if !zeros.is_empty() {
        v.set_hint(F, hints::ZEROS, zeros);
    }
    v.keep(F, "cacheDetails", &u.cache_details);
    Usage {
        input_tokens: Some(
            u.input_tokens
                .saturating_add(read.unwrap_or(0))
                .saturating_add(write.unwrap_or(0)),
        ),
        output_tokens: Some(u.output_tokens),
        total_tokens: Some(u.total_tokens),
        cached_input_tokens: read,
        cache_write_tokens: write,
        reasoning_tokens: None,
        vendor: v,
    }
}

/// Encodes a neutral response as a Converse response.
pub(super) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    if resp.id.is_some() {
        ctx.dropped(
            LossCode::FieldUnsupported,
            "/id",
            "bedrock responses have no id",
        );
    }
    crate::passes::response::drop_created(resp.created, ctx);
    if resp.model.is_some() {
        ctx.dropped(
            LossCode::FieldUnsupported,
            "/model",
            "bedrock responses do not name the model",
        );
    }
    let mut env = Env::default();
    let mut choices = resp.choices.into_iter();
    let (output, stop) = match choices.next() {
        Some(c) => {
            ctx.report_foreign_fields(&c.vendor, "/choices/0");
            let at = "/choices/0/message";
            let m = c.message;
            let role = m
                .vendor
                .hint(F, hints::ROLE)
                .and_then(Value::as_str)
                .map(w::Role::from)
                .unwrap_or(w::Role::Assistant);
            if m.role != Role::Assistant {
                ctx.changed(
                    LossCode::TurnsChanged,
                    format!("{at}/role"),
                    format!("a {} message written as the assistant's", m.role.name()),
                );
            }
            let calls = m.content.iter().any(|p| matches!(p, Part::ToolCall(_)));
            let extra = ctx.extra(&m.vendor, w::Message::FIELDS, at);
            let content = encode_content(m.content, Role::Assistant, &m.vendor, at, &mut env, ctx);
            let stop = match c.stop_reason {
                Some(r) => encode_stop(&r, "/choices/0/stop_reason", ctx),
                None if calls => w::StopReason::ToolUse,
                None => w::StopReason::EndTurn,
            };
            (
                w::Output::Message(w::Message {
                    role,
                    content,
                    extra,
                }),
                stop,
            )
        }
        None => {
            let output = ctx.take_fit(&mut fields, "output", "").unwrap_or_else(|| {
                w::Output::Message(w::Message {
                    role: w::Role::Assistant,
                    content: Vec::new(),
                    extra: Extra::new(),
                })
            });
            let stop = fields
                .shift_remove("stopReason")
                .and_then(|s| s.as_str().map(w::StopReason::from))
                .unwrap_or(w::StopReason::EndTurn);
            (output, stop)
        }
    };
    for (i, _) in choices.enumerate() {
        ctx.dropped(
            LossCode::ChoicesDropped,
            format!("/choices/{}", i + 1),
            "a bedrock response holds one message",
        );
    }
    // Filled by `passes::response` when the source has none.
    let usage = resp.usage.map(|u| encode_usage(u, ctx));
    let metrics = match fields.take_as("metrics") {
        Some(m) => Some(m),
        None if v.flag(F, hints::NO_METRICS) => None,
        None => Some(w::Metrics::default()),
    };
    Ok(w::Response {
        output,
        stop_reason: stop,
        usage,
        metrics,
        additional_model_response_fields: fields.take_as("additionalModelResponseFields"),
        trace: fields.take_as("trace"),
        performance_config: fields.take_as("performanceConfig"),
        service_tier: fields.take_as("serviceTier"),
        extra: extra_from(fields, &v, w::Response::FIELDS, "", ctx),
    })
}

pub(super) fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::StopReason {
    if let Some(raw) = r.raw_for(F) {
        return w::StopReason::from(raw);
    }
    let (stop, lossy) = match r.kind {
        StopKind::EndTurn => (w::StopReason::EndTurn, false),
        StopKind::StopSequence => (w::StopReason::StopSequence, false),
        StopKind::MaxTokens => (w::StopReason::MaxTokens, false),
        StopKind::ToolUse => (w::StopReason::ToolUse, false),
        StopKind::ContentFilter => (w::StopReason::ContentFiltered, false),
        StopKind::Error => (w::StopReason::MalformedModelOutput, r.raw.is_some()),
        StopKind::Pause | StopKind::Other => (w::StopReason::EndTurn, true),
    };
    if lossy {
        ctx.changed(
            LossCode::StopReasonChanged,
            at.to_owned(),
            format!(
                "stop reason `{}` has no bedrock equivalent: written as `{}`",
                r.raw.as_deref().unwrap_or("other"),
                stop.as_str()
            ),
        );
    }
    stop
}

pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    if let Some(Value::Object(quiet)) = u.vendor.hint(F, hints::QUIET) {
        for (k, x) in quiet {
            fields.insert(k.clone(), x.clone());
        }
    }
    let zero = |key: &str| {
        u.vendor
            .hint(F, hints::ZEROS)
            .and_then(Value::as_array)
            .is_some_and(|z| z.iter().any(|x| x == key))
            .then_some(0)
    };
    let read = u
        .cached_input_tokens
        .or_else(|| zero("cacheReadInputTokens"));
    let write = u
        .cache_write_tokens
        .or_else(|| zero("cacheWriteInputTokens"));
    let input = u.input_tokens.unwrap_or_else(|| {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/usage/input_tokens",
            "bedrock requires inputTokens and the source has none: 0 written",
        );
        0
    });
    let output = u.output_tokens.unwrap_or_else(|| {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/usage/output_tokens",
            "bedrock requires outputTokens and the source has none: 0 written",
        );
        0
    });
    if u.reasoning_tokens.is_some_and(|n| n > 0) {
        ctx.dropped(
            LossCode::UsageChanged,
            "/usage/reasoning_tokens",
            "bedrock usage has no reasoning-token count (they are part of outputTokens)",
        );
    }
    let cache_details = fields.take_as("cacheDetails");
    w::Usage {
        input_tokens: input
            .saturating_sub(read.unwrap_or(0))
            .saturating_sub(write.unwrap_or(0)),
        output_tokens: output,
        total_tokens: u.total_tokens.unwrap_or(input.saturating_add(output)),
        cache_read_input_tokens: read,
        cache_write_input_tokens: write,
        cache_details,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, "/usage", ctx),
    }
}
