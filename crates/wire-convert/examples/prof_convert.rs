//! Profiling aid: converts the benchmark transcript ten times (`perf record` it).
#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;
fn main() {
    let text = transcript::openai_chat_transcript(5 * 1024 * 1024);
    let target: wire_convert::Format = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "anthropic".into())
        .parse()
        .unwrap_or(wire_convert::Format::Anthropic);
    for _ in 0..10 {
        let out = wire_convert::convert_request(
            &text,
            wire_convert::Format::OpenaiChat,
            target,
            &Default::default(),
        );
        std::hint::black_box(out.map(|o| o.value.len()).unwrap_or(0));
    }
}
