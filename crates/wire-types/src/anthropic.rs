//! Anthropic Messages: `POST /v1/messages` request and response bodies, the error body,
//! and the server-sent stream events.
//!
//! Transcribed from the `anthropic-sdk-python` SDK types (`src/anthropic/types/*`: message
//! params, `*_block_param.py`, `tool_param.py`, `tool_choice_*_param.py`,
//! `thinking_config_*_param.py`, `message.py`, `usage.py`, `raw_*_event.py`, `*_delta.py`;
//! commit 009b035, 2026-08-07), the schemas generated from anthropic 2.14.0 in
//! `fixtures/conformance/anthropic.*`, and the platform.claude.com docs on streaming, tool
//! use, extended thinking and stop reasons (read 2026-08); see `../shared/docs/providers.md`
//! §3 as vendored in `ARCHITECTURE.md`. Real payloads: `fixtures/anthropic/`.
//!
//! ## Style
//! * One [`ContentBlock`] union serves requests, responses and stream starts. Text, image,
//!   document, tool use and result, thinking, redacted thinking and compaction are modeled;
//!   server-tool blocks (`server_tool_use`, `web_search_tool_result`, `mcp_tool_use`, …) are
//!   kept whole in [`ContentBlock::Other`].
//! * Every stream event and block delta of the SDK (`raw_*_event.py`, `*_delta.py`, and the
//!   beta `compaction_delta`, `iterations`, `context_management`) is modeled in
//!   [`StreamEvent`] and [`BlockDelta`].
//! * `content`, `system` and `tool_result.content` are [`TextOrParts`]: a string or blocks.
//! * Tool `input` is the JSON object the model wrote ([`Map`]), in its key order; a
//!   converter may set it to JSON text instead ([`MaybeRaw`]).
//! * A tool definition is a [`Tool`]: a custom tool (which may carry no `type` at all) or an
//!   Anthropic-defined, versioned tool kept whole.
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.

use crate::common::{MaybeRaw, TextOrParts};
use crate::error::{Category, Error};
use crate::macros::Key;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};
use std::fmt;

pub use crate::common::{NoFields, Role};

wire_struct! {
    /// A Messages request body.
    #[derive(Default)]
    pub struct Request {
        /// Model id.
        req model: String = "model",
        /// Output-token limit (thinking tokens included). Required.
        req max_tokens: u64 = "max_tokens",
        /// The conversation so far: alternating `user` and `assistant` turns (the API merges
        /// consecutive turns of one role); a final `assistant` turn is a prefill.
        req messages: Vec<Message> = "messages",
        /// The system prompt: a string or `text` blocks (which may carry `cache_control`).
        opt system: TextOrParts<ContentBlock> = "system",
        /// Tools the model may call.
        opt tools: Vec<Tool> = "tools",
        /// Whether and which tool the model must call.
        opt tool_choice: ToolChoice = "tool_choice",
        /// Extended thinking.
        opt thinking: ThinkingConfig = "thinking",
        /// Sampling temperature (0–1).
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass.
        opt top_p: Number = "top_p",
        /// Sample from the top K tokens only.
        opt top_k: u64 = "top_k",
        /// Custom stop sequences.
        opt stop_sequences: Vec<String> = "stop_sequences",
        /// Stream the response as server-sent events.
        opt stream: bool = "stream",
        /// Request metadata (`user_id`).
        opt metadata: Metadata = "metadata",
        /// `auto` or `standard_only`.
        opt service_tier: String = "service_tier",
        /// Effort and structured-output format.
        opt output_config: OutputConfig = "output_config",
        /// Top-level automatic cache breakpoint (SDK 2026).
        opt cache_control: Box<CacheControl> = "cache_control",
        /// Container id (a string) or container parameters, for the code execution tool.
        opt container: Value = "container",
        /// Where inference may run.
        opt inference_geo: String = "inference_geo",
    }
}

wire_struct! {
    /// One message of the conversation.
    pub struct Message {
        /// `user` or `assistant`; any other role is kept here and refused by
        /// [`validate_request`].
        req role: Role = "role",
        /// A string (one text block) or an array of blocks.
        req content: TextOrParts<ContentBlock> = "content",
    }
}

