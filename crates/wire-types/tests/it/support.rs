//! Fixture reading and per-format dispatch, shared by every test module.

use serde_json::Value;
use std::path::{Path, PathBuf};
use wire_types::stream::{Frame, line_frames, sse_frames};
use wire_types::{Format, Kind};

/// The workspace's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The files of `dir`, sorted by name (none when `dir` does not exist).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// The written-back JSON of the fixtures in `fixtures/<format>/<folder>/` whose name `keep`
/// accepts, read as `what`, each with its file name; a fixture that does not read panics.
pub fn written_fixtures(
    format: Format,
    folder: &str,
    what: What,
    keep: impl Fn(&str) -> bool,
) -> Vec<(String, Value)> {
    files_in(&fixtures_dir().join(format.name()).join(folder))
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !keep(&name) {
                return None;
            }
            let (written, _) = read_write(format, what, &std::fs::read_to_string(&p).unwrap())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            Some((name, written))
        })
        .collect()
}

/// What a fixture path says about its contents: `fixtures/<format>/<folder>/<file>`.
#[derive(Debug, Clone)]
pub struct FixtureInfo {
    /// The format, from the first folder.
    pub format: Format,
    /// The second folder: `request`, `response`, `stream`, `invalid`, or an MCP folder.
    pub folder: String,
    /// The file name.
    pub name: String,
}

pub fn info(path: &Path) -> FixtureInfo {
    let rel = path
        .strip_prefix(fixtures_dir().canonicalize().unwrap())
        .unwrap_or(path);
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let n = parts.len();
    assert!(n >= 3, "fixture path too short: {}", path.display());
    FixtureInfo {
        format: parts[n - 3].parse().expect("fixture folder names a format"),
        folder: parts[n - 2].clone(),
        name: parts[n - 1].clone(),
    }
}

/// The JSON payloads of a fixture file: one for `.json`, one per event for streams.
pub fn payloads(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let frames = if name.ends_with(".sse.txt") {
        sse_frames(&text)
    } else if name.ends_with(".chunks.txt") || name.ends_with(".ndjson") {
        line_frames(&text)
    } else {
        return vec![("body".to_owned(), text)];
    };
    frames
        .into_iter()
        .filter_map(|f| match f {
            Frame::Data { line, event, data } => Some((
                match event {
                    Some(e) => format!("line {line} ({e})"),
                    None => format!("line {line}"),
                },
                data,
            )),
            Frame::Done { .. } => None,
        })
        .collect()
}

/// What a payload in `folder` is (error bodies sit in `response/` and are named
/// `error*`).
pub fn what_of(folder: &str, name: &str, json: &Value) -> What {
    let _ = json;
    let looks_error = name.starts_with("error");
    match folder {
        "response" if looks_error => What::Chat(Kind::Error),
        other => What::from_name(other),
    }
}

/// What a payload is read as: a [`Kind`] of a chat format, or one of the MCP shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// A chat-format body of this kind.
    Chat(Kind),
    /// MCP: `tools-list`, `call` or `result` (the fixture folder names).
    Mcp(&'static str),
}

impl What {
    /// From a folder or `kind` name: `request`, `response`, `stream`/`stream-event`,
    /// `error`, `tools-list`, `call`, `result`.
    pub fn from_name(name: &str) -> What {
        match name {
            "request" => What::Chat(Kind::Request),
            "response" => What::Chat(Kind::Response),
            "stream" | "stream-event" => What::Chat(Kind::StreamEvent),
            "error" => What::Chat(Kind::Error),
            "tools-list" => What::Mcp("tools-list"),
            "call" => What::Mcp("call"),
            "result" => What::Mcp("result"),
            other => panic!("unknown payload kind `{other}`"),
        }
    }
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Chat(k) => write!(f, "{k}"),
            What::Mcp(m) => f.write_str(m),
        }
    }
}

/// Reads `text` as the typed body for (`format`, `what`), writes it back, and returns the
/// written JSON and a summary; `Err` is the read error.
pub fn read_write(
    format: Format,
    what: What,
    text: &str,
) -> Result<(Value, String), wire_types::Error> {
    let kind = match what {
        What::Chat(k) => k,
        What::Mcp(m) => return crate::summary::mcp::read_write(m, text),
    };
    macro_rules! go {
        ($m:ident, $summ:ident) => {{
            use wire_types::$m as w;
            match kind {
                Kind::Request => {
                    let v: w::Request = wire_types::from_str(text)?;
                    w::validate_request(&v)?;
                    Ok((wire_types::to_value(&v), crate::summary::$summ::request(&v)))
                }
                Kind::Response => {
                    let v: w::Response = wire_types::from_str(text)?;
                    Ok((
                        wire_types::to_value(&v),
                        crate::summary::$summ::response(&v),
                    ))
                }
                Kind::StreamEvent => {
                    let v: w::StreamEvent = wire_types::from_str(text)?;
                    Ok((wire_types::to_value(&v), crate::summary::$summ::event(&v)))
                }
                Kind::Error => {
                    let v: w::ErrorResponse = wire_types::from_str(text)?;
                    Ok((wire_types::to_value(&v), crate::summary::$summ::error(&v)))
                }
            }
        }};
    }
    match format {
        Format::OpenaiChat => go!(openai_chat, openai_chat),
        Format::OpenaiResponses => go!(openai_responses, openai_responses),
        Format::Anthropic => go!(anthropic, anthropic),
        Format::Gemini => go!(gemini, gemini),
        Format::Ollama => go!(ollama, ollama),
        Format::Bedrock => go!(bedrock, bedrock),
        Format::Mistral => go!(mistral, mistral),
        Format::Cohere => go!(cohere, cohere),
        Format::Mcp => panic!("MCP fixtures sit in tools-list/, call/ or result/"),
    }
}

/// The first place two JSON values differ, as a pointer and both sides.
pub fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let here = format!("{at}/{k}");
                match y.get(k) {
                    None => return Some(format!("{here}: only in the input")),
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, here) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}/{k}: only in the output"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!("{at}: input {a} vs output {b}")),
    }
}

/// Shortens a string for a summary line.
pub fn short(s: &str, n: usize) -> String {
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= n {
        one_line
    } else {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    }
}
