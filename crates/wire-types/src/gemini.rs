//! Google Gemini `generateContent` (v1beta REST, camelCase): the
//! `POST /v1beta/models/{model}:generateContent` request and response bodies, the chunks of
//! `:streamGenerateContent?alt=sse`, and the `google.rpc` error body.
//!
//! Transcribed from the `python-genai` SDK types (`google/genai/types.py` and the
//! `*_to_mldev` converters in `models.py`, commit 66807187, 2026-08-21; the JSON Schemas
//! generated from google-genai 3.6.1 in `fixtures/conformance/gemini.*.schema.json`) and
//! ai.google.dev/gemini-api/docs (function calling, thought signatures); see
//! `../shared/docs/providers.md` §4 as vendored in `ARCHITECTURE.md`. Real payloads:
//! `fixtures/gemini/`.
//!
//! Also read here: Vertex AI's `generateContent` responses, which add `createTime`,
//! `usageMetadata.trafficType` and, with `streamFunctionCallArguments`, function calls
//! streamed as `partialArgs` fragments.
//!
//! ## Style
//! * A [`Part`] is one struct with every data key optional (a proto `oneof`, with metadata
//!   keys such as `thoughtSignature` beside the data key), not an enum;
//!   [`validate_request`] checks that a request part sets exactly one data key.
//! * The model's turn is role `model`; function results go back in a `user` content. There
//!   is no system role: the system prompt is [`Request::system_instruction`].
//! * Function-call `args` and function-response `response` are JSON objects (proto
//!   `Struct`), kept as [`Map`] in arrival order (`args` may also be JSON text a
//!   converter wrote, [`MaybeRaw`]). Calls and results are matched by name and position;
//!   `id` is optional.
//! * Bytes (`inlineData.data`, `thoughtSignature`) are base64 strings, kept as sent.
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.

use crate::common::MaybeRaw;
use crate::error::{Category, Error};
use serde_json::{Map, Number, Value};

wire_struct! {
    /// A `generateContent` / `streamGenerateContent` request body (the model is in the URL).
    #[derive(Default)]
    pub struct Request {
        /// The conversation so far: `user` and `model` turns, function results in `user`.
        req contents: Vec<Content> = "contents",
        /// The system prompt: a content of text parts (its role is ignored).
        opt system_instruction: Content = "systemInstruction",
        /// Tools the model may use: function declarations and built-in tools.
        opt tools: Vec<Tool> = "tools",
        /// How the model may call functions.
        opt tool_config: ToolConfig = "toolConfig",
        /// Sampling, output and thinking settings.
        opt generation_config: GenerationConfig = "generationConfig",
        /// Per-category safety thresholds.
        opt safety_settings: Vec<SafetySetting> = "safetySettings",
        /// A context cache to prefix the prompt with: `cachedContents/…`.
        opt cached_content: String = "cachedContent",
        /// Service tier.
        opt service_tier: String = "serviceTier",
    }
}

open_enum! {
    /// Who produced a [`Content`].
    pub enum Role {
        /// The user, and function results sent back to the model.
        User = "user",
        /// The model.
        Model = "model",
    }
}

wire_struct! {
    /// One turn of the conversation (or the system instruction, or a candidate's output).
    #[derive(Default)]
    pub struct Content {
        /// `user` or `model`; absent means `user` in a request.
        opt role: Role = "role",
        /// The parts, in order. Required in a request; a response candidate that produced
        /// nothing (say, its token budget went to thinking) has a content without parts.
        opt parts: Vec<Part> = "parts",
    }
}

wire_struct! {
    /// A part of a content: exactly one data key (`text`, `inlineData`, `fileData`,
    /// `functionCall`, `functionResponse`, `executableCode`, `codeExecutionResult`,
    /// `toolCall`, `toolResponse`; see [`Part::DATA_KEYS`]) plus optional metadata
    /// (`thought`, `thoughtSignature`, `videoMetadata`, `mediaResolution`, `partMetadata`).
    ///
    /// Streamed responses may carry a part whose `text` is empty and which only holds a
    /// `thoughtSignature`: it is kept like any other.
    ///
    /// The larger members of the `oneof` are boxed: a part holds one of them, and a part
    /// that held them all inline would be over a kilobyte, moved and freed whole however
    /// little it carries.
    #[derive(Default)]
    pub struct Part {
        /// Text; with `thought: true`, a thought summary.
        opt text: String = "text",
        /// Inline bytes: an image, PDF, audio or video, base64.
        opt inline_data: Box<Blob> = "inlineData",
        /// A file by URI (Files API, Cloud Storage, YouTube).
        opt file_data: Box<FileData> = "fileData",
        /// A function call the model made.
        opt function_call: Box<FunctionCall> = "functionCall",
        /// The result of a function call, sent back in a `user` content.
        opt function_response: Box<FunctionResponse> = "functionResponse",
        /// Code the model wrote for the code-execution tool.
        opt executable_code: Box<ExecutableCode> = "executableCode",
        /// The result of running [`Part::executable_code`].
        opt code_execution_result: Box<CodeExecutionResult> = "codeExecutionResult",
        /// A server-side built-in tool call (`{"id","toolType","args"}`), to echo back.
        opt tool_call: Box<Value> = "toolCall",
        /// The result of a server-side tool call (`{"id","toolType","response"}`).
        opt tool_response: Box<Value> = "toolResponse",
        /// Whether this part is a thought (summary) rather than answer text.
        opt thought: bool = "thought",
        /// Opaque signature of the model's reasoning, base64; send it back on the same part.
        opt thought_signature: String = "thoughtSignature",
        /// Clip interval and frame rate for a video in `inlineData` or `fileData`.
        opt video_metadata: Box<Value> = "videoMetadata",
        /// Per-part media resolution (`{"level": "MEDIA_RESOLUTION_HIGH"}`).
        opt media_resolution: Box<Value> = "mediaResolution",
        /// Free-form metadata a client attaches to the part.
        opt part_metadata: Box<Map<String, Value>> = "partMetadata",
    }
}

