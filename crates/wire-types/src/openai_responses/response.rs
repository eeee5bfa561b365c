//! The response body: [`Response`], its status, usage and error body.

use super::*;

open_enum! {
    /// The status of a response.
    pub enum ResponseStatus {
        /// Finished normally; tool use shows as `function_call` items.
        Completed = "completed",
        /// Failed: see `error`.
        Failed = "failed",
        /// Still being generated.
        InProgress = "in_progress",
        /// Cancelled (background responses).
        Cancelled = "cancelled",
        /// Waiting to start (background responses).
        Queued = "queued",
        /// Cut short: see `incomplete_details`.
        Incomplete = "incomplete",
    }
}

wire_struct! {
    /// A Responses response body (also the `response` of the lifecycle stream events).
    #[derive(Default)]
    pub struct Response {
        /// `resp_…`
        opt id: String = "id",
        /// `response`
        opt object: String = "object",
        /// Unix seconds.
        opt created_at: u64 = "created_at",
        /// Unix seconds; `null` until done.
        opt completed_at: u64 = "completed_at",
        /// Where the response stands.
        opt status: ResponseStatus = "status",
        /// Model that answered.
        opt model: String = "model",
        /// Output items: messages, function calls, reasoning, hosted-tool calls.
        req output: Vec<Item> = "output",
        /// Token usage; `null` until done.
        opt usage: Usage = "usage",
        /// Why the response is `incomplete`.
        opt incomplete_details: IncompleteDetails = "incomplete_details",
        /// Why the response `failed`.
        opt error: ResponseError = "error",
        /// The request's instructions, echoed: a string or input items.
        opt instructions: Input = "instructions",
        /// The request's tools, echoed.
        opt tools: Vec<Tool> = "tools",
        /// The request's tool choice, echoed.
        opt tool_choice: ToolChoice = "tool_choice",
        /// Whether parallel tool calls were allowed.
        opt parallel_tool_calls: bool = "parallel_tool_calls",
        /// The response this one continues.
        opt previous_response_id: String = "previous_response_id",
        /// Reasoning settings used.
        opt reasoning: ReasoningConfig = "reasoning",
        /// Output format used.
        opt text: TextConfig = "text",
        /// Sampling temperature used.
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass used.
        opt top_p: Number = "top_p",
        /// Top log-probabilities per token.
        opt top_logprobs: u32 = "top_logprobs",
        /// Output-token limit.
        opt max_output_tokens: u64 = "max_output_tokens",
        /// Built-in tool call limit.
        opt max_tool_calls: u64 = "max_tool_calls",
        /// `auto` or `disabled`.
        opt truncation: String = "truncation",
        /// Whether the response is stored.
        opt store: bool = "store",
        /// Whether it ran in the background.
        opt background: bool = "background",
        /// Service tier used.
        opt service_tier: String = "service_tier",
        /// The request's metadata.
        opt metadata: Map<String, Value> = "metadata",
        /// The request's prompt-cache key.
        opt prompt_cache_key: String = "prompt_cache_key",
        /// The request's prompt-cache retention.
        opt prompt_cache_retention: String = "prompt_cache_retention",
        /// The request's end-user id for abuse detection.
        opt safety_identifier: String = "safety_identifier",
        /// The request's end-user id (legacy).
        opt user: String = "user",
        /// The stored prompt template used.
        opt prompt: Value = "prompt",
        /// The conversation the items were added to (`{"id": …}`).
        opt conversation: Value = "conversation",
    }
}

wire_struct! {
    /// Token usage.
    #[derive(Default)]
    pub struct Usage {
        /// Input tokens (cached ones included).
        opt input_tokens: u64 = "input_tokens",
        /// Input breakdown.
        opt input_tokens_details: InputTokensDetails = "input_tokens_details",
        /// Output tokens (reasoning tokens included).
        opt output_tokens: u64 = "output_tokens",
        /// Output breakdown.
        opt output_tokens_details: OutputTokensDetails = "output_tokens_details",
        /// Sum of both.
        opt total_tokens: u64 = "total_tokens",
    }
}

wire_struct! {
    /// Input-token breakdown.
    #[derive(Default)]
    pub struct InputTokensDetails {
        /// Tokens read from the prompt cache.
        opt cached_tokens: u64 = "cached_tokens",
        /// Tokens written to the prompt cache.
        opt cache_write_tokens: u64 = "cache_write_tokens",
    }
}

wire_struct! {
    /// Output-token breakdown.
    #[derive(Default)]
    pub struct OutputTokensDetails {
        /// Reasoning tokens.
        opt reasoning_tokens: u64 = "reasoning_tokens",
    }
}

open_enum! {
    /// Why a response is incomplete.
    pub enum IncompleteReason {
        /// `max_output_tokens` was reached.
        MaxOutputTokens = "max_output_tokens",
        /// The content filter stopped it.
        ContentFilter = "content_filter",
    }
}

wire_struct! {
    /// `incomplete_details`.
    #[derive(Default)]
    pub struct IncompleteDetails {
        /// Why.
        opt reason: IncompleteReason = "reason",
    }
}

wire_struct! {
    /// The `error` of a failed response.
    #[derive(Default)]
    pub struct ResponseError {
        /// Error code (`server_error`, `rate_limit_exceeded`, `invalid_prompt`, …).
        opt code: String = "code",
        /// Human-readable message.
        opt message: String = "message",
    }
}

wire_struct! {
    /// An error body (`{"error":{…}}`), returned instead of a response.
    pub struct ErrorResponse {
        /// The error.
        req error: ErrorDetail = "error",
    }
}
