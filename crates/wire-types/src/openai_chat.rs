//! OpenAI Chat Completions: `POST /v1/chat/completions` request and response bodies and
//! the `chat.completion.chunk` stream events.
//!
//! Transcribed from the `openai-python` SDK types (`types/chat/*`, `completion_usage.py`,
//! commit e43b422, 2026-08-21) and the API reference; see `../shared/docs/providers.md` §1
//! as vendored in `ARCHITECTURE.md`. Real payloads: `fixtures/openai-chat/`.
//!
//! Also read here: OpenAI-compatible servers (DeepSeek's `reasoning_content`, Groq's
//! `x_groq`, Azure's content-filter fields): whatever they add lands in `extra`.
//!
//! ## Style
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.
//! * `content` is [`TextOrParts`]: a string or an array of [`ContentPart`]s.
//! * Tool-call `arguments` are [`Arguments`]: JSON text as sent (OpenAI), or a JSON value
//!   (compatible servers that send the object).

use crate::common::{Arguments, TextOrParts, unknown_role};
use crate::error::{Category, Error};
use serde_json::{Map, Number, Value};

pub use crate::common::{
    ErrorDetail, ImageUrl, JsonSchemaSpec, Logprob, NoFields, ReasoningEffort,
    StrictFunctionDef as FunctionDef, ToolChoiceMode, TopLogprob,
};

wire_struct! {
    /// A Chat Completions request body.
    #[derive(Default)]
    pub struct Request {
        /// Model id.
        req model: String = "model",
        /// The conversation so far.
        req messages: Vec<Message> = "messages",
        /// Tools the model may call.
        opt tools: Vec<Tool> = "tools",
        /// Which tool, if any, the model must call.
        opt tool_choice: ToolChoice = "tool_choice",
        /// `false`: at most one tool call per turn.
        opt parallel_tool_calls: bool = "parallel_tool_calls",
        /// `text`, `json_object` or `json_schema` output.
        opt response_format: ResponseFormat = "response_format",
        /// Deprecated output-token limit (use `max_completion_tokens`).
        opt max_tokens: u64 = "max_tokens",
        /// Output-token limit, reasoning tokens included.
        opt max_completion_tokens: u64 = "max_completion_tokens",
        /// Sampling temperature (0–2).
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass.
        opt top_p: Number = "top_p",
        /// Number of choices to generate.
        opt n: u32 = "n",
        /// Stop sequence(s).
        opt stop: TextOrParts<String> = "stop",
        /// Sampling seed.
        opt seed: i64 = "seed",
        /// Presence penalty (-2–2).
        opt presence_penalty: Number = "presence_penalty",
        /// Frequency penalty (-2–2).
        opt frequency_penalty: Number = "frequency_penalty",
        /// Token id → bias.
        opt logit_bias: Map<String, Value> = "logit_bias",
        /// Return log-probabilities.
        opt logprobs: bool = "logprobs",
        /// How many top log-probabilities per token.
        opt top_logprobs: u32 = "top_logprobs",
        /// Reasoning effort for reasoning models.
        opt reasoning_effort: ReasoningEffort = "reasoning_effort",
        /// Stream the response as chunks.
        opt stream: bool = "stream",
        /// Streaming options.
        opt stream_options: StreamOptions = "stream_options",
        /// Store the completion.
        opt store: bool = "store",
        /// Free-form metadata.
        opt metadata: Map<String, Value> = "metadata",
        /// Service tier (`auto`, `default`, `flex`, …).
        opt service_tier: String = "service_tier",
        /// End-user id (legacy; see `safety_identifier`).
        opt user: String = "user",
        /// Deprecated function definitions (before `tools`).
        opt functions: Vec<Value> = "functions",
        /// Deprecated function choice (before `tool_choice`).
        opt function_call: Value = "function_call",
    }
}

wire_tagged! {
    /// One message of the conversation, tagged by `role`.
    pub enum Message, tag = "role" {
        /// `role: system`: instructions.
        System(SystemMessage) = "system",
        /// `role: developer`: instructions (o1 and later models).
        Developer(SystemMessage) = "developer",
        /// `role: user`.
        User(UserMessage) = "user",
        /// `role: assistant`: a model turn, replayed.
        Assistant(AssistantMessage) = "assistant",
        /// `role: tool`: the result of one tool call.
        Tool(ToolMessage) = "tool",
        /// `role: function`: deprecated function result.
        Function(FunctionMessage) = "function",
    }
}

