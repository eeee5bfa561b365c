//! [`Codec`]: what every chat format implements, and [`codec`], the one place a
//! [`Format`] is turned into its implementation.
//!
//! A format's folder (`anthropic/`, `gemini/`, …) implements [`Codec`] on a unit struct
//! in its `mod.rs`: the wire types it reads and writes, and its decoders and encoders.
//! [`Dyn`] is the same surface, object-safe, implemented once for every [`Codec`]: it
//! reads the wire types from text or a `Value` and writes them back, so the entry points
//! in `api.rs` hold no per-format code.

use crate::passes::response::Required;
use crate::stream::{EventDecoder, EventEncoder};
use crate::{Ctx, Error, Format, model};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// A chat format: its wire types, and the decoders and encoders between them and the
/// neutral model.
pub(crate) trait Codec: Sync + 'static {
    /// The request body.
    type Request: Serialize + DeserializeOwned;
    /// The response body.
    type Response: Serialize + DeserializeOwned;
    /// The tools value (`tools` array; Bedrock's `toolConfig`).
    type Tools: Serialize;

    /// The format's rules the wire types leave open (roles, block kinds in a place).
    fn check_request(request: &Self::Request) -> Result<(), wire_types::Error>;
    /// Wire request → neutral request. Losses point into the wire request.
    fn decode_request(request: Self::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error>;
    /// Neutral request → wire request. Losses point into the neutral request.
    fn encode_request(request: model::Request, ctx: &mut Ctx<'_>) -> Result<Self::Request, Error>;
    /// Wire response → neutral response.
    fn decode_response(
        response: Self::Response,
        ctx: &mut Ctx<'_>,
    ) -> Result<model::Response, Error>;
    /// Neutral response → wire response.
    fn encode_response(
        response: model::Response,
        ctx: &mut Ctx<'_>,
    ) -> Result<Self::Response, Error>;
    /// Neutral tool definitions → the format's tools value.
    fn encode_tools(tools: Vec<model::Tool>, ctx: &mut Ctx<'_>) -> Self::Tools;
    /// The request member that holds the conversation items (`messages`; Responses
    /// `input`, Gemini `contents`).
    const ITEMS: &'static str = "messages";
    /// The request member that holds what [`encode_tools`](Codec::encode_tools) writes
    /// (`tools`; Bedrock `toolConfig`).
    const TOOLS: &'static str = "tools";

    /// A request body around bare conversation items (a JSON array) and a bare tools
    /// value (`Value::Null` for none): the items under [`ITEMS`](Codec::ITEMS), the tools
    /// under [`TOOLS`](Codec::TOOLS), and whatever else the format's body requires
    /// (`model`), which the caller throws away.
    fn bare_request(items: Value, tools: Value) -> Value {
        Value::Object(bare_body::<Self>(items, tools))
    }

    /// What the format's response requires, filled by
    /// [`passes::response`](crate::passes::response) before
    /// [`encode_response`](Codec::encode_response) where the source lacks it.
    const RESPONSE_REQUIRES: Required = Required::NONE;
    /// The conversation items of a request (messages, input items, contents), each as
    /// its JSON text.
    fn items(request: &Self::Request) -> Vec<Box<RawValue>>;

    /// A decoder of the format's stream events.
    fn stream_decoder() -> Box<dyn EventDecoder>;

    /// An encoder of the format's stream events.
    fn stream_encoder() -> Box<dyn EventEncoder>;
}

/// The body [`Codec::bare_request`] writes by default, as an object a format may add
/// to: an empty `model`, the items under [`Codec::ITEMS`], the tools (unless
/// `Value::Null`) under [`Codec::TOOLS`].
pub(crate) fn bare_body<C: Codec + ?Sized>(
    items: Value,
    tools: Value,
) -> serde_json::Map<String, Value> {
    let mut body = serde_json::Map::new();
    body.insert("model".into(), Value::String(String::new()));
    body.insert(C::ITEMS.into(), items);
    if !tools.is_null() {
        body.insert(C::TOOLS.into(), tools);
    }
    body
}

/// Conversation items, each as its JSON text (what [`Codec::items`] returns).
pub(crate) fn raw_items<T: Serialize>(items: &[T]) -> Vec<Box<RawValue>> {
    items.iter().map(wire_types::to_raw).collect()
}

/// What of [`Codec`] every format writes the same way, written once: the wire types
/// (`w::Request`, `w::Response`, and `Option<Vec<w::Tool>>` for the tools unless
/// `tools: <type>` names another), and the methods, each forwarding to the function of
/// the same name in the format's `decode.rs`, `encode.rs`, `response.rs`, `tools.rs` and
/// `stream/` (the folder layout every format shares), and `check_request` to its wire
/// types' `validate_request` (`w`, the format's `wire_types` module). Used inside each
/// format's `impl Codec`.
macro_rules! forward_to_folder {
    () => {
        $crate::codec::forward_to_folder!(tools: Option<Vec<w::Tool>>);
    };
    (tools: $tools:ty) => {
        type Request = w::Request;
        type Response = w::Response;
        type Tools = $tools;

        fn check_request(request: &Self::Request) -> Result<(), wire_types::Error> {
            w::validate_request(request)
        }

        fn decode_request(
            request: Self::Request,
            ctx: &mut $crate::Ctx<'_>,
        ) -> Result<$crate::model::Request, $crate::Error> {
            decode::decode_request(request, ctx)
        }

        fn encode_request(
            request: $crate::model::Request,
            ctx: &mut $crate::Ctx<'_>,
        ) -> Result<Self::Request, $crate::Error> {
            encode::encode_request(request, ctx)
        }

        fn decode_response(
            response: Self::Response,
            ctx: &mut $crate::Ctx<'_>,
        ) -> Result<$crate::model::Response, $crate::Error> {
            response::decode_response(response, ctx)
        }

        fn encode_response(
            response: $crate::model::Response,
            ctx: &mut $crate::Ctx<'_>,
        ) -> Result<Self::Response, $crate::Error> {
            response::encode_response(response, ctx)
        }

        fn encode_tools(tools: Vec<$crate::model::Tool>, ctx: &mut $crate::Ctx<'_>) -> Self::Tools {
            tools::encode_tools(tools, ctx)
        }

        fn stream_decoder() -> Box<dyn $crate::stream::EventDecoder> {
            Box::new(stream::Decoder::default())
        }

        fn stream_encoder() -> Box<dyn $crate::stream::EventEncoder> {
            Box::new(stream::Encoder::default())
        }
    };
}
pub(crate) use forward_to_folder;

/// Where a body is read from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Input<'a> {
    Text(&'a str),
    Value(&'a Value),
}

impl Input<'_> {
    fn read<T: DeserializeOwned>(self) -> Result<T, Error> {
        Ok(match self {
            Input::Text(t) => wire_types::from_str(t)?,
            Input::Value(v) => wire_types::from_value(v)?,
        })
    }
}

/// How an encoded body is handed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out {
    /// JSON text.
    Text,
    /// A `serde_json::Value`.
    Value,
    /// A request's conversation items only, each as JSON text.
    Items,
}

/// An encoded body, as [`Out`] asked.
#[derive(Debug)]
pub(crate) enum Written {
    Text(String),
    Value(Value),
    Items(Vec<Box<RawValue>>),
}

/// Writes `value` as `out` asks. Writing a wire value can fail only where it holds JSON
/// text that a `serde_json::Value` cannot (a number out of range, say): an error, never
/// a silent `null`.
fn write<T: Serialize>(value: &T, out: Out) -> Result<Written, Error> {
    Ok(match out {
        // Not written into a buffer sized up front: checking that buffer is UTF-8
        // afterwards costs more than letting it grow (`cargo bench -p wire-convert`).
        Out::Text | Out::Items => Written::Text(
            serde_json::to_string(value).map_err(|e| Error::invalid("", e.to_string()))?,
        ),
        Out::Value => Written::Value(
            serde_json::to_value(value).map_err(|e| Error::invalid("", e.to_string()))?,
        ),
    })
}

/// [`Codec`], object-safe: bodies read from an [`Input`] and written as an [`Out`].
pub(crate) trait Dyn: Sync {
    fn decode_request(&self, input: Input<'_>, ctx: &mut Ctx<'_>) -> Result<model::Request, Error>;
    fn encode_request(
        &self,
        request: model::Request,
        out: Out,
        ctx: &mut Ctx<'_>,
    ) -> Result<Written, Error>;
    fn decode_response(
        &self,
        input: Input<'_>,
        ctx: &mut Ctx<'_>,
    ) -> Result<model::Response, Error>;
    fn encode_response(
        &self,
        response: model::Response,
        out: Out,
        ctx: &mut Ctx<'_>,
    ) -> Result<Written, Error>;
    fn encode_tools(&self, tools: Vec<model::Tool>, ctx: &mut Ctx<'_>) -> Result<Value, Error>;
    /// Decodes bare conversation items and a bare tools value as [`Codec::bare_request`]
    /// wraps them.
    fn decode_bare(
        &self,
        items: Value,
        tools: Value,
        ctx: &mut Ctx<'_>,
    ) -> Result<model::Request, Error>;
    /// [`Codec::ITEMS`] and [`Codec::TOOLS`].
    fn members(&self) -> (&'static str, &'static str);
    fn response_requires(&self) -> Required;
    fn stream_decoder(&self) -> Box<dyn EventDecoder>;
    fn stream_encoder(&self) -> Box<dyn EventEncoder>;
}

impl<C: Codec> Dyn for C {
    fn decode_request(&self, input: Input<'_>, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
        let wire: C::Request = input.read()?;
        C::check_request(&wire)?;
        C::decode_request(wire, ctx)
    }

    fn encode_request(
        &self,
        request: model::Request,
        out: Out,
        ctx: &mut Ctx<'_>,
    ) -> Result<Written, Error> {
        let wire = C::encode_request(request, ctx)?;
        match out {
            Out::Items => Ok(Written::Items(C::items(&wire))),
            _ => write(&wire, out),
        }
    }

    fn decode_response(
        &self,
        input: Input<'_>,
        ctx: &mut Ctx<'_>,
    ) -> Result<model::Response, Error> {
        C::decode_response(input.read()?, ctx)
    }

    fn encode_response(
        &self,
        response: model::Response,
        out: Out,
        ctx: &mut Ctx<'_>,
    ) -> Result<Written, Error> {
        write(&C::encode_response(response, ctx)?, out)
    }

    fn encode_tools(&self, tools: Vec<model::Tool>, ctx: &mut Ctx<'_>) -> Result<Value, Error> {
        match write(&C::encode_tools(tools, ctx), Out::Value)? {
            Written::Value(v) => Ok(v),
            _ => Err(Error::invalid("", "tools written as text")),
        }
    }

    fn decode_bare(
        &self,
        items: Value,
        tools: Value,
        ctx: &mut Ctx<'_>,
    ) -> Result<model::Request, Error> {
        let wire: C::Request = wire_types::from_value(&C::bare_request(items, tools))?;
        C::check_request(&wire)?;
        C::decode_request(wire, ctx)
    }

    fn members(&self) -> (&'static str, &'static str) {
        (C::ITEMS, C::TOOLS)
    }

    fn response_requires(&self) -> Required {
        C::RESPONSE_REQUIRES
    }

    fn stream_decoder(&self) -> Box<dyn EventDecoder> {
        C::stream_decoder()
    }

    fn stream_encoder(&self) -> Box<dyn EventEncoder> {
        C::stream_encoder()
    }
}

/// The implementation of `format`; `what` names what was asked for, for the error when
/// the format has none (MCP has no chat bodies).
pub(crate) fn codec(format: Format, what: &'static str) -> Result<&'static dyn Dyn, Error> {
    use crate::*;
    Ok(match format {
        Format::OpenaiChat => &openai_chat::OpenaiChat,
        Format::OpenaiResponses => &openai_responses::OpenaiResponses,
        Format::Anthropic => &anthropic::Anthropic,
        Format::Gemini => &gemini::Gemini,
        Format::Ollama => &ollama::Ollama,
        Format::Bedrock => &bedrock::Bedrock,
        Format::Mistral => &mistral::Mistral,
        Format::Cohere => &cohere::Cohere,
        Format::Mcp => return Err(Error::Unsupported { format, what }),
    })
}
