//! The entry points: decode, encode and convert requests and responses (from text or a
//! `serde_json::Value`, to text or a `Value`), conversation items alone, tools arrays,
//! schemas, and MCP's tool shapes.
//!
//! Every conversion runs the same pipeline: read the wire types → decode into the
//! neutral model → resolve result names → (encoding) put results in call order → wrap
//! the calls of non-object tools → (responses) fill what the target requires and the
//! source lacks → map tool-call ids → encode → rewrite loss pointers into the input.

use crate::codec::{Input, Out, Written, codec};
use crate::ctx::{self, Ctx, SourceMap};
use crate::{Error, Format, IdMap, Loss, NameMap, Options, ids, mcp, model, passes, schema};
use serde_json::Value;
use serde_json::value::RawValue;

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
    /// Tool names rewritten for the target (source → target); pass it in
    /// [`Options::names`] when converting the target's response or stream back, so
    /// its calls carry the source's names.
    pub names: NameMap,
}

/// The result of decoding: the neutral value and what decoding could not carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<T> {
    /// The neutral value.
    pub value: T,
    /// What could not be carried into the neutral model (rare: an unknown part kept as
    /// text, say).
    pub losses: Vec<Loss>,
    map: SourceMap,
    /// Where the input sat in the body it was decoded as, for bare items and tools.
    bare: Option<Bare>,
}

impl<T> Decoded<T> {
    /// Rewrites a neutral pointer (from an encoder's loss) into a pointer in the input
    /// this value was decoded from. Without a source map ([`Options::source_map`] off)
    /// the pointer comes back as it is.
    pub fn source_path(&self, neutral: &str) -> String {
        let path = ctx::to_source(&ctx::index(&self.map, &[neutral]), neutral, self.map.format);
        match self.bare {
            Some(bare) => bare.rebase(&path),
            None => path,
        }
    }
}

fn decode_request_from(
    input: Input<'_>,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Request>, Error> {
    let codec = codec(from, "chat request")?;
    let mut ctx = Ctx::new(from, options);
    if let Input::Text(text) = input {
        ctx.expect_body(text.len());
    }
    let mut value = codec.decode_request(input, &mut ctx)?;
    value.source = Some(from);
    passes::resolve_result_names(&mut value.messages);
    Ok(Decoded {
        value,
        losses: ctx.take_losses(),
        map: ctx.take_map(),
        bare: None,
    })
}

fn decode_response_from(
    input: Input<'_>,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Response>, Error> {
    let codec = codec(from, "chat response")?;
    let mut ctx = Ctx::new(from, options);
    if let Input::Text(text) = input {
        ctx.expect_body(text.len());
    }
    let mut value = codec.decode_response(input, &mut ctx)?;
    value.source = Some(from);
    passes::names::restore_response(&mut value, &options.names);
    Ok(Decoded {
        value,
        losses: ctx.take_losses(),
        map: ctx.take_map(),
        bare: None,
    })
}

/// Encodes `req` as `to`, as `out` asks. Results are put in call order unless the request
/// was decoded from `to` itself (which keeps its bytes).
fn encode_request_as(
    mut req: model::Request,
    to: Format,
    options: &Options,
    out: Out,
) -> Result<Converted<Written>, Error> {
    let codec = codec(to, "chat request")?;
    let mut ctx = Ctx::new(to, options);
    ctx.source = req.source;
    ctx.items_only = out == Out::Items;
    if req.source != Some(to) {
        passes::order_results(&mut req.messages, &mut ctx);
    }
    passes::wrap_non_object_calls(&mut req, &mut ctx);
    passes::builtin::lift_request_fields(&mut req, to);
    if to != Format::OpenaiChat && req.settings.stream_usage == Some(false) {
        ctx.dropped(
            crate::LossCode::StreamChanged,
            "/settings/stream_usage",
            format!("{to} streams always report their usage"),
        );
    }
    let names = passes::names::map_request(&mut req, &mut ctx);
    let ids = ids::map_request(&mut req, &mut ctx);
    let value = codec.encode_request(req, out, &mut ctx)?;
    Ok(Converted {
        value,
        losses: ctx.take_losses(),
        ids,
        names,
    })
}

