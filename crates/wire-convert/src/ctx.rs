//! [`Ctx`]: the small context every decoder and encoder gets — the options, the losses
//! found so far, and (when decoding) where each neutral item came from in the source.

use crate::model::{Reasoning, Signed, Vendor};
use crate::vendor::NULLS;
use crate::{Loss, LossCode, LossKind, Options, ReasoningMode};
use serde_json::{Map, Value};
use std::collections::HashMap;
use wire_types::{Extra, Format};

/// The context of one decode or encode.
///
/// Decoders record losses with **source** pointers and tell the context where each
/// neutral message, part and tool came from ([`Ctx::map`]). Encoders record losses with
/// **neutral** pointers (`/messages/3/content/1/signature`); the conversion rewrites them
/// into source pointers through that map at the end, so every reported path points into
/// the input the caller gave.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    /// The options of this conversion.
    pub(crate) options: &'a Options,
    /// The format being decoded or encoded.
    pub(crate) format: Format,
    /// When encoding a conversion: the format the value was decoded from (`None` for a
    /// neutral value built in code).
    pub(crate) source: Option<Format>,
    losses: Vec<Loss>,
    map: SourceMap,
    /// Pointer buffers handed out by [`Ctx::buf`] and given back: a part's encoder
    /// builds the pointers of its nested parts in one without allocating each time.
    bufs: Vec<String>,
    /// Only the conversation items are being written ([`crate::encode_messages`]):
    /// losses outside `/messages` concern nothing written and are not recorded.
    pub(crate) items_only: bool,
    /// Request fields that hosted tools of another format became in this one (OpenAI
    /// Chat's `web_search_options`, see [`crate::passes::builtin`]), for the encoder to
    /// write with the request's own fields: (field, value, the tool's neutral pointer).
    pub(crate) request_fields: Vec<(String, Value, String)>,
}

/// Text a pointer is written from ([`Ctx::map`]): a `str`, a `String`, an index, a
/// tuple of those written one after the other, or `format_args!` for anything else.
pub(crate) trait Piece {
    /// Appends the text to `buf`.
    fn put(&self, buf: &mut String);
}

impl Piece for str {
    fn put(&self, buf: &mut String) {
        buf.push_str(self);
    }
}

impl Piece for String {
    fn put(&self, buf: &mut String) {
        buf.push_str(self);
    }
}

impl Piece for usize {
    fn put(&self, buf: &mut String) {
        crate::util::push_index(buf, *self);
    }
}

impl Piece for std::fmt::Arguments<'_> {
    fn put(&self, buf: &mut String) {
        use std::fmt::Write;
        let _ = buf.write_fmt(*self);
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    fn put(&self, buf: &mut String) {
        (**self).put(buf);
    }
}

impl<A: Piece, B: Piece> Piece for (A, B) {
    fn put(&self, buf: &mut String) {
        self.0.put(buf);
        self.1.put(buf);
    }
}

impl<A: Piece, B: Piece, C: Piece> Piece for (A, B, C) {
    fn put(&self, buf: &mut String) {
        self.0.put(buf);
        self.1.put(buf);
        self.2.put(buf);
    }
}

impl<A: Piece, B: Piece, C: Piece, D: Piece> Piece for (A, B, C, D) {
    fn put(&self, buf: &mut String) {
        self.0.put(buf);
        self.1.put(buf);
        self.2.put(buf);
        self.3.put(buf);
    }
}

/// Where each neutral item came from: every pointer pair written once into one buffer
/// (no allocation per entry; searched only when a loss needs a source pointer).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct SourceMap {
    /// The format decoded (it spells the fields a loss path ends in).
    pub(crate) format: Option<Format>,
    text: String,
    /// (neutral start, split between neutral and source, source end) in `text`.
    spans: Vec<(u32, u32, u32)>,
}

impl SourceMap {
    /// The (neutral, source) pairs, in the order recorded.
    fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.spans.iter().filter_map(|&(a, b, c)| {
            Some((
                self.text.get(a as usize..b as usize)?,
                self.text.get(b as usize..c as usize)?,
            ))
        })
    }
}

