//! Unit tests of the framing rules, one test per rule; each error with its offset.
//! Expected offsets are counted by hand in the comments.

use super::*;

fn sse(body: &[u8]) -> Result<Vec<RawFrame>, FrameError> {
    SseParser::default().parse_body(body)
}

fn ndjson(body: &[u8]) -> Result<Vec<RawFrame>, FrameError> {
    NdjsonParser::default().parse_body(body)
}

fn aws(body: &[u8]) -> Result<Vec<RawFrame>, FrameError> {
    EventStreamParser::default().parse_body(body)
}

fn event(offset: u64, name: Option<&str>, data: &str) -> RawFrame {
    RawFrame {
        offset,
        name: name.map(str::to_owned),
        data: data.to_owned(),
        id: None,
        retry: None,
        kind: FrameKind::Event,
    }
}

/// Pushes `pieces` one by one, taking frames after each; then finishes. Every result,
/// up to and including a fatal error.
fn pushed(parser: &mut dyn FrameParser, pieces: &[&[u8]]) -> Vec<Result<RawFrame, FrameError>> {
    let mut out = Vec::new();
    let drain = |parser: &mut dyn FrameParser, out: &mut Vec<_>| {
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
        if !drain(parser, &mut out) {
            return out;
        }
    }
    parser.finish();
    drain(parser, &mut out);
    out
}

fn datas(frames: &[RawFrame]) -> Vec<&str> {
    frames.iter().map(|f| f.data.as_str()).collect()
}

// --- SSE ---------------------------------------------------------------------------

#[test]
fn sse_event_and_data_fields_make_one_frame() {
    let frames = sse(b"event: ping\ndata: {\"type\":\"ping\"}\n\n").unwrap();
    assert_eq!(frames, [event(0, Some("ping"), "{\"type\":\"ping\"}")]);
}

#[test]
fn sse_unknown_fields_are_ignored() {
    let frames = sse(b"foo: bar\ndata: x\nbaz\n\n").unwrap();
    // The event starts at its first field line, the unknown `foo`.
    assert_eq!(frames, [event(0, None, "x")]);
}

#[test]
fn sse_a_line_without_colon_is_a_field_with_empty_value() {
    let frames = sse(b"data\n\nevent\ndata: x\n\n").unwrap();
    // `data` alone: an event with empty data; `event` alone: an empty name.
    assert_eq!(frames, [event(0, None, ""), event(6, Some(""), "x")]);
}

#[test]
fn sse_strips_exactly_one_space_after_the_colon() {
    let frames = sse(b"data:  two\n\ndata:none\n\nevent:x\ndata: a:b\n\n").unwrap();
    assert_eq!(datas(&frames), [" two", "none", "a:b"]);
    assert_eq!(frames[2].name.as_deref(), Some("x"));
}

#[test]
fn sse_joins_multi_line_data_with_lf() {
    let frames = sse(b"data: {\"a\":\ndata: 1}\ndata:\n\n").unwrap();
    assert_eq!(datas(&frames), ["{\"a\":\n1}\n"]);
}

#[test]
fn sse_skips_comments() {
    let frames = sse(b": hello\ndata: x\n: between\ndata: y\n\n:\n\n").unwrap();
    // The event starts at `data: x` (byte 8), not at the comment before it; the lone
    // comment event after it is no event.
    assert_eq!(frames, [event(8, None, "x\ny")]);
}

#[test]
fn sse_accepts_crlf_cr_and_lf_line_ends() {
    let frames = sse(b"data: a\r\rdata: b\r\n\r\ndata: c\n\ndata: d\r\n\n").unwrap();
    // `data: a\r` + `\r` (blank) = 9 bytes; `data: b\r\n\r\n` = 11; `data: c\n\n` = 9.
    assert_eq!(
        frames,
        [
            event(0, None, "a"),
            event(9, None, "b"),
            event(20, None, "c"),
            event(29, None, "d")
        ]
    );
}

