//! Decoding requests: Gemini contents and their parts into the neutral model.

use super::hints::{
    EMPTY, NO_ARGS, NO_ID, NO_MIME, NO_ROLE, ORDER, OUTPUT, SAME_CONTENT, SEPARATE, SYSTEM_ROLE,
    THOUGHT_FALSE, TOOLS_EMPTY,
};
use super::settings::{decode_generation_config, decode_tool_config};
use super::tools::decode_tools;
use super::{F, keep_rest, rest, signed};
use crate::ids::synthetic_id;
use crate::model::{
    self, Arguments, Json, Media, Message, Opaque, Part, PartMeta, Reasoning, Role, Source, Text,
    ToolResult, Vendor,
};
use crate::passes::tools::decoded_call;
use crate::util::{self, set_path};
use crate::{Ctx, Error};
use serde_json::{Map, Value};
use wire_types::gemini as w;

/// A call of the model turn(s) since the last user content, waiting for its result.
#[derive(Debug)]
pub(super) struct Pending {
    name: String,
    /// The neutral id (synthetic when the source had none).
    id: String,
    /// The source's own id.
    source_id: Option<String>,
    answered: bool,
}

/// The neutral call id a `functionResponse` answers: by id when it has one, else the
/// first unanswered call of its name (Gemini matches by name and order). `None` when the
/// call is not in the history (pruned).
fn match_call(pending: &mut [Pending], id: Option<&str>, name: &str) -> Option<String> {
    if let Some(id) = id {
        if let Some(p) = pending
            .iter_mut()
            .find(|p| !p.answered && p.source_id.as_deref() == Some(id))
        {
            p.answered = true;
        }
        return Some(id.to_owned());
    }
    let p = pending.iter_mut().find(|p| !p.answered && p.name == name)?;
    p.answered = true;
    Some(p.id.clone())
}

/// Starts a neutral message from the source at `at`; returns its index.
fn start(messages: &mut Vec<Message>, role: Role, at: &str, ctx: &mut Ctx<'_>) -> usize {
    let n = messages.len();
    ctx.map(format_args!("/messages/{n}"), at.to_owned());
    messages.push(Message::new(role, Vec::new()));
    n
}

/// Appends a part to the last message, mapping it to `at`.
fn push_part(messages: &mut [Message], part: Part, at: &str, ctx: &mut Ctx<'_>) {
    let n = messages.len().saturating_sub(1);
    if let Some(m) = messages.last_mut() {
        ctx.map(
            format_args!("/messages/{n}/content/{}", m.content.len()),
            at,
        );
        m.content.push(part);
    }
}

/// Decodes a `generateContent` request.
pub(crate) fn decode_request(
    mut req: w::Request,
    ctx: &mut Ctx<'_>,
) -> Result<model::Request, Error> {
    let mut out = model::Request::default();
    let mut v = Vendor::default();

    if let Some(mut sys) = req.system_instruction.take() {
        let at = "/systemInstruction";
        let n = start(&mut out.messages, Role::System, at, ctx);
        let role = sys.role.take();
        let parts = sys.parts.take().unwrap_or_default();
        let mut mv = Vendor::default();
        if let Some(r) = role {
            mv.set_hint(F, SYSTEM_ROLE, r.as_str());
        }
        keep_rest(&mut mv, "", rest(&sys, &[]));
        let mut pat_buf = String::new();
        for (j, p) in parts.into_iter().enumerate() {
            set_path(&mut pat_buf, at, "parts", j);
            let pat = pat_buf.as_str();
            if p.function_call.is_some() || p.function_response.is_some() {
                return Err(Error::invalid(
                    pat,
                    "a function call or response in systemInstruction",
                ));
            }
            let part = decode_part(p);
            push_part(&mut out.messages, part, pat, ctx);
        }
        if let Some(m) = out.messages.get_mut(n) {
            m.vendor = mv;
        }
    }

    decode_contents(std::mem::take(&mut req.contents), &mut out.messages, ctx)?;

    // Tools: one neutral tool per function declaration and per built-in tool key.
    match req.tools.take() {
        Some(tools) if tools.is_empty() => v.set_hint(F, TOOLS_EMPTY, true),
        Some(tools) => decode_tools(tools, &mut out.tools, ctx),
        None => {}
    }

    if let Some(tc) = req.tool_config.take() {
        out.tool_choice = decode_tool_config(tc, &mut v, ctx);
    }

    if let Some(gc) = req.generation_config.take() {
        decode_generation_config(gc, &mut out, &mut v, ctx);
    }

    keep_rest(&mut v, "", rest(&req, &["contents"]));
    out.vendor = v;
    Ok(out)
}

