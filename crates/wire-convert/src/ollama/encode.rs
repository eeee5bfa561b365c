//! Encoding requests: neutral messages and parts into Ollama messages.

use super::hints::{
    CALL_ID, FUNCTION_NULLS, IMAGES, IMAGES_EMPTY, INDEX, NO_CONTENT, NO_TOOL_NAME, ORPHAN, ROLE,
    TYPE,
};
use super::settings::{
    encode_format, encode_options, encode_stream, encode_think, encode_tool_choice,
};
use super::tools::encode_tools;
use super::{F, FUNCTION, Pending, plain_message, role_name};
use crate::ctx::extra_from;
use crate::model::{
    self, Media, Message, Part, PartMeta, Role, Source, ToolCall, ToolResult, Vendor,
};
use crate::util::take_prefixed;
use crate::util::{self, drop_cache_and_signature, opaque_elsewhere};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode, passes};
use serde_json::Value;
use wire_types::Extra;
use wire_types::ollama as w;

/// What encoding a conversation carries from message to message.
#[derive(Debug, Default)]
pub(super) struct State {
    /// The calls of the last assistant turn, for the results after it.
    pending: Pending,
}

/// Encodes a neutral request as an `/api/chat` request.
pub(super) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model = passes::settings::model_or_blank(req.model, ctx);
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let tools = if encode_tool_choice(req.tool_choice.as_ref(), req.tools.len(), ctx) {
        None
    } else {
        encode_tools(req.tools, ctx)
    };
    let mut st = State::default();
    let mut messages = Vec::with_capacity(req.messages.len());
    for (i, m) in req.messages.into_iter().enumerate() {
        encode_message(m, i, &mut messages, &mut st, ctx);
    }
    let s = req.settings;
    let options = encode_options(&s, &mut fields, &v);
    passes::settings::no_parallel_switch(s.parallel_tool_calls, "/parallel_tool_calls", F, ctx);
    let think = encode_think(s.reasoning.as_ref(), &mut fields, ctx);
    let format = encode_format(req.output_format, &mut fields, ctx);
    Ok(w::Request {
        model,
        messages,
        tools,
        format,
        options,
        stream: encode_stream(s.stream, &v),
        keep_alive: fields.take_as("keep_alive"),
        think,
        logprobs: fields.take_as("logprobs"),
        top_logprobs: fields.take_as("top_logprobs"),
        extra: extra_from(fields, &v, w::Request::FIELDS, "", ctx),
    })
}

/// Request message `i`: a turn, or a `tool` message per result (followed by a user
/// message with the results' images, where there are any).
fn encode_message(
    m: Message,
    i: usize,
    out: &mut Vec<w::Message>,
    st: &mut State,
    ctx: &mut Ctx<'_>,
) {
    let at = format!("/messages/{i}");
    if m.role == Role::Tool {
        let mut moved = Vec::new();
        util::tool_results(m.content, &at, ctx, |r, pat, ctx| {
            out.push(encode_result(r, pat, &mut moved, st, ctx));
        });
        if !moved.is_empty() {
            // Images of the results, in a user message right after them.
            out.push(w::Message {
                images: Some(moved),
                ..plain_message(w::Role::User)
            });
        }
        return;
    }
    let msg = encode_turn(m, &at, st, ctx);
    out.push(msg);
}

/// Text, images and (for the assistant) reasoning and calls, gathered from parts.
#[derive(Default)]
struct Gathered {
    /// Texts, joined with `\n` into `content`.
    texts: Vec<String>,
    /// Base64 images, for `images`.
    images: Vec<String>,
    /// Reasoning texts, joined with `\n` into `thinking`.
    thinking: Vec<String>,
    calls: Vec<w::ToolCall>,
}

