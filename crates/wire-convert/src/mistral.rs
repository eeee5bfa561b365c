//! Mistral chat completions ↔ the neutral model.
//!
//! Mistral is shaped like OpenAI Chat Completions; this module follows
//! [`openai_chat`](crate::openai_chat) and differs where the wire does:
//!
//! * System messages stay in place (Mistral allows them anywhere); `developer` is written
//!   as `system`. System content carries text only; other parts are dropped with a loss.
//! * Content chunks: `text` ↔ text, `image_url` (a bare URL string or `{url, detail}`;
//!   `data:` URLs ↔ base64) ↔ image, `document_url` (with `document_name`) ↔ document by
//!   URL (base64 documents are written as `data:` URLs), `file` ↔ document by file id,
//!   `input_audio` (a base64 string or a URL) ↔ audio, `thinking` ↔ [`Reasoning`](crate::model::Reasoning) with
//!   source `mistral` (its `text` chunks joined; the chunk list is kept as a hint so it
//!   round-trips exactly), `reference` and unknown chunks ↔ opaque parts. An image's
//!   `detail` is a vendor field; the `detail` of OpenAI Chat and Cohere images is
//!   carried too (same word, same values). An empty text part of another format (a
//!   Gemini signature-only part, say) is not sent as an empty `text` chunk; Mistral's own
//!   chunk list (hint `parts`) is written back as it came.
//! * Tool calls: JSON-text arguments kept byte for byte (an object, which the SDK also
//!   takes, comes back as an object). Ids are already `[a-zA-Z0-9]{9}` when the encoder
//!   runs (the id pass in [`ids`](crate::ids) rewrites the others, with a loss). Each
//!   result is one `tool` message with `tool_call_id` and `name` (the tool name); no
//!   error flag: a failed result's text is prefixed `Error: ` (a `changed` loss; a text
//!   that already starts with `Error:` keeps its text). Mistral takes no images in tool
//!   results (providers.md §10.10), and rejects a user message right after tool
//!   results ("Unexpected role 'user' after role 'tool'"): another format's result
//!   images go at the start of the user message that follows the results, if one does
//!   (a `moved` loss each), and are dropped otherwise (a `dropped` loss each); and an
//!   assistant message [`BRIDGE`] is inserted between the results and that user message
//!   (a `changed` loss), unless the history is Mistral's own. Mistral's own results (hint
//!   `parts`) keep their chunks.
//! * `tool_choice`: `auto`, `none`, `any` ↔ required (`required` is read too and written
//!   back as it came), `{type: function, function: {name}}` ↔ one tool; an allowed-tools
//!   list cannot be said (a loss; `any` when a call is required).
//! * Settings: `max_tokens`, `random_seed` ↔ seed, `stop` (string or array), sampling
//!   and penalties, `parallel_tool_calls`, `stream`; `response_format` `text` /
//!   `json_object` / `json_schema`. No `top_k` and no reasoning setting (`prompt_mode`
//!   only picks a system prompt): losses. `safe_prompt`, `prompt_mode`, `prediction`,
//!   `n` and the assistant `prefix` flag are vendor fields.
//! * Responses: `finish_reason` `stop` → end of turn, `length` and `model_length` → max
//!   tokens, `tool_calls` → tool use, `error` → error; usage with cached prompt tokens.
//!   Mistral's own value is written back as it came. Another format's stop reason is
//!   mapped by kind into the closed set: a stop sequence → `stop`; a content filter or
//!   refusal → `error` (the answer did not end by itself, and `stop` would pass it off
//!   as complete); a pause or an unknown reason → `stop`; each of those three a
//!   `changed` loss.
//!
//! Hints this module writes and reads: `parts` (content was an array), `args_json`
//! (arguments were an object), `no_type` (a call or tool without `type`), `no_id` (a call
//! without `id`), `index` (a call's `index`), `image_url_string` (an image URL given as a
//! bare string), `thinking_chunks` (the chunks of a `thinking` chunk, when they are not
//! one plain text chunk), `closed` (a `thinking` chunk's `closed`), `no_name` (a tool
//! message without `name`), `tool_choice_required` (`"required"` rather than `"any"`),
//! `named_no_type` (a named tool choice without `type`), `stop_string` (stop was a
//! string), `prompt_details` (usage had `prompt_tokens_details`), `role`, `object` and
//! `index` (a response's message role, object type and choice index), `finish_null`
//! (`finish_reason: null`), `nulls`.

use crate::ctx::{extra_from, vendor_from_extra};
use crate::model::{
    self, Arguments, Choice, Dialect, Json, Media, Message, OutputFormat, Part, PartMeta, Role,
    Settings, Source, StopKind, StopReason, Text, Tool, ToolCall, ToolChoice, ToolDef, ToolResult,
    Usage, Vendor,
};
use crate::openai_chat::synthetic_id;
use crate::util::{data_url, drop_cache, keep, opaque, opaque_elsewhere, parse_data_url};
use crate::{Ctx, Error, LossKind, schema};
use serde_json::{Map, Value};
use wire_types::mistral as w;
use wire_types::{Extra, Format, TextOrParts};