impl Part {
    /// The keys of the part's data `oneof`: a request part sets exactly one of them.
    pub const DATA_KEYS: &'static [&'static str] = &[
        "text",
        "inlineData",
        "fileData",
        "functionCall",
        "functionResponse",
        "executableCode",
        "codeExecutionResult",
        "toolCall",
        "toolResponse",
    ];

    /// The data keys this part sets, in [`Part::DATA_KEYS`] order (one for a well-formed
    /// part).
    pub fn data_keys(&self) -> impl Iterator<Item = &'static str> {
        [
            self.text.is_some(),
            self.inline_data.is_some(),
            self.file_data.is_some(),
            self.function_call.is_some(),
            self.function_response.is_some(),
            self.executable_code.is_some(),
            self.code_execution_result.is_some(),
            self.tool_call.is_some(),
            self.tool_response.is_some(),
        ]
        .into_iter()
        .zip(Self::DATA_KEYS)
        .filter_map(|(set, key)| set.then_some(*key))
    }

    /// Whether this part is a thought (`"thought": true`).
    pub fn is_thought(&self) -> bool {
        self.thought == Some(true)
    }
}

wire_struct! {
    /// Inline bytes.
    #[derive(Default)]
    pub struct Blob {
        /// IANA media type: `image/png`, `application/pdf`, `audio/wav`, ….
        req mime_type: String = "mimeType",
        /// The bytes, base64.
        req data: String = "data",
        /// A name for the bytes, by which a function response's `response` can refer to
        /// them (`{"$ref": "<displayName>"}`).
        opt display_name: String = "displayName",
    }
}

wire_struct! {
    /// A file by URI.
    #[derive(Default)]
    pub struct FileData {
        /// IANA media type of the file.
        opt mime_type: String = "mimeType",
        /// `https://generativelanguage.googleapis.com/v1beta/files/…`, `gs://…`, or a
        /// YouTube URL.
        req file_uri: String = "fileUri",
        /// A name for the file.
        opt display_name: String = "displayName",
    }
}

wire_struct! {
    /// A function call the model made.
    ///
    /// `name` is required in a request; it is optional here because Vertex AI's
    /// `streamFunctionCallArguments` streams a call as fragments: the first names the
    /// function, later ones only carry `partialArgs` (and a last, empty `{}` closes it).
    #[derive(Default)]
    pub struct FunctionCall {
        /// Call id, when the API assigns one; a [`FunctionResponse`] then repeats it.
        opt id: String = "id",
        /// Name of the declared function.
        opt name: String = "name",
        /// The arguments object; absent for a function called without arguments.
        opt args: MaybeRaw<Map<String, Value>> = "args",
        /// Streamed argument fragments (Vertex AI, `streamFunctionCallArguments`).
        opt partial_args: Vec<PartialArg> = "partialArgs",
        /// Streamed calls: more fragments of this call follow.
        opt will_continue: bool = "willContinue",
    }
}

wire_struct! {
    /// A fragment of streamed function-call arguments: one value at a JSON path.
    #[derive(Default)]
    pub struct PartialArg {
        /// Where the value goes in `args`: `$.location`, `$.steps[0].name`, ….
        opt json_path: String = "jsonPath",
        /// A string value, or the next piece of one (see `will_continue`).
        opt string_value: String = "stringValue",
        /// A number value.
        opt number_value: Number = "numberValue",
        /// A boolean value.
        opt bool_value: bool = "boolValue",
        /// A null value (`"NULL_VALUE"`).
        opt null_value: Value = "nullValue",
        /// More pieces of this string value follow.
        opt will_continue: bool = "willContinue",
    }
}

