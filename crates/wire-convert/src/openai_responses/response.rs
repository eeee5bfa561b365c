//! Responses both ways: the answer, its stop reason and usage.

use super::decode::push_assistant_item;
use super::encode::{Mode, encode_assistant};
use super::{F, from_map, is_absent, note_absent, put_sub, rebuild, rest, to_map};
use crate::model::{self, Choice, Message, Role, StopKind, StopReason, Usage, Vendor};
use crate::passes::response::first_choice;
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::openai_responses as w;

/// Decodes a Responses response: its output is one choice.
pub(super) fn decode_response(
    mut resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let output = std::mem::take(&mut resp.output);
    let has_calls = output.iter().any(|i| matches!(i, w::Item::FunctionCall(_)));
    let mut out = decode_head(resp, has_calls, ctx);
    let neutral = "/choices/0/message";
    ctx.map(neutral, "/output");
    let message = &mut out.choices[0].message;
    for (i, item) in output.into_iter().enumerate() {
        let at = format!("/output/{i}");
        push_assistant_item(message, neutral, output_item(item), &at, ctx);
    }
    Ok(out)
}

/// An output item as the assistant's: only the assistant speaks in an output, so
/// anything else (another role's message, a function output) is kept whole.
pub(super) fn output_item(item: w::Item) -> w::Item {
    match item {
        w::Item::Message(m) if m.role != w::Role::Assistant => {
            w::Item::Other(to_map(&w::Item::Message(m)))
        }
        w::Item::FunctionCallOutput(o) => w::Item::Other(to_map(&w::Item::FunctionCallOutput(o))),
        other => other,
    }
}

/// Everything of a response but its output (taken out before: `has_calls` says whether
/// it held function calls): id, model, creation time, the stop reason of its one choice
/// (whose message is empty), usage and the response's vendor record.
pub(super) fn decode_head(
    mut resp: w::Response,
    has_calls: bool,
    ctx: &mut Ctx<'_>,
) -> model::Response {
    let mut v = Vendor::default();
    let missing = [
        ("id", resp.id.is_none()),
        ("created_at", resp.created_at.is_none()),
        ("model", resp.model.is_none()),
        ("object", resp.object.is_none()),
        ("parallel_tool_calls", resp.parallel_tool_calls.is_none()),
        ("tool_choice", resp.tool_choice.is_none()),
        ("tools", resp.tools.is_none()),
    ];
    note_absent(&mut v, &resp.extra, "", &missing);
    let id = resp.id.take();
    let model = resp.model.take();
    let created = resp.created_at.take();
    ctx.map("/created", "/created_at");
    let usage = resp.usage.take();
    let status = resp.status.take();
    let details = resp.incomplete_details.take();
    let (stop_reason, details_left) = stop_reason(status, details, has_calls);
    let mut map = to_map(&resp);
    map.remove("output");
    // The body's type tag: the encoder writes it back (it is absent only with the
    // `absent` hint), so it is not a field another format would report dropped.
    if map.get("object").and_then(Value::as_str) == Some("response") {
        map.shift_remove("object");
    }
    if let Some(d) = details_left {
        map.insert("incomplete_details".into(), d);
    }
    v.merge(rest(map));
    model::Response {
        id,
        model,
        created,
        choices: vec![Choice {
            message: Message::new(Role::Assistant, Vec::new()),
            stop_reason,
            vendor: Vendor::default(),
        }],
        usage: usage.map(decode_usage),
        vendor: v,
        source: None,
    }
}

/// The stop reason of a response, and its `incomplete_details` when they are not
/// implied by it (to keep as they are).
pub(super) fn stop_reason(
    status: Option<w::ResponseStatus>,
    details: Option<w::IncompleteDetails>,
    has_calls: bool,
) -> (Option<StopReason>, Option<Value>) {
    let Some(status) = status else {
        return (None, details.map(|d| wire_types::to_value(&d)));
    };
    let reason = |kind: StopKind, raw: &str| StopReason::read(kind, raw, F);
    match status {
        w::ResponseStatus::Incomplete => match details {
            Some(w::IncompleteDetails {
                reason: Some(r),
                extra,
            }) if extra.is_empty() => {
                let kind = match r {
                    w::IncompleteReason::MaxOutputTokens => StopKind::MaxTokens,
                    w::IncompleteReason::ContentFilter => StopKind::ContentFilter,
                    _ => StopKind::Other,
                };
                (Some(reason(kind, r.as_str())), None)
            }
            other => (
                Some(reason(StopKind::Other, status.as_str())),
                other.map(|d| wire_types::to_value(&d)),
            ),
        },
        _ => {
            let kind = match &status {
                w::ResponseStatus::Completed if has_calls => StopKind::ToolUse,
                w::ResponseStatus::Completed => StopKind::EndTurn,
                w::ResponseStatus::Failed => StopKind::Error,
                _ => StopKind::Other,
            };
            (
                Some(reason(kind, status.as_str())),
                details.map(|d| wire_types::to_value(&d)),
            )
        }
    }
}

