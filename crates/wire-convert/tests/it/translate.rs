//! Every recorded stream translated live to every format: each event written is valid
//! against the target SDK's own stream-event schema, and the translation does not
//! depend on how the source bytes were split.

use crate::stream::{compare_with_sdk, cut, framing, sdk_folder, streams};
use proptest::prelude::*;
use wire_convert::stream::{Framing, StreamTranslator};
use wire_convert::{Error, Format, Options};
use wire_types::stream::{
    EventStreamParser, FrameKind, FrameParser, Limits, NdjsonParser, SseParser,
};

/// The conformance schema one event (or chunk) of `format`'s stream is checked against:
/// the SDK's stream-event union, or for Gemini and Ollama (whose chunks are whole
/// responses) the response type.
fn event_schema(format: Format) -> &'static str {
    match format {
        Format::OpenaiChat => "openai-chat.chunk",
        Format::OpenaiResponses => "openai-responses.event",
        Format::Anthropic => "anthropic.event",
        Format::Gemini => "gemini.response",
        Format::Ollama => "ollama.response",
        Format::Bedrock => "bedrock.event",
        Format::Mistral => "mistral.event",
        Format::Cohere => "cohere.event",
        Format::Mcp => unreachable!("MCP has no chat stream"),
    }
}

/// The JSON payloads of a written stream, in order, with the framing's end marker left
/// out (Bedrock's frames as `{"<eventType>": payload}`).
fn payloads(format: Format, bytes: &[u8]) -> Result<Vec<serde_json::Value>, String> {
    let mut parser: Box<dyn FrameParser> = match Framing::of(format) {
        Framing::Sse => Box::new(SseParser::new(Limits::default())),
        Framing::Ndjson => Box::new(NdjsonParser::new(Limits::default())),
        _ => Box::new(EventStreamParser::new(Limits::default())),
    };
    parser.push(bytes);
    parser.finish();
    let mut out = Vec::new();
    while let Some(frame) = parser.next_frame().map_err(|e| e.to_string())? {
        if frame.kind == FrameKind::Done {
            continue;
        }
        let text = if format == Format::Bedrock {
            frame.to_bedrock_json().map_err(|e| e.to_string())?
        } else {
            frame.data.clone()
        };
        out.push(serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?);
    }
    Ok(out)
}

/// Whether a payload is the format's error event rather than a stream event: error
/// events are not members of the SDKs' stream-event unions (they are raised as
/// exceptions), so there is no schema to hold them to.
fn is_error_event(format: Format, v: &serde_json::Value) -> bool {
    match format {
        Format::Anthropic => v["type"] == "error" || v["type"] == "ping",
        Format::Bedrock => v
            .as_object()
            .and_then(|m| m.keys().next())
            .is_some_and(|k| k.ends_with("Exception")),
        Format::OpenaiResponses | Format::Cohere => false,
        // OpenAI-style `{"error": {…}}`, Mistral's `{"object": "error", …}`.
        _ => (v.get("error").is_some() || v["object"] == "error") && v.get("choices").is_none(),
    }
}

/// Translates `bytes` of `from`'s stream to `to`'s, pushed in `pieces`.
fn translate(
    from: Format,
    from_framing: Framing,
    to: Format,
    pieces: &[&[u8]],
) -> Result<Vec<u8>, Error> {
    let mut t = StreamTranslator::with_framing(
        from,
        from_framing,
        to,
        Framing::of(to),
        &Options::default(),
    )?;
    let mut out = Vec::new();
    for p in pieces {
        out.extend(t.push(p)?);
    }
    out.extend(t.finish()?);
    Ok(out)
}

