//! Encoding: neutral stream parts in, the stream's events out.

use super::super::F;
use super::super::response::{encode_stop, encode_usage};
use crate::model::{Part, PartMeta, Usage, Vendor};
use crate::stream::{
    EventEncoder, Events, Gate, PartId, Rule, Signature, StreamError, StreamErrorKind, StreamPart,
    StreamStart, ToolStart, UNFINISHED, Whole, at, call_parts, no_place, reasoning_id_lost,
    reasoning_token_lost, signature_lost, start_once, summary_as_text,
};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::bedrock as w;

/// What an open block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Reasoning,
    Tool,
    /// A block written whole (a generated image, a server tool's call or result).
    Whole,
}

/// An open block: its part, its `contentBlockIndex` once an event gave it one, its kind,
/// and (a call) whether an input fragment was written.
#[derive(Debug)]
struct OpenBlock {
    part: PartId,
    index: Option<u32>,
    kind: Block,
    input: bool,
}

/// The ConverseStream encoder: `messageStart` first; a text or reasoning block is its
/// deltas (it gets no `contentBlockStart`), a call `contentBlockStart` with its id and name
/// then its input fragments as they come; `contentBlockStop` at each part's end;
/// `messageStop` at the finish, then `metadata` with the usage (written as soon as it is
/// known: the finish of some sources comes before their usage) and the metrics.
///
/// A block gets its index when its first event is written, so the indexes have no gaps.
/// A signature or redacted reasoning goes out only when Bedrock made it. A source that
/// ends without its finish ends with an `internalServerException`, never with a quiet
/// end a client could take for a whole answer.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    /// Started, over (`metadata` or an exception written), and the parts left out
    /// (reasoning dropped by the options, parts of another choice): their deltas are
    /// dropped with them.
    gate: Gate,
    open: Vec<OpenBlock>,
    next_index: u32,
    /// Whether a call was written (the stop reason when the source gives none).
    calls: bool,
    usage: Option<Usage>,
    /// `additionalModelResponseFields`, for `messageStop`.
    response_fields: Option<Value>,
    /// The fields of `metadata` besides usage (`metrics`, `trace`, …).
    metadata: Map<String, Value>,
    /// `messageStop` was written.
    stopped: bool,
}

fn no_extra() -> wire_types::Extra {
    wire_types::Extra::new()
}

impl Encoder {
    fn block(&self, part: PartId) -> Option<&OpenBlock> {
        self.open.iter().find(|b| b.part == part)
    }

    /// The index of an open block, given now if it has none yet.
    fn index(&mut self, part: PartId) -> Option<u32> {
        let next = &mut self.next_index;
        let b = self.open.iter_mut().find(|b| b.part == part)?;
        Some(*b.index.get_or_insert_with(|| {
            let i = *next;
            *next += 1;
            i
        }))
    }

    fn delta(
        &mut self,
        part: PartId,
        delta: w::ContentBlockDelta,
        out: &mut Events,
    ) -> Result<(), Error> {
        let Some(index) = self.index(part) else {
            return Ok(());
        };
        out.push(
            Some("contentBlockDelta"),
            &w::ContentBlockDeltaEvent {
                content_block_index: index,
                delta,
                extra: no_extra(),
            },
        )
    }

    /// A call's start; this format's own fields of the call go back into it.
    fn open_tool(
        &mut self,
        t: ToolStart,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let part = t.part;
        // The vendor fields go into the start (another format's reported there).
        let rest = PartMeta {
            vendor: Vendor::default(),
            ..t.meta.clone()
        };
        Self::meta_losses(&rest, part, &[], ctx);
        let extra = ctx.extra(&t.meta.vendor, w::ToolUseStart::FIELDS, &at(part));
        self.calls = true;
        self.open.push(OpenBlock {
            part,
            index: None,
            kind: Block::Tool,
            input: false,
        });
        self.start_block(
            part,
            w::ContentBlockStart::ToolUse(w::ToolUseStart {
                tool_use_id: t.id,
                name: t.name,
                kind: None,
                extra,
            }),
            out,
        )
    }

    fn start_block(
        &mut self,
        part: PartId,
        start: w::ContentBlockStart,
        out: &mut Events,
    ) -> Result<(), Error> {
        let Some(index) = self.index(part) else {
            return Ok(());
        };
        out.push(
            Some("contentBlockStart"),
            &w::ContentBlockStartEvent {
                content_block_index: index,
                start,
                extra: no_extra(),
            },
        )
    }

