//! The agent step on every real response fixture with tool calls: a registry that knows
//! the called tools (one of them fails), the step, and a snapshot of the follow-up to
//! append in the response's own format.

use serde_json::json;
use std::fmt::Write;
use tool_registry::{Step, ToolRegistry, ToolSpec};
use wire_convert::model::Part;
use wire_types::Format;

fn format_of(path: &std::path::Path) -> Option<Format> {
    let folder = path.parent()?.file_name()?.to_str()?;
    let name = path.file_name()?.to_str()?;
    if folder != "response" || name.starts_with("error") {
        return None;
    }
    path.parent()?.parent()?.file_name()?.to_str()?.parse().ok()
}

#[test]
fn every_response_fixture_steps() {
    insta::glob!("../../../../fixtures", "*/response/*.json", |path| {
        let Some(format) = format_of(path) else {
            return;
        };
        if format == Format::Mcp {
            return;
        }
        let body = std::fs::read_to_string(path).unwrap();
        // Register every tool the response calls; the second distinct one fails.
        let decoded = wire_convert::decode_response(&body, format, &Default::default())
            .unwrap()
            .value;
        // Function calls, and custom calls (`true`: registered as custom tools).
        let mut names: Vec<(String, bool)> = decoded
            .choices
            .iter()
            .flat_map(|c| c.message.content.iter())
            .filter_map(|p| match p {
                Part::ToolCall(c) => Some((c.name.clone(), false)),
                other => wire_convert::decode_custom_call(other).map(|c| (c.name, true)),
            })
            .collect();
        names.dedup();
        let mut registry = ToolRegistry::new();
        for (i, (name, custom)) in names.iter().enumerate() {
            if registry.spec(name).is_some() {
                continue;
            }
            let fails = i == 1;
            let tool = name.clone();
            let spec = if *custom {
                ToolSpec::custom(name, "").unwrap()
            } else {
                ToolSpec::new(name, "", json!({"type": "object"})).unwrap()
            };
            registry
                .register(spec, move |args| {
                    if fails {
                        Err(format!("{tool} is down").into())
                    } else {
                        Ok(json!({"tool": tool, "args": args}).into())
                    }
                })
                .unwrap();
        }
        let mut report = String::new();
        let step = registry.step(format, &body).unwrap();
        // The items are JSON text; read as values they pretty-print for the snapshot.
        let values = step.follow_up_values();
        match step {
            Step::Final { text, response, .. } => {
                // Never an empty answer over calls the registry did not run.
                let kept_whole = response
                    .choices
                    .iter()
                    .flat_map(|c| c.message.content.iter())
                    .any(|p| matches!(p, Part::Opaque(_)));
                assert!(!(text.is_empty() && kept_whole), "{}", path.display());
                writeln!(
                    report,
                    "final: {}",
                    text.chars().take(200).collect::<String>()
                )
                .unwrap();
            }
            Step::Unhandled {
                calls,
                hosted,
                text,
                ..
            } => {
                writeln!(report, "unhandled calls: {}", calls.len()).unwrap();
                writeln!(
                    report,
                    "hosted: {}",
                    hosted
                        .iter()
                        .map(|p| match p {
                            Part::Opaque(o) => o.value["type"].as_str().unwrap_or("?").to_owned(),
                            other => other.kind().to_owned(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .unwrap();
                writeln!(report, "text: {text}").unwrap();
            }
            Step::Continue {
                calls,
                results,
                follow_up,
                losses,
                ..
            } => {
                assert_eq!(follow_up.len(), values.len(), "every item reads back");
                writeln!(
                    report,
                    "calls: {}",
                    calls
                        .iter()
                        .map(|c| format!("{} {}", c.id, c.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .unwrap();
                writeln!(
                    report,
                    "failed: {}",
                    results.iter().filter(|r| r.is_error).count()
                )
                .unwrap();
                report.push_str("losses:\n");
                for l in &losses {
                    writeln!(report, "- {l}").unwrap();
                }
                writeln!(
                    report,
                    "follow_up:\n{}",
                    serde_json::to_string_pretty(&values).unwrap()
                )
                .unwrap();
            }
        }
        insta::assert_snapshot!(report);
    });
}

#[test]
fn an_unknown_tool_in_a_response_gets_a_failed_result_listing_the_tools() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolSpec::new("other", "", json!({"type": "object"})).unwrap(),
            |_| Ok("x".into()),
        )
        .unwrap();
    let body =
        std::fs::read_to_string("../../fixtures/openai-chat/response/tool-call-strict.gpt-4o.json")
            .unwrap();
    let step = registry.step(Format::OpenaiChat, &body).unwrap();
    let follow_up = step.follow_up_values();
    let Step::Continue { results, .. } = step else {
        panic!("expected calls")
    };
    assert!(results[0].is_error);
    assert_eq!(
        follow_up[1]["content"],
        "Error: unknown tool `get_weather`; available tools: other"
    );
}

#[test]
fn continue_keeps_the_response_id_and_usage() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolSpec::new("get_weather", "", json!({"type": "object"})).unwrap(),
            |_| Ok("sunny".into()),
        )
        .unwrap();
    let body =
        std::fs::read_to_string("../../fixtures/openai-chat/response/tool-call-strict.gpt-4o.json")
            .unwrap();
    // Read independently of the decoder: the body's own `id` and token counts.
    let raw: serde_json::Value = serde_json::from_str(&body).unwrap();
    let Step::Continue { id, usage, .. } = registry.step(Format::OpenaiChat, &body).unwrap() else {
        panic!("expected calls")
    };
    assert_eq!(id.as_deref(), raw["id"].as_str());
    let usage = usage.expect("the fixture has usage");
    assert_eq!(usage.input_tokens, raw["usage"]["prompt_tokens"].as_u64());
    assert_eq!(
        usage.output_tokens,
        raw["usage"]["completion_tokens"].as_u64()
    );
}

/// The stream fixtures of every format that has a stream decoder, with their framing.
fn streams() -> Vec<(Format, test_support::Fixture)> {
    test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"])
        .into_iter()
        .filter_map(|f| Some((f.format.parse().ok()?, f)))
        .collect()
}

/// A registry that answers every tool of `names` and counts the calls it runs.
fn counting(names: &[String]) -> (ToolRegistry, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut registry = ToolRegistry::new();
    for name in names {
        if registry.spec(name).is_some() {
            continue;
        }
        let ran = ran.clone();
        registry
            .register(
                ToolSpec::new(name, "", json!({"type": "object"})).unwrap(),
                move |args| {
                    ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    Ok(json!({ "args": args }).into())
                },
            )
            .unwrap();
    }
    (registry, ran)
}

#[test]
fn a_streamed_response_steps_like_the_body_it_adds_up_to() {
    use wire_convert::stream::{Accumulator, Framing, StreamDecoder};
    let mut stepped = 0;
    for (format, f) in streams() {
        // The step reads a stream in its wire framing: SSE bodies only, here.
        if wire_convert::stream::Framing::of(format) != Framing::Sse
            || !f.name.ends_with(".sse.txt")
        {
            continue;
        }
        let bytes = std::fs::read(&f.path).unwrap();
        let Ok(mut decoder) = StreamDecoder::new(format, &Default::default()) else {
            continue;
        };
        let mut acc = Accumulator::new();
        let Ok(parts) = decoder.push(&bytes) else {
            continue;
        };
        acc.extend(parts);
        let Ok(parts) = decoder.finish() else {
            continue;
        };
        acc.extend(parts);
        let Ok(response) = acc.finish() else { continue };
        let names: Vec<String> = response.choices[0]
            .message
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolCall(c) => Some(c.name.clone()),
                _ => None,
            })
            .collect();
        // Arguments cut short (a stream stopped at max_tokens inside a call) are written
        // into the body wrapped (`{"invalid_json": …}`): not the same call any more.
        let whole_arguments = response.choices[0].message.content.iter().all(|p| match p {
            Part::ToolCall(c) => c.arguments.value().is_some_and(|v| v.is_object()),
            _ => true,
        });
        if names.is_empty() || !whole_arguments {
            continue;
        }
        let body = wire_convert::encode_response(response, format, &Default::default())
            .unwrap()
            .value;
        let (registry, _) = counting(&names);
        let from_body = registry.step(format, &body).unwrap();
        let from_stream = registry.step_stream(format, &bytes).unwrap();
        let (
            Step::Continue {
                calls: a,
                follow_up: x,
                ..
            },
            Step::Continue {
                calls: b,
                follow_up: y,
                ..
            },
        ) = (&from_body, &from_stream)
        else {
            panic!("{}: both steps call tools", f.rel());
        };
        assert_eq!(a, b, "{}", f.rel());
        assert!(
            x.iter().map(|i| i.get()).eq(y.iter().map(|i| i.get())),
            "{}",
            f.rel()
        );
        stepped += 1;
    }
    assert!(stepped > 0, "no stream fixture with calls was stepped");
}

#[test]
fn a_stream_that_broke_off_runs_none_of_its_calls() {
    let body = std::fs::read(
        "../../fixtures/anthropic/stream/handmade-cut-off-before-message-stop.sse.txt",
    )
    .unwrap();
    let (registry, ran) = counting(&["get_weather".to_owned()]);
    let err = registry.step_stream(Format::Anthropic, &body).unwrap_err();
    assert!(err.to_string().contains("incomplete"), "{err}");
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// A Responses body whose output is `items`.
fn responses_body(items: serde_json::Value) -> String {
    json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
           "model": "gpt-5", "output": items})
    .to_string()
}

