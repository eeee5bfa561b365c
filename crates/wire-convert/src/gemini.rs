//! Gemini `generateContent` ↔ the neutral model.
//!
//! * **System**: `systemInstruction` decodes as one leading system message; leading system
//!   and developer messages encode into it. A system message in mid-conversation moves
//!   there too (a `moved` loss): Gemini has no system role.
//! * **Roles and alternation**: `model` ↔ assistant, `user` ↔ user and tool. A user
//!   content's `functionResponse` parts decode as one tool message (in order), its other
//!   parts as one user message after it. On encode a
//!   tool message is one `user` content of `functionResponse` parts in call order; a user
//!   message right after it joins that content, results first (Gemini's own shape, no
//!   loss). Other consecutive messages of the same Gemini role are merged into one content
//!   (a `changed` loss) — except a message carrying a thought signature, which keeps its
//!   own content so that no signed part changes place relative to its step
//!   (providers.md §4.7). Parts are never merged with each other.
//! * **Ids**: `functionCall.id` is optional. A call without one gets a synthetic id from
//!   its position and name ([`ToolCall::synthetic_id`]); a result without one answers the
//!   first unanswered call of its name in the preceding model turn(s) (name and order, as
//!   Gemini matches), or gets a synthetic id when that call was pruned. Synthetic ids are
//!   never written: not on calls, not on results answering them.
//! * **Results**: `functionResponse.response` `{"output": "<text>"}` ↔ a text part,
//!   `{"output": <other>}` ↔ a JSON part (hint `output`), `{"error": X}` ↔ `is_error` with X
//!   as text or JSON, any other object ↔ a JSON part holding it whole. Several text parts
//!   are joined into one `output` (a `changed` loss). Images and documents of a result ↔
//!   `functionResponse.parts`. `functionResponse.name` is required: the result's name, else
//!   the name of its call, else `unknown` (a `changed` loss) — a result is never dropped.
//! * **Arguments** are an object: JSON text is parsed; invalid JSON is sent as
//!   `{"invalid_json": "<text>"}`, a non-object value as `{"value": …}`, `null` as `{}`
//!   (a `changed` loss each); empty text is `{}`. Calls to a tool whose schema is not an
//!   object arrive wrapped as `{"input": …}` (`passes::wrap_non_object_calls`).
//! * **Reasoning**: `thought: true` text ↔ [`Reasoning`] (its `thoughtSignature` as
//!   [`Reasoning::signature`]); a `thoughtSignature` on any other part (text, function
//!   call, an empty text part) ↔ that part's [`PartMeta::signature`], written back on the
//!   same part. Signatures made by another format are dropped (a loss); reasoning text of
//!   another format becomes a thought part (or is dropped, per
//!   [`Options::reasoning`](crate::Options::reasoning)).
//! * **Media**: `inlineData` ↔ base64 image/audio/document (by media type; video reads as
//!   a document); `fileData` ↔ a URL source. An `http(s)` URL from another format becomes
//!   `fileData` with a media type guessed from its extension, or is dropped with a loss
//!   when none can be guessed; nothing is fetched. Provider file ids have no Gemini form.
//! * **Tools**: `parameters` ↔ [`Dialect::GeminiOpenapi`] (written back unchanged);
//!   `parametersJsonSchema` ↔ JSON Schema (hint `json_schema`). A JSON Schema from another
//!   format goes to `parameters` through [`schema::to_gemini`] (a loss per rewrite), or to
//!   `parametersJsonSchema` as it is with [`GeminiSchema::JsonSchema`]. An object schema
//!   without properties is left out (Gemini rejects an `OBJECT` without properties).
//!   Built-in tools (`googleSearch`, `codeExecution`, …) ↔ [`Tool::Opaque`], one per key.
//! * **Tool choice**: `AUTO` ↔ auto, `NONE` ↔ none, `ANY` ↔ required, `ANY` + one name ↔
//!   that tool, `ANY` + names ↔ allowed (required), `VALIDATED` + names ↔ allowed (not
//!   required). `parallel_tool_calls: false` has no Gemini form (a loss).
//! * **Settings**: `generationConfig` ↔ settings; `thinkingConfig` ↔ reasoning
//!   (`thinkingBudget` 0 ↔ disabled, -1 ↔ enabled without a budget, `thinkingLevel` ↔
//!   effort); `responseMimeType` + `responseSchema` / `responseJsonSchema` ↔ output
//!   format. There is no `model` in a Gemini body (it is in the URL): a neutral model is
//!   dropped with a loss, as is `stream` (an endpoint, not a field).
//! * **Responses**: candidates ↔ choices; `STOP` reads as tool use when the content has
//!   function calls, and tool use writes `STOP`; usage: input = `promptTokenCount` +
//!   `toolUsePromptTokenCount` (tool results fed back to the model are input, and
//!   `totalTokenCount` counts them), output = `candidatesTokenCount` +
//!   `thoughtsTokenCount`, reasoning = `thoughtsTokenCount`, cached =
//!   `cachedContentTokenCount`.
//! * `executableCode`, `codeExecutionResult`, `toolCall`, `toolResponse` and unknown parts
//!   ↔ [`Part::Opaque`].
//!
//! What the neutral model has no field for is kept in [`Vendor`] fields: the rest of each
//! wire object (its unknown fields and the known ones this module does not map), under
//! the object's own key for nested objects (`functionCall`, `inlineData`, `toolConfig`,
//! `generationConfig`, …). Explicit `null`s are listed in the `nulls` hint (dotted for
//! nested objects: `functionCall.id`).
//!
//! Hints this module writes and reads: messages `no_role` (content without role),
//! `same_content` (split from the previous message's content), `order` (source positions
//! of a user content's parts, when results and other parts were interleaved), `separate`
//! (the source had two contents of one role in a row), `system_role` (role of
//! `systemInstruction`); parts
//! `thought_false` (`thought: false`), `empty` (an empty text part; one from elsewhere is
//! left out, as Gemini refuses empty text), `no_args` (call without `args`), `no_id`
//! (result without `id`), `output` (JSON result under `output`), `no_mime` (`fileData`
//! without `mimeType`); tools `entry` (index of the `tools` entry), `json_schema`
//! (`parametersJsonSchema`); request `tools_empty`, `tool_config`, `generation_config`
//! (present but empty), `thinking_both` (level and budget together), `response_schema`
//! (the original OpenAPI output schema), `response_json_schema`; choices `no_index`,
//! `index`, `no_content`; message of a choice `no_parts`; response `candidates_empty`;
//! usage `tool_use_prompt`, `no_prompt_count`, `no_candidates_count`; every object
//! `nulls`.

use crate::model::{
    self, Arguments, Choice, Dialect, Json, Media, Message, Opaque, OutputFormat, Part, PartMeta,
    Reasoning, ReasoningConfig, Role, Settings, Signed, Source, StopKind, StopReason, Text, Tool,
    ToolCall, ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::openai_chat::synthetic_id;
use crate::util::{self, drop_cache, opaque_elsewhere, parse_data_url, set_path};
use crate::{Ctx, Error, GeminiSchema, LossKind, schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value, json};
use std::collections::{HashMap, HashSet};
use wire_types::gemini as w;
use wire_types::{Format, MaybeRaw};

const F: Format = Format::Gemini;

// ---------------------------------------------------------------------------------------
// Keeping what the neutral model has no field for

/// What is left of a wire object once the decoder has taken out what it maps: its JSON
/// without the `mapped` keys (explicit nulls stay, to be written back).
fn rest<T: Serialize>(obj: &T, mapped: &[&str]) -> Map<String, Value> {
    let Value::Object(mut m) = wire_types::to_value(obj) else {
        return Map::new();
    };
    for k in mapped {
        if m.get(*k).is_some_and(|v| !v.is_null()) {
            m.shift_remove(*k);
        }
    }
    m
}

/// Keeps `rest` in `v`: its fields as they are (`key` empty) or as one object under
/// `key`; its explicit nulls in the `nulls` hint.
fn keep_rest(v: &mut Vendor, key: &str, rest: Map<String, Value>) {
    let mut kept = Map::new();
    let mut nulls = Vec::new();
    for (k, val) in rest {
        if val.is_null() {
            nulls.push(if key.is_empty() {
                k
            } else {
                format!("{key}.{k}")
            });
        } else {
            kept.insert(k, val);
        }
    }
    if !nulls.is_empty() {
        v.format.get_or_insert(F);
        let entry = v
            .hints
            .get_or_insert_with("nulls", || Value::Array(Vec::new()));
        if let Value::Array(a) = entry {
            a.extend(nulls.into_iter().map(Value::String));
        }
    }
    if kept.is_empty() {
        return;
    }
    if key.is_empty() {
        for (k, val) in kept {
            v.set_field(F, &k, val);
        }
    } else {
        v.set_field(F, key, Value::Object(kept));
    }
}

/// Takes back what [`keep_rest`] kept under `key` (everything left when `key` is empty)
/// out of `fields` (the vendor fields this format may write), with its nulls.
fn take_rest(fields: &mut Map<String, Value>, v: &Vendor, key: &str) -> Map<String, Value> {
    let mut out = if key.is_empty() {
        std::mem::take(fields)
    } else {
        match fields.shift_remove(key) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        }
    };
    if let Some(Value::Array(nulls)) = v.hint(F, "nulls") {
        for n in nulls.iter().filter_map(Value::as_str) {
            let name = if key.is_empty() {
                (!n.contains('.')).then_some(n)
            } else {
                n.strip_prefix(key).and_then(|s| s.strip_prefix('.'))
            };
            if let Some(name) = name {
                out.entry(name).or_insert(Value::Null);
            }
        }
    }
    out
}

/// A wire object rebuilt from a kept rest (unknown fields, unmapped known fields, nulls);
/// `placeholders` fill its required fields, which the caller then sets.
fn rebuild<T: DeserializeOwned + Default>(
    mut rest: Map<String, Value>,
    placeholders: &[(&str, Value)],
) -> T {
    if rest.is_empty() {
        return T::default();
    }
    for (k, v) in placeholders {
        rest.entry(*k).or_insert_with(|| v.clone());
    }
    serde_json::from_value(Value::Object(rest)).unwrap_or_default()
}

fn signed(value: String) -> Signed {
    Signed { value, format: F }
}

// ---------------------------------------------------------------------------------------
// Decoding

