//! `openai_responses`: requests, responses and stream events survive write → read.

use super::*;
use wire_types::openai_responses::*;
use wire_types::{Arguments, TextOrParts};

fn input_part() -> impl Strategy<Value = ContentPart> {
    prop_oneof![
        (text(), extra())
            .prop_map(|(text, extra)| ContentPart::InputText(TextPart { text, extra })),
        (
            maybe(text()),
            maybe(ident()),
            maybe(prop_oneof![Just("low".to_owned()), Just("auto".to_owned())])
        )
            .prop_map(
                |(image_url, file_id, detail)| ContentPart::InputImage(InputImage {
                    image_url,
                    file_id,
                    detail,
                    extra: Extra::new()
                })
            ),
        (maybe(ident()), maybe(text()), maybe(text()), maybe(text())).prop_map(
            |(file_id, file_url, file_data, filename)| {
                ContentPart::InputFile(InputFile {
                    file_id,
                    file_url,
                    file_data,
                    filename,
                    detail: None,
                    extra: Extra::new(),
                })
            }
        ),
        other_tagged("type", ContentPart::KNOWN).prop_map(ContentPart::Other),
    ]
}

fn annotation() -> impl Strategy<Value = Annotation> {
    prop_oneof![
        (text(), maybe(text()), maybe(0u64..5000), maybe(0u64..5000)).prop_map(
            |(url, title, start_index, end_index)| {
                Annotation::UrlCitation(UrlCitation {
                    url,
                    title,
                    start_index,
                    end_index,
                    extra: Extra::new(),
                })
            }
        ),
        (ident(), maybe(text()), maybe(0u64..5000)).prop_map(|(file_id, filename, index)| {
            Annotation::FileCitation(FileCitation {
                file_id,
                filename,
                index,
                extra: Extra::new(),
            })
        }),
        other_tagged("type", Annotation::KNOWN).prop_map(Annotation::Other),
    ]
}

fn logprob() -> impl Strategy<Value = Logprob> {
    (
        text(),
        number(),
        maybe(prop::collection::vec(any::<u8>(), 0..4)),
    )
        .prop_map(|(token, logprob, bytes)| Logprob {
            token,
            logprob,
            bytes,
            top_logprobs: Some(Vec::new()),
            extra: Extra::new(),
        })
}

fn output_part() -> impl Strategy<Value = ContentPart> {
    prop_oneof![
        (
            text(),
            maybe(prop::collection::vec(annotation(), 0..3)),
            maybe(prop::collection::vec(logprob(), 0..3))
        )
            .prop_map(|(text, annotations, logprobs)| ContentPart::OutputText(
                OutputText {
                    text,
                    annotations,
                    logprobs,
                    extra: Extra::new()
                }
            )),
        text().prop_map(|refusal| ContentPart::Refusal(RefusalPart {
            refusal,
            extra: Extra::new()
        })),
    ]
}

/// Input content: a string or input parts.
fn content() -> impl Strategy<Value = TextOrParts<ContentPart>> {
    text_or_parts(input_part())
}

fn message() -> impl Strategy<Value = Message> {
    let role = prop_oneof![
        Just(Role::User),
        Just(Role::Assistant),
        Just(Role::System),
        Just(Role::Developer),
        other_str(Role::KNOWN).prop_map(Role::Other),
    ];
    prop_oneof![
        // An easy input message, with or without `type`.
        (any::<bool>(), role, content(), extra()).prop_map(|(typed, role, content, extra)| {
            Message {
                kind: typed.then(|| "message".to_owned()),
                role,
                content,
                id: None,
                status: None,
                phase: None,
                extra,
            }
        }),
        // An output message, replayed.
        (
            ident(),
            prop::collection::vec(output_part(), 0..3),
            open(ItemStatus::KNOWN),
            maybe(Just(Phase::FinalAnswer))
        )
            .prop_map(|(id, parts, status, phase)| Message {
                kind: Some("message".to_owned()),
                role: Role::Assistant,
                content: TextOrParts::Parts(parts),
                id: Some(format!("msg_{id}")),
                status: Some(status),
                phase,
                extra: Extra::new(),
            }),
    ]
}

