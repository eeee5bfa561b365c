//! The strategies and checks every format's property tests share.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use wire_types::{Extra, TextOrParts};

/// The `*_read_after_write_is_identity` properties of a format: one `#[test]` per
/// `name => strategy`, each writing an arbitrary value, reading it back and checking it is
/// unchanged ([`assert_identity`]).
macro_rules! identity_properties {
    ($($name:ident => $strategy:expr),* $(,)?) => {
        proptest::proptest! {
            $(
                #[test]
                fn $name(value in $strategy) {
                    crate::props::assert_identity(&value)?;
                }
            )*
        }
    };
}

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

/// A value of an open string set: one of its `known` spellings, or an unknown one (read
/// back into the `Other` arm).
pub fn open<T: From<String> + std::fmt::Debug>(
    known: &'static [&'static str],
) -> impl Strategy<Value = T> {
    prop_oneof![
        3 => prop::sample::select(known).prop_map(|s| T::from(s.to_owned())),
        1 => other_str(known).prop_map(T::from),
    ]
}

/// Content as a string or as an array of up to three `part`s.
pub fn text_or_parts<T: std::fmt::Debug>(
    part: impl Strategy<Value = T>,
) -> impl Strategy<Value = TextOrParts<T>> {
    prop_oneof![
        text().prop_map(TextOrParts::Text),
        prop::collection::vec(part, 0..4).prop_map(TextOrParts::Parts),
    ]
}

/// The conversation of a chat request: a model id, up to five messages and maybe up to
/// two tools.
pub fn conversation<M: std::fmt::Debug, T: std::fmt::Debug>(
    message: impl Strategy<Value = M>,
    tool: impl Strategy<Value = T>,
) -> impl Strategy<Value = (String, Vec<M>, Option<Vec<T>>)> {
    (
        ident(),
        prop::collection::vec(message, 0..6),
        maybe(prop::collection::vec(tool, 0..3)),
    )
}

/// A `{"type":"function","function":{…}}` tool of Ollama and Cohere (one type,
/// `wire_types::ollama::Tool` = `wire_types::cohere::Tool`).
pub fn function_tool() -> impl Strategy<Value = wire_types::ollama::Tool> {
    (
        ident(),
        maybe(text()),
        maybe(object().prop_map(Value::Object)),
    )
        .prop_map(|(name, description, parameters)| wire_types::ollama::Tool {
            kind: Some("function".to_owned()),
            function: wire_types::ollama::FunctionDef {
                name,
                description,
                parameters,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        })
}

/// An `{"url", "detail"?}` image reference (OpenAI Chat, Mistral and Cohere `image_url`:
/// one type).
pub fn image_url() -> impl Strategy<Value = wire_types::openai_chat::ImageUrl> {
    (
        text(),
        maybe(prop_oneof![Just("low"), Just("high"), Just("auto")].prop_map(str::to_owned)),
    )
        .prop_map(|(url, detail)| wire_types::openai_chat::ImageUrl {
            url,
            detail,
            extra: Extra::new(),
        })
}