#[test]
fn sse_cr_and_lf_in_different_pushes_are_one_line_end() {
    let got = pushed(
        &mut SseParser::default(),
        &[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"],
    );
    // Were the LFs line ends of their own, they would be blank lines splitting events.
    assert_eq!(got, [Ok(event(0, None, "a\nb"))]);
}

#[test]
fn sse_a_cr_at_the_end_of_a_push_is_a_line_end_at_once() {
    let mut parser = SseParser::default();
    parser.push(b"data: a\r\r");
    // Both CRs are line ends already: the event is complete without waiting for a LF.
    assert_eq!(parser.next_frame().unwrap(), Some(event(0, None, "a")));
    parser.push(b"\ndata: b\n\n");
    assert_eq!(parser.next_frame().unwrap(), Some(event(10, None, "b")));
}

#[test]
fn sse_skips_a_leading_bom_even_split_across_pushes() {
    let body = b"\xEF\xBB\xBFdata: x\n\n";
    assert_eq!(sse(body).unwrap(), [event(3, None, "x")]);
    let got = pushed(
        &mut SseParser::default(),
        &[b"\xEF", b"\xBB", b"\xBFdata: x\n\n"],
    );
    assert_eq!(got, [Ok(event(3, None, "x"))]);
    // Only at the start: later, U+FEFF is part of a field name (`\u{feff}data`, unknown).
    let frames = sse(b"data: x\n\n\xEF\xBB\xBFdata: y\n\n").unwrap();
    assert_eq!(datas(&frames), ["x"]);
}

#[test]
fn sse_a_short_body_that_starts_like_a_bom_is_still_read() {
    // Two bytes that could begin a BOM, then the end: they are a line of invalid UTF-8.
    let err = sse(b"\xEF\xBB").unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::InvalidUtf8)
    );
}

#[test]
fn sse_reads_utf8_sequences_split_across_pushes() {
    // `é` is C3 A9, `☃` is E2 98 83: each cut in the middle.
    let got = pushed(
        &mut SseParser::default(),
        &[b"data: caf\xC3", b"\xA9 \xE2", b"\x98", b"\x83\n\n"],
    );
    assert_eq!(got, [Ok(event(0, None, "café ☃"))]);
}

#[test]
fn sse_invalid_utf8_is_a_fatal_error_naming_its_byte() {
    let mut parser = SseParser::default();
    parser.push(b"data: ok\n\ndata: a\xFFb\n\ndata: later\n\n");
    assert_eq!(parser.next_frame().unwrap(), Some(event(0, None, "ok")));
    let err = parser.next_frame().unwrap_err();
    // `data: ok\n\n` is 10 bytes, `data: a` 7 more: 0xFF is byte 17.
    assert_eq!(err.offset(), 17);
    assert_eq!(err.kind(), &FrameErrorKind::InvalidUtf8);
    assert!(err.is_fatal());
    assert_eq!(err.to_string(), "byte 17: invalid utf-8: expected text");
    // Stopped for good: the same error again, never a quiet end.
    assert_eq!(parser.next_frame().unwrap_err(), err);
}

#[test]
fn after_a_fatal_error_pushed_bytes_are_dropped() {
    let more = vec![b'x'; 1 << 16];
    let mut sse = SseParser::default();
    sse.push(b"data: \xFF\n");
    assert!(sse.next_frame().is_err());
    let before = sse.held_capacity();
    let mut ndjson = NdjsonParser::default();
    ndjson.push(b"\xFF\n");
    assert!(ndjson.next_frame().is_err());
    let mut aws = EventStreamParser::default();
    aws.push(&[0; 12]);
    assert!(aws.next_frame().is_err());
    for _ in 0..16 {
        sse.push(&more);
        ndjson.push(&more);
        aws.push(&more);
    }
    assert_eq!(sse.held_capacity(), before);
    assert!(ndjson.held_capacity() < more.len());
    assert!(aws.held_capacity() < more.len());
    assert!(sse.next_frame().unwrap_err().is_fatal());
}

#[test]
fn sse_a_utf8_sequence_cut_by_a_line_end_is_an_error() {
    let err = sse(b"data: \xC3\n\n").unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (6, &FrameErrorKind::InvalidUtf8)
    );
}

