//! AWS Bedrock Converse: the `POST /model/{modelId}/converse` request and response bodies,
//! the ConverseStream events (`/converse-stream`, once the AWS event-stream framing is
//! decoded) and the error body.
//!
//! Transcribed from the botocore `bedrock-runtime` service model (2023-09-30 API; botocore
//! 1.44.8, the model `fixtures/conformance/bedrock.*` is generated from) and the API
//! reference pages `API_runtime_{Converse,ConverseStream,ContentBlock,ContentBlockDelta,
//! ToolResultBlock,…}` (docs.aws.amazon.com/bedrock/latest/APIReference, read 2026); see
//! `../shared/docs/providers.md` §6 as vendored in `ARCHITECTURE.md`. Real payloads and
//! hand-made requests: `fixtures/bedrock/`.
//!
//! ## Style
//! * camelCase on the wire, snake_case in Rust.
//! * Most unions are **key-tagged**: an object with exactly one key naming the member
//!   (`{"text": "…"}`, `{"toolUse": {…}}`, `{"auto": {}}`). They are read by hand (the
//!   `key_union!` macro of this module): the first key picks the member, whose value is
//!   read straight from the input; an unknown key is kept whole in `Other`; a second key
//!   is an error that points at it.
//! * Floating-point settings are [`Number`]; token counts are `u64`.
//! * Blobs (`bytes`, `redactedContent`) are base64 text, as raw JSON carries them (the
//!   SDKs take raw bytes). There is no image or document URL: bytes or an S3 location.
//! * `toolUse.input` and tool-result `json` are [`Value`]s (any JSON; the API requires an
//!   object for `input`, which [`validate_request`] checks; `input` may also be JSON text
//!   a converter wrote, [`MaybeRaw`]).
//! * The model id travels in the URL path; the SDK input form carries it as `modelId`,
//!   read here when present.

use crate::common::MaybeRaw;
use crate::error::{Category, Error};
use crate::macros::Key;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};
use std::fmt;

pub use crate::common::{NoFields, Role};

/// A union written as an object with exactly one key, the member's name, whose value is
/// the member (`{"text": "…"}`, `{"toolUse": {…}}`).
///
/// ```text
/// key_union! {
///     /// A content block.
///     pub enum ContentBlock, what = "a content block" {
///         /// `{"text": "…"}`
///         Text(String) = "text",
///     }
/// }
/// ```
///
/// Reading takes the first key and reads its value from the live map into the member's
/// type (errors keep their path); an unknown key and its value are kept in `Other`. An
/// empty object is an error at the union; a second key is an error at that key.
macro_rules! key_union {
    (
        $(#[$meta:meta])*
        pub enum $name:ident, what = $what:literal {
            $(
                $(#[$vmeta:meta])*
                $variant:ident($vty:ty) = $key:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant($vty),
            )*
            /// A member this crate does not know: the one-key object, kept whole.
            Other(Map<String, Value>),
        }

        impl $name {
            /// The member keys this type models.
            pub const KNOWN: &'static [&'static str] = &[$($key),*];

            /// The key of this member as it is written.
            pub fn key(&self) -> &str {
                match self {
                    $( $name::$variant(_) => $key, )*
                    $name::Other(map) => map.keys().next().map(String::as_str).unwrap_or(""),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(
                        $name::$variant(inner) => {
                            let mut map = serializer.serialize_map(Some(1))?;
                            map.serialize_entry($key, inner)?;
                            map.end()
                        }
                    )*
                    $name::Other(map) => map.serialize(serializer),
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visit;
                impl<'de> Visitor<'de> for Visit {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "{} (an object with one key: {})", $what, $name::KNOWN.join(", "))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let Some(key) = map.next_key::<Key<'de>>()? else {
                            return Err(de::Error::custom(format_args!(
                                "empty object: {} needs one key ({})",
                                $what,
                                $name::KNOWN.join(", ")
                            )));
                        };
                        let member = match key.as_str() {
                            $( $key => $name::$variant(map.next_value()?), )*
                            _ => {
                                let value = crate::macros::next_value(&mut map)?;
                                let mut whole = Map::new();
                                whole.insert(key.into_string(), value);
                                $name::Other(whole)
                            }
                        };
                        match map.next_key::<Key<'de>>()? {
                            None => Ok(member),
                            Some(_) => Err(second_key(&mut map, member.key(), $what)),
                        }
                    }
                }
                deserializer.deserialize_map(Visit)
            }
        }
    };
}

