//! `cargo bench -p wire-convert`: the ≥ 5 MB OpenAI Chat transcript of the wire-types
//! bench converted to Anthropic and to Gemini (text in, text out), next to the
//! `serde_json::Value` round trip of the same bytes, in the same process, run in pairs
//! back to back. Prints the medians and the median of the paired ratios (target:
//! conversion / Value ≤ 1.5). Then the scaling of one turn with many parallel calls and
//! their results (answered in reverse order): 4× the calls should take about 4× the
//! time (work linear in the input), not 16× (quadratic).

#[path = "../../wire-types/benches/support/paired.rs"]
mod paired;
#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;

use std::hint::black_box;
use wire_convert::{Format, Options, convert_request};

/// An Anthropic request whose assistant turn makes `n` calls, answered by one user turn
/// with the `n` results in reverse order.
fn many_calls(n: usize) -> String {
    let calls: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": "f", "input": {"i": i}}))
        .collect();
    let results: Vec<serde_json::Value> = (0..n)
        .rev()
        .map(|i| serde_json::json!({"type": "tool_result", "tool_use_id": format!("toolu_{i}"), "content": "ok"}))
        .collect();
    serde_json::json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": calls},
            {"role": "user", "content": results},
        ],
    })
    .to_string()
}

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
    let (small, large) = (many_calls(2_000), many_calls(8_000));
    let (l, s, ratio) = paired::paired(
        11,
        1,
        || {
            let out = convert_request(
                black_box(&large),
                Format::Anthropic,
                Format::OpenaiChat,
                &options,
            )
            .unwrap();
            black_box(out.value.len());
        },
        || {
            let out = convert_request(
                black_box(&small),
                Format::Anthropic,
                Format::OpenaiChat,
                &options,
            )
            .unwrap();
            black_box(out.value.len());
        },
    );
    println!(
        "8,000 calls and results vs 2,000 (anthropic → openai-chat): {:.2} ms vs {:.2} ms   ratio {ratio:.2} (linear: about 4; quadratic: 16)",
        l * 1e3,
        s * 1e3
    );
}
