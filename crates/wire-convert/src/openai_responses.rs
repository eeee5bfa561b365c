//! OpenAI Responses (`POST /v1/responses`) ↔ the neutral model.
//!
//! * `instructions` is a leading neutral [`Role::System`] message (hint `instructions`),
//!   written back as `instructions`; a leading system message from another format stays
//!   an input message (`role: system`). System and developer input messages stay in
//!   place: Responses allows them anywhere. `input` as a string is one user text message
//!   (hint `input_string`).
//! * Items are flat; the neutral model is not. Consecutive assistant-side items
//!   (reasoning, assistant messages, function calls, hosted-tool items such as
//!   `web_search_call`) become ONE neutral assistant message whose parts keep the item
//!   order; encoding splits them back into items in the same order, so a reasoning item
//!   stays right before the item that followed it (providers.md §2.6). The first part of
//!   each assistant message item carries the item's own fields (`$msg.<key>`, e.g.
//!   `$msg.id`, `$msg.phase`) and a `msg` hint that marks where the item starts. Another
//!   format's empty text beside function calls (Mistral's `content: ""`) makes no
//!   message item: an empty assistant message before the calls says nothing.
//! * `function_call`: `call_id` is the neutral call id; the item `id` (`fc_…`), `status`
//!   and `namespace` are vendor fields. Arguments are JSON text, written back byte for
//!   byte. Consecutive `function_call_output` items form one neutral tool message; there
//!   is no error flag, so a failed result is prefixed `Error: ` (a `changed` loss; a text
//!   that already starts with `Error:` keeps its text).
//! * `reasoning` items are [`Part::Reasoning`] (`id`, summary texts, `reasoning_text`
//!   content as text, `encrypted_content` as [`Signed`] owned by this format). Only this
//!   format's own reasoning items go back into a request; reasoning from another provider
//!   has no place there (a loss). In a response, foreign reasoning text becomes a
//!   reasoning item with a made-up id.
//! * Every other item (`web_search_call`, `mcp_*`, `apply_patch_call`, `tool_search_*`,
//!   `item_reference`, …) is kept whole as an [`Opaque`] part (hint `item`): in the
//!   assistant message, or, for `*_call_output` and `mcp_approval_response`, in a user
//!   message of such items (hint `items`).
//! * A response's `output` is one choice; its status and `incomplete_details` are the
//!   stop reason (`completed` → end turn, or tool use when the output has function calls;
//!   `incomplete` + `max_output_tokens` → max tokens; `incomplete` + `content_filter` →
//!   content filter; `failed` → error; the raw value is the status, or the incomplete
//!   reason). Usage maps input, cached, cache-write, output, reasoning and total tokens.
//! * Function tools are flat; `strict: true` applies the OpenAI strict schema rules;
//!   hosted tools are opaque. `tool_choice` (incl. `allowed_tools`), `reasoning`
//!   (`effort`, `summary`), `text.format` and `max_output_tokens` map to the neutral
//!   settings.
//! * Fields the neutral model has no place for travel as vendor fields under their wire
//!   names and are reported as dropped elsewhere. Explicit nulls, empty arrays and empty
//!   objects are kept in the `kept` hint (written back here, not reported elsewhere).
//!
//! Hints (see [`Vendor`]) this module writes and reads: `instructions`, `input_string`,
//! `input_items` (`input` was an empty array), `typed` (`"type": "message"` was present),
//! `parts` (content or output was an array), `msg` (first part of an assistant message
//! item: `typed`, `parts`, `kept` of the item), `kind` (a text part of the other kind than
//! its message implies), `item` (an opaque part that is a whole item), `items` (a user
//! message that only carries such items), `kept`, `absent` (keys the source left out
//! that an encoder for another format would fill with a default), `args_json`,
//! `raw_file_data`, `no_source`, `summary` (the `reasoning.summary` value), `name` (a
//! `function_call_output` had a `name`).

use crate::model::{
    self, Arguments, Choice, Dialect, Media, Message, Opaque, OutputFormat, Part, PartMeta,
    ReasoningConfig, Role, Settings, Signed, Source, StopKind, StopReason, Text, Tool, ToolCall,
    ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::util::{data_url, drop_cache, opaque_elsewhere, parse_data_url};
use crate::{Ctx, Error, LossKind, schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use wire_types::openai_responses as w;
use wire_types::{Format, TextOrParts};

const F: Format = Format::OpenaiResponses;

// ---------------------------------------------------------------------------------------
// Vendor plumbing: what a wire object kept beyond its neutral fields

/// A null, `[]` or `{}`: nothing a target could lose.
fn is_blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// The JSON object of a wire value (its fields, explicit nulls included).
fn to_map<T: Serialize>(value: &T) -> Map<String, Value> {
    match wire_types::to_value(value) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Reads a wire value back from an object built by an encoder.
fn from_map<T: DeserializeOwned>(map: Map<String, Value>, at: &str) -> Result<T, Error> {
    wire_types::from_value(&Value::Object(map)).map_err(|e| {
        Error::invalid(
            at.to_owned(),
            format!("{F} vendor fields do not fit their object: {e}"),
        )
    })
}

/// The same object with `type` first (tagged unions read the tag first).
fn tagged(tag: &str, map: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::with_capacity(map.len() + 1);
    out.insert("type".into(), Value::String(tag.to_owned()));
    out.extend(map);
    out
}

/// A vendor record for the rest of a wire object: blank values in the `kept` hint, the
/// others as fields (reported when converting elsewhere).
fn rest(map: Map<String, Value>) -> Vendor {
    let mut v = Vendor::default();
    let mut kept = Map::new();
    for (k, x) in map {
        if is_blank(&x) {
            kept.insert(k, x);
        } else {
            v.fields.insert(k, x);
        }
    }
    if !kept.is_empty() {
        v.hints.insert("kept".into(), Value::Object(kept));
    }
    if !v.is_empty() {
        v.format = Some(F);
    }
    v
}

/// Keeps what is left of a nested object (`reasoning`, `text`, token details) under
/// `key`: as a field when it holds something, else in `kept`.
fn put_sub(v: &mut Vendor, key: &str, sub: Map<String, Value>) {
    if sub.values().all(is_blank) {
        v.format = Some(F);
        let kept = v
            .hints
            .get_or_insert_with("kept", || Value::Object(Map::new()));
        if let Value::Object(k) = kept {
            k.insert(key.to_owned(), Value::Object(sub));
        }
    } else {
        v.set_field(F, key, Value::Object(sub));
    }
}

/// Records that the source left `key` out (so no default is filled in for it).
fn note_absent(v: &mut Vendor, key: &str) {
    v.format = Some(F);
    let list = v
        .hints
        .get_or_insert_with("absent", || Value::Array(Vec::new()));
    if let Value::Array(a) = list {
        a.push(Value::String(key.to_owned()));
    }
}

/// Whether the source of `v` left `key` out.
fn is_absent(v: &Vendor, key: &str) -> bool {
    v.hint(F, "absent")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|x| x == key))
}

/// The object to rebuild a wire value from: the `kept` values and the fields, when they
/// belong to this format (fields of another format are reported as dropped at `at`).
fn rebuild(v: &Vendor, ctx: &mut Ctx<'_>, at: &str) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(Value::Object(kept)) = v.hint(F, "kept") {
        m.extend(kept.clone());
    }
    m.extend(ctx.vendor_fields(v, at));
    m
}

fn merge_vendor(into: &mut Vendor, from: Vendor) {
    if from.is_empty() {
        return;
    }
    into.format = from.format.or(into.format);
    into.fields.extend(from.fields);
    into.hints.extend(from.hints);
}

