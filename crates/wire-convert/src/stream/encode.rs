//! [`StreamEncoder`]: [`StreamPart`]s in, a format's stream out (its typed events in its
//! wire framing), and the [`EventEncoder`] state machine each format implements.

use super::{
    Finish, Framing, PartId, Signature, StreamError, StreamErrorKind, StreamPart, StreamStart,
    ToolStart, Whole,
};
use crate::ids::IdMapper;
use crate::model::{Arguments, Part, PartMeta, Signed, Text, ToolCall, Vendor};
use crate::passes::tools::NO_TYPE;
use crate::{Ctx, Error, Format, IdMap, Loss, LossCode, Options, ReasoningMode};
use serde::Serialize;
use std::collections::HashSet;
use wire_types::stream::{FrameKind, write_event_stream};

/// Where a format's encoder puts its events: written at once in the stream's framing,
/// into one buffer that [`StreamEncoder`] hands out after each part (serialized straight
/// into it: no intermediate string per event, `cargo bench -p wire-convert --bench
/// translate`).
#[derive(Debug)]
pub(crate) struct Events {
    framing: Framing,
    /// Bedrock's decoded form, `{"<eventType>": payload}` a line, when NDJSON.
    wrap: bool,
    out: Vec<u8>,
    /// OpenAI's `data: [DONE]` terminator, after the events.
    done: bool,
}

impl Events {
    fn new(format: Format, framing: Framing) -> Self {
        Events {
            framing,
            wrap: format == Format::Bedrock,
            out: Vec::new(),
            done: false,
        }
    }

    /// An event named `name` (or none) with `value` as its payload. A value that cannot
    /// be written as JSON is an error, never a silent `null`.
    pub(crate) fn push<T: Serialize>(
        &mut self,
        name: Option<&'static str>,
        value: &T,
    ) -> Result<(), Error> {
        let fail = |e: serde_json::Error| Error::invalid("", e.to_string());
        let start = self.out.len();
        let written = match self.framing {
            // serde_json writes no raw line break, so the payload is one `data:` line.
            Framing::Sse => {
                if let Some(name) = name {
                    self.out.extend_from_slice(b"event: ");
                    self.out.extend_from_slice(name.as_bytes());
                    self.out.push(b'\n');
                }
                self.out.extend_from_slice(b"data: ");
                let w = serde_json::to_writer(&mut self.out, value);
                self.out.extend_from_slice(b"\n\n");
                w
            }
            Framing::Ndjson if self.wrap => {
                let name = name.unwrap_or("event");
                self.out.extend_from_slice(b"{\"");
                self.out.extend_from_slice(name.as_bytes());
                self.out.extend_from_slice(b"\":");
                let w = serde_json::to_writer(&mut self.out, value);
                self.out.extend_from_slice(b"}\n");
                w
            }
            Framing::Ndjson => {
                let w = serde_json::to_writer(&mut self.out, value);
                self.out.push(b'\n');
                w
            }
            Framing::EventStream => {
                let data = serde_json::to_string(value).map_err(fail)?;
                let name = name.unwrap_or("event");
                let kind = if name.ends_with("Exception") {
                    FrameKind::Exception
                } else {
                    FrameKind::Event
                };
                write_event_stream(&mut self.out, kind, name, &data);
                Ok(())
            }
        };
        if let Err(e) = written {
            self.out.truncate(start);
            return Err(fail(e));
        }
        Ok(())
    }

