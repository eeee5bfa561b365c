//! The request body: [`Request`], its [`Input`] and the [`Item`]s it holds (the same
//! items a response's `output` replays), content, tools, tool choice and settings.

use super::*;

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
            Item::FunctionCall(c) => tagged(serializer, "function_call", |m| {
                c.serialize_tagged_fields(m, "type")
            }),
            Item::FunctionCallOutput(o) => tagged(serializer, "function_call_output", |m| {
                o.serialize_tagged_fields(m, "type")
            }),
            Item::Reasoning(r) => tagged(serializer, "reasoning", |m| {
                r.serialize_tagged_fields(m, "type")
            }),
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
