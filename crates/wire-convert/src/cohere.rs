//! Cohere v2 chat ↔ the neutral model.
//!
//! * Roles `system`, `user`, `assistant`, `tool`; system messages stay in place (Cohere
//!   allows them anywhere); `developer` is written as `system`. Content is a string or
//!   items: system `text`; user `text` and `image_url` (`data:` URLs ↔ base64); assistant
//!   `text` and `thinking`; tool `text` and `document`. What a role cannot carry is
//!   dropped with a loss. An image's `detail` is a vendor field; the `detail` of OpenAI
//!   Chat and Mistral images is carried too (same word, same values). An empty text part
//!   of another format (a Gemini signature-only part, say) is not sent as an empty `text`
//!   item; Cohere's own item list (hint `parts`) is written back as it came.
//! * Assistant `thinking` items ↔ [`Reasoning`](crate::model::Reasoning) with source `cohere` (no signature).
//!   The assistant's `tool_plan` (the model's plan, written before it calls tools) is
//!   reasoning too: a [`Reasoning`](crate::model::Reasoning) with source `cohere` and the hint `tool_plan`, placed
//!   after the content and before the calls, written back as `tool_plan`; elsewhere it
//!   travels as the target's reasoning. Foreign reasoning becomes a `thinking` item.
//!   `citations` are a vendor field of the message.
//! * Tool calls carry JSON-text arguments (kept byte for byte, `"null"` included). Each
//!   result is one `tool` message with `tool_call_id`; Cohere has no tool name on results
//!   (a loss only when the call is not in the conversation to name it) and no error flag:
//!   a failed result's text is prefixed `Error: ` (a `changed` loss; a text that already
//!   starts with `Error:` keeps its text). A `document` item
//!   of a result ↔ a [`Json`] part (its `data`; its `id` is a vendor field); a text
//!   document becomes a `document` item with `text` (and `title`); images in results
//!   cannot be sent.
//! * `tool_choice`: `REQUIRED` ↔ required, `NONE` ↔ none, absent ↔ auto; a named tool or
//!   an allowed list is sent as `REQUIRED` (or left out) with a `changed` loss. No parallel
//!   switch: `parallel_tool_calls: false` is a loss.
//! * Settings: `max_tokens`, `temperature`, `p` ↔ top_p, `k` ↔ top_k, `seed`,
//!   `stop_sequences`, penalties, `stream`; `thinking` `{type, token_budget}` ↔
//!   [`ReasoningConfig`] (`enabled`, `budget_tokens`; an effort level becomes a budget, a
//!   `changed` loss; losses about them point at `thinking/type` and
//!   `thinking/token_budget`); `response_format` `text` / `json_object` (with a schema ↔
//!   [`OutputFormat::JsonSchema`]). `documents`, `citation_options`, `safety_mode`,
//!   `strict_tools` and `logprobs` are vendor fields; tools that are all strict are
//!   sent with `strict_tools: true` (a strict flag on some tools only is a loss).
//! * Responses: `finish_reason` `COMPLETE` → end of turn, `STOP_SEQUENCE` → stop
//!   sequence, `MAX_TOKENS` → max tokens, `TOOL_CALL` → tool use, `ERROR` and `TIMEOUT` →
//!   error (Cohere's own value is written back as it came). Another format's stop reason
//!   is mapped by kind into the closed set: a content filter or refusal → `ERROR` (the
//!   answer did not end by itself, and `COMPLETE` would pass it off as complete); a
//!   pause or an unknown reason → `COMPLETE`; each a `changed` loss. Usage
//!   `tokens.input_tokens` / `output_tokens` ↔ input / output tokens and
//!   `cached_tokens` ↔ cached input tokens (it is the part of the input read from the
//!   cache); `billed_units` is a vendor field. One message only: further choices are
//!   dropped with a loss.
//!
//! Hints this module writes and reads: `parts` (content was an array), `tool_plan` (a
//! reasoning part that was the `tool_plan`), `args_json` (arguments were an object),
//! `no_arguments` (a call without `arguments`), `no_type` (a call or tool without
//! `type`), `no_id` (a call without `id`), `content_empty` (a response's `content: []`),
//! `role` (a response message's role), `tokens` (usage had `tokens`), `nulls`.

use crate::ctx::{extra_from, vendor_from_extra};
use crate::model::{
    self, Arguments, Choice, Dialect, Json, Media, Message, OutputFormat, Part, PartMeta,
    ReasoningConfig, Role, Settings, Source, StopKind, StopReason, Text, Tool, ToolCall,
    ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::openai_chat::synthetic_id;
use crate::util::{data_url, drop_cache, keep, opaque, opaque_elsewhere, parse_data_url};
use crate::{Ctx, Error, LossKind, schema};
use serde_json::{Map, Value};
use std::collections::HashSet;
use wire_types::cohere as w;
use wire_types::{Extra, Format, TextOrParts};

const F: Format = Format::Cohere;

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes a Cohere v2 chat request.
pub fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request {
        model: Some(req.model),
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &req.extra, &[]);

    for (i, m) in req.messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        let n = out.messages.len();
        let neutral = format!("/messages/{n}");
        match m {
            w::Message::System(s) => out.messages.push(decode_plain(
                Role::System,
                s.content,
                &s.extra,
                &neutral,
                &at,
                ctx,
            )),
            w::Message::User(u) => out.messages.push(decode_plain(
                Role::User,
                u.content,
                &u.extra,
                &neutral,
                &at,
                ctx,
            )),
            w::Message::Assistant(a) => {
                let turn = Turn {
                    role: None,
                    content: a.content,
                    tool_plan: a.tool_plan,
                    tool_calls: a.tool_calls,
                    citations: a.citations,
                    extra: a.extra,
                };
                out.messages.push(decode_turn(turn, &neutral, &at, ctx));
            }
            w::Message::Tool(t) => push_result(&mut out.messages, t, &at, ctx),
            other => {
                return Err(Error::invalid(
                    format!("{at}/role"),
                    format!("unknown role `{}`", other.tag()),
                ));
            }
        }
    }

    for (k, t) in req.tools.into_iter().flatten().enumerate() {
        ctx.map(format_args!("/tools/{k}"), format_args!("/tools/{k}"));
        out.tools.push(decode_tool(t));
    }

    ctx.map("/tool_choice", "/tool_choice");
    out.tool_choice = match req.tool_choice {
        None => None,
        Some(w::ToolChoice::Required) => Some(ToolChoice::Required),
        Some(w::ToolChoice::None) => Some(ToolChoice::None),
        Some(other) => {
            v.set_field(F, "tool_choice", wire_types::to_value(&other));
            None
        }
    };

    let mut s = Settings {
        max_tokens: req.max_tokens,
        temperature: req.temperature,
        top_p: req.p,
        top_k: req.k,
        stop: req.stop_sequences,
        seed: req.seed,
        presence_penalty: req.presence_penalty,
        frequency_penalty: req.frequency_penalty,
        stream: req.stream,
        ..Default::default()
    };
    for (neutral, source) in [
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "p"),
        ("top_k", "k"),
        ("stop", "stop_sequences"),
        ("seed", "seed"),
        ("presence_penalty", "presence_penalty"),
        ("frequency_penalty", "frequency_penalty"),
        ("stream", "stream"),
        ("reasoning", "thinking"),
    ] {
        ctx.map(
            format_args!("/settings/{neutral}"),
            format_args!("/{source}"),
        );
    }
    // The reasoning settings' own names in `thinking`.
    ctx.map(
        "/settings/reasoning/budget_tokens",
        "/thinking/token_budget",
    );
    ctx.map("/settings/reasoning/enabled", "/thinking/type");
    match req.thinking {
        None => {}
        Some(t) if t.extra.is_empty() && t.kind.is_known() => {
            s.reasoning = Some(ReasoningConfig {
                enabled: Some(t.kind == w::ThinkingType::Enabled),
                budget_tokens: t.token_budget.and_then(|b| i64::try_from(b).ok()),
                ..Default::default()
            });
        }
        Some(other) => v.set_field(F, "thinking", wire_types::to_value(&other)),
    }
    out.settings = s;

    ctx.map("/output_format", "/response_format");
    out.output_format = match req.response_format {
        None => None,
        Some(w::ResponseFormat::Text(t)) if t.extra.is_empty() => Some(OutputFormat::Text),
        Some(w::ResponseFormat::JsonObject(j)) if j.extra.is_empty() => match j.json_schema {
            None => Some(OutputFormat::JsonObject),
            Some(schema) => Some(OutputFormat::JsonSchema {
                name: None,
                schema,
                strict: None,
            }),
        },
        Some(other) => {
            v.set_field(F, "response_format", wire_types::to_value(&other));
            None
        }
    };

    keep(&mut v.fields, "strict_tools", &req.strict_tools);
    keep(&mut v.fields, "documents", &req.documents);
    keep(&mut v.fields, "citation_options", &req.citation_options);
    keep(&mut v.fields, "safety_mode", &req.safety_mode);
    keep(&mut v.fields, "logprobs", &req.logprobs);
    if !v.is_empty() {
        v.format = Some(F);
    }
    out.vendor = v;
    Ok(out)
}