/// A call of the model turn(s) since the last user content, waiting for its result.
#[derive(Debug)]
struct Pending {
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
pub fn decode_request(mut req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request::default();
    let mut v = Vendor::default();

    if let Some(mut sys) = req.system_instruction.take() {
        let at = "/systemInstruction";
        let n = start(&mut out.messages, Role::System, at, ctx);
        let role = sys.role.take();
        let parts = sys.parts.take().unwrap_or_default();
        let mut mv = Vendor::default();
        if let Some(r) = role {
            mv.set_hint(F, "system_role", r.as_str());
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
        Some(tools) if tools.is_empty() => v.set_hint(F, "tools_empty", true),
        Some(tools) => decode_tools(tools, &mut out.tools, ctx),
        None => {}
    }

    if let Some(mut tc) = req.tool_config.take() {
        ctx.map("/tool_choice", "/toolConfig/functionCallingConfig");
        if let Some(fcc) = tc.function_calling_config.take() {
            match decode_tool_choice(&fcc) {
                Some(choice) => out.tool_choice = Some(choice),
                None => tc.function_calling_config = Some(fcc),
            }
        }
        let r = rest(&tc, &[]);
        if r.is_empty() {
            v.set_hint(F, "tool_config", true);
        } else {
            keep_rest(&mut v, "toolConfig", r);
        }
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
            cv.set_hint(F, "no_role", true);
        }
        if prev_model == Some(is_model) {
            cv.set_hint(F, "separate", true);
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
                cv.set_hint(F, "order", order);
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
                        m.vendor.set_hint(F, "same_content", true);
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

/// A part that is neither a function call nor a function response.
fn decode_part(mut p: w::Part) -> Part {
    let signature = p.thought_signature.take().map(signed);
    if let Some(text) = p.text.take() {
        let thought = p.thought.take();
        let mut vendor = Vendor::default();
        keep_rest(&mut vendor, "", rest(&p, &[]));
        if thought == Some(true) {
            return Part::Reasoning(Reasoning {
                text: Some(text),
                signature,
                source: Some(F),
                meta: PartMeta {
                    vendor,
                    ..Default::default()
                },
                ..Default::default()
            });
        }
        if thought == Some(false) {
            vendor.set_hint(F, "thought_false", true);
        }
        if text.is_empty() && signature.is_none() {
            vendor.set_hint(F, "empty", true);
        }
        return Part::Text(Text {
            text,
            meta: PartMeta {
                signature,
                vendor,
                ..Default::default()
            },
        });
    }
    if let Some(blob) = p.inline_data.take() {
        let mut meta = PartMeta {
            signature,
            ..Default::default()
        };
        keep_rest(&mut meta.vendor, "", rest(&p, &[]));
        return media_from_blob(*blob, meta);
    }
    if let Some(fd) = p.file_data.take() {
        let mut meta = PartMeta {
            signature,
            ..Default::default()
        };
        keep_rest(&mut meta.vendor, "", rest(&p, &[]));
        return media_from_file(*fd, meta);
    }
    Part::Opaque(Opaque {
        format: F,
        value: wire_types::to_value(&p),
        meta: PartMeta {
            signature,
            ..Default::default()
        },
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
        meta.vendor.set_hint(F, "no_mime", true);
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
fn decode_call(mut p: w::Part, neutral: &str, c: usize) -> (Part, Pending) {
    let mut fc = p.function_call.take().unwrap_or_default();
    let signature = p.thought_signature.take().map(signed);
    let mut meta = PartMeta {
        signature,
        ..Default::default()
    };
    keep_rest(&mut meta.vendor, "", rest(&p, &[]));
    let source_id = fc.id.take();
    let name = fc.name.take().unwrap_or_default();
    let args = fc.args.take();
    keep_rest(&mut meta.vendor, "functionCall", rest(&fc, &[]));
    let arguments = match args {
        Some(m) => util::args_of(m),
        None => {
            meta.vendor.set_hint(F, "no_args", true);
            Arguments::Value(Value::Object(Map::new()))
        }
    };
    let (id, synthetic) = match &source_id {
        Some(id) => (id.clone(), false),
        None => (synthetic_id(neutral, c, &name), true),
    };
    let pending = Pending {
        name: name.clone(),
        id: id.clone(),
        source_id,
        answered: false,
    };
    (
        Part::ToolCall(ToolCall {
            id,
            synthetic_id: synthetic,
            name,
            arguments,
            meta,
        }),
        pending,
    )
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
    let signature = p.thought_signature.take().map(signed);
    let mut meta = PartMeta {
        signature,
        ..Default::default()
    };
    keep_rest(&mut meta.vendor, "", rest(&p, &[]));
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
        meta.vendor.set_hint(F, "no_id", true);
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
fn decode_response_object(response: Map<String, Value>) -> (Vec<Part>, bool) {
    if response.len() == 1 {
        if let Some((key, value)) = response.iter().next() {
            let error = key == "error";
            if key == "output" || error {
                let part = match value {
                    Value::String(s) => Part::text(s.clone()),
                    other => {
                        let mut meta = PartMeta::default();
                        if !error {
                            meta.vendor.set_hint(F, "output", true);
                        }
                        Part::Json(Json {
                            value: other.clone(),
                            meta,
                        })
                    }
                };
                return (vec![part], error);
            }
        }
    }
    (
        vec![Part::Json(Json {
            value: Value::Object(response),
            meta: PartMeta::default(),
        })],
        false,
    )
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

fn decode_tools(tools: Vec<w::Tool>, out: &mut Vec<Tool>, ctx: &mut Ctx<'_>) {
    for (e, mut tool) in tools.into_iter().enumerate() {
        let at = format!("/tools/{e}");
        for (d, mut decl) in tool
            .function_declarations
            .take()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let k = out.len();
            let dat = format!("{at}/functionDeclarations/{d}");
            ctx.map(format_args!("/tools/{k}"), dat.clone());
            let mut v = Vendor::default();
            v.set_hint(F, "entry", e);
            let name = std::mem::take(&mut decl.name);
            let description = decl.description.take();
            let (input_schema, dialect) =
                match (decl.parameters.take(), decl.parameters_json_schema.take()) {
                    (Some(p), None) => {
                        ctx.map(
                            format_args!("/tools/{k}/input_schema"),
                            format_args!("{dat}/parameters"),
                        );
                        (Some(p), Dialect::GeminiOpenapi)
                    }
                    (None, Some(s)) => {
                        ctx.map(
                            format_args!("/tools/{k}/input_schema"),
                            format_args!("{dat}/parametersJsonSchema"),
                        );
                        v.set_hint(F, "json_schema", true);
                        (Some(s), Dialect::JsonSchema)
                    }
                    (p, s) => {
                        // Both at once: `validate_request` refuses it; keep the second whole.
                        decl.parameters_json_schema = s;
                        (p, Dialect::GeminiOpenapi)
                    }
                };
            let output_schema = decl.response_json_schema.take();
            keep_rest(&mut v, "", rest(&decl, &["name"]));
            out.push(Tool::Function(ToolDef {
                name,
                description,
                input_schema,
                dialect,
                output_schema,
                strict: None,
                cache: None,
                vendor: v,
            }));
        }
        if let Value::Object(others) = wire_types::to_value(&tool) {
            for (key, value) in others {
                let k = out.len();
                let mut p = String::new();
                wire_types::push_token(&mut p, &key);
                ctx.map(format_args!("/tools/{k}"), format_args!("{at}{p}"));
                let mut meta = PartMeta::default();
                meta.vendor.set_hint(F, "entry", e);
                let mut obj = Map::new();
                obj.insert(key, value);
                out.push(Tool::Opaque(Opaque {
                    format: F,
                    value: Value::Object(obj),
                    meta,
                }));
            }
        }
    }
}

fn decode_tool_choice(f: &w::FunctionCallingConfig) -> Option<ToolChoice> {
    if !f.extra.is_empty() || f.stream_function_call_arguments.is_some() {
        return None;
    }
    use w::FunctionCallingMode as M;
    match (f.mode.as_ref()?, f.allowed_function_names.as_deref()) {
        (M::Auto, None) => Some(ToolChoice::Auto),
        (M::None, None) => Some(ToolChoice::None),
        (M::Any, None) => Some(ToolChoice::Required),
        (M::Any, Some([one])) => Some(ToolChoice::Tool { name: one.clone() }),
        (M::Any, Some(names)) if names.len() > 1 => Some(ToolChoice::Allowed {
            names: names.to_vec(),
            required: true,
        }),
        (M::Validated, Some(names)) if !names.is_empty() => Some(ToolChoice::Allowed {
            names: names.to_vec(),
            required: false,
        }),
        _ => None,
    }
}

fn decode_generation_config(
    mut gc: w::GenerationConfig,
    out: &mut model::Request,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) {
    let g = "/generationConfig";
    let mut s = Settings {
        max_tokens: gc.max_output_tokens.take(),
        temperature: gc.temperature.take(),
        top_p: gc.top_p.take(),
        stop: gc.stop_sequences.take(),
        seed: gc.seed.take(),
        presence_penalty: gc.presence_penalty.take(),
        frequency_penalty: gc.frequency_penalty.take(),
        ..Default::default()
    };
    if let Some(k) = gc.top_k.as_ref().and_then(Number::as_u64) {
        s.top_k = Some(k);
        gc.top_k = None;
    }
    for (neutral, source) in [
        ("max_tokens", "maxOutputTokens"),
        ("temperature", "temperature"),
        ("top_p", "topP"),
        ("top_k", "topK"),
        ("stop", "stopSequences"),
        ("seed", "seed"),
        ("presence_penalty", "presencePenalty"),
        ("frequency_penalty", "frequencyPenalty"),
        ("reasoning", "thinkingConfig"),
        ("reasoning/include", "thinkingConfig/includeThoughts"),
        ("reasoning/budget_tokens", "thinkingConfig/thinkingBudget"),
        ("reasoning/enabled", "thinkingConfig/thinkingBudget"),
        ("reasoning/effort", "thinkingConfig/thinkingLevel"),
    ] {
        ctx.map(
            format_args!("/settings/{neutral}"),
            format_args!("{g}/{source}"),
        );
    }
    ctx.map("/settings", g);

    let mut thinking_rest = None;
    if let Some(mut tc) = gc.thinking_config.take() {
        let mut r = ReasoningConfig {
            include: tc.include_thoughts.take(),
            ..Default::default()
        };
        match tc.thinking_budget.take() {
            Some(0) => r.enabled = Some(false),
            Some(-1) => r.enabled = Some(true),
            Some(b) => r.budget_tokens = Some(b),
            None => {}
        }
        if let Some(level) = tc.thinking_level.take() {
            if r.budget_tokens.is_some() || r.enabled.is_some() {
                v.set_hint(F, "thinking_both", true);
            }
            r.effort = Some(level.as_str().to_ascii_lowercase());
        }
        let tr = rest(&tc, &[]);
        if !tr.is_empty() {
            thinking_rest = Some(tr);
        }
        s.reasoning = Some(r);
    }
    out.settings = s;

    // Output format.
    ctx.map("/output_format", g);
    let mime = gc.response_mime_type.as_deref();
    match (mime, &gc.response_schema, &gc.response_json_schema) {
        (Some("text/plain"), None, None) => {
            out.output_format = Some(OutputFormat::Text);
            gc.response_mime_type = None;
        }
        (Some("application/json"), None, None) => {
            out.output_format = Some(OutputFormat::JsonObject);
            gc.response_mime_type = None;
        }
        (Some("application/json"), None, Some(_)) => {
            ctx.map(
                "/output_format/schema",
                format_args!("{g}/responseJsonSchema"),
            );
            v.set_hint(F, "response_json_schema", true);
            out.output_format = Some(OutputFormat::JsonSchema {
                name: None,
                schema: gc.response_json_schema.take().unwrap_or_default(),
                strict: None,
            });
            gc.response_mime_type = None;
        }
        (Some("application/json"), Some(_), None) => {
            ctx.map("/output_format/schema", format_args!("{g}/responseSchema"));
            let original = gc.response_schema.take().unwrap_or_default();
            out.output_format = Some(OutputFormat::JsonSchema {
                name: None,
                schema: schema::from_gemini(&original),
                strict: None,
            });
            v.set_hint(F, "response_schema", original);
            gc.response_mime_type = None;
        }
        _ => {}
    }

    let mut r = rest(&gc, &[]);
    if let Some(tr) = thinking_rest {
        r.insert("thinkingConfig".into(), Value::Object(tr));
    }
    if r.is_empty() {
        v.set_hint(F, "generation_config", true);
    } else {
        keep_rest(v, "generationConfig", r);
    }
}

/// Decodes a `generateContent` response.
pub fn decode_response(mut resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let mut out = model::Response {
        id: resp.response_id.take(),
        model: resp.model_version.take(),
        ..Default::default()
    };
    ctx.map("/id", "/responseId");
    ctx.map("/model", "/modelVersion");
    let mut v = Vendor::default();
    match resp.candidates.take() {
        Some(c) if c.is_empty() => v.set_hint(F, "candidates_empty", true),
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
        let (secs, keep) = crate::util::read_timestamp(t);
        out.created = secs;
        resp.create_time = keep;
    }
    keep_rest(&mut v, "", rest(&resp, &[]));
    out.vendor = v;
    Ok(out)
}

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
        None => cv.set_hint(F, "no_index", true),
        Some(ix) if ix as usize != i => cv.set_hint(F, "index", ix),
        Some(_) => {}
    }
    let mut message = Message::new(Role::Assistant, Vec::new());
    let mut has_calls = false;
    match c.content.take() {
        None => cv.set_hint(F, "no_content", true),
        Some(mut content) => {
            let mut mv = Vendor::default();
            match content.role.take() {
                None => mv.set_hint(F, "no_role", true),
                Some(w::Role::Model) => {}
                Some(other) => mv.set_hint(F, "role", other.as_str()),
            }
            let parts = content.parts.take();
            if parts.is_none() {
                mv.set_hint(F, "no_parts", true);
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
    let stop_reason = c.finish_reason.take().map(|r| StopReason {
        kind: stop_kind(&r, has_calls),
        raw: Some(r.as_str().to_owned()),
        format: Some(F),
    });
    keep_rest(&mut cv, "", rest(&c, &[]));
    Ok(Choice {
        message,
        stop_reason,
        vendor: cv,
    })
}

/// The neutral kind of a finish reason (`STOP` with function calls is tool use).
fn stop_kind(r: &w::FinishReason, has_calls: bool) -> StopKind {
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

fn decode_usage(mut u: w::UsageMetadata) -> Usage {
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
        v.set_hint(F, "tool_use_prompt", t);
        if prompt.is_none() {
            v.set_hint(F, "no_prompt_count", true);
        }
    }
    let output = match (candidates, thoughts) {
        (None, None) => None,
        (c, t) => Some(c.unwrap_or(0).saturating_add(t.unwrap_or(0))),
    };
    if candidates.is_none() && thoughts.is_some() {
        v.set_hint(F, "no_candidates_count", true);
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

// ---------------------------------------------------------------------------------------
// Encoding

/// What the encoder knows about the conversation's calls.
#[derive(Default)]
struct Calls {
    /// Ids that were made up by a decoder: never written.
    synthetic: HashSet<String>,
    /// Call id → tool name, for the results without a name (only those ids: a decoded
    /// conversation has its results named already).
    names: HashMap<String, String>,
}

impl Calls {
    fn of(messages: &[Message]) -> Calls {
        let parts = || messages.iter().flat_map(|m| &m.content);
        let unnamed: HashSet<&str> = parts()
            .filter_map(|p| match p {
                Part::ToolResult(r) if r.name.is_none() => Some(r.call_id.as_str()),
                _ => None,
            })
            .collect();
        let mut calls = Calls::default();
        for p in parts() {
            if let Part::ToolCall(c) = p {
                if c.synthetic_id {
                    calls.synthetic.insert(c.id.clone());
                }
                if unnamed.contains(c.id.as_str()) {
                    calls.names.insert(c.id.clone(), c.name.clone());
                }
            }
        }
        calls
    }
}

/// A content being built.
struct Building {
    model: bool,
    parts: Vec<w::Part>,
    content: w::Content,
    /// Role of the last neutral message written into it.
    last: Role,
    /// Source positions of the parts (hint `order`), when the source interleaved results
    /// and other parts.
    order: Option<Vec<usize>>,
}

/// Encodes a neutral request as a `generateContent` body.
pub fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    if req.model.is_some() {
        ctx.loss(
            "/model",
            LossKind::Dropped,
            "gemini bodies have no model: it is part of the URL (models/{model}:generateContent)",
        );
    }

    let calls = Calls::of(&req.messages);

    let tools_empty = v.flag(F, "tools_empty");
    let tools = match encode_tools(req.tools, ctx) {
        None if tools_empty => Some(Vec::new()),
        t => t,
    };

    let (system_instruction, mut contents) = encode_messages(req.messages, &calls, ctx);
    if ctx.source != Some(F) {
        sign_foreign_calls(&mut contents);
    }

    // toolConfig
    let tc_rest = take_rest(&mut fields, &v, "toolConfig");
    let tool_config =
        if req.tool_choice.is_some() || !tc_rest.is_empty() || v.flag(F, "tool_config") {
            let mut tc: w::ToolConfig = rebuild(tc_rest, &[]);
            if let Some(choice) = req.tool_choice {
                tc.function_calling_config = Some(encode_tool_choice(choice));
            }
            Some(tc)
        } else {
            None
        };
    if req.settings.parallel_tool_calls == Some(false) {
        ctx.loss(
            "/settings/parallel_tool_calls",
            LossKind::Dropped,
            "gemini has no switch for parallel function calls",
        );
    }
    if req.settings.stream.is_some() {
        ctx.loss(
            "/settings/stream",
            LossKind::Dropped,
            "gemini streams by endpoint (:streamGenerateContent), not by a body field",
        );
    }

    let gc_rest = take_rest(&mut fields, &v, "generationConfig");
    let generation_config =
        encode_generation_config(req.settings, req.output_format, gc_rest, &v, ctx);

    let r = take_rest(&mut fields, &v, "");
    let mut out: w::Request = rebuild(r, &[("contents", json!([]))]);
    out.contents = contents;
    out.system_instruction = system_instruction;
    out.tools = tools;
    out.tool_config = tool_config;
    out.generation_config = generation_config;
    Ok(out)
}

/// `systemInstruction` and `contents` from the neutral messages.
fn encode_messages(
    messages: Vec<Message>,
    calls: &Calls,
    ctx: &mut Ctx<'_>,
) -> (Option<w::Content>, Vec<w::Content>) {
    let mut system: Option<w::Content> = None;
    let mut system_parts: Vec<w::Part> = Vec::new();
    // At most one content per message (consecutive ones merge).
    let mut contents: Vec<w::Content> = Vec::with_capacity(messages.len());
    let mut building: Option<Building> = None;
    let mut leading = true;
    let (mut at, mut pat) = (String::new(), String::new());

    for (i, m) in messages.into_iter().enumerate() {
        crate::util::set_path(&mut at, "", "messages", i);
        if m.role.is_system() {
            if !leading {
                ctx.loss(
                    at.clone(),
                    LossKind::Moved,
                    "gemini has no system role: this system message is moved to systemInstruction",
                );
            }
            let mut fields = ctx.vendor_fields(&m.vendor, &at);
            if system.is_none() {
                let r = take_rest(&mut fields, &m.vendor, "");
                let mut c: w::Content = rebuild(r, &[]);
                c.role = m
                    .vendor
                    .hint(F, "system_role")
                    .and_then(Value::as_str)
                    .map(w::Role::from);
                system = Some(c);
            }
            for (j, p) in m.content.into_iter().enumerate() {
                crate::util::set_path(&mut pat, &at, "content", j);
                if let Some(part) = encode_part(p, m.role, &pat, calls, ctx) {
                    system_parts.push(part);
                }
            }
            continue;
        }
        leading = false;
        let model = m.role == Role::Assistant;
        let mut fields = ctx.vendor_fields(&m.vendor, &at);
        let mut parts = Vec::with_capacity(m.content.len());
        let mut signed = false;
        for (j, p) in m.content.into_iter().enumerate() {
            crate::util::set_path(&mut pat, &at, "content", j);
            if let Some(part) = encode_part(p, m.role, &pat, calls, ctx) {
                signed |= part.thought_signature.is_some();
                parts.push(part);
            }
        }
        if parts.is_empty() {
            // Nothing to send (every part was dropped, with a loss): Gemini rejects empty
            // contents.
            continue;
        }
        let same_content = m.vendor.flag(F, "same_content");
        let separate = m.vendor.flag(F, "separate");
        if let Some(b) = building.as_mut() {
            if b.model == model && !separate {
                let normal = same_content || (b.last == Role::Tool && m.role == Role::User);
                if normal || !(model && signed) {
                    if !normal {
                        ctx.loss(
                            at.clone(),
                            LossKind::Changed,
                            format!(
                                "merged into the previous `{}` content: gemini needs user and model turns to alternate",
                                if model { "model" } else { "user" }
                            ),
                        );
                    }
                    b.parts.extend(parts);
                    b.last = m.role;
                    continue;
                }
            }
        }
        if let Some(b) = building.take() {
            contents.push(finish_content(b));
        }
        let r = take_rest(&mut fields, &m.vendor, "");
        let mut content: w::Content = rebuild(r, &[]);
        content.role = if !model && m.vendor.flag(F, "no_role") {
            None
        } else if model {
            Some(w::Role::Model)
        } else {
            Some(w::Role::User)
        };
        let order = m.vendor.hint(F, "order").and_then(|o| {
            o.as_array()?
                .iter()
                .map(|i| i.as_u64().map(|i| i as usize))
                .collect::<Option<Vec<usize>>>()
        });
        building = Some(Building {
            model,
            parts,
            content,
            last: m.role,
            order,
        });
    }
    if let Some(b) = building.take() {
        contents.push(finish_content(b));
    }
    if let Some(s) = system.as_mut() {
        s.parts = Some(system_parts);
    }
    (system, contents)
}

/// The documented stand-in for a thought signature on a function call that no Gemini
/// model made (the thought-signatures FAQ; the Vertex docs name this one, which works on
/// both APIs).
pub const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

/// Gemini 3 rejects a request whose current turn (everything after the last user content
/// with more than function responses) has a step whose first `functionCall` part carries
/// no `thoughtSignature`. Calls from another provider (or built in code) have none: the
/// first call of each such step gets [`SKIP_SIGNATURE`]. Earlier turns are not validated
/// and are left as they are; so is a history that came from Gemini itself.
fn sign_foreign_calls(contents: &mut [w::Content]) {
    let standard_user = |c: &w::Content| {
        c.role != Some(w::Role::Model)
            && c.parts
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|p| p.function_response.is_none())
    };
    let start = contents
        .iter()
        .rposition(standard_user)
        .map_or(0, |i| i + 1);
    for c in contents.iter_mut().skip(start) {
        if c.role != Some(w::Role::Model) {
            continue;
        }
        let first_call = c
            .parts
            .as_mut()
            .and_then(|ps| ps.iter_mut().find(|p| p.function_call.is_some()));
        if let Some(p) = first_call {
            p.thought_signature
                .get_or_insert_with(|| SKIP_SIGNATURE.to_owned());
        }
    }
}

fn finish_content(b: Building) -> w::Content {
    let mut c = b.content;
    let mut parts = b.parts;
    if let Some(order) = b.order {
        // Back into the source's order, if the parts are still the ones it describes.
        let mut sorted = order.clone();
        sorted.sort_unstable();
        if sorted.len() == parts.len() && sorted.iter().enumerate().all(|(i, j)| i == *j) {
            let mut placed: Vec<(usize, w::Part)> = order.into_iter().zip(parts).collect();
            placed.sort_by_key(|(j, _)| *j);
            parts = placed.into_iter().map(|(_, p)| p).collect();
        }
    }
    c.parts = Some(parts);
    c
}

/// One neutral part as a Gemini part (`None` when it has no Gemini form: a loss says so).
fn encode_part(p: Part, role: Role, at: &str, calls: &Calls, ctx: &mut Ctx<'_>) -> Option<w::Part> {
    match p {
        // An empty text carries nothing, and Gemini refuses it (`empty text parameter`);
        // one that came from Gemini (hint `empty`, or a signature) is written back.
        Part::Text(t) if t.text.is_empty() && t.meta.is_empty() => None,
        Part::Text(t) => Some(encode_text(t, at, ctx)),
        Part::Refusal(t) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "gemini has no refusal part: sent as text",
            );
            Some(encode_text(t, at, ctx))
        }
        Part::Image(m) => encode_media(m, "image", at, ctx),
        Part::Audio(m) => encode_media(m, "audio", at, ctx),
        Part::Document(m) => encode_media(m, "document", at, ctx),
        Part::Json(j) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "a JSON part is sent as its JSON text",
            );
            drop_cache(ctx, &j.meta, at);
            Some(w::Part {
                text: Some(j.value.to_string()),
                ..Default::default()
            })
        }
        Part::ToolCall(c) if role == Role::Assistant => Some(encode_call(c, at, ctx)),
        Part::ToolCall(_) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                "a tool call outside an assistant message has no place in gemini",
            );
            None
        }
        Part::ToolResult(r) if role != Role::Assistant => Some(encode_result(r, at, calls, ctx)),
        Part::ToolResult(_) => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                "a tool result in an assistant message has no place in gemini",
            );
            None
        }
        Part::Reasoning(r) => encode_reasoning(r, at, ctx),
        Part::Opaque(o) if o.format == F => {
            let signature = ctx
                .own(
                    o.meta.signature.as_ref(),
                    format_args!("{at}/signature"),
                    "a thought signature",
                )
                .map(str::to_owned);
            let mut part: w::Part = serde_json::from_value(o.value).unwrap_or_default();
            if signature.is_some() {
                part.thought_signature = signature;
            }
            Some(part)
        }
        Part::Opaque(o) => match opaque_elsewhere(ctx, &o, at) {
            Some(Part::Text(t)) => Some(w::Part {
                text: Some(t.text),
                ..Default::default()
            }),
            _ => None,
        },
    }
}

/// The rest of a part's wire object (and of its nested data object `key`) from its
/// vendor record, reporting another format's fields as dropped.
fn part_base(
    meta: &PartMeta,
    key: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> (w::Part, Map<String, Value>) {
    let v = &meta.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    let nested = if key.is_empty() {
        Map::new()
    } else {
        take_rest(&mut fields, v, key)
    };
    let r = take_rest(&mut fields, v, "");
    (rebuild(r, &[]), nested)
}

fn own_signature(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) -> Option<String> {
    let signature = meta.signature.as_ref()?;
    ctx.own(
        Some(signature),
        format_args!("{at}/signature"),
        "a thought signature",
    )
    .map(str::to_owned)
}

fn encode_text(t: Text, at: &str, ctx: &mut Ctx<'_>) -> w::Part {
    drop_cache(ctx, &t.meta, at);
    let signature = own_signature(&t.meta, at, ctx);
    let (mut part, _) = part_base(&t.meta, "", at, ctx);
    part.text = Some(t.text);
    part.thought_signature = signature;
    if t.meta.vendor.flag(F, "thought_false") {
        part.thought = Some(false);
    }
    part
}

fn encode_reasoning(r: Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<w::Part> {
    let view = ctx.reasoning(&r, at)?;
    drop_cache(ctx, &r.meta, at);
    if r.id.is_some() {
        ctx.loss(
            format!("{at}/id"),
            LossKind::Dropped,
            "gemini thought parts have no id",
        );
    }
    let text = match view.text {
        Some(t) => {
            if !view.summary.is_empty() {
                ctx.loss(
                    format!("{at}/summary"),
                    LossKind::Dropped,
                    "gemini thought parts carry one text: the summaries are dropped",
                );
            }
            t.to_owned()
        }
        None if view.summary.len() > 1 => {
            ctx.loss(
                format!("{at}/summary"),
                LossKind::Changed,
                "reasoning summaries joined into one gemini thought part",
            );
            view.summary.join("\n\n")
        }
        None => view.summary.first().cloned().unwrap_or_default(),
    };
    let signature = view.signature.map(str::to_owned);
    let (mut part, _) = part_base(&r.meta, "", at, ctx);
    part.text = Some(text);
    part.thought = Some(true);
    part.thought_signature = signature;
    Some(part)
}

/// Where media bytes go in Gemini.
enum MediaData {
    Inline(w::Blob),
    File(w::FileData),
    Text(String),
}

fn default_media_type(kind: &str) -> &'static str {
    match kind {
        "image" => "image/png",
        "audio" => "audio/wav",
        _ => "application/pdf",
    }
}

/// A media type guessed from a URL's file extension.
fn guess_media_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "pdf" => "application/pdf",
        "wav" => "audio/wav",
        "mp3" => "audio/mp3",
        "aiff" => "audio/aiff",
        "aac" => "audio/aac",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        "mp4" => "video/mp4",
        "mpeg" | "mpg" => "video/mpeg",
        "mov" => "video/mov",
        "avi" => "video/avi",
        "webm" => "video/webm",
        "wmv" => "video/wmv",
        "flv" => "video/x-flv",
        "3gp" => "video/3gpp",
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "md" => "text/markdown",
        "xml" => "text/xml",
        _ => return None,
    })
}

