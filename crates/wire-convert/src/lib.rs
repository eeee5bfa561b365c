//! Any LLM wire format to any other, through one neutral model, with a report of
//! everything that could not be carried.
//!
//! Every format has a decoder into the [neutral model](model) and an encoder out of it:
//! `format A → neutral → format B`. Each conversion returns the converted body and a list
//! of [`Loss`]es: what was dropped, changed or moved, with the JSON pointer in the input
//! and the reason. Nothing disappears silently; [`Options::strict`] turns any loss into
//! an error.
//!
//! What you will not find here: I/O of any kind (an image URL stays a URL or becomes a
//! loss; nothing is fetched), HTTP, or streaming conversion.
//!
//! # Example
//!
//! ```
//! use wire_convert::{Format, Options, convert_request};
//!
//! let openai = r#"{"model":"gpt-4o","messages":[
//!   {"role":"system","content":"Be terse."},
//!   {"role":"user","content":"Weather in Paris?"},
//!   {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
//!     "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
//!   {"role":"tool","tool_call_id":"call_1","content":"21°C"}]}"#;
//! let out = convert_request(openai, Format::OpenaiChat, Format::Anthropic, &Options::default())?;
//! let body: serde_json::Value = serde_json::from_str(&out.value)?;
//! assert_eq!(body["system"], "Be terse.");
//! assert_eq!(body["messages"][1]["content"][0]["input"]["city"], "Paris");
//! assert_eq!(body["messages"][2]["content"][0]["tool_use_id"], "call_1");
//! // Anthropic requires `max_tokens`, which the source did not have: that is a loss.
//! assert!(out.losses.iter().any(|l| l.path == "/max_tokens"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod ctx;
pub mod ids;
pub mod model;
pub mod passes;
pub mod schema;
mod util;

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod gemini;
pub mod mcp;
pub mod mistral;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;

pub use ctx::{Ctx, ReasoningView, vendor_from_extra};
pub use ids::IdMap;
pub use wire_types::Format;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;

/// What happened to something that could not be carried as it was.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// It has no place in the target and is not in the output.
    Dropped,
    /// It is in the output, altered (an id remapped, a schema keyword rewritten,
    /// arguments wrapped, text standing in for an unknown part).
    Changed,
    /// It is in the output, elsewhere (a mid-conversation system message moved to the
    /// top).
    Moved,
}

impl LossKind {
    /// `dropped`, `changed` or `moved`.
    pub fn name(self) -> &'static str {
        match self {
            LossKind::Dropped => "dropped",
            LossKind::Changed => "changed",
            LossKind::Moved => "moved",
        }
    }
}

/// Something the target could not carry as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Loss {
    /// JSON pointer (RFC 6901) in the input; for a value built in code rather than
    /// decoded, in the neutral model's JSON.
    pub path: String,
    /// Dropped, changed or moved.
    pub kind: LossKind,
    /// What and why.
    pub detail: String,
}

impl fmt::Display for Loss {
    /// `<pointer>: <kind>: <detail>`; the pointer of the whole body is shown as `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}: {}", self.kind.name(), self.detail)
    }
}

/// What to do with reasoning that another provider produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReasoningMode {
    /// Carry its text as the target's reasoning, where the target has a place for it
    /// (signatures and encrypted payloads are never sent to another provider).
    #[default]
    Carry,
    /// Drop it (a loss each).
    Drop,
}

/// What to do with a part only its own format understands, when converting elsewhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OpaqueMode {
    /// Keep its `text` field, if it has one, as a text part (a `changed` loss); a part
    /// without text is dropped (a `dropped` loss).
    #[default]
    AsText,
    /// Drop it, a `dropped` loss.
    Drop,
}

/// Which Gemini field receives a tool's input schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GeminiSchema {
    /// `parameters`: the OpenAPI subset, rewritten with a loss per unsupported keyword.
    #[default]
    Parameters,
    /// `parametersJsonSchema`: JSON Schema as it is.
    JsonSchema,
}