wire_tagged! {
    /// A content block, tagged by `type`: in request messages and `system`, in response
    /// `content`, in `tool_result.content`, and at `content_block_start`.
    pub enum ContentBlock, tag = "type" {
        /// `{"type":"text","text":…}`
        Text(TextBlock) = "text",
        /// `{"type":"image","source":{…}}`
        Image(ImageBlock) = "image",
        /// `{"type":"document","source":{…}}`: a PDF, plain text or custom content.
        Document(DocumentBlock) = "document",
        /// `{"type":"tool_use","id","name","input"}`: a call of a client tool.
        ToolUse(ToolUseBlock) = "tool_use",
        /// `{"type":"tool_result","tool_use_id",…}`: the result of a `tool_use`.
        ToolResult(ToolResultBlock) = "tool_result",
        /// `{"type":"thinking","thinking","signature"}`: replay unmodified.
        Thinking(ThinkingBlock) = "thinking",
        /// `{"type":"redacted_thinking","data"}`: encrypted thinking, replay unmodified.
        RedactedThinking(RedactedThinkingBlock) = "redacted_thinking",
        /// `{"type":"compaction","content"}`: a summary of compacted context (server-side
        /// compaction, beta); replay unmodified.
        Compaction(CompactionBlock) = "compaction",
    }
}

wire_struct! {
    /// A text block.
    #[derive(Default)]
    pub struct TextBlock {
        /// The text.
        req text: String = "text",
        /// Citations backing this text (char, page, content-block, web-search or
        /// search-result locations); responses send `null` when there are none.
        opt citations: Vec<Value> = "citations",
        /// Cache breakpoint after this block.
        opt cache_control: Box<CacheControl> = "cache_control",
    }
}

wire_struct! {
    /// An image block.
    pub struct ImageBlock {
        /// The image: base64 data, a URL, or a Files API id.
        req source: Source = "source",
        /// Cache breakpoint after this block.
        opt cache_control: Box<CacheControl> = "cache_control",
    }
}

wire_struct! {
    /// A document block.
    pub struct DocumentBlock {
        /// The document: a base64 or URL PDF, plain text, custom content blocks, or a Files
        /// API id.
        req source: Source = "source",
        /// Document title, shown to the model and in citations.
        opt title: String = "title",
        /// Context about the document that is not cited from.
        opt context: String = "context",
        /// `{"enabled": true}` to let the model cite this document.
        opt citations: CitationsConfig = "citations",
        /// Cache breakpoint after this block.
        opt cache_control: Box<CacheControl> = "cache_control",
    }
}

wire_tagged! {
    /// Where an image's or document's bytes come from, tagged by `type`.
    pub enum Source, tag = "type" {
        /// `{"type":"base64","media_type","data"}`: `image/jpeg|png|gif|webp` or
        /// `application/pdf`.
        Base64(DataSource) = "base64",
        /// `{"type":"url","url"}`: an image or a PDF the API fetches.
        Url(UrlSource) = "url",
        /// `{"type":"file","file_id"}`: an upload of the Files API.
        File(FileSource) = "file",
        /// `{"type":"text","media_type":"text/plain","data"}`: a plain-text document.
        Text(DataSource) = "text",
        /// `{"type":"content","content"}`: a document made of text and image blocks.
        Content(ContentSource) = "content",
    }
}

wire_struct! {
    /// Inline bytes: base64 data, or plain text for a `text` source.
    #[derive(Default)]
    pub struct DataSource {
        /// MIME type: `image/png`, `application/pdf`, `text/plain`, ….
        req media_type: String = "media_type",
        /// Base64 bytes (a `base64` source) or the text itself (a `text` source).
        req data: String = "data",
    }
}

wire_struct! {
    /// A URL source.
    #[derive(Default)]
    pub struct UrlSource {
        /// An `https://` URL.
        req url: String = "url",
    }
}

wire_struct! {
    /// A Files API source.
    #[derive(Default)]
    pub struct FileSource {
        /// Id of the uploaded file (`file_…`).
        req file_id: String = "file_id",
    }
}

wire_struct! {
    /// A document given as content blocks.
    pub struct ContentSource {
        /// A string or `text` and `image` blocks.
        req content: TextOrParts<ContentBlock> = "content",
    }
}

wire_struct! {
    /// Whether a document may be cited.
    #[derive(Default)]
    pub struct CitationsConfig {
        /// `true` to enable citations.
        opt enabled: bool = "enabled",
    }
}

