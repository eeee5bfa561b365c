//! `bedrock`: requests, responses and stream events survive write → read; and, until the
//! conformance schema is regenerated, the hand-made fixtures are checked against it with
//! its `Document` definition repaired (see [`repaired_validator`]).

use super::*;
use crate::support::{What, fixtures_dir, written_fixtures};
use wire_types::Format;
use wire_types::bedrock::*;

/// A one-key object whose key is not a member of the union.
fn other_key(known: &'static [&'static str]) -> impl Strategy<Value = Map<String, Value>> {
    (ident(), json()).prop_filter_map("known key", move |(k, v)| {
        let k = format!("x_{k}");
        if known.contains(&k.as_str()) {
            return None;
        }
        let mut m = Map::new();
        m.insert(k, v);
        Some(m)
    })
}

fn json_object() -> impl Strategy<Value = Value> {
    object().prop_map(Value::Object)
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        text().prop_map(Source::Bytes),
        (text(), maybe(ident())).prop_map(|(uri, bucket_owner)| Source::S3Location(S3Location {
            uri,
            bucket_owner,
            extra: Extra::new()
        })),
        text().prop_map(Source::Text),
        prop::collection::vec(
            prop_oneof![
                text().prop_map(DocumentContentBlock::Text),
                other_key(DocumentContentBlock::KNOWN).prop_map(DocumentContentBlock::Other),
            ],
            0..3
        )
        .prop_map(Source::Content),
        other_key(Source::KNOWN).prop_map(Source::Other),
    ]
}

fn image() -> impl Strategy<Value = ImageBlock> {
    (
        prop_oneof![
            Just(ImageFormat::Png),
            Just(ImageFormat::Jpeg),
            Just(ImageFormat::Webp),
            other_str(ImageFormat::KNOWN).prop_map(ImageFormat::Other),
        ],
        source(),
        extra(),
    )
        .prop_map(|(format, source, extra)| ImageBlock {
            format,
            source,
            error: None,
            extra,
        })
}

fn document() -> impl Strategy<Value = DocumentBlock> {
    (
        maybe(prop_oneof![
            Just(DocumentFormat::Pdf),
            Just(DocumentFormat::Md),
            other_str(DocumentFormat::KNOWN).prop_map(DocumentFormat::Other),
        ]),
        text(),
        source(),
        maybe(text()),
        maybe(any::<bool>()),
    )
        .prop_map(|(format, name, source, context, citations)| DocumentBlock {
            format,
            name,
            source,
            context,
            citations: citations.map(|enabled| CitationsConfig {
                enabled,
                extra: Extra::new(),
            }),
            extra: Extra::new(),
        })
}

fn result_part() -> impl Strategy<Value = ToolResultContentBlock> {
    prop_oneof![
        json().prop_map(ToolResultContentBlock::Json),
        text().prop_map(ToolResultContentBlock::Text),
        image().prop_map(ToolResultContentBlock::Image),
        document().prop_map(ToolResultContentBlock::Document),
        other_key(ToolResultContentBlock::KNOWN).prop_map(ToolResultContentBlock::Other),
    ]
}

fn cache_point() -> impl Strategy<Value = CachePoint> {
    (
        prop_oneof![
            3 => Just(CachePointType::Default),
            1 => other_str(CachePointType::KNOWN).prop_map(CachePointType::Other),
        ],
        maybe(prop_oneof![Just("5m".to_owned()), Just("1h".to_owned())]),
    )
        .prop_map(|(kind, ttl)| CachePoint {
            kind,
            ttl,
            extra: Extra::new(),
        })
}

fn reasoning() -> impl Strategy<Value = ReasoningContent> {
    prop_oneof![
        (text(), maybe(text()), extra()).prop_map(|(text, signature, extra)| {
            ReasoningContent::ReasoningText(ReasoningText {
                text,
                signature,
                extra,
            })
        }),
        text().prop_map(ReasoningContent::RedactedContent),
        other_key(ReasoningContent::KNOWN).prop_map(ReasoningContent::Other),
    ]
}