    fn tool_input(&mut self, part: PartId, json: String, out: &mut Events) -> Result<(), Error> {
        if json.is_empty() {
            return Ok(());
        }
        if let Some(b) = self.open.iter_mut().find(|b| b.part == part) {
            b.input = true;
        }
        self.delta(
            part,
            w::ContentBlockDelta::ToolUse(w::ToolUseDelta {
                input: json,
                extra: no_extra(),
            }),
            out,
        )
    }

    fn stop_block(&mut self, part: PartId, out: &mut Events) -> Result<(), Error> {
        let Some(i) = self.open.iter().position(|b| b.part == part) else {
            return Ok(());
        };
        if self.open[i].kind == Block::Tool && !self.open[i].input {
            // A call without arguments: its input is `{}`, said so rather than left to
            // the client to make of no fragment at all.
            self.tool_input(part, "{}".to_owned(), out)?;
        }
        let b = self.open.remove(i);
        match b.index {
            Some(index) => out.push(
                Some("contentBlockStop"),
                &w::ContentBlockStopEvent {
                    content_block_index: index,
                    extra: no_extra(),
                },
            ),
            // A block that wrote nothing (empty text): nothing to stop.
            None => Ok(()),
        }
    }

    fn close_all(&mut self, out: &mut Events) -> Result<(), Error> {
        while let Some(part) = self.open.first().map(|b| b.part) {
            self.stop_block(part, out)?;
        }
        Ok(())
    }