/// Losses for what no Responses part carries: a cache marker, a foreign signature.
fn meta_losses(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    drop_cache(ctx, meta, at);
    let _ = ctx.own(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
}

/// An opaque part holding a whole item.
fn opaque_item(map: Map<String, Value>) -> Part {
    let mut meta = PartMeta::default();
    meta.vendor.set_hint(F, "item", true);
    Part::Opaque(Opaque {
        format: F,
        value: Value::Object(map),
        meta,
    })
}

/// An opaque part holding a content part this module does not model.
fn opaque_part<T: Serialize>(part: &T) -> Part {
    Part::Opaque(Opaque {
        format: F,
        value: wire_types::to_value(part),
        meta: PartMeta::default(),
    })
}

fn is_item(o: &Opaque) -> bool {
    o.format == F && o.meta.vendor.flag(F, "item")
}

/// Items a client sends back (results of hosted or custom tools, approvals): they go
/// into a user message rather than the assistant's.
fn user_side(item: &Map<String, Value>) -> bool {
    item.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.ends_with("_call_output") || t == "mcp_approval_response")
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Decodes a Responses request.
pub fn decode_request(mut req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request::default();
    if req.model.is_none() && !req.extra.was_null("model") {
        note_absent(&mut out.vendor, "model");
    }
    out.model = req.model.take();
    let input = req.input.take();
    let instructions = req.instructions.take();
    let tools = req.tools.take();
    let tool_choice = req.tool_choice.take();
    let reasoning = req.reasoning.take();
    let text = req.text.take();

    let mut s = Settings {
        max_tokens: req.max_output_tokens.take(),
        temperature: req.temperature.take(),
        top_p: req.top_p.take(),
        parallel_tool_calls: req.parallel_tool_calls.take(),
        stream: req.stream.take(),
        ..Default::default()
    };
    for (neutral, source, set) in [
        ("max_tokens", "max_output_tokens", s.max_tokens.is_some()),
        ("temperature", "temperature", s.temperature.is_some()),
        ("top_p", "top_p", s.top_p.is_some()),
        (
            "parallel_tool_calls",
            "parallel_tool_calls",
            s.parallel_tool_calls.is_some(),
        ),
        ("stream", "stream", s.stream.is_some()),
    ] {
        if set {
            ctx.map(
                format_args!("/settings/{neutral}"),
                format_args!("/{source}"),
            );
        }
    }
    // What is left is vendor: unknown fields, nulls, and the fields with no neutral place.
    let mut v = rest(to_map(&req));

    if let Some(text) = instructions {
        let mut m = Message::text(Role::System, text);
        m.vendor.set_hint(F, "instructions", true);
        ctx.map("/messages/0", "/instructions");
        ctx.map("/messages/0/content/0", "/instructions");
        out.messages.push(m);
    }
    match input {
        None => {}
        Some(w::Input::Text(text)) => {
            let n = out.messages.len();
            let mut m = Message::text(Role::User, text);
            m.vendor.set_hint(F, "input_string", true);
            ctx.map(format_args!("/messages/{n}"), "/input");
            ctx.map(format_args!("/messages/{n}/content/0"), "/input");
            out.messages.push(m);
        }
        Some(w::Input::Items(items)) => {
            if items.is_empty() {
                v.set_hint(F, "input_items", true);
            }
            decode_items(items, "/input", &mut out.messages, ctx)?;
        }
    }

    for (k, t) in tools.into_iter().flatten().enumerate() {
        ctx.map(format_args!("/tools/{k}"), format_args!("/tools/{k}"));
        out.tools.push(decode_tool(t));
    }

    if let Some(tc) = tool_choice {
        match decode_tool_choice(&tc) {
            Some(c) => {
                ctx.map("/tool_choice", "/tool_choice");
                out.tool_choice = Some(c);
            }
            None => v.set_field(F, "tool_choice", wire_types::to_value(&tc)),
        }
    }

    if let Some(mut r) = reasoning {
        ctx.map("/settings/reasoning", "/reasoning");
        let mut rc = ReasoningConfig {
            effort: r.effort.take().map(|e| e.as_str().to_owned()),
            ..Default::default()
        };
        if rc.effort.is_some() {
            ctx.map("/settings/reasoning/effort", "/reasoning/effort");
        }
        if let Some(summary) = r.summary.take() {
            ctx.map("/settings/reasoning/include", "/reasoning/summary");
            rc.include = Some(true);
            v.set_hint(F, "summary", summary);
        }
        s.reasoning = Some(rc);
        put_sub(&mut v, "reasoning", to_map(&r));
    }
    if let Some(mut t) = text {
        let (format, keep) = match t.format.take() {
            None => (None, None),
            Some(w::TextFormat::Text(x)) if x.extra.is_empty() => (Some(OutputFormat::Text), None),
            Some(w::TextFormat::JsonObject(x)) if x.extra.is_empty() => {
                (Some(OutputFormat::JsonObject), None)
            }
            Some(w::TextFormat::JsonSchema(j)) => {
                let neutral = OutputFormat::JsonSchema {
                    name: Some(j.name.clone()),
                    schema: j.schema.clone(),
                    strict: j.strict,
                };
                // A description (or an unknown field) has no neutral place: the whole
                // format is kept as well, and wins when written back here.
                let keep = (j.description.is_some() || !j.extra.is_empty())
                    .then_some(w::TextFormat::JsonSchema(j));
                (Some(neutral), keep)
            }
            Some(other) => (None, Some(other)),
        };
        if format.is_some() {
            ctx.map("/output_format", "/text/format");
        }
        out.output_format = format;
        t.format = keep;
        put_sub(&mut v, "text", to_map(&t));
    }
    out.settings = s;
    merge_vendor(&mut out.vendor, v);
    Ok(out)
}

/// Decodes input items into neutral messages (canonical form: assistant-side items
/// grouped, function outputs batched).
fn decode_items(
    items: Vec<w::Item>,
    base: &str,
    out: &mut Vec<Message>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("{base}/{i}");
        match item {
            w::Item::Message(m) => {
                let role = match &m.role {
                    w::Role::Assistant => None,
                    w::Role::User => Some(Role::User),
                    w::Role::System => Some(Role::System),
                    w::Role::Developer => Some(Role::Developer),
                    other => {
                        return Err(Error::invalid(
                            format!("{at}/role"),
                            format!(
                                "unknown role `{}` (expected one of: {})",
                                other.as_str(),
                                w::Role::KNOWN.join(", ")
                            ),
                        ));
                    }
                };
                match role {
                    None => push_to_group(out, w::Item::Message(m), &at, ctx),
                    Some(role) => {
                        let n = out.len();
                        ctx.map(format_args!("/messages/{n}"), at.clone());
                        let msg =
                            decode_input_message(m, role, &format!("/messages/{n}"), &at, ctx);
                        out.push(msg);
                    }
                }
            }
            w::Item::FunctionCallOutput(o) => {
                let (result, sources) = decode_function_output(o, &at)?;
                push_result(out, result, sources, &at, ctx);
            }
            w::Item::Other(map) if user_side(&map) => {
                if !out
                    .last()
                    .is_some_and(|m| m.role == Role::User && m.vendor.flag(F, "items"))
                {
                    let mut m = Message::new(Role::User, Vec::new());
                    m.vendor.set_hint(F, "items", true);
                    ctx.map(format_args!("/messages/{}", out.len()), at.clone());
                    out.push(m);
                }
                let n = out.len().saturating_sub(1);
                if let Some(m) = out.last_mut() {
                    ctx.map(
                        format_args!("/messages/{n}/content/{}", m.content.len()),
                        at.clone(),
                    );
                    m.content.push(opaque_item(map));
                }
            }
            other => push_to_group(out, other, &at, ctx),
        }
    }
    Ok(())
}

/// Appends an assistant-side item to the assistant message at the end, started if
/// there is none: consecutive assistant-side items make one neutral message.
fn push_to_group(out: &mut Vec<Message>, item: w::Item, at: &str, ctx: &mut Ctx<'_>) {
    if out.last().is_none_or(|m| m.role != Role::Assistant) {
        ctx.map(format_args!("/messages/{}", out.len()), at.to_owned());
        out.push(Message::new(Role::Assistant, Vec::new()));
    }
    let neutral = format!("/messages/{}", out.len().saturating_sub(1));
    if let Some(msg) = out.last_mut() {
        push_assistant_item(msg, &neutral, item, at, ctx);
    }
}

/// Appends one assistant-side item to the assistant message `msg` (at neutral pointer
/// `neutral`).
fn push_assistant_item(
    msg: &mut Message,
    neutral: &str,
    item: w::Item,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let part_at = |msg: &Message| format!("{neutral}/content/{}", msg.content.len());
    match item {
        w::Item::Message(m) if m.role == w::Role::Assistant => {
            if matches!(&m.content, TextOrParts::Parts(p) if p.is_empty()) {
                ctx.map(part_at(msg), at.to_owned());
                msg.content.push(opaque_item(to_map(&w::Item::Message(m))));
                return;
            }
            push_assistant_message(msg, neutral, m, at, ctx);
        }
        w::Item::FunctionCall(c) => {
            ctx.map(part_at(msg), at.to_owned());
            msg.content.push(decode_call(c));
        }
        w::Item::Reasoning(r) => {
            ctx.map(part_at(msg), at.to_owned());
            msg.content.push(decode_reasoning(r));
        }
        w::Item::Other(map) => {
            ctx.map(part_at(msg), at.to_owned());
            msg.content.push(opaque_item(map));
        }
        other => {
            ctx.map(part_at(msg), at.to_owned());
            msg.content.push(opaque_item(to_map(&other)));
        }
    }
}

/// An assistant message item: its parts go into `msg`, the first one carrying the
/// item's own fields (`$msg.<key>`) and the `msg` hint.
fn push_assistant_message(
    msg: &mut Message,
    neutral: &str,
    mut m: w::Message,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let typed = m.kind.is_some();
    let content = std::mem::replace(&mut m.content, TextOrParts::Text(String::new()));
    let mut head = to_map(&m);
    for k in ["type", "role", "content"] {
        head.remove(k);
    }
    let head = rest(head);
    let mut hint = Map::new();
    if typed {
        hint.insert("typed".into(), Value::Bool(true));
    }
    let parts: Vec<(Part, String)> = match content {
        TextOrParts::Text(s) => vec![(Part::text(s), format!("{at}/content"))],
        TextOrParts::Parts(ps) => {
            hint.insert("parts".into(), Value::Bool(true));
            ps.into_iter()
                .enumerate()
                .map(|(j, p)| (decode_part(p, true), format!("{at}/content/{j}")))
                .collect()
        }
    };
    if let Some(kept) = head.hints.get("kept") {
        hint.insert("kept".into(), kept.clone());
    }
    for (j, (mut part, source)) in parts.into_iter().enumerate() {
        let here = format!("{neutral}/content/{}", msg.content.len());
        if j == 0 {
            let v = &mut part.meta_mut().vendor;
            v.set_hint(F, "msg", Value::Object(hint.clone()));
            for (k, val) in &head.fields {
                v.set_field(F, &format!("$msg.{k}"), val.clone());
                ctx.map(format_args!("{here}/$msg.{k}"), format_args!("{at}/{k}"));
            }
        }
        ctx.map(here, source);
        msg.content.push(part);
    }
}

/// A user, system or developer message item.
fn decode_input_message(
    mut m: w::Message,
    role: Role,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let typed = m.kind.is_some();
    let content = std::mem::replace(&mut m.content, TextOrParts::Text(String::new()));
    let mut head = to_map(&m);
    for k in ["type", "role", "content"] {
        head.remove(k);
    }
    let mut msg = Message::new(role, Vec::new());
    msg.vendor = rest(head);
    if typed {
        msg.vendor.set_hint(F, "typed", true);
    }
    match content {
        TextOrParts::Text(s) => {
            ctx.map(
                format_args!("{neutral}/content/0"),
                format_args!("{at}/content"),
            );
            msg.content.push(Part::text(s));
        }
        TextOrParts::Parts(ps) => {
            msg.vendor.set_hint(F, "parts", true);
            for (j, p) in ps.into_iter().enumerate() {
                ctx.map(
                    format_args!("{neutral}/content/{j}"),
                    format_args!("{at}/content/{j}"),
                );
                msg.content.push(decode_part(p, false));
            }
        }
    }
    msg
}

