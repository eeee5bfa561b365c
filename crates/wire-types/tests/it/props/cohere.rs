//! `cohere`: requests, responses and stream events survive write → read.

use super::*;
use wire_types::cohere::*;
use wire_types::{Arguments, TextOrParts};

fn document() -> impl Strategy<Value = Document> {
    (
        prop::collection::vec((ident(), text().prop_map(Value::String)), 1..4),
        maybe(ident()),
    )
        .prop_map(|(data, id)| Document {
            data: data.into_iter().collect(),
            id,
            extra: Extra::new(),
        })
}

fn item() -> impl Strategy<Value = Content> {
    prop_oneof![
        (text(), extra()).prop_map(|(text, extra)| Content::Text(TextContent { text, extra })),
        image_url().prop_map(|image_url| Content::ImageUrl(ImageUrlContent {
            image_url,
            extra: Extra::new(),
        })),
        text().prop_map(|thinking| Content::Thinking(ThinkingContent {
            thinking,
            extra: Extra::new()
        })),
        document().prop_map(|document| Content::Document(DocumentContent {
            document,
            extra: Extra::new()
        })),
        other_tagged("type", Content::KNOWN).prop_map(Content::Other),
    ]
}

fn content() -> impl Strategy<Value = TextOrParts<Content>> {
    text_or_parts(item())
}

fn tool_call() -> impl Strategy<Value = ToolCall> {
    (
        maybe(ident()),
        maybe(Just("function".to_owned())),
        maybe((maybe(ident()), maybe(text().prop_map(Arguments::Text)))),
        extra(),
    )
        .prop_map(|(id, kind, function, extra)| ToolCall {
            id,
            kind,
            function: function.map(|(name, arguments)| FunctionCall {
                name,
                arguments,
                extra: Extra::new(),
            }),
            extra,
        })
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        (maybe(ident()), maybe(object())).prop_map(|(id, tool_output)| Source::Tool(ToolSource {
            id,
            tool_output,
            extra: Extra::new()
        })),
        (maybe(ident()), maybe(object())).prop_map(|(id, document)| Source::Document(
            DocumentSource {
                id,
                document,
                extra: Extra::new()
            }
        )),
        other_tagged("type", Source::KNOWN).prop_map(Source::Other),
    ]
}

fn citation() -> impl Strategy<Value = Citation> {
    (
        (maybe(0u64..500), maybe(0u64..500), maybe(text())),
        maybe(prop::collection::vec(source(), 0..3)),
        maybe(prop_oneof![
            Just(CitationType::TextContent),
            Just(CitationType::Plan),
            other_str(CitationType::KNOWN).prop_map(CitationType::Other),
        ]),
    )
        .prop_map(|((start, end, text), sources, kind)| Citation {
            start,
            end,
            text,
            sources,
            kind,
            ..Default::default()
        })
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        content().prop_map(|content| Message::System(SystemMessage {
            content,
            extra: Extra::new()
        })),
        (content(), extra())
            .prop_map(|(content, extra)| Message::User(UserMessage { content, extra })),
        (
            maybe(content()),
            maybe(text()),
            maybe(prop::collection::vec(tool_call(), 0..3)),
            maybe(prop::collection::vec(citation(), 0..2))
        )
            .prop_map(|(content, tool_plan, tool_calls, citations)| {
                Message::Assistant(AssistantMessage {
                    content,
                    tool_plan,
                    tool_calls,
                    citations,
                    extra: Extra::new(),
                })
            }),
        (ident(), content()).prop_map(|(tool_call_id, content)| Message::Tool(ToolMessage {
            tool_call_id,
            content,
            extra: Extra::new()
        })),
        other_tagged("role", Message::KNOWN).prop_map(Message::Other),
    ]
}

fn tool() -> impl Strategy<Value = Tool> {
    function_tool()
}

fn request_document() -> impl Strategy<Value = RequestDocument> {
    prop_oneof![
        text().prop_map(RequestDocument::Text),
        document().prop_map(RequestDocument::Object)
    ]
}