/// A system or user message.
fn decode_plain(
    role: Role,
    content: TextOrParts<w::Content>,
    extra: &Extra,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    ctx.map(neutral.to_owned(), at.to_owned());
    let mut msg = Message::new(role, Vec::new());
    msg.vendor = vendor_from_extra(F, extra, &[]);
    decode_content(content, &mut msg.content, &mut msg.vendor, neutral, at, ctx);
    msg
}

/// Decodes `content` into `parts`, recording a `parts` hint in `v` for the array form.
fn decode_content(
    content: TextOrParts<w::Content>,
    parts: &mut Vec<Part>,
    v: &mut Vendor,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    match content {
        TextOrParts::Text(t) => {
            ctx.map(
                format_args!("{neutral}/content/{}", parts.len()),
                format_args!("{at}/content"),
            );
            parts.push(Part::text(t));
        }
        TextOrParts::Parts(items) => {
            v.set_hint(F, "parts", true);
            decode_items(items, parts, neutral, at, ctx);
        }
    }
}

fn decode_items(
    items: Vec<w::Content>,
    parts: &mut Vec<Part>,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    for (j, c) in items.into_iter().enumerate() {
        ctx.map(
            format_args!("{neutral}/content/{}", parts.len()),
            format_args!("{at}/content/{j}"),
        );
        parts.push(decode_item(c, ctx));
    }
}

fn meta_of(extra: &Extra) -> PartMeta {
    PartMeta {
        vendor: vendor_from_extra(F, extra, &[]),
        ..Default::default()
    }
}

fn merge_vendor(into: &mut Vendor, from: Vendor) {
    if from.is_empty() {
        return;
    }
    into.format = from.format.or(into.format);
    into.fields.extend(from.fields);
    into.hints.extend(from.hints);
}