    /// An event whose payload is `prefix`, `text` as a JSON string, then `suffix`: a
    /// payload serialized once as a template, `text` spliced in where its empty string was.
    pub(crate) fn push_spliced(
        &mut self,
        name: Option<&'static str>,
        prefix: &str,
        text: &str,
        suffix: &str,
    ) -> Result<(), Error> {
        let fail = |e: serde_json::Error| Error::invalid("", e.to_string());
        let splice = |out: &mut Vec<u8>| -> Result<(), Error> {
            out.extend_from_slice(prefix.as_bytes());
            serde_json::to_writer(&mut *out, text).map_err(fail)?;
            out.extend_from_slice(suffix.as_bytes());
            Ok(())
        };
        match self.framing {
            Framing::Sse => {
                if let Some(name) = name {
                    self.out.extend_from_slice(b"event: ");
                    self.out.extend_from_slice(name.as_bytes());
                    self.out.push(b'\n');
                }
                self.out.extend_from_slice(b"data: ");
                splice(&mut self.out)?;
                self.out.extend_from_slice(b"\n\n");
            }
            Framing::Ndjson if self.wrap => {
                self.out.extend_from_slice(b"{\"");
                self.out
                    .extend_from_slice(name.unwrap_or("event").as_bytes());
                self.out.extend_from_slice(b"\":");
                splice(&mut self.out)?;
                self.out.extend_from_slice(b"}\n");
            }
            Framing::Ndjson => {
                splice(&mut self.out)?;
                self.out.push(b'\n');
            }
            Framing::EventStream => {
                let mut data = Vec::new();
                splice(&mut data)?;
                let data =
                    String::from_utf8(data).map_err(|e| Error::invalid("", e.to_string()))?;
                let name = name.unwrap_or("event");
                write_event_stream(&mut self.out, FrameKind::Event, name, &data);
            }
        }
        Ok(())
    }

    /// The `[DONE]` terminator.
    #[allow(dead_code)] // the OpenAI-style encoders end with it
    pub(crate) fn done(&mut self) {
        self.done = true;
    }
}

/// A format's stream encoder: a state machine from neutral parts to its events.
///
/// [`StreamEncoder`] gates the parts before they reach it, by the rules every format
/// shares ([`admit`]): nothing passes once the stream is over, the first part starts the
/// stream ([`EventEncoder::start`]), and the parts the format leaves out
/// ([`EventEncoder::rule`]) never reach [`EventEncoder::part`], nor anything that belongs
/// to them.
pub(crate) trait EventEncoder: Send {
    /// The encoder's gate (see [`Gate`]).
    fn gate(&mut self) -> &mut Gate;

    /// Which parts the format leaves out: by default none of any choice, and reasoning
    /// when the options drop it.
    fn rule(&self) -> Rule {
        Rule::every_choice(true)
    }

    /// The stream's start: called once, before any part ([`start_once`]).
    fn start(&mut self, s: StreamStart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error>;

    /// One part the gate let through. Losses go to `ctx` with the pointer
    /// `/parts/<part id>[/field]` (or `/usage`, `/finish`), once per part, never once per
    /// delta. An error part, once written, ends the stream (the gate is then over).
    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error>;

    /// The end of the source stream, unless the stream is over already (its last event,
    /// or an error, written): what had to wait is written, what is open is closed, and
    /// the format's terminator.
    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error>;

    /// Writes `parts`, each as [`EventEncoder::part`] does: the parts a whole part the
    /// gate let through streams as ([`text_parts`], [`call_parts`]).
    fn parts(
        &mut self,
        parts: impl IntoIterator<Item = StreamPart>,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error>
    where
        Self: Sized,
    {
        for p in parts {
            self.part(p, out, ctx)?;
        }
        Ok(())
    }
}

/// A whole text as the parts it streams as: its start (with its meta), its text in one
/// delta, its end. For an encoder that writes a whole text as it writes a streamed one.
pub(crate) fn text_parts(part: PartId, choice: u32, text: Text) -> [StreamPart; 3] {
    [
        StreamPart::TextStart {
            part,
            choice,
            meta: text.meta,
        },
        StreamPart::TextDelta {
            part,
            text: text.text,
        },
        StreamPart::End { part },
    ]
}

/// A whole call as the parts it streams as: its start (id, name, meta), its arguments'
/// text in one delta, its end. For an encoder that writes a whole call as it writes a
/// streamed one.
pub(crate) fn call_parts(part: PartId, choice: u32, call: ToolCall) -> [StreamPart; 3] {
    let (start, arguments) = super::call_start(part, choice, call);
    [
        start,
        StreamPart::ToolDelta {
            part,
            json: arguments.text(),
        },
        StreamPart::End { part },
    ]
}

/// A whole text or call as the parts it streams as ([`text_parts`], [`call_parts`]), for
/// an encoder that writes both as it writes streamed ones; any other part given back.
pub(crate) fn streamed(whole: Whole) -> Result<[StreamPart; 3], Whole> {
    match whole.content {
        Part::Text(t) => Ok(text_parts(whole.part, whole.choice, t)),
        Part::ToolCall(c) => Ok(call_parts(whole.part, whole.choice, c)),
        content => Err(Whole { content, ..whole }),
    }
}

/// The loss pointer of a streamed part: `/parts/<part id>`.
pub(crate) fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
}

/// What every format's encoder keeps to gate the parts it is given: whether its stream
/// started and is over, and the parts it leaves out.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// The stream's start was written.
    pub(crate) started: bool,
    /// The stream is over (its last event, or an error, written): nothing more is.
    pub(crate) finished: bool,
    /// The parts left out, and what belongs to them.
    pub(crate) dropped: Dropped,
}

