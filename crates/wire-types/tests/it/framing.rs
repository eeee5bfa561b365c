//! Stream framing on every stream fixture: the same frames however the body is split
//! (at random, between CR and LF, inside UTF-8 sequences and AWS preludes), with CRLF
//! and CR line ends; the AWS event-stream vectors of `fixtures/bedrock/event-stream/`
//! read as botocore reads them (`botocore-decoded.json`, written by `generate.py`); the
//! writers' output read back; memory bounded by the limit.

use crate::support::fixtures_dir;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use wire_types::stream::{
    EventStreamParser, Frame, FrameError, FrameErrorKind, FrameKind, FrameParser, Limits,
    NdjsonParser, RawFrame, SseParser, line_frames, sse_frames, write_event_stream, write_ndjson,
    write_sse_frame,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    Sse,
    Ndjson,
    EventStream,
}

fn parser(framing: Framing, limits: Limits) -> Box<dyn FrameParser> {
    match framing {
        Framing::Sse => Box::new(SseParser::new(limits)),
        Framing::Ndjson => Box::new(NdjsonParser::new(limits)),
        Framing::EventStream => Box::new(EventStreamParser::new(limits)),
    }
}

/// Pushes `pieces` one by one, taking every frame after each push, then finishes: every
/// result up to and including a fatal error (errors about one message do not stop it).
fn run(framing: Framing, pieces: &[&[u8]]) -> Vec<Result<RawFrame, FrameError>> {
    let mut parser = parser(framing, Limits::default());
    let mut out = Vec::new();
    let drain = |parser: &mut Box<dyn FrameParser>, out: &mut Vec<_>| -> bool {
        loop {
            match parser.next_frame() {
                Ok(Some(frame)) => out.push(Ok(frame)),
                Ok(None) => return true,
                Err(err) => {
                    let fatal = err.is_fatal();
                    out.push(Err(err));
                    if fatal {
                        return false;
                    }
                }
            }
        }
    };
    for piece in pieces {
        parser.push(piece);
        if !drain(&mut parser, &mut out) {
            return out;
        }
    }
    parser.finish();
    drain(&mut parser, &mut out);
    out
}

/// One body to frame: a fixture file, or a variant of one.
struct Case {
    name: String,
    framing: Framing,
    body: Vec<u8>,
    /// Cut positions worth trying: between a CR and its LF, inside a UTF-8 sequence,
    /// inside an AWS prelude.
    interesting: Vec<usize>,
    /// The results of pushing the body whole.
    whole: Vec<Result<RawFrame, FrameError>>,
}

fn stream_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for format in std::fs::read_dir(fixtures_dir()).unwrap() {
        let dir = format.unwrap().path().join("stream");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            files.extend(entries.map(|e| e.unwrap().path()));
        }
    }
    files.sort();
    files
}

fn event_stream_files() -> Vec<PathBuf> {
    let dir = fixtures_dir().join("bedrock/event-stream");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "eventstream"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The body with every line end (`\r\n` or `\n`) made `end`.
fn with_line_ends(body: &[u8], end: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() * 2);
    for (i, &b) in body.iter().enumerate() {
        if b == b'\n' {
            out.extend_from_slice(end);
        } else if !(b == b'\r' && body.get(i + 1) == Some(&b'\n')) {
            out.push(b);
        }
    }
    out
}

