//! The neutral model: one vocabulary for every format.
//!
//! Every format decodes into these types and encodes out of them (`A → neutral → B`). The
//! model is rich enough that `A → neutral → A` gives back what `A` said: what has no
//! neutral field travels in a [`Vendor`] tagged with the format it came from, and goes
//! back into that format only.
//!
//! It serializes as its own JSON (`serde`), tagged with `"type"` / `"role"`, so a
//! transcript can be stored in one canonical form.
//!
//! # Canonical form
//!
//! Decoders produce, and encoders expect, a conversation where:
//!
//! * tool results are [`Part::ToolResult`]s in [`Role::Tool`] messages, one message per
//!   batch of consecutive results, in call order; no other part sits in a tool message;
//! * tool calls are [`Part::ToolCall`]s in [`Role::Assistant`] messages;
//! * every tool call has an id (synthesized from its position when the source had none,
//!   see [`ToolCall::synthetic_id`]), and every tool result names its call and, when it
//!   can be found, its tool.
//!
//! System and developer instructions are messages ([`Role::System`], [`Role::Developer`])
//! wherever they were; formats with a top-level system field decode it as leading
//! system messages and encode leading system messages into it.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};
use wire_types::Format;

pub use crate::vendor::{Vendor, VendorMap};

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A request: the conversation, the tools, and the generation settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Model id, as the source named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The conversation, in order.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Tool definitions, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Which tool the model must or may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Sampling, limits and reasoning settings.
    #[serde(default, skip_serializing_if = "is_default")]
    pub settings: Settings,
    /// Structured-output request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_format: Option<OutputFormat>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
    /// The format this request was decoded from, if any. An encoder for that same
    /// format treats the conversation as its own history (tool results keep their order,
    /// no stand-in signatures are added); a request built in code has `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Format>,
}

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions (OpenAI `system`, Anthropic/Gemini/Bedrock top-level system, Responses
    /// `instructions`).
    System,
    /// Instructions from the developer (OpenAI `developer`): a system message for every
    /// format that has no separate role.
    Developer,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// Tool results (see the canonical form in the module docs).
    Tool,
}

impl Role {
    /// `system` or `developer`.
    pub fn is_system(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }

    /// The neutral name.
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said, in order.
    #[serde(default)]
    pub content: Vec<Part>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

impl Message {
    /// A message with the given role and parts.
    pub fn new(role: Role, content: Vec<Part>) -> Self {
        Message {
            role,
            content,
            vendor: Vendor::default(),
        }
    }

    /// A message with one text part.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message::new(role, vec![Part::text(text)])
    }

    /// The concatenated text parts.
    pub fn joined_text(&self) -> String {
        self.content
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A cache breakpoint: cache the prompt up to and including what carries it
/// (Anthropic `cache_control`, Bedrock `cachePoint`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    /// Time to live as the source gave it (`5m`, `1h`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

/// An opaque token (signature, encrypted reasoning) and the format that made it. It is
/// only ever sent back to that format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signed {
    /// The token, as received.
    pub value: String,
    /// The format whose API produced it.
    pub format: Format,
}

/// What every part may carry besides its content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PartMeta {
    /// A cache breakpoint after this part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
    /// A reasoning signature attached to this part (Gemini `thoughtSignature`, which may
    /// sit on a text or a function-call part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signed>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

impl PartMeta {
    /// Nothing carried.
    pub fn is_empty(&self) -> bool {
        self.cache.is_none() && self.signature.is_none() && self.vendor.is_empty()
    }
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text(Text),
    /// A refusal by the model (OpenAI `refusal`).
    Refusal(Text),
    /// An image.
    Image(Media),
    /// Audio.
    Audio(Media),
    /// A document or file (PDF, text, …).
    Document(Media),
    /// A JSON value (a tool's structured result: Bedrock `json`, Gemini `response`).
    Json(Json),
    /// A call of a tool by the model.
    ToolCall(ToolCall),
    /// The result of a tool call.
    ToolResult(ToolResult),
    /// The model's reasoning.
    Reasoning(Reasoning),
    /// A part only its own format understands (server-tool blocks, hosted-tool items,
    /// code execution), kept whole.
    Opaque(Opaque),
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(Text {
            text: text.into(),
            meta: PartMeta::default(),
        })
    }