fn encode_response_as(
    mut resp: model::Response,
    to: Format,
    options: &Options,
    out: Out,
) -> Result<Converted<Written>, Error> {
    let codec = codec(to, "chat response")?;
    let mut ctx = Ctx::new(to, options);
    ctx.source = resp.source;
    passes::builtin::grounding_as_text(&mut resp, &mut ctx);
    let moved = passes::builtin::hosted_parts(&mut resp, &mut ctx);
    let before = ctx.losses().len();
    passes::response::fill_required(&mut resp, codec.response_requires(), &mut ctx);
    passes::names::restore_response(&mut resp, &options.names);
    let ids = ids::map_response(&mut resp, &mut ctx);
    let value = codec.encode_response(resp, out, &mut ctx)?;
    let mut losses = ctx.take_losses();
    if let Some(encoded) = losses.get_mut(before..) {
        passes::builtin::renumber(encoded, &moved);
    }
    Ok(Converted {
        value,
        losses,
        ids,
        names: NameMap::default(),
    })
}

/// A conversion's end: the decoder's losses, then the encoder's with their pointers
/// rewritten into the input; with [`Options::strict`], any loss is an error.
fn finish(
    decode_losses: Vec<Loss>,
    map: &SourceMap,
    mut encoded: Converted<Written>,
    options: &Options,
) -> Result<Converted<Written>, Error> {
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
    encoded.losses = losses;
    strict(encoded, options)
}

fn strict<T>(out: Converted<T>, options: &Options) -> Result<Converted<T>, Error> {
    if options.strict && !out.losses.is_empty() {
        return Err(Error::Lossy { losses: out.losses });
    }
    Ok(out)
}

/// The output each caller asked for with its [`Out`]; another is a bug in this crate,
/// reported as an error rather than a panic.
fn mismatch() -> Error {
    Error::invalid(
        "",
        "internal error: an encoder wrote another output than was asked",
    )
}

impl Converted<Written> {
    fn text(self) -> Result<Converted<String>, Error> {
        self.try_map(|w| match w {
            Written::Text(t) => Ok(t),
            _ => Err(mismatch()),
        })
    }

    fn value(self) -> Result<Converted<Value>, Error> {
        self.try_map(|w| match w {
            Written::Value(v) => Ok(v),
            _ => Err(mismatch()),
        })
    }

    fn items(self) -> Result<Converted<Vec<Box<RawValue>>>, Error> {
        self.try_map(|w| match w {
            Written::Items(i) => Ok(i),
            _ => Err(mismatch()),
        })
    }
}