#[test]
fn sse_done_is_its_own_frame() {
    let frames = sse(b"data: {}\n\ndata: [DONE]\n\ndata:  [DONE] \n\n").unwrap();
    assert_eq!(frames[0].kind, FrameKind::Event);
    assert_eq!(frames[1].kind, FrameKind::Done);
    assert_eq!(frames[1].data, "[DONE]");
    assert_eq!(frames[2].kind, FrameKind::Done);
    // Not `[DONE]`: a JSON string that happens to contain it.
    let frames = sse(b"data: \"[DONE]\"\n\n").unwrap();
    assert_eq!(frames[0].kind, FrameKind::Event);
}

#[test]
fn sse_an_event_without_data_is_not_dispatched() {
    let frames = sse(b"event: x\nid: 1\nretry: 5\n\ndata: y\n\n").unwrap();
    // Nothing of the dataless event leaks into the next one.
    assert_eq!(frames, [event(25, None, "y")]);
}

#[test]
fn sse_reads_id_and_retry_of_each_event() {
    let frames = sse(b"id: 5\nretry: 1000\ndata: a\n\n\
          retry: 1e3\nid: a\0b\ndata: b\n\n\
          id\nretry: 99999999999999999999999\ndata: c\n\n")
    .unwrap();
    assert_eq!(frames[0].id.as_deref(), Some("5"));
    assert_eq!(frames[0].retry, Some(1000));
    // `1e3` is not all digits; an id holding NUL is ignored; neither carries over.
    assert_eq!((frames[1].id.as_deref(), frames[1].retry), (None, None));
    // `id` alone is an empty id; a retry too large for u64 is ignored.
    assert_eq!((frames[2].id.as_deref(), frames[2].retry), (Some(""), None));
}

#[test]
fn sse_finish_dispatches_an_event_without_its_blank_line() {
    for body in [&b"data: x"[..], b"data: x\n", b"data: x\r", b"data: x\r\n"] {
        let mut parser = SseParser::default();
        parser.push(body);
        assert_eq!(parser.next_frame().unwrap(), None, "{body:?}");
        parser.finish();
        assert_eq!(
            parser.next_frame().unwrap(),
            Some(event(0, None, "x")),
            "{body:?}"
        );
        assert_eq!(parser.next_frame().unwrap(), None, "{body:?}");
    }
}

#[test]
fn sse_ignores_bytes_pushed_after_finish() {
    let mut parser = SseParser::default();
    parser.push(b"data: x\n\n");
    parser.finish();
    parser.push(b"data: y\n\n");
    assert_eq!(datas(&[parser.next_frame().unwrap().unwrap()]), ["x"]);
    assert_eq!(parser.next_frame().unwrap(), None);
}

fn limited(max: usize) -> Limits {
    Limits {
        max_frame_bytes: max,
    }
}

#[test]
fn sse_an_event_over_the_limit_fails_as_soon_as_it_crosses_it() {
    // One line of 46 bytes, no line end yet, limit 32: refused before the line ends.
    let mut parser = SseParser::new(limited(32));
    parser.push(b"data: ok\n\n");
    assert!(parser.next_frame().unwrap().is_some());
    parser.push(&[b"data: ".as_slice(), &[b'x'; 40]].concat());
    let err = parser.next_frame().unwrap_err();
    // The event starts after `data: ok\n\n` (10 bytes).
    assert_eq!(err.offset(), 10);
    assert_eq!(err.kind(), &FrameErrorKind::TooLarge { limit: 32 });
    assert_eq!(
        err.to_string(),
        "byte 10: event larger than the limit of 32 bytes (Limits::max_frame_bytes)"
    );
    // Many short lines that never end the event: refused when their sum crosses it.
    let body = b"event: e\ndata: 0123456789\ndata: 0123456789\ndata: 0123456789\n";
    let err = SseParser::new(limited(32)).parse_body(body).unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::TooLarge { limit: 32 })
    );
    // At the limit exactly is fine: `data: 0123456789\n` is 17 bytes, twice is 34.
    let frames = SseParser::new(limited(34))
        .parse_body(b"data: 0123456789\ndata: 0123456789\n\n")
        .unwrap();
    assert_eq!(frames.len(), 1);
}

