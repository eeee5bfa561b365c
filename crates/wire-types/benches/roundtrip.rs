//! `cargo bench -p wire-types`: typed read + write of a ≥ 5 MB OpenAI Chat transcript
//! with many tool calls, next to the same bytes through `serde_json::Value`, in the same
//! process, in pairs run back to back so both see the same machine state. Prints both
//! medians and the median of the paired ratios (target: typed / Value ≤ 1.0).

#[path = "support/paired.rs"]
mod paired;
#[path = "support/transcript.rs"]
mod transcript;

use std::hint::black_box;
use wire_types::openai_chat::Request;

fn main() {
    let text = transcript::openai_chat_transcript(5 * 1024 * 1024);
    let (t, v, ratio) = paired::paired(
        21,
        1,
        || {
            let r: Request = wire_types::from_str(black_box(&text)).unwrap();
            black_box(wire_types::to_string(&r));
        },
        || {
            let v: serde_json::Value = serde_json::from_str(black_box(&text)).unwrap();
            black_box(serde_json::to_string(&v).unwrap());
        },
    );
    let (t, v) = (t * 1e3, v * 1e3);
    println!("openai-chat transcript: {:.1} MB", text.len() as f64 / 1e6);
    println!("typed read+write (wire-types):   {t:8.2} ms");
    println!("serde_json::Value read+write:     {v:8.2} ms");
    println!("ratio typed / Value:              {ratio:8.3} (target <= 1.0)");
}
