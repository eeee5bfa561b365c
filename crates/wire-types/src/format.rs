//! [`Format`] and [`Kind`]: the one place the format names are spelled.

use std::fmt;
use std::str::FromStr;

/// A wire format toolwire reads and writes.
///
/// The `Display` / `FromStr` spellings (`openai-chat`, …) are the names used on the command
/// line and in every message; module names are the same with `_`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenaiChat,
    /// OpenAI Responses (`POST /v1/responses`).
    OpenaiResponses,
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// Google Gemini `generateContent` (v1beta REST).
    Gemini,
    /// Ollama native chat (`POST /api/chat`).
    Ollama,
    /// AWS Bedrock Converse / ConverseStream.
    Bedrock,
    /// Mistral chat completions.
    Mistral,
    /// Cohere v2 chat.
    Cohere,
    /// Model Context Protocol tool shapes (`tools/list`, `tools/call`).
    Mcp,
}

impl Format {
    /// The eight chat formats (every format but [`Format::Mcp`]), in the canonical order.
    pub const CHAT: [Format; 8] = [
        Format::OpenaiChat,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Ollama,
        Format::Bedrock,
        Format::Mistral,
        Format::Cohere,
    ];

    /// Every format, chat formats first.
    pub const ALL: [Format; 9] = [
        Format::OpenaiChat,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Ollama,
        Format::Bedrock,
        Format::Mistral,
        Format::Cohere,
        Format::Mcp,
    ];

    /// The name, as on the command line: `openai-chat`, `anthropic`, ….
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenaiChat => "openai-chat",
            Format::OpenaiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Ollama => "ollama",
            Format::Bedrock => "bedrock",
            Format::Mistral => "mistral",
            Format::Cohere => "cohere",
            Format::Mcp => "mcp",
        }
    }

    /// The Rust module name for this format: `openai_chat`, `anthropic`, ….
    pub fn module(self) -> &'static str {
        match self {
            Format::OpenaiChat => "openai_chat",
            Format::OpenaiResponses => "openai_responses",
            other => other.name(),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a format name: it lists the names that exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown format `{0}` (expected one of: openai-chat, openai-responses, anthropic, gemini, ollama, bedrock, mistral, cohere, mcp)"
)]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s || f.module() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// What a body is, within its format.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A request body (what a client sends).
    Request,
    /// A complete, non-streamed response body.
    Response,
    /// One event or chunk of a streamed response.
    StreamEvent,
    /// An error body returned instead of a response.
    Error,
}

impl Kind {
    /// The name: `request`, `response`, `stream-event`, `error`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Response => "response",
            Kind::StreamEvent => "stream-event",
            Kind::Error => "error",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