/// Conversion settings. The defaults suit a gateway: carry what can be carried, report
/// the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Turn any loss into [`Error::Lossy`]. Default: off.
    pub strict: bool,
    /// Reasoning from another provider. Default: [`ReasoningMode::Carry`].
    pub reasoning: ReasoningMode,
    /// Parts only the source understands. Default: [`OpaqueMode::AsText`].
    pub opaque: OpaqueMode,
    /// Gemini schema field. Default: [`GeminiSchema::Parameters`].
    pub gemini_schema: GeminiSchema,
}

/// The result of a conversion: the value, what could not be carried, and the tool-call
/// ids that were rewritten for the target.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted<T> {
    /// The converted body.
    pub value: T,
    /// Everything that was dropped, changed or moved, in input order where possible.
    pub losses: Vec<Loss>,
    /// Tool-call ids rewritten for the target (source → target); reverse it to map the
    /// target's results back.
    pub ids: IdMap,
}

/// The result of decoding: the neutral value and what decoding could not carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<T> {
    /// The neutral value.
    pub value: T,
    /// What could not be carried into the neutral model (rare: an unknown part kept as
    /// text, say).
    pub losses: Vec<Loss>,
    map: ctx::SourceMap,
}

impl<T> Decoded<T> {
    /// Rewrites a neutral pointer (from an encoder's loss) into a pointer in the input
    /// this value was decoded from.
    pub fn source_path(&self, neutral: &str) -> String {
        ctx::to_source(&ctx::index(&self.map, &[neutral]), neutral, self.map.format)
    }
}

/// A conversion that could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not a valid body of the format it claims (not JSON, wrong shape).
    #[error(transparent)]
    Read(#[from] wire_types::Error),
    /// The input parses but breaks a rule of its format (an unknown role, a tool result
    /// without a call id, a tool without a name).
    #[error("{}: {message}", if pointer.is_empty() { "/" } else { pointer.as_str() })]
    Invalid {
        /// JSON pointer of the value at fault.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// [`Options::strict`] is on and the conversion lost something.
    #[error("strict conversion lost {} item(s); first: {}", losses.len(), losses.first().map(|l| l.to_string()).unwrap_or_default())]
    Lossy {
        /// Every loss.
        losses: Vec<Loss>,
    },
    /// The format has no such body (MCP has no chat request).
    #[error("{format} has no {what}")]
    Unsupported {
        /// The format.
        format: Format,
        /// What was asked for.
        what: &'static str,
    },
}

impl Error {
    /// An [`Error::Invalid`] at `pointer`.
    pub fn invalid(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Invalid {
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// The JSON pointer of the value at fault, when the error has one.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            Error::Read(e) => Some(e.pointer()),
            Error::Invalid { pointer, .. } => Some(pointer),
            Error::Lossy { losses } => losses.first().map(|l| l.path.as_str()),
            Error::Unsupported { .. } => None,
        }
    }
}

/// Where a body is read from.
enum Input<'a> {
    Text(&'a str),
    Value(&'a Value),
}

impl Input<'_> {
    fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        Ok(match self {
            Input::Text(t) => wire_types::from_str(t)?,
            Input::Value(v) => wire_types::from_value(v)?,
        })
    }
}

/// How an encoded body is handed back.
trait Output: Sized {
    fn write<T: Serialize>(value: &T) -> Self;
}

impl Output for String {
    fn write<T: Serialize>(value: &T) -> Self {
        // Not written into a buffer sized up front: checking that buffer is UTF-8
        // afterwards costs more than letting it grow (`cargo bench -p wire-convert`).
        wire_types::to_string(value)
    }
}

impl Output for Value {
    fn write<T: Serialize>(value: &T) -> Self {
        wire_types::to_value(value)
    }
}

/// A request's conversation items (messages, input items, contents), each as JSON text.
trait Items {
    fn items(&self) -> Vec<Box<RawValue>>;
}

macro_rules! items {
    ($($format:ident: |$r:ident| $list:expr;)*) => {$(
        impl Items for wire_types::$format::Request {
            fn items(&self) -> Vec<Box<RawValue>> {
                let $r = self;
                $list.iter().map(wire_types::to_raw).collect()
            }
        }
    )*};
}