const F: Format = Format::Mistral;

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes a Mistral chat request.
pub fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request {
        model: Some(req.model),
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &req.extra, &[]);

    for (i, m) in req.messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        let n = out.messages.len();
        match m {
            w::Message::System(s) => {
                out.messages
                    .push(decode_plain(Role::System, s.content, &s.extra, n, &at, ctx))
            }
            w::Message::User(u) => {
                out.messages
                    .push(decode_plain(Role::User, u.content, &u.extra, n, &at, ctx))
            }
            w::Message::Assistant(a) => {
                let turn = Turn {
                    role: None,
                    content: a.content,
                    tool_calls: a.tool_calls,
                    prefix: a.prefix,
                    extra: a.extra,
                };
                out.messages
                    .push(decode_turn(turn, &format!("/messages/{n}"), &at, ctx));
            }
            w::Message::Tool(t) => {
                let Some(call_id) = t.tool_call_id.clone() else {
                    return Err(Error::invalid(
                        format!("{at}/tool_call_id"),
                        "a tool message needs the id of the call it answers",
                    ));
                };
                push_result(&mut out.messages, t, call_id, &at, ctx);
            }
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
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::Auto)) => Some(ToolChoice::Auto),
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::None)) => Some(ToolChoice::None),
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::Any)) => Some(ToolChoice::Required),
        Some(w::ToolChoice::Mode(w::ToolChoiceMode::Required)) => {
            v.set_hint(F, "tool_choice_required", true);
            Some(ToolChoice::Required)
        }
        Some(w::ToolChoice::Named(n))
            if n.extra.is_empty()
                && n.function.extra.is_empty()
                && matches!(n.kind.as_deref(), None | Some("function")) =>
        {
            if n.kind.is_none() {
                v.set_hint(F, "named_no_type", true);
            }
            Some(ToolChoice::Tool {
                name: n.function.name,
            })
        }
        Some(other) => {
            v.set_field(F, "tool_choice", wire_types::to_value(&other));
            None
        }
    };

    let mut s = Settings {
        max_tokens: req.max_tokens,
        temperature: req.temperature,
        top_p: req.top_p,
        presence_penalty: req.presence_penalty,
        frequency_penalty: req.frequency_penalty,
        parallel_tool_calls: req.parallel_tool_calls,
        stream: req.stream,
        ..Default::default()
    };
    for key in [
        "max_tokens",
        "temperature",
        "top_p",
        "presence_penalty",
        "frequency_penalty",
        "parallel_tool_calls",
        "stream",
        "stop",
    ] {
        ctx.map(format_args!("/settings/{key}"), format_args!("/{key}"));
    }
    s.stop = req.stop.map(|st| match st {
        TextOrParts::Text(t) => {
            v.set_hint(F, "stop_string", true);
            vec![t]
        }
        TextOrParts::Parts(p) => p,
    });
    match req.random_seed.map(i64::try_from) {
        None => {}
        Some(Ok(seed)) => s.seed = Some(seed),
        Some(Err(_)) => keep(&mut v.fields, "random_seed", &req.random_seed),
    }
    ctx.map("/settings/seed", "/random_seed");
    out.settings = s;

    ctx.map("/output_format", "/response_format");
    out.output_format = match req.response_format {
        None => None,
        Some(f) if !f.extra.is_empty() => {
            v.set_field(F, "response_format", wire_types::to_value(&f));
            None
        }
        Some(w::ResponseFormat {
            kind: Some(w::ResponseFormatType::Text),
            json_schema: None,
            ..
        }) => Some(OutputFormat::Text),
        Some(w::ResponseFormat {
            kind: Some(w::ResponseFormatType::JsonObject),
            json_schema: None,
            ..
        }) => Some(OutputFormat::JsonObject),
        Some(w::ResponseFormat {
            kind: Some(w::ResponseFormatType::JsonSchema),
            json_schema: Some(spec),
            ..
        }) if spec.extra.is_empty() && spec.description.is_none() && spec.schema.is_some() => {
            Some(OutputFormat::JsonSchema {
                name: Some(spec.name),
                schema: spec.schema.unwrap_or(Value::Null),
                strict: spec.strict,
            })
        }
        Some(other) => {
            v.set_field(F, "response_format", wire_types::to_value(&other));
            None
        }
    };

    keep(&mut v.fields, "n", &req.n);
    keep(&mut v.fields, "prediction", &req.prediction);
    keep(&mut v.fields, "prompt_mode", &req.prompt_mode);
    keep(&mut v.fields, "safe_prompt", &req.safe_prompt);
    if !v.is_empty() {
        v.format = Some(F);
    }
    out.vendor = v;
    Ok(out)
}

/// A system or user message.
fn decode_plain(
    role: Role,
    content: TextOrParts<w::ContentChunk>,
    extra: &Extra,
    n: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let neutral = format!("/messages/{n}");
    ctx.map(neutral.clone(), at.to_owned());
    let mut msg = Message::new(role, Vec::new());
    msg.vendor = vendor_from_extra(F, extra, &[]);
    decode_content(
        content,
        &mut msg.content,
        &mut msg.vendor,
        &neutral,
        at,
        ctx,
    );
    msg
}

