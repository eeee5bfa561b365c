//! `openai_chat`: requests, responses and stream events survive write → read.

use super::*;
use wire_types::openai_chat::*;
use wire_types::{Arguments, TextOrParts};

fn part() -> impl Strategy<Value = ContentPart> {
    prop_oneof![
        (text(), extra()).prop_map(|(text, extra)| ContentPart::Text(TextPart { text, extra })),
        image_url().prop_map(|image_url| {
            ContentPart::ImageUrl(ImageUrlPart {
                image_url,
                extra: Extra::new(),
            })
        }),
        (text(), text()).prop_map(|(data, format)| ContentPart::InputAudio(InputAudioPart {
            input_audio: InputAudio {
                data,
                format,
                extra: Extra::new()
            },
            extra: Extra::new(),
        })),
        (maybe(ident()), maybe(text()), maybe(text())).prop_map(
            |(file_id, file_data, filename)| {
                ContentPart::File(FilePart {
                    file: FileRef {
                        file_id,
                        file_data,
                        filename,
                        extra: Extra::new(),
                    },
                    extra: Extra::new(),
                })
            }
        ),
        text().prop_map(|refusal| ContentPart::Refusal(RefusalPart {
            refusal,
            extra: Extra::new()
        })),
        other_tagged("type", ContentPart::KNOWN).prop_map(ContentPart::Other),
    ]
}

fn content() -> impl Strategy<Value = TextOrParts<ContentPart>> {
    text_or_parts(part())
}

fn arguments() -> impl Strategy<Value = Arguments> {
    prop_oneof![
        text().prop_map(Arguments::Text),
        object().prop_map(|m| Arguments::Json(Value::Object(m)))
    ]
}