/// Decodes `contents` into neutral messages (see the module docs for the split of user
/// contents and the matching of results to calls).
fn decode_contents(
    contents: Vec<w::Content>,
    messages: &mut Vec<Message>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mut pending: Vec<Pending> = Vec::new();
    let mut prev_model: Option<bool> = None;
    let mut at_buf = String::new();
    for (i, mut c) in contents.into_iter().enumerate() {
        set_path(&mut at_buf, "", "contents", i);
        let at = at_buf.as_str();
        let role = c.role.take();
        let is_model = match &role {
            Some(w::Role::Model) => true,
            Some(w::Role::User) | None => false,
            Some(other) => {
                return Err(Error::invalid(
                    format!("{at}/role"),
                    format!("unknown role `{other}` (expected user or model)"),
                ));
            }
        };
        let parts = c.parts.take().unwrap_or_default();
        let mut cv = Vendor::default();
        if role.is_none() {
            cv.set_hint(F, NO_ROLE, true);
        }
        if prev_model == Some(is_model) {
            cv.set_hint(F, SEPARATE, true);
        }
        keep_rest(&mut cv, "", rest(&c, &[]));

        if is_model {
            if prev_model != Some(true) {
                pending.clear();
            }
            let n = start(messages, Role::Assistant, at, ctx);
            let neutral = format!("/messages/{n}");
            let mut calls = 0;
            let mut pat_buf = String::new();
            for (j, p) in parts.into_iter().enumerate() {
                set_path(&mut pat_buf, at, "parts", j);
                let pat = pat_buf.as_str();
                if p.function_response.is_some() {
                    return Err(Error::invalid(
                        format!("{pat}/functionResponse"),
                        "a function response in a model content (results go in a user content)",
                    ));
                }
                let part = if p.function_call.as_ref().is_some_and(|f| f.name.is_some()) {
                    let (part, pend) = decode_call(p, &neutral, calls);
                    calls += 1;
                    pending.push(pend);
                    part
                } else {
                    decode_part(p)
                };
                push_part(messages, part, pat, ctx);
            }
            if let Some(m) = messages.get_mut(n) {
                m.vendor = cv;
            }
        } else {
            // The results → one tool message (in order); the other parts → one user
            // message after it (results first, as Gemini and every other format want
            // them). A source that interleaved them gets an `order` hint to be rebuilt.
            let mut results = Vec::new();
            let mut others = Vec::new();
            for (j, p) in parts.into_iter().enumerate() {
                if p.function_call.is_some() {
                    return Err(Error::invalid(
                        format!("{at}/parts/{j}/functionCall"),
                        "a function call in a user content (calls come from the model)",
                    ));
                }
                if p.function_response.is_some() {
                    results.push((j, p));
                } else {
                    others.push((j, p));
                }
            }
            let order: Vec<usize> = results.iter().chain(&others).map(|(j, _)| *j).collect();
            if order.windows(2).any(|w| w[0] > w[1]) {
                cv.set_hint(F, ORDER, order);
            }
            let had_results = !results.is_empty();
            if had_results {
                let n = start(messages, Role::Tool, at, ctx);
                if let Some(m) = messages.last_mut() {
                    m.vendor = std::mem::take(&mut cv);
                }
                let mut pat_buf = String::new();
                for (k, (j, p)) in results.into_iter().enumerate() {
                    set_path(&mut pat_buf, at, "parts", j);
                    let pat = pat_buf.as_str();
                    let r = decode_result(p, &mut pending, n, k, pat, ctx);
                    push_part(messages, Part::ToolResult(r), pat, ctx);
                }
            }
            if !others.is_empty() {
                start(messages, Role::User, at, ctx);
                if let Some(m) = messages.last_mut() {
                    if had_results {
                        m.vendor.set_hint(F, SAME_CONTENT, true);
                    } else {
                        m.vendor = std::mem::take(&mut cv);
                    }
                }
                for (j, p) in others {
                    push_part(messages, decode_part(p), &format!("{at}/parts/{j}"), ctx);
                }
            }
        }
        prev_model = Some(is_model);
    }
    Ok(())
}

