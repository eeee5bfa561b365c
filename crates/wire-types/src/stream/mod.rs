//! Stream framing: splitting a streamed body into its events, and writing events back.
//!
//! Pure code, no I/O: the caller reads bytes however it likes (an HTTP body, a file, a
//! socket), pushes them in pieces of any size, and takes out every complete frame. Three
//! framings occur:
//!
//! * **SSE** (`text/event-stream`, [`SseParser`]): OpenAI Chat, Responses, Anthropic,
//!   Gemini (`alt=sse`), Mistral, Cohere. `event:` lines name the event, `data:` lines
//!   (several are joined with `\n`) carry the JSON, a blank line ends the event, `:` lines
//!   are comments. OpenAI Chat and Mistral end with `data: [DONE]`, which is not JSON and
//!   is its own [`FrameKind::Done`] frame.
//! * **NDJSON** ([`NdjsonParser`]): Ollama, one JSON object per line; also the
//!   one-decoded-event-per-line form of Bedrock streams.
//! * **AWS event-stream** ([`EventStreamParser`]): Bedrock ConverseStream's binary
//!   framing, a length-prefixed message with typed headers and two CRC-32 checksums. The
//!   event name is the `:event-type` header, not in the JSON;
//!   [`RawFrame::to_bedrock_json`] gives the `{"<eventType>": payload}` form that
//!   [`bedrock::StreamEvent`](crate::bedrock::StreamEvent) reads.
//!
//! Every parser yields the same [`RawFrame`] and implements [`FrameParser`], so a stream
//! decoder takes any framing the same way:
//!
//! ```
//! use wire_types::stream::{FrameKind, FrameParser, SseParser};
//!
//! let mut parser = SseParser::default();
//! let mut names = Vec::new();
//! // Pieces as a socket might deliver them: an event split inside `data:`, and a
//! // two-byte UTF-8 sequence (`é`) split across reads.
//! let pieces: [&[u8]; 4] = [b"event: ping\nda", b"ta: {\"t\":\"caf\xc3", b"\xa9\"}\n\n", b"data: [DONE]\n\n"];
//! for piece in pieces {
//!     parser.push(piece);
//!     while let Some(frame) = parser.next_frame()? {
//!         names.push((frame.kind, frame.name, frame.data));
//!     }
//! }
//! parser.finish();
//! while let Some(frame) = parser.next_frame()? {
//!     names.push((frame.kind, frame.name, frame.data));
//! }
//! assert_eq!(names[0], (FrameKind::Event, Some("ping".into()), "{\"t\":\"café\"}".into()));
//! assert_eq!(names[1], (FrameKind::Done, None, "[DONE]".into()));
//! # Ok::<(), wire_types::stream::FrameError>(())
//! ```
//!
//! # Bounded and linear
//!
//! A parser holds at most one incomplete event (plus the bytes of the last push that it
//! has not handed out yet): an event larger than [`Limits::max_frame_bytes`] is an error
//! as soon as the limit is crossed, so the memory a parser holds does not grow with the
//! length of the stream. Each byte is looked at a bounded number of times: the parsers
//! keep their scan position between pushes instead of searching their buffer again.
//!
//! # Errors
//!
//! A [`FrameError`] names the byte offset in the stream (counted from the first byte ever
//! pushed) and what was expected there. A stream that ends in the middle of an AWS
//! message, a bad checksum or an impossible length is an error, never a quiet end of the
//! stream (bug 8 of `streaming.md`: a truncated final frame that ended "successfully").
//!
//! # Writers
//!
//! [`write_sse`], [`write_sse_frame`], [`write_ndjson`] and [`write_event_stream`] append
//! one event to a caller's buffer; what they write parses back to the same frames.
//!
//! # Whole bodies, as text
//!
//! [`sse_frames`] and [`line_frames`] are the older whole-body entry points (text in,
//! [`Frame`]s with 1-based line numbers out), now thin wrappers over the push parsers.