/// The error for a second key in a one-key union, raised while reading that key's value
/// so that its pointer names the key.
fn second_key<'de, A: MapAccess<'de>>(map: &mut A, first: &str, what: &'static str) -> A::Error {
    struct Refuse<'a> {
        first: &'a str,
        what: &'static str,
    }
    impl<'de> DeserializeSeed<'de> for Refuse<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
            Err(de::Error::custom(format_args!(
                "unexpected second key (after `{}`): {} holds exactly one member",
                self.first, self.what
            )))
        }
    }
    match map.next_value_seed(Refuse { first, what }) {
        Err(e) => e,
        Ok(()) => de::Error::custom(format_args!("{what} holds exactly one key")),
    }
}

// ---------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------

wire_struct! {
    /// A Converse (or ConverseStream) request body.
    #[derive(Default)]
    pub struct Request {
        /// Model id, inference-profile or prompt ARN. In the URL path on the wire
        /// (`/model/{modelId}/converse`); in the body only in the SDK input form.
        opt model_id: String = "modelId",
        /// The conversation; it starts with a `user` message. Absent when a managed
        /// prompt (`modelId` is a prompt ARN) supplies it.
        opt messages: Vec<Message> = "messages",
        /// System prompt: text, cache points and guard content.
        opt system: Vec<SystemContentBlock> = "system",
        /// Common inference settings.
        opt inference_config: InferenceConfig = "inferenceConfig",
        /// Tools and tool choice. Required whenever `messages` hold `toolUse` or
        /// `toolResult` blocks, even with no tool to offer.
        opt tool_config: ToolConfig = "toolConfig",
        /// Guardrail to apply.
        opt guardrail_config: GuardrailConfig = "guardrailConfig",
        /// Model-native request fields (for Claude: `thinking`, `top_k`, …).
        opt additional_model_request_fields: Value = "additionalModelRequestFields",
        /// JSON pointers of model-native response fields to return in
        /// `additionalModelResponseFields`.
        opt additional_model_response_field_paths: Vec<String> = "additionalModelResponseFieldPaths",
        /// Values of a managed prompt's variables: name → `{"text": …}`.
        opt prompt_variables: Map<String, Value> = "promptVariables",
        /// Free-form string → string metadata for invocation logs.
        opt request_metadata: Map<String, Value> = "requestMetadata",
        /// Latency-optimized inference.
        opt performance_config: PerformanceConfig = "performanceConfig",
        /// Service tier.
        opt service_tier: ServiceTier = "serviceTier",
        /// Structured output (`textFormat` with a JSON schema given as text) and effort.
        opt output_config: Value = "outputConfig",
    }
}

wire_struct! {
    /// One message of the conversation (also the response's `output.message`).
    pub struct Message {
        /// `user` or `assistant`.
        req role: Role = "role",
        /// The content blocks.
        req content: Vec<ContentBlock> = "content",
    }
}

key_union! {
    /// A content block of a message.
    pub enum ContentBlock, what = "a content block" {
        /// `{"text": "…"}` (blank text is rejected).
        Text(String) = "text",
        /// `{"image": {"format", "source"}}`.
        Image(ImageBlock) = "image",
        /// `{"document": {"format", "name", "source"}}`.
        Document(DocumentBlock) = "document",
        /// `{"video": {"format", "source"}}`.
        Video(VideoBlock) = "video",
        /// `{"audio": {"format", "source"}}`.
        Audio(AudioBlock) = "audio",
        /// `{"toolUse": {"toolUseId", "name", "input"}}`: a tool call by the model.
        ToolUse(ToolUseBlock) = "toolUse",
        /// `{"toolResult": {"toolUseId", "content", "status"}}`: the result of a call, in
        /// the next user message.
        ToolResult(ToolResultBlock) = "toolResult",
        /// `{"reasoningContent": {"reasoningText": {…}} | {"redactedContent": "…"}}`.
        ReasoningContent(ReasoningContent) = "reasoningContent",
        /// `{"cachePoint": {"type": "default"}}`: a prompt-cache breakpoint.
        CachePoint(CachePoint) = "cachePoint",
        /// `{"guardContent": {"text": {…}} | {"image": {…}}}`: content a guardrail checks.
        GuardContent(Value) = "guardContent",
        /// `{"citationsContent": {"content", "citations"}}`: generated text with citations.
        CitationsContent(Value) = "citationsContent",
        /// `{"searchResult": {"source", "title", "content"}}`.
        SearchResult(Value) = "searchResult",
    }
}

