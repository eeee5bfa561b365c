//! Streams: every provider's live stream read as it arrives into one small vocabulary of
//! [`StreamPart`]s, and those parts added up into the response they make.
//!
//! ```text
//!  bytes ──► framing (wire-types: SSE, NDJSON, AWS event-stream)
//!        ──► typed events (wire-types)
//!        ──► the format's stream decoder (a state machine) ──► StreamParts
//!        ──► Accumulator ──► model::Response (and, through the encoders, any format's body)
//! ```
//!
//! [`StreamDecoder`] does the first three steps for a format: push bytes in pieces of any
//! size, take out the parts as soon as they are known. [`Accumulator`] does the last.
//! [`accumulate`] runs both over a whole stream and writes the response in any format.
//!
//! # Parts
//!
//! Content arrives as parts with a start, deltas and an end, keyed by a [`PartId`]: an id
//! local to the stream, given in order of appearance, distinct from the provider's call
//! id (providers reuse indexes, rotate item ids and send call ids late or never). A part
//! belongs to a choice (`choice`, 0 unless the provider streams several), given at its
//! start.
//!
//! # The rules every decoder keeps
//!
//! * A tool call is complete at its end (or at the stream's finish), never because its
//!   arguments so far happen to parse as JSON: `{"a":1}` may be followed by `,"b":2}`.
//! * A call with no arguments ends with the arguments `{}`, never with none.
//! * Parallel calls stay apart, whatever the provider's indexes say.
//! * A stream that ends without its finish event is not a normal finish: the decoder
//!   reports an [`StreamErrorKind::Incomplete`] error, and the accumulator gives an
//!   error carrying what arrived.
//! * Memory held by a decoder is bounded by the parts still open, not by the length of
//!   the stream (the accumulator holds the response, which is its job).

mod accumulate;
mod decode;
mod encode;
mod translate;

pub use accumulate::{Accumulator, accumulate};
pub(crate) use accumulate::{merge_meta, started_call};
pub(crate) use decode::{
    Event, EventDecoder, Once, Over, Parts, call_start, end_call, error_code_of, event_type,
    incomplete, provider_error, read, reasoning_start,
};
pub use decode::{Framing, StreamDecoder};
pub use encode::StreamEncoder;
pub(crate) use encode::{
    ChunkHead, EventEncoder, Events, Gate, HeldCall, Rule, UNFINISHED, at, call_parts, call_type,
    error_code, held_arguments, meta_lost, no_place, reasoning_dropped, reasoning_id_lost,
    reasoning_token_lost, signature_lost, start_once, streamed, summary_as_text,
    summary_as_thinking,
};
pub use translate::StreamTranslator;

use crate::model::{PartMeta, Signed, StopReason, Usage, Vendor};
use serde::{Deserialize, Serialize};

/// A part's id, local to one stream: 0, 1, 2, … in order of appearance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PartId(pub u32);

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One step of a stream, in the neutral vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamPart {
    /// The response begins: what is known of it so far. Comes once, first.
    Start(StreamStart),
    /// A text part begins.
    TextStart {
        /// The part.
        part: PartId,
        /// The choice it belongs to.
        #[serde(default, skip_serializing_if = "is_zero")]
        choice: u32,
        /// What the provider said about the part besides its text (cache marker,
        /// citations and other vendor data).
        #[serde(default, skip_serializing_if = "PartMeta::is_empty")]
        meta: PartMeta,
    },
    /// Text to append.
    TextDelta {
        /// The part.
        part: PartId,
        /// The text.
        text: String,
    },
    /// Reasoning begins.
    ReasoningStart {
        /// The part.
        part: PartId,
        /// The choice it belongs to.
        #[serde(default, skip_serializing_if = "is_zero")]
        choice: u32,
        /// The provider's id of the reasoning item (Responses), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Vendor data of the part.
        #[serde(default, skip_serializing_if = "PartMeta::is_empty")]
        meta: PartMeta,
    },
    /// Reasoning text to append.
    ReasoningDelta {
        /// The part.
        part: PartId,
        /// The text.
        text: String,
    },
    /// Reasoning summary text to append to summary number `index` (a new index starts a
    /// new summary).
    SummaryDelta {
        /// The part.
        part: PartId,
        /// 0-based index of the summary.
        index: u32,
        /// The text.
        text: String,
    },
    /// The reasoning's signature (or an encrypted / redacted payload), tagged with the
    /// provider that made it. Replaces any earlier one of the same kind.
    Signature(Signature),
    /// A tool call begins: its provider id (made up from its position when the provider
    /// gave none, as for whole bodies) and its name.
    ToolStart(ToolStart),
    /// Argument JSON text to append (fragments are not at token boundaries).
    ToolDelta {
        /// The part.
        part: PartId,
        /// The text.
        json: String,
    },
    /// A whole part that arrives at once and has no deltas (a hosted tool's call or
    /// result, an image, a part only its format understands).
    Whole(Whole),
    /// More vendor data for an open part (a Gemini signature on text, a citation): merged
    /// into what it has.
    Meta {
        /// The part.
        part: PartId,
        /// What to merge.
        meta: PartMeta,
    },
    /// The part is complete.
    End {
        /// The part.
        part: PartId,
    },
    /// Token usage so far, cumulative: it replaces any earlier `Usage`.
    Usage(Usage),
    /// A choice is complete, and why it stopped.
    Finish(Finish),
    /// Response-level vendor data learned after the start (Responses' final `response`
    /// object, Anthropic's container): merged into the response's.
    ResponseMeta(Vendor),
    /// The provider reported an error, or the stream broke off.
    Error(StreamError),
}

/// A reasoning part's signature ([`StreamPart::Signature`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signature {
    /// The part.
    pub part: PartId,
    /// The token.
    pub token: Signed,
    /// Whether it is an encrypted payload rather than a signature.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub encrypted: bool,
}

/// A tool call's start ([`StreamPart::ToolStart`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolStart {
    /// The part.
    pub part: PartId,
    /// The choice it belongs to.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub choice: u32,
    /// The call id.
    pub id: String,
    /// Whether the id was made up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub synthetic_id: bool,
    /// The tool's name.
    pub name: String,
    /// Vendor data of the call.
    #[serde(default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A part that arrives whole ([`StreamPart::Whole`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Whole {
    /// The part.
    pub part: PartId,
    /// The choice it belongs to.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub choice: u32,
    /// The part.
    pub content: crate::model::Part,
}

/// A choice's end ([`StreamPart::Finish`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finish {
    /// The choice.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub choice: u32,
    /// Why it stopped, when the provider said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Vendor data of the choice (a stop sequence, logprobs kept whole).
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

/// What is known of a response when its stream begins.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamStart {
    /// The format the stream is decoded from (reasoning in it is that format's, and the
    /// accumulated response's [`source`](crate::model::Response::source)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<crate::Format>,
    /// Response id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Model that answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Creation time, Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u64>,
    /// Response-level vendor data.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

/// What went wrong in a stream.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// The provider sent an error event (overloaded, throttled, a model error).
    Provider,
    /// The stream ended before its finish event.
    Incomplete,
}

/// An error in a stream: a provider's error event, or a stream cut short.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamError {
    /// Which kind.
    pub kind: StreamErrorKind,
    /// The provider's error type or code (`overloaded_error`, `throttlingException`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// What it says.
    pub message: String,
    /// The provider's error object as it came, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{code}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
