//! `anthropic`: requests, responses, stream events and error bodies survive write → read.

use super::*;
use wire_types::TextOrParts;
use wire_types::anthropic::*;

fn cache_control() -> BoxedStrategy<Box<CacheControl>> {
    (
        prop_oneof![3 => Just(CacheType::Ephemeral), 1 => other_str(CacheType::KNOWN).prop_map(CacheType::Other)],
        maybe(prop_oneof![
            Just(CacheTtl::FiveMinutes),
            Just(CacheTtl::OneHour),
            other_str(CacheTtl::KNOWN).prop_map(CacheTtl::Other),
        ]),
    )
        .prop_map(|(kind, ttl)| Box::new(CacheControl { kind, ttl, extra: Extra::new() }))
        .boxed()
}

fn text_block() -> BoxedStrategy<ContentBlock> {
    (
        text(),
        maybe(prop::collection::vec(json(), 0..3)),
        maybe(cache_control()),
        extra(),
        any::<bool>(),
    )
        .prop_map(
            |(text, citations, cache_control, mut extra, null_citations)| {
                if citations.is_none() && null_citations {
                    extra.mark_null("citations");
                }
                ContentBlock::Text(TextBlock {
                    text,
                    citations,
                    cache_control,
                    extra,
                })
            },
        )
        .boxed()
}

fn data_source() -> BoxedStrategy<DataSource> {
    (
        prop_oneof![
            Just("image/png".to_owned()),
            Just("application/pdf".to_owned()),
            text()
        ],
        text(),
    )
        .prop_map(|(media_type, data)| DataSource {
            media_type,
            data,
            extra: Extra::new(),
        })
        .boxed()
}

fn source() -> BoxedStrategy<Source> {
    prop_oneof![
        data_source().prop_map(Source::Base64),
        text().prop_map(|url| Source::Url(UrlSource {
            url,
            extra: Extra::new()
        })),
        ident().prop_map(|file_id| Source::File(FileSource {
            file_id,
            extra: Extra::new()
        })),
        data_source().prop_map(Source::Text),
        prop_oneof![
            text().prop_map(TextOrParts::Text),
            prop::collection::vec(text_block(), 0..3).prop_map(TextOrParts::Parts),
        ]
        .prop_map(|content| Source::Content(ContentSource {
            content,
            extra: Extra::new()
        })),
        other_tagged("type", Source::KNOWN).prop_map(Source::Other),
    ]
    .boxed()
}

fn caller() -> BoxedStrategy<Box<Caller>> {
    prop_oneof![
        Just(Box::new(Caller {
            kind: "direct".to_owned(),
            ..Default::default()
        })),
        ident().prop_map(|tool_id| Box::new(Caller {
            kind: "code_execution_20250825".to_owned(),
            tool_id: Some(tool_id),
            extra: Extra::new()
        })),
    ]
    .boxed()
}

/// Every block but `tool_result` (which nests these).
fn leaf_block() -> BoxedStrategy<ContentBlock> {
    prop_oneof![
        text_block(),
        (source(), maybe(cache_control())).prop_map(|(source, cache_control)| ContentBlock::Image(
            ImageBlock {
                source,
                cache_control,
                extra: Extra::new()
            }
        )),
        (
            source(),
            maybe(text()),
            maybe(text()),
            maybe(any::<bool>()),
            maybe(cache_control())
        )
            .prop_map(|(source, title, context, enabled, cache_control)| {
                ContentBlock::Document(DocumentBlock {
                    source,
                    title,
                    context,
                    citations: enabled.map(|e| CitationsConfig {
                        enabled: Some(e),
                        extra: Extra::new(),
                    }),
                    cache_control,
                    extra: Extra::new(),
                })
            }),
        (
            ident(),
            ident(),
            object(),
            maybe(caller()),
            maybe(cache_control()),
            extra()
        )
            .prop_map(|(id, name, input, caller, cache_control, extra)| {
                ContentBlock::ToolUse(ToolUseBlock {
                    id,
                    name,
                    input: input.into(),
                    caller,
                    cache_control,
                    extra,
                })
            }),
        (text(), maybe(text())).prop_map(|(thinking, signature)| ContentBlock::Thinking(
            ThinkingBlock {
                thinking,
                signature,
                extra: Extra::new()
            }
        )),
        text().prop_map(
            |data| ContentBlock::RedactedThinking(RedactedThinkingBlock {
                data,
                extra: Extra::new()
            })
        ),
        other_tagged("type", ContentBlock::KNOWN).prop_map(ContentBlock::Other),
    ]
    .boxed()
}