wire_struct! {
    /// A tool call the model made (in an assistant turn or a response).
    #[derive(Default)]
    pub struct ToolUseBlock {
        /// Call id (`toolu_…`), answered by a `tool_result` with this `tool_use_id`.
        req id: String = "id",
        /// Name of the tool.
        req name: String = "name",
        /// The arguments: a JSON object, in the key order the model wrote.
        req input: MaybeRaw<Map<String, Value>> = "input",
        /// Who made the call: the model (`direct`) or code execution (programmatic tool
        /// calling).
        opt caller: Box<Caller> = "caller",
        /// Cache breakpoint after this block.
        opt cache_control: Box<CacheControl> = "cache_control",
    }
}

wire_struct! {
    /// Who invoked a tool.
    #[derive(Default)]
    pub struct Caller {
        /// `direct`, or the versioned code-execution tool (`code_execution_20250825`, …).
        req kind: String = "type",
        /// Id of the `server_tool_use` block that made the call (code execution callers).
        opt tool_id: String = "tool_id",
    }
}

wire_struct! {
    /// The result of a client tool call, in the user turn right after the call.
    #[derive(Default)]
    pub struct ToolResultBlock {
        /// Id of the `tool_use` this answers.
        req tool_use_id: String = "tool_use_id",
        /// The result: a string, or text, image, document and search-result blocks.
        /// Absent for a result without output.
        opt content: TextOrParts<ContentBlock> = "content",
        /// `true` when the tool failed and `content` describes the error.
        opt is_error: bool = "is_error",
        /// Cache breakpoint after this block.
        opt cache_control: Box<CacheControl> = "cache_control",
    }
}

wire_struct! {
    /// A thinking block.
    #[derive(Default)]
    pub struct ThinkingBlock {
        /// The (summarized) thinking text; empty with `display: omitted`.
        req thinking: String = "thinking",
        /// Opaque signature that lets the API verify the block when it is replayed.
        /// Anthropic always sends it (empty at `content_block_start`, then a
        /// `signature_delta`); some compatible servers leave it out.
        opt signature: String = "signature",
    }
}

wire_struct! {
    /// A redacted thinking block.
    #[derive(Default)]
    pub struct RedactedThinkingBlock {
        /// Encrypted thinking, opaque.
        req data: String = "data",
    }
}

wire_struct! {
    /// A compaction block: what server-side compaction kept of the context before it.
    #[derive(Default)]
    pub struct CompactionBlock {
        /// The summary; `null` when compaction failed (the server treats the block as a
        /// no-op then). Empty at `content_block_start`, then `compaction_delta`s.
        opt content: String = "content",
        /// Opaque metadata of earlier compactions, to send back verbatim.
        opt encrypted_content: String = "encrypted_content",
        /// Cache breakpoint after this block (requests).
        opt cache_control: Box<CacheControl> = "cache_control",
    }
}

wire_struct! {
    /// A prompt-cache breakpoint: the prefix up to and including this item is cached.
    pub struct CacheControl {
        /// `ephemeral`.
        req kind: CacheType = "type",
        /// Time to live: `5m` (the default) or `1h`.
        opt ttl: CacheTtl = "ttl",
    }
}

open_enum! {
    /// The kind of a cache breakpoint.
    pub enum CacheType {
        /// The only kind so far.
        Ephemeral = "ephemeral",
    }
}

open_enum! {
    /// How long a cache entry lives.
    pub enum CacheTtl {
        /// Five minutes (the default).
        FiveMinutes = "5m",
        /// One hour.
        OneHour = "1h",
    }
}

/// A tool definition: a custom (client) tool, or an Anthropic-defined tool kept whole.
///
/// A custom tool often has no `type` at all, so the variant is chosen by the first
/// decisive key: `type` (`"custom"` or `null` → [`Tool::Custom`], anything else →
/// [`Tool::Other`]), or `input_schema` (only custom tools have one). A custom tool written
/// back carries a `type` only if it came with one.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "tool lists are short and read once per request; a boxed custom tool would make every match awkward"
)]
pub enum Tool {
    /// `{"name","description","input_schema",…}`, `type` absent or `"custom"`.
    Custom(CustomTool),
    /// A versioned Anthropic-defined tool (`web_search_20250305`, `bash_20250124`,
    /// `text_editor_20250728`, `code_execution_20250825`, …) or any other typed tool,
    /// kept whole (`type` included).
    Other(Map<String, Value>),
}

