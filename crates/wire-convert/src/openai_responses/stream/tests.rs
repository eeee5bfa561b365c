//! Tests of the stream decoder and encoder.

use crate::model::Arguments;
use crate::stream::{Accumulator, Finish, Framing, StreamDecoder, StreamEncoder, StreamPart};
use crate::{Error, Format, Options};
use serde_json::Value;

/// Every stream fixture of `format`: its name, bytes and framing.
fn fixtures(format: &str) -> Vec<(String, Vec<u8>, Framing)> {
    let dir = test_support::fixtures_dir().join(format).join("stream");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_owned();
            let framing = if name.ends_with(".sse.txt") {
                Framing::Sse
            } else if name.ends_with(".chunks.txt") {
                Framing::Ndjson
            } else {
                return None;
            };
            Some((name, std::fs::read(&p).ok()?, framing))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn decode(format: Format, bytes: &[u8], framing: Framing) -> Vec<StreamPart> {
    let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).unwrap();
    let mut parts = d.push(bytes).unwrap();
    parts.extend(d.finish().unwrap());
    parts
}

fn encode(parts: Vec<StreamPart>) -> Vec<u8> {
    let mut e = StreamEncoder::new(Format::OpenaiResponses, &Options::default()).unwrap();
    let mut bytes = e.encode_all(parts).unwrap();
    bytes.extend(e.finish().unwrap());
    bytes
}

/// The `event:` name and data of each SSE event written.
fn events(bytes: &[u8]) -> Vec<(String, Value)> {
    let text = std::str::from_utf8(bytes).unwrap();
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let mut name = String::new();
            let mut data = String::new();
            for line in e.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            (name, serde_json::from_str(&data).unwrap())
        })
        .collect()
}

fn body(parts: Vec<StreamPart>) -> Result<Value, Error> {
    let mut acc = Accumulator::new();
    acc.extend(parts);
    let r = acc.finish()?;
    Ok(crate::encode_response_value(r, Format::OpenaiResponses, &Options::default())?.value)
}

