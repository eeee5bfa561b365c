//! Responses both ways: the answer, its stop reason and usage.

use super::decode::{decode_call, decode_part};
use super::encode::{Calls, encode_part};
use super::hints::{
    BLOCKED, CANDIDATES_EMPTY, INDEX, NO_CANDIDATES_COUNT, NO_CONTENT, NO_INDEX, NO_PARTS,
    NO_PROMPT_COUNT, NO_ROLE, ROLE, TOOL_USE_PROMPT,
};
use super::{F, keep_rest, rebuild_from, rest};
use crate::model::{self, Choice, Message, Role, StopKind, StopReason, Usage, Vendor};
use crate::util::{read_timestamp, rfc3339_of_unix};
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::gemini as w;

/// Decodes a `generateContent` response.
pub(crate) fn decode_response(
    mut resp: w::Response,
    ctx: &mut Ctx<'_>,
) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.response_id.take(),
        model: resp.model_version.take(),
        ..Default::default()
    };
    ctx.map("/id", "/responseId");
    ctx.map("/model", "/modelVersion");
    let mut v = Vendor::default();
    match resp.candidates.take() {
        Some(c) if c.is_empty() => v.set_hint(F, CANDIDATES_EMPTY, true),
        Some(cands) => {
            for (i, c) in cands.into_iter().enumerate() {
                let choice = decode_candidate(c, i, ctx)?;
                out.choices.push(choice);
            }
        }
        None => {}
    }
    if let Some(u) = resp.usage_metadata.take() {
        ctx.map("/usage", "/usageMetadata");
        out.usage = Some(decode_usage(u));
    }
    // Vertex AI's `createTime`: carried to the second. Text that says more (a fraction,
    // an offset) is also kept as it came: written back here, reported as dropped
    // elsewhere.
    if let Some(t) = resp.create_time.take() {
        ctx.map("/created", "/createTime");
        let (secs, keep) = read_timestamp(t);
        out.created = secs;
        resp.create_time = keep;
    }
    keep_rest(&mut v, "", rest(&resp, &[]));
    out.vendor = v;
    Ok(out)
}

/// A candidate as a neutral choice (`i`: its position).
fn decode_candidate(mut c: w::Candidate, i: usize, ctx: &mut Ctx<'_>) -> Result<Choice, Error> {
    let at = format!("/candidates/{i}");
    let neutral = format!("/choices/{i}");
    ctx.map(neutral.clone(), at.clone());
    ctx.map(
        format_args!("{neutral}/message"),
        format_args!("{at}/content"),
    );
    ctx.map(
        format_args!("{neutral}/stop_reason"),
        format_args!("{at}/finishReason"),
    );
    let mut cv = Vendor::default();
    match c.index.take() {
        None => cv.set_hint(F, NO_INDEX, true),
        Some(ix) if ix as usize != i => cv.set_hint(F, INDEX, ix),
        Some(_) => {}
    }
    let mut message = Message::new(Role::Assistant, Vec::new());
    let mut has_calls = false;
    match c.content.take() {
        None => cv.set_hint(F, NO_CONTENT, true),
        Some(mut content) => {
            let mut mv = Vendor::default();
            match content.role.take() {
                None => mv.set_hint(F, NO_ROLE, true),
                Some(w::Role::Model) => {}
                Some(other) => mv.set_hint(F, ROLE, other.as_str()),
            }
            let parts = content.parts.take();
            if parts.is_none() {
                mv.set_hint(F, NO_PARTS, true);
            }
            keep_rest(&mut mv, "", rest(&content, &[]));
            let mut calls = 0;
            for (j, p) in parts.into_iter().flatten().enumerate() {
                let pat = format!("{at}/content/parts/{j}");
                if p.function_response.is_some() {
                    return Err(Error::invalid(
                        format!("{pat}/functionResponse"),
                        "a function response in a candidate",
                    ));
                }
                let part = if p.function_call.as_ref().is_some_and(|f| f.name.is_some()) {
                    has_calls = true;
                    let (part, _) = decode_call(p, &neutral, calls);
                    calls += 1;
                    part
                } else {
                    decode_part(p)
                };
                ctx.map(
                    format_args!("{neutral}/message/content/{}", message.content.len()),
                    pat,
                );
                message.content.push(part);
            }
            message.vendor = mv;
        }
    }
    let stop_reason = c
        .finish_reason
        .take()
        .map(|r| StopReason::read(stop_kind(&r, has_calls), r.as_str(), F));
    keep_rest(&mut cv, "", rest(&c, &[]));
    Ok(Choice {
        message,
        stop_reason,
        vendor: cv,
    })
}

