//! The yardstick for `toolwire convert`'s whole-process speed: read a file, parse it as
//! a `serde_json::Value`, write it back compact to stdout — what any tool that touches
//! the JSON at all must do. Timed against `toolwire convert` with farm-bench (see the
//! README's Performance section):
//!
//! ```text
//! cargo run --release -p toolwire-cli --example value_baseline -- --transcript /tmp/t.json
//! farm-bench -n 11 --vs 'target/release/examples/value_baseline /tmp/t.json' -- \
//!     sh -c 'exec target/release/toolwire convert --from openai-chat --to anthropic /tmp/t.json >/dev/null'
//! ```
//!
//! `--transcript FILE` writes the generated 5.8 MB OpenAI Chat transcript of the
//! benchmarks to FILE instead.

#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, file] if flag == "--transcript" => {
            std::fs::write(file, transcript::openai_chat_transcript(5_800_000)).unwrap();
        }
        [file] => {
            let bytes = std::fs::read(file).unwrap();
            let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            serde_json::to_writer(&mut out, &value).unwrap();
            writeln!(out).unwrap();
            out.flush().unwrap();
        }
        _ => {
            eprintln!("usage: value_baseline FILE | value_baseline --transcript FILE");
            std::process::exit(2);
        }
    }
}
