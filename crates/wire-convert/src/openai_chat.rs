//! OpenAI Chat Completions ↔ the neutral model.
//!
//! * System and developer messages stay in place (Chat Completions allows them anywhere).
//! * Each neutral tool message becomes one `tool` message per result, in order; a
//!   failed result has no flag here, so its text is prefixed `Error: ` (a `changed`
//!   loss). Tool messages carry text only: images and documents in a result move to a
//!   `user` message right after the results (a `moved` loss).
//! * Arguments are JSON text: the source's text is written back byte for byte; values
//!   are written as compact JSON.
//! * Reasoning has no place in Chat Completions requests (the OpenAI-compatible
//!   `reasoning_content` of DeepSeek-style servers is read and written back, but only to
//!   this format); signatures and cache markers are dropped with a loss.
//!
//! Hints (see [`Vendor`]) this module writes and reads: `parts`
//! (content was an array), `refusal_field` (refusal was the `refusal` field), `args_json`
//! (arguments were an object), `flat` (flat tool-call form), `no_type` (tool call
//! without `type`), `no_id` (tool call without `id`), `max_tokens` (the limit was
//! `max_tokens`, not `max_completion_tokens`), `stop_string` (stop was a string),
//! `function_role` (a deprecated `function` message), `nulls`.

use crate::ctx::{extra_from, vendor_from_extra};
use crate::model::{
    self, Arguments, Choice, Dialect, Json, Media, Message, OutputFormat, Part, PartMeta,
    ReasoningConfig, Role, Settings, Source, StopKind, StopReason, Text, Tool, ToolCall,
    ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::util::{
    self, data_url, drop_cache, keep, opaque, opaque_elsewhere, parse_data_url, set_path,
};
use crate::{Ctx, Error, LossKind, schema};
use serde_json::{Map, Value};
use wire_types::openai_chat as w;
use wire_types::{Extra, Format, TextOrParts};

const F: Format = Format::OpenaiChat;

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes a Chat Completions request.
pub fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request {
        model: Some(req.model),
        ..Default::default()
    };
    let mut fields = Map::new();
    let mut hints = Map::new();

    // Messages: consecutive tool messages become one neutral tool message.
    let mut at = String::new();
    // At most one neutral message per wire message (tool messages merge).
    out.messages.reserve(req.messages.len());
    for (i, m) in req.messages.into_iter().enumerate() {
        util::set_path(&mut at, "", "messages", i);
        let at = at.as_str();
        match m {
            w::Message::System(s) => push_system(&mut out.messages, Role::System, s, at, ctx),
            w::Message::Developer(s) => push_system(&mut out.messages, Role::Developer, s, at, ctx),
            w::Message::User(u) => {
                let n = out.messages.len();
                let mut msg = Message::new(Role::User, Vec::new());
                decode_content(u.content, &mut msg, n, at, ctx);
                let mut v = vendor_from_extra(F, &u.extra, &[]);
                if let Some(name) = u.name {
                    v.set_field(F, "name", Value::String(name));
                }
                msg.vendor = v;
                ctx.map(format_args!("/messages/{n}"), at);
                out.messages.push(msg);
            }
            w::Message::Assistant(a) => {
                let n = out.messages.len();
                out.messages
                    .push(decode_assistant(AssistantParts::from(a), n, at, ctx));
            }
            w::Message::Tool(t) => {
                let result = decode_tool_message(t, ctx);
                push_result(&mut out.messages, result, at, ctx);
            }
            w::Message::Function(f) => {
                let mut meta = PartMeta {
                    vendor: vendor_from_extra(F, &f.extra, &[]),
                    ..Default::default()
                };
                meta.vendor.set_hint(F, "function_role", true);
                let content = f.content.map(|c| vec![Part::text(c)]).unwrap_or_default();
                let result = ToolResult {
                    call_id: f.name.clone(),
                    name: Some(f.name),
                    content,
                    is_error: false,
                    meta,
                };
                push_result(&mut out.messages, result, at, ctx);
            }
            other => {
                // `validate_request` refuses these before decoding; never panic on one.
                return Err(Error::invalid(
                    format!("{at}/role"),
                    format!("unknown role `{}`", other.tag()),
                ));
            }
        }
    }

    for (k, t) in req.tools.into_iter().flatten().enumerate() {
        ctx.map(format_args!("/tools/{k}"), format_args!("/tools/{k}"));
        out.tools.push(match t {
            w::Tool::Function(f) => {
                let mut v = vendor_from_extra(F, &f.function.extra, &[]);
                for (key, val) in f.extra.fields() {
                    v.set_field(F, &format!("$tool.{key}"), val.clone());
                }
                Tool::Function(ToolDef {
                    name: f.function.name,
                    description: f.function.description,
                    input_schema: f.function.parameters,
                    dialect: Dialect::JsonSchema,
                    output_schema: None,
                    strict: f.function.strict,
                    cache: None,
                    vendor: v,
                })
            }
            other => match opaque(ctx, wire_types::to_value(&other)) {
                Part::Opaque(o) => Tool::Opaque(o),
                _ => unreachable!("opaque() builds an opaque part"),
            },
        });
    }

    out.tool_choice = match req.tool_choice {
        None => None,
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::Auto)) => Some(ToolChoice::Auto),
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::None)) => Some(ToolChoice::None),
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::Required)) => Some(ToolChoice::Required),
        Some(w::ToolChoice::Named(w::NamedToolChoice::Function(f)))
            if f.extra.is_empty() && f.function.extra.is_empty() =>
        {
            Some(ToolChoice::Tool {
                name: f.function.name,
            })
        }
        Some(other) => {
            fields.insert("tool_choice".into(), wire_types::to_value(&other));
            None
        }
    };

    // Where the neutral settings came from, for loss paths.
    for (neutral, source) in [
        (
            "/settings/max_tokens",
            if req.max_tokens.is_some() && req.max_completion_tokens.is_none() {
                "/max_tokens"
            } else {
                "/max_completion_tokens"
            },
        ),
        ("/settings/temperature", "/temperature"),
        ("/settings/top_p", "/top_p"),
        ("/settings/stop", "/stop"),
        ("/settings/seed", "/seed"),
        ("/settings/presence_penalty", "/presence_penalty"),
        ("/settings/frequency_penalty", "/frequency_penalty"),
        ("/settings/parallel_tool_calls", "/parallel_tool_calls"),
        ("/settings/reasoning", "/reasoning_effort"),
        ("/settings/stream", "/stream"),
        ("/output_format", "/response_format"),
        ("/output_format/name", "/response_format/json_schema/name"),
        (
            "/output_format/schema",
            "/response_format/json_schema/schema",
        ),
        (
            "/output_format/strict",
            "/response_format/json_schema/strict",
        ),
    ] {
        ctx.map(neutral, source);
    }
    let mut s = Settings::default();
    match (req.max_completion_tokens, req.max_tokens) {
        (Some(m), None) => s.max_tokens = Some(m),
        (None, Some(m)) => {
            s.max_tokens = Some(m);
            hints.insert("max_tokens".into(), Value::Bool(true));
        }
        (Some(m), Some(legacy)) => {
            s.max_tokens = Some(m);
            fields.insert("max_tokens".into(), Value::from(legacy));
        }
        (None, None) => {}
    }
    s.temperature = req.temperature;
    s.top_p = req.top_p;
    s.stop = req.stop.map(|st| match st {
        TextOrParts::Text(t) => {
            hints.insert("stop_string".into(), Value::Bool(true));
            vec![t]
        }
        TextOrParts::Parts(p) => p,
    });
    s.seed = req.seed;
    s.presence_penalty = req.presence_penalty;
    s.frequency_penalty = req.frequency_penalty;
    s.parallel_tool_calls = req.parallel_tool_calls;
    s.stream = req.stream;
    s.reasoning = req.reasoning_effort.map(|e| ReasoningConfig {
        effort: Some(e.as_str().to_owned()),
        ..Default::default()
    });
    out.settings = s;

    out.output_format = match req.response_format {
        None => None,
        Some(w::ResponseFormat::Text(x)) if x.extra.is_empty() => Some(OutputFormat::Text),
        Some(w::ResponseFormat::JsonObject(x)) if x.extra.is_empty() => {
            Some(OutputFormat::JsonObject)
        }
        Some(w::ResponseFormat::JsonSchema(j))
            if j.extra.is_empty()
                && j.json_schema.extra.is_empty()
                && j.json_schema.description.is_none() =>
        {
            Some(OutputFormat::JsonSchema {
                name: Some(j.json_schema.name),
                schema: j.json_schema.schema.unwrap_or(Value::Object(Map::new())),
                strict: j.json_schema.strict,
            })
        }
        Some(other) => {
            fields.insert("response_format".into(), wire_types::to_value(&other));
            None
        }
    };

    keep(&mut fields, "n", &req.n);
    keep(&mut fields, "logit_bias", &req.logit_bias);
    keep(&mut fields, "logprobs", &req.logprobs);
    keep(&mut fields, "top_logprobs", &req.top_logprobs);
    keep(&mut fields, "stream_options", &req.stream_options);
    keep(&mut fields, "store", &req.store);
    keep(&mut fields, "metadata", &req.metadata);
    keep(&mut fields, "service_tier", &req.service_tier);
    keep(&mut fields, "user", &req.user);
    keep(&mut fields, "functions", &req.functions);
    keep(&mut fields, "function_call", &req.function_call);
    let mut v = vendor_from_extra(F, &req.extra, &[]);
    for (k, val) in fields {
        v.set_field(F, &k, val);
    }
    for (k, val) in hints {
        v.set_hint(F, &k, val);
    }
    out.vendor = v;
    Ok(out)
}