fn decode_item(c: w::Content, ctx: &mut Ctx<'_>) -> Part {
    match c {
        w::Content::Text(t) => Part::Text(Text {
            text: t.text,
            meta: meta_of(&t.extra),
        }),
        w::Content::ImageUrl(i) => {
            let mut meta = meta_of(&i.extra);
            merge_vendor(
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
        w::Content::Thinking(t) => Part::Reasoning(model::Reasoning {
            text: Some(t.thinking),
            source: Some(F),
            meta: meta_of(&t.extra),
            ..Default::default()
        }),
        w::Content::Document(d) => {
            let mut meta = meta_of(&d.extra);
            let doc = d.document;
            for (k, val) in doc.extra.fields() {
                meta.vendor
                    .set_field(F, &format!("document.{k}"), val.clone());
            }
            if let Some(id) = doc.id {
                meta.vendor.set_field(F, "id", Value::String(id));
            }
            Part::Json(Json {
                value: Value::Object(doc.data),
                meta,
            })
        }
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// An assistant turn, from a request message or a response message.
struct Turn {
    role: Option<String>,
    content: Option<TextOrParts<w::Content>>,
    tool_plan: Option<String>,
    tool_calls: Option<Vec<w::ToolCall>>,
    citations: Option<Vec<w::Citation>>,
    extra: Extra,
}

fn decode_turn(t: Turn, neutral: &str, at: &str, ctx: &mut Ctx<'_>) -> Message {
    ctx.map(neutral.to_owned(), at.to_owned());
    let mut msg = Message::new(Role::Assistant, Vec::new());
    msg.vendor = vendor_from_extra(F, &t.extra, &[]);
    if let Some(role) = t.role {
        msg.vendor.set_hint(F, "role", role);
    }
    keep(&mut msg.vendor.fields, "citations", &t.citations);
    if let Some(c) = t.content {
        decode_content(c, &mut msg.content, &mut msg.vendor, neutral, at, ctx);
    }
    if let Some(plan) = t.tool_plan {
        ctx.map(
            format_args!("{neutral}/content/{}", msg.content.len()),
            format_args!("{at}/tool_plan"),
        );
        let mut meta = PartMeta::default();
        meta.vendor.set_hint(F, "tool_plan", true);
        msg.content.push(Part::Reasoning(model::Reasoning {
            text: Some(plan),
            source: Some(F),
            meta,
            ..Default::default()
        }));
    }
    let id_base = neutral.strip_suffix("/message").unwrap_or(neutral);
    for (c, call) in t.tool_calls.into_iter().flatten().enumerate() {
        ctx.map(
            format_args!("{neutral}/content/{}", msg.content.len()),
            format_args!("{at}/tool_calls/{c}"),
        );
        map_call(
            ctx,
            &format!("{neutral}/content/{}", msg.content.len()),
            &format!("{at}/tool_calls/{c}"),
        );
        msg.content.push(decode_call(call, id_base, c, ctx));
    }
    if !msg.vendor.is_empty() {
        msg.vendor.format = Some(F);
    }
    msg
}

/// Maps the neutral fields of a call to its `function` object in the source.
fn map_call(ctx: &mut Ctx<'_>, neutral: &str, source: &str) {
    for (n, s) in [("name", "name"), ("arguments", "arguments")] {
        ctx.map(
            format_args!("{neutral}/{n}"),
            format_args!("{source}/function/{s}"),
        );
    }
}

fn decode_call(call: w::ToolCall, id_base: &str, c: usize, ctx: &mut Ctx<'_>) -> Part {
    let Some(f) = call.function.clone() else {
        return opaque(ctx, wire_types::to_value(&call));
    };
    let Some(name) = f.name else {
        return opaque(ctx, wire_types::to_value(&call));
    };
    let mut v = vendor_from_extra(F, &call.extra, &[]);
    match call.kind.as_deref() {
        Some("function") => {}
        None => v.set_hint(F, "no_type", true),
        Some(other) => v.set_field(F, "type", Value::String(other.to_owned())),
    }
    for (k, val) in f.extra.fields() {
        v.set_field(F, &format!("function.{k}"), val.clone());
    }
    let arguments = match f.arguments {
        Some(wire_types::Arguments::Text(t)) => Arguments::Text(t),
        Some(wire_types::Arguments::Json(j)) => {
            v.set_hint(F, "args_json", true);
            Arguments::Value(j)
        }
        None => {
            v.set_hint(F, "no_arguments", true);
            Arguments::Text(String::new())
        }
    };
    let (id, synthetic) = match call.id {
        Some(id) => (id, false),
        None => {
            v.set_hint(F, "no_id", true);
            (synthetic_id(id_base, c, &name), true)
        }
    };
    Part::ToolCall(ToolCall {
        id,
        synthetic_id: synthetic,
        name,
        arguments,
        meta: PartMeta {
            vendor: v,
            ..Default::default()
        },
    })
}

/// Appends the result of a `tool` message to the tool message at the end, or starts one.
fn push_result(messages: &mut Vec<Message>, t: w::ToolMessage, at: &str, ctx: &mut Ctx<'_>) {
    if messages.last().is_none_or(|m| m.role != Role::Tool) {
        ctx.map(format_args!("/messages/{}", messages.len()), at.to_owned());
        messages.push(Message::new(Role::Tool, Vec::new()));
    }
    let n = messages.len() - 1;
    let k = messages.last().map_or(0, |m| m.content.len());
    let neutral = format!("/messages/{n}/content/{k}");
    ctx.map(neutral.clone(), at.to_owned());
    let mut meta = meta_of(&t.extra);
    let mut content = Vec::new();
    decode_content(t.content, &mut content, &mut meta.vendor, &neutral, at, ctx);
    let result = ToolResult {
        call_id: t.tool_call_id,
        name: None,
        content,
        is_error: false,
        meta,
    };
    if let Some(last) = messages.last_mut() {
        last.content.push(Part::ToolResult(result));
    }
}

fn decode_tool(t: w::Tool) -> Tool {
    let mut v = vendor_from_extra(F, &t.function.extra, &[]);
    for (key, val) in t.extra.fields() {
        v.set_field(F, &format!("$tool.{key}"), val.clone());
    }
    match t.kind.as_deref() {
        Some("function") => {}
        None => v.set_hint(F, "no_type", true),
        Some(other) => v.set_field(F, "$tool.type", Value::String(other.to_owned())),
    }
    Tool::Function(ToolDef {
        name: t.function.name,
        description: t.function.description,
        input_schema: t.function.parameters,
        dialect: Dialect::JsonSchema,
        output_schema: None,
        strict: None,
        cache: None,
        vendor: v,
    })
}

/// Decodes a Cohere v2 chat response.
pub fn decode_response(resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
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
    message.vendor.hints.shift_remove("parts");
    if empty {
        message.vendor.set_hint(F, "content_empty", true);
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
    let mut v = vendor_from_extra(F, &resp.extra, &[]);
    keep(&mut v.fields, "logprobs", &resp.logprobs);
    v.format = Some(F);
    out.vendor = v;
    Ok(out)
}

fn stop_reason(f: &w::FinishReason) -> StopReason {
    let kind = match f {
        w::FinishReason::Complete => StopKind::EndTurn,
        w::FinishReason::StopSequence => StopKind::StopSequence,
        w::FinishReason::MaxTokens => StopKind::MaxTokens,
        w::FinishReason::ToolCall => StopKind::ToolUse,
        w::FinishReason::Error | w::FinishReason::Timeout => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: Some(f.as_str().to_owned()),
        format: Some(F),
    }
}

fn decode_usage(u: w::Usage, ctx: &mut Ctx<'_>) -> Usage {
    ctx.map("/usage/input_tokens", "/usage/tokens/input_tokens");
    ctx.map("/usage/output_tokens", "/usage/tokens/output_tokens");
    ctx.map("/usage/cached_input_tokens", "/usage/cached_tokens");
    let mut out = Usage {
        cached_input_tokens: u.cached_tokens,
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &u.extra, &[]);
    if let Some(t) = u.tokens {
        out.input_tokens = t.input_tokens;
        out.output_tokens = t.output_tokens;
        v.set_hint(F, "tokens", true);
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
    keep(&mut v.fields, "billed_units", &u.billed_units);
    if !v.is_empty() {
        v.format = Some(F);
    }
    out.vendor = v;
    out
}

// ---------------------------------------------------------------------------------------
// Encoding

/// Encodes a neutral request as a Cohere v2 chat request.
pub fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let model = req.model.unwrap_or_else(|| {
        ctx.loss(
            "/model",
            LossKind::Changed,
            "the source has no model (it may be in its URL); set `model` before sending",
        );
        String::new()
    });
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    // Strict on every tool is `strict_tools`.
    let mut tools = req.tools;
    let all_strict = !tools.is_empty()
        && tools
            .iter()
            .all(|t| matches!(t, Tool::Function(d) if d.strict == Some(true)));
    if all_strict {
        for t in &mut tools {
            if let Tool::Function(d) = t {
                d.strict = None;
            }
        }
    }
    let tools = encode_tools(tools, ctx);
    let calls: HashSet<String> = req
        .messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.id.clone()),
            _ => None,
        })
        .collect();
    let mut messages = Vec::with_capacity(req.messages.len());
    for (i, m) in req.messages.into_iter().enumerate() {
        encode_message(m, i, &calls, &mut messages, ctx);
    }
    let tool_choice = match req.tool_choice {
        None => fields
            .shift_remove("tool_choice")
            .and_then(|c| serde_json::from_value(c).ok()),
        Some(c) => encode_tool_choice(c, ctx),
    };

    let s = req.settings;
    if s.parallel_tool_calls == Some(false) {
        ctx.loss(
            "/settings/parallel_tool_calls",
            LossKind::Dropped,
            "cohere has no switch for parallel tool calls",
        );
    }
    let thinking = match &s.reasoning {
        Some(r) => encode_thinking_config(r, ctx),
        None => fields
            .shift_remove("thinking")
            .and_then(|t| serde_json::from_value(t).ok()),
    };
    let response_format = match req.output_format {
        None => fields
            .shift_remove("response_format")
            .and_then(|f| serde_json::from_value(f).ok()),
        Some(OutputFormat::Text) => Some(w::ResponseFormat::Text(w::NoFields::default())),
        Some(OutputFormat::JsonObject) => {
            Some(w::ResponseFormat::JsonObject(w::JsonObjectFormat::default()))
        }
        Some(OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        }) => {
            if let Some(name) = name {
                ctx.loss(
                    "/output_format/name",
                    LossKind::Dropped,
                    format!("cohere output schemas have no name (`{name}`)"),
                );
            }
            if strict == Some(false) {
                ctx.loss(
                    "/output_format/strict",
                    LossKind::Changed,
                    "cohere always constrains the output to the schema",
                );
            }
            Some(w::ResponseFormat::JsonObject(w::JsonObjectFormat {
                json_schema: Some(schema),
                extra: Extra::new(),
            }))
        }
    };
    let strict_tools = take(&mut fields, "strict_tools").or(all_strict.then_some(true));
    let documents = take(&mut fields, "documents");
    let citation_options = take(&mut fields, "citation_options");
    let safety_mode = take(&mut fields, "safety_mode");
    let logprobs = take(&mut fields, "logprobs");
    Ok(w::Request {
        model,
        messages,
        tools,
        strict_tools,
        documents,
        citation_options,
        response_format,
        safety_mode,
        max_tokens: s.max_tokens,
        stop_sequences: s.stop,
        temperature: s.temperature,
        seed: s.seed,
        frequency_penalty: s.frequency_penalty,
        presence_penalty: s.presence_penalty,
        k: s.top_k,
        p: s.top_p,
        logprobs,
        tool_choice,
        thinking,
        stream: s.stream,
        extra: extra_from(fields, &v, w::Request::FIELDS, ctx),
    })
}

fn encode_tool_choice(c: ToolChoice, ctx: &mut Ctx<'_>) -> Option<w::ToolChoice> {
    match c {
        ToolChoice::Auto => None,
        ToolChoice::None => Some(w::ToolChoice::None),
        ToolChoice::Required => Some(w::ToolChoice::Required),
        ToolChoice::Tool { name } => {
            ctx.loss(
                "/tool_choice",
                LossKind::Changed,
                format!("cohere cannot force a call of `{name}`: a call of any tool is required"),
            );
            Some(w::ToolChoice::Required)
        }
        ToolChoice::Allowed { names, required } => {
            ctx.loss(
                "/tool_choice",
                LossKind::Changed,
                format!(
                    "cohere cannot restrict the callable tools to {}: every tool is offered",
                    names.join(", ")
                ),
            );
            required.then_some(w::ToolChoice::Required)
        }
    }
}

/// `thinking` for neutral reasoning settings.
fn encode_thinking_config(r: &ReasoningConfig, ctx: &mut Ctx<'_>) -> Option<w::Thinking> {
    let at = "/settings/reasoning";
    if r.include == Some(false) {
        ctx.loss(
            format!("{at}/include"),
            LossKind::Dropped,
            "cohere returns the thinking of a reasoning model; it cannot be hidden",
        );
    }
    let off = r.enabled == Some(false)
        || r.effort.as_deref() == Some("none")
        || (r.enabled.is_none() && r.effort.is_none() && r.budget_tokens.is_some_and(|b| b <= 0));
    if off {
        return Some(w::Thinking {
            kind: w::ThinkingType::Disabled,
            token_budget: None,
            extra: Extra::new(),
        });
    }
    let budget = match (r.budget_tokens, r.effort.as_deref()) {
        (Some(b), _) => u64::try_from(b).ok(),
        (None, Some(e)) => {
            match crate::util::effort_to_budget(e) {
                Some(b) => {
                    ctx.loss(
                    format!("{at}/effort"),
                    LossKind::Changed,
                    format!("cohere takes a token budget, not an effort level: `{e}` sent as {b} tokens"),
                );
                    u64::try_from(b).ok()
                }
                None => {
                    ctx.loss(
                        format!("{at}/effort"),
                        LossKind::Dropped,
                        format!("cohere has no effort levels (`{e}`): thinking is switched on"),
                    );
                    None
                }
            }
        }
        (None, None) => None,
    };
    if r.enabled.is_none() && budget.is_none() && r.effort.is_none() {
        return None;
    }
    Some(w::Thinking {
        kind: w::ThinkingType::Enabled,
        token_budget: budget,
        extra: Extra::new(),
    })
}

/// Encodes tool definitions as a Cohere `tools` array (`None` for none).
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
    let mut fields = ctx.vendor_fields(&def.vendor, at);
    let mut tool_extra = Map::new();
    let keys: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with("$tool."))
        .cloned()
        .collect();
    for k in keys {
        if let Some(val) = fields.shift_remove(&k) {
            tool_extra.insert(k.trim_start_matches("$tool.").to_owned(), val);
        }
    }
    let kind = if def.vendor.flag(F, "no_type") {
        None
    } else {
        Some(
            tool_extra
                .shift_remove("type")
                .and_then(|t| t.as_str().map(str::to_owned))
                .unwrap_or_else(|| "function".to_owned()),
        )
    };
    let parameters = def
        .input_schema
        .map(|s| schema::json_schema_input(s, def.dialect, ctx, at));
    if def.output_schema.is_some() {
        ctx.loss(
            format!("{at}/output_schema"),
            LossKind::Dropped,
            "cohere tools have no output schema",
        );
    }
    if def.strict == Some(true) {
        ctx.loss(
            format!("{at}/strict"),
            LossKind::Dropped,
            "cohere has no strict flag per tool (only `strict_tools` for all of them)",
        );
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "cohere has no cache marker",
        );
    }
    w::Tool {
        kind,
        function: w::FunctionDef {
            name: def.name,
            description: def.description,
            parameters,
            extra: extra_from(fields, &def.vendor, w::FunctionDef::FIELDS, ctx),
        },
        extra: Extra::from(tool_extra),
    }
}