wire_struct! {
    /// The result of a function call, in a `user` content.
    ///
    /// `response` is an object: by convention the result under `"output"`, a failure under
    /// `"error"` (Gemini's only error flag); an object with neither is all output
    /// ([`FunctionResult`]).
    #[derive(Default)]
    pub struct FunctionResponse {
        /// The id of the [`FunctionCall`] this answers, when the call had one.
        opt id: String = "id",
        /// Name of the function that ran (matches the call's name).
        req name: String = "name",
        /// The result object.
        req response: FunctionResult = "response",
        /// Media the function returned (images, PDFs) as inline data.
        opt parts: Vec<FunctionResponsePart> = "parts",
        /// Non-blocking functions (Live API): more responses to this call follow.
        opt will_continue: bool = "willContinue",
        /// Non-blocking functions (Live API): when the model hears of this response.
        opt scheduling: Scheduling = "scheduling",
    }
}

/// `functionResponse.response`, a JSON object (proto `Struct`). By Gemini's convention
/// ("use the `output` key to specify function output and the `error` key to specify error
/// details; if neither is specified, the whole response is treated as function output")
/// the two one-key forms are their own variants, held without a map: the usual result of
/// a long transcript costs no hash table. Every form is written as it was read, key order
/// included, and [`From<Map>`](#impl-From%3CMap%3CString,+Value%3E%3E-for-FunctionResult)
/// sorts a map into the same variant reading its text would.
///
/// ```
/// use wire_types::gemini::FunctionResult;
/// let r: FunctionResult = serde_json::from_str(r#"{"output": "21°C"}"#).unwrap();
/// assert_eq!(r, FunctionResult::Output("21°C".into()));
/// let r: FunctionResult = serde_json::from_str(r#"{"output": 1, "unit": "C"}"#).unwrap();
/// assert!(matches!(r, FunctionResult::Object(_)));
/// assert_eq!(wire_types::to_string(&r), r#"{"output":1,"unit":"C"}"#);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionResult {
    /// `{"output": <value>}`, `output` its only key: the function's result.
    Output(Value),
    /// `{"error": <value>}`, `error` its only key: the function failed.
    Error(Value),
    /// Any other object (`{}`, other keys, `output` or `error` beside other keys): all of
    /// it is the function's output.
    Object(Map<String, Value>),
}

impl Default for FunctionResult {
    /// `{}`.
    fn default() -> Self {
        FunctionResult::Object(Map::new())
    }
}

impl FunctionResult {
    /// The object as a map (a one-key form as its one entry).
    pub fn into_map(self) -> Map<String, Value> {
        let (key, value) = match self {
            FunctionResult::Object(m) => return m,
            FunctionResult::Output(v) => ("output", v),
            FunctionResult::Error(v) => ("error", v),
        };
        let mut m = Map::new();
        m.insert(key.to_owned(), value);
        m
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            FunctionResult::Object(m) => m.get(key),
            FunctionResult::Output(v) if key == "output" => Some(v),
            FunctionResult::Error(v) if key == "error" => Some(v),
            _ => None,
        }
    }
}

impl From<Map<String, Value>> for FunctionResult {
    /// The variant the map's JSON text reads as: a one-key `output` or `error` object as
    /// [`FunctionResult::Output`] or [`FunctionResult::Error`], anything else whole.
    fn from(mut m: Map<String, Value>) -> Self {
        if m.len() == 1 {
            if let Some(v) = m.remove("output") {
                return FunctionResult::Output(v);
            }
            if let Some(v) = m.remove("error") {
                return FunctionResult::Error(v);
            }
        }
        FunctionResult::Object(m)
    }
}

impl serde::Serialize for FunctionResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (key, value) = match self {
            FunctionResult::Object(m) => return m.serialize(serializer),
            FunctionResult::Output(v) => ("output", v),
            FunctionResult::Error(v) => ("error", v),
        };
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(key, value)?;
        map.end()
    }
}

impl<'de> serde::Deserialize<'de> for FunctionResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = FunctionResult;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<FunctionResult, A::Error> {
                use crate::macros::{Key, insert_new, next_value};
                let Some(first) = map.next_key::<Key<'de>>()? else {
                    return Ok(FunctionResult::default());
                };
                // Values are read as every `Value` below a typed field is: a repeated
                // key anywhere within them is refused.
                let value = next_value(&mut map)?;
                let Some(second) = map.next_key::<Key<'de>>()? else {
                    return Ok(match first.as_str() {
                        "output" => FunctionResult::Output(value),
                        "error" => FunctionResult::Error(value),
                        _ => {
                            let mut m = Map::new();
                            m.insert(first.into_string(), value);
                            FunctionResult::Object(m)
                        }
                    });
                };
                let mut m = Map::new();
                m.insert(first.into_string(), value);
                let value = next_value(&mut map)?;
                insert_new::<A::Error>(&mut m, second.into_string(), value)?;
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let value = next_value(&mut map)?;
                    insert_new::<A::Error>(&mut m, key.into_string(), value)?;
                }
                Ok(FunctionResult::Object(m))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

