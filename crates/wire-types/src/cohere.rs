//! Cohere v2 chat: `POST https://api.cohere.com/v2/chat` request and response bodies,
//! the stream events (`"stream": true`, SSE, tagged by a kebab-case `type`), and the
//! error body.
//!
//! Cohere's shapes differ from OpenAI Chat where it matters for tool use: an assistant
//! turn carries a `tool_plan` (the model's plan before it calls tools) and `citations`;
//! a `tool` message's content may hold `document` items the model can cite; grounding
//! `documents` are a request parameter; `tool_choice` is `REQUIRED` / `NONE` (upper case,
//! no named tool); finish reasons are upper case (`COMPLETE`, `TOOL_CALL`, …); response
//! content is always an array; usage splits billed units from tokens.
//!
//! Transcribed from the `cohere-ai/cohere-python` SDK types
//! (`src/cohere/types/{chat_message_v2,streamed_chat_response_v2,chat_finish_reason,
//! citation,source,document,tool_content,image_url,thinking,response_format_v2,usage}.py`,
//! `src/cohere/v2/raw_client.py` for the request parameters, versions stored 2025–2026)
//! and docs.cohere.com (`/reference/chat`, `/v2/docs/streaming`); see
//! `../shared/docs/providers.md` §8 as vendored in `ARCHITECTURE.md`. Real payloads:
//! `fixtures/cohere/` (no official JSON Schema exists for this format).
//!
//! ## Style
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.
//! * One [`Content`] union for the items of every role (`text`, `image_url`, `thinking`,
//!   `document`), as the exemplar does for OpenAI's parts.
//! * Tool-call `arguments` are [`Arguments`]: JSON text (Cohere sends a string, and
//!   sometimes the text `null`).
//! * Stream events are a [`StreamEvent`] union; a stream delta's `tool_calls` and
//!   `citations` are single objects, not arrays.

use crate::common::{Arguments, TextOrParts, unknown_role};
use crate::error::{Category, Error};
use serde_json::{Map, Number, Value};

pub use crate::common::{FunctionDef, FunctionTool as Tool, ImageUrl, NoFields};

wire_struct! {
    /// A v2 chat request body.
    #[derive(Default)]
    pub struct Request {
        /// Model name (`command-a-03-2025`, …) or a fine-tuned model id.
        req model: String = "model",
        /// The conversation so far.
        req messages: Vec<Message> = "messages",
        /// Tools the model may call.
        opt tools: Vec<Tool> = "tools",
        /// `true`: tool calls must follow the tool schemas strictly.
        opt strict_tools: bool = "strict_tools",
        /// Grounding documents the model may cite: strings or `{data, id}` objects.
        opt documents: Vec<RequestDocument> = "documents",
        /// Citation settings.
        opt citation_options: CitationOptions = "citation_options",
        /// `text` or `json_object` (with an optional schema) output.
        opt response_format: ResponseFormat = "response_format",
        /// Safety instruction: `CONTEXTUAL` (default), `STRICT`, `OFF`.
        opt safety_mode: SafetyMode = "safety_mode",
        /// Output-token limit.
        opt max_tokens: u64 = "max_tokens",
        /// Up to 5 stop sequences.
        opt stop_sequences: Vec<String> = "stop_sequences",
        /// Sampling temperature (default 0.3).
        opt temperature: Number = "temperature",
        /// Sampling seed.
        opt seed: i64 = "seed",
        /// Frequency penalty (0–1).
        opt frequency_penalty: Number = "frequency_penalty",
        /// Presence penalty (0–1).
        opt presence_penalty: Number = "presence_penalty",
        /// Top-k sampling (0 disables; at most 500).
        opt k: u64 = "k",
        /// Top-p (nucleus) sampling (0.01–0.99, default 0.75).
        opt p: Number = "p",
        /// Return log-probabilities.
        opt logprobs: bool = "logprobs",
        /// Force (`REQUIRED`) or forbid (`NONE`) tool calls; absent: the model decides.
        opt tool_choice: ToolChoice = "tool_choice",
        /// Reasoning settings (reasoning models).
        opt thinking: Thinking = "thinking",
        /// Stream the response as events.
        opt stream: bool = "stream",
    }
}