/// The Gemini form of a media source. `nested`: the kept rest of its `inlineData` /
/// `fileData` object.
fn media_data(
    m: Media,
    kind: &str,
    nested: Map<String, Value>,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<MediaData> {
    let no_mime = m.meta.vendor.flag(F, "no_mime");
    let blob = |mime_type: String, data: String, nested: Map<String, Value>, name| {
        let mut b: w::Blob = rebuild(nested, &[("mimeType", json!("")), ("data", json!(""))]);
        b.mime_type = mime_type;
        b.data = data;
        b.display_name = name;
        MediaData::Inline(b)
    };
    match m.source {
        Source::Base64 { data } => {
            let mime = m.media_type.unwrap_or_else(|| {
                let d = default_media_type(kind);
                ctx.loss(
                    format!("{at}/media_type"),
                    LossKind::Changed,
                    format!(
                        "gemini inline data needs a media type; the source gave none: sent as {d}"
                    ),
                );
                d.to_owned()
            });
            Some(blob(mime, data, nested, m.name))
        }
        Source::Url { url } => {
            if let Some((mt, data)) = parse_data_url(&url) {
                return Some(blob(m.media_type.unwrap_or(mt), data, nested, m.name));
            }
            let mime = m.media_type.or_else(|| {
                (!no_mime)
                    .then(|| guess_media_type(&url))
                    .flatten()
                    .map(str::to_owned)
            });
            let http = url.starts_with("http://") || url.starts_with("https://");
            let files_api = url.contains("generativelanguage.googleapis.com/");
            if mime.is_none() && !no_mime && http && !files_api {
                ctx.loss(
                    at.to_owned(),
                    LossKind::Dropped,
                    format!("gemini takes a URL as fileData with its media type, which cannot be told from `{url}`; nothing is fetched"),
                );
                return None;
            }
            let mut f: w::FileData = rebuild(nested, &[("fileUri", json!(""))]);
            f.file_uri = url;
            f.mime_type = mime;
            f.display_name = m.name;
            Some(MediaData::File(f))
        }
        Source::FileId { file_id } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Dropped,
                format!("a provider file id (`{file_id}`) has no gemini form; upload the file to the Gemini Files API"),
            );
            None
        }
        Source::Text { text } => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
                "gemini has no text documents: sent as a text part",
            );
            if m.name.is_some() {
                ctx.loss(
                    format!("{at}/name"),
                    LossKind::Dropped,
                    "a text part has no name",
                );
            }
            Some(MediaData::Text(text))
        }
    }
}