fn custom_call(call_id: &str, name: &str, input: &str) -> serde_json::Value {
    json!({"type": "custom_tool_call", "id": format!("ctc_{call_id}"), "call_id": call_id,
           "name": name, "input": input})
}

#[test]
fn a_custom_tool_call_runs_its_handler_on_the_text_and_gets_a_custom_output() {
    let mut registry = ToolRegistry::new();
    registry
        .register_custom(ToolSpec::custom("math_exp", "").unwrap(), |text| {
            Ok(format!("got <{text}>").into())
        })
        .unwrap();
    let body = std::fs::read_to_string(
        "../../fixtures/openai-responses/response/handmade-custom-tool-call.json",
    )
    .unwrap();
    let step = registry.step(Format::OpenaiResponses, &body).unwrap();
    let follow_up = step.follow_up_values();
    let Step::Continue {
        calls,
        results,
        losses,
        ..
    } = step
    else {
        panic!("the custom call runs: {step:?}")
    };
    assert_eq!(calls[0].name, "math_exp");
    assert!(!results[0].is_error);
    assert!(losses.is_empty(), "{losses:?}");
    assert_eq!(
        follow_up[2],
        json!({"type": "custom_tool_call_output", "call_id": "call_Qm3xT8vLw2RkZp7NcY4hJd9s",
               "output": "got <4 + 4 * 2>"})
    );
    // The follow-up is valid Responses input, as the SDK types it.
    let input = test_support::conformance("openai-responses.input").unwrap();
    let errors = test_support::schema_errors(input, &serde_json::Value::Array(follow_up));
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn calls_of_unregistered_custom_tools_alone_are_reported_unhandled_not_a_final_answer() {
    let registry = ToolRegistry::new();
    let body = responses_body(json!([custom_call("call_1", "patch", "*** Begin Patch")]));
    let step = registry.step(Format::OpenaiResponses, &body).unwrap();
    let Step::Unhandled {
        calls,
        hosted,
        text,
        ..
    } = step
    else {
        panic!("expected unhandled: {step:?}")
    };
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("call_1", "patch")
    );
    assert_eq!(calls[0].arguments.value(), Some(json!("*** Begin Patch")));
    assert!(hosted.is_empty() && text.is_empty());
}