#[test]
fn sse_comments_are_not_added_up_but_a_huge_one_is_refused() {
    let mut body = b": keep-alive\n".repeat(100);
    body.extend_from_slice(b"data: x\n\n");
    let frames = SseParser::new(limited(16)).parse_body(&body).unwrap();
    assert_eq!(datas(&frames), ["x"]);
    let err = SseParser::new(limited(16))
        .parse_body(b": a comment much longer than sixteen bytes\n")
        .unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::TooLarge { limit: 16 })
    );
}

// --- NDJSON ------------------------------------------------------------------------

#[test]
fn ndjson_splits_lines_skips_blank_ones_and_strips_crlf() {
    let frames = ndjson(b"{\"a\":1}\r\n\n  \t\n{\"b\":2}\n").unwrap();
    // `{"a":1}\r\n` 9 bytes, `\n` 1, `  \t\n` 4: the second line starts at 14.
    assert_eq!(
        frames,
        [event(0, None, "{\"a\":1}"), event(14, None, "{\"b\":2}")]
    );
}

#[test]
fn ndjson_finish_returns_a_last_line_without_newline() {
    let mut parser = NdjsonParser::default();
    parser.push(b"{}\n{\"done\":true}");
    assert_eq!(parser.next_frame().unwrap(), Some(event(0, None, "{}")));
    assert_eq!(parser.next_frame().unwrap(), None);
    parser.finish();
    assert_eq!(
        parser.next_frame().unwrap(),
        Some(event(3, None, "{\"done\":true}"))
    );
    assert_eq!(parser.next_frame().unwrap(), None);
}

#[test]
fn ndjson_done_line_is_its_own_frame() {
    let frames = ndjson(b"{}\n [DONE] \r\n").unwrap();
    assert_eq!(frames[1].kind, FrameKind::Done);
    assert_eq!(frames[1].data, " [DONE] ");
}

#[test]
fn ndjson_a_cr_alone_does_not_end_a_line() {
    assert_eq!(
        ndjson(b"{\"a\":\r1}\n").unwrap(),
        [event(0, None, "{\"a\":\r1}")]
    );
}

#[test]
fn ndjson_crlf_split_across_pushes() {
    let got = pushed(
        &mut NdjsonParser::default(),
        &[b"{}\r", b"\n{\"b\"", b":1}\r"],
    );
    // The last line's CR (no LF ever came) is still taken as its line end.
    assert_eq!(
        got,
        [Ok(event(0, None, "{}")), Ok(event(4, None, "{\"b\":1}"))]
    );
}

#[test]
fn ndjson_reads_utf8_split_across_pushes_and_refuses_invalid_utf8() {
    let got = pushed(&mut NdjsonParser::default(), &[b"\"\xE2\x98", b"\x83\"\n"]);
    assert_eq!(got, [Ok(event(0, None, "\"☃\""))]);
    let err = ndjson(b"{}\n\"\xE2\x98\"\n").unwrap_err();
    // The sequence E2 98 lacks its third byte: it starts at byte 4.
    assert_eq!(
        (err.offset(), err.kind()),
        (4, &FrameErrorKind::InvalidUtf8)
    );
    assert!(err.is_fatal());
}

#[test]
fn ndjson_a_line_over_the_limit_fails_as_soon_as_it_crosses_it() {
    let mut parser = NdjsonParser::new(limited(8));
    parser.push(b"{}\n{\"a\":\"12345");
    assert!(parser.next_frame().unwrap().is_some());
    let err = parser.next_frame().unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (3, &FrameErrorKind::TooLarge { limit: 8 })
    );
    // Eight bytes and a CRLF: at the limit, fine, also with the CR held alone.
    let got = pushed(
        &mut NdjsonParser::new(limited(8)),
        &[b"{\"a\":12}\r", b"\n"],
    );
    assert_eq!(got, [Ok(event(0, None, "{\"a\":12}"))]);
}