/// Each non-blank line of a `.chunks.txt` recording as the `data:` of one SSE event.
fn chunks_as_sse(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in body.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.extend_from_slice(b"\n\n");
    }
    out
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut raw: Vec<(String, Framing, Vec<u8>)> = Vec::new();
        for path in stream_files() {
            let name = file_name(&path);
            let body = std::fs::read(&path).unwrap();
            if name.ends_with(".sse.txt") {
                raw.push((
                    format!("{name} (crlf)"),
                    Framing::Sse,
                    with_line_ends(&body, b"\r\n"),
                ));
                raw.push((
                    format!("{name} (cr)"),
                    Framing::Sse,
                    with_line_ends(&body, b"\r"),
                ));
                raw.push((name, Framing::Sse, body));
            } else if name.ends_with(".chunks.txt") {
                let sse = chunks_as_sse(&body);
                raw.push((
                    format!("{name} (sse, crlf)"),
                    Framing::Sse,
                    with_line_ends(&sse, b"\r\n"),
                ));
                raw.push((format!("{name} (sse)"), Framing::Sse, sse));
                raw.push((
                    format!("{name} (ndjson, crlf)"),
                    Framing::Ndjson,
                    with_line_ends(&body, b"\r\n"),
                ));
                raw.push((name, Framing::Ndjson, body));
            } else if name.ends_with(".ndjson") {
                raw.push((
                    format!("{name} (crlf)"),
                    Framing::Ndjson,
                    with_line_ends(&body, b"\r\n"),
                ));
                raw.push((name, Framing::Ndjson, body));
            } else {
                panic!("{name}: a stream fixture of no known framing");
            }
        }
        for path in event_stream_files() {
            raw.push((
                file_name(&path),
                Framing::EventStream,
                std::fs::read(&path).unwrap(),
            ));
        }
        raw.into_iter()
            .map(|(name, framing, body)| {
                let whole = run(framing, &[&body]);
                let mut interesting = Vec::new();
                for i in 1..body.len() {
                    let between_cr_lf = body[i - 1] == b'\r' && body[i] == b'\n';
                    let inside_utf8 = framing != Framing::EventStream && (body[i] & 0xC0) == 0x80;
                    if between_cr_lf || inside_utf8 {
                        interesting.push(i);
                    }
                }
                if framing == Framing::EventStream {
                    for frame in whole.iter().flatten() {
                        let start = frame.offset as usize;
                        interesting.extend([1, 4, 8, 11, 12, 13].map(|k| start + k));
                    }
                    interesting.retain(|&i| i < body.len());
                }
                Case {
                    name,
                    framing,
                    body,
                    interesting,
                    whole,
                }
            })
            .collect()
    })
}

fn split<'a>(body: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut at = 0;
    for &cut in cuts {
        if cut > at && cut <= body.len() {
            pieces.push(&body[at..cut]);
            at = cut;
        }
    }
    pieces.push(&body[at..]);
    pieces
}

#[test]
fn the_cases_cover_every_framing_and_the_tricky_cuts() {
    let cases = cases();
    for framing in [Framing::Sse, Framing::Ndjson, Framing::EventStream] {
        assert!(cases.iter().any(|c| c.framing == framing), "{framing:?}");
    }
    // Every valid body gives frames and no error: the comparisons below are not empty.
    for case in cases.iter().filter(|c| !c.name.starts_with("invalid-")) {
        assert!(!case.whole.is_empty(), "{}", case.name);
        assert!(
            case.whole.iter().all(Result::is_ok),
            "{}: {:?}",
            case.name,
            case.whole
        );
    }
    let has = |f: fn(&[u8], usize) -> bool| {
        cases
            .iter()
            .any(|c| c.interesting.iter().any(|&i| f(&c.body, i)))
    };
    assert!(
        has(|b, i| b[i - 1] == b'\r' && b[i] == b'\n'),
        "a cut between CR and LF"
    );
    assert!(
        has(|b, i| b[i] & 0xC0 == 0x80),
        "a cut inside a UTF-8 sequence"
    );
}

#[test]
fn every_stream_fixture_frames_the_same_one_byte_at_a_time() {
    for case in cases() {
        let pieces: Vec<&[u8]> = case.body.chunks(1).collect();
        assert_eq!(run(case.framing, &pieces), case.whole, "{}", case.name);
    }
}

#[test]
fn every_stream_fixture_frames_the_same_cut_at_every_tricky_position() {
    for case in cases() {
        let pieces = split(&case.body, &case.interesting);
        assert_eq!(run(case.framing, &pieces), case.whole, "{}", case.name);
    }
}

