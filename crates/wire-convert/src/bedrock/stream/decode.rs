//! Decoding: the stream's events in, neutral stream parts out.

use super::super::decode::decode_blocks;
use super::super::response::{decode_usage, stop_reason};
use super::super::{F, hints};
use crate::model::{Part, PartMeta, Signed, StopReason, Vendor};
use crate::stream::{
    Event, EventDecoder, Finish, Once, Over, PartId, Parts, Signature, StreamPart, StreamStart,
    ToolStart, Whole, end_call, incomplete, provider_error, read,
};
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::bedrock as w;
/// What an open block is, by its `contentBlockIndex`.
#[derive(Debug)]
enum Open {
    Text {
        part: PartId,
        /// Citations so far (sent at the stop, as the part's `citations` field).
        citations: Vec<Value>,
        /// Whether the text so far is whitespace only (Converse rejects blank text from
        /// another format, so the part says so, as the whole-body decoder does).
        blank: bool,
    },
    Reasoning(PartId),
    Tool {
        part: PartId,
        /// Whether an input fragment came (without one, the input is `{}`).
        deltas: bool,
    },
    /// A block kept whole, rebuilt from its start and deltas: `{key: value}`.
    Whole {
        part: PartId,
        key: String,
        value: Map<String, Value>,
        /// A server tool call's input text so far.
        input: String,
    },
}

impl Open {
    fn is_text(&self) -> bool {
        matches!(self, Open::Text { .. })
    }
}

/// How many unknown event and delta kinds a decoder names in its losses.
const MAX_UNKNOWN: usize = 16;

/// The ConverseStream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    open: Vec<(u32, Open)>,
    /// `messageStop` came.
    stopped: bool,
    /// `metadata` came.
    metadata: bool,
    /// The finish (its stop reason, the vendor data of `messageStop`), held from
    /// `messageStop` until `metadata` (or the end) comes.
    pending: Option<(Option<StopReason>, Vendor)>,
    /// The finish was sent, or an exception came: what follows is not part of the
    /// message.
    over: Over,
    /// An exception came.
    failed: bool,
    /// Event and delta kinds reported as unknown (each once).
    unknown: Once,
}