impl Gate {
    /// Ends the stream at the source's end: whether it was still open.
    fn close(&mut self) -> bool {
        !std::mem::replace(&mut self.finished, true)
    }
}

/// Which parts a format's encoder leaves out (see [`Dropped::admit`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    /// What the format streams one of (`message`, `output`): a part of another choice is
    /// left out, with a loss (see [`one_choice`]). `None`: it streams every choice.
    one: Option<&'static str>,
    /// Whether reasoning is left out when the options drop it (see [`reasoning_dropped`]):
    /// a format that keeps its own reasoning drops only another's.
    reasoning: bool,
    /// Whether the format has a place for a reasoning token (a signature, an encrypted
    /// payload): where it has none, each is a loss, reported as a signature's, and never
    /// reaches the encoder (see [`Rule::no_tokens`]).
    tokens: bool,
}

impl Rule {
    /// A format that streams one `what` (`message`, `output`).
    pub(crate) fn one(what: &'static str, reasoning: bool) -> Rule {
        Rule {
            one: Some(what),
            reasoning,
            tokens: true,
        }
    }

    /// A format that streams every choice.
    pub(crate) fn every_choice(reasoning: bool) -> Rule {
        Rule {
            one: None,
            reasoning,
            tokens: true,
        }
    }

    /// The same rule for a format with no place for any reasoning token (OpenAI Chat,
    /// Mistral: reasoning is text only there): every signature or encrypted payload is a
    /// loss, at `/parts/<part id>/signature`.
    pub(crate) fn no_tokens(self) -> Rule {
        Rule {
            tokens: false,
            ..self
        }
    }
}

/// The stream's start, unless it was written: `s` (a stream that ends before any part
/// still has one).
pub(crate) fn start_once(
    enc: &mut dyn EventEncoder,
    s: StreamStart,
    out: &mut Events,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let gate = enc.gate();
    if gate.started {
        return Ok(());
    }
    gate.started = true;
    enc.start(s, out, ctx)
}

/// Whether `part` reaches the format's encoder. Nothing passes once the stream is over;
/// the first part starts the stream (with its own [`StreamStart`] when it is one, else a
/// default one, as a stream that begins without a start still has one), and a start,
/// once written, is nothing more; then the parts the format leaves out
/// ([`Dropped::admit`] by [`EventEncoder::rule`]).
fn admit(
    enc: &mut dyn EventEncoder,
    part: &StreamPart,
    out: &mut Events,
    ctx: &mut Ctx<'_>,
) -> Result<bool, Error> {
    let gate = enc.gate();
    if gate.finished {
        return Ok(false);
    }
    if !gate.started {
        if let StreamPart::Start(s) = part {
            return start_once(enc, s.clone(), out, ctx).map(|()| false);
        }
        start_once(enc, StreamStart::default(), out, ctx)?;
    }
    let rule = enc.rule();
    Ok(enc.gate().dropped.admit(part, rule, ctx))
}

