//! `detect` names the format and kind of every fixture payload, by the documented rules
//! (see `wire_types::detect`). Where the rules cannot tell two shapes apart by design,
//! the expected answer is the documented one, listed in `expected`.

use crate::support::{What, info, payloads, what_of};
use wire_types::{Format, Kind, detect};

/// What `detect` must say for a payload from `format` of kind `kind` (file `name`).
fn expected(format: Format, kind: Kind, name: &str, line: &str) -> (Format, Kind) {
    match (format, kind) {
        // OpenAI's error body is shared by Chat and Responses: reported as openai-chat.
        (Format::OpenaiResponses, Kind::Error) => (Format::OpenaiChat, Kind::Error),
        // A mid-stream error has the error body's shape (Anthropic, Gemini).
        (Format::Anthropic | Format::Gemini, Kind::StreamEvent) if line == "error" => {
            (format, Kind::Error)
        }
        // A Gemini stream chunk is a GenerateContentResponse.
        (Format::Gemini, Kind::StreamEvent) => (Format::Gemini, Kind::Response),
        // Ollama's last stream line (done: true) has the response's shape.
        (Format::Ollama, Kind::StreamEvent) if name.contains("error") && line == "error" => {
            (Format::Ollama, Kind::Error)
        }
        (Format::Ollama, Kind::StreamEvent) if line == "last" => (Format::Ollama, Kind::Response),
        // Uses only fields OpenAI Chat shares: a valid OpenAI Chat body, reported as one.
        (Format::Ollama, Kind::Request) if name == "chat-tools-stream.json" => {
            (Format::OpenaiChat, Kind::Request)
        }
        other => other,
    }
}

/// Stream payloads the detection rules have no rule for, so `detect` must refuse them
/// ("no format fits"): (fixture, payload label, why). A stream decoder knows the format
/// from the stream it reads; these are listed so that a rule added for them shows here.
const UNDETECTED: &[(&str, &str, &str)] = &[
    (
        "openai-chat/handmade-usage-without-choices.chunks.txt",
        "line 7",
        "a usage chunk without `choices`: the OpenAI Chat rule looks for `choices` (or \
         `messages`), and `object: \"chat.completion.chunk\"` alone is not a rule",
    ),
    (
        "openai-responses/handmade-keepalive.chunks.txt",
        "line 3",
        "`keepalive` is not a `response.*` type, and the Responses rule takes only those \
         and `error`",
    ),
    (
        "openai-responses/handmade-keepalive.chunks.txt",
        "line 6",
        "`keepalive` is not a `response.*` type, and the Responses rule takes only those \
         and `error`",
    ),
];

#[test]
fn every_fixture_is_detected_as_its_format_and_kind() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in walk(&crate::support::fixtures_dir()) {
        let fixture = info(&entry);
        if fixture.format == Format::Mcp
            || !["request", "response", "stream"].contains(&fixture.folder.as_str())
        {
            continue;
        }
        let all = payloads(&entry);
        let n = all.len();
        for (i, (label, text)) in all.into_iter().enumerate() {
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let What::Chat(kind) = what_of(&fixture.folder, &fixture.name, &json) else {
                continue;
            };
            let line = if json.get("error").is_some() {
                "error"
            } else if i + 1 == n && json.get("done") == Some(&serde_json::Value::Bool(true)) {
                "last"
            } else {
                ""
            };
            let want = expected(fixture.format, kind, &fixture.name, line);
            checked += 1;
            let at = format!("{}/{}", fixture.format, fixture.name);
            if let Some((_, _, why)) = UNDETECTED.iter().find(|(f, l, _)| *f == at && *l == label) {
                match detect(&json) {
                    Err(e) if e.to_string().contains("no format fits") => {}
                    other => failures.push(format!(
                        "{at} {label}: listed as undetected ({why}), but detect gave {other:?}"
                    )),
                }
                continue;
            }
            match detect(&json) {
                Ok(d) if (d.format, d.kind) == want => {}
                Ok(d) => failures.push(format!(
                    "{}/{} {label}: detected {} {}, expected {} {}",
                    fixture.format, fixture.name, d.format, d.kind, want.0, want.1
                )),
                Err(e) => {
                    failures.push(format!("{}/{} {label}: {e}", fixture.format, fixture.name))
                }
            }
        }
    }
    assert!(checked > 100);
    assert!(
        failures.is_empty(),
        "{} of {checked} misdetected:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_body_no_format_fits_says_why() {
    let err = detect(&serde_json::json!({"hello": "world"})).unwrap_err();
    assert!(err.to_string().contains("no format fits"), "{err}");
    let err = detect(&serde_json::json!([1, 2])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "(root): expected a JSON object, found an array"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p
            .extension()
            .is_some_and(|x| x == "json" || x == "txt" || x == "ndjson")
            && !p.to_string_lossy().contains("conformance")
            && !p.to_string_lossy().contains("/neutral/")
            && !p.to_string_lossy().contains("/sdk/")
            && !p.to_string_lossy().contains("/hostile/")
        {
            out.push(p);
        }
    }
    out.sort();
    out
}