proptest! {
    #[test]
    fn every_stream_fixture_frames_the_same_however_it_is_split(
        which in any::<Index>(),
        random in prop::collection::vec(any::<Index>(), 0..24),
        tricky in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let cases = cases();
        let case = &cases[which.index(cases.len())];
        let mut cuts: Vec<usize> = random.iter().map(|i| i.index(case.body.len() + 1)).collect();
        if !case.interesting.is_empty() {
            cuts.extend(tricky.iter().map(|i| case.interesting[i.index(case.interesting.len())]));
        }
        cuts.sort_unstable();
        cuts.dedup();
        let pieces = split(&case.body, &cuts);
        prop_assert_eq!(run(case.framing, &pieces), case.whole.clone(), "{}", &case.name);
    }
}

/// What an event means, without where it was.
fn meaning(frame: &RawFrame) -> (FrameKind, Option<&str>, &str, Option<&str>, Option<u64>) {
    (
        frame.kind,
        frame.name.as_deref(),
        &frame.data,
        frame.id.as_deref(),
        frame.retry,
    )
}

#[test]
fn crlf_and_cr_line_ends_give_the_same_events_as_lf() {
    let cases = cases();
    let mut checked = 0;
    for case in cases {
        for suffix in [" (crlf)", " (cr)"] {
            let Some(base) = case.name.strip_suffix(suffix) else {
                continue;
            };
            let lf = cases.iter().find(|c| c.name == base).unwrap();
            let a: Vec<_> = case.whole.iter().flatten().map(meaning).collect();
            let b: Vec<_> = lf.whole.iter().flatten().map(meaning).collect();
            assert_eq!(a, b, "{}", case.name);
            checked += 1;
        }
    }
    assert!(checked > 10);
}