mod event_stream;
mod ndjson;
mod sse;
#[cfg(test)]
mod tests;

pub use event_stream::{EventStreamParser, write_event_stream};
pub use ndjson::{NdjsonParser, write_ndjson};
pub use sse::{SseParser, write_sse, write_sse_frame};

use std::fmt;

/// The largest event a parser accepts by default: 16 MiB.
///
/// Large enough for the largest legitimate events (a Responses `response.completed`
/// carrying the whole response, a Gemini chunk with an inline image, base64 partial
/// images: a few MiB each), small enough that a stream which never ends its event cannot
/// make a process hold more than that. botocore accepts AWS payloads up to 24 MiB and
/// headers up to 128 KiB; raise the limit for such payloads.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// Limits a parser enforces, so that hostile or broken input cannot make it hold
/// unbounded memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest event, in bytes, as it is on the wire: for SSE the lines of one event
    /// with their line ends, the line being read included (comment lines are not added
    /// up, as they are not kept, but a single one longer than the limit is refused); for
    /// NDJSON one line without its line end; for AWS event-stream the total length of
    /// one message. Default [`DEFAULT_MAX_FRAME_BYTES`] (16 MiB).
    pub max_frame_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
        }
    }
}

/// One event of a stream as its framing delivered it, before its payload is read.
///
/// The same type for every framing: fields a framing does not have are `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFrame {
    /// Byte offset in the stream (0-based, from the first byte pushed, a UTF-8 BOM
    /// included) where the event starts: its first field line for SSE (comments before
    /// it not counted), its line for NDJSON, its prelude for AWS event-stream.
    pub offset: u64,
    /// The event's name: the SSE `event:` field (`Some("")` when the line was `event:`
    /// with nothing after it), the AWS `:event-type` header (`:exception-type` for an
    /// exception, `:error-code` for an error). `None` for NDJSON and when absent.
    pub name: Option<String>,
    /// The payload text: JSON for every kind except [`FrameKind::Done`] (the literal
    /// `[DONE]`) and [`FrameKind::Error`] (the `:error-message` text). Several SSE `data:`
    /// lines are joined with `\n`.
    pub data: String,
    /// The SSE `id:` field of this event (the last one if it had several; a value holding
    /// U+0000 is ignored, as the spec says). Unlike a browser's `lastEventId`, it is not
    /// carried over to later events: keep the last `Some` if you need that.
    pub id: Option<String>,
    /// The SSE `retry:` field of this event, in milliseconds (only ASCII digits count, as
    /// the spec says; a value too large for `u64` is ignored).
    pub retry: Option<u64>,
    /// What the frame is.
    pub kind: FrameKind,
}

/// What a [`RawFrame`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrameKind {
    /// An event with a JSON payload (SSE event, NDJSON line, AWS `:message-type` `event`;
    /// an AWS message with no or an unknown `:message-type` is read as an event too, as
    /// botocore does).
    Event,
    /// The `[DONE]` terminator of OpenAI-style streams (SSE data or an NDJSON line that
    /// is `[DONE]`, surrounding whitespace allowed). Never JSON: do not parse it.
    Done,
    /// An AWS `:message-type` `exception`: the payload is the exception's JSON body
    /// (`{"message": ...}`), the name its `:exception-type` (`throttlingException`).
    Exception,
    /// An AWS `:message-type` `error`: the name is the `:error-code` header, the data the
    /// `:error-message` header (plain text; the payload if that header is absent).
    Error,
}

/// A stream that could not be framed, with the byte offset where it went wrong.
///
/// ```
/// use wire_types::stream::{FrameErrorKind, FrameParser, SseParser};
/// // 0xFF is never UTF-8: the error names its byte.
/// let err = SseParser::default().parse_body(b"data: {}\n\ndata: \xff\n\n").unwrap_err();
/// assert_eq!(err.offset(), 16);
/// assert_eq!(err.kind(), &FrameErrorKind::InvalidUtf8);
/// assert_eq!(err.to_string(), "byte 16: invalid utf-8: expected text");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {kind}")]
pub struct FrameError {
    offset: u64,
    kind: FrameErrorKind,
    fatal: bool,
}

