//! The Chat Completions stream: `chat.completion.chunk`s, each with choice deltas (role,
//! `content`, `refusal`, `tool_calls` fragments keyed by `index`, `finish_reason`), a last
//! chunk with `usage` and `choices: []` (`stream_options.include_usage`), then
//! `data: [DONE]`.
//!
//! The decoder is written once for every OpenAI-shaped stream ([`Core`]): a format reads
//! its typed chunk into [`ChoiceDelta`]s and hands them over; Mistral's stream uses the
//! same core. Compatible servers bend every rule (`shared/docs/streaming.md`), so a
//! tool-call fragment is matched to its call by `index` (the latest call when there is
//! none), and starts a new call only when it names a tool and carries an id other than
//! the call's: a fresh id on every fragment of one call, a name in a later fragment, one
//! `index` for two calls all decode to the calls that were meant. A call is complete at
//! the choice's finish, never because its arguments parse so far.
//!
//! A choice's `Finish` waits for the usage chunk (or the stream's end), so that an encoder
//! that writes usage with its stop (Anthropic's `message_delta`) has it. Logprobs and the
//! choice's other members travel on the `Finish` (their lists joined); the message's own
//! members the neutral model has no place for (Gemini's `extra_content` on a text answer,
//! a role other than `assistant`) go in its vendor field `message`, which the response
//! encoder writes back on the message.
//!
//! Refusal text has no stream part of its own: it is sent whole, as a refusal part, when
//! its choice finishes.

use super::F;
use super::hints::{NO_ID, NO_INDEX, OBJECT};
use super::response::{decode_usage, encode_usage, stop_reason};
use crate::ids::synthetic_id;
use crate::model::{
    Arguments, Part, PartMeta, StopKind, StopReason, Text, ToolCall, Usage, Vendor,
};
use crate::passes::tools::NO_TYPE;
use crate::stream::{
    Event, EventDecoder, EventEncoder, Events, PartId, Parts, StreamError, StreamErrorKind,
    StreamPart, StreamStart, incomplete, read,
};
use crate::vendor::Fields;
use crate::{Ctx, Error, Format, LossCode, ReasoningMode};
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
            out.push(StreamPart::Whole {
                part,
                choice,
                content,
            });
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

    /// A provider's error event.
    pub(crate) fn error(&mut self, error: StreamError, out: &mut Parts) {
        out.push(StreamPart::Error(error));
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
            out.push(StreamPart::Whole {
                part,
                choice: self.index,
                content: Part::Refusal(Text {
                    text,
                    meta: PartMeta::default(),
                }),
            });
        }
        let open = std::mem::take(&mut self.calls);
        let first = self.call_count - open.len();
        for (k, mut call) in open.into_iter().enumerate() {
            if call.part.is_none() {
                // Its name never came.
                call.start(self.index, first + k, format, no_id, out);
            }
            if let Some(part) = call.part {
                if !call.args {
                    out.push(StreamPart::ToolDelta {
                        part,
                        json: "{}".to_owned(),
                    });
                }
                out.push(StreamPart::End { part });
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
        StreamPart::Finish {
            choice: self.index,
            stop_reason: stop,
            vendor,
        }
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
        out.push(StreamPart::ToolStart {
            part,
            choice,
            id,
            synthetic_id: synthetic,
            name: self.name.clone(),
            meta,
        });
        if !self.pending.is_empty() {
            out.push(StreamPart::ToolDelta {
                part,
                json: std::mem::take(&mut self.pending),
            });
        }
        self.part = Some(part);
    }
}

// ---------------------------------------------------------------------------------------
// Decoding: Chat Completions chunks

