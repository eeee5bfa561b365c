//! The hints this format writes into [`Vendor`](crate::model::Vendor) records and reads
//! back: how an Anthropic body spelled what the neutral model normalizes, so the same
//! format writes it back exactly. Each is a boolean flag unless its doc says otherwise.
//! The hint every format shares (explicit nulls) is [`crate::vendor::NULLS`].

// Messages and tool results.

/// On a message (the top-level `system` included) or a tool result: its content was an
/// array of blocks, not a string (written back as blocks even when it is one plain text).
pub(super) const PARTS: &str = "parts";
/// On a message: it was its own wire message where the encoder would merge it into the
/// previous turn of the same role.
pub(super) const SEPARATE: &str = "separate";
/// On a system message: a `system`-role message inside `messages` (SDK 2026), written back
/// in place rather than into the top-level `system`.
pub(super) const INLINE: &str = "inline";
/// On a tool result: `is_error: false` was written out (not left absent).
pub(super) const IS_ERROR_FALSE: &str = "is_error_false";

// Parts and tools.

/// On an image or document: its source was a Files API id (`{"type": "file"}`) made by
/// Anthropic, so no loss says it must name an uploaded file.
pub(super) const FILE: &str = "file";
/// On a tool call: `caller` was `{"type": "direct"}` and nothing else (a call as every
/// format makes it; only the spelling is kept).
pub(super) const DIRECT_CALLER: &str = "direct_caller";
/// On a tool: its `type` was `"custom"` (written back; absent otherwise).
pub(super) const CUSTOM_TYPE: &str = "custom_type";

// The request.

/// On the request: the reasoning effort came from `output_config.effort`, so it goes back
/// there rather than becoming a thinking budget.
pub(super) const EFFORT: &str = "effort";
/// On the request: which of `temperature`, `top_p` and `top_k` it sent (an array of those
/// names), so they go back to it and are a loss from any other format.
pub(super) const SAMPLING: &str = "sampling";
/// On the request: it sent `"tools": []` (written back as an empty array, not left out).
pub(super) const EMPTY_TOOLS: &str = "empty_tools";
/// On the request: thinking was on with a tool choice that forces a call (`any` or
/// `tool`): written back as it was, not sent as `auto`.
pub(super) const FORCED_THINKING: &str = "forced_thinking";
/// On the request: the thinking budget was not below `max_tokens`: written back as it
/// was, `max_tokens` not raised.
pub(super) const BUDGET_OVER_MAX: &str = "budget_over_max";
/// On the request: thinking was on while the conversation ends in an open tool loop
/// without a signed thinking block: written back as it was, thinking not left off.
pub(super) const OPEN_LOOP_THINKING: &str = "open_loop_thinking";

// Responses and usage.

/// On a response: it had no `type` (every response says `"message"`; written back
/// without one). Not the tool wrapper's [`crate::passes::tools::NO_TYPE`].
pub(super) const NO_RESPONSE_TYPE: &str = "no_type";
/// On a response: it had no `role` (every response says `"assistant"`).
pub(super) const NO_ROLE: &str = "no_role";
/// On a usage: it had `output_tokens_details` (written back even when nothing but the
/// thinking-token count, now a neutral count, was in it).
pub(super) const DETAILS: &str = "details";
/// On a usage: `cache_creation` said 0 for both cache lifetimes and nothing else, which
/// says no more than a write count of 0 (written back here, not reported elsewhere).
pub(super) const NO_CACHE_WRITES: &str = "no_cache_writes";