impl FrameError {
    /// An error the parser cannot go past.
    fn fatal(offset: u64, kind: FrameErrorKind) -> Self {
        FrameError {
            offset,
            kind,
            fatal: true,
        }
    }

    /// An error about one AWS message, which the parser skipped.
    fn skipped(offset: u64, kind: FrameErrorKind) -> Self {
        FrameError {
            offset,
            kind,
            fatal: false,
        }
    }

    /// Byte offset in the stream (0-based, from the first byte pushed) where the fault
    /// is: the start of the event or message at fault, or the exact byte for invalid
    /// UTF-8 and bad headers.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// What went wrong.
    pub fn kind(&self) -> &FrameErrorKind {
        &self.kind
    }

    /// Whether the parser has stopped for good. `true`: every later call of
    /// `next_frame` returns this error again (the framing cannot be trusted past it).
    /// `false`: only the AWS message at fault was skipped (its prelude was sound, so the
    /// next message's start is known) and `next_frame` goes on with the next one.
    pub fn is_fatal(&self) -> bool {
        self.fatal
    }
}

/// What went wrong framing a stream (the `Display` text says what was expected).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameErrorKind {
    /// Bytes that are not UTF-8 where text was expected (an SSE or NDJSON line, an AWS
    /// string header or payload).
    InvalidUtf8,
    /// An event larger than [`Limits::max_frame_bytes`].
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The stream ended in the middle of an AWS message.
    Truncated {
        /// Bytes the message needs: its total length (or 12, for a prelude not read yet).
        needed: u64,
        /// Bytes of it the stream had.
        found: u64,
    },
    /// The prelude checksum of an AWS message does not match: its lengths cannot be
    /// trusted, so nothing after it can be framed.
    PreludeCrc {
        /// The checksum the prelude carries.
        expected: u32,
        /// The checksum of the prelude's first 8 bytes.
        computed: u32,
    },
    /// The message checksum of an AWS message does not match (the message is skipped).
    MessageCrc {
        /// The checksum the message carries (its last 4 bytes).
        expected: u32,
        /// The checksum of everything before it.
        computed: u32,
    },
    /// An AWS total length below the 16 bytes of prelude and checksum.
    MessageLength {
        /// The total length the prelude gives.
        total: u32,
    },
    /// An AWS headers length longer than the message can hold.
    HeadersLength {
        /// The headers length the prelude gives.
        headers: u32,
        /// The total length the prelude gives.
        total: u32,
    },
    /// A malformed AWS header (the message is skipped): what was wrong and expected.
    Header(String),
}

impl fmt::Display for FrameErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameErrorKind::InvalidUtf8 => f.write_str("invalid utf-8: expected text"),
            FrameErrorKind::TooLarge { limit } => write!(
                f,
                "event larger than the limit of {limit} bytes (Limits::max_frame_bytes)"
            ),
            FrameErrorKind::Truncated { needed, found } => write!(
                f,
                "stream ended inside a message: expected {needed} bytes, found {found}"
            ),
            FrameErrorKind::PreludeCrc { expected, computed } => write!(
                f,
                "prelude checksum mismatch: expected 0x{expected:08x}, computed 0x{computed:08x}"
            ),
            FrameErrorKind::MessageCrc { expected, computed } => write!(
                f,
                "message checksum mismatch: expected 0x{expected:08x}, computed 0x{computed:08x}"
            ),
            FrameErrorKind::MessageLength { total } => write!(
                f,
                "message length {total} is impossible: expected at least 16 bytes"
            ),
            FrameErrorKind::HeadersLength { headers, total } => write!(
                f,
                "headers length {headers} does not fit in a message of {total} bytes: expected at most {}",
                total.saturating_sub(16)
            ),
            FrameErrorKind::Header(what) => write!(f, "bad header: {what}"),
        }
    }
}