fn encode_media(m: Media, kind: &str, at: &str, ctx: &mut Ctx<'_>) -> Option<w::Part> {
    drop_cache(ctx, &m.meta, at);
    let signature = own_signature(&m.meta, at, ctx);
    let nested_key = match m.source {
        Source::Base64 { .. } => "inlineData",
        Source::Url { ref url } if url.starts_with("data:") => "inlineData",
        _ => "fileData",
    };
    let (mut part, nested) = part_base(&m.meta, nested_key, at, ctx);
    match media_data(m, kind, nested, at, ctx)? {
        MediaData::Inline(b) => part.inline_data = Some(Box::new(b)),
        MediaData::File(f) => part.file_data = Some(Box::new(f)),
        MediaData::Text(t) => part.text = Some(t),
    }
    part.thought_signature = signature;
    Some(part)
}

/// Arguments as the object Gemini wants (see the module docs).
fn encode_args(
    a: Arguments,
    no_args: bool,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<Map<String, Value>> {
    let value = match a {
        Arguments::Value(v) => v,
        Arguments::Text(t) if t.trim().is_empty() => Value::Object(Map::new()),
        Arguments::Text(t) => match serde_json::from_str::<Value>(&t) {
            Ok(v) => v,
            Err(_) => {
                ctx.loss(
                    format!("{at}/arguments"),
                    LossKind::Changed,
                    "the arguments are not valid JSON; gemini needs an object: sent as {\"invalid_json\": <text>}",
                );
                let mut m = Map::new();
                m.insert("invalid_json".into(), Value::String(t));
                return Some(m);
            }
        },
    };
    match value {
        Value::Object(m) if m.is_empty() && no_args => None,
        Value::Object(m) => Some(m),
        Value::Null => {
            ctx.loss(
                format!("{at}/arguments"),
                LossKind::Changed,
                "gemini arguments are an object: `null` sent as {}",
            );
            Some(Map::new())
        }
        other => {
            ctx.loss(
                format!("{at}/arguments"),
                LossKind::Changed,
                "gemini arguments are an object: sent as {\"value\": <arguments>}",
            );
            let mut m = Map::new();
            m.insert("value".into(), other);
            Some(m)
        }
    }
}

fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::Part {
    drop_cache(ctx, &c.meta, at);
    let signature = own_signature(&c.meta, at, ctx);
    let (mut part, nested) = part_base(&c.meta, "functionCall", at, ctx);
    let mut fc: w::FunctionCall = rebuild(nested, &[]);
    fc.id = (!c.synthetic_id).then_some(c.id);
    fc.name = Some(c.name);
    let no_args = c.meta.vendor.flag(F, "no_args");
    fc.args = match util::raw_object(c.arguments) {
        // `{}` from a call that had no `args` leaves them out again.
        Ok(raw) if no_args && raw.get() == "{}" => None,
        Ok(raw) => Some(MaybeRaw::Raw(raw)),
        Err(args) => encode_args(args, no_args, at, ctx).map(MaybeRaw::Parsed),
    };
    part.function_call = Some(Box::new(fc));
    part.thought_signature = signature;
    part
}

/// A value of a result's `response`.
enum Item {
    Text(String),
    Json(Value, bool),
}

fn encode_result(r: ToolResult, at: &str, calls: &Calls, ctx: &mut Ctx<'_>) -> w::Part {
    drop_cache(ctx, &r.meta, at);
    let signature = own_signature(&r.meta, at, ctx);
    let (mut part, nested) = part_base(&r.meta, "functionResponse", at, ctx);
    let mut fr: w::FunctionResponse =
        rebuild(nested, &[("name", json!("")), ("response", json!({}))]);
    let name = match r.name.or_else(|| calls.names.get(&r.call_id).cloned()) {
        Some(n) => n,
        None => {
            ctx.loss(
                format!("{at}/name"),
                LossKind::Changed,
                format!(
                    "gemini results must name their function; the result of `{}` names none and its call is not in the conversation: written as `unknown`",
                    r.call_id
                ),
            );
            "unknown".to_owned()
        }
    };
    let id = if r.meta.vendor.flag(F, "no_id") || calls.synthetic.contains(&r.call_id) {
        None
    } else {
        Some(r.call_id)
    };
    let mut content = r.content;
    // The usual result, one plain text, needs no list of items.
    let response = match content.as_slice() {
        [Part::Text(t)] if t.meta.is_empty() => match content.pop() {
            Some(Part::Text(t)) => Some(one_item(Item::Text(t.text), r.is_error)),
            _ => None,
        },
        _ => None,
    };
    let mut items = Vec::new();
    let mut media = Vec::new();
    let mut pat = ctx.buf();
    for (k, p) in content.into_iter().enumerate() {
        crate::util::set_path(&mut pat, at, "content", k);
        match p {
            Part::Text(t) | Part::Refusal(t) => {
                drop_cache(ctx, &t.meta, &pat);
                let _ = own_signature(&t.meta, &pat, ctx);
                let _ = ctx.vendor_fields(&t.meta.vendor, &pat);
                items.push(Item::Text(t.text));
            }
            Part::Json(j) => {
                drop_cache(ctx, &j.meta, &pat);
                let _ = ctx.vendor_fields(&j.meta.vendor, &pat);
                let output = j.meta.vendor.flag(F, "output");
                items.push(Item::Json(j.value, output));
            }
            Part::Image(m) => media_in_result(m, "image", &pat, &mut items, &mut media, ctx),
            Part::Audio(m) => media_in_result(m, "audio", &pat, &mut items, &mut media, ctx),
            Part::Document(m) => media_in_result(m, "document", &pat, &mut items, &mut media, ctx),
            Part::Opaque(o) if o.format == F => {
                match serde_json::from_value::<w::FunctionResponsePart>(o.value.clone()) {
                    Ok(rp) => media.push(rp),
                    Err(_) => items.push(Item::Json(o.value, false)),
                }
            }
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &pat) {
                    items.push(Item::Text(t.text));
                }
            }
            other => ctx.loss(
                pat.clone(),
                LossKind::Dropped,
                format!(
                    "a {} part has no place in a gemini function response",
                    other.kind()
                ),
            ),
        }
    }
    ctx.give_back(pat);
    fr.id = id;
    fr.name = name;
    fr.response = match response {
        Some(response) => response,
        None => response_object(items, r.is_error, at, ctx),
    };
    if !media.is_empty() {
        fr.parts = Some(media);
    }
    part.function_response = Some(Box::new(fr));
    part.thought_signature = signature;
    part
}