    /// The part's kind, as in its neutral JSON `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Part::Text(_) => "text",
            Part::Refusal(_) => "refusal",
            Part::Image(_) => "image",
            Part::Audio(_) => "audio",
            Part::Document(_) => "document",
            Part::Json(_) => "json",
            Part::ToolCall(_) => "tool_call",
            Part::ToolResult(_) => "tool_result",
            Part::Reasoning(_) => "reasoning",
            Part::Opaque(_) => "opaque",
        }
    }

    /// What the part carries besides its content.
    pub fn meta(&self) -> &PartMeta {
        match self {
            Part::Text(p) | Part::Refusal(p) => &p.meta,
            Part::Image(p) | Part::Audio(p) | Part::Document(p) => &p.meta,
            Part::Json(p) => &p.meta,
            Part::ToolCall(p) => &p.meta,
            Part::ToolResult(p) => &p.meta,
            Part::Reasoning(p) => &p.meta,
            Part::Opaque(p) => &p.meta,
        }
    }

    /// Mutable access to [`Part::meta`].
    pub fn meta_mut(&mut self) -> &mut PartMeta {
        match self {
            Part::Text(p) | Part::Refusal(p) => &mut p.meta,
            Part::Image(p) | Part::Audio(p) | Part::Document(p) => &mut p.meta,
            Part::Json(p) => &mut p.meta,
            Part::ToolCall(p) => &mut p.meta,
            Part::ToolResult(p) => &mut p.meta,
            Part::Reasoning(p) => &mut p.meta,
            Part::Opaque(p) => &mut p.meta,
        }
    }
}

/// A text (or refusal) part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Text {
    /// The text.
    pub text: String,
    /// Cache marker, signature, vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// Where media bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// An `http(s)` URL (or a provider file URI such as Gemini's Files API or `s3://`).
    Url {
        /// The URL.
        url: String,
    },
    /// Inline bytes, base64 (standard alphabet, as received).
    Base64 {
        /// The base64 text.
        data: String,
    },
    /// A file uploaded to the provider beforehand.
    FileId {
        /// The provider's file id.
        file_id: String,
    },
    /// Inline plain text (Anthropic text documents, Bedrock text sources).
    Text {
        /// The text.
        text: String,
    },
}

/// An image, audio clip or document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Media {
    /// Where the bytes are.
    pub source: Source,
    /// IANA media type (`image/png`, `application/pdf`, `audio/wav`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// File name or document title, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Cache marker, vendor fields (OpenAI `detail`, Anthropic `citations`, …).
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A JSON value as content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Json {
    /// The value.
    pub value: Value,
    /// Vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// Tool-call arguments: a JSON value, or the exact text the source carried.
///
/// Equality is by meaning: text equals a value when it parses to that value, so the
/// same call read from an object-arguments format and from a JSON-text format compares
/// equal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arguments {
    /// A JSON value (normally an object).
    Value(Value),
    /// JSON text as the model wrote it (OpenAI-family `arguments`), kept byte for byte.
    /// It may not be valid JSON.
    Text(String),
}

impl Arguments {
    /// The arguments as a value, if they are one or parse to one.
    pub fn value(&self) -> Option<Value> {
        match self {
            Arguments::Value(v) => Some(v.clone()),
            Arguments::Text(t) => serde_json::from_str(t).ok(),
        }
    }

    /// The arguments as JSON text: the source text when there is one, else compact JSON.
    pub fn text(&self) -> String {
        match self {
            Arguments::Value(v) => v.to_string(),
            Arguments::Text(t) => t.clone(),
        }
    }
}

impl PartialEq for Arguments {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Arguments::Text(a), Arguments::Text(b)) if a == b => true,
            (Arguments::Value(a), Arguments::Value(b)) => a == b,
            _ => match (self.value(), other.value()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}