/// A push parser of one framing: bytes in, [`RawFrame`]s out.
///
/// Push pieces of any size with [`push`](FrameParser::push), take every complete frame
/// with [`next_frame`](FrameParser::next_frame) until it returns `Ok(None)`, push more;
/// at the end of input call [`finish`](FrameParser::finish) and take what is left. The
/// parser holds the bytes it has not handed out, so take the frames after each push.
pub trait FrameParser {
    /// Hands over the next bytes of the stream (any size, split anywhere: inside a line,
    /// a UTF-8 sequence, a CRLF pair, an AWS prelude). Bytes pushed after
    /// [`finish`](FrameParser::finish), or after a fatal error, are dropped.
    fn push(&mut self, bytes: &[u8]);

    /// Marks the end of the input: what is left is flushed by the next calls of
    /// [`next_frame`](FrameParser::next_frame) (a last SSE event or NDJSON line without
    /// its line end), and an incomplete AWS message becomes an error.
    fn finish(&mut self);

    /// The next complete frame, `Ok(None)` when more input is needed (or, after
    /// [`finish`](FrameParser::finish), when the stream is over).
    fn next_frame(&mut self) -> Result<Option<RawFrame>, FrameError>;

    /// Every frame of a whole body: push, finish, take all. Stops at the first error.
    fn parse_body(mut self, body: &[u8]) -> Result<Vec<RawFrame>, FrameError>
    where
        Self: Sized,
    {
        self.push(body);
        self.finish();
        let mut frames = Vec::new();
        while let Some(frame) = self.next_frame()? {
            frames.push(frame);
        }
        Ok(frames)
    }
}

/// Whether a payload is the `[DONE]` terminator (surrounding whitespace allowed).
fn is_done(data: &str) -> bool {
    data.trim() == "[DONE]"
}

/// The UTF-8 byte order mark, skipped at the start of SSE and NDJSON streams.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line of a [`LineBuffer`].
enum Next<'a> {
    /// A complete line (the last one without a line end, after `finish`).
    Line {
        /// Stream offset of its first byte.
        offset: u64,
        /// Its bytes, line end excluded.
        bytes: &'a [u8],
        /// Its length with its line end.
        raw_len: usize,
    },
    /// No line end yet: `len` bytes of a line are held, starting at `offset`.
    Partial { offset: u64, len: usize },
    /// End of input and nothing left.
    End,
}

/// The byte buffer shared by the SSE and NDJSON parsers: splits pushed bytes into lines,
/// keeping its scan position between pushes, so each byte is searched once.
#[derive(Debug, Default)]
struct LineBuffer {
    /// Bytes pushed and not yet consumed start at `pos`; `buf[..pos]` are consumed.
    buf: Vec<u8>,
    /// Start of the current (incomplete) line in `buf`.
    pos: usize,
    /// Where the search for a line end goes on (`pos <= scan <= buf.len()`).
    scan: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// A CR ended the last line at the end of the bytes seen so far: a LF that comes
    /// next belongs to it (CRLF is one line end even across pushes). SSE only.
    skip_lf: bool,
    /// Whether the start of the stream was checked for a BOM.
    bom_checked: bool,
    /// `finish` was called.
    eof: bool,
    /// A CR alone ends a line (SSE); otherwise only LF does (NDJSON).
    cr_ends_line: bool,
}