fn kind_of(media_type: Option<&str>) -> fn(Media) -> Part {
    match media_type {
        Some(t) if t.starts_with("image/") => Part::Image,
        Some(t) if t.starts_with("audio/") => Part::Audio,
        _ => Part::Document,
    }
}

/// The meta of a part whose data (text, call, result, media) the caller has taken out:
/// its thought signature, and what is left of the part kept in its vendor record.
fn part_meta(p: &mut w::Part) -> PartMeta {
    let mut meta = PartMeta {
        signature: p.thought_signature.take().map(signed),
        ..Default::default()
    };
    keep_rest(&mut meta.vendor, "", rest(p, &[]));
    meta
}

/// A part that is neither a function call nor a function response.
pub(super) fn decode_part(mut p: w::Part) -> Part {
    if let Some(text) = p.text.take() {
        let thought = p.thought.take();
        let mut meta = part_meta(&mut p);
        if thought == Some(true) {
            return Part::Reasoning(Reasoning {
                text: Some(text),
                signature: meta.signature.take(),
                source: Some(F),
                meta,
                ..Default::default()
            });
        }
        if thought == Some(false) {
            meta.vendor.set_hint(F, THOUGHT_FALSE, true);
        }
        if text.is_empty() && meta.signature.is_none() {
            meta.vendor.set_hint(F, EMPTY, true);
        }
        return Part::Text(Text { text, meta });
    }
    if let Some(blob) = p.inline_data.take() {
        return media_from_blob(*blob, part_meta(&mut p));
    }
    if let Some(fd) = p.file_data.take() {
        return media_from_file(*fd, part_meta(&mut p));
    }
    Part::Opaque(Opaque {
        format: F,
        meta: PartMeta {
            signature: p.thought_signature.take().map(signed),
            ..Default::default()
        },
        value: wire_types::to_value(&p),
    })
}

fn media_from_blob(mut blob: w::Blob, mut meta: PartMeta) -> Part {
    let media_type = std::mem::take(&mut blob.mime_type);
    let data = std::mem::take(&mut blob.data);
    let name = blob.display_name.take();
    keep_rest(
        &mut meta.vendor,
        "inlineData",
        rest(&blob, &["mimeType", "data"]),
    );
    let make = kind_of(Some(&media_type));
    make(Media {
        source: Source::Base64 { data },
        media_type: Some(media_type),
        name,
        meta,
    })
}

fn media_from_file(mut fd: w::FileData, mut meta: PartMeta) -> Part {
    let url = std::mem::take(&mut fd.file_uri);
    let media_type = fd.mime_type.take();
    let name = fd.display_name.take();
    if media_type.is_none() {
        meta.vendor.set_hint(F, NO_MIME, true);
    }
    keep_rest(&mut meta.vendor, "fileData", rest(&fd, &["fileUri"]));
    let make = kind_of(media_type.as_deref());
    make(Media {
        source: Source::Url { url },
        media_type,
        name,
        meta,
    })
}