wire_tagged! {
    /// One message of the conversation, tagged by `role`.
    pub enum Message, tag = "role" {
        /// `role: system`: instructions.
        System(SystemMessage) = "system",
        /// `role: user`.
        User(UserMessage) = "user",
        /// `role: assistant`: a model turn, replayed.
        Assistant(AssistantMessage) = "assistant",
        /// `role: tool`: the result of one tool call.
        Tool(ToolMessage) = "tool",
    }
}

wire_struct! {
    /// A `system` message.
    pub struct SystemMessage {
        /// The instructions: a string or text items.
        req content: TextOrParts<Content> = "content",
    }
}

wire_struct! {
    /// A `user` message.
    pub struct UserMessage {
        /// A string or an array of text and image items.
        req content: TextOrParts<Content> = "content",
    }
}

wire_struct! {
    /// An `assistant` message (a model turn sent back as history).
    #[derive(Default)]
    pub struct AssistantMessage {
        /// Text, or text and thinking items; absent when the turn only calls tools.
        opt content: TextOrParts<Content> = "content",
        /// The model's plan, written before it called tools; replay it with the calls.
        opt tool_plan: String = "tool_plan",
        /// The tool calls the model made.
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// Citations of the text.
        opt citations: Vec<Citation> = "citations",
    }
}

wire_struct! {
    /// A `tool` message: the result of the call `tool_call_id`. Cohere has no error flag:
    /// a failed call is reported in the content.
    pub struct ToolMessage {
        /// Id of the call this answers.
        req tool_call_id: String = "tool_call_id",
        /// The result: a string, or `text` and `document` items (documents can be cited).
        req content: TextOrParts<Content> = "content",
    }
}

wire_tagged! {
    /// A content item, tagged by `type`. Which items a role takes: system `text`; user
    /// `text`, `image_url`; assistant `text`, `thinking`; tool `text`, `document`.
    pub enum Content, tag = "type" {
        /// `{"type":"text","text":…}`
        Text(TextContent) = "text",
        /// `{"type":"image_url","image_url":{"url":…}}`: an https URL or a `data:` URL.
        ImageUrl(ImageUrlContent) = "image_url",
        /// `{"type":"thinking","thinking":…}`: reasoning text (assistant).
        Thinking(ThinkingContent) = "thinking",
        /// `{"type":"document","document":{"data":{…},"id":…}}` (tool results).
        Document(DocumentContent) = "document",
    }
}

wire_struct! {
    /// A text item.
    #[derive(Default)]
    pub struct TextContent {
        /// The text.
        req text: String = "text",
    }
}

wire_struct! {
    /// An image item.
    pub struct ImageUrlContent {
        /// The image.
        req image_url: ImageUrl = "image_url",
    }
}

wire_struct! {
    /// A reasoning item. It has no signature.
    #[derive(Default)]
    pub struct ThinkingContent {
        /// The reasoning text.
        req thinking: String = "thinking",
    }
}

wire_struct! {
    /// A document item of a tool result.
    pub struct DocumentContent {
        /// The document.
        req document: Document = "document",
    }
}

wire_struct! {
    /// A document: fields the model reads and cites, and an id citations refer to.
    #[derive(Default)]
    pub struct Document {
        /// The document's fields (`title`, `text`, `url`, …; values are normally strings).
        req data: Map<String, Value> = "data",
        /// Id referenced by citations; generated when absent.
        opt id: String = "id",
    }
}

string_or_object! {
    /// An item of the request's `documents`: a plain string or a document object.
    pub enum RequestDocument, expecting = "a document string or a {\"data\": …} object" {
        /// `"documents": ["text", …]`
        Text(String),
        /// `"documents": [{"data": {…}, "id": …}, …]`
        Object(Document),
    }
}