/// The usage, with what the source left out in the `absent` hint.
pub(super) fn decode_usage(mut u: w::Usage) -> Usage {
    let mut v = Vendor::default();
    let missing = [
        ("input_tokens", u.input_tokens.is_none()),
        ("output_tokens", u.output_tokens.is_none()),
        ("total_tokens", u.total_tokens.is_none()),
        ("input_tokens_details", u.input_tokens_details.is_none()),
        ("output_tokens_details", u.output_tokens_details.is_none()),
    ];
    note_absent(&mut v, &u.extra, "", &missing);
    let mut out = Usage {
        input_tokens: u.input_tokens.take(),
        output_tokens: u.output_tokens.take(),
        total_tokens: u.total_tokens.take(),
        ..Default::default()
    };
    let input_details = u.input_tokens_details.take();
    let output_details = u.output_tokens_details.take();
    v.merge(rest(to_map(&u)));
    if let Some(mut d) = input_details {
        let missing = [
            ("cached_tokens", d.cached_tokens.is_none()),
            ("cache_write_tokens", d.cache_write_tokens.is_none()),
        ];
        note_absent(&mut v, &d.extra, "input_tokens_details.", &missing);
        out.cached_input_tokens = d.cached_tokens.take();
        out.cache_write_tokens = d.cache_write_tokens.take();
        put_sub(&mut v, "input_tokens_details", to_map(&d));
    }
    if let Some(mut d) = output_details {
        let missing = [("reasoning_tokens", d.reasoning_tokens.is_none())];
        note_absent(&mut v, &d.extra, "output_tokens_details.", &missing);
        out.reasoning_tokens = d.reasoning_tokens.take();
        put_sub(&mut v, "output_tokens_details", to_map(&d));
    }
    out.vendor = v;
    out
}

/// Encodes a neutral response as a Responses response.
pub(super) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut map = rebuild(&v, ctx, "");
    map.insert("output".into(), Value::Array(Vec::new()));
    let mut out: w::Response = from_map(map, "")?;
    let fill = |key: &str| !is_absent(&v, key);

    // `id`, `model` and `created_at`, which the SDK requires, are filled by
    // `passes::response` when the source has none.
    out.id = resp.id;
    out.model = resp.model;
    // Required by the SDK: documented defaults where the source said nothing.
    if out.object.is_none() && fill("object") {
        out.object = Some("response".into());
    }
    out.created_at = resp.created.or(out.created_at);
    if out.parallel_tool_calls.is_none() && fill("parallel_tool_calls") {
        out.parallel_tool_calls = Some(true);
    }
    if out.tool_choice.is_none() && fill("tool_choice") {
        out.tool_choice = Some(w::ToolChoice::Mode(w::ToolChoiceMode::Auto));
    }
    if out.tools.is_none() && fill("tools") {
        out.tools = Some(Vec::new());
    }

    let mut items = Vec::new();
    let why = format!("{F} returns one output: only the first choice is kept");
    // A choice is no object of its own here: its fields have no place.
    let first = first_choice(resp.choices, &why, ctx, |c, at, ctx| {
        let mut item_status = "completed";
        if let Some(r) = c.stop_reason {
            let (status, details) = encode_stop(&r, &format!("{at}/stop_reason"), ctx);
            if status == w::ResponseStatus::Incomplete {
                item_status = "incomplete";
            }
            out.status = Some(status);
            if details.is_some() {
                out.incomplete_details = details;
            }
        }
        encode_assistant(
            c.message,
            &format!("{at}/message"),
            Mode::Response(item_status),
            &mut items,
            ctx,
        )
    });
    first.transpose()?;
    out.output = items;
    out.usage = resp.usage.map(|u| encode_usage(u, ctx)).transpose()?;
    Ok(out)
}

