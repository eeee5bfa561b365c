//! `toolwire stream`: streams passed through, translated and accumulated; events written
//! as they arrive; a cut-off or failed stream exits 2.

use super::{fixture, text, toolwire};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const TOOL_USE: &str = "anthropic/stream/tool-use.claude-haiku-4-5.sse.txt";
const CUT_OFF: &str = "anthropic/stream/handmade-cut-off-before-message-stop.sse.txt";
const OVERLOADED: &str = "anthropic/stream/handmade-overloaded-error.sse.txt";

#[test]
fn a_stream_to_its_own_format_comes_out_as_it_went_in() {
    let path = fixture(TOOL_USE);
    let out = toolwire(&["stream", "--from", "anthropic", &path], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), std::fs::read_to_string(&path).unwrap());
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn accumulate_prints_the_response_the_stream_makes() {
    let out = toolwire(
        &[
            "stream",
            "--from",
            "anthropic",
            "--accumulate",
            &fixture(TOOL_USE),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Read off the fixture by hand: the id of message_start, the one tool_use block with
    // its input_json_delta pieces joined, the stop reason and output tokens of
    // message_delta.
    assert_eq!(v["id"], "msg_01AusY9WEbCaj3N7Tv5J4YjH");
    assert_eq!(v["content"][0]["type"], "tool_use");
    assert_eq!(v["content"][0]["name"], "get_weather");
    assert_eq!(
        v["content"][0]["input"],
        serde_json::json!({"location": "San Francisco, CA", "units": "f"})
    );
    assert_eq!(v["stop_reason"], "tool_use");
    assert_eq!(v["usage"]["output_tokens"], 74);
}

#[test]
fn accumulate_to_another_format_prints_that_format() {
    let out = toolwire(
        &[
            "stream",
            "--from",
            "anthropic",
            "--to",
            "openai-chat",
            "--accumulate",
            &fixture(TOOL_USE),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let call = &v["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "get_weather");
    let args: serde_json::Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        args,
        serde_json::json!({"location": "San Francisco, CA", "units": "f"})
    );
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
}

#[test]
fn a_cut_off_stream_exits_2_and_still_prints_what_arrived() {
    let out = toolwire(
        &[
            "stream",
            "--from",
            "anthropic",
            "--accumulate",
            &fixture(CUT_OFF),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"][0]["name"], "get_weather");
    assert_eq!(v["stop_reason"], serde_json::Value::Null);
    let err = text(&out.stderr);
    assert!(
        err.ends_with(
            "toolwire: incomplete stream: the anthropic stream ended before its finish event\n"
        ),
        "{err}"
    );
    // Translated (here passed through), the events that came are written and the exit
    // code still says the answer is not whole.
    let out = toolwire(&["stream", "--from", "anthropic", &fixture(CUT_OFF)], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).starts_with("event: message_start\n"));
}

#[test]
fn a_provider_error_event_exits_2_naming_it() {
    for args in [vec!["--accumulate"], vec![]] {
        let path = fixture(OVERLOADED);
        let mut all = vec!["stream", "--from", "anthropic"];
        all.extend(args);
        all.push(&path);
        let out = toolwire(&all, "");
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(
            text(&out.stderr)
                .ends_with("toolwire: incomplete stream: overloaded_error: Overloaded\n"),
            "{all:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn unreadable_bytes_exit_2_naming_the_offset() {
    let out = toolwire(
        &["stream", "--from", "anthropic", "-"],
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":\n\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "toolwire: stream byte 0: /message: EOF while parsing a value\n"
    );
}

/// The first events are on stdout while stdin is still open: the translator neither
/// waits for the end of the stream nor leaves its output in a buffer.
#[test]
fn events_are_written_as_they_arrive() {
    let whole = std::fs::read_to_string(fixture(TOOL_USE)).unwrap();
    // Up to the end of the content_block_start event: the message start and the
    // block's start are complete.
    let cut = whole.find("event: content_block_delta").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["stream", "--from", "anthropic", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&whole.as_bytes()[..cut]).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(30));
    // Whatever happened, the child gets the rest and ends.
    stdin.write_all(&whole.as_bytes()[cut..]).unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let first = first.expect("no output while the input was still open");
    assert!(
        text(&first).starts_with("event: message_start\n"),
        "{}",
        text(&first)
    );
    assert_eq!(status.code(), Some(0));
}