key_union! {
    /// A block of the top-level `system` prompt.
    pub enum SystemContentBlock, what = "a system content block" {
        /// `{"text": "…"}`
        Text(String) = "text",
        /// `{"cachePoint": {"type": "default"}}`
        CachePoint(CachePoint) = "cachePoint",
        /// `{"guardContent": {…}}`
        GuardContent(Value) = "guardContent",
    }
}

open_enum! {
    /// An image format.
    pub enum ImageFormat {
        /// PNG.
        Png = "png",
        /// JPEG.
        Jpeg = "jpeg",
        /// GIF.
        Gif = "gif",
        /// WebP.
        Webp = "webp",
    }
}

wire_struct! {
    /// An image.
    pub struct ImageBlock {
        /// `png`, `jpeg`, `gif` or `webp`.
        req format: ImageFormat = "format",
        /// Base64 bytes or an S3 location (no URLs).
        req source: Source = "source",
        /// Set on generated images that failed (`{"message": …}`).
        opt error: Value = "error",
    }
}

open_enum! {
    /// A document format.
    pub enum DocumentFormat {
        /// PDF.
        Pdf = "pdf",
        /// CSV.
        Csv = "csv",
        /// Word 97–2003.
        Doc = "doc",
        /// Word.
        Docx = "docx",
        /// Excel 97–2003.
        Xls = "xls",
        /// Excel.
        Xlsx = "xlsx",
        /// HTML.
        Html = "html",
        /// Plain text.
        Txt = "txt",
        /// Markdown.
        Md = "md",
    }
}

wire_struct! {
    /// A document.
    pub struct DocumentBlock {
        /// The file format (optional for `text`/`content` sources).
        opt format: DocumentFormat = "format",
        /// Document name, shown to the model: alphanumerics, single spaces, hyphens,
        /// parentheses and square brackets only.
        req name: String = "name",
        /// Base64 bytes, an S3 location, plain `text`, or `content` chunks.
        req source: Source = "source",
        /// Context about the document, for citations.
        opt context: String = "context",
        /// `{"enabled": true}` to have the model cite the document.
        opt citations: CitationsConfig = "citations",
    }
}

wire_struct! {
    /// Citation settings of a document.
    #[derive(Default)]
    pub struct CitationsConfig {
        /// Whether the model cites this document.
        req enabled: bool = "enabled",
    }
}

open_enum! {
    /// A video format.
    pub enum VideoFormat {
        /// Matroska.
        Mkv = "mkv",
        /// QuickTime.
        Mov = "mov",
        /// MPEG-4.
        Mp4 = "mp4",
        /// WebM.
        Webm = "webm",
        /// Flash video.
        Flv = "flv",
        /// MPEG.
        Mpeg = "mpeg",
        /// MPEG.
        Mpg = "mpg",
        /// Windows Media.
        Wmv = "wmv",
        /// 3GPP.
        ThreeGp = "three_gp",
    }
}

wire_struct! {
    /// A video.
    pub struct VideoBlock {
        /// The container format.
        req format: VideoFormat = "format",
        /// Base64 bytes or an S3 location.
        req source: Source = "source",
    }
}

open_enum! {
    /// An audio format.
    pub enum AudioFormat {
        /// MP3.
        Mp3 = "mp3",
        /// Opus.
        Opus = "opus",
        /// WAV.
        Wav = "wav",
        /// AAC.
        Aac = "aac",
        /// FLAC.
        Flac = "flac",
        /// MPEG-4 audio.
        Mp4 = "mp4",
        /// Ogg.
        Ogg = "ogg",
        /// Matroska.
        Mkv = "mkv",
        /// Matroska audio.
        Mka = "mka",
        /// AAC (`x-aac`).
        XAac = "x-aac",
        /// M4A.
        M4a = "m4a",
        /// MPEG audio.
        Mpeg = "mpeg",
        /// MPEG audio.
        Mpga = "mpga",
        /// Raw PCM.
        Pcm = "pcm",
        /// WebM audio.
        Webm = "webm",
    }
}

wire_struct! {
    /// An audio clip.
    pub struct AudioBlock {
        /// The format.
        req format: AudioFormat = "format",
        /// Base64 bytes or an S3 location.
        req source: Source = "source",
        /// Set on generated audio that failed (`{"message": …}`).
        opt error: Value = "error",
    }
}

key_union! {
    /// Where the bytes of an image, document, video or audio block come from.
    pub enum Source, what = "a source" {
        /// `{"bytes": "<base64>"}`
        Bytes(String) = "bytes",
        /// `{"s3Location": {"uri": "s3://…"}}`
        S3Location(S3Location) = "s3Location",
        /// `{"text": "…"}` (documents only).
        Text(String) = "text",
        /// `{"content": [{"text": "…"}, …]}` (documents only): chunks cited separately.
        Content(Vec<DocumentContentBlock>) = "content",
    }
}