/// Decodes `content` into `parts`, recording a `parts` hint in `v` for the array form.
fn decode_content(
    content: TextOrParts<w::ContentChunk>,
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
        TextOrParts::Parts(chunks) => {
            v.set_hint(F, "parts", true);
            for (j, c) in chunks.into_iter().enumerate() {
                ctx.map(
                    format_args!("{neutral}/content/{}", parts.len()),
                    format_args!("{at}/content/{j}"),
                );
                parts.push(decode_chunk(c, ctx));
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

fn merge_vendor(into: &mut Vendor, from: Vendor) {
    if from.is_empty() {
        return;
    }
    into.format = from.format.or(into.format);
    into.fields.extend(from.fields);
    into.hints.extend(from.hints);
}

/// A URL, or the base64 and media type of a `data:` URL.
fn source_of(url: String) -> (Source, Option<String>) {
    match parse_data_url(&url) {
        Some((mt, data)) => (Source::Base64 { data }, Some(mt)),
        None => (Source::Url { url }, None),
    }
}

fn decode_chunk(c: w::ContentChunk, ctx: &mut Ctx<'_>) -> Part {
    match c {
        w::ContentChunk::Text(t) => Part::Text(Text {
            text: t.text,
            meta: meta_of(&t.extra),
        }),
        w::ContentChunk::ImageUrl(i) => {
            let mut meta = meta_of(&i.extra);
            let url = match i.image_url {
                w::ImageUrlValue::Url(u) => {
                    meta.vendor.set_hint(F, "image_url_string", true);
                    u
                }
                w::ImageUrlValue::Object(o) => {
                    merge_vendor(&mut meta.vendor, vendor_from_extra(F, &o.extra, &[]));
                    if let Some(d) = o.detail {
                        meta.vendor.set_field(F, "detail", Value::String(d));
                    }
                    o.url
                }
            };
            let (source, media_type) = source_of(url);
            Part::Image(Media {
                source,
                media_type,
                name: None,
                meta,
            })
        }
        w::ContentChunk::DocumentUrl(d) => {
            let (source, media_type) = source_of(d.document_url);
            Part::Document(Media {
                source,
                media_type,
                name: d.document_name,
                meta: meta_of(&d.extra),
            })
        }
        w::ContentChunk::InputAudio(a) => {
            let source =
                if a.input_audio.starts_with("http://") || a.input_audio.starts_with("https://") {
                    Source::Url { url: a.input_audio }
                } else {
                    Source::Base64 {
                        data: a.input_audio,
                    }
                };
            Part::Audio(Media {
                source,
                media_type: None,
                name: None,
                meta: meta_of(&a.extra),
            })
        }
        w::ContentChunk::File(f) => Part::Document(Media {
            source: Source::FileId { file_id: f.file_id },
            media_type: None,
            name: None,
            meta: meta_of(&f.extra),
        }),
        w::ContentChunk::Thinking(t) => {
            let mut meta = meta_of(&t.extra);
            let text = w::thinking_text(&t);
            let plain = matches!(
                t.thinking.as_slice(),
                [w::ContentChunk::Text(only)] if only.extra.is_empty()
            );
            if !plain {
                meta.vendor
                    .set_hint(F, "thinking_chunks", wire_types::to_value(&t.thinking));
            }
            if let Some(closed) = t.closed {
                meta.vendor.set_hint(F, "closed", closed);
            }
            Part::Reasoning(model::Reasoning {
                text: Some(text),
                source: Some(F),
                meta,
                ..Default::default()
            })
        }
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// An assistant turn, from a request message or a response message.
struct Turn {
    role: Option<String>,
    content: Option<TextOrParts<w::ContentChunk>>,
    tool_calls: Option<Vec<w::ToolCall>>,
    prefix: Option<bool>,
    extra: Extra,
}

fn decode_turn(t: Turn, neutral: &str, at: &str, ctx: &mut Ctx<'_>) -> Message {
    ctx.map(neutral.to_owned(), at.to_owned());
    let mut msg = Message::new(Role::Assistant, Vec::new());
    msg.vendor = vendor_from_extra(F, &t.extra, &[]);
    if let Some(role) = t.role {
        msg.vendor.set_hint(F, "role", role);
    }
    keep(&mut msg.vendor.fields, "prefix", &t.prefix);
    if let Some(c) = t.content {
        decode_content(c, &mut msg.content, &mut msg.vendor, neutral, at, ctx);
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
        msg.content.push(decode_call(call, id_base, c));
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

fn decode_call(call: w::ToolCall, id_base: &str, c: usize) -> Part {
    let mut v = vendor_from_extra(F, &call.extra, &[]);
    match call.kind.as_deref() {
        Some("function") => {}
        None => v.set_hint(F, "no_type", true),
        Some(other) => v.set_field(F, "type", Value::String(other.to_owned())),
    }
    if let Some(ix) = call.index {
        v.set_hint(F, "index", ix);
    }
    let f = call.function;
    for (k, val) in f.extra.fields() {
        v.set_field(F, &format!("function.{k}"), val.clone());
    }
    let arguments = match f.arguments {
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
            (synthetic_id(id_base, c, &f.name), true)
        }
    };
    Part::ToolCall(ToolCall {
        id,
        synthetic_id: synthetic,
        name: f.name,
        arguments,
        meta: PartMeta {
            vendor: v,
            ..Default::default()
        },
    })
}

/// Appends the result of a `tool` message to the tool message at the end, or starts one.
fn push_result(
    messages: &mut Vec<Message>,
    t: w::ToolMessage,
    call_id: String,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    if messages.last().is_none_or(|m| m.role != Role::Tool) {
        ctx.map(format_args!("/messages/{}", messages.len()), at.to_owned());
        messages.push(Message::new(Role::Tool, Vec::new()));
    }
    let n = messages.len() - 1;
    let k = messages.last().map_or(0, |m| m.content.len());
    let neutral = format!("/messages/{n}/content/{k}");
    ctx.map(neutral.clone(), at.to_owned());
    let mut meta = meta_of(&t.extra);
    if t.name.is_none() {
        meta.vendor.set_hint(F, "no_name", true);
    }
    let mut content = Vec::new();
    decode_content(t.content, &mut content, &mut meta.vendor, &neutral, at, ctx);
    let result = ToolResult {
        call_id,
        name: t.name,
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
        strict: t.function.strict,
        cache: None,
        vendor: v,
    })
}

/// Decodes a Mistral chat response.
pub fn decode_response(resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.id,
        model: resp.model,
        ..Default::default()
    };
    for (i, c) in resp.choices.into_iter().enumerate() {
        let neutral = format!("/choices/{i}/message");
        let m = c.message;
        let turn = Turn {
            role: m.role,
            content: m.content,
            tool_calls: m.tool_calls,
            prefix: m.prefix,
            extra: m.extra,
        };
        let message = decode_turn(turn, &neutral, &neutral, ctx);
        let mut v = vendor_from_extra(F, &c.extra, &["finish_reason"]);
        if let Some(ix) = c.index {
            v.set_hint(F, "index", ix);
        }
        keep(&mut v.fields, "logprobs", &c.logprobs);
        if c.finish_reason.is_none() && c.extra.was_null("finish_reason") {
            v.set_hint(F, "finish_null", true);
        }
        if !v.is_empty() {
            v.format = Some(F);
        }
        ctx.map(
            format_args!("/choices/{i}/stop_reason"),
            format_args!("/choices/{i}/finish_reason"),
        );
        out.choices.push(Choice {
            message,
            stop_reason: c.finish_reason.map(|f| stop_reason(&f)),
            vendor: v,
        });
    }
    out.usage = resp.usage.map(|u| decode_usage(u, ctx));
    let mut v = vendor_from_extra(F, &resp.extra, &[]);
    if let Some(object) = resp.object {
        v.set_hint(F, "object", object);
    }
    out.created = resp.created;
    v.format = Some(F);
    out.vendor = v;
    Ok(out)
}

fn stop_reason(f: &w::FinishReason) -> StopReason {
    let kind = match f {
        w::FinishReason::Stop => StopKind::EndTurn,
        w::FinishReason::Length | w::FinishReason::ModelLength => StopKind::MaxTokens,
        w::FinishReason::ToolCalls => StopKind::ToolUse,
        w::FinishReason::Error => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: Some(f.as_str().to_owned()),
        format: Some(F),
    }
}

fn decode_usage(u: w::Usage, ctx: &mut Ctx<'_>) -> Usage {
    ctx.map("/usage/input_tokens", "/usage/prompt_tokens");
    ctx.map("/usage/output_tokens", "/usage/completion_tokens");
    let mut out = Usage {
        input_tokens: u.prompt_tokens,
        output_tokens: u.completion_tokens,
        total_tokens: u.total_tokens,
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &u.extra, &[]);
    if let Some(p) = u.prompt_tokens_details {
        out.cached_input_tokens = p.cached_tokens;
        v.set_hint(F, "prompt_details", true);
        if !p.extra.is_empty() {
            v.set_field(
                F,
                "prompt_tokens_details",
                wire_types::to_value(&w::PromptTokensDetails {
                    cached_tokens: None,
                    ..p
                }),
            );
        }
    }
    out.vendor = v;
    out
}

// ---------------------------------------------------------------------------------------
// Encoding

/// The assistant message inserted between tool results and a user message from another
/// format (Mistral rejects a user message right after tool results).
pub const BRIDGE: &str = "OK.";

/// Encodes a neutral request as a Mistral chat request.
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
    let tools = encode_tools(req.tools, ctx);
    let mut messages = Vec::with_capacity(req.messages.len());
    let roles: Vec<Role> = req.messages.iter().map(|m| m.role).collect();
    // Images of tool results, for the user message that follows them.
    let mut carried = Vec::new();
    for (i, m) in req.messages.into_iter().enumerate() {
        let next_user = roles.get(i + 1) == Some(&Role::User);
        let tool = m.role == Role::Tool;
        encode_message(m, i, next_user, &mut carried, &mut messages, ctx);
        if tool && next_user && ctx.source != Some(F) {
            // "Unexpected role 'user' after role 'tool'": Mistral wants the model's turn
            // between the results and the user's next words (Anthropic puts both in one
            // user turn; OpenAI takes them in a row).
            ctx.loss(
                format!("/messages/{}", i + 1),
                LossKind::Changed,
                format!(
                    "mistral rejects a user message right after tool results: an assistant message `{BRIDGE}` is inserted before it"
                ),
            );
            messages.push(w::Message::Assistant(w::AssistantMessage {
                content: Some(TextOrParts::Text(BRIDGE.to_owned())),
                ..Default::default()
            }));
        }
    }
    let tool_choice = match req.tool_choice {
        Some(c) => Some(encode_tool_choice(c, &v, ctx)),
        None => fields
            .shift_remove("tool_choice")
            .and_then(|c| serde_json::from_value(c).ok()),
    };

    let s = req.settings;
    if s.top_k.is_some() {
        ctx.loss("/settings/top_k", LossKind::Dropped, "mistral has no top_k");
    }
    if s.reasoning.is_some() {
        ctx.loss(
            "/settings/reasoning",
            LossKind::Dropped,
            "mistral has no reasoning setting (reasoning models think by themselves; `prompt_mode` only picks a system prompt)",
        );
    }
    let random_seed = match s.seed {
        None => fields.shift_remove("random_seed").and_then(|x| x.as_u64()),
        Some(seed) => match u64::try_from(seed) {
            Ok(seed) => Some(seed),
            Err(_) => {
                ctx.loss(
                    "/settings/seed",
                    LossKind::Dropped,
                    format!("mistral's random_seed is not negative ({seed})"),
                );
                None
            }
        },
    };
    let response_format = match req.output_format {
        None => fields
            .shift_remove("response_format")
            .and_then(|f| serde_json::from_value(f).ok()),
        Some(f) => Some(encode_output_format(f)),
    };
    let take = |f: &mut Map<String, Value>, k: &str| f.shift_remove(k);
    let n = take(&mut fields, "n")
        .and_then(|x| x.as_u64())
        .and_then(|x| u32::try_from(x).ok());
    let prediction = take(&mut fields, "prediction");
    let prompt_mode = take(&mut fields, "prompt_mode").and_then(|x| serde_json::from_value(x).ok());
    let safe_prompt = take(&mut fields, "safe_prompt").and_then(|x| x.as_bool());
    Ok(w::Request {
        model,
        messages,
        tools,
        tool_choice,
        parallel_tool_calls: s.parallel_tool_calls,
        response_format,
        max_tokens: s.max_tokens,
        temperature: s.temperature,
        top_p: s.top_p,
        n,
        stop: s.stop.map(|mut st| {
            if v.flag(F, "stop_string") && st.len() == 1 {
                TextOrParts::Text(st.remove(0))
            } else {
                TextOrParts::Parts(st)
            }
        }),
        random_seed,
        presence_penalty: s.presence_penalty,
        frequency_penalty: s.frequency_penalty,
        prediction,
        prompt_mode,
        safe_prompt,
        stream: s.stream,
        extra: extra_from(fields, &v, w::Request::FIELDS, ctx),
    })
}

fn encode_output_format(f: OutputFormat) -> w::ResponseFormat {
    let (kind, json_schema) = match f {
        OutputFormat::Text => (w::ResponseFormatType::Text, None),
        OutputFormat::JsonObject => (w::ResponseFormatType::JsonObject, None),
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => (
            w::ResponseFormatType::JsonSchema,
            Some(w::JsonSchemaSpec {
                name: name.unwrap_or_else(|| "output".to_owned()),
                description: None,
                schema: Some(schema),
                strict,
                extra: Extra::new(),
            }),
        ),
    };
    w::ResponseFormat {
        kind: Some(kind),
        json_schema,
        extra: Extra::new(),
    }
}

fn encode_tool_choice(c: ToolChoice, v: &Vendor, ctx: &mut Ctx<'_>) -> w::ToolChoice {
    let required = |v: &Vendor| {
        if v.flag(F, "tool_choice_required") {
            w::ToolChoiceMode::Required
        } else {
            w::ToolChoiceMode::Any
        }
    };
    match c {
        ToolChoice::Auto => w::ToolChoice::Mode(w::ToolChoiceMode::Auto),
        ToolChoice::None => w::ToolChoice::Mode(w::ToolChoiceMode::None),
        ToolChoice::Required => w::ToolChoice::Mode(required(v)),
        ToolChoice::Tool { name } => w::ToolChoice::Named(w::NamedToolChoice {
            kind: (!v.flag(F, "named_no_type")).then(|| "function".to_owned()),
            function: w::NameRef {
                name,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        }),
        ToolChoice::Allowed { names, required: r } => {
            ctx.loss(
                "/tool_choice",
                LossKind::Changed,
                format!(
                    "mistral cannot restrict the callable tools to {}: every tool is offered{}",
                    names.join(", "),
                    if r { " and a call is required" } else { "" }
                ),
            );
            w::ToolChoice::Mode(if r {
                w::ToolChoiceMode::Any
            } else {
                w::ToolChoiceMode::Auto
            })
        }
    }
}

/// Encodes tool definitions as a Mistral `tools` array (`None` for none).
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
            "mistral tools have no output schema",
        );
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "mistral has no cache marker",
        );
    }
    w::Tool {
        kind,
        function: w::FunctionDef {
            name: def.name,
            description: def.description,
            parameters,
            strict: def.strict,
            extra: extra_from(fields, &def.vendor, w::FunctionDef::FIELDS, ctx),
        },
        extra: Extra::from(tool_extra),
    }
}