impl LineBuffer {
    fn new(cr_ends_line: bool) -> Self {
        LineBuffer {
            cr_ends_line,
            ..LineBuffer::default()
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.eof {
            return;
        }
        // Drop consumed bytes once they are at least half the buffer: each byte is moved
        // at most once on average, however the caller sizes its pushes.
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.scan -= self.pos;
            self.pos = 0;
            // After a burst (a whole body pushed at once), give the memory back.
            let keep = (self.buf.len() * 2).max(64 * 1024);
            if self.buf.capacity() > keep * 2 {
                self.buf.shrink_to(keep);
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    fn finish(&mut self) {
        self.eof = true;
    }

    /// Stream offset of the next unconsumed byte.
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn next_line(&mut self) -> Next<'_> {
        if !self.bom_checked {
            let rest = &self.buf[self.pos..];
            if rest.len() < BOM.len() && BOM.starts_with(rest) && !self.eof {
                return Next::Partial {
                    offset: self.offset(),
                    len: rest.len(),
                };
            }
            if rest.starts_with(BOM) {
                self.pos += BOM.len();
                self.scan = self.scan.max(self.pos);
            }
            self.bom_checked = true;
        }
        if self.skip_lf && self.pos < self.buf.len() {
            if self.buf[self.pos] == b'\n' {
                self.pos += 1;
                self.scan = self.scan.max(self.pos);
            }
            self.skip_lf = false;
        }
        let found = if self.cr_ends_line {
            memchr::memchr2(b'\n', b'\r', &self.buf[self.scan..])
        } else {
            memchr::memchr(b'\n', &self.buf[self.scan..])
        };
        let start = self.pos;
        let offset = self.offset();
        match found {
            Some(i) => {
                let end = self.scan + i;
                let mut next = end + 1;
                if self.buf[end] == b'\r' {
                    match self.buf.get(next) {
                        Some(b'\n') => next += 1,
                        Some(_) => {}
                        None => self.skip_lf = true,
                    }
                }
                self.pos = next;
                self.scan = next;
                let mut line_end = end;
                // NDJSON: a CR before the LF belongs to the line end.
                if !self.cr_ends_line && end > start && self.buf[end - 1] == b'\r' {
                    line_end -= 1;
                }
                Next::Line {
                    offset,
                    bytes: &self.buf[start..line_end],
                    raw_len: next - start,
                }
            }
            None if self.eof && start < self.buf.len() => {
                let end = self.buf.len();
                self.pos = end;
                self.scan = end;
                let mut line_end = end;
                if !self.cr_ends_line && self.buf[end - 1] == b'\r' {
                    line_end -= 1;
                }
                Next::Line {
                    offset,
                    bytes: &self.buf[start..line_end],
                    raw_len: end - start,
                }
            }
            None if self.eof => Next::End,
            None => {
                self.scan = self.buf.len();
                if start == self.buf.len() {
                    // Everything consumed: start the buffer over (no copy).
                    self.base += start as u64;
                    self.buf.clear();
                    self.pos = 0;
                    self.scan = 0;
                }
                Next::Partial {
                    offset,
                    len: self.buf.len() - self.pos,
                }
            }
        }
    }

    /// Bytes of memory held (for the tests of the memory bound).
    fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// Text of a line, or the error naming its first invalid byte.
fn line_text(bytes: &[u8], offset: u64) -> Result<&str, FrameError> {
    std::str::from_utf8(bytes).map_err(|e| {
        FrameError::fatal(offset + e.valid_up_to() as u64, FrameErrorKind::InvalidUtf8)
    })
}

/// Writes `text` with every CR and LF replaced by a space, for a value that must stay on
/// one line (an SSE field value, an NDJSON line). For JSON text this changes nothing it
/// means: a raw line end can only be whitespace between tokens.
fn push_one_line(out: &mut String, text: &str) {
    if memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_none() {
        out.push_str(text);
    } else {
        out.extend(text.chars().map(|c| match c {
            '\n' | '\r' => ' ',
            c => c,
        }));
    }
}

/// One event of a stream, as text (what [`sse_frames`] and [`line_frames`] return; the
/// push parsers return [`RawFrame`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// An event with a JSON payload.
    Data {
        /// 1-based line where the event starts.
        line: usize,
        /// The SSE `event:` name, if there was one.
        event: Option<String>,
        /// The payload text (normally a JSON object).
        data: String,
    },
    /// The `data: [DONE]` terminator of OpenAI-style streams.
    Done {
        /// 1-based line of the terminator.
        line: usize,
    },
}

/// Splits a whole `text/event-stream` body into its events: [`SseParser`] with no size
/// limit, with byte offsets turned into 1-based line numbers (a line end is CRLF, CR or
/// LF). The line of an event is that of its first field line (`event:`, `data:`, `id:`,
/// ...; comments before it are not counted).
///
/// ```
/// use wire_types::stream::{sse_frames, Frame};
/// let body = "event: ping\ndata: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n";
/// let frames = sse_frames(body);
/// assert_eq!(frames[0], Frame::Data { line: 1, event: Some("ping".into()), data: "{\"type\":\"ping\"}".into() });
/// assert_eq!(frames[1], Frame::Done { line: 4 });
/// ```
pub fn sse_frames(text: &str) -> Vec<Frame> {
    let parser = SseParser::new(Limits {
        max_frame_bytes: usize::MAX,
    });
    let mut lines = LineCounter::new(text.as_bytes(), true);
    // Text is UTF-8 and there is no limit: the parser cannot fail. Stop quietly if it
    // ever did rather than panic.
    let frames = parser.parse_body(text.as_bytes()).unwrap_or_default();
    frames
        .into_iter()
        .map(|f| to_text_frame(f, &mut lines))
        .collect()
}

/// Splits newline-delimited JSON (Ollama streams, decoded Bedrock event streams, and the
/// one-payload-per-line `*.chunks.txt` recordings) into its non-blank lines:
/// [`NdjsonParser`] with no size limit, with 1-based line numbers.
///
/// ```
/// use wire_types::stream::{line_frames, Frame};
/// let frames = line_frames("{\"done\":false}\r\n\n{\"done\":true}");
/// assert_eq!(frames[1], Frame::Data { line: 3, event: None, data: "{\"done\":true}".into() });
/// ```
pub fn line_frames(text: &str) -> Vec<Frame> {
    let parser = NdjsonParser::new(Limits {
        max_frame_bytes: usize::MAX,
    });
    let mut lines = LineCounter::new(text.as_bytes(), false);
    // As in `sse_frames`: no error is possible for text without a limit.
    let frames = parser.parse_body(text.as_bytes()).unwrap_or_default();
    frames
        .into_iter()
        .map(|f| to_text_frame(f, &mut lines))
        .collect()
}

fn to_text_frame(frame: RawFrame, lines: &mut LineCounter<'_>) -> Frame {
    let line = lines.line_at(frame.offset);
    match frame.kind {
        FrameKind::Done => Frame::Done { line },
        _ => Frame::Data {
            line,
            event: frame.name,
            data: frame.data,
        },
    }
}

/// Turns increasing byte offsets into 1-based line numbers, in one pass over the text.
struct LineCounter<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
    cr_ends_line: bool,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a [u8], cr_ends_line: bool) -> Self {
        LineCounter {
            text,
            at: 0,
            line: 1,
            cr_ends_line,
        }
    }

    /// The line holding byte `offset` (offsets must not decrease between calls).
    fn line_at(&mut self, offset: u64) -> usize {
        let target = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.text.len());
        while self.at < target {
            let rest = &self.text[self.at..target];
            let found = if self.cr_ends_line {
                memchr::memchr2(b'\n', b'\r', rest)
            } else {
                memchr::memchr(b'\n', rest)
            };
            let Some(i) = found else {
                self.at = target;
                break;
            };
            let end = self.at + i;
            self.line += 1;
            self.at = end + 1;
            // CRLF is one line end.
            if self.text[end] == b'\r' && self.text.get(end + 1) == Some(&b'\n') {
                self.at += 1;
            }
        }
        self.line
    }
}
