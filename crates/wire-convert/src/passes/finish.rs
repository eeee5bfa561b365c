//! How an answer ended, as chat-like targets write it: a stop reason the target has no
//! value for, and the usage counts it has no field for, each one loss worded once for
//! every format (Mistral, Cohere, Ollama), and the total token count they write.

use crate::model::{StopKind, StopReason, Usage};
use crate::{Ctx, Format, LossCode};
use serde_json::Value;

/// How a stop reason is named in a loss: its source spelling, or its neutral kind.
pub(crate) fn stop_name(r: &StopReason) -> String {
    match &r.raw {
        Some(raw) => raw.clone(),
        None => match serde_json::to_value(r.kind) {
            Ok(Value::String(k)) => k,
            _ => format!("{:?}", r.kind),
        },
    }
}

/// The loss of a stop reason `format` has no value for, sent as `said`.
pub(crate) fn stop_changed(
    r: &StopReason,
    format: Format,
    said: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    ctx.changed(
        LossCode::StopReasonChanged,
        at.to_owned(),
        format!(
            "stop reason `{}` has no {format} equivalent: sent as `{said}`",
            stop_name(r)
        ),
    );
}

/// A stop reason as a target whose stop values are a closed set writes it (Cohere,
/// Mistral, Ollama): its own raw value as it came; else what `table` gives for the
/// neutral kind, `Ok` where the target has a value for it, `Err((value, said))` for the
/// nearest, sent with the loss of [`stop_changed`] (`said`: the value as written).
pub(crate) fn closed_stop<T: for<'a> From<&'a str>>(
    r: &StopReason,
    format: Format,
    at: &str,
    ctx: &mut Ctx<'_>,
    table: impl FnOnce(StopKind) -> Result<T, (T, &'static str)>,
) -> T {
    if let Some(raw) = r.raw_for(format) {
        return T::from(raw);
    }
    match table(r.kind) {
        Ok(value) => value,
        Err((value, said)) => {
            stop_changed(r, format, said, at, ctx);
            value
        }
    }
}

/// The losses of the usage counts `format` reports no field for (`counts`, each named by
/// its neutral field). A zero count says nothing the totals do not: no loss.
pub(crate) fn counts_dropped(format: Format, counts: &[(&str, Option<u64>)], ctx: &mut Ctx<'_>) {
    for &(key, val) in counts {
        if let Some(n) = val.filter(|n| *n > 0) {
            ctx.dropped(
                LossCode::UsageChanged,
                format!("/usage/{key}"),
                format!("{format} reports no {} ({n})", key.replace('_', " ")),
            );
        }
    }
}

/// The loss of a total token count, for a target that reports none and takes the
/// total as input plus output: a `dropped` loss at `/usage/total_tokens` when the total
/// is not that sum, its detail written by `detail` from the total and the sum.
pub(crate) fn total_dropped(u: &Usage, detail: impl FnOnce(u64, u64) -> String, ctx: &mut Ctx<'_>) {
    if let Some(total) = u.total_tokens {
        let sum = u.input_tokens.unwrap_or(0) + u.output_tokens.unwrap_or(0);
        if total != sum {
            ctx.dropped(
                LossCode::UsageChanged,
                "/usage/total_tokens",
                detail(total, sum),
            );
        }
    }
}

/// The losses of a usage written for `format`, which has no field for `counts` (each a
/// loss by [`counts_dropped`]) and reports no total (a loss by [`total_dropped`] where
/// the total is not the sum of input and output).
pub(crate) fn usage_dropped(
    u: &Usage,
    format: Format,
    counts: &[(&str, Option<u64>)],
    ctx: &mut Ctx<'_>,
) {
    counts_dropped(format, counts, ctx);
    total_dropped(
        u,
        |t, _| format!("{format} reports no total ({t}, not the sum of input and output)"),
        ctx,
    );
}

/// The total token count `format` writes: the source's, else (for a usage from another
/// format) the sum of the input and output counts when both are known.
pub(crate) fn total_tokens(u: &Usage, format: Format) -> Option<u64> {
    u.total_tokens
        .or_else(|| match (u.input_tokens, u.output_tokens) {
            (Some(i), Some(o)) if u.vendor.format != Some(format) => Some(i + o),
            _ => None,
        })
}
