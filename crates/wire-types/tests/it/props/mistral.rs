//! `mistral`: requests, responses and stream chunks survive write → read.

use super::*;
use wire_types::mistral::*;
use wire_types::{Arguments, TextOrParts};

fn leaf_chunk() -> impl Strategy<Value = ContentChunk> {
    prop_oneof![
        (text(), extra()).prop_map(|(text, extra)| ContentChunk::Text(TextChunk { text, extra })),
        prop::collection::vec(0u64..100, 0..3).prop_map(|reference_ids| ContentChunk::Reference(
            ReferenceChunk {
                reference_ids,
                extra: Extra::new()
            }
        )),
    ]
}

fn chunk() -> impl Strategy<Value = ContentChunk> {
    prop_oneof![
        leaf_chunk(),
        text().prop_map(|u| ContentChunk::ImageUrl(ImageUrlChunk {
            image_url: ImageUrlValue::Url(u),
            extra: Extra::new()
        })),
        image_url().prop_map(|image_url| {
            ContentChunk::ImageUrl(ImageUrlChunk {
                image_url: ImageUrlValue::Object(image_url),
                extra: Extra::new(),
            })
        }),
        (text(), maybe(ident())).prop_map(|(document_url, document_name)| {
            ContentChunk::DocumentUrl(DocumentUrlChunk {
                document_url,
                document_name,
                extra: Extra::new(),
            })
        }),
        text().prop_map(|input_audio| ContentChunk::InputAudio(InputAudioChunk {
            input_audio,
            extra: Extra::new()
        })),
        ident().prop_map(|file_id| ContentChunk::File(FileChunk {
            file_id,
            extra: Extra::new()
        })),
        (
            prop::collection::vec(leaf_chunk(), 0..3),
            maybe(any::<bool>())
        )
            .prop_map(|(thinking, closed)| {
                ContentChunk::Thinking(ThinkingChunk {
                    thinking,
                    closed,
                    extra: Extra::new(),
                })
            }),
        other_tagged("type", ContentChunk::KNOWN).prop_map(ContentChunk::Other),
    ]
}

fn content() -> impl Strategy<Value = TextOrParts<ContentChunk>> {
    text_or_parts(chunk())
}

fn arguments() -> impl Strategy<Value = Arguments> {
    prop_oneof![
        text().prop_map(Arguments::Text),
        object().prop_map(|m| Arguments::Json(Value::Object(m)))
    ]
}

fn tool_call() -> impl Strategy<Value = ToolCall> {
    (
        "[A-Za-z0-9]{9}",
        maybe(Just("function".to_owned())),
        ident(),
        arguments(),
        maybe(0u32..8),
        extra(),
    )
        .prop_map(|(id, kind, name, arguments, index, extra)| ToolCall {
            id: Some(id),
            kind,
            function: FunctionCall {
                name,
                arguments,
                extra: Extra::new(),
            },
            index,
            extra,
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
            maybe(prop::collection::vec(tool_call(), 0..3)),
            maybe(any::<bool>()),
            any::<bool>()
        )
            .prop_map(|(content, tool_calls, prefix, null_content)| {
                let mut extra = Extra::new();
                if content.is_none() && null_content {
                    extra.mark_null("content");
                }
                Message::Assistant(AssistantMessage {
                    content,
                    tool_calls,
                    prefix,
                    extra,
                })
            }),
        (content(), maybe("[A-Za-z0-9]{9}"), maybe(ident())).prop_map(
            |(content, tool_call_id, name)| {
                Message::Tool(ToolMessage {
                    content,
                    tool_call_id,
                    name,
                    extra: Extra::new(),
                })
            }
        ),
        other_tagged("role", Message::KNOWN).prop_map(Message::Other),
    ]
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        maybe(Just("function".to_owned())),
        ident(),
        maybe(text()),
        maybe(object().prop_map(Value::Object)),
        maybe(any::<bool>()),
    )
        .prop_map(|(kind, name, description, parameters, strict)| Tool {
            kind,
            function: FunctionDef {
                name,
                description,
                parameters,
                strict,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        })
}

