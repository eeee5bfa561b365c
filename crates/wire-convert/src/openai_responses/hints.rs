//! The hints OpenAI Responses writes into [`Vendor`](crate::model::Vendor) records and
//! reads back: how a Responses body spelled what the neutral model normalizes, so the
//! same format writes it back as it was. Only this format reads them; they are never
//! reported as losses.
//!
//! The shared [`NULLS`](crate::vendor::NULLS) hint is not used here: explicit nulls are
//! kept in [`KEPT`] with the empty arrays and objects.

// Any object.

/// On any object: its explicit `null`s, empty arrays and empty objects (an object of
/// them by field name, a nested object's under its own key), written back as they were.
pub(super) const KEPT: &str = "kept";
/// On any object: the fields the source left out that an encoder would otherwise fill
/// with a default (a list of field names; `input_tokens_details.cached_tokens` for a
/// nested one).
pub(super) const ABSENT: &str = "absent";

// The request.

/// On the leading system message: it was the request's `instructions` (`true`).
pub(super) const INSTRUCTIONS: &str = "instructions";
/// On the user message: the request's `input` was a string (`true`).
pub(super) const INPUT_STRING: &str = "input_string";
/// On the request: `input` was an empty array (`true`).
pub(super) const INPUT_ITEMS: &str = "input_items";
/// On the request: the `reasoning.summary` value (a string), written back when the
/// neutral reasoning config asks for summaries.
pub(super) const SUMMARY: &str = "summary";

// Messages and items.

/// On a user, system or developer message (and in [`MSG`]): the item had
/// `"type": "message"` (`true`).
pub(super) const TYPED: &str = "typed";
/// On a message or a tool result (and in [`MSG`]): its `content` or `output` was an
/// array of parts, not a string (`true`).
pub(super) const PARTS: &str = "parts";
/// On the first part of an assistant message item: where the item starts, and how it
/// was spelled (an object of [`TYPED`], [`PARTS`] and the item's [`KEPT`]); the item's
/// own fields travel as the part's `$msg.<key>` fields.
pub(super) const MSG: &str = "msg";
/// On an opaque part: it holds a whole item (`web_search_call`, `mcp_call`, …), not a
/// content part (`true`).
pub(super) const ITEM: &str = "item";
/// On a user message: it carries only whole items that a client sends back
/// (`*_call_output`, `mcp_approval_response`) (`true`).
pub(super) const ITEMS: &str = "items";
/// On a tool result: its `function_call_output` had a `name` (`true`).
pub(super) const NAME: &str = "name";

// Parts.

/// On a text part: its wire type (`input_text` or `output_text`) when it is not the one
/// its message implies (a string).
pub(super) const KIND: &str = "kind";
/// On a tool call: its `arguments` were JSON, not JSON text (`true`).
pub(super) const ARGS_JSON: &str = "args_json";
/// On a document: its `file_data` was base64 without a `data:` URL around it (`true`).
pub(super) const RAW_FILE_DATA: &str = "raw_file_data";
/// On an image or a document: it had no source at all (no URL, file id or data), and is
/// written back without one (`true`).
pub(super) const NO_SOURCE: &str = "no_source";
