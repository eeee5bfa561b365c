use super::F;
use crate::model::{
    self, Media, Message, Part, PartMeta, ReasoningConfig, Role, Settings, Source, Text, ToolResult,
};
use crate::stream::{
    PartId, Signature, StreamDecoder, StreamEncoder, StreamPart, StreamStart, ToolStart,
};
use crate::{Loss, LossCode, LossKind, Options, convert_request_value, convert_response_value};
use serde_json::json;

fn at(losses: &[Loss], path: &str) -> Vec<(LossKind, LossCode)> {
    losses
        .iter()
        .filter(|l| l.path == path)
        .map(|l| (l.kind, l.code))
        .collect()
}

/// The spellings the neutral model normalizes (the hints): a flat call without `id` or
/// `type`, object arguments, the legacy `max_tokens`, a string `stop`, a `function`
/// message, a refusal field, part arrays, bare base64 file data and an empty file.
#[test]
fn a_request_in_its_own_spellings_comes_back_as_it_came() {
    let body = json!({"model": "gpt-4o", "max_tokens": 5, "stop": "END", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"},
            {"type": "file", "file": {"file_data": "JVBERi0x", "filename": "a.pdf"}},
            {"type": "file", "file": {}}]},
        {"role": "assistant", "content": null, "refusal": "no",
            "tool_calls": [{"name": "f", "arguments": {"a": 1}}]},
        {"role": "function", "name": "f", "content": "done"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]});
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

/// A response's own spellings: no `role`, no `index`, no `logprobs`, its `object` tag,
/// empty token details.
#[test]
fn a_response_in_its_own_spellings_comes_back_as_it_came() {
    let body = json!({"id": "c1", "object": "chat.completion.x", "created": 1, "model": "m",
        "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3,
            "prompt_tokens_details": {}, "completion_tokens_details": {}}});
    let out = convert_response_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