items! {
    openai_chat: |r| r.messages;
    anthropic: |r| r.messages;
    gemini: |r| r.contents;
    ollama: |r| r.messages;
    bedrock: |r| r.messages.as_deref().unwrap_or_default();
    mistral: |r| r.messages;
    cohere: |r| r.messages;
}

impl Items for wire_types::openai_responses::Request {
    fn items(&self) -> Vec<Box<RawValue>> {
        match &self.input {
            Some(wire_types::openai_responses::Input::Items(items)) => {
                items.iter().map(wire_types::to_raw).collect()
            }
            // The string form is one user message.
            Some(wire_types::openai_responses::Input::Text(text)) => {
                vec![wire_types::to_raw(
                    &serde_json::json!({"role": "user", "content": text}),
                )]
            }
            None => Vec::new(),
        }
    }
}

/// How an encoded request is handed back: whole, or its conversation items alone.
trait RequestOutput: Sized {
    fn write_request<T: Serialize + Items>(value: &T) -> Self;
    /// Whether only the conversation items are written.
    const ITEMS_ONLY: bool = false;
}

impl<O: Output> RequestOutput for O {
    fn write_request<T: Serialize + Items>(value: &T) -> Self {
        O::write(value)
    }
}

/// The conversation items of an encoded request.
struct ItemsOut(Vec<Box<RawValue>>);

impl RequestOutput for ItemsOut {
    const ITEMS_ONLY: bool = true;

    fn write_request<T: Serialize + Items>(value: &T) -> Self {
        ItemsOut(value.items())
    }
}

macro_rules! by_format {
    ($format:expr, $what:literal, |$m:ident, $w:ident| $body:expr) => {
        match $format {
            Format::OpenaiChat => {
                use crate::openai_chat as $m;
                #[allow(unused_imports)]
                use wire_types::openai_chat as $w;
                $body
            }
            Format::OpenaiResponses => {
                use crate::openai_responses as $m;
                #[allow(unused_imports)]
                use wire_types::openai_responses as $w;
                $body
            }
            Format::Anthropic => {
                use crate::anthropic as $m;
                #[allow(unused_imports)]
                use wire_types::anthropic as $w;
                $body
            }
            Format::Gemini => {
                use crate::gemini as $m;
                #[allow(unused_imports)]
                use wire_types::gemini as $w;
                $body
            }
            Format::Ollama => {
                use crate::ollama as $m;
                #[allow(unused_imports)]
                use wire_types::ollama as $w;
                $body
            }
            Format::Bedrock => {
                use crate::bedrock as $m;
                #[allow(unused_imports)]
                use wire_types::bedrock as $w;
                $body
            }
            Format::Mistral => {
                use crate::mistral as $m;
                #[allow(unused_imports)]
                use wire_types::mistral as $w;
                $body
            }
            Format::Cohere => {
                use crate::cohere as $m;
                #[allow(unused_imports)]
                use wire_types::cohere as $w;
                $body
            }
            Format::Mcp => {
                return Err(Error::Unsupported {
                    format: Format::Mcp,
                    what: $what,
                })
            }
        }
    };
}

fn decode_request_from(
    input: Input<'_>,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Request>, Error> {
    let mut ctx = Ctx::new(from, options);
    let mut value = by_format!(from, "chat request", |m, w| {
        let typed: w::Request = input.read()?;
        w::validate_request(&typed)?;
        m::decode_request(typed, &mut ctx)?
    });
    passes::resolve_result_names(&mut value.messages);
    Ok(Decoded {
        value,
        losses: ctx.take_losses(),
        map: ctx.take_map(),
    })
}

/// [`decode_response`] for a caller that needs the value and its losses but not
/// [`Decoded::source_path`]: no source map is built, which saves a pair of pointers per
/// part. For a response kept in its own format (the agent step writes it back as the
/// follow-up's history), whose encoder losses already point where they should.
///
/// ```
/// use wire_convert::{decode_response_unmapped, Format};
///
/// let body = r#"{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
///     "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
///     "usage": {"input_tokens": 3, "output_tokens": 1}}"#;
/// let (response, losses) = decode_response_unmapped(body, Format::Anthropic)?;
/// assert_eq!(response.choices[0].message.joined_text(), "Hi");
/// assert!(losses.is_empty());
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn decode_response_unmapped(
    body: &str,
    from: Format,
) -> Result<(model::Response, Vec<Loss>), Error> {
    let decoded = decode_response_from(Input::Text(body), from, &Options::default(), true)?;
    Ok((decoded.value, decoded.losses))
}