fn media_in_result(
    m: Media,
    kind: &str,
    at: &str,
    items: &mut Vec<Item>,
    media: &mut Vec<w::FunctionResponsePart>,
    ctx: &mut Ctx<'_>,
) {
    drop_cache(ctx, &m.meta, at);
    if m.meta.signature.is_some() {
        let _ = own_signature(&m.meta, at, ctx);
    }
    let v = m.meta.vendor.clone();
    let mut fields = ctx.vendor_fields(&v, at);
    let key = match m.source {
        Source::Base64 { .. } => "inlineData",
        Source::Url { ref url } if url.starts_with("data:") => "inlineData",
        _ => "fileData",
    };
    let nested = take_rest(&mut fields, &v, key);
    let r = take_rest(&mut fields, &v, "");
    match media_data(m, kind, nested, at, ctx) {
        Some(MediaData::Inline(b)) => {
            let mut rp: w::FunctionResponsePart = rebuild(r, &[]);
            rp.inline_data = Some(b);
            media.push(rp);
        }
        Some(MediaData::File(f)) => {
            let mut rp: w::FunctionResponsePart = rebuild(r, &[]);
            rp.file_data = Some(f);
            media.push(rp);
        }
        Some(MediaData::Text(t)) => items.push(Item::Text(t)),
        None => {}
    }
}

