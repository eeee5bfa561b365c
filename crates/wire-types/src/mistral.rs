//! Mistral chat: `POST https://api.mistral.ai/v1/chat/completions` request and response
//! bodies, the `chat.completion.chunk` stream events, and the error body.
//!
//! Mistral's API is shaped like OpenAI Chat Completions but is its own format: different
//! parameters (`random_seed`, `safe_prompt`, `prompt_mode`), an assistant `prefix` flag,
//! `tool` messages with a `name`, content chunks OpenAI does not have (`document_url`,
//! `reference`, `thinking`, an `image_url` that may be a bare string, `input_audio` as a
//! string), the `any` tool choice and the `model_length` / `error` finish reasons.
//!
//! Transcribed from the `mistralai/client-python` SDK models
//! (`src/mistralai/models/{chatcompletionrequest,assistantmessage,toolmessage,toolcall,
//! functioncall,contentchunk,imageurlchunk,documenturlchunk,thinkchunk,referencechunk,
//! filechunk,audiochunk,chatcompletionchoice,deltamessage}.py`, versions stored
//! 2025–2026) and the docs `capabilities/{function-calling,reasoning}` pages; see
//! `../shared/docs/providers.md` §7 as vendored in `ARCHITECTURE.md`. Real payloads:
//! `fixtures/mistral/` (no official JSON Schema exists for this format).
//!
//! ## Style
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.
//! * `content` is [`TextOrParts`]: a string or an array of [`ContentChunk`]s, in requests
//!   and in responses (reasoning models answer with an array).
//! * Tool-call `arguments` are [`Arguments`]: JSON text (what Mistral sends) or an object
//!   (the SDK accepts both).

use crate::common::{Arguments, TextOrParts, unknown_role};
use crate::error::{Category, Error};
use serde_json::{Number, Value};

pub use crate::common::{ImageUrl, JsonSchemaSpec, StrictFunctionDef as FunctionDef};

wire_struct! {
    /// A chat completions request body.
    #[derive(Default)]
    pub struct Request {
        /// Model id (`mistral-small-latest`, `magistral-medium-2509`, …).
        req model: String = "model",
        /// The conversation so far.
        req messages: Vec<Message> = "messages",
        /// Tools the model may call.
        opt tools: Vec<Tool> = "tools",
        /// Which tool, if any, the model must call.
        opt tool_choice: ToolChoice = "tool_choice",
        /// `false`: at most one tool call per turn (default `true`).
        opt parallel_tool_calls: bool = "parallel_tool_calls",
        /// `text`, `json_object` or `json_schema` output.
        opt response_format: ResponseFormat = "response_format",
        /// Output-token limit (Mistral has no `max_completion_tokens`).
        opt max_tokens: u64 = "max_tokens",
        /// Sampling temperature (0.0–0.7 recommended; the default depends on the model).
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass.
        opt top_p: Number = "top_p",
        /// Number of choices to generate.
        opt n: u32 = "n",
        /// Stop sequence(s).
        opt stop: TextOrParts<String> = "stop",
        /// Sampling seed (Mistral's name for `seed`).
        opt random_seed: u64 = "random_seed",
        /// Presence penalty.
        opt presence_penalty: Number = "presence_penalty",
        /// Frequency penalty.
        opt frequency_penalty: Number = "frequency_penalty",
        /// Predicted output: `{"type":"content","content":…}`.
        opt prediction: Value = "prediction",
        /// `reasoning`: use the default reasoning system prompt (Magistral); `null`: none.
        opt prompt_mode: PromptMode = "prompt_mode",
        /// Prepend Mistral's safety prompt.
        opt safe_prompt: bool = "safe_prompt",
        /// Stream the response as chunks.
        opt stream: bool = "stream",
    }
}

open_enum! {
    /// `prompt_mode`.
    pub enum PromptMode {
        /// The default reasoning system prompt of reasoning models.
        Reasoning = "reasoning",
    }
}

