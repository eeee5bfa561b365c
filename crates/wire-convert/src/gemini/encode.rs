//! Encoding requests: neutral messages and parts into Gemini contents.

use super::hints::{
    NO_ARGS, NO_ID, NO_MIME, NO_ROLE, ORDER, OUTPUT, SAME_CONTENT, SEPARATE, SYSTEM_ROLE,
    THOUGHT_FALSE, TOOLS_EMPTY,
};
use super::settings::{encode_generation_config, encode_tool_config};
use super::tools::encode_tools;
use super::{F, rebuild, rebuild_from, take_rest};
use crate::media::{self, parse_data_url};
use crate::model::{
    self, Media, Message, Part, PartMeta, Reasoning, Role, Source, Text, ToolCall, ToolResult,
};
use crate::passes;
use crate::util::{ItemPaths, drop_cache, opaque_elsewhere};
use crate::{Ctx, Error, LossCode};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use wire_types::gemini as w;

/// What the encoder knows about the conversation's calls.
#[derive(Default)]
pub(super) struct Calls {
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
pub(crate) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    if req.model.is_some() {
        ctx.dropped(
            LossCode::FieldUnsupported,
            "/model",
            "gemini bodies have no model: it is part of the URL (models/{model}:generateContent)",
        );
    }

    let calls = Calls::of(&req.messages);

    let tools_empty = v.flag(F, TOOLS_EMPTY);
    let tools = match encode_tools(req.tools, ctx) {
        None if tools_empty => Some(Vec::new()),
        t => t,
    };

    let (system_instruction, mut contents) = encode_messages(req.messages, &calls, ctx);
    if ctx.source != Some(F) {
        sign_foreign_calls(&mut contents);
    }

    let tc_rest = take_rest(&mut fields, &v, "toolConfig");
    let tool_config = encode_tool_config(req.tool_choice, tc_rest, &v, ctx);
    let gc_rest = take_rest(&mut fields, &v, "generationConfig");
    let generation_config =
        encode_generation_config(req.settings, req.output_format, gc_rest, &v, ctx);

    let r = take_rest(&mut fields, &v, "");
    let mut out: w::Request = rebuild(r, &[("contents", json!([]))], "", "", ctx);
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
    let mut paths = ItemPaths::new(String::new(), "", "messages");
    let mut pat = String::new();

