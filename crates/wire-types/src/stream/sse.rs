//! SSE (`text/event-stream`): the push parser and the writers.
//!
//! Parsing follows the WHATWG HTML "event stream interpretation" rules
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>),
//! with three deliberate differences: invalid UTF-8 is an error instead of U+FFFD, an
//! event still open at the end of input is dispatched instead of discarded (real servers
//! omit the final blank line), and `id`/`retry` belong to the event they appear in.

use super::{
    FrameError, FrameErrorKind, FrameKind, FrameParser, Limits, LineBuffer, Next, RawFrame,
    is_done, line_text, push_one_line,
};

/// Push parser of `text/event-stream` bodies.
///
/// * Fields `event`, `data`, `id`, `retry`; other fields are ignored; a line without a
///   colon is a field with an empty value; one space after the colon is stripped.
/// * Several `data` lines are joined with `\n`; an event without `data` lines is not
///   dispatched (its `event`, `id` and `retry` are dropped with it), a `data:` line with
///   nothing after it gives an event with empty data.
/// * Lines starting with `:` are comments, skipped. A line ends with CRLF, CR or LF, also
///   when the CR and the LF arrive in different pushes. A leading UTF-8 BOM is skipped.
/// * Data that is `[DONE]` (surrounding whitespace allowed) is a [`FrameKind::Done`]
///   frame, never handed on as JSON.
/// * At [`finish`](SseParser::finish), an event not followed by a blank line is still
///   dispatched (the spec discards it; real servers often omit the last blank line).
/// * Invalid UTF-8 (also a sequence cut by a line end) is an error naming its byte, and
///   so is an event larger than [`Limits::max_frame_bytes`]; both stop the parser.
///
/// ```
/// use wire_types::stream::{FrameKind, SseParser};
///
/// let mut parser = SseParser::default();
/// parser.push(b"event: message_start\r\ndata: {\"a\":\r\ndata: 1}\r");
/// parser.push(b"\n\r\n: keep-alive\n\ndata: [DONE]");
/// let first = parser.next_frame()?.unwrap();
/// assert_eq!(first.name.as_deref(), Some("message_start"));
/// assert_eq!(first.data, "{\"a\":\n1}");
/// assert_eq!(parser.next_frame()?, None); // `data: [DONE]` has no blank line yet
/// parser.finish();
/// let last = parser.next_frame()?.unwrap();
/// assert_eq!((last.kind, last.offset), (FrameKind::Done, 61));
/// assert_eq!(parser.next_frame()?, None);
/// # Ok::<(), wire_types::stream::FrameError>(())
/// ```
#[derive(Debug)]
pub struct SseParser {
    lines: LineBuffer,
    limits: Limits,
    event: Pending,
    failed: Option<FrameError>,
}

/// The event being read.
#[derive(Debug, Default)]
struct Pending {
    /// Offset of its first field line; `None` until one comes.
    start: Option<u64>,
    name: Option<String>,
    data: String,
    has_data: bool,
    id: Option<String>,
    retry: Option<u64>,
    /// Bytes of its field lines so far, line ends included.
    bytes: usize,
}

impl Pending {
    /// The frame, if the event has data; the event is cleared either way.
    fn dispatch(&mut self) -> Option<RawFrame> {
        let event = std::mem::take(self);
        if !event.has_data {
            return None;
        }
        let kind = if is_done(&event.data) {
            FrameKind::Done
        } else {
            FrameKind::Event
        };
        Some(RawFrame {
            offset: event.start.unwrap_or(0),
            name: event.name,
            data: event.data,
            id: event.id,
            retry: event.retry,
            kind,
        })
    }

    /// Reads one field line (not blank, not a comment).
    fn field(&mut self, line: &str) {
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.name = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
    }
}

impl Default for SseParser {
    /// A parser with the default [`Limits`].
    fn default() -> Self {
        SseParser::new(Limits::default())
    }
}

impl SseParser {
    /// A parser enforcing `limits`.
    pub fn new(limits: Limits) -> Self {
        SseParser {
            lines: LineBuffer::new(true),
            limits,
            event: Pending::default(),
            failed: None,
        }
    }

    /// Hands over the next bytes of the stream (see [`FrameParser::push`]).
    pub fn push(&mut self, bytes: &[u8]) {
        if self.failed.is_none() {
            self.lines.push(bytes);
        }
    }

    /// Marks the end of input (see [`FrameParser::finish`]).
    pub fn finish(&mut self) {
        self.lines.finish();
    }