/// Every stream fixture × every target format with a stream encoder: every event the
/// translator writes validates against the target SDK's stream-event schema.
#[test]
fn every_translated_event_is_valid_for_the_target_sdk() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (from, f) in streams() {
        let bytes = std::fs::read(&f.path).unwrap();
        for to in Format::CHAT {
            if to == from {
                // Passed through: the source's own events, which are the recording's
                // (some beta events are not in the SDKs' GA unions).
                continue;
            }
            let written = match translate(from, framing(&f.name), to, &[&bytes]) {
                // A malformed source is the decoder tests' business.
                Err(Error::Stream { .. }) => continue,
                Err(e) => {
                    failures.push(format!("{} → {to}: {e}", f.rel()));
                    continue;
                }
                Ok(w) => w,
            };
            let Some(schema) = test_support::conformance(event_schema(to)) else {
                continue;
            };
            let events = match payloads(to, &written) {
                Ok(e) => e,
                Err(e) => {
                    failures.push(format!("{} → {to}: unreadable output: {e}", f.rel()));
                    continue;
                }
            };
            checked += 1;
            for (n, event) in events.iter().enumerate() {
                if is_error_event(to, event) {
                    continue;
                }
                let errors = test_support::schema_errors(schema, event);
                if !errors.is_empty() {
                    failures.push(format!(
                        "{} → {to}: event {n} {event}:\n  {}",
                        f.rel(),
                        errors.join("\n  ")
                    ));
                }
            }
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// Translation does not depend on how the source arrives: split anywhere, the
    /// same target bytes.
    #[test]
    fn a_stream_split_anywhere_translates_to_the_same_bytes(
        which in any::<prop::sample::Index>(),
        to in prop::sample::select(Format::CHAT.to_vec()),
        cuts in prop::collection::vec(any::<usize>(), 0..24),
    ) {
        let all = streams();
        let (from, f) = &all[which.index(all.len())];
        let bytes = std::fs::read(&f.path).unwrap();
        let whole = translate(*from, framing(&f.name), to, &[&bytes]);
        let split = translate(*from, framing(&f.name), to, &cut(&bytes, &cuts));
        prop_assert_eq!(
            whole.map_err(|e| e.to_string()),
            split.map_err(|e| e.to_string()),
            "{} → {}", f.rel(), to
        );
    }
}

/// Translated streams where the SDK's accumulation of what toolwire wrote and toolwire's
/// own differ, at these pointers, and why.
const TRANSLATED_SDK_DIFFERENCES: &[(&str, &str, &str)] = &[];

/// Every stream fixture translated to Anthropic, OpenAI Chat and Responses: the official
/// SDK's own accumulator (`fixtures/sdk/translated/`, generated by
/// `fixtures/sdk/generate.sh` from what the translator writes) and toolwire's give the
/// same body.
#[test]
fn the_sdks_accumulate_translated_streams_as_toolwire_does() {
    use wire_convert::stream::{Accumulator, StreamDecoder};
    let mut compared = 0;
    let mut failures = Vec::new();
    for (from, f) in streams() {
        let bytes = std::fs::read(&f.path).unwrap();
        for to in Format::CHAT {
            let Some(folder) = sdk_folder(to) else {
                continue;
            };
            if to == from {
                continue;
            }
            let Ok(written) = translate(from, framing(&f.name), to, &[&bytes]) else {
                continue;
            };
            let key = format!("{to}/{from}/{}", f.name);
            let sdk_path = test_support::fixtures_dir().join(format!(
                "sdk/translated/{folder}/{from}/{}.sse.txt.json",
                f.name
            ));
            let Ok(text) = std::fs::read_to_string(&sdk_path) else {
                failures.push(format!(
                    "{key}: no SDK result at {} (run fixtures/sdk/generate.sh)",
                    sdk_path.display()
                ));
                continue;
            };
            let sdk: serde_json::Value = serde_json::from_str(&text).unwrap();
            let sdk_error = sdk.get("error").filter(|e| e.is_string());
            let mut decoder = StreamDecoder::new(to, &Options::default()).unwrap();
            let mut parts = decoder.push(&written).unwrap();
            parts.extend(decoder.finish().unwrap());
            let mut acc = Accumulator::new();
            acc.extend(parts);
            let ours = match acc.finish() {
                Ok(r) => Ok(r),
                // Cut short: the SDK returns the message so far as if it were whole.
                Err(Error::Incomplete { partial, .. }) if sdk_error.is_none() => Ok(*partial),
                Err(e) => Err(e.to_string()),
            };
            compared += 1;
            let allowed = TRANSLATED_SDK_DIFFERENCES
                .iter()
                .find(|(k, _, _)| *k == key)
                .map(|(_, at, _)| *at);
            compare_with_sdk(&key, ours, &sdk, to, allowed, &mut failures);
        }
    }
    assert!(compared > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// OpenAI Chat text chunks written from their template (the chunk of an empty delta,
/// serialized once) are the bytes the typed chunk writes: each payload, read and written
/// again as `wire_types::openai_chat::StreamEvent`, is the same text, and the contents
/// add up to the source's text, escapes included.
#[test]
fn chat_text_chunks_from_the_template_are_the_typed_chunks_bytes() {
    let text = ["Hello", ", \"wörld\"", "\n\ttab\\", "", "\u{1F600} end"];
    let mut sse = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    for t in text {
        let delta = serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}});
        sse.push_str(&format!("event: content_block_delta\ndata: {delta}\n\n"));
    }
    sse.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
         event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
         event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    let mut t =
        StreamTranslator::new(Format::Anthropic, Format::OpenaiChat, &Options::default()).unwrap();
    let mut out = t.push(sse.as_bytes()).unwrap();
    out.extend(t.finish().unwrap());
    let out = String::from_utf8(out).unwrap();
    let mut content = String::new();
    let mut chunks = 0;
    for data in out.split("\n\n").filter_map(|f| f.strip_prefix("data: ")) {
        if data == "[DONE]" {
            continue;
        }
        let event: wire_types::openai_chat::StreamEvent = wire_types::from_str(data).unwrap();
        assert_eq!(wire_types::to_string(&event), data);
        let v: serde_json::Value = serde_json::from_str(data).unwrap();
        if let Some(c) = v
            .pointer("/choices/0/delta/content")
            .and_then(|c| c.as_str())
        {
            content.push_str(c);
            chunks += 1;
        }
    }
    assert_eq!(content, text.concat());
    assert!(chunks >= text.len(), "{out}");
}