/// One content part. `assistant`: the part is in an assistant message (where text is
/// `output_text`; elsewhere `input_text`).
fn decode_part(p: w::ContentPart, assistant: bool) -> Part {
    match p {
        w::ContentPart::InputText(t) => {
            let mut map = to_map(&t);
            map.remove("text");
            let mut meta = PartMeta {
                vendor: rest(map),
                ..Default::default()
            };
            if assistant {
                meta.vendor.set_hint(F, "kind", "input_text");
            }
            Part::Text(Text { text: t.text, meta })
        }
        w::ContentPart::OutputText(t) => {
            let mut vendor = Vendor::default();
            if t.annotations.is_none() && !t.extra.was_null("annotations") {
                note_absent(&mut vendor, "annotations");
            }
            let mut map = to_map(&t);
            map.remove("text");
            merge_vendor(&mut vendor, rest(map));
            if !assistant {
                vendor.set_hint(F, "kind", "output_text");
            }
            Part::Text(Text {
                text: t.text,
                meta: PartMeta {
                    vendor,
                    ..Default::default()
                },
            })
        }
        w::ContentPart::Refusal(r) => {
            let mut map = to_map(&r);
            map.remove("refusal");
            Part::Refusal(Text {
                text: r.refusal,
                meta: PartMeta {
                    vendor: rest(map),
                    ..Default::default()
                },
            })
        }
        w::ContentPart::InputImage(i) => decode_image(i),
        w::ContentPart::InputFile(f) => decode_file(f),
        other => opaque_part(&other),
    }
}

fn decode_image(mut i: w::InputImage) -> Part {
    let mut vendor = Vendor::default();
    if i.detail.is_none() && !i.extra.was_null("detail") {
        note_absent(&mut vendor, "detail");
    }
    let url = i.image_url.take();
    let file_id = i.file_id.take();
    let mut map = to_map(&i);
    let (source, media_type) = match (url, file_id) {
        (Some(url), file_id) => {
            if let Some(f) = file_id {
                map.insert("file_id".into(), Value::String(f));
            }
            match parse_data_url(&url) {
                Some((mt, data)) => (Source::Base64 { data }, Some(mt)),
                None => (Source::Url { url }, None),
            }
        }
        (None, Some(file_id)) => (Source::FileId { file_id }, None),
        (None, None) => {
            vendor.set_hint(F, "no_source", true);
            (
                Source::FileId {
                    file_id: String::new(),
                },
                None,
            )
        }
    };
    merge_vendor(&mut vendor, rest(map));
    Part::Image(Media {
        source,
        media_type,
        name: None,
        meta: PartMeta {
            vendor,
            ..Default::default()
        },
    })
}

fn decode_file(mut f: w::InputFile) -> Part {
    let mut vendor = Vendor::default();
    if f.filename.is_none() && !f.extra.was_null("filename") {
        note_absent(&mut vendor, "filename");
    }
    let name = f.filename.take();
    let file_id = f.file_id.take();
    let file_url = f.file_url.take();
    let file_data = f.file_data.take();
    let mut map = to_map(&f);
    let mut put_back = |k: &str, x: Option<String>| {
        if let Some(x) = x {
            map.insert(k.to_owned(), Value::String(x));
        }
    };
    let (source, media_type) = if let Some(file_id) = file_id {
        put_back("file_url", file_url);
        put_back("file_data", file_data);
        (Source::FileId { file_id }, None)
    } else if let Some(url) = file_url {
        put_back("file_data", file_data);
        (Source::Url { url }, None)
    } else if let Some(data) = file_data {
        match parse_data_url(&data) {
            Some((mt, b64)) => (Source::Base64 { data: b64 }, Some(mt)),
            None => {
                vendor.set_hint(F, "raw_file_data", true);
                (Source::Base64 { data }, None)
            }
        }
    } else {
        vendor.set_hint(F, "no_source", true);
        (
            Source::FileId {
                file_id: String::new(),
            },
            None,
        )
    };
    merge_vendor(&mut vendor, rest(map));
    Part::Document(Media {
        source,
        media_type,
        name,
        meta: PartMeta {
            vendor,
            ..Default::default()
        },
    })
}

fn decode_call(c: w::FunctionCall) -> Part {
    let mut map = to_map(&c);
    for k in ["call_id", "name", "arguments"] {
        map.remove(k);
    }
    let mut vendor = rest(map);
    let arguments = match c.arguments {
        wire_types::Arguments::Text(t) => Arguments::Text(t),
        wire_types::Arguments::Json(j) => {
            vendor.set_hint(F, "args_json", true);
            Arguments::Value(j)
        }
    };
    Part::ToolCall(ToolCall {
        id: c.call_id,
        synthetic_id: false,
        name: c.name,
        arguments,
        meta: PartMeta {
            vendor,
            ..Default::default()
        },
    })
}

