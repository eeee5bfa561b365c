//! The hints OpenAI Chat records in a [`Vendor`](crate::model::Vendor) record: how the
//! source spelled what the neutral model normalizes, so that this format writes it back
//! as it came. Only this format reads them, and they are never reported as losses.
//!
//! Two hints every format shares are not repeated here:
//! [`NULLS`](crate::vendor::NULLS) (known fields that arrived as `null`), and
//! [`NO_TYPE`](crate::passes::tools::NO_TYPE), which this format also sets on a tool
//! call that had no `type`.

/// On a message or a tool result: its `content` was an array of parts, not a string.
pub(super) const PARTS: &str = "parts";

/// On an assistant message: its refusal was the message's `refusal` field, not a
/// `refusal` content part.
pub(super) const REFUSAL_FIELD: &str = "refusal_field";

/// On a tool call: its `arguments` were a JSON object, not JSON text (some
/// OpenAI-compatible servers send one).
pub(super) const ARGS_JSON: &str = "args_json";

/// On a tool call: the flat form, `name` and `arguments` beside `id` rather than in a
/// `function` object.
pub(super) const FLAT: &str = "flat";

/// On a tool call: it had no `id` (the neutral call holds a synthetic one, which is not
/// written back).
pub(super) const NO_ID: &str = "no_id";

/// On the request: the output limit was the legacy `max_tokens`, not
/// `max_completion_tokens`.
pub(super) const MAX_TOKENS: &str = "max_tokens";

/// On the request: `stop` was one string, not an array of them.
pub(super) const STOP_STRING: &str = "stop_string";

/// On a tool result: it was a deprecated `function` message (`name` and a text
/// `content`), not a `tool` message.
pub(super) const FUNCTION_ROLE: &str = "function_role";

/// On a document part: its `file.file_data` was not a `data:` URL (bare base64, written
/// back as it came).
pub(super) const RAW_FILE_DATA: &str = "raw_file_data";

/// On a document part: its `file` had neither `file_id` nor `file_data` (the neutral
/// part holds an empty file id).
pub(super) const EMPTY_FILE: &str = "empty_file";

/// On a response's message: it had no `role`.
pub(super) const NO_ROLE: &str = "no_role";

/// On a response's choice: it had no `index`.
pub(super) const NO_INDEX: &str = "no_index";

/// On a response's choice: it had no `logprobs` member at all (OpenAI itself writes
/// `logprobs: null`).
pub(super) const NO_LOGPROBS: &str = "no_logprobs";

/// On the response: its `object` type tag (`chat.completion`), a string. A hint rather
/// than a field, so that another format does not report the tag as a loss.
pub(super) const OBJECT: &str = "object";

/// On the usage: `prompt_tokens_details` was there without a cached or cache-write
/// count (written back as an empty object).
pub(super) const PROMPT_DETAILS: &str = "prompt_details";

/// On the usage: `completion_tokens_details` was there without a reasoning count
/// (written back as an empty object).
pub(super) const COMPLETION_DETAILS: &str = "completion_details";
