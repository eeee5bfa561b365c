//! Shapes shared by several formats: content that is a string or an array of parts, and
//! tool-call arguments that are JSON text or a JSON value.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// Content that the wire allows as either a plain string or an array of parts
/// (OpenAI `content`, Anthropic `system` and `tool_result.content`, …).
#[derive(Debug, Clone, PartialEq)]
pub enum TextOrParts<T> {
    /// `"content": "…"`
    Text(String),
    /// `"content": [ … ]`
    Parts(Vec<T>),
}

impl<T> TextOrParts<T> {
    /// The parts, if this is the array form.
    pub fn parts(&self) -> Option<&[T]> {
        match self {
            TextOrParts::Text(_) => None,
            TextOrParts::Parts(p) => Some(p),
        }
    }

    /// The string, if this is the string form.
    pub fn text(&self) -> Option<&str> {
        match self {
            TextOrParts::Text(s) => Some(s),
            TextOrParts::Parts(_) => None,
        }
    }
}

impl<T: Serialize> Serialize for TextOrParts<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TextOrParts::Text(s) => serializer.serialize_str(s),
            TextOrParts::Parts(p) => p.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for TextOrParts<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Visit<T> {
            type Value = TextOrParts<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(TextOrParts::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(TextOrParts::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(p) = seq.next_element()? {
                    parts.push(p);
                }
                Ok(TextOrParts::Parts(parts))
            }
        }
        deserializer.deserialize_any(Visit(std::marker::PhantomData))
    }
}

/// Tool-call arguments: JSON text (OpenAI, Mistral, Cohere send a string that should hold
/// a JSON object, and may not) or a JSON value (compatible servers and Ollama send the
/// object itself).
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// `"arguments": "{\"city\":\"Paris\"}"`: JSON text, kept byte for byte. Not
    /// guaranteed to be valid JSON: it is model output.
    Text(String),
    /// `"arguments": {"city":"Paris"}`: any non-string JSON value, normally an object.
    Json(Value),
}

impl Arguments {
    /// The arguments as a JSON value: text is parsed (an error when it is not JSON).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        match self {
            Arguments::Text(s) => serde_json::from_str(s),
            Arguments::Json(v) => Ok(v.clone()),
        }
    }
}

impl Serialize for Arguments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Arguments::Text(s) => serializer.serialize_str(s),
            Arguments::Json(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(deserializer)? {
            Value::String(s) => Arguments::Text(s),
            other => Arguments::Json(other),
        })
    }
}

/// Tool-call arguments that the wire carries as a JSON value (Anthropic and Bedrock
/// `input`, Gemini `args`, Ollama `arguments`): parsed (`T`, what reading a body always
/// gives), or JSON text written as it is (what a converter builds from arguments that
/// arrived as text, OpenAI's `arguments` string, so they are checked but never built
/// into a tree only to be written out again).
///
/// Equality is by meaning: text equals a parsed value when it parses to that value.
///
/// ```
/// use serde_json::{Map, Value};
/// use wire_types::MaybeRaw;
///
/// let raw: MaybeRaw<Map<String, Value>> =
///     MaybeRaw::Raw(serde_json::from_str(r#"{"city":"Paris"}"#)?);
/// assert_eq!(serde_json::to_string(&raw)?, r#"{"city":"Paris"}"#);
/// let parsed: MaybeRaw<Map<String, Value>> = serde_json::from_str(r#"{"city":"Paris"}"#)?;
/// assert_eq!(raw, parsed);
/// assert_eq!(raw.into_parsed()?["city"], "Paris");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub enum MaybeRaw<T> {
    /// A parsed value.
    Parsed(T),
    /// JSON text, written as is.
    Raw(Box<serde_json::value::RawValue>),
}

impl<T: Default> Default for MaybeRaw<T> {
    fn default() -> Self {
        MaybeRaw::Parsed(T::default())
    }
}

impl<T> From<T> for MaybeRaw<T> {
    fn from(value: T) -> Self {
        MaybeRaw::Parsed(value)
    }
}

impl<T: de::DeserializeOwned> MaybeRaw<T> {
    /// The parsed value, if this is one.
    pub fn parsed(&self) -> Option<&T> {
        match self {
            MaybeRaw::Parsed(t) => Some(t),
            MaybeRaw::Raw(_) => None,
        }
    }

    /// The value, text parsed (an error when it does not parse as a `T`).
    pub fn into_parsed(self) -> Result<T, serde_json::Error> {
        match self {
            MaybeRaw::Parsed(t) => Ok(t),
            MaybeRaw::Raw(r) => serde_json::from_str(r.get()),
        }
    }
}

impl<T: Serialize> Serialize for MaybeRaw<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MaybeRaw::Parsed(t) => t.serialize(serializer),
            MaybeRaw::Raw(r) => r.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MaybeRaw<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(MaybeRaw::Parsed)
    }
}

impl<T: PartialEq + de::DeserializeOwned> PartialEq for MaybeRaw<T> {
    fn eq(&self, other: &Self) -> bool {
        let parse = |r: &serde_json::value::RawValue| serde_json::from_str::<T>(r.get()).ok();
        match (self, other) {
            (MaybeRaw::Parsed(a), MaybeRaw::Parsed(b)) => a == b,
            (MaybeRaw::Raw(a), MaybeRaw::Raw(b)) => {
                a.get() == b.get() || matches!((parse(a), parse(b)), (Some(x), Some(y)) if x == y)
            }
            (MaybeRaw::Parsed(a), MaybeRaw::Raw(b)) | (MaybeRaw::Raw(b), MaybeRaw::Parsed(a)) => {
                parse(b).is_some_and(|b| *a == b)
            }
        }
    }
}

impl MaybeRaw<Value> {
    /// Whether the value is a JSON object.
    pub fn is_object(&self) -> bool {
        match self {
            MaybeRaw::Parsed(v) => v.is_object(),
            // Raw JSON text starts at its first token.
            MaybeRaw::Raw(r) => r.get().starts_with('{'),
        }
    }
}
