//! Tests of the stream decoder and encoder.

use super::super::F;
use crate::model::Part;
use crate::stream::{
    Accumulator, Finish, Framing, PartId, StreamDecoder, StreamEncoder, StreamErrorKind,
    StreamPart, ToolStart,
};
use crate::{Error, Format, Options};
use serde_json::{Value, json};
use wire_types::cohere as w;

fn chunks(values: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for v in values {
        out.push_str(&format!("data: {v}\n\n"));
    }
    out.into_bytes()
}

fn decode(bytes: &[u8]) -> Vec<StreamPart> {
    let mut d = StreamDecoder::new(F, &Options::default()).unwrap();
    let mut parts = d.push(bytes).unwrap();
    parts.extend(d.finish().unwrap());
    parts
}

fn accumulate(parts: Vec<StreamPart>) -> Result<crate::model::Response, Error> {
    let mut acc = Accumulator::new();
    acc.extend(parts);
    acc.finish()
}

/// The JSON of each event an encoder wrote (SSE `data:` lines).
fn events(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn start() -> Value {
    json!({"id": "r1", "type": "message-start", "delta": {"message": {"role": "assistant"}}})
}

fn call_start(index: u32, id: Option<&str>, name: &str, args: &str) -> Value {
    let mut call = json!({"type": "function", "function": {"name": name, "arguments": args}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    json!({"type": "tool-call-start", "index": index,
        "delta": {"message": {"tool_calls": call}}})
}

fn call_delta(index: u32, args: &str) -> Value {
    json!({"type": "tool-call-delta", "index": index,
        "delta": {"message": {"tool_calls": {"function": {"arguments": args}}}}})
}

fn end(kind: &str, index: u32) -> Value {
    json!({"type": kind, "index": index})
}

fn message_end(delta: Value) -> Value {
    json!({"type": "message-end", "delta": delta})
}

fn calls(r: &crate::model::Response) -> Vec<(String, String, String)> {
    r.choices[0]
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some((c.id.clone(), c.name.clone(), c.arguments.text())),
            _ => None,
        })
        .collect()
}

/// Calls that reuse an index stay apart; a call without an id gets the whole body's
/// synthetic id; a call without arguments ends with `{}`.
#[test]
fn calls_stay_apart_and_get_the_whole_body_ids() {
    let parts = decode(&chunks(&[
        start(),
        call_start(0, Some("a_1"), "a", ""),
        call_delta(0, "{\"x\":"),
        call_delta(0, "1}"),
        end("tool-call-end", 0),
        call_start(0, None, "b", ""),
        end("tool-call-end", 0),
        message_end(json!({"finish_reason": "TOOL_CALL"})),
    ]));
    let streamed = accumulate(parts).unwrap();
    let whole = crate::decode_response_value(
        &json!({"id": "r1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant",
            "tool_calls": [
                {"id": "a_1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
                {"type": "function", "function": {"name": "b", "arguments": "{}"}}]}}),
        F,
        &Options::default(),
    )
    .unwrap()
    .value;
    assert_eq!(calls(&streamed), calls(&whole));
    assert_eq!(calls(&streamed)[1].0, "call_0_1_b");
    assert_eq!(calls(&streamed)[1].2, "{}");
    assert_eq!(
        streamed.choices[0].stop_reason,
        whole.choices[0].stop_reason
    );
}

/// The tool plan is reasoning with the `tool_plan` hint, before the calls, as the
/// whole body decodes it.
#[test]
fn the_tool_plan_is_where_the_whole_body_puts_it() {
    let parts = decode(&chunks(&[
        start(),
        json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will "}}}),
        json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "look."}}}),
        call_start(0, Some("a_1"), "a", "{}"),
        end("tool-call-end", 0),
        message_end(json!({"finish_reason": "TOOL_CALL"})),
    ]));
    let streamed = accumulate(parts).unwrap();
    let whole = crate::decode_response_value(
        &json!({"id": "r1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant",
            "tool_plan": "I will look.", "tool_calls": [
                {"id": "a_1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}}),
        F,
        &Options::default(),
    )
    .unwrap()
    .value;
    assert_eq!(
        streamed.choices[0].message.content,
        whole.choices[0].message.content
    );
}

#[test]
fn an_error_at_the_end_is_a_provider_error_and_no_end_is_incomplete() {
    let parts = decode(&chunks(&[
        start(),
        message_end(json!({"finish_reason": "ERROR", "error": "overloaded"})),
    ]));
    assert!(parts.iter().any(|p| matches!(
        p,
        StreamPart::Error(e) if e.kind == StreamErrorKind::Provider && e.message == "overloaded"
    )));
    assert!(accumulate(parts).is_err());
    let parts = decode(&chunks(&[start(), call_start(0, Some("a_1"), "a", "")]));
    assert!(matches!(
        parts.last(),
        Some(StreamPart::Error(e)) if e.kind == StreamErrorKind::Incomplete
    ));
    assert!(matches!(accumulate(parts), Err(Error::Incomplete { .. })));
}

/// Text goes out as it comes; the finish reason and usage wait for the end.
#[test]
fn the_encoder_writes_each_event_as_it_comes() {
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let first = events(
        &e.encode(StreamPart::TextStart {
            part: PartId(0),
            choice: 0,
            meta: Default::default(),
        })
        .unwrap(),
    );
    assert_eq!(first[0]["type"], "message-start");
    assert_eq!(first[1]["type"], "content-start");
    let delta = events(
        &e.encode(StreamPart::TextDelta {
            part: PartId(0),
            text: "Hi".to_owned(),
        })
        .unwrap(),
    );
    assert_eq!(delta[0]["delta"]["message"]["content"]["text"], "Hi");
    let call = events(
        &e.encode(StreamPart::ToolStart(ToolStart {
            part: PartId(1),
            choice: 0,
            id: "c1".to_owned(),
            synthetic_id: false,
            name: "f".to_owned(),
            meta: Default::default(),
        }))
        .unwrap(),
    );
    assert_eq!(call[0]["type"], "tool-call-start");
    assert_eq!(call[0]["index"], 0);
    e.encode(StreamPart::Finish(Finish {
        choice: 0,
        stop_reason: Some(crate::model::StopReason::new(
            crate::model::StopKind::ToolUse,
        )),
        vendor: Default::default(),
    }))
    .unwrap();
    e.encode(StreamPart::Usage(crate::model::Usage {
        input_tokens: Some(3),
        output_tokens: Some(4),
        ..Default::default()
    }))
    .unwrap();
    let last = events(&e.finish().unwrap());
    let end = last.last().unwrap();
    assert_eq!(end["type"], "message-end");
    assert_eq!(end["delta"]["finish_reason"], "TOOL_CALL");
    assert_eq!(end["delta"]["usage"]["tokens"]["output_tokens"], 4);
}

#[test]
fn the_debug_prompt_goes_back_as_a_debug_event() {
    let stream = chunks(&[
        start(),
        json!({"type": "debug", "prompt": "<prompt>"}),
        message_end(json!({"finish_reason": "COMPLETE"})),
    ]);
    let parts = decode(&stream);
    let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
    let mut out = e.encode_all(parts.clone()).unwrap();
    out.extend(e.finish().unwrap());
    assert!(
        events(&out)
            .iter()
            .any(|v| v["type"] == "debug" && v["prompt"] == "<prompt>")
    );
    assert_eq!(decode(&out), parts);
}

/// Every stream fixture of every format with a decoder, written as a Cohere stream:
/// each event reads as a Cohere event and is valid against the SDK's event type;
/// Cohere's own fixtures read back to the same parts.
#[test]
fn every_event_written_is_valid_and_cohere_streams_round_trip() {
    let schema = test_support::conformance("cohere.event").unwrap();
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
        let Ok(parts) = d.push(&bytes).and_then(|mut p| {
            p.extend(d.finish()?);
            Ok(p)
        }) else {
            continue;
        };
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let mut out = e.encode_all(parts.clone()).unwrap();
        out.extend(e.finish().unwrap());
        for event in events(&out) {
            wire_types::from_value::<w::StreamEvent>(&event)
                .unwrap_or_else(|e| panic!("{}: {e}: {event}", f.rel()));
            let errors = test_support::schema_errors(schema, &event);
            assert!(errors.is_empty(), "{}: {event}: {errors:?}", f.rel());
        }
        if format == F {
            assert_eq!(decode(&out), parts, "{}", f.rel());
        }
        checked += 1;
    }
    assert!(checked > 5);
}
