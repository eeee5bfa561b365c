//! Small helpers every format module uses.

use crate::model::{Arguments, Opaque, Part, PartMeta, Text};
use crate::{Ctx, Format, LossCode, OpaqueMode};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use wire_types::{MaybeRaw, TextOrParts};

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
struct Scan {
    /// Whether the text, if it is well formed, is also a `serde_json::Value`: nested no
    /// deeper than serde_json's recursion limit, every number finite as an `f64`, no
    /// lone UTF-16 surrogate escape. Text that fails passes a syntax check but not a
    /// reader that builds values (toolwire's own among them), so it must not be written
    /// as JSON in another body: the caller wraps it as text instead, with a loss.
    readable: bool,
    /// Whether the text has whitespace outside its strings, i.e. [`compact`] has work
    /// to do.
    gap: bool,
}

/// One pass over JSON text for [`Scan`]: strings are skipped to their closing quote
/// with a byte search, a number is parsed only
/// when it could overflow. Text that is not JSON gives an answer of no meaning, never a
/// panic: the caller's parse refuses it.
fn scan(json: &str) -> Scan {
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

/// Rewrites `buf` to `args`: a pointer built in a buffer reused across the items of a
/// loop, instead of a fresh `String` per item (the hot path of long transcripts).
///
/// The pointer is `{parent}/{key}/{index}`, written without the formatting machinery: a
/// short response's conversion writes one per part, and `format!` made those pointers a
/// large share of its time.
pub(crate) fn set_path(buf: &mut String, parent: &str, key: &str, index: usize) {
    // One layout of item pointers: [`ItemPaths`]'s, for a single item.
    let mut paths = ItemPaths::new(std::mem::take(buf), parent, key);
    paths.at(index);
    *buf = paths.into_buf();
}

/// A map from text keys for the few entries most turns have (the calls of one assistant
/// message): a list searched in order while it is short, a hash map once it grows, so a
/// turn with thousands of calls stays linear.
#[derive(Debug)]
pub(crate) struct SmallMap<'k, V> {
    list: Vec<(&'k str, V)>,
    map: HashMap<&'k str, V>,
}

impl<'k, V: Copy> SmallMap<'k, V> {
    /// The most entries kept as a list.
    const LIST: usize = 8;

    /// An empty map.
    pub(crate) fn new() -> Self {
        SmallMap {
            list: Vec::new(),
            map: HashMap::new(),
        }
    }

    /// Sets `key` to `value`; `first`: only if `key` has no value yet.
    pub(crate) fn insert(&mut self, key: &'k str, value: V, first: bool) {
        if self.map.is_empty() {
            if let Some(e) = self.list.iter_mut().find(|(k, _)| *k == key) {
                if !first {
                    e.1 = value;
                }
                return;
            }
            if self.list.len() < Self::LIST {
                self.list.push((key, value));
                return;
            }
            self.map.extend(self.list.drain(..));
        }
        if first {
            self.map.entry(key).or_insert(value);
        } else {
            self.map.insert(key, value);
        }
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<V> {
        if self.map.is_empty() {
            self.list.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
        } else {
            self.map.get(key).copied()
        }
    }

    /// Empties the map, keeping its room.
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.map.clear();
    }
}

/// A set of ASCII bytes as a 128-bit mask: the check of every byte of every id and tool
/// name of a long transcript is one shift and one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AsciiSet(u128);

impl AsciiSet {
    /// `[a-zA-Z0-9]` and the bytes of `extra` (ASCII ones; others are ignored).
    pub(crate) const fn alnum_and(extra: &str) -> AsciiSet {
        let mut set = AsciiSet(0);
        let mut c = 0u8;
        while c < 128 {
            if c.is_ascii_alphanumeric() {
                set = set.with(c);
            }
            c += 1;
        }
        let extra = extra.as_bytes();
        let mut i = 0;
        while i < extra.len() {
            set = set.with(extra[i]);
            i += 1;
        }
        set
    }

    /// The set with `b` added too (a byte that is not ASCII is ignored).
    pub(crate) const fn with(self, b: u8) -> AsciiSet {
        if b < 128 {
            AsciiSet(self.0 | 1 << b)
        } else {
            self
        }
    }

    /// Whether `b` is in the set (never for a byte that is not ASCII).
    #[inline]
    pub(crate) fn has(self, b: u8) -> bool {
        b < 128 && (self.0 >> b) & 1 == 1
    }
}

/// The two-digit numbers `00` to `99`, one after another: [`push_index`] writes an index
/// two digits at a time from this text.
const PAIRS: &str = "0001020304050607080910111213141516171819\
                     2021222324252627282930313233343536373839\
                     4041424344454647484950515253545556575859\
                     6061626364656667686970717273747576777879\
                     8081828384858687888990919293949596979899";

/// The pointers `{parent}/{key}/{index}` of the items of one list (a message's parts),
/// in one buffer whose `{parent}/{key}/` is written once: [`ItemPaths::at`] only
/// rewrites the index.
pub(crate) struct ItemPaths {
    buf: String,
    prefix: usize,
}

impl ItemPaths {
    /// The pointers of the items under `{parent}/{key}`, built in `buf` (its text
    /// replaced; a buffer from [`Ctx::buf`], say).
    pub(crate) fn new(mut buf: String, parent: &str, key: &str) -> ItemPaths {
        buf.clear();
        buf.push_str(parent);
        buf.push('/');
        buf.push_str(key);
        buf.push('/');
        let prefix = buf.len();
        ItemPaths { buf, prefix }
    }

    /// The pointer of item `index`.
    pub(crate) fn at(&mut self, index: usize) -> &str {
        self.buf.truncate(self.prefix);
        push_index(&mut self.buf, index);
        &self.buf
    }

    /// The buffer, for reuse.
    pub(crate) fn into_buf(self) -> String {
        self.buf
    }
}

/// Appends `index` in decimal, without the formatting machinery (which costs several
/// times as much for the short numbers of pointers): two digits at a time, from a table
/// of text, so nothing is checked for UTF-8 on the way.
pub(crate) fn push_index(buf: &mut String, index: usize) {
    let pair =
        |buf: &mut String, n: usize| buf.push_str(PAIRS.get(2 * n..2 * n + 2).unwrap_or("00"));
    if index < 10 {
        buf.push(char::from(b'0' + index as u8));
    } else if index < 100 {
        pair(buf, index);
    } else if index < 1000 {
        buf.push(char::from(b'0' + (index / 100) as u8));
        pair(buf, index % 100);
    } else if index < 10_000 {
        pair(buf, index / 100);
        pair(buf, index % 100);
    } else {
        // The digits above the last four, then those four (with their zeros).
        push_index(buf, index / 10_000);
        let low = index % 10_000;
        pair(buf, low / 100);
        pair(buf, low % 100);
    }
}

/// Unix seconds of an RFC 3339 date-time (`2024-05-01T12:30:00.123456Z`,
/// `…+02:00`), the fraction dropped; `None` for anything else or before 1970.
pub(crate) fn unix_of_rfc3339(t: &str) -> Option<u64> {
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = t.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset = match t.get(i..)? {
        "Z" | "z" => 0,
        z if z.len() == 6 && matches!(&z[..1], "+" | "-") && &z[3..4] == ":" => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            sign * (num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60)
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    u64::try_from(days * 86_400 + h * 3600 + mi * 60 + s - offset).ok()
}

/// A timestamp read from RFC 3339 text: its Unix seconds, and the text itself when it
/// says more than those seconds written back would (a fraction, an offset, or text that
/// is no timestamp): the text is then kept as it came.
pub(crate) fn read_timestamp(text: String) -> (Option<u64>, Option<String>) {
    let secs = unix_of_rfc3339(&text);
    let exact = secs.map(rfc3339_of_unix).as_ref() == Some(&text);
    (secs, (!exact).then_some(text))
}

/// RFC 3339 text (UTC, whole seconds) of Unix seconds.
pub(crate) fn rfc3339_of_unix(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

// Howard Hinnant's `days_from_civil` / `civil_from_days` (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Puts the JSON of `value` into `fields` under `key` (for wire fields that have no
/// neutral equivalent).
pub(crate) fn keep<T: Serialize>(
    fields: &mut impl Extend<(String, Value)>,
    key: &str,
    value: &Option<T>,
) {
    if let Some(v) = value {
        fields.extend([(key.to_owned(), wire_types::to_value(v))]);
    }
}

/// Keys of an opaque part whose values are tokens only their own provider may read
/// (signatures, encrypted payloads): never written into another format's conversation,
/// not even as text.
const SECRET_KEYS: &[&str] = &[
    "signature",
    "thoughtSignature",
    "thought_signature",
    "encrypted_content",
    "encrypted_index",
    "encrypted_stdout",
];

/// `value` without the [`SECRET_KEYS`] (at any depth); whether any was removed.
fn without_secrets(value: &Value) -> (Value, bool) {
    match value {
        Value::Object(m) => {
            let mut removed = false;
            let mut out = serde_json::Map::with_capacity(m.len());
            for (k, v) in m {
                if SECRET_KEYS.contains(&k.as_str()) {
                    removed = true;
                    continue;
                }
                let (v, r) = without_secrets(v);
                removed |= r;
                out.insert(k.clone(), v);
            }
            (Value::Object(out), removed)
        }
        Value::Array(a) => {
            let mut removed = false;
            let out = a
                .iter()
                .map(|v| {
                    let (v, r) = without_secrets(v);
                    removed |= r;
                    v
                })
                .collect();
            (Value::Array(out), removed)
        }
        other => (other.clone(), false),
    }
}

/// What an opaque part becomes in a format that does not understand it. With
/// [`OpaqueMode::AsText`]: a hosted tool's call or result (web search, code execution) as
/// its readable text ([`crate::passes::builtin::hosted_text`]); any other part's `text`
/// field, if it has one, as a text part; otherwise the
/// part itself as its compact JSON text, without the signatures and encrypted payloads in
/// it (those are only ever sent to the format that made them); a `changed` loss either
/// way. With [`OpaqueMode::Drop`]: nothing (a `dropped` loss).
pub(crate) fn opaque_elsewhere(ctx: &mut Ctx<'_>, opaque: &Opaque, at: &str) -> Option<Part> {
    let kind = opaque
        .value
        .get("type")
        .and_then(Value::as_str)
        .map(|t| format!("`{t}` "))
        .unwrap_or_default();
    if ctx.options.opaque == OpaqueMode::Drop {
        ctx.dropped(
            LossCode::PartUnsupported,
            at.to_owned(),
            format!(
                "{} part {kind}has no equivalent in {}",
                opaque.format, ctx.format
            ),
        );
        return None;
    }
    let hosted = crate::passes::builtin::hosted_text(opaque);
    let (text, how) = match (hosted, opaque.value.get("text").and_then(Value::as_str)) {
        (Some(text), _) => (
            text,
            "the hosted call or result is sent as its text (code, output, query, sources)",
        ),
        (None, Some(text)) => (text.to_owned(), "its text is sent as a text part"),
        (None, None) => {
            let (value, removed) = without_secrets(&opaque.value);
            let how = if removed {
                "it is sent as its JSON text, without its signatures and encrypted payloads"
            } else {
                "it is sent as its JSON text"
            };
            (value.to_string(), how)
        }
    };
    ctx.changed(
        LossCode::PartAsText,
        at.to_owned(),
        format!(
            "{} part {kind}has no equivalent in {}; {how}",
            opaque.format, ctx.format
        ),
    );
    Some(Part::Text(Text {
        text,
        meta: PartMeta::default(),
    }))
}

/// An opaque part of `ctx.format` holding `value` whole.
pub(crate) fn opaque(ctx: &Ctx<'_>, value: Value) -> Part {
    Part::Opaque(Opaque {
        format: ctx.format,
        value,
        meta: PartMeta::default(),
    })
}

/// An effort level for a reasoning token budget (for formats that take levels only).
pub(crate) fn budget_to_effort(budget: i64) -> &'static str {
    match budget {
        i64::MIN..=0 => "none",
        1..=2048 => "low",
        2049..=8192 => "medium",
        _ => "high",
    }
}

/// A reasoning token budget for an effort level (for formats that take budgets only).
#[allow(dead_code)] // used by the budget-only formats' encoders
pub(crate) fn effort_to_budget(effort: &str) -> Option<i64> {
    match effort {
        "none" => Some(0),
        "minimal" => Some(1024),
        "low" => Some(2048),
        "medium" => Some(8192),
        "high" => Some(16384),
        "xhigh" | "max" => Some(32768),
        _ => None,
    }
}

/// Reports a cache marker the target cannot carry.
pub(crate) fn drop_cache(ctx: &mut Ctx<'_>, meta: &PartMeta, at: &str) {
    if meta.cache.is_some() {
        ctx.dropped(
            LossCode::CacheUnsupported,
            format!("{at}/cache"),
            format!("{} has no cache marker", ctx.format),
        );
    }
}

/// The index of the neutral tool message a decoded result joins: the one at the end of
/// `messages`, or a new one (mapped to `at`, the wire message the result came from) when
/// the last message is not a tool message. Consecutive results make one tool message.
pub(crate) fn tool_message(
    messages: &mut Vec<crate::model::Message>,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> usize {
    use crate::model::{Message, Role};
    if messages.last().is_none_or(|m| m.role != Role::Tool) {
        ctx.map(("/messages/", messages.len()), at);
        messages.push(Message::new(Role::Tool, Vec::new()));
    }
    messages.len() - 1
}

/// Reports the seed and penalties of `s`, for a target that has none of them: a
/// `dropped` loss each, at `/settings/<key>`, saying "`<target> has no <what>`" (the seed
/// named `seed`).
pub(crate) fn drop_seed_and_penalties(
    s: &crate::model::Settings,
    target: &str,
    seed: &str,
    ctx: &mut Ctx<'_>,
) {
    for (set, key, what) in [
        (s.seed.is_some(), "seed", seed),
        (
            s.presence_penalty.is_some(),
            "presence_penalty",
            "presence penalty",
        ),
        (
            s.frequency_penalty.is_some(),
            "frequency_penalty",
            "frequency penalty",
        ),
    ] {
        if set {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/settings/{key}"),
                format!("{target} has no {what}"),
            );
        }
    }
}

/// Reports a part's cache marker and signature, for a target that has a place for
/// neither (Cohere, Mistral, OpenAI Chat and Responses, Ollama, MCP).
pub(crate) fn drop_cache_and_signature(meta: &PartMeta, at: &str, ctx: &mut Ctx<'_>) {
    drop_cache(ctx, meta, at);
    ctx.report_unplaced_token(
        meta.signature.as_ref(),
        format_args!("{at}/signature"),
        "a reasoning signature",
    );
}

/// Reports a part other than a tool result in a neutral tool message, which the target
/// (a format whose tool messages hold results only) drops.
pub(crate) fn drop_tool_message_part(
    part: &Part,
    at: impl AsRef<str> + Into<String>,
    ctx: &mut Ctx<'_>,
) {
    let detail = format!(
        "a {} part in a tool message has no place in {}",
        part.kind(),
        ctx.format
    );
    ctx.dropped(LossCode::PartUnsupported, at, detail);
}

/// Takes the fields whose key starts with `prefix` out of `fields`, keyed without it
/// (`options.num_ctx` → `num_ctx`), in their order.
pub(crate) fn take_prefixed(
    fields: &mut serde_json::Map<String, Value>,
    prefix: &str,
) -> serde_json::Map<String, Value> {
    let keys: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with(prefix))
        .cloned()
        .collect();
    let mut out = serde_json::Map::new();
    for k in keys {
        if let Some(val) = fields.shift_remove(&k) {
            out.insert(k[prefix.len()..].to_owned(), val);
        }
    }
    out
}

/// Whether `p` (at `at`) is left out of a message's content items: a text part with no
/// text and nothing of the target's own on it (a Gemini signature-only part, say) is not
/// sent as an empty item, unless the items are the target's own (`own`), written back as
/// they came. What a part left out carries is reported (its cache marker, signature and
/// another format's fields).
pub(crate) fn skip_empty_text(p: &Part, own: bool, at: &str, ctx: &mut Ctx<'_>) -> bool {
    let empty = matches!(p, Part::Text(t) if t.text.is_empty()
        && t.meta.vendor.fields_for(ctx.format).is_none_or(crate::model::VendorMap::is_empty));
    if own || !empty {
        return false;
    }
    drop_cache_and_signature(p.meta(), at, ctx);
    ctx.report_foreign_fields(&p.meta().vendor, at);
    true
}

/// A message's content as a format with a string form and an item list writes it: none
/// when no item is left (the empty string when only empty text was, `empty`), one plain
/// text item as the string (unless the source used items, `own`), else the items.
/// `plain` gives an item's text when it is a text with nothing more on it.
pub(crate) fn text_or_items<T>(
    mut items: Vec<T>,
    empty: bool,
    own: bool,
    plain: impl FnOnce(T) -> Result<String, T>,
) -> Option<TextOrParts<T>> {
    if items.is_empty() {
        return empty.then(|| TextOrParts::Text(String::new()));
    }
    if !own && items.len() == 1 {
        if let Some(only) = items.pop() {
            match plain(only) {
                Ok(text) => return Some(TextOrParts::Text(text)),
                Err(only) => items.push(only),
            }
        }
    }
    Some(TextOrParts::Parts(items))
}

/// A request's model, which the target requires: the empty string, and a loss saying to
/// set it, when the source has none (it may be in the source's URL).
pub(crate) fn model_or_blank(model: Option<String>, ctx: &mut Ctx<'_>) -> String {
    model.unwrap_or_else(|| {
        model_missing(ctx);
        String::new()
    })
}

/// The loss of a request without a model, where the target requires one.
pub(crate) fn model_missing(ctx: &mut Ctx<'_>) {
    ctx.changed(
        LossCode::FieldDefaulted,
        "/model",
        "the source has no model (it may be in its URL); set `model` before sending",
    );
}

/// The loss of `parallel_tool_calls: false` (at `at`) for `format`, which has no such
/// switch.
pub(crate) fn no_parallel_switch(off: Option<bool>, at: &str, format: Format, ctx: &mut Ctx<'_>) {
    if off == Some(false) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            at.to_owned(),
            format!("{format} has no switch for parallel tool calls"),
        );
    }
}

