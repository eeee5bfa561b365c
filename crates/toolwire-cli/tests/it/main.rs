#![allow(unreachable_pub)] // a test binary: its `pub` items are reachable only within it, by design
//! The built `toolwire` binary, run on fixtures: exit codes, stdout, stderr.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn fixture(rel: &str) -> String {
    format!("{}/../../fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `toolwire args…` with `stdin`.
fn toolwire(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        // The program may exit before it reads its input (a usage error does): the pipe
        // is then closed under the write, which is no failure of the program.
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// Bodies that are not UTF-8, repeat keys, start with a byte order mark or write `-0`.
mod hostile;

/// `toolwire stream`.
mod stream;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn formats_lists_the_eight_names() {
    let out = toolwire(&["formats"], "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "openai-chat\nopenai-responses\nanthropic\ngemini\nollama\nbedrock\nmistral\ncohere\n"
    );
}

#[test]
fn detect_prints_format_and_kind() {
    let out = toolwire(
        &[
            "detect",
            &fixture("anthropic/response/text.claude-sonnet-4-5.json"),
        ],
        "",
    );
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "anthropic response\n".to_owned())
    );
    let out = toolwire(
        &["detect", "-"],
        r#"{"contents":[{"parts":[{"text":"hi"}]}]}"#,
    );
    assert_eq!(text(&out.stdout), "gemini request\n");
    let out = toolwire(&["detect"], r#"{"hello":1}"#);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("toolwire: (root): no format fits"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn convert_prints_json_on_stdout_and_losses_on_stderr() {
    let out = toolwire(
        &[
            "convert",
            "--to",
            "openai-chat",
            &fixture("neutral/../openai-chat/request/rule-unknown-part-and-developer.json"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["messages"][0]["role"], "developer");
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn convert_reports_each_loss_as_one_line() {
    // Anthropic requires `max_tokens`, which this request lacks: one loss, on stderr.
    let input = r#"{"model":"gpt-4o","messages":[{"role":"system","content":"Be terse."},{"role":"user","content":"Hi"}]}"#;
    let out = toolwire(&["convert", "--to", "anthropic"], input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "loss: /max_tokens: changed: anthropic requires max_tokens and the source has none: 4096 written\n"
    );
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["system"], "Be terse.");
    assert_eq!(body["max_tokens"], 4096);
    // Every line of a lossy conversion has the form `loss: <json-pointer>: <reason>`.
    let out = toolwire(
        &[
            "convert",
            "--to",
            "gemini",
            &fixture("openai-chat/request/rule-ids-and-arguments.json"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(!err.is_empty());
    for line in err.lines() {
        let rest = line
            .strip_prefix("loss: /")
            .unwrap_or_else(|| panic!("{line}"));
        let (_, reason) = rest.split_once(": ").unwrap_or_else(|| panic!("{line}"));
        assert!(
            reason.starts_with("dropped: ")
                || reason.starts_with("changed: ")
                || reason.starts_with("moved: "),
            "{line}"
        );
    }
    assert!(err.contains("loss: /model: dropped: "), "{err}");
    let schema = toolwire(
        &["schema", "--for", "gemini"],
        r#"{"type":"object","properties":{"a":{"type":"string","format":"uuid"}},"additionalProperties":false}"#,
    );
    assert_eq!(schema.status.code(), Some(0));
    assert_eq!(
        text(&schema.stderr),
        "loss: /properties/a/format: dropped: `format: \"uuid\"` is not one gemini supports\nloss: /additionalProperties: dropped: `additionalProperties` is not in gemini's schema subset\n"
    );
    let adapted: serde_json::Value = serde_json::from_slice(&schema.stdout).unwrap();
    assert_eq!(
        adapted,
        serde_json::json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}})
    );
}

#[test]
fn convert_reads_a_bare_conversation_or_tools_array_with_from() {
    let messages = r#"[{"role":"user","content":"Hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"now","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"09:00"}]"#;
    let out = toolwire(
        &["convert", "--from", "openai-chat", "--to", "anthropic", "-"],
        messages,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(items.as_array().unwrap().len(), 3);
    assert_eq!(items[1]["content"][0]["type"], "tool_use");
    assert_eq!(items[2]["content"][0]["tool_use_id"], "call_1");

    let one = r#"{"role":"user","content":"Hi"}"#;
    let out = toolwire(
        &["convert", "--from", "openai-chat", "--to", "gemini", "-"],
        one,
    );
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        items,
        serde_json::json!([{"role": "user", "parts": [{"text": "Hi"}]}])
    );

    let tools = r#"[{"function":{"name":"now","description":"The time"}}]"#;
    let out = toolwire(
        &["convert", "--from", "openai-chat", "--to", "gemini", "-"],
        tools,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tools: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(tools[0]["functionDeclarations"][0]["name"], "now");
}

#[test]
fn strict_turns_a_loss_into_exit_code_1_and_writes_nothing() {
    let input = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}"#;
    let out = toolwire(&["convert", "--strict", "--to", "anthropic"], input);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "loss: /max_tokens: changed: anthropic requires max_tokens and the source has none: 4096 written\ntoolwire: --strict: 1 loss(es), nothing written\n"
    );
    // Nothing lost: --strict changes nothing.
    let lossless = r#"{"model":"gpt-4o","max_completion_tokens":100,"messages":[{"role":"user","content":"Hi"}]}"#;
    let out = toolwire(&["convert", "--strict", "--to", "anthropic"], lossless);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    // A neutral-model body is not a wire format: unreadable, exit 2.
    let neutral =
        std::fs::read_to_string(fixture("neutral/request/rule-non-object-schema.json")).unwrap();
    assert_eq!(
        toolwire(&["convert", "--strict", "--to", "openai-chat"], &neutral)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn unreadable_input_exits_2_naming_the_pointer() {
    let out = toolwire(
        &["convert", "--to", "anthropic"],
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","content":"x"}]}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "toolwire: /messages/1/tool_call_id: missing field\n"
    );
    assert_eq!(text(&out.stdout), "");
    let out = toolwire(&["convert", "--to", "anthropic"], "{\"model\": ");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("toolwire: not JSON: "),
        "{}",
        text(&out.stderr)
    );
    let out = toolwire(&["convert", "--to", "anthropic", "/no/such/file.json"], "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "toolwire: /no/such/file.json: No such file or directory (os error 2)\n"
    );
    let out = toolwire(&["convert", "--to", "klingon"], "{}");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown format `klingon`"),
        "{}",
        text(&out.stderr)
    );
}

/// Given `--from`, a body is read once as text: a request or a response alike, with the
/// same output as the detected path, and the error that got further into the body.
#[test]
fn convert_with_from_reads_requests_and_responses_as_text() {
    for (rel, field) in [
        (
            "openai-chat/request/rule-unknown-part-and-developer.json",
            "messages",
        ),
        ("openai-chat/response/refusal.gpt-4o.json", "content"),
    ] {
        let file = fixture(rel);
        let given = toolwire(
            &[
                "convert",
                "--from",
                "openai-chat",
                "--to",
                "anthropic",
                &file,
            ],
            "",
        );
        assert_eq!(
            given.status.code(),
            Some(0),
            "{rel}: {}",
            text(&given.stderr)
        );
        let detected = toolwire(&["convert", "--to", "anthropic", &file], "");
        assert_eq!(given.stdout, detected.stdout, "{rel}");
        assert_eq!(given.stderr, detected.stderr, "{rel}");
        // Not a terminal: one compact line; --pretty indents the same JSON.
        let out = text(&given.stdout);
        assert_eq!(out.lines().count(), 1, "{rel}");
        let body: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(body.get(field).is_some(), "{rel}: {out}");
        let pretty = toolwire(
            &[
                "convert",
                "--from",
                "openai-chat",
                "--to",
                "anthropic",
                "--pretty",
                &file,
            ],
            "",
        );
        assert!(text(&pretty.stdout).lines().count() > 1);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&pretty.stdout).unwrap(),
            body
        );
    }
    // A request with a fault deep inside: the request's error, not the response's.
    let out = toolwire(
        &["convert", "--from", "openai-chat", "--to", "anthropic"],
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","content":"x"}]}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "toolwire: /messages/1/tool_call_id: missing field\n"
    );
    let out = toolwire(
        &["convert", "--from", "openai-chat", "--to", "anthropic"],
        "\u{feff}{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "a BOM is skipped: {}",
        text(&out.stderr)
    );
}