/// Decodes a response; `unmapped`: build no source map.
fn decode_response_from(
    input: Input<'_>,
    from: Format,
    options: &Options,
    unmapped: bool,
) -> Result<Decoded<model::Response>, Error> {
    let mut ctx = Ctx::new(from, options);
    ctx.unmapped = unmapped;
    let value = by_format!(from, "chat response", |m, w| {
        let typed: w::Response = input.read()?;
        m::decode_response(typed, &mut ctx)?
    });
    Ok(Decoded {
        value,
        losses: ctx.take_losses(),
        map: ctx.take_map(),
    })
}

/// Encodes `req` as `to`. `from` is the format it was decoded from, if any: results are
/// put in call order unless it is the same format (which keeps its bytes).
fn encode_request_to<O: RequestOutput>(
    mut req: model::Request,
    to: Format,
    options: &Options,
    from: Option<Format>,
) -> Result<Converted<O>, Error> {
    let mut ctx = Ctx::new(to, options);
    ctx.source = from;
    ctx.items_only = O::ITEMS_ONLY;
    if from != Some(to) {
        passes::order_results(&mut req.messages, &mut ctx);
    }
    passes::wrap_non_object_calls(&mut req, &mut ctx);
    let ids = ids::map_request(&mut req, &mut ctx);
    let value = by_format!(to, "chat request", |m, _w| {
        let typed = m::encode_request(req, &mut ctx)?;
        O::write_request(&typed)
    });
    Ok(Converted {
        value,
        losses: ctx.take_losses(),
        ids,
    })
}

fn encode_response_to<O: Output>(
    mut resp: model::Response,
    to: Format,
    options: &Options,
) -> Result<Converted<O>, Error> {
    let mut ctx = Ctx::new(to, options);
    let ids = ids::map_response(&mut resp, &mut ctx);
    let value = by_format!(to, "chat response", |m, _w| {
        let typed = m::encode_response(resp, &mut ctx)?;
        O::write(&typed)
    });
    Ok(Converted {
        value,
        losses: ctx.take_losses(),
        ids,
    })
}

fn finish<O>(
    decode_losses: Vec<Loss>,
    map: &ctx::SourceMap,
    mut encoded: Converted<O>,
    options: &Options,
) -> Result<Converted<O>, Error> {
    let mut losses = decode_losses;
    if !encoded.losses.is_empty() {
        let paths: Vec<&str> = encoded.losses.iter().map(|l| l.path.as_str()).collect();
        let index = ctx::index(map, &paths);
        drop(paths);
        for mut loss in encoded.losses {
            loss.path = ctx::to_source(&index, &loss.path, map.format);
            losses.push(loss);
        }
    }
    if options.strict && !losses.is_empty() {
        return Err(Error::Lossy { losses });
    }
    encoded.losses = losses;
    Ok(encoded)
}

/// Writes neutral tool definitions as `format`'s tools value (the `tools` array; for
/// Bedrock the `toolConfig.tools` array), through the format's schema dialect. Loss paths
/// are `/tools/<index>/…` in the order given.
pub fn encode_tools(
    tools: Vec<model::Tool>,
    format: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let mut ctx = Ctx::new(format, options);
    let value = by_format!(format, "tools array", |m, _w| {
        let typed = m::encode_tools(tools, &mut ctx);
        Value::write(&typed)
    });
    let losses = ctx.take_losses();
    if options.strict && !losses.is_empty() {
        return Err(Error::Lossy { losses });
    }
    Ok(Converted {
        value,
        losses,
        ids: IdMap::default(),
    })
}

/// Reads a request body of format `from` into the neutral model.
pub fn decode_request(body: &str, from: Format) -> Result<Decoded<model::Request>, Error> {
    decode_request_from(Input::Text(body), from, &Options::default())
}

