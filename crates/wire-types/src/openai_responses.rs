//! OpenAI Responses: `POST /v1/responses` request and response bodies and the stream
//! events of a streamed response.
//!
//! Transcribed from the `openai-python` SDK types (`types/responses/*`,
//! `types/shared_params/reasoning.py`, commit e43b422, 2026-08-21), checked against the
//! schemas exported from `openai` 3.57.0 in `fixtures/conformance/openai-responses.*`, and
//! the API reference; see `../shared/docs/providers.md` §2 as vendored in
//! `ARCHITECTURE.md`. Real payloads: `fixtures/openai-responses/`.
//!
//! Also read here: Open Responses servers (LM Studio) and Azure OpenAI, whose additions
//! (`content_filters`, …) land in `extra`.
//!
//! ## Style
//! * `input` is an [`Input`]: a string or an array of [`Item`]s. The same [`Item`] union
//!   reads a response's `output`, since output items are replayed as input.
//! * An easy input message may leave out `"type": "message"`: [`Item`] then tells it by
//!   its `role`, and [`Message::kind`] records that `type` was absent so none is written.
//! * Item types this crate does not model (`web_search_call`, `mcp_call`,
//!   `apply_patch_call`, …) and hosted tools are kept whole in the `Other` arms.
//! * Every stream event of the SDK's `ResponseStreamEvent` union (`response_stream_event.py`,
//!   the union in `fixtures/conformance/openai-responses.event.schema.json`) has its own
//!   [`StreamEvent`] arm; hosted-tool progress events share [`ItemEvent`]. An unknown event
//!   is kept whole in [`StreamEvent::Other`].
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.
//! * Function-call `arguments` are [`Arguments`]: JSON text as the model wrote it.

use crate::common::{Arguments, TextOrParts};
use crate::error::{Category, Error};
use crate::extra::Extra;
use crate::macros::Key;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};
use std::fmt;

pub use crate::common::{
    ErrorDetail, Logprob, NoFields, ReasoningEffort, ToolChoiceMode, TopLogprob,
};

wire_struct! {
    /// A Responses request body.
    #[derive(Default)]
    pub struct Request {
        /// Model id (optional in the SDK: a stored `prompt` may name it).
        opt model: String = "model",
        /// The conversation: a string (one user message) or an array of items.
        opt input: Input = "input",
        /// System/developer instructions for this request only (not carried over by
        /// `previous_response_id`).
        opt instructions: String = "instructions",
        /// Continue from a stored response.
        opt previous_response_id: String = "previous_response_id",
        /// Conversation this response belongs to: an id or `{"id": …}`.
        opt conversation: Value = "conversation",
        /// Store the response for later retrieval.
        opt store: bool = "store",
        /// Extra output to include (`reasoning.encrypted_content`,
        /// `message.output_text.logprobs`, …).
        opt include: Vec<String> = "include",
        /// Output-token limit, reasoning tokens included.
        opt max_output_tokens: u64 = "max_output_tokens",
        /// Limit on the number of built-in tool calls.
        opt max_tool_calls: u64 = "max_tool_calls",
        /// Sampling temperature (0–2).
        opt temperature: Number = "temperature",
        /// Nucleus sampling mass.
        opt top_p: Number = "top_p",
        /// How many top log-probabilities per token (0–20).
        opt top_logprobs: u32 = "top_logprobs",
        /// Tools the model may call.
        opt tools: Vec<Tool> = "tools",
        /// Which tool, if any, the model must call.
        opt tool_choice: ToolChoice = "tool_choice",
        /// `false`: at most one tool call per turn.
        opt parallel_tool_calls: bool = "parallel_tool_calls",
        /// Reasoning settings for reasoning models.
        opt reasoning: ReasoningConfig = "reasoning",
        /// Output format (text, JSON, JSON schema) and verbosity.
        opt text: TextConfig = "text",
        /// `auto` or `disabled`: what to do when the input exceeds the context window.
        opt truncation: String = "truncation",
        /// Stream the response as events.
        opt stream: bool = "stream",
        /// Streaming options.
        opt stream_options: StreamOptions = "stream_options",
        /// Run in the background.
        opt background: bool = "background",
        /// Free-form string metadata (≤ 16 pairs).
        opt metadata: Map<String, Value> = "metadata",
        /// Service tier (`auto`, `default`, `flex`, `priority`, …).
        opt service_tier: String = "service_tier",
        /// A stored prompt template and its variables.
        opt prompt: Value = "prompt",
        /// Prompt-cache bucketing key.
        opt prompt_cache_key: String = "prompt_cache_key",
        /// Prompt-cache retention (`in_memory`, `24h`).
        opt prompt_cache_retention: String = "prompt_cache_retention",
        /// Stable end-user id for abuse detection.
        opt safety_identifier: String = "safety_identifier",
        /// End-user id (legacy; see `safety_identifier`).
        opt user: String = "user",
        /// Server-side context compaction settings.
        opt context_management: Value = "context_management",
    }
}

/// `input` (and a response's `instructions`): a string, read as one user message, or an
/// array of items.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// `"input": "…"`
    Text(String),
    /// `"input": [ … ]`
    Items(Vec<Item>),
}

impl Input {
    /// The items, if this is the array form.
    pub fn items(&self) -> Option<&[Item]> {
        match self {
            Input::Text(_) => None,
            Input::Items(items) => Some(items),
        }
    }

    /// The string, if this is the string form.
    pub fn text(&self) -> Option<&str> {
        match self {
            Input::Text(s) => Some(s),
            Input::Items(_) => None,
        }
    }
}