wire_struct! {
    /// A `system` or `developer` message.
    pub struct SystemMessage {
        /// The instructions: a string or text parts.
        req content: TextOrParts<ContentPart> = "content",
        /// Participant name.
        opt name: String = "name",
    }
}

wire_struct! {
    /// A `user` message.
    pub struct UserMessage {
        /// A string or an array of text, image, audio and file parts.
        req content: TextOrParts<ContentPart> = "content",
        /// Participant name.
        opt name: String = "name",
    }
}

wire_struct! {
    /// An `assistant` message (a model turn sent back as history).
    #[derive(Default)]
    pub struct AssistantMessage {
        /// Text or text/refusal parts; `null` or absent when the turn only calls tools.
        opt content: TextOrParts<ContentPart> = "content",
        /// A refusal message.
        opt refusal: String = "refusal",
        /// The tool calls the model made.
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// Deprecated single function call.
        opt function_call: Box<Value> = "function_call",
        /// Reference to a previous audio response (`{"id": …}`).
        opt audio: Box<Value> = "audio",
        /// Participant name.
        opt name: String = "name",
        /// Reasoning text, as OpenAI-compatible reasoning servers (DeepSeek) send it.
        opt reasoning_content: String = "reasoning_content",
    }
}

wire_struct! {
    /// A `tool` message: the result of the call `tool_call_id`.
    pub struct ToolMessage {
        /// Id of the call this answers.
        req tool_call_id: String = "tool_call_id",
        /// The result: a string or text parts (no images).
        req content: TextOrParts<ContentPart> = "content",
    }
}

wire_struct! {
    /// A deprecated `function` message.
    #[derive(Default)]
    pub struct FunctionMessage {
        /// Name of the function that ran.
        req name: String = "name",
        /// Its output.
        opt content: String = "content",
    }
}

wire_tagged! {
    /// A content part, tagged by `type`.
    pub enum ContentPart, tag = "type" {
        /// `{"type":"text","text":…}`
        Text(TextPart) = "text",
        /// `{"type":"image_url","image_url":{"url":…}}`: an https URL or a `data:` URL.
        ImageUrl(ImageUrlPart) = "image_url",
        /// `{"type":"input_audio","input_audio":{"data":…,"format":…}}`
        InputAudio(InputAudioPart) = "input_audio",
        /// `{"type":"file","file":{…}}`: an uploaded file id or inline file data.
        File(FilePart) = "file",
        /// `{"type":"refusal","refusal":…}` (assistant content only).
        Refusal(RefusalPart) = "refusal",
    }
}

wire_struct! {
    /// A text part.
    #[derive(Default)]
    pub struct TextPart {
        /// The text.
        req text: String = "text",
    }
}

wire_struct! {
    /// An image part.
    pub struct ImageUrlPart {
        /// The image.
        req image_url: ImageUrl = "image_url",
    }
}

wire_struct! {
    /// An audio part.
    pub struct InputAudioPart {
        /// The audio.
        req input_audio: InputAudio = "input_audio",
    }
}

wire_struct! {
    /// Inline audio.
    #[derive(Default)]
    pub struct InputAudio {
        /// Base64 audio bytes.
        req data: String = "data",
        /// `wav` or `mp3`.
        req format: String = "format",
    }
}

wire_struct! {
    /// A file part.
    pub struct FilePart {
        /// The file.
        req file: FileRef = "file",
    }
}

wire_struct! {
    /// A file: an uploaded file id, or inline data with a file name.
    #[derive(Default)]
    pub struct FileRef {
        /// Id of an uploaded file.
        opt file_id: String = "file_id",
        /// Inline file: a `data:<media type>;base64,…` URL.
        opt file_data: String = "file_data",
        /// File name, for inline data.
        opt filename: String = "filename",
    }
}

wire_struct! {
    /// A refusal part.
    #[derive(Default)]
    pub struct RefusalPart {
        /// The refusal text.
        req refusal: String = "refusal",
    }
}

