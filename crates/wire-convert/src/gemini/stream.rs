//! The `streamGenerateContent?alt=sse` stream: each event is a whole
//! `GenerateContentResponse` chunk holding the next parts of each candidate, its usage so
//! far, and on the last chunk of a candidate its `finishReason`; `{"error": …}` mid-stream.
//!
//! Each chunk's parts are decoded by the whole-body code (`decode_part`, `decode_call`),
//! so the accumulated response is the one the non-streamed body gives: consecutive text
//! parts extend one open text part (thought parts one reasoning part), a
//! `thoughtSignature` on a later part goes to the open part's meta, a whole
//! `functionCall` is a call with its arguments at once, and code-execution and media
//! parts arrive whole. Vertex AI's `streamFunctionCallArguments` streams a call over
//! several parts (`willContinue`, `partialArgs` at JSON paths): it is built up and its
//! arguments sent at its end. A prompt blocked before any candidate
//! (`promptFeedback.blockReason`) is a finish with a content-filter stop, not an error.

use super::decode::{decode_call, decode_part};
use super::hints::{BLOCKED, EMPTY, INDEX, NO_INDEX};
use super::response::{decode_response, decode_usage, stop_kind};
use super::{F, keep_rest, rest};
use crate::model::{Part, PartMeta, StopKind, StopReason, Text, Usage, Vendor};
use crate::stream::{
    Event, EventDecoder, PartId, Parts, StreamError, StreamErrorKind, StreamPart, StreamStart,
    incomplete, read,
};
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::gemini as w;

/// What kind of text part is open in a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Reasoning,
}

/// A call streamed in fragments (`willContinue`), its arguments built up as they come.
#[derive(Debug)]
struct Call {
    part: PartId,
    args: Value,
    /// The JSON path of the string value whose next piece follows (`willContinue` on the
    /// last fragment).
    continuing: Option<String>,
}

/// One candidate's state.
#[derive(Debug)]
struct Cand {
    choice: u32,
    /// The open text or reasoning part.
    open: Option<(PartId, Kind)>,
    /// The open streamed call.
    call: Option<Call>,
    /// Calls so far (for synthetic ids, as the whole-body decoder counts them).
    calls: usize,
    finished: bool,
    /// The candidate's other fields so far (safety ratings, citations, …), sent with its
    /// finish.
    rest: Map<String, Value>,
    /// The last chunk of it had no `index`.
    no_index: bool,
    /// Parts after its finish were reported.
    after_finish: bool,
}

/// The `streamGenerateContent` stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    cands: Vec<Cand>,
    /// The usage last sent.
    usage: Option<Usage>,
    /// The response-level vendor data last sent.
    vendor: Vendor,
    /// A candidate was seen (a block reason then ends nothing).
    any_candidate: bool,
    blocked: bool,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match read::<w::StreamEvent>(event.data)? {
            w::StreamEvent::Chunk(chunk) => self.chunk(chunk, out, ctx),
            w::StreamEvent::Error(e) => {
                let e = e.error;
                out.push(StreamPart::Error(StreamError {
                    kind: StreamErrorKind::Provider,
                    code: e.status.clone().or_else(|| e.code.map(|c| c.to_string())),
                    message: e.message.clone().unwrap_or_default(),
                    value: Some(wire_types::to_value(&e)),
                }));
                Ok(())
            }
        }
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        for c in &mut self.cands {
            c.close_all(out);
        }
        if !out.finished() {
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    fn chunk(
        &mut self,
        mut r: w::Response,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let candidates = r.candidates.take().unwrap_or_default();
        let usage = r.usage_metadata.take();
        let block = r
            .prompt_feedback
            .as_ref()
            .and_then(|p| p.block_reason.clone());
        // What is left is the response's own: id, model, time, prompt feedback, ….
        let head = decode_response(r, ctx)?;
        if !out.started() {
            out.start(StreamStart {
                format: Some(F),
                id: head.id,
                model: head.model,
                created: head.created,
                vendor: head.vendor.clone(),
            });
            self.vendor = head.vendor;
        } else if !head.vendor.is_empty() && head.vendor != self.vendor {
            out.push(StreamPart::ResponseMeta(head.vendor.clone()));
            self.vendor = head.vendor;
        }
        let mut finishes = Vec::new();
        for (i, c) in candidates.into_iter().enumerate() {
            self.any_candidate = true;
            if let Some(f) = self.candidate(c, i, out, ctx)? {
                finishes.push(f);
            }
        }
        if let Some(u) = usage {
            let u = decode_usage(u);
            if self.usage.as_ref() != Some(&u) {
                out.push(StreamPart::Usage(u.clone()));
                self.usage = Some(u);
            }
        }
        if let Some(reason) = block {
            if !self.any_candidate && !self.blocked {
                // The prompt was blocked: no candidate comes, and that is the answer.
                self.blocked = true;
                let mut vendor = Vendor::default();
                vendor.set_hint(F, BLOCKED, true);
                finishes.push(StreamPart::Finish {
                    choice: 0,
                    stop_reason: Some(StopReason {
                        kind: StopKind::ContentFilter,
                        raw: Some(reason.as_str().to_owned()),
                        format: Some(F),
                    }),
                    vendor,
                });
            }
        }
        for f in finishes {
            out.push(f);
        }
        Ok(())
    }

    /// One candidate of a chunk (`i`: its position); its finish, if it finished.
    fn candidate(
        &mut self,
        mut c: w::Candidate,
        i: usize,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) -> Result<Option<StreamPart>, Error> {
        let index = c.index.take();
        let choice = index.unwrap_or(i as u32);
        let cand = match self.cands.iter().position(|x| x.choice == choice) {
            Some(k) => &mut self.cands[k],
            None => {
                self.cands.push(Cand {
                    choice,
                    open: None,
                    call: None,
                    calls: 0,
                    finished: false,
                    rest: Map::new(),
                    no_index: false,
                    after_finish: false,
                });
                let k = self.cands.len() - 1;
                &mut self.cands[k]
            }
        };
        cand.no_index = index.is_none();
        let finish = c.finish_reason.take();
        let parts = c.content.take().and_then(|mut x| x.parts.take());
        if cand.finished {
            if parts.is_some_and(|p| !p.is_empty()) && !cand.after_finish {
                cand.after_finish = true;
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    format!(
                        "gemini candidate {choice} sent parts after its finishReason: left out"
                    ),
                );
            }
            return Ok(None);
        }
        cand.rest.extend(rest(&c, &[]));
        for (j, p) in parts.into_iter().flatten().enumerate() {
            if p.function_response.is_some() {
                return Err(Error::invalid(
                    format!("/candidates/{i}/content/parts/{j}/functionResponse"),
                    "a function response in a candidate",
                ));
            }
            cand.part(p, out, ctx);
        }
        let Some(reason) = finish else {
            return Ok(None);
        };
        cand.close_all(out);
        cand.finished = true;
        let mut vendor = Vendor::default();
        if cand.no_index {
            vendor.set_hint(F, NO_INDEX, true);
        }
        keep_rest(&mut vendor, "", std::mem::take(&mut cand.rest));
        Ok(Some(StreamPart::Finish {
            choice,
            stop_reason: Some(StopReason {
                kind: stop_kind(&reason, cand.calls > 0),
                raw: Some(reason.as_str().to_owned()),
                format: Some(F),
            }),
            vendor,
        }))
    }
}