/// Each kind of loss the encoder reports carries the code of what it is about.
#[test]
fn the_encoders_losses_carry_their_codes() {
    use LossCode::*;
    use LossKind::*;
    let media = |source, name: Option<&str>| Media {
        source,
        media_type: Some("image/png".into()),
        name: name.map(str::to_owned),
        meta: PartMeta::default(),
    };
    let result = ToolResult {
        call_id: "c".into(),
        name: None,
        content: vec![
            Part::text("boom"),
            Part::Image(media(
                Source::Base64 {
                    data: "iVBOR".into(),
                },
                None,
            )),
        ],
        is_error: true,
        meta: PartMeta::default(),
    };
    let req = model::Request {
        messages: vec![
            Message::new(
                Role::User,
                vec![
                    Part::Image(media(
                        Source::Url {
                            url: "https://x/a.png".into(),
                        },
                        Some("a"),
                    )),
                    Part::Image(media(
                        Source::FileId {
                            file_id: "f".into(),
                        },
                        None,
                    )),
                    Part::Document(media(Source::Text { text: "doc".into() }, None)),
                    Part::Json(model::Json {
                        value: json!({"a": 1}),
                        meta: PartMeta::default(),
                    }),
                ],
            ),
            Message::new(
                Role::Assistant,
                vec![
                    Part::text("x"),
                    Part::Image(media(
                        Source::Url {
                            url: "https://x/b.png".into(),
                        },
                        None,
                    )),
                ],
            ),
            Message::new(
                Role::Tool,
                vec![Part::ToolResult(result), Part::text("stray")],
            ),
        ],
        settings: Settings {
            top_k: Some(3),
            reasoning: Some(ReasoningConfig {
                budget_tokens: Some(4000),
                include: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    let l = &out.losses;
    for (path, want) in [
        ("/model", (Changed, FieldDefaulted)),
        ("/messages/0/content/0/name", (Dropped, PartChanged)),
        ("/messages/0/content/1", (Dropped, PartUnsupported)),
        ("/messages/0/content/2", (Changed, PartAsText)),
        ("/messages/0/content/3", (Changed, PartAsText)),
        ("/messages/1/content/1", (Dropped, PartUnsupported)),
        ("/messages/2/content/0/content/1", (Moved, PartUnsupported)),
        ("/messages/2/content/0/is_error", (Changed, PartChanged)),
        ("/messages/2/content/1", (Dropped, PartUnsupported)),
        ("/settings/top_k", (Dropped, FieldUnsupported)),
        ("/settings/reasoning/include", (Dropped, FieldUnsupported)),
        (
            "/settings/reasoning/budget_tokens",
            (Changed, SettingChanged),
        ),
    ] {
        assert_eq!(at(l, path), [want], "{path}: {l:?}");
    }
    assert_eq!(l.len(), 12, "{l:?}");
    // The moved image is in a user message after the results.
    assert_eq!(out.value["messages"][3]["role"], "user");
    assert_eq!(out.value["messages"][3]["content"][0]["type"], "image_url");
    assert_eq!(out.value["reasoning_effort"], "medium");
    assert_eq!(out.value["messages"][2]["content"], "Error: boom");
}

#[test]
fn a_foreign_stop_reason_and_a_missing_model_carry_their_codes() {
    let resp = model::Response {
        choices: vec![model::Choice {
            message: Message::new(
                Role::Assistant,
                vec![Part::Text(Text {
                    text: "hi".into(),
                    meta: PartMeta::default(),
                })],
            ),
            stop_reason: Some(model::StopReason::new(model::StopKind::Pause)),
            vendor: Default::default(),
        }],
        ..Default::default()
    };
    let out = crate::encode_response_value(resp, F, &Options::default()).unwrap();
    assert_eq!(
        at(&out.losses, "/choices/0/stop_reason"),
        [(LossKind::Changed, LossCode::StopReasonChanged)]
    );
    assert_eq!(
        at(&out.losses, "/model"),
        [(LossKind::Changed, LossCode::FieldDefaulted)]
    );
}

/// A `name` on a `tool` message (not in OpenAI's schema, but some clients send it) is an
/// unknown field like any other: it comes back, it is not dropped in silence.
#[test]
fn a_tool_message_keeps_its_name() {
    let body = json!({"model": "m", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "1", "name": "f"}]});
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

// ---------------------------------------------------------------------------------------
// Streams

use super::stream::testing::every_fixture_written_as;
use crate::Format;

/// The parts of a Chat Completions stream given as its chunks' JSON.
fn stream_parts(chunks: &[serde_json::Value]) -> Vec<StreamPart> {
    let mut d = StreamDecoder::new(F, &Options::default()).unwrap();
    let mut parts = Vec::new();
    for c in chunks {
        parts.extend(d.push(format!("data: {c}\n\n").as_bytes()).unwrap());
    }
    parts.extend(d.push(b"data: [DONE]\n\n").unwrap());
    parts.extend(d.finish().unwrap());
    parts
}

fn chunk(choices: serde_json::Value) -> serde_json::Value {
    json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": choices})
}

/// Every recorded stream of every format, written as a Chat Completions stream: each
/// chunk is valid against the SDK's `ChatCompletionChunk`; a finished stream ends with
/// the usage chunk (`choices: []`, when the source gave usage) and `data: [DONE]`, a cut
/// one with an error object and no `[DONE]`.
#[test]
fn every_stream_written_as_chunks_is_valid_for_the_sdk() {
    let schema = test_support::conformance("openai-chat.chunk").unwrap();
    let written = every_fixture_written_as(F);
    assert!(written.len() > 20);
    for w in written {
        let (errors, chunks): (Vec<_>, Vec<_>) =
            w.events.iter().partition(|e| e.get("error").is_some());
        for c in &chunks {
            let errs = test_support::schema_errors(schema, c);
            assert!(errs.is_empty(), "{}: {c}\n{}", w.name, errs.join("\n"));
        }
        if w.finished {
            assert!(errors.is_empty(), "{}", w.name);
            assert!(w.text.ends_with("data: [DONE]\n\n"), "{}", w.name);
            if let Some(u) = chunks.iter().find(|c| c.get("usage").is_some()) {
                assert_eq!(u["choices"], json!([]), "{}", w.name);
                assert_eq!(Some(u), chunks.last(), "{}: usage comes last", w.name);
            }
        } else {
            assert_eq!(errors.len(), 1, "{}", w.name);
            assert!(!w.text.contains("[DONE]"), "{}", w.name);
        }
    }
}

/// Text goes out as it comes, the role on the first chunk; nothing waits for the end.
#[test]
fn the_encoder_writes_text_as_it_comes() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let start = StreamStart {
        id: Some("msg_1".into()),
        model: Some("claude".into()),
        ..Default::default()
    };
    assert!(e.encode(StreamPart::Start(start)).unwrap().is_empty());
    let first = e
        .encode(StreamPart::TextStart {
            part: PartId(0),
            choice: 0,
            meta: PartMeta::default(),
        })
        .unwrap();
    assert!(
        String::from_utf8_lossy(&first).contains(r#""delta":{"role":"assistant","content":""}"#)
    );
    let hi = e
        .encode(StreamPart::TextDelta {
            part: PartId(0),
            text: "Hi".into(),
        })
        .unwrap();
    let hi = String::from_utf8(hi).unwrap();
    assert!(hi.starts_with("data: {\"id\":\"msg_1\",\"object\":\"chat.completion.chunk\""));
    assert!(hi.contains(r#""delta":{"content":"Hi"}"#), "{hi}");
}

/// Two calls under one `index`, a call whose name comes in a later fragment and one
/// with no arguments: three calls, each complete only at the finish, the last with `{}`.
#[test]
fn calls_keep_apart_and_end_only_at_the_finish() {
    let parts = stream_parts(&[
        chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}]}}]),
        ),
        chunk(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "b", "type": "function", "function": {"name": "g", "arguments": ""}}]}}])),
        chunk(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "{\"y\":"}}]}}])),
        chunk(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "2}"}}]}}])),
        chunk(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 1, "id": "c", "type": "function", "function": {"arguments": ""}}]}}])),
        chunk(json!([{"index": 0, "delta": {"tool_calls": [
            {"index": 1, "function": {"name": "h"}}]}}])),
        chunk(json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])),
    ]);
    let starts: Vec<(&str, &str)> = parts
        .iter()
        .filter_map(|p| match p {
            StreamPart::ToolStart(ToolStart { id, name, .. }) => Some((id.as_str(), name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [("a", "f"), ("b", "g"), ("c", "h")]);
    let finish = parts
        .iter()
        .position(|p| matches!(p, StreamPart::Finish(_)))
        .unwrap();
    let first_end = parts
        .iter()
        .position(|p| matches!(p, StreamPart::End { .. }))
        .unwrap();
    assert!(first_end > 6 && first_end < finish, "{parts:?}");
    let mut acc = crate::stream::Accumulator::new();
    acc.extend(parts);
    let r = acc.finish().unwrap();
    let args: Vec<String> = r.choices[0]
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.arguments.text()),
            _ => None,
        })
        .collect();
    assert_eq!(args, ["{\"x\":1}", "{\"y\":2}", "{}"]);
}