    for (i, m) in messages.into_iter().enumerate() {
        let at = paths.at(i);
        if m.role.is_system() {
            if !leading {
                ctx.moved(
                    LossCode::SystemMoved,
                    at.to_owned(),
                    "gemini has no system role: this system message is moved to systemInstruction",
                );
            }
            if system.is_none() {
                let mut c: w::Content = rebuild_from(&m.vendor, at, &[], ctx);
                c.role = m
                    .vendor
                    .hint(F, SYSTEM_ROLE)
                    .and_then(Value::as_str)
                    .map(w::Role::from);
                system = Some(c);
            } else {
                // Written into the first one's content, whose object it takes.
                ctx.report_foreign_fields(&m.vendor, at);
            }
            let mut paths = ItemPaths::new(std::mem::take(&mut pat), at, "content");
            for (j, p) in m.content.into_iter().enumerate() {
                if let Some(part) = encode_part(p, m.role, paths.at(j), calls, ctx) {
                    system_parts.push(part);
                }
            }
            pat = paths.into_buf();
            continue;
        }
        leading = false;
        let model = m.role == Role::Assistant;
        let mut fields = ctx.vendor_fields(&m.vendor, at);
        let mut parts = Vec::with_capacity(m.content.len());
        let mut signed = false;
        let mut paths = ItemPaths::new(std::mem::take(&mut pat), at, "content");
        for (j, p) in m.content.into_iter().enumerate() {
            if let Some(part) = encode_part(p, m.role, paths.at(j), calls, ctx) {
                signed |= part.thought_signature.is_some();
                parts.push(part);
            }
        }
        pat = paths.into_buf();
        if parts.is_empty() {
            // Nothing to send (every part was dropped, with a loss): Gemini rejects empty
            // contents.
            continue;
        }
        let same_content = m.vendor.flag(F, SAME_CONTENT);
        let separate = m.vendor.flag(F, SEPARATE);
        if let Some(b) = building.as_mut() {
            if b.model == model && !separate {
                let normal = same_content || (b.last == Role::Tool && m.role == Role::User);
                if normal || !(model && signed) {
                    if !normal {
                        ctx.changed(
                            LossCode::TurnsChanged,
                            at.to_owned(),
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
        let mut content: w::Content = rebuild(r, &[], at, "", ctx);
        content.role = if !model && m.vendor.flag(F, NO_ROLE) {
            None
        } else if model {
            Some(w::Role::Model)
        } else {
            Some(w::Role::User)
        };
        let order = m.vendor.hint(F, ORDER).and_then(|o| {
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
pub(crate) const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

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
pub(super) fn encode_part(
    p: Part,
    role: Role,
    at: &str,
    calls: &Calls,
    ctx: &mut Ctx<'_>,
) -> Option<w::Part> {
    match p {
        // An empty text carries nothing, and Gemini refuses it (`empty text parameter`);
        // one that came from Gemini (hint `empty`, or a signature) is written back.
        Part::Text(t) if t.text.is_empty() && t.meta.is_empty() => None,
        Part::Text(t) => Some(encode_text(t, at, ctx)),
        Part::Refusal(t) => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                "gemini has no refusal part: sent as text",
            );
            Some(encode_text(t, at, ctx))
        }
        Part::Image(m) => encode_media(m, "image", at, ctx),
        Part::Audio(m) => encode_media(m, "audio", at, ctx),
        Part::Document(m) => encode_media(m, "document", at, ctx),
        Part::Json(j) => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
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
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                "a tool call outside an assistant message has no place in gemini",
            );
            None
        }
        Part::ToolResult(r) if role != Role::Assistant => Some(encode_result(r, at, calls, ctx)),
        Part::ToolResult(_) => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                "a tool result in an assistant message has no place in gemini",
            );
            None
        }
        Part::Reasoning(r) => encode_reasoning(r, at, ctx),
        Part::Opaque(o) if o.format == F => {
            let signature = own_signature(&o.meta, at, ctx);
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

/// The rest of a part's wire object (a content part, or a function response part), and
/// of its nested data object `key`, from its vendor record, reporting another format's
/// fields as dropped.
fn part_base<T: DeserializeOwned + Default>(
    meta: &PartMeta,
    key: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> (T, Map<String, Value>) {
    let v = &meta.vendor;
    if v.fields.is_empty() && v.hints.is_empty() {
        // Nothing kept, nothing to report: most parts of a long transcript.
        return (T::default(), Map::new());
    }
    let mut fields = ctx.vendor_fields(v, at);
    let nested = if key.is_empty() {
        Map::new()
    } else {
        take_rest(&mut fields, v, key)
    };
    let r = take_rest(&mut fields, v, "");
    (rebuild(r, &[], at, "", ctx), nested)
}

/// The thought signature of a part, when Gemini made it (another format's is a loss).
fn own_signature(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) -> Option<String> {
    ctx.own(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a thought signature",
    )
    .map(str::to_owned)
}

fn encode_text(t: Text, at: &str, ctx: &mut Ctx<'_>) -> w::Part {
    drop_cache(ctx, &t.meta, at);
    let signature = own_signature(&t.meta, at, ctx);
    let (mut part, _): (w::Part, _) = part_base(&t.meta, "", at, ctx);
    part.text = Some(t.text);
    part.thought_signature = signature;
    if t.meta.vendor.flag(F, THOUGHT_FALSE) {
        part.thought = Some(false);
    }
    part
}

fn encode_reasoning(r: Reasoning, at: &str, ctx: &mut Ctx<'_>) -> Option<w::Part> {
    let view = ctx.reasoning(&r, at)?;
    drop_cache(ctx, &r.meta, at);
    // The id of another format's reasoning item is reported by `Ctx::reasoning`: one loss
    // at its pointer, not two.
    if r.id.is_some() && r.source.is_none_or(|s| s == F) {
        ctx.dropped(
            LossCode::PartChanged,
            format!("{at}/id"),
            "gemini thought parts have no id",
        );
    }
    let text = match view.text {
        Some(t) => {
            if !view.summary.is_empty() {
                ctx.dropped(
                    LossCode::ReasoningDropped,
                    format!("{at}/summary"),
                    "gemini thought parts carry one text: the summaries are dropped",
                );
            }
            t.to_owned()
        }
        None if view.summary.len() > 1 => {
            ctx.changed(
                LossCode::PartChanged,
                format!("{at}/summary"),
                "reasoning summaries joined into one gemini thought part",
            );
            view.summary.join("\n\n")
        }
        None => view.summary.first().cloned().unwrap_or_default(),
    };
    let signature = view.signature.map(str::to_owned);
    let (mut part, _): (w::Part, _) = part_base(&r.meta, "", at, ctx);
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

/// The media type inline data of `kind` (`image`, `audio`, `document`) is sent as when
/// the source gave none.
fn default_media_type(kind: &str) -> &'static str {
    match kind {
        "image" => "image/png",
        "audio" => "audio/wav",
        _ => "application/pdf",
    }
}

/// The object a media source is written as: `inlineData` for base64 data (a `data:` URL
/// included), `fileData` for the others.
fn data_key(source: &Source) -> &'static str {
    match source {
        Source::Base64 { .. } => "inlineData",
        Source::Url { url } if url.starts_with("data:") => "inlineData",
        _ => "fileData",
    }
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
    let no_mime = m.meta.vendor.flag(F, NO_MIME);
    let blob =
        |mime_type: String, data: String, nested: Map<String, Value>, name, ctx: &mut Ctx<'_>| {
            let placeholders = [("mimeType", json!("")), ("data", json!(""))];
            let mut b: w::Blob = rebuild(nested, &placeholders, at, "inlineData", ctx);
            b.mime_type = mime_type;
            b.data = data;
            b.display_name = name;
            MediaData::Inline(b)
        };
    match m.source {
        Source::Base64 { data } => {
            let mime = m.media_type.unwrap_or_else(|| {
                let d = default_media_type(kind);
                ctx.changed(
                    LossCode::FieldDefaulted,
                    format!("{at}/media_type"),
                    format!(
                        "gemini inline data needs a media type; the source gave none: sent as {d}"
                    ),
                );
                d.to_owned()
            });
            Some(blob(mime, data, nested, m.name, ctx))
        }
        Source::Url { url } => {
            if let Some((mt, data)) = parse_data_url(&url) {
                return Some(blob(m.media_type.unwrap_or(mt), data, nested, m.name, ctx));
            }
            let mime = m.media_type.or_else(|| {
                (!no_mime)
                    .then(|| media::guess_media_type(&url))
                    .flatten()
                    .map(str::to_owned)
            });
            let http = url.starts_with("http://") || url.starts_with("https://");
            let files_api = url.contains("generativelanguage.googleapis.com/");
            if mime.is_none() && !no_mime && http && !files_api {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at.to_owned(),
                    format!("gemini takes a URL as fileData with its media type, which cannot be told from `{url}`; nothing is fetched"),
                );
                return None;
            }
            let mut f: w::FileData =
                rebuild(nested, &[("fileUri", json!(""))], at, "fileData", ctx);
            f.file_uri = url;
            f.mime_type = mime;
            f.display_name = m.name;
            Some(MediaData::File(f))
        }
        Source::FileId { file_id } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!("a provider file id (`{file_id}`) has no gemini form; upload the file to the Gemini Files API"),
            );
            None
        }
        Source::Text { text } => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                "gemini has no text documents: sent as a text part",
            );
            if m.name.is_some() {
                ctx.dropped(
                    LossCode::PartChanged,
                    format!("{at}/name"),
                    "a text part has no name",
                );
            }
            Some(MediaData::Text(text))
        }
    }
}