wire_struct! {
    /// An object in S3.
    #[derive(Default)]
    pub struct S3Location {
        /// `s3://bucket/key`.
        req uri: String = "uri",
        /// Account id of the bucket owner, when it is not the caller.
        opt bucket_owner: String = "bucketOwner",
    }
}

key_union! {
    /// A chunk of a document's `content` source.
    pub enum DocumentContentBlock, what = "a document content block" {
        /// `{"text": "…"}`
        Text(String) = "text",
    }
}

open_enum! {
    /// `toolUse.type`: marks a call the server ran itself.
    pub enum ToolUseType {
        /// A server-side tool call.
        ServerToolUse = "server_tool_use",
    }
}

wire_struct! {
    /// A tool call by the model.
    #[derive(Default)]
    pub struct ToolUseBlock {
        /// Call id (`tooluse_…`, or `toolu_…` from Claude), 1–64 of `[a-zA-Z0-9_-]`;
        /// answered by a `toolResult` with the same `toolUseId`.
        req tool_use_id: String = "toolUseId",
        /// Tool name.
        req name: String = "name",
        /// The arguments: a JSON object (not JSON text).
        req input: MaybeRaw<Value> = "input",
        /// `server_tool_use` for server-side tools.
        opt kind: ToolUseType = "type",
    }
}

open_enum! {
    /// Whether a tool call succeeded (honoured by Claude and Nova models).
    pub enum ToolResultStatus {
        /// It worked.
        Success = "success",
        /// It failed; `content` says why and must not be empty.
        Error = "error",
    }
}

wire_struct! {
    /// The result of a tool call, sent in the user message after the call.
    #[derive(Default)]
    pub struct ToolResultBlock {
        /// Id of the call this answers.
        req tool_use_id: String = "toolUseId",
        /// The result: text, JSON, images, documents, videos.
        req content: Vec<ToolResultContentBlock> = "content",
        /// `success` or `error`.
        opt status: ToolResultStatus = "status",
        /// Result type of server-side tools.
        opt kind: String = "type",
    }
}

key_union! {
    /// A block of a tool result's content.
    pub enum ToolResultContentBlock, what = "a tool result content block" {
        /// `{"json": …}`: any JSON value.
        Json(Value) = "json",
        /// `{"text": "…"}`
        Text(String) = "text",
        /// `{"image": {…}}`
        Image(ImageBlock) = "image",
        /// `{"document": {…}}`
        Document(DocumentBlock) = "document",
        /// `{"video": {…}}`
        Video(VideoBlock) = "video",
        /// `{"searchResult": {…}}`
        SearchResult(Value) = "searchResult",
    }
}

key_union! {
    /// Reasoning the model did before answering; replay it unchanged (with its
    /// signature) in later turns of a tool-use conversation.
    pub enum ReasoningContent, what = "a reasoning content block" {
        /// `{"reasoningText": {"text", "signature"}}`
        ReasoningText(ReasoningText) = "reasoningText",
        /// `{"redactedContent": "<base64>"}`: reasoning the provider encrypted.
        RedactedContent(String) = "redactedContent",
    }
}

wire_struct! {
    /// Reasoning text and the signature that lets it be replayed.
    #[derive(Default)]
    pub struct ReasoningText {
        /// The reasoning.
        req text: String = "text",
        /// Opaque signature over the reasoning (base64).
        opt signature: String = "signature",
    }
}

open_enum! {
    /// A cache point's type.
    #[derive(Default)]
    pub enum CachePointType {
        /// The one type there is.
        #[default]
        Default = "default",
    }
}

wire_struct! {
    /// A prompt-cache breakpoint: everything before it is cached.
    #[derive(Default)]
    pub struct CachePoint {
        /// `default`.
        req kind: CachePointType = "type",
        /// Time to live: `5m` or `1h`.
        opt ttl: String = "ttl",
    }
}

wire_struct! {
    /// Common inference settings.
    #[derive(Default)]
    pub struct InferenceConfig {
        /// Output-token limit.
        opt max_tokens: u64 = "maxTokens",
        /// Sampling temperature (0–1).
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass (0–1).
        opt top_p: Number = "topP",
        /// Up to 4 stop sequences.
        opt stop_sequences: Vec<String> = "stopSequences",
    }
}

