//! The hints Mistral records in a [`Vendor`](crate::model::Vendor) record: how the
//! source spelled what the neutral model normalizes, so that this format writes it back
//! as it came. Only this format reads them, and they are never reported as losses.
//!
//! Two hints every format shares are not repeated here:
//! [`NULLS`](crate::vendor::NULLS) (known fields that arrived as `null`), and
//! [`NO_TYPE`](crate::passes::tools::NO_TYPE), which this format also sets on a tool
//! call that had no `type`.

/// On a message or a tool result: its `content` was an array of chunks, not a string
/// (the chunks are written back as they came, an empty text chunk included).
pub(super) const PARTS: &str = "parts";

/// On a tool call: its `function.arguments` were a JSON object, not JSON text.
pub(super) const ARGS_JSON: &str = "args_json";

/// On a tool call: it had no `id` (the neutral call holds a synthetic one, which is not
/// written back).
pub(super) const NO_ID: &str = "no_id";

/// On a tool call (a streamed call's position) and on a response's choice: its
/// `index`, a number.
pub(super) const INDEX: &str = "index";

/// On an image part: its `image_url` was a bare URL string, not a `{url, detail}`
/// object.
pub(super) const IMAGE_URL_STRING: &str = "image_url_string";

/// On a reasoning part: the chunks of its `thinking` chunk (their JSON array), when they
/// are not one plain text chunk; written back when their text is still the part's.
pub(super) const THINKING_CHUNKS: &str = "thinking_chunks";

/// On a reasoning part: its `thinking` chunk's `closed` flag, a boolean.
pub(super) const CLOSED: &str = "closed";

/// On a tool result: its `tool` message had no `name`.
pub(super) const NO_NAME: &str = "no_name";

/// On the request: `tool_choice` was `"required"`, not Mistral's own `"any"`.
pub(super) const TOOL_CHOICE_REQUIRED: &str = "tool_choice_required";

/// On the request: a named `tool_choice` had no `type`.
pub(super) const NAMED_NO_TYPE: &str = "named_no_type";

/// On the request: `stop` was one string, not an array of them.
pub(super) const STOP_STRING: &str = "stop_string";

/// On the usage: it had `prompt_tokens_details` (written back even without a cached
/// count).
pub(super) const PROMPT_DETAILS: &str = "prompt_details";

/// On a response's message: its `role`, a string (absent when the message had none).
pub(super) const ROLE: &str = "role";

/// On the response: its `object` type tag (`chat.completion`), a string. A hint rather
/// than a field, so that another format does not report the tag as a loss.
pub(super) const OBJECT: &str = "object";

/// On a response's choice: its `finish_reason` was an explicit `null`.
pub(super) const FINISH_NULL: &str = "finish_null";
