//! `gemini`: requests, responses and stream events survive write → read.

use super::*;
use wire_types::gemini::*;

fn base64() -> impl Strategy<Value = String> {
    "[A-Za-z0-9+/]{4,40}={0,2}"
}

fn mime() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("image/png".to_owned()),
        Just("image/jpeg".to_owned()),
        Just("application/pdf".to_owned()),
        Just("audio/wav".to_owned()),
    ]
}

fn blob() -> impl Strategy<Value = Blob> {
    (mime(), base64(), maybe(ident())).prop_map(|(mime_type, data, display_name)| Blob {
        mime_type,
        data,
        display_name,
        extra: Extra::new(),
    })
}

fn file_data() -> impl Strategy<Value = FileData> {
    (maybe(mime()), ident()).prop_map(|(mime_type, id)| FileData {
        mime_type,
        file_uri: format!("https://generativelanguage.googleapis.com/v1beta/files/{id}"),
        display_name: None,
        extra: Extra::new(),
    })
}

fn partial_arg() -> impl Strategy<Value = PartialArg> {
    (
        ident().prop_map(|k| format!("$.{k}")),
        prop_oneof![
            text().prop_map(|s| (Some(s), None, None)),
            number().prop_map(|n| (None, Some(n), None)),
            any::<bool>().prop_map(|b| (None, None, Some(b))),
        ],
        maybe(any::<bool>()),
    )
        .prop_map(
            |(json_path, (string_value, number_value, bool_value), will_continue)| PartialArg {
                json_path: Some(json_path),
                string_value,
                number_value,
                bool_value,
                will_continue,
                ..Default::default()
            },
        )
}

fn function_call() -> impl Strategy<Value = FunctionCall> {
    prop_oneof![
        3 => (maybe(ident()), ident(), maybe(object()), extra()).prop_map(|(id, name, args, extra)| FunctionCall {
            id,
            name: Some(name),
            args: args.map(Into::into),
            extra,
            ..Default::default()
        }),
        1 => (maybe(ident()), prop::collection::vec(partial_arg(), 0..3), maybe(any::<bool>())).prop_map(
            |(name, partial_args, will_continue)| FunctionCall {
                name,
                partial_args: Some(partial_args),
                will_continue,
                ..Default::default()
            }
        ),
    ]
}

fn function_response() -> impl Strategy<Value = FunctionResponse> {
    let response = prop_oneof![
        json().prop_map(|v| Map::from_iter([("output".to_owned(), v)])),
        text().prop_map(|m| Map::from_iter([(
            "error".to_owned(),
            Value::from(Map::from_iter([("message".to_owned(), Value::String(m))]))
        )])),
        object(),
    ];
    let parts = maybe(prop::collection::vec(
        blob().prop_map(|b| FunctionResponsePart {
            inline_data: Some(b),
            ..Default::default()
        }),
        0..2,
    ));
    (
        maybe(ident()),
        ident(),
        response,
        parts,
        maybe(prop_oneof![
            Just(Scheduling::WhenIdle),
            other_str(Scheduling::KNOWN).prop_map(Scheduling::Other),
        ]),
    )
        .prop_map(|(id, name, response, parts, scheduling)| FunctionResponse {
            id,
            name,
            response: response.into(),
            parts,
            scheduling,
            will_continue: None,
            extra: Extra::new(),
        })
}

/// A part with exactly one data key, and sometimes metadata beside it.
fn part() -> impl Strategy<Value = Part> {
    let data = prop_oneof![
        text().prop_map(|t| Part {
            text: Some(t),
            ..Default::default()
        }),
        blob().prop_map(|b| Part {
            inline_data: Some(Box::new(b)),
            ..Default::default()
        }),
        file_data().prop_map(|f| Part {
            file_data: Some(Box::new(f)),
            ..Default::default()
        }),
        function_call().prop_map(|c| Part {
            function_call: Some(Box::new(c)),
            ..Default::default()
        }),
        function_response().prop_map(|r| Part {
            function_response: Some(Box::new(r)),
            ..Default::default()
        }),
        (maybe(ident()), text()).prop_map(|(id, code)| Part {
            executable_code: Some(Box::new(ExecutableCode {
                id,
                language: Language::Python,
                code,
                extra: Extra::new()
            })),
            ..Default::default()
        }),
        (
            prop_oneof![
                Just(Outcome::Ok),
                Just(Outcome::Failed),
                other_str(Outcome::KNOWN).prop_map(Outcome::Other)
            ],
            maybe(text())
        )
            .prop_map(|(outcome, output)| Part {
                code_execution_result: Some(Box::new(CodeExecutionResult {
                    id: None,
                    outcome,
                    output,
                    extra: Extra::new()
                })),
                ..Default::default()
            }),
        object().prop_map(|m| Part {
            tool_call: Some(Box::new(Value::Object(m))),
            ..Default::default()
        }),
    ];
    (data, maybe(any::<bool>()), maybe(base64()), extra()).prop_map(
        |(mut p, thought, thought_signature, extra)| {
            p.thought = thought;
            p.thought_signature = thought_signature;
            p.extra = extra;
            p
        },
    )
}