impl Tool {
    /// The tool's name (`web_search` for the web-search tool).
    pub fn name(&self) -> Option<&str> {
        match self {
            Tool::Custom(c) => Some(&c.name),
            Tool::Other(map) => map.get("name").and_then(Value::as_str),
        }
    }

    /// The `type` as sent: `None` for a custom tool sent without one.
    pub fn kind(&self) -> Option<&str> {
        match self {
            Tool::Custom(c) => c.kind.as_deref(),
            Tool::Other(map) => map.get("type").and_then(Value::as_str),
        }
    }
}

impl Serialize for Tool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tool::Custom(c) => c.serialize(serializer),
            Tool::Other(map) => map.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Tool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tool, A::Error> {
                let mut prefix: Vec<(String, Value)> = Vec::new();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match key.as_str() {
                        "type" => {
                            // `"type": null` is a custom tool too (the SDK allows it).
                            let Some(tag) = map.next_value::<Option<Key<'de>>>()? else {
                                prefix.push((key.into_string(), Value::Null));
                                return CustomTool::from_entries(prefix, map).map(Tool::Custom);
                            };
                            if tag.as_str() == "custom" {
                                prefix.push((key.into_string(), Value::String(tag.into_string())));
                                return CustomTool::from_entries(prefix, map).map(Tool::Custom);
                            }
                            let tag = Value::String(tag.into_string());
                            return crate::macros::whole(prefix, "type", tag, map).map(Tool::Other);
                        }
                        "input_schema" => {
                            // Read as an object here, so a bad schema is reported at its path.
                            let schema = map
                                .next_value_seed(crate::macros::Seed::<Map<String, Value>>::NEW)?;
                            prefix.push((key.into_string(), Value::Object(schema)));
                            return CustomTool::from_entries(prefix, map).map(Tool::Custom);
                        }
                        _ => {
                            let value = crate::macros::next_value(&mut map)?;
                            prefix.push((key.into_string(), value));
                        }
                    }
                }
                // Neither `type` nor `input_schema`: a custom tool missing its schema.
                CustomTool::from_entries(prefix, map).map(Tool::Custom)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

wire_struct! {
    /// A custom tool: one the caller runs.
    #[derive(Default)]
    pub struct CustomTool {
        /// `"custom"` when sent (or `null`, kept); most custom tools have no `type`.
        opt kind: String = "type",
        /// Name: `^[a-zA-Z0-9_-]{1,128}$` (older docs: up to 64).
        req name: String = "name",
        /// What the tool does and when to use it.
        opt description: String = "description",
        /// JSON Schema of the `input` object (`"type": "object"`).
        req input_schema: Map<String, Value> = "input_schema",
        /// Cache breakpoint after this tool.
        opt cache_control: Box<CacheControl> = "cache_control",
        /// Strict mode: the input is guaranteed to match the schema.
        opt strict: bool = "strict",
        /// Example inputs.
        opt input_examples: Vec<Value> = "input_examples",
        /// Stream the input without buffering (fine-grained tool streaming).
        opt eager_input_streaming: bool = "eager_input_streaming",
        /// Load the definition only when tool search finds it.
        opt defer_loading: bool = "defer_loading",
        /// Who may call it: `direct`, `code_execution_20250825`, ….
        opt allowed_callers: Vec<String> = "allowed_callers",
    }
}

wire_tagged! {
    /// `tool_choice`, tagged by `type`.
    pub enum ToolChoice, tag = "type" {
        /// `{"type":"auto"}`: the model decides.
        Auto(ToolChoiceOptions) = "auto",
        /// `{"type":"any"}`: the model calls at least one tool.
        Any(ToolChoiceOptions) = "any",
        /// `{"type":"tool","name"}`: the model calls this tool.
        Tool(ToolChoiceTool) = "tool",
        /// `{"type":"none"}`: no tool calls.
        None(NoFields) = "none",
    }
}

wire_struct! {
    /// Options of `auto` and `any`.
    #[derive(Default)]
    pub struct ToolChoiceOptions {
        /// `true`: at most one tool call (`auto`), exactly one (`any`).
        opt disable_parallel_tool_use: bool = "disable_parallel_tool_use",
    }
}

