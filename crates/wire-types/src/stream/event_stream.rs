//! AWS event-stream (`application/vnd.amazon.eventstream`): the push parser, the writer,
//! and the decoded `{"<eventType>": payload}` form of Bedrock events.
//!
//! A message, all integers big-endian
//! (<https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html>, the
//! layout botocore's `eventstream.py` decodes):
//!
//! | bytes | field |
//! |---|---|
//! | 4 | total length (u32, the whole message, these 4 bytes included) |
//! | 4 | headers length (u32) |
//! | 4 | prelude CRC-32 (of the 8 bytes before it) |
//! | headers length | headers: name length (u8), name, value type (u8), value |
//! | the rest | payload |
//! | 4 | message CRC-32 (of everything before it) |
//!
//! Header value types: 0 true and 1 false (no bytes), 2 byte (i8), 3 short (i16),
//! 4 integer (i32), 5 long (i64), 6 byte array (u16 length, bytes), 7 string (u16 length,
//! UTF-8), 8 timestamp (i64 milliseconds since the epoch), 9 UUID (16 bytes).

use super::{FrameError, FrameErrorKind, FrameKind, FrameParser, Limits, RawFrame};
use crate::{Category, Error};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// Prelude bytes: total length, headers length, prelude CRC.
const PRELUDE: usize = 12;
/// Prelude and message CRC: the smallest possible message.
const OVERHEAD: usize = 16;

/// Push parser of AWS event-stream bodies (Bedrock `ConverseStream`).
///
/// Each message becomes one [`RawFrame`]: `:message-type` `event` (or none, or an
/// unknown one, as botocore reads them) is a [`FrameKind::Event`] named by
/// `:event-type`; `exception` a [`FrameKind::Exception`] named by `:exception-type`;
/// `error` a [`FrameKind::Error`] named by `:error-code` with the `:error-message` text
/// as data. The data of events and exceptions is the payload, which must be UTF-8 (JSON
/// for Bedrock, `:content-type` `application/json`). Other headers are checked for
/// well-formedness and skipped.
///
/// Errors, each with the byte offset of the message (or of the bad header or byte):
///
/// * fatal, the parser stops ([`FrameError::is_fatal`]): a prelude checksum mismatch, a
///   total length below 16, a headers length the message cannot hold, a total length
///   over [`Limits::max_frame_bytes`] (found from the prelude, before the message is
///   buffered), and the end of input inside a message;
/// * about one message, which is skipped so the next one is still read: a message
///   checksum mismatch, a malformed header, text that is not UTF-8, a duplicate
///   `:message-type`/`:event-type`/`:exception-type`/`:content-type`/`:error-code`/
///   `:error-message` header or one that is not a string.
///
/// ```
/// use wire_types::stream::{EventStreamParser, FrameKind, write_event_stream};
///
/// let mut body = Vec::new();
/// write_event_stream(&mut body, FrameKind::Event, "messageStart", r#"{"role":"assistant","p":"abcd"}"#);
/// let mut parser = EventStreamParser::default();
/// for byte in &body {
///     parser.push(std::slice::from_ref(byte)); // one byte at a time
/// }
/// parser.finish();
/// let frame = parser.next_frame()?.unwrap();
/// assert_eq!(frame.name.as_deref(), Some("messageStart"));
/// assert_eq!(frame.to_bedrock_json().unwrap(), r#"{"messageStart":{"role":"assistant"}}"#);
/// assert_eq!(parser.next_frame()?, None);
/// # Ok::<(), wire_types::stream::FrameError>(())
/// ```
#[derive(Debug)]
pub struct EventStreamParser {
    /// Bytes pushed; `buf[..pos]` are consumed.
    buf: Vec<u8>,
    pos: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// The checked prelude of the message at `pos`, once read.
    prelude: Option<Prelude>,
    eof: bool,
    limits: Limits,
    failed: Option<FrameError>,
}

#[derive(Debug, Clone, Copy)]
struct Prelude {
    total: usize,
    headers: usize,
}

impl Default for EventStreamParser {
    /// A parser with the default [`Limits`].
    fn default() -> Self {
        EventStreamParser::new(Limits::default())
    }
}

impl EventStreamParser {
    /// A parser enforcing `limits`.
    pub fn new(limits: Limits) -> Self {
        EventStreamParser {
            buf: Vec::new(),
            pos: 0,
            base: 0,
            prelude: None,
            eof: false,
            limits,
            failed: None,
        }
    }

