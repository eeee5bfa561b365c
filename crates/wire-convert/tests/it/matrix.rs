//! Every request and response fixture converted to every chat format. The snapshot of a
//! fixture holds, per target, the losses and the converted JSON. Each output must
//! validate against the target's SDK schema (where the set has one) and may not drop a
//! content string of the input without a loss that covers it.

use crate::support::{Body, classify, losses_text, read_json, schema_errors, silent_drops};
use std::fmt::Write;
use wire_convert::{Error, Format, Options, convert_request_value, convert_response_value};

#[test]
fn every_fixture_to_every_format() {
    insta::glob!(
        "../../../../fixtures",
        "*/{request,response}/*.json",
        |path| {
            let Some((from, body)) = classify(path) else {
                return;
            };
            insta::assert_snapshot!(check(path, from, body));
        }
    );
}

fn check(path: &std::path::Path, from: Format, body: Body) -> String {
    let input = read_json(path);
    let mut report = String::new();
    let mut failures = Vec::new();
    for to in Format::CHAT {
        writeln!(report, "## {from} → {to}").unwrap();
        let out = match body {
            Body::Request => convert_request_value(&input, from, to, &Options::default()),
            Body::Response => convert_response_value(&input, from, to, &Options::default()),
        };
        match out {
            Err(Error::Unsupported { .. }) => {
                writeln!(report, "(not converted yet)\n").unwrap();
            }
            Err(e) => {
                writeln!(report, "error: {e}\n").unwrap();
                failures.push(format!("{to}: {e}"));
            }
            Ok(c) => {
                report.push_str("losses:\n");
                report.push_str(&losses_text(&c.losses));
                // A same-format copy of an input that breaks its own SDK schema (a fixture
                // that deliberately carries an unknown part, say) breaks it the same way.
                let inherited = if to == from {
                    schema_errors(from, body, &input)
                } else {
                    Vec::new()
                };
                for e in schema_errors(to, body, &c.value) {
                    if !inherited.contains(&e) {
                        failures.push(format!("{to}: schema: {e}"));
                    }
                }
                for d in silent_drops(&input, &c.value, &c.losses) {
                    failures.push(format!("{to}: dropped without a loss: {d}"));
                }
                writeln!(
                    report,
                    "```json\n{}\n```\n",
                    serde_json::to_string_pretty(&c.value).unwrap()
                )
                .unwrap();
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}:\n{}",
        path.display(),
        failures.join("\n")
    );
    report
}