fn content() -> impl Strategy<Value = Content> {
    (
        maybe(open(Role::KNOWN)),
        maybe(prop::collection::vec(part(), 0..4)),
        extra(),
    )
        .prop_map(|(role, parts, extra)| Content { role, parts, extra })
}

fn declaration() -> impl Strategy<Value = FunctionDeclaration> {
    (
        ident(),
        maybe(text()),
        prop_oneof![
            Just((None, None)),
            object().prop_map(|o| (Some(Value::Object(o)), None)),
            object().prop_map(|o| (None, Some(Value::Object(o)))),
        ],
        maybe(prop_oneof![
            Just(Behavior::NonBlocking),
            other_str(Behavior::KNOWN).prop_map(Behavior::Other)
        ]),
    )
        .prop_map(
            |(name, description, (parameters, parameters_json_schema), behavior)| {
                FunctionDeclaration {
                    name,
                    description,
                    parameters,
                    parameters_json_schema,
                    behavior,
                    ..Default::default()
                }
            },
        )
}

fn tool() -> impl Strategy<Value = Tool> {
    prop_oneof![
        prop::collection::vec(declaration(), 0..3).prop_map(|d| Tool {
            function_declarations: Some(d),
            ..Default::default()
        }),
        Just(Tool {
            google_search: Some(Map::new()),
            ..Default::default()
        }),
        Just(Tool {
            code_execution: Some(Map::new()),
            ..Default::default()
        }),
        object().prop_map(|m| Tool {
            url_context: Some(m),
            ..Default::default()
        }),
        extra().prop_map(|extra| Tool {
            extra,
            ..Default::default()
        }),
    ]
}

fn tool_config() -> impl Strategy<Value = ToolConfig> {
    let mode = prop_oneof![
        Just(FunctionCallingMode::Auto),
        Just(FunctionCallingMode::Any),
        Just(FunctionCallingMode::None),
        Just(FunctionCallingMode::Validated),
        other_str(FunctionCallingMode::KNOWN).prop_map(FunctionCallingMode::Other),
    ];
    (maybe(mode), maybe(prop::collection::vec(ident(), 0..3))).prop_map(
        |(mode, allowed_function_names)| ToolConfig {
            function_calling_config: Some(FunctionCallingConfig {
                mode,
                allowed_function_names,
                ..Default::default()
            }),
            ..Default::default()
        },
    )
}

