//! The hints Gemini writes into [`Vendor`](crate::model::Vendor) records and reads back:
//! how a Gemini body spelled what the neutral model normalizes, so the same format writes
//! it back as it was. Only Gemini reads them; they are never reported as losses.
//!
//! The hint every format shares, [`NULLS`](crate::vendor::NULLS), lists the explicit
//! `null`s of a wire object; Gemini names a nested object's field with a dot
//! (`functionCall.id`, `inlineData.displayName`).

// Messages (request contents and a candidate's content).

/// On a message: its content had no `role` (`true`).
pub(super) const NO_ROLE: &str = "no_role";
/// On a user message: it was split from the content of the tool message before it (the
/// other parts of a user content that also held results): written back into that
/// content (`true`).
pub(super) const SAME_CONTENT: &str = "same_content";
/// On the first message decoded from a user content: the source positions of its parts
/// (results first, then the others), when the source interleaved results and other
/// parts (a list of indexes).
pub(super) const ORDER: &str = "order";
/// On a message: the source had it as its own content right after one of the same role,
/// so it is not merged into that one (`true`).
pub(super) const SEPARATE: &str = "separate";
/// On the system message: the `role` of `systemInstruction` (a string).
pub(super) const SYSTEM_ROLE: &str = "system_role";
/// On a candidate's message: the content's `role` when it was not `model` (a string).
pub(super) const ROLE: &str = "role";
/// On a candidate's message: its content had no `parts` (`true`).
pub(super) const NO_PARTS: &str = "no_parts";

// Parts.

/// On a text part: the source said `thought: false` (`true`).
pub(super) const THOUGHT_FALSE: &str = "thought_false";
/// On a text part: an empty text without a signature (`true`). It is written back; an
/// empty text from elsewhere is left out, as Gemini refuses empty text.
pub(super) const EMPTY: &str = "empty";
/// On a tool call: the `functionCall` had no `args` (`true`).
pub(super) const NO_ARGS: &str = "no_args";
/// On a tool result: the `functionResponse` had no `id` (`true`).
pub(super) const NO_ID: &str = "no_id";
/// On a JSON part of a tool result: the value was under `output` in the `response`
/// object, not the object itself (`true`).
pub(super) const OUTPUT: &str = "output";
/// On a media part: its `fileData` had no `mimeType` (`true`).
pub(super) const NO_MIME: &str = "no_mime";

// Tools.

/// On a tool (a function or a built-in tool): the index of the `tools` entry it came
/// from, so tools that shared an entry share it again (a number).
pub(super) const ENTRY: &str = "entry";
/// On a function tool: its schema was `parametersJsonSchema`, not `parameters` (`true`).
pub(super) const JSON_SCHEMA: &str = "json_schema";

// The request.

/// On the request: `tools` was an empty array (`true`).
pub(super) const TOOLS_EMPTY: &str = "tools_empty";
/// On the request: `toolConfig` was there with nothing else kept (`true`).
pub(super) const TOOL_CONFIG: &str = "tool_config";
/// On the request: `generationConfig` was there with nothing else kept (`true`).
pub(super) const GENERATION_CONFIG: &str = "generation_config";
/// On the request: `thinkingConfig` had a thinking level and a budget together (`true`).
pub(super) const THINKING_BOTH: &str = "thinking_both";
/// On the request: the original OpenAPI `responseSchema` (an object), written back
/// instead of the neutral JSON Schema made from it.
pub(super) const RESPONSE_SCHEMA: &str = "response_schema";
/// On the request: the output schema was `responseJsonSchema` (`true`).
pub(super) const RESPONSE_JSON_SCHEMA: &str = "response_json_schema";

// The response.

/// On the response: `candidates` was an empty array (`true`).
pub(super) const CANDIDATES_EMPTY: &str = "candidates_empty";
/// On a choice: its candidate had no `index` (`true`).
pub(super) const NO_INDEX: &str = "no_index";
/// On a choice: its candidate's `index` when it was not its position (a number).
pub(super) const INDEX: &str = "index";
/// On a choice: its candidate had no `content` (`true`).
pub(super) const NO_CONTENT: &str = "no_content";
/// On a choice: it stands for a prompt blocked before any candidate came
/// (`promptFeedback.blockReason`, a stream's finish): no candidate is written for it
/// (`true`).
pub(super) const BLOCKED: &str = "blocked";
/// On the usage: `toolUsePromptTokenCount` (a number), counted in the neutral input.
pub(super) const TOOL_USE_PROMPT: &str = "tool_use_prompt";
/// On the usage: there was a `toolUsePromptTokenCount` but no `promptTokenCount`
/// (`true`).
pub(super) const NO_PROMPT_COUNT: &str = "no_prompt_count";
/// On the usage: there was a `thoughtsTokenCount` but no `candidatesTokenCount` (`true`).
pub(super) const NO_CANDIDATES_COUNT: &str = "no_candidates_count";