wire_struct! {
    /// Media returned by a function: `{"inlineData": …}` (or `fileData` on Vertex AI).
    #[derive(Default)]
    pub struct FunctionResponsePart {
        /// Inline bytes.
        opt inline_data: Blob = "inlineData",
        /// A file by URI.
        opt file_data: FileData = "fileData",
    }
}

open_enum! {
    /// When the model is told of a non-blocking function's response.
    pub enum Scheduling {
        /// Not specified (`WHEN_IDLE`).
        Unspecified = "SCHEDULING_UNSPECIFIED",
        /// Add it to the context without interrupting or prompting the model.
        Silent = "SILENT",
        /// Tell the model when it is done with its current turn.
        WhenIdle = "WHEN_IDLE",
        /// Interrupt the model's current turn.
        Interrupt = "INTERRUPT",
    }
}

wire_struct! {
    /// Code the model wrote for the code-execution tool.
    pub struct ExecutableCode {
        /// Id pairing it with its [`CodeExecutionResult`].
        opt id: String = "id",
        /// `PYTHON`.
        req language: Language = "language",
        /// The code.
        req code: String = "code",
    }
}

open_enum! {
    /// Programming language of [`ExecutableCode`].
    pub enum Language {
        /// Not specified.
        Unspecified = "LANGUAGE_UNSPECIFIED",
        /// Python.
        Python = "PYTHON",
    }
}

wire_struct! {
    /// The result of running [`ExecutableCode`].
    pub struct CodeExecutionResult {
        /// Id of the [`ExecutableCode`] it ran.
        opt id: String = "id",
        /// How the run ended.
        req outcome: Outcome = "outcome",
        /// Standard output, or the error.
        opt output: String = "output",
    }
}

open_enum! {
    /// How a code execution ended.
    pub enum Outcome {
        /// Not specified.
        Unspecified = "OUTCOME_UNSPECIFIED",
        /// Ran to completion.
        Ok = "OUTCOME_OK",
        /// Failed; `output` holds the error.
        Failed = "OUTCOME_FAILED",
        /// Ran too long and was stopped.
        DeadlineExceeded = "OUTCOME_DEADLINE_EXCEEDED",
    }
}

wire_struct! {
    /// One entry of `tools`: function declarations, or one built-in tool.
    ///
    /// Built-in tools are kept as JSON objects (most are `{}`); the rarer ones
    /// (`retrieval`, `enterpriseWebSearch`, …) land in `extra`.
    #[derive(Default)]
    pub struct Tool {
        /// Functions the model may call.
        opt function_declarations: Vec<FunctionDeclaration> = "functionDeclarations",
        /// Google Search grounding: `{}` or with `timeRangeFilter`, `excludeDomains`.
        opt google_search: Map<String, Value> = "googleSearch",
        /// Older dynamic-retrieval Google Search grounding (Gemini 1.5).
        opt google_search_retrieval: Map<String, Value> = "googleSearchRetrieval",
        /// The code-execution tool: `{}`.
        opt code_execution: Map<String, Value> = "codeExecution",
        /// Reading URLs named in the prompt: `{}`.
        opt url_context: Map<String, Value> = "urlContext",
        /// Search over file-search stores.
        opt file_search: Map<String, Value> = "fileSearch",
        /// Google Maps grounding.
        opt google_maps: Map<String, Value> = "googleMaps",
        /// Computer use (`{"environment": …}`).
        opt computer_use: Map<String, Value> = "computerUse",
        /// Remote MCP servers.
        opt mcp_servers: Vec<Value> = "mcpServers",
    }
}

wire_struct! {
    /// A function the model may call.
    ///
    /// The arguments are described by **either** `parameters` (an OpenAPI 3.0 schema
    /// subset: uppercase `type`, `nullable`, no `$ref`) **or** `parametersJsonSchema` (JSON
    /// Schema); [`validate_request`] rejects both at once.
    #[derive(Default)]
    pub struct FunctionDeclaration {
        /// Letters, digits, `_`, `.`, `:`, `-`; starts with a letter or `_`; at most 64
        /// characters (128 in the newest SDK).
        req name: String = "name",
        /// What the function does and when to call it.
        opt description: String = "description",
        /// The arguments object as an OpenAPI `Schema`.
        opt parameters: Value = "parameters",
        /// The arguments object as a JSON Schema.
        opt parameters_json_schema: Value = "parametersJsonSchema",
        /// The result as an OpenAPI `Schema`.
        opt response: Value = "response",
        /// The result as a JSON Schema.
        opt response_json_schema: Value = "responseJsonSchema",
        /// `BLOCKING` or `NON_BLOCKING` (Live API).
        opt behavior: Behavior = "behavior",
    }
}

