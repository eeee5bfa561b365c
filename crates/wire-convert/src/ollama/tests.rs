use super::F;
use crate::model::{
    self, Arguments, Choice, Json, Media, Message, OutputFormat, Part, PartMeta, Reasoning,
    ReasoningConfig, Role, Settings, Source, StopKind, StopReason, Text, ToolCall, ToolChoice,
    ToolResult, Usage, Vendor,
};
use crate::{LossCode, LossKind, Options, convert_request_value, convert_response_value};
use serde_json::{Value, json};
use wire_types::Format;

fn to_openai(body: Value) -> (Value, Vec<crate::Loss>) {
    let out = convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap();
    (out.value, out.losses)
}

/// Calls without ids, and results matched to them by name and order (the last matches
/// none).
fn calls_without_ids() -> Value {
    json!({"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [
            {"function": {"name": "a", "arguments": {}}},
            {"function": {"name": "b", "arguments": {}}},
            {"function": {"name": "a", "arguments": {"x": 1}}}]},
        {"role": "tool", "tool_name": "b", "content": "B"},
        {"role": "tool", "tool_name": "a", "content": "A1"},
        {"role": "tool", "tool_name": "a", "content": "A2"},
        {"role": "tool", "tool_name": "zzz", "content": "orphan"}]})
}

#[test]
fn results_without_ids_are_matched_by_name_then_order() {
    let (out, _) = to_openai(calls_without_ids());
    let calls = &out["messages"][1]["tool_calls"];
    assert_eq!(calls[0]["id"], "call_1_0_a");
    assert_eq!(calls[1]["id"], "call_1_1_b");
    assert_eq!(calls[2]["id"], "call_1_2_a");
    // Results are put in call order for another format (a `moved` loss).
    assert_eq!(out["messages"][2]["tool_call_id"], "call_1_0_a");
    assert_eq!(out["messages"][3]["tool_call_id"], "call_1_1_b");
    assert_eq!(out["messages"][4]["tool_call_id"], "call_1_2_a");
    // Nothing to match: an id of its own (tool message 2, result 3).
    assert_eq!(out["messages"][5]["tool_call_id"], "call_2_3_zzz");
    // Back to Ollama as it came: no ids anywhere.
    let body = calls_without_ids();
    let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, body);
    assert!(same.losses.is_empty());
}

#[test]
fn result_ids_are_written_only_when_matching_would_not_find_the_call() {
    // OpenAI results answered out of name order: the second `get` result answers the
    // first call, so matching by name would pick the wrong call.
    let body = json!({"model": "m", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "get", "arguments": "{}"}},
            {"id": "c3", "type": "function", "function": {"name": "put", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c3", "content": "p"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
        {"role": "tool", "tool_call_id": "c1", "content": "one"}]});
    let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
    let m = &out.value["messages"];
    assert_eq!(m[0]["tool_calls"][0]["id"], "c1");
    // Results are put in call order first (a `moved` loss); then matching by name
    // and order finds every call, so no `tool_call_id` is needed.
    assert_eq!(
        m[1],
        json!({"role": "tool", "content": "one", "tool_name": "get"})
    );
    assert_eq!(
        m[2],
        json!({"role": "tool", "content": "two", "tool_name": "get"})
    );
    assert_eq!(
        m[3],
        json!({"role": "tool", "content": "p", "tool_name": "put"})
    );
    assert!(out.losses.iter().any(|l| l.kind == crate::LossKind::Moved));
    // Results that would match the wrong call carry their id (same-format input, which
    // keeps its order).
    let own = json!({"model": "m", "messages": [
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "function": {"name": "get", "arguments": {}}},
            {"id": "c2", "function": {"name": "get", "arguments": {}}}]},
        {"role": "tool", "tool_name": "get", "tool_call_id": "c2", "content": "two"},
        {"role": "tool", "tool_name": "get", "content": "one"}]});
    let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, own);
    // And back: every result finds its call.
    let back =
        convert_request_value(&out.value, F, Format::OpenaiChat, &Options::default()).unwrap();
    let b = &back.value["messages"];
    assert_eq!(b[1]["tool_call_id"], "c1");
    assert_eq!(b[2]["tool_call_id"], "c2");
    assert_eq!(b[3]["tool_call_id"], "c3");
}