wire_struct! {
    /// A tool call in an assistant message, or (a fragment of) one in a stream event.
    #[derive(Default)]
    pub struct ToolCall {
        /// Call id (`get_weather_dqgshstja6p9`: the function name and a random suffix).
        opt id: String = "id",
        /// `function`.
        opt kind: String = "type",
        /// The function call.
        opt function: FunctionCall = "function",
    }
}

impl ToolCall {
    /// The function name.
    pub fn name(&self) -> Option<&str> {
        self.function.as_ref().and_then(|f| f.name.as_deref())
    }
}

wire_struct! {
    /// The function half of a tool call.
    #[derive(Default)]
    pub struct FunctionCall {
        /// Function name.
        opt name: String = "name",
        /// Arguments: JSON text as the model wrote it (`"null"` for a call without
        /// arguments has been seen), or a fragment of it in a stream.
        opt arguments: Arguments = "arguments",
    }
}

wire_struct! {
    /// A citation: a span of the answer and the sources it rests on.
    #[derive(Default)]
    pub struct Citation {
        /// Start of the span, in characters of the cited text.
        opt start: u64 = "start",
        /// End of the span (exclusive).
        opt end: u64 = "end",
        /// The cited text.
        opt text: String = "text",
        /// The sources.
        opt sources: Vec<Source> = "sources",
        /// 0-based index of the content item the span is in.
        opt content_index: u64 = "content_index",
        /// What is cited: `TEXT_CONTENT`, `THINKING_CONTENT`, `PLAN`.
        opt kind: CitationType = "type",
    }
}

open_enum! {
    /// What a citation's span is in.
    pub enum CitationType {
        /// The answer text.
        TextContent = "TEXT_CONTENT",
        /// The reasoning text.
        ThinkingContent = "THINKING_CONTENT",
        /// The tool plan.
        Plan = "PLAN",
    }
}

wire_tagged! {
    /// A citation source, tagged by `type`.
    pub enum Source, tag = "type" {
        /// `{"type":"tool","id":…,"tool_output":{…}}`: a tool result.
        Tool(ToolSource) = "tool",
        /// `{"type":"document","id":…,"document":{…}}`: a document.
        Document(DocumentSource) = "document",
    }
}

wire_struct! {
    /// A tool result cited.
    #[derive(Default)]
    pub struct ToolSource {
        /// Id of the cited result.
        opt id: String = "id",
        /// The tool output.
        opt tool_output: Map<String, Value> = "tool_output",
    }
}

wire_struct! {
    /// A document cited.
    #[derive(Default)]
    pub struct DocumentSource {
        /// Id of the cited document.
        opt id: String = "id",
        /// The document's fields (with its `id`).
        opt document: Map<String, Value> = "document",
    }
}

open_enum! {
    /// `tool_choice`. There is no `AUTO` value: leave the field out.
    pub enum ToolChoice {
        /// Call at least one tool.
        Required = "REQUIRED",
        /// Answer directly, call no tool.
        None = "NONE",
    }
}

open_enum! {
    /// `safety_mode`.
    pub enum SafetyMode {
        /// The default safety instruction.
        Contextual = "CONTEXTUAL",
        /// The strict safety instruction.
        Strict = "STRICT",
        /// No safety instruction (older models).
        Off = "OFF",
    }
}

wire_struct! {
    /// `citation_options`.
    #[derive(Default)]
    pub struct CitationOptions {
        /// How citations are generated.
        opt mode: CitationMode = "mode",
    }
}

open_enum! {
    /// `citation_options.mode`.
    pub enum CitationMode {
        /// Citations generated with the text (the default).
        Fast = "FAST",
        /// Citations generated after the text, more precise.
        Accurate = "ACCURATE",
        /// No citations.
        Off = "OFF",
    }
}

wire_tagged! {
    /// `response_format`, tagged by `type`.
    pub enum ResponseFormat, tag = "type" {
        /// Plain text.
        Text(NoFields) = "text",
        /// A JSON object, optionally matching a schema.
        JsonObject(JsonObjectFormat) = "json_object",
    }
}

