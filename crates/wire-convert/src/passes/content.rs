//! Decoded messages: their start ([`message`]: Mistral, Cohere, Ollama), and content in
//! the string-or-parts form of Mistral and Cohere (`content`: a string, or a list of items),
//! decoded the same way for both: system and user messages, the content of assistant
//! turns, tool results.

use crate::model::{Message, Part, PartMeta, Role, ToolResult, Vendor};
use crate::{Ctx, Format};
use wire_types::{Extra, TextOrParts};

/// A content item of a string-or-parts format, and how the format reads it.
pub(crate) trait ContentItem: Sized {
    /// The format the item belongs to.
    const FORMAT: Format;
    /// The format's hint for content written as a list of items (even of one text).
    const PARTS: &'static str;

    /// The neutral part of one item.
    fn decode(self, ctx: &mut Ctx<'_>) -> Part;

    /// Appends the parts of `items` (source pointer `at`, neutral pointer `neutral` of
    /// the message) to `parts`, each mapped to its item.
    fn decode_items(
        items: Vec<Self>,
        parts: &mut Vec<Part>,
        neutral: &str,
        at: &str,
        ctx: &mut Ctx<'_>,
    ) {
        for (j, item) in items.into_iter().enumerate() {
            ctx.map(
                format_args!("{neutral}/content/{}", parts.len()),
                format_args!("{at}/content/{j}"),
            );
            parts.push(item.decode(ctx));
        }
    }
}

/// Decodes `content` into `parts`: the string form is one text part (mapped to
/// `{at}/content`); the list form records the [`ContentItem::PARTS`] hint in `v`.
pub(crate) fn decode_content<T: ContentItem>(
    content: TextOrParts<T>,
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
        TextOrParts::Parts(items) => {
            v.set_hint(T::FORMAT, T::PARTS, true);
            T::decode_items(items, parts, neutral, at, ctx);
        }
    }
}

/// A system or user message (`extra`: its unknown members) at neutral pointer
/// `neutral`, source pointer `at`.
pub(crate) fn decode_plain<T: ContentItem>(
    role: Role,
    content: TextOrParts<T>,
    extra: &Extra,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let mut msg = message(T::FORMAT, role, extra, neutral, at, ctx);
    decode_content(content, &mut msg.content, &mut msg.vendor, neutral, at, ctx);
    msg
}

/// The message of an assistant turn (`extra`: its unknown members) at neutral pointer
/// `neutral`, source pointer `at`, with its content: the turn's `role` as the source
/// spelled it (a response message's) is the hint `role_hint`. The format adds its calls.
pub(crate) fn decode_turn<T: ContentItem>(
    role: Option<String>,
    role_hint: &str,
    content: Option<TextOrParts<T>>,
    extra: &Extra,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    let mut msg = message(T::FORMAT, Role::Assistant, extra, neutral, at, ctx);
    if let Some(role) = role {
        msg.vendor.set_hint(T::FORMAT, role_hint, role);
    }
    if let Some(c) = content {
        decode_content(c, &mut msg.content, &mut msg.vendor, neutral, at, ctx);
    }
    msg
}

/// The empty neutral message of `role` for a wire message of `format` at source pointer
/// `at` (`extra`: its unknown members), mapped from it.
pub(crate) fn message(
    format: Format,
    role: Role,
    extra: &Extra,
    neutral: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Message {
    ctx.map(neutral.to_owned(), at.to_owned());
    let mut msg = Message::new(role, Vec::new());
    msg.vendor = Vendor::from_extra(format, extra, &[]);
    msg
}

/// Appends the result of the `tool` message at `at` (its content, answering `call_id`;
/// `meta` read from the message) to the neutral tool message at the end of `messages`,
/// or starts one.
pub(crate) fn push_result<T: ContentItem>(
    messages: &mut Vec<Message>,
    content: TextOrParts<T>,
    mut meta: PartMeta,
    call_id: String,
    name: Option<String>,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    let n = crate::util::tool_message(messages, at, ctx);
    let k = messages.last().map_or(0, |m| m.content.len());
    let neutral = format!("/messages/{n}/content/{k}");
    ctx.map(neutral.clone(), at.to_owned());
    let mut parts = Vec::new();
    decode_content(content, &mut parts, &mut meta.vendor, &neutral, at, ctx);
    let result = ToolResult {
        call_id,
        name,
        content: parts,
        is_error: false,
        meta,
    };
    if let Some(last) = messages.last_mut() {
        last.content.push(Part::ToolResult(result));
    }
}
