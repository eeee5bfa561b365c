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

/// A leading UTF-8 byte order mark, which some Windows tools write before JSON text. RFC
/// 8259 lets a parser ignore it; serde_json does not, and would say only "expected value".
const BOM: &str = "\u{feff}";

/// Reads `T` from JSON text. On failure the error names the JSON pointer of the value at
/// fault: the body is read a second time with path tracking, so the common case pays
/// nothing for it.
///
/// A leading byte order mark is skipped. An object with the same key twice, anywhere in
/// the body, is an error (`/messages/0/role: duplicate field`): serde would otherwise
/// keep one of them, and readers would disagree about which.
///
/// ```
/// use wire_types::openai_chat::Request;
/// let body = r#"{"model":"m","messages":[{"role":"user","role":"system","content":"x"}]}"#;
/// let err = wire_types::from_str::<Request>(body).unwrap_err();
/// assert_eq!(err.to_string(), "/messages/0/role: duplicate field");
/// let bom = "\u{feff}{\"model\":\"m\",\"messages\":[]}";
/// assert_eq!(wire_types::from_str::<Request>(bom).unwrap().model, "m");
/// ```
pub fn from_str<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, Error> {
    let s = s.strip_prefix(BOM).unwrap_or(s);
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
    let bytes = bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes);
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
///
/// A `serde_json::Value` cannot hold an object with the same key twice: whatever parsed
/// it kept one of them (serde_json keeps the last). So this path never sees a duplicate;
/// to refuse one, parse the text with [`value_from_str`] (or read the type straight from
/// the text with [`from_str`]), which agree on what they accept.
pub fn from_value<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, Error> {
    match T::deserialize(value) {
        Ok(v) => Ok(v),
        Err(first) => match serde_path_to_error::deserialize::<_, T>(value) {
            Err(err) => Err(Error::from_path(err)),
            Ok(_) => Err(Error::from_json(first, String::new())),
        },
    }
}

/// A `serde_json::Value` read with the rules of [`from_str`].
struct Tree(serde_json::Value);

impl<'de> serde::Deserialize<'de> for Tree {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <serde_json::Value as crate::macros::Unique<'de>>::read(d).map(Tree)
    }
}

/// Parses JSON text into a `serde_json::Value` by the rules of [`from_str`]: a leading
/// byte order mark skipped, an object with the same key twice refused with its pointer.
/// (`from_str::<Value>` would use serde_json's own reader, which keeps the last of two
/// equal keys.) For a body whose format is not known yet: [`detect`](crate::detect()) it,
/// then read it with [`from_value`].
///
/// ```
/// let err = wire_types::value_from_str(r#"{"a":{"b":1,"b":2}}"#).unwrap_err();
/// assert_eq!(err.to_string(), "/a/b: duplicate field");
/// assert_eq!(wire_types::value_from_str("\u{feff}[1]").unwrap(), serde_json::json!([1]));
/// ```
pub fn value_from_str(s: &str) -> Result<serde_json::Value, Error> {
    from_str::<Tree>(s).map(|t| t.0)
}

/// [`value_from_str`] for bytes.
pub fn value_from_slice(bytes: &[u8]) -> Result<serde_json::Value, Error> {
    from_slice::<Tree>(bytes).map(|t| t.0)
}

/// serde_json's formatter, but a negative zero is written `-0`: serde_json reads the
/// integer `-0` as the float `-0.0` (it has no integer negative zero), and would write it
/// back as `-0.0`. Written `-0`, the text a client sent comes back as sent; `-0.0` (the
/// same number) is written `-0` too.
struct NegZero<F>(F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for NegZero<F> {
    #[inline]
    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        if value == 0.0 && value.is_sign_negative() {
            w.write_all(b"-0")
        } else {
            self.0.write_f64(w, value)
        }
    }
    #[inline]
    fn write_f32<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        value: f32,
    ) -> std::io::Result<()> {
        self.write_f64(w, f64::from(value))
    }
    // The rest as `F` (indentation for the pretty one).
    #[inline]
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    #[inline]
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    #[inline]
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    #[inline]
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    #[inline]
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    #[inline]
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    #[inline]
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    #[inline]
    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_key(w)
    }
    #[inline]
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    #[inline]
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

fn write_with<T: serde::Serialize, F: serde_json::ser::Formatter>(
    value: &T,
    formatter: F,
) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, NegZero(formatter));
    // Serializing these types cannot fail: every map key is a string and no custom
    // `Serialize` returns an error. serde_json writes UTF-8 only.
    if value.serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Writes a value as compact JSON text (a negative zero as `-0`, see the crate docs).
pub fn to_string<T: serde::Serialize>(value: &T) -> String {
    write_with(value, serde_json::ser::CompactFormatter)
}

/// Writes a value as indented JSON text (two spaces), like [`to_string`].
pub fn to_string_pretty<T: serde::Serialize>(value: &T) -> String {
    write_with(value, serde_json::ser::PrettyFormatter::new())
}

/// Writes a value as JSON text held by a [`serde_json::value::RawValue`] (for a value
/// that is handed on as text, not inspected).
///
/// Written by serde_json itself (a negative zero as `-0.0`, which reads back as the same
/// number): `RawValue` can only be built from other text by parsing that text again, which
/// the agent step's follow-up items cannot afford.
pub fn to_raw<T: serde::Serialize>(value: &T) -> Box<serde_json::value::RawValue> {
    // As in `to_string`: cannot fail for these types.
    serde_json::value::to_raw_value(value).unwrap_or_default()
}

/// Writes a value as a `serde_json::Value`.
pub fn to_value<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
