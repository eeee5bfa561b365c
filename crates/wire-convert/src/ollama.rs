//! Ollama native chat (`POST /api/chat`) ↔ the neutral model.
//!
//! * Content is one plain string: the neutral text parts of a message are joined with
//!   `\n` (a part boundary is not content, so no loss); an empty text part (a Gemini
//!   signature-only part, say) adds nothing, not even a line break. Images travel as raw
//!   base64 in `images` and decode to [`Source::Base64`] image parts; Ollama never says
//!   which media type, so it is read from the bytes' signature (PNG, JPEG, GIF, WebP;
//!   none for anything else) — the encoder writes no media type, so nothing needs
//!   giving back. An image by URL or file id cannot be sent (Ollama wants the bytes and
//!   nothing is fetched), nor can audio or documents: `dropped` losses. Decoded, a
//!   message is its reasoning (`thinking`), its text, its images, its calls.
//! * Tool calls carry object arguments. JSON-text arguments are parsed; text that is not
//!   JSON is sent as `{"invalid_json": <text>}`, a non-object value as `{"value": …}`
//!   (`{"input": …}` for a tool whose schema was wrapped), `null` as `{}`, all `changed`
//!   losses; empty text is `{}`.
//! * Call ids are optional in Ollama: a call without one gets a deterministic
//!   `openai_chat::synthetic_id` (position and name) on decode, and a synthetic id is left out on
//!   encode. Each result is one `role: tool` message with `tool_name`. A result without
//!   `tool_call_id` is matched to the first unanswered call of the last assistant turn
//!   with its `tool_name` (or to the first unanswered call when it has no name); a
//!   result nothing matches gets a synthetic id of its own. The encoder writes
//!   `tool_call_id` only when that matching would not find the right call again (or the
//!   source had the field, or the result has no name): Ollama's SDK message type has no
//!   such field, the server and its templates tie results by name and order.
//! * No error flag on results: a failed result's text is prefixed `Error: ` (`changed`;
//!   a text that already starts with `Error:` keeps its text, the loss is still
//!   reported). Ollama takes no images in tool results (providers.md §10.10): another
//!   format's result images go to a user message right after the results (a `moved`
//!   loss each); images Ollama itself put on a `tool` message (hint `images`) go back
//!   there.
//! * Assistant `thinking` ↔ [`Reasoning`](crate::model::Reasoning) with source `ollama` (no signature; foreign
//!   signatures are dropped with a loss). A reasoning summary without text is sent as
//!   thinking (`changed`).
//! * Settings live in `options`: `temperature`, `top_p`, `top_k`, `seed`, `stop`,
//!   `presence_penalty`, `frequency_penalty`, and `num_predict` ↔ `max_tokens`; every
//!   other option is a vendor field of its own, `options.<key>`, so that another format
//!   reports each option it drops at `/options/<key>`. Ollama streams unless `stream`
//!   says otherwise: an absent `stream` decodes as `stream: true` (hint `no_stream`),
//!   and a request from another format (which answers with one JSON body unless asked
//!   to stream) gets `stream` written out, `false` unless it asked to stream.
//!   `format: "json"` ↔ [`OutputFormat::JsonObject`], a
//!   schema ↔ [`OutputFormat::JsonSchema`]; `think` (bool or level) ↔
//!   [`ReasoningConfig`] (`enabled` / `effort`; a token budget becomes `true`, a
//!   `changed` loss).
//! * No `tool_choice`: `auto` is the default; `none` is honoured by leaving the tools out
//!   (a `dropped` loss per tool); `required`, a named tool and an allowed list cannot be
//!   said (a `dropped` loss). No parallel switch: `parallel_tool_calls: false` is a loss.
//! * Responses: `done_reason` `stop` → end of turn (tool use when the message calls
//!   tools), `length` → max tokens, others kept raw (and written back raw). Encoding
//!   another format's stop reason: end of turn, stop sequence and tool use → `stop`, max
//!   tokens → `length`; a content filter, a pause, an error or an unknown reason has no
//!   value of its own and is sent as `stop` (a `changed` loss). `done: true` without a
//!   reason (older servers) is the end of the turn. `prompt_eval_count` ↔ input tokens, `eval_count` ↔
//!   output tokens; the durations and `created_at` are vendor fields (`done` is a hint:
//!   the stop reason carries its meaning). One message only: further choices are
//!   dropped with a loss.
//!
//! Hints this module writes and reads: `role` (the role as spelled, when not lower
//! case), `no_content` (no `content` field), `images_empty` (`images: []`), `index`
//! (`function.index` of a call), `type` (a call had `type: "function"`), `call_id` (a
//! result had `tool_call_id`), `no_tool_name` (a result without `tool_name`), `orphan` (a
//! result no call matched: its synthetic id is left out again), `no_type`
//! (a tool without `type`), `options` (the request had `options`), `no_stream` (the
//! request had no `stream`), `images` (a `tool` message had images), `no_message` (a
//! response without `message`), `done` (the response's `done`), `no_done_reason` (a
//! finished response without `done_reason`), `function_nulls` / `tool_nulls` (explicit
//! nulls of a call's `function` / of a tool's outer object), `nulls`.

use crate::ctx::{extra_from, vendor_from_extra};
use crate::model::{
    self, Arguments, Choice, Dialect, Media, Message, OutputFormat, Part, PartMeta,
    ReasoningConfig, Role, Settings, Source, StopKind, StopReason, Tool, ToolCall, ToolChoice,
    ToolDef, ToolResult, Usage, Vendor,
};
use crate::openai_chat::synthetic_id;
use crate::util::{self, drop_cache, opaque_elsewhere};
use crate::{Ctx, Error, LossKind, schema};
use serde_json::{Map, Value};
use wire_types::ollama as w;
use wire_types::{Extra, Format, MaybeRaw};

const F: Format = Format::Ollama;

/// The prefix of the vendor fields that hold the `options` with no neutral setting.
const OPTION: &str = "options.";

// ---------------------------------------------------------------------------------------
// Matching results to calls

/// The calls of the last assistant turn, for results that carry no call id. The decoder
/// and the encoder run the same matching, so the encoder knows when a result needs its
/// id written out.
#[derive(Debug, Default)]
struct Pending {
    /// (call id, tool name, answered)
    calls: Vec<(String, String, bool)>,
}

impl Pending {
    fn reset(&mut self, calls: Vec<(String, String)>) {
        self.calls = calls.into_iter().map(|(i, n)| (i, n, false)).collect();
    }

    /// The position of the call a result would be matched to.
    fn find(&self, id: Option<&str>, name: Option<&str>) -> Option<usize> {
        match (id, name) {
            (Some(id), _) => self.calls.iter().position(|c| c.0 == id),
            (None, Some(name)) => self.calls.iter().position(|c| !c.2 && c.1 == name),
            (None, None) => self.calls.iter().position(|c| !c.2),
        }
    }

    /// The call id a result answers (marking that call answered).
    fn answer(&mut self, id: Option<&str>, name: Option<&str>) -> Option<String> {
        let found = self.find(id, name);
        if let Some(c) = found.and_then(|p| self.calls.get_mut(p)) {
            c.2 = true;
            return Some(c.0.clone());
        }
        id.map(str::to_owned)
    }

    /// The call id a result without `tool_call_id` would be matched to.
    fn peek(&self, name: Option<&str>) -> Option<&str> {
        self.find(None, name)
            .and_then(|p| self.calls.get(p))
            .map(|c| c.0.as_str())
    }
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes an `/api/chat` request.
pub fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request {
        model: Some(req.model),
        ..Default::default()
    };
    let mut v = vendor_from_extra(F, &req.extra, &[]);

    let mut pending = Pending::default();
    for (i, m) in req.messages.into_iter().enumerate() {
        decode_message(m, i, &mut out.messages, &mut pending, ctx)?;
    }