/// Whether a part of choice `choice` is sent by `format`, which streams one `what`
/// (message, output): a part of another choice is a loss.
pub(crate) fn one_choice(
    format: Format,
    what: &str,
    part: PartId,
    choice: u32,
    ctx: &mut Ctx<'_>,
) -> bool {
    if choice == 0 {
        return true;
    }
    ctx.dropped(
        LossCode::ChoicesDropped,
        at(part),
        format!("{format} streams one {what}: a part of choice {choice} is not sent"),
    );
    false
}

/// Whether a streamed reasoning part is dropped by the options (`reasoning = drop`),
/// `foreign` being whether the rule applies to it (a format keeping its own reasoning
/// drops only another's): the loss is recorded when it is.
pub(crate) fn reasoning_dropped(part: PartId, foreign: bool, ctx: &mut Ctx<'_>) -> bool {
    if foreign && ctx.options.reasoning == ReasoningMode::Drop {
        ctx.dropped(
            LossCode::ReasoningDropped,
            at(part),
            "reasoning dropped (option reasoning = drop)",
        );
        return true;
    }
    false
}

/// The loss of a streamed reasoning item's id, which means nothing to `format`.
pub(crate) fn reasoning_id_lost(id: Option<&str>, part: PartId, format: Format, ctx: &mut Ctx<'_>) {
    if let Some(id) = id {
        ctx.dropped(
            LossCode::SignatureForeign,
            format!("{}/id", at(part)),
            format!("reasoning item id `{id}` means nothing to {format}"),
        );
    }
}

/// The parts a format's encoder leaves out, with everything that belongs to them: a part
/// of a choice the format does not stream, reasoning the options drop. A part reaches its
/// format's encoder only if [`Dropped::admit`] lets it (see [`admit`]).
#[derive(Debug, Default)]
pub(crate) struct Dropped(Vec<PartId>);

impl Dropped {
    /// Whether `part` reaches the encoder, by the format's [`Rule`]: a part of another
    /// choice than the one it streams is a loss (see [`one_choice`]), and so is reasoning
    /// the options drop, when the rule applies to it (see [`reasoning_dropped`]). A part
    /// left out at its start is remembered, and its deltas, signature, meta and end are
    /// left out after it; the finish of another choice is nothing to a format that
    /// streams one; a signature is a loss to a format with no place for it
    /// ([`Rule::no_tokens`]).
    fn admit(&mut self, part: &StreamPart, rule: Rule, ctx: &mut Ctx<'_>) -> bool {
        let Rule {
            one,
            reasoning,
            tokens,
        } = rule;
        let (id, choice) = match part {
            StreamPart::TextStart { part, choice, .. }
            | StreamPart::ReasoningStart { part, choice, .. }
            | StreamPart::ToolStart(ToolStart { part, choice, .. })
            | StreamPart::Whole(Whole { part, choice, .. }) => (*part, *choice),
            StreamPart::Finish(Finish { choice, .. }) => return one.is_none() || *choice == 0,
            StreamPart::Signature(Signature { part, token, .. }) if !tokens => {
                if !self.0.contains(part) {
                    reasoning_token_lost(token, false, false, *part, ctx);
                }
                return false;
            }
            other => return part_of(other).is_none_or(|p| !self.0.contains(&p)),
        };
        if let Some(what) = one {
            if !one_choice(ctx.format, what, id, choice, ctx) {
                self.0.push(id);
                return false;
            }
        }
        if matches!(part, StreamPart::ReasoningStart { .. })
            && reasoning_dropped(id, reasoning, ctx)
        {
            self.0.push(id);
            return false;
        }
        true
    }

    /// Leaves out `part` (begun, by a rule of the format's own), and what belongs to it.
    pub(crate) fn drop(&mut self, part: PartId) {
        self.0.push(part);
    }
}

/// The part a stream part belongs to, when it is not its start.
fn part_of(part: &StreamPart) -> Option<PartId> {
    match part {
        StreamPart::TextDelta { part, .. }
        | StreamPart::ReasoningDelta { part, .. }
        | StreamPart::SummaryDelta { part, .. }
        | StreamPart::Signature(Signature { part, .. })
        | StreamPart::ToolDelta { part, .. }
        | StreamPart::Meta { part, .. }
        | StreamPart::End { part } => Some(*part),
        _ => None,
    }
}