impl Serialize for Input {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Input::Text(s) => serializer.serialize_str(s),
            Input::Items(items) => items.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Input;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of input items")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Input, E> {
                Ok(Input::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Input, E> {
                Ok(Input::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Input, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Input::Items(items))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// One item of `input` or of a response's `output`, tagged by `type`.
///
/// A message may come without `type` (an "easy" input message, `{"role","content"}`):
/// it is then told by its `role`, and written back without `type` (see
/// [`Message::kind`]). When both are there, `type` decides, as in the API (whose item
/// types all require it but the easy message): `{"role":"user","type":
/// "function_call_output",…}` is a function call output with `role` among its unknown
/// fields. What comes before such a `type` is read as a message is (a string `role`,
/// message `content`), so an item whose message fields have another shape is refused.
/// Every item but a message is written with its `type` first, so it is read back as the
/// same variant. Every item type but the four modeled here (`web_search_call`,
/// `file_search_call`, `computer_call`, `mcp_call`, `apply_patch_call`,
/// `custom_tool_call`, `item_reference`, …) is kept whole in [`Item::Other`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Item {
    /// `{"type":"message",…}` or `{"role":…,"content":…}`: an input message (any role)
    /// or a model's output message (`assistant`, with `id` and `status`).
    Message(Message),
    /// `{"type":"function_call",…}`: the model calls a function.
    FunctionCall(FunctionCall),
    /// `{"type":"function_call_output",…}`: the result of a function call.
    FunctionCallOutput(FunctionCallOutput),
    /// `{"type":"reasoning",…}`: a reasoning item, replayed with its encrypted content.
    Reasoning(Reasoning),
    /// An item whose type this crate does not model, kept whole (`type` included).
    Other(Map<String, Value>),
}

impl Item {
    /// The tag field's name.
    pub const TAG: &'static str = "type";
    /// The item types this crate models.
    pub const KNOWN: &'static [&'static str] = &[
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
    ];

    /// The item type: `message` for a message (also when `type` was absent).
    pub fn tag(&self) -> &str {
        match self {
            Item::Message(_) => "message",
            Item::FunctionCall(_) => "function_call",
            Item::FunctionCallOutput(_) => "function_call_output",
            Item::Reasoning(_) => "reasoning",
            Item::Other(map) => map.get("type").and_then(|t| t.as_str()).unwrap_or(""),
        }
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A message writes its own `type` (when it came with one); the others are tagged
        // here, tag first.
        fn tagged<S: Serializer>(
            serializer: S,
            tag: &str,
            write: impl FnOnce(&mut S::SerializeMap) -> Result<(), S::Error>,
        ) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(None)?;
            map.serialize_entry("type", tag)?;
            write(&mut map)?;
            map.end()
        }
        match self {
            Item::Message(m) => m.serialize(serializer),
            Item::FunctionCall(c) => tagged(serializer, "function_call", |m| c.serialize_fields(m)),
            Item::FunctionCallOutput(o) => tagged(serializer, "function_call_output", |m| {
                o.serialize_fields(m)
            }),
            Item::Reasoning(r) => tagged(serializer, "reasoning", |m| r.serialize_fields(m)),
            // `type` first, so that it is read first and decides again.
            Item::Other(map) => match map.get("type") {
                Some(tag) => {
                    let mut out = serializer.serialize_map(Some(map.len()))?;
                    out.serialize_entry("type", tag)?;
                    for (k, v) in map.iter().filter(|(k, _)| *k != "type") {
                        out.serialize_entry(k, v)?;
                    }
                    out.end()
                }
                None => map.serialize(serializer),
            },
        }
    }
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Item;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with a `type` field, or a message with a `role` (Item)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
                // `type` decides, as in the API (every item type but the easy message
                // requires it). Keys before the first of `type` and `role` are buffered.
                let mut prefix: Vec<(String, Value)> = Vec::new();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match key.as_str() {
                        "type" => {
                            // `"type": null` reads as a message without a type (and is
                            // written back so), as it does after a `role`.
                            return match map.next_value::<Option<Key<'de>>>()? {
                                Some(tag) if tag.as_str() != "message" => {
                                    Item::by_type(tag.into_string(), prefix, map)
                                }
                                tag => {
                                    let tag =
                                        tag.map_or(Value::Null, |t| Value::String(t.into_string()));
                                    prefix.push(("type".to_owned(), tag));
                                    Message::from_entries(prefix, map).map(Item::Message)
                                }
                            };
                        }
                        "role" => {
                            // A message, typed or not, is read live (its content keeps its
                            // error pointers). A `type` after the role that is not
                            // `message` decides after all: the entries read so far are
                            // handed to that type. What came before it must then have a
                            // message's shape (a string `role`, message `content`), or
                            // the item is refused: the API refuses those fields on any
                            // other item.
                            let role = map.next_value::<Role>()?;
                            prefix
                                .push((key.into_string(), Value::String(role.as_str().to_owned())));
                            let mut message = Message::from_entries(prefix, map)?;
                            return match message.kind.take() {
                                None => Ok(Item::Message(message)),
                                Some(kind) if kind == "message" => {
                                    message.kind = Some(kind);
                                    Ok(Item::Message(message))
                                }
                                Some(kind) => {
                                    let Value::Object(entries) = crate::error::to_value(&message)
                                    else {
                                        return Err(de::Error::custom("a message is an object"));
                                    };
                                    let rest = crate::macros::NoMore::<A::Error>::NEW;
                                    Item::by_type(kind, entries.into_iter().collect(), rest)
                                }
                            };
                        }
                        _ => {
                            let value = crate::macros::next_value(&mut map)?;
                            prefix.push((key.into_string(), value));
                        }
                    }
                }
                Err(de::Error::missing_field("type"))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

