//! The Messages stream: `message_start`, then per block `content_block_start`, its
//! deltas and `content_block_stop`, then `message_delta` (stop reason, cumulative usage)
//! and `message_stop`; `ping` and `error` in between.
//!
//! Each block's start is decoded by the same code as a whole response's block, so the
//! accumulated response is the one the non-streamed body gives. Server-tool blocks whose
//! input streams (`server_tool_use`) are sent whole at their stop, their input filled in;
//! result blocks arrive whole at their start.

use super::Place;
use super::decode::decode_block;
use super::response::{decode_response, decode_usage, stop_reason_of};
use super::{F, w};
use crate::model::{Part, PartMeta, Signed, StopReason, Vendor};
use crate::stream::{
    Event, EventDecoder, PartId, Parts, StreamError, StreamErrorKind, StreamPart, StreamStart,
    incomplete, read,
};
use crate::{Ctx, Error, LossCode};
use serde_json::Value;

/// What an open block is, by its `index`.
#[derive(Debug)]
enum Open {
    Text {
        part: PartId,
        /// Citations so far (sent at the stop, as the block's `citations` field).
        citations: Vec<Value>,
    },
    Thinking(PartId),
    Tool {
        part: PartId,
        /// The `input` of `content_block_start` as text, used when no delta comes.
        start_input: String,
        deltas: bool,
    },
    /// A block kept whole that deltas fill in: a server tool's `input`
    /// (`server_tool_use`), a compaction's `content`.
    Whole {
        part: PartId,
        value: Value,
        input: String,
    },
    /// A block sent whole at its start: nothing more to do.
    Done,
}

