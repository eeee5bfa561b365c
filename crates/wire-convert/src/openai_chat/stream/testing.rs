//! Tests of the stream decoder and encoder.

use crate::stream::{Framing, StreamDecoder, StreamEncoder, StreamPart};
use crate::{Format, Options};
use serde_json::Value;

/// One stream fixture written as `to`'s stream.
pub(crate) struct Written {
    /// The fixture, relative to `fixtures/`.
    pub(crate) name: String,
    /// Whether the source stream finished (no error, no cut-off).
    pub(crate) finished: bool,
    /// The SSE text written.
    pub(crate) text: String,
    /// Each `data:` payload but `[DONE]`, as JSON.
    pub(crate) events: Vec<Value>,
}

/// Every stream fixture of every format, decoded and written as `to`'s stream.
pub(crate) fn every_fixture_written_as(to: Format) -> Vec<Written> {
    let mut all = test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]);
    all.extend(test_support::fixtures("event-stream", &[".eventstream"]));
    let mut out = Vec::new();
    for f in all {
        let Ok(from) = f.format.parse::<Format>() else {
            continue;
        };
        let framing = if f.name.ends_with(".sse.txt") {
            Framing::Sse
        } else if f.name.ends_with(".eventstream") {
            Framing::EventStream
        } else {
            Framing::Ndjson
        };
        let bytes = std::fs::read(&f.path).unwrap();
        let Ok(mut decoder) = StreamDecoder::with_framing(from, framing, &Options::default())
        else {
            continue;
        };
        let Ok(mut parts) = decoder.push(&bytes) else {
            continue;
        };
        let Ok(rest) = decoder.finish() else { continue };
        parts.extend(rest);
        let finished = parts.iter().any(|p| matches!(p, StreamPart::Finish(_)))
            && !parts.iter().any(|p| matches!(p, StreamPart::Error(_)));
        let mut encoder = StreamEncoder::new(to, &Options::default()).unwrap();
        let mut bytes = encoder
            .encode_all(parts)
            .unwrap_or_else(|e| panic!("{}: {e}", f.rel()));
        bytes.extend(encoder.finish().unwrap());
        let text = String::from_utf8(bytes).unwrap();
        let events = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter(|d| *d != "[DONE]")
            .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("{}: {e}", f.rel())))
            .collect();
        out.push(Written {
            name: f.rel(),
            finished,
            text,
            events,
        });
    }
    out
}

/// Every finished stream fixture of `format` decoded, written back as `format`'s
/// stream and decoded again: its name, where the two accumulated bodies first differ,
/// and the encoder's losses.
pub(crate) fn written_back_as_itself(
    format: Format,
) -> Vec<(String, Option<String>, Vec<crate::Loss>)> {
    fn parts(format: Format, bytes: &[u8], framing: Framing) -> Vec<StreamPart> {
        let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).unwrap();
        let mut parts = d.push(bytes).unwrap();
        parts.extend(d.finish().unwrap());
        parts
    }
    fn body(format: Format, parts: Vec<StreamPart>) -> Option<Value> {
        let mut acc = crate::stream::Accumulator::new();
        acc.extend(parts);
        let r = acc.finish().ok()?;
        Some(
            crate::encode_response_value(r, format, &Options::default())
                .unwrap()
                .value,
        )
    }
    let name = format.to_string();
    let mut out = Vec::new();
    for f in test_support::fixtures("stream", &[".sse.txt", ".chunks.txt"]) {
        if f.format != name {
            continue;
        }
        let framing = if f.name.ends_with(".sse.txt") {
            Framing::Sse
        } else {
            Framing::Ndjson
        };
        let bytes = std::fs::read(&f.path).unwrap();
        let first = parts(format, &bytes, framing);
        let Some(original) = body(format, first.clone()) else {
            continue;
        };
        let mut e = StreamEncoder::new(format, &Options::default()).unwrap();
        let mut written = e.encode_all(first).unwrap();
        written.extend(e.finish().unwrap());
        let again = body(format, parts(format, &written, Framing::Sse));
        let difference = match again {
            Some(b) => test_support::first_difference(&original, &b),
            None => Some("the stream written back does not finish".to_owned()),
        };
        out.push((f.rel(), difference, e.losses().to_vec()));
    }
    out
}