#[test]
fn arguments_become_objects() {
    let body = json!({"model": "m", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
            {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "{oops"}},
            {"id": "c3", "type": "function", "function": {"name": "f", "arguments": "[1,2]"}},
            {"id": "c4", "type": "function", "function": {"name": "f", "arguments": "null"}},
            {"id": "c5", "type": "function", "function": {"name": "f", "arguments": ""}}]}]});
    let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
    let calls = &out.value["messages"][0]["tool_calls"];
    assert_eq!(calls[0]["function"]["arguments"], json!({"a": 1}));
    assert_eq!(
        calls[1]["function"]["arguments"],
        json!({"invalid_json": "{oops"})
    );
    assert_eq!(calls[2]["function"]["arguments"], json!({"value": [1, 2]}));
    assert_eq!(calls[3]["function"]["arguments"], json!({}));
    assert_eq!(calls[4]["function"]["arguments"], json!({}));
    let changed: Vec<&str> = out
        .losses
        .iter()
        .filter(|l| l.kind == LossKind::Changed)
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(
        changed,
        [
            // In the source's own spelling: `function/arguments`.
            "/messages/0/tool_calls/1/function/arguments",
            "/messages/0/tool_calls/2/function/arguments",
            "/messages/0/tool_calls/3/function/arguments",
            // Empty text is no arguments: `{}`, said once like every other rewrite.
            "/messages/0/tool_calls/4/function/arguments"
        ]
    );
}

#[test]
fn options_map_to_settings_and_back() {
    let body = json!({"model": "m", "messages": [], "options": {
        "temperature": 0.5, "num_ctx": 4096, "num_predict": 100, "top_k": 40,
        "stop": ["x"], "seed": 3, "mirostat": 1}, "think": "high", "format": "json"});
    let d = crate::decode_request(&body.to_string(), F, &Default::default())
        .unwrap()
        .value;
    assert_eq!(d.settings.max_tokens, Some(100));
    assert_eq!(d.settings.top_k, Some(40));
    assert_eq!(d.settings.seed, Some(3));
    assert_eq!(d.settings.stop, Some(vec!["x".to_owned()]));
    assert_eq!(
        d.settings
            .reasoning
            .as_ref()
            .and_then(|r| r.effort.as_deref()),
        Some("high")
    );
    assert_eq!(d.output_format, Some(OutputFormat::JsonObject));
    let (out, losses) = to_openai(body.clone());
    assert_eq!(out["max_completion_tokens"], 100);
    assert_eq!(out["reasoning_effort"], "high");
    let paths: Vec<&str> = losses.iter().map(|l| l.path.as_str()).collect();
    assert!(paths.contains(&"/options/top_k"), "{paths:?}");
    // Only the options that have no place are reported, each at its own key.
    let dropped: Vec<&str> = losses
        .iter()
        .filter(|l| l.path.starts_with("/options") && l.kind == LossKind::Dropped)
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(
        dropped,
        ["/options/num_ctx", "/options/mirostat", "/options/top_k"]
    );
    // And back into Ollama: the options object as it came.
    let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, body);
    assert!(same.losses.is_empty());
}

#[test]
fn tool_choice_none_leaves_the_tools_out() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "tool_choice": "none", "parallel_tool_calls": false});
    let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert!(out.value.get("tools").is_none());
    let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(paths, ["/tools/0", "/parallel_tool_calls"]);
}

