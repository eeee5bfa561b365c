//! Decoding: the stream's events in, neutral stream parts out.

use super::super::decode::{decode_call, decode_part};
use super::super::hints::{BLOCKED, EMPTY, NO_INDEX};
use super::super::response::{decode_response, decode_usage, stop_kind};
use super::super::{F, keep_rest, rest};
use crate::model::{Part, PartMeta, StopKind, StopReason, Usage, Vendor};
use crate::stream::{
    Event, EventDecoder, Finish, PartId, Parts, Signature, StreamPart, StreamStart, Whole,
    call_start, incomplete, provider_error, read,
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
                let code = e.status.clone().or_else(|| e.code.map(|c| c.to_string()));
                let message = e.message.clone().unwrap_or_default();
                out.push(provider_error(code, message, &e));
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
                finishes.push(StreamPart::Finish(Finish {
                    choice: 0,
                    stop_reason: Some(StopReason {
                        kind: StopKind::ContentFilter,
                        raw: Some(reason.as_str().to_owned()),
                        format: Some(F),
                    }),
                    vendor,
                }));
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
        Ok(Some(StreamPart::Finish(Finish {
            choice,
            stop_reason: Some(StopReason {
                kind: stop_kind(&reason, cand.calls > 0),
                raw: Some(reason.as_str().to_owned()),
                format: Some(F),
            }),
            vendor,
        })))
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
            out.push(StreamPart::Whole(Whole {
                part,
                choice: self.choice,
                content: decode_part(p),
            }));
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
                    out.push(StreamPart::Signature(Signature {
                        part: open,
                        token,
                        encrypted: false,
                    }));
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
                out.push(StreamPart::Whole(Whole {
                    part,
                    choice: self.choice,
                    content: whole,
                }));
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
        let (start, args) = call_start(part, self.choice, c);
        out.push(start);
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
                    signature: Some(super::super::signed(token)),
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
pub(super) enum Step {
    Key(String),
    Index(usize),
}

/// A `partialArgs` JSON path (`$.a.b[0].c`, `$['a b']`) as steps; `None` when it is not
/// one.
pub(super) fn steps(path: &str) -> Option<Vec<Step>> {
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