fn tool_choice() -> impl Strategy<Value = ToolChoice> {
    prop_oneof![
        open(ToolChoiceMode::KNOWN).prop_map(ToolChoice::Mode),
        (maybe(Just("function".to_owned())), ident()).prop_map(|(kind, name)| ToolChoice::Named(
            NamedToolChoice {
                kind,
                function: NameRef {
                    name,
                    extra: Extra::new()
                },
                extra: Extra::new(),
            }
        )),
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
            maybe(any::<u64>()),
        ),
        (
            maybe(Just(PromptMode::Reasoning)),
            maybe(any::<bool>()),
            extra(),
        ),
    )
        .prop_map(
            |(
                (model, messages, tools),
                tool_choice,
                (parallel_tool_calls, max_tokens, temperature, random_seed),
                (prompt_mode, safe_prompt, extra),
            )| {
                Request {
                    model,
                    messages,
                    tools,
                    tool_choice,
                    parallel_tool_calls,
                    max_tokens,
                    temperature,
                    random_seed,
                    prompt_mode,
                    safe_prompt,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn usage() -> impl Strategy<Value = Usage> {
    (0u64..1000, 0u64..1000, maybe(0u64..1000)).prop_map(|(i, o, cached)| Usage {
        prompt_tokens: Some(i),
        completion_tokens: Some(o),
        total_tokens: Some(i + o),
        prompt_tokens_details: cached.map(|c| PromptTokensDetails {
            cached_tokens: Some(c),
            extra: Extra::new(),
        }),
        extra: Extra::new(),
    })
}

fn response() -> impl Strategy<Value = Response> {
    let choice = (
        maybe(content()),
        maybe(prop::collection::vec(tool_call(), 0..3)),
        maybe(open(FinishReason::KNOWN)),
    )
        .prop_map(|(content, tool_calls, finish_reason)| Choice {
            index: Some(0),
            message: ResponseMessage {
                role: Some("assistant".into()),
                content,
                tool_calls,
                ..Default::default()
            },
            finish_reason,
            logprobs: None,
            extra: Extra::new(),
        });
    (
        maybe("[0-9a-f]{32}"),
        prop::collection::vec(choice, 0..3),
        maybe(usage()),
        extra(),
    )
        .prop_map(|(id, choices, usage, extra)| Response {
            id,
            choices,
            usage,
            extra,
            ..Default::default()
        })
}

fn stream_event() -> impl Strategy<Value = StreamEvent> {
    let delta = (
        maybe(Just("assistant".to_owned())),
        maybe(content()),
        maybe(prop::collection::vec(tool_call(), 0..2)),
    )
        .prop_map(|(role, content, tool_calls)| Delta {
            role,
            content,
            tool_calls,
            extra: Extra::new(),
        });
    let choice = (
        maybe(delta),
        maybe(open(FinishReason::KNOWN)),
        any::<bool>(),
    )
        .prop_map(|(delta, finish_reason, null_finish)| {
            let mut extra = Extra::new();
            if finish_reason.is_none() && null_finish {
                extra.mark_null("finish_reason");
            }
            ChunkChoice {
                index: Some(0),
                delta,
                finish_reason,
                logprobs: None,
                extra,
            }
        });
    prop_oneof![
        (
            maybe("[0-9a-f]{32}"),
            prop::collection::vec(choice, 0..2),
            maybe(usage())
        )
            .prop_map(|(id, choices, usage)| {
                StreamEvent::Chunk(Chunk {
                    id,
                    object: Some("chat.completion.chunk".into()),
                    choices,
                    usage,
                    ..Default::default()
                })
            }),
        (text(), maybe(ident())).prop_map(|(message, kind)| StreamEvent::Error(ErrorResponse {
            object: Some("error".into()),
            message: Some(Value::String(message)),
            kind,
            ..Default::default()
        })),
    ]
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => stream_event(),
}