/// Choices of `n > 1` stay apart, each with its own parts and finish; a stream that
/// finishes one choice but not the other is cut short.
#[test]
fn several_choices_map_to_choice() {
    let parts = stream_parts(&[
        chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": "a"}},
                     {"index": 1, "delta": {"role": "assistant", "content": "b"}}]),
        ),
        chunk(json!([{"index": 1, "delta": {"content": "c"}, "finish_reason": "stop"}])),
        chunk(json!([{"index": 0, "delta": {}, "finish_reason": "length"}])),
    ]);
    let mut acc = crate::stream::Accumulator::new();
    acc.extend(parts);
    let r = acc.finish().unwrap();
    let texts: Vec<String> = r.choices.iter().map(|c| c.message.joined_text()).collect();
    assert_eq!(texts, ["a", "bc"]);
    assert_eq!(
        r.choices[0].stop_reason.as_ref().unwrap().kind,
        model::StopKind::MaxTokens
    );

    let cut = stream_parts(&[chunk(
        json!([{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"},
                     {"index": 1, "delta": {"content": "b"}}]),
    )]);
    assert!(matches!(cut.last(), Some(StreamPart::Error(e))
        if e.kind == crate::stream::StreamErrorKind::Incomplete));
}

/// A provider's error object mid-stream is a provider error with its code.
#[test]
fn an_error_object_is_a_provider_error() {
    let mut d = StreamDecoder::new(F, &Options::default()).unwrap();
    let parts = d
        .push(b"data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\",\"code\":\"overloaded\"}}\n\n")
        .unwrap();
    assert!(
        matches!(&parts[..], [StreamPart::Start(_), StreamPart::Error(e)]
        if e.kind == crate::stream::StreamErrorKind::Provider
            && e.code.as_deref() == Some("overloaded") && e.message == "overloaded")
    );
}