/// The loss of a signature that has no place where it stands (on a text or a call, on a
/// part already written): `/parts/<part id>/signature`.
pub(crate) fn signature_lost(token: Option<&Signed>, part: PartId, ctx: &mut Ctx<'_>) {
    ctx.report_unplaced_token(token, format_args!("{}/signature", at(part)), "a signature");
}

/// The loss of what a part's meta brings that a stream encoder writes nothing of: its
/// vendor fields (this format's own included) and its signature. Its cache marker is
/// the format's to report, if anything.
pub(crate) fn meta_lost(meta: &PartMeta, part: PartId, ctx: &mut Ctx<'_>) {
    ctx.report_unwritten_fields(&meta.vendor, &at(part));
    signature_lost(meta.signature.as_ref(), part, ctx);
}

/// The loss of a reasoning part's signature (or, `encrypted`, its encrypted payload)
/// that the format has no place for. Its pointer is `/parts/<part id>/signature`, or,
/// `by_kind`, `/parts/<part id>/encrypted` for an encrypted payload.
pub(crate) fn reasoning_token_lost(
    token: &Signed,
    encrypted: bool,
    by_kind: bool,
    part: PartId,
    ctx: &mut Ctx<'_>,
) {
    let (field, what) = if encrypted {
        ("encrypted", "encrypted reasoning")
    } else {
        ("signature", "a reasoning signature")
    };
    let field = if by_kind { field } else { "signature" };
    ctx.report_unplaced_token(Some(token), format_args!("{}/{field}", at(part)), what);
}

/// The change of a reasoning summary streamed to a format that has none: it is sent as
/// the reasoning's text (`code` and `detail` say how, in the format's words).
pub(crate) fn summary_as_text(
    part: PartId,
    code: LossCode,
    detail: &'static str,
    ctx: &mut Ctx<'_>,
) {
    ctx.changed(code, format!("{}/summary", at(part)), detail);
}

/// [`summary_as_text`] for a format that has no reasoning summary and sends it as its
/// thinking (Cohere, Ollama, Mistral): a [`LossCode::PartChanged`], in the words they
/// share.
pub(crate) fn summary_as_thinking(part: PartId, ctx: &mut Ctx<'_>) {
    let detail = format!(
        "{} has no reasoning summary: the summary is sent as thinking",
        ctx.format
    );
    ctx.changed(
        LossCode::PartChanged,
        format!("{}/summary", at(part)),
        detail,
    );
}

/// The loss of a whole part that has no place in `stream` (`an anthropic response
/// stream`): what kind of part it was (for a part kept whole, its format's).
pub(crate) fn no_place(part: PartId, content: &Part, stream: &str, ctx: &mut Ctx<'_>) {
    let what = match content {
        Part::Opaque(o) => format!("a {} part", o.format),
        p => format!("a {} part", p.kind()),
    };
    ctx.dropped(
        LossCode::PartUnsupported,
        at(part),
        format!("{what} has no place in {stream}"),
    );
}

/// The arguments text of a call held until its end (by a stream encoder, or by a decoder
/// whose call comes whole or with its start): the text that came, `{}` when none did (or
/// only white space).
pub(crate) fn held_arguments(args: String) -> String {
    if args.trim().is_empty() {
        "{}".to_owned()
    } else {
        args
    }
}

/// A call a stream encoder holds until its end, for a format that sends calls whole
/// (Gemini, Ollama, Mistral): the call as it started, the text of its argument deltas.
#[derive(Debug)]
pub(crate) struct HeldCall {
    /// The call (its arguments come at [`HeldCall::done`]); later meta is merged into
    /// its own ([`HeldCall::merge`]).
    pub(crate) call: ToolCall,
    args: String,
}

impl HeldCall {
    /// A call held from its start ([`StreamPart::ToolStart`]).
    pub(crate) fn new(start: ToolStart) -> Self {
        HeldCall {
            call: super::started_call(start),
            args: String::new(),
        }
    }

