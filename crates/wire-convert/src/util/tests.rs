//! The helpers' own tests.

use super::args::scan;
use super::time::unix_of_rfc3339;
use super::*;
use crate::model::Arguments;
use crate::{Format, LossKind, Options, convert_request_value};
use serde_json::value::RawValue;
use serde_json::{Map, json};
use std::collections::HashMap;
use wire_types::MaybeRaw;

/// An OpenAI Chat user message with a part toolwire does not know, and no `text`.
fn unknown_part_body() -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What does this show?"},
        {"type": "input_hologram", "input_hologram": {"id": "holo_1", "frames": 24}}
    ]}]})
}

#[test]
fn a_part_without_text_is_kept_as_its_json_text_under_as_text() {
    let body = unknown_part_body();
    let out = convert_request_value(
        &body,
        Format::OpenaiChat,
        Format::Anthropic,
        &Options::default(),
    )
    .unwrap();
    let part = &out.value["messages"][0]["content"][1];
    assert_eq!(part["type"], "text");
    let text = part["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        body["messages"][0]["content"][1]
    );
    let loss = &out.losses[0];
    assert_eq!(loss.path, "/messages/0/content/1");
    assert_eq!(
        (loss.kind, loss.code),
        (LossKind::Changed, LossCode::PartAsText)
    );
    assert!(
        loss.detail.ends_with("it is sent as its JSON text"),
        "{}",
        loss.detail
    );
}

