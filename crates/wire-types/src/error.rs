//! [`Error`]: what went wrong reading a body, and where.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The input is not JSON at all (or is truncated).
    Syntax,
    /// The input is JSON, but a value does not have the shape the format requires.
    Shape,
    /// No format fits the body (from [`detect`](crate::detect())).
    Detect,
}

/// A body that could not be read, with the JSON pointer of the value at fault.
///
/// ```
/// use wire_types::openai_chat;
/// let body = r#"{"model":"m","messages":[{"role":"tool","content":"x"}]}"#;
/// let err = wire_types::from_str::<openai_chat::Request>(body).unwrap_err();
/// assert_eq!(err.pointer(), "/messages/0/tool_call_id");
/// assert_eq!(err.to_string(), "/messages/0/tool_call_id: missing field");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", Pointer(pointer))]
pub struct Error {
    category: Category,
    pointer: String,
    message: String,
    line: usize,
    column: usize,
}

struct Pointer<'a>(&'a str);

impl fmt::Display for Pointer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("(root)")
        } else {
            f.write_str(self.0)
        }
    }
}

impl Error {
    /// An error at `pointer` (an RFC 6901 JSON pointer; `""` is the whole body).
    pub fn new(category: Category, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            category,
            pointer: pointer.into(),
            message: message.into(),
            line: 0,
            column: 0,
        }
    }

    /// What kind of failure this is.
    pub fn category(&self) -> Category {
        self.category
    }

    /// The JSON pointer (RFC 6901) of the value at fault; `""` for the whole body.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What was wrong or expected there, without the location.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// 1-based line in the input where reading stopped, when read from text (0 otherwise).
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column in the input where reading stopped, when read from text (0 otherwise).
    pub fn column(&self) -> usize {
        self.column
    }

    /// The same error with `prefix` (a JSON pointer) put in front of its pointer: for a
    /// value read out of a larger document.
    pub fn within(mut self, prefix: &str) -> Self {
        self.pointer.insert_str(0, prefix);
        self
    }

    pub(crate) fn from_path(err: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let mut pointer = String::new();
        for segment in err.path().iter() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => {
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                }
                serde_path_to_error::Segment::Map { key } => push_token(&mut pointer, key),
                serde_path_to_error::Segment::Enum { .. }
                | serde_path_to_error::Segment::Unknown => {}
            }
        }
        let inner = err.into_inner();
        Self::from_json(inner, pointer)
    }

    fn from_json(inner: serde_json::Error, mut pointer: String) -> Self {
        let (line, column) = (inner.line(), inner.column());
        let category = if inner.is_data() {
            Category::Shape
        } else {
            Category::Syntax
        };
        let mut message = inner.to_string();
        let suffix = format!(" at line {line} column {column}");
        if message.ends_with(&suffix) {
            message.truncate(message.len() - suffix.len());
        }
        // `missing field `name`` names a child that is not there: point at it.
        for lead in ["missing field `", "duplicate field `"] {
            if let Some(rest) = message.strip_prefix(lead) {
                if let Some(name) = rest.strip_suffix('`') {
                    push_token(&mut pointer, name);
                    message = lead.trim_end_matches(" `").to_owned();
                }
                break;
            }
        }
        Error {
            category,
            pointer,
            message,
            line,
            column,
        }
    }
}

/// Appends one reference token to a JSON pointer, escaped per RFC 6901.
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Reads `T` from JSON text. On failure the error names the JSON pointer of the value at
/// fault: the body is read a second time with path tracking, so the common case pays
/// nothing for it.
pub fn from_str<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, Error> {
    match serde_json::from_str(s) {
        Ok(v) => Ok(v),
        Err(first) => {
            let mut de = serde_json::Deserializer::from_str(s);
            match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Err(err) => Err(Error::from_path(err)),
                // Cannot happen (same input, same reader), but never panic on it.
                Ok(_) => Err(Error::from_json(first, String::new())),
            }
        }
    }
}

/// Reads `T` from JSON bytes (see [`from_str`]).
pub fn from_slice<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(first) => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Err(err) => Err(Error::from_path(err)),
                Ok(_) => Err(Error::from_json(first, String::new())),
            }
        }
    }
}

/// Reads `T` from a parsed JSON value (see [`from_str`]).
pub fn from_value<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, Error> {
    match T::deserialize(value) {
        Ok(v) => Ok(v),
        Err(first) => match serde_path_to_error::deserialize::<_, T>(value) {
            Err(err) => Err(Error::from_path(err)),
            Ok(_) => Err(Error::from_json(first, String::new())),
        },
    }
}

/// Writes a value as compact JSON text.
pub fn to_string<T: serde::Serialize>(value: &T) -> String {
    // Serializing these types to a `Vec` cannot fail: every map key is a string and no
    // custom `Serialize` returns an error.
    serde_json::to_string(value).unwrap_or_default()
}

/// Writes a value as JSON text held by a [`serde_json::value::RawValue`] (for a value
/// that is handed on as text, not inspected).
pub fn to_raw<T: serde::Serialize>(value: &T) -> Box<serde_json::value::RawValue> {
    // As in `to_string`: cannot fail for these types.
    serde_json::value::to_raw_value(value).unwrap_or_default()
}

/// Writes a value as a `serde_json::Value`.
pub fn to_value<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