/// The neutral kind of a finish reason (`STOP` with function calls is tool use).
pub(super) fn stop_kind(r: &w::FinishReason, has_calls: bool) -> StopKind {
    use w::FinishReason as R;
    match r {
        R::Stop if has_calls => StopKind::ToolUse,
        R::Stop => StopKind::EndTurn,
        R::MaxTokens => StopKind::MaxTokens,
        R::Safety
        | R::Recitation
        | R::Blocklist
        | R::ProhibitedContent
        | R::Spii
        | R::ImageSafety
        | R::ImageProhibitedContent
        | R::ImageOther
        | R::ImageRecitation => StopKind::ContentFilter,
        R::Other(s) if s.starts_with("IMAGE_") => StopKind::ContentFilter,
        R::MalformedFunctionCall
        | R::UnexpectedToolCall
        | R::TooManyToolCalls
        | R::MissingThoughtSignature
        | R::MalformedResponse => StopKind::Error,
        _ => StopKind::Other,
    }
}

/// `usageMetadata` as the neutral usage (tool-use prompt tokens are input, thoughts are
/// output).
pub(super) fn decode_usage(mut u: w::UsageMetadata) -> Usage {
    let prompt = u.prompt_token_count.take();
    let tool_use = u.tool_use_prompt_token_count.take();
    let candidates = u.candidates_token_count.take();
    let thoughts = u.thoughts_token_count.take();
    let mut v = Vendor::default();
    let input = match (prompt, tool_use) {
        (None, None) => None,
        (p, t) => Some(p.unwrap_or(0).saturating_add(t.unwrap_or(0))),
    };
    if let Some(t) = tool_use {
        v.set_hint(F, TOOL_USE_PROMPT, t);
        if prompt.is_none() {
            v.set_hint(F, NO_PROMPT_COUNT, true);
        }
    }
    let output = match (candidates, thoughts) {
        (None, None) => None,
        (c, t) => Some(c.unwrap_or(0).saturating_add(t.unwrap_or(0))),
    };
    if candidates.is_none() && thoughts.is_some() {
        v.set_hint(F, NO_CANDIDATES_COUNT, true);
    }
    let out = Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: u.total_token_count.take(),
        cached_input_tokens: u.cached_content_token_count.take(),
        cache_write_tokens: None,
        reasoning_tokens: thoughts,
        vendor: Vendor::default(),
    };
    keep_rest(&mut v, "", rest(&u, &[]));
    Usage { vendor: v, ..out }
}

/// Encodes a neutral response as a `generateContent` response.
pub(crate) fn encode_response(
    resp: model::Response,
    ctx: &mut Ctx<'_>,
) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut out: w::Response = rebuild_from(&v, "", &[], ctx);
    out.response_id = resp.id;
    out.model_version = resp.model;
    if out.create_time.is_none() {
        out.create_time = resp.created.map(rfc3339_of_unix);
    }
    let calls = Calls::default();
    let mut candidates = Vec::with_capacity(resp.choices.len());
    for (i, c) in resp.choices.into_iter().enumerate() {
        if c.vendor.flag(F, BLOCKED) && c.message.content.is_empty() {
            // A blocked prompt has no candidate: `promptFeedback` says why.
            continue;
        }
        candidates.push(encode_candidate(c, i, &calls, ctx));
    }
    if !candidates.is_empty() || v.flag(F, CANDIDATES_EMPTY) {
        out.candidates = Some(candidates);
    }
    out.usage_metadata = resp.usage.map(|u| encode_usage(u, ctx));
    Ok(out)
}

