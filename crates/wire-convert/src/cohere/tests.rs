use super::F;
use crate::model::{
    self, Arguments, Choice, Json, Media, Message, OutputFormat, Part, PartMeta, Reasoning,
    ReasoningConfig, Role, Settings, Source, StopKind, StopReason, Text, Tool, ToolCall,
    ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::{LossCode, LossKind, Options, convert_request_value, convert_response_value};
use serde_json::{Value, json};
use wire_types::Format;
use wire_types::cohere as w;

#[test]
fn tool_plan_is_reasoning_and_comes_back_as_tool_plan() {
    let body = json!({"model": "m", "messages": [
        {"role": "assistant", "tool_plan": "I will look it up.", "tool_calls": [
            {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "null"}}]},
        {"role": "tool", "tool_call_id": "f_1", "content": "ok"}]});
    let d = crate::decode_request(&body.to_string(), F, &Default::default())
        .unwrap()
        .value;
    match &d.messages[0].content[0] {
        Part::Reasoning(r) => {
            assert_eq!(r.text.as_deref(), Some("I will look it up."));
            assert_eq!(r.source, Some(F));
        }
        other => panic!("not reasoning: {other:?}"),
    }
    // The result is named after its call.
    match &d.messages[1].content[0] {
        Part::ToolResult(r) => assert_eq!(r.name.as_deref(), Some("f")),
        other => panic!("not a result: {other:?}"),
    }
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty());
    // Elsewhere: a thinking item of another turn is not a plan.
    let out = convert_request_value(&body, F, Format::Ollama, &Options::default()).unwrap();
    assert_eq!(out.value["messages"][0]["thinking"], "I will look it up.");
    assert_eq!(
        out.value["messages"][0]["tool_calls"][0]["function"]["arguments"],
        json!({})
    );
}

#[test]
fn tool_choice_and_thinking() {
    let body = json!({"model": "m", "messages": [],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "reasoning_effort": "medium"});
    let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert_eq!(out.value["tool_choice"], "REQUIRED");
    assert_eq!(
        out.value["thinking"],
        json!({"type": "enabled", "token_budget": 8192})
    );
    let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(paths, ["/tool_choice", "/reasoning_effort/effort"]);
    let body = json!({"model": "m", "messages": [], "tool_choice": "auto"});
    let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert!(out.value.get("tool_choice").is_none());
    assert!(out.losses.is_empty());
    let body = json!({"model": "m", "messages": [], "thinking": {"type": "disabled"}});
    let d = crate::decode_request(&body.to_string(), F, &Default::default())
        .unwrap()
        .value;
    assert_eq!(
        d.settings.reasoning,
        Some(ReasoningConfig {
            enabled: Some(false),
            ..Default::default()
        })
    );
}

#[test]
fn finish_reasons_and_usage() {
    for (raw, kind, openai) in [
        ("COMPLETE", StopKind::EndTurn, "stop"),
        ("STOP_SEQUENCE", StopKind::StopSequence, "stop"),
        ("MAX_TOKENS", StopKind::MaxTokens, "length"),
        ("TOOL_CALL", StopKind::ToolUse, "tool_calls"),
        ("ERROR", StopKind::Error, "ERROR"),
        ("TIMEOUT", StopKind::Error, "TIMEOUT"),
    ] {
        let resp = json!({"id": "x", "finish_reason": raw,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            "usage": {"billed_units": {"input_tokens": 1, "output_tokens": 2},
                "tokens": {"input_tokens": 500, "output_tokens": 9}, "cached_tokens": 448}});
        let d = crate::decode_response(&resp.to_string(), F, &Default::default())
            .unwrap()
            .value;
        assert_eq!(
            d.choices[0].stop_reason.as_ref().map(|s| s.kind),
            Some(kind)
        );
        let u = d.usage.clone().unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cached_input_tokens),
            (Some(500), Some(9), Some(448))
        );
        let out =
            convert_response_value(&resp, F, Format::OpenaiChat, &Options::default()).unwrap();
        assert_eq!(out.value["choices"][0]["finish_reason"], openai);
        assert_eq!(
            out.value["usage"]["prompt_tokens_details"]["cached_tokens"],
            448
        );
        assert_eq!(out.value["usage"]["total_tokens"], 509);
    }
    let resp = json!({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
        "finish_reason": "length"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}});
    let out = convert_response_value(&resp, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert_eq!(out.value["finish_reason"], "MAX_TOKENS");
    assert_eq!(
        out.value["usage"],
        json!({"tokens": {"input_tokens": 3, "output_tokens": 4}})
    );
    assert_eq!(
        out.value["message"],
        json!({"role": "assistant", "content": [{"type": "text", "text": "hi"}]})
    );
}

