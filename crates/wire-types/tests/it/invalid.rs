//! `fixtures/<format>/invalid/*.json`: bodies that must be refused, each wrapped as
//! `{"kind": "request"|"response"|…, "pointer": "/…", "why": "…", "body": …}` (or
//! `"body_text": "…"` for text that is not JSON). The read must fail with exactly that
//! pointer; the snapshot is the error as displayed.

use crate::support::{What, info, read_write};
use serde_json::Value;

#[test]
fn every_invalid_fixture_names_its_pointer() {
    insta::glob!("../../../../fixtures", "*/invalid/*.json", |path| {
        insta::assert_snapshot!(check(path));
    });
}

fn check(path: &std::path::Path) -> String {
    let fixture = info(path);
    let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let what = What::from_name(case["kind"].as_str().expect("`kind` names a kind"));
    let pointer = case["pointer"].as_str().expect("`pointer` is a string");
    let why = case["why"].as_str().expect("`why` says what is wrong");
    let text = match case.get("body_text") {
        Some(t) => t.as_str().unwrap().to_owned(),
        None => serde_json::to_string(&case["body"]).unwrap(),
    };
    match read_write(fixture.format, what, &text) {
        Ok(_) => panic!(
            "{}: read succeeded, expected an error at {pointer} ({why})",
            fixture.name
        ),
        Err(err) => {
            assert_eq!(
                err.pointer(),
                pointer,
                "{}: wrong pointer in `{err}` ({why})",
                fixture.name
            );
            format!("{} {what}: {why}\nerror: {err}\n", fixture.format)
        }
    }
}