impl<'a> Ctx<'a> {
    /// A context for decoding or encoding `format`.
    pub(crate) fn new(format: Format, options: &'a Options) -> Self {
        Ctx {
            options,
            format,
            source: None,
            losses: Vec::new(),
            map: SourceMap::default(),
            bufs: Vec::new(),
            items_only: false,
            request_fields: Vec::new(),
        }
    }

    /// An empty string to build pointers in (see [`crate::util::set_path`]), taken from
    /// the buffers given back with [`Ctx::give_back`] when there is one.
    pub(crate) fn buf(&mut self) -> String {
        // Room for a deep pointer, so building one does not grow it twice.
        self.bufs.pop().unwrap_or_else(|| String::with_capacity(64))
    }

    /// Returns a buffer from [`Ctx::buf`] for reuse.
    pub(crate) fn give_back(&mut self, mut buf: String) {
        buf.clear();
        self.bufs.push(buf);
    }

    /// Records that what is at `path` has no place in the target and is not written.
    pub(crate) fn dropped(
        &mut self,
        code: LossCode,
        path: impl AsRef<str> + Into<String>,
        detail: impl Into<String>,
    ) {
        self.record(code, LossKind::Dropped, path, detail);
    }

    /// Records that what is at `path` is written, altered.
    pub(crate) fn changed(
        &mut self,
        code: LossCode,
        path: impl AsRef<str> + Into<String>,
        detail: impl Into<String>,
    ) {
        self.record(code, LossKind::Changed, path, detail);
    }

    /// Records that what is at `path` is written elsewhere.
    pub(crate) fn moved(
        &mut self,
        code: LossCode,
        path: impl AsRef<str> + Into<String>,
        detail: impl Into<String>,
    ) {
        self.record(code, LossKind::Moved, path, detail);
    }

    /// Records losses found in another context (a plan made aside, say).
    pub(crate) fn extend_losses(&mut self, losses: Vec<Loss>) {
        for l in losses {
            self.record(l.code, l.kind, l.path, l.detail);
        }
    }

    fn record(
        &mut self,
        code: LossCode,
        kind: LossKind,
        path: impl AsRef<str> + Into<String>,
        detail: impl Into<String>,
    ) {
        if self.items_only && !path.as_ref().starts_with("/messages") {
            return;
        }
        self.losses.push(Loss {
            path: path.into(),
            kind,
            code,
            detail: detail.into(),
        });
    }

    /// Records that the neutral item at `neutral` (`/messages/2`, `/messages/2/content/0`,
    /// `/tools/1`, `/choices/0/message/content/3`) came from `source` in the input.
    ///
    /// Both are [`Piece`]s: a hot loop passes tuples of text and indices
    /// (`("/messages/", n)`), written without the formatting machinery; `format_args!`
    /// does for the rest.
    pub(crate) fn map(&mut self, neutral: impl Piece, source: impl Piece) {
        if !self.options.source_map {
            return;
        }
        let m = &mut self.map;
        if m.text.capacity() == 0 {
            // Room for a short response's pointers at once, instead of growing to it.
            m.text.reserve(256);
            m.spans.reserve(8);
        }
        let a = m.text.len();
        neutral.put(&mut m.text);
        let b = m.text.len();
        source.put(&mut m.text);
        let c = m.text.len();
        if m.text[a..b] == m.text[b..c] {
            // Same pointer on both sides: nothing to rewrite.
            m.text.truncate(a);
        } else if let (Ok(a), Ok(b), Ok(c)) = (u32::try_from(a), u32::try_from(b), u32::try_from(c))
        {
            m.spans.push((a, b, c));
        }
    }

    /// Makes room in the source map, at once, for the pointers of a body of `bytes`
    /// bytes of text, so that a long transcript's map is not copied at each doubling:
    /// an OpenAI Chat transcript, whose merged tool messages shift every later pointer,
    /// takes about a sixth of its size in pointer text and one pair for every 220 bytes
    /// or so. Linear in the body, like the map itself.
    pub(crate) fn expect_body(&mut self, bytes: usize) {
        if self.options.source_map {
            self.map.text.reserve(bytes / 5);
            self.map.spans.reserve(bytes / 200);
        }
    }

    /// The losses recorded so far.
    pub(crate) fn losses(&self) -> &[Loss] {
        &self.losses
    }

