//! Tests of the stream decoder and encoder.

use super::super::F;
use crate::model::Part;
use crate::stream::{
    Accumulator, Finish, Framing, PartId, Signature, StreamDecoder, StreamEncoder, StreamErrorKind,
    StreamPart, ToolStart,
};
use crate::{Error, Format, LossCode, Options};
use serde_json::{Value, json};
use wire_types::ollama as w;

fn lines(values: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for v in values {
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

fn decode(bytes: &[u8]) -> Vec<StreamPart> {
    let mut d = StreamDecoder::new(F, &Options::default()).unwrap();
    let mut parts = d.push(bytes).unwrap();
    parts.extend(d.finish().unwrap());
    parts
}

fn written(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn done(extra: Value) -> Value {
    let mut line = json!({"model": "m", "created_at": "2025-07-07T20:22:19Z",
        "message": {"role": "assistant", "content": ""}, "done": true,
        "done_reason": "stop", "prompt_eval_count": 5, "eval_count": 7});
    if let (Some(l), Value::Object(e)) = (line.as_object_mut(), extra) {
        l.extend(e);
    }
    line
}

fn call(name: &str, args: Value) -> Value {
    json!({"function": {"name": name, "arguments": args}})
}

fn chunk(message: Value) -> Value {
    json!({"model": "m", "created_at": "2025-07-07T20:22:19Z", "message": message,
        "done": false})
}

/// Calls of several lines get the ids the whole body with all of them gets, and stay
/// apart; the stop reason is tool use though the last line has no call.
#[test]
fn calls_across_lines_get_the_whole_body_ids_and_stay_apart() {
    let stream = lines(&[
        chunk(json!({"role": "assistant", "content": "",
            "tool_calls": [call("a", json!({"x": 1})), call("a", json!({"x": 2}))]})),
        chunk(json!({"role": "assistant", "content": "",
            "tool_calls": [call("b", json!({}))]})),
        done(json!({})),
    ]);
    let mut acc = Accumulator::new();
    acc.extend(decode(&stream));
    let streamed = acc.finish().unwrap();
    let whole = crate::decode_response_value(
        &done(
            json!({"message": {"role": "assistant", "content": "", "tool_calls": [
            call("a", json!({"x": 1})), call("a", json!({"x": 2})), call("b", json!({}))]}}),
        ),
        F,
        &Options::default(),
    )
    .unwrap()
    .value;
    let ids = |r: &crate::model::Response| -> Vec<(String, String, Option<Value>)> {
        r.choices[0]
            .message
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolCall(c) => Some((c.id.clone(), c.name.clone(), c.arguments.value())),
                _ => None,
            })
            .collect()
    };
    assert_eq!(ids(&streamed), ids(&whole));
    assert_eq!(ids(&streamed)[2].0, "call_0_2_b");
    assert_eq!(ids(&streamed)[2].2, Some(json!({})));
    assert_eq!(
        streamed.choices[0].stop_reason,
        whole.choices[0].stop_reason
    );
    assert_eq!(streamed.usage, whole.usage);
}

#[test]
fn thinking_then_text_are_one_part_each() {
    let stream = lines(&[
        chunk(json!({"role": "assistant", "content": "", "thinking": "Let "})),
        chunk(json!({"role": "assistant", "content": "", "thinking": "me see"})),
        chunk(json!({"role": "assistant", "content": "It is"})),
        chunk(json!({"role": "assistant", "content": " 4."})),
        done(json!({})),
    ]);
    let mut acc = Accumulator::new();
    acc.extend(decode(&stream));
    let r = acc.finish().unwrap();
    let content = &r.choices[0].message.content;
    assert_eq!(content.len(), 2);
    assert!(matches!(&content[0], Part::Reasoning(t) if t.text.as_deref() == Some("Let me see")));
    assert!(matches!(&content[1], Part::Text(t) if t.text == "It is 4."));
}

#[test]
fn an_error_line_is_a_provider_error_and_no_done_line_is_incomplete() {
    let parts = decode(&lines(&[
        chunk(json!({"role": "assistant", "content": "Hi"})),
        json!({"error": "model crashed"}),
    ]));
    let errors: Vec<_> = parts
        .iter()
        .filter_map(|p| match p {
            StreamPart::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(errors[0].kind, StreamErrorKind::Provider);
    assert_eq!(errors[0].message, "model crashed");
    assert_eq!(errors[0].value, Some(json!({"error": "model crashed"})));
    let parts = decode(&lines(&[chunk(
        json!({"role": "assistant", "content": "Hi"}),
    )]));
    assert!(matches!(
        parts.last(),
        Some(StreamPart::Error(e)) if e.kind == StreamErrorKind::Incomplete
    ));
    let mut acc = Accumulator::new();
    acc.extend(parts);
    assert!(matches!(acc.finish(), Err(Error::Incomplete { .. })));
}

/// Text goes out at once; a call waits for its end, then goes out whole, with every
/// call that ended with it in one line; the last line carries the reason and counts.
#[test]
fn the_encoder_sends_text_at_once_and_calls_whole_at_their_end() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let p = PartId;
    let start = StreamPart::Start(crate::stream::StreamStart {
        model: Some("m".to_owned()),
        ..Default::default()
    });
    assert!(e.encode(start).unwrap().is_empty());
    e.encode(StreamPart::TextStart {
        part: p(0),
        choice: 0,
        meta: Default::default(),
    })
    .unwrap();
    let text = e
        .encode(StreamPart::TextDelta {
            part: p(0),
            text: "Hi".to_owned(),
        })
        .unwrap();
    assert_eq!(written(&text)[0]["message"]["content"], "Hi");
    for (i, name) in [(1, "a"), (2, "b")] {
        let out = e
            .encode(StreamPart::ToolStart(ToolStart {
                part: p(i),
                choice: 0,
                id: format!("call_{i}"),
                synthetic_id: false,
                name: name.to_owned(),
                meta: Default::default(),
            }))
            .unwrap();
        assert!(out.is_empty());
    }
    for json in ["{\"x\":", "1}"] {
        let out = e
            .encode(StreamPart::ToolDelta {
                part: p(1),
                json: json.to_owned(),
            })
            .unwrap();
        assert!(out.is_empty());
    }
    // The first call ended, the second is still open: nothing yet.
    assert!(e.encode(StreamPart::End { part: p(1) }).unwrap().is_empty());
    let out = written(&e.encode(StreamPart::End { part: p(2) }).unwrap());
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0]["message"]["tool_calls"],
        json!([
            {"id": "call_1", "function": {"name": "a", "arguments": {"x": 1}}},
            {"id": "call_2", "function": {"name": "b", "arguments": {}}}
        ])
    );
    assert_eq!(out[0]["done"], false);
    e.encode(StreamPart::Finish(Finish {
        choice: 0,
        stop_reason: Some(crate::model::StopReason::new(
            crate::model::StopKind::ToolUse,
        )),
        vendor: Default::default(),
    }))
    .unwrap();
    // Usage may follow the finish: the last line waits for the end.
    assert!(
        e.encode(StreamPart::Usage(crate::model::Usage {
            input_tokens: Some(3),
            output_tokens: Some(4),
            ..Default::default()
        }))
        .unwrap()
        .is_empty()
    );
    let last = written(&e.finish().unwrap());
    assert_eq!(last.len(), 1);
    assert_eq!(last[0]["done"], true);
    assert_eq!(last[0]["done_reason"], "stop");
    assert_eq!(last[0]["prompt_eval_count"], 3);
    assert_eq!(last[0]["eval_count"], 4);
}

