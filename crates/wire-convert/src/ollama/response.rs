//! Responses both ways: the answer, its stop reason and usage.

use super::decode::decode_turn;
use super::encode::{State, encode_turn};
use super::hints::{DONE, NO_DONE_REASON, NO_MESSAGE};
use super::{F, plain_message};
use crate::ctx::extra_from;
use crate::model::{self, Choice, Role, StopKind, StopReason, Usage, Vendor};
use crate::passes::finish::{closed_stop, usage_dropped};
use crate::passes::response::{drop_unplaced, first_choice};
use crate::vendor::Fields;
use crate::vendor::keep_fields;
use crate::{Ctx, Error, util};
use serde_json::Value;
use wire_types::ollama as w;

/// Decodes an `/api/chat` response (a whole response or one stream line).
pub(super) fn decode_response(
    resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let mut v = Vendor::from_extra(F, &resp.extra, &[]);
    let mut out = model::Response {
        model: resp.model,
        ..Default::default()
    };
    match resp.message {
        Some(m) => {
            let spelled = m.role.as_str().to_owned();
            let calls = m.tool_calls.as_ref().is_some_and(|c| !c.is_empty());
            let message = decode_turn(
                m,
                Role::Assistant,
                &spelled,
                "/choices/0/message",
                "/message",
                ctx,
            );
            ctx.map("/choices/0", "");
            ctx.map("/choices/0/stop_reason", "/done_reason");
            let (stop, vendor) = stop_of(resp.done_reason.as_ref(), resp.done, calls);
            out.choices.push(Choice {
                message,
                stop_reason: stop,
                vendor,
            });
        }
        None => {
            v.set_hint(F, NO_MESSAGE, true);
            v.keep(F, "done_reason", &resp.done_reason);
        }
    }
    if resp.prompt_eval_count.is_some() || resp.eval_count.is_some() {
        ctx.map("/usage/input_tokens", "/prompt_eval_count");
        ctx.map("/usage/output_tokens", "/eval_count");
        out.usage = Some(Usage {
            input_tokens: resp.prompt_eval_count,
            output_tokens: resp.eval_count,
            ..Default::default()
        });
    }
    if let Some(t) = resp.created_at {
        // Carried to the second. Text that says more (a fraction, an offset) is also
        // kept as it came: written back here, reported as dropped elsewhere.
        ctx.map("/created", "/created_at");
        let (secs, keep) = util::read_timestamp(t);
        out.created = secs;
        if let Some(t) = keep {
            v.set_field(F, "created_at", Value::String(t));
        }
    }
    keep_fields!(v, F, resp; total_duration, load_duration, prompt_eval_duration, eval_duration,
        logprobs);
    if let Some(done) = resp.done {
        // Whether this is the last line: the stop reason says what it means.
        v.set_hint(F, DONE, done);
    }
    // The response is Ollama's even when nothing needs keeping: the encoder then leaves
    // out what it would add for a foreign response.
    v.format = Some(F);
    out.vendor = v;
    Ok(out)
}

/// The stop reason of a response's (or a stream's last line's) `done_reason` and `done`,
/// with the choice's vendor record (`calls`: the message calls tools; in a stream, any
/// line did).
pub(super) fn stop_of(
    done_reason: Option<&w::DoneReason>,
    done: Option<bool>,
    calls: bool,
) -> (Option<StopReason>, Vendor) {
    let mut vendor = Vendor::default();
    let stop = match done_reason {
        Some(d) => Some(stop_reason(d, calls)),
        // Older servers end with `done: true` and no reason: the turn ended.
        None if done == Some(true) => {
            vendor.set_hint(F, NO_DONE_REASON, true);
            Some(StopReason::new(if calls {
                StopKind::ToolUse
            } else {
                StopKind::EndTurn
            }))
        }
        None => None,
    };
    (stop, vendor)
}

/// The stop reason of a `done_reason` (`calls`: the message calls tools).
fn stop_reason(d: &w::DoneReason, calls: bool) -> StopReason {
    let kind = match d {
        w::DoneReason::Stop if calls => StopKind::ToolUse,
        w::DoneReason::Stop => StopKind::EndTurn,
        w::DoneReason::Length => StopKind::MaxTokens,
        _ => StopKind::Other,
    };
    StopReason::read(kind, d.as_str(), F)
}

/// Encodes a neutral response as an `/api/chat` response.
pub(super) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let same = v.format == Some(F);
    let mut fields = ctx.vendor_fields(&v, "");
    drop_unplaced(resp.id.as_deref(), "/id", "have no id", ctx);
    let why = "an ollama response has one message: further choices are dropped";
    let first = first_choice(resp.choices, why, ctx, |c, at, ctx| {
        let mut st = State::default();
        let message = encode_turn(c.message, &format!("{at}/message"), &mut st, ctx);
        let done_reason = c
            .stop_reason
            .filter(|_| !c.vendor.flag(F, NO_DONE_REASON))
            .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
        (message, done_reason)
    });
    let (mut message, done_reason) = first.unzip();
    let mut done_reason = done_reason.flatten();
    if message.is_none() && !(same && v.flag(F, NO_MESSAGE)) {
        message = Some(plain_message(w::Role::Assistant));
    }
    if done_reason.is_none() {
        done_reason = fields
            .take_as::<String>("done_reason")
            .map(w::DoneReason::from);
    }
    let (prompt_eval_count, eval_count) = match resp.usage {
        Some(u) => encode_usage(u, ctx),
        None => (None, None),
    };
    // The text as it came (Ollama's own), else written from the seconds.
    let created_at = ctx
        .take_fit(&mut fields, "created_at", "")
        .or_else(|| resp.created.map(util::rfc3339_of_unix));
    let done = if same {
        v.hint(F, DONE).and_then(Value::as_bool)
    } else {
        Some(true)
    };
    Ok(w::Response {
        model: resp.model,
        created_at,
        message,
        done,
        done_reason,
        total_duration: fields.take_as("total_duration"),
        load_duration: fields.take_as("load_duration"),
        prompt_eval_count,
        prompt_eval_duration: fields.take_as("prompt_eval_duration"),
        eval_count,
        eval_duration: fields.take_as("eval_duration"),
        logprobs: fields.take_as("logprobs"),
        extra: extra_from(fields, &v, w::Response::FIELDS, "", ctx),
    })
}

/// The `done_reason` of a stop reason at neutral pointer `at`.
fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::DoneReason {
    // `done_reason` says `stop` or `length` (`load` / `unload` answer empty requests).
    closed_stop(r, F, at, ctx, |kind| match kind {
        StopKind::EndTurn | StopKind::StopSequence | StopKind::ToolUse => Ok(w::DoneReason::Stop),
        StopKind::MaxTokens => Ok(w::DoneReason::Length),
        StopKind::ContentFilter | StopKind::Pause | StopKind::Error | StopKind::Other => {
            Err((w::DoneReason::Stop, "stop"))
        }
    })
}

/// `(prompt_eval_count, eval_count)`; the breakdowns Ollama has no field for are losses.
fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> (Option<u64>, Option<u64>) {
    ctx.report_foreign_fields(&u.vendor, "/usage");
    usage_dropped(
        &u,
        F,
        &[
            ("cached_input_tokens", u.cached_input_tokens),
            ("cache_write_tokens", u.cache_write_tokens),
            ("reasoning_tokens", u.reasoning_tokens),
        ],
        ctx,
    );
    (u.input_tokens, u.output_tokens)
}
