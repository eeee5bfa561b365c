//! Ollama native chat: `POST /api/chat` request and response bodies, the NDJSON stream
//! lines, and the `{"error": "…"}` body.
//!
//! Transcribed from the `ollama/ollama` repository (commit fb30760, 2026-08-21):
//! `docs/api.md`, `docs/openapi.yaml` (`ChatRequest`, `ChatMessage`, `ChatResponse`,
//! `ChatStreamEvent`), `docs/api/errors.mdx`, `docs/capabilities/{tool-calling,thinking}.mdx`
//! and `api/types.go` (`Message`, `ToolCall`, `Tool`, `Metrics`); checked against the
//! `ollama` Python SDK 0.6.3 schema in `fixtures/conformance/ollama.*.schema.json`. See
//! `../shared/docs/providers.md` §5 as vendored in `ARCHITECTURE.md`. Real payloads:
//! `fixtures/ollama/`.
//!
//! ## Style
//! * One [`Message`] struct for every role (Ollama's `Message` is one Go struct); the role
//!   is an open [`Role`], checked by [`validate_request`].
//! * `content` is always a plain string; images are raw base64 strings in `images` (no
//!   `data:` prefix, no URLs: Ollama never fetches an image).
//! * Tool-call `arguments` are a JSON object (`Map`), in the order the model wrote them
//!   (or JSON text a converter wrote, [`MaybeRaw`]).
//! * A streamed line and a non-streamed response have the same shape: [`Response`].

use crate::common::MaybeRaw;
use crate::error::{Category, Error};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

pub use crate::common::{FunctionDef, FunctionTool as Tool};

wire_struct! {
    /// An `/api/chat` request body.
    #[derive(Default)]
    pub struct Request {
        /// Model name (`llama3.2`, `qwen3:8b`, …).
        req model: String = "model",
        /// The conversation so far.
        req messages: Vec<Message> = "messages",
        /// Tools the model may call.
        opt tools: Vec<Tool> = "tools",
        /// `"json"` or a JSON Schema object for structured output.
        opt format: Format = "format",
        /// Model options: `temperature`, `num_ctx`, `top_p`, `top_k`, `seed`, `stop`,
        /// `num_predict`, … (any key the runner knows).
        opt options: Map<String, Value> = "options",
        /// Stream NDJSON lines (default `true`).
        opt stream: bool = "stream",
        /// How long the model stays loaded: a duration string (`"5m"`) or seconds (`0`
        /// unloads at once).
        opt keep_alive: Value = "keep_alive",
        /// Thinking: `true`/`false`, or a level (`"low"`, `"medium"`, `"high"`) for models
        /// that take one.
        opt think: Think = "think",
        /// Return log-probabilities of the output tokens.
        opt logprobs: bool = "logprobs",
        /// How many top log-probabilities per token.
        opt top_logprobs: u32 = "top_logprobs",
    }
}

open_enum! {
    /// A message role. Ollama lower-cases the role it reads, so `"User"` is `user` to it.
    pub enum Role {
        /// Instructions.
        System = "system",
        /// The user.
        User = "user",
        /// A model turn.
        Assistant = "assistant",
        /// A tool result.
        Tool = "tool",
    }
}

wire_struct! {
    /// One message of the conversation (any role), and the message of a response.
    pub struct Message {
        /// `system`, `user`, `assistant` or `tool`.
        req role: Role = "role",
        /// The text: always a plain string (absent on an assistant turn that only calls
        /// tools).
        opt content: String = "content",
        /// The model's reasoning text (assistant; sent back as it came, no signature).
        opt thinking: String = "thinking",
        /// Images: raw base64 strings, no `data:` prefix (user messages of vision models).
        opt images: Vec<String> = "images",
        /// The tool calls the model made (assistant).
        opt tool_calls: Vec<ToolCall> = "tool_calls",
        /// Name of the tool whose result this is (`tool` messages).
        opt tool_name: String = "tool_name",
        /// Id of the call this answers (`tool` messages; newer servers).
        opt tool_call_id: String = "tool_call_id",
    }
}

wire_struct! {
    /// A tool call in an assistant message. Ollama sends each call whole, never in
    /// fragments.
    pub struct ToolCall {
        /// Call id, when the server assigns one (newer servers).
        opt id: String = "id",
        /// `function` (sent by some clients; Ollama does not need it).
        opt kind: String = "type",
        /// The function call.
        req function: FunctionCall = "function",
    }
}

wire_struct! {
    /// The function half of a tool call.
    pub struct FunctionCall {
        /// 0-based position of the call in the turn (parallel calls).
        opt index: u32 = "index",
        /// Function name.
        req name: String = "name",
        /// The arguments: a JSON object (not JSON text), keys in the model's order.
        req arguments: MaybeRaw<Map<String, Value>> = "arguments",
    }
}

string_or_object! {
    /// `format`: the keyword `"json"` or a JSON Schema object.
    pub enum Format, expecting = "\"json\" or a JSON Schema object" {
        /// `"format": "json"`: any JSON value (the only keyword Ollama knows; others are
        /// kept as sent).
        Named(String),
        /// `"format": {…}`: output must match this JSON Schema.
        Schema(Map<String, Value>),
    }
}