/// A system, user or assistant message (or the message of a response).
pub(super) fn encode_turn(m: Message, at: &str, st: &mut State, ctx: &mut Ctx<'_>) -> w::Message {
    let v = m.vendor;
    let mut fields = ctx.vendor_fields(&v, at);
    let assistant = m.role == Role::Assistant;
    let mut g = Gathered::default();
    let mut calls_seen = Vec::new();
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        match p {
            Part::ToolCall(c) if assistant => {
                calls_seen.push((c.id.clone(), c.name.clone()));
                g.calls.push(encode_call(c, &pat, ctx));
            }
            Part::Reasoning(r) if assistant => encode_reasoning(r, &pat, &mut g, ctx),
            Part::Reasoning(_) => ctx.dropped(
                LossCode::ReasoningDropped,
                pat,
                format!("{F} carries reasoning on assistant messages only"),
            ),
            other => gather(other, &pat, &mut g, ctx),
        }
    }
    if assistant {
        st.pending.reset(calls_seen);
    }
    let thinking = if g.thinking.is_empty() {
        fields.take_as("thinking")
    } else {
        Some(g.thinking.join("\n"))
    };
    let tool_calls = if g.calls.is_empty() {
        fields.take_as("tool_calls")
    } else {
        Some(g.calls)
    };
    w::Message {
        role: role_of(&v, m.role),
        content: content_of(g.texts, &v),
        thinking,
        images: images_of(g.images, &v),
        tool_calls,
        tool_name: fields.take_as("tool_name"),
        tool_call_id: fields.take_as("tool_call_id"),
        extra: extra_from(fields, &v, w::Message::FIELDS, at, ctx),
    }
}

/// The role as the source spelled it, else Ollama's name for `role`.
fn role_of(v: &Vendor, role: Role) -> w::Role {
    match v.hint(F, ROLE).and_then(Value::as_str) {
        Some(spelled) => w::Role::from(spelled),
        None => w::Role::from(role_name(role)),
    }
}

/// `content`: the texts joined, else `""` (or no field, as the source had it).
fn content_of(texts: Vec<String>, v: &Vendor) -> Option<String> {
    if !texts.is_empty() {
        Some(texts.join("\n"))
    } else if v.flag(F, NO_CONTENT) {
        None
    } else {
        Some(String::new())
    }
}

/// `images`: the images, else no field (or `[]`, as the source had it).
fn images_of(images: Vec<String>, v: &Vendor) -> Option<Vec<String>> {
    if !images.is_empty() {
        Some(images)
    } else if v.flag(F, IMAGES_EMPTY) {
        Some(Vec::new())
    } else {
        None
    }
}

/// An assistant's reasoning part, as `thinking` text.
fn encode_reasoning(r: model::Reasoning, at: &str, g: &mut Gathered, ctx: &mut Ctx<'_>) {
    part_meta(&r.meta, at, ctx);
    if r.source == Some(F) && r.text.as_deref() == Some("") {
        // An empty `thinking` of Ollama's own, given back as it came.
        g.thinking.push(String::new());
        return;
    }
    if let Some(text) = util::reasoning_text(&r, at, ctx) {
        g.thinking.push(text);
    }
}

/// Reports what a part's metadata carries that Ollama has no place for: a cache marker,
/// a signature, another format's fields.
pub(super) fn part_meta(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    drop_cache_and_signature(meta, at, ctx);
    ctx.report_foreign_fields(&meta.vendor, at);
}

/// One part of an assistant message alone, as a message (a stream line): its text,
/// thinking, images or call, or what becomes text; what has no place is a loss at `at`.
pub(super) fn encode_part(p: Part, at: &str, ctx: &mut Ctx<'_>) -> w::Message {
    let mut g = Gathered::default();
    match p {
        Part::ToolCall(c) => g.calls.push(encode_call(c, at, ctx)),
        Part::Reasoning(r) => encode_reasoning(r, at, &mut g, ctx),
        other => gather(other, at, &mut g, ctx),
    }
    w::Message {
        role: w::Role::Assistant,
        content: Some(g.texts.join("\n")),
        thinking: (!g.thinking.is_empty()).then(|| g.thinking.join("\n")),
        images: (!g.images.is_empty()).then_some(g.images),
        tool_calls: (!g.calls.is_empty()).then_some(g.calls),
        tool_name: None,
        tool_call_id: None,
        extra: Extra::new(),
    }
}