fn block() -> BoxedStrategy<ContentBlock> {
    prop_oneof![
        4 => leaf_block(),
        1 => (
            ident(),
            maybe(prop_oneof![
                text().prop_map(TextOrParts::Text),
                prop::collection::vec(leaf_block(), 0..3).prop_map(TextOrParts::Parts),
            ]),
            maybe(any::<bool>()),
            maybe(cache_control()),
        )
            .prop_map(|(tool_use_id, content, is_error, cache_control)| ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id,
                content,
                is_error,
                cache_control,
                extra: Extra::new(),
            })),
    ]
    .boxed()
}

fn content() -> BoxedStrategy<TextOrParts<ContentBlock>> {
    prop_oneof![
        text().prop_map(TextOrParts::Text),
        prop::collection::vec(block(), 0..4).prop_map(TextOrParts::Parts),
    ]
    .boxed()
}

fn message() -> BoxedStrategy<Message> {
    (
        prop_oneof![
            3 => Just(Role::User),
            3 => Just(Role::Assistant),
            1 => Just(Role::System),
            1 => other_str(Role::KNOWN).prop_map(Role::Other),
        ],
        content(),
        extra(),
    )
        .prop_map(|(role, content, extra)| Message {
            role,
            content,
            extra,
        })
        .boxed()
}

fn tool() -> BoxedStrategy<Tool> {
    prop_oneof![
        // `type` absent, `"custom"` or `null`.
        (
            0..3u8,
            ident(),
            maybe(text()),
            object(),
            maybe(cache_control()),
            maybe(any::<bool>()),
            extra()
        )
            .prop_map(
                |(typed, name, description, input_schema, cache_control, strict, mut extra)| {
                    if typed == 2 {
                        extra.mark_null("type");
                    }
                    Tool::Custom(CustomTool {
                        kind: (typed == 1).then(|| "custom".to_owned()),
                        name,
                        description,
                        input_schema,
                        cache_control,
                        strict,
                        extra,
                        ..Default::default()
                    })
                }
            ),
        // A typed tool: `type` first, and no `input_schema` before it (that would make it custom).
        (other_str(&["custom"]), object()).prop_map(|(kind, rest)| {
            let mut map = Map::new();
            map.insert("type".to_owned(), Value::String(kind));
            for (k, v) in rest {
                if k != "type" {
                    map.insert(k, v);
                }
            }
            Tool::Other(map)
        }),
    ]
    .boxed()
}

fn tool_choice() -> BoxedStrategy<ToolChoice> {
    let options = || {
        maybe(any::<bool>()).prop_map(|disable_parallel_tool_use| ToolChoiceOptions {
            disable_parallel_tool_use,
            extra: Extra::new(),
        })
    };
    prop_oneof![
        options().prop_map(ToolChoice::Auto),
        options().prop_map(ToolChoice::Any),
        (ident(), maybe(any::<bool>())).prop_map(|(name, disable_parallel_tool_use)| {
            ToolChoice::Tool(ToolChoiceTool {
                name,
                disable_parallel_tool_use,
                extra: Extra::new(),
            })
        }),
        Just(ToolChoice::None(NoFields::default())),
        other_tagged("type", ToolChoice::KNOWN).prop_map(ToolChoice::Other),
    ]
    .boxed()
}

fn thinking() -> BoxedStrategy<ThinkingConfig> {
    let display = || {
        maybe(prop_oneof![
            Just(ThinkingDisplay::Summarized),
            Just(ThinkingDisplay::Omitted),
            other_str(ThinkingDisplay::KNOWN).prop_map(ThinkingDisplay::Other),
        ])
    };
    prop_oneof![
        (1024u64..32_000, display()).prop_map(|(budget_tokens, display)| ThinkingConfig::Enabled(
            ThinkingEnabled {
                budget_tokens,
                display,
                extra: Extra::new()
            }
        )),
        Just(ThinkingConfig::Disabled(NoFields::default())),
        display().prop_map(|display| ThinkingConfig::Adaptive(ThinkingAdaptive {
            display,
            extra: Extra::new()
        })),
        other_tagged("type", ThinkingConfig::KNOWN).prop_map(ThinkingConfig::Other),
    ]
    .boxed()
}