wire_struct! {
    /// `{"type":"json_object","json_schema":{…}}`
    #[derive(Default)]
    pub struct JsonObjectFormat {
        /// The JSON Schema the output must match.
        opt json_schema: Value = "json_schema",
    }
}

open_enum! {
    /// `thinking.type`.
    pub enum ThinkingType {
        /// Reasoning on (the default for reasoning models).
        Enabled = "enabled",
        /// Reasoning off.
        Disabled = "disabled",
    }
}

wire_struct! {
    /// `thinking`.
    pub struct Thinking {
        /// `enabled` or `disabled`.
        req kind: ThinkingType = "type",
        /// Maximum reasoning tokens.
        opt token_budget: u64 = "token_budget",
    }
}

wire_struct! {
    /// A v2 chat response body.
    #[derive(Default)]
    pub struct Response {
        /// Response id (a UUID).
        opt id: String = "id",
        /// Why generation stopped.
        opt finish_reason: FinishReason = "finish_reason",
        /// The assistant message.
        req message: ResponseMessage = "message",
        /// Billed units and tokens.
        opt usage: Usage = "usage",
        /// Log-probabilities, when requested.
        opt logprobs: Vec<Value> = "logprobs",
    }
}

wire_struct! {
    /// The message of a response (and of a `message-start` event).
    #[derive(Default)]
    pub struct ResponseMessage {
        /// `assistant`.
        opt role: String = "role",
        /// Text and thinking items (always an array).
        opt content: Vec<Content> = "content",
        /// The model's plan before its tool calls.
        opt tool_plan: String = "tool_plan",
        /// Tool calls.
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// Citations of the text.
        opt citations: Vec<Citation> = "citations",
    }
}

open_enum! {
    /// Why generation stopped.
    pub enum FinishReason {
        /// Natural end.
        Complete = "COMPLETE",
        /// A stop sequence.
        StopSequence = "STOP_SEQUENCE",
        /// `max_tokens` reached.
        MaxTokens = "MAX_TOKENS",
        /// The model called tools.
        ToolCall = "TOOL_CALL",
        /// Generation failed.
        Error = "ERROR",
        /// Generation timed out.
        Timeout = "TIMEOUT",
    }
}

wire_struct! {
    /// Usage.
    #[derive(Default)]
    pub struct Usage {
        /// What is billed.
        opt billed_units: BilledUnits = "billed_units",
        /// Tokens the model read and wrote (prompt template included).
        opt tokens: Tokens = "tokens",
        /// Input tokens read from the prompt cache.
        opt cached_tokens: u64 = "cached_tokens",
    }
}

wire_struct! {
    /// Billed units.
    #[derive(Default)]
    pub struct BilledUnits {
        /// Billed input tokens (the user's text, without the template).
        opt input_tokens: u64 = "input_tokens",
        /// Billed output tokens.
        opt output_tokens: u64 = "output_tokens",
        /// Billed searches.
        opt search_units: u64 = "search_units",
        /// Billed classifications.
        opt classifications: u64 = "classifications",
    }
}

wire_struct! {
    /// Token counts.
    #[derive(Default)]
    pub struct Tokens {
        /// Input tokens.
        opt input_tokens: u64 = "input_tokens",
        /// Output tokens.
        opt output_tokens: u64 = "output_tokens",
    }
}