open_enum! {
    /// Whether the conversation waits for a function (Live API).
    pub enum Behavior {
        /// Not specified (blocking).
        Unspecified = "UNSPECIFIED",
        /// The model waits for the response.
        Blocking = "BLOCKING",
        /// The model keeps talking while the function runs.
        NonBlocking = "NON_BLOCKING",
    }
}

wire_struct! {
    /// `toolConfig`.
    #[derive(Default)]
    pub struct ToolConfig {
        /// How the model may call functions.
        opt function_calling_config: FunctionCallingConfig = "functionCallingConfig",
        /// Location context for Google Maps grounding (`{"latLng", "languageCode"}`).
        opt retrieval_config: Value = "retrievalConfig",
    }
}

wire_struct! {
    /// `toolConfig.functionCallingConfig`.
    #[derive(Default)]
    pub struct FunctionCallingConfig {
        /// `AUTO` (default), `ANY` (must call), `NONE`, `VALIDATED`.
        opt mode: FunctionCallingMode = "mode",
        /// With `ANY` or `VALIDATED`: the functions the model may call (one name forces it).
        opt allowed_function_names: Vec<String> = "allowedFunctionNames",
        /// Vertex AI: stream arguments as `partialArgs` fragments.
        opt stream_function_call_arguments: bool = "streamFunctionCallArguments",
    }
}

open_enum! {
    /// `functionCallingConfig.mode`.
    pub enum FunctionCallingMode {
        /// Not specified (`AUTO`).
        Unspecified = "MODE_UNSPECIFIED",
        /// The model decides between text and function calls.
        Auto = "AUTO",
        /// The model must call a function (of `allowedFunctionNames`, when given).
        Any = "ANY",
        /// The model must not call functions.
        None = "NONE",
        /// Text or calls, with calls constrained to the declared schemas.
        Validated = "VALIDATED",
    }
}

wire_struct! {
    /// `generationConfig`: sampling, output format and thinking settings.
    #[derive(Default)]
    pub struct GenerationConfig {
        /// Sampling temperature (0–2).
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass.
        opt top_p: Number = "topP",
        /// Top-k sampling.
        opt top_k: Number = "topK",
        /// Number of candidates to generate.
        opt candidate_count: u32 = "candidateCount",
        /// Output-token limit (thinking tokens not included).
        opt max_output_tokens: u64 = "maxOutputTokens",
        /// Up to 5 stop sequences.
        opt stop_sequences: Vec<String> = "stopSequences",
        /// Sampling seed.
        opt seed: i64 = "seed",
        /// Presence penalty.
        opt presence_penalty: Number = "presencePenalty",
        /// Frequency penalty.
        opt frequency_penalty: Number = "frequencyPenalty",
        /// Return log-probabilities of the chosen tokens.
        opt response_logprobs: bool = "responseLogprobs",
        /// How many top log-probabilities per token.
        opt logprobs: u32 = "logprobs",
        /// `text/plain`, `application/json`, `text/x.enum`.
        opt response_mime_type: String = "responseMimeType",
        /// Output schema, OpenAPI `Schema` subset (with `application/json`).
        opt response_schema: Value = "responseSchema",
        /// Output schema, JSON Schema (with `application/json`).
        opt response_json_schema: Value = "responseJsonSchema",
        /// Output modalities: `TEXT`, `IMAGE`, `AUDIO`.
        opt response_modalities: Vec<Modality> = "responseModalities",
        /// Input media resolution.
        opt media_resolution: MediaResolution = "mediaResolution",
        /// Speech output voice.
        opt speech_config: Value = "speechConfig",
        /// Image output settings (`aspectRatio`, `imageSize`).
        opt image_config: Value = "imageConfig",
        /// Thinking budget or level, and whether thought summaries are returned.
        opt thinking_config: ThinkingConfig = "thinkingConfig",
    }
}

wire_struct! {
    /// `generationConfig.thinkingConfig`.
    #[derive(Default)]
    pub struct ThinkingConfig {
        /// Return thought summaries (parts with `thought: true`).
        opt include_thoughts: bool = "includeThoughts",
        /// Thinking tokens (Gemini 2.5): `0` turns thinking off, `-1` lets the model decide.
        opt thinking_budget: i64 = "thinkingBudget",
        /// Thinking depth (Gemini 3); not together with `thinkingBudget`.
        opt thinking_level: ThinkingLevel = "thinkingLevel",
    }
}

open_enum! {
    /// `thinkingConfig.thinkingLevel`.
    pub enum ThinkingLevel {
        /// Not specified (the model's default).
        Unspecified = "THINKING_LEVEL_UNSPECIFIED",
        /// As little thinking as possible.
        Minimal = "MINIMAL",
        /// Low.
        Low = "LOW",
        /// Medium.
        Medium = "MEDIUM",
        /// High.
        High = "HIGH",
        /// Extra high.
        Xhigh = "XHIGH",
    }
}

