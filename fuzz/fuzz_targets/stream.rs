//! Any bytes as any format's live stream, in its wire framing (or, for Bedrock, one
//! decoded event a line): framing and decoding never panic; the parts do not depend on
//! where the bytes were split; and translated to any format, the stream written reads
//! back as that format.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wire_convert::stream::{Framing, StreamDecoder, StreamTranslator};
use wire_convert::{Error, Format, Options};

fuzz_target!(|data: &[u8]| {
    let [from, to, split, body @ ..] = data else {
        return;
    };
    let from = Format::CHAT[usize::from(*from) % Format::CHAT.len()];
    let to = Format::CHAT[usize::from(*to) % Format::CHAT.len()];
    let framing = if from == Format::Bedrock && split & 1 == 1 {
        Framing::Ndjson
    } else {
        Framing::of(from)
    };
    let options = Options::default();
    let cut = if body.is_empty() {
        0
    } else {
        usize::from(*split) * body.len() / 256
    };
    let decode = |pieces: &[&[u8]]| -> Result<Vec<_>, String> {
        let mut d =
            StreamDecoder::with_framing(from, framing, &options).map_err(|e| e.to_string())?;
        let mut parts = Vec::new();
        for p in pieces {
            parts.extend(d.push(p).map_err(|e| e.to_string())?);
        }
        parts.extend(d.finish().map_err(|e| e.to_string())?);
        Ok(parts)
    };
    let whole = decode(&[body]);
    if whole.as_ref().is_err_and(|e| e.contains("not supported")) {
        return;
    }
    assert_eq!(
        whole,
        decode(&[&body[..cut], &body[cut..]]),
        "{from}: split at {cut}"
    );

    let Ok(mut t) = StreamTranslator::with_framing(from, framing, to, Framing::of(to), &options)
    else {
        return;
    };
    let mut written = match t.push(body) {
        Ok(w) => w,
        Err(_) => return,
    };
    match t.finish() {
        Ok(rest) => written.extend(rest),
        Err(_) => return,
    }
    let mut back = StreamDecoder::new(to, &options).unwrap();
    let read = match back.push(&written) {
        Ok(_) => back.finish().map(|_| ()),
        Err(e) => Err(e),
    };
    assert!(
        !matches!(read, Err(Error::Stream { .. })),
        "{from} → {to}: the stream written does not read back: {read:?}\n{}",
        String::from_utf8_lossy(&written)
    );
});