impl Item {
    /// Reads the item of type `tag` (not `message`) from `prefix`, the entries read before
    /// its `type`, and the rest of `map`.
    fn by_type<'de, A: MapAccess<'de>>(
        tag: String,
        prefix: Vec<(String, Value)>,
        map: A,
    ) -> Result<Item, A::Error> {
        // A second `type` lands in the variant's unknown fields.
        fn once<E: de::Error>(extra: &Extra) -> Result<(), E> {
            match extra.get("type") {
                Some(_) => Err(de::Error::duplicate_field("type")),
                None => Ok(()),
            }
        }
        match tag.as_str() {
            "function_call" => {
                let c = FunctionCall::from_entries(prefix, map)?;
                once(&c.extra).map(|()| Item::FunctionCall(c))
            }
            "function_call_output" => {
                let o = FunctionCallOutput::from_entries(prefix, map)?;
                once(&o.extra).map(|()| Item::FunctionCallOutput(o))
            }
            "reasoning" => {
                let r = Reasoning::from_entries(prefix, map)?;
                once(&r.extra).map(|()| Item::Reasoning(r))
            }
            _ => crate::macros::whole(prefix, "type", Value::String(tag), map).map(Item::Other),
        }
    }
}

open_enum! {
    /// The author of a message.
    pub enum Role {
        /// The end user.
        User = "user",
        /// The model (a replayed or returned turn).
        Assistant = "assistant",
        /// Instructions (older models).
        System = "system",
        /// Instructions (current models).
        Developer = "developer",
    }
}

open_enum! {
    /// The status of an item.
    pub enum ItemStatus {
        /// Still being generated.
        InProgress = "in_progress",
        /// Done.
        Completed = "completed",
        /// Cut short (token limit, content filter).
        Incomplete = "incomplete",
    }
}

open_enum! {
    /// `phase` of an assistant message (models that comment before they answer).
    pub enum Phase {
        /// Progress commentary before the answer.
        Commentary = "commentary",
        /// The answer.
        FinalAnswer = "final_answer",
    }
}

wire_struct! {
    /// A message item: input (any role) or output (`assistant`).
    pub struct Message {
        /// `"message"` when the item came with `type`; `None` when it came without (an
        /// easy input message), and then no `type` is written back.
        opt kind: String = "type",
        /// Who wrote it.
        req role: Role = "role",
        /// A string (input messages only) or an array of content parts: `input_text`,
        /// `input_image`, `input_file` in input; `output_text`, `refusal` in output.
        req content: TextOrParts<ContentPart> = "content",
        /// Item id (`msg_…`), on output messages and their replay.
        opt id: String = "id",
        /// Item status, on output messages and their replay.
        opt status: ItemStatus = "status",
        /// `commentary` or `final_answer` (assistant messages of some models).
        opt phase: Phase = "phase",
    }
}

wire_tagged! {
    /// A content part of a message, tagged by `type`.
    pub enum ContentPart, tag = "type" {
        /// `{"type":"input_text","text":…}`
        InputText(TextPart) = "input_text",
        /// `{"type":"input_image",…}`: an image by URL (https or `data:`) or file id.
        InputImage(InputImage) = "input_image",
        /// `{"type":"input_file",…}`: a file (PDF, …) by id, URL or inline data.
        InputFile(InputFile) = "input_file",
        /// `{"type":"output_text","text":…,"annotations":[…]}`: model text.
        OutputText(OutputText) = "output_text",
        /// `{"type":"refusal","refusal":…}`: the model refused.
        Refusal(RefusalPart) = "refusal",
        /// `{"type":"reasoning_text","text":…}`: raw reasoning (reasoning item content,
        /// and the `part` of `response.content_part.*` events of a reasoning item).
        ReasoningText(TextPart) = "reasoning_text",
    }
}

wire_struct! {
    /// A part that is just text (`input_text`, `reasoning_text`, `summary_text`).
    #[derive(Default)]
    pub struct TextPart {
        /// The text.
        req text: String = "text",
    }
}

wire_struct! {
    /// An image input part.
    #[derive(Default)]
    pub struct InputImage {
        /// An `https://` URL or a `data:<media type>;base64,<data>` URL.
        opt image_url: String = "image_url",
        /// Id of an uploaded file.
        opt file_id: String = "file_id",
        /// `low`, `high`, `auto` or `original` (required by the SDK in messages).
        opt detail: String = "detail",
    }
}

wire_struct! {
    /// A file input part: one of `file_id`, `file_url`, or `file_data` with `filename`.
    #[derive(Default)]
    pub struct InputFile {
        /// Id of an uploaded file.
        opt file_id: String = "file_id",
        /// URL of the file.
        opt file_url: String = "file_url",
        /// Inline file: base64 data, or a `data:<media type>;base64,…` URL.
        opt file_data: String = "file_data",
        /// File name, for inline data.
        opt filename: String = "filename",
        /// `auto`, `low` or `high`.
        opt detail: String = "detail",
    }
}