fn request() -> impl Strategy<Value = Request> {
    (
        conversation(message(), tool()),
        maybe(prop::collection::vec(request_document(), 0..3)),
        (
            maybe(prop_oneof![
                Just(ToolChoice::Required),
                Just(ToolChoice::None),
                other_str(ToolChoice::KNOWN).prop_map(ToolChoice::Other),
            ]),
            maybe(prop_oneof![
                Just(ThinkingType::Enabled),
                Just(ThinkingType::Disabled)
            ]),
            maybe(0u64..10_000),
        ),
        (
            maybe(number()),
            maybe(number()),
            maybe(0u64..500),
            maybe(any::<bool>()),
            extra(),
        ),
    )
        .prop_map(
            |(
                (model, messages, tools),
                documents,
                (tool_choice, thinking, budget),
                (temperature, p, k, strict_tools, extra),
            )| {
                Request {
                    model,
                    messages,
                    tools,
                    documents,
                    tool_choice,
                    thinking: thinking.map(|kind| Thinking {
                        kind,
                        token_budget: budget,
                        extra: Extra::new(),
                    }),
                    temperature,
                    p,
                    k,
                    strict_tools,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn usage() -> impl Strategy<Value = Usage> {
    (
        0u64..1000,
        0u64..1000,
        0u64..5000,
        0u64..5000,
        maybe(0u64..5000),
    )
        .prop_map(|(bi, bo, ti, to, cached_tokens)| Usage {
            billed_units: Some(BilledUnits {
                input_tokens: Some(bi),
                output_tokens: Some(bo),
                ..Default::default()
            }),
            tokens: Some(Tokens {
                input_tokens: Some(ti),
                output_tokens: Some(to),
                extra: Extra::new(),
            }),
            cached_tokens,
            extra: Extra::new(),
        })
}

fn response_message() -> impl Strategy<Value = ResponseMessage> {
    (
        maybe(prop::collection::vec(item(), 0..3)),
        maybe(text()),
        maybe(prop::collection::vec(tool_call(), 0..3)),
        maybe(prop::collection::vec(citation(), 0..2)),
    )
        .prop_map(
            |(content, tool_plan, tool_calls, citations)| ResponseMessage {
                role: Some("assistant".to_owned()),
                content,
                tool_plan,
                tool_calls,
                citations,
                extra: Extra::new(),
            },
        )
}

fn response() -> impl Strategy<Value = Response> {
    (
        maybe(ident()),
        maybe(open(FinishReason::KNOWN)),
        response_message(),
        maybe(usage()),
        extra(),
    )
        .prop_map(|(id, finish_reason, message, usage, extra)| Response {
            id,
            finish_reason,
            message,
            usage,
            extra,
            ..Default::default()
        })
}

fn stream_event() -> impl Strategy<Value = StreamEvent> {
    prop_oneof![
        (maybe(ident()), response_message()).prop_map(|(id, message)| StreamEvent::MessageStart(
            MessageStartEvent {
                id,
                delta: Some(MessageStartDelta {
                    message: Some(message),
                    extra: Extra::new()
                }),
                extra: Extra::new(),
            }
        )),
        (
            maybe(0u32..8),
            maybe(prop_oneof![
                Just(ContentType::Text),
                Just(ContentType::Thinking),
                other_str(ContentType::KNOWN).prop_map(ContentType::Other)
            ]),
            maybe(text()),
            maybe(text())
        )
            .prop_map(|(index, kind, text, thinking)| {
                StreamEvent::ContentDelta(ContentEvent {
                    index,
                    delta: Some(ContentDelta {
                        message: Some(ContentDeltaMessage {
                            content: Some(ContentFragment {
                                kind,
                                text,
                                thinking,
                                extra: Extra::new(),
                            }),
                            extra: Extra::new(),
                        }),
                        extra: Extra::new(),
                    }),
                    ..Default::default()
                })
            }),
        maybe(0u32..8).prop_map(|index| StreamEvent::ContentEnd(IndexEvent {
            index,
            extra: Extra::new()
        })),
        text().prop_map(|plan| StreamEvent::ToolPlanDelta(ToolPlanDeltaEvent {
            delta: Some(ToolPlanDelta {
                message: Some(ToolPlanDeltaMessage {
                    tool_plan: Some(plan),
                    extra: Extra::new()
                }),
                extra: Extra::new(),
            }),
            extra: Extra::new(),
        })),
        (maybe(0u32..8), tool_call()).prop_map(|(index, call)| StreamEvent::ToolCallStart(
            ToolCallEvent {
                index,
                delta: Some(ToolCallDelta {
                    message: Some(ToolCallDeltaMessage {
                        tool_calls: Some(call),
                        extra: Extra::new()
                    }),
                    extra: Extra::new(),
                }),
                extra: Extra::new(),
            }
        )),
        (maybe(0u32..8), citation()).prop_map(|(index, citation)| StreamEvent::CitationStart(
            CitationStartEvent {
                index,
                delta: Some(CitationDelta {
                    message: Some(CitationDeltaMessage {
                        citations: Some(citation),
                        extra: Extra::new()
                    }),
                    extra: Extra::new(),
                }),
                extra: Extra::new(),
            }
        )),
        (
            maybe(open(FinishReason::KNOWN)),
            maybe(usage()),
            maybe(text())
        )
            .prop_map(|(finish_reason, usage, error)| {
                StreamEvent::MessageEnd(MessageEndEvent {
                    id: None,
                    delta: Some(MessageEndDelta {
                        finish_reason,
                        usage,
                        error,
                        extra: Extra::new(),
                    }),
                    extra: Extra::new(),
                })
            }),
        (maybe(text()), extra())
            .prop_map(|(prompt, extra)| StreamEvent::Debug(DebugEvent { prompt, extra })),
        other_tagged("type", StreamEvent::KNOWN).prop_map(StreamEvent::Other),
    ]
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => stream_event(),
}