wire_struct! {
    /// A tool call in an assistant message.
    ///
    /// Two forms are read: the nested `{"id","type":"function","function":{"name",
    /// "arguments"}}` form OpenAI sends, and the flat `{"id","name","arguments"}` form some
    /// compatible servers and hand-written histories use. [`ToolCall::name`] and
    /// [`ToolCall::arguments`] read either.
    #[derive(Default)]
    pub struct ToolCall {
        /// Call id (`call_…`), answered by a `tool` message's `tool_call_id`.
        opt id: String = "id",
        /// `function` (or `custom`).
        opt kind: ToolCallType = "type",
        /// The nested function call.
        opt function: FunctionCall = "function",
        /// A custom-tool call: `{"name","input"}`.
        opt custom: Box<Value> = "custom",
        /// Flat form: the function name.
        opt name: String = "name",
        /// Flat form: the arguments.
        opt arguments: Box<Arguments> = "arguments",
    }
}

impl ToolCall {
    /// The function name, from either form.
    pub fn name(&self) -> Option<&str> {
        self.function
            .as_ref()
            .map(|f| f.name.as_str())
            .or(self.name.as_deref())
    }

    /// The arguments, from either form.
    pub fn arguments(&self) -> Option<&Arguments> {
        self.function
            .as_ref()
            .map(|f| &f.arguments)
            .or(self.arguments.as_deref())
    }
}

wire_struct! {
    /// The function half of a nested tool call.
    pub struct FunctionCall {
        /// Function name.
        req name: String = "name",
        /// Arguments: JSON text as the model wrote it (may be invalid JSON).
        req arguments: Arguments = "arguments",
    }
}

wire_tagged! {
    /// A tool definition, tagged by `type`.
    pub enum Tool, tag = "type" {
        /// `{"type":"function","function":{…}}`
        Function(FunctionTool) = "function",
        /// `{"type":"custom","custom":{…}}`: free-text input tool.
        Custom(CustomTool) = "custom",
    }
}

wire_struct! {
    /// A function tool.
    pub struct FunctionTool {
        /// The function.
        req function: FunctionDef = "function",
    }
}

wire_struct! {
    /// A custom tool.
    #[derive(Default)]
    pub struct CustomTool {
        /// `{"name","description","format"}`.
        req custom: Value = "custom",
    }
}

open_enum! {
    /// A tool call's `type`.
    pub enum ToolCallType {
        /// A call of a function tool.
        Function = "function",
        /// A call of a custom (free-form input) tool.
        Custom = "custom",
    }
}

wire_tagged! {
    /// A `tool_choice` given as an object.
    pub enum NamedToolChoice, tag = "type" {
        /// `{"type":"function","function":{"name":…}}`: call this function.
        Function(FunctionChoice) = "function",
        /// `{"type":"custom","custom":{"name":…}}`
        Custom(CustomChoice) = "custom",
        /// `{"type":"allowed_tools","allowed_tools":{"mode","tools"}}`
        AllowedTools(AllowedToolsChoice) = "allowed_tools",
    }
}

wire_struct! {
    /// Forces one function.
    pub struct FunctionChoice {
        /// `{"name": …}`
        req function: NameRef = "function",
    }
}

wire_struct! {
    /// Forces one custom tool.
    pub struct CustomChoice {
        /// `{"name": …}`
        req custom: NameRef = "custom",
    }
}

wire_struct! {
    /// Restricts the callable tools.
    #[derive(Default)]
    pub struct AllowedToolsChoice {
        /// `{"mode":"auto"|"required","tools":[…]}`
        req allowed_tools: Value = "allowed_tools",
    }
}

wire_struct! {
    /// `{"name": …}`
    #[derive(Default)]
    pub struct NameRef {
        /// A tool name.
        req name: String = "name",
    }
}

string_or_object! {
    /// `tool_choice`: a mode string or an object naming a tool.
    pub enum ToolChoice, expecting = "\"none\", \"auto\", \"required\" or a tool-choice object" {
        /// `"none"`, `"auto"`, `"required"`.
        Mode(ToolChoiceMode),
        /// `{"type":"function",…}` and the other object forms.
        Named(NamedToolChoice),
    }
}

wire_tagged! {
    /// `response_format`.
    pub enum ResponseFormat, tag = "type" {
        /// Plain text.
        Text(NoFields) = "text",
        /// Any JSON object.
        JsonObject(NoFields) = "json_object",
        /// JSON matching a schema.
        JsonSchema(JsonSchemaFormat) = "json_schema",
    }
}