fn decode_reasoning(mut r: w::Reasoning) -> Part {
    let id = std::mem::take(&mut r.id);
    let summary_parts = std::mem::take(&mut r.summary);
    let content = r.content.take();
    let encrypted = r.encrypted_content.take();
    let mut map = to_map(&r);
    for k in ["id", "summary"] {
        map.remove(k);
    }
    let mut vendor = rest(map);

    let mut summary = Vec::with_capacity(summary_parts.len());
    let mut plain = true;
    for p in &summary_parts {
        match p {
            w::SummaryPart::SummaryText(t) => {
                plain &= t.extra.is_empty();
                summary.push(t.text.clone());
            }
            _ => plain = false,
        }
    }
    if !plain {
        vendor.set_field(F, "summary", wire_types::to_value(&summary_parts));
    }

    let text = match content {
        None => None,
        Some(parts) if parts.is_empty() => {
            keep_blank(&mut vendor, "content", Value::Array(Vec::new()));
            None
        }
        Some(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    w::ContentPart::ReasoningText(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect();
            let single_plain = matches!(
                parts.as_slice(),
                [w::ContentPart::ReasoningText(t)] if t.extra.is_empty()
            );
            let text = texts.join("\n");
            if !single_plain {
                vendor.set_field(F, "content", wire_types::to_value(&parts));
            }
            Some(text)
        }
    };
    Part::Reasoning(model::Reasoning {
        text,
        summary,
        signature: None,
        encrypted: encrypted.map(|value| Signed { value, format: F }),
        id: Some(id),
        source: Some(F),
        meta: PartMeta {
            vendor,
            ..Default::default()
        },
    })
}

/// Puts a blank value into the `kept` hint.
fn keep_blank(v: &mut Vendor, key: &str, value: Value) {
    v.format = Some(F);
    let kept = v
        .hints
        .get_or_insert_with("kept", || Value::Object(Map::new()));
    if let Value::Object(k) = kept {
        k.insert(key.to_owned(), value);
    }
}

/// A function output as a neutral result, with the source pointer of each content part.
fn decode_function_output(
    mut o: w::FunctionCallOutput,
    at: &str,
) -> Result<(ToolResult, Vec<String>), Error> {
    let Some(call_id) = o.call_id.take() else {
        return Err(Error::invalid(
            format!("{at}/call_id"),
            "missing field (a function_call_output needs the `call_id` of the call it answers)",
        ));
    };
    let output = std::mem::replace(&mut o.output, TextOrParts::Text(String::new()));
    let mut map = to_map(&o);
    map.remove("output");
    let name = match map.get("name") {
        Some(Value::String(_)) => map
            .remove("name")
            .and_then(|n| n.as_str().map(str::to_owned)),
        _ => None,
    };
    let mut meta = PartMeta {
        vendor: rest(map),
        ..Default::default()
    };
    if name.is_some() {
        meta.vendor.set_hint(F, "name", true);
    }
    let mut content = Vec::new();
    let mut sources = Vec::new();
    match output {
        TextOrParts::Text(s) => {
            content.push(Part::text(s));
            sources.push(format!("{at}/output"));
        }
        TextOrParts::Parts(ps) => {
            meta.vendor.set_hint(F, "parts", true);
            for (j, p) in ps.into_iter().enumerate() {
                content.push(decode_part(p, false));
                sources.push(format!("{at}/output/{j}"));
            }
        }
    }
    let result = ToolResult {
        call_id,
        name,
        content,
        is_error: false,
        meta,
    };
    Ok((result, sources))
}

/// Appends a result to the tool message at the end, or starts one.
fn push_result(
    messages: &mut Vec<Message>,
    result: ToolResult,
    sources: Vec<String>,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    if messages.last().is_none_or(|m| m.role != Role::Tool) {
        ctx.map(format_args!("/messages/{}", messages.len()), at.to_owned());
        messages.push(Message::new(Role::Tool, Vec::new()));
    }
    let n = messages.len() - 1;
    if let Some(last) = messages.last_mut() {
        let here = format!("/messages/{n}/content/{}", last.content.len());
        for (j, src) in sources.into_iter().enumerate() {
            ctx.map(format_args!("{here}/content/{j}"), src);
        }
        ctx.map(here, at.to_owned());
        last.content.push(Part::ToolResult(result));
    }
}

fn decode_tool(t: w::Tool) -> Tool {
    match t {
        w::Tool::Function(mut f) => {
            let mut vendor = Vendor::default();
            if f.parameters.is_none() && !f.extra.was_null("parameters") {
                note_absent(&mut vendor, "parameters");
            }
            if f.strict.is_none() && !f.extra.was_null("strict") {
                note_absent(&mut vendor, "strict");
            }
            let name = std::mem::take(&mut f.name);
            let description = f.description.take();
            let parameters = f.parameters.take();
            let strict = f.strict.take();
            let mut map = to_map(&f);
            map.remove("name");
            let output_schema = match map.get("output_schema") {
                Some(Value::Object(_)) => map.remove("output_schema"),
                _ => None,
            };
            merge_vendor(&mut vendor, rest(map));
            Tool::Function(ToolDef {
                name,
                description,
                input_schema: parameters,
                dialect: Dialect::JsonSchema,
                output_schema,
                strict,
                cache: None,
                vendor,
            })
        }
        other => Tool::Opaque(Opaque {
            format: F,
            value: wire_types::to_value(&other),
            meta: PartMeta::default(),
        }),
    }
}

fn decode_tool_choice(tc: &w::ToolChoice) -> Option<ToolChoice> {
    match tc {
        w::ToolChoice::Mode(w::ToolChoiceMode::Auto) => Some(ToolChoice::Auto),
        w::ToolChoice::Mode(w::ToolChoiceMode::None) => Some(ToolChoice::None),
        w::ToolChoice::Mode(w::ToolChoiceMode::Required) => Some(ToolChoice::Required),
        w::ToolChoice::Named(w::NamedToolChoice::Function(n)) if n.extra.is_empty() => {
            Some(ToolChoice::Tool {
                name: n.name.clone(),
            })
        }
        w::ToolChoice::Named(w::NamedToolChoice::AllowedTools(a)) if a.extra.is_empty() => {
            let required = match a.mode.as_str() {
                "auto" => false,
                "required" => true,
                _ => return None,
            };
            let names = a
                .tools
                .iter()
                .map(|t| match t {
                    Value::Object(m)
                        if m.len() == 2
                            && m.get("type").and_then(Value::as_str) == Some("function") =>
                    {
                        m.get("name").and_then(Value::as_str).map(str::to_owned)
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(ToolChoice::Allowed { names, required })
        }
        _ => None,
    }
}

/// Decodes a Responses response: its output is one choice.
pub fn decode_response(mut resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let mut v = Vendor::default();
    for (key, missing) in [
        ("id", resp.id.is_none()),
        ("created_at", resp.created_at.is_none()),
        ("model", resp.model.is_none()),
        ("object", resp.object.is_none()),
        ("parallel_tool_calls", resp.parallel_tool_calls.is_none()),
        ("tool_choice", resp.tool_choice.is_none()),
        ("tools", resp.tools.is_none()),
    ] {
        if missing && !resp.extra.was_null(key) {
            note_absent(&mut v, key);
        }
    }
    let output = std::mem::take(&mut resp.output);
    let id = resp.id.take();
    let model = resp.model.take();
    let created = resp.created_at.take();
    ctx.map("/created", "/created_at");
    let usage = resp.usage.take();
    let status = resp.status.take();
    let details = resp.incomplete_details.take();
    let has_calls = output.iter().any(|i| matches!(i, w::Item::FunctionCall(_)));
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
    merge_vendor(&mut v, rest(map));

    let neutral = "/choices/0/message";
    ctx.map(neutral, "/output");
    let mut message = Message::new(Role::Assistant, Vec::new());
    for (i, item) in output.into_iter().enumerate() {
        let at = format!("/output/{i}");
        let item = match item {
            // Only the assistant speaks in an output: anything else is kept whole.
            w::Item::Message(m) if m.role != w::Role::Assistant => {
                w::Item::Other(to_map(&w::Item::Message(m)))
            }
            w::Item::FunctionCallOutput(o) => {
                w::Item::Other(to_map(&w::Item::FunctionCallOutput(o)))
            }
            other => other,
        };
        push_assistant_item(&mut message, neutral, item, &at, ctx);
    }
    Ok(model::Response {
        id,
        model,
        created,
        choices: vec![Choice {
            message,
            stop_reason,
            vendor: Vendor::default(),
        }],
        usage: usage.map(decode_usage),
        vendor: v,
    })
}

/// The stop reason of a response, and its `incomplete_details` when they are not
/// implied by it (to keep as they are).
fn stop_reason(
    status: Option<w::ResponseStatus>,
    details: Option<w::IncompleteDetails>,
    has_calls: bool,
) -> (Option<StopReason>, Option<Value>) {
    let Some(status) = status else {
        return (None, details.map(|d| wire_types::to_value(&d)));
    };
    let reason = |kind: StopKind, raw: &str| StopReason {
        kind,
        raw: Some(raw.to_owned()),
        format: Some(F),
    };
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

fn decode_usage(mut u: w::Usage) -> Usage {
    let mut v = Vendor::default();
    for (key, missing) in [
        ("input_tokens", u.input_tokens.is_none()),
        ("output_tokens", u.output_tokens.is_none()),
        ("total_tokens", u.total_tokens.is_none()),
        ("input_tokens_details", u.input_tokens_details.is_none()),
        ("output_tokens_details", u.output_tokens_details.is_none()),
    ] {
        if missing && !u.extra.was_null(key) {
            note_absent(&mut v, key);
        }
    }
    let mut out = Usage {
        input_tokens: u.input_tokens.take(),
        output_tokens: u.output_tokens.take(),
        total_tokens: u.total_tokens.take(),
        ..Default::default()
    };
    let input_details = u.input_tokens_details.take();
    let output_details = u.output_tokens_details.take();
    merge_vendor(&mut v, rest(to_map(&u)));
    if let Some(mut d) = input_details {
        for (key, missing) in [
            ("cached_tokens", d.cached_tokens.is_none()),
            ("cache_write_tokens", d.cache_write_tokens.is_none()),
        ] {
            if missing && !d.extra.was_null(key) {
                note_absent(&mut v, &format!("input_tokens_details.{key}"));
            }
        }
        out.cached_input_tokens = d.cached_tokens.take();
        out.cache_write_tokens = d.cache_write_tokens.take();
        put_sub(&mut v, "input_tokens_details", to_map(&d));
    }
    if let Some(mut d) = output_details {
        if d.reasoning_tokens.is_none() && !d.extra.was_null("reasoning_tokens") {
            note_absent(&mut v, "output_tokens_details.reasoning_tokens");
        }
        out.reasoning_tokens = d.reasoning_tokens.take();
        put_sub(&mut v, "output_tokens_details", to_map(&d));
    }
    out.vendor = v;
    out
}

// ---------------------------------------------------------------------------------------
// Encoding

/// Encodes a neutral request as a Responses request.
pub fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let v = req.vendor;
    let mut out: w::Request = from_map(rebuild(&v, ctx, ""), "")?;
    out.model = req.model;
    if out.model.is_none() && !is_absent(&v, "model") {
        ctx.loss(
            "/model",
            LossKind::Changed,
            "the source has no model (it may be in its URL); set `model` before sending",
        );
    }
    if let Some(tools) = encode_tools(req.tools, ctx) {
        out.tools = Some(tools);
    }

    let mut items = Vec::with_capacity(req.messages.len());
    let mut input_string = false;
    for (i, m) in req.messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        match m.role {
            role if i == 0 && role.is_system() && m.vendor.flag(F, "instructions") => {
                out.instructions = Some(instructions_text(m, &at, ctx));
            }
            Role::System | Role::Developer | Role::User if m.vendor.flag(F, "items") => {
                for (j, p) in m.content.into_iter().enumerate() {
                    let pat = format!("{at}/content/{j}");
                    match p {
                        Part::Opaque(o) if is_item(&o) => items.push(item_of(o, &pat)?),
                        other => ctx.loss(
                            pat,
                            LossKind::Dropped,
                            format!("a {} part among {F} items has no place", other.kind()),
                        ),
                    }
                }
            }
            Role::System | Role::Developer | Role::User => {
                input_string |= m.role == Role::User && m.vendor.flag(F, "input_string");
                items.push(encode_input_message(m, &at, ctx)?);
            }
            Role::Assistant => encode_assistant(m, &at, Mode::Request, &mut items, ctx)?,
            Role::Tool => {
                for (j, p) in m.content.into_iter().enumerate() {
                    let pat = format!("{at}/content/{j}");
                    match p {
                        Part::ToolResult(r) => items.push(encode_function_output(r, &pat, ctx)?),
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
    out.input = match items.as_slice() {
        [w::Item::Message(m)]
            if input_string
                && m.role == w::Role::User
                && m.kind.is_none()
                && m.content.text().is_some()
                && m.id.is_none()
                && m.status.is_none()
                && m.phase.is_none()
                && m.extra.is_empty() =>
        {
            Some(w::Input::Text(
                m.content.text().unwrap_or_default().to_owned(),
            ))
        }
        [] if !v.flag(F, "input_items") => None,
        _ => Some(w::Input::Items(items)),
    };

    if let Some(c) = req.tool_choice {
        out.tool_choice = Some(encode_tool_choice(c));
    }
    let s = req.settings;
    out.max_output_tokens = s.max_tokens.or(out.max_output_tokens);
    out.temperature = s.temperature.or(out.temperature);
    out.top_p = s.top_p.or(out.top_p);
    out.parallel_tool_calls = s.parallel_tool_calls.or(out.parallel_tool_calls);
    out.stream = s.stream.or(out.stream);
    for (key, set) in [
        ("stop", s.stop.is_some()),
        ("seed", s.seed.is_some()),
        ("top_k", s.top_k.is_some()),
        ("presence_penalty", s.presence_penalty.is_some()),
        ("frequency_penalty", s.frequency_penalty.is_some()),
    ] {
        if set {
            ctx.loss(
                format!("/settings/{key}"),
                LossKind::Dropped,
                format!("{F} has no `{key}` setting"),
            );
        }
    }
    if let Some(r) = s.reasoning {
        let mut rc = out.reasoning.take().unwrap_or_default();
        rc.effort = encode_effort(&r, "/settings/reasoning", ctx).or(rc.effort);
        if r.include == Some(true) {
            let summary = v
                .hint(F, "summary")
                .and_then(Value::as_str)
                .unwrap_or("auto");
            rc.summary = Some(summary.to_owned());
        }
        out.reasoning = Some(rc);
    }
    if let Some(f) = req.output_format {
        let mut tc = out.text.take().unwrap_or_default();
        if tc.format.is_none() {
            tc.format = Some(encode_format(f));
        }
        out.text = Some(tc);
    }
    Ok(out)
}

/// The text of the message that was `instructions` (a string: other parts are lost).
fn instructions_text(m: Message, at: &str, ctx: &mut Ctx<'_>) -> String {
    let mut text = String::new();
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        match p {
            Part::Text(t) => {
                meta_losses(&t.meta, &pat, ctx);
                let _ = rebuild(&t.meta.vendor, ctx, &pat);
                text.push_str(&t.text);
            }
            other => ctx.loss(
                pat,
                LossKind::Dropped,
                format!(
                    "`instructions` is text only: a {} part has no place",
                    other.kind()
                ),
            ),
        }
    }
    text
}

/// An opaque item written back whole.
fn item_of(o: Opaque, at: &str) -> Result<w::Item, Error> {
    match o.value {
        Value::Object(m) => from_map(m, at),
        _ => Err(Error::invalid(
            at.to_owned(),
            "an opaque item is not an object",
        )),
    }
}

fn encode_effort(r: &ReasoningConfig, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ReasoningEffort> {
    if let Some(e) = &r.effort {
        if r.budget_tokens.is_some() {
            ctx.loss(
                format!("{at}/budget_tokens"),
                LossKind::Dropped,
                format!("{F} takes an effort level only; the token budget is left out"),
            );
        }
        let lower = e.to_ascii_lowercase();
        return Some(w::ReasoningEffort::from(lower.as_str()));
    }
    if r.enabled == Some(false) {
        return Some(w::ReasoningEffort::None);
    }
    if let Some(b) = r.budget_tokens {
        let e = crate::util::budget_to_effort(b);
        ctx.loss(
            format!("{at}/budget_tokens"),
            LossKind::Changed,
            format!("{F} takes an effort level, not a token budget: {b} tokens sent as `{e}`"),
        );
        return Some(w::ReasoningEffort::from(e));
    }
    None
}

fn encode_format(f: OutputFormat) -> w::TextFormat {
    match f {
        OutputFormat::Text => w::TextFormat::Text(w::NoFields::default()),
        OutputFormat::JsonObject => w::TextFormat::JsonObject(w::NoFields::default()),
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => w::TextFormat::JsonSchema(w::JsonSchemaFormat {
            name: name.unwrap_or_else(|| "output".to_owned()),
            schema,
            description: None,
            strict,
            extra: Default::default(),
        }),
    }
}

fn encode_tool_choice(c: ToolChoice) -> w::ToolChoice {
    match c {
        ToolChoice::Auto => w::ToolChoice::Mode(w::ToolChoiceMode::Auto),
        ToolChoice::None => w::ToolChoice::Mode(w::ToolChoiceMode::None),
        ToolChoice::Required => w::ToolChoice::Mode(w::ToolChoiceMode::Required),
        ToolChoice::Tool { name } => {
            w::ToolChoice::Named(w::NamedToolChoice::Function(w::NameChoice {
                name,
                extra: Default::default(),
            }))
        }
        ToolChoice::Allowed { names, required } => {
            w::ToolChoice::Named(w::NamedToolChoice::AllowedTools(w::AllowedToolsChoice {
                mode: if required { "required" } else { "auto" }.to_owned(),
                tools: names
                    .into_iter()
                    .map(|n| json!({"type": "function", "name": n}))
                    .collect(),
                extra: Default::default(),
            }))
        }
    }
}

/// Encodes tool definitions as a Responses `tools` array (`None` for none).
pub fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    if tools.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(tools.len());
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        let tool = match t {
            Tool::Function(def) => encode_tool_def(def, &at, ctx),
            Tool::Opaque(o) if o.format == F => from_map_value(o.value, &at),
            Tool::Opaque(o) => {
                ctx.loss(
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
                );
                continue;
            }
        };
        match tool {
            Ok(t) => out.push(t),
            Err(e) => ctx.loss(at, LossKind::Dropped, e.to_string()),
        }
    }
    Some(out)
}

fn from_map_value<T: DeserializeOwned>(value: Value, at: &str) -> Result<T, Error> {
    match value {
        Value::Object(m) => from_map(m, at),
        _ => Err(Error::invalid(
            at.to_owned(),
            "an opaque value is not an object",
        )),
    }
}

fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> Result<w::Tool, Error> {
    let v = &def.vendor;
    let mut map = rebuild(v, ctx, at);
    map.insert("name".into(), Value::String(def.name));
    if let Some(d) = def.description {
        map.insert("description".into(), Value::String(d));
    }
    let parameters = def.input_schema.map(|s| {
        let s = match def.dialect {
            Dialect::GeminiOpenapi => schema::from_gemini(&s),
            Dialect::JsonSchema => s,
        };
        let s = match schema::wrap_non_object(&s) {
            Some(wrapped) => {
                ctx.loss(
                    format!("{at}/input_schema"),
                    LossKind::Changed,
                    "a non-object input schema is exposed as {\"input\": <schema>}",
                );
                wrapped
            }
            None => s,
        };
        if def.strict == Some(true) {
            schema::to_openai_strict(&s, ctx, &format!("{at}/input_schema"))
        } else {
            s
        }
    });
    match parameters {
        Some(p) => {
            map.insert("parameters".into(), p);
        }
        // Required (nullable) by the SDK.
        None if !is_absent(v, "parameters") && !map.contains_key("parameters") => {
            map.insert("parameters".into(), Value::Null);
        }
        None => {}
    }
    match def.strict {
        Some(b) => {
            map.insert("strict".into(), Value::Bool(b));
        }
        // Always sent (providers.md §2.3): `false` keeps the source's non-strict schema.
        None if !is_absent(v, "strict") && !map.contains_key("strict") => {
            map.insert("strict".into(), Value::Bool(false));
        }
        None => {}
    }
    if let Some(os) = def.output_schema {
        map.insert("output_schema".into(), os);
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            format!("{F} has no cache marker"),
        );
    }
    from_map(tagged("function", map), at)
}

/// Which body an assistant message is written into: a request replays it, a response
/// returns it (and needs item ids and statuses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Request,
    /// With the status for the message items it makes up.
    Response(&'static str),
}

/// An assistant message item being built from consecutive text parts.
struct MsgItem {
    head: Map<String, Value>,
    /// Content was a string (written back as one).
    string: bool,
    /// An easy message of another format's text: the texts are joined into a string.
    easy: bool,
    parts: Vec<w::ContentPart>,
    at: String,
}

impl MsgItem {
    /// The item the `msg` hint of a part describes, if it has one.
    fn from_hint(v: &Vendor, fields: &mut Map<String, Value>, at: &str) -> Option<MsgItem> {
        let Some(Value::Object(h)) = v.hint(F, "msg") else {
            return None;
        };
        let mut head = Map::new();
        if h.get("typed") == Some(&Value::Bool(true)) {
            head.insert("type".into(), Value::String("message".into()));
        }
        head.insert("role".into(), Value::String("assistant".into()));
        if let Some(Value::Object(kept)) = h.get("kept") {
            head.extend(kept.clone());
        }
        let keys: Vec<String> = fields
            .keys()
            .filter(|k| k.starts_with("$msg."))
            .cloned()
            .collect();
        for k in keys {
            if let Some(x) = fields.remove(&k) {
                head.insert(k.trim_start_matches("$msg.").to_owned(), x);
            }
        }
        Some(MsgItem {
            head,
            string: h.get("parts") != Some(&Value::Bool(true)),
            easy: false,
            parts: Vec::new(),
            at: at.to_owned(),
        })
    }

    /// A message item for text of another format.
    fn new(mode: Mode, k: usize, at: &str) -> MsgItem {
        let mut head = Map::new();
        match mode {
            Mode::Request => {
                head.insert("role".into(), Value::String("assistant".into()));
            }
            Mode::Response(status) => {
                head.insert("type".into(), Value::String("message".into()));
                head.insert("id".into(), Value::String(format!("msg_{k}")));
                head.insert("role".into(), Value::String("assistant".into()));
                head.insert("status".into(), Value::String(status.into()));
            }
        }
        MsgItem {
            head,
            string: false,
            easy: mode == Mode::Request,
            parts: Vec::new(),
            at: at.to_owned(),
        }
    }

    fn finish(self) -> Result<w::Item, Error> {
        let text_of = |p: &w::ContentPart| match p {
            w::ContentPart::OutputText(t) => t.text.clone(),
            w::ContentPart::InputText(t) => t.text.clone(),
            w::ContentPart::Refusal(r) => r.refusal.clone(),
            _ => String::new(),
        };
        let content = if self.easy {
            TextOrParts::Text(self.parts.iter().map(text_of).collect())
        } else if let (true, [only]) = (self.string, self.parts.as_slice()) {
            TextOrParts::Text(text_of(only))
        } else {
            TextOrParts::Parts(self.parts)
        };
        let mut head = self.head;
        head.insert("content".into(), wire_types::to_value(&content));
        Ok(w::Item::Message(from_map(head, &self.at)?))
    }
}

fn flush(cur: &mut Option<MsgItem>, out: &mut Vec<w::Item>) -> Result<(), Error> {
    if let Some(m) = cur.take() {
        out.push(m.finish()?);
    }
    Ok(())
}

/// Splits an assistant message into items, in part order.
fn encode_assistant(
    m: Message,
    at: &str,
    mode: Mode,
    out: &mut Vec<w::Item>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let _ = rebuild(&m.vendor, ctx, at);
    // Another format's empty text beside calls (Mistral's `content: ""`) is no message
    // item: an empty assistant message before the function calls says nothing.
    let calls = m.content.iter().any(|p| matches!(p, Part::ToolCall(_)));
    let mut cur: Option<MsgItem> = None;
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        // Text-like parts join the current message item (or start one).
        let (text, refusal, meta) = match p {
            Part::Text(t) if calls && t.text.is_empty() && t.meta.vendor.format != Some(F) => {
                meta_losses(&t.meta, &pat, ctx);
                let _ = rebuild(&t.meta.vendor, ctx, &pat);
                continue;
            }
            Part::Text(t) => (Some(t.text), false, t.meta),
            Part::Refusal(t) => (Some(t.text), true, t.meta),
            Part::ToolCall(c) => {
                flush(&mut cur, out)?;
                out.push(encode_call(c, &pat, ctx)?);
                continue;
            }
            Part::Reasoning(r) => {
                flush(&mut cur, out)?;
                let k = out.len();
                if let Some(item) = encode_reasoning(r, &pat, mode, k, ctx)? {
                    out.push(item);
                }
                continue;
            }
            Part::Opaque(o) if is_item(&o) => {
                flush(&mut cur, out)?;
                out.push(item_of(o, &pat)?);
                continue;
            }
            Part::Opaque(o) if o.format == F => {
                let part: w::ContentPart = from_map_value(o.value, &pat)?;
                cur.get_or_insert_with(|| MsgItem::new(mode, out.len(), &pat))
                    .parts
                    .push(part);
                continue;
            }
            Part::Opaque(o) => match opaque_elsewhere(ctx, &o, &pat) {
                Some(Part::Text(t)) => (Some(t.text), false, PartMeta::default()),
                _ => continue,
            },
            Part::Json(j) => {
                ctx.loss(
                    pat.clone(),
                    LossKind::Changed,
                    "a JSON part is sent as its JSON text",
                );
                (Some(j.value.to_string()), false, j.meta)
            }
            other @ (Part::Image(_) | Part::Audio(_) | Part::Document(_)) => {
                ctx.loss(
                    pat,
                    LossKind::Dropped,
                    format!("{F} assistant messages carry no {} parts", other.kind()),
                );
                continue;
            }
            Part::ToolResult(_) => {
                ctx.loss(
                    pat,
                    LossKind::Dropped,
                    "a tool result in an assistant message has no place",
                );
                continue;
            }
        };
        let text = text.unwrap_or_default();
        meta_losses(&meta, &pat, ctx);
        let mut fields = rebuild(&meta.vendor, ctx, &pat);
        if let Some(item) = MsgItem::from_hint(&meta.vendor, &mut fields, &pat) {
            flush(&mut cur, out)?;
            cur = Some(item);
        }
        let item = cur.get_or_insert_with(|| MsgItem::new(mode, out.len(), &pat));
        let part = if refusal && item.easy {
            ctx.loss(
                pat.clone(),
                LossKind::Changed,
                format!("{F} replays another format's refusal as assistant text"),
            );
            text_part(text, fields, &meta.vendor, true, &pat)?
        } else if refusal {
            fields.insert("refusal".into(), Value::String(text));
            from_map(tagged("refusal", fields), &pat)?
        } else {
            text_part(text, fields, &meta.vendor, true, &pat)?
        };
        item.parts.push(part);
    }
    flush(&mut cur, out)
}

/// A text part: `output_text` in an assistant message, `input_text` elsewhere, unless the
/// `kind` hint says otherwise.
fn text_part(
    text: String,
    mut fields: Map<String, Value>,
    v: &Vendor,
    assistant: bool,
    at: &str,
) -> Result<w::ContentPart, Error> {
    let kind = v
        .hint(F, "kind")
        .and_then(Value::as_str)
        .unwrap_or(if assistant {
            "output_text"
        } else {
            "input_text"
        })
        .to_owned();
    fields.insert("text".into(), Value::String(text));
    if kind == "output_text" && !fields.contains_key("annotations") && !is_absent(v, "annotations")
    {
        fields.insert("annotations".into(), Value::Array(Vec::new()));
    }
    from_map(tagged(&kind, fields), at)
}

fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> Result<w::Item, Error> {
    meta_losses(&c.meta, at, ctx);
    let v = &c.meta.vendor;
    let mut map = rebuild(v, ctx, at);
    map.insert("call_id".into(), Value::String(c.id));
    map.insert("name".into(), Value::String(c.name));
    let arguments = match c.arguments {
        Arguments::Value(val) if v.flag(F, "args_json") => val,
        other => Value::String(other.text()),
    };
    map.insert("arguments".into(), arguments);
    from_map(tagged("function_call", map), at)
}

/// A reasoning part as a reasoning item: this format's own items go back as they came;
/// another format's reasoning has no place in a request (a loss) and becomes a reasoning
/// item with a made-up id (`rs_<k>`) in a response.
fn encode_reasoning(
    r: model::Reasoning,
    at: &str,
    mode: Mode,
    k: usize,
    ctx: &mut Ctx<'_>,
) -> Result<Option<w::Item>, Error> {
    drop_cache(ctx, &r.meta, at);
    if r.source == Some(F) {
        let _ = ctx.own(
            r.signature.as_ref(),
            format_args!("{at}/signature"),
            "a reasoning signature",
        );
        let encrypted = ctx
            .own(
                r.encrypted.as_ref(),
                format_args!("{at}/encrypted"),
                "encrypted reasoning",
            )
            .map(str::to_owned);
        let Some(id) = r.id else {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("a {F} reasoning item without its id cannot be replayed"),
            );
            return Ok(None);
        };
        let mut map = rebuild(&r.meta.vendor, ctx, at);
        map.insert("id".into(), Value::String(id));
        if !map.contains_key("summary") {
            map.insert("summary".into(), summary_parts(&r.summary));
        }
        if !map.contains_key("content") {
            if let Some(t) = r.text {
                map.insert(
                    "content".into(),
                    json!([{"type": "reasoning_text", "text": t}]),
                );
            }
        }
        if let Some(e) = encrypted {
            map.insert("encrypted_content".into(), Value::String(e));
        }
        return Ok(Some(from_map(tagged("reasoning", map), at)?));
    }
    let Some(view) = ctx.reasoning(&r, at) else {
        return Ok(None);
    };
    let _ = rebuild(&r.meta.vendor, ctx, at);
    match mode {
        Mode::Request => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!(
                    "{F} requests replay only its own reasoning items (id and encrypted content); reasoning from {} has no place",
                    r.source.map(|f| f.name()).unwrap_or("another source")
                ),
            );
            Ok(None)
        }
        Mode::Response(_) => {
            let mut map = Map::new();
            map.insert("id".into(), Value::String(format!("rs_{k}")));
            map.insert("summary".into(), summary_parts(view.summary));
            if let Some(t) = view.text.filter(|t| !t.is_empty()) {
                map.insert(
                    "content".into(),
                    json!([{"type": "reasoning_text", "text": t}]),
                );
            }
            Ok(Some(from_map(tagged("reasoning", map), at)?))
        }
    }
}

fn summary_parts(summary: &[String]) -> Value {
    Value::Array(
        summary
            .iter()
            .map(|s| json!({"type": "summary_text", "text": s}))
            .collect(),
    )
}

/// A user, system or developer message item.
fn encode_input_message(m: Message, at: &str, ctx: &mut Ctx<'_>) -> Result<w::Item, Error> {
    let v = &m.vendor;
    let mut head = Map::new();
    if v.flag(F, "typed") {
        head.insert("type".into(), Value::String("message".into()));
    }
    let role = match m.role {
        Role::System => "system",
        Role::Developer => "developer",
        _ => "user",
    };
    head.insert("role".into(), Value::String(role.into()));
    head.extend(rebuild(v, ctx, at));
    let mut parts = Vec::with_capacity(m.content.len());
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        if let Some(part) = encode_input_part(p, &pat, ctx)? {
            parts.push(part);
        }
    }
    let content = match parts.as_slice() {
        [w::ContentPart::InputText(t)] if !v.flag(F, "parts") && t.extra.is_empty() => {
            TextOrParts::Text(t.text.clone())
        }
        [] if !v.flag(F, "parts") => TextOrParts::Text(String::new()),
        _ => TextOrParts::Parts(parts),
    };
    head.insert("content".into(), wire_types::to_value(&content));
    Ok(w::Item::Message(from_map(head, at)?))
}