#[test]
fn done_reason_maps_by_kind() {
    let resp = json!({"model": "m", "message": {"role": "assistant", "content": "",
        "tool_calls": [{"function": {"name": "f", "arguments": {}}}]},
        "done": true, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5});
    let d = crate::decode_response(&resp.to_string(), F, &Default::default())
        .unwrap()
        .value;
    let stop = d.choices[0].stop_reason.clone().unwrap();
    assert_eq!(stop.kind, StopKind::ToolUse);
    let usage = d.usage.clone().unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(10), Some(5))
    );
    let out = convert_response_value(&resp, F, Format::OpenaiChat, &Options::default()).unwrap();
    assert_eq!(out.value["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(out.value["usage"]["total_tokens"], 15);
    let back =
        convert_response_value(&out.value, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert_eq!(back.value["done_reason"], "stop");
    assert_eq!(back.value["prompt_eval_count"], 10);
    assert_eq!(back.value["done"], true);
    let length = json!({"model": "m", "message": {"role": "assistant", "content": "x"},
        "done": true, "done_reason": "length"});
    let d = crate::decode_response(&length.to_string(), F, &Default::default())
        .unwrap()
        .value;
    assert_eq!(
        d.choices[0].stop_reason.as_ref().map(|s| s.kind),
        Some(StopKind::MaxTokens)
    );
}

#[test]
fn images_by_url_cannot_be_sent() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]});
    let out = convert_request_value(&body, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert_eq!(
        out.value["messages"][0],
        json!({"role": "user", "content": "see", "images": ["AAAA"]})
    );
    assert_eq!(out.losses.len(), 1);
    assert_eq!(out.losses[0].path, "/messages/0/content/1");
    assert_eq!(out.losses[0].kind, LossKind::Dropped);
}

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// A request with two calls whose results both failed: one text already says so.
fn anthropic_failed_results() -> Value {
    json!({"model": "c", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
                "content": "Error: boom"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
                "content": "timeout"}]}]})
}

/// A request whose tool result carries an image, optionally followed by a user turn.
fn anthropic_result_with_image(then_user: bool) -> Value {
    let mut messages = vec![
        json!({"role": "user", "content": "show me"}),
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "photo", "input": {}}]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "the photo"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                    "data": PNG}}]}]}),
    ];
    if then_user {
        messages.push(json!({"role": "assistant", "content": "Here it is."}));
        messages.push(json!({"role": "user", "content": "thanks"}));
    }
    json!({"model": "c", "max_tokens": 10, "messages": messages})
}

fn losses_at<'l>(losses: &'l [crate::Loss], path: &str) -> Vec<&'l crate::Loss> {
    losses.iter().filter(|l| l.path == path).collect()
}

#[test]
fn image_media_types_are_read_from_the_bytes() {
    let images = [
        (PNG, Some("image/png")),
        ("/9j/4AAQSkZJRgABAQ", Some("image/jpeg")),
        (
            "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==",
            Some("image/gif"),
        ),
        (
            "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=",
            Some("image/webp"),
        ),
        ("AAAAAAAA", None),
        ("", None),
    ];
    for (data, media_type) in images {
        assert_eq!(crate::media::sniff_image(data), media_type, "{data}");
    }
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "what?",
        "images": [PNG, "/9j/4AAQSkZJRgABAQ", "AAAAAAAA"]}]});
    let d = crate::decode_request(&body.to_string(), F, &Default::default())
        .unwrap()
        .value;
    let types: Vec<Option<&str>> = d.messages[0]
        .content
        .iter()
        .filter_map(|p| match p {
            Part::Image(m) => Some(m.media_type.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(types, [Some("image/png"), Some("image/jpeg"), None]);
    // OpenAI gets a data URL it accepts, not `application/octet-stream`.
    let (out, _) = to_openai(body.clone());
    let url = &out["messages"][0]["content"][1]["image_url"]["url"];
    assert_eq!(url, &Value::String(format!("data:image/png;base64,{PNG}")));
    // Gemini needs a media type: only the unknown image is a guess (a loss).
    let gemini = convert_request_value(&body, F, Format::Gemini, &Options::default()).unwrap();
    let guessed: Vec<&str> = gemini
        .losses
        .iter()
        .filter(|l| l.path.ends_with("/media_type"))
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(guessed, ["/messages/0/images/2/media_type"]);
    // Back to Ollama: the images as they came.
    let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, body);
    assert!(same.losses.is_empty());
}

#[test]
fn an_absent_stream_means_streaming() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let d = crate::decode_request(&body.to_string(), F, &Default::default())
        .unwrap()
        .value;
    assert_eq!(d.settings.stream, Some(true));
    // Ollama again: still absent.
    let same = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, body);
    assert!(same.losses.is_empty());
    // Another format is told to stream; one that cannot say so in the body reports it
    // at Ollama's `stream`.
    let (out, _) = to_openai(body.clone());
    assert_eq!(out["stream"], true);
    let gemini = convert_request_value(&body, F, Format::Gemini, &Options::default()).unwrap();
    let stream = losses_at(&gemini.losses, "/stream");
    assert_eq!(stream.len(), 1);
    assert_eq!(stream[0].kind, LossKind::Moved);
    // An explicit `false` stays.
    let once = json!({"model": "m", "messages": [], "stream": false});
    let same = convert_request_value(&once, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, once);
    // From another format: one JSON body unless it asked to stream, said explicitly.
    for (stream, expected) in [(None, false), (Some(false), false), (Some(true), true)] {
        let mut openai = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        if let Some(s) = stream {
            openai["stream"] = Value::Bool(s);
        }
        let out =
            convert_request_value(&openai, Format::OpenaiChat, F, &Options::default()).unwrap();
        assert_eq!(out.value["stream"], expected, "{stream:?}");
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }
}