    /// Takes the losses out.
    pub(crate) fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.losses)
    }

    /// Takes the neutral → source map out.
    pub(crate) fn take_map(&mut self) -> SourceMap {
        let mut map = std::mem::take(&mut self.map);
        map.format = Some(self.format);
        map
    }

    /// The vendor field `key` of `fields` as the wire field it stands for, taken out, for
    /// an encoder that writes a default where it is absent. A value that does not fit
    /// (only a hand-built neutral value has one: decoded records come from the typed
    /// wire) is taken out too, with a `changed` loss at `at/key`, so that it never goes
    /// out beside the default (the key twice) or in its place (a body the format's own
    /// types refuse).
    pub(crate) fn take_fit<T: serde::de::DeserializeOwned>(
        &mut self,
        fields: &mut Map<String, Value>,
        key: &str,
        at: &str,
    ) -> Option<T> {
        use crate::vendor::Fields;
        match fields.take_typed(key)? {
            Ok(t) => Some(t),
            Err((_, e)) => {
                let mut path = at.to_owned();
                wire_types::push_token(&mut path, key);
                let detail = format!(
                    "{} field `{key}` does not fit its wire field ({e}): not written",
                    self.format
                );
                self.changed(LossCode::FieldDefaulted, path, detail);
                None
            }
        }
    }

    /// The fields of `vendor` to write into an object of this context's format: all of
    /// them when they came from this format; otherwise none, and each is recorded as
    /// dropped at `at` (a neutral pointer to the object that carried them).
    pub(crate) fn vendor_fields(&mut self, vendor: &Vendor, at: &str) -> Map<String, Value> {
        match vendor.format {
            Some(f) if f == self.format => vendor.fields.to_map(),
            Some(f) => {
                for key in vendor.fields.keys() {
                    let mut path = at.to_owned();
                    wire_types::push_token(&mut path, key);
                    let detail = format!("{f} field `{key}` has no equivalent in {}", self.format);
                    // Through `loss`, so a messages-only encode skips request fields.
                    self.dropped(LossCode::FieldUnsupported, path, detail);
                }
                Map::new()
            }
            None => Map::new(),
        }
    }

    /// Reports each field of `vendor` as dropped when it belongs to another format (a
    /// neutral pointer `at` to the object that carried them), for an object this format
    /// writes without any of its own fields.
    pub(crate) fn report_foreign_fields(&mut self, vendor: &Vendor, at: &str) {
        if vendor.format.is_some_and(|f| f != self.format) {
            self.vendor_fields(vendor, at);
        }
    }

    /// Reports every field of `vendor` as dropped, this format's own included, for an
    /// object written without any of them (a part a stream encoder writes from its
    /// neutral content alone).
    pub(crate) fn report_unwritten_fields(&mut self, vendor: &Vendor, at: &str) {
        match vendor.format {
            Some(f) if f == self.format => {
                for key in vendor.fields.keys() {
                    let mut path = at.to_owned();
                    wire_types::push_token(&mut path, key);
                    let detail = format!("{f} field `{key}` is not written in a {f} stream");
                    self.dropped(LossCode::FieldUnsupported, path, detail);
                }
            }
            _ => self.report_foreign_fields(vendor, at),
        }
    }

    /// Reports a token (a signature, an encrypted payload) that this format has no place
    /// for where it stands: another format's as never sent ([`LossCode::SignatureForeign`]),
    /// this format's own as having no place there ([`LossCode::PartChanged`]).
    pub(crate) fn report_unplaced_token(
        &mut self,
        token: Option<&Signed>,
        at: std::fmt::Arguments<'_>,
        what: &str,
    ) {
        let Some(t) = token else { return };
        if t.format == self.format {
            let detail = format!("{} has no place here for {what}", self.format);
            self.dropped(LossCode::PartChanged, at.to_string(), detail);
        } else {
            self.own(Some(t), at, what);
        }
    }

    /// An [`Extra`] rebuilt from `vendor` for a wire struct of this context's format:
    /// the unknown fields back in place, and the explicit nulls (the `nulls` hint) marked
    /// again for the fields among `fields` (the struct's `FIELDS`). Fields of another
    /// format are reported as dropped (see [`Ctx::vendor_fields`]).
    pub(crate) fn extra(
        &mut self,
        vendor: &Vendor,
        fields: &'static [&'static str],
        at: &str,
    ) -> Extra {
        let own = self.vendor_fields(vendor, at);
        extra_from(own, vendor, fields, at, self)
    }

    /// [`Ctx::vendor_fields`], but the fields are taken out of `vendor` rather than
    /// copied (an encoder that owns the neutral value).
    pub(crate) fn take_vendor_fields(
        &mut self,
        vendor: &mut Vendor,
        at: &str,
    ) -> Map<String, Value> {
        if vendor.format == Some(self.format) {
            vendor.fields.take()
        } else {
            self.vendor_fields(vendor, at)
        }
    }

    /// Marks again in `extra` the explicit nulls of `vendor` (its `nulls` hint) that are
    /// among `fields` (the wire struct's `FIELDS`), when `vendor` is this format's.
    pub(crate) fn mark_nulls(
        &self,
        extra: &mut Extra,
        vendor: &Vendor,
        fields: &'static [&'static str],
    ) {
        if vendor.format == Some(self.format) {
            if let Some(Value::Array(nulls)) = vendor.hints.get(NULLS) {
                for n in nulls.iter().filter_map(Value::as_str) {
                    if let Some(f) = fields.iter().find(|f| **f == n) {
                        extra.mark_null(f);
                    }
                }
            }
        }
    }
}