#[test]
fn a_part_without_text_is_dropped_under_drop() {
    let options = Options {
        opaque: OpaqueMode::Drop,
        ..Options::default()
    };
    let out = convert_request_value(
        &unknown_part_body(),
        Format::OpenaiChat,
        Format::Anthropic,
        &options,
    )
    .unwrap();
    assert_eq!(
        out.value["messages"][0]["content"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let loss = &out.losses[0];
    assert_eq!(
        (loss.kind, loss.code),
        (LossKind::Dropped, LossCode::PartUnsupported)
    );
}

#[test]
fn a_part_kept_as_json_text_loses_its_signatures_and_encrypted_payloads() {
    let value = json!({"type": "mystery", "signature": "c2ln", "result": [
        {"title": "A page", "encrypted_content": "ZW5j", "nested": {"thoughtSignature": "dA=="}}
    ]});
    let (clean, removed) = without_secrets(&value);
    assert!(removed);
    assert_eq!(
        clean,
        json!({"type": "mystery", "result": [{"title": "A page", "nested": {}}]})
    );
    let (same, removed) = without_secrets(&clean);
    assert!(!removed);
    assert_eq!(same, clean);
}

#[test]
fn pointers_are_parent_key_and_index() {
    let mut buf = String::from("left over");
    for (index, want) in [
        (0, "/m/content/0"),
        (9, "/m/content/9"),
        (10, "/m/content/10"),
        (12345, "/m/content/12345"),
        (u32::MAX as usize, "/m/content/4294967295"),
    ] {
        set_path(&mut buf, "/m", "content", index);
        assert_eq!(buf, want);
    }
    set_path(&mut buf, "", "messages", 3);
    assert_eq!(buf, "/messages/3");
}

#[test]
fn small_maps_answer_as_a_hash_map_does_short_or_long() {
    let keys: Vec<String> = (0..40).map(|i| format!("k{}", i % 23)).collect();
    for first in [false, true] {
        for n in [0, 3, 8, 9, 40] {
            let mut small = SmallMap::new();
            let mut want = HashMap::new();
            for (v, k) in keys[..n].iter().enumerate() {
                small.insert(k.as_str(), v, first);
                if first {
                    want.entry(k.as_str()).or_insert(v);
                } else {
                    want.insert(k.as_str(), v);
                }
            }
            for k in keys.iter().chain([&"absent".to_owned()]) {
                assert_eq!(
                    small.get(k),
                    want.get(k.as_str()).copied(),
                    "{n} {first} {k}"
                );
            }
            small.clear();
            assert_eq!(small.get("k1"), None);
        }
    }
}

#[test]
fn ascii_sets_hold_word_bytes_and_their_extras_only() {
    let set = AsciiSet::alnum_and("_-.:é");
    for b in 0..=255u8 {
        let want = b.is_ascii_alphanumeric() || b"_-.:".contains(&b);
        assert_eq!(set.has(b), want, "{b}");
    }
}

#[test]
fn item_paths_are_what_set_path_writes() {
    let mut paths = ItemPaths::new(String::from("left over"), "/messages/12", "content");
    let mut want = String::new();
    for j in [0, 7, 10, 3, 123, 1] {
        set_path(&mut want, "/messages/12", "content", j);
        assert_eq!(paths.at(j), want);
    }
    let mut paths = ItemPaths::new(paths.into_buf(), "", "messages");
    assert_eq!(paths.at(4), "/messages/4");
}

#[test]
fn indices_are_written_as_decimal_like_display() {
    let mut buf = String::new();
    for n in (0..20_000).chain([99_999, 100_000, usize::MAX - 1, usize::MAX]) {
        buf.clear();
        push_index(&mut buf, n);
        assert_eq!(buf, n.to_string());
    }
}

#[test]
fn gaps_are_whitespace_outside_strings_only() {
    for (json, gap) in [
        (r#"{"a":"b c","d":[1,2]}"#, false),
        (r#"{"a":"x\" y","b":1}"#, false),
        (r#"{"a":"x\\","b": 1}"#, true),
        (r#"{"a": 1}"#, true),
        ("{\n}", true),
        (r#"{"a":"unterminated \"#, false),
        (r#"{"a":"q\"","b" :1}"#, true),
        (
            r#"{"a":"more than sixteen bytes, with spaces \" and more","b":1}"#,
            false,
        ),
        (
            r#"{"a":"more than sixteen bytes, with spaces \" and more", "b":1}"#,
            true,
        ),
        ("", false),
    ] {
        assert_eq!(scan(json).gap, gap, "{json}");
    }
}

/// `scan` says what serde_json itself says when it builds a `Value` from
/// well-formed JSON text (the oracle), on the cases a syntax check lets through.
#[test]
fn value_readable_agrees_with_serde_json() {
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let cases = [
        deep(127),
        deep(128),
        deep(129),
        format!("{{\"a\":{}}}", deep(127)),
        r#"{"n":1e308}"#.to_owned(),
        r#"{"n":1e400}"#.to_owned(),
        r#"{"n":-1E+400}"#.to_owned(),
        r#"{"n":1e-400}"#.to_owned(),
        format!("{{\"n\":{}}}", "9".repeat(308)),
        format!("{{\"n\":{}}}", "9".repeat(400)),
        format!("{{\"n\":{}.5}}", "9".repeat(310)),
        r#"{"s":"\ud83d\ude00"}"#.to_owned(),
        r#"{"s":"\ud800"}"#.to_owned(),
        r#"{"s":"\ud800x"}"#.to_owned(),
        r#"{"s":"\ude00"}"#.to_owned(),
        r#"{"s":"\ud800\ud800"}"#.to_owned(),
        r#"{"s":"\ud800\n"}"#.to_owned(),
        r#"{"s":"\\ud800"}"#.to_owned(),
        r#"{"s":"[[[[\"]"}"#.to_owned(),
        r#"{"s":"\u00e9 ok"}"#.to_owned(),
        r#"{"s":"a long string of more than sixteen bytes \ud800"}"#.to_owned(),
        r#"{"s":"a long string of more than sixteen bytes \ud83d\ude00"}"#.to_owned(),
        r#"{"s":"a long string of more than sixteen bytes \" [[[","n":1e999}"#.to_owned(),
    ];
    for json in &cases {
        assert!(serde_json::from_str::<&RawValue>(json).is_ok(), "{json}");
        assert_eq!(
            scan(json).readable,
            serde_json::from_str::<Value>(json).is_ok(),
            "{json}"
        );
    }
    // And text that is not readable so is not passed on as an object.
    assert!(raw_object(Arguments::Text(r#"{"s":"\ud800"}"#.into())).is_err());
}

#[test]
fn object_text_goes_on_compacted_and_anything_else_comes_back() {
    let raw = |t: &str| raw_object(Arguments::Text(t.into()));
    // Whitespace between tokens goes; inside strings (escaped quotes too) it stays.
    assert_eq!(
        raw(" {\"city\": \"San Francisco\",\n \"q\": \"a \\\" b\", \"n\": [1, 2]} ")
            .unwrap()
            .get(),
        r#"{"city":"San Francisco","q":"a \" b","n":[1,2]}"#
    );
    assert_eq!(raw("{}").unwrap().get(), "{}");
    // Not JSON, even though compacting would make it so; not an object; empty.
    for bad in [
        r#"{"a": 1 2}"#,
        r#"{"a": tr ue}"#,
        r#"{"a": - 1}"#,
        r#"{"a": 1 .5}"#,
        "[1, 2]",
        "\"x\"",
        "",
        "{",
    ] {
        assert_eq!(raw(bad).unwrap_err(), Arguments::Text(bad.into()), "{bad}");
    }
    // A value is left to the caller.
    let value = Arguments::Value(serde_json::json!({"a": 1}));
    assert_eq!(raw_object(value.clone()).unwrap_err(), value);
}

#[test]
fn wire_arguments_read_as_values_or_text() {
    let parsed: MaybeRaw<Map<String, Value>> =
        MaybeRaw::Parsed(serde_json::json!({"a": 1}).as_object().unwrap().clone());
    assert_eq!(
        args_of(parsed),
        Arguments::Value(serde_json::json!({"a": 1}))
    );
    let text: MaybeRaw<Value> = MaybeRaw::Raw(RawValue::from_string("{\"a\":1}".into()).unwrap());
    assert!(matches!(args_of(text), Arguments::Text(t) if t == "{\"a\":1}"));
}

#[test]
fn rfc3339_reads_and_writes_unix_seconds() {
    // Checked with `date -u -d @…`.
    for (text, secs) in [
        ("1970-01-01T00:00:00Z", 0),
        ("2023-08-04T19:22:45.499127Z", 1_691_176_965),
        ("2023-08-04T21:22:45+02:00", 1_691_176_965),
        ("2024-02-29T23:59:59Z", 1_709_251_199),
        ("2000-03-01T00:00:00Z", 951_868_800),
    ] {
        assert_eq!(unix_of_rfc3339(text), Some(secs), "{text}");
    }
    assert_eq!(rfc3339_of_unix(1_691_176_965), "2023-08-04T19:22:45Z");
    assert_eq!(rfc3339_of_unix(1_709_251_199), "2024-02-29T23:59:59Z");
    assert_eq!(rfc3339_of_unix(0), "1970-01-01T00:00:00Z");
    for bad in [
        "",
        "2023-08-04",
        "2023-08-04T19:22:45",
        "2023-13-04T19:22:45Z",
        "2023-08-04T19:22:45.Z",
        "1969-12-31T23:59:59Z",
        "2023-08-04T19:22:45+0200",
        "２023-08-04T19:22:45Z",
    ] {
        assert_eq!(unix_of_rfc3339(bad), None, "{bad}");
    }
}