fn request() -> BoxedStrategy<Request> {
    (
        (
            ident(),
            1u64..200_000,
            prop::collection::vec(message(), 0..5),
        ),
        maybe(prop_oneof![
            text().prop_map(TextOrParts::Text),
            prop::collection::vec(text_block(), 0..3).prop_map(TextOrParts::Parts),
        ]),
        (
            maybe(prop::collection::vec(tool(), 0..3)),
            maybe(tool_choice()),
            maybe(thinking()),
        ),
        (
            maybe(number()),
            maybe(number()),
            maybe(0u64..500),
            maybe(prop::collection::vec(text(), 0..3)),
        ),
        (
            maybe(any::<bool>()),
            maybe(maybe(text())),
            maybe(cache_control()),
            extra(),
        ),
    )
        .prop_map(
            |(
                (model, max_tokens, messages),
                system,
                (tools, tool_choice, thinking),
                (temperature, top_p, top_k, stop_sequences),
                (stream, user_id, cache_control, extra),
            )| {
                Request {
                    model,
                    max_tokens,
                    messages,
                    system,
                    tools,
                    tool_choice,
                    thinking,
                    temperature,
                    top_p,
                    top_k,
                    stop_sequences,
                    stream,
                    metadata: user_id.map(|user_id| Metadata {
                        user_id,
                        extra: Extra::new(),
                    }),
                    cache_control,
                    extra,
                    ..Default::default()
                }
            },
        )
        .boxed()
}

fn delta_usage() -> BoxedStrategy<MessageDeltaUsage> {
    (
        maybe(0u64..100_000),
        maybe(0u64..100_000),
        maybe(0u64..100_000),
        maybe(0u64..100_000),
        maybe(prop::collection::vec(
            (maybe(ident()), maybe(0u64..1000), maybe(0u64..1000)),
            0..3,
        )),
        extra(),
    )
        .prop_map(
            |(
                input_tokens,
                output_tokens,
                cache_creation_input_tokens,
                cache_read_input_tokens,
                iterations,
                extra,
            )| {
                MessageDeltaUsage {
                    input_tokens,
                    output_tokens,
                    cache_creation_input_tokens,
                    cache_read_input_tokens,
                    iterations: iterations.map(|its| {
                        its.into_iter()
                            .map(|(kind, input_tokens, output_tokens)| IterationUsage {
                                kind,
                                input_tokens,
                                output_tokens,
                                ..Default::default()
                            })
                            .collect()
                    }),
                    extra,
                    ..Default::default()
                }
            },
        )
        .boxed()
}

fn applied_edit() -> impl Strategy<Value = AppliedEdit> {
    (maybe(ident()), maybe(0u64..1000), maybe(0u64..10)).prop_map(
        |(kind, cleared_input_tokens, cleared_tool_uses)| AppliedEdit {
            kind,
            cleared_input_tokens,
            cleared_tool_uses,
            ..Default::default()
        },
    )
}

fn usage() -> BoxedStrategy<Usage> {
    (
        maybe(0u64..100_000),
        maybe(0u64..100_000),
        maybe(0u64..100_000),
        maybe(0u64..100_000),
        maybe((maybe(0u64..1000), maybe(0u64..1000))),
        maybe(0u64..1000),
        extra(),
    )
        .prop_map(
            |(
                input_tokens,
                output_tokens,
                cache_creation_input_tokens,
                cache_read_input_tokens,
                cache,
                thinking,
                extra,
            )| Usage {
                input_tokens,
                output_tokens,
                cache_creation_input_tokens,
                cache_read_input_tokens,
                cache_creation: cache.map(
                    |(ephemeral_5m_input_tokens, ephemeral_1h_input_tokens)| CacheCreation {
                        ephemeral_5m_input_tokens,
                        ephemeral_1h_input_tokens,
                        extra: Extra::new(),
                    },
                ),
                output_tokens_details: thinking.map(|t| OutputTokensDetails {
                    thinking_tokens: Some(t),
                    extra: Extra::new(),
                }),
                extra,
                ..Default::default()
            },
        )
        .boxed()
}

