//! Helpers of wire-convert's tests: the chat fixtures as (format, request or response),
//! schema validation by target, and the silent-drop check. What every test binary shares
//! (the walker, `first_difference`, reports, the schemas) is in `test-support`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use wire_convert::{Format, Loss};

pub use test_support::{first_difference, fixtures_dir, read_json};

/// Request or response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A request body.
    Request,
    /// A response body.
    Response,
}

impl Body {
    /// The fixture folder and the conformance schema suffix.
    pub fn name(self) -> &'static str {
        match self {
            Body::Request => "request",
            Body::Response => "response",
        }
    }
}

/// The chat-format request and response fixtures (error bodies excluded), sorted.
pub fn fixtures(body: Body) -> Vec<(Format, PathBuf)> {
    test_support::fixtures(body.name(), &[".json"])
        .into_iter()
        .filter(|f| !f.is_error_body())
        .filter_map(|f| Some((f.format.parse().ok()?, f.path)))
        .filter(|(format, _)| *format != Format::Mcp)
        .collect()
}

/// What a fixture path says: its format and whether it is a request.
pub fn classify(path: &Path) -> Option<(Format, Body)> {
    let f = test_support::Fixture::of(path)?;
    let format: Format = f.format.parse().ok()?;
    if f.is_error_body() || format == Format::Mcp {
        return None;
    }
    match f.folder.as_str() {
        "request" => Some((format, Body::Request)),
        "response" => Some((format, Body::Response)),
        _ => None,
    }
}

/// Each loss as a line.
pub fn loss_lines(losses: &[Loss]) -> impl Iterator<Item = String> + '_ {
    losses.iter().map(ToString::to_string)
}

/// Schema errors of `value` against the SDK schema of `format`'s request or response,
/// one line each. Every chat format has both schemas: a missing one is an error too, so
/// that no output goes unchecked.
pub fn schema_errors(format: Format, body: Body, value: &Value) -> Vec<String> {
    let name = format!("{format}.{}", body.name());
    let Some(v) = test_support::conformance(&name) else {
        return vec![format!(
            "fixtures/conformance/{name}.schema.json is missing: the output is not checked"
        )];
    };
    // The SDK schemas are the non-streaming request variants (`stream` may only be
    // false); a streaming request is otherwise the same body.
    let mut value = value.clone();
    if body == Body::Request && value.get("stream") == Some(&Value::Bool(true)) {
        value["stream"] = Value::Bool(false);
    }
    test_support::schema_errors(v, &value)
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
    // A schema reference: inlined where the target has no `$ref`, which keeps its meaning.
    "$ref",
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

/// Whether a loss covers the content at `pointer`: a loss covers its own subtree only
/// (a loss at `/messages/3` says nothing about `/messages/4`).
fn covered(pointer: &str, losses: &[Loss]) -> bool {
    losses.iter().any(|l| {
        let lp = l.path.as_str();
        lp.is_empty() || pointer == lp || pointer.starts_with(&format!("{lp}/"))
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