    /// Reports what of a part's meta a Bedrock response stream cannot carry (`keep`: a
    /// field this encoder writes itself).
    fn meta_losses(meta: &PartMeta, part: PartId, keep: &[&str], ctx: &mut Ctx<'_>) {
        let mut vendor = meta.vendor.clone();
        if vendor.format == Some(F) {
            vendor.fields.retain(|k, _| !keep.contains(&k.as_str()));
        }
        ctx.report_unwritten_fields(&vendor, &at(part));
        if meta.cache.is_some() {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("{}/cache", at(part)),
                "a bedrock response stream has no cache points",
            );
        }
        signature_lost(meta.signature.as_ref(), part, ctx);
    }

    /// Citations kept by this format on a text part, written as citation deltas.
    fn citations(&mut self, part: PartId, meta: &PartMeta, out: &mut Events) -> Result<(), Error> {
        if meta.vendor.format != Some(F) {
            return Ok(());
        }
        let Some(Value::Array(list)) = meta.vendor.fields.get("citations") else {
            return Ok(());
        };
        for c in list {
            if let Ok(c) = wire_types::from_value::<w::CitationDelta>(c) {
                self.delta(part, w::ContentBlockDelta::Citation(c), out)?;
            }
        }
        Ok(())
    }

    fn reasoning_text(
        &mut self,
        part: PartId,
        text: String,
        out: &mut Events,
    ) -> Result<(), Error> {
        self.delta(
            part,
            w::ContentBlockDelta::ReasoningContent(w::ReasoningDelta::Text(text)),
            out,
        )
    }

    fn signature(
        &mut self,
        s: Signature,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        if s.token.format == F {
            let delta = if s.encrypted {
                w::ReasoningDelta::RedactedContent(s.token.value)
            } else {
                w::ReasoningDelta::Signature(s.token.value)
            };
            self.delta(s.part, w::ContentBlockDelta::ReasoningContent(delta), out)
        } else {
            reasoning_token_lost(&s.token, s.encrypted, false, s.part, ctx);
            Ok(())
        }
    }

    fn whole(&mut self, whole: Whole, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let part = whole.part;
        match whole.content {
            Part::ToolCall(c) => self.parts(call_parts(part, whole.choice, c), out, ctx),
            Part::Text(t) => {
                Self::meta_losses(&t.meta, part, &["citations"], ctx);
                self.open.push(OpenBlock {
                    part,
                    index: None,
                    kind: Block::Text,
                    input: false,
                });
                if !t.text.is_empty() {
                    self.delta(part, w::ContentBlockDelta::Text(t.text), out)?;
                }
                self.citations(part, &t.meta, out)?;
                self.stop_block(part, out)
            }
            Part::Reasoning(r) => {
                Self::meta_losses(&r.meta, part, &[], ctx);
                self.open.push(OpenBlock {
                    part,
                    index: None,
                    kind: Block::Reasoning,
                    input: false,
                });
                if let Some(text) = r.text {
                    self.reasoning_text(part, text, out)?;
                }
                for (token, encrypted) in [(r.signature, false), (r.encrypted, true)] {
                    if let Some(token) = token {
                        let s = Signature {
                            part,
                            token,
                            encrypted,
                        };
                        self.signature(s, out, ctx)?;
                    }
                }
                self.stop_block(part, out)
            }
            Part::Image(m) => {
                // A generated image: its format at the start, its bytes in one delta.
                let Some(image) = super::super::encode::encode_image(m, &at(part), ctx) else {
                    return Ok(());
                };
                ctx.report_unwritten_fields(&Vendor::from_extra(F, &image.extra, &[]), &at(part));
                self.open.push(OpenBlock {
                    part,
                    index: None,
                    kind: Block::Whole,
                    input: false,
                });
                self.start_block(
                    part,
                    w::ContentBlockStart::Image(w::ImageStart {
                        format: image.format,
                        extra: no_extra(),
                    }),
                    out,
                )?;
                self.delta(
                    part,
                    w::ContentBlockDelta::Image(w::ImageDelta {
                        source: Some(image.source),
                        error: image.error,
                        extra: no_extra(),
                    }),
                    out,
                )?;
                self.stop_block(part, out)
            }
            Part::Opaque(o) if o.format == F => self.opaque(part, o.value, out, ctx),
            other => {
                no_place(part, &other, "a bedrock response stream", ctx);
                Ok(())
            }
        }
    }

    /// A block of this format kept whole, written as the events it streams as: a server
    /// tool's call (its input as one fragment) or result, a generated image.
    fn opaque(
        &mut self,
        part: PartId,
        value: Value,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let block = match wire_types::from_value::<w::ContentBlock>(&value) {
            Ok(b) => b,
            Err(e) => {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at(part),
                    format!("this bedrock block, kept whole, is no longer a valid block: {e}"),
                );
                return Ok(());
            }
        };
        let (start, deltas) = match block {
            w::ContentBlock::ToolUse(u) => {
                let input = match &u.input {
                    wire_types::MaybeRaw::Parsed(v) => v.to_string(),
                    raw => wire_types::to_value(raw).to_string(),
                };
                (
                    w::ContentBlockStart::ToolUse(w::ToolUseStart {
                        tool_use_id: u.tool_use_id,
                        name: u.name,
                        kind: u.kind,
                        extra: u.extra,
                    }),
                    vec![w::ContentBlockDelta::ToolUse(w::ToolUseDelta {
                        input,
                        extra: no_extra(),
                    })],
                )
            }
            w::ContentBlock::ToolResult(r) => {
                let content: Option<Vec<w::ToolResultDelta>> = r
                    .content
                    .iter()
                    .map(|c| wire_types::from_value(&wire_types::to_value(c)).ok())
                    .collect();
                let Some(content) = content else {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at(part),
                        "a bedrock stream carries text and json tool-result content only",
                    );
                    return Ok(());
                };
                (
                    w::ContentBlockStart::ToolResult(w::ToolResultStart {
                        tool_use_id: r.tool_use_id,
                        kind: r.kind.map(|k| k.as_str().to_owned()),
                        status: r.status,
                        extra: no_extra(),
                    }),
                    vec![w::ContentBlockDelta::ToolResult(content)],
                )
            }
            other => {
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at(part),
                    format!(
                        "a bedrock `{}` block has no place in a response stream",
                        other.key()
                    ),
                );
                return Ok(());
            }
        };
        self.open.push(OpenBlock {
            part,
            index: None,
            kind: Block::Whole,
            input: false,
        });
        self.start_block(part, start, out)?;
        for d in deltas {
            self.delta(part, d, out)?;
        }
        self.stop_block(part, out)
    }

    /// Response-level data: `additionalModelResponseFields` for `messageStop` (a loss
    /// after it), everything else for `metadata`.
    fn response_meta(&mut self, v: Vendor, ctx: &mut Ctx<'_>) {
        if v.format != Some(F) {
            ctx.report_foreign_fields(&v, "");
            return;
        }
        for (key, value) in v.fields.iter() {
            match key.as_str() {
                "additionalModelResponseFields" if !self.stopped => {
                    self.response_fields = Some(value.clone());
                }
                "additionalModelResponseFields" => {
                    ctx.dropped(
                        LossCode::FieldUnsupported,
                        "/additionalModelResponseFields",
                        "bedrock `additionalModelResponseFields` after `messageStop` has no place",
                    );
                }
                // `metadata` carries the rest: `metrics`, `trace`, … and, as they came,
                // the fields this crate does not know.
                _ => {
                    self.metadata.insert(key.clone(), value.clone());
                }
            }
        }
    }

    /// `metadata`: the usage (zeros, with a loss, when the source gave none) and the
    /// metrics (`latencyMs: 0` when the source has none: the event requires them).
    fn write_metadata(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.gate.finished = true;
        let usage = match self.usage.take() {
            Some(u) => encode_usage(u, ctx),
            None => {
                ctx.changed(
                    LossCode::FieldDefaulted,
                    "/usage",
                    "a bedrock stream's metadata carries usage and the source has none: zeros written",
                );
                w::Usage::default()
            }
        };
        let mut fields = std::mem::take(&mut self.metadata);
        let metrics: Option<w::Metrics> = fields.take_as("metrics");
        let event = w::MetadataEvent {
            usage: Some(usage),
            metrics: Some(metrics.unwrap_or_default()),
            trace: fields.take_as("trace"),
            performance_config: fields.take_as("performanceConfig"),
            service_tier: fields.take_as("serviceTier"),
            // What did not read as its type is a loss, not a body that cannot be read.
            extra: wire_types::Extra::from(ctx.unknown_only(fields, w::MetadataEvent::FIELDS, "")),
        };
        out.push(Some("metadata"), &event)
    }

    /// An exception in place of the next event: open blocks are not stopped (Bedrock
    /// sends no `contentBlockStop` before one).
    fn exception(
        &mut self,
        e: StreamError,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        self.gate.finished = true;
        let name = match e.code.as_deref() {
            Some(
                c @ ("internalServerException"
                | "modelStreamErrorException"
                | "validationException"
                | "throttlingException"
                | "serviceUnavailableException"),
            ) => EXCEPTIONS
                .iter()
                .copied()
                .find(|n| *n == c)
                .unwrap_or("internalServerException"),
            Some("overloaded_error") => "serviceUnavailableException",
            Some("rate_limit_error" | "rate_limit_exceeded") => "throttlingException",
            Some("invalid_request_error") => "validationException",
            _ => "internalServerException",
        };
        if let Some(code) = e.code.as_deref().filter(|c| *c != name) {
            ctx.changed(
                LossCode::FieldUnsupported,
                "/error/code",
                format!("error `{code}` is sent as the bedrock `{name}`"),
            );
        }
        // The provider's own error object, when it is this format's exception.
        let event = match (&e.value, e.code.as_deref() == Some(name)) {
            (Some(v), true) => wire_types::from_value::<w::ExceptionEvent>(v).ok(),
            _ => None,
        }
        .unwrap_or_else(|| w::ExceptionEvent {
            message: Some(e.message),
            ..Default::default()
        });
        out.push(Some(name), &event)
    }
}