/// Text, images and what becomes text; everything else is a loss.
fn gather(p: Part, at: &str, g: &mut Gathered, ctx: &mut Ctx<'_>) {
    match p {
        Part::Text(t) => {
            part_meta(&t.meta, at, ctx);
            // An empty part (a Gemini signature-only part, say) adds nothing to the
            // joined text, not even a line break.
            if !t.text.is_empty() {
                g.texts.push(t.text);
            }
        }
        Part::Refusal(t) => {
            let why = "ollama has no refusal: it is sent as text";
            as_text(&t.meta, t.text, why, at, g, ctx);
        }
        Part::Json(j) => {
            let why = "a JSON part is sent as its JSON text";
            as_text(&j.meta, j.value.to_string(), why, at, g, ctx);
        }
        Part::Image(m) => {
            if let Some(data) = encode_image(m, at, ctx) {
                g.images.push(data);
            }
        }
        Part::Audio(_) | Part::Document(_) => ctx.dropped(
            LossCode::PartUnsupported,
            at,
            format!(
                "ollama messages carry text and images only, not {}",
                p.kind()
            ),
        ),
        Part::Opaque(o) => {
            if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, at) {
                g.texts.push(t.text);
            }
        }
        Part::Reasoning(_) => ctx.dropped(
            LossCode::ReasoningDropped,
            at,
            format!("a {} part has no place here in {F}", p.kind()),
        ),
        Part::ToolCall(_) | Part::ToolResult(_) => ctx.dropped(
            LossCode::PartUnsupported,
            at,
            format!("a {} part has no place here in {F}", p.kind()),
        ),
    }
}

/// Content Ollama has no part for, carried as `text` (a loss saying `why`).
fn as_text(
    meta: &PartMeta,
    text: String,
    why: &str,
    at: &str,
    g: &mut Gathered,
    ctx: &mut Ctx<'_>,
) {
    part_meta(meta, at, ctx);
    ctx.changed(LossCode::PartAsText, at, why);
    g.texts.push(text);
}

