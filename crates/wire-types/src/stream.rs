//! Stream framing: splitting a streamed body into the JSON texts of its events.
//!
//! Pure text functions, no I/O: the caller reads bytes however it likes and hands over
//! text. Three framings occur:
//!
//! * **SSE** (`text/event-stream`): OpenAI Chat, Responses, Anthropic, Gemini (`alt=sse`),
//!   Mistral, Cohere. `event:` lines name the event, `data:` lines (several are joined with
//!   `\n`) carry the JSON, a blank line ends the event, `:` lines are comments. OpenAI Chat
//!   and Mistral end with `data: [DONE]`, which is not JSON and is reported as
//!   [`Frame::Done`].
//! * **NDJSON**: Ollama, one JSON object per line.
//! * **Decoded AWS event-stream** (Bedrock): the binary framing is the transport's job;
//!   once decoded, each message is one JSON object, so it is read like NDJSON.

/// One event of a stream, as text.
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

/// Splits a `text/event-stream` body into its events.
///
/// ```
/// use wire_types::stream::{sse_frames, Frame};
/// let body = "event: ping\ndata: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n";
/// let frames = sse_frames(body);
/// assert_eq!(frames[0], Frame::Data { line: 1, event: Some("ping".into()), data: "{\"type\":\"ping\"}".into() });
/// assert_eq!(frames[1], Frame::Done { line: 4 });
/// ```
pub fn sse_frames(text: &str) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut event: Option<String> = None;
    let mut data: Option<String> = None;
    let mut start = 0;
    let mut flush = |event: &mut Option<String>, data: &mut Option<String>, start: usize| {
        if let Some(d) = data.take() {
            if d.trim() == "[DONE]" {
                frames.push(Frame::Done { line: start });
            } else {
                frames.push(Frame::Data {
                    line: start,
                    event: event.take(),
                    data: d,
                });
            }
        }
        *event = None;
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.is_empty() {
            flush(&mut event, &mut data, start);
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        if event.is_none() && data.is_none() {
            start = i + 1;
        }
        match field {
            "event" => event = Some(value.to_owned()),
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
    flush(&mut event, &mut data, start);
    frames
}

/// Splits newline-delimited JSON (Ollama streams, decoded Bedrock event streams, and the
/// one-payload-per-line `*.chunks.txt` recordings) into its non-blank lines.
pub fn line_frames(text: &str) -> Vec<Frame> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let l = l.strip_suffix('\r').unwrap_or(l);
            if l.trim() == "[DONE]" {
                Frame::Done { line: i + 1 }
            } else {
                Frame::Data {
                    line: i + 1,
                    event: None,
                    data: l.to_owned(),
                }
            }
        })
        .collect()
}
