//! Helpers shared by the test modules.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use wire_convert::{Format, Loss};

/// The workspace's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Request or response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A request body.
    Request,
    /// A response body.
    Response,
}

/// The chat-format request and response fixtures (error bodies excluded), sorted.
pub fn fixtures(body: Body) -> Vec<(Format, PathBuf)> {
    let folder = match body {
        Body::Request => "request",
        Body::Response => "response",
    };
    let mut out = Vec::new();
    for format in Format::CHAT {
        let dir = fixtures_dir().join(format.name()).join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".json") && !name.starts_with("error") {
                out.push((format, p));
            }
        }
    }
    out.sort();
    out
}

/// What a fixture path says: its format and whether it is a request.
pub fn classify(path: &Path) -> Option<(Format, Body)> {
    let name = path.file_name()?.to_string_lossy();
    if name.starts_with("error") {
        return None;
    }
    let folder = path.parent()?.file_name()?.to_string_lossy().into_owned();
    let format: Format = path
        .parent()?
        .parent()?
        .file_name()?
        .to_string_lossy()
        .parse()
        .ok()?;
    if format == Format::Mcp {
        return None;
    }
    match folder.as_str() {
        "request" => Some((format, Body::Request)),
        "response" => Some((format, Body::Response)),
        _ => None,
    }
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The first place two JSON values differ.
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
                .map(|k| format!("{at}/{k}: only in the output ({})", y[k]))
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

/// One line per loss.
pub fn losses_text(losses: &[Loss]) -> String {
    if losses.is_empty() {
        return "(none)\n".into();
    }
    losses.iter().map(|l| format!("- {l}\n")).collect()
}

/// The SDK schema validator of a target's request or response, if the set has one.
pub fn schema(format: Format, body: Body) -> Option<&'static jsonschema::Validator> {
    static CACHE: OnceLock<HashMap<(Format, bool), jsonschema::Validator>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| {
        let mut m = HashMap::new();
        for f in Format::CHAT {
            for (req, kind) in [(true, "request"), (false, "response")] {
                let path = fixtures_dir().join(format!("conformance/{f}.{kind}.schema.json"));
                if let Ok(text) = std::fs::read_to_string(&path) {
                    let schema: Value = serde_json::from_str(&text).unwrap();
                    m.insert((f, req), jsonschema::validator_for(&schema).unwrap());
                }
            }
        }
        m
    });
    cache.get(&(format, body == Body::Request))
}

/// Schema errors of `value`, one line each.
pub fn schema_errors(format: Format, body: Body, value: &Value) -> Vec<String> {
    let Some(v) = schema(format, body) else {
        return Vec::new();
    };
    // The SDK schemas are the non-streaming request variants (`stream` may only be
    // false); a streaming request is otherwise the same body.
    let mut value = value.clone();
    if body == Body::Request && value.get("stream") == Some(&Value::Bool(true)) {
        value["stream"] = Value::Bool(false);
    }
    let value = &value;
    v.iter_errors(value)
        .map(|e| {
            let full = e.to_string();
            let n = full.chars().count();
            let msg: String = if n > 200 {
                format!("…{}", full.chars().skip(n - 160).collect::<String>())
            } else {
                full
            };
            format!("{}: {msg}", e.instance_path())
        })
        .collect()
}

/// Keys whose string values are vocabulary, not content: they are translated, not
/// carried.
const VOCABULARY: &[&str] = &[
    "type",
    "role",
    "object",
    "status",
    "finish_reason",
    "stop_reason",
    "finishReason",
    "stopReason",
    "done_reason",
    "reason",
    "mode",
    "detail",
    "format",
    "media_type",
    "mimeType",
    "mime_type",
    "service_tier",
    "stop_sequence",
    "tool_choice",
    "display",
    "kind",
    "source",
    "responseMimeType",
    "summary",
];

/// Every content string of `v` with its pointer: string leaves not under a vocabulary
/// key; a string holding a JSON object or array contributes its own leaves instead.
pub fn content_strings(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if VOCABULARY.contains(&k.as_str()) && x.is_string() {
                    continue;
                }
                let mut p = at.to_owned();
                wire_types::push_token(&mut p, k);
                content_strings(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                content_strings(x, &format!("{at}/{i}"), out);
            }
        }
        Value::String(s) => {
            // A data URL travels as its payload (base64 plus a media type elsewhere).
            if let Some((_, data)) = s.strip_prefix("data:").and_then(|r| r.split_once(',')) {
                out.push((at.to_owned(), data.to_owned()));
                return;
            }
            let t = s.trim_start();
            if t.starts_with('{') || t.starts_with('[') {
                if let Ok(inner) = serde_json::from_str::<Value>(s) {
                    if inner.is_object() || inner.is_array() {
                        content_strings(&inner, at, out);
                        return;
                    }
                }
            }
            if s.chars().count() >= 3 {
                out.push((at.to_owned(), s.clone()));
            }
        }
        _ => {}
    }
}

fn parent(p: &str) -> &str {
    p.rfind('/').map(|i| &p[..i]).unwrap_or("")
}

fn covered(pointer: &str, losses: &[Loss]) -> bool {
    losses.iter().any(|l| {
        let lp = l.path.as_str();
        lp.is_empty()
            || pointer == lp
            || pointer.starts_with(&format!("{lp}/"))
            || (!parent(lp).is_empty()
                && (pointer == parent(lp) || pointer.starts_with(&format!("{}/", parent(lp)))))
    })
}

/// Content strings of `input` that appear nowhere in `output` and that no loss covers.
pub fn silent_drops(input: &Value, output: &Value, losses: &[Loss]) -> Vec<String> {
    let mut ins = Vec::new();
    content_strings(input, "", &mut ins);
    let mut outs = Vec::new();
    content_strings(output, "", &mut outs);
    // Object keys can carry content too (schema property names, argument names).
    let mut text = Vec::new();
    collect_all(output, &mut text);
    ins.into_iter()
        .filter(|(p, s)| {
            !outs.iter().any(|(_, o)| o.contains(s.as_str()))
                && !text.iter().any(|o| o.contains(s.as_str()) || o.eq_ignore_ascii_case(s))
                && !covered(p, losses)
                // A loss that names the value (a remapped id) covers every use of it.
                && !losses.iter().any(|l| l.detail.contains(&format!("`{s}`")))
        })
        .map(|(p, s)| format!("{p}: {}", s.chars().take(60).collect::<String>()))
        .collect()
}

fn collect_all(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                collect_all(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_all(x, out)),
        Value::String(s) => out.push(s.clone()),
        _ => {}
    }
}
