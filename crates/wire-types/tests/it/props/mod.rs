//! Property tests: arbitrary values of each format's main types survive write → read
//! unchanged (`read_after_write_is_identity`). One module per format; shared strategies
//! here.
//!
//! The strategies build canonical values only: an `Other` arm never holds a known tag or
//! spelling (reading maps those to their variant), and `extra` keys never collide with a
//! modeled field (prefix `x_`).

use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use wire_types::Extra;

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod gemini;
pub mod mcp;
pub mod mistral;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;

/// Any short printable string, including quotes, escapes and non-ASCII.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _.,!?-]{0,24}",
        "\\PC{0,12}",
        Just("{\"a\":1}".to_owned()),
        Just("line\nbreak \"quoted\" \\ tab\t".to_owned()),
    ]
}

/// An identifier-like string.
pub fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9_-]{0,15}"
}

/// A JSON number in either form (integer or float).
pub fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        (0u64..1000).prop_map(Number::from),
        (-1000i64..0).prop_map(Number::from),
        (0.0f64..2.0).prop_map(|f| Number::from_f64(f).unwrap()),
    ]
}

/// Any JSON value, nested a little.
pub fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(Value::Number),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((ident(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A JSON object.
pub fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec((ident(), json()), 0..4).prop_map(|kv| kv.into_iter().collect())
}

/// Unknown fields: keys prefixed `x_`, so they never collide with a modeled field.
pub fn extra() -> impl Strategy<Value = Extra> {
    prop_oneof![
        3 => Just(Extra::new()),
        1 => prop::collection::vec((ident(), json()), 1..3).prop_map(|kv| {
            Extra::from(kv.into_iter().map(|(k, v)| (format!("x_{k}"), v)).collect::<Map<_, _>>())
        }),
    ]
}

/// An unknown union member: an object whose `tag` field holds a value not in `known`.
pub fn other_tagged(
    tag: &'static str,
    known: &'static [&'static str],
) -> impl Strategy<Value = Map<String, Value>> {
    (ident(), object()).prop_filter_map("known tag", move |(t, mut m)| {
        let t = format!("x_{t}");
        if known.contains(&t.as_str()) {
            return None;
        }
        m.insert(tag.to_owned(), Value::String(t));
        Some(m)
    })
}

/// An unknown spelling of an open string set.
pub fn other_str(known: &'static [&'static str]) -> impl Strategy<Value = String> {
    ident().prop_filter("known spelling", move |s| !known.contains(&s.as_str()))
}

/// `Some` or `None` of a strategy.
pub fn maybe<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

/// Writes `value`, reads it back, and checks it is unchanged.
pub fn assert_identity<T>(value: &T) -> Result<(), TestCaseError>
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = wire_types::to_string(value);
    let back: T =
        wire_types::from_str(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
    prop_assert_eq!(&back, value, "written as {}", text);
    Ok(())
}
