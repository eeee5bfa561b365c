//! Decoding requests: Cohere messages and their parts into the neutral model.

use super::hints::{ARGS_JSON, NO_ARGUMENTS, NO_ID, PARTS, ROLE, TOOL_PLAN};
use super::settings::{decode_response_format, decode_settings, decode_tool_choice};
use super::tools::decode_tool;
use super::{DOCUMENT, F, FUNCTION, Turn};
use crate::model::{self, Arguments, Json, Message, Part, PartMeta, Role, Vendor};
use crate::passes::content::{self, ContentItem, decode_plain, push_result};
use crate::passes::request::open_request;
use crate::passes::tools::decode_tools;
use crate::passes::tools::map_function_call;
use crate::passes::tools::{decoded_call, read_function_type};
use crate::util::{self, opaque};
use crate::vendor::keep_fields;
use crate::{Ctx, Error};
use serde_json::Value;
use wire_types::Format;
use wire_types::cohere as w;

/// Decodes a Cohere v2 chat request.
pub(super) fn decode_request(
    mut req: w::Request,
    ctx: &mut Ctx<'_>,
) -> Result<model::Request, Error> {
    let (mut out, mut v) = open_request(std::mem::take(&mut req.model), &req.extra, F);

    for (i, m) in std::mem::take(&mut req.messages).into_iter().enumerate() {
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
            w::Message::Tool(t) => {
                let meta = PartMeta::from_extra(F, &t.extra);
                let messages = &mut out.messages;
                push_result(messages, t.content, meta, t.tool_call_id, None, &at, ctx);
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
    out.output_format = decode_response_format(req.response_format.take(), &mut v, ctx);
    keep_fields!(v, F, req; strict_tools, documents, citation_options, safety_mode, logprobs);
    out.vendor = v;
    Ok(out)
}

impl ContentItem for w::Content {
    const FORMAT: Format = F;
    const PARTS: &'static str = PARTS;

    fn decode(self, ctx: &mut Ctx<'_>) -> Part {
        decode_item(self, ctx)
    }

    /// Each item a part (mapped to its item); a document's fields mapped one by one.
    fn decode_items(
        items: Vec<w::Content>,
        parts: &mut Vec<Part>,
        neutral: &str,
        at: &str,
        ctx: &mut Ctx<'_>,
    ) {
        for (j, c) in items.into_iter().enumerate() {
            let part_at = format!("{neutral}/content/{}", parts.len());
            let document = matches!(c, w::Content::Document(_));
            let part = decode_item(c, ctx);
            // A document's own fields are kept under flat keys: each is mapped to where it
            // sits in the item, so a loss names it there.
            if document {
                for key in part.meta().vendor.fields.keys() {
                    let field = key.strip_prefix(DOCUMENT).unwrap_or(key);
                    ctx.map(
                        format_args!("{part_at}/{key}"),
                        format_args!("{at}/content/{j}/document/{field}"),
                    );
                }
            }
            ctx.map(part_at, format_args!("{at}/content/{j}"));
            parts.push(part);
        }
    }
}

/// One content item; an item kind the neutral model lacks is kept whole.
fn decode_item(c: w::Content, ctx: &mut Ctx<'_>) -> Part {
    match c {
        w::Content::Text(t) => util::text_part(F, t.text, &t.extra),
        w::Content::ImageUrl(i) => util::image_of_url(F, i.image_url, &i.extra),
        w::Content::Thinking(t) => Part::Reasoning(model::Reasoning {
            text: Some(t.thinking),
            source: Some(F),
            meta: PartMeta::from_extra(F, &t.extra),
            ..Default::default()
        }),
        w::Content::Document(d) => {
            let mut meta = PartMeta::from_extra(F, &d.extra);
            let doc = d.document;
            util::put_prefixed(&mut meta.vendor, F, DOCUMENT, &doc.extra);
            meta.vendor.keep(F, "id", &doc.id);
            Part::Json(Json {
                value: Value::Object(doc.data),
                meta,
            })
        }
        other => opaque(ctx, wire_types::to_value(&other)),
    }
}

/// An assistant turn at neutral pointer `neutral`, source pointer `at`: its content, its
/// `tool_plan` (a reasoning part), its calls.
pub(super) fn decode_turn(t: Turn, neutral: &str, at: &str, ctx: &mut Ctx<'_>) -> Message {
    let mut msg = content::decode_turn(t.role, ROLE, t.content, &t.extra, neutral, at, ctx);
    msg.vendor.keep(F, "citations", &t.citations);
    if let Some(plan) = t.tool_plan {
        ctx.map(
            format_args!("{neutral}/content/{}", msg.content.len()),
            format_args!("{at}/tool_plan"),
        );
        let mut meta = PartMeta::default();
        meta.vendor.set_hint(F, TOOL_PLAN, true);
        msg.content.push(Part::Reasoning(model::Reasoning {
            text: Some(plan),
            source: Some(F),
            meta,
            ..Default::default()
        }));
    }
    let id_base = neutral.strip_suffix("/message").unwrap_or(neutral);
    for (c, call) in t.tool_calls.into_iter().flatten().enumerate() {
        map_function_call(ctx, neutral, msg.content.len(), at, c);
        msg.content.push(decode_call(call, id_base, c, ctx));
    }
    msg
}

/// Call `c` of a turn (`id_base`: the neutral message pointer, for a synthetic id); a
/// call without a function name is kept whole.
pub(super) fn decode_call(call: w::ToolCall, id_base: &str, c: usize, ctx: &mut Ctx<'_>) -> Part {
    let Some(f) = call.function.clone() else {
        return opaque(ctx, wire_types::to_value(&call));
    };
    let Some(name) = f.name else {
        return opaque(ctx, wire_types::to_value(&call));
    };
    let mut v = Vendor::from_extra(F, &call.extra, &[]);
    read_function_type(call.kind.as_deref(), &mut v, F);
    util::put_prefixed(&mut v, F, FUNCTION, &f.extra);
    let arguments = match f.arguments {
        Some(a) => crate::util::read_arguments(a, &mut v, F, ARGS_JSON),
        None => {
            v.set_hint(F, NO_ARGUMENTS, true);
            Arguments::Text(String::new())
        }
    };
    let meta = PartMeta {
        vendor: v,
        ..Default::default()
    };
    let no_id = Some((F, NO_ID));
    Part::ToolCall(decoded_call(
        call.id,
        (id_base, c),
        name,
        arguments,
        meta,
        no_id,
    ))
}