/// `functionResponse.response` for the result's text and JSON values.
fn response_object(
    mut items: Vec<Item>,
    is_error: bool,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Map<String, Value> {
    let key = if is_error { "error" } else { "output" };
    let value = match items.len() {
        0 => Value::String(String::new()),
        1 => match items.pop() {
            Some(item) => return one_item(item, is_error),
            None => Value::String(String::new()),
        },
        _ if items.iter().all(|i| matches!(i, Item::Text(_))) => {
            ctx.loss(
                format!("{at}/content"),
                LossKind::Changed,
                format!("the result's text parts are joined into one `{key}` string"),
            );
            let texts: Vec<String> = items
                .into_iter()
                .filter_map(|i| match i {
                    Item::Text(t) => Some(t),
                    Item::Json(..) => None,
                })
                .collect();
            Value::String(texts.join("\n"))
        }
        _ => {
            ctx.loss(
                format!("{at}/content"),
                LossKind::Changed,
                format!("the result's parts are sent as one `{key}` array"),
            );
            Value::Array(
                items
                    .into_iter()
                    .map(|i| match i {
                        Item::Text(t) => Value::String(t),
                        Item::Json(v, _) => v,
                    })
                    .collect(),
            )
        }
    };
    let mut out = Map::new();
    out.insert(key.to_owned(), value);
    out
}

/// `functionResponse.response` for a result of one text or JSON value.
fn one_item(item: Item, is_error: bool) -> Map<String, Value> {
    let value = match item {
        Item::Text(t) => Value::String(t),
        Item::Json(Value::Object(m), false) if !is_error => return m,
        Item::Json(v, _) => v,
    };
    let mut out = Map::new();
    out.insert(if is_error { "error" } else { "output" }.to_owned(), value);
    out
}

fn encode_tool_choice(c: ToolChoice) -> w::FunctionCallingConfig {
    use w::FunctionCallingMode as M;
    let (mode, names) = match c {
        ToolChoice::Auto => (M::Auto, None),
        ToolChoice::None => (M::None, None),
        ToolChoice::Required => (M::Any, None),
        ToolChoice::Tool { name } => (M::Any, Some(vec![name])),
        ToolChoice::Allowed {
            names,
            required: true,
        } => (M::Any, Some(names)),
        ToolChoice::Allowed {
            names,
            required: false,
        } => (M::Validated, Some(names)),
    };
    w::FunctionCallingConfig {
        mode: Some(mode),
        allowed_function_names: names,
        ..Default::default()
    }
}

/// Encodes tool definitions as Gemini `tools` entries (`None` for none): function
/// declarations share one entry (a Gemini source's grouping is kept), each built-in tool
/// has its own.
pub fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<Vec<w::Tool>> {
    if tools.is_empty() {
        return None;
    }
    struct Entry {
        decls: Vec<w::FunctionDeclaration>,
        others: Map<String, Value>,
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_source: HashMap<i64, usize> = HashMap::new();
    let mut shared: Option<usize> = None;
    let mut slot = |entries: &mut Vec<Entry>, source: Option<i64>, function: bool| -> usize {
        let new = |entries: &mut Vec<Entry>| {
            entries.push(Entry {
                decls: Vec::new(),
                others: Map::new(),
            });
            entries.len() - 1
        };
        match source {
            Some(e) => *by_source.entry(e).or_insert_with(|| new(entries)),
            None if function => *shared.get_or_insert_with(|| new(entries)),
            None => new(entries),
        }
    };
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => {
                let source = def.vendor.hint(F, "entry").and_then(Value::as_i64);
                let decl = encode_declaration(def, &at, ctx);
                let i = slot(&mut entries, source, true);
                if let Some(e) = entries.get_mut(i) {
                    e.decls.push(decl);
                }
            }
            Tool::Opaque(o) if o.format == F => {
                let source = o.meta.vendor.hint(F, "entry").and_then(Value::as_i64);
                let i = slot(&mut entries, source, false);
                if let (Some(e), Value::Object(m)) = (entries.get_mut(i), o.value) {
                    e.others.extend(m);
                }
            }
            Tool::Opaque(o) => ctx.loss(
                at,
                LossKind::Dropped,
                format!(
                    "{} tool {} has no equivalent in gemini",
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
    Some(
        entries
            .into_iter()
            .map(|e| {
                let mut t: w::Tool = rebuild(e.others, &[]);
                if !e.decls.is_empty() {
                    t.function_declarations = Some(e.decls);
                }
                t
            })
            .collect(),
    )
}

/// Whether a Gemini schema is an object without properties (Gemini rejects those).
fn is_empty_object(s: &Value) -> bool {
    let Value::Object(m) = s else { return false };
    m.get("type").and_then(Value::as_str) == Some("OBJECT")
        && m.iter().all(|(k, v)| match k.as_str() {
            "type" => true,
            "properties" => v.as_object().is_some_and(Map::is_empty),
            "required" => v.as_array().is_some_and(Vec::is_empty),
            _ => false,
        })
}

fn encode_declaration(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::FunctionDeclaration {
    let v = &def.vendor;
    let mut fields = ctx.vendor_fields(v, at);
    let r = take_rest(&mut fields, v, "");
    let mut d: w::FunctionDeclaration = rebuild(r, &[("name", json!(""))]);
    let json_field = v.flag(F, "json_schema");
    d.name = def.name;
    d.description = def.description;
    if let Some(s) = def.input_schema {
        let sat = format!("{at}/input_schema");
        let object = schema::is_object_schema(&s);
        if !object {
            ctx.loss(
                sat.clone(),
                LossKind::Changed,
                "a non-object input schema is exposed as {\"input\": <schema>}",
            );
        }
        match def.dialect {
            Dialect::GeminiOpenapi => {
                d.parameters = Some(if object {
                    s
                } else {
                    json!({"type": "OBJECT", "properties": {"input": s}, "required": ["input"]})
                });
            }
            Dialect::JsonSchema => {
                let s = if object {
                    s
                } else {
                    schema::wrap_non_object(&s).unwrap_or(s)
                };
                if json_field || ctx.options.gemini_schema == GeminiSchema::JsonSchema {
                    d.parameters_json_schema = Some(s);
                } else {
                    let g = schema::to_gemini(&s, ctx, &sat);
                    if !is_empty_object(&g) {
                        d.parameters = Some(g);
                    }
                }
            }
        }
    }
    if let Some(o) = def.output_schema {
        d.response_json_schema = Some(o);
    }
    if def.strict == Some(true) {
        ctx.loss(
            format!("{at}/strict"),
            LossKind::Dropped,
            "gemini function declarations have no strict flag",
        );
    }
    if def.cache.is_some() {
        ctx.loss(
            format!("{at}/cache"),
            LossKind::Dropped,
            "gemini has no cache marker",
        );
    }
    d
}

/// Thinking level for a neutral effort, if Gemini has one.
fn thinking_level(effort: &str) -> Option<w::ThinkingLevel> {
    let upper = effort.to_ascii_uppercase();
    let level = w::ThinkingLevel::from(upper.as_str());
    level.is_known().then_some(level)
}

fn encode_generation_config(
    s: Settings,
    output_format: Option<OutputFormat>,
    rest: Map<String, Value>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<w::GenerationConfig> {
    let present = !rest.is_empty() || v.flag(F, "generation_config");
    let mut gc: w::GenerationConfig = rebuild(rest, &[]);
    gc.max_output_tokens = s.max_tokens;
    gc.temperature = s.temperature;
    gc.top_p = s.top_p;
    if let Some(k) = s.top_k {
        gc.top_k = Some(Number::from(k));
    }
    gc.stop_sequences = s.stop;
    gc.seed = s.seed;
    gc.presence_penalty = s.presence_penalty;
    gc.frequency_penalty = s.frequency_penalty;
    if let Some(r) = s.reasoning {
        let tc = gc.thinking_config.get_or_insert_with(Default::default);
        encode_thinking(r, tc, v.flag(F, "thinking_both"), ctx);
    }
    if let Some(f) = output_format {
        encode_output_format(f, &mut gc, v, ctx);
    }
    let empty = wire_types::to_value(&gc)
        .as_object()
        .is_none_or(Map::is_empty);
    (present || !empty).then_some(gc)
}

fn encode_thinking(r: ReasoningConfig, tc: &mut w::ThinkingConfig, both: bool, ctx: &mut Ctx<'_>) {
    let at = "/settings/reasoning";
    tc.include_thoughts = r.include;
    let mut level = None;
    let mut budget = r.budget_tokens;
    if let Some(e) = &r.effort {
        match thinking_level(e) {
            Some(l) => level = Some(l),
            None if e == "none" => {
                ctx.loss(
                    format!("{at}/effort"),
                    LossKind::Changed,
                    "gemini has no `none` thinking level: thinking turned off with thinkingBudget 0",
                );
                budget = Some(0);
            }
            None if e == "max" => {
                ctx.loss(
                    format!("{at}/effort"),
                    LossKind::Changed,
                    "gemini has no `max` thinking level: sent as XHIGH",
                );
                level = Some(w::ThinkingLevel::Xhigh);
            }
            None => ctx.loss(
                format!("{at}/effort"),
                LossKind::Dropped,
                format!("gemini has no thinking level `{e}`"),
            ),
        }
    }
    if budget.is_none() {
        match r.enabled {
            Some(false) => budget = Some(0),
            Some(true) if level.is_none() => budget = Some(-1),
            _ => {}
        }
    }
    if level.is_some() && budget.is_some() && !both {
        ctx.loss(
            format!("{at}/budget_tokens"),
            LossKind::Dropped,
            "gemini takes a thinking level or a thinking budget, not both: the budget is dropped",
        );
        budget = None;
    }
    tc.thinking_budget = budget;
    tc.thinking_level = level;
}

fn encode_output_format(
    f: OutputFormat,
    gc: &mut w::GenerationConfig,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) {
    match f {
        OutputFormat::Text => gc.response_mime_type = Some("text/plain".into()),
        OutputFormat::JsonObject => gc.response_mime_type = Some("application/json".into()),
        OutputFormat::JsonSchema {
            name,
            schema: s,
            strict,
        } => {
            gc.response_mime_type = Some("application/json".into());
            if let Some(n) = name {
                ctx.loss(
                    "/output_format/name",
                    LossKind::Dropped,
                    format!("gemini output schemas have no name (`{n}`)"),
                );
            }
            if strict == Some(true) {
                ctx.loss(
                    "/output_format/strict",
                    LossKind::Dropped,
                    "gemini has no strict flag for output schemas",
                );
            }
            if let Some(original) = v.hint(F, "response_schema") {
                gc.response_schema = Some(original.clone());
            } else if v.flag(F, "response_json_schema")
                || ctx.options.gemini_schema == GeminiSchema::JsonSchema
            {
                gc.response_json_schema = Some(s);
            } else {
                gc.response_schema = Some(schema::to_gemini(&s, ctx, "/output_format/schema"));
            }
        }
    }
}

/// Encodes a neutral response as a `generateContent` response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let r = take_rest(&mut fields, &v, "");
    let mut out: w::Response = rebuild(r, &[]);
    out.response_id = resp.id;
    out.model_version = resp.model;
    if out.create_time.is_none() {
        out.create_time = resp.created.map(crate::util::rfc3339_of_unix);
    }
    let calls = Calls::default();
    let mut candidates = Vec::with_capacity(resp.choices.len());
    for (i, c) in resp.choices.into_iter().enumerate() {
        candidates.push(encode_candidate(c, i, &calls, ctx));
    }
    if !candidates.is_empty() || v.flag(F, "candidates_empty") {
        out.candidates = Some(candidates);
    }
    out.usage_metadata = resp.usage.map(|u| encode_usage(u, ctx));
    Ok(out)
}

fn encode_candidate(c: Choice, i: usize, calls: &Calls, ctx: &mut Ctx<'_>) -> w::Candidate {
    let at = format!("/choices/{i}");
    let v = &c.vendor;
    let mut fields = ctx.vendor_fields(v, &at);
    let r = take_rest(&mut fields, v, "");
    let mut cand: w::Candidate = rebuild(r, &[]);
    cand.index = if v.flag(F, "no_index") {
        None
    } else {
        Some(
            v.hint(F, "index")
                .and_then(Value::as_u64)
                .map_or(i as u32, |x| x as u32),
        )
    };
    let m = c.message;
    let mat = format!("{at}/message");
    if !v.flag(F, "no_content") {
        let mv = &m.vendor;
        let mut mfields = ctx.vendor_fields(mv, &mat);
        let mr = take_rest(&mut mfields, mv, "");
        let mut content: w::Content = rebuild(mr, &[]);
        content.role = if mv.flag(F, "no_role") {
            None
        } else {
            Some(
                mv.hint(F, "role")
                    .and_then(Value::as_str)
                    .map_or(w::Role::Model, w::Role::from),
            )
        };
        let no_parts = mv.flag(F, "no_parts");
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
            ctx.loss(
                format!("{mat}/content/{j}"),
                LossKind::Dropped,
                "the source candidate had no content",
            );
        }
    }
    cand.finish_reason = c
        .stop_reason
        .map(|r| encode_stop(&r, &format!("{at}/stop_reason"), ctx));
    cand
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence | StopKind::ToolUse => w::FinishReason::Stop,
        StopKind::MaxTokens => w::FinishReason::MaxTokens,
        StopKind::ContentFilter => w::FinishReason::Safety,
        StopKind::Pause | StopKind::Error | StopKind::Other => {
            ctx.loss(
                at.to_owned(),
                LossKind::Changed,
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

fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::UsageMetadata {
    let v = &u.vendor;
    let mut fields = ctx.vendor_fields(v, "/usage");
    let r = take_rest(&mut fields, v, "");
    let mut um: w::UsageMetadata = rebuild(r, &[]);
    let tool_use = v.hint(F, "tool_use_prompt").and_then(Value::as_u64);
    um.tool_use_prompt_token_count = tool_use;
    um.prompt_token_count = if v.flag(F, "no_prompt_count") {
        None
    } else {
        u.input_tokens
            .map(|i| i.saturating_sub(tool_use.unwrap_or(0)))
    };
    um.thoughts_token_count = u.reasoning_tokens;
    um.candidates_token_count = if v.flag(F, "no_candidates_count") {
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
        ctx.loss(
            "/usage/cache_write_tokens",
            LossKind::Dropped,
            "gemini usage has no cache-write count",
        );
    }
    um
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, convert_request, convert_response, decode_request as decode};

    fn gemini_request(body: serde_json::Value) -> model::Request {
        decode(&body.to_string(), Format::Gemini).unwrap().value
    }

    #[test]
    fn foreign_calls_of_the_current_turn_get_the_skip_signature_on_the_first_call_of_each_step() {
        let call = |id: &str| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}});
        let tool = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": "ok"});
        let body = json!({"model": "m", "messages": [
            {"role": "user", "content": "earlier"},
            {"role": "assistant", "content": null, "tool_calls": [call("a")]},
            tool("a"),
            {"role": "user", "content": "now"},
            {"role": "assistant", "content": "Two at once.", "tool_calls": [call("b"), call("c")]},
            tool("b"), tool("c"),
            {"role": "assistant", "content": null, "tool_calls": [call("d")]},
            tool("d")]});
        let out = convert_request(
            &body.to_string(),
            Format::OpenaiChat,
            F,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        let signatures: Vec<(String, Option<&str>)> = v["contents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["parts"].as_array().unwrap())
            .filter(|p| p.get("functionCall").is_some())
            .map(|p| {
                (
                    p["functionCall"]["id"].as_str().unwrap().to_owned(),
                    p["thoughtSignature"].as_str(),
                )
            })
            .collect();
        let skip = Some(SKIP_SIGNATURE);
        assert_eq!(
            signatures,
            [
                // An earlier turn: not validated, left as it was.
                ("a".to_owned(), None),
                // The current turn: the first call of each step.
                ("b".to_owned(), skip),
                ("c".to_owned(), None),
                ("d".to_owned(), skip),
            ]
        );
        // Gemini's own history is written back as it came, signatures or none.
        let own = json!({"contents": [
            {"role": "user", "parts": [{"text": "now"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]});
        let back = convert_request(&own.to_string(), F, F, &Options::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&back.value).unwrap(), own);
        // A signature the call has is kept.
        let mut neutral = gemini_request(own);
        if let Some(Part::ToolCall(c)) = neutral.messages[1].content.first_mut() {
            c.meta.signature = Some(crate::model::Signed {
                format: F,
                value: "c2lnbmVk".into(),
            });
        }
        let out = crate::encode_request(neutral, F, &Options::default()).unwrap();
        assert_eq!(
            out.value["contents"][1]["parts"][0]["thoughtSignature"],
            "c2lnbmVk"
        );
    }

    #[test]
    fn finish_reasons_map_to_kinds() {
        use w::FinishReason as R;
        assert_eq!(stop_kind(&R::Stop, false), StopKind::EndTurn);
        assert_eq!(stop_kind(&R::Stop, true), StopKind::ToolUse);
        assert_eq!(stop_kind(&R::MaxTokens, false), StopKind::MaxTokens);
        for r in [
            R::Safety,
            R::Recitation,
            R::Blocklist,
            R::Spii,
            R::ImageSafety,
        ] {
            assert_eq!(stop_kind(&r, false), StopKind::ContentFilter);
        }
        assert_eq!(
            stop_kind(&R::from("IMAGE_SOMETHING_NEW"), false),
            StopKind::ContentFilter
        );
        for r in [
            R::MalformedFunctionCall,
            R::UnexpectedToolCall,
            R::TooManyToolCalls,
        ] {
            assert_eq!(stop_kind(&r, false), StopKind::Error);
        }
        for r in [R::OtherReason, R::Language, R::from("SOMETHING_NEW")] {
            assert_eq!(stop_kind(&r, false), StopKind::Other);
        }

        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let tool_use = StopReason::new(StopKind::ToolUse);
        assert_eq!(encode_stop(&tool_use, "", &mut ctx), R::Stop);
        assert!(ctx.losses().is_empty());
        let pause = StopReason {
            kind: StopKind::Pause,
            raw: Some("pause_turn".into()),
            format: Some(Format::Anthropic),
        };
        assert_eq!(encode_stop(&pause, "/x", &mut ctx), R::OtherReason);
        assert_eq!(ctx.losses().len(), 1);
        // The same format's raw value goes back as it was.
        let raw = StopReason {
            kind: StopKind::Other,
            raw: Some("LANGUAGE".into()),
            format: Some(F),
        };
        assert_eq!(encode_stop(&raw, "", &mut ctx), R::Language);
    }

    #[test]
    fn usage_counts_tool_prompt_as_input_and_thoughts_as_output() {
        let um: w::UsageMetadata = serde_json::from_value(json!({
            "promptTokenCount": 21, "candidatesTokenCount": 96, "totalTokenCount": 363,
            "toolUsePromptTokenCount": 160, "thoughtsTokenCount": 86,
            "cachedContentTokenCount": 8
        }))
        .unwrap();
        let u = decode_usage(um.clone());
        assert_eq!(u.input_tokens, Some(181));
        assert_eq!(u.output_tokens, Some(182));
        assert_eq!(u.reasoning_tokens, Some(86));
        assert_eq!(u.cached_input_tokens, Some(8));
        assert_eq!(u.total_tokens, Some(363));
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        assert_eq!(encode_usage(u, &mut ctx), um);

        // Thoughts only (the budget went to thinking): candidates stay absent.
        let um: w::UsageMetadata =
            serde_json::from_value(json!({"promptTokenCount": 41, "thoughtsTokenCount": 1023}))
                .unwrap();
        let u = decode_usage(um.clone());
        assert_eq!(u.output_tokens, Some(1023));
        assert_eq!(encode_usage(u, &mut ctx), um);

        // From another format: candidates = output - reasoning, total = input + output.
        let u = Usage {
            input_tokens: Some(100),
            output_tokens: Some(50),
            reasoning_tokens: Some(20),
            ..Default::default()
        };
        let um = encode_usage(u, &mut ctx);
        assert_eq!(um.prompt_token_count, Some(100));
        assert_eq!(um.candidates_token_count, Some(30));
        assert_eq!(um.thoughts_token_count, Some(20));
        assert_eq!(um.total_token_count, Some(150));
    }

    #[test]
    fn results_match_calls_by_name_and_order() {
        let req = gemini_request(json!({"contents": [
            {"role": "user", "parts": [{"text": "sums"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "sum", "args": {"x": 1}}},
                {"functionCall": {"name": "mul", "args": {"x": 2}}},
                {"functionCall": {"name": "sum", "args": {"x": 3}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "sum", "response": {"output": "1"}}},
                {"functionResponse": {"name": "sum", "response": {"output": "3"}}},
                {"functionResponse": {"name": "mul", "response": {"output": "2"}}},
                {"functionResponse": {"name": "gone", "response": {"output": "?"}}}]}
        ]}));
        let ids: Vec<&str> = req.messages[1]
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolCall(c) => {
                    assert!(c.synthetic_id);
                    Some(c.id.as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["call_1_0_sum", "call_1_1_mul", "call_1_2_sum"]);
        let results: Vec<(&str, Option<&str>)> = req.messages[2]
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult(r) => Some((r.call_id.as_str(), r.name.as_deref())),
                _ => None,
            })
            .collect();
        assert_eq!(
            results,
            [
                ("call_1_0_sum", Some("sum")),
                ("call_1_2_sum", Some("sum")),
                ("call_1_1_mul", Some("mul")),
                // Its call was pruned: a synthetic id, and the name survives.
                ("call_2_3_gone", Some("gone")),
            ]
        );
    }

    #[test]
    fn a_user_content_reads_as_results_then_text_and_writes_back_as_it_was() {
        let body = json!({"contents": [
            {"role": "model", "parts": [
                {"functionCall": {"name": "a", "args": {}}},
                {"functionCall": {"name": "b", "args": {}}}]},
            {"role": "user", "parts": [
                {"text": "first the note"},
                {"functionResponse": {"name": "a", "response": {"output": "x"}}},
                {"text": "between"},
                {"functionResponse": {"name": "b", "response": {"output": "y"}}}]}
        ]});
        let req = gemini_request(body.clone());
        let roles: Vec<Role> = req.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::Assistant, Role::Tool, Role::User]);
        assert_eq!(req.messages[2].joined_text(), "first the notebetween");
        let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
        assert!(out.losses.is_empty());
    }

    #[test]
    fn real_ids_are_kept_and_synthetic_ones_never_written() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [
                {"functionCall": {"id": "fc_1", "name": "a", "args": {}}},
                {"functionCall": {"name": "b", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "fc_1", "name": "a", "response": {"output": "x"}}},
                {"functionResponse": {"name": "b", "response": {"output": "y"}}}]}
        ]});
        let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(v, body);
        assert!(out.losses.is_empty());

        // To OpenAI Chat, every call has an id, and the results agree with them.
        let out = convert_request(
            &body.to_string(),
            F,
            Format::OpenaiChat,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(v["messages"][1]["tool_calls"][0]["id"], "fc_1");
        assert_eq!(v["messages"][1]["tool_calls"][1]["id"], "call_1_1_b");
        assert_eq!(v["messages"][2]["tool_call_id"], "fc_1");
        assert_eq!(v["messages"][3]["tool_call_id"], "call_1_1_b");
    }

    #[test]
    fn responses_objects_read_as_text_json_or_error() {
        let (c, e) = decode_response_object(json!({"output": "21°C"}).as_object().unwrap().clone());
        assert_eq!(c, vec![Part::text("21°C")]);
        assert!(!e);
        let (c, e) =
            decode_response_object(json!({"error": "timeout"}).as_object().unwrap().clone());
        assert_eq!(c, vec![Part::text("timeout")]);
        assert!(e);
        let (c, _) = decode_response_object(
            json!({"temp": 21, "unit": "C"})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert!(matches!(&c[0], Part::Json(j) if j.value == json!({"temp": 21, "unit": "C"})));

        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        assert_eq!(
            Value::Object(response_object(
                vec![Item::Text("ok".into())],
                false,
                "",
                &mut ctx
            )),
            json!({"output": "ok"})
        );
        assert_eq!(
            Value::Object(response_object(
                vec![Item::Json(json!([1, 2]), false)],
                false,
                "",
                &mut ctx
            )),
            json!({"output": [1, 2]})
        );
        assert_eq!(
            Value::Object(response_object(
                vec![Item::Json(json!({"a": 1}), false)],
                false,
                "",
                &mut ctx
            )),
            json!({"a": 1})
        );
        assert_eq!(
            Value::Object(response_object(
                vec![Item::Text("bad".into())],
                true,
                "",
                &mut ctx
            )),
            json!({"error": "bad"})
        );
        assert!(ctx.losses().is_empty());
    }

    #[test]
    fn arguments_become_an_object() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let m = |v: Value| v.as_object().cloned();
        assert_eq!(
            encode_args(Arguments::Text("{\"a\":1}".into()), false, "", &mut ctx),
            m(json!({"a": 1}))
        );
        assert_eq!(
            encode_args(Arguments::Text("".into()), false, "", &mut ctx),
            m(json!({}))
        );
        assert!(ctx.losses().is_empty());
        assert_eq!(
            encode_args(Arguments::Value(Value::Null), false, "", &mut ctx),
            m(json!({}))
        );
        assert_eq!(
            encode_args(Arguments::Text("{oops".into()), false, "", &mut ctx),
            m(json!({"invalid_json": "{oops"}))
        );
        assert_eq!(
            encode_args(Arguments::Value(json!([1])), false, "", &mut ctx),
            m(json!({"value": [1]}))
        );
        assert_eq!(ctx.losses().len(), 3);
    }

    #[test]
    fn tool_choice_round_trips() {
        for c in [
            ToolChoice::Auto,
            ToolChoice::None,
            ToolChoice::Required,
            ToolChoice::Tool { name: "a".into() },
            ToolChoice::Allowed {
                names: vec!["a".into(), "b".into()],
                required: true,
            },
            ToolChoice::Allowed {
                names: vec!["a".into()],
                required: false,
            },
        ] {
            assert_eq!(decode_tool_choice(&encode_tool_choice(c.clone())), Some(c));
        }
    }

    #[test]
    fn media_urls_need_a_media_type() {
        assert_eq!(
            guess_media_type("https://x.org/a/cat.JPG?s=1"),
            Some("image/jpeg")
        );
        assert_eq!(guess_media_type("https://x.org/a/cat"), None);
        let body = json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "https://x.org/cat.png"}},
            {"type": "image_url", "image_url": {"url": "https://x.org/render?id=7"}}]}]});
        let out = convert_request(
            &body.to_string(),
            Format::OpenaiChat,
            F,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(
            v["contents"][0]["parts"][1],
            json!({"fileData": {"mimeType": "image/png", "fileUri": "https://x.org/cat.png"}})
        );
        assert_eq!(v["contents"][0]["parts"].as_array().unwrap().len(), 2);
        assert!(out.losses.iter().any(|l| l.path == "/messages/0/content/2"));
    }

    #[test]
    fn system_messages_move_and_same_role_turns_merge() {
        let body = json!({"model": "m", "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "developer", "content": "Use metric units."},
            {"role": "user", "content": "Weather?"},
            {"role": "user", "content": "In Paris."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "21"},
            {"role": "user", "content": "And tomorrow?"},
            {"role": "system", "content": "Answer in French."}]});
        let out = convert_request(
            &body.to_string(),
            Format::OpenaiChat,
            F,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(
            v["systemInstruction"],
            json!({"parts": [{"text": "Be terse."}, {"text": "Use metric units."}, {"text": "Answer in French."}]})
        );
        assert_eq!(
            v["contents"],
            json!([
                {"role": "user", "parts": [{"text": "Weather?"}, {"text": "In Paris."}]},
                {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "w", "args": {"city": "Paris"}}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": "c1", "name": "w", "response": {"output": "21"}}},
                    {"text": "And tomorrow?"}]}
            ])
        );
        let losses: Vec<(&str, LossKind)> = out
            .losses
            .iter()
            .map(|l| (l.path.as_str(), l.kind))
            .collect();
        assert_eq!(
            losses,
            [
                ("/model", LossKind::Dropped),
                ("/messages/3", LossKind::Changed),
                ("/messages/7", LossKind::Moved),
            ]
        );
    }

    #[test]
    fn a_signed_model_turn_keeps_its_own_content() {
        let signed_text = |t: &str, sig: &str| {
            Part::Text(Text {
                text: t.into(),
                meta: PartMeta {
                    signature: Some(signed(sig.into())),
                    ..Default::default()
                },
            })
        };
        let req = model::Request {
            messages: vec![
                Message::text(Role::User, "hi"),
                Message::new(Role::Assistant, vec![signed_text("a", "s1")]),
                Message::new(Role::Assistant, vec![signed_text("b", "s2")]),
                Message::text(Role::Assistant, "c"),
            ],
            ..Default::default()
        };
        let out = crate::encode_request(req, F, &Options::default()).unwrap();
        let contents = out.value["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 3);
        assert_eq!(
            contents[2]["parts"],
            json!([{"text": "b", "thoughtSignature": "s2"}, {"text": "c"}])
        );
        assert_eq!(out.losses.len(), 1);
        assert_eq!(out.losses[0].path, "/messages/3");
    }

    #[test]
    fn output_schemas_round_trip_in_either_field() {
        for (field, schema) in [
            (
                "responseSchema",
                json!({"type": "OBJECT", "properties": {"a": {"type": "STRING", "nullable": true}}}),
            ),
            (
                "responseJsonSchema",
                json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
            ),
        ] {
            let body = json!({"contents": [{"role": "user", "parts": [{"text": "json please"}]}],
                "generationConfig": {"responseMimeType": "application/json", field: schema}});
            let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
            assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
            assert!(out.losses.is_empty());
            let req = gemini_request(body);
            assert!(matches!(
                &req.output_format,
                Some(OutputFormat::JsonSchema { schema, .. })
                    if schema == &json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}})
            ));
        }
    }

    #[test]
    fn json_schema_tools_follow_the_option() {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters":
                {"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "additionalProperties": false}}},
                {"type": "function", "function": {"name": "g", "parameters": {"type": "object", "properties": {}}}}]});
        let out = convert_request(
            &body.to_string(),
            Format::OpenaiChat,
            F,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        let decls = &v["tools"][0]["functionDeclarations"];
        assert_eq!(
            decls[0]["parameters"],
            json!({"type": "OBJECT", "properties": {"x": {"type": "STRING", "nullable": true}}})
        );
        // No properties: Gemini refuses an empty OBJECT, so there are no parameters.
        assert_eq!(decls[1], json!({"name": "g"}));
        assert_eq!(out.losses.len(), 2);
        let opts = Options {
            gemini_schema: GeminiSchema::JsonSchema,
            ..Default::default()
        };
        let out = convert_request(&body.to_string(), Format::OpenaiChat, F, &opts).unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(
            v["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
            body["tools"][0]["function"]["parameters"]
        );
    }

    #[test]
    fn thinking_settings_map_both_ways() {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let mut tc = w::ThinkingConfig::default();
        encode_thinking(
            ReasoningConfig {
                enabled: Some(true),
                budget_tokens: Some(2048),
                ..Default::default()
            },
            &mut tc,
            false,
            &mut ctx,
        );
        assert_eq!(tc.thinking_budget, Some(2048));
        let mut tc = w::ThinkingConfig::default();
        encode_thinking(
            ReasoningConfig {
                effort: Some("none".into()),
                ..Default::default()
            },
            &mut tc,
            false,
            &mut ctx,
        );
        assert_eq!((tc.thinking_budget, tc.thinking_level), (Some(0), None));
        let mut tc = w::ThinkingConfig::default();
        encode_thinking(
            ReasoningConfig {
                effort: Some("medium".into()),
                ..Default::default()
            },
            &mut tc,
            false,
            &mut ctx,
        );
        assert_eq!(tc.thinking_level, Some(w::ThinkingLevel::Medium));
        assert_eq!(ctx.losses().len(), 1);
        let req = gemini_request(json!({"contents": [{"parts": [{"text": "x"}]}],
            "generationConfig": {"thinkingConfig": {"thinkingBudget": -1}}}));
        assert_eq!(
            req.settings.reasoning,
            Some(ReasoningConfig {
                enabled: Some(true),
                ..Default::default()
            })
        );
    }

    #[test]
    fn a_usage_round_trip_through_a_response() {
        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "now", "args": {}}}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5}});
        let out = convert_response(
            &body.to_string(),
            F,
            Format::OpenaiChat,
            &Options::default(),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out.value).unwrap();
        assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(v["usage"]["completion_tokens"], 2);
    }
}
