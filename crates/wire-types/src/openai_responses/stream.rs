//! The stream events of a streamed response: [`StreamEvent`] and the event bodies.

use super::*;

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