#[test]
fn ndjson_skips_a_leading_bom() {
    assert_eq!(ndjson(b"\xEF\xBB\xBF{}\n").unwrap(), [event(3, None, "{}")]);
}

// --- AWS event-stream --------------------------------------------------------------

fn message(kind: FrameKind, name: &str, data: &str) -> Vec<u8> {
    let mut out = Vec::new();
    write_event_stream(&mut out, kind, name, data);
    out
}

#[test]
fn aws_each_message_type_reads_back_as_written() {
    let mut body = message(FrameKind::Event, "messageStart", "{\"role\":\"assistant\"}");
    let second = body.len() as u64;
    body.extend(message(
        FrameKind::Exception,
        "throttlingException",
        "{\"message\":\"slow\"}",
    ));
    let third = body.len() as u64;
    body.extend(message(FrameKind::Error, "InternalFailure", "it broke"));
    // Done has no event-stream form: nothing is written.
    assert!(message(FrameKind::Done, "x", "[DONE]").is_empty());
    let frames = aws(&body).unwrap();
    let want = |offset, name: &str, data: &str, kind| RawFrame {
        kind,
        ..event(offset, Some(name), data)
    };
    assert_eq!(
        frames,
        [
            want(
                0,
                "messageStart",
                "{\"role\":\"assistant\"}",
                FrameKind::Event
            ),
            want(
                second,
                "throttlingException",
                "{\"message\":\"slow\"}",
                FrameKind::Exception
            ),
            want(third, "InternalFailure", "it broke", FrameKind::Error),
        ]
    );
}

#[test]
fn aws_a_message_pushed_one_byte_at_a_time_reads_whole() {
    let body = [
        message(FrameKind::Event, "a", "{}"),
        message(FrameKind::Event, "b", "{\"x\":\"é\"}"),
    ]
    .concat();
    let pieces: Vec<&[u8]> = body.chunks(1).collect();
    let got = pushed(&mut EventStreamParser::default(), &pieces);
    let whole: Vec<_> = aws(&body).unwrap().into_iter().map(Ok).collect();
    assert_eq!(got, whole);
    assert_eq!(got.len(), 2);
}

/// A message with a correct prelude and message CRC around `headers` and `payload`.
fn raw_message(headers: &[u8], payload: &[u8]) -> Vec<u8> {
    let total = (16 + headers.len() + payload.len()) as u32;
    let mut out = total.to_be_bytes().to_vec();
    out.extend((headers.len() as u32).to_be_bytes());
    out.extend(crc32fast::hash(&out).to_be_bytes());
    out.extend(headers);
    out.extend(payload);
    out.extend(crc32fast::hash(&out).to_be_bytes());
    out
}

fn string_header(name: &str, value: &str) -> Vec<u8> {
    let mut out = vec![name.len() as u8];
    out.extend(name.as_bytes());
    out.push(7);
    out.extend((value.len() as u16).to_be_bytes());
    out.extend(value.as_bytes());
    out
}

#[test]
fn aws_a_message_without_message_type_is_an_event() {
    let body = raw_message(&string_header(":event-type", "messageStop"), b"{}");
    assert_eq!(aws(&body).unwrap(), [event(0, Some("messageStop"), "{}")]);
}