wire_tagged! {
    /// One message of the conversation, tagged by `role` (no `developer` role).
    pub enum Message, tag = "role" {
        /// `role: system`: instructions.
        System(SystemMessage) = "system",
        /// `role: user`.
        User(UserMessage) = "user",
        /// `role: assistant`: a model turn, replayed (or a prefix to continue).
        Assistant(AssistantMessage) = "assistant",
        /// `role: tool`: the result of one tool call.
        Tool(ToolMessage) = "tool",
    }
}

wire_struct! {
    /// A `system` message.
    pub struct SystemMessage {
        /// The instructions: a string or text (and thinking) chunks.
        req content: TextOrParts<ContentChunk> = "content",
    }
}

wire_struct! {
    /// A `user` message.
    pub struct UserMessage {
        /// A string or an array of text, image, document, audio and file chunks.
        req content: TextOrParts<ContentChunk> = "content",
    }
}

wire_struct! {
    /// An `assistant` message (a model turn sent back as history).
    #[derive(Default)]
    pub struct AssistantMessage {
        /// Text, or chunks (a reasoning turn: a `thinking` chunk, then text); absent or
        /// `null` when the turn only calls tools.
        opt content: TextOrParts<ContentChunk> = "content",
        /// The tool calls the model made.
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// `true`: this is the start of the answer, the model continues it. Only on the
        /// last message.
        opt prefix: bool = "prefix",
    }
}

wire_struct! {
    /// A `tool` message: the result of the call `tool_call_id`. There is no error flag: a
    /// failed call is reported in the content text.
    pub struct ToolMessage {
        /// The result: a string or chunks.
        req content: TextOrParts<ContentChunk> = "content",
        /// Id of the call this answers (9 alphanumerics on La Plateforme).
        opt tool_call_id: String = "tool_call_id",
        /// Name of the function that ran.
        opt name: String = "name",
    }
}

wire_tagged! {
    /// A content chunk, tagged by `type`.
    pub enum ContentChunk, tag = "type" {
        /// `{"type":"text","text":…}`
        Text(TextChunk) = "text",
        /// `{"type":"image_url","image_url":…}`: a URL string, or `{url, detail}`.
        ImageUrl(ImageUrlChunk) = "image_url",
        /// `{"type":"document_url","document_url":…}`: a document (PDF) by URL.
        DocumentUrl(DocumentUrlChunk) = "document_url",
        /// `{"type":"input_audio","input_audio":…}`: audio as a base64 string or a URL.
        InputAudio(InputAudioChunk) = "input_audio",
        /// `{"type":"file","file_id":…}`: an uploaded file.
        File(FileChunk) = "file",
        /// `{"type":"reference","reference_ids":[…]}`: ids of cited references.
        Reference(ReferenceChunk) = "reference",
        /// `{"type":"thinking","thinking":[…]}`: reasoning (Magistral).
        Thinking(ThinkingChunk) = "thinking",
    }
}

wire_struct! {
    /// A text chunk.
    #[derive(Default)]
    pub struct TextChunk {
        /// The text.
        req text: String = "text",
    }
}

wire_struct! {
    /// An image chunk.
    pub struct ImageUrlChunk {
        /// The image.
        req image_url: ImageUrlValue = "image_url",
    }
}

string_or_object! {
    /// The value of `image_url`: Mistral accepts the URL itself or an object.
    pub enum ImageUrlValue, expecting = "an image URL string or an {\"url\": …} object" {
        /// `"image_url": "https://…"` or a `data:image/…;base64,…` URL.
        Url(String),
        /// `"image_url": {"url": …, "detail": …}`.
        Object(ImageUrl),
    }
}

impl ImageUrlValue {
    /// The URL, from either form.
    pub fn url(&self) -> &str {
        match self {
            ImageUrlValue::Url(u) => u,
            ImageUrlValue::Object(o) => &o.url,
        }
    }
}