fn push_system(
    messages: &mut Vec<Message>,
    role: Role,
    s: w::SystemMessage,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let n = messages.len();
    let mut msg = Message::new(role, Vec::new());
    decode_content(s.content, &mut msg, n, at, ctx);
    let mut v = vendor_from_extra(F, &s.extra, &[]);
    if let Some(name) = s.name {
        v.set_field(F, "name", Value::String(name));
    }
    merge_hints(&mut msg.vendor, v);
    ctx.map(format_args!("/messages/{n}"), at.to_owned());
    messages.push(msg);
}

fn merge_hints(into: &mut Vendor, from: Vendor) {
    if from.is_empty() {
        return;
    }
    into.format = from.format.or(into.format);
    into.fields.extend(from.fields);
    into.hints.extend(from.hints);
}

/// Decodes `content` into `msg.content`, recording a `parts` hint for the array form.
fn decode_content(
    content: TextOrParts<w::ContentPart>,
    msg: &mut Message,
    n: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    // Sized exactly: most messages hold one part, and a first push would make room for
    // four.
    msg.content.reserve_exact(match &content {
        TextOrParts::Text(_) => 1,
        TextOrParts::Parts(p) => p.len(),
    });
    match content {
        TextOrParts::Text(t) => msg.content.push(Part::text(t)),
        TextOrParts::Parts(parts) => {
            msg.vendor.set_hint(F, "parts", true);
            for (j, p) in parts.into_iter().enumerate() {
                let k = msg.content.len();
                ctx.map(
                    format_args!("/messages/{n}/content/{k}"),
                    format_args!("{at}/content/{j}"),
                );
                msg.content.push(decode_part(p, ctx));
            }
        }
    }
}

fn meta_of(extra: &Extra) -> PartMeta {
    PartMeta {
        vendor: vendor_from_extra(F, extra, &[]),
        ..Default::default()
    }
}

