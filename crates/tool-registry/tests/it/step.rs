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
        let mut names: Vec<String> = decoded
            .choices
            .iter()
            .flat_map(|c| c.message.content.iter())
            .filter_map(|p| match p {
                Part::ToolCall(c) => Some(c.name.clone()),
                _ => None,
            })
            .collect();
        names.dedup();
        let mut registry = ToolRegistry::new();
        for (i, name) in names.iter().enumerate() {
            if registry.spec(name).is_some() {
                continue;
            }
            let fails = i == 1;
            let tool = name.clone();
            registry
                .register(
                    ToolSpec::new(name, "", json!({"type": "object"})).unwrap(),
                    move |args| {
                        if fails {
                            Err(format!("{tool} is down").into())
                        } else {
                            Ok(json!({"tool": tool, "args": args}).into())
                        }
                    },
                )
                .unwrap();
        }
        let mut report = String::new();
        let step = registry.step(format, &body).unwrap();
        // The items are JSON text; read as values they pretty-print for the snapshot.
        let values = step.follow_up_values();
        match step {
            Step::Final { text, .. } => {
                writeln!(
                    report,
                    "final: {}",
                    text.chars().take(200).collect::<String>()
                )
                .unwrap();
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