/// Encodes message `i`. `next_user` says whether a user message follows it; `carried`
/// holds the images of tool results waiting for that user message.
fn encode_message(
    m: Message,
    i: usize,
    next_user: bool,
    carried: &mut Vec<w::ContentChunk>,
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
            let mut content = encode_content(parts, &m.vendor, &at, Place::User, ctx);
            if !carried.is_empty() {
                // The images of the results just before, ahead of what the user says.
                let mut chunks = std::mem::take(carried);
                match content {
                    Some(TextOrParts::Text(t)) if !t.is_empty() => chunks.push(text_chunk(t)),
                    Some(TextOrParts::Parts(p)) => chunks.extend(p),
                    _ => {}
                }
                content = Some(TextOrParts::Parts(chunks));
            }
            out.push(w::Message::User(w::UserMessage {
                content: content.unwrap_or(TextOrParts::Text(String::new())),
                extra: extra_from(fields, &m.vendor, w::UserMessage::FIELDS, ctx),
            }));
        }
        Role::Assistant => {
            let t = encode_turn(m, &at, ctx);
            out.push(w::Message::Assistant(w::AssistantMessage {
                content: t.content,
                tool_calls: t.tool_calls,
                prefix: t.prefix,
                extra: t.extra,
            }));
        }
        Role::Tool => {
            let mut moved = Vec::new();
            for (j, p) in m.content.into_iter().enumerate() {
                let pat = format!("{at}/content/{j}");
                match p {
                    Part::ToolResult(r) => out.push(encode_result(r, &pat, &mut moved, ctx)),
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
            // Mistral rejects a user message right after tool results ("Unexpected role
            // 'user' after role 'tool'"): the images join the user message that follows
            // anyway, if there is one; otherwise they cannot be sent.
            for (pat, chunk) in moved {
                if next_user {
                    ctx.loss(
                        pat,
                        LossKind::Moved,
                        "mistral tool messages carry no images: this image is sent at the start of the user message after the results",
                    );
                    carried.push(chunk);
                } else {
                    ctx.loss(
                        pat,
                        LossKind::Dropped,
                        "mistral tool messages carry no images, and mistral takes no user message right after tool results",
                    );
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
    /// Text, images, documents, audio.
    User,
    /// Text and thinking.
    Assistant,
    /// Anything a user message takes.
    Tool,
}

/// Encodes parts (with their neutral indices) as content: the string form for one plain
/// text part (unless the source used chunks), chunks otherwise. `None` when nothing is
/// left.
fn encode_content(
    parts: Vec<(usize, Part)>,
    v: &Vendor,
    at: &str,
    place: Place,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<w::ContentChunk>> {
    // Mistral's own chunk list is written back as it came; otherwise an empty text part
    // (a Gemini signature-only part, say) is not sent as an empty chunk.
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
        let allowed = matches!(
            (&p, place),
            (
                Part::Text(_) | Part::Refusal(_) | Part::Json(_) | Part::Opaque(_),
                _
            ) | (Part::Reasoning(_), Place::Assistant)
                | (
                    Part::Image(_) | Part::Audio(_) | Part::Document(_),
                    Place::User | Place::Tool
                )
        );
        if !allowed {
            let role = match place {
                Place::System => "system",
                Place::User => "user",
                Place::Assistant => "assistant",
                Place::Tool => "tool",
            };
            ctx.loss(
                pat,
                LossKind::Dropped,
                format!("mistral {role} messages carry no {} parts", p.kind()),
            );
            continue;
        }
        if let Some(enc) = encode_chunk(p, &pat, ctx) {
            out.push(enc);
        }
    }
    if out.is_empty() {
        // Only empty text: the empty string, as Mistral itself writes it.
        return empty.then(|| TextOrParts::Text(String::new()));
    }
    if !v.flag(F, "parts") && out.len() == 1 {
        if let Some(w::ContentChunk::Text(t)) = out.first() {
            if t.extra.is_empty() {
                if let Some(w::ContentChunk::Text(t)) = out.pop() {
                    return Some(TextOrParts::Text(t.text));
                }
            }
        }
    }
    Some(TextOrParts::Parts(out))
}

/// A text part with no text and nothing of Mistral's own on it.
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

fn text_chunk(text: String) -> w::ContentChunk {
    w::ContentChunk::Text(w::TextChunk {
        text,
        extra: Extra::new(),
    })
}

/// One content chunk. Tool calls and results are handled by the callers.
fn encode_chunk(p: Part, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentChunk> {
    part_meta(p.meta(), at, ctx);
    match p {
        Part::Text(t) => Some(w::ContentChunk::Text(w::TextChunk {
            text: t.text,
            extra: ctx.extra(&t.meta.vendor, w::TextChunk::FIELDS, at),
        })),
        Part::Refusal(t) => {
            let _ = ctx.vendor_fields(&t.meta.vendor, at);
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "mistral has no refusal: it is sent as text",
            );
            Some(text_chunk(t.text))
        }
        Part::Json(Json { value, meta }) => {
            let _ = ctx.vendor_fields(&meta.vendor, at);
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "a JSON part is sent as its JSON text",
            );
            Some(text_chunk(value.to_string()))
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
                        format!("mistral images take a URL, not a file id (`{file_id}`)"),
                    );
                    return None;
                }
                Source::Text { .. } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        "an image given as text has no form in mistral",
                    );
                    return None;
                }
            };
            if let Some(name) = &m.name {
                ctx.loss(
                    format!("{at}/name"),
                    LossKind::Dropped,
                    format!("mistral images have no name (`{name}`)"),
                );
            }
            let image_url = if m.meta.vendor.flag(F, "image_url_string") && detail.is_none() {
                w::ImageUrlValue::Url(url)
            } else {
                w::ImageUrlValue::Object(w::ImageUrl {
                    url,
                    detail,
                    extra: Extra::new(),
                })
            };
            Some(w::ContentChunk::ImageUrl(w::ImageUrlChunk {
                image_url,
                extra: extra_from(fields, &vendor, w::ImageUrlChunk::FIELDS, ctx),
            }))
        }
        Part::Audio(m) => {
            let fields = ctx.vendor_fields(&m.meta.vendor, at);
            let input_audio = match m.source {
                Source::Base64 { data } => data,
                Source::Url { url } => url,
                Source::FileId { .. } | Source::Text { .. } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Dropped,
                        "mistral takes audio as base64 or a URL only",
                    );
                    return None;
                }
            };
            Some(w::ContentChunk::InputAudio(w::InputAudioChunk {
                input_audio,
                extra: extra_from(fields, &m.meta.vendor, w::InputAudioChunk::FIELDS, ctx),
            }))
        }
        Part::Document(m) => {
            let fields = ctx.vendor_fields(&m.meta.vendor, at);
            match m.source {
                Source::Url { url } => Some(w::ContentChunk::DocumentUrl(w::DocumentUrlChunk {
                    document_url: url,
                    document_name: m.name,
                    extra: extra_from(fields, &m.meta.vendor, w::DocumentUrlChunk::FIELDS, ctx),
                })),
                Source::Base64 { data } => {
                    Some(w::ContentChunk::DocumentUrl(w::DocumentUrlChunk {
                        document_url: data_url(m.media_type.as_deref(), &data),
                        document_name: m.name,
                        extra: extra_from(fields, &m.meta.vendor, w::DocumentUrlChunk::FIELDS, ctx),
                    }))
                }
                Source::FileId { file_id } => {
                    if let Some(name) = &m.name {
                        ctx.loss(
                            format!("{at}/name"),
                            LossKind::Dropped,
                            format!("mistral file chunks have no name (`{name}`)"),
                        );
                    }
                    Some(w::ContentChunk::File(w::FileChunk {
                        file_id,
                        extra: extra_from(fields, &m.meta.vendor, w::FileChunk::FIELDS, ctx),
                    }))
                }
                Source::Text { text } => {
                    ctx.loss(
                        at.to_owned(),
                        LossKind::Changed,
                        "mistral has no text documents: sent as a text chunk",
                    );
                    Some(text_chunk(text))
                }
            }
        }
        Part::Reasoning(r) => encode_thinking(r, at, ctx),
        Part::Opaque(o) if o.format == F => serde_json::from_value(o.value).ok(),
        Part::Opaque(o) => match opaque_elsewhere(ctx, &o, at) {
            Some(Part::Text(t)) => Some(text_chunk(t.text)),
            _ => None,
        },
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