wire_struct! {
    /// Model text in an output message.
    #[derive(Default)]
    pub struct OutputText {
        /// The text.
        req text: String = "text",
        /// Citations into the text (always present from OpenAI, often `[]`).
        opt annotations: Vec<Annotation> = "annotations",
        /// Token log-probabilities (with `include: ["message.output_text.logprobs"]`).
        opt logprobs: Vec<Logprob> = "logprobs",
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

wire_tagged! {
    /// A citation attached to `output_text`, tagged by `type`.
    pub enum Annotation, tag = "type" {
        /// A web page (web search).
        UrlCitation(UrlCitation) = "url_citation",
        /// A file (file search).
        FileCitation(FileCitation) = "file_citation",
        /// A file in a code-interpreter container.
        ContainerFileCitation(ContainerFileCitation) = "container_file_citation",
        /// A path to a generated file.
        FilePath(FilePath) = "file_path",
    }
}

wire_struct! {
    /// A web citation.
    #[derive(Default)]
    pub struct UrlCitation {
        /// The cited URL.
        req url: String = "url",
        /// Page title.
        opt title: String = "title",
        /// 0-based character index where the cited span starts in the text.
        opt start_index: u64 = "start_index",
        /// 0-based character index just past the cited span.
        opt end_index: u64 = "end_index",
    }
}

wire_struct! {
    /// A file citation.
    #[derive(Default)]
    pub struct FileCitation {
        /// The cited file.
        req file_id: String = "file_id",
        /// Its name.
        opt filename: String = "filename",
        /// 0-based character index in the text the citation is attached to.
        opt index: u64 = "index",
    }
}

wire_struct! {
    /// A citation of a file in a container.
    #[derive(Default)]
    pub struct ContainerFileCitation {
        /// The container.
        opt container_id: String = "container_id",
        /// The cited file.
        req file_id: String = "file_id",
        /// Its name.
        opt filename: String = "filename",
        /// 0-based character index where the cited span starts.
        opt start_index: u64 = "start_index",
        /// 0-based character index just past the cited span.
        opt end_index: u64 = "end_index",
    }
}

wire_struct! {
    /// A path to a file.
    #[derive(Default)]
    pub struct FilePath {
        /// The file.
        req file_id: String = "file_id",
        /// 0-based character index in the text.
        opt index: u64 = "index",
    }
}

wire_struct! {
    /// A function call item.
    pub struct FunctionCall {
        /// Call id (`call_…`), answered by a `function_call_output` with the same `call_id`.
        req call_id: String = "call_id",
        /// Function name.
        req name: String = "name",
        /// Arguments: JSON text as the model wrote it (may be invalid JSON; `""` while
        /// streaming starts).
        req arguments: Arguments = "arguments",
        /// Item id (`fc_…`); keep it when replaying.
        opt id: String = "id",
        /// Item status.
        opt status: ItemStatus = "status",
        /// Namespace of the function (tools loaded by tool search).
        opt namespace: String = "namespace",
    }
}

wire_struct! {
    /// A function result item. There is no error flag: an error is said in `output`.
    pub struct FunctionCallOutput {
        /// Id of the call this answers. Optional and nullable in the newest SDK types,
        /// but [`validate_request`] requires it in a request.
        opt call_id: String = "call_id",
        /// The result: a string, or `input_text` / `input_image` / `input_file` parts.
        req output: TextOrParts<ContentPart> = "output",
        /// Item id (`fc_…` output id), when replayed from a stored response.
        opt id: String = "id",
        /// Item status.
        opt status: ItemStatus = "status",
    }
}

wire_struct! {
    /// A reasoning item (reasoning models). Replay it with the item that followed it.
    #[derive(Default)]
    pub struct Reasoning {
        /// Item id (`rs_…`).
        req id: String = "id",
        /// Reasoning summary parts (`summary_text`); may be `[]`, but must be sent.
        req summary: Vec<SummaryPart> = "summary",
        /// Raw reasoning parts (`reasoning_text`), from servers that expose them.
        opt content: Vec<ContentPart> = "content",
        /// Opaque encrypted reasoning (with `include: ["reasoning.encrypted_content"]`),
        /// to send back unchanged for stateless multi-turn.
        opt encrypted_content: String = "encrypted_content",
        /// Item status.
        opt status: ItemStatus = "status",
    }
}

wire_tagged! {
    /// A part of a reasoning summary, tagged by `type`.
    pub enum SummaryPart, tag = "type" {
        /// `{"type":"summary_text","text":…}`
        SummaryText(TextPart) = "summary_text",
    }
}

wire_tagged! {
    /// A tool definition, tagged by `type`. Only function tools are modeled; hosted
    /// tools (`web_search`, `file_search`, `mcp`, `code_interpreter`, `custom`,
    /// `apply_patch`, …) are kept whole in `Other`.
    pub enum Tool, tag = "type" {
        /// `{"type":"function","name",…}`: flat, no `function` wrapper.
        Function(FunctionTool) = "function",
    }
}

wire_struct! {
    /// A function tool.
    #[derive(Default)]
    pub struct FunctionTool {
        /// Name: 1–64 of `[a-zA-Z0-9_-]`.
        req name: String = "name",
        /// What the function does.
        opt description: String = "description",
        /// JSON Schema of the arguments object.
        opt parameters: Value = "parameters",
        /// Structured-outputs strict mode (the SDK requires the key, nullable).
        opt strict: bool = "strict",
    }
}

wire_tagged! {
    /// A `tool_choice` given as an object. Hosted-tool choices (`{"type":"file_search"}`,
    /// `{"type":"web_search_preview"}`, …) are kept whole in `Other`.
    pub enum NamedToolChoice, tag = "type" {
        /// `{"type":"function","name":…}`: call this function.
        Function(NameChoice) = "function",
        /// `{"type":"custom","name":…}`: call this custom tool.
        Custom(NameChoice) = "custom",
        /// `{"type":"allowed_tools","mode","tools"}`: restrict the callable tools.
        AllowedTools(AllowedToolsChoice) = "allowed_tools",
        /// `{"type":"mcp","server_label","name"?}`: call a tool of this MCP server.
        Mcp(McpChoice) = "mcp",
    }
}

wire_struct! {
    /// Forces one tool by name.
    #[derive(Default)]
    pub struct NameChoice {
        /// The tool name.
        req name: String = "name",
    }
}

wire_struct! {
    /// Restricts the callable tools.
    #[derive(Default)]
    pub struct AllowedToolsChoice {
        /// `auto` or `required`.
        req mode: String = "mode",
        /// Tool references (`{"type":"function","name":…}`, …).
        req tools: Vec<Value> = "tools",
    }
}

wire_struct! {
    /// Forces a tool of an MCP server.
    #[derive(Default)]
    pub struct McpChoice {
        /// The server's label.
        req server_label: String = "server_label",
        /// The tool, if one.
        opt name: String = "name",
    }
}

string_or_object! {
    /// `tool_choice`: a mode string or an object naming a tool.
    pub enum ToolChoice, expecting = "\"none\", \"auto\", \"required\" or a tool-choice object" {
        /// `"none"`, `"auto"`, `"required"`.
        Mode(ToolChoiceMode),
        /// `{"type":"function","name":…}` and the other object forms.
        Named(NamedToolChoice),
    }
}

wire_struct! {
    /// `reasoning`: settings for reasoning models (echoed in the response).
    #[derive(Default)]
    pub struct ReasoningConfig {
        /// How hard to think.
        opt effort: ReasoningEffort = "effort",
        /// Reasoning summary: `auto`, `concise` or `detailed`.
        opt summary: String = "summary",
        /// Deprecated spelling of `summary`.
        opt generate_summary: String = "generate_summary",
    }
}

wire_struct! {
    /// `text`: output format and verbosity.
    #[derive(Default)]
    pub struct TextConfig {
        /// Plain text, any JSON object, or JSON matching a schema.
        opt format: TextFormat = "format",
        /// `low`, `medium` or `high`.
        opt verbosity: String = "verbosity",
    }
}

wire_tagged! {
    /// `text.format`, tagged by `type`.
    pub enum TextFormat, tag = "type" {
        /// Plain text.
        Text(NoFields) = "text",
        /// Any JSON object.
        JsonObject(NoFields) = "json_object",
        /// JSON matching a schema (flat: no `json_schema` wrapper, unlike Chat).
        JsonSchema(JsonSchemaFormat) = "json_schema",
    }
}

wire_struct! {
    /// A named JSON Schema for structured output.
    #[derive(Default)]
    pub struct JsonSchemaFormat {
        /// Schema name.
        req name: String = "name",
        /// The JSON Schema.
        req schema: Value = "schema",
        /// What the output is for.
        opt description: String = "description",
        /// Strict mode.
        opt strict: bool = "strict",
    }
}

wire_struct! {
    /// `stream_options`.
    #[derive(Default)]
    pub struct StreamOptions {
        /// Pad delta events with an `obfuscation` field.
        opt include_obfuscation: bool = "include_obfuscation",
    }
}

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

wire_tagged! {
    /// One event of a streamed response, tagged by `type` (the SSE `event:` name): every
    /// event of the SDK's `ResponseStreamEvent` union, plus `keepalive` and `ping`.
    /// An event type this crate does not know is kept whole in `Other`.
    ///
    /// The stream ends with `response.completed`, `response.incomplete` or
    /// `response.failed` (OpenAI sends no `[DONE]`; Open Responses servers end with a
    /// literal `data: [DONE]`, which [`crate::stream`] reports). Events of one item carry
    /// its `item_id` and `output_index`; key by `output_index`, since some servers (GitHub
    /// Copilot) rotate `item_id` on every event, and parallel calls interleave.
    pub enum StreamEvent, tag = "type" {
        /// The response was created (`status: in_progress`, empty `output`).
        Created(ResponseEvent) = "response.created",
        /// The response is queued (background).
        Queued(ResponseEvent) = "response.queued",
        /// The response is being generated.
        InProgress(ResponseEvent) = "response.in_progress",
        /// Terminal: the full response.
        Completed(ResponseEvent) = "response.completed",
        /// Terminal: the response was cut short (`incomplete_details`).
        Incomplete(ResponseEvent) = "response.incomplete",
        /// Terminal: the response failed (`error`).
        Failed(ResponseEvent) = "response.failed",
        /// An output item starts (a function call's `arguments` is `""` here).
        OutputItemAdded(OutputItemEvent) = "response.output_item.added",
        /// An output item is done: the complete item (use its `encrypted_content`).
        OutputItemDone(OutputItemEvent) = "response.output_item.done",
        /// A content part of a message or reasoning item starts.
        ContentPartAdded(ContentPartEvent) = "response.content_part.added",
        /// A content part is done.
        ContentPartDone(ContentPartEvent) = "response.content_part.done",
        /// Text to append to an `output_text` part.
        OutputTextDelta(TextDeltaEvent) = "response.output_text.delta",
        /// An `output_text` part's final text.
        OutputTextDone(TextDoneEvent) = "response.output_text.done",
        /// A citation added to an `output_text` part.
        OutputTextAnnotationAdded(AnnotationAddedEvent) = "response.output_text.annotation.added",
        /// Text to append to a `refusal` part.
        RefusalDelta(TextDeltaEvent) = "response.refusal.delta",
        /// A `refusal` part's final text.
        RefusalDone(RefusalDoneEvent) = "response.refusal.done",
        /// Argument text to append to a function call.
        FunctionCallArgumentsDelta(ArgumentsDeltaEvent) = "response.function_call_arguments.delta",
        /// A function call's final arguments (some servers send only this, no deltas).
        FunctionCallArgumentsDone(ArgumentsDoneEvent) = "response.function_call_arguments.done",
        /// Input text to append to a custom tool call.
        CustomToolCallInputDelta(ArgumentsDeltaEvent) = "response.custom_tool_call_input.delta",
        /// A custom tool call's final input.
        CustomToolCallInputDone(InputDoneEvent) = "response.custom_tool_call_input.done",
        /// A reasoning summary part starts.
        ReasoningSummaryPartAdded(SummaryPartEvent) = "response.reasoning_summary_part.added",
        /// A reasoning summary part is done.
        ReasoningSummaryPartDone(SummaryPartEvent) = "response.reasoning_summary_part.done",
        /// Text to append to a reasoning summary part.
        ReasoningSummaryTextDelta(SummaryTextDeltaEvent) = "response.reasoning_summary_text.delta",
        /// A reasoning summary part's final text.
        ReasoningSummaryTextDone(SummaryTextDoneEvent) = "response.reasoning_summary_text.done",
        /// Text to append to a `reasoning_text` part.
        ReasoningTextDelta(TextDeltaEvent) = "response.reasoning_text.delta",
        /// A `reasoning_text` part's final text.
        ReasoningTextDone(TextDoneEvent) = "response.reasoning_text.done",
        /// A web search call starts.
        WebSearchCallInProgress(ItemEvent) = "response.web_search_call.in_progress",
        /// A web search call is searching.
        WebSearchCallSearching(ItemEvent) = "response.web_search_call.searching",
        /// A web search call is done (the item follows in `output_item.done`).
        WebSearchCallCompleted(ItemEvent) = "response.web_search_call.completed",
        /// A file search call starts.
        FileSearchCallInProgress(ItemEvent) = "response.file_search_call.in_progress",
        /// A file search call is searching.
        FileSearchCallSearching(ItemEvent) = "response.file_search_call.searching",
        /// A file search call is done.
        FileSearchCallCompleted(ItemEvent) = "response.file_search_call.completed",
        /// A code interpreter call starts.
        CodeInterpreterCallInProgress(ItemEvent) = "response.code_interpreter_call.in_progress",
        /// A code interpreter call is running its code.
        CodeInterpreterCallInterpreting(ItemEvent) = "response.code_interpreter_call.interpreting",
        /// A code interpreter call is done.
        CodeInterpreterCallCompleted(ItemEvent) = "response.code_interpreter_call.completed",
        /// Code to append to a code interpreter call.
        CodeInterpreterCallCodeDelta(ArgumentsDeltaEvent) = "response.code_interpreter_call_code.delta",
        /// A code interpreter call's final code.
        CodeInterpreterCallCodeDone(CodeDoneEvent) = "response.code_interpreter_call_code.done",
        /// An image generation call starts.
        ImageGenerationCallInProgress(ItemEvent) = "response.image_generation_call.in_progress",
        /// An image generation call is generating.
        ImageGenerationCallGenerating(ItemEvent) = "response.image_generation_call.generating",
        /// A partial image of an image generation call.
        ImageGenerationCallPartialImage(PartialImageEvent) = "response.image_generation_call.partial_image",
        /// An image generation call is done.
        ImageGenerationCallCompleted(ItemEvent) = "response.image_generation_call.completed",
        /// An MCP tool call starts.
        McpCallInProgress(ItemEvent) = "response.mcp_call.in_progress",
        /// An MCP tool call is done.
        McpCallCompleted(ItemEvent) = "response.mcp_call.completed",
        /// An MCP tool call failed.
        McpCallFailed(ItemEvent) = "response.mcp_call.failed",
        /// Argument text to append to an MCP tool call.
        McpCallArgumentsDelta(ArgumentsDeltaEvent) = "response.mcp_call_arguments.delta",
        /// An MCP tool call's final arguments.
        McpCallArgumentsDone(ArgumentsDoneEvent) = "response.mcp_call_arguments.done",
        /// Listing an MCP server's tools starts.
        McpListToolsInProgress(ItemEvent) = "response.mcp_list_tools.in_progress",
        /// Listing an MCP server's tools is done.
        McpListToolsCompleted(ItemEvent) = "response.mcp_list_tools.completed",
        /// Listing an MCP server's tools failed.
        McpListToolsFailed(ItemEvent) = "response.mcp_list_tools.failed",
        /// Diff text to append to an apply-patch call's operation (not in the SDK types;
        /// sent by OpenAI for the `apply_patch` tool).
        ApplyPatchCallOperationDiffDelta(ArgumentsDeltaEvent) = "response.apply_patch_call_operation_diff.delta",
        /// An apply-patch call's final diff (not in the SDK types).
        ApplyPatchCallOperationDiffDone(DiffDoneEvent) = "response.apply_patch_call_operation_diff.done",
        /// A shell call's command starts.
        ShellCallCommandAdded(ShellCommandEvent) = "response.shell_call_command.added",
        /// Text to append to a shell call's command.
        ShellCallCommandDelta(ShellCommandEvent) = "response.shell_call_command.delta",
        /// A shell call's final command.
        ShellCallCommandDone(ShellCommandEvent) = "response.shell_call_command.done",
        /// Output of a shell call's command.
        ShellCallOutputContentDelta(ShellOutputEvent) = "response.shell_call_output_content.delta",
        /// The whole output of a shell call's command.
        ShellCallOutputContentDone(ShellOutputEvent) = "response.shell_call_output_content.done",
        /// Server-side context compaction is running.
        CompactionCompacting(ItemEvent) = "response.compaction.compacting",
        /// Base64 audio to append (`modalities: ["audio"]`).
        AudioDelta(AudioEvent) = "response.audio.delta",
        /// The audio is done.
        AudioDone(AudioEvent) = "response.audio.done",
        /// Transcript text of the audio to append.
        AudioTranscriptDelta(AudioEvent) = "response.audio.transcript.delta",
        /// The audio transcript is done.
        AudioTranscriptDone(AudioEvent) = "response.audio.transcript.done",
        /// An error, followed by `response.failed`.
        Error(ErrorEvent) = "error",
        /// A heartbeat on long-running streams (not in the SDK types; seen from OpenAI:
        /// `{"type":"keepalive","sequence_number":466}`). Carries nothing.
        Keepalive(MarkerEvent) = "keepalive",
        /// A heartbeat some compatible servers send. Carries nothing.
        Ping(MarkerEvent) = "ping",
    }
}

wire_struct! {
    /// A lifecycle event carrying the whole response.
    pub struct ResponseEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// The response so far (complete in terminal events).
        req response: Box<Response> = "response",
    }
}

wire_struct! {
    /// `response.output_item.added` / `.done`.
    pub struct OutputItemEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// The item (partial in `.added`, complete in `.done`).
        req item: Item = "item",
    }
}