    /// Hands over the next bytes of the stream (see [`FrameParser::push`]).
    pub fn push(&mut self, bytes: &[u8]) {
        if self.eof || self.failed.is_some() {
            return;
        }
        // As for the line parsers: drop consumed bytes once they are half the buffer.
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
            let keep = (self.buf.len() * 2).max(64 * 1024);
            if self.buf.capacity() > keep * 2 {
                self.buf.shrink_to(keep);
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Marks the end of input (see [`FrameParser::finish`]): a message still incomplete
    /// is then an error.
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// The next complete message, `Ok(None)` when more input is needed or the stream is
    /// over (see [`FrameParser::next_frame`]). After a fatal error, returns it again;
    /// after an error about one message, goes on with the next.
    pub fn next_frame(&mut self) -> Result<Option<RawFrame>, FrameError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        match self.advance() {
            Err(err) if err.is_fatal() => {
                self.failed = Some(err.clone());
                Err(err)
            }
            other => other,
        }
    }

    fn advance(&mut self) -> Result<Option<RawFrame>, FrameError> {
        let avail = self.buf.len() - self.pos;
        let start = self.base + self.pos as u64;
        let prelude = match self.prelude {
            Some(prelude) => prelude,
            None => {
                if avail < PRELUDE {
                    if self.eof && avail > 0 {
                        return Err(truncated(start, PRELUDE, avail));
                    }
                    if avail == 0 {
                        self.base += self.pos as u64;
                        self.buf.clear();
                        self.pos = 0;
                    }
                    return Ok(None);
                }
                let prelude = self.read_prelude(start)?;
                self.prelude = Some(prelude);
                prelude
            }
        };
        if avail < prelude.total {
            if self.eof {
                return Err(truncated(start, prelude.total, avail));
            }
            return Ok(None);
        }
        self.prelude = None;
        let at = self.pos;
        self.pos += prelude.total;
        let message = &self.buf[at..at + prelude.total];
        let (body, crc) = message.split_at(prelude.total - 4);
        let expected = be32(crc);
        let computed = crc32fast::hash(body);
        if expected != computed {
            return Err(FrameError::skipped(
                start,
                FrameErrorKind::MessageCrc { expected, computed },
            ));
        }
        decode(body, start, prelude.headers).map(Some)
    }

    /// Reads and checks the prelude at `pos` (at least 12 bytes are there).
    fn read_prelude(&self, start: u64) -> Result<Prelude, FrameError> {
        let bytes = &self.buf[self.pos..self.pos + PRELUDE];
        let total = be32(&bytes[0..4]);
        let headers = be32(&bytes[4..8]);
        let expected = be32(&bytes[8..12]);
        let computed = crc32fast::hash(&bytes[..8]);
        if expected != computed {
            return Err(FrameError::fatal(
                start,
                FrameErrorKind::PreludeCrc { expected, computed },
            ));
        }
        let total_len = usize::try_from(total).unwrap_or(usize::MAX);
        if total_len < OVERHEAD {
            return Err(FrameError::fatal(
                start,
                FrameErrorKind::MessageLength { total },
            ));
        }
        let limit = self.limits.max_frame_bytes;
        if total_len > limit {
            return Err(FrameError::fatal(start, FrameErrorKind::TooLarge { limit }));
        }
        let headers_len = usize::try_from(headers).unwrap_or(usize::MAX);
        if headers_len > total_len - OVERHEAD {
            return Err(FrameError::fatal(
                start,
                FrameErrorKind::HeadersLength { headers, total },
            ));
        }
        Ok(Prelude {
            total: total_len,
            headers: headers_len,
        })
    }

    /// Bytes of memory the parser holds: what the memory-bound tests measure. Not part
    /// of the stable API.
    #[doc(hidden)]
    pub fn held_capacity(&self) -> usize {
        self.buf.capacity()
    }
}

impl FrameParser for EventStreamParser {
    fn push(&mut self, bytes: &[u8]) {
        EventStreamParser::push(self, bytes);
    }

    fn finish(&mut self) {
        EventStreamParser::finish(self);
    }

    fn next_frame(&mut self) -> Result<Option<RawFrame>, FrameError> {
        EventStreamParser::next_frame(self)
    }
}

fn be32(bytes: &[u8]) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&bytes[..4]);
    u32::from_be_bytes(b)
}

fn truncated(start: u64, needed: usize, found: usize) -> FrameError {
    FrameError::fatal(
        start,
        FrameErrorKind::Truncated {
            needed: needed as u64,
            found: found as u64,
        },
    )
}

/// The headers this parser reads (string values only).
#[derive(Default)]
struct Known<'a> {
    message_type: Option<&'a str>,
    event_type: Option<&'a str>,
    exception_type: Option<&'a str>,
    content_type: Option<&'a str>,
    error_code: Option<&'a str>,
    error_message: Option<&'a str>,
}