/// Another provider's reasoning is one loss per part, however many deltas come (its
/// signature goes with it: no second loss).
#[test]
fn foreign_reasoning_is_one_loss_per_part() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let start = StreamStart {
        format: Some(Format::Anthropic),
        ..Default::default()
    };
    let mut parts = vec![
        StreamPart::Start(start),
        StreamPart::ReasoningStart {
            part: PartId(0),
            choice: 0,
            id: None,
            meta: PartMeta::default(),
        },
    ];
    for _ in 0..3 {
        parts.push(StreamPart::ReasoningDelta {
            part: PartId(0),
            text: "hm".into(),
        });
    }
    parts.push(StreamPart::Signature(Signature {
        part: PartId(0),
        token: model::Signed {
            value: "sig".into(),
            format: Format::Anthropic,
        },
        encrypted: false,
    }));
    let out = e.encode_all(parts).unwrap();
    assert!(!String::from_utf8_lossy(&out).contains("hm"));
    let paths: Vec<&str> = e.losses().iter().map(|l| l.path.as_str()).collect();
    assert_eq!(paths, ["/model", "/parts/0"]);
}

/// A server that sends `content: ""` beside every reasoning fragment: one reasoning part,
/// then one text part.
#[test]
fn empty_text_beside_reasoning_splits_nothing() {
    let parts = stream_parts(&[
        chunk(
            json!([{"index": 0, "delta": {"role": "assistant", "content": "", "reasoning_content": "a"}}]),
        ),
        chunk(json!([{"index": 0, "delta": {"content": "", "reasoning_content": "b"}}])),
        chunk(json!([{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}])),
    ]);
    let mut acc = crate::stream::Accumulator::new();
    acc.extend(parts);
    let r = acc.finish().unwrap();
    let content = &r.choices[0].message.content;
    assert_eq!(content.len(), 2, "{content:?}");
    assert!(matches!(&content[0], Part::Reasoning(x) if x.text.as_deref() == Some("ab")));
    assert!(matches!(&content[1], Part::Text(t) if t.text == "ok"));
}

/// Every recorded Chat Completions stream written back as one (through the neutral
/// parts, not passed through) adds up to the same body, with no loss: nothing the format
/// said is lost on the way.
#[test]
fn a_stream_written_back_as_itself_adds_up_to_the_same_body() {
    let all = super::stream::testing::written_back_as_itself(F);
    assert!(all.len() > 15);
    for (name, difference, losses) in all {
        assert_eq!(difference, None, "{name}");
        assert!(losses.is_empty(), "{name}: {losses:?}");
    }
}
