//! Decoding: the stream's events in, neutral stream parts out.

use super::super::F;
use super::super::hints::{NO_ID, NO_INDEX, OBJECT};
use super::super::response::{decode_usage, stop_reason};
use crate::ids::synthetic_id;
use crate::model::{Part, PartMeta, StopReason, Text, Usage, Vendor};
use crate::passes::tools::NO_TYPE;
use crate::stream::{
    Event, EventDecoder, Finish, PartId, Parts, StreamPart, StreamStart, ToolStart, Whole,
    end_call, error_code_of, incomplete, provider_error, read,
};
use crate::vendor::keep_fields;
use crate::{Ctx, Error, Format, LossCode};
use serde_json::{Map, Value};
use wire_types::openai_chat as w;
// ---------------------------------------------------------------------------------------
// Decoding: the core every OpenAI-shaped stream shares

/// One choice's delta, read from an OpenAI-shaped chunk.
#[derive(Debug, Default)]
pub(crate) struct ChoiceDelta {
    /// The choice's index.
    pub(crate) index: u32,
    /// A reasoning fragment (`Some("")` opens the reasoning).
    pub(crate) reasoning: Option<String>,
    /// A text fragment (`Some("")` opens the text, as a whole body's `content: ""` is a
    /// text part).
    pub(crate) text: Option<String>,
    /// A refusal fragment.
    pub(crate) refusal: Option<String>,
    /// Tool-call fragments.
    pub(crate) calls: Vec<CallDelta>,
    /// Why the choice stopped (`None`: not yet; an empty `finish_reason` is not a stop).
    pub(crate) finish: Option<StopReason>,
    /// The chunk's logprobs object: its lists are appended to the choice's.
    pub(crate) logprobs: Option<Value>,
    /// The choice's other members (the last value of each is kept).
    pub(crate) fields: Map<String, Value>,
    /// Hints for the choice's vendor record (how the format spelled the choice).
    pub(crate) hints: Map<String, Value>,
    /// The message's members the neutral model has no place for (the last value of each
    /// is kept).
    pub(crate) message: Map<String, Value>,
    /// Parts that come whole (Mistral's reference chunks, say).
    pub(crate) parts: Vec<Part>,
}

/// The vendor field of a `Finish` that holds the message's members the stream vocabulary
/// has no part for; the response encoders of the formats that share the core write them
/// back on the message ([`message_members`]).
pub(crate) const MESSAGE: &str = "message";

/// Writes back on a response's message (its `role` and `extra`) the members a stream's
/// finish carried in the choice's vendor `fields` (see [`MESSAGE`]); a member the message
/// already has stays as it is.
pub(crate) fn put_message_members(
    fields: &mut Map<String, Value>,
    role: &mut Option<String>,
    extra: &mut wire_types::Extra,
) {
    for (k, val) in message_members(fields) {
        if k == "role" {
            if let Some(r) = val.as_str() {
                *role = Some(r.to_owned());
            }
        } else if extra.get(&k).is_none() {
            extra.insert(k, val);
        }
    }
}

/// The message members a stream's finish carried in a choice's vendor fields (see
/// [`MESSAGE`]), taken out of `fields`.
pub(crate) fn message_members(fields: &mut Map<String, Value>) -> Map<String, Value> {
    match fields.shift_remove(MESSAGE) {
        Some(Value::Object(m)) => m,
        Some(other) => {
            // Not this shape: an unknown member of that name, left where it was.
            fields.insert(MESSAGE.to_owned(), other);
            Map::new()
        }
        None => Map::new(),
    }
}

/// One tool-call fragment.
#[derive(Debug, Default)]
pub(crate) struct CallDelta {
    /// Its `index`, if it had one.
    pub(crate) index: Option<u32>,
    /// Its id (`None` for an absent or empty one).
    pub(crate) id: Option<String>,
    /// Its function name (`None` for an absent or empty one).
    pub(crate) name: Option<String>,
    /// Argument text to append.
    pub(crate) arguments: Option<String>,
    /// Its `type` (`None`: absent). Read on a call's first fragment only.
    pub(crate) kind: Option<String>,
    /// Its vendor data (unknown members, Gemini's `extra_content`).
    pub(crate) meta: PartMeta,
}

/// A tool call being read.
#[derive(Debug)]
struct Call {
    index: Option<u32>,
    /// The provider's id (the first one it gave).
    id: Option<String>,
    name: String,
    /// Its part, once its name is known.
    part: Option<PartId>,
    /// Argument text that came before the name.
    pending: String,
    /// Whether any argument text came.
    args: bool,
    meta: PartMeta,
}