impl<T> Converted<T> {
    fn try_map<U>(self, f: impl FnOnce(T) -> Result<U, Error>) -> Result<Converted<U>, Error> {
        Ok(Converted {
            value: f(self.value)?,
            losses: self.losses,
            ids: self.ids,
            names: self.names,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Requests and responses

/// Reads a request body of format `from` into the neutral model.
///
/// ```
/// use wire_convert::{Format, Options, decode_request};
///
/// let body = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}"#;
/// let request = decode_request(body, Format::OpenaiChat, &Options::default())?.value;
/// assert_eq!(request.messages[0].joined_text(), "Hi");
/// assert_eq!(request.source, Some(Format::OpenaiChat));
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn decode_request(
    body: &str,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Request>, Error> {
    decode_request_from(Input::Text(body), from, options)
}

/// [`decode_request`] of a body held as a `serde_json::Value`.
pub fn decode_request_value(
    body: &Value,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Request>, Error> {
    decode_request_from(Input::Value(body), from, options)
}

/// Reads a response body of format `from` into the neutral model.
///
/// ```
/// use wire_convert::{Format, Options, decode_response};
///
/// let body = r#"{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
///     "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
///     "usage": {"input_tokens": 3, "output_tokens": 1}}"#;
/// let mut options = Options::default();
/// options.source_map = false; // written back to Anthropic only: no source pointers needed
/// let decoded = decode_response(body, Format::Anthropic, &options)?;
/// assert_eq!(decoded.value.choices[0].message.joined_text(), "Hi");
/// assert!(decoded.losses.is_empty());
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn decode_response(
    body: &str,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Response>, Error> {
    decode_response_from(Input::Text(body), from, options)
}

/// [`decode_response`] of a body held as a `serde_json::Value`.
pub fn decode_response_value(
    body: &Value,
    from: Format,
    options: &Options,
) -> Result<Decoded<model::Response>, Error> {
    decode_response_from(Input::Value(body), from, options)
}

/// Writes a neutral request as a body of format `to` (JSON text).
///
/// The request's [`source`](model::Request::source) says which format it was decoded
/// from: the encoder then treats it as that format's own history where it matters (a
/// Gemini conversation written back to Gemini gets no stand-in thought signatures, and
/// its tool results stay in the order they are in). Loss paths point into the neutral
/// value's JSON (use [`Decoded::source_path`] to point into a decoded input).
pub fn encode_request(
    request: model::Request,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    strict(
        encode_request_as(request, to, options, Out::Text)?.text()?,
        options,
    )
}

/// [`encode_request`], written as a `serde_json::Value`.
pub fn encode_request_value(
    request: model::Request,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    strict(
        encode_request_as(request, to, options, Out::Value)?.value()?,
        options,
    )
}

/// [`encode_request`], but only the conversation items are written — `to`'s messages
/// (Responses input items, Gemini contents) — each as its own JSON text, ready to be
/// appended to a conversation held in that format. Nothing else is built, so it is the
/// cheap way to write a few messages (an agent's follow-up turn). Only losses under
/// `/messages` are reported, since nothing else of the request is written.
///
/// ```
/// use wire_convert::model::{Message, Request, Role};
/// use wire_convert::{Format, Options, encode_messages};
///
/// let request = Request {
///     messages: vec![Message::text(Role::User, "Hello")],
///     ..Default::default()
/// };
/// let items = encode_messages(request, Format::Gemini, &Options::default())?;
/// assert_eq!(items.value.len(), 1);
/// assert_eq!(items.value[0].get(), r#"{"role":"user","parts":[{"text":"Hello"}]}"#);
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn encode_messages(
    request: model::Request,
    to: Format,
    options: &Options,
) -> Result<Converted<Vec<Box<RawValue>>>, Error> {
    strict(
        encode_request_as(request, to, options, Out::Items)?.items()?,
        options,
    )
}

/// Writes a neutral response as a body of format `to` (see [`encode_request`]).
pub fn encode_response(
    response: model::Response,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    strict(
        encode_response_as(response, to, options, Out::Text)?.text()?,
        options,
    )
}

/// [`encode_response`], written as a `serde_json::Value`.
pub fn encode_response_value(
    response: model::Response,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    strict(
        encode_response_as(response, to, options, Out::Value)?.value()?,
        options,
    )
}

/// Converts a request body from one format to another (JSON text in, JSON text out).
/// Loss paths point into the input.
pub fn convert_request(
    body: &str,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    let Decoded {
        value, losses, map, ..
    } = decode_request_from(Input::Text(body), from, options)?;
    let encoded = encode_request_as(value, to, options, Out::Text)?;
    finish(losses, &map, encoded, options)?.text()
}

/// [`convert_request`] of a body held as a `serde_json::Value`.
pub fn convert_request_value(
    body: &Value,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let Decoded {
        value, losses, map, ..
    } = decode_request_from(Input::Value(body), from, options)?;
    let encoded = encode_request_as(value, to, options, Out::Value)?;
    finish(losses, &map, encoded, options)?.value()
}

/// Converts a response body from one format to another (JSON text in, JSON text out).
pub fn convert_response(
    body: &str,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    let Decoded {
        value, losses, map, ..
    } = decode_response_from(Input::Text(body), from, options)?;
    let encoded = encode_response_as(value, to, options, Out::Text)?;
    finish(losses, &map, encoded, options)?.text()
}

/// [`convert_response`] of a body held as a `serde_json::Value`.
pub fn convert_response_value(
    body: &Value,
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    let Decoded {
        value, losses, map, ..
    } = decode_response_from(Input::Value(body), from, options)?;
    let encoded = encode_response_as(value, to, options, Out::Value)?;
    finish(losses, &map, encoded, options)?.value()
}

// ---------------------------------------------------------------------------------------
// Bare conversations and tools

/// Where bare items or tools sat in the request body they were decoded as: pointers into
/// that body are rewritten into pointers into the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bare {
    /// The body member that held the input (`/messages`, `/tools`, …).
    member: &'static str,
    /// The input was one item, put in an array of one.
    single: bool,
}

impl Bare {
    /// `/messages/2/content` → `/2/content` (an array), `/messages/0/content` →
    /// `/content` (one message); a pointer elsewhere in the body is kept as it is.
    fn rebase(self, pointer: &str) -> String {
        let Some(rest) = pointer
            .strip_prefix('/')
            .and_then(|p| p.strip_prefix(self.member))
            .filter(|r| r.is_empty() || r.starts_with('/'))
        else {
            return pointer.to_owned();
        };
        if self.single {
            let rest = rest.strip_prefix("/0").unwrap_or(rest);
            return rest.to_owned();
        }
        rest.to_owned()
    }

    fn losses(self, losses: Vec<Loss>) -> Vec<Loss> {
        losses
            .into_iter()
            .map(|mut l| {
                l.path = self.rebase(&l.path);
                l
            })
            .collect()
    }

    fn error(self, e: Error) -> Error {
        match e {
            Error::Read(r) => Error::Read(wire_types::Error::new(
                r.category(),
                self.rebase(r.pointer()),
                r.message(),
            )),
            Error::Invalid { pointer, message } => Error::Invalid {
                pointer: self.rebase(&pointer),
                message,
            },
            other => other,
        }
    }
}

/// Decodes `items` (an array) and `tools` as the bare request of `from`.
fn decode_bare(
    from: Format,
    items: Value,
    tools: Value,
    bare: impl FnOnce(&'static str, &'static str) -> Bare,
    options: &Options,
) -> Result<(model::Request, Vec<Loss>, SourceMap, Bare), Error> {
    let codec = codec(from, "conversation")?;
    let (items_member, tools_member) = codec.members();
    let bare = bare(items_member, tools_member);
    let mut ctx = Ctx::new(from, options);
    let mut request = codec
        .decode_bare(items, tools, &mut ctx)
        .map_err(|e| bare.error(e))?;
    request.source = Some(from);
    passes::resolve_result_names(&mut request.messages);
    let losses = bare.losses(ctx.take_losses());
    Ok((request, losses, ctx.take_map(), bare))
}

/// Reads a bare conversation of format `from` — one message, or an array of them, as
/// they appear in that format's request (OpenAI Chat, Anthropic, Ollama, Bedrock, Mistral
/// and Cohere `messages`; Responses `input` items; Gemini `contents`) — into neutral
/// messages. Loss and error pointers point into the input: `/2/content/0` in an array,
/// `/content/0` in a single message. [`encode_messages`] writes them back.
///
/// ```
/// use wire_convert::model::{Request, Role};
/// use wire_convert::{Format, Options, decode_messages, encode_messages};
///
/// let one = r#"{"role":"user","content":"Hi"}"#;
/// let messages = decode_messages(one, Format::OpenaiChat, &Options::default())?.value;
/// assert_eq!(messages[0].role, Role::User);
/// assert_eq!(messages[0].joined_text(), "Hi");
///
/// let request = Request { messages, ..Default::default() };
/// let back = encode_messages(request, Format::OpenaiChat, &Options::default())?;
/// assert_eq!(back.value[0].get(), one);
///
/// let err = decode_messages(r#"[{"role":"tool","content":"x"}]"#, Format::OpenaiChat,
///     &Options::default()).unwrap_err();
/// assert_eq!(err.to_string(), "/0/tool_call_id: missing field");
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn decode_messages(
    input: &str,
    from: Format,
    options: &Options,
) -> Result<Decoded<Vec<model::Message>>, Error> {
    decode_messages_owned(wire_types::value_from_str(input)?, from, options)
}

/// [`decode_messages`], from a `serde_json::Value`.
pub fn decode_messages_value(
    input: &Value,
    from: Format,
    options: &Options,
) -> Result<Decoded<Vec<model::Message>>, Error> {
    decode_messages_owned(input.clone(), from, options)
}

fn decode_messages_owned(
    input: Value,
    from: Format,
    options: &Options,
) -> Result<Decoded<Vec<model::Message>>, Error> {
    let (items, single) = match input {
        Value::Array(_) => (input, false),
        Value::Object(_) => (Value::Array(vec![input]), true),
        _ => {
            return Err(Error::invalid(
                "",
                "expected a message (an object) or an array of messages",
            ));
        }
    };
    let (request, losses, map, bare) = decode_bare(
        from,
        items,
        Value::Null,
        |member, _| Bare { member, single },
        options,
    )?;
    Ok(Decoded {
        value: request.messages,
        losses,
        map,
        bare: Some(bare),
    })
}

/// Reads a bare tools value of format `from` — what [`encode_tools`] writes: the `tools`
/// array (Bedrock: the `toolConfig` object) — into neutral tool definitions. An OpenAI
/// Chat tool may leave out `"type": "function"` (`[{"function": {…}}]`); it is written
/// back with it. Loss and error pointers point into the input (`/1/function/name`).
///
/// ```
/// use wire_convert::model::Tool;
/// use wire_convert::{Format, Options, decode_tools, encode_tools};
///
/// let tools = r#"[{"function":{"name":"now","parameters":{"type":"object"}}}]"#;
/// let tools = decode_tools(tools, Format::OpenaiChat, &Options::default())?.value;
/// let Tool::Function(def) = &tools[0] else { unreachable!() };
/// assert_eq!(def.name, "now");
///
/// let back = encode_tools(tools, Format::OpenaiChat, &Options::default())?;
/// assert_eq!(
///     back.value,
///     serde_json::json!([{"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}}])
/// );
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub fn decode_tools(
    input: &str,
    from: Format,
    options: &Options,
) -> Result<Decoded<Vec<model::Tool>>, Error> {
    decode_tools_owned(wire_types::value_from_str(input)?, from, options)
}

/// [`decode_tools`], from a `serde_json::Value`.
pub fn decode_tools_value(
    input: &Value,
    from: Format,
    options: &Options,
) -> Result<Decoded<Vec<model::Tool>>, Error> {
    decode_tools_owned(input.clone(), from, options)
}

fn decode_tools_owned(
    input: Value,
    from: Format,
    options: &Options,
) -> Result<Decoded<Vec<model::Tool>>, Error> {
    if from == Format::Mcp {
        return decode_mcp_tools(wire_types::from_value(&input)?, options);
    }
    let (request, losses, map, bare) = decode_bare(
        from,
        Value::Array(Vec::new()),
        input,
        |_, member| Bare {
            member,
            single: false,
        },
        options,
    )?;
    let mut decoded = Decoded {
        value: request.tools,
        losses,
        map,
        bare: Some(bare),
    };
    // Bedrock's `toolConfig` also holds the tool choice, which is no tool definition.
    if request.tool_choice.is_some() {
        decoded.losses.push(Loss {
            path: decoded.source_path("/tool_choice"),
            kind: crate::LossKind::Dropped,
            code: crate::LossCode::ToolChoiceChanged,
            detail: "a tools value read alone keeps the tool definitions only: the tool \
                     choice is not read"
                .into(),
        });
    }
    Ok(decoded)
}

// ---------------------------------------------------------------------------------------
// Tools and schemas

/// Writes neutral tool definitions as `format`'s tools value (the `tools` array; for
/// Bedrock the `toolConfig`; for MCP the `tools` array of `tools/list`), through the
/// format's schema dialect. Loss paths are `/tools/<index>/…` in the order given. Names
/// the format rejects are rewritten ([`Converted::names`]).
pub fn encode_tools(
    tools: Vec<model::Tool>,
    format: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    if format == Format::Mcp {
        return encode_mcp_tools(tools, options)?
            .try_map(|t| serde_json::to_value(t).map_err(|e| Error::invalid("", e.to_string())));
    }
    let codec = codec(format, "tools array")?;
    let mut ctx = Ctx::new(format, options);
    let mut req = model::Request {
        tools,
        ..model::Request::default()
    };
    let names = passes::names::map_request(&mut req, &mut ctx);
    let value = codec.encode_tools(req.tools, &mut ctx)?;
    // A built-in that is a request field of this format has no place in a tools array.
    for (key, _, at) in std::mem::take(&mut ctx.request_fields) {
        let detail = format!("{format}'s web search is the request field `{key}`, not a tool");
        ctx.dropped(crate::LossCode::ToolUnsupported, at, detail);
    }
    strict(
        Converted {
            value,
            losses: ctx.take_losses(),
            ids: IdMap::default(),
            names,
        },
        options,
    )
}

/// A JSON Schema in `format`'s dialect (Gemini's OpenAPI subset, OpenAI strict mode,
/// Ollama's subset, an object root where the format wants one), with a loss for each
/// keyword rewritten or dropped (paths inside the schema).
pub fn adapt_schema(
    schema: &Value,
    format: Format,
    options: &Options,
) -> Result<Converted<Value>, Error> {
    strict(schema::adapt(schema, format, options), options)
}

/// A custom tool (free-text input, optional grammar) as a tool of `format`'s tools array,
/// to put among a request's tools or pass to [`encode_tools`]:
///
/// * `openai-responses`: a `custom` tool (`{"type": "custom", "name", "description",
///   "format": {"type": "grammar", "syntax", "definition"}}`), kept whole; its calls
///   arrive as `custom_tool_call` items ([`decode_custom_call`]) and are answered with
///   `custom_tool_call_output` items ([`encode_custom_output`]);
/// * every other format: a function tool taking `{"input": string}` (a `changed` loss at
///   `/`), whose calls are ordinary tool calls; a grammar has no place there and is a
///   `dropped` loss at `/format` (the model is only asked for text).
///
/// ```
/// use wire_convert::model::{CustomTool, Grammar, Tool};
/// use wire_convert::{Format, encode_custom_tool};
///
/// let tool = CustomTool {
///     name: "sql".into(),
///     description: Some("Runs a query".into()),
///     grammar: Some(Grammar { syntax: "regex".into(), definition: "^SELECT .+$".into() }),
/// };
/// let Tool::Opaque(custom) = encode_custom_tool(tool.clone(), Format::OpenaiResponses).value else { panic!() };
/// assert_eq!(custom.value["format"]["syntax"], "regex");
/// let elsewhere = encode_custom_tool(tool, Format::Anthropic);
/// let Tool::Function(def) = elsewhere.value else { panic!() };
/// assert_eq!(def.input_schema.unwrap()["properties"]["input"]["type"], "string");
/// assert_eq!(elsewhere.losses[1].path, "/format");
/// ```
pub fn encode_custom_tool(tool: model::CustomTool, format: Format) -> Converted<model::Tool> {
    let mut losses = Vec::new();
    let value = if format == Format::OpenaiResponses {
        crate::openai_responses::custom_tool(tool)
    } else {
        losses.push(Loss {
            path: String::new(),
            kind: crate::LossKind::Changed,
            code: crate::LossCode::ToolUnsupported,
            detail: format!(
                "{format} has no custom tools: written as a function tool taking {{\"input\": string}}"
            ),
        });
        if tool.grammar.is_some() {
            losses.push(Loss {
                path: "/format".to_owned(),
                kind: crate::LossKind::Dropped,
                code: crate::LossCode::SchemaChanged,
                detail: format!(
                    "{format} cannot hold a custom tool's input to a grammar: the model is asked for text only"
                ),
            });
        }
        model::Tool::Function(model::ToolDef {
            name: tool.name,
            description: tool.description,
            input_schema: Some(serde_json::json!({
                "type": "object",
                "properties": {"input": {"type": "string"}},
                "required": ["input"]
            })),
            dialect: model::Dialect::JsonSchema,
            output_schema: None,
            strict: None,
            cache: None,
            vendor: model::Vendor::default(),
        })
    };
    Converted {
        value,
        losses,
        ids: IdMap::default(),
        names: NameMap::default(),
    }
}

/// The call of a custom tool that `part` holds, as a tool call whose `arguments` are the
/// input text as a JSON string: a Responses `custom_tool_call` item, which the neutral
/// model keeps whole (an opaque part of the assistant message). `None` for any other
/// part (a function call is a [`model::Part::ToolCall`] already).
pub fn decode_custom_call(part: &model::Part) -> Option<model::ToolCall> {
    crate::openai_responses::custom_call(part)
}

/// The result of a custom tool call as the part that answers it in a Responses tool
/// message: a `custom_tool_call_output` item (kept whole, like the call), written by the
/// rules of a function call's output (text, images and files as its `output`; no error
/// flag, so a failure is prefixed `Error: `, a `changed` loss). Losses point into the
/// result (`/is_error`, `/content/0`).
pub fn encode_custom_output(
    result: model::ToolResult,
    options: &Options,
) -> Result<Converted<model::Part>, Error> {
    let mut ctx = Ctx::new(Format::OpenaiResponses, options);
    let value = crate::openai_responses::custom_output(result, &mut ctx)?;
    strict(
        Converted {
            value,
            losses: ctx.take_losses(),
            ids: IdMap::default(),
            names: NameMap::default(),
        },
        options,
    )
}

/// Whether a JSON Schema describes a JSON object (what every format's tool input must
/// be); a tool with another schema gets its input wrapped as `{"input": …}`.
pub fn is_object_schema(schema: &Value) -> bool {
    schema::is_object_schema(schema)
}

// ---------------------------------------------------------------------------------------
// MCP

/// Writes neutral tools as MCP `Tool`s (the `tools` of a `tools/list` result). Tools only
/// another format knows (hosted tools) are dropped with a loss; names MCP rejects are
/// rewritten by MCP's [`NameRule`](crate::NameRule), kept unique, with a loss each, and
/// returned in [`Converted::names`] so that calls can be mapped back.
pub fn encode_mcp_tools(
    tools: Vec<model::Tool>,
    options: &Options,
) -> Result<Converted<Vec<wire_types::mcp::Tool>>, Error> {
    let mut ctx = Ctx::new(Format::Mcp, options);
    let (page, names) = mcp::encode_tools_list(
        mcp::ToolsPage {
            tools,
            ..Default::default()
        },
        &mut ctx,
    );
    strict(
        Converted {
            value: page.tools,
            losses: ctx.take_losses(),
            ids: IdMap::default(),
            names,
        },
        options,
    )
}

/// Reads MCP `Tool`s (the `tools` of a `tools/list` result) as neutral tools. Errors
/// point into the list (`/1/name`).
pub fn decode_mcp_tools(
    tools: Vec<wire_types::mcp::Tool>,
    options: &Options,
) -> Result<Decoded<Vec<model::Tool>>, Error> {
    let mut ctx = Ctx::new(Format::Mcp, options);
    let page = mcp::decode_tools_list(
        wire_types::mcp::ListToolsResult {
            tools,
            ..Default::default()
        },
        &mut ctx,
    )
    .map_err(|e| match e {
        Error::Invalid { pointer, message } => Error::Invalid {
            pointer: pointer
                .strip_prefix("/tools")
                .unwrap_or(&pointer)
                .to_owned(),
            message,
        },
        e => e,
    })?;
    Ok(Decoded {
        value: page.tools,
        losses: ctx.take_losses(),
        map: SourceMap::default(),
        bare: None,
    })
}

/// Reads `tools/call` params as a neutral tool call with id `call_id` (the JSON-RPC
/// request id, or one the caller makes). Errors point into the params (`/name`).
pub fn decode_mcp_call(
    params: wire_types::mcp::CallToolParams,
    call_id: &str,
    options: &Options,
) -> Result<Decoded<model::ToolCall>, Error> {
    let mut ctx = Ctx::new(Format::Mcp, options);
    let value = mcp::decode_call(params, call_id, &mut ctx)?;
    Ok(Decoded {
        value,
        losses: ctx.take_losses(),
        map: SourceMap::default(),
        bare: None,
    })
}

/// Writes a neutral tool call as `tools/call` params (its id goes in the JSON-RPC
/// envelope).
pub fn encode_mcp_call(
    call: model::ToolCall,
    options: &Options,
) -> Result<Converted<wire_types::mcp::CallToolParams>, Error> {
    let mut ctx = Ctx::new(Format::Mcp, options);
    let value = mcp::encode_call(call, &mut ctx);
    strict(
        Converted {
            value,
            losses: ctx.take_losses(),
            ids: IdMap::default(),
            names: NameMap::default(),
        },
        options,
    )
}

/// Reads a `CallToolResult` as the neutral result of call `call_id` of tool `name`.
/// Errors point into the result.
pub fn decode_mcp_result(
    result: wire_types::mcp::CallToolResult,
    call_id: &str,
    name: Option<&str>,
    options: &Options,
) -> Result<Decoded<model::ToolResult>, Error> {
    let mut ctx = Ctx::new(Format::Mcp, options);
    let value = mcp::decode_result(result, call_id, name, &mut ctx)?;
    Ok(Decoded {
        value,
        losses: ctx.take_losses(),
        map: SourceMap::default(),
        bare: None,
    })
}

/// Writes a neutral tool result as an MCP `CallToolResult` (`isError` from the error
/// flag; `structuredContent` from a JSON part).
pub fn encode_mcp_result(
    result: model::ToolResult,
    options: &Options,
) -> Result<Converted<wire_types::mcp::CallToolResult>, Error> {
    let mut ctx = Ctx::new(Format::Mcp, options);
    let value = mcp::encode_result(result, &mut ctx);
    strict(
        Converted {
            value,
            losses: ctx.take_losses(),
            ids: IdMap::default(),
            names: NameMap::default(),
        },
        options,
    )
}