    for (k, t) in req.tools.into_iter().flatten().enumerate() {
        ctx.map(format_args!("/tools/{k}"), format_args!("/tools/{k}"));
        out.tools.push(decode_tool(t));
    }

    let mut s = Settings::default();
    if let Some(options) = req.options {
        v.set_hint(F, "options", true);
        // Each option with no neutral setting is a vendor field of its own
        // (`options.<key>`), so that another format reports exactly the options it drops.
        for (key, val) in decode_options(options, &mut s, ctx) {
            let name = format!("{OPTION}{key}");
            let mut neutral = String::new();
            wire_types::push_token(&mut neutral, &name);
            let mut source = "/options".to_owned();
            wire_types::push_token(&mut source, &key);
            ctx.map(neutral, source);
            v.set_field(F, &name, val);
        }
    }
    // Ollama streams unless told otherwise: an absent `stream` means streaming.
    s.stream = match req.stream {
        Some(b) => Some(b),
        None => {
            v.set_hint(F, "no_stream", true);
            Some(true)
        }
    };
    ctx.map("/settings/stream", "/stream");
    match req.think {
        None => {}
        Some(w::Think::Enabled(b)) => {
            s.reasoning = Some(ReasoningConfig {
                enabled: Some(b),
                ..Default::default()
            })
        }
        Some(w::Think::Level(l)) if l.is_known() => {
            s.reasoning = Some(ReasoningConfig {
                effort: Some(l.as_str().to_owned()),
                ..Default::default()
            })
        }
        Some(other) => v.set_field(F, "think", wire_types::to_value(&other)),
    }
    ctx.map("/settings/reasoning", "/think");
    out.settings = s;

    out.output_format = match req.format {
        None => None,
        Some(w::Format::Named(n)) if n == "json" => Some(OutputFormat::JsonObject),
        Some(w::Format::Schema(schema)) => Some(OutputFormat::JsonSchema {
            name: None,
            schema: Value::Object(schema),
            strict: None,
        }),
        Some(other) => {
            v.set_field(F, "format", wire_types::to_value(&other));
            None
        }
    };
    ctx.map("/output_format", "/format");

    if let Some(k) = req.keep_alive {
        v.set_field(F, "keep_alive", k);
    }
    if let Some(l) = req.logprobs {
        v.set_field(F, "logprobs", Value::Bool(l));
    }
    if let Some(t) = req.top_logprobs {
        v.set_field(F, "top_logprobs", Value::from(t));
    }
    out.vendor = v;
    Ok(out)
}

/// Takes the neutral settings out of `options`; returns the options left.
fn decode_options(
    mut options: Map<String, Value>,
    s: &mut Settings,
    ctx: &mut Ctx<'_>,
) -> Map<String, Value> {
    let mut take = |key: &str, neutral: &str, ok: &dyn Fn(&Value) -> bool| -> Option<Value> {
        if options.get(key).is_some_and(ok) {
            ctx.map(
                format_args!("/settings/{neutral}"),
                format_args!("/options/{key}"),
            );
            options.shift_remove(key)
        } else {
            None
        }
    };
    let number = |v: &Value| v.is_number();
    s.temperature = take("temperature", "temperature", &number).and_then(as_number);
    s.top_p = take("top_p", "top_p", &number).and_then(as_number);
    s.top_k = take("top_k", "top_k", &|v| v.is_u64()).and_then(|v| v.as_u64());
    s.seed = take("seed", "seed", &|v| v.is_i64()).and_then(|v| v.as_i64());
    s.stop = take("stop", "stop", &|v| {
        v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    })
    .map(|v| match v {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    });
    s.max_tokens = take("num_predict", "max_tokens", &|v| v.is_u64()).and_then(|v| v.as_u64());
    s.presence_penalty = take("presence_penalty", "presence_penalty", &number).and_then(as_number);
    s.frequency_penalty =
        take("frequency_penalty", "frequency_penalty", &number).and_then(as_number);
    options
}

fn as_number(v: Value) -> Option<serde_json::Number> {
    match v {
        Value::Number(n) => Some(n),
        _ => None,
    }
}

fn decode_message(
    m: w::Message,
    i: usize,
    out: &mut Vec<Message>,
    pending: &mut Pending,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let at = format!("/messages/{i}");
    let spelled = m.role.as_str().to_owned();
    let role = match w::Role::from(spelled.to_ascii_lowercase()) {
        w::Role::System => Role::System,
        w::Role::User => Role::User,
        w::Role::Assistant => Role::Assistant,
        w::Role::Tool => {
            decode_result(m, &spelled, out, pending, &at, ctx);
            return Ok(());
        }
        _ => {
            return Err(Error::invalid(
                format!("{at}/role"),
                format!("unknown role `{spelled}`"),
            ));
        }
    };
    let n = out.len();
    let msg = decode_turn(m, role, &spelled, &format!("/messages/{n}"), &at, ctx);
    if role == Role::Assistant {
        pending.reset(
            msg.content
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall(c) => Some((c.id.clone(), c.name.clone())),
                    _ => None,
                })
                .collect(),
        );
    }
    out.push(msg);
    Ok(())
}

/// A system, user or assistant message (or a response message) at neutral pointer
/// `neutral`, source pointer `at`.
fn decode_turn(
    m: w::Message,
    role: Role,
    spelled: &str,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    ctx.map(neutral.to_owned(), at.to_owned());
    let mut msg = Message::new(role, Vec::new());
    msg.vendor = vendor_from_extra(F, &m.extra, &[]);
    if spelled != role_name(role) {
        msg.vendor.set_hint(F, "role", spelled);
    }
    let assistant = role == Role::Assistant;
    if let Some(t) = m.thinking {
        if assistant {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/thinking"),
            );
            msg.content.push(Part::Reasoning(model::Reasoning {
                text: Some(t),
                source: Some(F),
                ..Default::default()
            }));
        } else {
            msg.vendor.set_field(F, "thinking", Value::String(t));
        }
    }
    match m.content {
        None => msg.vendor.set_hint(F, "no_content", true),
        Some(c) if c.is_empty() => {}
        Some(c) => {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/content"),
            );
            msg.content.push(Part::text(c));
        }
    }
    if let Some(images) = m.images {
        if images.is_empty() {
            msg.vendor.set_hint(F, "images_empty", true);
        }
        for (j, data) in images.into_iter().enumerate() {
            ctx.map(
                format_args!("{neutral}/content/{}", msg.content.len()),
                format_args!("{at}/images/{j}"),
            );
            msg.content.push(image(data));
        }
    }
    if let Some(calls) = m.tool_calls {
        if assistant {
            for (c, call) in calls.into_iter().enumerate() {
                ctx.map(
                    format_args!("{neutral}/content/{}", msg.content.len()),
                    format_args!("{at}/tool_calls/{c}"),
                );
                map_call(
                    ctx,
                    &format!("{neutral}/content/{}", msg.content.len()),
                    &format!("{at}/tool_calls/{c}"),
                );
                // `/choices/0/message` → ids `call_0_<c>_<name>`.
                let id_base = neutral.strip_suffix("/message").unwrap_or(neutral);
                msg.content
                    .push(Part::ToolCall(decode_call(call, id_base, c)));
            }
        } else {
            msg.vendor
                .set_field(F, "tool_calls", wire_types::to_value(&calls));
        }
    }
    if let Some(n) = m.tool_name {
        msg.vendor.set_field(F, "tool_name", Value::String(n));
    }
    if let Some(id) = m.tool_call_id {
        msg.vendor.set_field(F, "tool_call_id", Value::String(id));
    }
    msg
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System | Role::Developer => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn image(data: String) -> Part {
    Part::Image(Media {
        media_type: sniff_image(&data).map(str::to_owned),
        source: Source::Base64 { data },
        name: None,
        meta: PartMeta::default(),
    })
}