    /// A whole call, held as one that streamed its arguments' text.
    pub(crate) fn whole(call: ToolCall) -> Self {
        HeldCall {
            args: call.arguments.text(),
            call,
        }
    }

    /// More of the arguments' text ([`StreamPart::ToolDelta`]).
    pub(crate) fn push(&mut self, json: &str) {
        self.args.push_str(json);
    }

    /// More vendor data for the call ([`StreamPart::Meta`]), merged into what it has.
    pub(crate) fn merge(&mut self, meta: PartMeta) {
        super::merge_meta(&mut self.call.meta, meta);
    }

    /// The call at its end: its arguments the text that came ([`held_arguments`]).
    pub(crate) fn done(self) -> ToolCall {
        ToolCall {
            arguments: Arguments::Text(held_arguments(self.args)),
            ..self.call
        }
    }
}

/// The `type` of a call written in a Chat Completions style chunk: the one the source's
/// call had (a field of `format`'s own, taken out of `fields`), `function` by default, none
/// when the source's call had none.
pub(crate) fn call_type(
    vendor: &Vendor,
    fields: &mut serde_json::Map<String, serde_json::Value>,
    format: Format,
) -> Option<String> {
    if vendor.flag(format, NO_TYPE) {
        return None;
    }
    Some(
        fields
            .shift_remove("type")
            .and_then(|t| t.as_str().map(str::to_owned))
            .unwrap_or_else(|| "function".to_owned()),
    )
}

/// What each chunk of an OpenAI-shaped stream (Chat Completions, Mistral) repeats of the
/// stream's start, and the source's format its encoder's rules look at.
#[derive(Debug, Default)]
pub(crate) struct ChunkHead {
    /// The response id: the start's, or `""`.
    pub(crate) id: String,
    /// The model: the start's, or `""` (with a loss) when the source names none.
    pub(crate) model: String,
    /// The source's format (the encoder writes only its own format's reasoning as it
    /// came).
    pub(crate) source: Option<Format>,
}

impl ChunkHead {
    /// The head of a stream whose start gave `format`, `id` and `model`.
    pub(crate) fn new(
        format: Option<Format>,
        id: Option<String>,
        model: Option<String>,
        ctx: &mut Ctx<'_>,
    ) -> Self {
        let model = model.unwrap_or_else(|| {
            ctx.changed(
                LossCode::FieldDefaulted,
                "/model",
                "the source names no model: written as \"\"",
            );
            String::new()
        });
        ChunkHead {
            id: id.unwrap_or_default(),
            model,
            source: format,
        }
    }
}

/// What an encoder writes in place of a finish when its source ended without one (the
/// source's decoder reports why): an error, never a quiet end a client could take for a
/// whole answer.
pub(crate) const UNFINISHED: &str = "the source stream ended before it finished";

/// The provider's error code of a stream error, to write on again: none for a stream cut
/// short (the writing format's generic code stands for it).
pub(crate) fn error_code(e: &StreamError) -> Option<String> {
    match e.kind {
        StreamErrorKind::Incomplete => None,
        _ => e.code.clone(),
    }
}

/// Writes [`StreamPart`]s as one format's stream, in its wire framing (or another),
/// event by event: nothing is held back but what the format forces (a Gemini, Ollama or
/// Mistral call waits for its complete arguments, and a Mistral finish for the usage; a
/// Responses stream ends with the whole response).
///
/// Tool-call ids are rewritten for the target's rule as they come, deterministically
/// and without collisions ([`StreamEncoder::ids`]); what the target cannot carry is a
/// loss, once per part ([`StreamEncoder::losses`]).
pub struct StreamEncoder {
    format: Format,
    framing: Framing,
    events: Box<dyn EventEncoder>,
    buf: Events,
    options: Options,
    losses: Vec<Loss>,
    seen: HashSet<(String, String)>,
    ids: IdMapper,
    finished: bool,
}

impl std::fmt::Debug for StreamEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamEncoder")
            .field("format", &self.format)
            .field("framing", &self.framing)
            .finish_non_exhaustive()
    }
}