/// Whether an event name is an error's: an exception (`…Exception`) or an AWS error code
/// (`InternalFailure`, `AccessDeniedException`: capitalized, where event types are not).
fn is_error_name(name: &str) -> bool {
    name.ends_with("Exception") || name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Whether an event is `{"messageStart": {}}`.
fn is_empty_start(data: &str) -> bool {
    serde_json::from_str::<Map<String, Value>>(data).is_ok_and(|m| {
        m.len() == 1
            && m.get("messageStart")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
    })
}

fn kind_of(map: &Map<String, Value>) -> String {
    map.keys().next().cloned().unwrap_or_else(|| "?".to_owned())
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = match read::<w::StreamEvent>(event.data) {
            Ok(e) => e,
            // An empty `messageStart` payload (the framing reads it as `{}`, as botocore
            // does) starts the assistant's message all the same.
            Err(_) if is_empty_start(event.data) => {
                w::StreamEvent::MessageStart(w::MessageStartEvent {
                    role: w::Role::Assistant,
                    extra: Default::default(),
                })
            }
            Err(e) => return Err(e),
        };
        if self.over.is_over() || (self.stopped && !matches!(event, w::StreamEvent::Metadata(_))) {
            self.over.left_out(ctx, || {
                format!(
                    "a bedrock `{}` event after the message ended is not part of it: left out",
                    event.key()
                )
            });
            return Ok(());
        }
        if !out.started() && !matches!(event, w::StreamEvent::MessageStart(_)) {
            // A stream that begins without `messageStart` (a capture starts with a block).
            out.start(StreamStart {
                format: Some(F),
                ..Default::default()
            });
        }
        match event {
            w::StreamEvent::MessageStart(s) => {
                if s.role != w::Role::Assistant {
                    ctx.dropped(
                        LossCode::FieldUnsupported,
                        "/role",
                        format!(
                            "a bedrock stream message of role `{}` is read as the assistant's",
                            s.role.as_str()
                        ),
                    );
                }
                let vendor = Vendor::from_extra(F, &s.extra, &[]);
                if out.started() {
                    // A second `messageStart`: only what it adds.
                    if !vendor.is_empty() {
                        out.push(StreamPart::ResponseMeta(vendor));
                    }
                } else {
                    out.start(StreamStart {
                        format: Some(F),
                        vendor,
                        ..Default::default()
                    });
                }
            }
            w::StreamEvent::ContentBlockStart(s) => {
                self.extra("contentBlockStart", &s.extra, ctx);
                self.start(s.content_block_index, s.start, out, ctx);
            }
            w::StreamEvent::ContentBlockDelta(d) => {
                self.extra("contentBlockDelta", &d.extra, ctx);
                self.delta(d.content_block_index, d.delta, out, ctx);
            }
            w::StreamEvent::ContentBlockStop(s) => {
                self.extra("contentBlockStop", &s.extra, ctx);
                self.close_index(s.content_block_index, out, ctx);
            }
            w::StreamEvent::MessageStop(m) => {
                self.close_all(out, ctx);
                let mut vendor = Vendor::default();
                vendor.keep(
                    F,
                    "additionalModelResponseFields",
                    &m.additional_model_response_fields,
                );
                if !vendor.is_empty() {
                    out.push(StreamPart::ResponseMeta(vendor));
                }
                self.stopped = true;
                let stop = Some(stop_reason(&m.stop_reason));
                // The event's own unknown fields stay with the finish.
                let vendor = Vendor::from_extra(F, &m.extra, &[]);
                if self.metadata {
                    self.finish(stop, vendor, out);
                } else {
                    self.pending = Some((stop, vendor));
                }
            }
            w::StreamEvent::Metadata(m) => {
                if self.metadata {
                    ctx.dropped(
                        LossCode::PartUnsupported,
                        "",
                        "a second bedrock `metadata` event: left out",
                    );
                    return Ok(());
                }
                self.metadata = true;
                let m = *m;
                if let Some(u) = m.usage {
                    out.push(StreamPart::Usage(decode_usage(u)));
                }
                let mut vendor = Vendor::from_extra(F, &m.extra, &[]);
                vendor.keep(F, "metrics", &m.metrics);
                vendor.keep(F, "trace", &m.trace);
                vendor.keep(F, "performanceConfig", &m.performance_config);
                vendor.keep(F, "serviceTier", &m.service_tier);
                if !vendor.is_empty() {
                    out.push(StreamPart::ResponseMeta(vendor));
                }
                if let Some((stop, vendor)) = self.pending.take() {
                    self.finish(stop, vendor, out);
                }
            }
            w::StreamEvent::InternalServerException(e) => {
                self.exception("internalServerException", e, out)
            }
            w::StreamEvent::ModelStreamErrorException(e) => {
                self.exception("modelStreamErrorException", e, out);
            }
            w::StreamEvent::ValidationException(e) => self.exception("validationException", e, out),
            w::StreamEvent::ThrottlingException(e) => self.exception("throttlingException", e, out),
            w::StreamEvent::ServiceUnavailableException(e) => {
                self.exception("serviceUnavailableException", e, out);
            }
            w::StreamEvent::Other(m) if is_error_name(&kind_of(&m)) => {
                // An exception this crate does not type, or an `error` message
                // (`:error-code` names it, `:error-message` is its message).
                let kind = kind_of(&m);
                let value = m.get(&kind).cloned().unwrap_or(Value::Null);
                let e = wire_types::from_value::<w::ExceptionEvent>(&value).unwrap_or_default();
                self.exception(&kind, e, out);
            }
            other => {
                if self.unknown.len() < MAX_UNKNOWN {
                    self.unknown.unknown_event("a bedrock", other.key(), ctx);
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.close_all(out, ctx);
        if let Some((stop, vendor)) = self.pending.take() {
            // `messageStop` came and `metadata` did not: a finish all the same.
            self.finish(stop, vendor, out);
        } else if !self.stopped && !self.failed {
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    fn finish(&mut self, stop_reason: Option<StopReason>, vendor: Vendor, out: &mut Parts) {
        self.over.end();
        out.push(StreamPart::Finish(Finish {
            choice: 0,
            stop_reason,
            vendor,
        }));
    }

    fn exception(&mut self, code: &str, e: w::ExceptionEvent, out: &mut Parts) {
        self.over.end();
        self.failed = true;
        let message = e.message.clone().unwrap_or_default();
        out.push(provider_error(Some(code.to_owned()), message, &e));
    }

    fn unknown(&mut self, detail: String, kind: String, ctx: &mut Ctx<'_>) {
        // A few kinds are named; a stream of ever new ones grows no list.
        if self.unknown.len() < MAX_UNKNOWN {
            self.unknown.report(&kind, detail, ctx);
        }
    }

    /// Reports the unknown fields of a block event (they have no neutral place: a block's
    /// events are not parts), once per event type.
    fn extra(&mut self, event: &str, extra: &wire_types::Extra, ctx: &mut Ctx<'_>) {
        if let Some(key) = extra.fields().keys().next() {
            self.unknown(
                format!("fields of bedrock `{event}` events (`{key}`) have no neutral place"),
                format!("{event}."),
                ctx,
            );
        }
    }

    /// Closes the block open at `index`, if any.
    fn close_index(&mut self, index: u32, out: &mut Parts, ctx: &mut Ctx<'_>) {
        if let Some(i) = self.open.iter().position(|(i, _)| *i == index) {
            let (_, open) = self.open.remove(i);
            close(open, out, ctx);
        }
    }

    fn close_all(&mut self, out: &mut Parts, ctx: &mut Ctx<'_>) {
        for (_, open) in std::mem::take(&mut self.open) {
            close(open, out, ctx);
        }
    }

    fn start(
        &mut self,
        index: u32,
        start: w::ContentBlockStart,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) {
        // A start on an index still open: the block before it ended without its stop.
        self.close_index(index, out, ctx);
        let part = out.id();
        let open = match start {
            w::ContentBlockStart::ToolUse(t) if t.kind.is_none() => {
                out.push(StreamPart::ToolStart(ToolStart {
                    part,
                    choice: 0,
                    id: t.tool_use_id,
                    synthetic_id: false,
                    name: t.name,
                    meta: PartMeta::from_extra(F, &t.extra),
                }));
                Open::Tool {
                    part,
                    deltas: false,
                }
            }
            other => {
                let key = other.key().to_owned();
                let value = match wire_types::to_value(&other) {
                    Value::Object(mut m) => match m.remove(&key) {
                        Some(Value::Object(v)) => v,
                        _ => Map::new(),
                    },
                    _ => Map::new(),
                };
                Open::Whole {
                    part,
                    key,
                    value,
                    input: String::new(),
                }
            }
        };
        self.open.push((index, open));
    }

    /// The open block at `index`, opened as text or reasoning (`text`) when none is, or
    /// when the one open is of another kind (a block that ended without its stop).
    fn open_stream(
        &mut self,
        index: u32,
        text: bool,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) -> &mut Open {
        let fits = |o: &Open| {
            if text {
                o.is_text()
            } else {
                matches!(o, Open::Reasoning(_))
            }
        };
        let i = match self.open.iter().position(|(i, _)| *i == index) {
            Some(i) if fits(&self.open[i].1) => i,
            other => {
                if let Some(i) = other {
                    let (_, open) = self.open.remove(i);
                    close(open, out, ctx);
                }
                let part = out.id();
                let open = if text {
                    out.push(StreamPart::TextStart {
                        part,
                        choice: 0,
                        meta: PartMeta::default(),
                    });
                    Open::Text {
                        part,
                        citations: Vec::new(),
                        blank: true,
                    }
                } else {
                    out.push(StreamPart::ReasoningStart {
                        part,
                        choice: 0,
                        id: None,
                        meta: PartMeta::default(),
                    });
                    Open::Reasoning(part)
                };
                self.open.push((index, open));
                self.open.len() - 1
            }
        };
        &mut self.open[i].1
    }

    fn delta(
        &mut self,
        index: u32,
        delta: w::ContentBlockDelta,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) {
        match delta {
            w::ContentBlockDelta::Text(text) => {
                if let Open::Text { part, blank, .. } = self.open_stream(index, true, out, ctx) {
                    *blank = *blank && text.trim().is_empty();
                    let part = *part;
                    out.push(StreamPart::TextDelta { part, text });
                }
            }
            w::ContentBlockDelta::Citation(c) => {
                if let Open::Text { citations, .. } = self.open_stream(index, true, out, ctx) {
                    citations.push(wire_types::to_value(&c));
                }
            }
            w::ContentBlockDelta::ReasoningContent(r) => {
                let Open::Reasoning(part) = *self.open_stream(index, false, out, ctx) else {
                    return;
                };
                match r {
                    w::ReasoningDelta::Text(text) => {
                        out.push(StreamPart::ReasoningDelta { part, text });
                    }
                    w::ReasoningDelta::Signature(value) => {
                        out.push(StreamPart::Signature(Signature {
                            part,
                            token: Signed { value, format: F },
                            encrypted: false,
                        }))
                    }
                    w::ReasoningDelta::RedactedContent(value) => {
                        out.push(StreamPart::Signature(Signature {
                            part,
                            token: Signed { value, format: F },
                            encrypted: true,
                        }))
                    }
                    w::ReasoningDelta::Other(m) => {
                        let kind = format!("reasoningContent.{}", kind_of(&m));
                        self.unknown(
                            format!("a bedrock reasoning delta `{kind}` has no neutral place"),
                            kind,
                            ctx,
                        );
                    }
                    _ => {}
                }
            }
            w::ContentBlockDelta::ToolUse(u) => match self.open_at(index) {
                Some(Open::Tool { part, deltas }) => {
                    // An empty fragment (the first often is) says nothing.
                    if !u.input.is_empty() {
                        *deltas = true;
                        let part = *part;
                        out.push(StreamPart::ToolDelta {
                            part,
                            json: u.input,
                        });
                    }
                }
                Some(Open::Whole { key, input, .. }) if key == "toolUse" => {
                    input.push_str(&u.input);
                }
                _ => self.orphan("toolUse", index, ctx),
            },
            w::ContentBlockDelta::ToolResult(items) => match self.open_at(index) {
                Some(Open::Whole { key, value, .. }) if key == "toolResult" => {
                    if let Value::Array(content) = value
                        .entry("content")
                        .or_insert_with(|| Value::Array(Vec::new()))
                    {
                        content.extend(items.iter().map(wire_types::to_value));
                    }
                }
                _ => self.orphan("toolResult", index, ctx),
            },
            w::ContentBlockDelta::Image(i) => match self.open_at(index) {
                Some(Open::Whole { key, value, .. }) if key == "image" => {
                    if let Value::Object(m) = wire_types::to_value(&i) {
                        value.extend(m);
                    }
                }
                _ => self.orphan("image", index, ctx),
            },
            w::ContentBlockDelta::Other(m) => {
                let kind = kind_of(&m);
                self.unknown(
                    format!("a bedrock delta `{kind}` has no neutral place"),
                    kind,
                    ctx,
                );
            }
            _ => {}
        }
    }

    fn open_at(&mut self, index: u32) -> Option<&mut Open> {
        self.open
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, o)| o)
    }

    fn orphan(&mut self, kind: &str, index: u32, ctx: &mut Ctx<'_>) {
        ctx.dropped(
            LossCode::PartUnsupported,
            "",
            format!(
                "a bedrock `{kind}` delta for block {index}, which is not a {kind} block: left out"
            ),
        );
    }
}

/// The parts that end an open block.
fn close(open: Open, out: &mut Parts, ctx: &mut Ctx<'_>) {
    match open {
        Open::Whole {
            part,
            key,
            mut value,
            input,
        } => {
            if key == "toolUse" {
                let input = if input.trim().is_empty() {
                    Value::Object(Map::new())
                } else {
                    // Not JSON: kept as the text it is, as the block came.
                    serde_json::from_str(&input).unwrap_or(Value::String(input))
                };
                value.insert("input".to_owned(), input);
            }
            let mut block = Map::new();
            block.insert(key, Value::Object(value));
            let block = Value::Object(block);
            let parts: Vec<Part> = match wire_types::from_value::<w::ContentBlock>(&block) {
                Ok(b) => decode_blocks(vec![b], &w::Role::Assistant, "/output/message", ctx)
                    .into_iter()
                    .map(super::super::decode::Dp::into_part)
                    .collect(),
                Err(_) => vec![crate::util::opaque(ctx, block)],
            };
            for content in parts {
                out.push(StreamPart::Whole(Whole {
                    part,
                    choice: 0,
                    content,
                }));
            }
        }
        Open::Text {
            part,
            citations,
            blank,
        } => {
            let mut meta = PartMeta::default();
            if !citations.is_empty() {
                meta.vendor
                    .set_field(F, "citations", Value::Array(citations));
            }
            if blank {
                meta.vendor.set_hint(F, hints::BLANK, true);
            }
            if !meta.is_empty() {
                out.push(StreamPart::Meta { part, meta });
            }
            out.push(StreamPart::End { part });
        }
        Open::Reasoning(part) => out.push(StreamPart::End { part }),
        Open::Tool { part, deltas } => end_call(part, deltas, out),
    }
}