/// The Chat Completions stream decoder.
#[derive(Debug)]
pub(crate) struct Decoder {
    core: Core,
    /// Response-level members seen so far, with their first value and whether a change
    /// was reported (a later chunk's new ones are sent as `ResponseMeta`).
    seen: Vec<(String, Value, bool)>,
    /// What a chunk before the start carried (Azure's `prompt_filter_results` chunk).
    early: Vendor,
    /// Deltas of a kind this decoder does not read (reported once each).
    unread: Vec<&'static str>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            core: Core::new(F, NO_ID),
            seen: Vec::new(),
            early: Vendor::default(),
            unread: Vec::new(),
        }
    }
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match read::<w::StreamEvent>(event.data)? {
            w::StreamEvent::Chunk(chunk) => self.chunk(chunk, out, ctx),
            w::StreamEvent::Error(e) => {
                let d = &e.error;
                let code = match &d.code {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(Value::Null) | None => d.kind.clone(),
                    Some(other) => Some(other.to_string()),
                };
                self.core.error(
                    StreamError {
                        kind: StreamErrorKind::Provider,
                        code,
                        message: d.message.clone().unwrap_or_default(),
                        value: Some(wire_types::to_value(&e.error)),
                    },
                    out,
                );
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.core.end(out);
        Ok(())
    }
}

impl Decoder {
    fn chunk(&mut self, mut chunk: w::Chunk, out: &mut Parts, ctx: &mut Ctx<'_>) {
        let choices = chunk.choices.take().unwrap_or_default();
        let usage = chunk.usage.take();
        let mut v = Vendor::from_extra(F, &chunk.extra, &["usage", "choices"]);
        v.keep(F, "system_fingerprint", &chunk.system_fingerprint);
        v.keep(F, "service_tier", &chunk.service_tier);
        v.keep(F, "moderation", &chunk.moderation);
        v.keep(F, "prompt_filter_results", &chunk.prompt_filter_results);
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
            self.core.choice(d, out, ctx);
        }
        if let Some(u) = usage {
            self.core.usage(decode_usage(u), out);
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

// ---------------------------------------------------------------------------------------
// Encoding

/// What an open part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    /// Reasoning, written as `reasoning_content` (only when this format made it).
    Reasoning,
    /// A tool call: its `index` in its choice.
    Tool(u32),
}

/// A choice being written.
#[derive(Debug, Default)]
struct Out {
    index: u32,
    /// Whether its first delta (with the role) went out.
    role: bool,
    calls: u32,
    finished: bool,
}

/// The Chat Completions stream encoder: one `chat.completion.chunk` per delta as it
/// comes (the role on a choice's first), the `finish_reason` chunk, then the usage chunk
/// with `choices: []` and `data: [DONE]`. A source that ends without a finish ends with an
/// error object instead, so that a client does not take a cut answer for a whole one.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    started: bool,
    id: String,
    model: String,
    created: u64,
    /// The source's format (reasoning is written only when it is this one).
    source: Option<Format>,
    /// Members written on every chunk (`system_fingerprint`, `service_tier`).
    every: Map<String, Value>,
    /// Members written on the first chunk only.
    first: Map<String, Value>,
    /// Known chunk members the source sent as `null` (`system_fingerprint: null`).
    nulls: Vec<&'static str>,
    choices: Vec<Out>,
    open: Vec<(PartId, u32, Open)>,
    dropped: Vec<PartId>,
    usage: Option<Usage>,
    finished: bool,
}

fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
}

impl Encoder {
    fn start(&mut self, s: StreamStart, ctx: &mut Ctx<'_>) {
        self.started = true;
        self.source = s.format;
        self.id = s.id.unwrap_or_default();
        self.model = s.model.unwrap_or_else(|| {
            ctx.changed(
                LossCode::FieldDefaulted,
                "/model",
                "the source names no model: written as \"\"",
            );
            String::new()
        });
        self.created = s.created.unwrap_or(0);
        let mut nulls = wire_types::Extra::new();
        ctx.mark_nulls(&mut nulls, &s.vendor, w::Chunk::FIELDS);
        self.nulls = nulls.nulls().to_vec();
        for (k, v) in ctx.vendor_fields(&s.vendor, "") {
            if k == "system_fingerprint" || k == "service_tier" {
                self.every.insert(k, v);
            } else {
                self.first.insert(k, v);
            }
        }
    }

