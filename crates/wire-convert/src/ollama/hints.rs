//! The hints Ollama's decoders write and its encoders read (see [`crate::vendor`]): how
//! an Ollama body spelled what the neutral model normalizes, so that it is written back
//! as it came. Each constant is named after its key.
//!
//! Shared with every format and not repeated here: [`crate::vendor::NULLS`] (explicit
//! nulls of known fields, on any object), and for tools [`crate::passes::tools::NO_TYPE`]
//! and [`crate::passes::tools::TOOL_NULLS`].

/// On a message (request or response) or a result part: the role as the source spelled
/// it, when that is not the lower-case name (a string).
pub(super) const ROLE: &str = "role";
/// On a message or a result part: the message had no `content` field at all (`true`);
/// written back without one rather than with `""`.
pub(super) const NO_CONTENT: &str = "no_content";
/// On a message or a result part: the message had `images: []` (`true`).
pub(super) const IMAGES_EMPTY: &str = "images_empty";
/// On a result part: its `tool` message had images of Ollama's own (`true`), which go
/// back on the `tool` message rather than to a user message after the results.
pub(super) const IMAGES: &str = "images";
/// On a tool call: the `function.index` the call carried (a number).
pub(super) const INDEX: &str = "index";
/// On a tool call: the call had `type: "function"` (`true`); another `type` is kept as
/// the vendor field `type`.
pub(super) const TYPE: &str = "type";
/// On a tool call: the explicit nulls of its `function` object (a list of field names).
pub(super) const FUNCTION_NULLS: &str = "function_nulls";
/// On a result part: the `tool` message had `tool_call_id` (`true`), so it is written
/// again even where matching by name and order would find the call.
pub(super) const CALL_ID: &str = "call_id";
/// On a result part: the `tool` message had no `tool_name` (`true`).
pub(super) const NO_TOOL_NAME: &str = "no_tool_name";
/// On a result part: no call matched the result (`true`), so its synthetic id is left
/// out again.
pub(super) const ORPHAN: &str = "orphan";
/// On the request: it had an `options` object (`true`), written back even when empty.
pub(super) const OPTIONS: &str = "options";
/// On the request: it had no `stream` field (`true`), which Ollama reads as streaming;
/// the decoded `stream: true` is written back as no field.
pub(super) const NO_STREAM: &str = "no_stream";
/// On a response: it had no `message` (`true`), so none is made up for it.
pub(super) const NO_MESSAGE: &str = "no_message";
/// On a response: its `done` (a bool); the stop reason carries what it means.
pub(super) const DONE: &str = "done";
/// On a choice: the response said `done: true` without a `done_reason` (`true`), and the
/// stop reason read from that is not written as one.
pub(super) const NO_DONE_REASON: &str = "no_done_reason";