#[test]
fn documents_in_results_are_json() {
    let body = json!({"model": "m", "messages": [
        {"role": "assistant", "tool_calls": [
            {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "f_1", "content": [
            {"type": "document", "document": {"data": {"a": "bcd"}, "id": "doc-1"}}]}]});
    for to in [Format::Ollama, Format::Mistral] {
        let out = convert_request_value(&body, F, to, &Options::default()).unwrap();
        assert_eq!(out.value["messages"][1]["content"], "{\"a\":\"bcd\"}");
        let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
        assert!(
            paths.contains(&"/messages/1/content/0/document/id"),
            "{paths:?}"
        );
    }
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
}

/// Every request and response fixture of every format, encoded as Cohere, reads back
/// with the wire types and passes the format's own checks, and writes again as the same
/// JSON (the conversion matrix checks the same outputs against the official schema,
/// `fixtures/conformance/cohere.{request,response}.schema.json`).
#[test]
fn every_encoded_fixture_reads_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut failures = Vec::new();
    let mut checked = 0;
    for from in Format::CHAT {
        for body in ["request", "response"] {
            let Ok(entries) = std::fs::read_dir(dir.join(from.name()).join(body)) else {
                continue;
            };
            let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for path in paths {
                let name = path.display().to_string();
                let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
                if !name.ends_with(".json") || file.is_some_and(|f| f.starts_with("error")) {
                    continue;
                }
                let input: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let out = if body == "request" {
                    convert_request_value(&input, from, F, &Options::default())
                } else {
                    convert_response_value(&input, from, F, &Options::default())
                };
                let value = match out {
                    Ok(c) => c.value,
                    Err(e) => {
                        failures.push(format!("{name}: {e}"));
                        continue;
                    }
                };
                checked += 1;
                let back = if body == "request" {
                    wire_types::from_value::<w::Request>(&value).and_then(|r| {
                        w::validate_request(&r)?;
                        Ok(wire_types::to_value(&r))
                    })
                } else {
                    wire_types::from_value::<w::Response>(&value).map(|r| wire_types::to_value(&r))
                };
                match back {
                    Ok(b) if b == value => {}
                    Ok(_) => failures.push(format!("{name}: writes back differently")),
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn losses_at<'l>(losses: &'l [crate::Loss], path: &str) -> Vec<&'l crate::Loss> {
    losses.iter().filter(|l| l.path == path).collect()
}

#[test]
fn thinking_losses_point_at_cohere_names() {
    let body = json!({"model": "command-a", "messages": [{"role": "user", "content": "hi"}],
        "thinking": {"type": "enabled", "token_budget": 2048}});
    let out = convert_request_value(&body, F, Format::Ollama, &Options::default()).unwrap();
    assert_eq!(out.value["think"], true);
    let l = losses_at(&out.losses, "/thinking/token_budget");
    assert_eq!(l.len(), 1, "{:?}", out.losses);
    assert_eq!(l[0].kind, LossKind::Dropped);
}

#[test]
fn stop_kinds_map_into_the_closed_set() {
    for (kind, expected, lossy) in [
        (StopKind::EndTurn, "COMPLETE", false),
        (StopKind::StopSequence, "STOP_SEQUENCE", false),
        (StopKind::MaxTokens, "MAX_TOKENS", false),
        (StopKind::ToolUse, "TOOL_CALL", false),
        (StopKind::Error, "ERROR", false),
        (StopKind::ContentFilter, "ERROR", true),
        (StopKind::Pause, "COMPLETE", true),
        (StopKind::Other, "COMPLETE", true),
    ] {
        let resp = model::Response {
            choices: vec![Choice {
                message: Message::text(Role::Assistant, "hi"),
                stop_reason: Some(StopReason::new(kind)),
                vendor: Vendor::default(),
            }],
            ..Default::default()
        };
        let out = crate::encode_response_value(resp, F, &Options::default()).unwrap();
        assert_eq!(out.value["finish_reason"], expected, "{kind:?}");
        let losses = losses_at(&out.losses, "/choices/0/stop_reason");
        assert_eq!(losses.len(), usize::from(lossy), "{kind:?}");
        assert!(losses.iter().all(|l| l.kind == LossKind::Changed));
    }
    // Raw values of other formats never reach the closed set.
    let gemini = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "…"}]},
        "finishReason": "SAFETY"}]});
    let out = convert_response_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
    assert_eq!(out.value["finish_reason"], "ERROR");
    let l = losses_at(&out.losses, "/candidates/0/finishReason");
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].kind, LossKind::Changed);
    assert!(l[0].detail.contains("`SAFETY`"), "{}", l[0].detail);
}