/// Reads the headers and payload of a message whose checksums are sound (`body` is the
/// message without its CRC; `start` its stream offset).
fn decode(body: &[u8], start: u64, headers_len: usize) -> Result<RawFrame, FrameError> {
    let headers = &body[PRELUDE..PRELUDE + headers_len];
    let payload = &body[PRELUDE + headers_len..];
    let headers_at = start + PRELUDE as u64;
    let mut known = Known::default();
    let mut i = 0;
    while i < headers.len() {
        let at = headers_at + i as u64;
        let bad = |what: String| FrameError::skipped(at, FrameErrorKind::Header(what));
        let name_len = usize::from(headers[i]);
        i += 1;
        let Some(name) = headers.get(i..i + name_len) else {
            return Err(bad(format!(
                "a name of {name_len} bytes runs past the end of the headers"
            )));
        };
        let name = text(name, headers_at + i as u64)?;
        i += name_len;
        let Some(&kind) = headers.get(i) else {
            return Err(bad(format!("{name} ends before its value type")));
        };
        i += 1;
        let size = match kind {
            0 | 1 => 0,
            2 => 1,
            3 => 2,
            4 => 4,
            5 | 8 => 8,
            9 => 16,
            6 | 7 => {
                let Some(len) = headers.get(i..i + 2) else {
                    return Err(bad(format!("{name} ends before its value length")));
                };
                i += 2;
                usize::from(u16::from_be_bytes([len[0], len[1]]))
            }
            other => {
                return Err(bad(format!(
                    "{name} has value type {other}: expected 0 to 9"
                )));
            }
        };
        let Some(value) = headers.get(i..i + size) else {
            return Err(bad(format!(
                "the value of {name} runs past the end of the headers: expected {size} bytes, found {}",
                headers.len() - i
            )));
        };
        let value_at = headers_at + i as u64;
        i += size;
        let slot = match name {
            ":message-type" => &mut known.message_type,
            ":event-type" => &mut known.event_type,
            ":exception-type" => &mut known.exception_type,
            ":content-type" => &mut known.content_type,
            ":error-code" => &mut known.error_code,
            ":error-message" => &mut known.error_message,
            _ => continue,
        };
        if kind != 7 {
            return Err(bad(format!(
                "{name} has value type {kind}: expected 7 (string)"
            )));
        }
        if slot.is_some() {
            return Err(bad(format!("{name} appears twice: expected it once")));
        }
        *slot = Some(text(value, value_at)?);
    }
    let payload_at = headers_at + headers_len as u64;
    let data = text(payload, payload_at)?;
    let (kind, name, data) = match known.message_type {
        Some("exception") => (FrameKind::Exception, known.exception_type, data),
        Some("error") => (
            FrameKind::Error,
            known.error_code,
            known.error_message.unwrap_or(data),
        ),
        _ => (FrameKind::Event, known.event_type, data),
    };
    Ok(RawFrame {
        offset: start,
        name: name.map(str::to_owned),
        data: data.to_owned(),
        id: None,
        retry: None,
        kind,
    })
}

/// UTF-8 text, or the error naming its first bad byte (the message is skipped).
fn text(bytes: &[u8], offset: u64) -> Result<&str, FrameError> {
    std::str::from_utf8(bytes).map_err(|e| {
        FrameError::skipped(offset + e.valid_up_to() as u64, FrameErrorKind::InvalidUtf8)
    })
}

/// Appends one AWS event-stream message with correct checksums:
///
/// * [`FrameKind::Event`]: headers `:event-type` = `name`, `:content-type` =
///   `application/json`, `:message-type` = `event`; payload `data`;
/// * [`FrameKind::Exception`]: `:exception-type` = `name`, `:content-type`,
///   `:message-type` = `exception`; payload `data` (the exception's JSON body);
/// * [`FrameKind::Error`]: `:error-code` = `name`, `:error-message` = `data`,
///   `:message-type` = `error`; no payload;
/// * [`FrameKind::Done`]: nothing (event streams have no terminator).
///
/// This is the header order Bedrock sends. The format holds a header value of at most
/// 65535 bytes and a message of at most 4 GiB: longer values are cut at a character
/// boundary.
///
/// ```
/// use wire_types::stream::{FrameKind, FrameParser, EventStreamParser, write_event_stream};
/// let mut out = Vec::new();
/// write_event_stream(&mut out, FrameKind::Exception, "throttlingException", r#"{"message":"slow down"}"#);
/// // 12 bytes of prelude, 97 of headers, 23 of payload, 4 of checksum.
/// assert_eq!(out.len(), 136);
/// let frame = &EventStreamParser::default().parse_body(&out)?[0];
/// assert_eq!((frame.kind, frame.name.as_deref()), (FrameKind::Exception, Some("throttlingException")));
/// # Ok::<(), wire_types::stream::FrameError>(())
/// ```
pub fn write_event_stream(out: &mut Vec<u8>, kind: FrameKind, name: &str, data: &str) {
    let (headers, payload): ([(&str, &str); 3], &str) = match kind {
        FrameKind::Event => (
            [
                (":event-type", name),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            data,
        ),
        FrameKind::Exception => (
            [
                (":exception-type", name),
                (":content-type", "application/json"),
                (":message-type", "exception"),
            ],
            data,
        ),
        FrameKind::Error => (
            [
                (":error-code", name),
                (":error-message", data),
                (":message-type", "error"),
            ],
            "",
        ),
        FrameKind::Done => return,
    };
    let headers = headers.map(|(name, value)| (name, cut(value, usize::from(u16::MAX))));
    let headers_len: usize = headers
        .iter()
        .map(|(name, value)| 1 + name.len() + 1 + 2 + value.len())
        .sum();
    let payload = cut(payload, u32::MAX as usize - OVERHEAD - headers_len);
    let total = OVERHEAD + headers_len + payload.len();
    let start = out.len();
    out.reserve(total);
    // Both fit: header values are cut to u16, the payload so that the total fits a u32.
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(headers_len as u32).to_be_bytes());
    let prelude_crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    for (name, value) in headers {
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.push(7);
        out.extend_from_slice(&(value.len() as u16).to_be_bytes());
        out.extend_from_slice(value.as_bytes());
    }
    out.extend_from_slice(payload.as_bytes());
    let message_crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&message_crc.to_be_bytes());
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

