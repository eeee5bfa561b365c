//! [`detect`]: which format and kind a JSON body is.
//!
//! Detection looks at the shape only (keys and a few values), never at types, and
//! follows these rules, first match wins:
//!
//! 1. **Error bodies**: `{"type":"error","error":{…}}` is Anthropic; `{"error":{"code":
//!    <number>,"status":…}}` is Gemini (google.rpc); `{"error":"<text>"}` is Ollama;
//!    `{"error":{"message",…}}` otherwise is OpenAI (Chat and Responses share it:
//!    reported as `openai-chat`).
//! 2. **Stream events with a type**: `type` starting `response.` (or an `error` event
//!    with `sequence_number`) is Responses; `message_start`, `content_block_*`,
//!    `message_delta`, `message_stop`, `ping` are Anthropic; `message-start`,
//!    `content-delta`, `tool-call-*`, … (kebab-case) are Cohere. A single key
//!    `messageStart`, `contentBlockDelta`, `metadata`, … (or a Bedrock exception name) is
//!    a Bedrock ConverseStream event.
//! 3. **Gemini** bodies have `contents` (request) or `candidates` / `promptFeedback` /
//!    `usageMetadata` (response; a streamed chunk has the same shape and is reported as a
//!    response).
//! 4. **Responses**: `object: "response"` is a response; `input` or `instructions` is a
//!    request.
//! 5. **Bedrock**: `output.message` with `stopReason` is a response; `messages` whose
//!    content blocks have no `type` but one key (`text`, `toolUse`, …), or
//!    `inferenceConfig` / `toolConfig`, is a request.
//! 6. **Anthropic**: `type: "message"` with `role` is a response; a `messages` request
//!    with a `claude-` model, a versioned server tool (`web_search_20250305`), top-level
//!    `system` blocks or a `system` string next to `max_tokens`, or any of
//!    `stop_sequences`, `top_k`, `thinking`, tools with `input_schema`, a `tool_choice`
//!    object typed `auto`/`any`/`tool`/`none`, or content blocks typed `tool_use`,
//!    `tool_result`, `thinking` (with a string `thinking`), `redacted_thinking` or with a
//!    `source`. Anthropic's mid-stream `error` event has the shape of its error body and
//!    is reported as an error (so is Gemini's).
//! 7. **Ollama**: `done` with `message` or `created_at` (a response when `done: true`, a
//!    stream line otherwise); a request with `options`, `keep_alive`, `think`, `format`, messages with
//!    `images` or `tool_name`, or tool calls whose `arguments` is an object.
//! 8. **Cohere**: a response with `finish_reason` in upper case and a top-level `message`;
//!    a request (checked before Anthropic, which also has `thinking`) with `documents`, `citation_options`, `safety_mode`, `strict_tools`, `p`
//!    or `k`, an upper-case `tool_choice`, or an assistant `tool_plan`.
//! 9. **Mistral** (which shares OpenAI Chat's shape): `random_seed`, `safe_prompt`,
//!    `prompt_mode` (checked before Anthropic), an assistant `prefix`, a `document_url` or `thinking` content chunk,
//!    `tool_choice: "any"`, a request tool-call id of exactly 9 letters and digits, a
//!    response or chunk with a `thinking` chunk, or an id of 32 lower-case hex digits
//!    (Mistral's ids; OpenAI's start `chatcmpl-`).
//!    An Ollama or Mistral request that uses only fields OpenAI Chat shares is a valid
//!    OpenAI Chat body and is reported as one.
//! 10. **OpenAI Chat**: `messages` (request), `object: "chat.completion"` or `choices`
//!     with `message` (response), `object: "chat.completion.chunk"` or `choices` with
//!     `delta` (stream event).
//!
//! Anything else is an error saying what was looked for.

use crate::error::{Category, Error};
use crate::format::{Format, Kind};
use serde_json::{Map, Value};

/// The result of [`detect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Detected {
    /// The format.
    pub format: Format,
    /// Request, response, stream event or error body.
    pub kind: Kind,
}