/// An encoder's [`Extra`] for a wire struct: the unknown fields left in `fields` (the
/// vendor fields it did not map), plus the explicit nulls `vendor` recorded for the known
/// fields `known` (the struct's `FIELDS`) when it is this format's.
///
/// A field left in `fields` under a known field's name (one that did not fit the wire
/// field, or one the encoder wrote from the neutral value instead) is taken out with a
/// `dropped` loss at `at/key` (`at` the neutral pointer of the object): written, it would
/// be the key twice or a value the format's own types refuse, a body toolwire cannot read
/// back. Only a hand-built neutral value has one: records decoded from the wire hold
/// unknown fields alone.
#[inline]
pub(crate) fn extra_from(
    fields: Map<String, Value>,
    vendor: &Vendor,
    known: &'static [&'static str],
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Extra {
    let fields = ctx.unknown_only(fields, known, at);
    let mut extra = Extra::from(fields);
    ctx.mark_nulls(&mut extra, vendor, known);
    extra
}

impl Ctx<'_> {
    /// The vendor fields left for a wire struct's `extra` without those named like one of
    /// its fields (`known`, its `FIELDS`), each a loss at `at/key`: the rule of
    /// [`extra_from`], for a writer that builds the rest of the `Extra` itself (a stream
    /// encoder's chunk).
    ///
    /// `at` is a [`Piece`], written only when there is a loss: a nested object's pointer
    /// (`(at, "/function")`) costs nothing on the usual path.
    pub(crate) fn unknown_only(
        &mut self,
        fields: Map<String, Value>,
        known: &'static [&'static str],
        at: impl Piece,
    ) -> Map<String, Value> {
        // Most objects of a long transcript carry no vendor fields: nothing to look at.
        if fields.is_empty() || !fields.keys().any(|k| known.contains(&k.as_str())) {
            return fields;
        }
        let mut path = String::new();
        at.put(&mut path);
        without_known(fields, known, &path, self)
    }
}

/// `fields` without those named like a field in `known`, each a loss (see [`extra_from`]).
fn without_known(
    mut fields: Map<String, Value>,
    known: &'static [&'static str],
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Map<String, Value> {
    fields.retain(|key, _| {
        if !known.contains(&key.as_str()) {
            return true;
        }
        let mut path = at.to_owned();
        wire_types::push_token(&mut path, key);
        let detail = format!(
            "{} field `{key}` stands for a field written from the neutral value, or does not fit it: not written",
            ctx.format
        );
        ctx.dropped(LossCode::FieldUnsupported, path, detail);
        false
    });
    fields
}