/// One part of a user, system or developer message, or of a function output.
fn encode_input_part(
    p: Part,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Result<Option<w::ContentPart>, Error> {
    meta_losses(p.meta(), at, ctx);
    Ok(Some(match p {
        Part::Text(t) => {
            let fields = rebuild(&t.meta.vendor, ctx, at);
            text_part(t.text, fields, &t.meta.vendor, false, at)?
        }
        Part::Refusal(t) => {
            let mut fields = rebuild(&t.meta.vendor, ctx, at);
            fields.insert("refusal".into(), Value::String(t.text));
            from_map(tagged("refusal", fields), at)?
        }
        Part::Image(m) => match encode_image(m, at, ctx)? {
            Some(p) => p,
            None => return Ok(None),
        },
        Part::Document(m) => return encode_file(m, at, ctx),
        Part::Audio(_) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("{F} takes no audio input"),
            );
            return Ok(None);
        }
        Part::Json(j) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "a JSON part is sent as its JSON text",
            );
            text_part(
                j.value.to_string(),
                Map::new(),
                &Vendor::default(),
                false,
                at,
            )?
        }
        Part::Opaque(o) if o.format == F && !is_item(&o) => from_map_value(o.value, at)?,
        Part::Opaque(o) if o.format == F => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("a whole {F} item has no place inside a message"),
            );
            return Ok(None);
        }
        Part::Opaque(o) => match opaque_elsewhere(ctx, &o, at) {
            Some(Part::Text(t)) => text_part(t.text, Map::new(), &Vendor::default(), false, at)?,
            _ => return Ok(None),
        },
        other @ (Part::Reasoning(_) | Part::ToolCall(_) | Part::ToolResult(_)) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!(
                    "a {} part outside an assistant or tool message has no place in {F}",
                    other.kind()
                ),
            );
            return Ok(None);
        }
    }))
}