    fn out(&mut self, index: u32) -> &mut Out {
        let i = match self.choices.iter().position(|c| c.index == index) {
            Some(i) => i,
            None => {
                self.choices.push(Out {
                    index,
                    ..Default::default()
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[i]
    }

    /// One chunk with one choice.
    fn chunk(
        &mut self,
        index: u32,
        mut delta: w::Delta,
        finish: Option<w::FinishReason>,
        logprobs: Option<w::ChunkLogprobs>,
        extra: wire_types::Extra,
        out: &mut Events,
    ) -> Result<(), Error> {
        let o = self.out(index);
        if !o.role {
            o.role = true;
            delta.role = Some("assistant".to_owned());
        }
        let mut choice = w::ChunkChoice {
            index: Some(index),
            delta: Some(delta),
            finish_reason: finish,
            logprobs,
            content_filter_results: None,
            extra,
        };
        if choice.finish_reason.is_none() {
            choice.extra.mark_null("finish_reason");
        }
        if choice.logprobs.is_none() {
            choice.extra.mark_null("logprobs");
        }
        let chunk = self.envelope(Some(vec![choice]), None);
        out.push(None, &chunk)
    }

    /// A chunk around `choices` (and `usage`).
    fn envelope(
        &mut self,
        choices: Option<Vec<w::ChunkChoice>>,
        usage: Option<w::Usage>,
    ) -> w::Chunk {
        let mut fields = self.every.clone();
        fields.extend(std::mem::take(&mut self.first));
        let system_fingerprint = fields.take_as("system_fingerprint");
        let service_tier = fields.take_as("service_tier");
        let moderation = fields.shift_remove("moderation").map(Box::new);
        let prompt_filter_results = fields.take_as("prompt_filter_results");
        let mut extra = wire_types::Extra::from(fields);
        for n in &self.nulls {
            extra.mark_null(n);
        }
        w::Chunk {
            id: Some(self.id.clone()),
            object: Some("chat.completion.chunk".to_owned()),
            created: Some(self.created),
            model: Some(self.model.clone()),
            choices,
            usage,
            system_fingerprint,
            service_tier,
            obfuscation: None,
            moderation,
            prompt_filter_results,
            extra,
        }
    }

    fn text_delta(&mut self, index: u32, text: String, out: &mut Events) -> Result<(), Error> {
        let delta = w::Delta {
            content: Some(text),
            ..Default::default()
        };
        self.chunk(index, delta, None, None, Default::default(), out)
    }

    fn reasoning_delta(&mut self, index: u32, text: String, out: &mut Events) -> Result<(), Error> {
        let delta = w::Delta {
            reasoning_content: Some(text),
            ..Default::default()
        };
        self.chunk(index, delta, None, None, Default::default(), out)
    }

    fn call_fragment(
        &mut self,
        choice: u32,
        fragment: w::ToolCallDelta,
        out: &mut Events,
    ) -> Result<(), Error> {
        let first = !self.out(choice).role;
        let mut delta = w::Delta {
            tool_calls: Some(vec![fragment]),
            ..Default::default()
        };
        if first {
            // What OpenAI sends on a call's first chunk: no content.
            delta.extra.mark_null("content");
        }
        self.chunk(choice, delta, None, None, Default::default(), out)
    }

    /// A call's first fragment (`call`: its id, name and vendor data; its arguments follow
    /// as deltas).
    fn tool_start(
        &mut self,
        part: PartId,
        choice: u32,
        call: ToolCall,
        ctx: &mut Ctx<'_>,
        out: &mut Events,
    ) -> Result<(), Error> {
        let ToolCall { id, name, meta, .. } = call;
        let o = self.out(choice);
        let index = o.calls;
        o.calls += 1;
        self.open.push((part, choice, Open::Tool(index)));
        ctx.report_unplaced_token(
            meta.signature.as_ref(),
            format_args!("{}/signature", at(part)),
            "a signature",
        );
        let v = &meta.vendor;
        let mut fields = ctx.vendor_fields(v, &at(part));
        let kind = if v.flag(F, NO_TYPE) {
            None
        } else {
            Some(
                fields
                    .shift_remove("type")
                    .and_then(|t| t.as_str().map(w::ToolCallType::from))
                    .unwrap_or(w::ToolCallType::Function),
            )
        };
        let id = (!v.flag(F, NO_ID)).then_some(id);
        let extra_content = fields.take_as("extra_content");
        // Members of a whole body's call that a fragment has no place for.
        for key in ["name", "arguments"] {
            if fields.shift_remove(key).is_some() {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    format!("{}/{key}", at(part)),
                    format!("a flat call's `{key}` is not written in an openai-chat stream"),
                );
            }
        }
        let fragment = w::ToolCallDelta {
            index: Some(index),
            id,
            kind,
            function: Some(w::FunctionCallDelta {
                name: Some(name),
                arguments: Some(String::new()),
                extra: Default::default(),
            }),
            extra_content,
            extra: wire_types::Extra::from(fields),
        };
        self.call_fragment(choice, fragment, out)
    }

    fn tool_delta(&mut self, part: PartId, json: String, out: &mut Events) -> Result<(), Error> {
        let Some(&(_, choice, Open::Tool(index))) = self.open.iter().find(|(p, _, _)| *p == part)
        else {
            return Ok(());
        };
        let fragment = w::ToolCallDelta {
            index: Some(index),
            function: Some(w::FunctionCallDelta {
                name: None,
                arguments: Some(json),
                extra: Default::default(),
            }),
            ..Default::default()
        };
        self.call_fragment(choice, fragment, out)
    }

    fn kind(&self, part: PartId) -> Option<(u32, Open)> {
        self.open
            .iter()
            .find(|(p, _, _)| *p == part)
            .map(|(_, c, k)| (*c, *k))
    }

    /// Whether reasoning is written: only this format's own, unless the options drop it.
    fn reasoning_ok(&mut self, part: PartId, ctx: &mut Ctx<'_>) -> bool {
        if ctx.options.reasoning == ReasoningMode::Drop {
            ctx.dropped(
                LossCode::ReasoningDropped,
                at(part),
                "reasoning dropped (option reasoning = drop)",
            );
            return false;
        }
        if self.source != Some(F) {
            ctx.dropped(
                LossCode::ReasoningDropped,
                at(part),
                "openai-chat streams have no field for another provider's reasoning",
            );
            return false;
        }
        true
    }

    fn whole(
        &mut self,
        part: PartId,
        choice: u32,
        content: Part,
        ctx: &mut Ctx<'_>,
        out: &mut Events,
    ) -> Result<(), Error> {
        match content {
            Part::Refusal(t) => {
                ctx.report_unwritten_fields(&t.meta.vendor, &at(part));
                let delta = w::Delta {
                    refusal: Some(t.text),
                    ..Default::default()
                };
                self.chunk(choice, delta, None, None, Default::default(), out)
            }
            Part::Text(t) => {
                ctx.report_unwritten_fields(&t.meta.vendor, &at(part));
                self.text_delta(choice, t.text, out)
            }
            Part::ToolCall(c) => {
                let json = c.arguments.text();
                self.tool_start(part, choice, c, ctx, out)?;
                self.tool_delta(part, json, out)?;
                self.open.retain(|(p, _, _)| *p != part);
                Ok(())
            }
            Part::Reasoning(r) => {
                if self.reasoning_ok(part, ctx) {
                    if let Some(text) = r.text {
                        self.reasoning_delta(choice, text, out)?;
                    }
                }
                Ok(())
            }
            other => {
                let what = match &other {
                    Part::Opaque(o) => format!("a {} part", o.format),
                    p => format!("a {} part", p.kind()),
                };
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at(part),
                    format!("{what} has no place in an openai-chat response stream"),
                );
                Ok(())
            }
        }
    }

    fn finish(
        &mut self,
        choice: u32,
        stop: Option<StopReason>,
        vendor: Vendor,
        ctx: &mut Ctx<'_>,
        out: &mut Events,
    ) -> Result<(), Error> {
        self.open.retain(|(_, c, _)| *c != choice);
        let mut fields = ctx.vendor_fields(&vendor, "/finish");
        let logprobs = fields
            .shift_remove("logprobs")
            .and_then(|l| serde_json::from_value::<w::ChunkLogprobs>(l).ok());
        let mut delta = w::Delta::default();
        let mut m = message_members(&mut fields);
        if !m.is_empty() {
            if let Some(x) = m.take_as::<w::ExtraContent>("extra_content") {
                delta.extra_content = Some(x);
            }
            if let Some(r) = m
                .shift_remove("role")
                .and_then(|r| r.as_str().map(str::to_owned))
            {
                delta.role = Some(r);
                self.out(choice).role = true;
            }
            delta.extra = wire_types::Extra::from(m);
        }
        let finish = Some(match stop {
            Some(r) => finish_reason(&r, ctx),
            None => w::FinishReason::Stop,
        });
        let content_filter_results = fields.take_as("content_filter_results");
        let mut extra = wire_types::Extra::from(fields);
        if let Some(cf) = content_filter_results {
            extra.insert("content_filter_results".to_owned(), Value::Object(cf));
        }
        self.chunk(choice, delta, finish, logprobs, extra, out)?;
        self.out(choice).finished = true;
        Ok(())
    }
}

/// The `finish_reason` of a neutral stop: this format's own as it came; another format's
/// by kind (a kind Chat Completions has no word for is `stop`, with a loss: the SDK's
/// types take no other value).
fn finish_reason(r: &StopReason, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence => w::FinishReason::Stop,
        StopKind::MaxTokens => w::FinishReason::Length,
        StopKind::ToolUse => w::FinishReason::ToolCalls,
        StopKind::ContentFilter => w::FinishReason::ContentFilter,
        StopKind::Pause | StopKind::Error | StopKind::Other => {
            let raw = r.raw.clone().unwrap_or_else(|| format!("{:?}", r.kind));
            ctx.changed(
                LossCode::StopReasonChanged,
                "/finish/stop_reason",
                format!("stop reason `{raw}` has no openai-chat equivalent: written as `stop`"),
            );
            w::FinishReason::Stop
        }
    }
}

impl EventEncoder for Encoder {
    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.finished {
            return Ok(());
        }
        if !self.started {
            let start = match &part {
                StreamPart::Start(s) => s.clone(),
                _ => StreamStart::default(),
            };
            self.start(start, ctx);
            if matches!(part, StreamPart::Start(_)) {
                return Ok(());
            }
        }
        match part {
            StreamPart::Start(_) => {}
            StreamPart::TextStart { part, choice, meta } => {
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                ctx.report_unplaced_token(
                    meta.signature.as_ref(),
                    format_args!("{}/signature", at(part)),
                    "a signature",
                );
                self.open.push((part, choice, Open::Text));
                // An empty text opens the part (with the role on a choice's first chunk, as
                // OpenAI's first chunk): a text that stays empty is still there.
                self.text_delta(choice, String::new(), out)?;
            }
            StreamPart::TextDelta { part, text } => match self.kind(part) {
                Some((choice, Open::Text)) if !text.is_empty() => {
                    self.text_delta(choice, text, out)?
                }
                Some((choice, Open::Reasoning)) if !text.is_empty() => {
                    self.reasoning_delta(choice, text, out)?
                }
                _ => {}
            },
            StreamPart::ReasoningStart {
                part, choice, meta, ..
            } => {
                if !self.reasoning_ok(part, ctx) {
                    self.dropped.push(part);
                    return Ok(());
                }
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                self.open.push((part, choice, Open::Reasoning));
                if !self.out(choice).role {
                    self.reasoning_delta(choice, String::new(), out)?;
                }
            }
            StreamPart::ReasoningDelta { part, text }
            | StreamPart::SummaryDelta { part, text, .. } => {
                if let Some((choice, Open::Reasoning)) = self.kind(part) {
                    if !text.is_empty() {
                        self.reasoning_delta(choice, text, out)?;
                    }
                }
            }
            StreamPart::Signature { part, token, .. } => {
                if self.dropped.contains(&part) {
                    return Ok(());
                }
                ctx.report_unplaced_token(
                    Some(&token),
                    format_args!("{}/signature", at(part)),
                    "a reasoning signature",
                );
            }
            StreamPart::ToolStart {
                part,
                choice,
                id,
                synthetic_id,
                name,
                meta,
            } => {
                let call = ToolCall {
                    id,
                    synthetic_id,
                    name,
                    arguments: Arguments::Text(String::new()),
                    meta,
                };
                self.tool_start(part, choice, call, ctx, out)?;
            }
            StreamPart::ToolDelta { part, json } => {
                if !json.is_empty() {
                    self.tool_delta(part, json, out)?;
                }
            }
            StreamPart::Whole {
                part,
                choice,
                content,
            } => self.whole(part, choice, content, ctx, out)?,
            StreamPart::Meta { part, meta } => {
                if self.dropped.contains(&part) {
                    return Ok(());
                }
                match self.kind(part) {
                    Some((choice, Open::Tool(index)))
                        if meta.vendor.format == Some(F)
                            && meta.vendor.fields.contains_key("extra_content") =>
                    {
                        // Gemini's signature on a call's last fragment.
                        let mut fields = meta.vendor.fields.to_map();
                        let fragment = w::ToolCallDelta {
                            index: Some(index),
                            extra_content: fields.take_as("extra_content"),
                            extra: wire_types::Extra::from(fields),
                            ..Default::default()
                        };
                        self.call_fragment(choice, fragment, out)?;
                    }
                    _ => ctx.report_unwritten_fields(&meta.vendor, &at(part)),
                }
                ctx.report_unplaced_token(
                    meta.signature.as_ref(),
                    format_args!("{}/signature", at(part)),
                    "a signature",
                );
            }
            StreamPart::End { part } => self.open.retain(|(p, _, _)| *p != part),
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish {
                choice,
                stop_reason,
                vendor,
            } => self.finish(choice, stop_reason, vendor, ctx, out)?,
            StreamPart::ResponseMeta(v) => ctx.report_unwritten_fields(&v, ""),
            StreamPart::Error(e) => {
                let code = match e.kind {
                    StreamErrorKind::Incomplete => None,
                    _ => e.code.clone(),
                };
                error_event(out, e.message, code)?;
                self.finished = true;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        if !self.choices.iter().any(|c| c.finished) {
            // The source ended without a finish (its decoder reports why): not a normal
            // end here either.
            return error_event(
                out,
                "the source stream ended before it finished".to_owned(),
                None,
            );
        }
        if let Some(u) = self.usage.take() {
            let usage = encode_usage(u, ctx);
            let chunk = self.envelope(Some(Vec::new()), Some(usage));
            out.push(None, &chunk)?;
        }
        out.done();
        Ok(())
    }
}

/// An error object, as OpenAI sends one mid-stream.
fn error_event(out: &mut Events, message: String, code: Option<String>) -> Result<(), Error> {
    let kind = code.clone().unwrap_or_else(|| "server_error".to_owned());
    out.push(
        None,
        &w::ErrorResponse {
            error: w::ErrorDetail {
                message: Some(message),
                kind: Some(kind),
                param: None,
                code: code.map(Value::String),
                extra: Default::default(),
            },
            extra: Default::default(),
        },
    )
}

/// What the stream tests of the OpenAI-shaped formats share.
#[cfg(test)]
pub(crate) mod testing {
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
            let finished = parts.iter().any(|p| matches!(p, StreamPart::Finish { .. }))
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
}