#[test]
fn aws_bad_headers_skip_only_their_message() {
    let good = message(FrameKind::Event, "ok", "{}");
    // Headers start at byte 12, after the prelude.
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            [
                string_header(":event-type", "a"),
                string_header(":event-type", "b"),
            ]
            .concat(),
            // The second header starts after the first's 1 + 11 + 1 + 2 + 1 = 16 bytes.
            "byte 28: bad header: :event-type appears twice: expected it once",
        ),
        (
            // `:event-type` as a 4-byte integer.
            [&[11u8][..], b":event-type", &[4, 0, 0, 0, 1]].concat(),
            "byte 12: bad header: :event-type has value type 4: expected 7 (string)",
        ),
        (
            // A name length of 20 in a 5-byte header section.
            vec![20, b'a', b'b', b'c', b'd'],
            "byte 12: bad header: a name of 20 bytes runs past the end of the headers",
        ),
        (
            // A string value announcing 300 bytes.
            [&[1u8][..], b"x", &[7, 1, 44, b'a']].concat(),
            "byte 12: bad header: the value of x runs past the end of the headers: expected 300 bytes, found 1",
        ),
        (
            vec![1, b'x'],
            "byte 12: bad header: x ends before its value type",
        ),
    ];
    for (headers, text) in cases {
        let body = [raw_message(&headers, b"{}"), good.clone()].concat();
        let mut parser = EventStreamParser::default();
        parser.push(&body);
        parser.finish();
        let err = parser.next_frame().unwrap_err();
        assert_eq!(err.to_string(), text);
        assert!(!err.is_fatal(), "{text}");
        assert!(matches!(err.kind(), FrameErrorKind::Header(_)), "{text}");
        // The next message is read.
        let next = parser.next_frame().unwrap().unwrap();
        assert_eq!(next.name.as_deref(), Some("ok"));
        assert_eq!(next.offset, (body.len() - good.len()) as u64);
    }
}

#[test]
fn aws_a_message_over_the_limit_fails_from_its_prelude() {
    let body = message(FrameKind::Event, "e", &"x".repeat(200));
    let mut parser = EventStreamParser::new(limited(100));
    // Only the prelude has arrived: the length is known, so is the verdict.
    parser.push(&body[..12]);
    let err = parser.next_frame().unwrap_err();
    assert_eq!(
        (err.offset(), err.kind()),
        (0, &FrameErrorKind::TooLarge { limit: 100 })
    );
    assert!(err.is_fatal());
    assert_eq!(parser.next_frame().unwrap_err(), err);
}

#[test]
fn aws_a_stream_ending_inside_a_message_is_an_error() {
    let good = message(FrameKind::Event, "a", "{}");
    let n = good.len() as u64;
    for cut in [1, 11, 12, good.len() - 1] {
        let body = [&good[..], &good[..cut]].concat();
        let got = pushed(&mut EventStreamParser::default(), &[&body]);
        let err = got[1].as_ref().unwrap_err();
        let needed = if cut < 12 { 12 } else { n };
        assert_eq!(err.offset(), n);
        assert_eq!(
            err.kind(),
            &FrameErrorKind::Truncated {
                needed,
                found: cut as u64
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "byte {n}: stream ended inside a message: expected {needed} bytes, found {cut}"
            )
        );
    }
    // Before `finish`, an incomplete message just waits.
    let mut parser = EventStreamParser::default();
    parser.push(&good[..20]);
    assert_eq!(parser.next_frame().unwrap(), None);
}

#[test]
fn aws_bad_checksums_and_lengths_name_the_message() {
    let good = message(FrameKind::Event, "a", "{}");
    // Prelude CRC: fatal.
    let mut bad = good.clone();
    bad[11] ^= 1;
    let err = aws(&bad).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::PreludeCrc { .. }));
    assert!(err.is_fatal());
    assert!(
        err.to_string()
            .starts_with("byte 0: prelude checksum mismatch: expected 0x")
    );
    // Message CRC: this message is skipped, the next one read.
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let body = [bad, good.clone()].concat();
    let got = pushed(&mut EventStreamParser::default(), &[&body]);
    let err = got[0].as_ref().unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::MessageCrc { .. }));
    assert!(!err.is_fatal());
    assert_eq!(got[1].as_ref().unwrap().offset, good.len() as u64);
    // Headers longer than the message: fatal.
    let mut prelude = 20u32.to_be_bytes().to_vec();
    prelude.extend(5u32.to_be_bytes());
    prelude.extend(crc32fast::hash(&prelude).to_be_bytes());
    prelude.extend([0; 8]);
    let err = aws(&prelude).unwrap_err();
    assert_eq!(
        err.to_string(),
        "byte 0: headers length 5 does not fit in a message of 20 bytes: expected at most 4"
    );
}