impl Cand {
    /// One part of the candidate (not a function response).
    fn part(&mut self, p: w::Part, out: &mut Parts, ctx: &mut Ctx<'_>) {
        if let Some(fc) = p.function_call.as_ref() {
            if fc.name.is_some() {
                self.start_call(p, out, ctx);
            } else {
                self.continue_call(p, out, ctx);
            }
            return;
        }
        if p.text.is_none() {
            // Code, its result, media, a part only Gemini knows: whole.
            self.close_open(out);
            let part = out.id();
            out.push(StreamPart::Whole {
                part,
                choice: self.choice,
                content: decode_part(p),
            });
            return;
        }
        match decode_part(p) {
            Part::Text(t) => self.text(t.text, t.meta, out),
            Part::Reasoning(r) => {
                let open = match self.open {
                    Some((part, Kind::Reasoning)) => part,
                    _ => {
                        self.close_open(out);
                        let part = out.id();
                        out.push(StreamPart::ReasoningStart {
                            part,
                            choice: self.choice,
                            id: None,
                            meta: PartMeta::default(),
                        });
                        self.open = Some((part, Kind::Reasoning));
                        part
                    }
                };
                if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                    out.push(StreamPart::ReasoningDelta { part: open, text });
                }
                if let Some(token) = r.signature {
                    out.push(StreamPart::Signature {
                        part: open,
                        token,
                        encrypted: false,
                    });
                }
                if !r.meta.is_empty() {
                    out.push(StreamPart::Meta {
                        part: open,
                        meta: r.meta,
                    });
                }
            }
            whole => {
                self.close_open(out);
                let part = out.id();
                out.push(StreamPart::Whole {
                    part,
                    choice: self.choice,
                    content: whole,
                });
            }
        }
    }

    fn text(&mut self, text: String, mut meta: PartMeta, out: &mut Parts) {
        match self.open {
            Some((part, Kind::Text)) => {
                // An empty part continuing text says nothing of its own (its signature
                // aside).
                meta.vendor.hints.shift_remove(EMPTY);
                if !text.is_empty() {
                    out.push(StreamPart::TextDelta { part, text });
                }
                if !meta.is_empty() {
                    out.push(StreamPart::Meta { part, meta });
                }
            }
            _ => {
                self.close_open(out);
                let part = out.id();
                out.push(StreamPart::TextStart {
                    part,
                    choice: self.choice,
                    meta,
                });
                if !text.is_empty() {
                    out.push(StreamPart::TextDelta { part, text });
                }
                self.open = Some((part, Kind::Text));
            }
        }
    }

    /// A `functionCall` part with a name: a whole call, or the first part of a streamed
    /// one.
    fn start_call(&mut self, mut p: w::Part, out: &mut Parts, ctx: &mut Ctx<'_>) {
        self.close_open(out);
        // A new call ends a streamed one still open.
        self.close_call(out);
        let (will_continue, partial) = match p.function_call.as_mut() {
            Some(fc) => {
                let wc = fc.will_continue.take();
                let partial = fc.partial_args.take();
                if (wc == Some(true) || partial.is_some()) && fc.args.is_none() {
                    // Its arguments come in fragments: none yet is `{}`, not "no args".
                    fc.args = Some(wire_types::MaybeRaw::Parsed(Map::new()));
                }
                (wc == Some(true), partial)
            }
            None => (false, None),
        };
        let streamed = will_continue || partial.is_some();
        let neutral = format!("/choices/{}", self.choice);
        let (call, _) = decode_call(p, &neutral, self.calls);
        self.calls += 1;
        let Part::ToolCall(c) = call else {
            return;
        };
        let part = out.id();
        let args = c.arguments;
        out.push(StreamPart::ToolStart {
            part,
            choice: self.choice,
            id: c.id,
            synthetic_id: c.synthetic_id,
            name: c.name,
            meta: c.meta,
        });
        if !streamed {
            out.push(StreamPart::ToolDelta {
                part,
                json: args.text(),
            });
            out.push(StreamPart::End { part });
            return;
        }
        let mut call = Call {
            part,
            args: args.value().unwrap_or_else(|| Value::Object(Map::new())),
            continuing: None,
        };
        call.apply(partial.unwrap_or_default(), ctx);
        if will_continue {
            self.call = Some(call);
        } else {
            call.close(out);
        }
    }

    /// A `functionCall` part without a name: the next fragment of the streamed call.
    fn continue_call(&mut self, mut p: w::Part, out: &mut Parts, ctx: &mut Ctx<'_>) {
        let Some(call) = self.call.as_mut() else {
            ctx.dropped(
                LossCode::PartUnsupported,
                "",
                "a gemini functionCall fragment without a name, and no streamed call open: left out",
            );
            return;
        };
        let fc = p.function_call.take().unwrap_or_default();
        if let Some(token) = p.thought_signature.take() {
            out.push(StreamPart::Meta {
                part: call.part,
                meta: PartMeta {
                    signature: Some(super::signed(token)),
                    ..Default::default()
                },
            });
        }
        call.apply(fc.partial_args.unwrap_or_default(), ctx);
        if fc.will_continue != Some(true) {
            self.close_call(out);
        }
    }

    fn close_open(&mut self, out: &mut Parts) {
        if let Some((part, _)) = self.open.take() {
            out.push(StreamPart::End { part });
        }
    }

    fn close_call(&mut self, out: &mut Parts) {
        if let Some(call) = self.call.take() {
            call.close(out);
        }
    }

    fn close_all(&mut self, out: &mut Parts) {
        self.close_open(out);
        self.close_call(out);
    }
}