/// A `thinking` chunk; the chunk list of Mistral's own reasoning comes back as it came.
fn encode_thinking(r: model::Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ContentChunk> {
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
                    "mistral has no reasoning summary: the summary is sent as thinking",
                );
                view.summary.join("\n\n")
            }
            None => {
                ctx.loss(
                    at.to_owned(),
                    LossKind::Dropped,
                    "reasoning without text has no place in mistral",
                );
                return None;
            }
        }
    };
    let v = &r.meta.vendor;
    let kept: Option<Vec<w::ContentChunk>> = v
        .hint(F, "thinking_chunks")
        .and_then(|c| serde_json::from_value(c.clone()).ok());
    let thinking = match kept {
        Some(chunks)
            if w::thinking_text(&w::ThinkingChunk {
                thinking: chunks.clone(),
                closed: None,
                extra: Extra::new(),
            }) == text =>
        {
            chunks
        }
        _ => vec![text_chunk(text)],
    };
    Some(w::ContentChunk::Thinking(w::ThinkingChunk {
        thinking,
        closed: v.hint(F, "closed").and_then(Value::as_bool),
        extra: ctx.extra(v, w::ThinkingChunk::FIELDS, at),
    }))
}

/// The parts of an assistant turn, encoded.
struct EncodedTurn {
    role: Option<String>,
    content: Option<TextOrParts<w::ContentChunk>>,
    tool_calls: Option<Vec<w::ToolCall>>,
    prefix: Option<bool>,
    extra: Extra,
}