#[test]
fn jsonl_converts_line_by_line_and_reports_failed_lines_by_number() {
    let good = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"one"}]}"#;
    let bad = r#"{"model":"gpt-4o","messages":[{"role":"tool","content":"x"}]}"#;
    let input = format!("{good}\n{bad}\n\nnot json\n{good}\n");
    let out = toolwire(&["convert", "--jsonl", "--to", "openai-chat"], &input);
    assert_eq!(out.status.code(), Some(2));
    // One output line per input line, empty where the line failed or was blank.
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    for (i, l) in lines.iter().enumerate() {
        if [1, 2, 3].contains(&i) {
            assert_eq!(l, "", "line {}", i + 1);
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["messages"][0]["content"], "one");
    }
    let err = text(&out.stderr);
    assert!(
        err.contains("line 2: error: /messages/0/tool_call_id: missing field\n"),
        "{err}"
    );
    assert!(err.contains("line 4: error: not JSON: "), "{err}");
    // Not a terminal: no progress line.
    assert!(!err.contains("lines converted"), "{err}");
}

#[test]
fn help_reads_well() {
    let out = toolwire(&["--help"], "");
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for cmd in ["convert", "schema", "detect", "formats"] {
        assert!(help.contains(cmd), "{help}");
    }
    let out = toolwire(&["convert", "--help"], "");
    assert!(text(&out.stdout).contains("loss: <json-pointer>: <reason>"));
}
