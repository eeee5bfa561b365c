//! Decoding requests: OpenAI Responses input items and their parts into the neutral
//! model.

use super::hints::{
    ARGS_JSON, INPUT_ITEMS, INPUT_STRING, INSTRUCTIONS, ITEMS, KEPT, KIND, MSG, NAME, NO_SOURCE,
    PARTS, RAW_FILE_DATA, TYPED,
};
use super::settings::{decode_reasoning_config, decode_settings, decode_text, decode_tool_choice};
use super::tools::decode_tool;
use super::{
    F, MSG_FIELD, keep_blank, note_absent, opaque_item, opaque_part, rest, to_map, user_side,
};
use crate::media::{parse_data_url, source_of_url};
use crate::model::{
    self, Media, Message, Part, PartMeta, Role, Signed, Source, Text, ToolCall, ToolResult, Vendor,
};
use crate::{Ctx, Error};
use serde_json::{Map, Value};
use wire_types::TextOrParts;
use wire_types::openai_responses as w;

/// Decodes a Responses request.
pub(crate) fn decode_request(
    mut req: w::Request,
    ctx: &mut Ctx<'_>,
) -> Result<model::Request, Error> {
    let mut out = model::Request::default();
    note_absent(
        &mut out.vendor,
        &req.extra,
        "",
        &[("model", req.model.is_none())],
    );
    out.model = req.model.take();
    let input = req.input.take();
    let instructions = req.instructions.take();
    let tools = req.tools.take();
    let tool_choice = req.tool_choice.take();
    let reasoning = req.reasoning.take();
    let text = req.text.take();
    let mut s = decode_settings(&mut req, ctx);
    // What is left is vendor: unknown fields, nulls, and the fields with no neutral place.
    let mut v = rest(to_map(&req));

    if let Some(text) = instructions {
        let mut m = Message::text(Role::System, text);
        m.vendor.set_hint(F, INSTRUCTIONS, true);
        ctx.map("/messages/0", "/instructions");
        ctx.map("/messages/0/content/0", "/instructions");
        out.messages.push(m);
    }
    match input {
        None => {}
        Some(w::Input::Text(text)) => {
            let n = out.messages.len();
            let mut m = Message::text(Role::User, text);
            m.vendor.set_hint(F, INPUT_STRING, true);
            ctx.map(format_args!("/messages/{n}"), "/input");
            ctx.map(format_args!("/messages/{n}/content/0"), "/input");
            out.messages.push(m);
        }
        Some(w::Input::Items(items)) => {
            if items.is_empty() {
                v.set_hint(F, INPUT_ITEMS, true);
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

    if let Some(r) = reasoning {
        s.reasoning = Some(decode_reasoning_config(r, &mut v, ctx));
    }
    if let Some(t) = text {
        out.output_format = decode_text(t, &mut v, ctx);
    }
    out.settings = s;
    out.vendor.merge(v);
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
                    .is_some_and(|m| m.role == Role::User && m.vendor.flag(F, ITEMS))
                {
                    let mut m = Message::new(Role::User, Vec::new());
                    m.vendor.set_hint(F, ITEMS, true);
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
pub(super) fn push_assistant_item(
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
/// item's own fields (`$msg.<key>`) and the [`MSG`] hint.
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
        hint.insert(TYPED.into(), Value::Bool(true));
    }
    let parts: Vec<(Part, String)> = match content {
        TextOrParts::Text(s) => vec![(Part::text(s), format!("{at}/content"))],
        TextOrParts::Parts(ps) => {
            hint.insert(PARTS.into(), Value::Bool(true));
            ps.into_iter()
                .enumerate()
                .map(|(j, p)| (decode_part(p, true), format!("{at}/content/{j}")))
                .collect()
        }
    };
    if let Some(kept) = head.hints.get(KEPT) {
        hint.insert(KEPT.into(), kept.clone());
    }
    for (j, (mut part, source)) in parts.into_iter().enumerate() {
        let here = format!("{neutral}/content/{}", msg.content.len());
        if j == 0 {
            let v = &mut part.meta_mut().vendor;
            v.set_hint(F, MSG, Value::Object(hint.clone()));
            for (k, val) in &head.fields {
                v.set_field(F, &format!("{MSG_FIELD}{k}"), val.clone());
                ctx.map(
                    format_args!("{here}/{MSG_FIELD}{k}"),
                    format_args!("{at}/{k}"),
                );
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
        msg.vendor.set_hint(F, TYPED, true);
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
            msg.vendor.set_hint(F, PARTS, true);
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
pub(super) fn decode_part(p: w::ContentPart, assistant: bool) -> Part {
    match p {
        w::ContentPart::InputText(t) => {
            let mut map = to_map(&t);
            map.remove("text");
            let mut meta = PartMeta {
                vendor: rest(map),
                ..Default::default()
            };
            if assistant {
                meta.vendor.set_hint(F, KIND, "input_text");
            }
            Part::Text(Text { text: t.text, meta })
        }
        w::ContentPart::OutputText(t) => {
            let mut vendor = Vendor::default();
            let missing = [("annotations", t.annotations.is_none())];
            note_absent(&mut vendor, &t.extra, "", &missing);
            let mut map = to_map(&t);
            map.remove("text");
            vendor.merge(rest(map));
            if !assistant {
                vendor.set_hint(F, KIND, "output_text");
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

/// The source of an image or document that had none (written back without one).
fn no_source(vendor: &mut Vendor) -> (Source, Option<String>) {
    vendor.set_hint(F, NO_SOURCE, true);
    let none = Source::FileId {
        file_id: String::new(),
    };
    (none, None)
}

fn decode_image(mut i: w::InputImage) -> Part {
    let mut vendor = Vendor::default();
    note_absent(&mut vendor, &i.extra, "", &[("detail", i.detail.is_none())]);
    let url = i.image_url.take();
    let file_id = i.file_id.take();
    let mut map = to_map(&i);
    let (source, media_type) = match (url, file_id) {
        (Some(url), file_id) => {
            if let Some(f) = file_id {
                map.insert("file_id".into(), Value::String(f));
            }
            source_of_url(url)
        }
        (None, Some(file_id)) => (Source::FileId { file_id }, None),
        (None, None) => no_source(&mut vendor),
    };
    vendor.merge(rest(map));
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
    let missing = [("filename", f.filename.is_none())];
    note_absent(&mut vendor, &f.extra, "", &missing);
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
                vendor.set_hint(F, RAW_FILE_DATA, true);
                (Source::Base64 { data }, None)
            }
        }
    } else {
        no_source(&mut vendor)
    };
    vendor.merge(rest(map));
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
    let arguments = crate::util::read_arguments(c.arguments, &mut vendor, F, ARGS_JSON);
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
        meta.vendor.set_hint(F, NAME, true);
    }
    let mut content = Vec::new();
    let mut sources = Vec::new();
    match output {
        TextOrParts::Text(s) => {
            content.push(Part::text(s));
            sources.push(format!("{at}/output"));
        }
        TextOrParts::Parts(ps) => {
            meta.vendor.set_hint(F, PARTS, true);
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
    let n = crate::util::tool_message(messages, at, ctx);
    if let Some(last) = messages.last_mut() {
        let here = format!("/messages/{n}/content/{}", last.content.len());
        for (j, src) in sources.into_iter().enumerate() {
            ctx.map(format_args!("{here}/content/{j}"), src);
        }
        ctx.map(here, at.to_owned());
        last.content.push(Part::ToolResult(result));
    }
}
