//! Every request and response fixture converted to every other chat format. The snapshot
//! of a fixture holds, per target, the losses and the converted JSON. Each output must
//! validate against the target's SDK schema (every chat format has one), read back as a body
//! of the target format, and may not drop a content string of the input without a loss
//! that covers it. (`A → A` is checked exactly, byte for byte, in `same_format`.)

use crate::support::{Body, classify, loss_lines, read_json, schema_errors, silent_drops};
use test_support::Report;
use wire_convert::{
    Format, Options, convert_request_value, convert_response_value, decode_request_value,
    decode_response_value,
};

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
    let mut report = Report::new();
    let mut failures = Vec::new();
    for to in Format::CHAT.into_iter().filter(|&to| to != from) {
        report.heading(format_args!("{from} → {to}"));
        let options = Options::default();
        let out = match body {
            Body::Request => convert_request_value(&input, from, to, &options),
            Body::Response => convert_response_value(&input, from, to, &options),
        };
        match out {
            Err(e) => {
                report.line(format_args!("error: {e}\n"));
                failures.push(format!("{to}: {e}"));
            }
            Ok(c) => {
                report.list("losses", loss_lines(&c.losses));
                for e in schema_errors(to, body, &c.value) {
                    failures.push(format!("{to}: schema: {e}"));
                }
                // What toolwire writes, toolwire reads back as the target format.
                let back = match body {
                    Body::Request => decode_request_value(&c.value, to, &options).map(|_| ()),
                    Body::Response => decode_response_value(&c.value, to, &options).map(|_| ()),
                };
                if let Err(e) = back {
                    failures.push(format!("{to}: the output does not read back: {e}"));
                }
                for d in silent_drops(&input, &c.value, &c.losses) {
                    failures.push(format!("{to}: dropped without a loss: {d}"));
                }
                report.json(&c.value);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}:\n{}",
        path.display(),
        failures.join("\n")
    );
    report.finish()
}