fn encode_image(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Result<Option<w::ContentPart>, Error> {
    // OpenAI Chat's `detail` means the same here: carry it instead of dropping it.
    let mut vendor = m.meta.vendor.clone();
    let chat_detail = if vendor.format == Some(Format::OpenaiChat) {
        vendor.fields.shift_remove("detail")
    } else {
        None
    };
    let mut fields = rebuild(&vendor, ctx, at);
    match m.source {
        Source::Url { url } => {
            fields.insert("image_url".into(), Value::String(url));
        }
        Source::Base64 { data } => {
            fields.insert(
                "image_url".into(),
                Value::String(data_url(m.media_type.as_deref(), &data)),
            );
        }
        Source::FileId { file_id } if file_id.is_empty() && vendor.flag(F, "no_source") => {}
        Source::FileId { file_id } => {
            fields.insert("file_id".into(), Value::String(file_id));
        }
        Source::Text { .. } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("an image given as text has no form in {F}"),
            );
            return Ok(None);
        }
    }
    if !fields.contains_key("detail") && !is_absent(&vendor, "detail") {
        // Required by the SDK in messages; `auto` is the API's default.
        fields.insert(
            "detail".into(),
            chat_detail.unwrap_or_else(|| Value::String("auto".into())),
        );
    }
    if m.name.is_some() {
        ctx.loss(
            format!("{at}/name"),
            LossKind::Dropped,
            format!("{F} images have no name"),
        );
    }
    Ok(Some(from_map(tagged("input_image", fields), at)?))
}

