//! Writes every recorded stream of `fixtures/` translated to each format the official
//! SDK oracle reads (Anthropic, OpenAI Chat, Responses), for `fixtures/sdk/generate.sh`:
//! the SDKs' own accumulators then add up what toolwire wrote, and the tests compare
//! that with toolwire's accumulation (`tests/it/translate.rs`).
//!
//! ```text
//! cargo run -p wire-convert --example translate_fixtures -- OUT_DIR
//! ```
//!
//! writes `OUT_DIR/<to>/<from>/<fixture name>.sse.txt` (raw `text/event-stream`), one for
//! every stream the translator takes (a malformed source is left out).

use std::path::{Path, PathBuf};
use wire_convert::stream::{Framing, StreamTranslator};
use wire_convert::{Format, Options};

/// The formats whose SDKs accumulate streams in the oracle.
pub const ORACLE_TARGETS: [Format; 3] = [
    Format::Anthropic,
    Format::OpenaiChat,
    Format::OpenaiResponses,
];

fn main() {
    let Some(out) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: translate_fixtures OUT_DIR");
        std::process::exit(2);
    };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut written = 0;
    for from in Format::CHAT {
        for folder in ["stream", "event-stream"] {
            let Ok(entries) = std::fs::read_dir(fixtures.join(from.to_string()).join(folder))
            else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
            files.sort();
            for path in files {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let framing = if name.ends_with(".sse.txt") {
                    Framing::Sse
                } else if name.ends_with(".eventstream") {
                    Framing::EventStream
                } else if name.ends_with(".chunks.txt") || name.ends_with(".ndjson") {
                    Framing::Ndjson
                } else {
                    continue;
                };
                let bytes = std::fs::read(&path).unwrap();
                for to in ORACLE_TARGETS {
                    if to == from {
                        continue;
                    }
                    let Ok(mut t) = StreamTranslator::with_framing(
                        from,
                        framing,
                        to,
                        Framing::Sse,
                        &Options::default(),
                    ) else {
                        continue;
                    };
                    let Ok(mut sse) = t.push(&bytes) else {
                        continue;
                    };
                    let Ok(rest) = t.finish() else { continue };
                    sse.extend(rest);
                    let dir = out.join(to.to_string()).join(from.to_string());
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(dir.join(format!("{name}.sse.txt")), sse).unwrap();
                    written += 1;
                }
            }
        }
    }
    eprintln!(
        "translate_fixtures: {written} streams written under {}",
        out.display()
    );
}
