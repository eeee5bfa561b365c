//! Where a conversion's time goes, next to the `serde_json::Value` round trip it is
//! compared with (`cargo bench -p wire-convert`): the benchmark transcript read as a
//! `Value`, written, freed (the tree and the text); read typed (wire-types), freed; decoded into the neutral
//! model, freed; converted to Anthropic and to Gemini, text in, text out.
//!
//! `cargo run --release -p wire-convert --example phases [bytes]`: the transcript is at
//! least `bytes` long (5 MiB by default); the figures are mean milliseconds a run,
//! scaled to 5 MiB, so that a small transcript (one that stays in the processor's cache,
//! 200000 say) can be set beside the large one. A diagnostic, not a benchmark: the
//! ratios to hold are the bench's, taken in pairs.
#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;
use wire_convert::{Format, Options};

const FIVE_MIB: usize = 5 * 1024 * 1024;

fn main() {
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(FIVE_MIB)
        .max(1);
    let text = transcript::openai_chat_transcript(size);
    // About 150 MiB of input in all, at least 30 runs.
    let runs = (30 * FIVE_MIB / size).max(30);
    let options = Options::default();
    let mut total: BTreeMap<&str, f64> = BTreeMap::new();
    let mut add = |phase, t: f64| *total.entry(phase).or_default() += t;
    for _ in 0..runs {
        let t = Instant::now();
        let v: serde_json::Value = serde_json::from_str(black_box(&text)).unwrap_or_default();
        let read = t.elapsed();
        let s = serde_json::to_string(&v).unwrap_or_default();
        let written = t.elapsed();
        black_box(s.len());
        drop(v);
        drop(s);
        let freed = t.elapsed();
        add("value: read", read.as_secs_f64());
        add("value: write", (written - read).as_secs_f64());
        add("value: free", (freed - written).as_secs_f64());

        let t = Instant::now();
        let r = wire_types::from_str::<wire_types::openai_chat::Request>(black_box(&text));
        let read = t.elapsed();
        drop(r);
        add("typed: read", read.as_secs_f64());
        add("typed: free", (t.elapsed() - read).as_secs_f64());

        let t = Instant::now();
        let d = wire_convert::decode_request(black_box(&text), Format::OpenaiChat, &options);
        let decoded = t.elapsed();
        drop(d);
        add("neutral: read typed + decode", decoded.as_secs_f64());
        add("neutral: free", (t.elapsed() - decoded).as_secs_f64());

        for (phase, to) in [
            ("convert: to anthropic", Format::Anthropic),
            ("convert: to gemini", Format::Gemini),
        ] {
            let t = Instant::now();
            let out =
                wire_convert::convert_request(black_box(&text), Format::OpenaiChat, to, &options);
            drop(out);
            add(phase, t.elapsed().as_secs_f64());
        }
    }
    let scale = 1e3 / runs as f64 * (FIVE_MIB as f64 / text.len() as f64);
    println!(
        "{} bytes, {runs} runs; mean ms a run, scaled to 5 MiB",
        text.len()
    );
    for (phase, t) in &total {
        println!("{phase:30} {:8.3}", t * scale);
    }
    let value: f64 = ["value: read", "value: write", "value: free"]
        .iter()
        .map(|p| total[p])
        .sum();
    for p in ["convert: to anthropic", "convert: to gemini"] {
        println!("{p} / value round trip: {:.3}", total[p] / value);
    }
}
