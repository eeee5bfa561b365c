//! Tests of the stream decoder and encoder.

use super::super::F;
use super::decode::*;
use crate::Error;
use crate::model::{Part, PartMeta, StopKind, StopReason, Usage, Vendor};
use crate::stream::{Accumulator, Finish, Framing, StreamDecoder, StreamEncoder, ToolStart};
use crate::stream::{PartId, StreamError, StreamErrorKind, StreamPart, StreamStart};
use crate::{Format, Options};
use serde_json::Value;
use wire_types::gemini as w;

fn decode_with(framing: Framing, format: Format, bytes: &[u8]) -> Option<Vec<StreamPart>> {
    let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).ok()?;
    let mut parts = d.push(bytes).ok()?;
    parts.extend(d.finish().ok()?);
    Some(parts)
}

/// Gemini's parts of chunks given one JSON payload a line.
fn decode(lines: &[&str]) -> Vec<StreamPart> {
    let mut d = StreamDecoder::with_framing(F, Framing::Ndjson, &Options::default()).unwrap();
    let mut parts = Vec::new();
    for l in lines {
        parts.extend(d.push(format!("{l}\n").as_bytes()).unwrap());
    }
    parts.extend(d.finish().unwrap());
    parts
}

/// Every recorded stream of every format that decodes, with its parts.
fn every_stream() -> Vec<(String, Format, Vec<StreamPart>)> {
    let mut fixtures = test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]);
    fixtures.extend(test_support::fixtures("event-stream", &[".eventstream"]));
    fixtures
        .into_iter()
        .filter_map(|f| {
            let format: Format = f.format.parse().ok()?;
            let framing = if f.name.ends_with(".sse.txt") {
                Framing::Sse
            } else if f.name.ends_with(".eventstream") {
                Framing::EventStream
            } else {
                Framing::Ndjson
            };
            let bytes = std::fs::read(&f.path).ok()?;
            Some((f.rel(), format, decode_with(framing, format, &bytes)?))
        })
        .collect()
}

/// The chunks an SSE text holds.
fn chunks(sse: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(sse)
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn encode(parts: Vec<StreamPart>) -> Vec<u8> {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let mut bytes = e.encode_all(parts).unwrap();
    bytes.extend(e.finish().unwrap());
    bytes
}

fn accumulated(parts: Vec<StreamPart>) -> crate::model::Response {
    let mut acc = Accumulator::new();
    acc.extend(parts);
    match acc.finish() {
        Ok(r) => r,
        Err(Error::Incomplete { partial, .. }) => *partial,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn every_chunk_written_is_a_valid_generate_content_response() {
    let schema = test_support::conformance("gemini.response").unwrap();
    let mut checked = 0;
    for (name, _, parts) in every_stream() {
        for chunk in chunks(&encode(parts)) {
            if chunk.get("error").is_some() {
                // The error object, not a response: its own shape.
                let e: w::ErrorResponse = serde_json::from_value(chunk).unwrap();
                assert!(e.error.message.is_some(), "{name}");
                continue;
            }
            checked += 1;
            let errors = test_support::schema_errors(schema, &chunk);
            assert!(errors.is_empty(), "{name}: {chunk}\n{}", errors.join("\n"));
        }
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn a_gemini_stream_written_back_adds_up_to_the_same_response() {
    let mut checked = 0;
    for (name, format, parts) in every_stream() {
        if format != F {
            continue;
        }
        checked += 1;
        let before = accumulated(parts.clone());
        let back = decode_with(Framing::Sse, F, &encode(parts)).unwrap();
        assert_eq!(accumulated(back), before, "{name}");
    }
    assert!(checked >= 10);
}

#[test]
fn text_is_written_at_once_and_a_call_when_it_ends_and_the_finish_last() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let start = e
        .encode_all([
            StreamPart::Start(StreamStart::default()),
            StreamPart::TextStart {
                part: PartId(0),
                choice: 0,
                meta: PartMeta::default(),
            },
        ])
        .unwrap();
    assert!(start.is_empty());
    let delta = e
        .encode(StreamPart::TextDelta {
            part: PartId(0),
            text: "Hi".into(),
        })
        .unwrap();
    assert_eq!(
        chunks(&delta)[0]["candidates"][0]["content"]["parts"][0]["text"],
        "Hi"
    );
    let held = e
        .encode_all([
            StreamPart::End { part: PartId(0) },
            StreamPart::ToolStart(ToolStart {
                part: PartId(1),
                choice: 0,
                id: "c1".into(),
                synthetic_id: false,
                name: "f".into(),
                meta: PartMeta::default(),
            }),
            StreamPart::ToolDelta {
                part: PartId(1),
                json: "{\"a\":1".into(),
            },
        ])
        .unwrap();
    // Arguments are sent whole: nothing is written before the end.
    assert!(held.is_empty());
    e.encode(StreamPart::ToolDelta {
        part: PartId(1),
        json: ",\"b\":2}".into(),
    })
    .unwrap();
    let call = chunks(&e.encode(StreamPart::End { part: PartId(1) }).unwrap());
    let fc = &call[0]["candidates"][0]["content"]["parts"][0]["functionCall"];
    assert_eq!(fc["args"], serde_json::json!({"a": 1, "b": 2}));
    assert_eq!(fc["id"], "c1");
    let finish = e
        .encode_all([
            StreamPart::Finish(Finish {
                choice: 0,
                stop_reason: Some(StopReason::new(StopKind::ToolUse)),
                vendor: Vendor::default(),
            }),
            StreamPart::Usage(Usage {
                input_tokens: Some(3),
                output_tokens: Some(2),
                ..Default::default()
            }),
        ])
        .unwrap();
    assert!(finish.is_empty());
    let last = chunks(&e.finish().unwrap());
    assert_eq!(last.len(), 1);
    assert_eq!(last[0]["candidates"][0]["finishReason"], "STOP");
    assert_eq!(last[0]["usageMetadata"]["promptTokenCount"], 3);
    assert_eq!(last[0]["usageMetadata"]["candidatesTokenCount"], 2);
}

const NAME: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","willContinue":true},"thoughtSignature":"sig"}]}}]}"#;
const PIECE: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}"#;
const REST: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"y"},{"jsonPath":"$.n","numberValue":2},{"jsonPath":"$.ok","boolValue":true}],"willContinue":true}}]}}]}"#;
const FINISH: &str =
    r#"{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}]}"#;