open_enum! {
    /// `generationConfig.mediaResolution`: tokens spent per image or video frame.
    pub enum MediaResolution {
        /// Not specified (the model's default).
        Unspecified = "MEDIA_RESOLUTION_UNSPECIFIED",
        /// Low.
        Low = "MEDIA_RESOLUTION_LOW",
        /// Medium.
        Medium = "MEDIA_RESOLUTION_MEDIUM",
        /// High.
        High = "MEDIA_RESOLUTION_HIGH",
    }
}

open_enum! {
    /// A content modality (output modalities; token-count breakdowns).
    pub enum Modality {
        /// Not specified.
        Unspecified = "MODALITY_UNSPECIFIED",
        /// Text.
        Text = "TEXT",
        /// Images.
        Image = "IMAGE",
        /// Video.
        Video = "VIDEO",
        /// Audio.
        Audio = "AUDIO",
        /// Documents (PDF).
        Document = "DOCUMENT",
    }
}

wire_struct! {
    /// One entry of `safetySettings`.
    pub struct SafetySetting {
        /// The harm category.
        req category: HarmCategory = "category",
        /// From which probability of harm content is blocked.
        req threshold: HarmBlockThreshold = "threshold",
    }
}

open_enum! {
    /// A harm category of `safetySettings` (safety ratings in responses use the same names).
    pub enum HarmCategory {
        /// Not specified.
        Unspecified = "HARM_CATEGORY_UNSPECIFIED",
        /// Harassment.
        Harassment = "HARM_CATEGORY_HARASSMENT",
        /// Hate speech.
        HateSpeech = "HARM_CATEGORY_HATE_SPEECH",
        /// Sexually explicit content.
        SexuallyExplicit = "HARM_CATEGORY_SEXUALLY_EXPLICIT",
        /// Dangerous content.
        DangerousContent = "HARM_CATEGORY_DANGEROUS_CONTENT",
        /// Content that may harm civic integrity.
        CivicIntegrity = "HARM_CATEGORY_CIVIC_INTEGRITY",
    }
}

open_enum! {
    /// `safetySettings[].threshold`.
    pub enum HarmBlockThreshold {
        /// Not specified.
        Unspecified = "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
        /// Block low, medium and high probability of harm.
        BlockLowAndAbove = "BLOCK_LOW_AND_ABOVE",
        /// Block medium and high probability.
        BlockMediumAndAbove = "BLOCK_MEDIUM_AND_ABOVE",
        /// Block high probability only.
        BlockOnlyHigh = "BLOCK_ONLY_HIGH",
        /// Block nothing (ratings are still returned).
        BlockNone = "BLOCK_NONE",
        /// Turn the filter off.
        Off = "OFF",
    }
}

wire_struct! {
    /// A `generateContent` response body; also each chunk of a streamed response (with a
    /// part of the output, see [`StreamEvent`]).
    #[derive(Default)]
    pub struct Response {
        /// The candidates (one per `candidateCount`); absent when the prompt was blocked.
        opt candidates: Vec<Candidate> = "candidates",
        /// Why the prompt was blocked, if it was (first chunk only, when streaming).
        opt prompt_feedback: PromptFeedback = "promptFeedback",
        /// Token usage (when streaming: so far; the last chunk has the totals).
        opt usage_metadata: UsageMetadata = "usageMetadata",
        /// The model that answered: `gemini-2.5-flash`, ….
        opt model_version: String = "modelVersion",
        /// Response id; the same on every chunk of a stream.
        opt response_id: String = "responseId",
        /// Vertex AI: when the request was received (RFC 3339).
        opt create_time: String = "createTime",
    }
}

wire_struct! {
    /// One candidate answer.
    #[derive(Default)]
    pub struct Candidate {
        /// The output: role `model`, its parts.
        opt content: Content = "content",
        /// Why generation stopped; absent on all but the last chunk of a stream. A turn
        /// that calls functions ends with `STOP`: look for `functionCall` parts.
        opt finish_reason: FinishReason = "finishReason",
        /// Why, in words (`"Model generated function call(s)."`).
        opt finish_message: String = "finishMessage",
        /// 0-based candidate index.
        opt index: u32 = "index",
        /// Safety ratings per harm category (`{"category","probability",…}`).
        opt safety_ratings: Vec<Value> = "safetyRatings",
        /// Sources the output recites.
        opt citation_metadata: Value = "citationMetadata",
        /// Search grounding: queries, sources, supports.
        opt grounding_metadata: Value = "groundingMetadata",
        /// What the URL-context tool fetched.
        opt url_context_metadata: Value = "urlContextMetadata",
        /// Mean log-probability of the candidate's tokens.
        opt avg_logprobs: Number = "avgLogprobs",
        /// Per-token log-probabilities (with `responseLogprobs`).
        opt logprobs_result: Value = "logprobsResult",
        /// Output tokens of this candidate.
        opt token_count: u64 = "tokenCount",
    }
}