#[test]
fn stop_kinds_without_an_ollama_value_are_sent_as_stop() {
    for (kind, expected, lossy) in [
        (StopKind::EndTurn, "stop", false),
        (StopKind::StopSequence, "stop", false),
        (StopKind::ToolUse, "stop", false),
        (StopKind::MaxTokens, "length", false),
        (StopKind::ContentFilter, "stop", true),
        (StopKind::Pause, "stop", true),
        (StopKind::Error, "stop", true),
        (StopKind::Other, "stop", true),
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
        assert_eq!(out.value["done_reason"], expected, "{kind:?}");
        let losses = losses_at(&out.losses, "/choices/0/stop_reason");
        assert_eq!(losses.len(), usize::from(lossy), "{kind:?}");
        assert!(losses.iter().all(|l| l.kind == LossKind::Changed));
    }
    // A raw value of another format never reaches the closed set.
    let gemini = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "…"}]},
        "finishReason": "SAFETY"}]});
    let out = convert_response_value(&gemini, Format::Gemini, F, &Options::default()).unwrap();
    assert_eq!(out.value["done_reason"], "stop");
    let losses = losses_at(&out.losses, "/candidates/0/finishReason");
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].kind, LossKind::Changed);
    assert!(
        losses[0].detail.contains("`SAFETY`"),
        "{}",
        losses[0].detail
    );
    // Ollama's own values go back as they came.
    let own = json!({"model": "m", "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": "unload"});
    let same = convert_response_value(&own, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, own);
}

#[test]
fn a_failed_result_is_prefixed_once() {
    let out = convert_request_value(
        &anthropic_failed_results(),
        Format::Anthropic,
        F,
        &Options::default(),
    )
    .unwrap();
    let m = &out.value["messages"];
    assert_eq!(m[2]["content"], "Error: boom");
    assert_eq!(m[3]["content"], "Error: timeout");
    // Both are reported: the flag is gone either way.
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
fn images_of_results_move_to_a_user_message() {
    let out = convert_request_value(
        &anthropic_result_with_image(false),
        Format::Anthropic,
        F,
        &Options::default(),
    )
    .unwrap();
    let m = &out.value["messages"];
    assert_eq!(
        m[2],
        json!({"role": "tool", "content": "the photo", "tool_name": "photo"})
    );
    assert_eq!(
        m[3],
        json!({"role": "user", "content": "", "images": [PNG]})
    );
    let moved = losses_at(&out.losses, "/messages/2/content/0/content/1");
    assert_eq!(moved.len(), 1);
    assert_eq!(moved[0].kind, LossKind::Moved);
    // Ollama's own images on a tool message go back where they were.
    let own = json!({"model": "m", "messages": [
        {"role": "assistant", "tool_calls": [{"function": {"name": "photo", "arguments": {}}}]},
        {"role": "tool", "tool_name": "photo", "content": "the photo", "images": [PNG]}]});
    let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, own);
    assert!(same.losses.is_empty());
}

