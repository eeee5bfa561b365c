//! Decoding requests: Mistral messages and their parts into the neutral model.

use super::hints::{
    ARGS_JSON, CLOSED, IMAGE_URL_STRING, INDEX, NO_ID, NO_NAME, PARTS, ROLE, THINKING_CHUNKS,
};
use super::settings::{decode_output_format, decode_settings, decode_tool_choice};
use super::tools::decode_tool;
use super::{F, FUNCTION_FIELD};
use crate::media::source_of_url;
use crate::model::{self, Media, Message, Part, PartMeta, Role, Source, Vendor};
use crate::passes::content::{self, ContentItem, decode_plain, push_result};
use crate::passes::request::open_request;
use crate::passes::tools::decode_tools;
use crate::passes::tools::map_function_call;
use crate::passes::tools::{decoded_call, read_function_type};
use crate::util::{self, opaque};
use crate::vendor::keep_fields;
use crate::{Ctx, Error};
use wire_types::mistral as w;
use wire_types::{Extra, Format, TextOrParts};

/// Decodes a Mistral chat request.
pub(crate) fn decode_request(
    mut req: w::Request,
    ctx: &mut Ctx<'_>,
) -> Result<model::Request, Error> {
    let (mut out, mut v) = open_request(std::mem::take(&mut req.model), &req.extra, F);

    for (i, m) in std::mem::take(&mut req.messages).into_iter().enumerate() {
        let at = format!("/messages/{i}");
        let n = out.messages.len();
        match m {
            w::Message::System(s) => out.messages.push(decode_plain(
                Role::System,
                s.content,
                &s.extra,
                &format!("/messages/{n}"),
                &at,
                ctx,
            )),
            w::Message::User(u) => out.messages.push(decode_plain(
                Role::User,
                u.content,
                &u.extra,
                &format!("/messages/{n}"),
                &at,
                ctx,
            )),
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
                let mut meta = PartMeta::from_extra(F, &t.extra);
                if t.name.is_none() {
                    meta.vendor.set_hint(F, NO_NAME, true);
                }
                let messages = &mut out.messages;
                push_result(messages, t.content, meta, call_id, t.name, &at, ctx);
            }
            other => {
                return Err(Error::unknown_role(&at, other.tag()));
            }
        }
    }

    out.tools
        .extend(decode_tools(req.tools.take(), decode_tool, ctx));
    out.tool_choice = decode_tool_choice(req.tool_choice.take(), &mut v, ctx);
    out.settings = decode_settings(&mut req, &mut v, ctx);
    out.output_format = decode_output_format(req.response_format.take(), &mut v, ctx);
    keep_fields!(v, F, req; n, prediction, prompt_mode, safe_prompt);
    out.vendor = v;
    Ok(out)
}

impl ContentItem for w::ContentChunk {
    const FORMAT: Format = F;
    const PARTS: &'static str = PARTS;

    fn decode(self, ctx: &mut Ctx<'_>) -> Part {
        decode_chunk(self, ctx)
    }
}

pub(super) fn decode_chunk(c: w::ContentChunk, ctx: &mut Ctx<'_>) -> Part {
    match c {
        w::ContentChunk::Text(t) => util::text_part(F, t.text, &t.extra),
        w::ContentChunk::ImageUrl(i) => match i.image_url {
            w::ImageUrlValue::Url(url) => {
                let mut meta = PartMeta::from_extra(F, &i.extra);
                meta.vendor.set_hint(F, IMAGE_URL_STRING, true);
                util::image_part(F, url, None, meta)
            }
            w::ImageUrlValue::Object(o) => util::image_of_url(F, o, &i.extra),
        },
        w::ContentChunk::DocumentUrl(d) => {
            let (source, media_type) = source_of_url(d.document_url);
            Part::Document(Media {
                source,
                media_type,
                name: d.document_name,
                meta: PartMeta::from_extra(F, &d.extra),
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
                meta: PartMeta::from_extra(F, &a.extra),
            })
        }
        w::ContentChunk::File(f) => Part::Document(Media {
            source: Source::FileId { file_id: f.file_id },
            media_type: None,
            name: None,
            meta: PartMeta::from_extra(F, &f.extra),
        }),
        w::ContentChunk::Thinking(t) => {
            let mut meta = PartMeta::from_extra(F, &t.extra);
            let text = w::thinking_text(&t);
            let plain = matches!(
                t.thinking.as_slice(),
                [w::ContentChunk::Text(only)] if only.extra.is_empty()
            );
            if !plain {
                meta.vendor
                    .set_hint(F, THINKING_CHUNKS, wire_types::to_value(&t.thinking));
            }
            if let Some(closed) = t.closed {
                meta.vendor.set_hint(F, CLOSED, closed);
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
pub(super) struct Turn {
    pub(super) role: Option<String>,
    pub(super) content: Option<TextOrParts<w::ContentChunk>>,
    pub(super) tool_calls: Option<Vec<w::ToolCall>>,
    pub(super) prefix: Option<bool>,
    pub(super) extra: Extra,
}

pub(super) fn decode_turn(t: Turn, neutral: &str, at: &str, ctx: &mut Ctx<'_>) -> Message {
    let mut msg = content::decode_turn(t.role, ROLE, t.content, &t.extra, neutral, at, ctx);
    msg.vendor.keep(F, "prefix", &t.prefix);
    let id_base = neutral.strip_suffix("/message").unwrap_or(neutral);
    for (c, call) in t.tool_calls.into_iter().flatten().enumerate() {
        map_function_call(ctx, neutral, msg.content.len(), at, c);
        msg.content.push(decode_call(call, id_base, c));
    }
    if !msg.vendor.is_empty() {
        msg.vendor.format = Some(F);
    }
    msg
}

fn decode_call(call: w::ToolCall, id_base: &str, c: usize) -> Part {
    let mut v = Vendor::from_extra(F, &call.extra, &[]);
    read_function_type(call.kind.as_deref(), &mut v, F);
    if let Some(ix) = call.index {
        v.set_hint(F, INDEX, ix);
    }
    let f = call.function;
    util::put_prefixed(&mut v, F, FUNCTION_FIELD, &f.extra);
    let arguments = crate::util::read_arguments(f.arguments, &mut v, F, ARGS_JSON);
    let meta = PartMeta {
        vendor: v,
        ..Default::default()
    };
    let no_id = Some((F, NO_ID));
    Part::ToolCall(decoded_call(
        call.id,
        (id_base, c),
        f.name,
        arguments,
        meta,
        no_id,
    ))
}