open_enum! {
    /// Why a candidate stopped.
    pub enum FinishReason {
        /// Not specified.
        Unspecified = "FINISH_REASON_UNSPECIFIED",
        /// Natural end, stop sequence, or function calls.
        Stop = "STOP",
        /// `maxOutputTokens` reached.
        MaxTokens = "MAX_TOKENS",
        /// Safety filter.
        Safety = "SAFETY",
        /// Recitation of training data.
        Recitation = "RECITATION",
        /// Unsupported language.
        Language = "LANGUAGE",
        /// `OTHER`: some other reason (not the catch-all arm for unknown values).
        OtherReason = "OTHER",
        /// Blocklisted terms.
        Blocklist = "BLOCKLIST",
        /// Prohibited content.
        ProhibitedContent = "PROHIBITED_CONTENT",
        /// Sensitive personally identifiable information.
        Spii = "SPII",
        /// The model wrote a function call that is not valid.
        MalformedFunctionCall = "MALFORMED_FUNCTION_CALL",
        /// Generated image blocked for safety.
        ImageSafety = "IMAGE_SAFETY",
        /// Generated image has prohibited content.
        ImageProhibitedContent = "IMAGE_PROHIBITED_CONTENT",
        /// Generated image stopped for another reason.
        ImageOther = "IMAGE_OTHER",
        /// An image was expected but none was generated.
        NoImage = "NO_IMAGE",
        /// Generated image recites training data.
        ImageRecitation = "IMAGE_RECITATION",
        /// The model called a tool that was not declared or not allowed.
        UnexpectedToolCall = "UNEXPECTED_TOOL_CALL",
        /// Too many tool calls in one turn.
        TooManyToolCalls = "TOO_MANY_TOOL_CALLS",
        /// A function call in the history lacks its thought signature.
        MissingThoughtSignature = "MISSING_THOUGHT_SIGNATURE",
        /// The model's output could not be parsed.
        MalformedResponse = "MALFORMED_RESPONSE",
    }
}

wire_struct! {
    /// Why the prompt was blocked.
    #[derive(Default)]
    pub struct PromptFeedback {
        /// The reason; absent when the prompt was not blocked.
        opt block_reason: BlockReason = "blockReason",
        /// The reason, in words.
        opt block_reason_message: String = "blockReasonMessage",
        /// Safety ratings of the prompt.
        opt safety_ratings: Vec<Value> = "safetyRatings",
    }
}

open_enum! {
    /// Why a prompt was blocked.
    pub enum BlockReason {
        /// Not specified.
        Unspecified = "BLOCKED_REASON_UNSPECIFIED",
        /// Safety filter.
        Safety = "SAFETY",
        /// `OTHER`: some other reason (not the catch-all arm for unknown values).
        OtherReason = "OTHER",
        /// Blocklisted terms.
        Blocklist = "BLOCKLIST",
        /// Prohibited content.
        ProhibitedContent = "PROHIBITED_CONTENT",
        /// An input image was blocked.
        ImageSafety = "IMAGE_SAFETY",
    }
}

wire_struct! {
    /// Token usage.
    ///
    /// `totalTokenCount` = prompt + candidates + tool-use prompt + thoughts;
    /// `candidatesTokenCount` does not include thoughts; `promptTokenCount` includes the
    /// cached tokens.
    #[derive(Default)]
    pub struct UsageMetadata {
        /// Input tokens (cached ones included).
        opt prompt_token_count: u64 = "promptTokenCount",
        /// Output tokens of all candidates, thoughts not included.
        opt candidates_token_count: u64 = "candidatesTokenCount",
        /// Sum of all counts.
        opt total_token_count: u64 = "totalTokenCount",
        /// Thinking tokens.
        opt thoughts_token_count: u64 = "thoughtsTokenCount",
        /// Input tokens read from a context cache.
        opt cached_content_token_count: u64 = "cachedContentTokenCount",
        /// Tokens of built-in tool results fed back to the model (code execution, search).
        opt tool_use_prompt_token_count: u64 = "toolUsePromptTokenCount",
        /// Input tokens per modality.
        opt prompt_tokens_details: Vec<ModalityTokenCount> = "promptTokensDetails",
        /// Output tokens per modality.
        opt candidates_tokens_details: Vec<ModalityTokenCount> = "candidatesTokensDetails",
        /// Cached tokens per modality.
        opt cache_tokens_details: Vec<ModalityTokenCount> = "cacheTokensDetails",
        /// Tool-use prompt tokens per modality.
        opt tool_use_prompt_tokens_details: Vec<ModalityTokenCount> = "toolUsePromptTokensDetails",
        /// Vertex AI: `ON_DEMAND` or `PROVISIONED_THROUGHPUT`.
        opt traffic_type: String = "trafficType",
    }
}