fn encode_turn(m: Message, at: &str, ctx: &mut Ctx<'_>) -> EncodedTurn {
    let v = m.vendor;
    let mut fields = ctx.vendor_fields(&v, at);
    let mut content = Vec::new();
    let mut calls = Vec::new();
    for (j, p) in m.content.into_iter().enumerate() {
        match p {
            Part::ToolCall(c) => calls.push(encode_call(c, &format!("{at}/content/{j}"), ctx)),
            other => content.push((j, other)),
        }
    }
    let content = encode_content(content, &v, at, Place::Assistant, ctx);
    let role = v.hint(F, "role").and_then(Value::as_str).map(str::to_owned);
    let prefix = fields.shift_remove("prefix").and_then(|p| p.as_bool());
    EncodedTurn {
        role,
        content,
        tool_calls: (!calls.is_empty()).then_some(calls),
        prefix,
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
        Arguments::Text(t) => wire_types::Arguments::Text(t),
        Arguments::Value(val) if v.flag(F, "args_json") => wire_types::Arguments::Json(val),
        Arguments::Value(val) => wire_types::Arguments::Text(val.to_string()),
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
        function: w::FunctionCall {
            name: c.name,
            arguments,
            extra: Extra::from(function_extra),
        },
        index: v
            .hint(F, "index")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok()),
        extra: extra_from(fields, v, w::ToolCall::FIELDS, ctx),
    }
}

/// A `tool` message for a result. Mistral takes no images in tool results (providers.md
/// §10.10): another format's images go to `moved` with their neutral pointers (the
/// caller says where they go); Mistral's own chunk list is written back as it came.
fn encode_result(
    r: ToolResult,
    at: &str,
    moved: &mut Vec<(String, w::ContentChunk)>,
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
    // A structured result is the tool's answer: its JSON text is the content.
    let mut parts = Vec::with_capacity(r.content.len());
    for (k, p) in r.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{k}");
        if matches!(p, Part::Image(_)) && !v.flag(F, "parts") {
            if let Some(chunk) = encode_chunk(p, &pat, ctx) {
                moved.push((pat, chunk));
            }
            continue;
        }
        parts.push((
            k,
            match p {
                Part::Json(j) => {
                    part_meta(&j.meta, &pat, ctx);
                    let _ = ctx.vendor_fields(&j.meta.vendor, &pat);
                    Part::Text(Text {
                        text: j.value.to_string(),
                        meta: PartMeta::default(),
                    })
                }
                other => other,
            },
        ));
    }
    let mut content = encode_content(parts, v, at, Place::Tool, ctx);
    if r.is_error {
        ctx.loss(
            format!("{at}/is_error"),
            LossKind::Changed,
            "mistral has no error flag on tool results: the text is prefixed `Error: `",
        );
        // A text that already says so gets no second `Error: `.
        content = Some(match content {
            None => TextOrParts::Text("Error: ".to_owned()),
            Some(TextOrParts::Text(t)) if t.starts_with("Error:") => TextOrParts::Text(t),
            Some(TextOrParts::Text(t)) => TextOrParts::Text(format!("Error: {t}")),
            Some(TextOrParts::Parts(mut p)) => {
                match p.first_mut() {
                    Some(w::ContentChunk::Text(t)) if t.text.starts_with("Error:") => {}
                    Some(w::ContentChunk::Text(t)) => t.text.insert_str(0, "Error: "),
                    _ => p.insert(0, text_chunk("Error: ".to_owned())),
                }
                TextOrParts::Parts(p)
            }
        });
    }
    w::Message::Tool(w::ToolMessage {
        content: content.unwrap_or(TextOrParts::Text(String::new())),
        tool_call_id: Some(r.call_id),
        name: if v.flag(F, "no_name") { None } else { r.name },
        extra: extra_from(fields, v, w::ToolMessage::FIELDS, ctx),
    })
}

