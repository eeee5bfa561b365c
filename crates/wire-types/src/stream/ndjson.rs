//! NDJSON (newline-delimited JSON): the push parser and the writer.

use super::{
    FrameError, FrameErrorKind, FrameKind, FrameParser, Limits, LineBuffer, Next, RawFrame,
    is_done, line_text, push_one_line,
};

/// Push parser of newline-delimited JSON: Ollama streams, and Bedrock events in their
/// decoded one-object-per-line form (`*.chunks.txt` recordings).
///
/// * A line ends with LF; a CR before the LF is part of the line end (CRLF). A CR alone
///   does not end a line (JSON text never holds a raw CR outside whitespace).
/// * Blank lines (nothing but whitespace) are skipped. A leading UTF-8 BOM is skipped.
/// * A line that is `[DONE]` (surrounding whitespace allowed) is a [`FrameKind::Done`]
///   frame; every other line is an [`FrameKind::Event`] whose data is the line as is.
/// * At [`finish`](NdjsonParser::finish), a last line without a line end is returned.
/// * Invalid UTF-8, and a line longer than [`Limits::max_frame_bytes`], are errors that
///   stop the parser.
///
/// ```
/// use wire_types::stream::NdjsonParser;
///
/// let mut parser = NdjsonParser::default();
/// parser.push(b"{\"done\":false}\r\n\n{\"do");
/// assert_eq!(parser.next_frame()?.unwrap().data, "{\"done\":false}");
/// assert_eq!(parser.next_frame()?, None);
/// parser.push(b"ne\":true}");
/// parser.finish();
/// let last = parser.next_frame()?.unwrap();
/// assert_eq!((last.offset, last.data.as_str()), (17, "{\"done\":true}"));
/// # Ok::<(), wire_types::stream::FrameError>(())
/// ```
#[derive(Debug)]
pub struct NdjsonParser {
    lines: LineBuffer,
    limits: Limits,
    failed: Option<FrameError>,
}

impl Default for NdjsonParser {
    /// A parser with the default [`Limits`].
    fn default() -> Self {
        NdjsonParser::new(Limits::default())
    }
}

impl NdjsonParser {
    /// A parser enforcing `limits`.
    pub fn new(limits: Limits) -> Self {
        NdjsonParser {
            lines: LineBuffer::new(false),
            limits,
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

    /// The next non-blank line, `Ok(None)` when more input is needed or the stream is
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
                Next::Line { offset, bytes, .. } => {
                    if bytes.len() > limit {
                        return Err(FrameError::fatal(
                            offset,
                            FrameErrorKind::TooLarge { limit },
                        ));
                    }
                    let line = line_text(bytes, offset)?;
                    if line.trim().is_empty() {
                        continue;
                    }
                    let kind = if is_done(line) {
                        FrameKind::Done
                    } else {
                        FrameKind::Event
                    };
                    return Ok(Some(RawFrame {
                        offset,
                        name: None,
                        data: line.to_owned(),
                        id: None,
                        retry: None,
                        kind,
                    }));
                }
                Next::Partial { offset, len } => {
                    // A held CR may still turn out to be part of a CRLF: allow one byte.
                    if len > limit.saturating_add(1) {
                        return Err(FrameError::fatal(
                            offset,
                            FrameErrorKind::TooLarge { limit },
                        ));
                    }
                    return Ok(None);
                }
                Next::End => return Ok(None),
            }
        }
    }

    /// Bytes of memory the parser holds: what the memory-bound tests measure. Not part
    /// of the stable API.
    #[doc(hidden)]
    pub fn held_capacity(&self) -> usize {
        self.lines.capacity()
    }
}

impl FrameParser for NdjsonParser {
    fn push(&mut self, bytes: &[u8]) {
        NdjsonParser::push(self, bytes);
    }

    fn finish(&mut self) {
        NdjsonParser::finish(self);
    }

    fn next_frame(&mut self) -> Result<Option<RawFrame>, FrameError> {
        NdjsonParser::next_frame(self)
    }
}

/// Appends one NDJSON line: `data` and a LF. `data` must be one line (compact JSON
/// always is); a CR or LF in it is written as a space, which for JSON text changes
/// nothing it means. `write_ndjson(out, "[DONE]")` writes a terminator line.
///
/// ```
/// use wire_types::stream::write_ndjson;
/// let mut out = String::new();
/// write_ndjson(&mut out, "{\"done\":false}");
/// write_ndjson(&mut out, "{\n  \"done\": true\n}");
/// assert_eq!(out, "{\"done\":false}\n{   \"done\": true }\n");
/// ```
pub fn write_ndjson(out: &mut String, data: &str) {
    push_one_line(out, data);
    out.push('\n');
}