fn encode_message(
    m: Message,
    i: usize,
    calls: &HashSet<String>,
    out: &mut Vec<w::Message>,
    ctx: &mut Ctx<'_>,
) {
    let at = format!("/messages/{i}");
    match m.role {
        Role::System | Role::Developer => {
            let fields = ctx.vendor_fields(&m.vendor, &at);
            let parts = m.content.into_iter().enumerate().collect();
            let content = encode_content(parts, &m.vendor, &at, Place::System, ctx);
            out.push(w::Message::System(w::SystemMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                extra: extra_from(fields, &m.vendor, w::SystemMessage::FIELDS, ctx),
            }));
        }
        Role::User => {
            let fields = ctx.vendor_fields(&m.vendor, &at);
            let parts = m.content.into_iter().enumerate().collect();
            let content = encode_content(parts, &m.vendor, &at, Place::User, ctx);
            out.push(w::Message::User(w::UserMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                extra: extra_from(fields, &m.vendor, w::UserMessage::FIELDS, ctx),
            }));
        }
        Role::Assistant => {
            let t = encode_turn(m, &at, ctx);
            out.push(w::Message::Assistant(w::AssistantMessage {
                content: t.content,
                tool_plan: t.tool_plan,
                tool_calls: t.tool_calls,
                citations: t.citations,
                extra: t.extra,
            }));
        }
        Role::Tool => {
            for (j, p) in m.content.into_iter().enumerate() {
                let pat = format!("{at}/content/{j}");
                match p {
                    Part::ToolResult(r) => out.push(encode_result(r, &pat, calls, ctx)),
                    other => ctx.loss(
                        pat,
                        LossKind::Dropped,
                        format!(
                            "a {} part in a tool message has no place in {F}",
                            other.kind()
                        ),
                    ),
                }
            }
        }
    }
}

/// Where content goes: what each role's content may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Text only.
    System,
    /// Text and images.
    User,
    /// Text and thinking.
    Assistant,
    /// Text and documents.
    Tool,
}

impl Place {
    fn name(self) -> &'static str {
        match self {
            Place::System => "system",
            Place::User => "user",
            Place::Assistant => "assistant",
            Place::Tool => "tool",
        }
    }

    fn takes(self, p: &Part) -> bool {
        match p {
            Part::Text(_) | Part::Refusal(_) | Part::Opaque(_) => true,
            Part::Image(_) => self == Place::User,
            Part::Reasoning(_) => self == Place::Assistant,
            Part::Json(_) => true,
            Part::Document(m) => self == Place::Tool && matches!(m.source, Source::Text { .. }),
            Part::Audio(_) | Part::ToolCall(_) | Part::ToolResult(_) => false,
        }
    }
}