/// The whole-body splitter as it was before the push parsers (LF line ends), kept as an
/// independent check of the wrappers that replaced it.
fn old_sse_frames(text: &str) -> Vec<Frame> {
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

/// As [`old_sse_frames`], for line-delimited bodies.
fn old_line_frames(text: &str) -> Vec<Frame> {
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

#[test]
fn the_whole_body_wrappers_give_what_they_gave_before() {
    let mut checked = 0;
    for case in cases() {
        if case.name.ends_with("(cr)") || case.framing == Framing::EventStream {
            // CR-only line ends were not line ends to the old splitter.
            continue;
        }
        let text = std::str::from_utf8(&case.body).unwrap();
        let (new, old) = match case.framing {
            Framing::Sse => (sse_frames(text), old_sse_frames(text)),
            _ => (line_frames(text), old_line_frames(text)),
        };
        assert_eq!(new, old, "{}", case.name);
        checked += new.len();
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn writer_output_reads_back_to_the_same_events() {
    for case in cases() {
        let frames: Vec<&RawFrame> = case.whole.iter().flatten().collect();
        let again = match case.framing {
            Framing::Sse => {
                let mut out = String::new();
                for frame in &frames {
                    write_sse_frame(&mut out, frame);
                }
                run(Framing::Sse, &[out.as_bytes()])
            }
            Framing::Ndjson => {
                let mut out = String::new();
                for frame in &frames {
                    write_ndjson(&mut out, &frame.data);
                }
                run(Framing::Ndjson, &[out.as_bytes()])
            }
            Framing::EventStream => {
                let mut out = Vec::new();
                for frame in &frames {
                    write_event_stream(
                        &mut out,
                        frame.kind,
                        frame.name.as_deref().unwrap_or(""),
                        &frame.data,
                    );
                }
                run(Framing::EventStream, &[&out])
            }
        };
        let again: Vec<_> = again.into_iter().map(Result::unwrap).collect();
        let a: Vec<_> = again.iter().map(meaning).collect();
        let b: Vec<_> = frames.iter().map(|f| meaning(f)).collect();
        assert_eq!(a, b, "{}", case.name);
    }
}

// --- AWS event-stream vectors ------------------------------------------------------

fn botocore_decoded() -> Value {
    let path = fixtures_dir().join("bedrock/event-stream/botocore-decoded.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn event_stream_vectors_read_as_botocore_reads_them() {
    let decoded = botocore_decoded();
    let files = decoded["files"].as_object().unwrap();
    assert_eq!(files.len(), event_stream_files().len());
    let mut messages_checked = 0;
    for (name, expected) in files {
        let body = std::fs::read(fixtures_dir().join("bedrock/event-stream").join(name)).unwrap();
        assert_eq!(
            body.len() as u64,
            expected["bytes"].as_u64().unwrap(),
            "{name}"
        );
        let got = run(Framing::EventStream, &[&body]);
        let messages = expected["messages"].as_array().unwrap();
        for (i, message) in messages.iter().enumerate() {
            let header = |h: &str| {
                message["headers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["name"] == h)
                    .and_then(|x| x["value"].as_str())
            };
            let offset = message["offset"].as_u64().unwrap();
            let Some(payload) = message["payload"]["text"].as_str() else {
                // botocore hands out bytes that are not UTF-8; the parser refuses them
                // as text and skips the message.
                let err = got[i].as_ref().unwrap_err();
                assert_eq!(err.kind(), &FrameErrorKind::InvalidUtf8, "{name}");
                assert!(!err.is_fatal() && err.offset() > offset, "{name}");
                continue;
            };
            let frame = got[i]
                .as_ref()
                .unwrap_or_else(|e| panic!("{name} #{i}: {e}"));
            let (kind, name_header, data) = match header(":message-type") {
                Some("exception") => (FrameKind::Exception, ":exception-type", payload),
                Some("error") => (
                    FrameKind::Error,
                    ":error-code",
                    header(":error-message").unwrap_or(payload),
                ),
                _ => (FrameKind::Event, ":event-type", payload),
            };
            assert_eq!(frame.offset, offset, "{name} #{i}");
            assert_eq!(frame.kind, kind, "{name} #{i}");
            assert_eq!(frame.name.as_deref(), header(name_header), "{name} #{i}");
            assert_eq!(frame.data, data, "{name} #{i}");
            messages_checked += 1;
        }
        if expected["end"] == "complete" {
            assert_eq!(got.len(), messages.len(), "{name}: {got:?}");
        } else {
            // What follows is checked by `invalid_event_stream_vectors_fail_where_they_break`.
            assert!(got.len() > messages.len(), "{name}: {got:?}");
        }
    }
    assert!(messages_checked > 60, "{messages_checked}");
}

#[test]
fn invalid_event_stream_vectors_fail_where_they_break() {
    // (file, results: Ok(offset of a frame) or Err(display of the error, fatal)).
    // Offsets by hand: the first message (`messageStart`, `{"role":"assistant"}`) is
    // 12 + 82 (headers) + 20 + 4 = 118 bytes; the second (`contentBlockStop`) 125.
    type Want = Result<u64, (&'static str, bool)>;
    let cases: [(&str, &[Want]); 8] = [
        (
            "invalid-prelude-crc.eventstream",
            &[
                Ok(0),
                Err((
                    "byte 118: prelude checksum mismatch: expected 0xe7680fd6, computed 0xe6680fd6",
                    true,
                )),
            ],
        ),
        (
            "invalid-message-crc.eventstream",
            &[
                Err((
                    "byte 0: message checksum mismatch: expected 0x6fa8c599, computed 0xfa2ce13b",
                    false,
                )),
                Ok(118),
            ],
        ),
        (
            "invalid-total-too-small.eventstream",
            &[Err((
                "byte 0: message length 15 is impossible: expected at least 16 bytes",
                true,
            ))],
        ),
        (
            "invalid-headers-too-long.eventstream",
            &[Err((
                "byte 0: headers length 100 does not fit in a message of 40 bytes: expected at most 24",
                true,
            ))],
        ),
        (
            // Headers start after the 12-byte prelude; the message is 16 + 5 + 2 = 23.
            "invalid-header-type.eventstream",
            &[
                Err((
                    "byte 12: bad header: abc has value type 10: expected 0 to 9",
                    false,
                )),
                Ok(23),
            ],
        ),
        (
            "invalid-truncated.eventstream",
            &[
                Ok(0),
                Err((
                    "byte 118: stream ended inside a message: expected 12 bytes, found 10",
                    true,
                )),
            ],
        ),
        (
            "invalid-truncated-payload.eventstream",
            &[
                Ok(0),
                Err((
                    "byte 118: stream ended inside a message: expected 125 bytes, found 120",
                    true,
                )),
            ],
        ),
        (
            // Prelude 12, headers 16 + 22, `{"a":"` 6: 0xFF is byte 56; the message is 63.
            "invalid-payload-utf8.eventstream",
            &[
                Err(("byte 56: invalid utf-8: expected text", false)),
                Ok(63),
            ],
        ),
    ];
    assert_eq!(
        cases.len(),
        event_stream_files()
            .iter()
            .filter(|p| file_name(p).starts_with("invalid-"))
            .count()
    );
    for (name, want) in cases {
        let body = std::fs::read(fixtures_dir().join("bedrock/event-stream").join(name)).unwrap();
        let got: Vec<Result<u64, (String, bool)>> = run(Framing::EventStream, &[&body])
            .into_iter()
            .map(|r| {
                r.map(|f| f.offset)
                    .map_err(|e| (e.to_string(), e.is_fatal()))
            })
            .collect();
        let want: Vec<Result<u64, (String, bool)>> = want
            .iter()
            .map(|w| w.map_err(|(text, fatal)| (text.to_owned(), fatal)))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

fn chunks_lines(stem: &str) -> Vec<String> {
    let path = fixtures_dir().join(format!("bedrock/stream/{stem}.chunks.txt"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn binary_bedrock_streams_decode_to_the_lines_of_their_recordings() {
    let mut checked = 0;
    for path in stream_files() {
        let name = file_name(&path);
        let Some(stem) = name.strip_suffix(".chunks.txt") else {
            continue;
        };
        if !path
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .ends_with("bedrock")
        {
            continue;
        }
        let body =
            std::fs::read(fixtures_dir().join(format!("bedrock/event-stream/{stem}.eventstream")))
                .unwrap();
        let frames = EventStreamParser::default().parse_body(&body).unwrap();
        let decoded: Vec<String> = frames
            .iter()
            .map(|f| f.to_bedrock_json().unwrap())
            .collect();
        // Byte for byte: the padding `p` dropped, nothing else changed.
        assert_eq!(decoded, chunks_lines(stem), "{stem}");
        for json in &decoded {
            wire_types::from_str::<wire_types::bedrock::StreamEvent>(json)
                .unwrap_or_else(|e| panic!("{stem}: {json}: {e}"));
        }
        // The payloads do carry padding: the test above is not vacuous.
        assert!(frames.iter().any(|f| f.data.contains("\"p\":")), "{stem}");
        checked += 1;
    }
    // Every Bedrock recording has its binary form (a missing one fails above): the five
    // captures at least.
    assert!(checked >= 5, "{checked}");
}

#[test]
fn the_event_stream_writer_writes_the_bytes_botocore_checked() {
    // Every message of these files was written in the header order the writer uses, so
    // writing their frames again must give the same bytes, which botocore read back.
    let mut checked = 0;
    for path in event_stream_files() {
        let name = file_name(&path);
        if name.starts_with("invalid-") || name == "handmade-all-header-types.eventstream" {
            continue;
        }
        let body = std::fs::read(&path).unwrap();
        let frames = EventStreamParser::default().parse_body(&body).unwrap();
        let mut out = Vec::new();
        for frame in &frames {
            write_event_stream(
                &mut out,
                frame.kind,
                frame.name.as_deref().unwrap_or(""),
                &frame.data,
            );
        }
        if name == "handmade-empty-payload.eventstream" {
            // Its second message has only an `:event-type` header: compare the first.
            let first = frames[1].offset as usize;
            assert_eq!(out[..first], body[..first], "{name}");
        } else {
            assert_eq!(out, body, "{name}");
        }
        checked += 1;
    }
    assert!(checked >= 7, "{checked}");
}

// --- limits ------------------------------------------------------------------------

/// Pushes `count` copies of `event` in pieces of `piece` bytes, draining after each
/// push; the largest memory held after the first 100 events and after all of them.
fn held_while_pushing(
    parser: &mut dyn Held,
    event: &[u8],
    count: usize,
    piece: usize,
) -> (usize, usize) {
    let body = event.repeat(count);
    let mut max = 0;
    let mut max_early = 0;
    let mut frames = 0;
    for (i, chunk) in body.chunks(piece).enumerate() {
        parser.push(chunk);
        while let Some(frame) = parser.next_frame().unwrap() {
            assert!(!frame.data.is_empty());
            frames += 1;
        }
        max = max.max(parser.held());
        if (i + 1) * piece <= event.len() * 100 {
            max_early = max;
        }
    }
    parser.finish();
    while parser.next_frame().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, count);
    (max_early, max)
}

trait Held: FrameParser {
    fn held(&self) -> usize;
}

impl Held for SseParser {
    fn held(&self) -> usize {
        self.held_capacity()
    }
}

impl Held for NdjsonParser {
    fn held(&self) -> usize {
        self.held_capacity()
    }
}

impl Held for EventStreamParser {
    fn held(&self) -> usize {
        self.held_capacity()
    }
}

#[test]
fn memory_held_does_not_grow_with_the_length_of_the_stream() {
    let sse = b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n";
    let ndjson = b"{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"done\":false}\n";
    let mut aws = Vec::new();
    write_event_stream(
        &mut aws,
        FrameKind::Event,
        "contentBlockDelta",
        r#"{"contentBlockIndex":0,"delta":{"text":"Hello"},"p":"abcdefghijkl"}"#,
    );
    for piece in [7, 64, 1000] {
        let runs: [(Box<dyn Held>, &[u8]); 3] = [
            (Box::new(SseParser::default()), sse),
            (Box::new(NdjsonParser::default()), ndjson),
            (Box::new(EventStreamParser::default()), &aws),
        ];
        for (mut parser, event) in runs {
            let (early, all) = held_while_pushing(&mut *parser, event, 10_000, piece);
            // 10 000 events (about 1 MB): no more memory than after the first 100, and
            // no more than a few events' worth.
            assert_eq!(early, all, "piece {piece}");
            assert!(all <= 4 * (event.len() + piece), "piece {piece}: {all}");
        }
    }
}

#[test]
fn an_event_that_never_ends_is_refused_at_the_limit() {
    const LIMIT: usize = 64 * 1024;
    let limits = Limits {
        max_frame_bytes: LIMIT,
    };
    let line = [b"data: ".as_slice(), &[b'x'; 1000], b"\n"].concat();
    let mut sse = SseParser::new(limits);
    let mut pushed = 0;
    let err = loop {
        sse.push(&line);
        pushed += line.len();
        match sse.next_frame() {
            Ok(None) => assert!(pushed < 2 * LIMIT, "no error after {pushed} bytes"),
            Ok(Some(frame)) => panic!("an event without its blank line: {frame:?}"),
            Err(err) => break err,
        }
    };
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::TooLarge { limit: LIMIT })
    );
    // Refused as soon as the limit was crossed, holding about the limit.
    assert!(pushed <= LIMIT + line.len(), "{pushed}");
    assert!(sse.held_capacity() <= 3 * LIMIT, "{}", sse.held_capacity());

    // An NDJSON line that never ends, pushed a byte at a time.
    let mut ndjson = NdjsonParser::new(limits);
    let mut pushed = 0;
    let err = loop {
        ndjson.push(b"x");
        pushed += 1;
        if let Err(err) = ndjson.next_frame() {
            break err;
        }
        assert!(pushed <= 2 * LIMIT);
    };
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::TooLarge { limit: LIMIT })
    );
    assert_eq!(pushed, LIMIT + 2);
    assert!(ndjson.held_capacity() <= 3 * LIMIT);

    // An AWS prelude announcing 1 GiB: refused from the prelude, nothing buffered.
    let mut prelude = (1u32 << 30).to_be_bytes().to_vec();
    prelude.extend(0u32.to_be_bytes());
    prelude.extend(crc32fast::hash(&prelude).to_be_bytes());
    let mut aws = EventStreamParser::new(limits);
    aws.push(&prelude);
    let err = aws.next_frame().unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::TooLarge { limit: LIMIT })
    );
}