impl RawFrame {
    /// The JSON text of this frame in the decoded form boto3, the JS SDK and the Vercel AI
    /// SDK hand out for a Bedrock stream event: `{"<name>": payload}`, which
    /// [`bedrock::StreamEvent`](crate::bedrock::StreamEvent) reads. The padding key `p`
    /// that Bedrock adds to payloads (random characters that hide the event's length)
    /// is dropped from the payload's top level, as the Vercel AI SDK does.
    ///
    /// An exception reads `{"<exceptionType>": payload}` (`{"throttlingException":
    /// {"message": "..."}}`), an error `{"<errorCode>": {"message": "<errorMessage>"}}`;
    /// an empty payload reads as `{}`. The payload is not built into a tree: without `p`
    /// it is copied as is; with `p`, its other members are copied as they are.
    ///
    /// Errors: a frame with no name or of kind [`FrameKind::Done`], and a payload that is
    /// not JSON (with the line and column where reading stopped).
    ///
    /// ```
    /// use wire_types::stream::{FrameKind, RawFrame};
    /// let frame = RawFrame {
    ///     offset: 0,
    ///     name: Some("contentBlockDelta".into()),
    ///     data: r#"{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHI"}"#.into(),
    ///     id: None,
    ///     retry: None,
    ///     kind: FrameKind::Event,
    /// };
    /// let json = frame.to_bedrock_json()?;
    /// assert_eq!(json, r#"{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}"#);
    /// let event: wire_types::bedrock::StreamEvent = wire_types::from_str(&json)?;
    /// # Ok::<(), wire_types::Error>(())
    /// ```
    pub fn to_bedrock_json(&self) -> Result<String, Error> {
        if self.kind == FrameKind::Done {
            return Err(Error::new(
                Category::Shape,
                "",
                "a [DONE] frame has no bedrock form: expected an event, exception or error",
            ));
        }
        let Some(name) = &self.name else {
            return Err(Error::new(
                Category::Shape,
                "",
                "frame has no name: expected an :event-type, :exception-type or :error-code header",
            ));
        };
        let mut out = String::with_capacity(name.len() + self.data.len() + 8);
        out.push('{');
        out.push_str(&crate::to_string(name));
        out.push(':');
        if self.kind == FrameKind::Error {
            out.push_str("{\"message\":");
            out.push_str(&crate::to_string(&self.data));
            out.push_str("}}");
            return Ok(out);
        }
        let payload = self
            .data
            .trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
        if payload.is_empty() {
            out.push_str("{}}");
            return Ok(out);
        }
        match serde_json::from_str::<Members<'_>>(payload) {
            Ok(Members::Object(members)) if members.iter().any(|(key, _)| key == "p") => {
                out.push('{');
                let mut first = true;
                for (key, value) in members.iter().filter(|(key, _)| key != "p") {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&crate::to_string(key));
                    out.push(':');
                    out.push_str(value.get());
                }
                out.push('}');
            }
            Ok(_) => out.push_str(payload),
            Err(first) => {
                // The slow path names where reading stopped.
                return Err(match crate::from_str::<IgnoredAny>(payload) {
                    Err(err) => err,
                    Ok(_) => Error::new(Category::Syntax, "", first.to_string()),
                });
            }
        }
        out.push('}');
        Ok(out)
    }
}

/// A JSON value read only as far as its top-level members: an object's members with
/// their values as raw text, or "something else".
enum Members<'a> {
    Object(Vec<(String, &'a RawValue)>),
    Other,
}

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
            members.push(member);
        }
        Ok(Members::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Members::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Members::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Members::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Members::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Members::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Members::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Members::Other)
    }
}