/// Encodes parts (with their neutral indices) as content: the string form for one plain
/// text part (unless the source used items), items otherwise. `None` when nothing is
/// left.
fn encode_content(
    parts: Vec<(usize, Part)>,
    v: &Vendor,
    at: &str,
    place: Place,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::Content>> {
    // Cohere's own item list is written back as it came; otherwise an empty text part
    // (a Gemini signature-only part, say) is not sent as an empty item.
    let own = v.flag(F, "parts");
    let mut empty = false;
    let mut out = Vec::with_capacity(parts.len());
    for (j, p) in parts {
        let pat = format!("{at}/content/{j}");
        if !own && is_empty_text(&p) {
            part_meta(p.meta(), &pat, ctx);
            let _ = ctx.vendor_fields(&p.meta().vendor, &pat);
            empty = true;
            continue;
        }
        if !place.takes(&p) {
            let why = match &p {
                Part::Document(_) => format!(
                    "cohere {} messages carry no document by URL, file or bytes",
                    place.name()
                ),
                _ => format!(
                    "cohere {} messages carry no {} parts",
                    place.name(),
                    p.kind()
                ),
            };
            ctx.loss(pat, LossKind::Dropped, why);
            continue;
        }
        if let Some(enc) = encode_item(p, &pat, place, ctx) {
            out.push(enc);
        }
    }
    if out.is_empty() {
        // Only empty text: the empty string.
        return empty.then(|| TextOrParts::Text(String::new()));
    }
    if !v.flag(F, "parts") && out.len() == 1 {
        if let Some(w::Content::Text(t)) = out.first() {
            if t.extra.is_empty() {
                if let Some(w::Content::Text(t)) = out.pop() {
                    return Some(TextOrParts::Text(t.text));
                }
            }
        }
    }
    Some(TextOrParts::Parts(out))
}

/// A text part with no text and nothing of Cohere's own on it.
fn is_empty_text(p: &Part) -> bool {
    matches!(p, Part::Text(t) if t.text.is_empty()
        && t.meta.vendor.fields_for(F).is_none_or(model::VendorMap::is_empty))
}

fn part_meta(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    drop_cache(ctx, meta, at);
    let _ = ctx.own(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
}

fn text_item(text: String) -> w::Content {
    w::Content::Text(w::TextContent {
        text,
        extra: Extra::new(),
    })
}

/// One content item.
fn encode_item(p: Part, at: &str, place: Place, ctx: &mut Ctx<'_>) -> Option<w::Content> {
    part_meta(p.meta(), at, ctx);
    match p {
        Part::Text(t) => Some(w::Content::Text(w::TextContent {
            text: t.text,
            extra: ctx.extra(&t.meta.vendor, w::TextContent::FIELDS, at),
        })),
        Part::Refusal(t) => {
            let _ = ctx.vendor_fields(&t.meta.vendor, at);
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "cohere has no refusal: it is sent as text",
            );
            Some(text_item(t.text))
        }
        Part::Json(j) => {
            let mut fields = ctx.vendor_fields(&j.meta.vendor, at);
            match (place, j.value) {
                (Place::Tool, Value::Object(data)) => {
                    let id = fields
                        .shift_remove("id")
                        .and_then(|i| i.as_str().map(str::to_owned));
                    let mut doc_extra = Map::new();
                    let keys: Vec<String> = fields
                        .keys()
                        .filter(|k| k.starts_with("document."))
                        .cloned()
                        .collect();
                    for k in keys {
                        if let Some(val) = fields.shift_remove(&k) {
                            doc_extra.insert(k.trim_start_matches("document.").to_owned(), val);
                        }
                    }
                    Some(w::Content::Document(w::DocumentContent {
                        document: w::Document {
                            data,
                            id,
                            extra: Extra::from(doc_extra),
                        },
                        extra: extra_from(fields, &j.meta.vendor, w::DocumentContent::FIELDS, ctx),
                    }))
                }
                (Place::Tool, value) => Some(text_item(value.to_string())),
                (_, value) => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Changed,
                        "a JSON part is sent as its JSON text",
                    );
                    Some(text_item(value.to_string()))
                }
            }
        }
        Part::Image(m) => {
            let (detail, vendor) = image_detail(&m.meta.vendor);
            let mut fields = ctx.vendor_fields(&vendor, at);
            let detail = detail.or_else(|| {
                fields
                    .shift_remove("detail")
                    .and_then(|d| d.as_str().map(str::to_owned))
            });
            let url = match m.source {
                Source::Url { url } => url,
                Source::Base64 { data } => data_url(m.media_type.as_deref(), &data),
                Source::FileId { file_id } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        format!("cohere images take a URL, not a file id (`{file_id}`)"),
                    );
                    return None;
                }
                Source::Text { .. } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        "an image given as text has no form in cohere",
                    );
                    return None;
                }
            };
            if let Some(name) = &m.name {
                ctx.loss(
                    format!("{at}/name"),
                    LossKind::Dropped,
                    format!("cohere images have no name (`{name}`)"),
                );
            }
            Some(w::Content::ImageUrl(w::ImageUrlContent {
                image_url: w::ImageUrl {
                    url,
                    detail,
                    extra: Extra::new(),
                },
                extra: extra_from(fields, &vendor, w::ImageUrlContent::FIELDS, ctx),
            }))
        }
        Part::Document(m) => {
            let _ = ctx.vendor_fields(&m.meta.vendor, at);
            let Source::Text { text } = m.source else {
                return None; // refused by `Place::takes`
            };
            let mut data = Map::new();
            if let Some(name) = m.name {
                data.insert("title".to_owned(), Value::String(name));
            }
            data.insert("text".to_owned(), Value::String(text));
            Some(w::Content::Document(w::DocumentContent {
                document: w::Document {
                    data,
                    id: None,
                    extra: Extra::new(),
                },
                extra: Extra::new(),
            }))
        }
        Part::Reasoning(r) => encode_thinking(r, at, ctx).map(|t| {
            w::Content::Thinking(w::ThinkingContent {
                thinking: t.0,
                extra: t.1,
            })
        }),
        Part::Opaque(o) if o.format == F => serde_json::from_value(o.value).ok(),
        Part::Opaque(o) => match opaque_elsewhere(ctx, &o, at) {
            Some(Part::Text(t)) => Some(text_item(t.text)),
            _ => None,
        },
        Part::Audio(_) | Part::ToolCall(_) | Part::ToolResult(_) => None, // refused by `Place::takes`
    }
}