/// The exceptions a ConverseStream stream carries, by event name.
const EXCEPTIONS: &[&str] = &[
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
];

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        // After `messageStop` nothing is written but `metadata`: nothing is left out.
        if self.stopped {
            Rule::every_choice(false)
        } else {
            Rule::one("message", true)
        }
    }

    fn start(&mut self, s: StreamStart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        for (field, known) in [
            ("/id", s.id.is_some()),
            ("/model", s.model.is_some()),
            ("/created", s.created.is_some()),
        ] {
            if known {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    field,
                    format!("a bedrock stream carries no {}", &field[1..]),
                );
            }
        }
        let extra = ctx.extra(&s.vendor, w::MessageStartEvent::FIELDS, "");
        out.push(
            Some("messageStart"),
            &w::MessageStartEvent {
                role: w::Role::Assistant,
                extra,
            },
        )
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.stopped {
            // After `messageStop`, only what `metadata` carries.
            match part {
                StreamPart::Usage(u) => {
                    self.usage = Some(u);
                    return self.write_metadata(out, ctx);
                }
                StreamPart::ResponseMeta(v) => self.response_meta(v, ctx),
                StreamPart::Error(e) => self.exception(e, out, ctx)?,
                _ => {}
            }
            return Ok(());
        }
        match part {
            StreamPart::Start(s) => ctx.report_unwritten_fields(&s.vendor, ""),
            StreamPart::TextStart { part, meta, .. } => {
                Self::meta_losses(&meta, part, &["citations"], ctx);
                self.open.push(OpenBlock {
                    part,
                    index: None,
                    kind: Block::Text,
                    input: false,
                });
                self.citations(part, &meta, out)?;
            }
            StreamPart::TextDelta { part, text } => {
                if text.is_empty() {
                    return Ok(());
                }
                match self.block(part).map(|b| b.kind) {
                    Some(Block::Reasoning) => self.reasoning_text(part, text, out)?,
                    Some(Block::Text) => self.delta(part, w::ContentBlockDelta::Text(text), out)?,
                    _ => {}
                }
            }
            StreamPart::ReasoningStart { part, id, meta, .. } => {
                reasoning_id_lost(id.as_deref(), part, F, ctx);
                Self::meta_losses(&meta, part, &[], ctx);
                self.open.push(OpenBlock {
                    part,
                    index: None,
                    kind: Block::Reasoning,
                    input: false,
                });
            }
            StreamPart::ReasoningDelta { part, text } => {
                if self.block(part).is_some() {
                    self.reasoning_text(part, text, out)?;
                }
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if self.block(part).is_some() {
                    summary_as_text(
                        part,
                        LossCode::PartAsText,
                        "bedrock has no reasoning summaries: the summary is sent as reasoning text",
                        ctx,
                    );
                    self.reasoning_text(part, text, out)?;
                }
            }
            StreamPart::Signature(s) => {
                if self.block(s.part).map(|b| b.kind) == Some(Block::Reasoning) {
                    self.signature(s, out, ctx)?;
                } else {
                    signature_lost(Some(&s.token), s.part, ctx);
                }
            }
            StreamPart::ToolStart(t) => self.open_tool(t, out, ctx)?,
            StreamPart::ToolDelta { part, json } => {
                if self.block(part).map(|b| b.kind) == Some(Block::Tool) {
                    self.tool_input(part, json, out)?;
                }
            }
            StreamPart::Whole(whole) => self.whole(whole, out, ctx)?,
            StreamPart::Meta { part, meta } => {
                let text = self.block(part).map(|b| b.kind) == Some(Block::Text);
                let keep: &[&str] = if text { &["citations"] } else { &[] };
                Self::meta_losses(&meta, part, keep, ctx);
                if text {
                    self.citations(part, &meta, out)?;
                }
            }
            StreamPart::End { part } => self.stop_block(part, out)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish(f) => {
                self.close_all(out)?;
                let stop = match f.stop_reason {
                    Some(r) => encode_stop(&r, "/finish/stop_reason", ctx),
                    None if self.calls => w::StopReason::ToolUse,
                    None => w::StopReason::EndTurn,
                };
                let extra = ctx.extra(&f.vendor, w::MessageStopEvent::FIELDS, "/finish");
                out.push(
                    Some("messageStop"),
                    &w::MessageStopEvent {
                        stop_reason: stop,
                        additional_model_response_fields: self.response_fields.take(),
                        extra,
                    },
                )?;
                self.stopped = true;
                if self.usage.is_some() {
                    self.write_metadata(out, ctx)?;
                }
            }
            StreamPart::ResponseMeta(v) => self.response_meta(v, ctx),
            StreamPart::Error(e) => self.exception(e, out, ctx)?,
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.stopped {
            // The source finished and gave no usage after all.
            return self.write_metadata(out, ctx);
        }
        // The source ended without a finish (its decoder reports why): not a normal end
        // here either.
        start_once(self, StreamStart::default(), out, ctx)?;
        self.exception(
            StreamError {
                kind: StreamErrorKind::Incomplete,
                code: None,
                message: UNFINISHED.to_owned(),
                value: None,
            },
            out,
            ctx,
        )
    }
}