wire_tagged! {
    /// One event of a streamed response, tagged by a kebab-case `type`: every member of
    /// the SDK's `StreamedChatResponseV2`. Unknown event types are kept whole in `Other`.
    ///
    /// Order: `message-start`; per content item `content-start` (`{"type":"text","text":""}`
    /// or `{"type":"thinking","thinking":""}`), `content-delta`s, `content-end`; before
    /// calls, `tool-plan-delta`s; per call `tool-call-start` (id, name, arguments often
    /// `""`), `tool-call-delta`s (none for a call without arguments), `tool-call-end`;
    /// `citation-start` / `citation-end` pairs; `message-end`.
    pub enum StreamEvent, tag = "type" {
        /// First event: the message id and an empty message.
        MessageStart(MessageStartEvent) = "message-start",
        /// A content item begins (`delta.message.content` has its `type`).
        ContentStart(ContentEvent) = "content-start",
        /// A fragment of a content item's text or thinking.
        ContentDelta(ContentEvent) = "content-delta",
        /// A content item ends.
        ContentEnd(IndexEvent) = "content-end",
        /// A fragment of the tool plan.
        ToolPlanDelta(ToolPlanDeltaEvent) = "tool-plan-delta",
        /// A tool call begins: id, name and (often empty) argument text.
        ToolCallStart(ToolCallEvent) = "tool-call-start",
        /// A fragment of a tool call's argument text.
        ToolCallDelta(ToolCallEvent) = "tool-call-delta",
        /// A tool call ends.
        ToolCallEnd(IndexEvent) = "tool-call-end",
        /// A citation (whole).
        CitationStart(CitationStartEvent) = "citation-start",
        /// A citation ends.
        CitationEnd(IndexEvent) = "citation-end",
        /// Last event: finish reason and usage.
        MessageEnd(MessageEndEvent) = "message-end",
        /// The prompt as the model saw it (debug requests only).
        Debug(DebugEvent) = "debug",
    }
}

wire_struct! {
    /// `debug`.
    #[derive(Default)]
    pub struct DebugEvent {
        /// The rendered prompt.
        opt prompt: String = "prompt",
    }
}

wire_struct! {
    /// An event that only says which item it closes.
    #[derive(Default)]
    pub struct IndexEvent {
        /// 0-based index of the content item, tool call or citation.
        opt index: u32 = "index",
    }
}

wire_struct! {
    /// `message-start`.
    #[derive(Default)]
    pub struct MessageStartEvent {
        /// Response id.
        opt id: String = "id",
        /// `{"message": {…}}`: the (empty) message.
        opt delta: MessageStartDelta = "delta",
    }
}

wire_struct! {
    /// The delta of `message-start`.
    #[derive(Default)]
    pub struct MessageStartDelta {
        /// The message so far (role, empty arrays).
        opt message: ResponseMessage = "message",
    }
}

wire_struct! {
    /// `content-start` and `content-delta`.
    #[derive(Default)]
    pub struct ContentEvent {
        /// 0-based index of the content item.
        opt index: u32 = "index",
        /// `{"message": {"content": {…}}}`.
        opt delta: ContentDelta = "delta",
        /// Log-probabilities of this fragment, when requested.
        opt logprobs: Value = "logprobs",
    }
}

wire_struct! {
    /// The delta of a content event.
    #[derive(Default)]
    pub struct ContentDelta {
        /// `{"content": {…}}`.
        opt message: ContentDeltaMessage = "message",
    }
}

wire_struct! {
    /// The message of a content delta.
    #[derive(Default)]
    pub struct ContentDeltaMessage {
        /// The content item (a single object, not an array).
        opt content: ContentFragment = "content",
    }
}

wire_struct! {
    /// A content item or a fragment of one: `content-start` gives the `type` and empty
    /// text; `content-delta` gives only text to append.
    #[derive(Default)]
    pub struct ContentFragment {
        /// `text` or `thinking` (on `content-start`).
        opt kind: ContentType = "type",
        /// Answer text to append.
        opt text: String = "text",
        /// Reasoning text to append.
        opt thinking: String = "thinking",
    }
}

open_enum! {
    /// The type of a streamed content item.
    pub enum ContentType {
        /// Answer text.
        Text = "text",
        /// Reasoning text.
        Thinking = "thinking",
    }
}

wire_struct! {
    /// `tool-plan-delta`.
    #[derive(Default)]
    pub struct ToolPlanDeltaEvent {
        /// `{"message": {"tool_plan": …}}`.
        opt delta: ToolPlanDelta = "delta",
    }
}