wire_struct! {
    /// Forces one tool.
    #[derive(Default)]
    pub struct ToolChoiceTool {
        /// The tool's name.
        req name: String = "name",
        /// `true`: exactly one tool call.
        opt disable_parallel_tool_use: bool = "disable_parallel_tool_use",
    }
}

wire_tagged! {
    /// `thinking`: the extended-thinking configuration, tagged by `type`.
    pub enum ThinkingConfig, tag = "type" {
        /// `{"type":"enabled","budget_tokens"}`
        Enabled(ThinkingEnabled) = "enabled",
        /// `{"type":"disabled"}`
        Disabled(NoFields) = "disabled",
        /// `{"type":"adaptive"}`: the model decides how much to think (SDK 2026).
        Adaptive(ThinkingAdaptive) = "adaptive",
    }
}

wire_struct! {
    /// Thinking with a token budget.
    #[derive(Default)]
    pub struct ThinkingEnabled {
        /// Thinking-token budget: at least 1024 and below `max_tokens`.
        req budget_tokens: u64 = "budget_tokens",
        /// `summarized` or `omitted` thinking text.
        opt display: ThinkingDisplay = "display",
    }
}

wire_struct! {
    /// Adaptive thinking.
    #[derive(Default)]
    pub struct ThinkingAdaptive {
        /// `summarized` or `omitted` thinking text.
        opt display: ThinkingDisplay = "display",
    }
}

open_enum! {
    /// How thinking text is returned.
    pub enum ThinkingDisplay {
        /// A summary of the thinking.
        Summarized = "summarized",
        /// No text: empty `thinking`, signature kept.
        Omitted = "omitted",
    }
}

wire_struct! {
    /// Request metadata.
    #[derive(Default)]
    pub struct Metadata {
        /// An opaque id of the end user (no personal data).
        opt user_id: String = "user_id",
    }
}

wire_struct! {
    /// `output_config`.
    #[derive(Default)]
    pub struct OutputConfig {
        /// How much effort the model spends.
        opt effort: Effort = "effort",
        /// Structured output: `{"type":"json_schema","schema":{…}}`.
        opt format: Value = "format",
    }
}

open_enum! {
    /// `output_config.effort`.
    pub enum Effort {
        /// Low.
        Low = "low",
        /// Medium.
        Medium = "medium",
        /// High.
        High = "high",
        /// Extra high.
        Xhigh = "xhigh",
        /// Maximum.
        Max = "max",
    }
}

wire_struct! {
    /// A Messages response body (also the `message` of `message_start`, with empty
    /// `content` and no stop reason yet).
    #[derive(Default)]
    pub struct Response {
        /// `msg_…`
        opt id: String = "id",
        /// `message`
        opt kind: String = "type",
        /// `assistant`
        opt role: Role = "role",
        /// Model that answered.
        opt model: String = "model",
        /// The generated blocks.
        req content: Vec<ContentBlock> = "content",
        /// Why generation stopped; `null` in `message_start`.
        opt stop_reason: StopReason = "stop_reason",
        /// The stop sequence that was hit, if any.
        opt stop_sequence: String = "stop_sequence",
        /// Details of a `refusal` stop (SDK 2026).
        opt stop_details: StopDetails = "stop_details",
        /// Token usage.
        opt usage: Usage = "usage",
        /// The code-execution container used (`id`, `expires_at`, …).
        opt container: Value = "container",
    }
}

open_enum! {
    /// Why generation stopped.
    pub enum StopReason {
        /// Natural end of the turn.
        EndTurn = "end_turn",
        /// `max_tokens` reached.
        MaxTokens = "max_tokens",
        /// A custom stop sequence was generated.
        StopSequence = "stop_sequence",
        /// The model called tools.
        ToolUse = "tool_use",
        /// A server-tool loop paused; send the content back to continue.
        PauseTurn = "pause_turn",
        /// The model refused (see `stop_details`).
        Refusal = "refusal",
        /// The context window is full.
        ModelContextWindowExceeded = "model_context_window_exceeded",
    }
}

wire_struct! {
    /// Structured information about a stop.
    #[derive(Default)]
    pub struct StopDetails {
        /// `refusal`.
        opt kind: String = "type",
        /// Policy category (`cyber`, `bio`, …).
        opt category: String = "category",
        /// Human-readable explanation.
        opt explanation: String = "explanation",
    }
}