/// The media type of base64 image bytes, read from their first bytes (Ollama never says
/// which): PNG, JPEG, GIF or WebP; `None` for anything else.
fn sniff_image(data: &str) -> Option<&'static str> {
    let head = base64_head(data);
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.get(..4) == Some(b"RIFF".as_slice())
        && head.get(8..12) == Some(b"WEBP".as_slice())
    {
        Some("image/webp")
    } else {
        None
    }
}

/// The first (up to 12) bytes of base64 text (standard or URL-safe alphabet), decoded
/// until the first character that is not a base64 digit.
fn base64_head(data: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(12);
    let (mut bits, mut n) = (0u32, 0u32);
    for c in data.trim_start().bytes().take(16) {
        let d = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => break,
        };
        bits = (bits << 6) | u32::from(d);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push(((bits >> n) & 0xFF) as u8);
            bits &= (1 << n) - 1;
        }
    }
    out
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

fn decode_call(call: w::ToolCall, neutral: &str, c: usize) -> ToolCall {
    let mut v = vendor_from_extra(F, &call.extra, &[]);
    match call.kind.as_deref() {
        None => {}
        Some("function") => v.set_hint(F, "type", true),
        Some(other) => v.set_field(F, "type", Value::String(other.to_owned())),
    }
    let f = call.function;
    for (k, val) in f.extra.fields() {
        v.set_field(F, &format!("function.{k}"), val.clone());
    }
    let nulls: Vec<Value> = f.extra.nulls().iter().map(|n| Value::from(*n)).collect();
    if !nulls.is_empty() {
        v.set_hint(F, "function_nulls", nulls);
    }
    if let Some(ix) = f.index {
        v.set_hint(F, "index", ix);
    }
    let (id, synthetic) = match call.id {
        Some(id) => (id, false),
        None => (synthetic_id(neutral, c, &f.name), true),
    };
    ToolCall {
        id,
        synthetic_id: synthetic,
        name: f.name,
        arguments: util::args_of(f.arguments),
        meta: PartMeta {
            vendor: v,
            ..Default::default()
        },
    }
}

/// A `tool` message: one result, appended to the tool message at the end or a new one.
fn decode_result(
    m: w::Message,
    spelled: &str,
    out: &mut Vec<Message>,
    pending: &mut Pending,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let (n, k) = match out.last() {
        Some(last) if last.role == Role::Tool => (out.len() - 1, last.content.len()),
        _ => (out.len(), 0),
    };
    let neutral = format!("/messages/{n}/content/{k}");
    let mut meta = PartMeta {
        vendor: vendor_from_extra(F, &m.extra, &[]),
        ..Default::default()
    };
    let v = &mut meta.vendor;
    if spelled != "tool" {
        v.set_hint(F, "role", spelled);
    }
    if m.tool_call_id.is_some() {
        v.set_hint(F, "call_id", true);
    }
    if m.tool_name.is_none() {
        v.set_hint(F, "no_tool_name", true);
    }
    let call_id = match pending.answer(m.tool_call_id.as_deref(), m.tool_name.as_deref()) {
        Some(id) => id,
        None => {
            // No call to answer (it was pruned): an id of its own, left out again.
            v.set_hint(F, "orphan", true);
            synthetic_id(
                &format!("/messages/{n}"),
                k,
                m.tool_name.as_deref().unwrap_or("tool"),
            )
        }
    };
    let mut content = Vec::new();
    match m.content {
        None => v.set_hint(F, "no_content", true),
        Some(c) if c.is_empty() => {}
        Some(c) => {
            ctx.map(
                format_args!("{neutral}/content/{}", content.len()),
                format_args!("{at}/content"),
            );
            content.push(Part::text(c));
        }
    }
    if let Some(images) = m.images {
        if images.is_empty() {
            v.set_hint(F, "images_empty", true);
        } else {
            // Ollama's own images on a tool message go back there; another format's
            // images in a result are moved to a user message.
            v.set_hint(F, "images", true);
        }
        for (j, data) in images.into_iter().enumerate() {
            ctx.map(
                format_args!("{neutral}/content/{}", content.len()),
                format_args!("{at}/images/{j}"),
            );
            content.push(image(data));
        }
    }
    if let Some(t) = m.thinking {
        v.set_field(F, "thinking", Value::String(t));
    }
    if let Some(calls) = m.tool_calls {
        v.set_field(F, "tool_calls", wire_types::to_value(&calls));
    }
    let result = ToolResult {
        call_id,
        name: m.tool_name,
        content,
        is_error: false,
        meta,
    };
    if k == 0 {
        ctx.map(format_args!("/messages/{n}"), at.to_owned());
        out.push(Message::new(Role::Tool, Vec::new()));
    }
    ctx.map(neutral, at.to_owned());
    if let Some(last) = out.last_mut() {
        last.content.push(Part::ToolResult(result));
    }
}

