//! OpenAI Responses (`POST /v1/responses`) ↔ the neutral model.
//!
//! * `instructions` is a leading neutral
//!   [`Role::System`](crate::model::Role::System) message (hint `instructions`),
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
//! * `reasoning` items are [`Part::Reasoning`] (`id`,
//!   summary texts, `reasoning_text` content as text, `encrypted_content` as
//!   [`Signed`](crate::model::Signed) owned by this format). Only this
//!   format's own reasoning items go back into a request; reasoning from another provider
//!   has no place there (a loss). In a response, foreign reasoning text becomes a
//!   reasoning item with a made-up id.
//! * Every other item (`web_search_call`, `mcp_*`, `apply_patch_call`, `tool_search_*`,
//!   `item_reference`, …) is kept whole as an [`Opaque`] part
//!   (hint `item`): in the
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
//! Hints (how the source spelled what the neutral model normalizes): see `hints.rs`.

use crate::codec::Codec;
use crate::model::{Opaque, Part, PartMeta, Vendor};
use crate::passes::response::Required;
use crate::{Ctx, Error};
use hints::{ABSENT, ITEM, KEPT};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wire_types::openai_responses as w;
use wire_types::{Extra, Format};

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
mod stream;
#[cfg(test)]
mod tests;
mod tools;

pub(crate) use tools::{custom_call, custom_output, custom_tool};

/// The OpenAI Responses format.
pub(crate) struct OpenaiResponses;

impl Codec for OpenaiResponses {
    const ITEMS: &'static str = "input";
    // Required by the SDK's response type: `id`, `model` and `created_at`.
    const RESPONSE_REQUIRES: Required = Required::NONE.id().model().created();

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        match &request.input {
            Some(w::Input::Items(items)) => crate::codec::raw_items(items),
            // The string form is one user message.
            Some(w::Input::Text(text)) => {
                vec![wire_types::to_raw(
                    &serde_json::json!({"role": "user", "content": text}),
                )]
            }
            None => Vec::new(),
        }
    }

    crate::codec::forward_to_folder!();
}

const F: Format = Format::OpenaiResponses;

/// The prefix of an assistant message item's own fields (`id`, `status`, `phase`, …),
/// kept on the first part of the item as `$msg.<key>`.
const MSG_FIELD: &str = "$msg.";

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

/// Reads a wire value back from an opaque value kept whole (an object).
fn from_map_value<T: DeserializeOwned>(value: Value, at: &str) -> Result<T, Error> {
    match value {
        Value::Object(m) => from_map(m, at),
        _ => Err(Error::invalid(
            at.to_owned(),
            "an opaque value is not an object",
        )),
    }
}

/// The same object with `type` first (tagged unions read the tag first).
fn tagged(tag: &str, map: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::with_capacity(map.len() + 1);
    out.insert("type".into(), Value::String(tag.to_owned()));
    out.extend(map);
    out
}

/// A vendor record for the rest of a wire object: blank values in the [`KEPT`] hint, the
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
        v.hints.insert(KEPT.to_owned(), Value::Object(kept));
    }
    if !v.is_empty() {
        v.format = Some(F);
    }
    v
}

/// Puts a blank value (`null`, `[]`, `{}`, or an object of blanks) into the [`KEPT`]
/// hint, under `key`.
fn keep_blank(v: &mut Vendor, key: &str, value: Value) {
    v.format = Some(F);
    let kept = v
        .hints
        .get_or_insert_with(KEPT, || Value::Object(Map::new()));
    if let Value::Object(k) = kept {
        k.insert(key.to_owned(), value);
    }
}

/// Keeps what is left of a nested object (`reasoning`, `text`, token details) under
/// `key`: as a field when it holds something, else in [`KEPT`].
fn put_sub(v: &mut Vendor, key: &str, sub: Map<String, Value>) {
    if sub.values().all(is_blank) {
        keep_blank(v, key, Value::Object(sub));
    } else {
        v.set_field(F, key, Value::Object(sub));
    }
}

/// Records in the [`ABSENT`] hint each of `fields` (its name, and whether the wire value
/// lacks it) that the source left out: missing, and not an explicit `null` in `extra`
/// (the wire value's). `prefix` names a nested object (`input_tokens_details.`); empty
/// for the object itself. No default is then filled in for it.
fn note_absent(v: &mut Vendor, extra: &Extra, prefix: &str, fields: &[(&str, bool)]) {
    for &(key, missing) in fields {
        if missing && !extra.was_null(key) {
            v.format = Some(F);
            let list = v
                .hints
                .get_or_insert_with(ABSENT, || Value::Array(Vec::new()));
            if let Value::Array(a) = list {
                a.push(Value::String(format!("{prefix}{key}")));
            }
        }
    }
}

/// Whether the source of `v` left `key` out.
fn is_absent(v: &Vendor, key: &str) -> bool {
    v.hint(F, ABSENT)
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|x| x == key))
}

/// The object to rebuild a wire value from: the [`KEPT`] values and the fields, when they
/// belong to this format (fields of another format are reported as dropped at `at`).
fn rebuild(v: &Vendor, ctx: &mut Ctx<'_>, at: &str) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(Value::Object(kept)) = v.hint(F, KEPT) {
        m.extend(kept.clone());
    }
    m.extend(ctx.vendor_fields(v, at));
    m
}

/// An opaque part holding a whole item.
pub(crate) fn opaque_item(map: Map<String, Value>) -> Part {
    let mut meta = PartMeta::default();
    meta.vendor.set_hint(F, ITEM, true);
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

/// Whether an opaque part is a whole item of this format.
fn is_item(o: &Opaque) -> bool {
    o.format == F && o.meta.vendor.flag(F, ITEM)
}

/// Items a client sends back (results of hosted or custom tools, approvals): they go
/// into a user message rather than the assistant's.
fn user_side(item: &Map<String, Value>) -> bool {
    item.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.ends_with("_call_output") || t == "mcp_approval_response")
}