fn arguments() -> impl Strategy<Value = Arguments> {
    prop_oneof![
        text().prop_map(Arguments::Text),
        object().prop_map(|m| Arguments::Json(Value::Object(m)))
    ]
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        message().prop_map(Item::Message),
        (
            ident(),
            ident(),
            arguments(),
            maybe(ident()),
            maybe(open(ItemStatus::KNOWN)),
            extra()
        )
            .prop_map(
                |(call_id, name, arguments, id, status, extra)| Item::FunctionCall(FunctionCall {
                    call_id,
                    name,
                    arguments,
                    id,
                    status,
                    namespace: None,
                    extra,
                })
            ),
        (maybe(ident()), content(), any::<bool>()).prop_map(|(call_id, output, null_id)| {
            let mut extra = Extra::new();
            if call_id.is_none() && null_id {
                extra.mark_null("call_id");
            }
            Item::FunctionCallOutput(FunctionCallOutput {
                call_id,
                output,
                id: None,
                status: None,
                extra,
            })
        }),
        (
            ident(),
            prop::collection::vec(text(), 0..3),
            maybe(prop::collection::vec(text(), 0..2)),
            maybe(text()),
            any::<bool>()
        )
            .prop_map(
                |(id, summary, content, encrypted_content, null_encrypted)| {
                    let mut extra = Extra::new();
                    if encrypted_content.is_none() && null_encrypted {
                        extra.mark_null("encrypted_content");
                    }
                    Item::Reasoning(Reasoning {
                        id: format!("rs_{id}"),
                        summary: summary
                            .into_iter()
                            .map(|text| {
                                SummaryPart::SummaryText(TextPart {
                                    text,
                                    extra: Extra::new(),
                                })
                            })
                            .collect(),
                        content: content.map(|c| {
                            c.into_iter()
                                .map(|text| {
                                    ContentPart::ReasoningText(TextPart {
                                        text,
                                        extra: Extra::new(),
                                    })
                                })
                                .collect()
                        }),
                        encrypted_content,
                        status: None,
                        extra,
                    })
                }
            ),
        other_tagged("type", Item::KNOWN).prop_map(Item::Other),
    ]
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        text().prop_map(Input::Text),
        prop::collection::vec(item(), 0..6).prop_map(Input::Items),
    ]
}

fn tool() -> impl Strategy<Value = Tool> {
    prop_oneof![
        (
            ident(),
            maybe(text()),
            maybe(object().prop_map(Value::Object)),
            maybe(any::<bool>()),
            any::<bool>()
        )
            .prop_map(|(name, description, parameters, strict, null_strict)| {
                let mut extra = Extra::new();
                if strict.is_none() && null_strict {
                    extra.mark_null("strict");
                }
                Tool::Function(FunctionTool {
                    name,
                    description,
                    parameters,
                    strict,
                    extra,
                })
            }),
        other_tagged("type", Tool::KNOWN).prop_map(Tool::Other),
    ]
}

fn tool_choice() -> impl Strategy<Value = ToolChoice> {
    prop_oneof![
        open(ToolChoiceMode::KNOWN).prop_map(ToolChoice::Mode),
        ident().prop_map(
            |name| ToolChoice::Named(NamedToolChoice::Function(NameChoice {
                name,
                extra: Extra::new()
            }))
        ),
        (ident(), maybe(ident())).prop_map(|(server_label, name)| ToolChoice::Named(
            NamedToolChoice::Mcp(McpChoice {
                server_label,
                name,
                extra: Extra::new(),
            })
        )),
        other_tagged("type", NamedToolChoice::KNOWN)
            .prop_map(|m| ToolChoice::Named(NamedToolChoice::Other(m))),
    ]
}