/// A call of a tool by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id that results refer to.
    pub id: String,
    /// Whether `id` was made up by the decoder because the source had none (Gemini,
    /// Ollama); such an id is left out when writing back to a format without ids.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub synthetic_id: bool,
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub arguments: Arguments,
    /// Cache marker, signature (Gemini puts `thoughtSignature` on function calls), vendor
    /// fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name: from the source when it has one (Gemini, Ollama, Mistral),
    /// otherwise resolved from the matching call, so that it survives when the call is
    /// pruned from history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The result: text, JSON, images, documents.
    #[serde(default)]
    pub content: Vec<Part>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Cache marker, vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// The model's reasoning.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reasoning {
    /// The reasoning text, when the provider exposes it (Anthropic `thinking`, Bedrock
    /// `reasoningText`, Ollama/Mistral/Cohere thinking, Responses `reasoning_text`,
    /// Gemini thought parts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Summaries (Responses `summary_text` items).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// Signature over the reasoning (Anthropic `signature`, Bedrock `signature`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signed>,
    /// Encrypted or redacted reasoning (Responses `encrypted_content`, Anthropic
    /// `redacted_thinking.data`, Bedrock `redactedContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<Signed>,
    /// Provider id of the reasoning item (Responses `rs_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The format whose model produced this reasoning, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Format>,
    /// Cache marker, vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A part only its own format understands, kept whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opaque {
    /// The format it came from.
    pub format: Format,
    /// The part as the source wrote it.
    pub value: Value,
    /// Vendor fields (normally none: everything is in `value`).
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Tool {
    /// A function the caller runs.
    Function(ToolDef),
    /// A tool only its own format knows (hosted web search, code execution, …), kept
    /// whole: written back whole by its own format; hosted web search and code execution
    /// are written as another format's equivalent where it has one (Chat's
    /// `web_search_options`, Responses `web_search` / `code_interpreter`, Anthropic
    /// `web_search_20250305` / `code_execution_20250825`, Gemini `googleSearch` /
    /// `codeExecution`), with a loss for each setting it cannot carry. OpenAI Chat's
    /// `web_search_options` is a request field, kept in the request's vendor record.
    Opaque(Opaque),
}

/// The schema language of a tool's input schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// JSON Schema (every format's schema field except Gemini `parameters`).
    #[default]
    JsonSchema,
    /// The OpenAPI 3.0 `Schema` subset of Gemini's `parameters` / `responseSchema`.
    GeminiOpenapi,
}

/// A function tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Schema of the input; `None` for a tool without parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// The schema language of `input_schema`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub dialect: Dialect,
    /// Schema of the output (MCP `outputSchema`, Gemini `responseJsonSchema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Strict schema adherence (OpenAI `strict`, Anthropic `strict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Cache breakpoint after this tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

impl ToolDef {
    /// A tool with a name, a description and an input schema.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        ToolDef {
            name: name.into(),
            description: Some(description.into()),
            input_schema: Some(input_schema),
            dialect: Dialect::JsonSchema,
            output_schema: None,
            strict: None,
            cache: None,
            vendor: Vendor::default(),
        }
    }
}

/// A tool whose input is free text rather than JSON arguments, optionally held to a
/// grammar: OpenAI Responses' `custom` tool (`{"type": "custom", "name", "description",
/// "format"}`). It is not one of a request's [`Tool`]s: [`encode_custom_tool`] writes it
/// as a tool of a format (a `custom` tool for Responses, a function tool taking
/// `{"input": string}` elsewhere), and a model's call of it is read with
/// [`decode_custom_call`].
///
/// [`encode_custom_tool`]: crate::encode_custom_tool
/// [`decode_custom_call`]: crate::decode_custom_call
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomTool {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The grammar its input follows; `None`: any text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<Grammar>,
}