wire_struct! {
    /// Token usage. In a response all counts are final; in `message_start` output is
    /// initial, and `message_delta` carries cumulative counts.
    #[derive(Default)]
    pub struct Usage {
        /// Input tokens after the last cache breakpoint (cache reads and writes excluded).
        opt input_tokens: u64 = "input_tokens",
        /// Output tokens (thinking included).
        opt output_tokens: u64 = "output_tokens",
        /// Input tokens written to the cache.
        opt cache_creation_input_tokens: u64 = "cache_creation_input_tokens",
        /// Input tokens read from the cache.
        opt cache_read_input_tokens: u64 = "cache_read_input_tokens",
        /// Cache writes by time to live.
        opt cache_creation: CacheCreation = "cache_creation",
        /// Server-tool requests made.
        opt server_tool_use: ServerToolUsage = "server_tool_use",
        /// `standard`, `priority` or `batch`.
        opt service_tier: String = "service_tier",
        /// Where inference ran.
        opt inference_geo: String = "inference_geo",
        /// Output breakdown.
        opt output_tokens_details: OutputTokensDetails = "output_tokens_details",
    }
}

wire_struct! {
    /// Cache writes by time to live.
    #[derive(Default)]
    pub struct CacheCreation {
        /// Tokens written with a 5-minute TTL.
        opt ephemeral_5m_input_tokens: u64 = "ephemeral_5m_input_tokens",
        /// Tokens written with a 1-hour TTL.
        opt ephemeral_1h_input_tokens: u64 = "ephemeral_1h_input_tokens",
    }
}

wire_struct! {
    /// Server-tool request counts.
    #[derive(Default)]
    pub struct ServerToolUsage {
        /// Web searches.
        opt web_search_requests: u64 = "web_search_requests",
        /// Web fetches.
        opt web_fetch_requests: u64 = "web_fetch_requests",
    }
}

wire_struct! {
    /// Output-token breakdown.
    #[derive(Default)]
    pub struct OutputTokensDetails {
        /// Thinking tokens.
        opt thinking_tokens: u64 = "thinking_tokens",
    }
}

wire_struct! {
    /// An error body: `{"type":"error","error":{…},"request_id":…}`.
    #[derive(Default)]
    pub struct ErrorResponse {
        /// `error`
        opt kind: String = "type",
        /// The error.
        req error: ErrorDetail = "error",
        /// `req_…`, for support.
        opt request_id: String = "request_id",
    }
}

wire_struct! {
    /// The error object.
    #[derive(Default)]
    pub struct ErrorDetail {
        /// `invalid_request_error`, `authentication_error`, `rate_limit_error`,
        /// `overloaded_error`, `api_error`, ….
        opt kind: String = "type",
        /// Human-readable message.
        opt message: String = "message",
    }
}

wire_tagged! {
    /// One server-sent event of a streamed response, tagged by `type` (the SSE `event:`
    /// name is the same). Unknown events are kept whole, as the docs ask.
    ///
    /// Order: `message_start`, then per block `content_block_start` (server-tool blocks,
    /// `server_tool_use` aside, arrive whole here and are kept in [`ContentBlock::Other`]),
    /// `content_block_delta`s and `content_block_stop`, then `message_delta` and
    /// `message_stop`; `ping` anywhere, `error` mid-stream. Some compatible servers repeat
    /// `message_start`, report the real `input_tokens` only in `message_delta`, or stop
    /// without `message_stop`.
    pub enum StreamEvent, tag = "type" {
        /// First event: the message with empty `content`.
        MessageStart(MessageStartEvent) = "message_start",
        /// A block begins at `index`.
        ContentBlockStart(ContentBlockStartEvent) = "content_block_start",
        /// A fragment of the block at `index`.
        ContentBlockDelta(ContentBlockDeltaEvent) = "content_block_delta",
        /// The block at `index` is complete.
        ContentBlockStop(ContentBlockStopEvent) = "content_block_stop",
        /// Stop reason and cumulative usage.
        MessageDelta(MessageDeltaEvent) = "message_delta",
        /// Last event.
        MessageStop(NoFields) = "message_stop",
        /// Keep-alive.
        Ping(NoFields) = "ping",
        /// An error mid-stream (`overloaded_error`, …).
        Error(ErrorEvent) = "error",
    }
}

wire_struct! {
    /// `message_start`.
    #[derive(Default)]
    pub struct MessageStartEvent {
        /// The message so far.
        req message: Response = "message",
    }
}