/// Reads a response body of format `from` into the neutral model.
pub fn decode_response(body: &str, from: Format) -> Result<Decoded<model::Response>, Error> {
    decode_response_from(Input::Text(body), from, &Options::default(), false)
}

/// Writes a neutral request as a body of format `to`. Loss paths point into the neutral
/// value's JSON (use [`Decoded::source_path`] to point into a decoded input).
pub fn encode_request(
    request: model::Request,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    encode_request_from(request, None, to, options)
}

/// [`encode_request`] for a neutral request decoded from `source` (and perhaps changed
/// since): the encoder then treats it as that format's own history where it matters — a
/// Gemini conversation written back to Gemini gets no stand-in thought signatures, and
/// tool results are left in the order they are in rather than sorted into call order.
pub fn encode_request_from(
    request: model::Request,
    source: Option<Format>,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let out = encode_request_to(request, to, options, source)?;
    if options.strict && !out.losses.is_empty() {
        return Err(Error::Lossy { losses: out.losses });
    }
    Ok(out)
}

/// [`encode_request_from`], but only the conversation items are written — `to`'s
/// messages (Responses input items, Gemini contents) — each as its own JSON text, ready
/// to be appended to a conversation held in that format. Nothing else is built, so it is
/// the cheap way to write a few messages (an agent's follow-up turn). Loss paths are as
/// in [`encode_request`]; only losses under `/messages` are reported, since nothing else
/// of the request (its model, its tools) is written.
///
/// ```
/// use wire_convert::model::{Message, Request, Role};
/// use wire_convert::{Format, Options, encode_messages_from};
///
/// let request = Request {
///     messages: vec![Message::text(Role::User, "Hello")],
///     ..Default::default()
/// };
/// let items = encode_messages_from(request, None, Format::Gemini, &Options::default())?;
/// assert_eq!(items.value.len(), 1);
/// assert_eq!(items.value[0].get(), r#"{"role":"user","parts":[{"text":"Hello"}]}"#);
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn encode_messages_from(
    request: model::Request,
    source: Option<Format>,
    to: Format,
    options: &Options,
) -> Result<Converted<Vec<Box<RawValue>>>, Error> {
    let out = encode_request_to::<ItemsOut>(request, to, options, source)?;
    if options.strict && !out.losses.is_empty() {
        return Err(Error::Lossy { losses: out.losses });
    }
    Ok(Converted {
        value: out.value.0,
        losses: out.losses,
        ids: out.ids,
    })
}

/// Writes a neutral response as a body of format `to` (see [`encode_request`]).
pub fn encode_response(
    response: model::Response,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let out = encode_response_to(response, to, options)?;
    if options.strict && !out.losses.is_empty() {
        return Err(Error::Lossy { losses: out.losses });
    }
    Ok(out)
}

/// Converts a request body from one format to another (JSON text in, JSON text out).
pub fn convert_request(
    body: &str,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    let Decoded { value, losses, map } = decode_request_from(Input::Text(body), from, options)?;
    let encoded = encode_request_to::<String>(value, to, options, Some(from))?;
    finish(losses, &map, encoded, options)
}

/// Converts a request body held as a `serde_json::Value`.
pub fn convert_request_value(
    body: &Value,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let Decoded { value, losses, map } = decode_request_from(Input::Value(body), from, options)?;
    let encoded = encode_request_to::<Value>(value, to, options, Some(from))?;
    finish(losses, &map, encoded, options)
}

/// Converts a response body from one format to another (JSON text in, JSON text out).
pub fn convert_response(
    body: &str,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    let Decoded { value, losses, map } =
        decode_response_from(Input::Text(body), from, options, false)?;
    let encoded = encode_response_to::<String>(value, to, options)?;
    finish(losses, &map, encoded, options)
}

/// Converts a response body held as a `serde_json::Value`.
pub fn convert_response_value(
    body: &Value,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let Decoded { value, losses, map } =
        decode_response_from(Input::Value(body), from, options, false)?;
    let encoded = encode_response_to::<Value>(value, to, options)?;
    finish(losses, &map, encoded, options)
}
