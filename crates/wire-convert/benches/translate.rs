//! `cargo bench -p wire-convert --bench translate`: a long stream (over 6,000 events of
//! text and tool-argument deltas) translated live between Anthropic and OpenAI Chat, both
//! directions, 4 KiB of source at a time, next to a `serde_json::Value` parse and write of
//! the same source events, in the same process, run in pairs back to back. Prints the
//! medians and the median of the paired ratios (target: translate / Value ≤ 1.5).
//!
//! The translator's memory is measured by `--bench translate_memory` (a counting
//! allocator, which would slow this one).

#[path = "../../wire-types/benches/support/paired.rs"]
mod paired;

use std::hint::black_box;
use wire_convert::stream::StreamTranslator;
use wire_convert::{Format, Options};

/// An Anthropic stream framed as SSE: `texts` text deltas, then a tool call with `args`
/// argument deltas.
pub(crate) fn anthropic_stream(texts: usize, args: usize) -> String {
    let mut payloads = vec![
        r#"{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1200,"output_tokens":1}}}"#.to_owned(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#.to_owned(),
    ];
    for i in 0..texts {
        payloads.push(format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"word {i} of the answer, "}}}}"#
        ));
    }
    payloads.push(r#"{"type":"content_block_stop","index":0}"#.to_owned());
    payloads.push(r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_bench","name":"write_file","input":{}}}"#.to_owned());
    payloads.push(r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"lines\": ["}}"#.to_owned());
    for i in 0..args {
        let sep = if i + 1 == args { "" } else { ", " };
        payloads.push(format!(
            r#"{{"type":"content_block_delta","index":1,"delta":{{"type":"input_json_delta","partial_json":"\"line {i}\"{sep}"}}}}"#
        ));
    }
    payloads.push(r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"]}"}}"#.to_owned());
    payloads.push(r#"{"type":"content_block_stop","index":1}"#.to_owned());
    payloads.push(r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9000}}"#.to_owned());
    payloads.push(r#"{"type":"message_stop"}"#.to_owned());
    let mut sse = String::new();
    for p in &payloads {
        let name = p
            .split("\"type\":\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or("event");
        sse.push_str(&format!("event: {name}\ndata: {p}\n\n"));
    }
    sse
}

/// The JSON payloads of an SSE stream's events (`data: [DONE]` left out).
fn payloads(sse: &str) -> Vec<&str> {
    sse.split("\n\n")
        .filter_map(|frame| frame.lines().find_map(|l| l.strip_prefix("data: ")))
        .filter(|d| *d != "[DONE]")
        .collect()
}

/// Translates `source` live, 4 KiB at a time, dropping each piece of output as a server
/// would once it is written to the socket; returns the output's length.
fn translate(from: Format, to: Format, source: &[u8], options: &Options) -> usize {
    let mut t = StreamTranslator::new(from, to, options).unwrap();
    let mut written = 0;
    for piece in source.chunks(4096) {
        written += black_box(t.push(piece).unwrap()).len();
    }
    written + black_box(t.finish().unwrap()).len()
}

fn main() {
    let options = Options::default();
    let anthropic = anthropic_stream(4000, 2000);
    // The same answer as OpenAI Chat chunks, written by the translator itself.
    let chat = {
        let mut t = StreamTranslator::new(Format::Anthropic, Format::OpenaiChat, &options).unwrap();
        let mut out = t.push(anthropic.as_bytes()).unwrap();
        out.extend(t.finish().unwrap());
        String::from_utf8(out).unwrap()
    };
    for (from, to, source) in [
        (Format::OpenaiChat, Format::Anthropic, &chat),
        (Format::Anthropic, Format::OpenaiChat, &anthropic),
    ] {
        let events = payloads(source);
        let (t, v, ratio) = paired::paired(
            21,
            1,
            || {
                black_box(translate(from, to, black_box(source.as_bytes()), &options));
            },
            || {
                for p in black_box(&events) {
                    let v: serde_json::Value = serde_json::from_str(p).unwrap();
                    black_box(serde_json::to_string(&v).unwrap());
                }
            },
        );
        println!(
            "{from} → {:<11} {} events, {:6.1} KB: translate {:7.2} ms   Value parse+write {:7.2} ms   ratio {ratio:.3} (target <= 1.5)",
            to.to_string(),
            events.len(),
            source.len() as f64 / 1e3,
            t * 1e3,
            v * 1e3
        );
    }
}