/// A media part (`kind`: `image`, `audio`, `document`) as a Gemini part.
fn encode_media(m: Media, kind: &str, at: &str, ctx: &mut Ctx<'_>) -> Option<w::Part> {
    drop_cache(ctx, &m.meta, at);
    let signature = own_signature(&m.meta, at, ctx);
    let (mut part, nested): (w::Part, _) = part_base(&m.meta, data_key(&m.source), at, ctx);
    match media_data(m, kind, nested, at, ctx)? {
        MediaData::Inline(b) => part.inline_data = Some(Box::new(b)),
        MediaData::File(f) => part.file_data = Some(Box::new(f)),
        MediaData::Text(t) => part.text = Some(t),
    }
    part.thought_signature = signature;
    Some(part)
}

/// A tool call as a `functionCall` part (a synthetic id is not written).
fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> w::Part {
    drop_cache(ctx, &c.meta, at);
    let signature = own_signature(&c.meta, at, ctx);
    let (mut part, nested): (w::Part, _) = part_base(&c.meta, "functionCall", at, ctx);
    let mut fc: w::FunctionCall = rebuild(nested, &[], at, "functionCall", ctx);
    fc.id = (!c.synthetic_id).then_some(c.id);
    fc.name = Some(c.name);
    let no_args = c.meta.vendor.flag(F, NO_ARGS);
    let args = passes::object_arguments(c.arguments, at, ctx);
    // `{}` from a call that had no `args` leaves them out again.
    fc.args = (!(no_args && args.is_empty())).then(|| args.into_wire());
    part.function_call = Some(Box::new(fc));
    part.thought_signature = signature;
    part
}

/// A value of a result's `response`.
pub(super) enum Item {
    Text(String),
    Json(Value, bool),
}