/// Every stream of Responses and Anthropic, written as a Responses stream: every
/// event is valid against the SDK's `ResponseStreamEvent`, named after its type,
/// numbered in order from 0, and the last is the terminal event.
#[test]
fn every_event_written_is_valid_against_the_sdk_event_schema() {
    let schema = test_support::conformance("openai-responses.event").unwrap();
    let mut checked = 0;
    for (source, format) in [
        ("openai-responses", Format::OpenaiResponses),
        ("anthropic", Format::Anthropic),
    ] {
        for (name, bytes, framing) in fixtures(source) {
            let written = encode(decode(format, &bytes, framing));
            let events = events(&written);
            for (n, (event, data)) in events.iter().enumerate() {
                let mut data = data.clone();
                // A Responses source's usage without `cache_write_tokens` (which the
                // SDK requires) is written back as it came (see KNOWN in
                // tests/it/stream.rs).
                if let Some(d) = data
                    .pointer_mut("/response/usage/input_tokens_details")
                    .and_then(Value::as_object_mut)
                {
                    if source == "openai-responses" {
                        d.entry("cache_write_tokens").or_insert(0.into());
                    }
                }
                let errors = test_support::schema_errors(schema, &data);
                assert!(
                    errors.is_empty(),
                    "{source}/{name}: event {n} {data}: {errors:?}"
                );
                assert_eq!(data["type"], event.as_str(), "{source}/{name}: event {n}");
                assert_eq!(data["sequence_number"], n, "{source}/{name}: event {n}");
            }
            let last = events.last().map(|(e, _)| e.as_str());
            assert!(
                matches!(
                    last,
                    Some("response.completed" | "response.incomplete" | "response.failed")
                ),
                "{source}/{name}: ends with {last:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 20);
}

/// A Responses stream decoded and written again reads back to the same response,
/// field for field (and a stream cut short stays cut short).
#[test]
fn a_responses_stream_written_back_adds_up_to_the_same_response() {
    for (name, bytes, framing) in fixtures("openai-responses") {
        let parts = decode(Format::OpenaiResponses, &bytes, framing);
        let written = encode(parts.clone());
        let back = decode(Format::OpenaiResponses, &written, Framing::Sse);
        match (body(parts), body(back)) {
            (Ok(a), Ok(b)) => {
                assert_eq!(test_support::first_difference(&a, &b), None, "{name}")
            }
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{name}: {a:?} written back gives {b:?}"),
        }
    }
}

/// The arguments of a call, from a stream's parts.
fn calls(parts: Vec<StreamPart>) -> Vec<(String, String)> {
    let mut acc = Accumulator::new();
    acc.extend(parts);
    let r = acc.finish().unwrap();
    r.choices[0]
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            crate::model::Part::ToolCall(c) => match &c.arguments {
                Arguments::Text(t) => Some((c.id.clone(), t.clone())),
                a => Some((c.id.clone(), a.text())),
            },
            _ => None,
        })
        .collect()
}

fn fixture(name: &str) -> Vec<StreamPart> {
    let (_, bytes, framing) = fixtures("openai-responses")
        .into_iter()
        .find(|(n, _, _)| n == name)
        .unwrap();
    decode(Format::OpenaiResponses, &bytes, framing)
}

#[test]
fn arguments_sent_only_in_the_done_event_are_the_call_s_arguments() {
    assert_eq!(
        calls(fixture("handmade-arguments-only-in-done.chunks.txt")),
        [(
            "call_H5DxLSFnsGhiROnUiDHmgyc8".to_owned(),
            r#"{"location":"San Francisco"}"#.to_owned()
        )]
    );
}

#[test]
fn a_rotating_item_id_keeps_one_call_keyed_by_output_index() {
    assert_eq!(
        calls(fixture("handmade-item-id-rotating.chunks.txt")),
        [(
            "call_H5DxLSFnsGhiROnUiDHmgyc8".to_owned(),
            r#"{"location":"San Francisco"}"#.to_owned()
        )]
    );
}

#[test]
fn interleaved_parallel_calls_stay_apart() {
    assert_eq!(
        calls(fixture("handmade-parallel-calls-interleaved.chunks.txt")),
        [
            (
                "call_H5DxLSFnsGhiROnUiDHmgyc8".to_owned(),
                r#"{"location":"San Francisco"}"#.to_owned()
            ),
            (
                "call_Kq7WmZ2dPxB9fYtLsN4eRv1c".to_owned(),
                r#"{"location":"Boston"}"#.to_owned()
            ),
        ]
    );
}

/// Text streams as it comes: each delta is written before the next part arrives.
#[test]
fn text_is_written_as_it_comes() {
    let mut e = StreamEncoder::new(Format::OpenaiResponses, &Options::default()).unwrap();
    let p = crate::stream::PartId(0);
    let mut names = Vec::new();
    for part in [
        StreamPart::Start(Default::default()),
        StreamPart::TextStart {
            part: p,
            choice: 0,
            meta: Default::default(),
        },
        StreamPart::TextDelta {
            part: p,
            text: "Hel".into(),
        },
        StreamPart::TextDelta {
            part: p,
            text: "lo".into(),
        },
    ] {
        names.push(
            events(&e.encode(part).unwrap())
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(
        names,
        [
            vec!["response.created", "response.in_progress"],
            vec!["response.output_item.added", "response.content_part.added"],
            vec!["response.output_text.delta"],
            vec!["response.output_text.delta"],
        ]
    );
    let end = events(&e.encode(StreamPart::End { part: p }).unwrap());
    let finish = events(
        &e.encode(StreamPart::Finish(Finish {
            choice: 0,
            stop_reason: None,
            vendor: Default::default(),
        }))
        .unwrap(),
    );
    let names: Vec<&str> = end.iter().chain(&finish).map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    let (_, completed) = &finish[finish.len() - 1];
    assert_eq!(
        completed["response"]["output"][0]["content"][0]["text"],
        "Hello"
    );
    assert_eq!(
        completed["response"]["output"][0]["id"],
        finish[0].1["item"]["id"]
    );
}

/// Foreign reasoning is written as a reasoning item (its signature dropped, a loss),
/// or, with `reasoning: drop`, not at all; the other items' indexes stay dense.
#[test]
fn foreign_reasoning_is_carried_or_dropped_as_the_options_say() {
    let bytes = std::fs::read(
        test_support::fixtures_dir().join("anthropic/stream/thinking-signature-delta.chunks.txt"),
    )
    .unwrap();
    let parts = decode(Format::Anthropic, &bytes, Framing::Ndjson);
    for (mode, reasoning) in [
        (crate::ReasoningMode::Carry, true),
        (crate::ReasoningMode::Drop, false),
    ] {
        let options = Options {
            reasoning: mode,
            ..Default::default()
        };
        let mut e = StreamEncoder::new(Format::OpenaiResponses, &options).unwrap();
        let mut bytes = e.encode_all(parts.clone()).unwrap();
        bytes.extend(e.finish().unwrap());
        let (_, last) = events(&bytes).pop().unwrap();
        let output = last["response"]["output"].as_array().unwrap().clone();
        assert_eq!(
            output[0]["type"] == "reasoning",
            reasoning,
            "{mode:?}: {output:?}"
        );
        let mut source = Accumulator::new();
        source.extend(parts.clone());
        let text = source.finish().unwrap().choices[0].message.joined_text();
        let message = output.iter().find(|i| i["type"] == "message").unwrap();
        assert_eq!(message["content"][0]["text"], text.as_str(), "{mode:?}");
        let codes: Vec<_> = e.losses().iter().map(|l| l.code).collect();
        let dropped = codes.contains(&crate::LossCode::ReasoningDropped);
        assert_eq!(dropped, !reasoning, "{mode:?}: {:?}", e.losses());
        if reasoning {
            assert!(
                codes.contains(&crate::LossCode::SignatureForeign),
                "{:?}",
                e.losses()
            );
        }
        let back = decode(Format::OpenaiResponses, &bytes, Framing::Sse);
        assert!(body(back).is_ok());
    }
}

/// An item that comes only in `response.output_item.done` (twice), and one only in
/// the terminal response: each is in the response once, in its place.
#[test]
fn items_the_stream_did_not_announce_are_sent_whole_once() {
    let msg = r#"{"type":"message","id":"msg_a","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hi","annotations":[]}]}"#;
    let call = r#"{"type":"function_call","id":"fc_b","call_id":"call_b","name":"f","arguments":"{\"x\":1}","status":"completed"}"#;
    let head = r#""id":"resp_1","object":"response","created_at":1,"model":"m","tools":[],"tool_choice":"auto","parallel_tool_calls":true"#;
    let lines = [
        format!(
            r#"{{"type":"response.created","sequence_number":0,"response":{{{head},"status":"in_progress","output":[]}}}}"#
        ),
        format!(
            r#"{{"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":{msg}}}"#
        ),
        format!(
            r#"{{"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":{msg}}}"#
        ),
        format!(
            r#"{{"type":"response.completed","sequence_number":3,"response":{{{head},"status":"completed","output":[{msg},{call}]}}}}"#
        ),
    ];
    let parts = decode(
        Format::OpenaiResponses,
        lines.join("\n").as_bytes(),
        Framing::Ndjson,
    );
    let body = body(parts).unwrap();
    let expected: Value = serde_json::from_str(&format!("[{msg},{call}]")).unwrap();
    assert_eq!(body["output"], expected);
    assert_eq!(body["status"], "completed");
}

/// A source that ends without its finish ends the written stream with an `error`
/// event and `response.failed`, which read back as an error.
#[test]
fn a_source_without_a_finish_is_not_a_normal_end() {
    let parts = fixture("handmade-no-terminal-event.chunks.txt");
    let mut e = StreamEncoder::new(Format::OpenaiResponses, &Options::default()).unwrap();
    let without_error: Vec<StreamPart> = parts
        .into_iter()
        .filter(|p| !matches!(p, StreamPart::Error(_)))
        .collect();
    let mut bytes = e.encode_all(without_error).unwrap();
    bytes.extend(e.finish().unwrap());
    let names: Vec<String> = events(&bytes).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names[names.len() - 2..], ["error", "response.failed"]);
    let back = decode(Format::OpenaiResponses, &bytes, Framing::Sse);
    assert!(matches!(body(back), Err(Error::Incomplete { .. })));
}
