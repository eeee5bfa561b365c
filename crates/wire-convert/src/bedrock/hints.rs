//! The hints this format writes into [`Vendor`](crate::model::Vendor) records and reads
//! back: how a Converse body spelled what the neutral model normalizes, so the same
//! format writes it back exactly. Each is a boolean flag unless its doc says otherwise.
//! The hint every format shares (explicit nulls) is [`crate::vendor::NULLS`].

// Messages.

/// On a system message: a `system`-role message inside `messages`, written back in
/// place rather than into the top-level `system`.
pub(super) const INLINE: &str = "inline";
/// On a message: the source kept it apart from the previous message of the same Converse
/// role (the encoder would merge them otherwise).
pub(super) const SEPARATE: &str = "separate";
/// On a neutral message: it continues the previous neutral message's Converse message
/// (a user message split at its tool results), so merging them back is no loss.
pub(super) const JOINED: &str = "joined";
/// On a message: it had no content blocks (written back empty, not left out).
pub(super) const EMPTY: &str = "empty";
/// On a tool message: where its results stood in the source, when that was not the order
/// of the calls (an array: for each result in neutral order, its index in the source).
pub(super) const ORDER: &str = "order";
/// On a response message: its role, when it was not `assistant` (a string).
pub(super) const ROLE: &str = "role";

// Parts.

/// On a text part: the text block was blank (whitespace only), which Converse rejects
/// from any other format; written back as it was.
pub(super) const BLANK: &str = "blank";
/// On an image, document, video or audio part: the block's `format`, when the media type
/// it was read as does not map back to it (a string).
pub(super) const FORMAT: &str = "format";
/// On a document: it had no `format` (written back without one).
pub(super) const NO_FORMAT: &str = "no_format";
/// On a document: its name was outside the documented charset, and is written back as it
/// was rather than made valid.
pub(super) const RAW_NAME: &str = "raw_name";
/// On a tool result: it had no `status` (written back without one; another format's
/// result always gets one).
pub(super) const NO_STATUS: &str = "no_status";

// The request.

/// On the request: `"system": []` (written back as an empty array).
pub(super) const EMPTY_SYSTEM: &str = "empty_system";
/// On the request: it had no `messages` (written back without them).
pub(super) const NO_MESSAGES: &str = "no_messages";
/// On the request: an `inferenceConfig` with none of `maxTokens`, `temperature`, `topP`,
/// `stopSequences` (written back as it was).
pub(super) const INFERENCE_CONFIG: &str = "inference_config";
/// On the request: a `toolConfig` without any function tool (written back even with no
/// tools, and not taken for a missing one).
pub(super) const TOOL_CONFIG: &str = "tool_config";
/// On the request: the key order of `additionalModelRequestFields` (an array of the
/// keys), so the keys read out into neutral settings go back where they were.
pub(super) const AMRF_KEYS: &str = "amrf_keys";
/// On the request: the JSON-schema text of `outputConfig` as it was written, when the
/// parsed schema written again would not give it back (a string).
pub(super) const SCHEMA_TEXT: &str = "schema_text";
/// On the request, followed by the name of a nested settings object (`toolConfig`,
/// `inferenceConfig`): the explicit nulls of that object (an array of field names), as
/// [`crate::vendor::NULLS`] is for the request itself.
pub(super) const NULLS_OF: &str = "nulls.";

// Responses and usage.

/// On a response: it had no `metrics` (the encoder writes `{"latencyMs": 0}` otherwise).
pub(super) const NO_METRICS: &str = "no_metrics";
/// On a usage: its unknown fields that were zero or `{}` (an object of them), which say
/// nothing another format could lose.
pub(super) const QUIET: &str = "quiet";
/// On a usage: the cache counts that were 0 (an array of their field names), written
/// back as 0 rather than left out.
pub(super) const ZEROS: &str = "zeros";