wire_struct! {
    /// `{"type":"json_schema","json_schema":{…}}`
    pub struct JsonSchemaFormat {
        /// The schema and its name.
        req json_schema: JsonSchemaSpec = "json_schema",
    }
}

wire_struct! {
    /// `stream_options`.
    #[derive(Default)]
    pub struct StreamOptions {
        /// Send a last chunk with `usage`.
        opt include_usage: bool = "include_usage",
        /// Pad chunks with an `obfuscation` field.
        opt include_obfuscation: bool = "include_obfuscation",
    }
}

wire_struct! {
    /// A Chat Completions response body.
    #[derive(Default)]
    pub struct Response {
        /// `chatcmpl-…`
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
        /// Backend configuration fingerprint.
        opt system_fingerprint: String = "system_fingerprint",
        /// Service tier used.
        opt service_tier: String = "service_tier",
    }
}

wire_struct! {
    /// One choice of a response.
    pub struct Choice {
        /// 0-based choice index.
        opt index: u32 = "index",
        /// The assistant message.
        req message: Box<ResponseMessage> = "message",
        /// Why generation stopped.
        opt finish_reason: FinishReason = "finish_reason",
        /// Log-probabilities, when requested.
        opt logprobs: Box<Value> = "logprobs",
    }
}

wire_struct! {
    /// The message of a response choice.
    #[derive(Default)]
    pub struct ResponseMessage {
        /// `assistant`.
        opt role: String = "role",
        /// The text; `null` when the turn only calls tools or refuses.
        opt content: TextOrParts<ContentPart> = "content",
        /// The refusal, when the model refused.
        opt refusal: String = "refusal",
        /// Tool calls.
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// URL citations from web search.
        opt annotations: Vec<Value> = "annotations",
        /// Audio output.
        opt audio: Box<Value> = "audio",
        /// Deprecated single function call.
        opt function_call: Box<Value> = "function_call",
        /// Reasoning text from OpenAI-compatible reasoning servers (DeepSeek).
        opt reasoning_content: String = "reasoning_content",
    }
}

open_enum! {
    /// Why generation stopped.
    pub enum FinishReason {
        /// Natural end or a stop sequence.
        Stop = "stop",
        /// Token limit.
        Length = "length",
        /// The model called tools.
        ToolCalls = "tool_calls",
        /// Content filter.
        ContentFilter = "content_filter",
        /// Deprecated function call.
        FunctionCall = "function_call",
    }
}

wire_struct! {
    /// Token usage.
    #[derive(Default)]
    pub struct Usage {
        /// Input tokens (cached ones included).
        opt prompt_tokens: u64 = "prompt_tokens",
        /// Output tokens (reasoning tokens included).
        opt completion_tokens: u64 = "completion_tokens",
        /// Sum of both.
        opt total_tokens: u64 = "total_tokens",
        /// Input breakdown.
        opt prompt_tokens_details: PromptTokensDetails = "prompt_tokens_details",
        /// Output breakdown.
        opt completion_tokens_details: CompletionTokensDetails = "completion_tokens_details",
    }
}

wire_struct! {
    /// Input-token breakdown.
    #[derive(Default)]
    pub struct PromptTokensDetails {
        /// Tokens read from the prompt cache.
        opt cached_tokens: u64 = "cached_tokens",
        /// Tokens written to the prompt cache.
        opt cache_write_tokens: u64 = "cache_write_tokens",
        /// Audio input tokens.
        opt audio_tokens: u64 = "audio_tokens",
    }
}

wire_struct! {
    /// Output-token breakdown.
    #[derive(Default)]
    pub struct CompletionTokensDetails {
        /// Reasoning tokens.
        opt reasoning_tokens: u64 = "reasoning_tokens",
        /// Audio output tokens.
        opt audio_tokens: u64 = "audio_tokens",
        /// Predicted-output tokens that matched.
        opt accepted_prediction_tokens: u64 = "accepted_prediction_tokens",
        /// Predicted-output tokens that did not match.
        opt rejected_prediction_tokens: u64 = "rejected_prediction_tokens",
    }
}