fn encode_file(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Result<Option<w::ContentPart>, Error> {
    let v = &m.meta.vendor;
    let mut fields = rebuild(v, ctx, at);
    let inline = matches!(m.source, Source::Base64 { .. });
    match m.source {
        Source::FileId { file_id } if file_id.is_empty() && v.flag(F, "no_source") => {}
        Source::FileId { file_id } => {
            fields.insert("file_id".into(), Value::String(file_id));
        }
        Source::Url { url } => {
            fields.insert("file_url".into(), Value::String(url));
        }
        Source::Base64 { data } => {
            let data = if v.flag(F, "raw_file_data") {
                data
            } else {
                data_url(m.media_type.as_deref(), &data)
            };
            fields.insert("file_data".into(), Value::String(data));
        }
        Source::Text { text } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!("{F} has no text documents: sent as a text part"),
            );
            if m.name.is_some() {
                ctx.loss(
                    format!("{at}/name"),
                    LossKind::Dropped,
                    "the document's title has no place in a text part",
                );
            }
            return Ok(Some(text_part(
                text,
                Map::new(),
                &Vendor::default(),
                false,
                at,
            )?));
        }
    }
    match m.name {
        Some(n) => {
            fields.insert("filename".into(), Value::String(n));
        }
        // Inline data needs a file name.
        None if inline && !is_absent(v, "filename") && !fields.contains_key("filename") => {
            let name = match m.media_type.as_deref() {
                Some("application/pdf") => "document.pdf",
                _ => "document",
            };
            fields.insert("filename".into(), Value::String(name.into()));
        }
        None => {}
    }
    Ok(Some(from_map(tagged("input_file", fields), at)?))
}

fn encode_function_output(r: ToolResult, at: &str, ctx: &mut Ctx<'_>) -> Result<w::Item, Error> {
    meta_losses(&r.meta, at, ctx);
    let v = &r.meta.vendor;
    let mut map = rebuild(v, ctx, at);
    let mut parts = Vec::with_capacity(r.content.len());
    for (j, p) in r.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        let part = match p {
            // A structured result is its JSON text here.
            Part::Json(j) => {
                meta_losses(&j.meta, &pat, ctx);
                let _ = ctx.vendor_fields(&j.meta.vendor, &pat);
                Some(text_part(
                    j.value.to_string(),
                    Map::new(),
                    &Vendor::default(),
                    false,
                    &pat,
                )?)
            }
            other => encode_input_part(other, &pat, ctx)?,
        };
        parts.extend(part);
    }
    if r.is_error {
        ctx.loss(
            format!("{at}/is_error"),
            LossKind::Changed,
            format!("{F} has no error flag on function outputs: the text is prefixed `Error: `"),
        );
        match parts.first_mut() {
            // Already says so: no `Error: Error: …`.
            Some(w::ContentPart::InputText(t)) if t.text.starts_with("Error:") => {}
            Some(w::ContentPart::InputText(t)) => t.text.insert_str(0, "Error: "),
            _ => parts.insert(
                0,
                w::ContentPart::InputText(w::TextPart {
                    text: "Error: ".into(),
                    extra: Default::default(),
                }),
            ),
        }
    }
    let output = match parts.as_slice() {
        [w::ContentPart::InputText(t)] if !v.flag(F, "parts") && t.extra.is_empty() => {
            TextOrParts::Text(t.text.clone())
        }
        [] if !v.flag(F, "parts") => TextOrParts::Text(String::new()),
        _ => TextOrParts::Parts(parts),
    };
    map.insert("call_id".into(), Value::String(r.call_id));
    if v.flag(F, "name") {
        if let Some(n) = r.name {
            map.insert("name".into(), Value::String(n));
        }
    }
    map.insert("output".into(), wire_types::to_value(&output));
    from_map(tagged("function_call_output", map), at)
}

/// Encodes a neutral response as a Responses response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut map = rebuild(&v, ctx, "");
    map.insert("output".into(), Value::Array(Vec::new()));
    let mut out: w::Response = from_map(map, "")?;
    let fill = |key: &str| !is_absent(&v, key);

    out.id = resp.id.or_else(|| fill("id").then(String::new));
    out.model = resp.model.or_else(|| fill("model").then(String::new));
    // Required by the SDK: documented defaults where the source said nothing.
    if out.object.is_none() && fill("object") {
        out.object = Some("response".into());
    }
    out.created_at = resp.created.or(out.created_at);
    if out.created_at.is_none() && fill("created_at") {
        out.created_at = Some(0);
    }
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
    for (i, c) in resp.choices.into_iter().enumerate() {
        let at = format!("/choices/{i}");
        if i > 0 {
            ctx.loss(
                at,
                LossKind::Dropped,
                format!("{F} returns one output: only the first choice is kept"),
            );
            continue;
        }
        let _ = rebuild(&c.vendor, ctx, &at);
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
        )?;
    }
    out.output = items;
    out.usage = resp.usage.map(|u| encode_usage(u, ctx)).transpose()?;
    Ok(out)
}