/// The text of a reasoning part for a `thinking` item or the `tool_plan`, and the extra
/// fields of its item; Cohere's own reasoning comes back as it came.
fn encode_thinking(r: model::Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<(String, Extra)> {
    let own = r.source == Some(F) && r.signature.is_none() && r.encrypted.is_none();
    let text = if own {
        r.text.clone().unwrap_or_default()
    } else {
        let view = ctx.reasoning(&r, at)?;
        match view.text.filter(|t| !t.is_empty()) {
            Some(t) => t.to_owned(),
            None if !view.summary.is_empty() => {
                ctx.loss(
                    format!("{at}/summary"),
                    LossKind::Changed,
                    "cohere has no reasoning summary: the summary is sent as thinking",
                );
                view.summary.join("\n\n")
            }
            None => {
                ctx.loss(
                    at.to_owned(),
                    LossKind::Dropped,
                    "reasoning without text has no place in cohere",
                );
                return None;
            }
        }
    };
    let extra = ctx.extra(&r.meta.vendor, w::ThinkingContent::FIELDS, at);
    Some((text, extra))
}

/// The parts of an assistant turn, encoded.
struct EncodedTurn {
    role: Option<String>,
    content: Option<TextOrParts<w::Content>>,
    tool_plan: Option<String>,
    tool_calls: Option<Vec<w::ToolCall>>,
    citations: Option<Vec<w::Citation>>,
    extra: Extra,
}

fn encode_turn(m: Message, at: &str, ctx: &mut Ctx<'_>) -> EncodedTurn {
    let v = m.vendor;
    let mut fields = ctx.vendor_fields(&v, at);
    let mut content = Vec::new();
    let mut calls = Vec::new();
    let mut plans: Vec<String> = Vec::new();
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        match p {
            Part::ToolCall(c) => calls.push(encode_call(c, &pat, ctx)),
            Part::Reasoning(r) if r.meta.vendor.flag(F, "tool_plan") => {
                part_meta(&r.meta, &pat, ctx);
                if let Some((text, _)) = encode_thinking(r, &pat, ctx) {
                    plans.push(text);
                }
            }
            other => content.push((j, other)),
        }
    }
    let content = encode_content(content, &v, at, Place::Assistant, ctx);
    let role = v.hint(F, "role").and_then(Value::as_str).map(str::to_owned);
    let citations = fields
        .shift_remove("citations")
        .and_then(|c| serde_json::from_value(c).ok());
    EncodedTurn {
        role,
        content,
        tool_plan: (!plans.is_empty()).then(|| plans.join("\n")),
        tool_calls: (!calls.is_empty()).then_some(calls),
        citations,
        extra: extra_from(fields, &v, w::AssistantMessage::FIELDS, ctx),
    }
}

fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::ToolCall {
    drop_cache(ctx, &c.meta, at);
    let _ = ctx.own(
        c.meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    let v = &c.meta.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    let arguments = match c.arguments {
        Arguments::Text(t) if t.is_empty() && v.flag(F, "no_arguments") => None,
        Arguments::Text(t) => Some(wire_types::Arguments::Text(t)),
        Arguments::Value(val) if v.flag(F, "args_json") => Some(wire_types::Arguments::Json(val)),
        Arguments::Value(val) => Some(wire_types::Arguments::Text(val.to_string())),
    };
    let kind = if v.flag(F, "no_type") {
        None
    } else {
        Some(
            fields
                .shift_remove("type")
                .and_then(|t| t.as_str().map(str::to_owned))
                .unwrap_or_else(|| "function".to_owned()),
        )
    };
    let mut function_extra = Map::new();
    let keys: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with("function."))
        .cloned()
        .collect();
    for k in keys {
        if let Some(val) = fields.shift_remove(&k) {
            function_extra.insert(k.trim_start_matches("function.").to_owned(), val);
        }
    }
    w::ToolCall {
        id: (!v.flag(F, "no_id")).then_some(c.id),
        kind,
        function: Some(w::FunctionCall {
            name: Some(c.name),
            arguments,
            extra: Extra::from(function_extra),
        }),
        extra: extra_from(fields, v, w::ToolCall::FIELDS, ctx),
    }
}

fn encode_result(
    r: ToolResult,
    at: &str,
    calls: &HashSet<String>,
    ctx: &mut Ctx<'_>,
) -> w::Message {
    let v = &r.meta.vendor;
    let fields = ctx.vendor_fields(v, at);
    drop_cache(ctx, &r.meta, at);
    let _ = ctx.own(
        r.meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    if let Some(name) = &r.name {
        if !calls.contains(&r.call_id) {
            ctx.loss(
                format!("{at}/name"),
                LossKind::Dropped,
                format!("cohere tool results have no tool name (`{name}`), and its call is not in the conversation"),
            );
        }
    }
    let parts = r.content.into_iter().enumerate().collect();
    let mut content = encode_content(parts, v, at, Place::Tool, ctx);
    if r.is_error {
        ctx.loss(
            format!("{at}/is_error"),
            LossKind::Changed,
            "cohere has no error flag on tool results: the text is prefixed `Error: `",
        );
        // A text that already says so gets no second `Error: `.
        content = Some(match content {
            None => TextOrParts::Text("Error: ".to_owned()),
            Some(TextOrParts::Text(t)) if t.starts_with("Error:") => TextOrParts::Text(t),
            Some(TextOrParts::Text(t)) => TextOrParts::Text(format!("Error: {t}")),
            Some(TextOrParts::Parts(mut p)) => {
                match p.first_mut() {
                    Some(w::Content::Text(t)) if t.text.starts_with("Error:") => {}
                    Some(w::Content::Text(t)) => t.text.insert_str(0, "Error: "),
                    _ => p.insert(0, text_item("Error: ".to_owned())),
                }
                TextOrParts::Parts(p)
            }
        });
    }
    w::Message::Tool(w::ToolMessage {
        tool_call_id: r.call_id,
        content: content.unwrap_or(TextOrParts::Text(String::new())),
        extra: extra_from(fields, v, w::ToolMessage::FIELDS, ctx),
    })
}

/// Encodes a neutral response as a Cohere v2 chat response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let same = v.format == Some(F);
    let mut fields = ctx.vendor_fields(&v, "");
    if resp.created.is_some() {
        ctx.loss(
            "/created",
            LossKind::Dropped,
            "cohere responses carry no creation time",
        );
    }
    if let Some(model) = &resp.model {
        ctx.loss(
            "/model",
            LossKind::Dropped,
            format!("cohere responses do not name the model (`{model}`)"),
        );
    }
    let mut message = None;
    let mut finish_reason = None;
    for (i, c) in resp.choices.into_iter().enumerate() {
        let at = format!("/choices/{i}");
        if i > 0 {
            ctx.loss(
                at,
                LossKind::Dropped,
                "a cohere response has one message: further choices are dropped",
            );
            continue;
        }
        let _ = ctx.vendor_fields(&c.vendor, &at);
        let mat = format!("{at}/message");
        let empty = c.message.vendor.flag(F, "content_empty");
        let mut t = encode_turn(c.message, &mat, ctx);
        let content = match t.content.take() {
            None if empty => Some(Vec::new()),
            None => None,
            Some(TextOrParts::Parts(p)) => Some(p),
            // No text at all: no empty text item.
            Some(TextOrParts::Text(s)) if s.is_empty() => empty.then(Vec::new),
            Some(TextOrParts::Text(s)) => Some(vec![text_item(s)]),
        };
        message = Some(w::ResponseMessage {
            role: t.role.or_else(|| (!same).then(|| "assistant".to_owned())),
            content,
            tool_plan: t.tool_plan,
            tool_calls: t.tool_calls,
            citations: t.citations,
            extra: t.extra,
        });
        finish_reason = c
            .stop_reason
            .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    }
    let logprobs = fields
        .shift_remove("logprobs")
        .and_then(|l| serde_json::from_value(l).ok());
    Ok(w::Response {
        id: resp.id,
        finish_reason,
        message: message.unwrap_or_else(|| w::ResponseMessage {
            role: Some("assistant".to_owned()),
            ..Default::default()
        }),
        usage: resp.usage.map(|u| encode_usage(u, ctx)),
        logprobs,
        extra: extra_from(fields, &v, w::Response::FIELDS, ctx),
    })
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    // `finish_reason` is a closed set: `COMPLETE`, `STOP_SEQUENCE`, `MAX_TOKENS`,
    // `TOOL_CALL`, `ERROR`, `TIMEOUT`. A content filter (or refusal) ended the answer
    // before its natural end: `ERROR`, so that a client does not take the answer as
    // complete. A pause and an unknown reason become `COMPLETE`.
    let (reason, said) = match r.kind {
        StopKind::EndTurn => return w::FinishReason::Complete,
        StopKind::StopSequence => return w::FinishReason::StopSequence,
        StopKind::MaxTokens => return w::FinishReason::MaxTokens,
        StopKind::ToolUse => return w::FinishReason::ToolCall,
        StopKind::Error => return w::FinishReason::Error,
        StopKind::ContentFilter => (w::FinishReason::Error, "ERROR"),
        StopKind::Pause | StopKind::Other => (w::FinishReason::Complete, "COMPLETE"),
    };
    ctx.loss(
        at.to_owned(),
        LossKind::Changed,
        format!(
            "stop reason `{}` has no cohere equivalent: sent as `{said}`",
            stop_name(r)
        ),
    );
    reason
}