fn found(format: Format, kind: Kind) -> Result<Detected, Error> {
    Ok(Detected { format, kind })
}

/// Names the format and kind of a JSON body, or says why none fits (see the module
/// docs for the rules).
///
/// ```
/// use wire_types::{detect, Format, Kind};
/// let body = serde_json::json!({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]});
/// let d = detect(&body).unwrap();
/// assert_eq!((d.format, d.kind), (Format::Gemini, Kind::Request));
/// ```
pub fn detect(body: &Value) -> Result<Detected, Error> {
    let Value::Object(m) = body else {
        return Err(Error::new(
            Category::Detect,
            "",
            format!("expected a JSON object, found {}", kind_name(body)),
        ));
    };

    // 1. Error bodies.
    if let Some(err) = m.get("error") {
        if m.get("type").and_then(Value::as_str) == Some("error")
            && !m.contains_key("sequence_number")
        {
            return found(Format::Anthropic, Kind::Error);
        }
        if m.contains_key("sequence_number") || m.contains_key("type") {
            // A Responses stream `error` event has its own shape.
        } else {
            match err {
                Value::String(_) => return found(Format::Ollama, Kind::Error),
                Value::Object(e)
                    if e.get("code").is_some_and(Value::is_number) && e.contains_key("status") =>
                {
                    return found(Format::Gemini, Kind::Error);
                }
                Value::Object(_) if !m.contains_key("choices") => {
                    return found(Format::OpenaiChat, Kind::Error);
                }
                _ => {}
            }
        }
    }

    // 2. Typed stream events.
    if let Some(t) = m.get("type").and_then(Value::as_str) {
        if t.starts_with("response.") || (t == "error" && m.contains_key("sequence_number")) {
            return found(Format::OpenaiResponses, Kind::StreamEvent);
        }
        if matches!(
            t,
            "message_start"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
                | "message_delta"
                | "message_stop"
                | "ping"
        ) {
            return found(Format::Anthropic, Kind::StreamEvent);
        }
        if t.contains('-')
            && matches!(
                t.split('-').next(),
                Some("message" | "content" | "tool" | "citation" | "debug")
            )
        {
            return found(Format::Cohere, Kind::StreamEvent);
        }
    }
    if m.len() <= 2 {
        const BEDROCK_EVENTS: &[&str] = &[
            "messageStart",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",
            "internalServerException",
            "modelStreamErrorException",
            "validationException",
            "throttlingException",
            "serviceUnavailableException",
        ];
        if m.keys().any(|k| BEDROCK_EVENTS.contains(&k.as_str())) && !m.contains_key("messages") {
            return found(Format::Bedrock, Kind::StreamEvent);
        }
    }

    // 3. Gemini.
    if m.get("contents").is_some_and(Value::is_array) {
        return found(Format::Gemini, Kind::Request);
    }
    if m.contains_key("candidates")
        || m.contains_key("promptFeedback")
        || m.contains_key("usageMetadata")
    {
        return found(Format::Gemini, Kind::Response);
    }

    // 4. Responses.
    if m.get("object").and_then(Value::as_str) == Some("response") {
        return found(Format::OpenaiResponses, Kind::Response);
    }
    if (m.contains_key("input") || m.contains_key("instructions")) && !m.contains_key("messages") {
        return found(Format::OpenaiResponses, Kind::Request);
    }

    // 5. Bedrock.
    if m.get("output").and_then(|o| o.get("message")).is_some() && m.contains_key("stopReason") {
        return found(Format::Bedrock, Kind::Response);
    }
    let messages = m.get("messages").and_then(Value::as_array);
    if let Some(msgs) = messages {
        if m.contains_key("inferenceConfig")
            || m.contains_key("toolConfig")
            || msgs.iter().any(bedrock_message)
        {
            return found(Format::Bedrock, Kind::Request);
        }
    }

    // 6. Anthropic.
    if m.get("type").and_then(Value::as_str) == Some("message") && m.contains_key("role") {
        return found(Format::Anthropic, Kind::Response);
    }
    if let Some(msgs) = messages {
        // Fields only Cohere or Mistral have come first: both also have a `thinking`.
        if cohere_request(m, msgs) {
            return found(Format::Cohere, Kind::Request);
        }
        if ["random_seed", "safe_prompt", "prompt_mode"]
            .iter()
            .any(|k| m.contains_key(*k))
        {
            return found(Format::Mistral, Kind::Request);
        }
        if anthropic_request(m, msgs) {
            return found(Format::Anthropic, Kind::Request);
        }
    }

    // 7. Ollama.
    if m.contains_key("done") && (m.contains_key("message") || m.contains_key("created_at")) {
        let done = m.get("done").and_then(Value::as_bool) == Some(true);
        return found(
            Format::Ollama,
            if done {
                Kind::Response
            } else {
                Kind::StreamEvent
            },
        );
    }
    if let Some(msgs) = messages {
        if ["options", "keep_alive", "think", "format"]
            .iter()
            .any(|k| m.contains_key(*k))
            || msgs.iter().any(ollama_message)
        {
            return found(Format::Ollama, Kind::Request);
        }
    }

    // 8. Cohere.
    if let (Some(Value::String(fr)), Some(Value::Object(_))) =
        (m.get("finish_reason"), m.get("message"))
    {
        if fr.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            return found(Format::Cohere, Kind::Response);
        }
    }
    if let Some(msgs) = messages {
        let upper_choice = m
            .get("tool_choice")
            .and_then(Value::as_str)
            .is_some_and(|c| c.chars().all(|c| c.is_ascii_uppercase()));
        if [
            "documents",
            "citation_options",
            "safety_mode",
            "strict_tools",
            "p",
            "k",
        ]
        .iter()
        .any(|k| m.contains_key(*k))
            || upper_choice
            || msgs.iter().any(|x| x.get("tool_plan").is_some())
        {
            return found(Format::Cohere, Kind::Request);
        }
    }

    // 9 and 10. Mistral, then OpenAI Chat.
    let chat_kind = if messages.is_some() {
        Some(Kind::Request)
    } else if let Some(Value::Array(choices)) = m.get("choices") {
        let object = m.get("object").and_then(Value::as_str);
        if object == Some("chat.completion.chunk")
            || choices.iter().any(|c| c.get("delta").is_some())
        {
            Some(Kind::StreamEvent)
        } else if object == Some("chat.completion")
            || choices.iter().any(|c| c.get("message").is_some())
            || choices.is_empty()
        {
            Some(
                if object == Some("chat.completion") || !choices.is_empty() {
                    Kind::Response
                } else {
                    Kind::StreamEvent
                },
            )
        } else {
            None
        }
    } else {
        None
    };
    if let Some(kind) = chat_kind {
        let format = if mistral(m) {
            Format::Mistral
        } else {
            Format::OpenaiChat
        };
        return found(format, kind);
    }

    Err(Error::new(
        Category::Detect,
        "",
        "no format fits: expected `messages` (chat request), `contents` (gemini), `input` (responses), \
         `choices` / `candidates` / `output` / `message` (a response) or a typed stream event",
    ))
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn blocks(message: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    message
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

fn bedrock_message(message: &Value) -> bool {
    const KEYS: &[&str] = &[
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "reasoningContent",
        "cachePoint",
        "guardContent",
    ];
    let mut any = false;
    for b in blocks(message) {
        if b.contains_key("type") || b.len() != 1 {
            return false;
        }
        if !b.keys().all(|k| KEYS.contains(&k.as_str())) {
            return false;
        }
        any = true;
    }
    any
}

fn anthropic_request(m: &Map<String, Value>, msgs: &[Value]) -> bool {
    if ["stop_sequences", "top_k", "thinking"]
        .iter()
        .any(|k| m.contains_key(*k))
    {
        return true;
    }
    if m.contains_key("system") && m.contains_key("max_tokens") {
        return true;
    }
    if let Some(Value::Array(s)) = m.get("system") {
        if s.iter().any(|b| b.get("type").is_some()) {
            return true;
        }
    }
    if m.get("model")
        .and_then(Value::as_str)
        .is_some_and(|model| model.starts_with("claude-"))
    {
        return true;
    }
    if let Some(Value::Array(tools)) = m.get("tools") {
        let versioned = |t: &Value| {
            t.get("type")
                .and_then(Value::as_str)
                .and_then(|ty| ty.rsplit_once('_'))
                .is_some_and(|(_, date)| {
                    date.len() == 8 && date.chars().all(|c| c.is_ascii_digit())
                })
        };
        if tools.iter().any(versioned) {
            return true;
        }
    }
    if let Some(Value::Object(tc)) = m.get("tool_choice") {
        if matches!(
            tc.get("type").and_then(Value::as_str),
            Some("auto" | "any" | "tool" | "none")
        ) && !tc.contains_key("function")
        {
            return true;
        }
    }
    if let Some(Value::Array(tools)) = m.get("tools") {
        if tools.iter().any(|t| t.get("input_schema").is_some()) {
            return true;
        }
    }
    msgs.iter().flat_map(blocks).any(|b| {
        matches!(
            b.get("type").and_then(Value::as_str),
            Some("tool_use" | "tool_result" | "redacted_thinking" | "server_tool_use")
        ) || (b.get("type").and_then(Value::as_str) == Some("thinking")
            && b.get("thinking").is_some_and(Value::is_string))
            || b.contains_key("source")
    })
}

fn cohere_request(m: &Map<String, Value>, msgs: &[Value]) -> bool {
    let upper_choice = m
        .get("tool_choice")
        .and_then(Value::as_str)
        .is_some_and(|c| c.chars().all(|c| c.is_ascii_uppercase()));
    [
        "documents",
        "citation_options",
        "safety_mode",
        "strict_tools",
        "p",
        "k",
    ]
    .iter()
    .any(|k| m.contains_key(*k))
        || upper_choice
        || msgs.iter().any(|x| x.get("tool_plan").is_some())
}

fn ollama_message(message: &Value) -> bool {
    if message.get("images").is_some_and(Value::is_array)
        || message.get("tool_name").is_some()
        || message.get("thinking").is_some_and(Value::is_string)
    {
        return true;
    }
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| {
            c.get("function")
                .and_then(|f| f.get("arguments"))
                .is_some_and(Value::is_object)
                && c.get("type").is_none()
        })
}