wire_struct! {
    /// Tools the model may call.
    #[derive(Default)]
    pub struct ToolConfig {
        /// Tool specs, cache points and system tools.
        req tools: Vec<Tool> = "tools",
        /// Whether and which tool to call.
        opt tool_choice: ToolChoice = "toolChoice",
    }
}

key_union! {
    /// An entry of `toolConfig.tools`.
    pub enum Tool, what = "a tool" {
        /// `{"toolSpec": {"name", "description", "inputSchema"}}`
        ToolSpec(ToolSpec) = "toolSpec",
        /// `{"cachePoint": {"type": "default"}}`: caches the tools before it.
        CachePoint(CachePoint) = "cachePoint",
        /// `{"systemTool": {"name"}}`: a tool the service provides.
        SystemTool(SystemTool) = "systemTool",
    }
}

wire_struct! {
    /// A tool definition.
    pub struct ToolSpec {
        /// Name: 1–64 of `[a-zA-Z0-9_-]`.
        req name: String = "name",
        /// What the tool does.
        opt description: String = "description",
        /// JSON Schema of the input.
        req input_schema: InputSchema = "inputSchema",
        /// Constrained decoding of the input to the schema.
        opt strict: bool = "strict",
    }
}

key_union! {
    /// A tool's input schema.
    pub enum InputSchema, what = "an input schema" {
        /// `{"json": {…JSON Schema…}}`
        Json(Value) = "json",
    }
}

wire_struct! {
    /// A service-provided tool.
    #[derive(Default)]
    pub struct SystemTool {
        /// Its name.
        req name: String = "name",
    }
}

key_union! {
    /// Whether and which tool the model must call. There is no "none": leave the tools
    /// out instead.
    pub enum ToolChoice, what = "a tool choice" {
        /// `{"auto": {}}`: the model decides.
        Auto(NoFields) = "auto",
        /// `{"any": {}}`: call at least one tool.
        Any(NoFields) = "any",
        /// `{"tool": {"name"}}`: call this tool.
        Tool(SpecificToolChoice) = "tool",
    }
}

wire_struct! {
    /// `{"name": …}`: the tool to call.
    #[derive(Default)]
    pub struct SpecificToolChoice {
        /// A tool name.
        req name: String = "name",
    }
}

wire_struct! {
    /// A guardrail to apply.
    #[derive(Default)]
    pub struct GuardrailConfig {
        /// Guardrail id or ARN.
        opt guardrail_identifier: String = "guardrailIdentifier",
        /// Version (`DRAFT` or a number).
        opt guardrail_version: String = "guardrailVersion",
        /// `enabled`, `disabled` or `enabled_full`.
        opt trace: String = "trace",
        /// ConverseStream: `sync` or `async`.
        opt stream_processing_mode: String = "streamProcessingMode",
    }
}

open_enum! {
    /// `performanceConfig.latency`.
    pub enum Latency {
        /// Standard latency.
        Standard = "standard",
        /// Latency-optimized inference.
        Optimized = "optimized",
    }
}

wire_struct! {
    /// Performance settings (request and response).
    #[derive(Default)]
    pub struct PerformanceConfig {
        /// `standard` or `optimized`.
        opt latency: Latency = "latency",
    }
}

open_enum! {
    /// A service tier.
    pub enum ServiceTierType {
        /// Priority.
        Priority = "priority",
        /// Default.
        Default = "default",
        /// Flex.
        Flex = "flex",
        /// Reserved capacity.
        Reserved = "reserved",
    }
}

wire_struct! {
    /// `serviceTier` (request and response).
    pub struct ServiceTier {
        /// `priority`, `default`, `flex` or `reserved`.
        req kind: ServiceTierType = "type",
    }
}

// ---------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------

wire_struct! {
    /// A Converse response body.
    pub struct Response {
        /// The generated message.
        req output: Output = "output",
        /// Why generation stopped.
        req stop_reason: StopReason = "stopReason",
        /// Token usage.
        opt usage: Usage = "usage",
        /// Latency.
        opt metrics: Metrics = "metrics",
        /// The model-native fields asked for with `additionalModelResponseFieldPaths`.
        opt additional_model_response_fields: Value = "additionalModelResponseFields",
        /// Guardrail and prompt-router trace.
        opt trace: Value = "trace",
        /// Performance settings used.
        opt performance_config: PerformanceConfig = "performanceConfig",
        /// Service tier used.
        opt service_tier: ServiceTier = "serviceTier",
    }
}

impl Response {
    /// The generated message, if `output` holds one.
    pub fn message(&self) -> Option<&Message> {
        match &self.output {
            Output::Message(m) => Some(m),
            _ => None,
        }
    }
}