fn request() -> impl Strategy<Value = Request> {
    (
        maybe(ident()),
        maybe(input()),
        maybe(text()),
        maybe(prop::collection::vec(tool(), 0..3)),
        maybe(tool_choice()),
        (
            maybe(any::<bool>()),
            maybe(0u64..100_000),
            maybe(number()),
            maybe(number()),
        ),
        (
            maybe(prop_oneof![Just("low"), Just("high")].prop_map(ReasoningEffort::from)),
            maybe(any::<bool>()),
            extra(),
        ),
    )
        .prop_map(
            |(
                model,
                input,
                instructions,
                tools,
                tool_choice,
                (parallel_tool_calls, max_output_tokens, temperature, top_p),
                (effort, store, extra),
            )| Request {
                model,
                input,
                instructions,
                tools,
                tool_choice,
                parallel_tool_calls,
                max_output_tokens,
                temperature,
                top_p,
                reasoning: effort.map(|effort| ReasoningConfig {
                    effort: Some(effort),
                    ..Default::default()
                }),
                store,
                extra,
                ..Default::default()
            },
        )
}

fn usage() -> impl Strategy<Value = Usage> {
    (0u64..10_000, 0u64..10_000, 0u64..1000, 0u64..1000).prop_map(|(i, o, cached, reasoning)| {
        Usage {
            input_tokens: Some(i),
            input_tokens_details: Some(InputTokensDetails {
                cached_tokens: Some(cached),
                ..Default::default()
            }),
            output_tokens: Some(o),
            output_tokens_details: Some(OutputTokensDetails {
                reasoning_tokens: Some(reasoning),
                extra: Extra::new(),
            }),
            total_tokens: Some(i + o),
            extra: Extra::new(),
        }
    })
}