#[test]
fn aws_a_payload_that_is_not_utf8_skips_its_message() {
    let headers = string_header(":event-type", "x");
    let body = [
        raw_message(&headers, b"{\"a\":\"\xFF\"}"),
        message(FrameKind::Event, "y", "{}"),
    ]
    .concat();
    let got = pushed(&mut EventStreamParser::default(), &[&body]);
    let err = got[0].as_ref().unwrap_err();
    // Prelude 12, headers 16, then `{"a":"` 6: 0xFF is byte 34.
    assert_eq!(
        (err.offset(), err.kind()),
        (34, &FrameErrorKind::InvalidUtf8)
    );
    assert!(!err.is_fatal());
    assert_eq!(got[1].as_ref().unwrap().name.as_deref(), Some("y"));
}

#[test]
fn aws_long_header_values_are_cut_at_a_char_boundary() {
    // 65535 is not a boundary of a run of 2-byte characters: the cut falls before it.
    let name = "é".repeat(40_000);
    let body = message(FrameKind::Error, &name, "m");
    let frame = &aws(&body).unwrap()[0];
    assert_eq!(frame.name.as_ref().unwrap().len(), 65_534);
}

// --- the decoded Bedrock form ------------------------------------------------------

fn named(kind: FrameKind, name: Option<&str>, data: &str) -> RawFrame {
    RawFrame {
        kind,
        ..event(0, name, data)
    }
}

#[test]
fn bedrock_json_wraps_the_payload_and_drops_only_top_level_p() {
    let frame = named(
        FrameKind::Event,
        Some("contentBlockDelta"),
        r#"{"p":"abc","contentBlockIndex":0,"delta":{"p":"kept","text":"a\"b"}, "x" : [1, 2]}"#,
    );
    assert_eq!(
        frame.to_bedrock_json().unwrap(),
        r#"{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"p":"kept","text":"a\"b"},"x":[1, 2]}}"#
    );
    // No `p`: the payload is copied byte for byte, whitespace and all.
    let frame = named(
        FrameKind::Event,
        Some("messageStop"),
        " { \"stopReason\" : \"end_turn\" }\n",
    );
    assert_eq!(
        frame.to_bedrock_json().unwrap(),
        r#"{"messageStop":{ "stopReason" : "end_turn" }}"#
    );
}