/// What of a reasoning part an encoder may write (see [`Ctx::reasoning`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReasoningView<'r> {
    /// The reasoning text.
    pub(crate) text: Option<&'r str>,
    /// Summaries.
    pub(crate) summary: &'r [String],
    /// The signature, if this format made it.
    pub(crate) signature: Option<&'r str>,
    /// The encrypted / redacted payload, if this format made it.
    pub(crate) encrypted: Option<&'r str>,
}

impl Ctx<'_> {
    /// A token made by some format, if it is this context's format; otherwise `None`,
    /// with a loss at `at`: a signature is never sent to a provider that did not make it.
    /// `at` is only formatted when there is a loss (most parts carry no token).
    pub(crate) fn own<'s>(
        &mut self,
        token: Option<&'s Signed>,
        at: std::fmt::Arguments<'_>,
        what: &str,
    ) -> Option<&'s str> {
        let t = token?;
        if t.format == self.format {
            Some(t.value.as_str())
        } else {
            self.dropped(
                LossCode::SignatureForeign,
                at.to_string(),
                format!(
                    "{what} made by {} is never sent to {}",
                    t.format, self.format
                ),
            );
            None
        }
    }

    /// What of `r` (at neutral pointer `at`) this format may receive: foreign signatures
    /// and encrypted payloads are dropped with a loss each; with
    /// [`ReasoningMode::Drop`] reasoning from another format is dropped whole (a loss)
    /// and `None` returned.
    /// `None` is also returned, with a loss, when nothing usable is left.
    pub(crate) fn reasoning<'r>(
        &mut self,
        r: &'r Reasoning,
        at: &str,
    ) -> Option<ReasoningView<'r>> {
        let foreign = r.source.is_some_and(|f| f != self.format)
            || [r.signature.as_ref(), r.encrypted.as_ref()]
                .into_iter()
                .flatten()
                .any(|s| s.format != self.format);
        if self.options.reasoning == ReasoningMode::Drop && foreign {
            self.dropped(
                LossCode::ReasoningDropped,
                at.to_owned(),
                "reasoning dropped (option reasoning = drop)",
            );
            return None;
        }
        if let (Some(id), Some(src)) = (&r.id, r.source) {
            if src != self.format {
                self.dropped(
                    LossCode::SignatureForeign,
                    format!("{at}/id"),
                    format!(
                        "reasoning item id `{id}` made by {src} means nothing to {}",
                        self.format
                    ),
                );
            }
        }
        let signature = self.own(
            r.signature.as_ref(),
            format_args!("{at}/signature"),
            "a reasoning signature",
        );
        let encrypted = self.own(
            r.encrypted.as_ref(),
            format_args!("{at}/encrypted"),
            "encrypted reasoning",
        );
        let text = r.text.as_deref().filter(|t| !t.is_empty());
        if text.is_none() && r.summary.is_empty() && signature.is_none() && encrypted.is_none() {
            // Only foreign tokens were left: the losses above say so.
            return None;
        }
        Some(ReasoningView {
            text: r.text.as_deref(),
            summary: &r.summary,
            signature,
            encrypted,
        })
    }
}

/// Rewrites a neutral pointer into a source pointer, through the longest neutral prefix
/// (at a segment boundary) the decoder mapped; a neutral field name it ends in is then
/// spelled the way `format` (the source) spells it ([`source_field`]).
pub(crate) fn to_source(
    map: &HashMap<&str, &str>,
    neutral: &str,
    format: Option<Format>,
) -> String {
    let mut end = neutral.len();
    let path = loop {
        let prefix = &neutral[..end];
        if let Some(source) = map.get(prefix) {
            break format!("{source}{}", &neutral[end..]);
        }
        match prefix.rfind('/') {
            Some(i) if i > 0 => end = i,
            _ => break neutral.to_owned(),
        }
    };
    match format {
        Some(f) => respell(path, neutral, f),
        None => path,
    }
}