fn args_of(parts: &[StreamPart]) -> Vec<String> {
    parts
        .iter()
        .filter_map(|p| match p {
            StreamPart::ToolDelta { json, .. } => Some(json.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_streamed_call_ends_at_its_last_fragment_never_before() {
    let parts = decode(&[NAME, PIECE, REST]);
    // The stream broke off with the call open: it is closed, and the stream is
    // incomplete.
    assert!(matches!(
        parts.last(),
        Some(StreamPart::Error(StreamError {
            kind: StreamErrorKind::Incomplete,
            ..
        }))
    ));
    let mut d = StreamDecoder::with_framing(F, Framing::Ndjson, &Options::default()).unwrap();
    let early = d
        .push(format!("{NAME}\n{PIECE}\n{REST}\n").as_bytes())
        .unwrap();
    assert!(!early.iter().any(|p| matches!(p, StreamPart::End { .. })));
    assert!(args_of(&early).is_empty());

    let parts = decode(&[NAME, PIECE, REST, FINISH]);
    assert_eq!(args_of(&parts), [r#"{"a":[{"b":"xy"}],"n":2,"ok":true}"#]);
    assert!(!parts.iter().any(|p| matches!(p, StreamPart::Error(_))));
    let r = accumulated(parts);
    let call = match &r.choices[0].message.content[0] {
        Part::ToolCall(c) => c.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(call.id, "call_0_0_f");
    assert!(call.synthetic_id);
    assert_eq!(
        call.meta.signature.as_ref().map(|s| s.value.as_str()),
        Some("sig")
    );
    assert_eq!(
        r.choices[0].stop_reason.as_ref().map(|s| s.kind),
        Some(StopKind::ToolUse)
    );
}

#[test]
fn synthetic_call_ids_are_the_whole_body_ones() {
    let body = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1}}},{"functionCall":{"name":"f"}}]},"finishReason":"STOP","index":0}]}"#;
    let whole = crate::decode_response(body, F, &Options::default())
        .unwrap()
        .value;
    let streamed = accumulated(decode(&[body]));
    assert_eq!(streamed, whole);
}

#[test]
fn an_error_chunk_is_a_provider_error_and_a_blocked_prompt_a_finish() {
    let parts =
        decode(&[r#"{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}"#]);
    assert!(
        parts
            .iter()
            .any(|p| matches!(p, StreamPart::Error(StreamError {
        kind: StreamErrorKind::Provider,
        code: Some(c),
        message,
        ..
    }) if c == "RESOURCE_EXHAUSTED" && message == "slow down"))
    );

    let parts = decode(&[r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}"#]);
    assert!(!parts.iter().any(|p| matches!(p, StreamPart::Error(_))));
    let r = accumulated(parts);
    let stop = r.choices[0].stop_reason.clone().unwrap();
    assert_eq!(stop.kind, StopKind::ContentFilter);
    assert_eq!(stop.raw.as_deref(), Some("PROHIBITED_CONTENT"));
}

#[test]
fn what_gemini_cannot_carry_is_one_loss_per_part_and_no_empty_chunk() {
    let path =
        test_support::fixtures_dir().join("anthropic/stream/web-search-citations-delta.chunks.txt");
    let bytes = std::fs::read(path).unwrap();
    let parts = decode_with(Framing::Ndjson, Format::Anthropic, &bytes).unwrap();
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let mut sse = e.encode_all(parts).unwrap();
    sse.extend(e.finish().unwrap());
    let citations: Vec<&str> = e
        .losses()
        .iter()
        .map(|l| l.path.as_str())
        .filter(|p| p.ends_with("/citations"))
        .collect();
    assert!(!citations.is_empty());
    let mut unique = citations.clone();
    unique.dedup();
    assert_eq!(unique, citations);
    // The citations rode on empty text blocks' ends: nothing is written for them.
    for c in chunks(&sse) {
        for p in c["candidates"][0]["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert_ne!(p, &serde_json::json!({"text": ""}), "{c}");
        }
    }
}

#[test]
fn json_paths_read_as_steps() {
    assert_eq!(
        steps("$.a.b[0].c"),
        Some(vec![
            Step::Key("a".into()),
            Step::Key("b".into()),
            Step::Index(0),
            Step::Key("c".into())
        ])
    );
    assert_eq!(steps("$['a b']"), Some(vec![Step::Key("a b".into())]));
    assert_eq!(steps("$"), Some(vec![]));
    for bad in ["a.b", "$.", "$[x]", "$[0", "$..a"] {
        assert_eq!(steps(bad), None, "{bad}");
    }
}