fn response() -> BoxedStrategy<Response> {
    (
        maybe(ident()),
        prop::collection::vec(leaf_block(), 0..4),
        maybe(open(StopReason::KNOWN)),
        any::<bool>(),
        maybe(text()),
        maybe(usage()),
        extra(),
    )
        .prop_map(
            |(id, content, stop_reason, null_stop, stop_sequence, usage, mut extra)| {
                if stop_reason.is_none() && null_stop {
                    extra.mark_null("stop_reason");
                }
                if stop_sequence.is_none() {
                    extra.mark_null("stop_sequence");
                }
                Response {
                    id,
                    kind: Some("message".to_owned()),
                    role: Some(Role::Assistant),
                    model: Some("claude-sonnet-4-5".to_owned()),
                    content,
                    stop_reason,
                    stop_sequence,
                    usage,
                    extra,
                    ..Default::default()
                }
            },
        )
        .boxed()
}

fn delta() -> BoxedStrategy<BlockDelta> {
    prop_oneof![
        text().prop_map(|text| BlockDelta::Text(TextDelta {
            text,
            extra: Extra::new()
        })),
        text().prop_map(|partial_json| BlockDelta::InputJson(InputJsonDelta {
            partial_json,
            extra: Extra::new()
        })),
        text().prop_map(|thinking| BlockDelta::Thinking(ThinkingDelta {
            thinking,
            extra: Extra::new()
        })),
        text().prop_map(|signature| BlockDelta::Signature(SignatureDelta {
            signature,
            extra: Extra::new()
        })),
        json().prop_map(|citation| BlockDelta::Citations(CitationsDelta {
            citation,
            extra: Extra::new()
        })),
        (maybe(text()), maybe(ident())).prop_map(|(content, encrypted_content)| {
            BlockDelta::Compaction(CompactionDelta {
                content,
                encrypted_content,
                extra: Extra::new(),
            })
        }),
        other_tagged("type", BlockDelta::KNOWN).prop_map(BlockDelta::Other),
    ]
    .boxed()
}

fn error_detail() -> BoxedStrategy<ErrorDetail> {
    (maybe(ident()), maybe(text()))
        .prop_map(|(kind, message)| ErrorDetail {
            kind,
            message,
            extra: Extra::new(),
        })
        .boxed()
}

fn event() -> BoxedStrategy<StreamEvent> {
    prop_oneof![
        response().prop_map(|message| StreamEvent::MessageStart(MessageStartEvent {
            message,
            extra: Extra::new()
        })),
        (0u32..20, maybe(text())).prop_map(|(index, content)| StreamEvent::ContentBlockStart(
            ContentBlockStartEvent {
                index,
                content_block: ContentBlock::Compaction(CompactionBlock {
                    content,
                    ..Default::default()
                }),
                extra: Extra::new()
            }
        )),
        (0u32..20, block()).prop_map(|(index, content_block)| StreamEvent::ContentBlockStart(
            ContentBlockStartEvent {
                index,
                content_block,
                extra: Extra::new()
            }
        )),
        (0u32..20, delta(), extra()).prop_map(|(index, delta, extra)| {
            StreamEvent::ContentBlockDelta(ContentBlockDeltaEvent {
                index,
                delta,
                extra,
            })
        }),
        (0u32..20).prop_map(
            |index| StreamEvent::ContentBlockStop(ContentBlockStopEvent {
                index,
                extra: Extra::new()
            })
        ),
        (
            maybe(open(StopReason::KNOWN)),
            maybe(text()),
            maybe(delta_usage()),
            maybe(prop::collection::vec(applied_edit(), 0..2))
        )
            .prop_map(|(stop_reason, stop_sequence, usage, edits)| {
                StreamEvent::MessageDelta(MessageDeltaEvent {
                    delta: MessageDelta {
                        stop_reason,
                        stop_sequence,
                        ..Default::default()
                    },
                    usage,
                    context_management: edits.map(|e| ContextManagement {
                        applied_edits: Some(e),
                        extra: Extra::new(),
                    }),
                    extra: Extra::new(),
                })
            }),
        Just(StreamEvent::MessageStop(NoFields::default())),
        extra().prop_map(|extra| StreamEvent::Ping(NoFields { extra })),
        error_detail().prop_map(|error| StreamEvent::Error(ErrorEvent {
            error,
            extra: Extra::new()
        })),
        other_tagged("type", StreamEvent::KNOWN).prop_map(StreamEvent::Other),
    ]
    .boxed()
}

fn error_response() -> BoxedStrategy<ErrorResponse> {
    (error_detail(), maybe(ident()), extra())
        .prop_map(|(error, request_id, extra)| ErrorResponse {
            kind: Some("error".to_owned()),
            error,
            request_id,
            extra,
        })
        .boxed()
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => event(),
    error_read_after_write_is_identity => error_response(),
}