wire_struct! {
    /// One streamed `chat.completion.chunk`.
    ///
    /// Compatible servers bend every rule: Azure and Copilot open with a chunk that has
    /// `choices: []`, empty `id`/`model`/`object` and `prompt_filter_results`; the usage
    /// chunk may come with non-empty `choices`, or with no `choices` key at all.
    #[derive(Default)]
    pub struct Chunk {
        /// Same id on every chunk of a stream (`""` on Azure's filter chunk).
        opt id: String = "id",
        /// `chat.completion.chunk`
        opt object: String = "object",
        /// Unix seconds.
        opt created: u64 = "created",
        /// Model.
        opt model: String = "model",
        /// Choice deltas: empty (`[]`) on the usage chunk and Azure's first chunk, absent
        /// altogether on some compatible servers' usage chunk.
        opt choices: Vec<ChunkChoice> = "choices",
        /// Usage: `null` on every chunk but the last (with `include_usage`).
        opt usage: Usage = "usage",
        /// Backend configuration fingerprint.
        opt system_fingerprint: String = "system_fingerprint",
        /// Service tier used (`auto`, `default`, `flex`, `scale`, `priority`, `fast`).
        opt service_tier: String = "service_tier",
        /// Random padding that hides the chunk's length (`stream_options.include_obfuscation`,
        /// on by default); carries nothing.
        opt obfuscation: String = "obfuscation",
        /// Moderation results of input and output (moderated completions; SDK 2026).
        opt moderation: Box<Value> = "moderation",
        /// Azure OpenAI: content-filter results of the prompt, on the first chunk.
        opt prompt_filter_results: Vec<PromptFilterResult> = "prompt_filter_results",
    }
}

wire_struct! {
    /// Azure OpenAI: the content-filter results of one prompt.
    #[derive(Default)]
    pub struct PromptFilterResult {
        /// 0-based index of the prompt.
        opt prompt_index: u32 = "prompt_index",
        /// Per category (`hate`, `self_harm`, `sexual`, `violence`, `jailbreak`, …):
        /// `{"filtered": bool, "severity"|"detected": …}`.
        opt content_filter_results: Map<String, Value> = "content_filter_results",
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
        /// Set on the last chunk of the choice; `null` before. Compatible servers send `""`
        /// (kept as [`FinishReason::Other`]), or end the stream without one.
        opt finish_reason: FinishReason = "finish_reason",
        /// Log-probabilities of this chunk's tokens (`logprobs: true`).
        opt logprobs: ChunkLogprobs = "logprobs",
        /// Azure OpenAI: content-filter results of this chunk's output (`{}` when none ran).
        opt content_filter_results: Map<String, Value> = "content_filter_results",
    }
}

wire_struct! {
    /// The log-probabilities of a chunk's tokens.
    #[derive(Default)]
    pub struct ChunkLogprobs {
        /// Per content token.
        opt content: Vec<Logprob> = "content",
        /// Per refusal token.
        opt refusal: Vec<Logprob> = "refusal",
    }
}

wire_struct! {
    /// What a chunk adds to a message.
    #[derive(Default)]
    pub struct Delta {
        /// `assistant`, on the first chunk (`""` from some compatible servers; SDK types
        /// allow `developer`, `system`, `user`, `tool` too).
        opt role: String = "role",
        /// A text fragment.
        opt content: String = "content",
        /// A refusal fragment.
        opt refusal: String = "refusal",
        /// Tool-call fragments, normally keyed by `index` (see [`ToolCallDelta`]).
        opt tool_calls: Vec<ToolCallDelta> = "tool_calls",
        /// Deprecated function-call fragment.
        opt function_call: FunctionCallDelta = "function_call",
        /// Reasoning fragment (DeepSeek and compatible servers).
        opt reasoning_content: String = "reasoning_content",
        /// Reasoning fragment (OpenRouter, vLLM and other compatible servers).
        opt reasoning: String = "reasoning",
        /// A piece of an audio answer (`modalities: ["audio"]`).
        opt audio: Box<DeltaAudio> = "audio",
        /// Gemini's OpenAI endpoint: the thought signature of a text answer, on a last
        /// chunk with no content (mozilla-ai/any-llm PR#1320).
        opt extra_content: ExtraContent = "extra_content",
    }
}

wire_struct! {
    /// A piece of a streamed audio answer: an id, base64 data or transcript text; the last
    /// piece holds only `expires_at`.
    #[derive(Default)]
    pub struct DeltaAudio {
        /// Audio id, to refer to it in a later turn.
        opt id: String = "id",
        /// Base64 audio bytes to append.
        opt data: String = "data",
        /// Transcript text to append.
        opt transcript: String = "transcript",
        /// Unix seconds after which the audio id is no longer valid.
        opt expires_at: u64 = "expires_at",
    }
}