/// One step of a `partialArgs` JSON path.
#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A `partialArgs` JSON path (`$.a.b[0].c`, `$['a b']`) as steps; `None` when it is not
/// one.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            out.push(Step::Key(r[..end].to_owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']')?;
            let inner = &r[..close];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            match quoted {
                Some(key) => out.push(Step::Key(key.to_owned())),
                None => out.push(Step::Index(inner.parse().ok()?)),
            }
            rest = &r[close + 1..];
        } else {
            return None;
        }
    }
    Some(out)
}

/// The value at `steps` in `root`, made (objects, arrays, `null`) where missing; `None`
/// when an index skips past the end of its array (fragments come in order).
fn slot<'a>(root: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut cur = root;
    for step in steps {
        cur = match step {
            Step::Key(k) => {
                if !cur.is_object() {
                    *cur = Value::Object(Map::new());
                }
                cur.as_object_mut()?.entry(k.clone()).or_insert(Value::Null)
            }
            Step::Index(i) => {
                if !cur.is_array() {
                    *cur = Value::Array(Vec::new());
                }
                let a = cur.as_array_mut()?;
                if *i > a.len() {
                    return None;
                }
                if *i == a.len() {
                    a.push(Value::Null);
                }
                a.get_mut(*i)?
            }
        };
    }
    Some(cur)
}

impl Call {
    /// Lays fragments into the arguments.
    fn apply(&mut self, fragments: Vec<w::PartialArg>, ctx: &mut Ctx<'_>) {
        for a in fragments {
            let path = a.json_path.clone().unwrap_or_default();
            let Some(at) = steps(&path) else {
                ctx.dropped(
                    LossCode::PartChanged,
                    "",
                    format!("a gemini partialArgs fragment at `{path}`, which is not a JSON path: left out"),
                );
                continue;
            };
            let continuing = self.continuing.take().is_some_and(|c| c == path);
            let Some(slot) = slot(&mut self.args, &at) else {
                ctx.dropped(
                    LossCode::PartChanged,
                    "",
                    format!("a gemini partialArgs fragment at `{path}` skips past the end of its array: left out"),
                );
                continue;
            };
            if let Some(s) = a.string_value {
                match slot {
                    Value::String(so_far) if continuing => so_far.push_str(&s),
                    other => *other = Value::String(s),
                }
            } else if let Some(n) = a.number_value {
                *slot = serde_json::to_value(n).unwrap_or(Value::Null);
            } else if let Some(b) = a.bool_value {
                *slot = Value::Bool(b);
            } else {
                // `nullValue`, or no value at all.
                *slot = Value::Null;
            }
            if a.will_continue == Some(true) {
                self.continuing = Some(path);
            }
        }
    }