wire_struct! {
    /// `content_block_start`.
    pub struct ContentBlockStartEvent {
        /// 0-based index of the block in the message's `content`.
        req index: u32 = "index",
        /// The block's start: empty `text` (`citations: []` when citations follow),
        /// `thinking` and `signature`; `tool_use` and `server_tool_use` with `input: {}` (the
        /// input arrives as `input_json_delta`s; programmatic calls may start with a
        /// non-empty `input`); server-tool results whole.
        req content_block: ContentBlock = "content_block",
    }
}

wire_struct! {
    /// `content_block_delta`.
    pub struct ContentBlockDeltaEvent {
        /// 0-based index of the block in the message's `content`.
        req index: u32 = "index",
        /// The fragment.
        req delta: BlockDelta = "delta",
    }
}

wire_struct! {
    /// `content_block_stop`.
    #[derive(Default)]
    pub struct ContentBlockStopEvent {
        /// 0-based index of the block in the message's `content`.
        req index: u32 = "index",
    }
}

wire_tagged! {
    /// A block fragment, tagged by `type`.
    pub enum BlockDelta, tag = "type" {
        /// Text to append.
        Text(TextDelta) = "text_delta",
        /// Tool-input JSON text to append; parse the concatenation at
        /// `content_block_stop` (empty means `{}`).
        InputJson(InputJsonDelta) = "input_json_delta",
        /// Thinking text to append.
        Thinking(ThinkingDelta) = "thinking_delta",
        /// The thinking block's signature, just before its `content_block_stop`.
        Signature(SignatureDelta) = "signature_delta",
        /// A citation to add to the text block (before its text deltas).
        Citations(CitationsDelta) = "citations_delta",
        /// Summary text of a `compaction` block (beta).
        Compaction(CompactionDelta) = "compaction_delta",
    }
}

wire_struct! {
    /// `text_delta`.
    #[derive(Default)]
    pub struct TextDelta {
        /// Text fragment.
        req text: String = "text",
    }
}

wire_struct! {
    /// `input_json_delta`.
    #[derive(Default)]
    pub struct InputJsonDelta {
        /// JSON text fragment, not at token or key boundaries.
        req partial_json: String = "partial_json",
    }
}

wire_struct! {
    /// `thinking_delta`.
    #[derive(Default)]
    pub struct ThinkingDelta {
        /// Thinking fragment.
        req thinking: String = "thinking",
    }
}

wire_struct! {
    /// `signature_delta`.
    #[derive(Default)]
    pub struct SignatureDelta {
        /// The whole signature.
        req signature: String = "signature",
    }
}

wire_struct! {
    /// `citations_delta`.
    #[derive(Default)]
    pub struct CitationsDelta {
        /// One citation (a location object tagged by `type`).
        req citation: Value = "citation",
    }
}

wire_struct! {
    /// `compaction_delta`.
    #[derive(Default)]
    pub struct CompactionDelta {
        /// The whole summary so far (it replaces the block's `content`, as the SDK's
        /// accumulator does); `null` when compaction failed.
        opt content: String = "content",
        /// Opaque metadata of earlier compactions, to send back verbatim.
        opt encrypted_content: String = "encrypted_content",
    }
}

wire_struct! {
    /// `message_delta`.
    #[derive(Default)]
    pub struct MessageDeltaEvent {
        /// Top-level message changes.
        req delta: MessageDelta = "delta",
        /// Cumulative usage: `output_tokens`, often input and cache counts too.
        opt usage: MessageDeltaUsage = "usage",
        /// What context management (context editing) did to the request.
        opt context_management: ContextManagement = "context_management",
    }
}

wire_struct! {
    /// The cumulative usage of `message_delta`. Anthropic repeats the input and cache
    /// counts of `message_start` here; compatible servers (Bedrock's, Vertex's, proxies)
    /// often report the real `input_tokens` only here.
    #[derive(Default)]
    pub struct MessageDeltaUsage {
        /// Input tokens after the last cache breakpoint, so far.
        opt input_tokens: u64 = "input_tokens",
        /// Input tokens written to the cache, so far.
        opt cache_creation_input_tokens: u64 = "cache_creation_input_tokens",
        /// Input tokens read from the cache, so far.
        opt cache_read_input_tokens: u64 = "cache_read_input_tokens",
        /// Output tokens so far (thinking included); always sent by Anthropic.
        opt output_tokens: u64 = "output_tokens",
        /// Server-tool requests made.
        opt server_tool_use: ServerToolUsage = "server_tool_use",
        /// Cache writes by time to live (compatible servers).
        opt cache_creation: CacheCreation = "cache_creation",
        /// Output breakdown.
        opt output_tokens_details: OutputTokensDetails = "output_tokens_details",
        /// Usage per sampling iteration (`message`, `compaction`, …), when a request ran
        /// several (server-side compaction, tool loops).
        opt iterations: Vec<IterationUsage> = "iterations",
    }
}