/// How a stop reason is named in a loss: its source spelling, or its neutral kind.
fn stop_name(r: &StopReason) -> String {
    match &r.raw {
        Some(raw) => raw.clone(),
        None => match serde_json::to_value(r.kind) {
            Ok(Value::String(k)) => k,
            _ => format!("{:?}", r.kind),
        },
    }
}

fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    for (key, val) in [
        ("cache_write_tokens", u.cache_write_tokens),
        ("reasoning_tokens", u.reasoning_tokens),
    ] {
        // A zero count says nothing the totals do not.
        if let Some(n) = val.filter(|n| *n > 0) {
            ctx.loss(
                format!("/usage/{key}"),
                LossKind::Dropped,
                format!("cohere reports no {} ({n})", key.replace('_', " ")),
            );
        }
    }
    if let Some(t) = u.total_tokens {
        let sum = u.input_tokens.unwrap_or(0) + u.output_tokens.unwrap_or(0);
        if t != sum {
            ctx.loss(
                "/usage/total_tokens",
                LossKind::Dropped,
                format!("cohere reports no total ({t}, not the sum of input and output)"),
            );
        }
    }
    let kept = fields.shift_remove("tokens");
    let tokens = if kept.is_some()
        || u.input_tokens.is_some()
        || u.output_tokens.is_some()
        || u.vendor.flag(F, "tokens")
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
    let billed_units = fields
        .shift_remove("billed_units")
        .and_then(|b| serde_json::from_value(b).ok());
    w::Usage {
        billed_units,
        tokens,
        cached_tokens: u.cached_input_tokens,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, ctx),
    }
}

/// The vendor field `k`, as the wire type it came from.
fn take<T: serde::de::DeserializeOwned>(f: &mut Map<String, Value>, k: &str) -> Option<T> {
    f.shift_remove(k)
        .and_then(|x| serde_json::from_value(x).ok())
}