    /// The arguments built, and the call's end.
    fn close(self, out: &mut Parts) {
        out.push(StreamPart::ToolDelta {
            part: self.part,
            json: self.args.to_string(),
        });
        out.push(StreamPart::End { part: self.part });
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

use super::encode::{Calls, encode_part};
use super::rebuild_from;
use super::response::{encode_stop, encode_usage};
use crate::model::{Arguments, Reasoning, Role, Signed, ToolCall};
use crate::stream::{EventEncoder, Events};
use crate::util::rfc3339_of_unix;

/// An open part.
#[derive(Debug)]
enum Open {
    /// Text; its meta until it is written with the first piece.
    Text { choice: u32, meta: Option<PartMeta> },
    /// Reasoning; what it carries besides text until written with the first piece.
    Reasoning {
        choice: u32,
        id: Option<String>,
        meta: Option<PartMeta>,
        /// The summary index last written.
        summary: Option<u32>,
    },
    /// A call, held until its end.
    Call {
        choice: u32,
        call: ToolCall,
        args: String,
    },
}

/// The `streamGenerateContent` stream encoder: a chunk per text or reasoning delta, a
/// `functionCall` part once a call has ended (Gemini has no partial arguments), whole parts
/// as they come, and a last chunk with each candidate's `finishReason` and the usage
/// (written at the end, so usage reported after the finish, as OpenAI does, is in it).
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    /// The format of the source (reasoning of another format is converted).
    source: Option<crate::Format>,
    id: Option<String>,
    model: Option<String>,
    created: Option<u64>,
    /// Response-level vendor data not yet written (in the next chunk).
    vendor: Vendor,
    open: Vec<(PartId, Open)>,
    usage: Option<Usage>,
    /// Finished candidates, written in the last chunk.
    finishes: Vec<w::Candidate>,
    /// A blocked prompt: the last chunk has no candidate.
    blocked: bool,
    finished: bool,
}

fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
}

impl Encoder {
    /// Writes one chunk.
    fn emit(
        &mut self,
        candidates: Vec<w::Candidate>,
        usage: Option<w::UsageMetadata>,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let vendor = std::mem::take(&mut self.vendor);
        let mut r: w::Response = rebuild_from(&vendor, "", &[], ctx);
        if !candidates.is_empty() {
            r.candidates = Some(candidates);
        }
        r.usage_metadata = usage;
        r.response_id.clone_from(&self.id);
        r.model_version.clone_from(&self.model);
        if r.create_time.is_none() {
            r.create_time = self.created.map(rfc3339_of_unix);
        }
        out.push(None, &r)
    }

    /// Writes one part of `choice` in a chunk of its own.
    fn emit_part(
        &mut self,
        choice: u32,
        part: w::Part,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let cand = w::Candidate {
            content: Some(w::Content {
                role: Some(w::Role::Model),
                parts: Some(vec![part]),
                ..Default::default()
            }),
            index: Some(choice),
            ..Default::default()
        };
        self.emit(vec![cand], None, out, ctx)
    }

    /// Encodes a neutral part with the whole-body code and writes it.
    fn write(
        &mut self,
        choice: u32,
        id: PartId,
        part: Part,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        match encode_part(part, Role::Assistant, &at(id), &Calls::default(), ctx) {
            Some(p) => self.emit_part(choice, p, out, ctx),
            None => Ok(()),
        }
    }

    fn reasoning(
        &self,
        text: Option<String>,
        summary: Vec<String>,
        id: Option<String>,
    ) -> Reasoning {
        Reasoning {
            text,
            summary,
            id,
            source: self.source,
            ..Default::default()
        }
    }

    /// A piece of reasoning (its text, a summary's, or a signature) written as a thought
    /// part, with what the part still had to write.
    fn reasoning_piece(
        &mut self,
        part: PartId,
        piece: Reasoning,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let Some((
            _,
            Open::Reasoning {
                choice, id, meta, ..
            },
        )) = self.open.iter_mut().find(|(p, _)| *p == part)
        else {
            return Ok(());
        };
        let choice = *choice;
        let mut r = piece;
        r.id = id.take();
        r.meta = meta.take().unwrap_or_default();
        self.write(choice, part, Part::Reasoning(r), out, ctx)
    }

    /// A text piece with what the part still had to write.
    fn text_piece(
        &mut self,
        part: PartId,
        text: String,
        extra: PartMeta,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let Some((_, Open::Text { choice, meta })) = self.open.iter_mut().find(|(p, _)| *p == part)
        else {
            return Ok(());
        };
        let choice = *choice;
        let mut m = meta.take().unwrap_or_default();
        merge_meta(&mut m, extra);
        self.write_text(choice, part, Text { text, meta: m }, out, ctx)
    }

    /// Writes a text piece, unless it is an empty text that carries nothing Gemini has
    /// (another format's fields are losses, reported by the whole-body code) and did not
    /// come from Gemini as an empty part.
    fn write_text(
        &mut self,
        choice: u32,
        id: PartId,
        text: Text,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let keep_empty = text.meta.vendor.flag(F, EMPTY);
        let Some(p) = encode_part(
            Part::Text(text),
            Role::Assistant,
            &at(id),
            &Calls::default(),
            ctx,
        ) else {
            return Ok(());
        };
        let bare = w::Part {
            text: Some(String::new()),
            ..Default::default()
        };
        if p == bare && !keep_empty {
            return Ok(());
        }
        self.emit_part(choice, p, out, ctx)
    }