fn decode_part(p: w::ContentPart, ctx: &mut Ctx<'_>) -> Part {
    match p {
        w::ContentPart::Text(t) => Part::Text(Text {
            text: t.text,
            meta: meta_of(&t.extra),
        }),
        w::ContentPart::Refusal(r) => Part::Refusal(Text {
            text: r.refusal,
            meta: meta_of(&r.extra),
        }),
        w::ContentPart::ImageUrl(i) => {
            let mut meta = meta_of(&i.extra);
            merge_hints(
                &mut meta.vendor,
                vendor_from_extra(F, &i.image_url.extra, &[]),
            );
            if let Some(d) = i.image_url.detail {
                meta.vendor.set_field(F, "detail", Value::String(d));
            }
            let (source, media_type) = match parse_data_url(&i.image_url.url) {
                Some((mt, data)) => (Source::Base64 { data }, Some(mt)),
                None => (
                    Source::Url {
                        url: i.image_url.url,
                    },
                    None,
                ),
            };
            Part::Image(Media {
                source,
                media_type,
                name: None,
                meta,
            })
        }
        w::ContentPart::InputAudio(a) => {
            let mut meta = meta_of(&a.extra);
            merge_hints(
                &mut meta.vendor,
                vendor_from_extra(F, &a.input_audio.extra, &[]),
            );
            Part::Audio(Media {
                source: Source::Base64 {
                    data: a.input_audio.data,
                },
                media_type: Some(format!("audio/{}", a.input_audio.format)),
                name: None,
                meta,
            })
        }
        w::ContentPart::File(f) => {
            let mut meta = meta_of(&f.extra);
            merge_hints(&mut meta.vendor, vendor_from_extra(F, &f.file.extra, &[]));
            let (source, media_type) = match (f.file.file_id, f.file.file_data) {
                (Some(id), data) => {
                    if let Some(d) = data {
                        meta.vendor.set_field(F, "file_data", Value::String(d));
                    }
                    (Source::FileId { file_id: id }, None)
                }
                (None, Some(data)) => match parse_data_url(&data) {
                    Some((mt, b64)) => (Source::Base64 { data: b64 }, Some(mt)),
                    None => {
                        meta.vendor.set_hint(F, "raw_file_data", true);
                        (Source::Base64 { data }, None)
                    }
                },
                (None, None) => {
                    meta.vendor.set_hint(F, "empty_file", true);
                    (
                        Source::FileId {
                            file_id: String::new(),
                        },
                        None,
                    )
                }
            };
            Part::Document(Media {
                source,
                media_type,
                name: f.file.filename,
                meta,
            })
        }
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// The parts of an assistant turn, from a request message or a response message.
struct AssistantParts {
    content: Option<TextOrParts<w::ContentPart>>,
    refusal: Option<String>,
    tool_calls: Option<Vec<w::ToolCall>>,
    reasoning_content: Option<String>,
    fields: Map<String, Value>,
    extra: Extra,
}

impl From<w::AssistantMessage> for AssistantParts {
    fn from(a: w::AssistantMessage) -> Self {
        let mut fields = Map::new();
        keep(&mut fields, "function_call", &a.function_call);
        keep(&mut fields, "audio", &a.audio);
        keep(&mut fields, "name", &a.name);
        AssistantParts {
            content: a.content,
            refusal: a.refusal,
            tool_calls: a.tool_calls,
            reasoning_content: a.reasoning_content,
            fields,
            extra: a.extra,
        }
    }
}

impl From<w::ResponseMessage> for AssistantParts {
    fn from(a: w::ResponseMessage) -> Self {
        let mut fields = Map::new();
        // `assistant` is what the encoder writes back: only another role is kept (an
        // absent one is the hint `no_role`, set by the caller).
        if a.role.as_deref() != Some("assistant") {
            keep(&mut fields, "role", &a.role);
        }
        keep(&mut fields, "annotations", &a.annotations);
        keep(&mut fields, "audio", &a.audio);
        keep(&mut fields, "function_call", &a.function_call);
        AssistantParts {
            content: a.content,
            refusal: a.refusal,
            tool_calls: a.tool_calls,
            reasoning_content: a.reasoning_content,
            fields,
            extra: a.extra,
        }
    }
}

/// `n`: neutral pointer of the message (`/messages/3`, `/choices/0/message`).
fn decode_assistant(a: AssistantParts, n: usize, at: &str, ctx: &mut Ctx<'_>) -> Message {
    decode_assistant_at(a, &format!("/messages/{n}"), at, ctx)
}

fn decode_assistant_at(a: AssistantParts, neutral: &str, at: &str, ctx: &mut Ctx<'_>) -> Message {
    let parts = usize::from(a.reasoning_content.is_some())
        + match &a.content {
            None => 0,
            Some(TextOrParts::Text(_)) => 1,
            Some(TextOrParts::Parts(p)) => p.len(),
        }
        + usize::from(a.refusal.is_some())
        + a.tool_calls.as_ref().map_or(0, Vec::len);
    let mut msg = Message::new(Role::Assistant, Vec::with_capacity(parts));
    msg.vendor = vendor_from_extra(F, &a.extra, &[]);
    for (k, v) in a.fields {
        msg.vendor.set_field(F, &k, v);
    }
    ctx.map(neutral, at);
    if let Some(r) = a.reasoning_content {
        ctx.map(
            format_args!("{neutral}/content/{}", msg.content.len()),
            format_args!("{at}/reasoning_content"),
        );
        msg.content.push(Part::Reasoning(model::Reasoning {
            text: Some(r),
            source: Some(F),
            ..Default::default()
        }));
    }
    match a.content {
        None => {}
        Some(TextOrParts::Text(t)) => {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/content"),
            );
            msg.content.push(Part::text(t));
        }
        Some(TextOrParts::Parts(parts)) => {
            msg.vendor.set_hint(F, "parts", true);
            for (j, p) in parts.into_iter().enumerate() {
                ctx.map(
                    format_args!("{neutral}/content/{}", msg.content.len()),
                    format_args!("{at}/content/{j}"),
                );
                msg.content.push(decode_part(p, ctx));
            }
        }
    }
    if let Some(r) = a.refusal {
        ctx.map(
            format_args!("{neutral}/content/{}", msg.content.len()),
            format_args!("{at}/refusal"),
        );
        msg.vendor.set_hint(F, "refusal_field", true);
        msg.content.push(Part::Refusal(Text {
            text: r,
            meta: PartMeta::default(),
        }));
    }
    for (c, call) in a.tool_calls.into_iter().flatten().enumerate() {
        ctx.map(
            format_args!("{neutral}/content/{}", msg.content.len()),
            format_args!("{at}/tool_calls/{c}"),
        );
        msg.content.push(decode_call(call, neutral, c, ctx));
    }
    msg
}

fn decode_call(call: w::ToolCall, neutral: &str, c: usize, ctx: &mut Ctx<'_>) -> Part {
    if call.custom.is_some() || (call.function.is_none() && call.name.is_none()) {
        return opaque(ctx, wire_types::to_value(&call));
    }
    let mut meta = meta_of(&call.extra);
    let v = &mut meta.vendor;
    let (name, arguments) = match (call.function, call.name, call.arguments) {
        (Some(f), name, args) => {
            merge_hints(v, vendor_from_extra(F, &f.extra, &[]));
            if let Some(n) = name {
                v.set_field(F, "name", Value::String(n));
            }
            keep(&mut v.fields, "arguments", &args);
            (f.name, f.arguments)
        }
        (None, Some(name), args) => {
            v.set_hint(F, "flat", true);
            (
                name,
                args.map_or(wire_types::Arguments::Text(String::new()), |a| *a),
            )
        }
        (None, None, _) => unreachable!("checked above"),
    };
    match call.kind {
        Some(w::ToolCallType::Function) => {}
        None => v.set_hint(F, "no_type", true),
        Some(other) => v.set_field(F, "type", Value::String(other.as_str().to_owned())),
    }
    if !v.fields.is_empty() || !v.hints.is_empty() {
        v.format = Some(F);
    }
    let arguments = match arguments {
        wire_types::Arguments::Text(t) => Arguments::Text(t),
        wire_types::Arguments::Json(j) => {
            v.set_hint(F, "args_json", true);
            Arguments::Value(j)
        }
    };
    let (id, synthetic) = match call.id {
        Some(id) => (id, false),
        None => {
            v.set_hint(F, "no_id", true);
            (synthetic_id(neutral, c, &name), true)
        }
    };
    Part::ToolCall(ToolCall {
        id,
        synthetic_id: synthetic,
        name,
        arguments,
        meta,
    })
}

/// An id for a call that had none: from its position and name, so the same transcript
/// always gets the same ids.
pub(crate) fn synthetic_id(neutral_message: &str, call: usize, name: &str) -> String {
    let m = neutral_message.rsplit('/').next().unwrap_or("0");
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("call_{m}_{call}_{clean}")
}

fn decode_tool_message(t: w::ToolMessage, ctx: &mut Ctx<'_>) -> ToolResult {
    let mut meta = meta_of(&t.extra);
    let mut content = Vec::with_capacity(match &t.content {
        TextOrParts::Text(_) => 1,
        TextOrParts::Parts(p) => p.len(),
    });
    match t.content {
        TextOrParts::Text(s) => content.push(Part::text(s)),
        TextOrParts::Parts(parts) => {
            meta.vendor.set_hint(F, "parts", true);
            content.extend(parts.into_iter().map(|p| decode_part(p, ctx)));
        }
    }
    ToolResult {
        call_id: t.tool_call_id,
        name: None,
        content,
        is_error: false,
        meta,
    }
}

/// Appends a result to the tool message at the end, or starts one.
fn push_result(messages: &mut Vec<Message>, result: ToolResult, at: &str, ctx: &mut Ctx<'_>) {
    if messages.last().is_none_or(|m| m.role != Role::Tool) {
        ctx.map(format_args!("/messages/{}", messages.len()), at);
        messages.push(Message::new(Role::Tool, Vec::new()));
    }
    let n = messages.len() - 1;
    if let Some(last) = messages.last_mut() {
        ctx.map(
            format_args!("/messages/{n}/content/{}", last.content.len()),
            at,
        );
        last.content.push(Part::ToolResult(result));
    }
}

/// Decodes a Chat Completions response.
pub fn decode_response(resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.id,
        model: resp.model,
        created: resp.created,
        choices: Vec::with_capacity(resp.choices.len()),
        ..Default::default()
    };
    for (i, c) in resp.choices.into_iter().enumerate() {
        let neutral = format!("/choices/{i}/message");
        let no_role = c.message.role.is_none();
        // The same pointer on both sides.
        let mut message =
            decode_assistant_at(AssistantParts::from(*c.message), &neutral, &neutral, ctx);
        if no_role {
            message.vendor.set_hint(F, "no_role", true);
            message.vendor.format = Some(F);
        }
        // What the encoder writes back unless told otherwise: `index` = the position,
        // `logprobs: null`. Only a difference is kept.
        let mut v = vendor_from_extra(F, &c.extra, &["finish_reason", "logprobs"]);
        match c.index {
            Some(n) if n as usize == i => {}
            Some(_) => keep(&mut v.fields, "index", &c.index),
            None => v.set_hint(F, "no_index", true),
        }
        match &c.logprobs {
            Some(_) => keep(&mut v.fields, "logprobs", &c.logprobs),
            None if c.extra.was_null("logprobs") => {}
            None => v.set_hint(F, "no_logprobs", true),
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
    let mut v = vendor_from_extra(F, &resp.extra, &[]);
    // `object` is the body's type tag, not content: a hint, so another format does not
    // report it as a loss.
    if let Some(object) = resp.object {
        v.set_hint(F, "object", object);
    }
    keep(
        &mut v.fields,
        "system_fingerprint",
        &resp.system_fingerprint,
    );
    keep(&mut v.fields, "service_tier", &resp.service_tier);
    if !v.is_empty() {
        v.format = Some(F);
    }
    out.vendor = v;
    Ok(out)
}

fn stop_reason(f: &w::FinishReason) -> StopReason {
    let kind = match f {
        w::FinishReason::Stop => StopKind::EndTurn,
        w::FinishReason::Length => StopKind::MaxTokens,
        w::FinishReason::ToolCalls | w::FinishReason::FunctionCall => StopKind::ToolUse,
        w::FinishReason::ContentFilter => StopKind::ContentFilter,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: Some(f.as_str().to_owned()),
        format: Some(F),
    }
}

fn decode_usage(u: w::Usage) -> Usage {
    let mut out = Usage {
        input_tokens: u.prompt_tokens,
        output_tokens: u.completion_tokens,
        total_tokens: u.total_tokens,
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &u.extra, &[]);
    if let Some(p) = u.prompt_tokens_details {
        out.cached_input_tokens = p.cached_tokens;
        out.cache_write_tokens = p.cache_write_tokens;
        // The encoder writes the object back for a count it holds; the hint is for one
        // that held none.
        if p.cached_tokens.is_none() && p.cache_write_tokens.is_none() {
            v.set_hint(F, "prompt_details", true);
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
            v.set_hint(F, "completion_details", true);
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

// ---------------------------------------------------------------------------------------
// Encoding

/// Encodes a neutral request as Chat Completions.
pub fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model = req.model.unwrap_or_else(|| {
        ctx.loss(
            "/model",
            LossKind::Changed,
            "the source has no model (it may be in its URL); set `model` before sending",
        );
        String::new()
    });
    let tools = encode_tools(req.tools, ctx);
    // A neutral tool message becomes one message per result.
    let count = req
        .messages
        .iter()
        .map(|m| match m.role {
            Role::Tool => m.content.len().max(1),
            _ => 1,
        })
        .sum();
    let mut messages = Vec::with_capacity(count);
    for (i, m) in req.messages.into_iter().enumerate() {
        encode_message(m, i, &mut messages, ctx);
    }

    let v = &req.vendor;
    let s = req.settings;
    let mut out = w::Request {
        model,
        messages,
        tools,
        tool_choice: req.tool_choice.map(|c| encode_tool_choice(c, ctx)),
        parallel_tool_calls: s.parallel_tool_calls,
        response_format: None,
        max_tokens: None,
        max_completion_tokens: None,
        temperature: s.temperature,
        top_p: s.top_p,
        n: None,
        stop: s.stop.map(|mut st| {
            if v.flag(F, "stop_string") && st.len() == 1 {
                TextOrParts::Text(st.remove(0))
            } else {
                TextOrParts::Parts(st)
            }
        }),
        seed: s.seed,
        presence_penalty: s.presence_penalty,
        frequency_penalty: s.frequency_penalty,
        logit_bias: None,
        logprobs: None,
        top_logprobs: None,
        reasoning_effort: None,
        stream: s.stream,
        stream_options: None,
        store: None,
        metadata: None,
        service_tier: None,
        user: None,
        functions: None,
        function_call: None,
        extra: ctx.extra(v, w::Request::FIELDS, ""),
    };
    if let Some(m) = s.max_tokens {
        if v.flag(F, "max_tokens") {
            out.max_tokens = Some(m);
        } else {
            out.max_completion_tokens = Some(m);
        }
    }
    if let Some(k) = s.top_k {
        let _ = k;
        ctx.loss(
            "/settings/top_k",
            LossKind::Dropped,
            "openai-chat has no top_k",
        );
    }
    if let Some(r) = s.reasoning {
        out.reasoning_effort = encode_effort(&r, "/settings/reasoning", ctx);
    }
    out.response_format = req.output_format.map(|f| match f {
        OutputFormat::Text => w::ResponseFormat::Text(w::NoFields::default()),
        OutputFormat::JsonObject => w::ResponseFormat::JsonObject(w::NoFields::default()),
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => w::ResponseFormat::JsonSchema(w::JsonSchemaFormat {
            json_schema: w::JsonSchemaSpec {
                name: name.unwrap_or_else(|| "output".to_owned()),
                description: None,
                schema: Some(schema),
                strict,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        }),
    });
    Ok(out)
}

/// A `reasoning_effort` for neutral reasoning settings (a token budget becomes the
/// nearest effort level, a `changed` loss).
fn encode_effort(r: &ReasoningConfig, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ReasoningEffort> {
    if r.include == Some(true) {
        ctx.loss(
            format!("{at}/include"),
            LossKind::Dropped,
            "openai-chat never returns reasoning text",
        );
    }
    if let Some(e) = &r.effort {
        return Some(w::ReasoningEffort::from(e.as_str()));
    }
    if r.enabled == Some(false) {
        return Some(w::ReasoningEffort::None);
    }
    if let Some(b) = r.budget_tokens {
        let e = crate::util::budget_to_effort(b);
        ctx.loss(
            format!("{at}/budget_tokens"),
            LossKind::Changed,
            format!(
                "openai-chat takes an effort level, not a token budget: {b} tokens sent as `{e}`"
            ),
        );
        return Some(w::ReasoningEffort::from(e));
    }
    if r.enabled == Some(true) {
        ctx.loss(
            format!("{at}/enabled"),
            LossKind::Changed,
            "openai-chat takes an effort level: reasoning switched on without one is sent as `medium`",
        );
        return Some(w::ReasoningEffort::Medium);
    }
    None
}

fn encode_tool_choice(c: ToolChoice, _ctx: &mut Ctx<'_>) -> w::ToolChoice {
    match c {
        ToolChoice::Auto => w::ToolChoice::Mode(w::ToolChoiceMode::Auto),
        ToolChoice::None => w::ToolChoice::Mode(w::ToolChoiceMode::None),
        ToolChoice::Required => w::ToolChoice::Mode(w::ToolChoiceMode::Required),
        ToolChoice::Tool { name } => {
            w::ToolChoice::Named(w::NamedToolChoice::Function(w::FunctionChoice {
                function: w::NameRef {
                    name,
                    extra: Extra::new(),
                },
                extra: Extra::new(),
            }))
        }
        ToolChoice::Allowed { names, required } => {
            let tools: Vec<Value> = names
                .into_iter()
                .map(|n| serde_json::json!({"type": "function", "function": {"name": n}}))
                .collect();
            w::ToolChoice::Named(w::NamedToolChoice::AllowedTools(w::AllowedToolsChoice {
                allowed_tools: serde_json::json!({"mode": if required { "required" } else { "auto" }, "tools": tools}),
                extra: Extra::new(),
            }))
        }
    }
}

/// Encodes tool definitions as a Chat Completions `tools` array (`None` for none).
pub fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    if tools.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(tools.len());
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => out.push(encode_tool_def(def, &at, ctx)),
            Tool::Opaque(o) if o.format == F => match serde_json::from_value::<w::Tool>(o.value) {
                Ok(t) => out.push(t),
                Err(e) => ctx.loss(
                    at,
                    LossKind::Dropped,
                    format!("this {F} tool, kept whole, is no longer a valid tool: {e}"),
                ),
            },
            Tool::Opaque(o) => ctx.loss(
                at,
                LossKind::Dropped,
                format!(
                    "{} tool {} has no equivalent in {F}",
                    o.format,
                    o.value
                        .get("type")
                        .or(o.value.get("name"))
                        .cloned()
                        .unwrap_or(Value::Null)
                ),
            ),
        }
    }
    Some(out)
}

fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::Tool {
    let mut tool_extra = Map::new();
    let mut fn_vendor = def.vendor.clone();
    if fn_vendor.format == Some(F) {
        let keys: Vec<String> = fn_vendor
            .fields
            .keys()
            .filter(|k| k.starts_with("$tool."))
            .cloned()
            .collect();
        for k in keys {
            if let Some(v) = fn_vendor.fields.remove(&k) {
                tool_extra.insert(k.trim_start_matches("$tool.").to_owned(), v);
            }
        }
    }
    let parameters = def.input_schema.map(|s| {
        let s = schema::json_schema_input(s, def.dialect, ctx, at);
        if def.strict == Some(true) {
            schema::to_openai_strict(&s, ctx, &format!("{at}/input_schema"))
        } else {
            s
        }
    });
    if def.output_schema.is_some() {
        ctx.loss(
            format!("{at}/output_schema"),
            LossKind::Dropped,
            "openai-chat tools have no output schema",
        );
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "openai-chat has no cache marker",
        );
    }
    w::Tool::Function(w::FunctionTool {
        function: w::FunctionDef {
            name: def.name,
            description: def.description,
            parameters,
            strict: def.strict,
            extra: ctx.extra(&fn_vendor, w::FunctionDef::FIELDS, at),
        },
        extra: Extra::from(tool_extra),
    })
}

fn encode_message(m: Message, i: usize, out: &mut Vec<w::Message>, ctx: &mut Ctx<'_>) {
    let mut at = ctx.buf();
    set_path(&mut at, "", "messages", i);
    encode_message_at(m, &at, out, ctx);
    ctx.give_back(at);
}

fn encode_message_at(m: Message, at: &str, out: &mut Vec<w::Message>, ctx: &mut Ctx<'_>) {
    match m.role {
        Role::System | Role::Developer => {
            let mut fields = ctx.vendor_fields(&m.vendor, at);
            let name = fields
                .remove("name")
                .and_then(|n| n.as_str().map(str::to_owned));
            let content = encode_content(m.content, &m.vendor, at, false, ctx);
            let msg = w::SystemMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                name,
                extra: extra_from(fields, &m.vendor, w::SystemMessage::FIELDS, ctx),
            };
            out.push(if m.role == Role::System {
                w::Message::System(msg)
            } else {
                w::Message::Developer(msg)
            });
        }
        Role::User => {
            let mut fields = ctx.vendor_fields(&m.vendor, at);
            let name = fields
                .remove("name")
                .and_then(|n| n.as_str().map(str::to_owned));
            let content = encode_content(m.content, &m.vendor, at, false, ctx);
            out.push(w::Message::User(w::UserMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                name,
                extra: extra_from(fields, &m.vendor, w::UserMessage::FIELDS, ctx),
            }));
        }
        Role::Assistant => out.push(w::Message::Assistant(encode_assistant(m, at, ctx))),
        Role::Tool => {
            let mut moved: Vec<w::ContentPart> = Vec::new();
            let mut pat = ctx.buf();
            for (j, p) in m.content.into_iter().enumerate() {
                set_path(&mut pat, at, "content", j);
                match p {
                    Part::ToolResult(r) => out.push(encode_result(r, &pat, &mut moved, ctx)),
                    other => {
                        ctx.loss(
                            pat.clone(),
                            LossKind::Dropped,
                            format!(
                                "a {} part in a tool message has no place in {F}",
                                other.kind()
                            ),
                        );
                    }
                }
            }
            ctx.give_back(pat);
            if !moved.is_empty() {
                out.push(w::Message::User(w::UserMessage {
                    content: TextOrParts::Parts(moved),
                    name: None,
                    extra: Extra::new(),
                }));
            }
        }
    }
}

