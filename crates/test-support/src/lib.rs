//! What the workspace's test binaries share, so each rule of the test suite lives once:
//!
//! * [`fixtures`]: the fixture walker over `fixtures/<format>/<folder>/<file>`, and
//!   [`Fixture::of`] for a path `insta::glob!` hands over;
//! * [`first_difference`]: where two JSON values first differ, as a pointer;
//! * [`Report`]: the text of a snapshot, built section by section;
//! * [`conformance`]: the SDK conformance schemas of `fixtures/conformance`, compiled once,
//!   and [`schema_errors`], their errors as lines.
//!
//! It reads files (the test data), so it is a dev-dependency only; it knows no format's
//! types, only the folder names.
#![forbid(unsafe_code)]

use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The workspace's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A fixture file: `fixtures/<format>/<folder>/<name>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fixture {
    /// The format's name, from the first folder (`openai-chat`, `mcp`, …).
    pub format: String,
    /// The second folder: `request`, `response`, `stream`, `invalid`, or an MCP folder.
    pub folder: String,
    /// The file name.
    pub name: String,
    /// The whole path.
    pub path: PathBuf,
}

impl Fixture {
    /// What a fixture path says, if it has the `<format>/<folder>/<name>` shape.
    pub fn of(path: &Path) -> Option<Fixture> {
        let name = path.file_name()?.to_str()?.to_owned();
        let folder = path.parent()?.file_name()?.to_str()?.to_owned();
        let format = path.parent()?.parent()?.file_name()?.to_str()?.to_owned();
        Some(Fixture {
            format,
            folder,
            name,
            path: path.to_owned(),
        })
    }

    /// Whether it is an error body (error bodies sit in `response/` and are named
    /// `error*`).
    pub fn is_error_body(&self) -> bool {
        self.name.starts_with("error")
    }

    /// The path relative to `fixtures/`, for messages.
    pub fn rel(&self) -> String {
        format!("{}/{}/{}", self.format, self.folder, self.name)
    }

    /// The file's text.
    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.path)
            .unwrap_or_else(|e| panic!("{}: {e}", self.path.display()))
    }

    /// The file as one JSON value.
    pub fn json(&self) -> Value {
        read_json(&self.path)
    }
}

/// Every fixture in a `<folder>` of any format whose name ends in one of `endings`
/// (`.json`, `.sse.txt`, …), sorted by format, then name.
pub fn fixtures(folder: &str, endings: &[&str]) -> Vec<Fixture> {
    let mut out = Vec::new();
    let Ok(formats) = std::fs::read_dir(fixtures_dir()) else {
        return out;
    };
    for format in formats.flatten() {
        let Ok(files) = std::fs::read_dir(format.path().join(folder)) else {
            continue;
        };
        for file in files.flatten() {
            let path = file.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if endings.iter().any(|e| name.ends_with(e)) {
                out.extend(Fixture::of(&path));
            }
        }
    }
    out.sort();
    out
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first place two JSON values differ: its pointer and what each side has there
/// (`a` is "the input", `b` "the output"); `None` when they are equal.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    difference_at(a, b, String::new())
}

fn difference_at(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let mut here = at.clone();
                here.push('/');
                here.push_str(&k.replace('~', "~0").replace('/', "~1"));
                match y.get(k) {
                    None => return Some(format!("{here}: only in the input")),
                    Some(w) => {
                        if let Some(d) = difference_at(v, w, here) {
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
            .find_map(|(i, (v, w))| difference_at(v, w, format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!(
            "{}: input {a} vs output {b}",
            if at.is_empty() { "/" } else { &at }
        )),
    }
}

/// The text of a snapshot, built section by section: `## title` headings, lists of
/// lines (`(none)` when empty), and pretty JSON in fenced blocks.
#[derive(Debug, Default)]
pub struct Report(String);

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Report::default()
    }

    /// A `## title` heading.
    pub fn heading(&mut self, title: impl std::fmt::Display) -> &mut Self {
        let _ = writeln!(self.0, "## {title}");
        self
    }

    /// A `label:` line, then each item as `- item`, or `(none)`.
    pub fn list<I: IntoIterator<Item = T>, T: std::fmt::Display>(
        &mut self,
        label: &str,
        items: I,
    ) -> &mut Self {
        let _ = writeln!(self.0, "{label}:");
        let mut any = false;
        for item in items {
            any = true;
            let _ = writeln!(self.0, "- {item}");
        }
        if !any {
            self.0.push_str("(none)\n");
        }
        self
    }

    /// A line of text.
    pub fn line(&mut self, text: impl std::fmt::Display) -> &mut Self {
        let _ = writeln!(self.0, "{text}");
        self
    }

    /// `value` as pretty JSON in a fenced block, then a blank line.
    pub fn json(&mut self, value: &Value) -> &mut Self {
        let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
        let _ = writeln!(self.0, "```json\n{pretty}\n```\n");
        self
    }

    /// The text.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.0)
    }
}

/// The validator of the SDK conformance schema `fixtures/conformance/<name>.schema.json`
/// (`openai-chat.request`, `anthropic.event`, …), compiled once; `None` when the set has
/// no such schema.
pub fn conformance(name: &str) -> Option<&'static jsonschema::Validator> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<&'static jsonschema::Validator>>>> =
        OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    *cache.entry(name.to_owned()).or_insert_with(|| {
        let path = fixtures_dir().join(format!("conformance/{name}.schema.json"));
        let text = std::fs::read_to_string(path).ok()?;
        let schema: Value = serde_json::from_str(&text).ok()?;
        let validator = jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("conformance/{name}: {e}"));
        // Compiled once for the whole test binary, and kept for it.
        Some(&*Box::leak(Box::new(validator)))
    })
}

/// The errors of `value` against `validator`, one line each (`<pointer>: <message>`,
/// long messages shortened to their end).
pub fn schema_errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
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

/// The number of cases a property test runs: `PROPTEST_CASES` when it is set (as
/// proptest's own default reads it), else `default` (a test whose one case is costly
/// runs fewer than proptest's 256 by default, but still follows the variable).
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_named_by_its_pointer() {
        let a = json!({"m": [{"a/b": 1}, 2], "x": true});
        assert_eq!(first_difference(&a, &a), None);
        assert_eq!(
            first_difference(&a, &json!({"m": [{"a/b": 3}, 2], "x": true})).as_deref(),
            Some("/m/0/a~1b: input 1 vs output 3")
        );
        assert_eq!(
            first_difference(&a, &json!({"m": [{"a/b": 1}, 2]})).as_deref(),
            Some("/x: only in the input")
        );
        assert_eq!(
            first_difference(&json!(1), &json!(2)).as_deref(),
            Some("/: input 1 vs output 2")
        );
    }

    #[test]
    fn a_report_has_headings_lists_and_json() {
        let text = Report::new()
            .heading("a → b")
            .list("losses", ["x", "y"])
            .list("errors", Vec::<String>::new())
            .json(&json!({"k": 1}))
            .finish();
        assert_eq!(
            text,
            "## a → b\nlosses:\n- x\n- y\nerrors:\n(none)\n```json\n{\n  \"k\": 1\n}\n```\n\n"
        );
    }

    #[test]
    fn the_walker_finds_fixtures_by_folder_and_ending() {
        let found = fixtures("request", &[".json"]);
        assert!(found.iter().any(|f| f.format == "openai-chat"));
        assert!(
            found
                .iter()
                .all(|f| f.folder == "request" && f.name.ends_with(".json"))
        );
        assert!(found.windows(2).all(|w| w[0] <= w[1]));
    }
}
