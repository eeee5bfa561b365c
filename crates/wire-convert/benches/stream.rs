//! `cargo bench -p wire-convert --bench stream`: a long recorded-shape stream (over 5,000
//! events of text and tool-argument deltas) decoded as it arrives and added up into its
//! response, next to a `serde_json::Value` parse of the same event payloads, in the same
//! process, run in pairs back to back. Prints the medians and the median of the paired
//! ratios (target: accumulate / Value ≤ 1.2), and how much the decoder holds.

#[path = "../../wire-types/benches/support/paired.rs"]
mod paired;

use std::hint::black_box;
use wire_convert::stream::{Accumulator, StreamDecoder};
use wire_convert::{Format, Options};

/// An Anthropic stream: `texts` text deltas, then a tool call with `args` argument
/// deltas, framed as SSE; and the event payloads alone.
fn anthropic_stream(texts: usize, args: usize) -> (String, Vec<String>) {
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
    (sse, payloads)
}

fn main() {
    let options = Options::default();
    let (sse, payloads) = anthropic_stream(4000, 2000);
    println!(
        "anthropic stream: {} events, {:.1} KB",
        payloads.len(),
        sse.len() as f64 / 1e3
    );
    let (a, v, ratio) = paired::paired(
        31,
        1,
        || {
            let mut decoder = StreamDecoder::new(Format::Anthropic, &options).unwrap();
            let mut acc = Accumulator::new();
            // As a socket delivers it: 4 KiB at a time.
            for piece in black_box(sse.as_bytes()).chunks(4096) {
                acc.extend(decoder.push(piece).unwrap());
            }
            acc.extend(decoder.finish().unwrap());
            black_box(acc.finish().unwrap());
        },
        || {
            for p in black_box(&payloads) {
                let v: serde_json::Value = serde_json::from_str(p).unwrap();
                black_box(v);
            }
        },
    );
    println!(
        "anthropic accumulate {:8.2} ms   Value parse of the payloads {:8.2} ms   ratio {ratio:.3} (target <= 1.2)",
        a * 1e3,
        v * 1e3
    );
}