wire_struct! {
    /// The usage of one sampling iteration.
    #[derive(Default)]
    pub struct IterationUsage {
        /// `message`, `compaction`, ….
        opt kind: String = "type",
        /// Input tokens of this iteration.
        opt input_tokens: u64 = "input_tokens",
        /// Output tokens of this iteration.
        opt output_tokens: u64 = "output_tokens",
        /// Input tokens written to the cache.
        opt cache_creation_input_tokens: u64 = "cache_creation_input_tokens",
        /// Input tokens read from the cache.
        opt cache_read_input_tokens: u64 = "cache_read_input_tokens",
        /// Cache writes by time to live.
        opt cache_creation: CacheCreation = "cache_creation",
        /// The model that ran the iteration.
        opt model: String = "model",
    }
}

wire_struct! {
    /// `context_management` of `message_delta` (context editing, beta).
    #[derive(Default)]
    pub struct ContextManagement {
        /// The edits applied to the request (often `[]`).
        opt applied_edits: Vec<AppliedEdit> = "applied_edits",
    }
}

wire_struct! {
    /// One context edit the API applied.
    #[derive(Default)]
    pub struct AppliedEdit {
        /// The strategy: `clear_tool_uses_20250919`, `clear_thinking_20251015`, ….
        opt kind: String = "type",
        /// Input tokens the edit removed.
        opt cleared_input_tokens: u64 = "cleared_input_tokens",
        /// Tool uses it cleared.
        opt cleared_tool_uses: u64 = "cleared_tool_uses",
        /// Thinking turns it cleared.
        opt cleared_thinking_turns: u64 = "cleared_thinking_turns",
    }
}

wire_struct! {
    /// What `message_delta` changes on the message.
    #[derive(Default)]
    pub struct MessageDelta {
        /// Why generation stopped.
        opt stop_reason: StopReason = "stop_reason",
        /// The stop sequence that was hit, if any.
        opt stop_sequence: String = "stop_sequence",
        /// Details of a `refusal` stop.
        opt stop_details: StopDetails = "stop_details",
        /// The code-execution container used.
        opt container: Value = "container",
    }
}

wire_struct! {
    /// An `error` event.
    #[derive(Default)]
    pub struct ErrorEvent {
        /// The error.
        req error: ErrorDetail = "error",
    }
}

/// Checks what the types leave open: every message role is one the Messages API knows,
/// the system prompt holds only `text` blocks, and a custom tool's `type` is `"custom"`.
pub fn validate_request(request: &Request) -> Result<(), Error> {
    if let Some(TextOrParts::Parts(blocks)) = &request.system {
        for (i, block) in blocks.iter().enumerate() {
            if !matches!(block, ContentBlock::Text(_)) {
                return Err(Error::new(
                    Category::Shape,
                    format!("/system/{i}/type"),
                    format!(
                        "the system prompt takes text blocks only, found \"{}\"",
                        block.tag()
                    ),
                ));
            }
        }
    }
    for (i, message) in request.messages.iter().enumerate() {
        if let Role::Other(role) = &message.role {
            return Err(crate::common::unknown_role_named(
                &format!("/messages/{i}"),
                &Value::from(role.as_str()).to_string(),
                Role::KNOWN,
            ));
        }
    }
    for (i, tool) in request.tools.iter().flatten().enumerate() {
        if let Tool::Custom(CustomTool {
            kind: Some(kind), ..
        }) = tool
        {
            if kind != "custom" {
                return Err(Error::new(
                    Category::Shape,
                    format!("/tools/{i}/type"),
                    format!(
                        "a tool with an `input_schema` has type \"custom\" or none, found \"{kind}\""
                    ),
                ));
            }
        }
    }
    Ok(())
}