#[test]
fn bedrock_json_of_exceptions_errors_and_odd_payloads() {
    let exception = named(
        FrameKind::Exception,
        Some("throttlingException"),
        r#"{"message":"slow"}"#,
    );
    assert_eq!(
        exception.to_bedrock_json().unwrap(),
        r#"{"throttlingException":{"message":"slow"}}"#
    );
    let error = named(FrameKind::Error, Some("InternalFailure"), "said \"no\"");
    assert_eq!(
        error.to_bedrock_json().unwrap(),
        r#"{"InternalFailure":{"message":"said \"no\""}}"#
    );
    let empty = named(FrameKind::Event, Some("messageStart"), "");
    assert_eq!(empty.to_bedrock_json().unwrap(), r#"{"messageStart":{}}"#);
    let array = named(FrameKind::Event, Some("x"), "[1,{\"p\":2}]");
    assert_eq!(array.to_bedrock_json().unwrap(), r#"{"x":[1,{"p":2}]}"#);
}

#[test]
fn bedrock_json_refuses_what_has_no_such_form() {
    let err = named(FrameKind::Event, None, "{}")
        .to_bedrock_json()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "(root): frame has no name: expected an :event-type, :exception-type or :error-code header"
    );
    let err = named(FrameKind::Done, Some("x"), "[DONE]")
        .to_bedrock_json()
        .unwrap_err();
    assert!(
        err.to_string().contains("[DONE] frame has no bedrock form"),
        "{err}"
    );
    let err = named(FrameKind::Event, Some("x"), "{\"a\":")
        .to_bedrock_json()
        .unwrap_err();
    assert_eq!(err.category(), crate::Category::Syntax);
    assert_eq!((err.line(), err.column()), (1, 5));
}

// --- writers -----------------------------------------------------------------------

#[test]
fn write_sse_splits_data_lines_and_keeps_names_on_one_line() {
    let mut out = String::new();
    write_sse(&mut out, Some("a\nb"), "1\n2\r\n3\r4");
    assert_eq!(out, "event: a b\ndata: 1\ndata: 2\ndata: 3\ndata: 4\n\n");
    let frames = sse(out.as_bytes()).unwrap();
    assert_eq!(frames, [event(0, Some("a b"), "1\n2\n3\n4")]);
    let mut out = String::new();
    write_sse(&mut out, None, "");
    write_sse(&mut out, None, " lead");
    assert_eq!(datas(&sse(out.as_bytes()).unwrap()), ["", " lead"]);
}

#[test]
fn write_sse_frame_round_trips_every_field() {
    let frames = sse(b"id: 1\nretry: 20\nevent: e\ndata: a\ndata: b\n\ndata: [DONE]\n\n").unwrap();
    let mut out = String::new();
    for frame in &frames {
        write_sse_frame(&mut out, frame);
    }
    assert_eq!(sse(out.as_bytes()).unwrap(), frames);
}

#[test]
fn write_ndjson_keeps_json_on_one_line() {
    let mut out = String::new();
    write_ndjson(&mut out, "{\n \"a\": 1\r\n}");
    write_ndjson(&mut out, "[DONE]");
    assert_eq!(out, "{  \"a\": 1  }\n[DONE]\n");
    let frames = ndjson(out.as_bytes()).unwrap();
    assert_eq!(frames[1].kind, FrameKind::Done);
}

// --- the whole-body wrappers -------------------------------------------------------

#[test]
fn sse_frames_gives_1_based_lines_of_each_event() {
    let frames = sse_frames("\n: c\nevent: a\ndata: 1\n\ndata: 2\r\n\r\ndata: [DONE]\r\r");
    assert_eq!(
        frames,
        [
            Frame::Data {
                line: 3,
                event: Some("a".into()),
                data: "1".into()
            },
            Frame::Data {
                line: 6,
                event: None,
                data: "2".into()
            },
            Frame::Done { line: 8 },
        ]
    );
}

#[test]
fn line_frames_gives_1_based_lines_of_each_line() {
    let frames = line_frames("{}\n\n\r\n{\"a\":1}\r\n[DONE]");
    assert_eq!(
        frames,
        [
            Frame::Data {
                line: 1,
                event: None,
                data: "{}".into()
            },
            Frame::Data {
                line: 4,
                event: None,
                data: "{\"a\":1}".into()
            },
            Frame::Done { line: 5 },
        ]
    );
}

// --- linear work -------------------------------------------------------------------

#[test]
fn a_long_line_pushed_a_byte_at_a_time_is_scanned_once() {
    // 1 MiB without a line end, one byte per push. Searching the whole held line again
    // on each push would be 5 * 10^11 byte comparisons (hours); once is a blink. The
    // bound is a thousand times what it takes, so a loaded machine does not fail it.
    let n = 1 << 20;
    let limits = Limits {
        max_frame_bytes: 2 * n,
    };
    let started = std::time::Instant::now();
    let mut sse = SseParser::new(limits);
    let mut ndjson = NdjsonParser::new(limits);
    sse.push(b"data: ");
    for i in 0..n {
        sse.push(b"x");
        ndjson.push(b"x");
        assert_eq!(sse.next_frame().unwrap(), None);
        assert_eq!(ndjson.next_frame().unwrap(), None);
        if i % 4096 == 0 {
            let elapsed = started.elapsed();
            assert!(elapsed.as_secs() < 60, "{i} bytes in {elapsed:?}");
        }
    }
    sse.finish();
    ndjson.finish();
    assert_eq!(sse.next_frame().unwrap().unwrap().data.len(), n);
    assert_eq!(ndjson.next_frame().unwrap().unwrap().data.len(), n);
}