wire_struct! {
    /// `response.content_part.added` / `.done`.
    pub struct ContentPartEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item the part belongs to.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `content`.
        req content_index: u32 = "content_index",
        /// The part (empty text in `.added`).
        req part: ContentPart = "part",
    }
}

wire_struct! {
    /// A text fragment of a content part (output text, refusal or reasoning text).
    #[derive(Default)]
    pub struct TextDeltaEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `content`.
        req content_index: u32 = "content_index",
        /// Text to append.
        req delta: String = "delta",
        /// Log-probabilities of the fragment's tokens (output text).
        opt logprobs: Vec<Logprob> = "logprobs",
        /// Random padding that hides the fragment's length (`stream_options.include_obfuscation`).
        opt obfuscation: String = "obfuscation",
    }
}

wire_struct! {
    /// The final text of a content part (output text or reasoning text).
    #[derive(Default)]
    pub struct TextDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `content`.
        req content_index: u32 = "content_index",
        /// The whole text.
        req text: String = "text",
        /// Log-probabilities of the text's tokens (output text).
        opt logprobs: Vec<Logprob> = "logprobs",
    }
}

wire_struct! {
    /// `response.refusal.done`.
    #[derive(Default)]
    pub struct RefusalDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `content`.
        req content_index: u32 = "content_index",
        /// The whole refusal.
        req refusal: String = "refusal",
    }
}

