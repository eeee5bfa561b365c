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
/// that takes an object: checked in one pass ([`check`]), not built into a tree, so a
/// long transcript's arguments cost a check and a copy rather than a parse and a
/// re-write. Anything else (a value; text that is not JSON, not an object, not readable
/// as a `Value`, or an object with a repeated key) comes back as it was, for the caller's
/// rules.
pub(crate) fn raw_object(args: Arguments) -> Result<Box<RawValue>, Arguments> {
    let Arguments::Text(text) = args else {
        return Err(args);
    };
    let raw = match check(&text) {
        // Already compact (as models and SDKs write it): one copy.
        Check::Compact => checked_raw(&text),
        // Compacting keeps JSON JSON and the value the same (see `compact`).
        Check::Spaced => compact(&text).and_then(|c| checked_raw(&c)),
        Check::Other => None,
    };
    raw.ok_or(Arguments::Text(text))
}

/// `Box<RawValue>` of text that [`check`] found to be a readable JSON object, without
/// serde_json parsing it again: `RawValue` has no unchecked constructor, but its
/// `Deserialize` takes its text from any deserializer (serde_json's own hands it the
/// bytes it skipped), so [`Checked`] hands it `json`. Should a serde_json release read
/// a `RawValue` some other way, this falls back to `RawValue::from_string`, which
/// checks the text again: slower, never wrong. `unchecked_raw_value_is_the_text_given`
/// tests that the quick way is the one taken.
fn checked_raw(json: &str) -> Option<Box<RawValue>> {
    use serde::Deserialize;
    match Box::<RawValue>::deserialize(Checked(json)) {
        Ok(raw) if raw.get() == json => Some(raw),
        _ => RawValue::from_string(json.to_owned()).ok(),
    }
}

/// A deserializer of JSON text already checked, for [`checked_raw`]: it serves
/// `RawValue`'s request (a newtype struct, read as a map of one entry named after it,
/// whose value is the text) and refuses every other.
pub(super) struct Checked<'a>(pub(super) &'a str);

impl<'de> serde::Deserializer<'de> for Checked<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom(
            "checked JSON text is only read as a RawValue",
        ))
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_map(CheckedEntry {
            name: Some(name),
            text: self.0,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// The one entry of [`Checked`]: the newtype's name, then the text.
struct CheckedEntry<'a> {
    name: Option<&'static str>,
    text: &'a str,
}

impl<'de> serde::de::MapAccess<'de> for CheckedEntry<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.name.take() {
            Some(name) => seed
                .deserialize(serde::de::value::BorrowedStrDeserializer::new(name))
                .map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        seed.deserialize(serde::de::value::BorrowedStrDeserializer::new(self.text))
    }
}

/// The deepest nesting `serde_json` builds a `Value` of (it refuses 128 levels: its
/// recursion limit).
const MAX_DEPTH: usize = 127;

/// The keys of an object [`check`] compares in pairs; more go through a set.
const FEW_KEYS: usize = 8;

/// What [`check`] found in JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// An object, compact, that may be passed on as it is.
    Compact,
    /// The same with whitespace between tokens: [`compact`] has work to do.
    Spaced,
    /// Anything else: not JSON; not an object; not readable as a `serde_json::Value`
    /// (nested deeper than serde_json's recursion limit, a number not finite as an
    /// `f64`, a lone UTF-16 surrogate escape), which toolwire's own reader refuses too;
    /// an object with a repeated key, which toolwire's reader refuses and others read
    /// each their own way; or a key with an escape, which might repeat another
    /// (`"a"` and `"\u0061"`). The caller parses such text itself.
    Other,
}

/// One pass over JSON text for [`Check`]: the grammar of RFC 8259 as serde_json reads
/// it (no trailing commas, no leading zeros, no control characters in strings), with the
/// limits of a `Value` and keys compared per object. Work is linear in the text: each
/// byte is looked at once, and an object's keys are compared through a set when it has
/// more than a few.
pub(super) fn check(json: &str) -> Check {
    let mut p = Checker {
        b: json.as_bytes(),
        i: 0,
        gap: false,
        keys: Vec::new(),
    };
    p.ws();
    if p.peek() != Some(b'{') || p.value(0).is_none() {
        return Check::Other;
    }
    p.ws();
    match (p.i == p.b.len(), p.gap) {
        (false, _) => Check::Other,
        (true, false) => Check::Compact,
        (true, true) => Check::Spaced,
    }
}

/// The state of [`check`]: `None` from a method means the text is [`Check::Other`].
struct Checker<'a> {
    b: &'a [u8],
    i: usize,
    /// Whitespace seen outside strings.
    gap: bool,
    /// The keys of the objects open, outermost first.
    keys: Vec<&'a [u8]>,
}