fn decode_tool(t: w::Tool) -> Tool {
    let mut v = vendor_from_extra(F, &t.function.extra, &[]);
    for (key, val) in t.extra.fields() {
        v.set_field(F, &format!("$tool.{key}"), val.clone());
    }
    let nulls: Vec<Value> = t.extra.nulls().iter().map(|n| Value::from(*n)).collect();
    if !nulls.is_empty() {
        v.set_hint(F, "tool_nulls", nulls);
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

/// Decodes an `/api/chat` response (a whole response or one stream line).
pub fn decode_response(resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let mut v = vendor_from_extra(F, &resp.extra, &[]);
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
            let mut vendor = Vendor::default();
            let stop = match &resp.done_reason {
                Some(d) => Some(stop_reason(d, calls)),
                // Older servers end with `done: true` and no reason: the turn ended.
                None if resp.done == Some(true) => {
                    vendor.set_hint(F, "no_done_reason", true);
                    Some(StopReason::new(if calls {
                        StopKind::ToolUse
                    } else {
                        StopKind::EndTurn
                    }))
                }
                None => None,
            };
            out.choices.push(Choice {
                message,
                stop_reason: stop,
                vendor,
            });
        }
        None => {
            v.set_hint(F, "no_message", true);
            if let Some(d) = &resp.done_reason {
                v.set_field(F, "done_reason", Value::String(d.as_str().to_owned()));
            }
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
        let (secs, keep) = crate::util::read_timestamp(t);
        out.created = secs;
        if let Some(t) = keep {
            v.set_field(F, "created_at", Value::String(t));
        }
    }
    let mut fields = Map::new();
    crate::util::keep(&mut fields, "total_duration", &resp.total_duration);
    crate::util::keep(&mut fields, "load_duration", &resp.load_duration);
    crate::util::keep(
        &mut fields,
        "prompt_eval_duration",
        &resp.prompt_eval_duration,
    );
    crate::util::keep(&mut fields, "eval_duration", &resp.eval_duration);
    crate::util::keep(&mut fields, "logprobs", &resp.logprobs);
    for (k, val) in fields {
        v.set_field(F, &k, val);
    }
    if let Some(done) = resp.done {
        // Whether this is the last line: the stop reason says what it means.
        v.set_hint(F, "done", done);
    }
    // The response is Ollama's even when nothing needs keeping: the encoder then leaves
    // out what it would add for a foreign response.
    v.format = Some(F);
    out.vendor = v;
    Ok(out)
}

fn stop_reason(d: &w::DoneReason, calls: bool) -> StopReason {
    let kind = match d {
        w::DoneReason::Stop if calls => StopKind::ToolUse,
        w::DoneReason::Stop => StopKind::EndTurn,
        w::DoneReason::Length => StopKind::MaxTokens,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: Some(d.as_str().to_owned()),
        format: Some(F),
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// What encoding a conversation carries from message to message.
#[derive(Debug, Default)]
struct State {
    pending: Pending,
}

/// Encodes a neutral request as an `/api/chat` request.
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

    let mut st = State::default();
    let omit_tools = match req.tool_choice {
        None | Some(ToolChoice::Auto) => false,
        Some(ToolChoice::None) => !req.tools.is_empty(),
        Some(ToolChoice::Required) => {
            ctx.loss(
                "/tool_choice",
                LossKind::Dropped,
                "ollama cannot require a tool call (no tool_choice): the model decides",
            );
            false
        }
        Some(ToolChoice::Tool { name }) => {
            ctx.loss(
                "/tool_choice",
                LossKind::Dropped,
                format!(
                    "ollama cannot force a call of `{name}` (no tool_choice): the model decides"
                ),
            );
            false
        }
        Some(ToolChoice::Allowed { .. }) => {
            ctx.loss(
                "/tool_choice",
                LossKind::Dropped,
                "ollama cannot restrict the callable tools (no tool_choice): every tool is offered",
            );
            false
        }
    };
    let tools = if omit_tools {
        for k in 0..req.tools.len() {
            ctx.loss(
                format!("/tools/{k}"),
                LossKind::Dropped,
                "tool_choice is `none` and ollama has no tool_choice: the tools are left out so that none is called",
            );
        }
        None
    } else {
        encode_tools(req.tools, ctx)
    };

    let mut messages = Vec::with_capacity(req.messages.len());
    for (i, m) in req.messages.into_iter().enumerate() {
        encode_message(m, i, &mut messages, &mut st, ctx);
    }

    let s = req.settings;
    let mut options = Map::new();
    let mut put = |k: &str, val: Option<Value>| {
        if let Some(val) = val {
            options.insert(k.to_owned(), val);
        }
    };
    put("temperature", s.temperature.map(Value::Number));
    put("top_p", s.top_p.map(Value::Number));
    put("top_k", s.top_k.map(Value::from));
    put("seed", s.seed.map(Value::from));
    put("stop", s.stop.map(Value::from));
    put("num_predict", s.max_tokens.map(Value::from));
    put("presence_penalty", s.presence_penalty.map(Value::Number));
    put("frequency_penalty", s.frequency_penalty.map(Value::Number));
    let kept: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with(OPTION))
        .cloned()
        .collect();
    for k in kept {
        if let Some(val) = fields.shift_remove(&k) {
            options
                .entry(k.trim_start_matches(OPTION).to_owned())
                .or_insert(val);
        }
    }
    if s.parallel_tool_calls == Some(false) {
        ctx.loss(
            "/parallel_tool_calls",
            LossKind::Dropped,
            "ollama has no switch for parallel tool calls",
        );
    }
    let think = match &s.reasoning {
        Some(r) => encode_think(r, ctx),
        None => None,
    }
    .or_else(|| {
        fields
            .shift_remove("think")
            .and_then(|t| serde_json::from_value(t).ok())
    });
    let format = match req.output_format {
        None => fields
            .shift_remove("format")
            .and_then(|f| serde_json::from_value(f).ok()),
        Some(OutputFormat::Text) => None,
        Some(OutputFormat::JsonObject) => Some(w::Format::Named("json".to_owned())),
        Some(OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        }) => {
            if let Some(name) = name {
                ctx.loss(
                    "/output_format/name",
                    LossKind::Dropped,
                    format!("ollama output schemas have no name (`{name}`)"),
                );
            }
            if strict == Some(false) {
                ctx.loss(
                    "/output_format/strict",
                    LossKind::Changed,
                    "ollama always constrains the output to the schema",
                );
            }
            match schema {
                Value::Object(m) => Some(w::Format::Schema(m)),
                other => {
                    ctx.loss(
                        "/output_format/schema",
                        LossKind::Changed,
                        format!(
                            "ollama takes an object schema, not {other}: any JSON is asked for"
                        ),
                    );
                    Some(w::Format::Named("json".to_owned()))
                }
            }
        }
    };
    let keep_alive = fields.shift_remove("keep_alive");
    let logprobs = fields.shift_remove("logprobs").and_then(|l| l.as_bool());
    let top_logprobs = fields
        .shift_remove("top_logprobs")
        .and_then(|t| t.as_u64())
        .and_then(|t| u32::try_from(t).ok());
    Ok(w::Request {
        model,
        messages,
        tools,
        format,
        options: (!options.is_empty() || v.flag(F, "options")).then_some(options),
        // Ollama streams by default; every other format answers with one JSON body unless
        // asked to stream, so that is said explicitly.
        stream: if s.stream == Some(true) && v.flag(F, "no_stream") {
            None
        } else {
            Some(s.stream.unwrap_or(false))
        },
        keep_alive,
        think,
        logprobs,
        top_logprobs,
        extra: extra_from(fields, &v, w::Request::FIELDS, ctx),
    })
}

/// `think` for neutral reasoning settings.
fn encode_think(r: &ReasoningConfig, ctx: &mut Ctx<'_>) -> Option<w::Think> {
    let at = "/settings/reasoning";
    if r.include == Some(false) {
        ctx.loss(
            format!("{at}/include"),
            LossKind::Dropped,
            "ollama returns the thinking of a thinking model; it cannot be hidden",
        );
    }
    let think = if r.enabled == Some(false) {
        Some(w::Think::Enabled(false))
    } else if let Some(e) = &r.effort {
        Some(match e.as_str() {
            "low" | "medium" | "high" | "max" => w::Think::Level(w::ThinkLevel::from(e.as_str())),
            "none" => w::Think::Enabled(false),
            "minimal" | "xhigh" => {
                let level = if e == "minimal" { "low" } else { "max" };
                ctx.loss(
                    format!("{at}/effort"),
                    LossKind::Changed,
                    format!("ollama has no `{e}` thinking level: sent as `{level}`"),
                );
                w::Think::Level(w::ThinkLevel::from(level))
            }
            other => {
                ctx.loss(
                    format!("{at}/effort"),
                    LossKind::Changed,
                    format!("ollama has no `{other}` thinking level: thinking is switched on"),
                );
                w::Think::Enabled(true)
            }
        })
    } else if r.enabled == Some(true) {
        Some(w::Think::Enabled(true))
    } else {
        r.budget_tokens.map(|b| w::Think::Enabled(b > 0))
    };
    if let Some(b) = r.budget_tokens {
        if !(b <= 0 && think == Some(w::Think::Enabled(false))) {
            ctx.loss(
                format!("{at}/budget_tokens"),
                LossKind::Dropped,
                format!("ollama takes no thinking budget ({b} tokens); thinking is only switched on or off"),
            );
        }
    }
    think
}