key_union! {
    /// `output` of a response.
    pub enum Output, what = "an output" {
        /// `{"message": {"role": "assistant", "content": […]}}`
        Message(Message) = "message",
    }
}

open_enum! {
    /// Why generation stopped.
    pub enum StopReason {
        /// Natural end of the turn.
        EndTurn = "end_turn",
        /// The model called tools.
        ToolUse = "tool_use",
        /// `maxTokens` reached.
        MaxTokens = "max_tokens",
        /// A stop sequence matched.
        StopSequence = "stop_sequence",
        /// A guardrail intervened.
        GuardrailIntervened = "guardrail_intervened",
        /// Content was filtered.
        ContentFiltered = "content_filtered",
        /// The model's output could not be parsed.
        MalformedModelOutput = "malformed_model_output",
        /// The model's tool call could not be parsed.
        MalformedToolUse = "malformed_tool_use",
        /// The context window is full.
        ModelContextWindowExceeded = "model_context_window_exceeded",
    }
}

wire_struct! {
    /// Token usage.
    #[derive(Default)]
    pub struct Usage {
        /// Input tokens not read from or written to the cache (the prompt-caching guide:
        /// total input = `inputTokens + cacheReadInputTokens + cacheWriteInputTokens`).
        req input_tokens: u64 = "inputTokens",
        /// Output tokens.
        req output_tokens: u64 = "outputTokens",
        /// Sum of input (cache reads and writes included) and output tokens.
        req total_tokens: u64 = "totalTokens",
        /// Input tokens read from the prompt cache.
        opt cache_read_input_tokens: u64 = "cacheReadInputTokens",
        /// Input tokens written to the prompt cache.
        opt cache_write_input_tokens: u64 = "cacheWriteInputTokens",
        /// Cache writes per time to live.
        opt cache_details: Vec<CacheDetail> = "cacheDetails",
    }
}

wire_struct! {
    /// Cache writes of one time to live.
    #[derive(Default)]
    pub struct CacheDetail {
        /// Input tokens written to the cache with this time to live.
        opt input_tokens: u64 = "inputTokens",
        /// The time to live: `5m`, `1h`.
        opt ttl: String = "ttl",
    }
}

wire_struct! {
    /// Latency of the call.
    #[derive(Default)]
    pub struct Metrics {
        /// Milliseconds.
        req latency_ms: u64 = "latencyMs",
    }
}

// ---------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------

key_union! {
    /// One ConverseStream event, as an AWS event-stream message decodes to: an object
    /// whose one key is the event type (`:event-type`, or `:exception-type` for
    /// exceptions) and whose value is the payload.
    ///
    /// Order: `messageStart`, then per block an optional `contentBlockStart` (tool use,
    /// tool result, image; text and reasoning blocks get none: key blocks by
    /// `contentBlockIndex`), `contentBlockDelta`s and `contentBlockStop`, then
    /// `messageStop` and `metadata` (usually in that order; a capture has them swapped).
    /// An exception (`:message-type` `exception`) may come instead of any event and ends
    /// the stream; a cut-off stream has no `messageStop`.
    pub enum StreamEvent, what = "a stream event" {
        /// `{"messageStart": {"role": "assistant"}}`
        MessageStart(MessageStartEvent) = "messageStart",
        /// `{"contentBlockStart": {"contentBlockIndex", "start"}}`
        ContentBlockStart(ContentBlockStartEvent) = "contentBlockStart",
        /// `{"contentBlockDelta": {"contentBlockIndex", "delta"}}`
        ContentBlockDelta(ContentBlockDeltaEvent) = "contentBlockDelta",
        /// `{"contentBlockStop": {"contentBlockIndex"}}`
        ContentBlockStop(ContentBlockStopEvent) = "contentBlockStop",
        /// `{"messageStop": {"stopReason", "additionalModelResponseFields"}}`
        MessageStop(MessageStopEvent) = "messageStop",
        /// `{"metadata": {"usage", "metrics", "trace"}}`: the last event (boxed: it is
        /// several times the size of the others and comes once per stream).
        Metadata(Box<MetadataEvent>) = "metadata",
        /// `{"internalServerException": {"message"}}`
        InternalServerException(ExceptionEvent) = "internalServerException",
        /// `{"modelStreamErrorException": {"message", "originalStatusCode", "originalMessage"}}`
        ModelStreamErrorException(ExceptionEvent) = "modelStreamErrorException",
        /// `{"validationException": {"message"}}`
        ValidationException(ExceptionEvent) = "validationException",
        /// `{"throttlingException": {"message"}}`
        ThrottlingException(ExceptionEvent) = "throttlingException",
        /// `{"serviceUnavailableException": {"message"}}`
        ServiceUnavailableException(ExceptionEvent) = "serviceUnavailableException",
    }
}

