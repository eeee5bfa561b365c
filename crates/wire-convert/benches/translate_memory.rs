//! `cargo bench -p wire-convert --bench translate_memory`: the stream translator's
//! memory — the peak heap it allocates above what was live before it started (a counting
//! allocator, `peak_alloc`), for a long Anthropic stream (over 6,000 events) and the same
//! stream twice as long, translated live 4 KiB at a time, each piece of output dropped
//! once written. Bounded by the open parts (a Gemini or Ollama call waits whole for its
//! arguments, so it grows with that call) for every target but Responses, whose final
//! `response.completed` echoes the whole response, so it holds what it has written.

#[path = "translate.rs"]
#[allow(dead_code)]
mod timing;

use peak_alloc::PeakAlloc;
use std::hint::black_box;
use wire_convert::stream::StreamTranslator;
use wire_convert::{Format, Options};

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

/// The peak heap a live translation of `source` allocates above what is live before it,
/// in bytes.
fn peak(from: Format, to: Format, source: &[u8], options: &Options) -> usize {
    let before = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let mut t = StreamTranslator::new(from, to, options).unwrap();
    for piece in source.chunks(4096) {
        black_box(t.push(piece).unwrap());
    }
    black_box(t.finish().unwrap());
    drop(t);
    HEAP.peak_usage().saturating_sub(before)
}

fn main() {
    let options = Options::default();
    let one = timing::anthropic_stream(4000, 2000);
    let two = timing::anthropic_stream(8000, 4000);
    println!(
        "peak heap of the translator above what was live before it ({:.1} KB and {:.1} KB of Anthropic SSE):",
        one.len() as f64 / 1e3,
        two.len() as f64 / 1e3
    );
    for to in Format::CHAT {
        if to == Format::Anthropic {
            continue;
        }
        let a = peak(Format::Anthropic, to, one.as_bytes(), &options);
        let b = peak(Format::Anthropic, to, two.as_bytes(), &options);
        println!(
            "anthropic → {:<16} {:8.1} KB, {:8.1} KB (x{:.2})",
            to.to_string(),
            a as f64 / 1e3,
            b as f64 / 1e3,
            b as f64 / a.max(1) as f64
        );
    }
}
