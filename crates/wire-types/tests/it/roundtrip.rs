//! Every fixture (request, response, error body, stream event) reads into the typed
//! structs and writes back to JSON equal to the input; the snapshot is a summary of what
//! was read.

use crate::support::{first_difference, info, payloads, read_write, what_of};
use std::fmt::Write;

#[test]
fn every_fixture_round_trips() {
    insta::glob!(
        "../../../../fixtures",
        "*/{request,response,stream,tools-list,call,result}/*",
        |path| {
            // `fixtures/neutral/` holds wire-convert's neutral-model fixtures, not bodies.
            if path
                .parent()
                .and_then(|p| p.parent())
                .is_some_and(|p| p.ends_with("neutral"))
            {
                return;
            }
            insta::assert_snapshot!(check(path));
        }
    );
}

/// Reads, writes back, compares; returns the summary report.
fn check(path: &std::path::Path) -> String {
    let fixture = info(path);
    let mut report = String::new();
    for (label, text) in payloads(path) {
        let input: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: {label}: fixture is not JSON: {e}", fixture.name));
        let what = what_of(&fixture.folder, &fixture.name, &input);
        let (written, summary) = read_write(fixture.format, what, &text).unwrap_or_else(|e| {
            panic!(
                "{} {label}: read as {} {what}: {e}",
                fixture.name, fixture.format
            )
        });
        if let Some(diff) = first_difference(&input, &written, String::new()) {
            panic!(
                "{} {label}: written JSON differs from the input at {diff}",
                fixture.name
            );
        }
        if label == "body" {
            writeln!(report, "{} {what}", fixture.format).unwrap();
            report.push_str(&summary);
        } else {
            writeln!(report, "{label}: {summary}").unwrap();
        }
    }
    report
}