    /// Ends a part: a held call is written, as is what a text or thought part still had
    /// to write (a signature, an empty part that came from Gemini).
    fn end_part(&mut self, part: PartId, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let Some(i) = self.open.iter().position(|(p, _)| *p == part) else {
            return Ok(());
        };
        let (_, open) = self.open.remove(i);
        match open {
            Open::Text { choice, meta } => match meta {
                Some(meta) if !meta.is_empty() => self.write_text(
                    choice,
                    part,
                    Text {
                        text: String::new(),
                        meta,
                    },
                    out,
                    ctx,
                ),
                _ => Ok(()),
            },
            Open::Reasoning {
                choice, id, meta, ..
            } => match meta {
                Some(meta) if !meta.is_empty() || meta.signature.is_some() => {
                    let mut r = self.reasoning(None, Vec::new(), id);
                    r.signature = meta.signature.clone();
                    r.meta = meta;
                    r.meta.signature = None;
                    self.write(choice, part, Part::Reasoning(r), out, ctx)
                }
                _ => Ok(()),
            },
            Open::Call {
                choice,
                mut call,
                args,
            } => {
                call.arguments = Arguments::Text(if args.trim().is_empty() {
                    "{}".to_owned()
                } else {
                    args
                });
                self.write(choice, part, Part::ToolCall(call), out, ctx)
            }
        }
    }

    fn end_choice(
        &mut self,
        choice: u32,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let parts: Vec<PartId> = self
            .open
            .iter()
            .filter(|(_, o)| open_choice(o) == choice)
            .map(|(p, _)| *p)
            .collect();
        for p in parts {
            self.end_part(p, out, ctx)?;
        }
        Ok(())
    }

    fn signature(
        &mut self,
        part: PartId,
        token: Signed,
        encrypted: bool,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        match self.open.iter_mut().find(|(p, _)| *p == part) {
            Some((_, Open::Reasoning { .. })) => {
                let mut r = self.reasoning(None, Vec::new(), None);
                if encrypted {
                    r.encrypted = Some(token);
                } else {
                    r.signature = Some(token);
                }
                self.reasoning_piece(part, r, out, ctx)
            }
            Some((_, Open::Text { .. })) => {
                let meta = PartMeta {
                    signature: Some(token),
                    ..Default::default()
                };
                self.text_piece(part, String::new(), meta, out, ctx)
            }
            Some((_, Open::Call { call, .. })) => {
                call.meta.signature = Some(token);
                Ok(())
            }
            None => {
                ctx.dropped(
                    LossCode::SignatureForeign,
                    format!("{}/signature", at(part)),
                    "a signature for a part already written: gemini sends it on the part",
                );
                Ok(())
            }
        }
    }
}

fn open_choice(o: &Open) -> u32 {
    match o {
        Open::Text { choice, .. } | Open::Reasoning { choice, .. } | Open::Call { choice, .. } => {
            *choice
        }
    }
}

fn merge_meta(into: &mut PartMeta, from: PartMeta) {
    into.vendor.merge(from.vendor);
    if from.cache.is_some() {
        into.cache = from.cache;
    }
    if from.signature.is_some() {
        into.signature = from.signature;
    }
}

