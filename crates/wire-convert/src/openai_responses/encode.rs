//! Encoding requests: neutral messages and parts into OpenAI Responses input items.

use super::hints::{
    ARGS_JSON, INPUT_ITEMS, INPUT_STRING, INSTRUCTIONS, ITEMS, KEPT, KIND, MSG, NAME, NO_SOURCE,
    PARTS, RAW_FILE_DATA, TYPED,
};
use super::settings::{encode_settings, encode_tool_choice};
use super::tools::encode_tools;
use super::{F, MSG_FIELD, from_map, from_map_value, is_absent, is_item, rebuild, tagged};
use crate::media::data_url;
use crate::model::{
    self, Arguments, Media, Message, Opaque, Part, PartMeta, Role, Source, ToolCall, ToolResult,
    Vendor,
};
use crate::passes;
use crate::util::{self, drop_cache, drop_cache_and_signature, opaque_elsewhere};
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value, json};
use wire_types::openai_responses as w;
use wire_types::{Format, TextOrParts};

/// Encodes a neutral request as a Responses request.
pub(crate) fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let v = req.vendor;
    let mut out: w::Request = from_map(rebuild(&v, ctx, ""), "")?;
    out.model = req.model;
    if out.model.is_none() && !is_absent(&v, "model") {
        passes::settings::model_missing(ctx);
    }
    if let Some(tools) = encode_tools(req.tools, ctx) {
        out.tools = Some(tools);
    }

    let mut items = Vec::with_capacity(req.messages.len());
    let mut input_string = false;
    for (i, m) in req.messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        match m.role {
            role if i == 0 && role.is_system() && m.vendor.flag(F, INSTRUCTIONS) => {
                out.instructions = Some(instructions_text(m, &at, ctx));
            }
            Role::System | Role::Developer | Role::User if m.vendor.flag(F, ITEMS) => {
                for (j, p) in m.content.into_iter().enumerate() {
                    let pat = format!("{at}/content/{j}");
                    match p {
                        Part::Opaque(o) if is_item(&o) => items.push(item_of(o, &pat)?),
                        other => ctx.dropped(
                            LossCode::PartUnsupported,
                            pat,
                            format!("a {} part among {F} items has no place", other.kind()),
                        ),
                    }
                }
            }
            Role::System | Role::Developer | Role::User => {
                input_string |= m.role == Role::User && m.vendor.flag(F, INPUT_STRING);
                items.push(encode_input_message(m, &at, ctx)?);
            }
            Role::Assistant => encode_assistant(m, &at, Mode::Request, &mut items, ctx)?,
            Role::Tool => {
                for (j, p) in m.content.into_iter().enumerate() {
                    let pat = format!("{at}/content/{j}");
                    match p {
                        Part::ToolResult(r) => items.push(encode_function_output(r, &pat, ctx)?),
                        // A `custom_tool_call_output` (or another output item) kept whole.
                        Part::Opaque(o) if is_item(&o) => items.push(item_of(o, &pat)?),
                        other => util::drop_tool_message_part(&other, pat, ctx),
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
        [] if !v.flag(F, INPUT_ITEMS) => None,
        _ => Some(w::Input::Items(items)),
    };

    if let Some(c) = req.tool_choice {
        out.tool_choice = Some(encode_tool_choice(c));
    }
    encode_settings(req.settings, req.output_format, &v, &mut out, ctx);
    Ok(out)
}

/// The text of the message that was `instructions` (a string: other parts are lost).
fn instructions_text(m: Message, at: &str, ctx: &mut Ctx<'_>) -> String {
    let mut text = String::new();
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        match p {
            Part::Text(t) => {
                drop_cache_and_signature(&t.meta, &pat, ctx);
                ctx.report_foreign_fields(&t.meta.vendor, &pat);
                text.push_str(&t.text);
            }
            other => ctx.dropped(
                LossCode::PartUnsupported,
                pat,
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

/// Which body an assistant message is written into: a request replays it, a response
/// returns it (and needs item ids and statuses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Request,
    /// With the status for the message items it makes up.
    Response(&'static str),
}

/// An assistant message item being built from consecutive text parts.
struct MsgItem {
    /// The item's fields but its content.
    head: Map<String, Value>,
    /// Content was a string (written back as one).
    string: bool,
    /// An easy message of another format's text: the texts are joined into a string.
    easy: bool,
    parts: Vec<w::ContentPart>,
    /// The neutral pointer of its first part.
    at: String,
}

impl MsgItem {
    /// The item the [`MSG`] hint of a part describes, if it has one.
    fn from_hint(v: &Vendor, fields: &mut Map<String, Value>, at: &str) -> Option<MsgItem> {
        let Some(Value::Object(h)) = v.hint(F, MSG) else {
            return None;
        };
        let mut head = Map::new();
        if h.get(TYPED) == Some(&Value::Bool(true)) {
            head.insert("type".into(), Value::String("message".into()));
        }
        head.insert("role".into(), Value::String("assistant".into()));
        if let Some(Value::Object(kept)) = h.get(KEPT) {
            head.extend(kept.clone());
        }
        let keys: Vec<String> = fields
            .keys()
            .filter(|k| k.starts_with(MSG_FIELD))
            .cloned()
            .collect();
        for k in keys {
            if let Some(x) = fields.remove(&k) {
                head.insert(k.trim_start_matches(MSG_FIELD).to_owned(), x);
            }
        }
        Some(MsgItem {
            head,
            string: h.get(PARTS) != Some(&Value::Bool(true)),
            easy: false,
            parts: Vec::new(),
            at: at.to_owned(),
        })
    }

    /// A message item for text of another format (`k`: the index of the item, for the
    /// made-up id of a response's).
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

    /// The finished message item.
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

/// Finishes the message item being built, if any, into `out`.
fn flush(cur: &mut Option<MsgItem>, out: &mut Vec<w::Item>) -> Result<(), Error> {
    if let Some(m) = cur.take() {
        out.push(m.finish()?);
    }
    Ok(())
}

/// Splits an assistant message into items, in part order.
pub(super) fn encode_assistant(
    m: Message,
    at: &str,
    mode: Mode,
    out: &mut Vec<w::Item>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    // An assistant message is no item of its own: its fields have no place.
    ctx.report_foreign_fields(&m.vendor, at);
    // Another format's empty text beside calls (Mistral's `content: ""`) is no message
    // item: an empty assistant message before the function calls says nothing.
    let calls = m.content.iter().any(|p| matches!(p, Part::ToolCall(_)));
    let mut cur: Option<MsgItem> = None;
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        // Text-like parts join the current message item (or start one).
        let (text, refusal, meta) = match p {
            Part::Text(t) if calls && t.text.is_empty() && t.meta.vendor.format != Some(F) => {
                drop_cache_and_signature(&t.meta, &pat, ctx);
                ctx.report_foreign_fields(&t.meta.vendor, &pat);
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
                ctx.changed(
                    LossCode::PartAsText,
                    pat.clone(),
                    "a JSON part is sent as its JSON text",
                );
                (Some(j.value.to_string()), false, j.meta)
            }
            other @ (Part::Image(_) | Part::Audio(_) | Part::Document(_)) => {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    pat,
                    format!("{F} assistant messages carry no {} parts", other.kind()),
                );
                continue;
            }
            Part::ToolResult(_) => {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    pat,
                    "a tool result in an assistant message has no place",
                );
                continue;
            }
        };
        let text = text.unwrap_or_default();
        drop_cache_and_signature(&meta, &pat, ctx);
        let mut fields = rebuild(&meta.vendor, ctx, &pat);
        if let Some(item) = MsgItem::from_hint(&meta.vendor, &mut fields, &pat) {
            flush(&mut cur, out)?;
            cur = Some(item);
        }
        let item = cur.get_or_insert_with(|| MsgItem::new(mode, out.len(), &pat));
        let part = if refusal && item.easy {
            ctx.changed(
                LossCode::PartAsText,
                pat.clone(),
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
/// [`KIND`] hint says otherwise.
fn text_part(
    text: String,
    mut fields: Map<String, Value>,
    v: &Vendor,
    assistant: bool,
    at: &str,
) -> Result<w::ContentPart, Error> {
    let kind = v
        .hint(F, KIND)
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

/// A tool call as a `function_call` item.
fn encode_call(c: ToolCall, at: &str, ctx: &mut Ctx<'_>) -> Result<w::Item, Error> {
    drop_cache_and_signature(&c.meta, at, ctx);
    let v = &c.meta.vendor;
    let mut map = rebuild(v, ctx, at);
    map.insert("call_id".into(), Value::String(c.id));
    map.insert("name".into(), Value::String(c.name));
    let arguments = match c.arguments {
        Arguments::Value(val) if v.flag(F, ARGS_JSON) => val,
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
        ctx.report_unplaced_token(
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
            ctx.dropped(
                LossCode::ReasoningDropped,
                at.to_owned(),
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
    // Reasoning this format did not make: its fields have no place (another format's are
    // reported).
    ctx.report_foreign_fields(&r.meta.vendor, at);
    match mode {
        Mode::Request => {
            ctx.dropped(
                LossCode::ReasoningDropped,
                at.to_owned(),
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

/// Summary texts as the `summary` parts of a reasoning item.
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
    if v.flag(F, TYPED) {
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
        [w::ContentPart::InputText(t)] if !v.flag(F, PARTS) && t.extra.is_empty() => {
            TextOrParts::Text(t.text.clone())
        }
        [] if !v.flag(F, PARTS) => TextOrParts::Text(String::new()),
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
    drop_cache_and_signature(p.meta(), at, ctx);
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
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!("{F} takes no audio input"),
            );
            return Ok(None);
        }
        Part::Json(j) => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
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
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!("a whole {F} item has no place inside a message"),
            );
            return Ok(None);
        }
        Part::Opaque(o) => match opaque_elsewhere(ctx, &o, at) {
            Some(Part::Text(t)) => text_part(t.text, Map::new(), &Vendor::default(), false, at)?,
            _ => return Ok(None),
        },
        other @ (Part::Reasoning(_) | Part::ToolCall(_) | Part::ToolResult(_)) => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!(
                    "a {} part outside an assistant or tool message has no place in {F}",
                    other.kind()
                ),
            );
            return Ok(None);
        }
    }))
}

/// An image as an `input_image` part.
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
        Source::FileId { file_id } if file_id.is_empty() && vendor.flag(F, NO_SOURCE) => {}
        Source::FileId { file_id } => {
            fields.insert("file_id".into(), Value::String(file_id));
        }
        Source::Text { .. } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
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
        ctx.dropped(
            LossCode::PartChanged,
            format!("{at}/name"),
            format!("{F} images have no name"),
        );
    }
    Ok(Some(from_map(tagged("input_image", fields), at)?))
}

/// A document as an `input_file` part (a text document as a text part).
fn encode_file(m: Media, at: &str, ctx: &mut Ctx<'_>) -> Result<Option<w::ContentPart>, Error> {
    let v = &m.meta.vendor;
    let mut fields = rebuild(v, ctx, at);
    let inline = matches!(m.source, Source::Base64 { .. });
    match m.source {
        Source::FileId { file_id } if file_id.is_empty() && v.flag(F, NO_SOURCE) => {}
        Source::FileId { file_id } => {
            fields.insert("file_id".into(), Value::String(file_id));
        }
        Source::Url { url } => {
            fields.insert("file_url".into(), Value::String(url));
        }
        Source::Base64 { data } => {
            let data = if v.flag(F, RAW_FILE_DATA) {
                data
            } else {
                data_url(m.media_type.as_deref(), &data)
            };
            fields.insert("file_data".into(), Value::String(data));
        }
        Source::Text { text } => {
            ctx.changed(
                LossCode::PartAsText,
                at.to_owned(),
                format!("{F} has no text documents: sent as a text part"),
            );
            if m.name.is_some() {
                ctx.dropped(
                    LossCode::PartChanged,
                    format!("{at}/name"),
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

/// A tool result as a `function_call_output` item.
pub(super) fn encode_function_output(
    r: ToolResult,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Result<w::Item, Error> {
    drop_cache_and_signature(&r.meta, at, ctx);
    let v = &r.meta.vendor;
    let mut map = rebuild(v, ctx, at);
    let mut parts = Vec::with_capacity(r.content.len());
    for (j, p) in r.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        let part = match p {
            // A structured result is its JSON text here.
            Part::Json(j) => {
                drop_cache_and_signature(&j.meta, &pat, ctx);
                ctx.report_foreign_fields(&j.meta.vendor, &pat);
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
        ctx.changed(
            LossCode::PartChanged,
            format!("{at}/is_error"),
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
        [w::ContentPart::InputText(t)] if !v.flag(F, PARTS) && t.extra.is_empty() => {
            TextOrParts::Text(t.text.clone())
        }
        [] if !v.flag(F, PARTS) => TextOrParts::Text(String::new()),
        _ => TextOrParts::Parts(parts),
    };
    map.insert("call_id".into(), Value::String(r.call_id));
    if v.flag(F, NAME) {
        if let Some(n) = r.name {
            map.insert("name".into(), Value::String(n));
        }
    }
    map.insert("output".into(), wire_types::to_value(&output));
    from_map(tagged("function_call_output", map), at)
}