/// The Messages stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    open: Vec<(u32, Open)>,
    /// Usage as the wire said it so far: `message_start`'s, with `message_delta`'s counts
    /// laid over it.
    usage: Option<Value>,
    stop_reason: Option<StopReason>,
    stopped: bool,
    /// Events came after `message_stop` (reported once).
    after_stop: bool,
    unknown: Vec<String>,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = read::<w::StreamEvent>(event.data)?;
        if self.stopped {
            // The message is over: a recording of several turns, or a server that goes
            // on. What follows is not part of this response.
            if !self.after_stop && !matches!(event, w::StreamEvent::Ping(_)) {
                self.after_stop = true;
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    "events after message_stop are not part of the message: left out",
                );
            }
            return Ok(());
        }
        match event {
            w::StreamEvent::MessageStart(s) => {
                if out.started() {
                    // A repeated `message_start` (some servers send two) starts nothing.
                    return Ok(());
                }
                let usage = s.message.usage.as_ref().map(wire_types::to_value);
                let r = decode_response(s.message, ctx)?;
                out.start(StreamStart {
                    format: Some(F),
                    id: r.id,
                    model: r.model,
                    created: r.created,
                    vendor: r.vendor,
                });
                if let Some(u) = r.usage {
                    out.push(StreamPart::Usage(u));
                }
                self.usage = usage;
            }
            w::StreamEvent::ContentBlockStart(s) => self.start(s.index, s.content_block, out, ctx),
            w::StreamEvent::ContentBlockDelta(d) => self.delta(d.index, d.delta, out, ctx),
            w::StreamEvent::ContentBlockStop(s) => self.stop(s.index, out),
            w::StreamEvent::MessageDelta(d) => {
                if let Some(r) = &d.delta.stop_reason {
                    self.stop_reason = Some(stop_reason_of(r));
                }
                let mut vendor = Vendor::default();
                vendor.keep(F, "stop_sequence", &d.delta.stop_sequence);
                vendor.keep(F, "stop_details", &d.delta.stop_details);
                vendor.keep(F, "container", &d.delta.container);
                vendor.keep(F, "context_management", &d.context_management);
                // What else the delta changes on the message stays with it.
                for (k, v) in d.delta.extra.fields() {
                    vendor.set_field(F, k, v.clone());
                }
                if !vendor.is_empty() {
                    out.push(StreamPart::ResponseMeta(vendor));
                }
                if let Some(u) = d.usage {
                    let later = wire_types::to_value(&u);
                    let merged = match (self.usage.take(), later) {
                        (Some(Value::Object(mut so_far)), Value::Object(l)) => {
                            so_far.extend(l);
                            Value::Object(so_far)
                        }
                        (_, l) => l,
                    };
                    let wire: w::Usage = read(&merged.to_string())?;
                    out.push(StreamPart::Usage(decode_usage(wire)));
                    self.usage = Some(merged);
                }
            }
            w::StreamEvent::MessageStop(_) => {
                self.close_all(out);
                self.stopped = true;
                out.push(StreamPart::Finish {
                    choice: 0,
                    stop_reason: self.stop_reason.take(),
                    vendor: Vendor::default(),
                });
            }
            w::StreamEvent::Ping(_) => {}
            w::StreamEvent::Error(e) => out.push(StreamPart::Error(StreamError {
                kind: StreamErrorKind::Provider,
                code: e.error.kind.clone(),
                message: e.error.message.clone().unwrap_or_default(),
                value: Some(wire_types::to_value(&e.error)),
            })),
            other => {
                // An event this decoder does not know (new, or typed later).
                let v = wire_types::to_value(&other);
                let kind = v
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_owned();
                if !self.unknown.contains(&kind) {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        "",
                        format!("an anthropic stream event `{kind}` has no neutral part"),
                    );
                    self.unknown.push(kind);
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.stopped {
            self.close_all(out);
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    fn start(&mut self, index: u32, block: w::ContentBlock, out: &mut Parts, ctx: &mut Ctx<'_>) {
        // Kept whole, but filled in by deltas: a server tool's input, a compaction's text.
        let streams_input = matches!(&block, w::ContentBlock::Compaction(_))
            || matches!(&block, w::ContentBlock::Other(v)
                if v.get("input").is_some_and(Value::is_object));
        let part = decode_block(block, Place::Response, ctx);
        let id = out.id();
        let open = match part {
            Part::Text(t) => {
                let mut meta = t.meta;
                let citations = match meta.vendor.fields.shift_remove("citations") {
                    Some(Value::Array(c)) => c,
                    _ => Vec::new(),
                };
                out.push(StreamPart::TextStart {
                    part: id,
                    choice: 0,
                    meta,
                });
                if !t.text.is_empty() {
                    out.push(StreamPart::TextDelta {
                        part: id,
                        text: t.text,
                    });
                }
                Open::Text {
                    part: id,
                    citations,
                }
            }
            Part::Reasoning(r) => {
                out.push(StreamPart::ReasoningStart {
                    part: id,
                    choice: 0,
                    id: r.id,
                    meta: r.meta,
                });
                if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                    out.push(StreamPart::ReasoningDelta { part: id, text });
                }
                for (token, encrypted) in [(r.signature, false), (r.encrypted, true)] {
                    if let Some(token) = token.filter(|t| !t.value.is_empty()) {
                        out.push(StreamPart::Signature {
                            part: id,
                            token,
                            encrypted,
                        });
                    }
                }
                Open::Thinking(id)
            }
            Part::ToolCall(c) => {
                let start_input = c.arguments.text();
                out.push(StreamPart::ToolStart {
                    part: id,
                    choice: 0,
                    id: c.id,
                    synthetic_id: c.synthetic_id,
                    name: c.name,
                    meta: c.meta,
                });
                Open::Tool {
                    part: id,
                    start_input,
                    deltas: false,
                }
            }
            Part::Opaque(o) if streams_input => Open::Whole {
                part: id,
                value: o.value,
                input: String::new(),
            },
            whole => {
                out.push(StreamPart::Whole {
                    part: id,
                    choice: 0,
                    content: whole,
                });
                Open::Done
            }
        };
        self.open.retain(|(i, _)| *i != index);
        self.open.push((index, open));
    }

    fn delta(&mut self, index: u32, delta: w::BlockDelta, out: &mut Parts, ctx: &mut Ctx<'_>) {
        let Some((_, open)) = self.open.iter_mut().find(|(i, _)| *i == index) else {
            // A delta for a block that never started: nothing to add it to.
            ctx.dropped(
                LossCode::PartUnsupported,
                "",
                format!("an anthropic delta for block {index}, which never started"),
            );
            return;
        };
        match (open, delta) {
            (Open::Text { part, .. }, w::BlockDelta::Text(t)) => out.push(StreamPart::TextDelta {
                part: *part,
                text: t.text,
            }),
            (Open::Text { citations, .. }, w::BlockDelta::Citations(c)) => {
                citations.push(c.citation);
            }
            (Open::Thinking(part), w::BlockDelta::Thinking(t)) => {
                out.push(StreamPart::ReasoningDelta {
                    part: *part,
                    text: t.thinking,
                });
            }
            (Open::Thinking(part), w::BlockDelta::Signature(s)) => {
                out.push(StreamPart::Signature {
                    part: *part,
                    token: Signed {
                        value: s.signature,
                        format: F,
                    },
                    encrypted: false,
                });
            }
            (Open::Tool { part, deltas, .. }, w::BlockDelta::InputJson(j)) => {
                // The first delta is often empty: nothing to send.
                if !j.partial_json.is_empty() {
                    *deltas = true;
                    out.push(StreamPart::ToolDelta {
                        part: *part,
                        json: j.partial_json,
                    });
                }
            }
            (Open::Whole { input, .. }, w::BlockDelta::InputJson(j)) => {
                input.push_str(&j.partial_json);
            }
            (Open::Whole { value, .. }, w::BlockDelta::Compaction(c)) => {
                if let Some(m) = value.as_object_mut() {
                    // Each delta carries the whole summary: it replaces the content, as the
                    // SDK's accumulator does (an explicit `null`: compaction failed).
                    for (key, value) in [
                        ("content", c.content),
                        ("encrypted_content", c.encrypted_content),
                    ] {
                        match value {
                            Some(v) => {
                                m.insert(key.to_owned(), Value::String(v));
                            }
                            None if c.extra.was_null(key) => {
                                m.insert(key.to_owned(), Value::Null);
                            }
                            None => {}
                        }
                    }
                }
            }
            (_, other) => {
                let kind = match &other {
                    w::BlockDelta::Other(v) => v.get("type").and_then(Value::as_str).unwrap_or("?"),
                    _ => "a delta of another kind",
                }
                .to_owned();
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    format!("anthropic delta `{kind}` for block {index} has no neutral place"),
                );
            }
        }
    }

    fn stop(&mut self, index: u32, out: &mut Parts) {
        if let Some(i) = self.open.iter().position(|(i, _)| *i == index) {
            let (_, open) = self.open.remove(i);
            close(open, out);
        }
    }

    fn close_all(&mut self, out: &mut Parts) {
        for (_, open) in std::mem::take(&mut self.open) {
            close(open, out);
        }
    }
}