wire_struct! {
    /// Text to append to an item, keyed by `item_id` / `output_index`: a function call's
    /// or MCP call's arguments, a custom tool call's input, a code interpreter call's code,
    /// an apply-patch call's diff.
    #[derive(Default)]
    pub struct ArgumentsDeltaEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item (`fc_…` for a function call).
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// Argument text to append.
        req delta: String = "delta",
        /// Random padding that hides the fragment's length (`stream_options.include_obfuscation`).
        opt obfuscation: String = "obfuscation",
    }
}

wire_struct! {
    /// `response.function_call_arguments.done` and `response.mcp_call_arguments.done`.
    #[derive(Default)]
    pub struct ArgumentsDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item (`fc_…` for a function call).
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// The whole arguments text.
        req arguments: String = "arguments",
        /// The function name (in the OpenAPI spec; not sent by every server).
        opt name: String = "name",
    }
}

wire_struct! {
    /// `response.reasoning_summary_part.added` / `.done`.
    pub struct SummaryPartEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id (`rs_…`) of the reasoning item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `summary`.
        req summary_index: u32 = "summary_index",
        /// The part (empty text in `.added`).
        req part: SummaryPart = "part",
        /// `.done`: the part's status (`completed`).
        opt status: ItemStatus = "status",
    }
}