/// Stop sequences as a format that takes a string or a list writes them: one sequence
/// as the string when the source wrote it so (`as_string`), else the list.
pub(crate) fn stop_sequences(
    stop: Option<Vec<String>>,
    as_string: bool,
) -> Option<TextOrParts<String>> {
    stop.map(|mut st| {
        if as_string && st.len() == 1 {
            TextOrParts::Text(st.remove(0))
        } else {
            TextOrParts::Parts(st)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, LossKind, Options, convert_request_value};
    use serde_json::{Map, json};

    /// An OpenAI Chat user message with a part toolwire does not know, and no `text`.
    fn unknown_part_body() -> Value {
        json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "What does this show?"},
            {"type": "input_hologram", "input_hologram": {"id": "holo_1", "frames": 24}}
        ]}]})
    }

    #[test]
    fn a_part_without_text_is_kept_as_its_json_text_under_as_text() {
        let body = unknown_part_body();
        let out = convert_request_value(
            &body,
            Format::OpenaiChat,
            Format::Anthropic,
            &Options::default(),
        )
        .unwrap();
        let part = &out.value["messages"][0]["content"][1];
        assert_eq!(part["type"], "text");
        let text = part["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            body["messages"][0]["content"][1]
        );
        let loss = &out.losses[0];
        assert_eq!(loss.path, "/messages/0/content/1");
        assert_eq!(
            (loss.kind, loss.code),
            (LossKind::Changed, LossCode::PartAsText)
        );
        assert!(
            loss.detail.ends_with("it is sent as its JSON text"),
            "{}",
            loss.detail
        );
    }

    #[test]
    fn a_part_without_text_is_dropped_under_drop() {
        let options = Options {
            opaque: OpaqueMode::Drop,
            ..Options::default()
        };
        let out = convert_request_value(
            &unknown_part_body(),
            Format::OpenaiChat,
            Format::Anthropic,
            &options,
        )
        .unwrap();
        assert_eq!(
            out.value["messages"][0]["content"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        let loss = &out.losses[0];
        assert_eq!(
            (loss.kind, loss.code),
            (LossKind::Dropped, LossCode::PartUnsupported)
        );
    }

    #[test]
    fn a_part_kept_as_json_text_loses_its_signatures_and_encrypted_payloads() {
        let value = json!({"type": "mystery", "signature": "c2ln", "result": [
            {"title": "A page", "encrypted_content": "ZW5j", "nested": {"thoughtSignature": "dA=="}}
        ]});
        let (clean, removed) = without_secrets(&value);
        assert!(removed);
        assert_eq!(
            clean,
            json!({"type": "mystery", "result": [{"title": "A page", "nested": {}}]})
        );
        let (same, removed) = without_secrets(&clean);
        assert!(!removed);
        assert_eq!(same, clean);
    }

    #[test]
    fn pointers_are_parent_key_and_index() {
        let mut buf = String::from("left over");
        for (index, want) in [
            (0, "/m/content/0"),
            (9, "/m/content/9"),
            (10, "/m/content/10"),
            (12345, "/m/content/12345"),
            (u32::MAX as usize, "/m/content/4294967295"),
        ] {
            set_path(&mut buf, "/m", "content", index);
            assert_eq!(buf, want);
        }
        set_path(&mut buf, "", "messages", 3);
        assert_eq!(buf, "/messages/3");
    }

    #[test]
    fn small_maps_answer_as_a_hash_map_does_short_or_long() {
        let keys: Vec<String> = (0..40).map(|i| format!("k{}", i % 23)).collect();
        for first in [false, true] {
            for n in [0, 3, 8, 9, 40] {
                let mut small = SmallMap::new();
                let mut want = HashMap::new();
                for (v, k) in keys[..n].iter().enumerate() {
                    small.insert(k.as_str(), v, first);
                    if first {
                        want.entry(k.as_str()).or_insert(v);
                    } else {
                        want.insert(k.as_str(), v);
                    }
                }
                for k in keys.iter().chain([&"absent".to_owned()]) {
                    assert_eq!(
                        small.get(k),
                        want.get(k.as_str()).copied(),
                        "{n} {first} {k}"
                    );
                }
                small.clear();
                assert_eq!(small.get("k1"), None);
            }
        }
    }

    #[test]
    fn ascii_sets_hold_word_bytes_and_their_extras_only() {
        let set = AsciiSet::alnum_and("_-.:é");
        for b in 0..=255u8 {
            let want = b.is_ascii_alphanumeric() || b"_-.:".contains(&b);
            assert_eq!(set.has(b), want, "{b}");
        }
    }

    #[test]
    fn item_paths_are_what_set_path_writes() {
        let mut paths = ItemPaths::new(String::from("left over"), "/messages/12", "content");
        let mut want = String::new();
        for j in [0, 7, 10, 3, 123, 1] {
            set_path(&mut want, "/messages/12", "content", j);
            assert_eq!(paths.at(j), want);
        }
        let mut paths = ItemPaths::new(paths.into_buf(), "", "messages");
        assert_eq!(paths.at(4), "/messages/4");
    }

    #[test]
    fn indices_are_written_as_decimal_like_display() {
        let mut buf = String::new();
        for n in (0..20_000).chain([99_999, 100_000, usize::MAX - 1, usize::MAX]) {
            buf.clear();
            push_index(&mut buf, n);
            assert_eq!(buf, n.to_string());
        }
    }

    #[test]
    fn gaps_are_whitespace_outside_strings_only() {
        for (json, gap) in [
            (r#"{"a":"b c","d":[1,2]}"#, false),
            (r#"{"a":"x\" y","b":1}"#, false),
            (r#"{"a":"x\\","b": 1}"#, true),
            (r#"{"a": 1}"#, true),
            ("{\n}", true),
            (r#"{"a":"unterminated \"#, false),
            (r#"{"a":"q\"","b" :1}"#, true),
            (
                r#"{"a":"more than sixteen bytes, with spaces \" and more","b":1}"#,
                false,
            ),
            (
                r#"{"a":"more than sixteen bytes, with spaces \" and more", "b":1}"#,
                true,
            ),
            ("", false),
        ] {
            assert_eq!(scan(json).gap, gap, "{json}");
        }
    }

    /// `scan` says what serde_json itself says when it builds a `Value` from
    /// well-formed JSON text (the oracle), on the cases a syntax check lets through.
    #[test]
    fn value_readable_agrees_with_serde_json() {
        let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let cases = [
            deep(127),
            deep(128),
            deep(129),
            format!("{{\"a\":{}}}", deep(127)),
            r#"{"n":1e308}"#.to_owned(),
            r#"{"n":1e400}"#.to_owned(),
            r#"{"n":-1E+400}"#.to_owned(),
            r#"{"n":1e-400}"#.to_owned(),
            format!("{{\"n\":{}}}", "9".repeat(308)),
            format!("{{\"n\":{}}}", "9".repeat(400)),
            format!("{{\"n\":{}.5}}", "9".repeat(310)),
            r#"{"s":"\ud83d\ude00"}"#.to_owned(),
            r#"{"s":"\ud800"}"#.to_owned(),
            r#"{"s":"\ud800x"}"#.to_owned(),
            r#"{"s":"\ude00"}"#.to_owned(),
            r#"{"s":"\ud800\ud800"}"#.to_owned(),
            r#"{"s":"\ud800\n"}"#.to_owned(),
            r#"{"s":"\\ud800"}"#.to_owned(),
            r#"{"s":"[[[[\"]"}"#.to_owned(),
            r#"{"s":"\u00e9 ok"}"#.to_owned(),
            r#"{"s":"a long string of more than sixteen bytes \ud800"}"#.to_owned(),
            r#"{"s":"a long string of more than sixteen bytes \ud83d\ude00"}"#.to_owned(),
            r#"{"s":"a long string of more than sixteen bytes \" [[[","n":1e999}"#.to_owned(),
        ];
        for json in &cases {
            assert!(serde_json::from_str::<&RawValue>(json).is_ok(), "{json}");
            assert_eq!(
                scan(json).readable,
                serde_json::from_str::<Value>(json).is_ok(),
                "{json}"
            );
        }
        // And text that is not readable so is not passed on as an object.
        assert!(raw_object(Arguments::Text(r#"{"s":"\ud800"}"#.into())).is_err());
    }

    #[test]
    fn object_text_goes_on_compacted_and_anything_else_comes_back() {
        let raw = |t: &str| raw_object(Arguments::Text(t.into()));
        // Whitespace between tokens goes; inside strings (escaped quotes too) it stays.
        assert_eq!(
            raw(" {\"city\": \"San Francisco\",\n \"q\": \"a \\\" b\", \"n\": [1, 2]} ")
                .unwrap()
                .get(),
            r#"{"city":"San Francisco","q":"a \" b","n":[1,2]}"#
        );
        assert_eq!(raw("{}").unwrap().get(), "{}");
        // Not JSON, even though compacting would make it so; not an object; empty.
        for bad in [
            r#"{"a": 1 2}"#,
            r#"{"a": tr ue}"#,
            r#"{"a": - 1}"#,
            r#"{"a": 1 .5}"#,
            "[1, 2]",
            "\"x\"",
            "",
            "{",
        ] {
            assert_eq!(raw(bad).unwrap_err(), Arguments::Text(bad.into()), "{bad}");
        }
        // A value is left to the caller.
        let value = Arguments::Value(serde_json::json!({"a": 1}));
        assert_eq!(raw_object(value.clone()).unwrap_err(), value);
    }

    #[test]
    fn wire_arguments_read_as_values_or_text() {
        let parsed: MaybeRaw<Map<String, Value>> =
            MaybeRaw::Parsed(serde_json::json!({"a": 1}).as_object().unwrap().clone());
        assert_eq!(
            args_of(parsed),
            Arguments::Value(serde_json::json!({"a": 1}))
        );
        let text: MaybeRaw<Value> =
            MaybeRaw::Raw(RawValue::from_string("{\"a\":1}".into()).unwrap());
        assert!(matches!(args_of(text), Arguments::Text(t) if t == "{\"a\":1}"));
    }

    #[test]
    fn rfc3339_reads_and_writes_unix_seconds() {
        // Checked with `date -u -d @…`.
        for (text, secs) in [
            ("1970-01-01T00:00:00Z", 0),
            ("2023-08-04T19:22:45.499127Z", 1_691_176_965),
            ("2023-08-04T21:22:45+02:00", 1_691_176_965),
            ("2024-02-29T23:59:59Z", 1_709_251_199),
            ("2000-03-01T00:00:00Z", 951_868_800),
        ] {
            assert_eq!(unix_of_rfc3339(text), Some(secs), "{text}");
        }
        assert_eq!(rfc3339_of_unix(1_691_176_965), "2023-08-04T19:22:45Z");
        assert_eq!(rfc3339_of_unix(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(rfc3339_of_unix(0), "1970-01-01T00:00:00Z");
        for bad in [
            "",
            "2023-08-04",
            "2023-08-04T19:22:45",
            "2023-13-04T19:22:45Z",
            "2023-08-04T19:22:45.Z",
            "1969-12-31T23:59:59Z",
            "2023-08-04T19:22:45+0200",
            "２023-08-04T19:22:45Z",
        ] {
            assert_eq!(unix_of_rfc3339(bad), None, "{bad}");
        }
    }
}