impl EventEncoder for Encoder {
    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.finished {
            return Ok(());
        }
        match part {
            StreamPart::Start(s) => {
                self.source = s.format;
                self.id = s.id;
                self.model = s.model;
                self.created = s.created;
                self.vendor.merge(s.vendor);
            }
            StreamPart::TextStart { part, choice, meta } => {
                self.open.push((
                    part,
                    Open::Text {
                        choice,
                        meta: Some(meta),
                    },
                ));
            }
            StreamPart::TextDelta { part, text } => {
                match self.open.iter().find(|(p, _)| *p == part) {
                    Some((_, Open::Reasoning { .. })) => {
                        let r = self.reasoning(Some(text), Vec::new(), None);
                        self.reasoning_piece(part, r, out, ctx)?;
                    }
                    _ => self.text_piece(part, text, PartMeta::default(), out, ctx)?,
                }
            }
            StreamPart::ReasoningStart {
                part,
                choice,
                id,
                meta,
            } => {
                self.open.push((
                    part,
                    Open::Reasoning {
                        choice,
                        id,
                        meta: Some(meta),
                        summary: None,
                    },
                ));
            }
            StreamPart::ReasoningDelta { part, text } => {
                let r = self.reasoning(Some(text), Vec::new(), None);
                self.reasoning_piece(part, r, out, ctx)?;
            }
            StreamPart::SummaryDelta { part, index, text } => {
                let mut text = text;
                if let Some((_, Open::Reasoning { summary, .. })) =
                    self.open.iter_mut().find(|(p, _)| *p == part)
                {
                    // Gemini's thought text is one: summaries follow each other in it.
                    if summary.is_some_and(|s| s != index) {
                        text.insert_str(0, "\n\n");
                    }
                    *summary = Some(index);
                }
                let r = self.reasoning(None, vec![text], None);
                self.reasoning_piece(part, r, out, ctx)?;
            }
            StreamPart::Signature {
                part,
                token,
                encrypted,
            } => self.signature(part, token, encrypted, out, ctx)?,
            StreamPart::ToolStart {
                part,
                choice,
                id,
                synthetic_id,
                name,
                meta,
            } => {
                self.open.push((
                    part,
                    Open::Call {
                        choice,
                        call: ToolCall {
                            id,
                            synthetic_id,
                            name,
                            arguments: Arguments::Text(String::new()),
                            meta,
                        },
                        args: String::new(),
                    },
                ));
            }
            StreamPart::ToolDelta { part, json } => {
                if let Some((_, Open::Call { args, .. })) =
                    self.open.iter_mut().find(|(p, _)| *p == part)
                {
                    args.push_str(&json);
                }
            }
            StreamPart::Whole {
                part,
                choice,
                content,
            } => self.write(choice, part, content, out, ctx)?,
            StreamPart::Meta { part, meta } => match self.open.iter_mut().find(|(p, _)| *p == part)
            {
                Some((_, Open::Text { .. })) => {
                    self.text_piece(part, String::new(), meta, out, ctx)?;
                }
                Some((_, Open::Reasoning { meta: pending, .. })) => {
                    let mut m = pending.take().unwrap_or_default();
                    merge_meta(&mut m, meta);
                    *pending = Some(m);
                }
                Some((_, Open::Call { call, .. })) => merge_meta(&mut call.meta, meta),
                None => {
                    ctx.report_unwritten_fields(&meta.vendor, &at(part));
                    ctx.report_unplaced_token(
                        meta.signature.as_ref(),
                        format_args!("{}/signature", at(part)),
                        "a signature",
                    );
                }
            },
            StreamPart::End { part } => self.end_part(part, out, ctx)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish {
                choice,
                stop_reason,
                vendor,
            } => {
                self.end_choice(choice, out, ctx)?;
                if vendor.flag(F, BLOCKED) {
                    self.blocked = true;
                    return Ok(());
                }
                let at = "/finish";
                let mut cand: w::Candidate = rebuild_from(&vendor, at, &[], ctx);
                cand.index = if vendor.flag(F, NO_INDEX) {
                    None
                } else {
                    Some(
                        vendor
                            .hint(F, INDEX)
                            .and_then(Value::as_u64)
                            .map_or(choice, |x| x as u32),
                    )
                };
                cand.finish_reason = Some(match stop_reason {
                    Some(r) => encode_stop(&r, "/finish/stop_reason", ctx),
                    None => {
                        ctx.changed(
                            LossCode::FieldDefaulted,
                            "/finish/stop_reason",
                            "the source gave no stop reason; a gemini candidate ends with one: written as STOP",
                        );
                        w::FinishReason::Stop
                    }
                });
                self.finishes.push(cand);
            }
            StreamPart::ResponseMeta(v) => self.vendor.merge(v),
            StreamPart::Error(e) => {
                for (part, open) in std::mem::take(&mut self.open) {
                    if matches!(open, Open::Call { .. }) {
                        ctx.dropped(
                            LossCode::PartUnsupported,
                            at(part),
                            "the stream failed before this call ended: not written",
                        );
                    }
                }
                // What the source reported so far (usage, finished candidates) is written
                // before the error.
                self.flush(out, ctx)?;
                // A Gemini error object is written back as it came.
                let own = self.source == Some(F);
                let detail = e
                    .value
                    .as_ref()
                    .filter(|_| own)
                    .and_then(|v| serde_json::from_value::<w::ErrorDetail>(v.clone()).ok())
                    .filter(|d| d.message.is_some());
                let detail = detail.unwrap_or_else(|| {
                    let (code, status) = match (&e.kind, e.code.as_deref()) {
                        (StreamErrorKind::Incomplete, _) | (_, None) => {
                            (Some(500), Some("INTERNAL".to_owned()))
                        }
                        (_, Some(c)) => match c.parse::<u16>() {
                            Ok(n) => (Some(n), None),
                            Err(_) => (None, Some(c.to_owned())),
                        },
                    };
                    w::ErrorDetail {
                        code,
                        message: Some(e.message.clone()),
                        status,
                        ..Default::default()
                    }
                });
                out.push(
                    None,
                    &w::ErrorResponse {
                        error: detail,
                        extra: Default::default(),
                    },
                )?;
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
        let parts: Vec<PartId> = self.open.iter().map(|(p, _)| *p).collect();
        for p in parts {
            self.end_part(p, out, ctx)?;
        }
        self.flush(out, ctx)
    }
}

impl Encoder {
    /// The last chunk: the finished candidates and the usage (or only the response's
    /// fields, for a blocked prompt), when there is any.
    fn flush(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let finishes = std::mem::take(&mut self.finishes);
        let usage = self.usage.take().map(|u| encode_usage(u, ctx));
        if !finishes.is_empty() || usage.is_some() || self.blocked || !self.vendor.is_empty() {
            self.emit(finishes, usage, out, ctx)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{Accumulator, Framing, StreamDecoder, StreamEncoder};
    use crate::{Format, Options};

    fn decode_with(framing: Framing, format: Format, bytes: &[u8]) -> Option<Vec<StreamPart>> {
        let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).ok()?;
        let mut parts = d.push(bytes).ok()?;
        parts.extend(d.finish().ok()?);
        Some(parts)
    }

    /// Gemini's parts of chunks given one JSON payload a line.
    fn decode(lines: &[&str]) -> Vec<StreamPart> {
        let mut d = StreamDecoder::with_framing(F, Framing::Ndjson, &Options::default()).unwrap();
        let mut parts = Vec::new();
        for l in lines {
            parts.extend(d.push(format!("{l}\n").as_bytes()).unwrap());
        }
        parts.extend(d.finish().unwrap());
        parts
    }

    /// Every recorded stream of every format that decodes, with its parts.
    fn every_stream() -> Vec<(String, Format, Vec<StreamPart>)> {
        let mut fixtures =
            test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]);
        fixtures.extend(test_support::fixtures("event-stream", &[".eventstream"]));
        fixtures
            .into_iter()
            .filter_map(|f| {
                let format: Format = f.format.parse().ok()?;
                let framing = if f.name.ends_with(".sse.txt") {
                    Framing::Sse
                } else if f.name.ends_with(".eventstream") {
                    Framing::EventStream
                } else {
                    Framing::Ndjson
                };
                let bytes = std::fs::read(&f.path).ok()?;
                Some((f.rel(), format, decode_with(framing, format, &bytes)?))
            })
            .collect()
    }