/// Encodes tool definitions as an Ollama `tools` array (`None` for none).
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
            "ollama tools have no output schema",
        );
    }
    if def.strict == Some(true) {
        ctx.loss(
            format!("{at}/strict"),
            LossKind::Dropped,
            "ollama tools have no strict mode",
        );
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "ollama has no cache marker",
        );
    }
    let mut extra = Extra::from(tool_extra);
    remark_nulls(&mut extra, &def.vendor, "tool_nulls", w::Tool::FIELDS);
    w::Tool {
        kind,
        function: w::FunctionDef {
            name: def.name,
            description: def.description,
            parameters,
            extra: extra_from(fields, &def.vendor, w::FunctionDef::FIELDS, ctx),
        },
        extra,
    }
}

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
        for (j, p) in m.content.into_iter().enumerate() {
            let pat = format!("{at}/content/{j}");
            match p {
                Part::ToolResult(r) => out.push(encode_result(r, &pat, &mut moved, st, ctx)),
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
        if !moved.is_empty() {
            // Images of the results, in a user message right after them.
            out.push(w::Message {
                role: w::Role::User,
                content: Some(String::new()),
                thinking: None,
                images: Some(moved),
                tool_calls: None,
                tool_name: None,
                tool_call_id: None,
                extra: Extra::new(),
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
    texts: Vec<String>,
    images: Vec<String>,
    thinking: Vec<String>,
    calls: Vec<w::ToolCall>,
}

/// A system, user or assistant message (or the message of a response).
fn encode_turn(m: Message, at: &str, st: &mut State, ctx: &mut Ctx<'_>) -> w::Message {
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
            Part::Reasoning(_) => ctx.loss(
                pat,
                LossKind::Dropped,
                format!("{F} carries reasoning on assistant messages only"),
            ),
            other => gather(other, &pat, &mut g, ctx),
        }
    }
    if assistant {
        st.pending.reset(calls_seen);
    }
    let thinking = if g.thinking.is_empty() {
        fields
            .shift_remove("thinking")
            .and_then(|t| t.as_str().map(str::to_owned))
    } else {
        Some(g.thinking.join("\n"))
    };
    let tool_calls = if g.calls.is_empty() {
        fields
            .shift_remove("tool_calls")
            .and_then(|c| serde_json::from_value(c).ok())
    } else {
        Some(g.calls)
    };
    w::Message {
        role: role_of(&v, m.role),
        content: content_of(g.texts, &v),
        thinking,
        images: images_of(g.images, &v),
        tool_calls,
        tool_name: take_str(&mut fields, "tool_name"),
        tool_call_id: take_str(&mut fields, "tool_call_id"),
        extra: extra_from(fields, &v, w::Message::FIELDS, ctx),
    }
}

fn role_of(v: &Vendor, role: Role) -> w::Role {
    match v.hint(F, "role").and_then(Value::as_str) {
        Some(spelled) => w::Role::from(spelled),
        None => w::Role::from(role_name(role)),
    }
}

fn content_of(texts: Vec<String>, v: &Vendor) -> Option<String> {
    if !texts.is_empty() {
        Some(texts.join("\n"))
    } else if v.flag(F, "no_content") {
        None
    } else {
        Some(String::new())
    }
}

fn images_of(images: Vec<String>, v: &Vendor) -> Option<Vec<String>> {
    if !images.is_empty() {
        Some(images)
    } else if v.flag(F, "images_empty") {
        Some(Vec::new())
    } else {
        None
    }
}

fn encode_reasoning(r: model::Reasoning, at: &str, g: &mut Gathered, ctx: &mut Ctx<'_>) {
    part_meta(&r.meta, at, ctx);
    if r.source == Some(F) && r.text.as_deref() == Some("") {
        // An empty `thinking` of Ollama's own, given back as it came.
        g.thinking.push(String::new());
        return;
    }
    let Some(view) = ctx.reasoning(&r, at) else {
        return;
    };
    match view.text.filter(|t| !t.is_empty()) {
        Some(t) => g.thinking.push(t.to_owned()),
        None if !view.summary.is_empty() => {
            ctx.loss(
                format!("{at}/summary"),
                LossKind::Changed,
                "ollama has no reasoning summary: the summary is sent as thinking",
            );
            g.thinking.push(view.summary.join("\n\n"));
        }
        None => ctx.loss(
            at.to_owned(),
            LossKind::Dropped,
            "reasoning without text has no place in ollama",
        ),
    }
}

/// Drops what a part's metadata carries that Ollama has no place for.
fn part_meta(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    drop_cache(ctx, meta, at);
    let _ = ctx.own(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    let _ = ctx.vendor_fields(&meta.vendor, at);
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
            part_meta(&t.meta, at, ctx);
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "ollama has no refusal: it is sent as text",
            );
            g.texts.push(t.text);
        }
        Part::Json(j) => {
            part_meta(&j.meta, at, ctx);
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "a JSON part is sent as its JSON text",
            );
            g.texts.push(j.value.to_string());
        }
        Part::Image(m) => {
            if let Some(data) = encode_image(m, at, ctx) {
                g.images.push(data);
            }
        }
        Part::Audio(_) | Part::Document(_) => ctx.loss(
            at.to_owned(),
            LossKind::Dropped,
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
        Part::ToolCall(_) | Part::ToolResult(_) | Part::Reasoning(_) => ctx.loss(
            at.to_owned(),
            LossKind::Dropped,
            format!("a {} part has no place here in {F}", p.kind()),
        ),
    }
}

/// The base64 of an image, or `None` (a loss) when Ollama cannot take it.
fn encode_image(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Option<String> {
    part_meta(&m.meta, at, ctx);
    if m.name.is_some() {
        ctx.loss(
            format!("{at}/name"),
            LossKind::Dropped,
            "ollama images have no name",
        );
    }
    match m.source {
        Source::Base64 { data } => Some(data),
        Source::Url { url } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!(
                    "ollama takes images as base64 bytes, not a URL ({url}); nothing is fetched"
                ),
            );
            None
        }
        Source::FileId { file_id } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("ollama takes images as base64 bytes, not a file id (`{file_id}`)"),
            );
            None
        }
        Source::Text { .. } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                "an image given as text has no form in ollama",
            );
            None
        }
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
    // Calls to a tool with a non-object schema were wrapped before encoding
    // (`passes::wrap_non_object_calls`).
    let arguments = match util::raw_object(c.arguments) {
        Ok(raw) => MaybeRaw::Raw(raw),
        Err(args) => MaybeRaw::Parsed(object_arguments(args, false, at, ctx)),
    };
    let kind = if v.flag(F, "type") {
        Some("function".to_owned())
    } else {
        take_str(&mut fields, "type")
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
    let mut fextra = Extra::from(function_extra);
    remark_nulls(&mut fextra, v, "function_nulls", w::FunctionCall::FIELDS);
    w::ToolCall {
        id: (!c.synthetic_id).then_some(c.id),
        kind,
        function: w::FunctionCall {
            index: v
                .hint(F, "index")
                .and_then(Value::as_u64)
                .and_then(|i| u32::try_from(i).ok()),
            name: c.name,
            arguments,
            extra: fextra,
        },
        extra: extra_from(fields, v, w::ToolCall::FIELDS, ctx),
    }
}

