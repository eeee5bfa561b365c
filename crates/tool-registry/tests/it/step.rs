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
        let decoded = wire_convert::decode_response(&body, format).unwrap().value;
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
        let values = step.append_values();
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
                append,
                losses,
            } => {
                assert_eq!(append.len(), values.len(), "every item reads back");
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
                    "append:\n{}",
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
    let append = step.append_values();
    let Step::Continue { results, .. } = step else {
        panic!("expected calls")
    };
    assert!(results[0].is_error);
    assert_eq!(
        append[1]["content"],
        "Error: unknown tool `get_weather`; available tools: other"
    );
}