#[test]
fn an_unregistered_custom_call_beside_a_function_call_gets_a_failed_output() {
    // Every call of the turn needs an output, or the next request is refused.
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolSpec::new("get_weather", "", json!({"type": "object"})).unwrap(),
            |_| Ok("sunny".into()),
        )
        .unwrap();
    let body = responses_body(json!([
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        custom_call("call_2", "patch", "diff")
    ]));
    let step = registry.step(Format::OpenaiResponses, &body).unwrap();
    let follow_up = step.follow_up_values();
    let Step::Continue { results, .. } = step else {
        panic!("expected calls: {step:?}")
    };
    assert_eq!(
        results.iter().map(|r| r.is_error).collect::<Vec<_>>(),
        [false, true]
    );
    assert_eq!(follow_up[2]["type"], "function_call_output");
    assert_eq!(follow_up[3]["type"], "custom_tool_call_output");
    assert_eq!(
        follow_up[3]["output"],
        "Error: unknown tool `patch`; available tools: get_weather"
    );
}

#[test]
fn hosted_calls_without_text_are_unhandled_and_with_text_a_final_answer() {
    let registry = ToolRegistry::new();
    let search = json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
                        "action": {"type": "search", "query": "weather"}});
    let alone = responses_body(json!([search.clone()]));
    let Step::Unhandled { calls, hosted, .. } =
        registry.step(Format::OpenaiResponses, &alone).unwrap()
    else {
        panic!("expected unhandled")
    };
    assert!(calls.is_empty());
    assert_eq!(hosted.len(), 1);
    let answered = responses_body(
        json!([search, {"type": "message", "id": "msg_1", "role": "assistant",
        "status": "completed", "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}]),
    );
    let Step::Final { text, .. } = registry.step(Format::OpenaiResponses, &answered).unwrap()
    else {
        panic!("expected a final answer")
    };
    assert_eq!(text, "Sunny.");
}

/// A registered name Gemini rejects (`2fa`: its names start with a letter or `_`) is
/// offered rewritten, with a loss, and a call of the rewritten name runs the tool; the
/// follow-up answers with the name the model called.
#[test]
fn a_call_of_a_name_rewritten_for_the_format_runs_the_registered_tool() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolSpec::new("2fa", "A second factor", json!({"type": "object"})).unwrap(),
            |_| Ok("code 123456".into()),
        )
        .unwrap();
    let tools = registry
        .tools_for(Format::Gemini, &wire_convert::Options::default())
        .unwrap();
    assert_eq!(
        tools.value[0]["functionDeclarations"][0]["name"], "t_2fa",
        "{}",
        tools.value
    );
    assert_eq!(tools.names.get("2fa"), "t_2fa");
    assert_eq!(registry.names_for(Format::Gemini), tools.names);
    assert_eq!(tools.losses.len(), 1, "{:?}", tools.losses);
    assert_eq!(tools.losses[0].code, wire_convert::LossCode::NameRewritten);
    // OpenAI takes the name as it is.
    let chat = registry
        .tools_for(Format::OpenaiChat, &wire_convert::Options::default())
        .unwrap();
    assert_eq!(chat.value[0]["function"]["name"], "2fa");
    assert!(chat.names.is_empty() && chat.losses.is_empty());

    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "t_2fa", "args": {}}}
    ]}, "finishReason": "STOP"}]});
    let step = registry
        .step(Format::Gemini, &response.to_string())
        .unwrap();
    let Step::Continue {
        results, follow_up, ..
    } = step
    else {
        panic!("a call: {step:?}");
    };
    assert!(!results[0].is_error, "{:?}", results[0]);
    assert_eq!(results[0].name.as_deref(), Some("t_2fa"));
    let answer: serde_json::Value = serde_json::from_str(follow_up[1].get()).unwrap();
    assert_eq!(
        answer["parts"][0]["functionResponse"]["name"], "t_2fa",
        "{answer}"
    );
    assert!(answer.to_string().contains("123456"), "{answer}");
}