/// One choice being read.
#[derive(Debug, Default)]
struct ChoiceState {
    index: u32,
    reasoning: Option<PartId>,
    text: Option<PartId>,
    refusal: Option<String>,
    calls: Vec<Call>,
    /// Calls this choice had, ended or not (for synthetic ids: their position).
    call_count: usize,
    logprobs: Option<Map<String, Value>>,
    fields: Map<String, Value>,
    hints: Map<String, Value>,
    message: Map<String, Value>,
    done: bool,
}

/// The decoding state machine every OpenAI-shaped stream shares (Chat Completions,
/// Mistral): choices, their open parts and calls, and the finishes waiting for usage.
#[derive(Debug)]
pub(crate) struct Core {
    format: Format,
    /// The hint a call without an id gets (its format's `NO_ID`).
    no_id: &'static str,
    choices: Vec<ChoiceState>,
    /// Finishes waiting for the usage chunk.
    held: Vec<StreamPart>,
}

impl Core {
    /// A core for `format`, whose calls without an id get the hint `no_id`.
    pub(crate) fn new(format: Format, no_id: &'static str) -> Self {
        Core {
            format,
            no_id,
            choices: Vec::new(),
            held: Vec::new(),
        }
    }

    fn state(&mut self, index: u32) -> &mut ChoiceState {
        let i = match self.choices.iter().position(|c| c.index == index) {
            Some(i) => i,
            None => {
                self.choices.push(ChoiceState {
                    index,
                    ..Default::default()
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[i]
    }

    /// One choice's delta.
    pub(crate) fn choice(&mut self, d: ChoiceDelta, out: &mut Parts, ctx: &mut Ctx<'_>) {
        let format = self.format;
        let no_id = self.no_id;
        let c = self.state(d.index);
        if c.done {
            // The choice finished: a server that goes on (a repeated finish, a usage chunk
            // with its choices) adds nothing to it.
            let adds = d.text.as_deref().is_some_and(|t| !t.is_empty())
                || d.reasoning.as_deref().is_some_and(|t| !t.is_empty())
                || d.refusal.as_deref().is_some_and(|t| !t.is_empty())
                || !d.calls.is_empty();
            if adds {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    format!(
                        "a {format} delta for choice {} after its finish: left out",
                        d.index
                    ),
                );
            }
            return;
        }
        let choice = c.index;
        if let Some(r) = d.reasoning {
            if c.reasoning.is_none() && !(r.is_empty() && c.text.is_some()) {
                end(&mut c.text, out);
                let part = out.id();
                out.push(StreamPart::ReasoningStart {
                    part,
                    choice,
                    id: None,
                    meta: PartMeta::default(),
                });
                c.reasoning = Some(part);
            }
            if let (Some(part), false) = (c.reasoning, r.is_empty()) {
                out.push(StreamPart::ReasoningDelta { part, text: r });
            }
        }
        if let Some(t) = d.text {
            // An empty text beside reasoning (servers that send `content: ""` on every
            // reasoning chunk) opens nothing.
            if c.text.is_none() && !(t.is_empty() && c.reasoning.is_some()) {
                end(&mut c.reasoning, out);
                let part = out.id();
                out.push(StreamPart::TextStart {
                    part,
                    choice,
                    meta: PartMeta::default(),
                });
                c.text = Some(part);
            }
            if let (Some(part), false) = (c.text, t.is_empty()) {
                out.push(StreamPart::TextDelta { part, text: t });
            }
        }
        if let Some(r) = d.refusal {
            c.refusal.get_or_insert_with(String::new).push_str(&r);
        }
        for content in d.parts {
            let part = out.id();
            out.push(StreamPart::Whole(Whole {
                part,
                choice,
                content,
            }));
        }
        for call in d.calls {
            c.call(call, format, no_id, out);
        }
        if let Some(Value::Object(lp)) = d.logprobs {
            let acc = c.logprobs.get_or_insert_with(Map::new);
            for (k, v) in lp {
                match (acc.get_mut(&k), v) {
                    (Some(Value::Array(so_far)), Value::Array(more)) => so_far.extend(more),
                    (Some(Value::Array(_)), _) => {}
                    (_, v) => {
                        acc.insert(k, v);
                    }
                }
            }
        }
        c.fields.extend(d.fields);
        c.hints.extend(d.hints);
        c.message.extend(d.message);
        if let Some(stop) = d.finish {
            let finish = c.close(format, no_id, Some(stop), out);
            self.held.push(finish);
        }
    }

    /// The usage chunk: the usage, then the finishes that waited for it.
    pub(crate) fn usage(&mut self, usage: Usage, out: &mut Parts) {
        out.push(StreamPart::Usage(usage));
        for f in self.held.drain(..) {
            out.push(f);
        }
    }

    /// The end of the stream: the finishes that waited, what is still open, and an
    /// incomplete-stream error when a choice never finished (or none came).
    pub(crate) fn end(&mut self, out: &mut Parts) {
        for f in self.held.drain(..) {
            out.push(f);
        }
        let mut cut = self.choices.is_empty();
        for c in &mut self.choices {
            if !c.done {
                cut = true;
                // What arrived is closed; the choice has no finish.
                let _ = c.close(self.format, self.no_id, None, out);
            }
        }
        if cut {
            out.push(incomplete(self.format));
        }
    }
}

/// Ends an open text or reasoning part.
fn end(part: &mut Option<PartId>, out: &mut Parts) {
    if let Some(part) = part.take() {
        out.push(StreamPart::End { part });
    }
}

impl ChoiceState {
    fn call(&mut self, d: CallDelta, format: Format, no_id: &'static str, out: &mut Parts) {
        let found = match d.index {
            Some(i) => self.calls.iter().rposition(|c| c.index == Some(i)),
            None => self.calls.len().checked_sub(1),
        };
        // One index (or none) for two calls: a fragment that names a tool, with an id
        // other than the call's, is the next call.
        let found = found.filter(|&i| {
            let c = &self.calls[i];
            let other = d.name.is_some()
                && !c.name.is_empty()
                && d.id.is_some()
                && c.id.is_some()
                && d.id != c.id;
            !other
        });
        let i = match found {
            Some(i) => i,
            None => {
                end(&mut self.text, out);
                end(&mut self.reasoning, out);
                let mut meta = PartMeta::default();
                match d.kind.as_deref() {
                    Some("function") => {}
                    None => meta.vendor.set_hint(format, NO_TYPE, true),
                    Some(other) => {
                        meta.vendor
                            .set_field(format, "type", Value::String(other.to_owned()))
                    }
                }
                self.calls.push(Call {
                    index: d.index,
                    id: d.id.clone(),
                    name: String::new(),
                    part: None,
                    pending: String::new(),
                    args: false,
                    meta,
                });
                self.call_count += 1;
                self.calls.len() - 1
            }
        };
        let ordinal = self.call_count - (self.calls.len() - i);
        let choice = self.index;
        let call = &mut self.calls[i];
        if call.id.is_none() {
            call.id = d.id;
        }
        if let Some(name) = d.name {
            if call.name.is_empty() {
                call.name = name;
            }
        }
        match call.part {
            None => {
                call.meta.vendor.merge(d.meta.vendor);
                if let Some(a) = d.arguments {
                    call.args |= !a.is_empty();
                    call.pending.push_str(&a);
                }
                if !call.name.is_empty() {
                    call.start(choice, ordinal, format, no_id, out);
                }
            }
            Some(part) => {
                if !d.meta.vendor.is_empty() {
                    out.push(StreamPart::Meta { part, meta: d.meta });
                }
                if let Some(a) = d.arguments.filter(|a| !a.is_empty()) {
                    call.args = true;
                    out.push(StreamPart::ToolDelta { part, json: a });
                }
            }
        }
    }

    /// Closes every open part of the choice; the `Finish` to send.
    fn close(
        &mut self,
        format: Format,
        no_id: &'static str,
        stop: Option<StopReason>,
        out: &mut Parts,
    ) -> StreamPart {
        end(&mut self.reasoning, out);
        end(&mut self.text, out);
        if let Some(text) = self.refusal.take() {
            let part = out.id();
            out.push(StreamPart::Whole(Whole {
                part,
                choice: self.index,
                content: Part::Refusal(Text {
                    text,
                    meta: PartMeta::default(),
                }),
            }));
        }
        let open = std::mem::take(&mut self.calls);
        let first = self.call_count - open.len();
        for (k, mut call) in open.into_iter().enumerate() {
            if call.part.is_none() {
                // Its name never came.
                call.start(self.index, first + k, format, no_id, out);
            }
            if let Some(part) = call.part {
                end_call(part, call.args, out);
            }
        }
        self.done = true;
        let mut vendor = Vendor::default();
        if let Some(lp) = self.logprobs.take() {
            vendor.set_field(format, "logprobs", Value::Object(lp));
        }
        for (k, v) in std::mem::take(&mut self.fields) {
            vendor.set_field(format, &k, v);
        }
        for (k, v) in std::mem::take(&mut self.hints) {
            vendor.set_hint(format, &k, v);
        }
        let message = std::mem::take(&mut self.message);
        if !message.is_empty() {
            vendor.set_field(format, MESSAGE, Value::Object(message));
        }
        StreamPart::Finish(Finish {
            choice: self.index,
            stop_reason: stop,
            vendor,
        })
    }
}

impl Call {
    /// Sends the call's start (its name is known, or will never be) and the argument text
    /// that waited for it.
    fn start(
        &mut self,
        choice: u32,
        ordinal: usize,
        format: Format,
        no_id: &'static str,
        out: &mut Parts,
    ) {
        let part = out.id();
        let mut meta = std::mem::take(&mut self.meta);
        let (id, synthetic) = match &self.id {
            Some(id) => (id.clone(), false),
            None => {
                meta.vendor.set_hint(format, no_id, true);
                (
                    synthetic_id(&format!("/choices/{choice}/message"), ordinal, &self.name),
                    true,
                )
            }
        };
        if !meta.vendor.is_empty() {
            meta.vendor.format = Some(format);
        }
        out.push(StreamPart::ToolStart(ToolStart {
            part,
            choice,
            id,
            synthetic_id: synthetic,
            name: self.name.clone(),
            meta,
        }));
        if !self.pending.is_empty() {
            out.push(StreamPart::ToolDelta {
                part,
                json: std::mem::take(&mut self.pending),
            });
        }
        self.part = Some(part);
    }
}

/// What an OpenAI-shaped format reads itself: its events (chunks, errors), each chunk's
/// choices handed to the [`Core`] they all share. The rest of its stream decoder is
/// [`Shaped`]'s.
pub(crate) trait ReadChunks: Default + Send + std::fmt::Debug {
    /// The format read.
    const FORMAT: Format;
    /// The hint a call without an id gets (the format's `NO_ID`).
    const NO_ID: &'static str;

    /// One event: a chunk's choices and usage handed to `core`, or an error part.
    fn event(
        &mut self,
        event: Event<'_>,
        core: &mut Core,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error>;
}

/// An OpenAI-shaped stream decoder: its format's reading of events (`R`) over the
/// [`Core`], which closes the stream at its end.
#[derive(Debug)]
pub(crate) struct Shaped<R> {
    core: Core,
    read: R,
}

impl<R: ReadChunks> Default for Shaped<R> {
    fn default() -> Self {
        Shaped {
            core: Core::new(R::FORMAT, R::NO_ID),
            read: R::default(),
        }
    }
}

impl<R: ReadChunks> EventDecoder for Shaped<R> {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.read.event(event, &mut self.core, out, ctx)
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.core.end(out);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Decoding: Chat Completions chunks

/// The Chat Completions stream decoder.
pub(crate) type Decoder = Shaped<Chunks>;

/// What the Chat Completions decoder reads itself.
#[derive(Debug, Default)]
pub(crate) struct Chunks {
    /// Response-level members seen so far, with their first value and whether a change
    /// was reported (a later chunk's new ones are sent as `ResponseMeta`).
    seen: Vec<(String, Value, bool)>,
    /// What a chunk before the start carried (Azure's `prompt_filter_results` chunk).
    early: Vendor,
    /// Deltas of a kind this decoder does not read (reported once each).
    unread: Vec<&'static str>,
}

impl ReadChunks for Chunks {
    const FORMAT: Format = F;
    const NO_ID: &'static str = NO_ID;

    fn event(
        &mut self,
        event: Event<'_>,
        core: &mut Core,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        match read::<w::StreamEvent>(event.data)? {
            w::StreamEvent::Chunk(chunk) => self.chunk(chunk, core, out, ctx),
            w::StreamEvent::Error(e) => {
                let d = &e.error;
                let code = error_code_of(d.code.as_ref(), d.kind.as_ref());
                let message = d.message.clone().unwrap_or_default();
                out.push(provider_error(code, message, &e.error));
            }
        }
        Ok(())
    }
}

impl Chunks {
    fn chunk(&mut self, mut chunk: w::Chunk, core: &mut Core, out: &mut Parts, ctx: &mut Ctx<'_>) {
        let choices = chunk.choices.take().unwrap_or_default();
        let usage = chunk.usage.take();
        let mut v = Vendor::from_extra(F, &chunk.extra, &["usage", "choices"]);
        keep_fields!(v, F, chunk; system_fingerprint, service_tier, moderation,
            prompt_filter_results);
        let id = chunk.id.filter(|i| !i.is_empty());
        if !out.started() {
            if id.is_none() && choices.is_empty() && usage.is_none() {
                // A chunk before the response (Azure's prompt filter results): what it
                // says goes with the start.
                self.early.merge(v);
                return;
            }
            let mut vendor = std::mem::take(&mut self.early);
            vendor.merge(v);
            // `object` is the type tag: the body's own is `chat.completion`.
            let object = match chunk.object.as_deref() {
                Some("chat.completion.chunk") => Some("chat.completion".to_owned()),
                other => other.map(str::to_owned),
            };
            if let Some(o) = object {
                vendor.set_hint(F, OBJECT, o);
            }
            if !vendor.is_empty() {
                vendor.format = Some(F);
            }
            self.seen = vendor
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), v.clone(), false))
                .collect();
            out.start(StreamStart {
                format: Some(F),
                id,
                model: chunk.model.filter(|m| !m.is_empty()),
                created: chunk.created,
                vendor,
            });
        } else {
            // A member that was not there before (a fingerprint that comes late); one
            // that changes keeps its first value, as the SDK's accumulator does (a loss,
            // once: Groq's `x_groq` gains the usage on the last chunk).
            let mut later = Vendor::default();
            for (k, val) in v.fields.iter() {
                match self.seen.iter_mut().find(|(s, _, _)| s == k) {
                    None => {
                        self.seen.push((k.clone(), val.clone(), false));
                        later.set_field(F, k, val.clone());
                    }
                    Some((_, first, reported)) if first != val && !*reported => {
                        *reported = true;
                        let mut path = String::new();
                        wire_types::push_token(&mut path, k);
                        ctx.dropped(
                            LossCode::FieldUnsupported,
                            path,
                            format!("openai-chat chunk member `{k}` changed in a later chunk: its first value is kept"),
                        );
                    }
                    Some(_) => {}
                }
            }
            if !later.is_empty() {
                out.push(StreamPart::ResponseMeta(later));
            }
        }
        for c in choices {
            let d = self.delta(c, ctx);
            core.choice(d, out, ctx);
        }
        if let Some(u) = usage {
            core.usage(decode_usage(u), out);
        }
    }

    fn delta(&mut self, c: w::ChunkChoice, ctx: &mut Ctx<'_>) -> ChoiceDelta {
        let d = c.delta.unwrap_or_default();
        let mut fields = c.extra.fields().clone();
        let mut hints = Map::new();
        if c.index.is_none() {
            hints.insert(NO_INDEX.to_owned(), Value::Bool(true));
        }
        if let Some(cf) = c.content_filter_results {
            fields.insert("content_filter_results".to_owned(), Value::Object(cf));
        }
        let mut message = d.extra.fields().clone();
        if let Some(role) = d.role.filter(|r| !r.is_empty() && r != "assistant") {
            message.insert("role".to_owned(), Value::String(role));
        }
        if let Some(x) = &d.extra_content {
            message.insert("extra_content".to_owned(), wire_types::to_value(x));
        }
        for (what, there) in [
            ("function_call", d.function_call.is_some()),
            ("audio", d.audio.is_some()),
        ] {
            if there && !self.unread.contains(&what) {
                self.unread.push(what);
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    format!("openai-chat `{what}` deltas have no neutral part: left out"),
                );
            }
        }
        let calls = d
            .tool_calls
            .into_iter()
            .flatten()
            .map(|t| {
                let mut meta = PartMeta::from_extra(F, &t.extra);
                if let Some(x) = &t.extra_content {
                    meta.vendor
                        .set_field(F, "extra_content", wire_types::to_value(x));
                }
                let (name, arguments) = match t.function {
                    Some(f) => {
                        meta.vendor.merge(Vendor::from_extra(F, &f.extra, &[]));
                        (f.name, f.arguments)
                    }
                    None => (None, None),
                };
                CallDelta {
                    index: t.index,
                    id: t.id.filter(|i| !i.is_empty()),
                    name: name.filter(|n| !n.is_empty()),
                    arguments,
                    kind: t.kind.map(|k| k.as_str().to_owned()),
                    meta,
                }
            })
            .collect();
        ChoiceDelta {
            index: c.index.unwrap_or(0),
            reasoning: d.reasoning_content.or(d.reasoning),
            text: d.content,
            refusal: d.refusal,
            calls,
            finish: c
                .finish_reason
                .filter(|f| !f.as_str().is_empty())
                .map(|f| stop_reason(&f)),
            logprobs: c.logprobs.map(|l| wire_types::to_value(&l)),
            fields,
            hints,
            message,
            parts: Vec::new(),
        }
    }
}