fn generation_config() -> impl Strategy<Value = GenerationConfig> {
    let thinking = (
        maybe(any::<bool>()),
        maybe(-1i64..32_768),
        maybe(prop_oneof![
            Just(ThinkingLevel::Low),
            Just(ThinkingLevel::High),
            other_str(ThinkingLevel::KNOWN).prop_map(ThinkingLevel::Other),
        ]),
    )
        .prop_map(
            |(include_thoughts, thinking_budget, thinking_level)| ThinkingConfig {
                include_thoughts,
                thinking_budget,
                thinking_level,
                extra: Extra::new(),
            },
        );
    (
        (maybe(number()), maybe(number()), maybe(number())),
        (
            maybe(1u32..4),
            maybe(1u64..65_536),
            maybe(prop::collection::vec(text(), 0..3)),
            maybe(any::<i64>()),
        ),
        (
            maybe(prop::collection::vec(
                prop_oneof![Just(Modality::Text), Just(Modality::Image)],
                0..3,
            )),
            maybe(thinking),
            extra(),
        ),
    )
        .prop_map(
            |(
                (temperature, top_p, top_k),
                (candidate_count, max_output_tokens, stop_sequences, seed),
                (response_modalities, thinking_config, extra),
            )| {
                GenerationConfig {
                    temperature,
                    top_p,
                    top_k,
                    candidate_count,
                    max_output_tokens,
                    stop_sequences,
                    seed,
                    response_modalities,
                    thinking_config,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn safety_setting() -> impl Strategy<Value = SafetySetting> {
    (
        prop_oneof![
            Just(HarmCategory::Harassment),
            other_str(HarmCategory::KNOWN).prop_map(HarmCategory::Other)
        ],
        prop_oneof![
            Just(HarmBlockThreshold::BlockNone),
            other_str(HarmBlockThreshold::KNOWN).prop_map(HarmBlockThreshold::Other)
        ],
    )
        .prop_map(|(category, threshold)| SafetySetting {
            category,
            threshold,
            extra: Extra::new(),
        })
}

fn request() -> impl Strategy<Value = Request> {
    (
        prop::collection::vec(content(), 0..5),
        maybe(content()),
        maybe(prop::collection::vec(tool(), 0..3)),
        maybe(tool_config()),
        maybe(generation_config()),
        (
            maybe(prop::collection::vec(safety_setting(), 0..2)),
            maybe(ident()),
            extra(),
        ),
    )
        .prop_map(
            |(
                contents,
                system_instruction,
                tools,
                tool_config,
                generation_config,
                (safety_settings, cached_content, extra),
            )| {
                Request {
                    contents,
                    system_instruction,
                    tools,
                    tool_config,
                    generation_config,
                    safety_settings,
                    cached_content: cached_content.map(|c| format!("cachedContents/{c}")),
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn usage() -> impl Strategy<Value = UsageMetadata> {
    (
        maybe(0u64..100_000),
        maybe(0u64..10_000),
        maybe(0u64..10_000),
        maybe(0u64..1000),
        maybe(0u64..100),
    )
        .prop_map(
            |(prompt, candidates, thoughts, cached, count)| UsageMetadata {
                prompt_token_count: prompt,
                candidates_token_count: candidates,
                thoughts_token_count: thoughts,
                cached_content_token_count: cached,
                total_token_count: prompt
                    .map(|p| p + candidates.unwrap_or(0) + thoughts.unwrap_or(0)),
                prompt_tokens_details: count.map(|c| {
                    vec![ModalityTokenCount {
                        modality: Some(Modality::Text),
                        token_count: Some(c),
                        extra: Extra::new(),
                    }]
                }),
                ..Default::default()
            },
        )
}

fn response() -> impl Strategy<Value = Response> {
    let candidate = (
        maybe(content()),
        maybe(open(FinishReason::KNOWN)),
        maybe(0u32..4),
        maybe(text()),
        maybe(number()),
        extra(),
    )
        .prop_map(
            |(content, finish_reason, index, finish_message, avg_logprobs, extra)| Candidate {
                content,
                finish_reason,
                index,
                finish_message,
                avg_logprobs,
                extra,
                ..Default::default()
            },
        );
    let feedback = maybe(prop_oneof![
        Just(BlockReason::Safety),
        Just(BlockReason::OtherReason),
        other_str(BlockReason::KNOWN).prop_map(BlockReason::Other),
    ])
    .prop_map(|block_reason| PromptFeedback {
        block_reason,
        ..Default::default()
    });
    (
        maybe(prop::collection::vec(candidate, 0..3)),
        maybe(feedback),
        maybe(usage()),
        maybe(ident()),
        maybe(ident()),
        extra(),
    )
        .prop_map(
            |(candidates, prompt_feedback, usage_metadata, model_version, response_id, extra)| {
                Response {
                    candidates,
                    prompt_feedback,
                    usage_metadata,
                    model_version,
                    response_id,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn stream_event() -> impl Strategy<Value = StreamEvent> {
    prop_oneof![
        3 => response().prop_map(StreamEvent::Chunk),
        1 => (maybe(400u16..600), maybe(text()), maybe(ident())).prop_map(|(code, message, status)| {
            StreamEvent::Error(ErrorResponse {
                error: ErrorDetail { code, message, status, details: None, extra: Extra::new() },
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