/// Encodes a neutral response as a Mistral chat response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let same = v.format == Some(F);
    let mut fields = ctx.vendor_fields(&v, "");
    let object = if same {
        v.hint(F, "object")
            .and_then(Value::as_str)
            .map(str::to_owned)
    } else {
        Some("chat.completion".to_owned())
    };
    let created = resp
        .created
        .or_else(|| fields.shift_remove("created").and_then(|c| c.as_u64()));
    let mut choices = Vec::with_capacity(resp.choices.len());
    for (i, c) in resp.choices.into_iter().enumerate() {
        choices.push(encode_choice(c, i, ctx));
    }
    Ok(w::Response {
        id: resp.id,
        object,
        created,
        model: resp.model,
        choices,
        usage: resp.usage.map(|u| encode_usage(u, ctx)),
        extra: extra_from(fields, &v, w::Response::FIELDS, ctx),
    })
}

fn encode_choice(c: Choice, i: usize, ctx: &mut Ctx<'_>) -> w::Choice {
    let at = format!("/choices/{i}");
    let mut fields = ctx.vendor_fields(&c.vendor, &at);
    let same = c.vendor.format == Some(F) || c.message.vendor.format == Some(F);
    let t = encode_turn(c.message, &format!("{at}/message"), ctx);
    let message = w::ResponseMessage {
        role: t.role.or_else(|| (!same).then(|| "assistant".to_owned())),
        content: t.content,
        tool_calls: t.tool_calls,
        prefix: t.prefix,
        extra: t.extra,
    };
    let index = c
        .vendor
        .hint(F, "index")
        .and_then(Value::as_u64)
        .and_then(|x| u32::try_from(x).ok())
        .or_else(|| (!same).then_some(i as u32));
    let logprobs = fields.shift_remove("logprobs");
    let finish_reason = c
        .stop_reason
        .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    let mut extra = extra_from(fields, &c.vendor, w::Choice::FIELDS, ctx);
    if finish_reason.is_none() && c.vendor.flag(F, "finish_null") {
        extra.mark_null("finish_reason");
    }
    w::Choice {
        index,
        message,
        finish_reason,
        logprobs,
        extra,
    }
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    // `finish_reason` is a closed set: `stop`, `length`, `model_length`, `error`,
    // `tool_calls`. A content filter (or refusal) ended the answer before its natural
    // end and the SDK has no value for it: `error`, so that a client does not take the
    // answer as complete. A pause and an unknown reason become `stop`.
    let (reason, said) = match r.kind {
        StopKind::EndTurn | StopKind::StopSequence => return w::FinishReason::Stop,
        StopKind::MaxTokens => return w::FinishReason::Length,
        StopKind::ToolUse => return w::FinishReason::ToolCalls,
        StopKind::Error => return w::FinishReason::Error,
        StopKind::ContentFilter => (w::FinishReason::Error, "error"),
        StopKind::Pause | StopKind::Other => (w::FinishReason::Stop, "stop"),
    };
    ctx.loss(
        at.to_owned(),
        LossKind::Changed,
        format!(
            "stop reason `{}` has no mistral equivalent: sent as `{said}`",
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
                format!("mistral reports no {} ({n})", key.replace('_', " ")),
            );
        }
    }
    let details = fields.shift_remove("prompt_tokens_details");
    let prompt_tokens_details = if details.is_some()
        || u.cached_input_tokens.is_some()
        || u.vendor.flag(F, "prompt_details")
    {
        let mut d: w::PromptTokensDetails = details
            .and_then(|d| serde_json::from_value(d).ok())
            .unwrap_or_default();
        d.cached_tokens = u.cached_input_tokens;
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
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, ctx),
    }
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
    fn openai_ids_are_rewritten_to_nine_alphanumerics() {
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_abc", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "D681PevKs", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_abc", "content": "1"},
            {"role": "tool", "tool_call_id": "D681PevKs", "content": "2"}]});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        let m = &out.value["messages"];
        let new = m[0]["tool_calls"][0]["id"].as_str().unwrap();
        assert_eq!(new.len(), 9);
        assert!(new.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(m[1]["tool_call_id"], new);
        assert_eq!(m[1]["name"], "f");
        assert_eq!(m[0]["tool_calls"][1]["id"], "D681PevKs");
        assert_eq!(m[2]["tool_call_id"], "D681PevKs");
        assert_eq!(out.ids.get("call_abc"), new);
        assert_eq!(out.losses[0].path, "/messages/0/tool_calls/0/id");
        assert!(
            out.losses
                .iter()
                .all(|l| l.kind == LossKind::Changed && l.detail.contains("call_abc"))
        );
    }

    #[test]
    fn tool_choice_any_is_required() {
        let body = json!({"model": "m", "messages": [], "tool_choice": "any"});
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        assert_eq!(d.tool_choice, Some(ToolChoice::Required));
        let body = json!({"model": "m", "messages": [], "tool_choice": "required"});
        let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(out.value["tool_choice"], "required");
        let body = json!({"model": "m", "messages": [], "tool_choice": "required"});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(out.value["tool_choice"], "any");
    }

    #[test]
    fn seed_and_top_k() {
        let body = json!({"model": "m", "messages": [], "seed": -1});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert!(out.value.get("random_seed").is_none());
        // At the neutral `/settings/seed`, which is OpenAI's `seed`.
        assert_eq!(out.losses[0].path, "/seed");
        assert_eq!(out.losses[0].kind, LossKind::Dropped);
        let body = json!({"model": "m", "messages": [], "random_seed": 7});
        let out = convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap();
        assert_eq!(out.value["seed"], 7);
    }

    #[test]
    fn thinking_chunks_round_trip_and_travel_as_reasoning() {
        let body = json!({"model": "m", "messages": [{"role": "assistant", "content": [
            {"type": "thinking", "thinking": [
                {"type": "text", "text": "first "},
                {"type": "reference", "reference_ids": [1]},
                {"type": "text", "text": "second"}], "closed": true},
            {"type": "text", "text": "answer"}]}]});
        let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(out.value, body);
        assert!(out.losses.is_empty());
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        match &d.messages[0].content[0] {
            Part::Reasoning(r) => assert_eq!(r.text.as_deref(), Some("first second")),
            other => panic!("not reasoning: {other:?}"),
        }
    }

    #[test]
    fn finish_reasons_map_by_kind() {
        for (raw, kind, openai) in [
            ("stop", StopKind::EndTurn, "stop"),
            ("length", StopKind::MaxTokens, "length"),
            ("model_length", StopKind::MaxTokens, "length"),
            ("tool_calls", StopKind::ToolUse, "tool_calls"),
            ("error", StopKind::Error, "error"),
        ] {
            let resp = json!({"id": "x", "model": "m", "choices": [{"index": 0,
                "message": {"role": "assistant", "content": "hi"}, "finish_reason": raw}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}});
            let d = crate::decode_response(&resp.to_string(), F).unwrap().value;
            assert_eq!(
                d.choices[0].stop_reason.as_ref().map(|s| s.kind),
                Some(kind)
            );
            let out =
                convert_response_value(&resp, F, Format::OpenaiChat, &Options::default()).unwrap();
            assert_eq!(out.value["choices"][0]["finish_reason"], openai);
        }
    }

    /// Every request and response fixture of every format, encoded as Mistral, reads back
    /// with the wire types and validates (Mistral has no official schema to check
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

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn losses_at<'l>(losses: &'l [crate::Loss], path: &str) -> Vec<&'l crate::Loss> {
        losses.iter().filter(|l| l.path == path).collect()
    }

    /// An Anthropic request whose tool result carries an image; with `then_user`, the user
    /// says more right after the result (a neutral user message after the tool message).
    fn anthropic_result_with_image(then_user: bool) -> Value {
        let mut blocks = vec![
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "text", "text": "the photo"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}),
        ];
        if then_user {
            blocks.push(json!({"type": "text", "text": "thanks"}));
        }
        json!({"model": "c", "max_tokens": 10, "messages": [
            {"role": "user", "content": "show me"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "photo", "input": {}}]},
            {"role": "user", "content": blocks}]})
    }

    #[test]
    fn seed_losses_point_at_random_seed() {
        let body = json!({"model": "m", "messages": [], "random_seed": 7});
        let out = convert_request_value(&body, F, Format::Anthropic, &Options::default()).unwrap();
        let l = losses_at(&out.losses, "/random_seed");
        assert_eq!(l.len(), 1, "{:?}", out.losses);
        assert_eq!(l[0].kind, LossKind::Dropped);
    }

    #[test]
    fn stop_kinds_map_into_the_closed_set() {
        for (kind, expected, lossy) in [
            (StopKind::EndTurn, "stop", false),
            (StopKind::StopSequence, "stop", false),
            (StopKind::MaxTokens, "length", false),
            (StopKind::ToolUse, "tool_calls", false),
            (StopKind::Error, "error", false),
            (StopKind::ContentFilter, "error", true),
            (StopKind::Pause, "stop", true),
            (StopKind::Other, "stop", true),
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
            assert_eq!(
                out.value["choices"][0]["finish_reason"], expected,
                "{kind:?}"
            );
            let losses = losses_at(&out.losses, "/choices/0/stop_reason");
            assert_eq!(losses.len(), usize::from(lossy), "{kind:?}");
            assert!(losses.iter().all(|l| l.kind == LossKind::Changed));
        }
        // Raw values of other formats never reach the closed set.
        let gemini = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "…"}]},
            "finishReason": "SAFETY"}]});
        let out = convert_response_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
        assert_eq!(out.value["choices"][0]["finish_reason"], "error");
        let l = losses_at(&out.losses, "/candidates/0/finishReason");
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].kind, LossKind::Changed);
        assert!(l[0].detail.contains("`SAFETY`"), "{}", l[0].detail);
        let anthropic = json!({"id": "msg_1", "type": "message", "role": "assistant",
            "model": "c", "content": [{"type": "text", "text": "…"}], "stop_reason": "pause_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        let out =
            convert_response_value(&anthropic, Format::Anthropic, F, &Options::default()).unwrap();
        assert_eq!(out.value["choices"][0]["finish_reason"], "stop");
        assert_eq!(losses_at(&out.losses, "/stop_reason").len(), 1);
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
    fn images_of_results_join_the_next_user_message_or_are_dropped() {
        let image = json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}});
        // The user speaks right after the result: the image goes first in that message.
        let out = convert_request_value(
            &anthropic_result_with_image(true),
            Format::Anthropic,
            F,
            &Options::default(),
        )
        .unwrap();
        let m = &out.value["messages"];
        assert_eq!(m[2]["role"], "tool");
        assert_eq!(m[2]["content"], "the photo");
        // Between the result and the user: the model's turn Mistral requires.
        assert_eq!(m[3], json!({"role": "assistant", "content": BRIDGE}));
        assert_eq!(
            m[4],
            json!({"role": "user", "content": [image, {"type": "text", "text": "thanks"}]})
        );
        assert_eq!(m.as_array().map(Vec::len), Some(5));
        let l = losses_at(&out.losses, "/messages/2/content/0/content/1");
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].kind, LossKind::Moved);
        let bridged: Vec<_> = out
            .losses
            .iter()
            .filter(|l| l.detail.contains("is inserted before it"))
            .collect();
        assert_eq!(bridged.len(), 1, "{:?}", out.losses);
        assert_eq!(bridged[0].kind, LossKind::Changed);
        // The Anthropic user turn that held both the result and the words after it.
        assert_eq!(bridged[0].path, "/messages/2");
        // The results end the conversation: a user message may not follow them.
        let out = convert_request_value(
            &anthropic_result_with_image(false),
            Format::Anthropic,
            F,
            &Options::default(),
        )
        .unwrap();
        let m = &out.value["messages"];
        assert_eq!(m.as_array().map(Vec::len), Some(3));
        assert_eq!(m[2]["content"], "the photo");
        let l = losses_at(&out.losses, "/messages/2/content/0/content/1");
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].kind, LossKind::Dropped);
        // Mistral's own chunks in a tool message stay where they were.
        let own = json!({"model": "m", "messages": [
            {"role": "tool", "tool_call_id": "abcdefghi", "name": "photo", "content": [
                {"type": "text", "text": "the photo"}, image]}]});
        let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
        assert!(same.losses.is_empty());
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
        // Mistral's own empty text, as a string or a chunk, comes back as it was.
        let own = json!({"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": ""},
                {"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "abcdefghi",
                "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]});
        let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
        assert!(same.losses.is_empty());
    }
}