fn tool_call() -> impl Strategy<Value = ToolCall> {
    prop_oneof![
        (
            maybe(ident()),
            prop_oneof![
                3 => Just(ToolCallType::Function),
                1 => other_str(ToolCallType::KNOWN).prop_map(ToolCallType::Other)
            ],
            ident(),
            arguments(),
            extra()
        )
            .prop_map(|(id, kind, name, arguments, extra)| {
                ToolCall {
                    id,
                    kind: Some(kind),
                    function: Some(FunctionCall {
                        name,
                        arguments,
                        extra: Extra::new(),
                    }),
                    extra,
                    ..Default::default()
                }
            }),
        (maybe(ident()), ident(), arguments()).prop_map(|(id, name, arguments)| ToolCall {
            id,
            name: Some(name),
            arguments: Some(Box::new(arguments)),
            ..Default::default()
        }),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        (content(), maybe(ident())).prop_map(|(content, name)| Message::System(SystemMessage {
            content,
            name,
            extra: Extra::new()
        })),
        content().prop_map(|content| Message::Developer(SystemMessage {
            content,
            name: None,
            extra: Extra::new()
        })),
        (content(), extra()).prop_map(|(content, extra)| Message::User(UserMessage {
            content,
            name: None,
            extra
        })),
        (
            maybe(content()),
            maybe(text()),
            maybe(prop::collection::vec(tool_call(), 0..3)),
            any::<bool>()
        )
            .prop_map(|(content, refusal, tool_calls, null_content)| {
                let mut extra = Extra::new();
                if content.is_none() && null_content {
                    extra.mark_null("content");
                }
                Message::Assistant(AssistantMessage {
                    content,
                    refusal,
                    tool_calls,
                    extra,
                    ..Default::default()
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
    prop_oneof![
        (
            ident(),
            maybe(text()),
            maybe(object().prop_map(Value::Object)),
            maybe(any::<bool>())
        )
            .prop_map(|(name, description, parameters, strict)| Tool::Function(
                FunctionTool {
                    function: FunctionDef {
                        name,
                        description,
                        parameters,
                        strict,
                        extra: Extra::new()
                    },
                    extra: Extra::new(),
                }
            )),
        other_tagged("type", Tool::KNOWN).prop_map(Tool::Other),
    ]
}

fn tool_choice() -> impl Strategy<Value = ToolChoice> {
    prop_oneof![
        open(ToolChoiceMode::KNOWN).prop_map(ToolChoice::Mode),
        ident().prop_map(
            |name| ToolChoice::Named(NamedToolChoice::Function(FunctionChoice {
                function: NameRef {
                    name,
                    extra: Extra::new()
                },
                extra: Extra::new(),
            }))
        ),
    ]
}

fn request() -> impl Strategy<Value = Request> {
    (
        conversation(message(), tool()),
        maybe(tool_choice()),
        (
            maybe(any::<bool>()),
            maybe(0u64..100_000),
            maybe(number()),
            maybe(number()),
        ),
        (
            maybe(any::<i64>()),
            maybe(prop_oneof![Just("low"), Just("high")].prop_map(ReasoningEffort::from)),
            extra(),
        ),
    )
        .prop_map(
            |(
                (model, messages, tools),
                tool_choice,
                (parallel_tool_calls, max_completion_tokens, temperature, top_p),
                (seed, reasoning_effort, extra),
            )| Request {
                model,
                messages,
                tools,
                tool_choice,
                parallel_tool_calls,
                max_completion_tokens,
                temperature,
                top_p,
                seed,
                reasoning_effort,
                extra,
                ..Default::default()
            },
        )
}

fn response() -> impl Strategy<Value = Response> {
    let choice = (
        maybe(content()),
        maybe(prop::collection::vec(tool_call(), 0..3)),
        maybe(prop_oneof![
            Just(FinishReason::Stop),
            Just(FinishReason::ToolCalls),
            other_str(FinishReason::KNOWN).prop_map(FinishReason::Other),
        ]),
    )
        .prop_map(|(content, tool_calls, finish_reason)| Choice {
            index: Some(0),
            message: Box::new(ResponseMessage {
                role: Some("assistant".into()),
                content,
                tool_calls,
                ..Default::default()
            }),
            finish_reason,
            logprobs: None,
            extra: Extra::new(),
        });
    (
        maybe(ident()),
        prop::collection::vec(choice, 0..3),
        maybe((0u64..1000, 0u64..1000)),
        extra(),
    )
        .prop_map(|(id, choices, usage, extra)| Response {
            id,
            choices,
            usage: usage.map(|(i, o)| Usage {
                prompt_tokens: Some(i),
                completion_tokens: Some(o),
                ..Default::default()
            }),
            extra,
            ..Default::default()
        })
}

fn finish_reason() -> impl Strategy<Value = FinishReason> {
    prop_oneof![
        Just(FinishReason::Stop),
        Just(FinishReason::ToolCalls),
        Just(FinishReason::Other(String::new())),
        other_str(FinishReason::KNOWN).prop_map(FinishReason::Other),
    ]
}

fn signature() -> impl Strategy<Value = ExtraContent> {
    (ident(), any::<bool>()).prop_map(|(thought_signature, vertex)| {
        let holder = Some(ThoughtSignatureHolder {
            thought_signature: Some(thought_signature),
            extra: Extra::new(),
        });
        if vertex {
            ExtraContent {
                vertex: holder,
                ..Default::default()
            }
        } else {
            ExtraContent {
                google: holder,
                ..Default::default()
            }
        }
    })
}

fn tool_call_delta() -> impl Strategy<Value = ToolCallDelta> {
    (
        maybe(0u32..4),
        maybe(ident()),
        maybe(Just(ToolCallType::Function)),
        maybe((maybe(ident()), maybe(text()))),
        maybe(signature()),
        extra(),
    )
        .prop_map(
            |(index, id, kind, function, extra_content, extra)| ToolCallDelta {
                index,
                id,
                kind,
                function: function.map(|(name, arguments)| FunctionCallDelta {
                    name,
                    arguments,
                    extra: Extra::new(),
                }),
                extra_content,
                extra,
            },
        )
}

fn chunk_choice() -> impl Strategy<Value = ChunkChoice> {
    (
        maybe(0u32..3),
        maybe((
            maybe(prop_oneof![
                Just(String::new()),
                Just("assistant".to_owned())
            ]),
            maybe(text()),
            maybe(text()),
            maybe(prop::collection::vec(tool_call_delta(), 0..3)),
            maybe(signature()),
        )),
        maybe(finish_reason()),
        maybe(prop::collection::vec((text(), number()), 0..3)),
        maybe(object()),
    )
        .prop_map(
            |(index, delta, finish_reason, logprobs, content_filter_results)| ChunkChoice {
                index,
                delta: delta.map(
                    |(role, content, reasoning, tool_calls, extra_content)| Delta {
                        role,
                        content,
                        reasoning,
                        tool_calls,
                        extra_content,
                        ..Default::default()
                    },
                ),
                finish_reason,
                logprobs: logprobs.map(|l| ChunkLogprobs {
                    content: Some(
                        l.into_iter()
                            .map(|(token, logprob)| Logprob {
                                token,
                                logprob,
                                bytes: None,
                                top_logprobs: Some(Vec::new()),
                                extra: Extra::new(),
                            })
                            .collect(),
                    ),
                    ..Default::default()
                }),
                content_filter_results,
                extra: Extra::new(),
            },
        )
}

fn stream_event() -> impl Strategy<Value = StreamEvent> {
    prop_oneof![
        4 => (
            ident(),
            maybe(prop::collection::vec(chunk_choice(), 0..3)),
            maybe((0u64..1000, 0u64..1000)),
            maybe(ident()),
            extra(),
        )
            .prop_map(|(id, choices, usage, obfuscation, extra)| {
                StreamEvent::Chunk(Chunk {
                    id: Some(id),
                    object: Some("chat.completion.chunk".to_owned()),
                    choices,
                    usage: usage.map(|(i, o)| Usage {
                        prompt_tokens: Some(i),
                        completion_tokens: Some(o),
                        ..Default::default()
                    }),
                    obfuscation,
                    extra,
                    ..Default::default()
                })
            }),
        1 => (maybe(text()), maybe(ident())).prop_map(|(message, kind)| {
            StreamEvent::Error(ErrorResponse {
                error: ErrorDetail {
                    message,
                    kind,
                    ..Default::default()
                },
                extra: Extra::new(),
            })
        }),
    ]
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => stream_event(),
}
