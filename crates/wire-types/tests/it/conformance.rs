//! Every request fixture, as written back by wire-types, validates against its format's
//! official schema in `fixtures/conformance/` (generated from the providers' SDKs; see
//! its README). The SDK types are sometimes stricter than the API: a fixture that does
//! not validate as it stands is listed in [`KNOWN`] with the reason, and must fail for
//! exactly that reason (the same instance paths) after write-back.
//!
//! Mistral and Cohere have no official schema in the set: their requests are not checked
//! here (noted in `fixtures/conformance/README.md`).

use crate::support::{What, fixtures_dir, read_write};
use serde_json::Value;
use std::collections::BTreeMap;
use wire_types::{Format, Kind};

/// Fixtures that do not validate against the SDK schema, with the instance paths of every
/// error they must give and why that is not a wire-types fault.
const KNOWN: &[(&str, &[&str], &str)] = &[
    (
        "openai-responses/request/docs-functions.json",
        &["/tools/0"],
        "the API reference example leaves out `strict` on the function tool; the SDK's \
         FunctionToolParam requires the key (nullable), the API defaults it",
    ),
    (
        "openai-responses/request/docs-image-input.json",
        &["/input"],
        "the API reference example leaves out `detail` on `input_image` (reported at `/input`, \
         the anyOf over string and item array); the SDK's ResponseInputImageParam requires it, \
         the API defaults it to `auto`",
    ),
    (
        "openai-chat/request/rule-unknown-part-and-developer.json",
        &["/messages/1"],
        "deliberately carries a content part type Chat Completions does not have          (`x_video_url`), to show it is kept whole and converted to text elsewhere",
    ),
];

/// The schema file of a request of `format`, if the set has one.
pub fn request_schema(format: Format) -> Option<&'static str> {
    match format {
        Format::Mistral | Format::Cohere | Format::Mcp => None,
        _ => Some("request"),
    }
}

/// Loads `fixtures/conformance/<format>.<kind>.schema.json` into a validator.
pub fn validator(format: Format, kind: &str) -> jsonschema::Validator {
    let path = fixtures_dir().join(format!("conformance/{format}.{kind}.schema.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The instance paths of every schema error, each with the start of its message.
pub fn errors(validator: &jsonschema::Validator, value: &Value) -> BTreeMap<String, String> {
    validator
        .iter_errors(value)
        .map(|e| {
            // anyOf/oneOf messages start with the whole instance: keep the end, which says why.
            let full = e.to_string();
            let n = full.chars().count();
            let msg: String = if n > 160 {
                format!("…{}", full.chars().skip(n - 120).collect::<String>())
            } else {
                full
            };
            (e.instance_path().to_string(), msg)
        })
        .collect()
}

#[test]
fn every_request_fixture_validates_against_its_sdk_schema() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for format in Format::CHAT {
        let Some(kind) = request_schema(format) else {
            continue;
        };
        let dir = fixtures_dir().join(format.name()).join("request");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let validator = validator(format, kind);
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files {
            let rel = format!(
                "{}/request/{}",
                format,
                path.file_name().unwrap().to_string_lossy()
            );
            let text = std::fs::read_to_string(&path).unwrap();
            let (written, _) = read_write(format, What::Chat(Kind::Request), &text)
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            let errs = errors(&validator, &written);
            checked += 1;
            match KNOWN.iter().find(|(f, _, _)| *f == rel) {
                Some((_, paths, why)) => {
                    let got: Vec<&str> = errs.keys().map(|k| k.as_str()).collect();
                    if got != *paths {
                        failures.push(format!("{rel}: listed as failing at {paths:?} ({why}), but fails at {got:?}: {errs:#?}"));
                    }
                }
                None if !errs.is_empty() => failures.push(format!("{rel}: {errs:#?}")),
                None => {}
            }
        }
    }
    assert!(checked > 0);
    assert!(
        failures.is_empty(),
        "schema failures:\n{}",
        failures.join("\n")
    );
}