/// The image `detail` (`auto`, `low`, `high`) that OpenAI Chat, Mistral and Cohere all
/// spell the same way and keep as a vendor field (the neutral model has no place for
/// it), and the vendor record without it.
fn image_detail(v: &Vendor) -> (Option<String>, Vendor) {
    let shared = matches!(
        v.format,
        Some(Format::OpenaiChat | Format::Mistral | Format::Cohere)
    );
    match v.fields.get("detail").and_then(Value::as_str) {
        Some(d) if shared && v.format != Some(F) => {
            let mut rest = v.clone();
            rest.fields.shift_remove("detail");
            (Some(d.to_owned()), rest)
        }
        _ => (None, v.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, convert_request_value, convert_response_value};
    use serde_json::json;

    #[test]
    fn tool_plan_is_reasoning_and_comes_back_as_tool_plan() {
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "tool_plan": "I will look it up.", "tool_calls": [
                {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "null"}}]},
            {"role": "tool", "tool_call_id": "f_1", "content": "ok"}]});
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        match &d.messages[0].content[0] {
            Part::Reasoning(r) => {
                assert_eq!(r.text.as_deref(), Some("I will look it up."));
                assert_eq!(r.source, Some(F));
            }
            other => panic!("not reasoning: {other:?}"),
        }
        // The result is named after its call.
        match &d.messages[1].content[0] {
            Part::ToolResult(r) => assert_eq!(r.name.as_deref(), Some("f")),
            other => panic!("not a result: {other:?}"),
        }
        let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(out.value, body);
        assert!(out.losses.is_empty());
        // Elsewhere: a thinking item of another turn is not a plan.
        let out = convert_request_value(&body, F, Format::Ollama, &Options::default()).unwrap();
        assert_eq!(out.value["messages"][0]["thinking"], "I will look it up.");
        assert_eq!(
            out.value["messages"][0]["tool_calls"][0]["function"]["arguments"],
            json!({})
        );
    }

    #[test]
    fn tool_choice_and_thinking() {
        let body = json!({"model": "m", "messages": [],
            "tool_choice": {"type": "function", "function": {"name": "f"}},
            "reasoning_effort": "medium"});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(out.value["tool_choice"], "REQUIRED");
        assert_eq!(
            out.value["thinking"],
            json!({"type": "enabled", "token_budget": 8192})
        );
        let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["/tool_choice", "/reasoning_effort/effort"]);
        let body = json!({"model": "m", "messages": [], "tool_choice": "auto"});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert!(out.value.get("tool_choice").is_none());
        assert!(out.losses.is_empty());
        let body = json!({"model": "m", "messages": [], "thinking": {"type": "disabled"}});
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        assert_eq!(
            d.settings.reasoning,
            Some(ReasoningConfig {
                enabled: Some(false),
                ..Default::default()
            })
        );
    }

    #[test]
    fn finish_reasons_and_usage() {
        for (raw, kind, openai) in [
            ("COMPLETE", StopKind::EndTurn, "stop"),
            ("STOP_SEQUENCE", StopKind::StopSequence, "stop"),
            ("MAX_TOKENS", StopKind::MaxTokens, "length"),
            ("TOOL_CALL", StopKind::ToolUse, "tool_calls"),
            ("ERROR", StopKind::Error, "ERROR"),
            ("TIMEOUT", StopKind::Error, "TIMEOUT"),
        ] {
            let resp = json!({"id": "x", "finish_reason": raw,
                "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                "usage": {"billed_units": {"input_tokens": 1, "output_tokens": 2},
                    "tokens": {"input_tokens": 500, "output_tokens": 9}, "cached_tokens": 448}});
            let d = crate::decode_response(&resp.to_string(), F).unwrap().value;
            assert_eq!(
                d.choices[0].stop_reason.as_ref().map(|s| s.kind),
                Some(kind)
            );
            let u = d.usage.clone().unwrap();
            assert_eq!(
                (u.input_tokens, u.output_tokens, u.cached_input_tokens),
                (Some(500), Some(9), Some(448))
            );
            let out =
                convert_response_value(&resp, F, Format::OpenaiChat, &Options::default()).unwrap();
            assert_eq!(out.value["choices"][0]["finish_reason"], openai);
            assert_eq!(
                out.value["usage"]["prompt_tokens_details"]["cached_tokens"],
                448
            );
            assert_eq!(out.value["usage"]["total_tokens"], 509);
        }
        let resp = json!({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
            "finish_reason": "length"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}});
        let out =
            convert_response_value(&resp, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(out.value["finish_reason"], "MAX_TOKENS");
        assert_eq!(
            out.value["usage"],
            json!({"tokens": {"input_tokens": 3, "output_tokens": 4}})
        );
        assert_eq!(
            out.value["message"],
            json!({"role": "assistant", "content": [{"type": "text", "text": "hi"}]})
        );
    }

    #[test]
    fn documents_in_results_are_json() {
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "tool_calls": [
                {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "f_1", "content": [
                {"type": "document", "document": {"data": {"a": "bcd"}, "id": "doc-1"}}]}]});
        for to in [Format::Ollama, Format::Mistral] {
            let out = convert_request_value(&body, F, to, &Options::default()).unwrap();
            assert_eq!(out.value["messages"][1]["content"], "{\"a\":\"bcd\"}");
            let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
            assert!(paths.contains(&"/messages/1/content/0/id"), "{paths:?}");
        }
        let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(out.value, body);
    }

    /// Every request and response fixture of every format, encoded as Cohere, reads back
    /// with the wire types and validates (Cohere has no official schema to check
    /// against), and writes again as the same JSON.
    #[test]
    fn every_encoded_fixture_reads_back() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut failures = Vec::new();
        let mut checked = 0;
        for from in Format::CHAT {
            for body in ["request", "response"] {
                let Ok(entries) = std::fs::read_dir(dir.join(from.name()).join(body)) else {
                    continue;
                };
                let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                paths.sort();
                for path in paths {
                    let name = path.display().to_string();
                    let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
                    if !name.ends_with(".json") || file.is_some_and(|f| f.starts_with("error")) {
                        continue;
                    }
                    let input: Value =
                        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                    let out = if body == "request" {
                        convert_request_value(&input, from, F, &Options::default())
                    } else {
                        convert_response_value(&input, from, F, &Options::default())
                    };
                    let value = match out {
                        Ok(c) => c.value,
                        Err(Error::Unsupported { .. }) => continue,
                        Err(e) => {
                            failures.push(format!("{name}: {e}"));
                            continue;
                        }
                    };
                    checked += 1;
                    let back = if body == "request" {
                        wire_types::from_value::<w::Request>(&value).and_then(|r| {
                            w::validate_request(&r)?;
                            Ok(wire_types::to_value(&r))
                        })
                    } else {
                        wire_types::from_value::<w::Response>(&value)
                            .map(|r| wire_types::to_value(&r))
                    };
                    match back {
                        Ok(b) if b == value => {}
                        Ok(_) => failures.push(format!("{name}: writes back differently")),
                        Err(e) => failures.push(format!("{name}: {e}")),
                    }
                }
            }
        }
        assert!(checked > 0);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    fn losses_at<'l>(losses: &'l [crate::Loss], path: &str) -> Vec<&'l crate::Loss> {
        losses.iter().filter(|l| l.path == path).collect()
    }

    #[test]
    fn thinking_losses_point_at_cohere_names() {
        let body = json!({"model": "command-a", "messages": [{"role": "user", "content": "hi"}],
            "thinking": {"type": "enabled", "token_budget": 2048}});
        let out = convert_request_value(&body, F, Format::Ollama, &Options::default()).unwrap();
        assert_eq!(out.value["think"], true);
        let l = losses_at(&out.losses, "/thinking/token_budget");
        assert_eq!(l.len(), 1, "{:?}", out.losses);
        assert_eq!(l[0].kind, LossKind::Dropped);
    }

    #[test]
    fn stop_kinds_map_into_the_closed_set() {
        for (kind, expected, lossy) in [
            (StopKind::EndTurn, "COMPLETE", false),
            (StopKind::StopSequence, "STOP_SEQUENCE", false),
            (StopKind::MaxTokens, "MAX_TOKENS", false),
            (StopKind::ToolUse, "TOOL_CALL", false),
            (StopKind::Error, "ERROR", false),
            (StopKind::ContentFilter, "ERROR", true),
            (StopKind::Pause, "COMPLETE", true),
            (StopKind::Other, "COMPLETE", true),
        ] {
            let resp = model::Response {
                choices: vec![Choice {
                    message: Message::text(Role::Assistant, "hi"),
                    stop_reason: Some(StopReason::new(kind)),
                    vendor: Vendor::default(),
                }],
                ..Default::default()
            };
            let out = crate::encode_response(resp, F, &Options::default()).unwrap();
            assert_eq!(out.value["finish_reason"], expected, "{kind:?}");
            let losses = losses_at(&out.losses, "/choices/0/stop_reason");
            assert_eq!(losses.len(), usize::from(lossy), "{kind:?}");
            assert!(losses.iter().all(|l| l.kind == LossKind::Changed));
        }
        // Raw values of other formats never reach the closed set.
        let gemini = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "…"}]},
            "finishReason": "SAFETY"}]});
        let out = convert_response_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
        assert_eq!(out.value["finish_reason"], "ERROR");
        let l = losses_at(&out.losses, "/candidates/0/finishReason");
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].kind, LossKind::Changed);
        assert!(l[0].detail.contains("`SAFETY`"), "{}", l[0].detail);
    }

    #[test]
    fn a_failed_result_is_prefixed_once() {
        let body = json!({"model": "c", "max_tokens": 10, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
                {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
                    "content": "Error: boom"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
                    "content": [{"type": "text", "text": "timeout"}]}]}]});
        let out = convert_request_value(&body, Format::Anthropic, F, &Options::default()).unwrap();
        let m = &out.value["messages"];
        assert_eq!(m[2]["content"], "Error: boom");
        assert_eq!(m[3]["content"], "Error: timeout");
        for path in [
            "/messages/2/content/0/is_error",
            "/messages/2/content/1/is_error",
        ] {
            let l = losses_at(&out.losses, path);
            assert_eq!(l.len(), 1, "{path}");
            assert_eq!(l[0].kind, LossKind::Changed);
        }
    }

    #[test]
    fn empty_text_parts_are_not_sent() {
        // A Gemini signature-only text part after the answer.
        let gemini = json!({"contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"text": "Hello."},
                {"text": "", "thoughtSignature": "c2ln"}]},
            {"role": "user", "parts": [{"text": "and?"}]}]});
        let out = convert_request_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
        assert_eq!(
            out.value["messages"][1],
            json!({"role": "assistant", "content": "Hello."})
        );
        let lost: Vec<&crate::Loss> = out
            .losses
            .iter()
            .filter(|l| l.path.starts_with("/contents"))
            .collect();
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert!(lost[0].path.starts_with("/contents/1/parts/1/"));
        assert_eq!(lost[0].kind, LossKind::Dropped);
        // A response of calls with empty text: no empty text item.
        let openai = json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": "", "tool_calls": [{"id": "call_1",
                    "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]});
        let out =
            convert_response_value(&openai, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert!(
            out.value["message"].get("content").is_none(),
            "{}",
            out.value
        );
        assert_eq!(out.value["message"]["tool_calls"][0]["id"], "call_1");
        // Cohere's own empty text item comes back as it was.
        let own = json!({"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": ""},
                {"type": "text", "text": "hi"}]}]});
        let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
        assert!(same.losses.is_empty());
    }
}