fn block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        text().prop_map(ContentBlock::Text),
        image().prop_map(ContentBlock::Image),
        document().prop_map(ContentBlock::Document),
        (
            ident(),
            ident(),
            json_object(),
            maybe(Just(ToolUseType::ServerToolUse)),
            extra()
        )
            .prop_map(
                |(tool_use_id, name, input, kind, extra)| ContentBlock::ToolUse(ToolUseBlock {
                    tool_use_id,
                    name,
                    input: input.into(),
                    kind,
                    extra
                })
            ),
        (
            ident(),
            prop::collection::vec(result_part(), 0..3),
            maybe(open(ToolResultStatus::KNOWN))
        )
            .prop_map(|(tool_use_id, content, status)| ContentBlock::ToolResult(
                ToolResultBlock {
                    tool_use_id,
                    content,
                    status,
                    ..Default::default()
                }
            )),
        reasoning().prop_map(ContentBlock::ReasoningContent),
        cache_point().prop_map(ContentBlock::CachePoint),
        json_object().prop_map(ContentBlock::GuardContent),
        other_key(ContentBlock::KNOWN).prop_map(ContentBlock::Other),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    (
        open(Role::KNOWN),
        prop::collection::vec(block(), 0..4),
        extra(),
    )
        .prop_map(|(role, content, extra)| Message {
            role,
            content,
            extra,
        })
}

fn system_block() -> impl Strategy<Value = SystemContentBlock> {
    prop_oneof![
        text().prop_map(SystemContentBlock::Text),
        cache_point().prop_map(SystemContentBlock::CachePoint),
        other_key(SystemContentBlock::KNOWN).prop_map(SystemContentBlock::Other),
    ]
}

fn tool() -> impl Strategy<Value = Tool> {
    prop_oneof![
        (
            ident(),
            maybe(text()),
            prop_oneof![
                3 => json_object().prop_map(InputSchema::Json),
                1 => other_key(InputSchema::KNOWN).prop_map(InputSchema::Other),
            ],
            maybe(any::<bool>())
        )
            .prop_map(|(name, description, input_schema, strict)| Tool::ToolSpec(
                ToolSpec {
                    name,
                    description,
                    input_schema,
                    strict,
                    extra: Extra::new(),
                }
            )),
        cache_point().prop_map(Tool::CachePoint),
        ident().prop_map(|name| Tool::SystemTool(SystemTool {
            name,
            extra: Extra::new()
        })),
        other_key(Tool::KNOWN).prop_map(Tool::Other),
    ]
}

fn tool_choice() -> impl Strategy<Value = ToolChoice> {
    prop_oneof![
        extra().prop_map(|extra| ToolChoice::Auto(NoFields { extra })),
        Just(ToolChoice::Any(NoFields::default())),
        ident().prop_map(|name| ToolChoice::Tool(SpecificToolChoice {
            name,
            extra: Extra::new()
        })),
        other_key(ToolChoice::KNOWN).prop_map(ToolChoice::Other),
    ]
}

fn inference_config() -> impl Strategy<Value = InferenceConfig> {
    (
        maybe(0u64..100_000),
        maybe(number()),
        maybe(number()),
        maybe(prop::collection::vec(text(), 0..3)),
    )
        .prop_map(
            |(max_tokens, temperature, top_p, stop_sequences)| InferenceConfig {
                max_tokens,
                temperature,
                top_p,
                stop_sequences,
                extra: Extra::new(),
            },
        )
}