/// A `functionCall` part (with a name) as a neutral call, and its pending entry.
/// `neutral`: the neutral pointer of the message; `c`: the call's index in it.
pub(super) fn decode_call(mut p: w::Part, neutral: &str, c: usize) -> (Part, Pending) {
    let mut fc = p.function_call.take().unwrap_or_default();
    let mut meta = part_meta(&mut p);
    let source_id = fc.id.take();
    let name = fc.name.take().unwrap_or_default();
    let args = fc.args.take();
    keep_rest(&mut meta.vendor, "functionCall", rest(&fc, &[]));
    let arguments = match args {
        Some(m) => util::args_of(m),
        None => {
            meta.vendor.set_hint(F, NO_ARGS, true);
            Arguments::Value(Value::Object(Map::new()))
        }
    };
    let call = decoded_call(source_id.clone(), (neutral, c), name, arguments, meta, None);
    let pending = Pending {
        name: call.name.clone(),
        id: call.id.clone(),
        source_id,
        answered: false,
    };
    (Part::ToolCall(call), pending)
}

/// A `functionResponse` part as a neutral result. `n`, `k`: the neutral tool message and
/// the result's index in it; `at`: the source part.
fn decode_result(
    mut p: w::Part,
    pending: &mut [Pending],
    n: usize,
    k: usize,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> ToolResult {
    let mut fr = p.function_response.take().unwrap_or_default();
    let mut meta = part_meta(&mut p);
    let source_id = fr.id.take();
    let name = std::mem::take(&mut fr.name);
    let response = std::mem::take(&mut fr.response);
    let media = fr.parts.take();
    keep_rest(
        &mut meta.vendor,
        "functionResponse",
        rest(&fr, &["name", "response"]),
    );
    if source_id.is_none() {
        meta.vendor.set_hint(F, NO_ID, true);
    }
    let call_id = match_call(pending, source_id.as_deref(), &name)
        .unwrap_or_else(|| synthetic_id(&format!("/messages/{n}"), k, &name));

    let neutral = format!("/messages/{n}/content/{k}");
    let (mut content, is_error) = decode_response_object(response);
    ctx.map(
        format_args!("{neutral}/content/0"),
        format_args!("{at}/functionResponse/response"),
    );
    for (m, rp) in media.into_iter().flatten().enumerate() {
        ctx.map(
            format_args!("{neutral}/content/{}", content.len()),
            format_args!("{at}/functionResponse/parts/{m}"),
        );
        content.push(decode_response_part(rp));
    }
    ToolResult {
        call_id,
        name: Some(name),
        content,
        is_error,
        meta,
    }
}

/// `functionResponse.response` as result content and an error flag.
pub(super) fn decode_response_object(response: w::FunctionResult) -> (Vec<Part>, bool) {
    let (value, error) = match response {
        w::FunctionResult::Output(v) => (v, false),
        w::FunctionResult::Error(v) => (v, true),
        w::FunctionResult::Object(m) => {
            return (
                vec![Part::Json(Json {
                    value: Value::Object(m),
                    meta: PartMeta::default(),
                })],
                false,
            );
        }
    };
    let part = match value {
        Value::String(s) => Part::text(s),
        other => {
            let mut meta = PartMeta::default();
            if !error {
                meta.vendor.set_hint(F, OUTPUT, true);
            }
            Part::Json(Json { value: other, meta })
        }
    };
    (vec![part], error)
}

fn decode_response_part(mut rp: w::FunctionResponsePart) -> Part {
    if let Some(blob) = rp.inline_data.take() {
        let mut meta = PartMeta::default();
        keep_rest(&mut meta.vendor, "", rest(&rp, &[]));
        return media_from_blob(blob, meta);
    }
    if let Some(fd) = rp.file_data.take() {
        let mut meta = PartMeta::default();
        keep_rest(&mut meta.vendor, "", rest(&rp, &[]));
        return media_from_file(fd, meta);
    }
    Part::Opaque(Opaque {
        format: F,
        value: wire_types::to_value(&rp),
        meta: PartMeta::default(),
    })
}