/// The parts that end an open block.
fn close(open: Open, out: &mut Parts) {
    match open {
        Open::Text { part, citations } => {
            if !citations.is_empty() {
                let mut meta = PartMeta::default();
                meta.vendor
                    .set_field(F, "citations", Value::Array(citations));
                out.push(StreamPart::Meta { part, meta });
            }
            out.push(StreamPart::End { part });
        }
        Open::Thinking(part) => out.push(StreamPart::End { part }),
        Open::Tool {
            part,
            start_input,
            deltas,
        } => {
            if !deltas {
                // No delta: the start's input is the input (`{}` for a call without
                // arguments).
                let json = if start_input.trim().is_empty() {
                    "{}".to_owned()
                } else {
                    start_input
                };
                out.push(StreamPart::ToolDelta { part, json });
            }
            out.push(StreamPart::End { part });
        }
        Open::Whole {
            part,
            mut value,
            input,
        } => {
            if !input.trim().is_empty() {
                if let (Ok(v), Some(m)) =
                    (serde_json::from_str::<Value>(&input), value.as_object_mut())
                {
                    m.insert("input".to_owned(), v);
                }
            }
            out.push(StreamPart::Whole {
                part,
                choice: 0,
                content: Part::Opaque(crate::model::Opaque {
                    format: F,
                    value,
                    meta: PartMeta::default(),
                }),
            });
        }
        Open::Done => {}
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

use super::response::{encode_stop, encode_usage};
use crate::ReasoningMode;
use crate::model::{Opaque, Usage};
use crate::stream::{EventEncoder, Events};

/// What an open block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    Tool,
}

/// The Messages stream encoder: `message_start` first, each block opened by
/// `content_block_start`, its deltas of the right type, `content_block_stop`, then
/// `message_delta` (stop reason, the usage the source gave) and `message_stop`.
///
/// `message_start` carries the usage known when the stream starts (zeros, cache counts
/// included, when the source reports usage at its end, as OpenAI does); the real counts
/// follow in `message_delta`. A signature goes out only when Anthropic made it.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    started: bool,
    /// Open blocks: part → (Anthropic block index, kind).
    open: Vec<(PartId, u32, Block)>,
    next_index: u32,
    /// Parts dropped (reasoning dropped by the options, parts of another choice): their
    /// deltas are dropped with them.
    dropped: Vec<PartId>,
    /// Reasoning parts begun whose thinking block is not written yet: it opens at the
    /// first text or signature, so reasoning that brings neither (an OpenAI reasoning
    /// item without a summary) writes no empty block.
    pending: Vec<PartId>,
    usage: Option<Usage>,
    finished: bool,
}

fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
}

impl Encoder {
    fn start_message(&mut self, s: StreamStart, out: &mut Events) -> Result<(), Error> {
        self.started = true;
        let message = w::Response {
            id: Some(s.id.unwrap_or_else(|| "msg_stream".to_owned())),
            kind: Some("message".to_owned()),
            role: Some(w::Role::Assistant),
            model: Some(s.model.unwrap_or_default()),
            content: Vec::new(),
            stop_reason: None,
            stop_sequence: None,
            stop_details: None,
            usage: Some(w::Usage {
                input_tokens: Some(0),
                output_tokens: Some(0),
                cache_creation_input_tokens: Some(0),
                cache_read_input_tokens: Some(0),
                ..Default::default()
            }),
            container: None,
            extra: Default::default(),
        };
        let mut message = message;
        message.extra.mark_null("stop_reason");
        message.extra.mark_null("stop_sequence");
        out.push(
            Some("message_start"),
            &w::StreamEvent::MessageStart(w::MessageStartEvent {
                message,
                extra: Default::default(),
            }),
        )
    }

    fn open_block(
        &mut self,
        part: PartId,
        kind: Block,
        block: w::ContentBlock,
        out: &mut Events,
    ) -> Result<(), Error> {
        let index = self.next_index;
        self.next_index += 1;
        self.open.push((part, index, kind));
        out.push(
            Some("content_block_start"),
            &w::StreamEvent::ContentBlockStart(w::ContentBlockStartEvent {
                index,
                content_block: block,
                extra: Default::default(),
            }),
        )
    }

    fn delta(&self, part: PartId, delta: w::BlockDelta, out: &mut Events) -> Result<(), Error> {
        let Some((_, index, _)) = self.open.iter().find(|(p, _, _)| *p == part) else {
            return Ok(());
        };
        out.push(
            Some("content_block_delta"),
            &w::StreamEvent::ContentBlockDelta(w::ContentBlockDeltaEvent {
                index: *index,
                delta,
                extra: Default::default(),
            }),
        )
    }

    /// Opens the thinking block of a pending reasoning part (see `pending`).
    fn open_pending(&mut self, part: PartId, out: &mut Events) -> Result<(), Error> {
        let Some(i) = self.pending.iter().position(|p| *p == part) else {
            return Ok(());
        };
        self.pending.remove(i);
        self.open_block(
            part,
            Block::Thinking,
            w::ContentBlock::Thinking(w::ThinkingBlock {
                thinking: String::new(),
                signature: Some(String::new()),
                extra: Default::default(),
            }),
            out,
        )
    }

    fn stop_block(&mut self, part: PartId, out: &mut Events) -> Result<(), Error> {
        if let Some(i) = self.pending.iter().position(|p| *p == part) {
            // Reasoning that brought nothing to show: no block.
            self.pending.remove(i);
            return Ok(());
        }
        let Some(i) = self.open.iter().position(|(p, _, _)| *p == part) else {
            return Ok(());
        };
        let (_, index, _) = self.open.remove(i);
        out.push(
            Some("content_block_stop"),
            &w::StreamEvent::ContentBlockStop(w::ContentBlockStopEvent {
                index,
                extra: Default::default(),
            }),
        )
    }

    fn close_all(&mut self, out: &mut Events) -> Result<(), Error> {
        self.pending.clear();
        while let Some((part, _, _)) = self.open.first().copied() {
            self.stop_block(part, out)?;
        }
        Ok(())
    }

    /// Reports what of a part's meta Anthropic cannot carry in a response stream.
    fn meta_losses(meta: &PartMeta, part: PartId, ctx: &mut Ctx<'_>) {
        ctx.report_unwritten_fields(&meta.vendor, &at(part));
        ctx.report_unplaced_token(
            meta.signature.as_ref(),
            format_args!("{}/signature", at(part)),
            "a signature",
        );
    }

    fn kind(&self, part: PartId) -> Option<Block> {
        self.open
            .iter()
            .find(|(p, _, _)| *p == part)
            .map(|(_, _, k)| *k)
    }