/// The grammar a custom tool's input follows (Responses `"format": {"type": "grammar",
/// "syntax", "definition"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grammar {
    /// The grammar's language: `lark` or `regex` (OpenAI's two; written as given).
    pub syntax: String,
    /// The grammar itself, in that language.
    pub definition: String,
}

/// Which tool the model must or may call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call (OpenAI `required`, Anthropic `any`, Gemini `ANY`).
    Required,
    /// This tool.
    Tool {
        /// Its name.
        name: String,
    },
    /// Only these tools (OpenAI `allowed_tools`, Gemini `allowedFunctionNames`).
    Allowed {
        /// The tool names.
        names: Vec<String>,
        /// Whether one of them must be called.
        required: bool,
    },
}

/// Reasoning settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReasoningConfig {
    /// On or off, when the source said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Effort level (`minimal`, `low`, `medium`, `high`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// Token budget (Anthropic `budget_tokens`, Gemini `thinkingBudget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<i64>,
    /// Ask for the reasoning (or its summary) in the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<bool>,
}

/// Generation settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Output-token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Number>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<Number>,
    /// Top-k sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Presence penalty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<Number>,
    /// Frequency penalty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<Number>,
    /// Whether the model may call several tools in one turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Reasoning effort or budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningConfig>,
    /// Stream the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Whether a streamed response reports its usage (OpenAI Chat's
    /// `stream_options.include_usage`; every other format's streams always do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_usage: Option<bool>,
}

/// A structured-output request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputFormat {
    /// Plain text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching a schema.
    JsonSchema {
        /// Schema name, when the format has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The JSON Schema.
        schema: Value,
        /// Strict adherence.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

/// A response: one or more choices (most formats have exactly one), usage, metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Response id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When it was created, in Unix seconds: OpenAI Chat's and Mistral's `created`,
    /// Responses' `created_at`; Ollama's `created_at` and Vertex AI's `createTime` (RFC
    /// 3339 text) to the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u64>,
    /// The answers; the first is the one single-choice formats carry.
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// Token usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
    /// The format this response was decoded from, if any (see [`Request::source`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Format>,
}

/// One answer of a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The assistant message.
    pub message: Message,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

/// The kind of a stop reason, across formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// Natural end of the turn.
    EndTurn,
    /// A stop sequence matched.
    StopSequence,
    /// The output-token limit (or the context window) was reached.
    MaxTokens,
    /// The model called tools.
    ToolUse,
    /// A content filter or safety system stopped it (or the model refused).
    ContentFilter,
    /// A server-side tool loop paused (Anthropic `pause_turn`).
    Pause,
    /// The model produced a malformed call or output, or the provider failed.
    Error,
    /// A reason with no neutral kind: see [`StopReason::raw`].
    Other,
}

/// Why generation stopped: a neutral kind and the source's own spelling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopReason {
    /// The neutral kind.
    pub kind: StopKind,
    /// The value as the source spelled it (written back unchanged to the same format,
    /// and to any format when the kind is [`StopKind::Other`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// The format `raw` belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
}

impl StopReason {
    /// A stop reason of `kind` with no source spelling.
    pub fn new(kind: StopKind) -> Self {
        StopReason {
            kind,
            raw: None,
            format: None,
        }
    }

    /// A stop reason of `kind` read from `format`'s wire, where it was spelled `raw`.
    pub(crate) fn read(kind: StopKind, raw: &str, format: Format) -> Self {
        StopReason {
            kind,
            raw: Some(raw.to_owned()),
            format: Some(format),
        }
    }

    /// The source spelling, if it belongs to `format`.
    pub fn raw_for(&self, format: Format) -> Option<&str> {
        if self.format == Some(format) {
            self.raw.as_deref()
        } else {
            None
        }
    }
}

/// Token usage. `input_tokens` counts every input token, cached ones included
/// (OpenAI's meaning; Anthropic's `input_tokens` is converted), and `output_tokens`
/// includes reasoning tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// All input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// All output tokens, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Total, when the source gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Input tokens read from a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Input tokens written to a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    /// Reasoning tokens (part of `output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}