    /// The chunks an SSE text holds.
    fn chunks(sse: &[u8]) -> Vec<Value> {
        String::from_utf8_lossy(sse)
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }

    fn encode(parts: Vec<StreamPart>) -> Vec<u8> {
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let mut bytes = e.encode_all(parts).unwrap();
        bytes.extend(e.finish().unwrap());
        bytes
    }

    fn accumulated(parts: Vec<StreamPart>) -> crate::model::Response {
        let mut acc = Accumulator::new();
        acc.extend(parts);
        match acc.finish() {
            Ok(r) => r,
            Err(Error::Incomplete { partial, .. }) => *partial,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn every_chunk_written_is_a_valid_generate_content_response() {
        let schema = test_support::conformance("gemini.response").unwrap();
        let mut checked = 0;
        for (name, _, parts) in every_stream() {
            for chunk in chunks(&encode(parts)) {
                if chunk.get("error").is_some() {
                    // The error object, not a response: its own shape.
                    let e: w::ErrorResponse = serde_json::from_value(chunk).unwrap();
                    assert!(e.error.message.is_some(), "{name}");
                    continue;
                }
                checked += 1;
                let errors = test_support::schema_errors(schema, &chunk);
                assert!(errors.is_empty(), "{name}: {chunk}\n{}", errors.join("\n"));
            }
        }
        assert!(checked > 50, "{checked}");
    }

    #[test]
    fn a_gemini_stream_written_back_adds_up_to_the_same_response() {
        let mut checked = 0;
        for (name, format, parts) in every_stream() {
            if format != F {
                continue;
            }
            checked += 1;
            let before = accumulated(parts.clone());
            let back = decode_with(Framing::Sse, F, &encode(parts)).unwrap();
            assert_eq!(accumulated(back), before, "{name}");
        }
        assert!(checked >= 10);
    }

    #[test]
    fn text_is_written_at_once_and_a_call_when_it_ends_and_the_finish_last() {
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let start = e
            .encode_all([
                StreamPart::Start(StreamStart::default()),
                StreamPart::TextStart {
                    part: PartId(0),
                    choice: 0,
                    meta: PartMeta::default(),
                },
            ])
            .unwrap();
        assert!(start.is_empty());
        let delta = e
            .encode(StreamPart::TextDelta {
                part: PartId(0),
                text: "Hi".into(),
            })
            .unwrap();
        assert_eq!(
            chunks(&delta)[0]["candidates"][0]["content"]["parts"][0]["text"],
            "Hi"
        );
        let held = e
            .encode_all([
                StreamPart::End { part: PartId(0) },
                StreamPart::ToolStart {
                    part: PartId(1),
                    choice: 0,
                    id: "c1".into(),
                    synthetic_id: false,
                    name: "f".into(),
                    meta: PartMeta::default(),
                },
                StreamPart::ToolDelta {
                    part: PartId(1),
                    json: "{\"a\":1".into(),
                },
            ])
            .unwrap();
        // Arguments are sent whole: nothing is written before the end.
        assert!(held.is_empty());
        e.encode(StreamPart::ToolDelta {
            part: PartId(1),
            json: ",\"b\":2}".into(),
        })
        .unwrap();
        let call = chunks(&e.encode(StreamPart::End { part: PartId(1) }).unwrap());
        let fc = &call[0]["candidates"][0]["content"]["parts"][0]["functionCall"];
        assert_eq!(fc["args"], serde_json::json!({"a": 1, "b": 2}));
        assert_eq!(fc["id"], "c1");
        let finish = e
            .encode_all([
                StreamPart::Finish {
                    choice: 0,
                    stop_reason: Some(StopReason::new(StopKind::ToolUse)),
                    vendor: Vendor::default(),
                },
                StreamPart::Usage(Usage {
                    input_tokens: Some(3),
                    output_tokens: Some(2),
                    ..Default::default()
                }),
            ])
            .unwrap();
        assert!(finish.is_empty());
        let last = chunks(&e.finish().unwrap());
        assert_eq!(last.len(), 1);
        assert_eq!(last[0]["candidates"][0]["finishReason"], "STOP");
        assert_eq!(last[0]["usageMetadata"]["promptTokenCount"], 3);
        assert_eq!(last[0]["usageMetadata"]["candidatesTokenCount"], 2);
    }

    const NAME: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","willContinue":true},"thoughtSignature":"sig"}]}}]}"#;
    const PIECE: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}"#;
    const REST: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"y"},{"jsonPath":"$.n","numberValue":2},{"jsonPath":"$.ok","boolValue":true}],"willContinue":true}}]}}]}"#;
    const FINISH: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}]}"#;

    fn args_of(parts: &[StreamPart]) -> Vec<String> {
        parts
            .iter()
            .filter_map(|p| match p {
                StreamPart::ToolDelta { json, .. } => Some(json.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_streamed_call_ends_at_its_last_fragment_never_before() {
        let parts = decode(&[NAME, PIECE, REST]);
        // The stream broke off with the call open: it is closed, and the stream is
        // incomplete.
        assert!(matches!(
            parts.last(),
            Some(StreamPart::Error(StreamError {
                kind: StreamErrorKind::Incomplete,
                ..
            }))
        ));
        let mut d = StreamDecoder::with_framing(F, Framing::Ndjson, &Options::default()).unwrap();
        let early = d
            .push(format!("{NAME}\n{PIECE}\n{REST}\n").as_bytes())
            .unwrap();
        assert!(!early.iter().any(|p| matches!(p, StreamPart::End { .. })));
        assert!(args_of(&early).is_empty());

        let parts = decode(&[NAME, PIECE, REST, FINISH]);
        assert_eq!(args_of(&parts), [r#"{"a":[{"b":"xy"}],"n":2,"ok":true}"#]);
        assert!(!parts.iter().any(|p| matches!(p, StreamPart::Error(_))));
        let r = accumulated(parts);
        let call = match &r.choices[0].message.content[0] {
            Part::ToolCall(c) => c.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(call.id, "call_0_0_f");
        assert!(call.synthetic_id);
        assert_eq!(
            call.meta.signature.as_ref().map(|s| s.value.as_str()),
            Some("sig")
        );
        assert_eq!(
            r.choices[0].stop_reason.as_ref().map(|s| s.kind),
            Some(StopKind::ToolUse)
        );
    }

    #[test]
    fn synthetic_call_ids_are_the_whole_body_ones() {
        let body = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1}}},{"functionCall":{"name":"f"}}]},"finishReason":"STOP","index":0}]}"#;
        let whole = crate::decode_response(body, F, &Options::default())
            .unwrap()
            .value;
        let streamed = accumulated(decode(&[body]));
        assert_eq!(streamed, whole);
    }

    #[test]
    fn an_error_chunk_is_a_provider_error_and_a_blocked_prompt_a_finish() {
        let parts = decode(&[
            r#"{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}"#,
        ]);
        assert!(
            parts
                .iter()
                .any(|p| matches!(p, StreamPart::Error(StreamError {
            kind: StreamErrorKind::Provider,
            code: Some(c),
            message,
            ..
        }) if c == "RESOURCE_EXHAUSTED" && message == "slow down"))
        );

        let parts = decode(&[r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}"#]);
        assert!(!parts.iter().any(|p| matches!(p, StreamPart::Error(_))));
        let r = accumulated(parts);
        let stop = r.choices[0].stop_reason.clone().unwrap();
        assert_eq!(stop.kind, StopKind::ContentFilter);
        assert_eq!(stop.raw.as_deref(), Some("PROHIBITED_CONTENT"));
    }

    #[test]
    fn what_gemini_cannot_carry_is_one_loss_per_part_and_no_empty_chunk() {
        let path = test_support::fixtures_dir()
            .join("anthropic/stream/web-search-citations-delta.chunks.txt");
        let bytes = std::fs::read(path).unwrap();
        let parts = decode_with(Framing::Ndjson, Format::Anthropic, &bytes).unwrap();
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let mut sse = e.encode_all(parts).unwrap();
        sse.extend(e.finish().unwrap());
        let citations: Vec<&str> = e
            .losses()
            .iter()
            .map(|l| l.path.as_str())
            .filter(|p| p.ends_with("/citations"))
            .collect();
        assert!(!citations.is_empty());
        let mut unique = citations.clone();
        unique.dedup();
        assert_eq!(unique, citations);
        // The citations rode on empty text blocks' ends: nothing is written for them.
        for c in chunks(&sse) {
            for p in c["candidates"][0]["content"]["parts"]
                .as_array()
                .into_iter()
                .flatten()
            {
                assert_ne!(p, &serde_json::json!({"text": ""}), "{c}");
            }
        }
    }

    #[test]
    fn json_paths_read_as_steps() {
        assert_eq!(
            steps("$.a.b[0].c"),
            Some(vec![
                Step::Key("a".into()),
                Step::Key("b".into()),
                Step::Index(0),
                Step::Key("c".into())
            ])
        );
        assert_eq!(steps("$['a b']"), Some(vec![Step::Key("a b".into())]));
        assert_eq!(steps("$"), Some(vec![]));
        for bad in ["a.b", "$.", "$[x]", "$[0", "$..a"] {
            assert_eq!(steps(bad), None, "{bad}");
        }
    }
}