    fn choice_ok(&mut self, part: PartId, choice: u32, ctx: &mut Ctx<'_>) -> bool {
        if choice == 0 {
            return true;
        }
        self.dropped.push(part);
        ctx.dropped(
            LossCode::ChoicesDropped,
            at(part),
            format!("anthropic streams one message: a part of choice {choice} is not sent"),
        );
        false
    }

    fn whole(
        &mut self,
        part: PartId,
        content: Part,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        match content {
            Part::Opaque(Opaque {
                format: F, value, ..
            }) => match serde_json::from_value(value) {
                Ok(block) => {
                    self.open_block(part, Block::Text, block, out)?;
                    self.stop_block(part, out)
                }
                Err(e) => {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        at(part),
                        format!(
                            "this anthropic block, kept whole, is no longer a valid block: {e}"
                        ),
                    );
                    Ok(())
                }
            },
            Part::Text(t) => {
                Self::meta_losses(&t.meta, part, ctx);
                self.open_block(part, Block::Text, text_block(), out)?;
                self.delta(
                    part,
                    w::BlockDelta::Text(w::TextDelta {
                        text: t.text,
                        extra: Default::default(),
                    }),
                    out,
                )?;
                self.stop_block(part, out)
            }
            Part::ToolCall(c) => {
                Self::meta_losses(&c.meta, part, ctx);
                self.open_block(part, Block::Tool, tool_block(c.id, c.name), out)?;
                let json = c.arguments.text();
                self.delta(part, input_delta(json), out)?;
                self.stop_block(part, out)
            }
            other => {
                let what = match &other {
                    Part::Opaque(o) => format!("a {} part", o.format),
                    p => format!("a {} part", p.kind()),
                };
                ctx.dropped(
                    LossCode::PartUnsupported,
                    at(part),
                    format!("{what} has no place in an anthropic response stream"),
                );
                Ok(())
            }
        }
    }
}

fn text_block() -> w::ContentBlock {
    w::ContentBlock::Text(w::TextBlock {
        text: String::new(),
        ..Default::default()
    })
}

fn tool_block(id: String, name: String) -> w::ContentBlock {
    w::ContentBlock::ToolUse(w::ToolUseBlock {
        id,
        name,
        input: wire_types::MaybeRaw::Parsed(serde_json::Map::new()),
        caller: None,
        cache_control: None,
        extra: Default::default(),
    })
}