#[test]
fn a_failed_result_is_prefixed_once() {
    let body = json!({"model": "c", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
                "content": "Error: boom"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
                "content": [{"type": "text", "text": "timeout"}]}]}]});
    let out = convert_request_value(&body, Format::Anthropic, F, &Options::default()).unwrap();
    let m = &out.value["messages"];
    assert_eq!(m[2]["content"], "Error: boom");
    assert_eq!(m[3]["content"], "Error: timeout");
    for path in [
        "/messages/2/content/0/is_error",
        "/messages/2/content/1/is_error",
    ] {
        let l = losses_at(&out.losses, path);
        assert_eq!(l.len(), 1, "{path}");
        assert_eq!(l[0].kind, LossKind::Changed);
    }
}

#[test]
fn empty_text_parts_are_not_sent() {
    // A Gemini signature-only text part after the answer.
    let gemini = json!({"contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "Hello."},
            {"text": "", "thoughtSignature": "c2ln"}]},
        {"role": "user", "parts": [{"text": "and?"}]}]});
    let out = convert_request_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
    assert_eq!(
        out.value["messages"][1],
        json!({"role": "assistant", "content": "Hello."})
    );
    let lost: Vec<&crate::Loss> = out
        .losses
        .iter()
        .filter(|l| l.path.starts_with("/contents"))
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert!(lost[0].path.starts_with("/contents/1/parts/1/"));
    assert_eq!(lost[0].kind, LossKind::Dropped);
    // A response of calls with empty text: no empty text item.
    let openai = json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "", "tool_calls": [{"id": "call_1",
                "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]});
    let out = convert_response_value(&openai, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert!(
        out.value["message"].get("content").is_none(),
        "{}",
        out.value
    );
    assert_eq!(out.value["message"]["tool_calls"][0]["id"], "call_1");
    // Cohere's own empty text item comes back as it was.
    let own = json!({"model": "m", "messages": [
        {"role": "user", "content": [{"type": "text", "text": ""},
            {"type": "text", "text": "hi"}]}]});
    let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, own);
    assert!(same.losses.is_empty());
}

/// Each loss as (path, kind, code).
fn coded(losses: &[crate::Loss]) -> Vec<(&str, LossKind, LossCode)> {
    losses
        .iter()
        .map(|l| (l.path.as_str(), l.kind, l.code))
        .collect()
}

#[test]
fn each_request_loss_has_the_code_of_what_it_is_about() {
    let media = |source, name: Option<&str>| Media {
        source,
        media_type: None,
        name: name.map(str::to_owned),
        meta: PartMeta::default(),
    };
    let url = |u: &str| Source::Url { url: u.to_owned() };
    let req = model::Request {
        model: None,
        messages: vec![
            Message::new(
                Role::System,
                vec![
                    Part::text("be brief"),
                    Part::Image(media(url("https://x.org/a.png"), None)),
                ],
            ),
            Message::new(
                Role::User,
                vec![
                    Part::Refusal(Text {
                        text: "no".into(),
                        meta: PartMeta::default(),
                    }),
                    Part::Json(Json {
                        value: json!({"a": 1}),
                        meta: PartMeta::default(),
                    }),
                    Part::Image(media(
                        Source::FileId {
                            file_id: "file-1".into(),
                        },
                        None,
                    )),
                    Part::Image(media(url("https://x.org/b.png"), Some("b.png"))),
                    Part::Reasoning(Reasoning {
                        text: Some("hm".into()),
                        ..Default::default()
                    }),
                ],
            ),
            Message::new(
                Role::Assistant,
                vec![
                    Part::Reasoning(Reasoning {
                        summary: vec!["plan".into()],
                        source: Some(Format::Anthropic),
                        ..Default::default()
                    }),
                    Part::ToolCall(ToolCall {
                        id: "c1".into(),
                        synthetic_id: false,
                        name: "f".into(),
                        arguments: Arguments::Text("{}".into()),
                        meta: PartMeta::default(),
                    }),
                ],
            ),
            Message::new(
                Role::Tool,
                vec![
                    Part::ToolResult(ToolResult {
                        call_id: "c1".into(),
                        name: Some("f".into()),
                        content: vec![Part::Document(media(url("https://x.org/c.pdf"), None))],
                        is_error: true,
                        meta: PartMeta::default(),
                    }),
                    Part::ToolResult(ToolResult {
                        call_id: "gone".into(),
                        name: Some("g".into()),
                        content: vec![Part::text("late")],
                        is_error: false,
                        meta: PartMeta::default(),
                    }),
                    Part::text("stray"),
                ],
            ),
        ],
        tools: vec![
            Tool::Function(ToolDef {
                strict: Some(true),
                ..ToolDef::new("f", "F", json!({"type": "object"}))
            }),
            Tool::Function(ToolDef::new("g", "G", json!({"type": "object"}))),
        ],
        tool_choice: Some(ToolChoice::Allowed {
            names: vec!["f".into()],
            required: true,
        }),
        settings: Settings {
            parallel_tool_calls: Some(false),
            reasoning: Some(ReasoningConfig {
                include: Some(false),
                effort: Some("turbo".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        output_format: Some(OutputFormat::JsonSchema {
            name: Some("n".into()),
            schema: json!({"type": "object"}),
            strict: Some(false),
        }),
        ..Default::default()
    };
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    use LossCode::*;
    use LossKind::*;
    assert_eq!(
        coded(&out.losses),
        [
            ("/model", Changed, FieldDefaulted),
            // Strict on some tools only: no `strict_tools`.
            ("/tools/0/strict", Dropped, FieldUnsupported),
            ("/messages/0/content/1", Dropped, PartUnsupported),
            ("/messages/1/content/0", Changed, PartAsText),
            ("/messages/1/content/1", Changed, PartAsText),
            ("/messages/1/content/2", Dropped, PartUnsupported),
            ("/messages/1/content/3/name", Dropped, PartChanged),
            ("/messages/1/content/4", Dropped, ReasoningDropped),
            ("/messages/2/content/0/summary", Changed, PartChanged),
            ("/messages/3/content/0/content/0", Dropped, PartUnsupported),
            ("/messages/3/content/0/is_error", Changed, PartChanged),
            // A named result whose call is not in the conversation.
            ("/messages/3/content/1/name", Dropped, PartChanged),
            ("/messages/3/content/2", Dropped, PartUnsupported),
            ("/tool_choice", Changed, ToolChoiceChanged),
            ("/settings/parallel_tool_calls", Dropped, FieldUnsupported),
            ("/settings/reasoning/include", Dropped, FieldUnsupported),
            ("/settings/reasoning/effort", Dropped, FieldUnsupported),
            ("/output_format/name", Dropped, FieldUnsupported),
            ("/output_format/strict", Changed, SettingChanged),
        ]
    );
}

#[test]
fn each_response_loss_has_the_code_of_what_it_is_about() {
    let choice = |kind| Choice {
        message: Message::text(Role::Assistant, "hi"),
        stop_reason: Some(StopReason::new(kind)),
        vendor: Vendor::default(),
    };
    let resp = model::Response {
        model: Some("m".into()),
        created: Some(1),
        choices: vec![choice(StopKind::ContentFilter), choice(StopKind::EndTurn)],
        usage: Some(Usage {
            input_tokens: Some(10),
            output_tokens: Some(5),
            total_tokens: Some(20),
            reasoning_tokens: Some(4),
            ..Default::default()
        }),
        ..Default::default()
    };
    let out = crate::encode_response_value(resp, F, &Options::default()).unwrap();
    use LossCode::*;
    use LossKind::*;
    assert_eq!(
        coded(&out.losses),
        [
            // Required by Cohere's response and absent: the stand-in `""`.
            ("/id", Changed, FieldDefaulted),
            ("/created", Dropped, FieldUnsupported),
            ("/model", Dropped, FieldUnsupported),
            ("/choices/0/stop_reason", Changed, StopReasonChanged),
            ("/choices/1", Dropped, ChoicesDropped),
            ("/usage/reasoning_tokens", Dropped, UsageChanged),
            ("/usage/total_tokens", Dropped, UsageChanged),
        ]
    );
}

#[test]
fn a_calls_own_type_that_is_no_string_is_written_once() {
    // A hand-built neutral call whose Cohere vendor record holds a `type` the wire's
    // string field cannot take: the body must still read back (no key twice).
    let mut fields = serde_json::Map::new();
    fields.insert("type".to_owned(), json!(5));
    let call = ToolCall {
        id: "call_1".into(),
        synthetic_id: false,
        name: "f".into(),
        arguments: Arguments::Text("{}".into()),
        meta: PartMeta {
            vendor: Vendor::new(F, fields),
            ..Default::default()
        },
    };
    let request = model::Request {
        model: Some("m".into()),
        messages: vec![
            Message::new(Role::User, vec![Part::text("hi")]),
            Message::new(Role::Assistant, vec![Part::ToolCall(call)]),
        ],
        ..Default::default()
    };
    let out = crate::encode_request(request, F, &Options::default()).unwrap();
    let read: w::Request = wire_types::from_str(&out.value).unwrap();
    let calls = read.messages[1].clone();
    assert_eq!(
        wire_types::to_value(&calls)["tool_calls"][0]["type"],
        "function"
    );
    // The value that could not be written is a loss, not a silent drop.
    let lost = losses_at(&out.losses, "/messages/1/content/0/type");
    assert_eq!(lost.len(), 1, "{:?}", out.losses);
    assert_eq!(lost[0].code, LossCode::FieldDefaulted);
}