wire_struct! {
    /// `response.reasoning_summary_text.delta`.
    #[derive(Default)]
    pub struct SummaryTextDeltaEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id (`rs_…`) of the reasoning item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `summary`.
        req summary_index: u32 = "summary_index",
        /// Text to append.
        req delta: String = "delta",
        /// Random padding that hides the fragment's length (`stream_options.include_obfuscation`).
        opt obfuscation: String = "obfuscation",
    }
}

wire_struct! {
    /// `response.reasoning_summary_text.done`.
    #[derive(Default)]
    pub struct SummaryTextDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id (`rs_…`) of the reasoning item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `summary`.
        req summary_index: u32 = "summary_index",
        /// The whole summary part.
        req text: String = "text",
    }
}

wire_struct! {
    /// Progress of a hosted-tool item (`*.in_progress`, `*.searching`, `*.interpreting`,
    /// `*.generating`, `*.completed`, `*.failed`, `compaction.compacting`): which item, no
    /// content (the item itself comes in `output_item.added` / `.done`).
    #[derive(Default)]
    pub struct ItemEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
    }
}

wire_struct! {
    /// `response.custom_tool_call_input.done`.
    #[derive(Default)]
    pub struct InputDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id (`ctc_…`) of the custom tool call item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// The whole input text.
        req input: String = "input",
    }
}