wire_struct! {
    /// The message starts.
    pub struct MessageStartEvent {
        /// `assistant`.
        req role: Role = "role",
    }
}

wire_struct! {
    /// A content block starts (sent for tool-use blocks; text and reasoning blocks may
    /// start with their first delta).
    pub struct ContentBlockStartEvent {
        /// 0-based index of the block in the message.
        req content_block_index: u32 = "contentBlockIndex",
        /// What starts.
        req start: ContentBlockStart = "start",
    }
}

key_union! {
    /// The start of a content block.
    pub enum ContentBlockStart, what = "a content block start" {
        /// `{"toolUse": {"toolUseId", "name"}}`
        ToolUse(ToolUseStart) = "toolUse",
        /// `{"toolResult": {"toolUseId", "status"}}` (server-side tools).
        ToolResult(ToolResultStart) = "toolResult",
        /// `{"image": {"format"}}`: a generated image starts; its bytes follow.
        Image(ImageStart) = "image",
    }
}

wire_struct! {
    /// A generated image starts.
    pub struct ImageStart {
        /// `png`, `jpeg`, `gif` or `webp`.
        req format: ImageFormat = "format",
    }
}

wire_struct! {
    /// A tool call starts; its input follows as text fragments.
    #[derive(Default)]
    pub struct ToolUseStart {
        /// Call id.
        req tool_use_id: String = "toolUseId",
        /// Tool name.
        req name: String = "name",
        /// `server_tool_use` for server-side tools.
        opt kind: ToolUseType = "type",
    }
}

wire_struct! {
    /// A server-side tool's result starts.
    #[derive(Default)]
    pub struct ToolResultStart {
        /// Id of the call.
        req tool_use_id: String = "toolUseId",
        /// Result type.
        opt kind: String = "type",
        /// `success` or `error`.
        opt status: ToolResultStatus = "status",
    }
}

wire_struct! {
    /// A fragment of a content block.
    pub struct ContentBlockDeltaEvent {
        /// 0-based index of the block in the message.
        req content_block_index: u32 = "contentBlockIndex",
        /// The fragment.
        req delta: ContentBlockDelta = "delta",
    }
}

key_union! {
    /// A fragment of a content block.
    pub enum ContentBlockDelta, what = "a content block delta" {
        /// `{"text": "…"}`: text to append.
        Text(String) = "text",
        /// `{"toolUse": {"input": "…"}}`: tool-input JSON text to append.
        ToolUse(ToolUseDelta) = "toolUse",
        /// `{"reasoningContent": {"text"} | {"signature"} | {"redactedContent"}}`
        ReasoningContent(ReasoningDelta) = "reasoningContent",
        /// `{"citation": {…}}`: a citation of the text being generated.
        Citation(CitationDelta) = "citation",
        /// `{"toolResult": [{"text"} | {"json"}, …]}`: a server-side tool's result.
        ToolResult(Vec<ToolResultDelta>) = "toolResult",
        /// `{"image": {"source"} | {"error"}}`: a generated image.
        Image(ImageDelta) = "image",
    }
}

wire_struct! {
    /// A citation streamed with the text it backs.
    #[derive(Default)]
    pub struct CitationDelta {
        /// Title of the cited source.
        opt title: String = "title",
        /// The cited source (a document name, a URL).
        opt source: String = "source",
        /// The cited text: `[{"text": …}]`.
        opt source_content: Vec<Value> = "sourceContent",
        /// Where in the source: `{"documentChar"|"documentPage"|"documentChunk"|
        /// "searchResultLocation"|"web": {…}}`.
        opt location: Value = "location",
    }
}

wire_struct! {
    /// A piece of a server-side tool's result.
    #[derive(Default)]
    pub struct ToolResultDelta {
        /// Text.
        opt text: String = "text",
        /// A JSON value.
        opt json: Value = "json",
    }
}

wire_struct! {
    /// A generated image, or why it failed.
    #[derive(Default)]
    pub struct ImageDelta {
        /// The image: base64 bytes or an S3 location.
        opt source: Source = "source",
        /// `{"message": …}` when generation failed.
        opt error: Value = "error",
    }
}

wire_struct! {
    /// A fragment of a tool call's input.
    #[derive(Default)]
    pub struct ToolUseDelta {
        /// JSON text to append; the whole is a JSON object once the block stops.
        req input: String = "input",
    }
}

