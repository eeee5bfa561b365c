//! Encoding: neutral stream parts in, the stream's events out.

use super::super::F;
use super::super::encode::{Calls, encode_part};
use super::super::hints::{BLOCKED, EMPTY, INDEX, NO_INDEX};
use super::super::rebuild_from;
use super::super::response::{encode_stop, encode_usage};
use crate::model::{Part, PartMeta, Reasoning, Role, Text, Usage, Vendor};
use crate::stream::{
    EventEncoder, Events, Finish, Gate, HeldCall, PartId, Rule, Signature, StreamErrorKind,
    StreamPart, StreamStart, Whole, at, merge_meta, meta_lost,
};
use crate::util::rfc3339_of_unix;
use crate::{Ctx, Error, LossCode};
use serde_json::Value;
use wire_types::gemini as w;

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
    Call { choice: u32, call: HeldCall },
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
    /// Started, over (the last chunk or an error written).
    gate: Gate,
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
            Open::Call { choice, call } => {
                self.write(choice, part, Part::ToolCall(call.done()), out, ctx)
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
        s: Signature,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let (part, token) = (s.part, s.token);
        match self.open.iter_mut().find(|(p, _)| *p == part) {
            Some((_, Open::Reasoning { .. })) => {
                let mut r = self.reasoning(None, Vec::new(), None);
                if s.encrypted {
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
                call.call.meta.signature = Some(token);
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

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    /// Gemini streams every candidate, and applies the options' reasoning rule to each
    /// piece as the whole-body encoder does: nothing is left out here.
    fn rule(&self) -> Rule {
        Rule::every_choice(false)
    }

    /// What the start gives the chunks (Gemini has no start event).
    fn start(
        &mut self,
        s: StreamStart,
        _out: &mut Events,
        _ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        self.source = s.format;
        self.id = s.id;
        self.model = s.model;
        self.created = s.created;
        self.vendor.merge(s.vendor);
        Ok(())
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match part {
            // A later start, read as the first was.
            StreamPart::Start(s) => self.start(s, out, ctx)?,
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
            StreamPart::Signature(s) => self.signature(s, out, ctx)?,
            StreamPart::ToolStart(t) => {
                let (part, choice) = (t.part, t.choice);
                let call = HeldCall::new(t);
                self.open.push((part, Open::Call { choice, call }));
            }
            StreamPart::ToolDelta { part, json } => {
                if let Some((_, Open::Call { call, .. })) =
                    self.open.iter_mut().find(|(p, _)| *p == part)
                {
                    call.push(&json);
                }
            }
            StreamPart::Whole(Whole {
                part,
                choice,
                content,
            }) => self.write(choice, part, content, out, ctx)?,
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
                Some((_, Open::Call { call, .. })) => call.merge(meta),
                None => meta_lost(&meta, part, ctx),
            },
            StreamPart::End { part } => self.end_part(part, out, ctx)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish(Finish {
                choice,
                stop_reason,
                vendor,
            }) => {
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
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
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