fn encode_result(
    r: ToolResult,
    at: &str,
    moved: &mut Vec<w::ContentPart>,
    ctx: &mut Ctx<'_>,
) -> w::Message {
    let mut fields = ctx.vendor_fields(&r.meta.vendor, at);
    drop_cache(ctx, &r.meta, at);
    let _ = ctx.own(
        r.meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    let as_parts = r.meta.vendor.flag(F, "parts");
    let function_role = r.meta.vendor.flag(F, "function_role");
    // The common result, one plain text, becomes the string content without a list.
    let one_text = !as_parts
        && !function_role
        && matches!(r.content.as_slice(), [Part::Text(t)] if t.meta.is_empty());
    let mut parts: Vec<w::ContentPart> = if one_text {
        Vec::new()
    } else {
        Vec::with_capacity(r.content.len())
    };
    let mut text = None;
    let mut pat_buf = ctx.buf();
    for (k, p) in r.content.into_iter().enumerate() {
        set_path(&mut pat_buf, at, "content", k);
        let pat = pat_buf.as_str();
        match p {
            Part::Text(t) if one_text => text = Some(t.text),
            Part::Text(t) => {
                drop_cache(ctx, &t.meta, pat);
                parts.push(w::ContentPart::Text(w::TextPart {
                    text: t.text,
                    extra: ctx.extra(&t.meta.vendor, w::TextPart::FIELDS, pat),
                }));
            }
            Part::Json(j) => {
                let _ = ctx.vendor_fields(&j.meta.vendor, pat);
                parts.push(w::ContentPart::Text(w::TextPart {
                    text: j.value.to_string(),
                    extra: Extra::new(),
                }))
            }
            p @ (Part::Image(_) | Part::Document(_) | Part::Audio(_)) => {
                if let Some(enc) = encode_part(p, pat, ctx) {
                    ctx.loss(
                        pat,
                        LossKind::Moved,
                        "openai-chat tool messages carry text only: this part is sent in a user message after the results",
                    );
                    moved.push(enc);
                }
            }
            Part::Opaque(o) if o.format == F => match serde_json::from_value(o.value) {
                Ok(p) => parts.push(p),
                Err(e) => ctx.loss(
                    pat,
                    LossKind::Dropped,
                    format!("this {F} part, kept whole, is no longer a valid content part: {e}"),
                ),
            },
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, pat) {
                    parts.push(w::ContentPart::Text(w::TextPart {
                        text: t.text,
                        extra: Extra::new(),
                    }));
                }
            }
            other => ctx.loss(
                pat,
                LossKind::Dropped,
                format!("a {} part has no place in a {F} tool message", other.kind()),
            ),
        }
    }
    ctx.give_back(pat_buf);
    if r.is_error {
        ctx.loss(
            format!("{at}/is_error"),
            LossKind::Changed,
            "openai-chat has no error flag on tool results: the text is prefixed `Error: `",
        );
        match (text.as_mut(), parts.first_mut()) {
            (Some(t), _) if t.starts_with("Error:") => {}
            (Some(t), _) => t.insert_str(0, "Error: "),
            (None, Some(w::ContentPart::Text(t))) if t.text.starts_with("Error:") => {}
            (None, Some(w::ContentPart::Text(t))) => t.text.insert_str(0, "Error: "),
            _ => parts.insert(
                0,
                w::ContentPart::Text(w::TextPart {
                    text: "Error: ".into(),
                    extra: Extra::new(),
                }),
            ),
        }
    }
    if function_role {
        let content = parts.into_iter().find_map(|p| match p {
            w::ContentPart::Text(t) => Some(t.text),
            _ => None,
        });
        return w::Message::Function(w::FunctionMessage {
            name: r.name.unwrap_or(r.call_id),
            content,
            extra: ctx.extra(&r.meta.vendor, w::FunctionMessage::FIELDS, at),
        });
    }
    let content = if let Some(text) = text {
        TextOrParts::Text(text)
    } else if !as_parts
        && parts.len() == 1
        && matches!(&parts[0], w::ContentPart::Text(t) if t.extra.is_empty())
    {
        match parts.pop() {
            Some(w::ContentPart::Text(t)) => TextOrParts::Text(t.text),
            _ => TextOrParts::Text(String::new()),
        }
    } else if !as_parts
        && parts
            .iter()
            .all(|p| matches!(p, w::ContentPart::Text(t) if t.extra.is_empty()))
    {
        TextOrParts::Text(
            parts
                .into_iter()
                .filter_map(|p| match p {
                    w::ContentPart::Text(t) => Some(t.text),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
    } else {
        TextOrParts::Parts(parts)
    };
    let _ = fields.remove("name");
    w::Message::Tool(w::ToolMessage {
        tool_call_id: r.call_id,
        content,
        extra: extra_from(fields, &r.meta.vendor, w::ToolMessage::FIELDS, ctx),
    })
}

/// Encodes the parts of a user or system message. `None` when nothing is left.
fn encode_content(
    parts: Vec<Part>,
    v: &Vendor,
    at: &str,
    assistant: bool,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::ContentPart>> {
    let as_parts = v.flag(F, "parts");
    let mut out = Vec::with_capacity(parts.len());
    let mut pat_buf = ctx.buf();
    for (j, p) in parts.into_iter().enumerate() {
        set_path(&mut pat_buf, at, "content", j);
        let pat = pat_buf.as_str();
        if assistant && matches!(p, Part::Image(_) | Part::Audio(_) | Part::Document(_)) {
            ctx.loss(
                pat,
                LossKind::Dropped,
                format!("openai-chat assistant messages carry no {} parts", p.kind()),
            );
            continue;
        }
        if let Some(enc) = encode_part(p, pat, ctx) {
            out.push(enc);
        }
    }
    ctx.give_back(pat_buf);
    if out.is_empty() {
        return None;
    }
    if !as_parts && out.len() == 1 {
        if let w::ContentPart::Text(t) = &out[0] {
            if t.extra.is_empty() {
                if let Some(w::ContentPart::Text(t)) = out.pop() {
                    return Some(TextOrParts::Text(t.text));
                }
            }
        }
    }
    Some(TextOrParts::Parts(out))
}

/// One content part. Tool calls, results and reasoning are handled by the callers.
fn encode_part(p: Part, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentPart> {
    drop_cache(ctx, p.meta(), at);
    let _ = ctx.own(
        p.meta().signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    match p {
        Part::Text(t) => Some(w::ContentPart::Text(w::TextPart {
            text: t.text,
            extra: ctx.extra(&t.meta.vendor, w::TextPart::FIELDS, at),
        })),
        Part::Refusal(t) => Some(w::ContentPart::Refusal(w::RefusalPart {
            refusal: t.text,
            extra: ctx.extra(&t.meta.vendor, w::RefusalPart::FIELDS, at),
        })),
        Part::Image(m) => {
            let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
            let detail = fields
                .remove("detail")
                .and_then(|d| d.as_str().map(str::to_owned));
            let url = match m.source {
                Source::Url { url } => url,
                Source::Base64 { data } => data_url(m.media_type.as_deref(), &data),
                Source::FileId { file_id } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        format!("openai-chat images take a URL, not a file id (`{file_id}`)"),
                    );
                    return None;
                }
                Source::Text { .. } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        "an image given as text has no form in openai-chat",
                    );
                    return None;
                }
            };
            if m.name.is_some() {
                ctx.loss(
                    format!("{at}/name"),
                    LossKind::Dropped,
                    "openai-chat images have no name",
                );
            }
            Some(w::ContentPart::ImageUrl(w::ImageUrlPart {
                image_url: w::ImageUrl {
                    url,
                    detail,
                    extra: Extra::new(),
                },
                extra: extra_from(fields, &m.meta.vendor, w::ImageUrlPart::FIELDS, ctx),
            }))
        }
        Part::Audio(m) => {
            let format = m
                .media_type
                .as_deref()
                .and_then(|t| t.strip_prefix("audio/"))
                .map(|f| match f {
                    "mpeg" => "mp3",
                    "x-wav" | "wave" => "wav",
                    other => other,
                });
            match (m.source, format) {
                (Source::Base64 { data }, Some(format)) => {
                    Some(w::ContentPart::InputAudio(w::InputAudioPart {
                        input_audio: w::InputAudio {
                            data,
                            format: format.to_owned(),
                            extra: Extra::new(),
                        },
                        extra: ctx.extra(&m.meta.vendor, w::InputAudioPart::FIELDS, at),
                    }))
                }
                _ => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        "openai-chat takes audio as base64 wav or mp3 only",
                    );
                    None
                }
            }
        }
        Part::Document(m) => {
            let mut fields = ctx.vendor_fields(&m.meta.vendor, at);
            let extra_data = fields
                .remove("file_data")
                .and_then(|d| d.as_str().map(str::to_owned));
            let file = match m.source {
                Source::FileId { file_id }
                    if m.meta.vendor.flag(F, "empty_file") && file_id.is_empty() =>
                {
                    w::FileRef::default()
                }
                Source::FileId { file_id } => w::FileRef {
                    file_id: Some(file_id),
                    file_data: extra_data,
                    filename: m.name,
                    extra: Extra::new(),
                },
                Source::Base64 { data } => w::FileRef {
                    file_id: None,
                    file_data: Some(if m.meta.vendor.flag(F, "raw_file_data") {
                        data
                    } else {
                        data_url(m.media_type.as_deref(), &data)
                    }),
                    filename: m.name,
                    extra: Extra::new(),
                },
                Source::Text { text } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Changed,
                        "openai-chat has no text documents: sent as a text part",
                    );
                    return Some(w::ContentPart::Text(w::TextPart {
                        text,
                        extra: Extra::new(),
                    }));
                }
                Source::Url { url } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        format!("openai-chat file parts take a file id or inline data, not a URL ({url}); nothing is fetched"),
                    );
                    return None;
                }
            };
            Some(w::ContentPart::File(w::FilePart {
                file,
                extra: extra_from(fields, &m.meta.vendor, w::FilePart::FIELDS, ctx),
            }))
        }
        Part::Json(Json { value, .. }) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "a JSON part is sent as its JSON text",
            );
            Some(w::ContentPart::Text(w::TextPart {
                text: value.to_string(),
                extra: Extra::new(),
            }))
        }
        Part::Opaque(o) if o.format == F => serde_json::from_value(o.value).ok(),
        Part::Opaque(o) => match opaque_elsewhere(ctx, &o, at) {
            Some(Part::Text(t)) => Some(w::ContentPart::Text(w::TextPart {
                text: t.text,
                extra: Extra::new(),
            })),
            _ => None,
        },
        Part::Reasoning(_) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                "openai-chat has no place for reasoning here",
            );
            None
        }
        Part::ToolCall(_) | Part::ToolResult(_) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                "a tool call or result outside an assistant or tool message",
            );
            None
        }
    }
}