/// The base64 of an image, or `None` (a loss) when Ollama cannot take it.
fn encode_image(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Option<String> {
    part_meta(&m.meta, at, ctx);
    if m.name.is_some() {
        ctx.dropped(
            LossCode::PartChanged,
            format!("{at}/name"),
            "ollama images have no name",
        );
    }
    let why = match m.source {
        Source::Base64 { data } => return Some(data),
        Source::Url { url } => {
            format!("ollama takes images as base64 bytes, not a URL ({url}); nothing is fetched")
        }
        Source::FileId { file_id } => {
            format!("ollama takes images as base64 bytes, not a file id (`{file_id}`)")
        }
        Source::Text { .. } => "an image given as text has no form in ollama".to_owned(),
    };
    ctx.dropped(LossCode::PartUnsupported, at, why);
    None
}

/// An assistant's tool call: object arguments, `type` and `function` fields as the
/// source had them.
pub(super) fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ToolCall {
    drop_cache_and_signature(&c.meta, at, ctx);
    let v = &c.meta.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    let arguments = passes::object_arguments(c.arguments, at, ctx).into_wire();
    let kind = if v.flag(F, TYPE) {
        Some("function".to_owned())
    } else {
        fields.take_as("type")
    };
    let function = take_prefixed(&mut fields, FUNCTION);
    let function = ctx.unknown_only(function, w::FunctionCall::FIELDS, (at, "/function"));
    let mut function_extra = Extra::from(function);
    remark_nulls(
        &mut function_extra,
        v,
        FUNCTION_NULLS,
        w::FunctionCall::FIELDS,
    );
    w::ToolCall {
        id: (!c.synthetic_id).then_some(c.id),
        kind,
        function: w::FunctionCall {
            index: v
                .hint(F, INDEX)
                .and_then(Value::as_u64)
                .and_then(|i| u32::try_from(i).ok()),
            name: c.name,
            arguments,
            extra: function_extra,
        },
        extra: extra_from(fields, v, w::ToolCall::FIELDS, at, ctx),
    }
}

/// A `tool` message for a result. Ollama takes no images in tool results (providers.md
/// §10.10): another format's images go to `moved`, for a user message after the results.
fn encode_result(
    r: ToolResult,
    at: &str,
    moved: &mut Vec<String>,
    st: &mut State,
    ctx: &mut Ctx<'_>,
) -> w::Message {
    let v = &r.meta.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    drop_cache_and_signature(&r.meta, at, ctx);
    let mut g = Gathered::default();
    for (k, p) in r.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{k}");
        match p {
            // A structured result is the tool's answer: its JSON text is the content.
            Part::Json(j) => {
                part_meta(&j.meta, &pat, ctx);
                g.texts.push(j.value.to_string());
            }
            Part::Image(m) if !v.flag(F, IMAGES) => {
                if let Some(data) = encode_image(m, &pat, ctx) {
                    ctx.moved(
                        LossCode::PartUnsupported,
                        pat,
                        "ollama tool messages carry no images: this image is sent in a user message after the results",
                    );
                    moved.push(data);
                }
            }
            other => gather(other, &pat, &mut g, ctx),
        }
    }
    if r.is_error {
        passes::results::error_flag_lost(F, at, ctx);
        match g.texts.first_mut() {
            Some(t) => passes::results::prefix_error(t),
            None => g.texts.push("Error: ".to_owned()),
        }
    }
    let name = if v.flag(F, NO_TOOL_NAME) {
        None
    } else {
        r.name
    };
    // Write the id only when the matching by name and order would not find this call.
    let by_matching = st.pending.peek(name.as_deref()) == Some(r.call_id.as_str());
    let orphan = v.flag(F, ORPHAN) && st.pending.peek(name.as_deref()).is_none();
    // A named result whose call is not in the conversation (pruned history): the id has
    // nothing to match here, and the SDK's message type has no `tool_call_id`.
    let pruned = !orphan
        && !v.flag(F, CALL_ID)
        && name.is_some()
        && st.pending.peek(name.as_deref()).is_none();
    if pruned {
        ctx.dropped(
            LossCode::IdRewritten,
            format!("{at}/call_id"),
            format!(
                "call id `{}` not written: its call is not in the conversation, and ollama matches results by tool_name",
                r.call_id
            ),
        );
    }
    let tool_call_id = if v.flag(F, CALL_ID) || name.is_none() || !(by_matching || orphan || pruned)
    {
        st.pending.answer(Some(&r.call_id), None);
        Some(r.call_id)
    } else {
        st.pending.answer(None, name.as_deref());
        None
    };
    w::Message {
        role: role_of(v, Role::Tool),
        content: content_of(g.texts, v),
        thinking: fields.take_as("thinking"),
        images: images_of(g.images, v),
        tool_calls: fields.take_as("tool_calls"),
        tool_name: name,
        tool_call_id,
        extra: extra_from(fields, v, w::Message::FIELDS, at, ctx),
    }
}

/// Marks again in `extra` the explicit nulls that hint `key` of `v` lists among `known`.
fn remark_nulls(extra: &mut Extra, v: &Vendor, key: &str, known: &'static [&'static str]) {
    if let Some(Value::Array(nulls)) = v.hint(F, key) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = known.iter().find(|f| **f == n) {
                extra.mark_null(f);
            }
        }
    }
}
