//! What a hostile or careless client sends the binary: lines that are not UTF-8, blank
//! lines, a byte order mark, duplicate keys, `-0`.

use super::text;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `toolwire args…` with raw bytes on stdin.
fn toolwire_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

const GOOD: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"one"}]}"#;

#[test]
fn jsonl_a_line_that_is_not_utf8_fails_alone_and_output_lines_stay_aligned() {
    let mut input = Vec::new();
    input.extend_from_slice(GOOD.as_bytes());
    input.extend_from_slice(b"\n{\"model\":\"\xff\xfe\",\"messages\":[]}\n");
    input.extend_from_slice(b"   \r\n");
    input.extend_from_slice(GOOD.replace("one", "three").as_bytes());
    input.extend_from_slice(b"\r\n");
    // The last line has no newline.
    input.extend_from_slice(GOOD.replace("one", "four").as_bytes());
    let out = toolwire_bytes(&["convert", "--jsonl", "--to", "anthropic"], &input);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.split_terminator('\n').collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    let content = |l: &str| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["messages"][0]["content"].clone()
    };
    assert_eq!(content(lines[0]), "one");
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], "");
    assert_eq!(content(lines[3]), "three");
    assert_eq!(content(lines[4]), "four");
    let err = text(&out.stderr);
    assert!(err.contains("line 2: error: not JSON: "), "{err}");
    assert!(!err.contains("line 3"), "a blank line is no error: {err}");
}

#[test]
fn jsonl_a_strict_lossy_line_leaves_an_empty_line() {
    // To Anthropic, `max_tokens` is missing: a loss.
    let input = format!("{GOOD}\n{GOOD}\n");
    let out = toolwire_bytes(
        &["convert", "--jsonl", "--strict", "--to", "anthropic"],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "\n\n");
    assert!(text(&out.stderr).contains("line 2: --strict: "));
}

#[test]
fn a_duplicate_key_is_refused_with_its_pointer() {
    let body = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"a","content":"b"}]}"#;
    let out = toolwire_bytes(&["convert", "--to", "anthropic"], body.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "toolwire: /messages/0/content: duplicate field\n"
    );
    let out = toolwire_bytes(&["detect"], br#"{"messages":[],"messages":{}}"#);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "toolwire: /messages: duplicate field\n");
}

#[test]
fn a_byte_order_mark_is_skipped_by_every_command() {
    let mut body = "\u{feff}".as_bytes().to_vec();
    body.extend_from_slice(GOOD.as_bytes());
    let out = toolwire_bytes(&["detect"], &body);
    assert_eq!(
        text(&out.stdout),
        "openai-chat request\n",
        "{}",
        text(&out.stderr)
    );
    let out = toolwire_bytes(&["convert", "--to", "gemini"], &body);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = toolwire_bytes(&["convert", "--jsonl", "--to", "gemini"], &body);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = toolwire_bytes(
        &["schema", "--for", "gemini"],
        "\u{feff}{\"type\":\"object\"}".as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn negative_zero_is_printed_as_sent() {
    let body = r#"{"model":"gpt-4o","temperature":-0,"messages":[{"role":"user","content":"a"}]}"#;
    let out = toolwire_bytes(&["convert", "--to", "mistral"], body.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\"temperature\":-0}"),
        "{}",
        text(&out.stdout)
    );
    // Given its format, the body is read as text: the same.
    let out = toolwire_bytes(
        &[
            "convert",
            "--from",
            "openai-chat",
            "--to",
            "mistral",
            "--pretty",
        ],
        body.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\"temperature\": -0\n"),
        "{}",
        text(&out.stdout)
    );
    let out = toolwire_bytes(&["convert", "--jsonl", "--to", "mistral"], body.as_bytes());
    assert!(
        text(&out.stdout).contains("\"temperature\":-0}"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn billion_laughs_finishes_with_bounded_output() {
    // 30 levels of `$defs` each using the previous one twice: fully inlined, 2^30 leaves.
    let request = super::fixture("hostile/billion-laughs-30.openai-chat.json");
    let schema = super::fixture("hostile/billion-laughs-30.schema.json");
    for args in [
        vec!["convert", "--to", "gemini", request.as_str()],
        vec!["convert", "--to", "ollama", request.as_str()],
        vec!["schema", "--for", "gemini", schema.as_str()],
        vec!["schema", "--for", "ollama", schema.as_str()],
    ] {
        let out = toolwire_bytes(&args, b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        // Bounded: a few megabytes at most (pretty-printed), never the 2^30 expansion.
        assert!(
            out.stdout.len() < 4_000_000,
            "{args:?}: {} bytes",
            out.stdout.len()
        );
        assert!(
            serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok(),
            "{args:?}"
        );
    }
    let out = toolwire_bytes(&["schema", "--for", "gemini", &schema], b"");
    assert!(text(&out.stderr).contains("expansion budget"));
}