wire_struct! {
    /// A fragment of a streamed tool call. OpenAI sends the first fragment of a call with
    /// `index`, `id`, `type` and the name, later ones with `index` and argument text only.
    ///
    /// Compatible servers differ: `index` left out (Gemini's OpenAI endpoint, which sends
    /// each call whole), a fresh `id` on every fragment, one `index` for two calls, `type`
    /// left out, the name only in a later fragment or `""` in continuations. Match a
    /// fragment to a call by non-empty `id`, else `index`, else the latest call.
    #[derive(Default)]
    pub struct ToolCallDelta {
        /// Which call (0-based, per choice) this fragment belongs to.
        opt index: u32 = "index",
        /// Call id (first fragment).
        opt id: String = "id",
        /// `function` (first fragment).
        opt kind: ToolCallType = "type",
        /// Name and argument fragment.
        opt function: FunctionCallDelta = "function",
        /// Gemini's OpenAI endpoint: the call's thought signature, to send back on the
        /// call (`{"google": {"thought_signature": …}}`; Vertex AI: `"vertex"`). It may
        /// come on a last fragment with no function.
        opt extra_content: ExtraContent = "extra_content",
    }
}

wire_struct! {
    /// The function half of a tool-call fragment (and of a deprecated `function_call`
    /// fragment).
    #[derive(Default)]
    pub struct FunctionCallDelta {
        /// Function name (first fragment; `""` or absent in later ones).
        opt name: String = "name",
        /// Argument text to append (JSON text, not at token or key boundaries).
        opt arguments: String = "arguments",
    }
}

wire_struct! {
    /// `extra_content` of a tool call from Gemini's OpenAI-compatible endpoints.
    #[derive(Default)]
    pub struct ExtraContent {
        /// Gemini API (`generativelanguage.googleapis.com/v1beta/openai`).
        opt google: ThoughtSignatureHolder = "google",
        /// Vertex AI's OpenAI-compatible endpoint.
        opt vertex: ThoughtSignatureHolder = "vertex",
    }
}

wire_struct! {
    /// `{"thought_signature": …}`.
    #[derive(Default)]
    pub struct ThoughtSignatureHolder {
        /// Opaque signature of the model's reasoning before the call, base64; send it
        /// back on the same call or the next request fails.
        opt thought_signature: String = "thought_signature",
    }
}

wire_struct! {
    /// An error body (`{"error":{…}}`), returned instead of a response or mid-stream.
    pub struct ErrorResponse {
        /// The error.
        req error: ErrorDetail = "error",
    }
}

chunk_or_error! {
    /// One event of a streamed response: a chunk, or an error object sent mid-stream. The
    /// first key only one of the two has decides (`error`, or a chunk field other than
    /// `usage`).
    ///
    /// The `data: [DONE]` terminator is not JSON; [`crate::stream`] handles it.
    #[allow(clippy::large_enum_variant)] // one per event; boxing would allocate per chunk
    pub enum StreamEvent, expecting = "a chat.completion.chunk object or an error object" {
        /// A `chat.completion.chunk`.
        Chunk(Chunk),
        /// `{"error": {…}}`.
        Error(ErrorResponse),
    }
    decide = |key| match key {
        "error" => Side::Error,
        "usage" => Side::Undecided,
        key if Chunk::FIELDS.contains(&key) => Side::Chunk,
        _ => Side::Undecided,
    }
}

/// Checks what the types leave open: every message role is one Chat Completions knows,
/// and every tool call names a function (nested or flat form).
pub fn validate_request(request: &Request) -> Result<(), Error> {
    for (i, message) in request.messages.iter().enumerate() {
        match message {
            Message::Other(map) => {
                return Err(unknown_role(map, &format!("/messages/{i}"), Message::KNOWN));
            }
            Message::Assistant(a) => {
                for (j, call) in a.tool_calls.iter().flatten().enumerate() {
                    if call.name().is_none() && call.custom.is_none() {
                        return Err(Error::new(
                            Category::Shape,
                            format!("/messages/{i}/tool_calls/{j}/function"),
                            "missing field (a tool call needs `function` or `name`)",
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