    /// The next complete event, `Ok(None)` when more input is needed or the stream is
    /// over (see [`FrameParser::next_frame`]). After an error, returns it again.
    pub fn next_frame(&mut self) -> Result<Option<RawFrame>, FrameError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        match self.advance() {
            Err(err) => {
                self.failed = Some(err.clone());
                Err(err)
            }
            ok => ok,
        }
    }

    fn advance(&mut self) -> Result<Option<RawFrame>, FrameError> {
        let limit = self.limits.max_frame_bytes;
        loop {
            match self.lines.next_line() {
                Next::Line {
                    offset,
                    bytes,
                    raw_len,
                } => {
                    let line = line_text(bytes, offset)?;
                    if line.is_empty() {
                        if let Some(frame) = self.event.dispatch() {
                            return Ok(Some(frame));
                        }
                        continue;
                    }
                    if line.starts_with(':') {
                        // Not kept, so not counted; but a comment too long to hold is
                        // refused as it is while it arrives (see `Partial`).
                        if self.event.bytes.saturating_add(raw_len) > limit {
                            let start = self.event.start.unwrap_or(offset);
                            return Err(FrameError::fatal(
                                start,
                                FrameErrorKind::TooLarge { limit },
                            ));
                        }
                        continue;
                    }
                    let start = *self.event.start.get_or_insert(offset);
                    self.event.bytes = self.event.bytes.saturating_add(raw_len);
                    if self.event.bytes > limit {
                        return Err(FrameError::fatal(start, FrameErrorKind::TooLarge { limit }));
                    }
                    self.event.field(line);
                }
                Next::Partial { offset, len } => {
                    if self.event.bytes.saturating_add(len) > limit {
                        let start = self.event.start.unwrap_or(offset);
                        return Err(FrameError::fatal(start, FrameErrorKind::TooLarge { limit }));
                    }
                    return Ok(None);
                }
                Next::End => return Ok(self.event.dispatch()),
            }
        }
    }

    /// Bytes of memory the parser holds (its buffer and the event being read): what the
    /// memory-bound tests measure. Not part of the stable API.
    #[doc(hidden)]
    pub fn held_capacity(&self) -> usize {
        self.lines.capacity()
            + self.event.data.capacity()
            + self.event.name.as_ref().map_or(0, String::capacity)
            + self.event.id.as_ref().map_or(0, String::capacity)
    }
}

impl FrameParser for SseParser {
    fn push(&mut self, bytes: &[u8]) {
        SseParser::push(self, bytes);
    }

    fn finish(&mut self) {
        SseParser::finish(self);
    }

    fn next_frame(&mut self) -> Result<Option<RawFrame>, FrameError> {
        SseParser::next_frame(self)
    }
}

/// Appends one SSE event: an `event:` line if `name` is given, one `data:` line per line
/// of `data` (a payload holding line ends is split, as the format requires; the parser
/// joins the lines with `\n`, so a CRLF or CR in `data` reads back as LF), and the blank
/// line. `write_sse(out, None, "[DONE]")` writes the OpenAI terminator. Line ends in
/// `name` cannot be written and become spaces.
///
/// ```
/// use wire_types::stream::write_sse;
/// let mut out = String::new();
/// write_sse(&mut out, Some("ping"), "{\"type\":\"ping\"}");
/// write_sse(&mut out, None, "[DONE]");
/// assert_eq!(out, "event: ping\ndata: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n");
/// ```
pub fn write_sse(out: &mut String, name: Option<&str>, data: &str) {
    if let Some(name) = name {
        out.push_str("event: ");
        push_one_line(out, name);
        out.push('\n');
    }
    write_data(out, data);
    out.push('\n');
}

/// Appends a whole [`RawFrame`] as an SSE event: `id:` and `retry:` lines when the frame
/// has them, then as [`write_sse`]. Any kind is written the same way (a
/// [`FrameKind::Done`] frame's data is `[DONE]`).
///
/// ```
/// use wire_types::stream::{FrameParser, SseParser, write_sse_frame};
/// let body = "id: 7\nretry: 3000\nevent: delta\ndata: {\"a\":1}\n\n";
/// let frames = SseParser::default().parse_body(body.as_bytes())?;
/// let mut out = String::new();
/// write_sse_frame(&mut out, &frames[0]);
/// assert_eq!(out, body);
/// # Ok::<(), wire_types::stream::FrameError>(())
/// ```
pub fn write_sse_frame(out: &mut String, frame: &RawFrame) {
    if let Some(id) = &frame.id {
        out.push_str("id: ");
        push_one_line(out, id);
        out.push('\n');
    }
    if let Some(retry) = frame.retry {
        out.push_str("retry: ");
        out.push_str(&retry.to_string());
        out.push('\n');
    }
    write_sse(out, frame.name.as_deref(), &frame.data);
}

/// One `data:` line per line of `data` (split at CRLF, CR and LF).
fn write_data(out: &mut String, data: &str) {
    let mut rest = data;
    loop {
        out.push_str("data: ");
        match memchr::memchr2(b'\n', b'\r', rest.as_bytes()) {
            Some(i) => {
                out.push_str(&rest[..i]);
                out.push('\n');
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
            None => {
                out.push_str(rest);
                out.push('\n');
                return;
            }
        }
    }
}
