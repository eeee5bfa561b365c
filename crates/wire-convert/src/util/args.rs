//! Tool-call arguments between the wire and the neutral model: JSON text that must
//! become an object is checked and compacted, not built into a tree.

use crate::Format;
use crate::model::Arguments;
use serde_json::Value;
use serde_json::value::RawValue;
use wire_types::MaybeRaw;

/// Neutral arguments of a wire field that holds them as a JSON value (Anthropic and
/// Bedrock `input`, Gemini `args`, Ollama `arguments`).
pub(crate) fn args_of<T: Into<Value>>(args: MaybeRaw<T>) -> Arguments {
    match args {
        MaybeRaw::Parsed(v) => Arguments::Value(v.into()),
        MaybeRaw::Raw(r) => Arguments::Text(String::from(Box::<str>::from(r))),
    }
}

/// Neutral arguments of a wire field that holds JSON text and may hold a JSON value
/// instead (OpenAI Chat, Mistral, Cohere, Responses): text as it is; a value as a value,
/// flagged `hint` in `v` (`format`'s), so that it is written back as one
/// ([`write_arguments`]).
pub(crate) fn read_arguments(
    args: wire_types::Arguments,
    v: &mut crate::model::Vendor,
    format: Format,
    hint: &str,
) -> Arguments {
    match args {
        wire_types::Arguments::Text(t) => Arguments::Text(t),
        wire_types::Arguments::Json(j) => {
            v.set_hint(format, hint, true);
            Arguments::Value(j)
        }
    }
}

/// The wire form of arguments for a field that holds JSON text ([`read_arguments`]):
/// text as it is; a value as a value where the source sent one (`as_value`), else as
/// compact JSON text.
pub(crate) fn write_arguments(args: Arguments, as_value: bool) -> wire_types::Arguments {
    match args {
        Arguments::Text(t) => wire_types::Arguments::Text(t),
        Arguments::Value(val) if as_value => wire_types::Arguments::Json(val),
        Arguments::Value(val) => wire_types::Arguments::Text(val.to_string()),
    }
}

/// Arguments that are JSON text holding an object, as compact JSON text for a format
/// that takes an object: checked, not built into a tree, so a long transcript's
/// arguments cost a copy rather than a parse and a re-write. Anything else (a value,
/// text that is not JSON or not an object) comes back as it was, for the caller's rules.
pub(crate) fn raw_object(args: Arguments) -> Result<Box<RawValue>, Arguments> {
    let Arguments::Text(text) = args else {
        return Err(args);
    };
    if !text.starts_with(|c: char| c == '{' || c.is_ascii_whitespace()) {
        return Err(Arguments::Text(text));
    }
    // One pass says both whether the text could be a `Value` and whether it has
    // whitespace to take out; the parse below says whether it is JSON at all.
    let scan = scan(&text);
    if !scan.readable {
        return Err(Arguments::Text(text));
    }
    let raw = if scan.gap {
        // One parse, of the compacted text: compacting never makes text that is not JSON
        // into JSON, since whitespace that joins two tokens (`1 2`, `tr ue`) is refused.
        compact(&text).and_then(|c| RawValue::from_string(c).ok())
    } else {
        // Already compact (as models and SDKs write it): one parse and one copy.
        serde_json::from_str::<Box<RawValue>>(&text).ok()
    };
    match raw {
        Some(raw) if raw.get().starts_with('{') => Ok(raw),
        _ => Err(Arguments::Text(text)),
    }
}

/// The deepest nesting `serde_json` builds a `Value` of (it refuses 128 levels: its
/// recursion limit).
const MAX_DEPTH: usize = 127;

/// What [`scan`] found in JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scan {
    /// Whether the text, if it is well formed, is also a `serde_json::Value`: nested no
    /// deeper than serde_json's recursion limit, every number finite as an `f64`, no
    /// lone UTF-16 surrogate escape. Text that fails passes a syntax check but not a
    /// reader that builds values (toolwire's own among them), so it must not be written
    /// as JSON in another body: the caller wraps it as text instead, with a loss.
    pub(super) readable: bool,
    /// Whether the text has whitespace outside its strings, i.e. [`compact`] has work
    /// to do.
    pub(super) gap: bool,
}

/// One pass over JSON text for [`Scan`]: strings are skipped to their closing quote
/// with a byte search, a number is parsed only
/// when it could overflow. Text that is not JSON gives an answer of no meaning, never a
/// panic: the caller's parse refuses it.
pub(super) fn scan(json: &str) -> Scan {
    let unreadable = |gap| Scan {
        readable: false,
        gap,
    };
    let b = json.as_bytes();
    let mut depth = 0usize;
    let mut gap = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => gap = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return unreadable(gap);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                i += 1;
                // A high surrogate escape must be followed by a low one; a low one alone
                // is lone.
                let mut pending_high = false;
                while i < b.len() && b[i] != b'"' {
                    if !pending_high && b[i] != b'\\' {
                        // Plain string content: on to the next quote or backslash.
                        match memchr::memchr2(b'"', b'\\', &b[i..]) {
                            Some(k) => i += k,
                            None => i = b.len(),
                        }
                        continue;
                    }
                    if b[i] == b'\\' {
                        if b.get(i + 1) == Some(&b'u') {
                            let unit = json
                                .get(i + 2..i + 6)
                                .and_then(|h| u16::from_str_radix(h, 16).ok())
                                .unwrap_or(0);
                            match unit {
                                0xD800..=0xDBFF if pending_high => return unreadable(gap),
                                0xD800..=0xDBFF => pending_high = true,
                                0xDC00..=0xDFFF if !pending_high => return unreadable(gap),
                                _ if pending_high && !(0xDC00..=0xDFFF).contains(&unit) => {
                                    return unreadable(gap);
                                }
                                _ => pending_high = false,
                            }
                            i += 6;
                            continue;
                        }
                        if pending_high {
                            return unreadable(gap);
                        }
                        i += 2;
                        continue;
                    }
                    if pending_high {
                        return unreadable(gap);
                    }
                    i += 1;
                }
                if pending_high {
                    return unreadable(gap);
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let num = &json[start..i];
                // Without an exponent a number needs more than 309 digits to pass f64's
                // range; with one, parse it.
                if (num.len() > 300 || num.contains(['e', 'E']))
                    && !num.parse::<f64>().is_ok_and(f64::is_finite)
                {
                    return unreadable(gap);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Scan {
        readable: true,
        gap,
    }
}

/// `json` without the whitespace between its tokens (string contents untouched); `None`
/// when removing some whitespace would join two tokens into one (`1 2`, `tr ue`), which
/// valid JSON never needs: there a token always meets punctuation or a string. So the
/// result is valid JSON exactly when `json` is, and holds the same value.
fn compact(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len());
    // Runs between whitespace are copied whole; a whitespace byte is ASCII, so every
    // cut is at a character boundary.
    let mut start = 0;
    let mut in_string = false;
    let mut escaped = false;
    // The last byte outside a string before the whitespace just skipped, if any was.
    let mut before_gap: Option<u8> = None;
    let bare = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+');
    let bytes = json.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
        } else if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            if start < i {
                before_gap = Some(bytes[i - 1]);
            }
            out.push_str(&json[start..i]);
            start = i + 1;
        } else {
            if before_gap.take().is_some_and(bare) && bare(c) && start == i {
                return None;
            }
            in_string = c == b'"';
        }
    }
    out.push_str(&json[start..]);
    Some(out)
}