key_union! {
    /// A fragment of a reasoning block.
    pub enum ReasoningDelta, what = "a reasoning delta" {
        /// `{"text": "…"}`: reasoning text to append.
        Text(String) = "text",
        /// `{"signature": "…"}`: the block's signature (sent once, at the end).
        Signature(String) = "signature",
        /// `{"redactedContent": "<base64>"}`: encrypted reasoning.
        RedactedContent(String) = "redactedContent",
    }
}

wire_struct! {
    /// A content block ends.
    #[derive(Default)]
    pub struct ContentBlockStopEvent {
        /// 0-based index of the block in the message.
        req content_block_index: u32 = "contentBlockIndex",
    }
}

wire_struct! {
    /// The message ends.
    pub struct MessageStopEvent {
        /// Why generation stopped.
        req stop_reason: StopReason = "stopReason",
        /// Model-native response fields.
        opt additional_model_response_fields: Value = "additionalModelResponseFields",
    }
}

wire_struct! {
    /// Usage and metrics, after `messageStop`.
    #[derive(Default)]
    pub struct MetadataEvent {
        /// Token usage of the whole call.
        opt usage: Usage = "usage",
        /// Latency.
        opt metrics: Metrics = "metrics",
        /// Guardrail and prompt-router trace.
        opt trace: Value = "trace",
        /// Performance settings used.
        opt performance_config: PerformanceConfig = "performanceConfig",
        /// Service tier used.
        opt service_tier: ServiceTier = "serviceTier",
    }
}

wire_struct! {
    /// An exception sent in the stream.
    #[derive(Default)]
    pub struct ExceptionEvent {
        /// What went wrong.
        opt message: String = "message",
        /// `modelStreamErrorException`: the model's HTTP status.
        opt original_status_code: u16 = "originalStatusCode",
        /// `modelStreamErrorException`: the model's error message.
        opt original_message: String = "originalMessage",
    }
}

// ---------------------------------------------------------------------------------------
// Errors and validation
// ---------------------------------------------------------------------------------------

wire_struct! {
    /// An error body: `{"message": "…"}`. The error type (`ValidationException`, …) is in
    /// the `x-amzn-ErrorType` header, not the body; some front ends add `__type`.
    #[derive(Default)]
    pub struct ErrorResponse {
        /// Human-readable message.
        opt message: String = "message",
        /// Error type, when the body carries it.
        opt kind: String = "__type",
    }
}

/// Checks what the types leave open: every message role is one Converse knows; a
/// `toolResult` with status `error` has content; `toolUse.input` and tool input schemas
/// are JSON objects; `toolConfig` is present when messages hold tool blocks.
pub fn validate_request(request: &Request) -> Result<(), Error> {
    let mut tool_blocks = false;
    for (i, message) in request.messages.iter().flatten().enumerate() {
        if let Role::Other(role) = &message.role {
            return Err(crate::common::unknown_role_named(
                &format!("/messages/{i}"),
                &Value::from(role.as_str()).to_string(),
                Role::KNOWN,
            ));
        }
        for (j, block) in message.content.iter().enumerate() {
            match block {
                ContentBlock::ToolUse(call) => {
                    tool_blocks = true;
                    if !call.input.is_object() {
                        return Err(Error::new(
                            Category::Shape,
                            format!("/messages/{i}/content/{j}/toolUse/input"),
                            "expected a JSON object (the tool arguments)",
                        ));
                    }
                }
                ContentBlock::ToolResult(result) => {
                    tool_blocks = true;
                    if result.status == Some(ToolResultStatus::Error) && result.content.is_empty() {
                        return Err(Error::new(
                            Category::Shape,
                            format!("/messages/{i}/content/{j}/toolResult/content"),
                            "empty content: a tool result with status \"error\" needs at least one block",
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    match &request.tool_config {
        None if tool_blocks => Err(Error::new(
            Category::Shape,
            "/toolConfig",
            "missing field (required when messages hold toolUse or toolResult blocks)",
        )),
        None => Ok(()),
        Some(config) => {
            for (k, tool) in config.tools.iter().enumerate() {
                if let Tool::ToolSpec(spec) = tool {
                    if let InputSchema::Json(schema) = &spec.input_schema {
                        if !schema.is_object() {
                            return Err(Error::new(
                                Category::Shape,
                                format!("/toolConfig/tools/{k}/toolSpec/inputSchema/json"),
                                "expected a JSON object (a JSON Schema)",
                            ));
                        }
                    }
                }
            }
            Ok(())
        }
    }
}