wire_struct! {
    /// `response.code_interpreter_call_code.done`.
    #[derive(Default)]
    pub struct CodeDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the code interpreter call item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// The whole code.
        req code: String = "code",
    }
}

wire_struct! {
    /// `response.apply_patch_call_operation_diff.done`.
    #[derive(Default)]
    pub struct DiffDoneEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id (`apc_…`) of the apply-patch call item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// The whole diff of the operation.
        req diff: String = "diff",
    }
}

wire_struct! {
    /// `response.output_text.annotation.added`.
    #[derive(Default)]
    pub struct AnnotationAddedEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the message item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the part in the item's `content`.
        req content_index: u32 = "content_index",
        /// 0-based index of the annotation in the part's `annotations`.
        req annotation_index: u32 = "annotation_index",
        /// The citation.
        opt annotation: Annotation = "annotation",
    }
}

wire_struct! {
    /// `response.image_generation_call.partial_image`.
    #[derive(Default)]
    pub struct PartialImageEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the image generation call item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of this partial image.
        req partial_image_index: u32 = "partial_image_index",
        /// The partial image, base64.
        req partial_image_b64: String = "partial_image_b64",
        /// `transparent`, `opaque` or `auto`.
        opt background: String = "background",
        /// `png`, `webp` or `jpeg`.
        opt output_format: String = "output_format",
        /// `low`, `medium`, `high` or `auto`.
        opt quality: String = "quality",
        /// `1024x1024`, … or `auto`.
        opt size: String = "size",
    }
}

wire_struct! {
    /// `response.shell_call_command.added` / `.delta` / `.done`: a command of a shell call,
    /// keyed by `output_index` and `command_index`.
    #[derive(Default)]
    pub struct ShellCommandEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// 0-based index of the shell call item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the command in the call.
        req command_index: u32 = "command_index",
        /// The command so far (`.added`) or whole (`.done`).
        opt command: String = "command",
        /// Command text to append (`.delta`).
        opt delta: String = "delta",
        /// Random padding that hides the fragment's length (`.delta`).
        opt obfuscation: String = "obfuscation",
    }
}

wire_struct! {
    /// `response.shell_call_output_content.delta` / `.done`: output of a shell call's
    /// command.
    #[derive(Default)]
    pub struct ShellOutputEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Id of the shell call output item.
        req item_id: String = "item_id",
        /// 0-based index of the item in `output`.
        req output_index: u32 = "output_index",
        /// 0-based index of the command in the call.
        req command_index: u32 = "command_index",
        /// Output to append (`.delta`): `{"stdout"|"stderr": …}`.
        opt delta: Value = "delta",
        /// The whole output (`.done`): stdout, stderr and outcome entries.
        opt output: Vec<Value> = "output",
    }
}

wire_struct! {
    /// `response.audio.*`: a piece of the audio answer or its transcript (`.delta`), or
    /// the end of it (`.done`, no `delta`).
    #[derive(Default)]
    pub struct AudioEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Base64 audio (`audio.delta`) or transcript text (`audio.transcript.delta`) to
        /// append.
        opt delta: String = "delta",
    }
}

wire_struct! {
    /// An event that carries nothing but its position (`keepalive`, `ping`).
    #[derive(Default)]
    pub struct MarkerEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
    }
}

wire_struct! {
    /// An `error` event. The SDK types put `code`, `message` and `param` at the top;
    /// OpenAI sends them nested instead, `{"type":"error","sequence_number":2,
    /// "error":{"type","code","message","param"}}` (openai/openai-dotnet#849): both are
    /// read.
    #[derive(Default)]
    pub struct ErrorEvent {
        /// 0-based position of the event in the stream.
        opt sequence_number: u64 = "sequence_number",
        /// Error code (SDK shape).
        opt code: Value = "code",
        /// Human-readable message (SDK shape).
        opt message: String = "message",
        /// The request parameter at fault (SDK shape).
        opt param: String = "param",
        /// The error (shape seen on the wire).
        opt error: ErrorDetail = "error",
    }
}

impl ErrorEvent {
    /// The message, from either shape.
    pub fn message(&self) -> Option<&str> {
        self.message
            .as_deref()
            .or_else(|| self.error.as_ref().and_then(|e| e.message.as_deref()))
    }
}

/// Checks what the types leave open: every message role is one the Responses API knows,
/// and every `function_call_output` names the call it answers.
pub fn validate_request(request: &Request) -> Result<(), Error> {
    let Some(Input::Items(items)) = &request.input else {
        return Ok(());
    };
    for (i, item) in items.iter().enumerate() {
        match item {
            Item::Message(m) => {
                if let Role::Other(role) = &m.role {
                    return Err(crate::common::unknown_role_named(
                        &format!("/input/{i}"),
                        &Value::from(role.as_str()).to_string(),
                        Role::KNOWN,
                    ));
                }
            }
            Item::FunctionCallOutput(o) if o.call_id.is_none() => {
                return Err(Error::new(
                    Category::Shape,
                    format!("/input/{i}/call_id"),
                    "missing field (a function_call_output needs the `call_id` of the call it answers)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