impl StreamEncoder {
    /// An encoder of `format`'s stream in its wire framing ([`Framing::of`]).
    pub fn new(format: Format, options: &Options) -> Result<Self, Error> {
        Self::with_framing(format, Framing::of(format), options)
    }

    /// An encoder of `format`'s stream in another framing (Bedrock events as one
    /// `{"<eventType>": payload}` object a line, say).
    pub fn with_framing(
        format: Format,
        framing: Framing,
        options: &Options,
    ) -> Result<Self, Error> {
        let events = crate::codec::codec(format, "stream")?.stream_encoder();
        Ok(StreamEncoder {
            format,
            framing,
            events,
            buf: Events::new(format, framing),
            options: options.clone(),
            losses: Vec::new(),
            seen: HashSet::new(),
            ids: IdMapper::new(crate::IdRule::of(format)),
            finished: false,
        })
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes one part; returns the bytes of every event it completes.
    pub fn encode(&mut self, part: StreamPart) -> Result<Vec<u8>, Error> {
        self.part(part)?;
        Ok(self.write())
    }

    /// Writes one part into the buffer.
    fn part(&mut self, part: StreamPart) -> Result<(), Error> {
        let part = self.map_ids(part);
        let mut ctx = Ctx::new(self.format, &self.options);
        let error = matches!(part, StreamPart::Error(_));
        let result = match admit(&mut *self.events, &part, &mut self.buf, &mut ctx) {
            Ok(true) => self.events.part(part, &mut self.buf, &mut ctx),
            passed => passed.map(|_| ()),
        };
        if error && result.is_ok() {
            // An error, once written, is the stream's last event.
            self.events.gate().finished = true;
        }
        let losses = ctx.take_losses();
        self.keep_losses(losses);
        result
    }

    /// Writes parts in order.
    pub fn encode_all(
        &mut self,
        parts: impl IntoIterator<Item = StreamPart>,
    ) -> Result<Vec<u8>, Error> {
        for p in parts {
            self.part(p)?;
        }
        Ok(self.write())
    }

    /// Ends the stream: what waited, what is open, the terminator.
    pub fn finish(&mut self) -> Result<Vec<u8>, Error> {
        if self.finished {
            return Ok(Vec::new());
        }
        self.finished = true;
        let mut ctx = Ctx::new(self.format, &self.options);
        let result = if self.events.gate().close() {
            self.events.end(&mut self.buf, &mut ctx)
        } else {
            Ok(())
        };
        let losses = ctx.take_losses();
        self.keep_losses(losses);
        result?;
        Ok(self.write())
    }

    /// What the target could not carry so far, once per part.
    pub fn losses(&self) -> &[Loss] {
        &self.losses
    }

    /// Tool-call ids rewritten for the target so far (source → target).
    pub fn ids(&self) -> &IdMap {
        self.ids.map()
    }

    fn map_ids(&mut self, mut part: StreamPart) -> StreamPart {
        if let StreamPart::ToolStart(ToolStart { id, part: p, .. }) = &mut part {
            if let Some(new) = self.ids.map_id(id) {
                let detail = format!(
                    "tool-call id `{id}` is not valid for {} ({}); written as `{new}`",
                    self.format,
                    crate::IdRule::of(self.format).describe()
                );
                let path = format!("/parts/{}/id", p.0);
                if self.seen.insert((path.clone(), detail.clone())) {
                    self.losses.push(Loss {
                        path,
                        kind: crate::LossKind::Changed,
                        code: crate::LossCode::IdRewritten,
                        detail,
                    });
                }
                *id = new;
            }
        }
        part
    }

    fn keep_losses(&mut self, losses: Vec<Loss>) {
        for loss in losses {
            if self.seen.insert((loss.path.clone(), loss.detail.clone())) {
                self.losses.push(loss);
            }
        }
    }

    /// The bytes written since the last call, and the terminator once asked for.
    fn write(&mut self) -> Vec<u8> {
        if std::mem::take(&mut self.buf.done) && self.framing == Framing::Sse {
            self.buf.out.extend_from_slice(b"data: [DONE]\n\n");
        }
        std::mem::take(&mut self.buf.out)
    }
}