open_enum! {
    /// A thinking level, for models that take one (gpt-oss).
    pub enum ThinkLevel {
        /// Little reasoning.
        Low = "low",
        /// Medium reasoning.
        Medium = "medium",
        /// Much reasoning.
        High = "high",
        /// The most reasoning the model allows.
        Max = "max",
    }
}

/// `think`: on/off, or a level.
#[derive(Debug, Clone, PartialEq)]
pub enum Think {
    /// `"think": true` / `false`.
    Enabled(bool),
    /// `"think": "low"` and the other levels.
    Level(ThinkLevel),
}

impl Serialize for Think {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Think::Enabled(b) => serializer.serialize_bool(*b),
            Think::Level(l) => l.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Think {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Think;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a boolean or a thinking level (\"low\", \"medium\", \"high\")")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Think, E> {
                Ok(Think::Enabled(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Think, E> {
                Ok(Think::Level(ThinkLevel::from(v)))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

wire_struct! {
    /// An `/api/chat` response: the whole answer (`"stream": false`), or one NDJSON line
    /// of a stream. Stream lines carry a fragment of `message.content` / `thinking` (tool
    /// calls arrive whole) and `done: false`; the last line has `done: true`,
    /// `done_reason` and the metrics.
    #[derive(Default)]
    pub struct Response {
        /// Model name.
        opt model: String = "model",
        /// RFC 3339 time of this line.
        opt created_at: String = "created_at",
        /// The assistant message (or its fragment). Absent on `/api/generate` lines,
        /// which carry `response` text instead (kept in `extra`).
        opt message: Message = "message",
        /// `true` on the last line (and on a whole response).
        opt done: bool = "done",
        /// Why generation stopped (last line).
        opt done_reason: DoneReason = "done_reason",
        /// Total time, nanoseconds.
        opt total_duration: u64 = "total_duration",
        /// Model load time, nanoseconds.
        opt load_duration: u64 = "load_duration",
        /// Input tokens.
        opt prompt_eval_count: u64 = "prompt_eval_count",
        /// Prompt evaluation time, nanoseconds.
        opt prompt_eval_duration: u64 = "prompt_eval_duration",
        /// Output tokens.
        opt eval_count: u64 = "eval_count",
        /// Generation time, nanoseconds.
        opt eval_duration: u64 = "eval_duration",
        /// Log-probabilities of the output tokens, when requested.
        opt logprobs: Vec<Value> = "logprobs",
    }
}

open_enum! {
    /// Why generation stopped. There is no tool-call reason: a turn that calls tools ends
    /// with `stop` and carries `message.tool_calls`.
    pub enum DoneReason {
        /// Natural end or a stop sequence.
        Stop = "stop",
        /// `num_predict` or the context length was reached.
        Length = "length",
        /// The model was loaded (empty request).
        Load = "load",
        /// The model was unloaded (`keep_alive: 0`, empty request).
        Unload = "unload",
    }
}

wire_struct! {
    /// An error body (`{"error": "…"}`), with an HTTP error status or as the last line of
    /// a stream (status 200).
    #[derive(Default)]
    pub struct ErrorResponse {
        /// The message: a string, not an object.
        req error: String = "error",
    }
}

chunk_or_error! {
    /// One NDJSON line of a streamed response: a chunk, or an error line. The first key
    /// only one of the two has decides (`error`, or a response field).
    #[allow(
        clippy::large_enum_variant,
        reason = "a stream line is read, matched and dropped one at a time; boxing the common \
                  variant would cost an allocation per line for the rare error line"
    )]
    pub enum StreamEvent, expecting = "a chat response line or an error object" {
        /// A response line (`done: false`, or the final `done: true` line).
        Chunk(Response),
        /// `{"error": "…"}`.
        Error(ErrorResponse),
    }
}

/// Checks what the types leave open:
///
/// * every role is one Ollama knows (compared lower-cased, as Ollama reads it);
/// * a `tool` message names what it answers, with `tool_name` or `tool_call_id`: Ollama
///   itself accepts a bare result, but then nothing ties it to a call of a parallel
///   turn, and the chat templates render the name;
/// * images are raw base64: a `data:` URL or an `http(s)://` URL is refused by the
///   server (it base64-decodes the string and never fetches a URL).
pub fn validate_request(request: &Request) -> Result<(), Error> {
    for (i, message) in request.messages.iter().enumerate() {
        let role = match &message.role {
            Role::Other(other) => Role::from(other.to_ascii_lowercase()),
            known => known.clone(),
        };
        if let Role::Other(other) = &role {
            return Err(crate::common::unknown_role_named(
                &format!("/messages/{i}"),
                &format!("\"{other}\""),
                Role::KNOWN,
            ));
        }
        if role == Role::Tool && message.tool_name.is_none() && message.tool_call_id.is_none() {
            return Err(Error::new(
                Category::Shape,
                format!("/messages/{i}/tool_name"),
                "missing field (a tool message needs `tool_name` or `tool_call_id`)",
            ));
        }
        for (j, image) in message.images.iter().flatten().enumerate() {
            if image.starts_with("data:")
                || image.starts_with("http://")
                || image.starts_with("https://")
            {
                return Err(Error::new(
                    Category::Shape,
                    format!("/messages/{i}/images/{j}"),
                    "expected raw base64 image data (no `data:` prefix; Ollama does not fetch URLs)",
                ));
            }
        }
    }
    Ok(())
}