fn encode_assistant(m: Message, at: &str, ctx: &mut Ctx<'_>) -> w::AssistantMessage {
    let parts = encode_assistant_parts(m, at, ctx);
    w::AssistantMessage {
        content: parts.content,
        refusal: parts.refusal,
        tool_calls: parts.tool_calls,
        function_call: parts.fields.get("function_call").cloned().map(Box::new),
        audio: parts.fields.get("audio").cloned().map(Box::new),
        name: parts
            .fields
            .get("name")
            .and_then(|n| n.as_str().map(str::to_owned)),
        reasoning_content: parts.reasoning_content,
        extra: parts.extra,
    }
}

/// The assistant-turn fields shared by request messages and response messages.
fn encode_assistant_parts(m: Message, at: &str, ctx: &mut Ctx<'_>) -> AssistantParts {
    let mut v = m.vendor;
    let mut fields = ctx.take_vendor_fields(&mut v, at);
    let mut content_parts: Vec<Part> = Vec::new();
    let mut refusal = None;
    let calls = m
        .content
        .iter()
        .filter(|p| matches!(p, Part::ToolCall(_)))
        .count();
    let mut tool_calls: Vec<w::ToolCall> = Vec::with_capacity(calls);
    let mut reasoning_content = None;
    let mut content_at = Vec::new();
    let mut pat = ctx.buf();
    for (j, p) in m.content.into_iter().enumerate() {
        set_path(&mut pat, at, "content", j);
        match p {
            Part::ToolCall(c) => tool_calls.push(encode_call(c, &pat, ctx)),
            Part::Refusal(t)
                if (v.flag(F, "refusal_field") || v.format != Some(F)) && refusal.is_none() =>
            {
                drop_cache(ctx, &t.meta, &pat);
                let _ = ctx.vendor_fields(&t.meta.vendor, &pat);
                refusal = Some(t.text)
            }
            Part::Reasoning(r) => {
                let view = ctx.reasoning(&r, &pat);
                match view {
                    Some(view) if r.source == Some(F) && reasoning_content.is_none() => {
                        reasoning_content = view.text.map(str::to_owned);
                    }
                    Some(_) => ctx.loss(
                        pat.clone(),
                        LossKind::Dropped,
                        "openai-chat requests have no field for reasoning",
                    ),
                    None => {}
                }
            }
            other => {
                content_at.push(j);
                content_parts.push(other);
            }
        }
    }
    ctx.give_back(pat);
    // Content: the single-text string form unless the source used parts.
    let as_parts = v.flag(F, "parts");
    let content = if content_parts.is_empty() {
        None
    } else if !as_parts
        && content_parts.iter().all(
            |p| matches!(p, Part::Text(t) if t.meta.vendor.fields_for(F).is_none_or(model::VendorMap::is_empty)),
        )
    {
        // Plain text (a foreign signature or cache marker on it is reported and dropped).
        let mut text: Vec<String> = Vec::new();
        let mut pat_buf = ctx.buf();
        for (p, j) in content_parts.into_iter().zip(&content_at) {
            set_path(&mut pat_buf, at, "content", *j);
            let pat = pat_buf.as_str();
            drop_cache(ctx, p.meta(), pat);
            let _ = ctx.own(
                p.meta().signature.as_ref(),
                format_args!("{pat}/signature"),
                "a reasoning signature",
            );
            let _ = ctx.vendor_fields(&p.meta().vendor, pat);
            if let Part::Text(t) = p {
                text.push(t.text);
            }
        }
        ctx.give_back(pat_buf);
        Some(TextOrParts::Text(text.join("")))
    } else {
        let mut parts = Vec::new();
        let mut pat_buf = ctx.buf();
        for (p, j) in content_parts.into_iter().zip(content_at) {
            set_path(&mut pat_buf, at, "content", j);
            let pat = pat_buf.as_str();
            if matches!(p, Part::Image(_) | Part::Audio(_) | Part::Document(_)) {
                ctx.loss(
                    pat,
                    LossKind::Dropped,
                    format!("openai-chat assistant messages carry no {} parts", p.kind()),
                );
                continue;
            }
            if let Some(enc) = encode_part(p, pat, ctx) {
                parts.push(enc);
            }
        }
        ctx.give_back(pat_buf);
        // Parts that all came out as plain text (another format's metadata reported and
        // left out, opaque parts turned into text) take the string form as well.
        if parts.is_empty() {
            // Everything was dropped (with a loss each): no content at all.
            None
        } else if !as_parts
            && parts
                .iter()
                .all(|p| matches!(p, w::ContentPart::Text(t) if t.extra.is_empty()))
        {
            let text: Vec<String> = parts
                .into_iter()
                .filter_map(|p| match p {
                    w::ContentPart::Text(t) => Some(t.text),
                    _ => None,
                })
                .collect();
            Some(TextOrParts::Text(text.join("")))
        } else {
            Some(TextOrParts::Parts(parts))
        }
    };
    let mut extra = Extra::new();
    ctx.mark_nulls(&mut extra, &v, w::AssistantMessage::FIELDS);
    let mut rest = Map::new();
    for (k, val) in std::mem::take(&mut fields) {
        if ["function_call", "audio", "name", "role", "annotations"].contains(&k.as_str()) {
            rest.insert(k, val);
        } else {
            extra.insert(k, val);
        }
    }
    AssistantParts {
        content,
        refusal,
        tool_calls: if tool_calls.is_empty() {
            None
        } else {
            Some(tool_calls)
        },
        reasoning_content,
        fields: rest,
        extra,
    }
}

fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ToolCall {
    drop_cache(ctx, &c.meta, at);
    let _ = ctx.own(
        c.meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    let mut vendor = c.meta.vendor;
    let mut fields = ctx.take_vendor_fields(&mut vendor, at);
    let v = &vendor;
    let args_json = v.flag(F, "args_json");
    let arguments = match c.arguments {
        Arguments::Text(t) => wire_types::Arguments::Text(t),
        Arguments::Value(val) if args_json => wire_types::Arguments::Json(val),
        Arguments::Value(val) => wire_types::Arguments::Text(val.to_string()),
    };
    let kind = if v.flag(F, "no_type") {
        None
    } else {
        Some(
            fields
                .remove("type")
                .and_then(|t| t.as_str().map(w::ToolCallType::from))
                .unwrap_or(w::ToolCallType::Function),
        )
    };
    let id = if v.flag(F, "no_id") { None } else { Some(c.id) };
    let flat_name = fields
        .remove("name")
        .and_then(|n| n.as_str().map(str::to_owned));
    let flat_args = fields.remove("arguments").map(|a| match a {
        Value::String(s) => wire_types::Arguments::Text(s),
        other => wire_types::Arguments::Json(other),
    });
    let extra = extra_from(fields, v, w::ToolCall::FIELDS, ctx);
    if v.flag(F, "flat") {
        w::ToolCall {
            id,
            kind,
            function: None,
            custom: None,
            name: Some(c.name),
            arguments: Some(Box::new(arguments)),
            extra,
        }
    } else {
        w::ToolCall {
            id,
            kind,
            function: Some(w::FunctionCall {
                name: c.name,
                arguments,
                extra: Extra::new(),
            }),
            custom: None,
            name: flat_name,
            arguments: flat_args.map(Box::new),
            extra,
        }
    }
}

/// Encodes a neutral response as a Chat Completions response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let take_str = |f: &mut Map<String, Value>, k: &str| {
        f.remove(k).and_then(|x| x.as_str().map(str::to_owned))
    };
    let object = v
        .hint(F, "object")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| (v.format != Some(F)).then(|| "chat.completion".to_owned()));
    // Required by the SDK: 0 when the source has no creation time.
    let created = resp
        .created
        .or_else(|| fields.remove("created").and_then(|c| c.as_u64()))
        .or_else(|| (v.format != Some(F)).then_some(0));
    let system_fingerprint = take_str(&mut fields, "system_fingerprint");
    let service_tier = take_str(&mut fields, "service_tier");
    let mut choices = Vec::with_capacity(resp.choices.len());
    for (i, c) in resp.choices.into_iter().enumerate() {
        choices.push(encode_choice(c, i, v.format == Some(F), ctx));
    }
    let extra = extra_from(fields, &v, w::Response::FIELDS, ctx);
    Ok(w::Response {
        id: resp.id.or_else(|| (v.format != Some(F)).then(String::new)),
        object,
        created,
        model: resp.model.or_else(|| {
            (v.format != Some(F)).then(|| {
                ctx.loss(
                    "/model",
                    LossKind::Changed,
                    "the source names no model: written as \"\"",
                );
                String::new()
            })
        }),
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
    let no_role = c.message.vendor.flag(F, "no_role");
    let parts = encode_assistant_parts(c.message, &format!("{at}/message"), ctx);
    let mut pf = parts.fields;
    let mut message = w::ResponseMessage {
        role: pf
            .remove("role")
            .and_then(|r| r.as_str().map(str::to_owned))
            .or_else(|| (!no_role).then(|| "assistant".to_owned())),
        content: parts.content,
        refusal: parts.refusal,
        tool_calls: parts.tool_calls,
        annotations: pf
            .remove("annotations")
            .and_then(|a| serde_json::from_value(a).ok()),
        audio: pf.remove("audio").map(Box::new),
        function_call: pf.remove("function_call").map(Box::new),
        reasoning_content: parts.reasoning_content,
        extra: parts.extra,
    };
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
        .remove("index")
        .and_then(|x| x.as_u64())
        .map(|x| x as u32)
        .or_else(|| (!c.vendor.flag(F, "no_index")).then_some(i as u32));
    let logprobs = fields.remove("logprobs");
    let null_logprobs = same && logprobs.is_none() && !c.vendor.flag(F, "no_logprobs");
    let finish_reason = c
        .stop_reason
        .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    let mut extra = extra_from(fields, &c.vendor, w::Choice::FIELDS, ctx);
    if null_logprobs {
        extra.mark_null("logprobs");
    }
    if finish_reason.is_none() && c.vendor.format == Some(F) {
        // `finish_reason: null` was handled as a neutral `None`; put it back.
        if c.vendor
            .hints
            .get("nulls")
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
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!("stop reason `{raw}` has no openai-chat equivalent; kept as is"),
            );
            w::FinishReason::from(raw)
        }
    }
}

fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    let mut details = |key: &str, hint: &str| -> Option<Map<String, Value>> {
        match fields.remove(key) {
            Some(Value::Object(m)) => Some(m),
            _ if u.vendor.flag(F, hint) => Some(Map::new()),
            _ => None,
        }
    };
    let pd = details("prompt_tokens_details", "prompt_details");
    let cd = details("completion_tokens_details", "completion_details");
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
    let total = u
        .total_tokens
        .or_else(|| match (u.input_tokens, u.output_tokens) {
            (Some(i), Some(o)) if u.vendor.format != Some(F) => Some(i + o),
            _ => None,
        });
    w::Usage {
        prompt_tokens: u.input_tokens,
        completion_tokens: u.output_tokens,
        total_tokens: total,
        prompt_tokens_details,
        completion_tokens_details,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, ctx),
    }
}