/// Spells the neutral field that `path` (rewritten from `neutral`) ends in as `format`
/// does: `…/arguments` of an Anthropic call is its `input`, `…/signature` of a Gemini
/// part its `thoughtSignature`, `/usage/reasoning_tokens` of OpenAI Chat
/// `completion_tokens_details/reasoning_tokens`. Only the fields an encoder reports on
/// are spelled: those of a part or a tool (the segment before is an index, or `cache/ttl`
/// after one) and those of the usage.
fn respell(path: String, neutral: &str, format: Format) -> String {
    let segments: Vec<&str> = neutral.split('/').collect();
    let index = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (field, tail, usage) = match segments.as_slice() {
        ["", "usage", field] => (*field, "", true),
        [.., n, field] if index(n) => (*field, "", false),
        [.., n, "cache", "ttl"] if index(n) => ("cache", "/ttl", false),
        _ => return path,
    };
    let Some(spelled) = source_field(format, usage, field) else {
        return path;
    };
    if path.ends_with(&format!("/{spelled}{tail}")) {
        // The decoder mapped the field itself (Ollama maps a call to its `function`).
        return path;
    }
    let cut = path.len() - tail.len() - field.len();
    match path.get(..cut) {
        Some(head) if path[cut..].starts_with(field) => format!("{head}{spelled}{tail}"),
        _ => path,
    }
}

/// How `format` spells a neutral field of a part or tool (`usage`: of the usage), where
/// it differs.
fn source_field(format: Format, usage: bool, field: &str) -> Option<&'static str> {
    use Format::*;
    Some(match (usage, field, format) {
        (false, "arguments", OpenaiChat | Ollama | Mistral | Cohere) => "function/arguments",
        (false, "arguments", Anthropic) => "input",
        (false, "arguments", Gemini) => "functionCall/args",
        (false, "arguments", Bedrock) => "toolUse/input",
        (false, "signature", Gemini) => "thoughtSignature",
        (false, "signature", Bedrock) => "reasoningContent/reasoningText/signature",
        (false, "encrypted", Anthropic) => "data",
        (false, "encrypted", OpenaiResponses) => "encrypted_content",
        (false, "encrypted", Bedrock) => "reasoningContent/redactedContent",
        (false, "cache", Anthropic) => "cache_control",
        (false, "detail", OpenaiChat | Cohere) => "image_url/detail",
        (true, "input_tokens", OpenaiChat | Mistral) => "prompt_tokens",
        (true, "output_tokens", OpenaiChat | Mistral) => "completion_tokens",
        (true, "cached_input_tokens", OpenaiChat) => "prompt_tokens_details/cached_tokens",
        (true, "reasoning_tokens", OpenaiChat) => "completion_tokens_details/reasoning_tokens",
        (true, "cached_input_tokens", OpenaiResponses) => "input_tokens_details/cached_tokens",
        (true, "reasoning_tokens", OpenaiResponses) => "output_tokens_details/reasoning_tokens",
        (true, "cache_write_tokens", OpenaiResponses) => "input_tokens_details/cache_write_tokens",
        (true, "cached_input_tokens", Anthropic) => "cache_read_input_tokens",
        (true, "cache_write_tokens", Anthropic) => "cache_creation_input_tokens",
        (true, "input_tokens", Gemini) => "promptTokenCount",
        (true, "output_tokens", Gemini) => "candidatesTokenCount",
        (true, "total_tokens", Gemini) => "totalTokenCount",
        (true, "cached_input_tokens", Gemini) => "cachedContentTokenCount",
        (true, "reasoning_tokens", Gemini) => "thoughtsTokenCount",
        (true, "input_tokens", Bedrock) => "inputTokens",
        (true, "output_tokens", Bedrock) => "outputTokens",
        (true, "total_tokens", Bedrock) => "totalTokens",
        (true, "cached_input_tokens", Bedrock) => "cacheReadInputTokens",
        (true, "cache_write_tokens", Bedrock) => "cacheWriteInputTokens",
        _ => return None,
    })
}

