//! `cargo bench -p wire-convert`: the ≥ 5 MB OpenAI Chat transcript of the wire-types
//! bench converted to Anthropic and to Gemini (text in, text out), next to the
//! `serde_json::Value` round trip of the same bytes, in the same process, run in pairs
//! back to back. Prints the medians and the median of the paired ratios (target:
//! conversion / Value ≤ 1.5).

#[path = "../../wire-types/benches/support/paired.rs"]
mod paired;
#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;

use std::hint::black_box;
use wire_convert::{Format, Options, convert_request};

fn main() {
    let text = transcript::openai_chat_transcript(5 * 1024 * 1024);
    let options = Options::default();
    println!("openai-chat transcript: {:.1} MB", text.len() as f64 / 1e6);
    for target in [Format::Anthropic, Format::Gemini] {
        let (c, v, ratio) = paired::paired(
            21,
            1,
            || {
                let out = convert_request(black_box(&text), Format::OpenaiChat, target, &options)
                    .unwrap();
                black_box(out.value.len());
            },
            || {
                let v: serde_json::Value = serde_json::from_str(black_box(&text)).unwrap();
                black_box(serde_json::to_string(&v).unwrap());
            },
        );
        let (c, v) = (c * 1e3, v * 1e3);
        println!(
            "openai-chat → {target:<10} {c:8.2} ms   Value round trip {v:8.2} ms   ratio {ratio:.3} (target <= 1.5)"
        );
    }
}
