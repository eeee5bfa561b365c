//! Bodies a hostile or careless client sends: one reading of every body (duplicate keys
//! refused on the text path), a leading byte order mark, `-0`, and a Responses item whose
//! `role` and `type` disagree. The duplicate-key cases of each format are `invalid/`
//! fixtures (`duplicate-*.json`); these are the rest.

use serde_json::{Value, json};
use wire_types::openai_responses::{Item, Request};

#[test]
fn a_duplicate_key_is_refused_by_value_from_str_with_its_pointer() {
    let err = wire_types::value_from_str(r#"{"a":[{"b":1},{"c":1,"c":2}]}"#).unwrap_err();
    assert_eq!(err.to_string(), "/a/1/c: duplicate field");
    // serde_json's own reader keeps the last: the reason `value_from_str` exists.
    let last: Value = serde_json::from_str(r#"{"c":1,"c":2}"#).unwrap();
    assert_eq!(last, json!({"c": 2}));
}

#[test]
fn text_and_value_paths_accept_the_same_bodies() {
    // What `value_from_str` accepts, `from_value` reads as `from_str` does.
    let body = r#"{"model":"m","input":[{"role":"user","content":"hi","x_a":{"k":1}}]}"#;
    let typed: Request = wire_types::from_str(body).unwrap();
    let value = wire_types::value_from_str(body).unwrap();
    assert_eq!(wire_types::from_value::<Request>(&value).unwrap(), typed);
    // And text with a duplicate is refused by both entries to the text path.
    let dup = r#"{"model":"m","input":[{"role":"user","content":"hi","x_a":{"k":1,"k":2}}]}"#;
    assert_eq!(
        wire_types::from_str::<Request>(dup).unwrap_err().pointer(),
        "/input/0/x_a/k"
    );
    assert_eq!(
        wire_types::value_from_str(dup).unwrap_err().pointer(),
        "/input/0/x_a/k"
    );
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let body = "\u{feff}{\"model\":\"m\",\"input\":\"hi\"}";
    let r: Request = wire_types::from_str(body).unwrap();
    assert_eq!(r.model.as_deref(), Some("m"));
    let r: Request = wire_types::from_slice(body.as_bytes()).unwrap();
    assert_eq!(r.model.as_deref(), Some("m"));
    assert_eq!(
        wire_types::value_from_slice(body.as_bytes()).unwrap()["input"],
        "hi"
    );
    // Only one, and only at the start.
    assert!(wire_types::from_str::<Request>("\u{feff}\u{feff}{}").is_err());
}

#[test]
fn negative_zero_is_written_as_it_was_sent() {
    let body = r#"{"model":"m","input":"x","temperature":-0,"metadata":{"n":-0,"f":-0.5}}"#;
    let r: Request = wire_types::from_str(body).unwrap();
    assert_eq!(wire_types::to_string(&r), body);
    // Tool-call arguments sent as an object (Ollama) keep it too.
    let ollama = r#"{"model":"m","messages":[{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"x":-0}}}]}]}"#;
    let o: wire_types::ollama::Request = wire_types::from_str(ollama).unwrap();
    assert_eq!(wire_types::to_string(&o), ollama);
    assert!(wire_types::to_string_pretty(&o).contains("\"x\": -0\n"));
}

#[test]
fn a_role_before_a_non_message_type_is_read_by_its_type() {
    let item =
        r#"{"role":"user","content":"x","type":"function_call_output","call_id":"c","output":"o"}"#;
    let read: Item = wire_types::from_str(item).unwrap();
    let Item::FunctionCallOutput(out) = &read else {
        panic!("read as {read:?}")
    };
    assert_eq!(out.call_id.as_deref(), Some("c"));
    assert_eq!(out.extra.get("role"), Some(&json!("user")));
    assert_eq!(out.extra.get("content"), Some(&json!("x")));
    // Written with its `type` first, and read back the same.
    let text = wire_types::to_string(&read);
    assert!(
        text.starts_with(r#"{"type":"function_call_output""#),
        "{text}"
    );
    assert_eq!(wire_types::from_str::<Item>(&text).unwrap(), read);
    // An unknown type after a role is kept whole, and written type first.
    let other: Item =
        wire_types::from_str(r#"{"role":"user","content":"x","type":"x_new"}"#).unwrap();
    assert_eq!(other.tag(), "x_new");
    let text = wire_types::to_string(&other);
    assert!(text.starts_with(r#"{"type":"x_new""#), "{text}");
    assert_eq!(wire_types::from_str::<Item>(&text).unwrap(), other);
}

#[test]
fn a_null_type_is_a_message_in_either_order() {
    for body in [
        r#"{"type":null,"role":"user","content":"x"}"#,
        r#"{"role":"user","content":"x","type":null}"#,
    ] {
        let item: Item = wire_types::from_str(body).unwrap();
        assert_eq!(item.tag(), "message", "{body}");
        let text = wire_types::to_string(&item);
        assert_eq!(wire_types::from_str::<Item>(&text).unwrap(), item, "{text}");
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            serde_json::from_str::<Value>(body).unwrap()
        );
    }
}

/// Found by `cargo xtask fuzz roundtrip`: an unknown member holding an 84-digit integer
/// (read into a `Value` as the nearest `f64`) is written as a number that reads back as
/// the same one, so the body read, written and read again is the same. (The library's
/// own build has serde_json's `float_roundtrip` for this: checked by xtask's
/// `the_library_build_reads_numbers_back_exactly`, since the tests' jsonschema turns it
/// on here in any case.)
#[test]
fn a_huge_number_in_an_unknown_field_reads_back_the_same() {
    let body = std::fs::read_to_string(
        crate::support::fixtures_dir().join("hostile/huge-integer.cohere.response.json"),
    )
    .unwrap();
    let first: wire_types::cohere::Response = wire_types::from_str(&body).unwrap();
    let text = wire_types::to_string(&first);
    let second: wire_types::cohere::Response = wire_types::from_str(&text).unwrap();
    assert_eq!(first, second);
    assert_eq!(text, wire_types::to_string(&second));
    let n = first
        .extra
        .get("usaGe")
        .and_then(|u| u.pointer("/biuled_units/input_tokens"));
    assert_eq!(
        n.and_then(Value::as_f64),
        Some(8.888888888888888e83),
        "{text}"
    );
}

/// An `Extra` filled by hand with a known field's name (or a union's tag) is never written:
/// the body holds each key once, with its typed value, and reads back.
#[test]
fn extra_never_writes_a_known_key_or_the_tag_again() {
    use wire_types::anthropic::{ContentBlock, TextBlock};
    let mut r: wire_types::openai_chat::Response = wire_types::from_str(
        r#"{"id":"a","object":"chat.completion","created":1,"model":"m","choices":[]}"#,
    )
    .unwrap();
    r.extra.insert("id".into(), json!([null]));
    r.extra.insert("model".into(), json!(5));
    r.extra.insert("mine".into(), json!(true));
    let text = wire_types::to_string(&r);
    assert_eq!(
        text,
        r#"{"id":"a","object":"chat.completion","created":1,"model":"m","choices":[],"mine":true}"#
    );
    let back: wire_types::openai_chat::Response = wire_types::from_str(&text).unwrap();
    assert_eq!(back.id.as_deref(), Some("a"));

    let mut block = TextBlock {
        text: "hi".into(),
        ..Default::default()
    };
    block.extra.insert("type".into(), json!("image"));
    block.extra.insert("text".into(), json!(1));
    let text = wire_types::to_string(&ContentBlock::Text(block));
    assert_eq!(text, r#"{"type":"text","text":"hi"}"#);
}