wire_struct! {
    /// A document chunk.
    #[derive(Default)]
    pub struct DocumentUrlChunk {
        /// URL of the document (PDF, …); a `data:` URL is not documented.
        req document_url: String = "document_url",
        /// The document's file name.
        opt document_name: String = "document_name",
    }
}

wire_struct! {
    /// An audio chunk.
    #[derive(Default)]
    pub struct InputAudioChunk {
        /// Base64 audio bytes or an audio URL (a string, unlike OpenAI's object).
        req input_audio: String = "input_audio",
    }
}

wire_struct! {
    /// An uploaded-file chunk.
    #[derive(Default)]
    pub struct FileChunk {
        /// Id of a file uploaded to the Files API.
        req file_id: String = "file_id",
    }
}

wire_struct! {
    /// A reference chunk.
    #[derive(Default)]
    pub struct ReferenceChunk {
        /// Ids of the references (tool results, documents) the text relies on.
        req reference_ids: Vec<u64> = "reference_ids",
    }
}

wire_struct! {
    /// A reasoning chunk: the model's thinking, as `text` (and `reference`) chunks. It has
    /// no signature; replay it as it came.
    #[derive(Default)]
    pub struct ThinkingChunk {
        /// The reasoning, as chunks (`text`, `reference`).
        req thinking: Vec<ContentChunk> = "thinking",
        /// Whether the thinking is finished (used when prefixing).
        opt closed: bool = "closed",
    }
}

wire_struct! {
    /// A tool call in an assistant message or a stream delta.
    pub struct ToolCall {
        /// Call id: 9 alphanumerics (`D681PevKs`) on La Plateforme; its tokenizers refuse
        /// other ids (`call_…`, `toolu_…`) in replayed history.
        opt id: String = "id",
        /// `function` (often absent in responses).
        opt kind: String = "type",
        /// The function call.
        req function: FunctionCall = "function",
        /// 0-based position of the call in the turn (stream deltas).
        opt index: u32 = "index",
    }
}

wire_struct! {
    /// The function half of a tool call.
    pub struct FunctionCall {
        /// Function name.
        req name: String = "name",
        /// Arguments: JSON text as the model wrote it (the SDK also accepts an object).
        req arguments: Arguments = "arguments",
    }
}

wire_struct! {
    /// A tool definition.
    pub struct Tool {
        /// `function` (the default).
        opt kind: String = "type",
        /// The function.
        req function: FunctionDef = "function",
    }
}

open_enum! {
    /// A `tool_choice` given as a string.
    pub enum ToolChoiceMode {
        /// The model decides (default).
        Auto = "auto",
        /// Never call a tool.
        None = "none",
        /// Call at least one tool (Mistral's word for it).
        Any = "any",
        /// Call at least one tool (OpenAI's word, also accepted).
        Required = "required",
    }
}

wire_struct! {
    /// A `tool_choice` object: `{"type":"function","function":{"name":…}}`.
    pub struct NamedToolChoice {
        /// `function`.
        opt kind: String = "type",
        /// `{"name": …}`: the function to call.
        req function: NameRef = "function",
    }
}

wire_struct! {
    /// `{"name": …}`
    #[derive(Default)]
    pub struct NameRef {
        /// A function name.
        req name: String = "name",
    }
}

string_or_object! {
    /// `tool_choice`: a mode string or an object naming a function.
    #[allow(
        clippy::large_enum_variant,
        reason = "one per request; a box would only make the object form harder to build"
    )]
    pub enum ToolChoice, expecting = "\"auto\", \"none\", \"any\", \"required\" or a tool-choice object" {
        /// `"auto"`, `"none"`, `"any"`, `"required"`.
        Mode(ToolChoiceMode),
        /// `{"type":"function","function":{"name":…}}`.
        Named(NamedToolChoice),
    }
}