/// Arguments as the JSON object Ollama wants.
fn object_arguments(
    args: Arguments,
    wrapped: bool,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Map<String, Value> {
    let value = match args {
        Arguments::Value(v) => v,
        // No arguments at all: the empty object.
        Arguments::Text(t) if t.trim().is_empty() => return Map::new(),
        Arguments::Text(t) => match serde_json::from_str::<Value>(&t) {
            Ok(v) => v,
            Err(_) => {
                ctx.loss(
                    format!("{at}/arguments"),
                    LossKind::Changed,
                    "the arguments are not valid JSON; ollama takes an object, so they are sent as {\"invalid_json\": <text>}",
                );
                let mut m = Map::new();
                m.insert("invalid_json".to_owned(), Value::String(t));
                return m;
            }
        },
    };
    match value {
        Value::Object(m) => m,
        Value::Null => {
            ctx.loss(
                format!("{at}/arguments"),
                LossKind::Changed,
                "ollama takes object arguments: `null` is sent as {}",
            );
            Map::new()
        }
        other => {
            let key = if wrapped { "input" } else { "value" };
            ctx.loss(
                format!("{at}/arguments"),
                LossKind::Changed,
                format!("ollama takes object arguments: the value is sent as {{\"{key}\": …}}"),
            );
            let mut m = Map::new();
            m.insert(key.to_owned(), other);
            m
        }
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
    drop_cache(ctx, &r.meta, at);
    let _ = ctx.own(
        r.meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
    let mut g = Gathered::default();
    for (k, p) in r.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{k}");
        match p {
            // A structured result is the tool's answer: its JSON text is the content.
            Part::Json(j) => {
                part_meta(&j.meta, &pat, ctx);
                g.texts.push(j.value.to_string());
            }
            Part::Image(m) if !v.flag(F, "images") => {
                if let Some(data) = encode_image(m, &pat, ctx) {
                    ctx.loss(
                        pat,
                        LossKind::Moved,
                        "ollama tool messages carry no images: this image is sent in a user message after the results",
                    );
                    moved.push(data);
                }
            }
            other => gather(other, &pat, &mut g, ctx),
        }
    }
    if r.is_error {
        ctx.loss(
            format!("{at}/is_error"),
            LossKind::Changed,
            "ollama has no error flag on tool results: the text is prefixed `Error: `",
        );
        match g.texts.first_mut() {
            // Already says so: no `Error: Error: …`.
            Some(t) if t.starts_with("Error:") => {}
            Some(t) => t.insert_str(0, "Error: "),
            None => g.texts.push("Error: ".to_owned()),
        }
    }
    let name = if v.flag(F, "no_tool_name") {
        None
    } else {
        r.name
    };
    // Write the id only when the matching by name and order would not find this call.
    let by_matching = st.pending.peek(name.as_deref()) == Some(r.call_id.as_str());
    let orphan = v.flag(F, "orphan") && st.pending.peek(name.as_deref()).is_none();
    // A named result whose call is not in the conversation (pruned history): the id has
    // nothing to match here, and the SDK's message type has no `tool_call_id`.
    let pruned = !orphan
        && !v.flag(F, "call_id")
        && name.is_some()
        && st.pending.peek(name.as_deref()).is_none();
    if pruned {
        ctx.loss(
            format!("{at}/call_id"),
            LossKind::Dropped,
            format!(
                "call id `{}` not written: its call is not in the conversation, and ollama matches results by tool_name",
                r.call_id
            ),
        );
    }
    let tool_call_id =
        if v.flag(F, "call_id") || name.is_none() || !(by_matching || orphan || pruned) {
            st.pending.answer(Some(&r.call_id), None);
            Some(r.call_id)
        } else {
            st.pending.answer(None, name.as_deref());
            None
        };
    let thinking = take_str(&mut fields, "thinking");
    let tool_calls = fields
        .shift_remove("tool_calls")
        .and_then(|c| serde_json::from_value(c).ok());
    w::Message {
        role: match v.hint(F, "role").and_then(Value::as_str) {
            Some(spelled) => w::Role::from(spelled),
            None => w::Role::Tool,
        },
        content: content_of(g.texts, v),
        thinking,
        images: images_of(g.images, v),
        tool_calls,
        tool_name: name,
        tool_call_id,
        extra: extra_from(fields, v, w::Message::FIELDS, ctx),
    }
}

/// Encodes a neutral response as an `/api/chat` response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let same = v.format == Some(F);
    let mut fields = ctx.vendor_fields(&v, "");
    if let Some(id) = &resp.id {
        ctx.loss(
            "/id",
            LossKind::Dropped,
            format!("ollama responses have no id (`{id}`)"),
        );
    }
    let mut message = None;
    let mut done_reason = None;
    for (i, c) in resp.choices.into_iter().enumerate() {
        let at = format!("/choices/{i}");
        if i > 0 {
            ctx.loss(
                at,
                LossKind::Dropped,
                "an ollama response has one message: further choices are dropped",
            );
            continue;
        }
        let _ = ctx.vendor_fields(&c.vendor, &at);
        let mut st = State::default();
        message = Some(encode_turn(
            c.message,
            &format!("{at}/message"),
            &mut st,
            ctx,
        ));
        done_reason = c
            .stop_reason
            .filter(|_| !c.vendor.flag(F, "no_done_reason"))
            .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    }
    if message.is_none() && !(same && v.flag(F, "no_message")) {
        message = Some(w::Message {
            role: w::Role::Assistant,
            content: Some(String::new()),
            thinking: None,
            images: None,
            tool_calls: None,
            tool_name: None,
            tool_call_id: None,
            extra: Extra::new(),
        });
    }
    if done_reason.is_none() {
        done_reason = take_str(&mut fields, "done_reason").map(w::DoneReason::from);
    }
    let (prompt_eval_count, eval_count) = match resp.usage {
        Some(u) => encode_usage(u, ctx),
        None => (None, None),
    };
    let take_u64 = |f: &mut Map<String, Value>, k: &str| f.shift_remove(k).and_then(|x| x.as_u64());
    // The text as it came (Ollama's own), else written from the seconds.
    let created_at = take_str(&mut fields, "created_at")
        .or_else(|| resp.created.map(crate::util::rfc3339_of_unix));
    let done = if same {
        v.hint(F, "done").and_then(Value::as_bool)
    } else {
        Some(true)
    };
    let total_duration = take_u64(&mut fields, "total_duration");
    let load_duration = take_u64(&mut fields, "load_duration");
    let prompt_eval_duration = take_u64(&mut fields, "prompt_eval_duration");
    let eval_duration = take_u64(&mut fields, "eval_duration");
    let logprobs = fields
        .shift_remove("logprobs")
        .and_then(|l| serde_json::from_value(l).ok());
    Ok(w::Response {
        model: resp.model,
        created_at,
        message,
        done,
        done_reason,
        total_duration,
        load_duration,
        prompt_eval_count,
        prompt_eval_duration,
        eval_count,
        eval_duration,
        logprobs,
        extra: extra_from(fields, &v, w::Response::FIELDS, ctx),
    })
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::DoneReason {
    if let Some(raw) = r.raw_for(F) {
        return w::DoneReason::from(raw);
    }
    // `done_reason` says `stop` or `length` (`load` / `unload` answer empty requests).
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence | StopKind::ToolUse => w::DoneReason::Stop,
        StopKind::MaxTokens => w::DoneReason::Length,
        StopKind::ContentFilter | StopKind::Pause | StopKind::Error | StopKind::Other => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!(
                    "stop reason `{}` has no ollama equivalent: sent as `stop`",
                    stop_name(r)
                ),
            );
            w::DoneReason::Stop
        }
    }
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

/// `(prompt_eval_count, eval_count)`; the breakdowns Ollama has no field for are losses.
fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> (Option<u64>, Option<u64>) {
    let _ = ctx.vendor_fields(&u.vendor, "/usage");
    for (key, val) in [
        ("cached_input_tokens", u.cached_input_tokens),
        ("cache_write_tokens", u.cache_write_tokens),
        ("reasoning_tokens", u.reasoning_tokens),
    ] {
        // A zero count says nothing Ollama's totals do not.
        if let Some(n) = val.filter(|n| *n > 0) {
            ctx.loss(
                format!("/usage/{key}"),
                LossKind::Dropped,
                format!("ollama reports no {} ({n})", key.replace('_', " ")),
            );
        }
    }
    if let Some(t) = u.total_tokens {
        let sum = u.input_tokens.unwrap_or(0) + u.output_tokens.unwrap_or(0);
        if t != sum {
            ctx.loss(
                "/usage/total_tokens",
                LossKind::Dropped,
                format!("ollama reports no total ({t}, not the sum of input and output)"),
            );
        }
    }
    (u.input_tokens, u.output_tokens)
}

// ---------------------------------------------------------------------------------------
// Helpers

fn take_str(fields: &mut Map<String, Value>, key: &str) -> Option<String> {
    match fields.shift_remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            fields.insert(key.to_owned(), other);
            None
        }
        None => None,
    }
}

