//! Profiling aid: converts the benchmark transcript (`perf record` or
//! `valgrind --tool=callgrind` it). Arguments: the target format (`anthropic` by
//! default, or `value` for the `serde_json::Value` round trip the bench compares with)
//! and the number of runs (10 by default).
#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;
fn main() {
    let text = transcript::openai_chat_transcript(5 * 1024 * 1024);
    let mut args = std::env::args().skip(1);
    let target = args.next().unwrap_or_else(|| "anthropic".into());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    for _ in 0..runs {
        if target == "value" {
            std::hint::black_box(value_round_trip(&text));
            continue;
        }
        let out = wire_convert::convert_request(
            &text,
            wire_convert::Format::OpenaiChat,
            target.parse().unwrap_or(wire_convert::Format::Anthropic),
            &Default::default(),
        );
        std::hint::black_box(out.map(|o| o.value.len()).unwrap_or(0));
    }
}

/// The baseline, in a function of its own so that a profiler can be told to count it
/// alone (`valgrind --tool=callgrind --toggle-collect=prof_convert::value_round_trip`,
/// against `--toggle-collect=wire_convert::api::convert_request`).
#[inline(never)]
fn value_round_trip(text: &str) -> usize {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    serde_json::to_string(&v).map(|s| s.len()).unwrap_or(0)
}