/// A response status (and incomplete details) for a stop reason.
pub(super) fn encode_stop(
    r: &StopReason,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> (w::ResponseStatus, Option<w::IncompleteDetails>) {
    let incomplete = |reason: &str| {
        (
            w::ResponseStatus::Incomplete,
            Some(w::IncompleteDetails {
                reason: Some(w::IncompleteReason::from(reason)),
                extra: Default::default(),
            }),
        )
    };
    if let Some(raw) = r.raw_for(F) {
        let status = w::ResponseStatus::from(raw);
        return if status.is_known() {
            (status, None)
        } else {
            incomplete(raw)
        };
    }
    let raw = r.raw.as_deref().unwrap_or(kind_name(r.kind));
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence | StopKind::ToolUse => {
            (w::ResponseStatus::Completed, None)
        }
        StopKind::MaxTokens => incomplete("max_output_tokens"),
        StopKind::ContentFilter => incomplete("content_filter"),
        StopKind::Error => {
            ctx.changed(
                LossCode::StopReasonChanged,
                at.to_owned(),
                format!("stop reason `{raw}` is written as status `failed`"),
            );
            (w::ResponseStatus::Failed, None)
        }
        StopKind::Pause => {
            ctx.changed(
                LossCode::StopReasonChanged,
                at.to_owned(),
                format!("stop reason `{raw}` is written as status `incomplete`"),
            );
            (w::ResponseStatus::Incomplete, None)
        }
        StopKind::Other => {
            let status = w::ResponseStatus::from(raw);
            if status.is_known() {
                (status, None)
            } else {
                ctx.changed(
                    LossCode::StopReasonChanged,
                    at.to_owned(),
                    format!("stop reason `{raw}` has no {F} status; written as `completed`"),
                );
                (w::ResponseStatus::Completed, None)
            }
        }
    }
}

/// The neutral spelling of a stop kind (for loss messages).
fn kind_name(kind: StopKind) -> &'static str {
    match kind {
        StopKind::EndTurn => "end_turn",
        StopKind::StopSequence => "stop_sequence",
        StopKind::MaxTokens => "max_tokens",
        StopKind::ToolUse => "tool_use",
        StopKind::ContentFilter => "content_filter",
        StopKind::Pause => "pause",
        StopKind::Error => "error",
        StopKind::Other => "other",
    }
}

/// The usage, with the counts the SDK requires written as 0 where the source had none
/// (a loss each) unless a Responses source left them out.
pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> Result<w::Usage, Error> {
    let v = &u.vendor;
    let mut out: w::Usage = from_map(rebuild(v, ctx, "/usage"), "/usage")?;
    let fill = |key: &str| !is_absent(v, key);
    for (key, value) in [
        ("input_tokens", &u.input_tokens),
        ("output_tokens", &u.output_tokens),
    ] {
        if value.is_none() && fill(key) {
            ctx.changed(
                LossCode::FieldDefaulted,
                format!("/usage/{key}"),
                format!("the source has no `{key}`: written as 0"),
            );
        }
    }
    out.input_tokens = u.input_tokens.or_else(|| fill("input_tokens").then_some(0));
    out.output_tokens = u
        .output_tokens
        .or_else(|| fill("output_tokens").then_some(0));
    out.total_tokens = u.total_tokens.or_else(|| {
        fill("total_tokens").then(|| out.input_tokens.unwrap_or(0) + out.output_tokens.unwrap_or(0))
    });
    if out.input_tokens_details.is_some() || fill("input_tokens_details") {
        let mut d = out.input_tokens_details.take().unwrap_or_default();
        d.cached_tokens = u
            .cached_input_tokens
            .or_else(|| fill("input_tokens_details.cached_tokens").then_some(0));
        d.cache_write_tokens = u
            .cache_write_tokens
            .or_else(|| fill("input_tokens_details.cache_write_tokens").then_some(0));
        out.input_tokens_details = Some(d);
    } else if u.cached_input_tokens.is_some() || u.cache_write_tokens.is_some() {
        out.input_tokens_details = Some(w::InputTokensDetails {
            cached_tokens: u.cached_input_tokens,
            cache_write_tokens: u.cache_write_tokens,
            extra: Default::default(),
        });
    }
    if out.output_tokens_details.is_some() || fill("output_tokens_details") {
        let mut d = out.output_tokens_details.take().unwrap_or_default();
        d.reasoning_tokens = u
            .reasoning_tokens
            .or_else(|| fill("output_tokens_details.reasoning_tokens").then_some(0));
        out.output_tokens_details = Some(d);
    } else if u.reasoning_tokens.is_some() {
        out.output_tokens_details = Some(w::OutputTokensDetails {
            reasoning_tokens: u.reasoning_tokens,
            extra: Default::default(),
        });
    }
    Ok(out)
}