/// The step keeps each format's name map between turns; registering or removing a tool
/// makes it again, so a call of a tool registered after the first step still finds it.
#[test]
fn the_name_map_follows_the_tools_registered_between_steps() {
    let mut registry = ToolRegistry::new();
    let spec = |name: &str| ToolSpec::new(name, "", json!({"type": "object"})).unwrap();
    registry
        .register(spec("weather"), |_| Ok("sun".into()))
        .unwrap();
    // Every format's map, made while only `weather` is there.
    for format in Format::ALL {
        assert!(registry.names_for(format).is_empty(), "{format}");
    }
    registry
        .register(spec("2fa"), |_| Ok("code 123456".into()))
        .unwrap();
    assert_eq!(registry.names_for(Format::Gemini).get("2fa"), "t_2fa");
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "t_2fa", "args": {}}}
    ]}, "finishReason": "STOP"}]});
    let Step::Continue { results, .. } = registry
        .step(Format::Gemini, &response.to_string())
        .unwrap()
    else {
        panic!("a call");
    };
    assert!(!results[0].is_error, "{:?}", results[0]);
    assert!(registry.remove("2fa"));
    assert!(registry.names_for(Format::Gemini).is_empty());
    // Each format has its own place in the memo (`Format::ALL` in declaration order).
    for (i, format) in Format::ALL.into_iter().enumerate() {
        assert_eq!(format as usize, i, "{format}");
    }
}