/// A response status (and incomplete details) for a stop reason.
fn encode_stop(
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
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!("stop reason `{raw}` is written as status `failed`"),
            );
            (w::ResponseStatus::Failed, None)
        }
        StopKind::Pause => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                format!("stop reason `{raw}` is written as status `incomplete`"),
            );
            (w::ResponseStatus::Incomplete, None)
        }
        StopKind::Other => {
            let status = w::ResponseStatus::from(raw);
            if status.is_known() {
                (status, None)
            } else {
                ctx.loss(
                    at.to_owned(),
                    LossKind::Changed,
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

fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> Result<w::Usage, Error> {
    let v = &u.vendor;
    let mut out: w::Usage = from_map(rebuild(v, ctx, "/usage"), "/usage")?;
    let fill = |key: &str| !is_absent(v, key);
    for (key, value) in [
        ("input_tokens", &u.input_tokens),
        ("output_tokens", &u.output_tokens),
    ] {
        if value.is_none() && fill(key) {
            ctx.loss(
                format!("/usage/{key}"),
                LossKind::Changed,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, convert_request_value, convert_response_value, decode_request};

    fn status(s: &str) -> Option<w::ResponseStatus> {
        Some(w::ResponseStatus::from(s))
    }

    fn details(reason: &str) -> Option<w::IncompleteDetails> {
        Some(w::IncompleteDetails {
            reason: Some(w::IncompleteReason::from(reason)),
            extra: Default::default(),
        })
    }

    #[test]
    fn status_and_incomplete_reason_make_the_stop_reason() {
        let kind_raw = |(r, left): (Option<StopReason>, Option<Value>)| {
            let r = r.unwrap();
            assert_eq!(r.format, Some(F));
            (r.kind, r.raw.unwrap(), left)
        };
        assert_eq!(
            kind_raw(stop_reason(status("completed"), None, false)),
            (StopKind::EndTurn, "completed".into(), None)
        );
        // Tool use shows only as function_call items; the status stays `completed`.
        assert_eq!(
            kind_raw(stop_reason(status("completed"), None, true)),
            (StopKind::ToolUse, "completed".into(), None)
        );
        // The reason is the raw value, and the details are implied by it.
        assert_eq!(
            kind_raw(stop_reason(
                status("incomplete"),
                details("max_output_tokens"),
                false
            )),
            (StopKind::MaxTokens, "max_output_tokens".into(), None)
        );
        assert_eq!(
            kind_raw(stop_reason(
                status("incomplete"),
                details("content_filter"),
                false
            )),
            (StopKind::ContentFilter, "content_filter".into(), None)
        );
        assert_eq!(
            kind_raw(stop_reason(status("incomplete"), details("steered"), false)),
            (StopKind::Other, "steered".into(), None)
        );
        assert_eq!(
            kind_raw(stop_reason(status("incomplete"), None, false)),
            (StopKind::Other, "incomplete".into(), None)
        );
        assert_eq!(
            kind_raw(stop_reason(status("failed"), None, false)),
            (StopKind::Error, "failed".into(), None)
        );
        assert_eq!(
            kind_raw(stop_reason(status("cancelled"), None, false)),
            (StopKind::Other, "cancelled".into(), None)
        );
        // Details that a `completed` status does not imply are kept as they are.
        let (_, left) = stop_reason(status("completed"), details("max_output_tokens"), false);
        assert_eq!(left, Some(json!({"reason": "max_output_tokens"})));
        assert_eq!(stop_reason(None, None, false), (None, None));
    }

    #[test]
    fn stop_kinds_of_other_formats_become_a_status() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let enc = |kind, raw: Option<&str>, format, ctx: &mut Ctx<'_>| {
            let r = StopReason {
                kind,
                raw: raw.map(str::to_owned),
                format,
            };
            let (s, d) = encode_stop(&r, "/choices/0/stop_reason", ctx);
            (
                s.as_str().to_owned(),
                d.and_then(|d| d.reason).map(|r| r.as_str().to_owned()),
            )
        };
        let anthropic = Some(Format::Anthropic);
        assert_eq!(
            enc(StopKind::MaxTokens, Some("max_tokens"), anthropic, &mut ctx),
            ("incomplete".into(), Some("max_output_tokens".into()))
        );
        assert_eq!(
            enc(
                StopKind::ContentFilter,
                Some("refusal"),
                anthropic,
                &mut ctx
            ),
            ("incomplete".into(), Some("content_filter".into()))
        );
        assert_eq!(
            enc(StopKind::ToolUse, Some("tool_use"), anthropic, &mut ctx),
            ("completed".into(), None)
        );
        assert!(ctx.losses().is_empty());
        assert_eq!(
            enc(
                StopKind::Error,
                Some("MALFORMED_FUNCTION_CALL"),
                Some(Format::Gemini),
                &mut ctx
            ),
            ("failed".into(), None)
        );
        assert_eq!(
            enc(StopKind::Pause, Some("pause_turn"), anthropic, &mut ctx),
            ("incomplete".into(), None)
        );
        assert_eq!(ctx.losses().len(), 2);
        // This format's own raw value goes back as it came.
        assert_eq!(
            enc(StopKind::Other, Some("steered"), Some(F), &mut ctx),
            ("incomplete".into(), Some("steered".into()))
        );
        assert_eq!(
            enc(StopKind::Other, Some("cancelled"), Some(F), &mut ctx),
            ("cancelled".into(), None)
        );
        assert_eq!(ctx.losses().len(), 2);
    }

    #[test]
    fn usage_from_another_format_fills_the_required_details() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let u = Usage {
            input_tokens: Some(100),
            output_tokens: Some(50),
            cached_input_tokens: Some(20),
            reasoning_tokens: Some(30),
            ..Default::default()
        };
        let out = wire_types::to_value(&encode_usage(u, &mut ctx).unwrap());
        assert_eq!(
            out,
            json!({
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 20, "cache_write_tokens": 0},
                "output_tokens": 50,
                "output_tokens_details": {"reasoning_tokens": 30},
                "total_tokens": 150
            })
        );
        assert!(ctx.losses().is_empty());
        // A missing count is written as 0, with a loss.
        let u = Usage {
            output_tokens: Some(7),
            ..Default::default()
        };
        let out = wire_types::to_value(&encode_usage(u, &mut ctx).unwrap());
        assert_eq!(out["input_tokens"], 0);
        assert_eq!(out["total_tokens"], 7);
        assert_eq!(ctx.losses().len(), 1);
        assert_eq!(ctx.losses()[0].path, "/usage/input_tokens");
    }

    #[test]
    fn usage_reads_cached_and_reasoning_tokens() {
        let u: w::Usage = wire_types::from_value(&json!({
            "input_tokens": 7243,
            "input_tokens_details": {"cached_tokens": 3072},
            "output_tokens": 423,
            "output_tokens_details": {"reasoning_tokens": 58},
            "total_tokens": 7666
        }))
        .unwrap();
        let n = decode_usage(u);
        assert_eq!(
            (
                n.input_tokens,
                n.cached_input_tokens,
                n.cache_write_tokens,
                n.output_tokens,
                n.reasoning_tokens,
                n.total_tokens
            ),
            (
                Some(7243),
                Some(3072),
                None,
                Some(423),
                Some(58),
                Some(7666)
            )
        );
        // The capture has no cache_write_tokens: none is added when written back.
        assert!(is_absent(
            &n.vendor,
            "input_tokens_details.cache_write_tokens"
        ));
    }

    fn request() -> Value {
        json!({
            "model": "gpt-5.4",
            "instructions": "Be terse.",
            "input": [
                {"role": "user", "content": "Weather in Paris and Tokyo?"},
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA1"},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_weather", "arguments": "{\"city\":\"Tokyo\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
                {"type": "function_call_output", "call_id": "call_2", "output": "21C"},
                {"type": "reasoning", "id": "rs_2", "summary": [{"type": "summary_text", "text": "Both found."}]},
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "phase": "final_answer",
                 "content": [{"type": "output_text", "text": "Paris 18C, ", "annotations": []},
                             {"type": "output_text", "text": "Tokyo 21C.", "annotations": []}]},
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Now answer in French."}]},
                {"role": "user", "content": "Merci?"}
            ]
        })
    }

    #[test]
    fn consecutive_assistant_items_make_one_message_and_split_back_in_order() {
        let d = decode_request(&request().to_string(), F).unwrap();
        let roles: Vec<Role> = d.value.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::System,
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::Developer,
                Role::User
            ]
        );
        let kinds = |i: usize| -> Vec<&str> {
            d.value.messages[i].content.iter().map(Part::kind).collect()
        };
        assert_eq!(kinds(2), ["reasoning", "tool_call", "tool_call"]);
        assert_eq!(kinds(3), ["tool_result", "tool_result"]);
        assert_eq!(kinds(4), ["reasoning", "text", "text"]);
        // Sources of what a loss may point at.
        assert_eq!(d.source_path("/messages/0"), "/instructions");
        assert_eq!(d.source_path("/messages/2/content/2/id"), "/input/3/id");
        assert_eq!(d.source_path("/messages/3/content/1"), "/input/5");
        assert_eq!(d.source_path("/messages/4/content/2"), "/input/7/content/1");
        assert_eq!(
            d.source_path("/messages/4/content/1/$msg.phase"),
            "/input/7/phase"
        );
        // Written back: the same items in the same order, nothing lost.
        let out = convert_request_value(&request(), F, F, &Options::default()).unwrap();
        assert!(out.losses.is_empty());
        assert_eq!(out.value, request());
    }

    #[test]
    fn encrypted_reasoning_never_leaves_its_format() {
        let out =
            convert_request_value(&request(), F, Format::OpenaiChat, &Options::default()).unwrap();
        let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert!(paths.contains(&"/input/1/encrypted_content"), "{paths:?}");
        assert!(!out.value.to_string().contains("gAAAA1"));
        assert_eq!(
            out.value["messages"][0],
            json!({"role": "system", "content": "Be terse."})
        );
        // The developer message stays in place.
        assert_eq!(out.value["messages"][6]["role"], "developer");
    }

    #[test]
    fn reasoning_of_another_format_is_dropped_from_a_request_but_returned_in_a_response() {
        let reasoning = Part::Reasoning(model::Reasoning {
            text: Some("thinking".into()),
            signature: Some(Signed {
                value: "sig".into(),
                format: Format::Anthropic,
            }),
            source: Some(Format::Anthropic),
            ..Default::default()
        });
        let message = Message::new(Role::Assistant, vec![reasoning, Part::text("Hi.")]);
        let req = model::Request {
            model: Some("m".into()),
            messages: vec![Message::text(Role::User, "Hello"), message.clone()],
            ..Default::default()
        };
        let out = crate::encode_request(req, F, &Options::default()).unwrap();
        assert_eq!(
            out.value["input"],
            json!([{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."}])
        );
        let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            ["/messages/1/content/0/signature", "/messages/1/content/0"]
        );

        let resp = model::Response {
            choices: vec![Choice {
                message,
                stop_reason: Some(StopReason::new(StopKind::EndTurn)),
                vendor: Vendor::default(),
            }],
            ..Default::default()
        };
        let out = crate::encode_response(resp, F, &Options::default()).unwrap();
        assert_eq!(
            out.value["output"],
            json!([
                {"type": "reasoning", "id": "rs_0", "summary": [],
                 "content": [{"type": "reasoning_text", "text": "thinking"}]},
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}
            ])
        );
        assert_eq!(out.value["status"], "completed");
        assert_eq!(out.value["object"], "response");
    }

    #[test]
    fn hosted_and_custom_items_are_kept_whole_on_their_side() {
        let body = json!({
            "input": [
                {"role": "user", "content": "Patch it."},
                {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "*** Begin Patch"},
                {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
                {"type": "apply_patch_call_output", "call_id": "c2", "status": "completed"},
                {"type": "item_reference", "id": "msg_9"}
            ]
        });
        let d = decode_request(&body.to_string(), F).unwrap();
        let roles: Vec<Role> = d.value.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::User, Role::Assistant]
        );
        assert_eq!(d.value.messages[2].content.len(), 2);
        let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
        assert!(out.losses.is_empty());
        assert_eq!(out.value, body);
    }

    #[test]
    fn a_leading_system_message_of_another_format_stays_an_input_message() {
        let chat = json!({"model": "gpt-4o", "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "Hi"}]});
        let out = convert_request_value(&chat, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(
            out.value,
            json!({"model": "gpt-4o", "input": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "Hi"}]})
        );
    }

    #[test]
    fn tools_of_another_format_are_flat_and_say_strict() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let tools = vec![
            Tool::Function(ToolDef::new(
                "a",
                "A.",
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            )),
            Tool::Function(ToolDef {
                strict: Some(true),
                ..ToolDef::new(
                    "b",
                    "B.",
                    json!({"type": "object", "properties": {"x": {"type": "string"}}}),
                )
            }),
        ];
        let out = wire_types::to_value(&encode_tools(tools, &mut ctx));
        assert_eq!(
            out,
            json!([
                {"type": "function", "name": "a", "description": "A.",
                 "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}, "strict": false},
                {"type": "function", "name": "b", "description": "B.",
                 "parameters": {"type": "object", "properties": {"x": {"type": ["string", "null"]}},
                                "additionalProperties": false, "required": ["x"]}, "strict": true}
            ])
        );
        // Strict mode rewrote b's schema: two losses, under /tools/1.
        assert_eq!(ctx.losses().len(), 2);
        assert!(
            ctx.losses()
                .iter()
                .all(|l| l.path.starts_with("/tools/1/input_schema"))
        );
    }

    #[test]
    fn bad_input_names_its_pointer() {
        let body =
            json!({"input": [{"role": "user", "content": "a"}, {"role": "tool", "content": "b"}]});
        let err =
            convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap_err();
        assert_eq!(err.pointer(), Some("/input/1/role"));
        let body = json!({"input": [{"type": "function_call_output", "output": "b"}]});
        let err =
            convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap_err();
        assert_eq!(err.pointer(), Some("/input/0/call_id"));
    }

    #[test]
    fn an_incomplete_response_goes_to_chat_as_length() {
        let body = json!({"id": "resp_1", "object": "response", "created_at": 1, "model": "m",
            "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "incomplete",
                        "content": [{"type": "output_text", "text": "Par", "annotations": []}]}],
            "parallel_tool_calls": true, "tool_choice": "auto", "tools": []});
        let out =
            convert_response_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap();
        assert_eq!(out.value["choices"][0]["finish_reason"], "length");
        let back = convert_response_value(&body, F, F, &Options::default()).unwrap();
        assert_eq!(back.value, body);
        assert!(back.losses.is_empty());
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
                    "content": "timeout"}]}]});
        let out = convert_request_value(&body, Format::Anthropic, F, &Options::default()).unwrap();
        let input = &out.value["input"];
        assert_eq!(input[3]["type"], "function_call_output");
        assert_eq!(input[3]["output"], "Error: boom");
        assert_eq!(input[4]["output"], "Error: timeout");
        for path in [
            "/messages/2/content/0/is_error",
            "/messages/2/content/1/is_error",
        ] {
            let l: Vec<_> = out.losses.iter().filter(|l| l.path == path).collect();
            assert_eq!(l.len(), 1, "{path}");
            assert_eq!(l[0].kind, LossKind::Changed);
        }
    }

    #[test]
    fn no_empty_assistant_message_before_calls() {
        let mistral = json!({"model": "m", "messages": [
            {"role": "user", "content": "status?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "D681PevKs",
                "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "D681PevKs", "name": "f", "content": "ok"}]});
        let out = convert_request_value(&mistral, Format::Mistral, F, &Options::default()).unwrap();
        assert_eq!(
            out.value["input"],
            json!([
                {"role": "user", "content": "status?"},
                {"type": "function_call", "call_id": "D681PevKs", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "D681PevKs", "output": "ok"}
            ])
        );
        assert!(out.losses.is_empty(), "{:?}", out.losses);
        // An empty message item of Responses' own before its calls stays.
        let own = json!({"model": "m", "input": [
            {"role": "user", "content": "status?"},
            {"type": "message", "role": "assistant", "content": ""},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}]});
        let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(same.value, own);
        assert!(same.losses.is_empty());
    }
}
