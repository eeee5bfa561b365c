//! Shapes shared by several formats: content that is a string or an array of parts,
//! tool-call arguments that are JSON text or a JSON value, and the objects and string
//! sets that several formats spell the same way (each format module re-exports the ones
//! it uses under its own name, so `openai_chat::ImageUrl` and `cohere::ImageUrl` are one
//! type).

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};
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

/// An object sent as arguments is read like every value below a typed field: a key that
/// appears twice is an error (see [`from_str`](crate::from_str)).
impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(
            match <Value as crate::macros::Unique<'de>>::read(deserializer)? {
                Value::String(s) => Arguments::Text(s),
                other => Arguments::Json(other),
            },
        )
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

wire_struct! {
    /// An object with no modeled fields (besides its tag, in a tagged union).
    #[derive(Default)]
    pub struct NoFields {}
}

wire_struct! {
    /// An image reference: `{"url": …, "detail": …}` (OpenAI Chat, Mistral and Cohere
    /// `image_url`).
    #[derive(Default)]
    pub struct ImageUrl {
        /// An `https://` URL or a `data:<media type>;base64,<data>` URL.
        req url: String = "url",
        /// `auto`, `low` or `high`.
        opt detail: String = "detail",
    }
}

open_enum! {
    /// A `tool_choice` given as a string (OpenAI Chat and Responses).
    pub enum ToolChoiceMode {
        /// Never call a tool.
        None = "none",
        /// The model decides.
        Auto = "auto",
        /// Call at least one tool.
        Required = "required",
    }
}

open_enum! {
    /// How hard a reasoning model thinks (OpenAI Chat `reasoning_effort`, Responses
    /// `reasoning.effort`).
    pub enum ReasoningEffort {
        /// No reasoning.
        None = "none",
        /// Minimal.
        Minimal = "minimal",
        /// Low.
        Low = "low",
        /// Medium.
        Medium = "medium",
        /// High.
        High = "high",
        /// Extra high.
        Xhigh = "xhigh",
        /// Maximum.
        Max = "max",
    }
}

open_enum! {
    /// A message role of Anthropic Messages and Bedrock Converse: `user` and `assistant`
    /// (the system prompt normally travels in the top-level `system`).
    pub enum Role {
        /// A user turn (tool results go here too).
        User = "user",
        /// A model turn, replayed (tool calls and thinking go here).
        Assistant = "assistant",
        /// A system turn. Anthropic's SDK 2.14 types accept it mid-conversation
        /// (`SystemMessageParam`) and Bedrock's service model has it since 2026; the API
        /// references read put the system prompt in the top-level `system`.
        System = "system",
    }
}

wire_struct! {
    /// An OpenAI error object (Chat and Responses error bodies, the Responses `error`
    /// stream event).
    #[derive(Default)]
    pub struct ErrorDetail {
        /// Human-readable message.
        opt message: String = "message",
        /// Error type (`invalid_request_error`, `insufficient_quota`, …).
        opt kind: String = "type",
        /// The request parameter at fault.
        opt param: String = "param",
        /// Error code (a string, sometimes a number).
        opt code: Value = "code",
    }
}

wire_struct! {
    /// The log-probability of one output token (OpenAI Chat chunks, Responses `output_text`).
    pub struct Logprob {
        /// The token.
        req token: String = "token",
        /// Its log-probability (natural log, ≤ 0).
        req logprob: Number = "logprob",
        /// Its UTF-8 bytes.
        opt bytes: Vec<u8> = "bytes",
        /// The most likely tokens at this position.
        opt top_logprobs: Vec<TopLogprob> = "top_logprobs",
    }
}

wire_struct! {
    /// One of the most likely tokens at a position.
    pub struct TopLogprob {
        /// The token.
        req token: String = "token",
        /// Its log-probability.
        req logprob: Number = "logprob",
        /// Its UTF-8 bytes.
        opt bytes: Vec<u8> = "bytes",
    }
}

wire_struct! {
    /// A named JSON Schema for structured output (OpenAI Chat and Mistral
    /// `response_format.json_schema`).
    #[derive(Default)]
    pub struct JsonSchemaSpec {
        /// Schema name.
        req name: String = "name",
        /// What the output is for.
        opt description: String = "description",
        /// The JSON Schema.
        opt schema: Value = "schema",
        /// Strict mode.
        opt strict: bool = "strict",
    }
}

wire_struct! {
    /// A function definition with a strict flag (OpenAI Chat, Mistral).
    #[derive(Default)]
    pub struct StrictFunctionDef {
        /// Name: 1–64 of `[a-zA-Z0-9_-]`.
        req name: String = "name",
        /// What the function does.
        opt description: String = "description",
        /// JSON Schema of the arguments object; absent for a function without arguments.
        opt parameters: Value = "parameters",
        /// Structured-outputs strict mode (strict schema adherence).
        opt strict: bool = "strict",
    }
}

wire_struct! {
    /// A tool definition: `{"type":"function","function":{…}}`, as in OpenAI Chat (Ollama,
    /// Cohere).
    pub struct FunctionTool {
        /// `function`.
        opt kind: String = "type",
        /// The function.
        req function: FunctionDef = "function",
    }
}

wire_struct! {
    /// A function definition (Ollama, Cohere).
    #[derive(Default)]
    pub struct FunctionDef {
        /// Function name.
        req name: String = "name",
        /// What the function does.
        opt description: String = "description",
        /// JSON Schema of the arguments object. Ollama keeps only `type`, `properties`
        /// (`type`, `description`, `enum`, `items`, `anyOf`, …), `required` and `$defs`
        /// when it renders the prompt; other keywords are dropped there.
        opt parameters: Value = "parameters",
    }
}

/// The error for the message `map` at `at` whose role the format does not know (a role
/// union's `Other` arm): at `{at}/role`, naming the role as sent and the `known` ones.
pub(crate) fn unknown_role(map: &Map<String, Value>, at: &str, known: &[&str]) -> crate::Error {
    let role = map.get("role").map(|r| r.to_string()).unwrap_or_default();
    unknown_role_named(at, &role, known)
}

/// The error for a message at `at` whose role the format does not know: at `{at}/role`,
/// naming the role as sent (`role`, as JSON text) and the `known` ones.
pub(crate) fn unknown_role_named(at: &str, role: &str, known: &[&str]) -> crate::Error {
    crate::Error::new(
        crate::Category::Shape,
        format!("{at}/role"),
        format!(
            "unknown role {role} (expected one of: {})",
            known.join(", ")
        ),
    )
}