fn input_delta(json: String) -> w::BlockDelta {
    w::BlockDelta::InputJson(w::InputJsonDelta {
        partial_json: json,
        extra: Default::default(),
    })
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
            ctx.report_unwritten_fields(&start.vendor, "");
            self.start_message(start, out)?;
            if matches!(part, StreamPart::Start(_)) {
                return Ok(());
            }
        }
        match part {
            StreamPart::Start(_) => {}
            StreamPart::TextStart { part, choice, meta } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                Self::meta_losses(&meta, part, ctx);
                self.open_block(part, Block::Text, text_block(), out)?;
            }
            StreamPart::TextDelta { part, text } => match self.kind(part) {
                Some(Block::Thinking) => self.delta(
                    part,
                    w::BlockDelta::Thinking(w::ThinkingDelta {
                        thinking: text,
                        extra: Default::default(),
                    }),
                    out,
                )?,
                _ => self.delta(
                    part,
                    w::BlockDelta::Text(w::TextDelta {
                        text,
                        extra: Default::default(),
                    }),
                    out,
                )?,
            },
            StreamPart::ReasoningStart {
                part,
                choice,
                id,
                meta,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                if ctx.options.reasoning == ReasoningMode::Drop {
                    self.dropped.push(part);
                    ctx.dropped(
                        LossCode::ReasoningDropped,
                        at(part),
                        "reasoning dropped (option reasoning = drop)",
                    );
                    return Ok(());
                }
                if let Some(id) = id {
                    ctx.dropped(
                        LossCode::SignatureForeign,
                        format!("{}/id", at(part)),
                        format!("reasoning item id `{id}` means nothing to anthropic"),
                    );
                }
                Self::meta_losses(&meta, part, ctx);
                self.pending.push(part);
            }
            StreamPart::ReasoningDelta { part, text } => {
                if !text.is_empty() {
                    self.open_pending(part, out)?;
                }
                self.delta(
                    part,
                    w::BlockDelta::Thinking(w::ThinkingDelta {
                        thinking: text,
                        extra: Default::default(),
                    }),
                    out,
                )?;
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if !text.is_empty() {
                    self.open_pending(part, out)?;
                }
                if self.kind(part).is_some() {
                    ctx.changed(
                        LossCode::PartAsText,
                        format!("{}/summary", at(part)),
                        "anthropic has no reasoning summaries: the summary is sent as thinking text",
                    );
                }
                self.delta(
                    part,
                    w::BlockDelta::Thinking(w::ThinkingDelta {
                        thinking: text,
                        extra: Default::default(),
                    }),
                    out,
                )?;
            }
            StreamPart::Signature {
                part,
                token,
                encrypted,
            } => {
                if self.kind(part).is_none() && !self.pending.contains(&part) {
                    return Ok(());
                }
                if token.format == F && !encrypted {
                    self.open_pending(part, out)?;
                    self.delta(
                        part,
                        w::BlockDelta::Signature(w::SignatureDelta {
                            signature: token.value,
                            extra: Default::default(),
                        }),
                        out,
                    )?;
                } else {
                    let what = if encrypted {
                        "encrypted reasoning"
                    } else {
                        "a reasoning signature"
                    };
                    ctx.report_unplaced_token(
                        Some(&token),
                        format_args!("{}/signature", at(part)),
                        what,
                    );
                }
            }
            StreamPart::ToolStart {
                part,
                choice,
                id,
                name,
                meta,
                ..
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                Self::meta_losses(&meta, part, ctx);
                self.open_block(part, Block::Tool, tool_block(id, name), out)?;
            }
            StreamPart::ToolDelta { part, json } => self.delta(part, input_delta(json), out)?,
            StreamPart::Whole {
                part,
                choice,
                content,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                self.whole(part, content, out, ctx)?;
            }
            StreamPart::Meta { part, meta } => {
                if self.dropped.contains(&part) {
                    return Ok(());
                }
                Self::meta_losses(&meta, part, ctx);
            }
            StreamPart::End { part } => self.stop_block(part, out)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish {
                choice,
                stop_reason,
                vendor,
            } => {
                if choice != 0 {
                    return Ok(());
                }
                ctx.report_unwritten_fields(&vendor, "/finish");
                self.close_all(out)?;
                let stop = stop_reason.map(|r| encode_stop(&r, "/finish/stop_reason", ctx));
                let usage = self.usage.take().map(|u| {
                    let wire = encode_usage(u, ctx);
                    // The delta's usage has the same fields; what it lacks stays as extra.
                    serde_json::from_value::<w::MessageDeltaUsage>(wire_types::to_value(&wire))
                        .unwrap_or_default()
                });
                let mut delta = w::MessageDelta {
                    stop_reason: stop,
                    ..Default::default()
                };
                delta.extra.mark_null("stop_sequence");
                out.push(
                    Some("message_delta"),
                    &w::StreamEvent::MessageDelta(w::MessageDeltaEvent {
                        delta,
                        usage: Some(usage.unwrap_or_else(|| w::MessageDeltaUsage {
                            output_tokens: Some(0),
                            ..Default::default()
                        })),
                        context_management: None,
                        extra: Default::default(),
                    }),
                )?;
                out.push(
                    Some("message_stop"),
                    &w::StreamEvent::MessageStop(Default::default()),
                )?;
                self.finished = true;
            }
            StreamPart::ResponseMeta(v) => ctx.report_unwritten_fields(&v, ""),
            StreamPart::Error(e) => {
                self.close_all(out)?;
                let code = match e.kind {
                    StreamErrorKind::Incomplete => "api_error".to_owned(),
                    _ => e.code.clone().unwrap_or_else(|| "api_error".to_owned()),
                };
                out.push(
                    Some("error"),
                    &w::StreamEvent::Error(w::ErrorEvent {
                        error: w::ErrorDetail {
                            kind: Some(code),
                            message: Some(e.message),
                            extra: Default::default(),
                        },
                        extra: Default::default(),
                    }),
                )?;
                self.finished = true;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.finished {
            // The source ended without a finish (its decoder reports why): not a normal
            // end here either.
            self.close_all(out)?;
            out.push(
                Some("error"),
                &w::StreamEvent::Error(w::ErrorEvent {
                    error: w::ErrorDetail {
                        kind: Some("api_error".to_owned()),
                        message: Some("the source stream ended before it finished".to_owned()),
                        extra: Default::default(),
                    },
                    extra: Default::default(),
                }),
            )?;
            self.finished = true;
        }
        Ok(())
    }
}
