//! [`Error`]: a conversion that could not be done.

use crate::{Format, Loss};

/// A conversion that could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not a valid body of the format it claims (not JSON, wrong shape).
    #[error(transparent)]
    Read(#[from] wire_types::Error),
    /// The input parses but breaks a rule of its format (an unknown role, a tool result
    /// without a call id, a tool without a name), or a value cannot be written (tool-call
    /// arguments that are not JSON a target can hold).
    #[error("{}: {message}", if pointer.is_empty() { "/" } else { pointer.as_str() })]
    Invalid {
        /// JSON pointer of the value at fault.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// [`crate::Options::strict`] is on and the conversion lost something.
    #[error("strict conversion lost {} item(s); first: {}", losses.len(), losses.first().map(|l| l.to_string()).unwrap_or_default())]
    Lossy {
        /// Every loss.
        losses: Vec<Loss>,
    },
    /// A stream could not be read: its framing is broken (a bad checksum, a truncated
    /// message, an event over the size limit), or an event is not a valid event of its
    /// format (the message then names the JSON pointer inside the event).
    #[error("stream byte {offset}: {message}")]
    Stream {
        /// Byte offset in the stream where the frame at fault started.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A stream reported an error, or ended before it finished: what arrived is in
    /// `partial`.
    #[error("incomplete stream: {error}")]
    Incomplete {
        /// The provider's error, or why the stream is incomplete.
        error: crate::stream::StreamError,
        /// The response as far as it arrived.
        partial: Box<crate::model::Response>,
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

    /// The error of a message whose role (`tag`) the format does not have, at `at`.
    pub(crate) fn unknown_role(at: &str, tag: &str) -> Self {
        Error::invalid(format!("{at}/role"), format!("unknown role `{tag}`"))
    }

    /// The JSON pointer of the value at fault, when the error has one.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            Error::Read(e) => Some(e.pointer()),
            Error::Invalid { pointer, .. } => Some(pointer),
            Error::Lossy { losses } => losses.first().map(|l| l.path.as_str()),
            Error::Stream { .. } | Error::Incomplete { .. } | Error::Unsupported { .. } => None,
        }
    }
}
