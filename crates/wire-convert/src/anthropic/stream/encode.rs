//! Encoding: neutral stream parts in, the stream's events out.

use super::super::response::{encode_stop, encode_usage};
use super::super::{F, w};
use crate::model::{Opaque, Part, Usage};
use crate::stream::{
    EventEncoder, Events, Gate, PartId, Rule, StreamErrorKind, StreamPart, StreamStart, UNFINISHED,
    Whole, at, meta_lost, no_place, reasoning_id_lost, reasoning_token_lost, streamed,
    summary_as_text,
};
use crate::{Ctx, Error, LossCode};

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
    /// Started, over, and the parts left out (reasoning dropped by the options, parts of
    /// another choice): their deltas are dropped with them.
    gate: Gate,
    /// Open blocks: part → (Anthropic block index, kind).
    open: Vec<(PartId, u32, Block)>,
    next_index: u32,
    /// Reasoning parts begun whose thinking block is not written yet: it opens at the
    /// first text or signature, so reasoning that brings neither (an OpenAI reasoning
    /// item without a summary) writes no empty block.
    pending: Vec<PartId>,
    usage: Option<Usage>,
}

impl Encoder {
    fn start_message(&mut self, s: StreamStart, out: &mut Events) -> Result<(), Error> {
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

    fn kind(&self, part: PartId) -> Option<Block> {
        self.open
            .iter()
            .find(|(p, _, _)| *p == part)
            .map(|(_, _, k)| *k)
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
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        Rule::one("message", true)
    }

    fn start(&mut self, s: StreamStart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        ctx.report_unwritten_fields(&s.vendor, "");
        self.start_message(s, out)
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match part {
            StreamPart::Start(_) => {}
            StreamPart::TextStart { part, meta, .. } => {
                meta_lost(&meta, part, ctx);
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
            StreamPart::ReasoningStart { part, id, meta, .. } => {
                reasoning_id_lost(id.as_deref(), part, F, ctx);
                meta_lost(&meta, part, ctx);
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
                    summary_as_text(
                        part,
                        LossCode::PartAsText,
                        "anthropic has no reasoning summaries: the summary is sent as thinking text",
                        ctx,
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
            StreamPart::Signature(s) => {
                let part = s.part;
                if self.kind(part).is_none() && !self.pending.contains(&part) {
                    return Ok(());
                }
                if s.token.format == F && !s.encrypted {
                    self.open_pending(part, out)?;
                    self.delta(
                        part,
                        w::BlockDelta::Signature(w::SignatureDelta {
                            signature: s.token.value,
                            extra: Default::default(),
                        }),
                        out,
                    )?;
                } else {
                    reasoning_token_lost(&s.token, s.encrypted, false, part, ctx);
                }
            }
            StreamPart::ToolStart(t) => {
                meta_lost(&t.meta, t.part, ctx);
                self.open_block(t.part, Block::Tool, tool_block(t.id, t.name), out)?;
            }
            StreamPart::ToolDelta { part, json } => self.delta(part, input_delta(json), out)?,
            StreamPart::Whole(whole) => match streamed(whole) {
                Ok(parts) => self.parts(parts, out, ctx)?,
                Err(Whole { part, content, .. }) => match content {
                    // A block of this format kept whole: written as it came.
                    Part::Opaque(Opaque {
                        format: F, value, ..
                    }) => match serde_json::from_value(value) {
                        Ok(block) => {
                            self.open_block(part, Block::Text, block, out)?;
                            self.stop_block(part, out)?;
                        }
                        Err(e) => ctx.dropped(
                            LossCode::PartUnsupported,
                            at(part),
                            format!(
                                "this anthropic block, kept whole, is no longer a valid block: {e}"
                            ),
                        ),
                    },
                    other => no_place(part, &other, "an anthropic response stream", ctx),
                },
            },
            StreamPart::Meta { part, meta } => meta_lost(&meta, part, ctx),
            StreamPart::End { part } => self.stop_block(part, out)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish(f) => {
                ctx.report_unwritten_fields(&f.vendor, "/finish");
                self.close_all(out)?;
                let stop = f
                    .stop_reason
                    .map(|r| encode_stop(&r, "/finish/stop_reason", ctx));
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
                self.gate.finished = true;
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
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        // The source ended without a finish (its decoder reports why): not a normal
        // end here either.
        self.close_all(out)?;
        out.push(
            Some("error"),
            &w::StreamEvent::Error(w::ErrorEvent {
                error: w::ErrorDetail {
                    kind: Some("api_error".to_owned()),
                    message: Some(UNFINISHED.to_owned()),
                    extra: Default::default(),
                },
                extra: Default::default(),
            }),
        )?;
        Ok(())
    }
}