fn mistral(m: &Map<String, Value>) -> bool {
    if ["random_seed", "safe_prompt", "prompt_mode"]
        .iter()
        .any(|k| m.contains_key(*k))
    {
        return true;
    }
    if m.get("tool_choice").and_then(Value::as_str) == Some("any") {
        return true;
    }
    if let Some(Value::String(id)) = m.get("id") {
        if id.len() == 32
            && id
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            return true;
        }
    }
    let nine = |id: &str| id.len() == 9 && id.chars().all(|c| c.is_ascii_alphanumeric());
    let message_hints = |msg: &Value| {
        msg.get("prefix").is_some()
            || blocks(msg).any(|b| {
                matches!(
                    b.get("type").and_then(Value::as_str),
                    Some("document_url" | "thinking")
                )
            })
            || msg
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|c| c.get("id").and_then(Value::as_str).is_some_and(nine))
    };
    if m.get("messages")
        .and_then(Value::as_array)
        .is_some_and(|ms| ms.iter().any(message_hints))
    {
        return true;
    }
    // Responses and chunks: compatible servers (Groq) also use 9-character call ids, so
    // only content that Mistral alone sends counts.
    m.get("choices")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("message").or(c.get("delta")))
        .any(|msg| blocks(msg).any(|b| b.get("type").and_then(Value::as_str) == Some("thinking")))
}