open_enum! {
    /// `response_format.type`.
    pub enum ResponseFormatType {
        /// Plain text.
        Text = "text",
        /// Any JSON object.
        JsonObject = "json_object",
        /// JSON matching `json_schema`.
        JsonSchema = "json_schema",
    }
}

wire_struct! {
    /// `response_format`.
    #[derive(Default)]
    pub struct ResponseFormat {
        /// `text`, `json_object` or `json_schema`.
        opt kind: ResponseFormatType = "type",
        /// The schema, for `json_schema`.
        opt json_schema: JsonSchemaSpec = "json_schema",
    }
}

wire_struct! {
    /// A chat completions response body.
    #[derive(Default)]
    pub struct Response {
        /// Completion id (32 hex digits).
        opt id: String = "id",
        /// `chat.completion`
        opt object: String = "object",
        /// Unix seconds.
        opt created: u64 = "created",
        /// Model that answered.
        opt model: String = "model",
        /// One choice per `n`.
        req choices: Vec<Choice> = "choices",
        /// Token usage.
        opt usage: Usage = "usage",
    }
}

wire_struct! {
    /// One choice of a response.
    pub struct Choice {
        /// 0-based choice index.
        opt index: u32 = "index",
        /// The assistant message.
        req message: ResponseMessage = "message",
        /// Why generation stopped.
        opt finish_reason: FinishReason = "finish_reason",
        /// Log-probabilities, when requested.
        opt logprobs: Value = "logprobs",
    }
}

wire_struct! {
    /// The message of a response choice.
    #[derive(Default)]
    pub struct ResponseMessage {
        /// `assistant`.
        opt role: String = "role",
        /// A string, or chunks (reasoning models: `thinking`, then `text`).
        opt content: TextOrParts<ContentChunk> = "content",
        /// Tool calls (whole: id, name and argument text).
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// Echo of the request's `prefix` flag.
        opt prefix: bool = "prefix",
    }
}

open_enum! {
    /// Why generation stopped.
    pub enum FinishReason {
        /// Natural end or a stop sequence.
        Stop = "stop",
        /// `max_tokens` reached.
        Length = "length",
        /// The model's context length reached.
        ModelLength = "model_length",
        /// Generation failed.
        Error = "error",
        /// The model called tools.
        ToolCalls = "tool_calls",
    }
}

wire_struct! {
    /// Token usage.
    #[derive(Default)]
    pub struct Usage {
        /// Input tokens.
        opt prompt_tokens: u64 = "prompt_tokens",
        /// Output tokens.
        opt completion_tokens: u64 = "completion_tokens",
        /// Sum of both.
        opt total_tokens: u64 = "total_tokens",
        /// Input breakdown.
        opt prompt_tokens_details: PromptTokensDetails = "prompt_tokens_details",
    }
}

wire_struct! {
    /// Input-token breakdown.
    #[derive(Default)]
    pub struct PromptTokensDetails {
        /// Tokens read from the prompt cache.
        opt cached_tokens: u64 = "cached_tokens",
    }
}

wire_struct! {
    /// One streamed `chat.completion.chunk`.
    #[derive(Default)]
    pub struct Chunk {
        /// Same id on every chunk of a stream.
        opt id: String = "id",
        /// `chat.completion.chunk`
        opt object: String = "object",
        /// Unix seconds.
        opt created: u64 = "created",
        /// Model.
        opt model: String = "model",
        /// Choice deltas.
        req choices: Vec<ChunkChoice> = "choices",
        /// Usage, on the last chunk.
        opt usage: Usage = "usage",
    }
}

wire_struct! {
    /// One choice's delta in a chunk.
    #[derive(Default)]
    pub struct ChunkChoice {
        /// 0-based choice index.
        opt index: u32 = "index",
        /// What this chunk adds.
        opt delta: Delta = "delta",
        /// Set on the last chunk of the choice.
        opt finish_reason: FinishReason = "finish_reason",
        /// Log-probabilities of this chunk's tokens.
        opt logprobs: Value = "logprobs",
    }
}