fn request() -> impl Strategy<Value = Request> {
    (
        maybe(ident()),
        maybe(prop::collection::vec(message(), 0..5)),
        maybe(prop::collection::vec(system_block(), 0..3)),
        maybe(inference_config()),
        maybe((prop::collection::vec(tool(), 0..4), maybe(tool_choice()))),
        (
            maybe(json_object()),
            maybe(prop::collection::vec(text(), 0..2)),
            extra(),
        ),
    )
        .prop_map(
            |(
                model_id,
                messages,
                system,
                inference_config,
                tools,
                (additional_model_request_fields, paths, extra),
            )| {
                Request {
                    model_id,
                    messages,
                    system,
                    inference_config,
                    tool_config: tools.map(|(tools, tool_choice)| ToolConfig {
                        tools,
                        tool_choice,
                        extra: Extra::new(),
                    }),
                    additional_model_request_fields,
                    additional_model_response_field_paths: paths,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn usage() -> impl Strategy<Value = Usage> {
    (
        0u64..10_000,
        0u64..10_000,
        maybe(0u64..10_000),
        maybe(0u64..10_000),
        maybe(prop::collection::vec(
            (
                maybe(0u64..10_000),
                maybe(prop_oneof![Just("5m"), Just("1h")]),
            ),
            0..3,
        )),
        extra(),
    )
        .prop_map(
            |(
                input_tokens,
                output_tokens,
                cache_read_input_tokens,
                cache_write_input_tokens,
                details,
                extra,
            )| Usage {
                input_tokens,
                output_tokens,
                total_tokens: input_tokens + output_tokens,
                cache_read_input_tokens,
                cache_write_input_tokens,
                cache_details: details.map(|d| {
                    d.into_iter()
                        .map(|(input_tokens, ttl)| CacheDetail {
                            input_tokens,
                            ttl: ttl.map(str::to_owned),
                            extra: Extra::new(),
                        })
                        .collect()
                }),
                extra,
            },
        )
}

fn response() -> impl Strategy<Value = Response> {
    (
        prop_oneof![
            3 => message().prop_map(Output::Message),
            1 => other_key(Output::KNOWN).prop_map(Output::Other),
        ],
        open(StopReason::KNOWN),
        maybe(usage()),
        maybe(0u64..100_000),
        maybe(json_object()),
        extra(),
    )
        .prop_map(
            |(output, stop_reason, usage, latency, additional_model_response_fields, extra)| {
                Response {
                    output,
                    stop_reason,
                    usage,
                    metrics: latency.map(|latency_ms| Metrics {
                        latency_ms,
                        extra: Extra::new(),
                    }),
                    additional_model_response_fields,
                    trace: None,
                    performance_config: None,
                    service_tier: None,
                    extra,
                }
            },
        )
}

fn delta() -> impl Strategy<Value = ContentBlockDelta> {
    prop_oneof![
        text().prop_map(ContentBlockDelta::Text),
        text().prop_map(|input| ContentBlockDelta::ToolUse(ToolUseDelta {
            input,
            extra: Extra::new()
        })),
        prop_oneof![
            text().prop_map(ReasoningDelta::Text),
            text().prop_map(ReasoningDelta::Signature),
            text().prop_map(ReasoningDelta::RedactedContent),
            other_key(ReasoningDelta::KNOWN).prop_map(ReasoningDelta::Other),
        ]
        .prop_map(ContentBlockDelta::ReasoningContent),
        (maybe(text()), maybe(text()), maybe(json_object()), extra()).prop_map(
            |(title, source, location, extra)| ContentBlockDelta::Citation(CitationDelta {
                title,
                source,
                source_content: None,
                location,
                extra,
            })
        ),
        prop::collection::vec((maybe(text()), maybe(json_object())), 0..3).prop_map(|pieces| {
            ContentBlockDelta::ToolResult(
                pieces
                    .into_iter()
                    .map(|(text, json)| ToolResultDelta {
                        text,
                        json,
                        extra: Extra::new(),
                    })
                    .collect(),
            )
        }),
        other_key(ContentBlockDelta::KNOWN).prop_map(ContentBlockDelta::Other),
    ]
}

fn stream_event() -> impl Strategy<Value = StreamEvent> {
    prop_oneof![
        open(Role::KNOWN).prop_map(|role| StreamEvent::MessageStart(MessageStartEvent {
            role,
            extra: Extra::new()
        })),
        (0u32..8, ident(), ident()).prop_map(|(content_block_index, tool_use_id, name)| {
            StreamEvent::ContentBlockStart(ContentBlockStartEvent {
                content_block_index,
                start: ContentBlockStart::ToolUse(ToolUseStart {
                    tool_use_id,
                    name,
                    ..Default::default()
                }),
                extra: Extra::new(),
            })
        }),
        (0u32..8, delta(), extra()).prop_map(|(content_block_index, delta, extra)| {
            StreamEvent::ContentBlockDelta(ContentBlockDeltaEvent {
                content_block_index,
                delta,
                extra,
            })
        }),
        (0u32..8, prop_oneof![Just("png"), Just("jpeg")]).prop_map(|(content_block_index, f)| {
            StreamEvent::ContentBlockStart(ContentBlockStartEvent {
                content_block_index,
                start: ContentBlockStart::Image(ImageStart {
                    format: ImageFormat::from(f),
                    extra: Extra::new(),
                }),
                extra: Extra::new(),
            })
        }),
        (0u32..8).prop_map(|content_block_index| StreamEvent::ContentBlockStop(
            ContentBlockStopEvent {
                content_block_index,
                extra: Extra::new()
            }
        )),
        (open(StopReason::KNOWN), maybe(json_object())).prop_map(
            |(stop_reason, additional_model_response_fields)| {
                StreamEvent::MessageStop(MessageStopEvent {
                    stop_reason,
                    additional_model_response_fields,
                    extra: Extra::new(),
                })
            }
        ),
        (maybe(usage()), maybe(0u64..100_000)).prop_map(|(usage, latency)| StreamEvent::Metadata(
            Box::new(MetadataEvent {
                usage,
                metrics: latency.map(|latency_ms| Metrics {
                    latency_ms,
                    extra: Extra::new()
                }),
                ..Default::default()
            })
        )),
        (maybe(text()), maybe(400u16..600), maybe(text())).prop_map(
            |(message, original_status_code, original_message)| {
                StreamEvent::ModelStreamErrorException(ExceptionEvent {
                    message,
                    original_status_code,
                    original_message,
                    extra: Extra::new(),
                })
            }
        ),
        maybe(text()).prop_map(|message| StreamEvent::ThrottlingException(ExceptionEvent {
            message,
            ..Default::default()
        })),
        other_key(StreamEvent::KNOWN).prop_map(StreamEvent::Other),
    ]
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => stream_event(),
}

/// `fixtures/conformance/bedrock.<kind>.schema.json` with its `Document` definition made
/// "any JSON", as the botocore `document` type is (the generator wrote it as a closed
/// empty object, which rejects every tool input, input schema, tool-result `json` and
/// `additionalModelRequestFields`). Drop this once the schema is regenerated.
fn repaired_validator(kind: &str) -> jsonschema::Validator {
    let path = fixtures_dir().join(format!("conformance/bedrock.{kind}.schema.json"));
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    schema["$defs"]["Document"] = Value::Bool(true);
    jsonschema::validator_for(&schema).unwrap()
}

/// The written-back JSON of every `handmade-*` fixture in `fixtures/bedrock/<folder>/`.
fn handmade(folder: &str) -> Vec<(String, Value)> {
    written_fixtures(Format::Bedrock, folder, What::from_name(folder), |name| {
        name.starts_with("handmade-")
    })
}

#[test]
fn handmade_requests_validate_against_the_repaired_sdk_schema() {
    let validator = repaired_validator("request");
    let requests = handmade("request");
    assert!(!requests.is_empty());
    for (name, written) in requests {
        let errs = crate::conformance::errors(&validator, &written);
        assert!(errs.is_empty(), "{name}: {errs:#?}");
    }
}

#[test]
fn handmade_responses_validate_against_the_repaired_sdk_schema() {
    let validator = repaired_validator("response");
    let responses = handmade("response");
    assert!(!responses.is_empty());
    for (name, written) in responses {
        let errs = crate::conformance::errors(&validator, &written);
        assert!(errs.is_empty(), "{name}: {errs:#?}");
    }
}