/// Marks the nulls listed in hint `key` of `v` among `known`.
fn remark_nulls(extra: &mut Extra, v: &Vendor, key: &str, known: &'static [&'static str]) {
    if let Some(Value::Array(nulls)) = v.hint(F, key) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = known.iter().find(|f| **f == n) {
                extra.mark_null(f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, convert_request_value, convert_response_value};
    use serde_json::json;

    fn to_openai(body: Value) -> (Value, Vec<crate::Loss>) {
        let out = convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap();
        (out.value, out.losses)
    }

    fn body_again() -> Value {
        json!({"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [
                {"function": {"name": "a", "arguments": {}}},
                {"function": {"name": "b", "arguments": {}}},
                {"function": {"name": "a", "arguments": {"x": 1}}}]},
            {"role": "tool", "tool_name": "b", "content": "B"},
            {"role": "tool", "tool_name": "a", "content": "A1"},
            {"role": "tool", "tool_name": "a", "content": "A2"},
            {"role": "tool", "tool_name": "zzz", "content": "orphan"}]})
    }

    #[test]
    fn results_without_ids_are_matched_by_name_then_order() {
        let body = json!({"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [
                {"function": {"name": "a", "arguments": {}}},
                {"function": {"name": "b", "arguments": {}}},
                {"function": {"name": "a", "arguments": {"x": 1}}}]},
            {"role": "tool", "tool_name": "b", "content": "B"},
            {"role": "tool", "tool_name": "a", "content": "A1"},
            {"role": "tool", "tool_name": "a", "content": "A2"},
            {"role": "tool", "tool_name": "zzz", "content": "orphan"}]});
        let (out, _) = to_openai(body);
        let calls = &out["messages"][1]["tool_calls"];
        assert_eq!(calls[0]["id"], "call_1_0_a");
        assert_eq!(calls[1]["id"], "call_1_1_b");
        assert_eq!(calls[2]["id"], "call_1_2_a");
        // Results are put in call order for another format (a `moved` loss).
        assert_eq!(out["messages"][2]["tool_call_id"], "call_1_0_a");
        assert_eq!(out["messages"][3]["tool_call_id"], "call_1_1_b");
        assert_eq!(out["messages"][4]["tool_call_id"], "call_1_2_a");
        // Nothing to match: an id of its own (tool message 2, result 3).
        assert_eq!(out["messages"][5]["tool_call_id"], "call_2_3_zzz");
        // Back to Ollama as it came: no ids anywhere.
        let same = convert_request_value(&body_again(), F, F, &Options::default()).unwrap();
        assert_eq!(same.value, body_again());
        assert!(same.losses.is_empty());
    }

    #[test]
    fn result_ids_are_written_only_when_matching_would_not_find_the_call() {
        // OpenAI results answered out of name order: the second `get` result answers the
        // first call, so matching by name would pick the wrong call.
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "get", "arguments": "{}"}},
                {"id": "c3", "type": "function", "function": {"name": "put", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c3", "content": "p"},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
            {"role": "tool", "tool_call_id": "c1", "content": "one"}]});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        let m = &out.value["messages"];
        assert_eq!(m[0]["tool_calls"][0]["id"], "c1");
        // Results are put in call order first (a `moved` loss); then matching by name
        // and order finds every call, so no `tool_call_id` is needed.
        assert_eq!(
            m[1],
            json!({"role": "tool", "content": "one", "tool_name": "get"})
        );
        assert_eq!(
            m[2],
            json!({"role": "tool", "content": "two", "tool_name": "get"})
        );
        assert_eq!(
            m[3],
            json!({"role": "tool", "content": "p", "tool_name": "put"})
        );
        assert!(out.losses.iter().any(|l| l.kind == crate::LossKind::Moved));
        // Results that would match the wrong call carry their id (same-format input, which
        // keeps its order).
        let own = json!({"model": "m", "messages": [
            {"role": "assistant", "tool_calls": [
                {"id": "c1", "function": {"name": "get", "arguments": {}}},
                {"id": "c2", "function": {"name": "get", "arguments": {}}}]},
            {"role": "tool", "tool_name": "get", "tool_call_id": "c2", "content": "two"},
            {"role": "tool", "tool_name": "get", "content": "one"}]});
        let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
        // And back: every result finds its call.
        let back =
            convert_request_value(&out.value, F, Format::OpenaiChat, &Options::default()).unwrap();
        let b = &back.value["messages"];
        assert_eq!(b[1]["tool_call_id"], "c1");
        assert_eq!(b[2]["tool_call_id"], "c2");
        assert_eq!(b[3]["tool_call_id"], "c3");
    }

    #[test]
    fn arguments_become_objects() {
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
                {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "{oops"}},
                {"id": "c3", "type": "function", "function": {"name": "f", "arguments": "[1,2]"}},
                {"id": "c4", "type": "function", "function": {"name": "f", "arguments": "null"}},
                {"id": "c5", "type": "function", "function": {"name": "f", "arguments": ""}}]}]});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        let calls = &out.value["messages"][0]["tool_calls"];
        assert_eq!(calls[0]["function"]["arguments"], json!({"a": 1}));
        assert_eq!(
            calls[1]["function"]["arguments"],
            json!({"invalid_json": "{oops"})
        );
        assert_eq!(calls[2]["function"]["arguments"], json!({"value": [1, 2]}));
        assert_eq!(calls[3]["function"]["arguments"], json!({}));
        assert_eq!(calls[4]["function"]["arguments"], json!({}));
        let changed: Vec<&str> = out
            .losses
            .iter()
            .filter(|l| l.kind == LossKind::Changed)
            .map(|l| l.path.as_str())
            .collect();
        assert_eq!(
            changed,
            [
                // In the source's own spelling: `function/arguments`.
                "/messages/0/tool_calls/1/function/arguments",
                "/messages/0/tool_calls/2/function/arguments",
                "/messages/0/tool_calls/3/function/arguments"
            ]
        );
    }

    #[test]
    fn options_map_to_settings_and_back() {
        let body = json!({"model": "m", "messages": [], "options": {
            "temperature": 0.5, "num_ctx": 4096, "num_predict": 100, "top_k": 40,
            "stop": ["x"], "seed": 3, "mirostat": 1}, "think": "high", "format": "json"});
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        assert_eq!(d.settings.max_tokens, Some(100));
        assert_eq!(d.settings.top_k, Some(40));
        assert_eq!(d.settings.seed, Some(3));
        assert_eq!(d.settings.stop, Some(vec!["x".to_owned()]));
        assert_eq!(
            d.settings
                .reasoning
                .as_ref()
                .and_then(|r| r.effort.as_deref()),
            Some("high")
        );
        assert_eq!(d.output_format, Some(OutputFormat::JsonObject));
        let (out, losses) = to_openai(body.clone());
        assert_eq!(out["max_completion_tokens"], 100);
        assert_eq!(out["reasoning_effort"], "high");
        let paths: Vec<&str> = losses.iter().map(|l| l.path.as_str()).collect();
        assert!(paths.contains(&"/options/top_k"), "{paths:?}");
        // Only the options that have no place are reported, each at its own key.
        let dropped: Vec<&str> = losses
            .iter()
            .filter(|l| l.path.starts_with("/options") && l.kind == LossKind::Dropped)
            .map(|l| l.path.as_str())
            .collect();
        assert_eq!(
            dropped,
            ["/options/num_ctx", "/options/mirostat", "/options/top_k"]
        );
        // And back into Ollama: the options object as it came.
        let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, body);
        assert!(same.losses.is_empty());
    }

    #[test]
    fn tool_choice_none_leaves_the_tools_out() {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            "tool_choice": "none", "parallel_tool_calls": false});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert!(out.value.get("tools").is_none());
        let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["/tools/0", "/parallel_tool_calls"]);
    }

    #[test]
    fn done_reason_maps_by_kind() {
        let resp = json!({"model": "m", "message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {}}}]},
            "done": true, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5});
        let d = crate::decode_response(&resp.to_string(), F).unwrap().value;
        let stop = d.choices[0].stop_reason.clone().unwrap();
        assert_eq!(stop.kind, StopKind::ToolUse);
        let usage = d.usage.clone().unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (Some(10), Some(5))
        );
        let out =
            convert_response_value(&resp, F, Format::OpenaiChat, &Options::default()).unwrap();
        assert_eq!(out.value["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(out.value["usage"]["total_tokens"], 15);
        let back =
            convert_response_value(&out.value, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(back.value["done_reason"], "stop");
        assert_eq!(back.value["prompt_eval_count"], 10);
        assert_eq!(back.value["done"], true);
        let length = json!({"model": "m", "message": {"role": "assistant", "content": "x"},
            "done": true, "done_reason": "length"});
        let d = crate::decode_response(&length.to_string(), F)
            .unwrap()
            .value;
        assert_eq!(
            d.choices[0].stop_reason.as_ref().map(|s| s.kind),
            Some(StopKind::MaxTokens)
        );
    }

    #[test]
    fn images_by_url_cannot_be_sent() {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "see"},
            {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]});
        let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(
            out.value["messages"][0],
            json!({"role": "user", "content": "see", "images": ["AAAA"]})
        );
        assert_eq!(out.losses.len(), 1);
        assert_eq!(out.losses[0].path, "/messages/0/content/1");
        assert_eq!(out.losses[0].kind, LossKind::Dropped);
    }

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    /// A request with two calls whose results both failed: one text already says so.
    fn anthropic_failed_results() -> Value {
        json!({"model": "c", "max_tokens": 10, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
                {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
                    "content": "Error: boom"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
                    "content": "timeout"}]}]})
    }

    /// A request whose tool result carries an image, optionally followed by a user turn.
    fn anthropic_result_with_image(then_user: bool) -> Value {
        let mut messages = vec![
            json!({"role": "user", "content": "show me"}),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "photo", "input": {}}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                    {"type": "text", "text": "the photo"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                        "data": PNG}}]}]}),
        ];
        if then_user {
            messages.push(json!({"role": "assistant", "content": "Here it is."}));
            messages.push(json!({"role": "user", "content": "thanks"}));
        }
        json!({"model": "c", "max_tokens": 10, "messages": messages})
    }

    fn losses_at<'l>(losses: &'l [crate::Loss], path: &str) -> Vec<&'l crate::Loss> {
        losses.iter().filter(|l| l.path == path).collect()
    }

    #[test]
    fn image_media_types_are_read_from_the_bytes() {
        let images = [
            (PNG, Some("image/png")),
            ("/9j/4AAQSkZJRgABAQ", Some("image/jpeg")),
            (
                "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==",
                Some("image/gif"),
            ),
            (
                "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=",
                Some("image/webp"),
            ),
            ("AAAAAAAA", None),
            ("", None),
        ];
        for (data, media_type) in images {
            assert_eq!(sniff_image(data), media_type, "{data}");
        }
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "what?",
            "images": [PNG, "/9j/4AAQSkZJRgABAQ", "AAAAAAAA"]}]});
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        let types: Vec<Option<&str>> = d.messages[0]
            .content
            .iter()
            .filter_map(|p| match p {
                Part::Image(m) => Some(m.media_type.as_deref()),
                _ => None,
            })
            .collect();
        assert_eq!(types, [Some("image/png"), Some("image/jpeg"), None]);
        // OpenAI gets a data URL it accepts, not `application/octet-stream`.
        let (out, _) = to_openai(body.clone());
        let url = &out["messages"][0]["content"][1]["image_url"]["url"];
        assert_eq!(url, &Value::String(format!("data:image/png;base64,{PNG}")));
        // Gemini needs a media type: only the unknown image is a guess (a loss).
        let gemini = convert_request_value(&body, F, Format::Gemini, &Options::default()).unwrap();
        let guessed: Vec<&str> = gemini
            .losses
            .iter()
            .filter(|l| l.path.ends_with("/media_type"))
            .map(|l| l.path.as_str())
            .collect();
        assert_eq!(guessed, ["/messages/0/images/2/media_type"]);
        // Back to Ollama: the images as they came.
        let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, body);
        assert!(same.losses.is_empty());
    }

    #[test]
    fn an_absent_stream_means_streaming() {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        let d = crate::decode_request(&body.to_string(), F).unwrap().value;
        assert_eq!(d.settings.stream, Some(true));
        // Ollama again: still absent.
        let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, body);
        assert!(same.losses.is_empty());
        // Another format is told to stream; one that cannot say so in the body reports it
        // at Ollama's `stream`.
        let (out, _) = to_openai(body.clone());
        assert_eq!(out["stream"], true);
        let gemini = convert_request_value(&body, F, Format::Gemini, &Options::default()).unwrap();
        let stream = losses_at(&gemini.losses, "/stream");
        assert_eq!(stream.len(), 1);
        assert_eq!(stream[0].kind, LossKind::Dropped);
        // An explicit `false` stays.
        let once = json!({"model": "m", "messages": [], "stream": false});
        let same = convert_request_value(&once, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, once);
        // From another format: one JSON body unless it asked to stream, said explicitly.
        for (stream, expected) in [(None, false), (Some(false), false), (Some(true), true)] {
            let mut openai = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
            if let Some(s) = stream {
                openai["stream"] = Value::Bool(s);
            }
            let out =
                convert_request_value(&openai, Format::OpenaiChat, F, &Options::default()).unwrap();
            assert_eq!(out.value["stream"], expected, "{stream:?}");
            assert!(out.losses.is_empty(), "{:?}", out.losses);
        }
    }

    #[test]
    fn stop_kinds_without_an_ollama_value_are_sent_as_stop() {
        for (kind, expected, lossy) in [
            (StopKind::EndTurn, "stop", false),
            (StopKind::StopSequence, "stop", false),
            (StopKind::ToolUse, "stop", false),
            (StopKind::MaxTokens, "length", false),
            (StopKind::ContentFilter, "stop", true),
            (StopKind::Pause, "stop", true),
            (StopKind::Error, "stop", true),
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
            assert_eq!(out.value["done_reason"], expected, "{kind:?}");
            let losses = losses_at(&out.losses, "/choices/0/stop_reason");
            assert_eq!(losses.len(), usize::from(lossy), "{kind:?}");
            assert!(losses.iter().all(|l| l.kind == LossKind::Changed));
        }
        // A raw value of another format never reaches the closed set.
        let gemini = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "…"}]},
            "finishReason": "SAFETY"}]});
        let out = convert_response_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
        assert_eq!(out.value["done_reason"], "stop");
        let losses = losses_at(&out.losses, "/candidates/0/finishReason");
        assert_eq!(losses.len(), 1);
        assert_eq!(losses[0].kind, LossKind::Changed);
        assert!(
            losses[0].detail.contains("`SAFETY`"),
            "{}",
            losses[0].detail
        );
        // Ollama's own values go back as they came.
        let own = json!({"model": "m", "message": {"role": "assistant", "content": ""},
            "done": true, "done_reason": "unload"});
        let same = convert_response_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
    }

    #[test]
    fn a_failed_result_is_prefixed_once() {
        let out = convert_request_value(
            &anthropic_failed_results(),
            Format::Anthropic,
            F,
            &Options::default(),
        )
        .unwrap();
        let m = &out.value["messages"];
        assert_eq!(m[2]["content"], "Error: boom");
        assert_eq!(m[3]["content"], "Error: timeout");
        // Both are reported: the flag is gone either way.
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
    fn images_of_results_move_to_a_user_message() {
        let out = convert_request_value(
            &anthropic_result_with_image(false),
            Format::Anthropic,
            F,
            &Options::default(),
        )
        .unwrap();
        let m = &out.value["messages"];
        assert_eq!(
            m[2],
            json!({"role": "tool", "content": "the photo", "tool_name": "photo"})
        );
        assert_eq!(
            m[3],
            json!({"role": "user", "content": "", "images": [PNG]})
        );
        let moved = losses_at(&out.losses, "/messages/2/content/0/content/1");
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].kind, LossKind::Moved);
        // Ollama's own images on a tool message go back where they were.
        let own = json!({"model": "m", "messages": [
            {"role": "assistant", "tool_calls": [{"function": {"name": "photo", "arguments": {}}}]},
            {"role": "tool", "tool_name": "photo", "content": "the photo", "images": [PNG]}]});
        let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
        assert!(same.losses.is_empty());
    }

    #[test]
    fn empty_text_parts_add_no_line() {
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
        // The signature is the only thing lost, and it is reported.
        let lost: Vec<&crate::Loss> = out
            .losses
            .iter()
            .filter(|l| l.path.starts_with("/contents"))
            .collect();
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert!(lost[0].path.starts_with("/contents/1/parts/1/"));
        assert_eq!(lost[0].kind, LossKind::Dropped);
    }
}
