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
//!   its position and name
//!   ([`ToolCall::synthetic_id`](crate::model::ToolCall::synthetic_id)); a result without
//!   one answers the first unanswered call of its name in the preceding model turn(s)
//!   (name and order, as Gemini matches), or gets a synthetic id when that call was
//!   pruned. Synthetic ids are never written: not on calls, not on results answering them.
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
//! * **Reasoning**: `thought: true` text ↔ [`Reasoning`](crate::model::Reasoning) (its
//!   `thoughtSignature` as [`Reasoning::signature`](crate::model::Reasoning::signature));
//!   a `thoughtSignature` on any other part (text, function call, an empty text part) ↔
//!   that part's [`PartMeta::signature`](crate::model::PartMeta::signature), written back
//!   on the same part. Signatures made by another format are dropped (a loss); reasoning
//!   text of another format becomes a thought part (or is dropped, per
//!   [`Options::reasoning`](crate::Options::reasoning)); a reasoning id has no place
//!   (one loss at its `id`).
//! * **Media**: `inlineData` ↔ base64 image/audio/document (by media type; video reads as
//!   a document); `fileData` ↔ a URL source. An `http(s)` URL from another format becomes
//!   `fileData` with a media type guessed from its extension, or is dropped with a loss
//!   when none can be guessed; nothing is fetched. Provider file ids have no Gemini form.
//! * **Tools**: `parameters` ↔
//!   [`Dialect::GeminiOpenapi`](crate::model::Dialect::GeminiOpenapi) (written back
//!   unchanged); `parametersJsonSchema` ↔ JSON Schema (hint `json_schema`). A JSON Schema
//!   from another format goes to `parameters` through
//!   [`schema::to_gemini`](crate::schema::to_gemini) (a loss per rewrite), or to
//!   `parametersJsonSchema` as it is with
//!   [`GeminiSchema::JsonSchema`](crate::GeminiSchema::JsonSchema). An object schema
//!   without properties is left out (Gemini rejects an `OBJECT` without properties).
//!   Built-in tools (`googleSearch`, `codeExecution`, …) ↔
//!   [`Tool::Opaque`], one per key.
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
//! * **Streams** (`streamGenerateContent?alt=sse`): each chunk is a response holding the
//!   next parts, decoded by the same code; consecutive text (thought) parts make one text
//!   (reasoning) part, Vertex AI's `partialArgs` fragments one call, a blocked prompt a
//!   content-filter finish. The encoder writes text at once and a call once it has ended
//!   (Gemini has no partial arguments); see `stream.rs`.
//! * `executableCode`, `codeExecutionResult`, `toolCall`, `toolResponse` and unknown parts
//!   ↔ [`Part::Opaque`](crate::model::Part::Opaque).
//!
//! What the neutral model has no field for is kept in [`Vendor`] fields: the rest of each
//! wire object (its unknown fields and the known ones this module does not map), under
//! the object's own key for nested objects (`functionCall`, `inlineData`, `toolConfig`,
//! `generationConfig`, …). Hints (how the source spelled what the neutral model
//! normalizes): see `hints.rs`.

use crate::codec::Codec;
use crate::model::{Signed, Vendor};
use crate::vendor::NULLS;
use crate::{Ctx, LossCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wire_types::Format;
use wire_types::gemini as w;

mod decode;
mod encode;
mod hints;
mod response;
mod settings;
mod stream;
#[cfg(test)]
mod tests;
mod tools;

/// The Gemini generateContent format.
pub(crate) struct Gemini;

impl Codec for Gemini {
    const ITEMS: &'static str = "contents";

    fn items(request: &w::Request) -> Vec<Box<serde_json::value::RawValue>> {
        crate::codec::raw_items(&request.contents)
    }

    crate::codec::forward_to_folder!();
}

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
/// `key`; its explicit nulls in the [`NULLS`] hint (`key.field` for a nested object).
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
            .get_or_insert_with(NULLS, || Value::Array(Vec::new()));
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
    } else if fields.get(key).is_some_and(Value::is_object) {
        match fields.shift_remove(key) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        }
    } else {
        // Not an object (a hand-built record): left in `fields`, where the rebuild of
        // the object that holds it reports it as not fitting.
        Map::new()
    };
    if let Some(Value::Array(nulls)) = v.hint(F, NULLS) {
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
///
/// A kept field that does not fit its wire field (only a hand-built neutral value has
/// one) is left out with a `dropped` loss at `at/key/<field>` (`at` the neutral pointer
/// of the object that carried the record, `key` the nested object's name or empty),
/// and the rest is kept: one misfit never takes the other fields with it.
fn rebuild<T: DeserializeOwned + Default>(
    mut rest: Map<String, Value>,
    placeholders: &[(&str, Value)],
    at: &str,
    key: &str,
    ctx: &mut Ctx<'_>,
) -> T {
    if rest.is_empty() {
        return T::default();
    }
    for (k, v) in placeholders {
        rest.entry(*k).or_insert_with(|| v.clone());
    }
    let whole = Value::Object(rest);
    if let Ok(t) = T::deserialize(&whole) {
        return t;
    }
    // Some field does not fit: try each with the placeholders alone (one entry at a time,
    // so the work stays linear in the fields), keep those that fit.
    let Value::Object(rest) = whole else {
        return T::default();
    };
    let base: Map<String, Value> = placeholders
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    let mut fitting = base.clone();
    for (field, value) in rest {
        let mut probe = base.clone();
        probe.insert(field.clone(), value);
        let probe = Value::Object(probe);
        match T::deserialize(&probe) {
            Ok(_) => {
                if let Value::Object(mut m) = probe {
                    if let Some(v) = m.remove(&field) {
                        fitting.insert(field, v);
                    }
                }
            }
            Err(e) => {
                let mut path = at.to_owned();
                if !key.is_empty() {
                    wire_types::push_token(&mut path, key);
                }
                wire_types::push_token(&mut path, &field);
                let detail =
                    format!("{F} field `{field}` does not fit its wire field ({e}): not written");
                ctx.dropped(LossCode::FieldUnsupported, path, detail);
            }
        }
    }
    T::deserialize(&Value::Object(fitting)).unwrap_or_default()
}

/// [`rebuild`] of the object whose neutral counterpart at `at` has the vendor record `v`:
/// what this format kept of it, another format's fields reported as dropped.
fn rebuild_from<T: DeserializeOwned + Default>(
    v: &Vendor,
    at: &str,
    placeholders: &[(&str, Value)],
    ctx: &mut Ctx<'_>,
) -> T {
    let mut fields = ctx.vendor_fields(v, at);
    rebuild(take_rest(&mut fields, v, ""), placeholders, at, "", ctx)
}

/// A thought signature made by Gemini.
fn signed(value: String) -> Signed {
    Signed { value, format: F }
}