fn response() -> impl Strategy<Value = Response> {
    let status = prop_oneof![
        Just(ResponseStatus::Completed),
        Just(ResponseStatus::Incomplete),
        Just(ResponseStatus::Failed),
        other_str(ResponseStatus::KNOWN).prop_map(ResponseStatus::Other),
    ];
    (
        maybe(ident()),
        maybe(status),
        prop::collection::vec(item(), 0..5),
        maybe(usage()),
        maybe(prop_oneof![
            Just(IncompleteReason::MaxOutputTokens),
            other_str(IncompleteReason::KNOWN).prop_map(IncompleteReason::Other),
        ]),
        (
            maybe(prop::collection::vec(tool(), 0..2)),
            maybe(tool_choice()),
            any::<bool>(),
            extra(),
        ),
    )
        .prop_map(
            |(id, status, output, usage, reason, (tools, tool_choice, null_error, extra))| {
                let mut extra = extra;
                if null_error {
                    extra.mark_null("error");
                }
                Response {
                    id: id.map(|i| format!("resp_{i}")),
                    object: Some("response".to_owned()),
                    status,
                    output,
                    usage,
                    incomplete_details: reason.map(|r| IncompleteDetails {
                        reason: Some(r),
                        extra: Extra::new(),
                    }),
                    tools,
                    tool_choice,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn event() -> impl Strategy<Value = StreamEvent> {
    prop_oneof![
        (maybe(0u64..1000), response()).prop_map(|(sequence_number, response)| {
            StreamEvent::Completed(ResponseEvent {
                sequence_number,
                response: Box::new(response),
                extra: Extra::new(),
            })
        }),
        (maybe(0u64..1000), 0u32..10, item()).prop_map(|(sequence_number, output_index, item)| {
            StreamEvent::OutputItemDone(OutputItemEvent {
                sequence_number,
                output_index,
                item,
                extra: Extra::new(),
            })
        }),
        (
            maybe(0u64..1000),
            ident(),
            0u32..10,
            0u32..4,
            text(),
            maybe(ident())
        )
            .prop_map(
                |(sequence_number, item_id, output_index, content_index, delta, obfuscation)| {
                    StreamEvent::OutputTextDelta(TextDeltaEvent {
                        sequence_number,
                        item_id,
                        output_index,
                        content_index,
                        delta,
                        logprobs: Some(Vec::new()),
                        obfuscation,
                        extra: Extra::new(),
                    })
                }
            ),
        (maybe(0u64..1000), ident(), 0u32..10, text()).prop_map(
            |(sequence_number, item_id, output_index, delta)| {
                StreamEvent::FunctionCallArgumentsDelta(ArgumentsDeltaEvent {
                    sequence_number,
                    item_id,
                    output_index,
                    delta,
                    obfuscation: None,
                    extra: Extra::new(),
                })
            }
        ),
        (maybe(0u64..1000), ident(), 0u32..10, text(), maybe(ident())).prop_map(
            |(sequence_number, item_id, output_index, arguments, name)| {
                StreamEvent::FunctionCallArgumentsDone(ArgumentsDoneEvent {
                    sequence_number,
                    item_id,
                    output_index,
                    arguments,
                    name,
                    extra: Extra::new(),
                })
            }
        ),
        (maybe(0u64..1000), ident(), 0u32..10, 0u32..4, text()).prop_map(
            |(sequence_number, item_id, output_index, summary_index, delta)| {
                StreamEvent::ReasoningSummaryTextDelta(SummaryTextDeltaEvent {
                    sequence_number,
                    item_id,
                    output_index,
                    summary_index,
                    delta,
                    obfuscation: None,
                    extra: Extra::new(),
                })
            }
        ),
        (maybe(0u64..1000), maybe(text()), maybe(text())).prop_map(
            |(sequence_number, message, kind)| {
                StreamEvent::Error(ErrorEvent {
                    sequence_number,
                    error: Some(ErrorDetail {
                        message,
                        kind,
                        ..Default::default()
                    }),
                    ..Default::default()
                })
            }
        ),
        hosted_tool_event(),
        (maybe(0u64..1000), maybe(text()), any::<bool>()).prop_map(
            |(sequence_number, delta, transcript)| {
                let e = AudioEvent {
                    sequence_number,
                    delta,
                    extra: Extra::new(),
                };
                if transcript {
                    StreamEvent::AudioTranscriptDelta(e)
                } else {
                    StreamEvent::AudioDelta(e)
                }
            }
        ),
        (maybe(0u64..1000), extra()).prop_map(|(sequence_number, extra)| {
            StreamEvent::Keepalive(MarkerEvent {
                sequence_number,
                extra,
            })
        }),
        (maybe(0u64..1000), ident(), 0u32..10, text()).prop_map(
            |(sequence_number, item_id, output_index, code)| {
                StreamEvent::CodeInterpreterCallCodeDone(CodeDoneEvent {
                    sequence_number,
                    item_id,
                    output_index,
                    code,
                    extra: Extra::new(),
                })
            }
        ),
        (
            maybe(0u64..1000),
            ident(),
            0u32..10,
            0u32..4,
            0u32..4,
            maybe(ident())
        )
            .prop_map(
                |(sequence_number, item_id, output_index, content_index, annotation_index, url)| {
                    StreamEvent::OutputTextAnnotationAdded(AnnotationAddedEvent {
                        sequence_number,
                        item_id,
                        output_index,
                        content_index,
                        annotation_index,
                        annotation: url.map(|url| {
                            Annotation::UrlCitation(UrlCitation {
                                url,
                                ..Default::default()
                            })
                        }),
                        extra: Extra::new(),
                    })
                }
            ),
        (0u32..10, 0u32..4, maybe(text()), maybe(text())).prop_map(
            |(output_index, command_index, command, delta)| {
                StreamEvent::ShellCallCommandDelta(ShellCommandEvent {
                    output_index,
                    command_index,
                    command,
                    delta,
                    ..Default::default()
                })
            }
        ),
        other_tagged("type", StreamEvent::KNOWN).prop_map(StreamEvent::Other),
    ]
}

/// A hosted-tool progress event (every `ItemEvent` arm).
fn hosted_tool_event() -> impl Strategy<Value = StreamEvent> {
    const ARMS: &[fn(ItemEvent) -> StreamEvent] = &[
        StreamEvent::WebSearchCallInProgress,
        StreamEvent::WebSearchCallSearching,
        StreamEvent::WebSearchCallCompleted,
        StreamEvent::FileSearchCallInProgress,
        StreamEvent::FileSearchCallSearching,
        StreamEvent::FileSearchCallCompleted,
        StreamEvent::CodeInterpreterCallInProgress,
        StreamEvent::CodeInterpreterCallInterpreting,
        StreamEvent::CodeInterpreterCallCompleted,
        StreamEvent::ImageGenerationCallInProgress,
        StreamEvent::ImageGenerationCallGenerating,
        StreamEvent::ImageGenerationCallCompleted,
        StreamEvent::McpCallInProgress,
        StreamEvent::McpCallCompleted,
        StreamEvent::McpCallFailed,
        StreamEvent::McpListToolsInProgress,
        StreamEvent::McpListToolsCompleted,
        StreamEvent::McpListToolsFailed,
        StreamEvent::CompactionCompacting,
    ];
    (0..ARMS.len(), maybe(0u64..1000), ident(), 0u32..10, extra()).prop_map(
        |(arm, sequence_number, item_id, output_index, extra)| {
            ARMS[arm](ItemEvent {
                sequence_number,
                item_id,
                output_index,
                extra,
            })
        },
    )
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => event(),
}

/// A message's fields (`role`, `content`, `phase`) as unknown fields of an item of
/// another type: the case where `type` must decide over `role`.
fn strays() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec(
        (
            prop_oneof![
                Just("role"),
                Just("content"),
                Just("phase"),
                Just("x_other")
            ],
            prop_oneof![
                Just(Value::String("user".to_owned())),
                Just(Value::String("assistant".to_owned())),
                json(),
            ],
        ),
        0..4,
    )
    .prop_map(|kv| {
        let mut seen = Vec::new();
        kv.into_iter()
            .filter(|(k, _)| {
                let new = !seen.contains(k);
                seen.push(*k);
                new
            })
            .map(|(k, v)| (k.to_owned(), v))
            .collect()
    })
}

/// Any item, a non-message one perhaps carrying a message's fields as unknown ones (put
/// before `type` in an unknown item's map).
fn item_with_strays() -> impl Strategy<Value = Item> {
    (item(), strays()).prop_map(|(mut item, strays)| {
        // Unknown fields never take a modeled field's name (`content` is one of
        // `reasoning`'s).
        let extra = match &mut item {
            Item::FunctionCall(c) => Some((&mut c.extra, FunctionCall::FIELDS)),
            Item::FunctionCallOutput(o) => Some((&mut o.extra, FunctionCallOutput::FIELDS)),
            Item::Reasoning(r) => Some((&mut r.extra, Reasoning::FIELDS)),
            Item::Other(map) => {
                let mut front: Map<String, Value> = strays.iter().cloned().collect();
                for (k, v) in std::mem::take(map) {
                    front.insert(k, v);
                }
                *map = front;
                None
            }
            _ => None,
        };
        if let Some((extra, fields)) = extra {
            for (k, v) in strays
                .into_iter()
                .filter(|(k, _)| !fields.contains(&k.as_str()))
            {
                extra.insert(k, v);
            }
        }
        item
    })
}

proptest! {
    /// Every item variant, written and read again, is the same variant with the same
    /// value, also when a non-message item carries `role` or `content` (`type` decides).
    #[test]
    fn item_is_read_back_as_the_variant_written(item in item_with_strays()) {
        let text = wire_types::to_string(&item);
        let back: Item = wire_types::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert_eq!(back.tag(), item.tag(), "written as {}", text);
        prop_assert_eq!(&back, &item, "written as {}", text);
    }

}