/// A tool result as a `functionResponse` part: its text and JSON in `response`, its media
/// in `parts`.
fn encode_result(r: ToolResult, at: &str, calls: &Calls, ctx: &mut Ctx<'_>) -> w::Part {
    drop_cache(ctx, &r.meta, at);
    let signature = own_signature(&r.meta, at, ctx);
    let (mut part, nested): (w::Part, _) = part_base(&r.meta, "functionResponse", at, ctx);
    let mut fr: w::FunctionResponse = rebuild(
        nested,
        &[("name", json!("")), ("response", json!({}))],
        at,
        "functionResponse",
        ctx,
    );
    let name = match r.name.or_else(|| calls.names.get(&r.call_id).cloned()) {
        Some(n) => n,
        None => {
            ctx.changed(
                LossCode::FieldDefaulted,
                format!("{at}/name"),
                format!(
                    "gemini results must name their function; the result of `{}` names none and its call is not in the conversation: written as `unknown`",
                    r.call_id
                ),
            );
            "unknown".to_owned()
        }
    };
    let id = if r.meta.vendor.flag(F, NO_ID) || calls.synthetic.contains(&r.call_id) {
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
    let mut paths = ItemPaths::new(ctx.buf(), at, "content");
    for (k, p) in content.into_iter().enumerate() {
        let pat = paths.at(k);
        match p {
            Part::Text(t) | Part::Refusal(t) => {
                drop_cache(ctx, &t.meta, pat);
                report_unplaced_signature(&t.meta, pat, ctx);
                ctx.report_foreign_fields(&t.meta.vendor, pat);
                items.push(Item::Text(t.text));
            }
            Part::Json(j) => {
                drop_cache(ctx, &j.meta, pat);
                ctx.report_foreign_fields(&j.meta.vendor, pat);
                let output = j.meta.vendor.flag(F, OUTPUT);
                items.push(Item::Json(j.value, output));
            }
            Part::Image(m) => media_in_result(m, "image", pat, &mut items, &mut media, ctx),
            Part::Audio(m) => media_in_result(m, "audio", pat, &mut items, &mut media, ctx),
            Part::Document(m) => media_in_result(m, "document", pat, &mut items, &mut media, ctx),
            Part::Opaque(o) if o.format == F => {
                match serde_json::from_value::<w::FunctionResponsePart>(o.value.clone()) {
                    Ok(rp) => media.push(rp),
                    Err(_) => items.push(Item::Json(o.value, false)),
                }
            }
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, pat) {
                    items.push(Item::Text(t.text));
                }
            }
            other => ctx.dropped(
                LossCode::PartUnsupported,
                pat.to_owned(),
                format!(
                    "a {} part has no place in a gemini function response",
                    other.kind()
                ),
            ),
        }
    }
    ctx.give_back(paths.into_buf());
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

/// Reports the signature of a part that Gemini writes without one (a part of a function
/// response): another format's as never sent, Gemini's own as having no place there.
fn report_unplaced_signature(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    ctx.report_unplaced_token(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a thought signature",
    );
}

/// A media part of a tool result: a function response part in `media`, or (a text
/// document) a text item in `items`.
fn media_in_result(
    m: Media,
    kind: &str,
    at: &str,
    items: &mut Vec<Item>,
    media: &mut Vec<w::FunctionResponsePart>,
    ctx: &mut Ctx<'_>,
) {
    drop_cache(ctx, &m.meta, at);
    report_unplaced_signature(&m.meta, at, ctx);
    let (mut rp, nested): (w::FunctionResponsePart, _) =
        part_base(&m.meta, data_key(&m.source), at, ctx);
    match media_data(m, kind, nested, at, ctx) {
        Some(MediaData::Inline(b)) => {
            rp.inline_data = Some(b);
            media.push(rp);
        }
        Some(MediaData::File(f)) => {
            rp.file_data = Some(f);
            media.push(rp);
        }
        Some(MediaData::Text(t)) => items.push(Item::Text(t)),
        None => {}
    }
}

/// `functionResponse.response` for the result's text and JSON values.
pub(super) fn response_object(
    mut items: Vec<Item>,
    is_error: bool,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> w::FunctionResult {
    let key = if is_error { "error" } else { "output" };
    let value = match items.len() {
        0 => Value::String(String::new()),
        1 => match items.pop() {
            Some(item) => return one_item(item, is_error),
            None => Value::String(String::new()),
        },
        _ if items.iter().all(|i| matches!(i, Item::Text(_))) => {
            ctx.changed(
                LossCode::PartChanged,
                format!("{at}/content"),
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
            ctx.changed(
                LossCode::PartChanged,
                format!("{at}/content"),
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
    one_value(value, is_error)
}

/// `functionResponse.response` for a result of one text or JSON value.
fn one_item(item: Item, is_error: bool) -> w::FunctionResult {
    let value = match item {
        Item::Text(t) => Value::String(t),
        // An object that was the whole response goes back whole (sorted as its text
        // would read: `{"output": …}` alone is the output form).
        Item::Json(Value::Object(m), false) if !is_error => return m.into(),
        Item::Json(v, _) => v,
    };
    one_value(value, is_error)
}

/// `{"output": value}`, or `{"error": value}` for a failure.
fn one_value(value: Value, is_error: bool) -> w::FunctionResult {
    if is_error {
        w::FunctionResult::Error(value)
    } else {
        w::FunctionResult::Output(value)
    }
}