#[test]
fn a_source_without_a_finish_ends_with_an_error_line() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    e.encode(StreamPart::TextStart {
        part: PartId(0),
        choice: 0,
        meta: Default::default(),
    })
    .unwrap();
    let out = written(&e.finish().unwrap());
    assert!(out[0]["error"].is_string());
    assert!(decode(&lines(&out)).iter().any(|p| matches!(
        p,
        StreamPart::Error(e) if e.kind == StreamErrorKind::Provider
    )));
}

#[test]
fn a_foreign_signature_is_one_loss_per_part() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    e.encode(StreamPart::ReasoningStart {
        part: PartId(0),
        choice: 0,
        id: None,
        meta: Default::default(),
    })
    .unwrap();
    for _ in 0..3 {
        e.encode(StreamPart::Signature(Signature {
            part: PartId(0),
            token: crate::model::Signed {
                value: "sig".to_owned(),
                format: Format::Anthropic,
            },
            encrypted: false,
        }))
        .unwrap();
    }
    let signature: Vec<_> = e
        .losses()
        .iter()
        .filter(|l| l.code == LossCode::SignatureForeign)
        .collect();
    assert_eq!(signature.len(), 1, "{signature:?}");
    assert_eq!(signature[0].path, "/parts/0/signature");
}

/// Every stream fixture of every format with a decoder, written as an Ollama stream:
/// each line reads as an Ollama line and is valid against the SDK's response type;
/// Ollama's own fixtures read back to the same parts.
#[test]
fn every_line_written_is_valid_and_ollama_streams_round_trip() {
    let schema = test_support::conformance("ollama.response").unwrap();
    let mut checked = 0;
    for f in test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]) {
        let Ok(format) = f.format.parse::<Format>() else {
            continue;
        };
        let framing = if f.name.ends_with(".sse.txt") {
            Framing::Sse
        } else {
            Framing::Ndjson
        };
        let bytes = std::fs::read(&f.path).unwrap();
        let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).unwrap();
        let parts = match d.push(&bytes).and_then(|mut p| {
            p.extend(d.finish()?);
            Ok(p)
        }) {
            Ok(p) => p,
            Err(_) => continue,
        };
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let mut out = e.encode_all(parts.clone()).unwrap();
        out.extend(e.finish().unwrap());
        for line in written(&out) {
            if line.get("error").is_some() {
                wire_types::from_value::<w::ErrorResponse>(&line).unwrap();
                continue;
            }
            wire_types::from_value::<w::Response>(&line)
                .unwrap_or_else(|e| panic!("{}: {e}: {line}", f.rel()));
            let errors = test_support::schema_errors(schema, &line);
            assert!(errors.is_empty(), "{}: {line}: {errors:?}", f.rel());
        }
        if format == F && !f.name.starts_with("generate") {
            assert_eq!(decode(&out), parts, "{}", f.rel());
        }
        checked += 1;
    }
    assert!(checked > 4);
}