/// A neutral choice as a candidate (`i`: its position).
fn encode_candidate(c: Choice, i: usize, calls: &Calls, ctx: &mut Ctx<'_>) -> w::Candidate {
    let at = format!("/choices/{i}");
    let v = &c.vendor;
    let mut cand: w::Candidate = rebuild_from(v, &at, &[], ctx);
    cand.index = if v.flag(F, NO_INDEX) {
        None
    } else {
        Some(
            v.hint(F, INDEX)
                .and_then(Value::as_u64)
                .map_or(i as u32, |x| x as u32),
        )
    };
    let m = c.message;
    let mat = format!("{at}/message");
    if !v.flag(F, NO_CONTENT) {
        let mv = &m.vendor;
        let mut content: w::Content = rebuild_from(mv, &mat, &[], ctx);
        content.role = if mv.flag(F, NO_ROLE) {
            None
        } else {
            Some(
                mv.hint(F, ROLE)
                    .and_then(Value::as_str)
                    .map_or(w::Role::Model, w::Role::from),
            )
        };
        let no_parts = mv.flag(F, NO_PARTS);
        let mut parts = Vec::with_capacity(m.content.len());
        for (j, p) in m.content.into_iter().enumerate() {
            let pat = format!("{mat}/content/{j}");
            if let Some(part) = encode_part(p, Role::Assistant, &pat, calls, ctx) {
                parts.push(part);
            }
        }
        if !(parts.is_empty() && no_parts) {
            content.parts = Some(parts);
        }
        cand.content = Some(content);
    } else {
        for j in 0..m.content.len() {
            ctx.dropped(
                LossCode::PartUnsupported,
                format!("{mat}/content/{j}"),
                "the source candidate had no content",
            );
        }
    }
    cand.finish_reason = c
        .stop_reason
        .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    cand
}

/// A neutral stop reason as a finish reason (a Gemini source's own value as it was).
pub(super) fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence | StopKind::ToolUse => w::FinishReason::Stop,
        StopKind::MaxTokens => w::FinishReason::MaxTokens,
        StopKind::ContentFilter => w::FinishReason::Safety,
        StopKind::Pause | StopKind::Error | StopKind::Other => {
            ctx.changed(
                LossCode::StopReasonChanged,
                at.to_owned(),
                format!(
                    "stop reason `{}` has no gemini equivalent: written as OTHER",
                    r.raw.as_deref().unwrap_or(match r.kind {
                        StopKind::Pause => "pause",
                        StopKind::Error => "error",
                        _ => "other",
                    })
                ),
            );
            w::FinishReason::OtherReason
        }
    }
}

/// The neutral usage as `usageMetadata`.
pub(super) fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::UsageMetadata {
    let v = &u.vendor;
    let mut um: w::UsageMetadata = rebuild_from(v, "/usage", &[], ctx);
    let tool_use = v.hint(F, TOOL_USE_PROMPT).and_then(Value::as_u64);
    um.tool_use_prompt_token_count = tool_use;
    um.prompt_token_count = if v.flag(F, NO_PROMPT_COUNT) {
        None
    } else {
        u.input_tokens
            .map(|i| i.saturating_sub(tool_use.unwrap_or(0)))
    };
    um.thoughts_token_count = u.reasoning_tokens;
    um.candidates_token_count = if v.flag(F, NO_CANDIDATES_COUNT) {
        None
    } else {
        u.output_tokens
            .map(|o| o.saturating_sub(u.reasoning_tokens.unwrap_or(0)))
    };
    um.cached_content_token_count = u.cached_input_tokens;
    um.total_token_count = u
        .total_tokens
        .or_else(|| match (u.input_tokens, u.output_tokens) {
            (Some(i), Some(o)) if v.format != Some(F) => Some(i.saturating_add(o)),
            _ => None,
        });
    if u.cache_write_tokens.is_some() {
        ctx.dropped(
            LossCode::UsageChanged,
            "/usage/cache_write_tokens",
            "gemini usage has no cache-write count",
        );
    }
    um
}