impl<'a> Checker<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.i += usize::from(hit);
        hit
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.gap = true;
            self.i += 1;
        }
    }

    /// A value at nesting `depth` (its container's).
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(|_| ()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i.checked_add(word.len())?;
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.eat(b']') {
            return Some(());
        }
        loop {
            self.value(depth)?;
            self.ws();
            if self.eat(b']') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
            self.ws();
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.eat(b'}') {
            return Some(());
        }
        // The keys of this object: the first few here, the rest after the open objects'
        // keys in `keys` (no allocation for an object of a few keys, however nested).
        let mut few: [&[u8]; FEW_KEYS] = [&[]; FEW_KEYS];
        let mut count = 0;
        let first = self.keys.len();
        loop {
            if self.peek() != Some(b'"') {
                return None;
            }
            let (key, escaped) = self.string()?;
            if escaped {
                return None;
            }
            match few.get_mut(count) {
                Some(slot) => *slot = key,
                None => self.keys.push(key),
            }
            count += 1;
            self.ws();
            if !self.eat(b':') {
                return None;
            }
            self.ws();
            self.value(depth)?;
            self.ws();
            if self.eat(b'}') {
                break;
            }
            if !self.eat(b',') {
                return None;
            }
            self.ws();
        }
        let repeated = if count <= FEW_KEYS {
            let keys = few.get(..count)?;
            keys.iter()
                .enumerate()
                .any(|(k, a)| keys.get(k + 1..).is_some_and(|rest| rest.contains(a)))
        } else {
            let rest = self.keys.get(first..)?;
            let mut seen = std::collections::HashSet::with_capacity(count);
            !few.iter().chain(rest).all(|k| seen.insert(*k))
        };
        self.keys.truncate(first);
        (!repeated).then_some(())
    }

    /// A string: its content as written, and whether it has an escape.
    fn string(&mut self) -> Option<(&'a [u8], bool)> {
        self.i += 1;
        let start = self.i;
        let mut escaped = false;
        // A high surrogate escape just read: a low one must follow at once.
        let mut high = false;
        loop {
            let c = self.peek()?;
            if high && c != b'\\' {
                return None;
            }
            match c {
                b'"' => {
                    let content = self.b.get(start..self.i)?;
                    self.i += 1;
                    return Some((content, escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.i += 1;
                    match self.peek()? {
                        b'u' => {
                            let hex = self.b.get(self.i + 1..self.i + 5)?;
                            let unit = std::str::from_utf8(hex)
                                .ok()
                                .filter(|h| h.bytes().all(|d| d.is_ascii_hexdigit()))
                                .and_then(|h| u16::from_str_radix(h, 16).ok())?;
                            match unit {
                                0xD800..=0xDBFF if !high => high = true,
                                0xDC00..=0xDFFF if high => high = false,
                                _ if high => return None,
                                0xD800..=0xDFFF => return None,
                                _ => {}
                            }
                            self.i += 5;
                        }
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' if !high => {
                            self.i += 1;
                        }
                        _ => return None,
                    }
                }
                0..=0x1F => return None,
                _ => self.plain(),
            }
        }
    }

    /// Skips plain string content, past the byte at `i`: on to the next quote,
    /// backslash or control byte, eight bytes at a time.
    fn plain(&mut self) {
        const ONES: u64 = u64::from_le_bytes([1; 8]);
        const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
        self.i += 1;
        while let Some(chunk) = self
            .b
            .get(self.i..self.i + 8)
            .and_then(|c| <[u8; 8]>::try_from(c).ok())
        {
            let x = u64::from_le_bytes(chunk);
            // A byte of `x` that is zero, or below 0x20, sets its high bit here; the
            // lowest such bit is exact (the bits above it may not be).
            let zero = |y: u64| y.wrapping_sub(ONES) & !y & HIGH;
            let hits = zero(x ^ (ONES * u64::from(b'"')))
                | zero(x ^ (ONES * u64::from(b'\\')))
                | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
            if hits != 0 {
                self.i += (hits.trailing_zeros() / 8) as usize;
                return;
            }
            self.i += 8;
        }
        while self
            .peek()
            .is_some_and(|c| c != b'"' && c != b'\\' && c >= 0x20)
        {
            self.i += 1;
        }
    }

    /// A number: `-`? (`0` | a digit run not starting with `0`), then `.` digits and
    /// an exponent, each optional; finite as an `f64`.
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        self.eat(b'-');
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        let mut exponent = false;
        if self.eat(b'.') {
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if self.eat(b'e') || self.eat(b'E') {
            exponent = true;
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        let num = self.b.get(start..self.i)?;
        // Without an exponent a number needs more than 309 digits to pass f64's range;
        // with one, parse it.
        if num.len() > 300 || exponent {
            let finite = std::str::from_utf8(num)
                .ok()
                .and_then(|n| n.parse::<f64>().ok())
                .is_some_and(f64::is_finite);
            return finite.then_some(());
        }
        Some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
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