#[test]
fn empty_text_parts_add_no_line() {
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
    // The signature is the only thing lost, and it is reported.
    let lost: Vec<&crate::Loss> = out
        .losses
        .iter()
        .filter(|l| l.path.starts_with("/contents"))
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert!(lost[0].path.starts_with("/contents/1/parts/1/"));
    assert_eq!(lost[0].kind, LossKind::Dropped);
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
    let text = |t: &str| Text {
        text: t.to_owned(),
        meta: PartMeta::default(),
    };
    let req = model::Request {
        model: None,
        messages: vec![
            Message::new(
                Role::User,
                vec![
                    Part::Refusal(text("no")),
                    Part::Json(Json {
                        value: json!({"a": 1}),
                        meta: PartMeta::default(),
                    }),
                    Part::Image(media(
                        Source::Url {
                            url: "https://x.org/y.png".into(),
                        },
                        Some("y.png"),
                    )),
                    Part::Audio(media(
                        Source::Base64 {
                            data: "AAAA".into(),
                        },
                        None,
                    )),
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
                        arguments: Arguments::Text("[1]".into()),
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
                        content: vec![Part::Image(media(
                            Source::Base64 {
                                data: "iVBORw0KGgo".into(),
                            },
                            None,
                        ))],
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
        tool_choice: Some(ToolChoice::Tool { name: "f".into() }),
        settings: Settings {
            parallel_tool_calls: Some(false),
            reasoning: Some(ReasoningConfig {
                include: Some(false),
                effort: Some("minimal".into()),
                budget_tokens: Some(100),
                ..Default::default()
            }),
            ..Default::default()
        },
        output_format: Some(OutputFormat::JsonSchema {
            name: Some("n".into()),
            schema: json!(true),
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
            ("/tool_choice", Dropped, ToolChoiceChanged),
            ("/messages/0/content/0", Changed, PartAsText),
            ("/messages/0/content/1", Changed, PartAsText),
            ("/messages/0/content/2/name", Dropped, PartChanged),
            ("/messages/0/content/2", Dropped, PartUnsupported),
            ("/messages/0/content/3", Dropped, PartUnsupported),
            ("/messages/0/content/4", Dropped, ReasoningDropped),
            ("/messages/1/content/0/summary", Changed, PartChanged),
            ("/messages/1/content/1/arguments", Changed, ArgumentsWrapped),
            // The result's image goes to a user message after the results.
            ("/messages/2/content/0/content/0", Moved, PartUnsupported),
            ("/messages/2/content/0/is_error", Changed, PartChanged),
            // A named result whose call is not in the conversation.
            ("/messages/2/content/1/call_id", Dropped, IdRewritten),
            ("/messages/2/content/2", Dropped, PartUnsupported),
            ("/parallel_tool_calls", Dropped, FieldUnsupported),
            ("/settings/reasoning/include", Dropped, FieldUnsupported),
            ("/settings/reasoning/effort", Changed, SettingChanged),
            (
                "/settings/reasoning/budget_tokens",
                Dropped,
                FieldUnsupported
            ),
            ("/output_format/name", Dropped, FieldUnsupported),
            ("/output_format/strict", Changed, SettingChanged),
            ("/output_format/schema", Changed, SchemaChanged),
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
        id: Some("r1".into()),
        choices: vec![choice(StopKind::ContentFilter), choice(StopKind::EndTurn)],
        usage: Some(Usage {
            input_tokens: Some(10),
            output_tokens: Some(5),
            total_tokens: Some(20),
            cached_input_tokens: Some(4),
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
            ("/id", Dropped, FieldUnsupported),
            ("/choices/0/stop_reason", Changed, StopReasonChanged),
            ("/choices/1", Dropped, ChoicesDropped),
            ("/usage/cached_input_tokens", Dropped, UsageChanged),
            ("/usage/total_tokens", Dropped, UsageChanged),
        ]
    );
}
