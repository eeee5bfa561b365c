//! The hints Cohere's decoders write and its encoders read (see [`crate::vendor`]): how
//! a Cohere body spelled what the neutral model normalizes, so that it is written back
//! as it came. Each constant is named after its key.
//!
//! Shared with every format and not repeated here: [`crate::vendor::NULLS`] (explicit
//! nulls of known fields, on any object) and [`crate::passes::tools::NO_TYPE`], which
//! Cohere also sets on a tool call without `type` (and
//! [`crate::passes::tools::TOOL_NULLS`] on tools).

/// On a message or a result part: its `content` was a list of items, not a string
/// (`true`); the items are written back as they came, an empty text item included.
pub(super) const PARTS: &str = "parts";
/// On a reasoning part: it was the assistant's `tool_plan` (`true`), not a `thinking`
/// item.
pub(super) const TOOL_PLAN: &str = "tool_plan";
/// On a tool call: its `arguments` were a JSON object rather than JSON text (`true`).
pub(super) const ARGS_JSON: &str = "args_json";
/// On a tool call: it had no `arguments` (`true`); read as empty text.
pub(super) const NO_ARGUMENTS: &str = "no_arguments";
/// On a tool call: it had no `id` (`true`); its synthetic id is left out again.
pub(super) const NO_ID: &str = "no_id";
/// On a response message: its `content` was `[]` (`true`), not absent.
pub(super) const CONTENT_EMPTY: &str = "content_empty";
/// On a response message: its `role` as it came (a string); a response of another format
/// gets `assistant`.
pub(super) const ROLE: &str = "role";
/// On the usage: it had a `tokens` object (`true`), written back even without counts.
pub(super) const TOKENS: &str = "tokens";