/// The neutral → source map as an index for rewriting `paths` (built only when a loss
/// needs it; a later entry for the same neutral pointer wins, as inserts into a map
/// would).
///
/// With a few paths (the usual case: a handful of losses against a long transcript) only
/// the entries that can serve them are kept: those whose neutral pointer is one of the
/// paths' prefixes, most of the others rejected by their length alone.
pub(crate) fn index<'m>(map: &'m SourceMap, paths: &[&str]) -> HashMap<&'m str, &'m str> {
    if paths.len() > 64 {
        return map.pairs().collect();
    }
    let mut by_len: Vec<Vec<&str>> = Vec::new();
    for p in paths {
        let mut end = p.len();
        loop {
            let prefix = &p[..end];
            if by_len.len() <= end {
                by_len.resize(end + 1, Vec::new());
            }
            by_len[end].push(prefix);
            match prefix.rfind('/') {
                Some(i) if i > 0 => end = i,
                _ => break,
            }
        }
    }
    map.pairs()
        .filter(|(n, _)| by_len.get(n.len()).is_some_and(|b| b.contains(n)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_path_is_rewritten_through_its_longest_mapped_prefix_whichever_index_is_built() {
        let options = Options::default();
        let mut ctx = Ctx::new(Format::OpenaiChat, &options);
        ctx.map("/messages/0", "/messages/1");
        ctx.map("/messages/0/content/0", "/messages/1/content");
        ctx.map("/messages/1", "/messages/2");
        // A later entry for the same neutral pointer wins.
        ctx.map("/messages/1", "/messages/3");
        for i in 0..200 {
            ctx.map(format_args!("/messages/{}", i + 10), format_args!("/m/{i}"));
        }
        let map = ctx.take_map();
        let cases = [
            (
                "/messages/0/content/0/arguments",
                "/messages/1/content/arguments",
            ),
            ("/messages/0/name", "/messages/1/name"),
            ("/messages/1", "/messages/3"),
            ("/messages/15/content/2", "/m/5/content/2"),
            ("/max_tokens", "/max_tokens"),
        ];
        let paths: Vec<&str> = cases.iter().map(|(n, _)| *n).collect();
        // A few paths: the index keeps only what serves them.
        let small = index(&map, &paths);
        assert!(small.len() < 10, "{small:?}");
        // Many paths: the whole map.
        let many: Vec<&str> = paths.iter().copied().cycle().take(100).collect();
        let full = index(&map, &many);
        assert!(full.len() > 200);
        for (neutral, source) in cases {
            assert_eq!(to_source(&small, neutral, None), source);
            assert_eq!(to_source(&full, neutral, None), source);
        }
    }

    #[test]
    fn a_neutral_field_at_the_end_of_a_loss_path_is_spelled_the_way_the_source_spells_it() {
        let options = Options::default();
        let mut ctx = Ctx::new(Format::OpenaiChat, &options);
        ctx.map("/messages/2/content/1", "/messages/2/tool_calls/0");
        ctx.map("/usage", "/usageMetadata");
        let map = ctx.take_map();
        let cases = [
            (
                Format::OpenaiChat,
                "/messages/2/content/1/arguments",
                "/messages/2/tool_calls/0/function/arguments",
            ),
            (
                Format::Anthropic,
                "/messages/0/content/3/arguments",
                "/messages/0/content/3/input",
            ),
            (
                Format::Anthropic,
                "/tools/1/cache",
                "/tools/1/cache_control",
            ),
            (
                Format::Anthropic,
                "/system/0/cache/ttl",
                "/system/0/cache_control/ttl",
            ),
            (
                Format::Anthropic,
                "/messages/1/content/0/encrypted",
                "/messages/1/content/0/data",
            ),
            (
                Format::Gemini,
                "/usage/reasoning_tokens",
                "/usageMetadata/thoughtsTokenCount",
            ),
            (
                Format::OpenaiResponses,
                "/input/4/encrypted",
                "/input/4/encrypted_content",
            ),
            // A field the source spells the neutral way, and one that is not a part's.
            (
                Format::Anthropic,
                "/messages/1/content/0/signature",
                "/messages/1/content/0/signature",
            ),
            (
                Format::Anthropic,
                "/thinking/arguments",
                "/thinking/arguments",
            ),
            // Already the source's own field (a decoder mapped it): left alone.
            (
                Format::Ollama,
                "/message/tool_calls/0/function/arguments",
                "/message/tool_calls/0/function/arguments",
            ),
        ];
        let paths: Vec<&str> = cases.iter().map(|(_, n, _)| *n).collect();
        let index = index(&map, &paths);
        for (format, neutral, source) in cases {
            assert_eq!(to_source(&index, neutral, Some(format)), source, "{format}");
        }
    }
}