wire_struct! {
    /// Tokens of one modality.
    #[derive(Default)]
    pub struct ModalityTokenCount {
        /// `TEXT`, `IMAGE`, `AUDIO`, `VIDEO`, `DOCUMENT`.
        opt modality: Modality = "modality",
        /// Token count (absent when zero).
        opt token_count: u64 = "tokenCount",
    }
}

wire_struct! {
    /// An error body (`{"error":{…}}`, a `google.rpc.Status`), returned instead of a
    /// response or sent as a chunk mid-stream.
    pub struct ErrorResponse {
        /// The error.
        req error: ErrorDetail = "error",
    }
}

wire_struct! {
    /// The error object.
    #[derive(Default)]
    pub struct ErrorDetail {
        /// HTTP status code: `400`, `429`, `503`, ….
        opt code: u16 = "code",
        /// Human-readable message.
        opt message: String = "message",
        /// Canonical status: `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, `UNAVAILABLE`, ….
        opt status: String = "status",
        /// Typed details (`{"@type": "type.googleapis.com/google.rpc.RetryInfo", …}`).
        opt details: Vec<Value> = "details",
    }
}

chunk_or_error! {
    /// One event of a streamed response (`:streamGenerateContent?alt=sse`, `data:` lines
    /// with no terminator): a response chunk, or an error object sent mid-stream. The
    /// first key only one of the two has decides (`error`, or a response field).
    #[allow(
        clippy::large_enum_variant,
        reason = "chunks are the common case: boxing them would allocate once per chunk to save space only on the rare error"
    )]
    pub enum StreamEvent, expecting = "a generateContent response chunk or an error object" {
        /// A chunk: a [`Response`] holding the next parts of the output.
        Chunk(Response),
        /// `{"error": {…}}`.
        Error(ErrorResponse),
    }
}

/// Checks what the types leave open: every content's role is `user` or `model`, every
/// content has parts, every part sets exactly one data key, every function call names
/// its function, and no function declaration has both `parameters` and
/// `parametersJsonSchema`.
///
/// A part whose only keys are ones this crate does not model is let through: it may hold
/// a data key added to the API after this crate.
pub fn validate_request(request: &Request) -> Result<(), Error> {
    for (i, content) in request.contents.iter().enumerate() {
        let at = format!("/contents/{i}");
        if let Some(role) = &content.role {
            if !role.is_known() {
                return Err(Error::new(
                    Category::Shape,
                    format!("{at}/role"),
                    format!(
                        "unknown role \"{role}\" (expected one of: {}; function results go in a user content)",
                        Role::KNOWN.join(", ")
                    ),
                ));
            }
        }
        validate_parts(content, &at)?;
    }
    if let Some(system) = &request.system_instruction {
        validate_parts(system, "/systemInstruction")?;
    }
    for (i, tool) in request.tools.iter().flatten().enumerate() {
        for (j, decl) in tool.function_declarations.iter().flatten().enumerate() {
            if decl.parameters.is_some() && decl.parameters_json_schema.is_some() {
                return Err(Error::new(
                    Category::Shape,
                    format!("/tools/{i}/functionDeclarations/{j}"),
                    "both `parameters` and `parametersJsonSchema` (give one or the other)",
                ));
            }
        }
    }
    Ok(())
}

/// The part checks of [`validate_request`], for the content at `at`.
fn validate_parts(content: &Content, at: &str) -> Result<(), Error> {
    let Some(parts) = &content.parts else {
        return Err(Error::new(
            Category::Shape,
            format!("{at}/parts"),
            "missing field",
        ));
    };
    if parts.is_empty() {
        return Err(Error::new(
            Category::Shape,
            format!("{at}/parts"),
            "no parts (a content needs at least one)",
        ));
    }
    for (j, part) in parts.iter().enumerate() {
        let mut keys = part.data_keys();
        match (keys.next(), keys.next()) {
            (None, _) if part.extra.fields().is_empty() => {
                return Err(Error::new(
                    Category::Shape,
                    format!("{at}/parts/{j}"),
                    format!(
                        "no data key (a part holds exactly one of: {})",
                        Part::DATA_KEYS.join(", ")
                    ),
                ));
            }
            (Some(a), Some(b)) => {
                return Err(Error::new(
                    Category::Shape,
                    format!("{at}/parts/{j}"),
                    format!("two data keys, `{a}` and `{b}` (a part holds exactly one)"),
                ));
            }
            _ => {}
        }
        if let Some(call) = &part.function_call {
            if call.name.is_none() {
                return Err(Error::new(
                    Category::Shape,
                    format!("{at}/parts/{j}/functionCall/name"),
                    "missing field",
                ));
            }
        }
    }
    Ok(())
}