wire_struct! {
    /// The delta of `tool-plan-delta`.
    #[derive(Default)]
    pub struct ToolPlanDelta {
        /// `{"tool_plan": …}`.
        opt message: ToolPlanDeltaMessage = "message",
    }
}

wire_struct! {
    /// The message of a tool-plan delta.
    #[derive(Default)]
    pub struct ToolPlanDeltaMessage {
        /// Plan text to append.
        opt tool_plan: String = "tool_plan",
    }
}

wire_struct! {
    /// `tool-call-start` and `tool-call-delta`.
    #[derive(Default)]
    pub struct ToolCallEvent {
        /// 0-based index of the tool call.
        opt index: u32 = "index",
        /// `{"message": {"tool_calls": {…}}}`.
        opt delta: ToolCallDelta = "delta",
    }
}

wire_struct! {
    /// The delta of a tool-call event.
    #[derive(Default)]
    pub struct ToolCallDelta {
        /// `{"tool_calls": {…}}`.
        opt message: ToolCallDeltaMessage = "message",
    }
}

wire_struct! {
    /// The message of a tool-call delta.
    #[derive(Default)]
    pub struct ToolCallDeltaMessage {
        /// The call (`tool-call-start`) or an argument fragment (`tool-call-delta`): a
        /// single object, not an array.
        opt tool_calls: ToolCall = "tool_calls",
    }
}

wire_struct! {
    /// `citation-start`.
    #[derive(Default)]
    pub struct CitationStartEvent {
        /// 0-based index of the citation.
        opt index: u32 = "index",
        /// `{"message": {"citations": {…}}}`.
        opt delta: CitationDelta = "delta",
    }
}

wire_struct! {
    /// The delta of `citation-start`.
    #[derive(Default)]
    pub struct CitationDelta {
        /// `{"citations": {…}}`.
        opt message: CitationDeltaMessage = "message",
    }
}

wire_struct! {
    /// The message of a citation delta.
    #[derive(Default)]
    pub struct CitationDeltaMessage {
        /// The citation (a single object, not an array).
        opt citations: Citation = "citations",
    }
}

wire_struct! {
    /// `message-end`.
    #[derive(Default)]
    pub struct MessageEndEvent {
        /// Response id.
        opt id: String = "id",
        /// Finish reason and usage.
        opt delta: MessageEndDelta = "delta",
    }
}

wire_struct! {
    /// The delta of `message-end`.
    #[derive(Default)]
    pub struct MessageEndDelta {
        /// Why generation stopped.
        opt finish_reason: FinishReason = "finish_reason",
        /// Billed units and tokens.
        opt usage: Usage = "usage",
        /// An error message, when generation failed.
        opt error: String = "error",
    }
}

wire_struct! {
    /// An error body: `{"message": "…"}` (some carry an `id` too).
    #[derive(Default)]
    pub struct ErrorResponse {
        /// Human-readable message (`invalid request: …`).
        req message: String = "message",
        /// Request id.
        opt id: String = "id",
    }
}

/// Checks what the types leave open: every message role is one Cohere knows, and every
/// tool call of an assistant turn has the `id` its `tool` message refers to and a
/// function name.
pub fn validate_request(request: &Request) -> Result<(), Error> {
    for (i, message) in request.messages.iter().enumerate() {
        let calls = match message {
            Message::Other(map) => {
                return Err(unknown_role(map, &format!("/messages/{i}"), Message::KNOWN));
            }
            Message::Assistant(a) => a.tool_calls.iter().flatten(),
            _ => continue,
        };
        for (j, call) in calls.enumerate() {
            if call.id.is_none() {
                return Err(Error::new(
                    Category::Shape,
                    format!("/messages/{i}/tool_calls/{j}/id"),
                    "missing field (a replayed tool call needs the id its tool message refers to)",
                ));
            }
            if call.name().is_none() {
                return Err(Error::new(
                    Category::Shape,
                    format!("/messages/{i}/tool_calls/{j}/function/name"),
                    "missing field (a replayed tool call needs a function name)",
                ));
            }
        }
    }
    Ok(())
}