wire_struct! {
    /// What a chunk adds to a message.
    #[derive(Default)]
    pub struct Delta {
        /// `assistant`, on the first chunk.
        opt role: String = "role",
        /// A text fragment, or chunks (a `thinking` fragment, a `text` fragment).
        opt content: TextOrParts<ContentChunk> = "content",
        /// Tool calls: api.mistral.ai sends each call whole in one delta; compatible
        /// servers may split the argument text over deltas keyed by `index`.
        opt tool_calls: Vec<ToolCall> = "tool_calls",
    }
}

wire_struct! {
    /// An error body. La Plateforme answers `{"object":"error","message":…,"type":…,
    /// "param":…,"code":…}` (`message` may itself be an object holding the validation
    /// `detail`), a bare `{"detail":[…]}` for some validation errors, or `{"message":…}`
    /// (authentication).
    #[derive(Default)]
    pub struct ErrorResponse {
        /// `error`.
        opt object: String = "object",
        /// The message: a string, or an object (`{"detail":[…]}`).
        opt message: Value = "message",
        /// Error type (`invalid_request_error`, …).
        opt kind: String = "type",
        /// The request parameter at fault.
        opt param: Value = "param",
        /// Error code (a string or a number).
        opt code: Value = "code",
        /// Validation errors: `[{"type","loc","msg","input"}, …]`.
        opt detail: Value = "detail",
    }
}

impl ErrorResponse {
    /// The message as text, when it is a string.
    pub fn message_text(&self) -> Option<&str> {
        self.message.as_ref().and_then(Value::as_str)
    }
}

chunk_or_error! {
    /// One event of a streamed response: a chunk, or an error object sent mid-stream. The
    /// first key that only one of the two shapes has decides; `object` decides by its
    /// value (`error` or `chat.completion.chunk`).
    ///
    /// The `data: [DONE]` terminator is not JSON; [`crate::stream`] handles it.
    pub enum StreamEvent, expecting = "a chat.completion.chunk object or an error object" {
        /// A `chat.completion.chunk`.
        Chunk(Chunk),
        /// An error object.
        Error(ErrorResponse),
    }
    decide = |key| match key {
        "object" => Side::ByValue(|v| match v.as_str() {
            Some("error") => Side::Error,
            _ => Side::Chunk,
        }),
        "message" | "type" | "param" | "code" | "detail" => Side::Error,
        "usage" => Side::Undecided,
        key if Chunk::FIELDS.contains(&key) => Side::Chunk,
        _ => Side::Undecided,
    }
}

/// Checks what the types leave open:
///
/// * every message role is one Mistral knows;
/// * a `tool` message has the `tool_call_id` of the call it answers (optional in the
///   SDK type, required by Mistral's tokenizers to place the result);
/// * an assistant message with `"prefix": true` is the last message (the model continues
///   it; Mistral refuses a prefix anywhere else).
pub fn validate_request(request: &Request) -> Result<(), Error> {
    let last = request.messages.len().saturating_sub(1);
    for (i, message) in request.messages.iter().enumerate() {
        match message {
            Message::Other(map) => {
                return Err(unknown_role(map, &format!("/messages/{i}"), Message::KNOWN));
            }
            Message::Tool(t) if t.tool_call_id.is_none() => {
                return Err(Error::new(
                    Category::Shape,
                    format!("/messages/{i}/tool_call_id"),
                    "missing field (a tool message needs the id of the call it answers)",
                ));
            }
            Message::Assistant(a) if a.prefix == Some(true) && i != last => {
                return Err(Error::new(
                    Category::Shape,
                    format!("/messages/{i}/prefix"),
                    "a prefix assistant message must be the last message",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The text of a `thinking` chunk: its `text` chunks joined.
pub fn thinking_text(chunk: &ThinkingChunk) -> String {
    chunk
        .thinking
        .iter()
        .filter_map(|c| match c {
            ContentChunk::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}
