//! The Responses stream: `response.created` and `response.in_progress`, then per output
//! item `response.output_item.added`, its content events (`response.content_part.*`,
//! `response.output_text.*`, `response.refusal.*`, `response.function_call_arguments.*`,
//! `response.reasoning_summary_*`, `response.reasoning_text.*`) and
//! `response.output_item.done`, then one terminal event carrying the whole response
//! (`response.completed`, `response.incomplete` or `response.failed`); `error`,
//! `keepalive`, `ping` and hosted tools' progress events in between.
//!
//! Decoding keys every item by its `output_index` (GitHub Copilot rotates `item_id` on
//! every event; parallel calls interleave). Text, arguments and reasoning stream as
//! deltas; a part's vendor data (annotations, logprobs, the item's `id` and `status`) is
//! read from the complete item of `response.output_item.done` by the whole-body decoder
//! and sent as a [`StreamPart::Meta`] before the part's end, so the parts add up to what
//! the non-streamed body gives. A call whose arguments come only in
//! `response.function_call_arguments.done` (or only in the done item) gets them there.
//! Refusals, and items other than messages, function calls and reasoning (hosted tools:
//! `web_search_call`, `mcp_call`, `apply_patch_call`, …), arrive whole at their end. The
//! terminal event's response gives the usage, the stop reason and the response-level
//! vendor data ([`StreamPart::ResponseMeta`]); its items are not sent again, but an item
//! it holds that the stream never sent is, and an item field it changed (a rotated item
//! id) comes as a [`StreamPart::Meta`]. Events after the terminal event (a second
//! response, in a recording of several) are left out, with a loss.
//!
//! The decoder holds the items still open and, for each item done, its part ids and the
//! vendor data they were given (no content), to compare with the terminal response.
//!
//! Encoding writes the full event sequence (`sequence_number`, item ids, output and
//! content indexes, every `.done` event) as the parts come, and ends with the whole
//! response: the parts are added up by an [`Accumulator`], each item is written by the
//! whole-body encoder at its end, and the terminal event's response is the whole-body
//! encoder's with those items. Consecutive text parts share one message item (a part
//! that starts a Responses message item starts a new one), as in a whole body. An item
//! carries its parts' own Responses id, else one made up from its output index
//! (`msg_<n>`, `fc_<n>`, `rs_<n>`). Reasoning of another format opens its item at its
//! first text; reasoning with nothing this format can carry writes no item (a loss).
//! An error part, or a source that ends without its finish, ends the stream with an
//! `error` event and `response.failed`.

use super::decode::{decode_part, push_assistant_item};
use super::encode::{Mode, encode_assistant};
use super::hints::{MSG, PARTS, TYPED};
use super::response::{decode_head, output_item};
use super::{F, MSG_FIELD};
use crate::model::{Message, Part, PartMeta, Role, Text};
use crate::stream::{
    Accumulator, Event, EventDecoder, EventEncoder, Events, PartId, Parts, StreamError,
    StreamErrorKind, StreamPart, StreamStart, incomplete, read,
};
use crate::{Ctx, Error, LossCode, ReasoningMode};
use serde_json::{Map, Value, json};
use wire_types::TextOrParts;
use wire_types::openai_responses as w;

// ---------------------------------------------------------------------------------------
// Decoding

/// A content part of an open message item.
#[derive(Debug)]
enum Content {
    /// Output text, sent as it streams.
    Text { part: PartId, deltas: bool },
    /// A refusal: its text so far, sent whole at its end (the neutral stream has no
    /// refusal deltas). `part` once sent.
    Refusal { text: String, part: Option<PartId> },
}

/// What an open output item is.
#[derive(Debug)]
enum Open {
    Message {
        /// What the first part of the item carries: the `msg` hint and the item id.
        head: PartMeta,
        /// Content parts by `content_index`.
        content: Vec<(u32, Content)>,
    },
    Call {
        part: PartId,
        /// Arguments were sent (deltas, or the `.done` event's).
        args: bool,
        /// The `arguments` of the added item, used when nothing else comes.
        start: String,
    },
    Reasoning {
        part: PartId,
        /// Summary indexes whose text was sent.
        summaries: Vec<u32>,
        /// The last `reasoning_text` content index whose text was sent.
        text: Option<u32>,
    },
    /// An item sent whole at its end (hosted tools and the like).
    Whole,
}

/// An item that is done: its parts and the meta each was given, to lay the terminal
/// response's item over.
#[derive(Debug)]
struct Done {
    index: u32,
    parts: Vec<(PartId, PartMeta)>,
}

/// The Responses stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// Open items by `output_index`.
    open: Vec<(u32, Open)>,
    /// Items done, by `output_index` (part ids and meta only, no content).
    done: Vec<Done>,
    /// The response id (from the first lifecycle event).
    id: Option<String>,
    /// A function call was seen (a tool-use stop when the terminal response lists no
    /// output).
    has_calls: bool,
    /// The terminal event came.
    terminal: bool,
    /// Events came after the terminal event (reported once).
    after: bool,
    /// Event types reported as having no neutral part (each once).
    unknown: Vec<String>,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = read::<w::StreamEvent>(event.data)?;
        if self.terminal {
            self.after_terminal(event, ctx);
            return Ok(());
        }
        match event {
            w::StreamEvent::Created(e)
            | w::StreamEvent::Queued(e)
            | w::StreamEvent::InProgress(e) => {
                if !out.started() {
                    self.start(*e.response, out, ctx);
                }
            }
            w::StreamEvent::Completed(e)
            | w::StreamEvent::Incomplete(e)
            | w::StreamEvent::Failed(e) => self.terminal(*e.response, out, ctx),
            w::StreamEvent::OutputItemAdded(e) => self.added(e.output_index, e.item, out),
            w::StreamEvent::OutputItemDone(e) => {
                match self.open.iter().position(|(i, _)| *i == e.output_index) {
                    Some(pos) => {
                        let (index, open) = self.open.remove(pos);
                        self.close(index, open, Some(e.item), out, ctx);
                    }
                    // The same item done again: nothing new.
                    None if self.done.iter().any(|d| d.index == e.output_index) => {}
                    // An item done that never started: it comes whole.
                    None => {
                        let parts = decode_item(e.item, ctx)
                            .into_iter()
                            .map(|p| emit_part(p, out))
                            .collect();
                        self.done.push(Done {
                            index: e.output_index,
                            parts,
                        });
                    }
                }
            }
            w::StreamEvent::ContentPartAdded(e) => match e.part {
                w::ContentPart::OutputText(t) => {
                    self.text_delta(e.output_index, e.content_index, t.text, out);
                }
                w::ContentPart::Refusal(r) => {
                    if let Some(text) = self.refusal(e.output_index, e.content_index) {
                        text.push_str(&r.refusal);
                    }
                }
                // Reasoning text comes by its deltas; other parts with the item.
                _ => {}
            },
            w::StreamEvent::ContentPartDone(e) => {
                self.part_done(e.output_index, e.content_index, e.part, out);
            }
            w::StreamEvent::OutputTextDelta(e) => {
                self.text_delta(e.output_index, e.content_index, e.delta, out);
            }
            w::StreamEvent::OutputTextDone(e) => {
                if let Some((_, false)) = self.text(e.output_index, e.content_index, out) {
                    self.text_delta(e.output_index, e.content_index, e.text, out);
                }
            }
            // Annotations come with the part's vendor data at its end (the done part holds
            // them all, in order).
            w::StreamEvent::OutputTextAnnotationAdded(_) => {}
            w::StreamEvent::RefusalDelta(e) => {
                if let Some(text) = self.refusal(e.output_index, e.content_index) {
                    text.push_str(&e.delta);
                }
            }
            w::StreamEvent::RefusalDone(e) => {
                if let Some(text) = self.refusal(e.output_index, e.content_index) {
                    *text = e.refusal;
                }
            }
            w::StreamEvent::FunctionCallArgumentsDelta(e) => {
                if let Some(Open::Call { part, args, .. }) = self.item(e.output_index) {
                    if !e.delta.is_empty() {
                        *args = true;
                        out.push(StreamPart::ToolDelta {
                            part: *part,
                            json: e.delta,
                        });
                    }
                }
            }
            w::StreamEvent::FunctionCallArgumentsDone(e) => {
                // Some servers send the arguments only here.
                if let Some(Open::Call { part, args, .. }) = self.item(e.output_index) {
                    if !*args && !e.arguments.is_empty() {
                        *args = true;
                        out.push(StreamPart::ToolDelta {
                            part: *part,
                            json: e.arguments,
                        });
                    }
                }
            }
            w::StreamEvent::ReasoningSummaryTextDelta(e) => {
                self.summary(e.output_index, e.summary_index, e.delta, out, true);
            }
            w::StreamEvent::ReasoningSummaryTextDone(e) => {
                self.summary(e.output_index, e.summary_index, e.text, out, false);
            }
            w::StreamEvent::ReasoningSummaryPartDone(e) => {
                if let w::SummaryPart::SummaryText(t) = e.part {
                    self.summary(e.output_index, e.summary_index, t.text, out, false);
                }
            }
            w::StreamEvent::ReasoningSummaryPartAdded(_) => {}
            w::StreamEvent::ReasoningTextDelta(e) => {
                self.reasoning_text(e.output_index, e.content_index, e.delta, out, true);
            }
            w::StreamEvent::ReasoningTextDone(e) => {
                self.reasoning_text(e.output_index, e.content_index, e.text, out, false);
            }
            w::StreamEvent::Error(e) => {
                let code = e
                    .code
                    .as_ref()
                    .or(e.error.as_ref().and_then(|d| d.code.as_ref()))
                    .and_then(|c| match c {
                        Value::String(s) => Some(s.clone()),
                        Value::Null => None,
                        other => Some(other.to_string()),
                    })
                    .or_else(|| e.error.as_ref().and_then(|d| d.kind.clone()));
                let message = e.message().unwrap_or_default().to_owned();
                out.push(StreamPart::Error(StreamError {
                    kind: StreamErrorKind::Provider,
                    code,
                    message,
                    value: Some(wire_types::to_value(&e)),
                }));
            }
            w::StreamEvent::Keepalive(_) | w::StreamEvent::Ping(_) => {}
            // Progress of hosted-tool items, and their inputs as they stream: the item
            // comes whole in `response.output_item.done`.
            w::StreamEvent::WebSearchCallInProgress(_)
            | w::StreamEvent::WebSearchCallSearching(_)
            | w::StreamEvent::WebSearchCallCompleted(_)
            | w::StreamEvent::FileSearchCallInProgress(_)
            | w::StreamEvent::FileSearchCallSearching(_)
            | w::StreamEvent::FileSearchCallCompleted(_)
            | w::StreamEvent::CodeInterpreterCallInProgress(_)
            | w::StreamEvent::CodeInterpreterCallInterpreting(_)
            | w::StreamEvent::CodeInterpreterCallCompleted(_)
            | w::StreamEvent::CodeInterpreterCallCodeDelta(_)
            | w::StreamEvent::CodeInterpreterCallCodeDone(_)
            | w::StreamEvent::ImageGenerationCallInProgress(_)
            | w::StreamEvent::ImageGenerationCallGenerating(_)
            | w::StreamEvent::ImageGenerationCallPartialImage(_)
            | w::StreamEvent::ImageGenerationCallCompleted(_)
            | w::StreamEvent::McpCallInProgress(_)
            | w::StreamEvent::McpCallCompleted(_)
            | w::StreamEvent::McpCallFailed(_)
            | w::StreamEvent::McpCallArgumentsDelta(_)
            | w::StreamEvent::McpCallArgumentsDone(_)
            | w::StreamEvent::McpListToolsInProgress(_)
            | w::StreamEvent::McpListToolsCompleted(_)
            | w::StreamEvent::McpListToolsFailed(_)
            | w::StreamEvent::CustomToolCallInputDelta(_)
            | w::StreamEvent::CustomToolCallInputDone(_)
            | w::StreamEvent::ApplyPatchCallOperationDiffDelta(_)
            | w::StreamEvent::ApplyPatchCallOperationDiffDone(_)
            | w::StreamEvent::ShellCallCommandAdded(_)
            | w::StreamEvent::ShellCallCommandDelta(_)
            | w::StreamEvent::ShellCallCommandDone(_)
            | w::StreamEvent::ShellCallOutputContentDelta(_)
            | w::StreamEvent::ShellCallOutputContentDone(_)
            | w::StreamEvent::CompactionCompacting(_) => {}
            other => {
                // Audio, and events this decoder does not know (new, or typed later).
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
                        format!("a {F} stream event `{kind}` has no neutral part"),
                    );
                    self.unknown.push(kind);
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.terminal {
            self.close_all(out, ctx);
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    /// The response begins: what the lifecycle event's response says of it.
    fn start(&mut self, mut resp: w::Response, out: &mut Parts, ctx: &mut Ctx<'_>) {
        self.id.clone_from(&resp.id);
        resp.output.clear();
        let head = decode_head(resp, false, ctx);
        out.start(StreamStart {
            format: Some(F),
            id: head.id,
            model: head.model,
            created: head.created,
            vendor: head.vendor,
        });
    }

    /// After the terminal event: the response is over (a recording of several
    /// responses, or a server that goes on). What follows is not part of it: left out,
    /// reported once; keepalives say nothing.
    fn after_terminal(&mut self, event: w::StreamEvent, ctx: &mut Ctx<'_>) {
        if matches!(
            event,
            w::StreamEvent::Keepalive(_) | w::StreamEvent::Ping(_)
        ) || self.after
        {
            return;
        }
        self.after = true;
        let what = match &event {
            w::StreamEvent::Created(e) if e.response.id != self.id => format!(
                "another response (`{}`) after the terminal event of `{}`",
                e.response.id.as_deref().unwrap_or("?"),
                self.id.as_deref().unwrap_or("?"),
            ),
            _ => "events after the terminal event".to_owned(),
        };
        ctx.dropped(
            LossCode::PartUnsupported,
            "",
            format!("{what}: not part of the response, left out"),
        );
    }

    fn item(&mut self, index: u32) -> Option<&mut Open> {
        self.open
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, o)| o)
    }

    /// An output item starts.
    fn added(&mut self, index: u32, item: w::Item, out: &mut Parts) {
        if let Some(pos) = self.open.iter().position(|(i, _)| *i == index) {
            // The index again: the item there is over (nothing more will come for it).
            let (_, open) = self.open.remove(pos);
            close_parts(open, out);
        }
        let open = match output_item(item) {
            w::Item::Message(m) => Open::Message {
                head: msg_head(&m),
                content: Vec::new(),
            },
            w::Item::FunctionCall(c) => {
                self.has_calls = true;
                let part = out.id();
                let mut meta = PartMeta::default();
                if let Some(id) = &c.id {
                    meta.vendor.set_field(F, "id", Value::String(id.clone()));
                }
                out.push(StreamPart::ToolStart {
                    part,
                    choice: 0,
                    id: c.call_id,
                    synthetic_id: false,
                    name: c.name,
                    meta,
                });
                Open::Call {
                    part,
                    args: false,
                    start: match c.arguments {
                        wire_types::Arguments::Text(t) => t,
                        wire_types::Arguments::Json(j) => j.to_string(),
                    },
                }
            }
            w::Item::Reasoning(r) => {
                let part = out.id();
                out.push(StreamPart::ReasoningStart {
                    part,
                    choice: 0,
                    id: Some(r.id),
                    meta: PartMeta::default(),
                });
                Open::Reasoning {
                    part,
                    summaries: Vec::new(),
                    text: None,
                }
            }
            _ => Open::Whole,
        };
        self.open.push((index, open));
    }

    /// The text part at `content_index` of the open message item at `index` (started if
    /// it was not), and whether text was sent for it; `None` if there is no such item.
    fn text(&mut self, index: u32, content_index: u32, out: &mut Parts) -> Option<(PartId, bool)> {
        let Some(Open::Message { head, content }) = self.item(index) else {
            return None;
        };
        if let Some((_, c)) = content.iter().find(|(i, _)| *i == content_index) {
            return match c {
                Content::Text { part, deltas } => Some((*part, *deltas)),
                Content::Refusal { .. } => None,
            };
        }
        let part = out.id();
        let meta = if content.is_empty() {
            head.clone()
        } else {
            PartMeta::default()
        };
        out.push(StreamPart::TextStart {
            part,
            choice: 0,
            meta,
        });
        content.push((
            content_index,
            Content::Text {
                part,
                deltas: false,
            },
        ));
        Some((part, false))
    }

    /// Text for the text part at `content_index` of the message item at `index`
    /// (started if it was not).
    fn text_delta(&mut self, index: u32, content_index: u32, text: String, out: &mut Parts) {
        if self.text(index, content_index, out).is_none() || text.is_empty() {
            return;
        }
        if let Some(Open::Message { content, .. }) = self.item(index) {
            if let Some((_, Content::Text { part, deltas })) =
                content.iter_mut().find(|(i, _)| *i == content_index)
            {
                *deltas = true;
                out.push(StreamPart::TextDelta { part: *part, text });
            }
        }
    }

    /// The text so far of the refusal at `content_index` of the message item at `index`
    /// (started if it was not, unless it was sent).
    fn refusal(&mut self, index: u32, content_index: u32) -> Option<&mut String> {
        let Some(Open::Message { content, .. }) = self.item(index) else {
            return None;
        };
        let pos = match content.iter().position(|(i, _)| *i == content_index) {
            Some(p) => p,
            None => {
                content.push((
                    content_index,
                    Content::Refusal {
                        text: String::new(),
                        part: None,
                    },
                ));
                content.len() - 1
            }
        };
        match &mut content[pos].1 {
            Content::Refusal { text, part: None } => Some(text),
            _ => None,
        }
    }

    /// A content part is done: a refusal is sent whole; a text that had no deltas gets
    /// its text.
    fn part_done(&mut self, index: u32, content_index: u32, part: w::ContentPart, out: &mut Parts) {
        match part {
            w::ContentPart::OutputText(t) => {
                if let Some((_, false)) = self.text(index, content_index, out) {
                    self.text_delta(index, content_index, t.text, out);
                }
            }
            p @ w::ContentPart::Refusal(_) => {
                if self.refusal(index, content_index).is_none() {
                    return;
                }
                let Some(Open::Message { head, content }) = self.item(index) else {
                    return;
                };
                let first = content.first().is_some_and(|(i, _)| *i == content_index);
                let mut whole = decode_part(p, true);
                if first {
                    whole.meta_mut().vendor.merge(head.vendor.clone());
                }
                let id = out.id();
                out.push(StreamPart::Whole {
                    part: id,
                    choice: 0,
                    content: whole,
                });
                if let Some((_, Content::Refusal { part, .. })) =
                    content.iter_mut().find(|(i, _)| *i == content_index)
                {
                    *part = Some(id);
                }
            }
            _ => {}
        }
    }

    /// Summary text (`delta`: a fragment; else the whole text, sent only if no
    /// fragment was).
    fn summary(&mut self, index: u32, summary: u32, text: String, out: &mut Parts, delta: bool) {
        if let Some(Open::Reasoning {
            part, summaries, ..
        }) = self.item(index)
        {
            let seen = summaries.contains(&summary);
            if delta || !seen {
                if !seen {
                    summaries.push(summary);
                }
                out.push(StreamPart::SummaryDelta {
                    part: *part,
                    index: summary,
                    text,
                });
            }
        }
    }

    /// Reasoning text: its content parts are one neutral text, joined by a line break
    /// (as the whole-body decoder joins them).
    fn reasoning_text(
        &mut self,
        index: u32,
        content_index: u32,
        text: String,
        out: &mut Parts,
        delta: bool,
    ) {
        if let Some(Open::Reasoning {
            part, text: last, ..
        }) = self.item(index)
        {
            let new = *last != Some(content_index);
            if !delta && !new {
                return;
            }
            let text = match (*last, new) {
                (Some(_), true) => format!("\n{text}"),
                _ => text,
            };
            *last = Some(content_index);
            out.push(StreamPart::ReasoningDelta { part: *part, text });
        }
    }

    /// An item ends: its parts get what only the complete item says (vendor data, text
    /// or arguments that never streamed), then their end.
    fn close(
        &mut self,
        index: u32,
        open: Open,
        item: Option<w::Item>,
        out: &mut Parts,
        ctx: &mut Ctx<'_>,
    ) {
        let Some(item) = item else {
            close_parts(open, out);
            return;
        };
        let decoded = decode_item(item, ctx);
        let mut parts = Vec::new();
        match open {
            Open::Message { head, content } => {
                // Content parts in the order they came, which is the order of the done
                // item's (a message item without content is one opaque part).
                let mut decoded = decoded.into_iter();
                for (_, c) in content {
                    let d = decoded.next();
                    let part = match c {
                        Content::Text { part, deltas } => {
                            if let (false, Some(Part::Text(t))) = (deltas, &d) {
                                if !t.text.is_empty() {
                                    out.push(StreamPart::TextDelta {
                                        part,
                                        text: t.text.clone(),
                                    });
                                }
                            }
                            part
                        }
                        Content::Refusal {
                            part: Some(part), ..
                        } => part,
                        Content::Refusal { text, part: None } => {
                            let whole = match d {
                                Some(p @ Part::Refusal(_)) => p,
                                _ => Part::Refusal(Text {
                                    text,
                                    meta: if parts.is_empty() {
                                        head.clone()
                                    } else {
                                        PartMeta::default()
                                    },
                                }),
                            };
                            parts.push(emit_part(whole, out));
                            continue;
                        }
                    };
                    let meta = d.map(|d| d.meta().clone()).unwrap_or_default();
                    if !meta.is_empty() {
                        out.push(StreamPart::Meta {
                            part,
                            meta: meta.clone(),
                        });
                    }
                    out.push(StreamPart::End { part });
                    parts.push((part, meta));
                }
                // What the done item has beyond what streamed comes whole.
                for d in decoded {
                    parts.push(emit_part(d, out));
                }
            }
            Open::Call { part, args, start } => {
                let d = decoded.into_iter().next();
                if !args {
                    // The done item's arguments, else the added item's.
                    let json = match &d {
                        Some(Part::ToolCall(c)) if !c.arguments.text().is_empty() => {
                            c.arguments.text()
                        }
                        _ => start,
                    };
                    if !json.is_empty() {
                        out.push(StreamPart::ToolDelta { part, json });
                    }
                }
                let meta = d.map(|d| d.meta().clone()).unwrap_or_default();
                if !meta.is_empty() {
                    out.push(StreamPart::Meta {
                        part,
                        meta: meta.clone(),
                    });
                }
                out.push(StreamPart::End { part });
                parts.push((part, meta));
            }
            Open::Reasoning {
                part,
                summaries,
                text,
            } => {
                let mut meta = PartMeta::default();
                if let Some(Part::Reasoning(r)) = decoded.into_iter().next() {
                    for (i, s) in r.summary.into_iter().enumerate() {
                        let i = i as u32;
                        if !summaries.contains(&i) {
                            out.push(StreamPart::SummaryDelta {
                                part,
                                index: i,
                                text: s,
                            });
                        }
                    }
                    if let (None, Some(t)) = (text, r.text) {
                        out.push(StreamPart::ReasoningDelta { part, text: t });
                    }
                    if let Some(token) = r.encrypted {
                        out.push(StreamPart::Signature {
                            part,
                            token,
                            encrypted: true,
                        });
                    }
                    meta = r.meta;
                }
                if !meta.is_empty() {
                    out.push(StreamPart::Meta {
                        part,
                        meta: meta.clone(),
                    });
                }
                out.push(StreamPart::End { part });
                parts.push((part, meta));
            }
            Open::Whole => {
                for d in decoded {
                    parts.push(emit_part(d, out));
                }
            }
        }
        self.done.push(Done { index, parts });
    }

    fn close_all(&mut self, out: &mut Parts, ctx: &mut Ctx<'_>) {
        for (index, open) in std::mem::take(&mut self.open) {
            self.close(index, open, None, out, ctx);
        }
    }

    /// The terminal event: items still open end with the response's, items the stream
    /// never sent are sent whole, item fields the response changed are laid over; then
    /// the usage, the response's vendor data and the finish.
    fn terminal(&mut self, mut resp: w::Response, out: &mut Parts, ctx: &mut Ctx<'_>) {
        if !out.started() {
            let mut head = resp.clone();
            head.output.clear();
            self.start(head, out, ctx);
        }
        let output = std::mem::take(&mut resp.output);
        let has_calls = if output.is_empty() {
            self.has_calls
        } else {
            output.iter().any(|i| matches!(i, w::Item::FunctionCall(_)))
        };
        for (i, item) in output.into_iter().enumerate() {
            let i = i as u32;
            if let Some(pos) = self.open.iter().position(|(k, _)| *k == i) {
                let (_, open) = self.open.remove(pos);
                self.close(i, open, Some(item), out, ctx);
            } else if let Some(done) = self.done.iter().find(|d| d.index == i) {
                for ((part, meta), d) in done.parts.iter().zip(decode_item(item, ctx)) {
                    if d.meta() != meta {
                        out.push(StreamPart::Meta {
                            part: *part,
                            meta: d.meta().clone(),
                        });
                    }
                }
            } else {
                for d in decode_item(item, ctx) {
                    emit_part(d, out);
                }
            }
        }
        self.close_all(out, ctx);
        let mut head = decode_head(resp, has_calls, ctx);
        if let Some(u) = head.usage.take() {
            out.push(StreamPart::Usage(u));
        }
        if !head.vendor.is_empty() {
            out.push(StreamPart::ResponseMeta(head.vendor));
        }
        let stop_reason = head.choices.pop().and_then(|c| c.stop_reason);
        out.push(StreamPart::Finish {
            choice: 0,
            stop_reason,
            vendor: Default::default(),
        });
        self.terminal = true;
    }
}

/// The end of an item that has no complete form: its open parts end.
fn close_parts(open: Open, out: &mut Parts) {
    match open {
        Open::Message { head, content } => {
            let mut first = true;
            for (_, c) in content {
                match c {
                    Content::Text { part, .. } => out.push(StreamPart::End { part }),
                    Content::Refusal { part: Some(_), .. } => {}
                    Content::Refusal { text, part: None } => {
                        let meta = if first {
                            head.clone()
                        } else {
                            PartMeta::default()
                        };
                        emit_part(Part::Refusal(Text { text, meta }), out);
                    }
                }
                first = false;
            }
        }
        Open::Call { part, args, start } => {
            if !args && !start.is_empty() {
                out.push(StreamPart::ToolDelta { part, json: start });
            }
            out.push(StreamPart::End { part });
        }
        Open::Reasoning { part, .. } => out.push(StreamPart::End { part }),
        Open::Whole => {}
    }
}

/// What the first part of a message item carries from the start: the `msg` hint (how
/// the item is spelled) and the item id. The done item's complete fields replace them.
fn msg_head(m: &w::Message) -> PartMeta {
    let mut hint = Map::new();
    if m.kind.is_some() {
        hint.insert(TYPED.into(), Value::Bool(true));
    }
    if matches!(m.content, TextOrParts::Parts(_)) {
        hint.insert(PARTS.into(), Value::Bool(true));
    }
    let mut meta = PartMeta::default();
    meta.vendor.set_hint(F, MSG, Value::Object(hint));
    if let Some(id) = &m.id {
        meta.vendor
            .set_field(F, &format!("{MSG_FIELD}id"), Value::String(id.clone()));
    }
    meta
}

/// A complete output item as the neutral parts the whole-body decoder makes of it.
fn decode_item(item: w::Item, ctx: &mut Ctx<'_>) -> Vec<Part> {
    let mut m = Message::new(Role::Assistant, Vec::new());
    push_assistant_item(&mut m, "", output_item(item), "", ctx);
    m.content
}

/// Sends a complete neutral part: its start, its content and its end. Returns its id and
/// meta.
fn emit_part(part: Part, out: &mut Parts) -> (PartId, PartMeta) {
    let id = out.id();
    let meta = part.meta().clone();
    match part {
        Part::Text(t) => {
            out.push(StreamPart::TextStart {
                part: id,
                choice: 0,
                meta: t.meta,
            });
            if !t.text.is_empty() {
                out.push(StreamPart::TextDelta {
                    part: id,
                    text: t.text,
                });
            }
            out.push(StreamPart::End { part: id });
        }
        Part::ToolCall(c) => {
            let json = c.arguments.text();
            out.push(StreamPart::ToolStart {
                part: id,
                choice: 0,
                id: c.id,
                synthetic_id: c.synthetic_id,
                name: c.name,
                meta: c.meta,
            });
            if !json.is_empty() {
                out.push(StreamPart::ToolDelta { part: id, json });
            }
            out.push(StreamPart::End { part: id });
        }
        Part::Reasoning(r) => {
            out.push(StreamPart::ReasoningStart {
                part: id,
                choice: 0,
                id: r.id,
                meta: r.meta,
            });
            if let Some(text) = r.text {
                out.push(StreamPart::ReasoningDelta { part: id, text });
            }
            for (i, text) in r.summary.into_iter().enumerate() {
                out.push(StreamPart::SummaryDelta {
                    part: id,
                    index: i as u32,
                    text,
                });
            }
            if let Some(token) = r.encrypted {
                out.push(StreamPart::Signature {
                    part: id,
                    token,
                    encrypted: true,
                });
            }
            out.push(StreamPart::End { part: id });
        }
        other => out.push(StreamPart::Whole {
            part: id,
            choice: 0,
            content: other,
        }),
    }
    (id, meta)
}

// ---------------------------------------------------------------------------------------
// Encoding

/// What an output item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    Call,
    Reasoning,
    Whole,
}

/// An output item written (open or done).
#[derive(Debug)]
struct OutItem {
    /// The id its events carry.
    id: String,
    /// The id is the parts' own (this format's item id), not made up: the accumulated
    /// parts' id is the item's (a later id, when the source changed it).
    own: bool,
    kind: Kind,
    /// Its parts, in order (a message item's content parts).
    parts: Vec<PartId>,
    /// How many of them are still open.
    open: usize,
    /// The complete item, once done.
    done: Option<w::Item>,
    /// A part's vendor data changed after the item was done: the item is written again
    /// from the accumulated parts for the terminal response.
    stale: bool,
}

/// Where a part went.
#[derive(Debug)]
struct Placed {
    part: PartId,
    /// Its output item (`None`: a reasoning part whose item is not written yet).
    item: Option<usize>,
    /// Its content index in a message item.
    content: u32,
    /// Its index in the accumulated message's content.
    pos: usize,
    kind: Kind,
    /// Reasoning: the summary being written, and how many were started.
    summary: Option<u32>,
    summaries: u32,
    /// Reasoning: its text part was started.
    text: bool,
    ended: bool,
}

/// The Responses stream encoder.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    /// The parts so far, added up: what each item and the terminal response are
    /// written from.
    acc: Accumulator,
    seq: u64,
    started: bool,
    finished: bool,
    items: Vec<OutItem>,
    placed: Vec<Placed>,
    /// The message item that text parts join (an index into `items`).
    joinable: Option<usize>,
    /// Parts not written (another choice, reasoning dropped).
    dropped: Vec<PartId>,
    /// Parts of choice 0 opened so far.
    opened: usize,
}

/// A loss pointer of a part.
fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
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
            self.start(start, out, ctx)?;
            if matches!(part, StreamPart::Start(_)) {
                return Ok(());
            }
        }
        if let Some(p) = part_of(&part) {
            if self.dropped.contains(&p) {
                return Ok(());
            }
        }
        match part {
            StreamPart::Start(_) => Ok(()),
            StreamPart::TextStart { part, choice, meta } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                let new_item = meta.vendor.format == Some(F) && meta.vendor.hint(F, MSG).is_some();
                let item_id = own_field(&meta, &format!("{MSG_FIELD}id"));
                self.acc.push(StreamPart::TextStart { part, choice, meta });
                self.text_part(part, new_item, item_id, false, out, ctx)
            }
            StreamPart::TextDelta { part, text } => {
                self.acc.push(StreamPart::TextDelta {
                    part,
                    text: text.clone(),
                });
                match self.placed(part).map(|p| p.kind) {
                    Some(Kind::Reasoning) => self.reasoning_delta(part, text, out),
                    Some(Kind::Message) => {
                        let (item, content) = self.place(part);
                        self.emit(
                            out,
                            "response.output_text.delta",
                            json!({"item_id": item, "output_index": content.0, "content_index": content.1, "delta": text, "logprobs": []}),
                        )
                    }
                    _ => Ok(()),
                }
            }
            StreamPart::ReasoningStart {
                part,
                choice,
                id,
                meta,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                let foreign = self.acc.response().source != Some(F);
                if foreign && ctx.options.reasoning == ReasoningMode::Drop {
                    // Not added up either: it takes no place in the message.
                    self.opened -= 1;
                    self.dropped.push(part);
                    ctx.dropped(
                        LossCode::ReasoningDropped,
                        at(part),
                        "reasoning dropped (option reasoning = drop)",
                    );
                    return Ok(());
                }
                self.release(out, ctx)?;
                self.acc.push(StreamPart::ReasoningStart {
                    part,
                    choice,
                    id,
                    meta,
                });
                self.place_new(part, None, 0, Kind::Reasoning);
                Ok(())
            }
            StreamPart::ReasoningDelta { part, text } => {
                self.acc.push(StreamPart::ReasoningDelta {
                    part,
                    text: text.clone(),
                });
                self.reasoning_delta(part, text, out)
            }
            StreamPart::SummaryDelta { part, index, text } => {
                self.acc.push(StreamPart::SummaryDelta {
                    part,
                    index,
                    text: text.clone(),
                });
                self.summary_delta(part, index, text, out)
            }
            p @ (StreamPart::Signature { .. }
            | StreamPart::Usage(_)
            | StreamPart::ResponseMeta(_)) => {
                self.acc.push(p);
                Ok(())
            }
            StreamPart::ToolStart {
                part,
                choice,
                id,
                synthetic_id,
                name,
                meta,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                self.release(out, ctx)?;
                let index = self.items.len();
                let own = own_field(&meta, "id");
                let mine = own.is_some();
                let item_id = own.unwrap_or_else(|| format!("fc_{index}"));
                let added = json!({"type": "function_call", "id": item_id, "call_id": id, "name": name, "arguments": "", "status": "in_progress"});
                self.acc.push(StreamPart::ToolStart {
                    part,
                    choice,
                    id,
                    synthetic_id,
                    name,
                    meta,
                });
                self.open_item(item_id, mine, Kind::Call, added, out)?;
                self.place_new(part, Some(index), 0, Kind::Call);
                Ok(())
            }
            StreamPart::ToolDelta { part, json } => {
                self.acc.push(StreamPart::ToolDelta {
                    part,
                    json: json.clone(),
                });
                if self.placed(part).is_none() {
                    return Ok(());
                }
                let (item, (index, _)) = self.place(part);
                self.emit(
                    out,
                    "response.function_call_arguments.delta",
                    json!({"item_id": item, "output_index": index, "delta": json}),
                )
            }
            StreamPart::Whole {
                part,
                choice,
                content,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                self.whole(part, content, out, ctx)
            }
            StreamPart::Meta { part, meta } => {
                self.acc.push(StreamPart::Meta { part, meta });
                if let Some(item) = self.placed(part).and_then(|p| p.item) {
                    if self.items[item].done.is_some() {
                        self.items[item].stale = true;
                    }
                }
                Ok(())
            }
            StreamPart::End { part } => self.end_part(part, out, ctx),
            StreamPart::Finish {
                choice,
                stop_reason,
                vendor,
            } => {
                if choice != 0 {
                    return Ok(());
                }
                self.acc.push(StreamPart::Finish {
                    choice,
                    stop_reason,
                    vendor,
                });
                self.terminal(None, out, ctx)
            }
            StreamPart::Error(e) => {
                self.acc.push(StreamPart::Error(e.clone()));
                self.terminal(Some(e), out, ctx)
            }
        }
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.finished {
            return Ok(());
        }
        if !self.started {
            self.start(StreamStart::default(), out, ctx)?;
        }
        // The source ended without a finish (its decoder reports why): not a normal end
        // here either.
        let e = StreamError {
            kind: StreamErrorKind::Incomplete,
            code: None,
            message: "the source stream ended before it finished".to_owned(),
            value: None,
        };
        self.acc.push(StreamPart::Error(e.clone()));
        self.terminal(Some(e), out, ctx)
    }
}

/// The part a stream part is about, if any.
fn part_of(part: &StreamPart) -> Option<PartId> {
    match part {
        StreamPart::TextDelta { part, .. }
        | StreamPart::ReasoningDelta { part, .. }
        | StreamPart::SummaryDelta { part, .. }
        | StreamPart::Signature { part, .. }
        | StreamPart::ToolDelta { part, .. }
        | StreamPart::Meta { part, .. }
        | StreamPart::End { part } => Some(*part),
        _ => None,
    }
}

/// A field of this format's vendor record of `meta`, as a string.
fn own_field(meta: &PartMeta, key: &str) -> Option<String> {
    if meta.vendor.format != Some(F) {
        return None;
    }
    meta.vendor
        .fields
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl Encoder {
    /// Writes one event: its `type` and `sequence_number` first.
    fn emit(&mut self, out: &mut Events, name: &'static str, value: Value) -> Result<(), Error> {
        let mut event = Map::new();
        event.insert("type".into(), Value::String(name.into()));
        event.insert("sequence_number".into(), Value::from(self.seq));
        if let Value::Object(m) = value {
            event.extend(m);
        }
        self.seq += 1;
        out.push(Some(name), &Value::Object(event))
    }

    fn start(
        &mut self,
        start: StreamStart,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        self.started = true;
        let head = crate::model::Response {
            id: start.id.clone(),
            model: start.model.clone(),
            created: start.created,
            choices: Vec::new(),
            usage: None,
            vendor: start.vendor.clone(),
            source: start.format,
        };
        self.acc.push(StreamPart::Start(start));
        let mut head = head;
        fill_required(&mut head, ctx);
        let mut response = super::response::encode_response(head, ctx)?;
        response.status = Some(w::ResponseStatus::InProgress);
        let value = wire_types::to_value(&response);
        self.emit(out, "response.created", json!({"response": value}))?;
        self.emit(out, "response.in_progress", json!({"response": value}))
    }

    fn choice_ok(&mut self, part: PartId, choice: u32, ctx: &mut Ctx<'_>) -> bool {
        if choice == 0 {
            self.opened += 1;
            return true;
        }
        self.dropped.push(part);
        ctx.dropped(
            LossCode::ChoicesDropped,
            at(part),
            format!("{F} streams one output: a part of choice {choice} is not sent"),
        );
        false
    }

    fn placed(&self, part: PartId) -> Option<&Placed> {
        self.placed.iter().find(|p| p.part == part)
    }

    fn placed_mut(&mut self, part: PartId) -> Option<&mut Placed> {
        self.placed.iter_mut().find(|p| p.part == part)
    }

    /// The item id of a placed part, and its output and content indexes.
    fn place(&self, part: PartId) -> (String, (usize, u32)) {
        match self.placed(part) {
            Some(Placed {
                item: Some(i),
                content,
                ..
            }) => (self.items[*i].id.clone(), (*i, *content)),
            _ => (String::new(), (0, 0)),
        }
    }

    fn place_new(&mut self, part: PartId, item: Option<usize>, content: u32, kind: Kind) {
        self.placed.push(Placed {
            part,
            item,
            content,
            pos: self.opened - 1,
            kind,
            summary: None,
            summaries: 0,
            text: false,
            ended: false,
        });
        if let Some(i) = item {
            self.items[i].parts.push(part);
            self.items[i].open += 1;
        }
    }

    /// Starts an output item with `added` as its partial form.
    fn open_item(
        &mut self,
        id: String,
        own: bool,
        kind: Kind,
        added: Value,
        out: &mut Events,
    ) -> Result<usize, Error> {
        let index = self.items.len();
        self.items.push(OutItem {
            id,
            own,
            kind,
            parts: Vec::new(),
            open: 0,
            done: None,
            stale: false,
        });
        self.emit(
            out,
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        )?;
        Ok(index)
    }

    /// No more text joins the message item being written: it ends once its parts have.
    fn release(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if let Some(i) = self.joinable.take() {
            if self.items[i].open == 0 {
                self.item_done(i, out, ctx)?;
            }
        }
        Ok(())
    }

    /// A text or refusal part starts in the message item (a new one if `new_item`, or
    /// none is open).
    fn text_part(
        &mut self,
        part: PartId,
        new_item: bool,
        item_id: Option<String>,
        refusal: bool,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        if new_item {
            self.release(out, ctx)?;
        }
        let item = match self.joinable {
            Some(i) => i,
            None => {
                let index = self.items.len();
                let mine = item_id.is_some();
                let id = item_id.unwrap_or_else(|| format!("msg_{index}"));
                let added = json!({"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []});
                let i = self.open_item(id, mine, Kind::Message, added, out)?;
                self.joinable = Some(i);
                i
            }
        };
        let content = self.items[item].parts.len() as u32;
        self.place_new(part, Some(item), content, Kind::Message);
        let empty = if refusal {
            json!({"type": "refusal", "refusal": ""})
        } else {
            json!({"type": "output_text", "text": "", "annotations": []})
        };
        let id = self.items[item].id.clone();
        self.emit(
            out,
            "response.content_part.added",
            json!({"item_id": id, "output_index": item, "content_index": content, "part": empty}),
        )
    }

    /// Opens the item of a reasoning part at its first content.
    fn reasoning_item(&mut self, part: PartId, out: &mut Events) -> Result<Option<usize>, Error> {
        let Some(p) = self.placed(part) else {
            return Ok(None);
        };
        if p.item.is_some() {
            return Ok(p.item);
        }
        let index = self.items.len();
        let own = match self
            .acc
            .response()
            .choices
            .first()
            .and_then(|c| c.message.content.get(p.pos))
        {
            Some(Part::Reasoning(r)) if r.source == Some(F) => r.id.clone(),
            _ => None,
        };
        let mine = own.is_some();
        let id = own.unwrap_or_else(|| format!("rs_{index}"));
        let added = json!({"type": "reasoning", "id": id, "summary": []});
        let i = self.open_item(id, mine, Kind::Reasoning, added, out)?;
        if let Some(p) = self.placed_mut(part) {
            p.item = Some(i);
        }
        self.items[i].parts.push(part);
        self.items[i].open += 1;
        Ok(Some(i))
    }

    fn reasoning_delta(
        &mut self,
        part: PartId,
        text: String,
        out: &mut Events,
    ) -> Result<(), Error> {
        let Some(i) = self.reasoning_item(part, out)? else {
            return Ok(());
        };
        let id = self.items[i].id.clone();
        if let Some(p) = self.placed_mut(part) {
            if !p.text {
                p.text = true;
                self.emit(
                    out,
                    "response.content_part.added",
                    json!({"item_id": id, "output_index": i, "content_index": 0, "part": {"type": "reasoning_text", "text": ""}}),
                )?;
            }
        }
        self.emit(
            out,
            "response.reasoning_text.delta",
            json!({"item_id": id, "output_index": i, "content_index": 0, "delta": text}),
        )
    }

    fn summary_delta(
        &mut self,
        part: PartId,
        index: u32,
        text: String,
        out: &mut Events,
    ) -> Result<(), Error> {
        let Some(i) = self.reasoning_item(part, out)? else {
            return Ok(());
        };
        let id = self.items[i].id.clone();
        let (open, count) = match self.placed(part) {
            Some(p) => (p.summary, p.summaries),
            None => return Ok(()),
        };
        // As the accumulator reads it: an index past the last starts the next summary.
        let index = index.min(count);
        if open != Some(index) {
            self.summary_done(part, out)?;
            if let Some(p) = self.placed_mut(part) {
                p.summary = Some(index);
                if index == count {
                    p.summaries += 1;
                }
            }
            self.emit(
                out,
                "response.reasoning_summary_part.added",
                json!({"item_id": id, "output_index": i, "summary_index": index, "part": {"type": "summary_text", "text": ""}}),
            )?;
        }
        self.emit(
            out,
            "response.reasoning_summary_text.delta",
            json!({"item_id": id, "output_index": i, "summary_index": index, "delta": text}),
        )
    }

    /// The accumulated part `part`.
    fn accumulated(&self, part: PartId) -> Option<&Part> {
        let pos = self.placed(part)?.pos;
        self.acc
            .response()
            .choices
            .first()?
            .message
            .content
            .get(pos)
    }

    /// Ends the summary being written of a reasoning part.
    fn summary_done(&mut self, part: PartId, out: &mut Events) -> Result<(), Error> {
        let Some(p) = self.placed_mut(part) else {
            return Ok(());
        };
        let Some(index) = p.summary.take() else {
            return Ok(());
        };
        let Some(i) = p.item else { return Ok(()) };
        let text = match self.accumulated(part) {
            Some(Part::Reasoning(r)) => r.summary.get(index as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        let id = self.items[i].id.clone();
        self.emit(
            out,
            "response.reasoning_summary_text.done",
            json!({"item_id": id, "output_index": i, "summary_index": index, "text": text}),
        )?;
        self.emit(
            out,
            "response.reasoning_summary_part.done",
            json!({"item_id": id, "output_index": i, "summary_index": index, "part": {"type": "summary_text", "text": text}}),
        )
    }

    /// A whole part: text and refusals join the message item, anything else is written
    /// as the items the whole-body encoder makes of it.
    fn whole(
        &mut self,
        part: PartId,
        content: Part,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        self.acc.push(StreamPart::Whole {
            part,
            choice: 0,
            content: content.clone(),
        });
        let refusal = matches!(content, Part::Refusal(_));
        match content {
            Part::Text(t) | Part::Refusal(t) => {
                let new_item =
                    t.meta.vendor.format == Some(F) && t.meta.vendor.hint(F, MSG).is_some();
                let item_id = own_field(&t.meta, &format!("{MSG_FIELD}id"));
                self.text_part(part, new_item, item_id, refusal, out, ctx)?;
                let (id, (index, content)) = self.place(part);
                let name = if refusal {
                    "response.refusal.delta"
                } else {
                    "response.output_text.delta"
                };
                let mut delta = json!({"item_id": id, "output_index": index, "content_index": content, "delta": t.text});
                if !refusal {
                    delta["logprobs"] = json!([]);
                }
                self.emit(out, name, delta)?;
                self.end_part(part, out, ctx)
            }
            other => {
                self.release(out, ctx)?;
                let items = encode_parts(vec![(part, other)], ctx)?;
                for mut item in items {
                    let index = self.items.len();
                    // An id the whole-body encoder made up for an item of another format
                    // (`msg_0` for a part alone) may be one an earlier item has: items
                    // are told apart by their ids, so only an unused one is kept.
                    let own = item_id(&item).filter(|id| !self.items.iter().any(|i| i.id == *id));
                    let mine = own.is_some();
                    let prefix = match &item {
                        w::Item::Message(_) => "msg",
                        w::Item::FunctionCall(_) => "fc",
                        w::Item::Reasoning(_) => "rs",
                        _ => "item",
                    };
                    let id = own.unwrap_or_else(|| format!("{prefix}_{index}"));
                    set_item_id(&mut item, &id);
                    let value = wire_types::to_value(&item);
                    self.open_item(id, mine, Kind::Whole, value.clone(), out)?;
                    self.items[index].parts.push(part);
                    self.items[index].done = Some(item);
                    self.emit(
                        out,
                        "response.output_item.done",
                        json!({"output_index": index, "item": value}),
                    )?;
                }
                self.placed.push(Placed {
                    part,
                    item: None,
                    content: 0,
                    pos: self.opened - 1,
                    kind: Kind::Whole,
                    summary: None,
                    summaries: 0,
                    text: false,
                    ended: true,
                });
                Ok(())
            }
        }
    }

    /// A part ends: its `.done` events, and its item's when it was the item's last.
    fn end_part(&mut self, part: PartId, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.acc.push(StreamPart::End { part });
        let Some(p) = self.placed(part) else {
            return Ok(());
        };
        if p.ended {
            return Ok(());
        }
        let (kind, text) = (p.kind, p.text);
        if let Some(p) = self.placed_mut(part) {
            p.ended = true;
        }
        match kind {
            Kind::Message => {
                let (id, (index, content)) = self.place(part);
                let Some(acc) = self.accumulated(part).cloned() else {
                    return Ok(());
                };
                let written = encode_parts(vec![(part, acc)], ctx)?;
                let wire_part = match written.into_iter().next() {
                    Some(w::Item::Message(m)) => match m.content {
                        TextOrParts::Parts(mut p) if !p.is_empty() => p.swap_remove(0),
                        TextOrParts::Parts(_) => return Ok(()),
                        // A message item spelled with string content: its one part.
                        TextOrParts::Text(t) => w::ContentPart::OutputText(w::OutputText {
                            text: t,
                            annotations: Some(Vec::new()),
                            ..Default::default()
                        }),
                    },
                    _ => return Ok(()),
                };
                match &wire_part {
                    w::ContentPart::Refusal(r) => self.emit(
                        out,
                        "response.refusal.done",
                        json!({"item_id": id, "output_index": index, "content_index": content, "refusal": r.refusal}),
                    )?,
                    w::ContentPart::OutputText(t) => self.emit(
                        out,
                        "response.output_text.done",
                        json!({"item_id": id, "output_index": index, "content_index": content, "text": t.text, "logprobs": []}),
                    )?,
                    _ => {}
                }
                self.emit(
                    out,
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": index, "content_index": content, "part": wire_types::to_value(&wire_part)}),
                )?;
                self.items[index].open = self.items[index].open.saturating_sub(1);
                if self.joinable != Some(index) && self.items[index].open == 0 {
                    self.item_done(index, out, ctx)?;
                }
                Ok(())
            }
            Kind::Call => {
                let (id, (index, _)) = self.place(part);
                let arguments = match self.accumulated(part) {
                    Some(Part::ToolCall(c)) => c.arguments.text(),
                    _ => "{}".to_owned(),
                };
                self.emit(
                    out,
                    "response.function_call_arguments.done",
                    json!({"item_id": id, "output_index": index, "arguments": arguments}),
                )?;
                self.items[index].open = self.items[index].open.saturating_sub(1);
                self.item_done(index, out, ctx)
            }
            Kind::Reasoning => {
                let item = match self.placed(part).and_then(|p| p.item) {
                    Some(i) => Some(i),
                    // Nothing streamed: written whole, if the whole-body encoder writes it.
                    None => {
                        let Some(acc) = self.accumulated(part).cloned() else {
                            return Ok(());
                        };
                        // No item: its losses say why.
                        if encode_parts(vec![(part, acc)], ctx)?.is_empty() {
                            return Ok(());
                        }
                        self.reasoning_item(part, out)?
                    }
                };
                let Some(index) = item else { return Ok(()) };
                self.summary_done(part, out)?;
                let id = self.items[index].id.clone();
                if text {
                    let text = match self.accumulated(part) {
                        Some(Part::Reasoning(r)) => r.text.clone().unwrap_or_default(),
                        _ => String::new(),
                    };
                    self.emit(
                        out,
                        "response.reasoning_text.done",
                        json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
                    )?;
                    self.emit(
                        out,
                        "response.content_part.done",
                        json!({"item_id": id, "output_index": index, "content_index": 0, "part": {"type": "reasoning_text", "text": text}}),
                    )?;
                }
                self.items[index].open = self.items[index].open.saturating_sub(1);
                self.item_done(index, out, ctx)
            }
            Kind::Whole => Ok(()),
        }
    }

    /// The complete item at `index`, as the whole-body encoder writes its accumulated
    /// parts (with the id its events carried).
    fn item_of(&self, index: usize, ctx: &mut Ctx<'_>) -> Result<w::Item, Error> {
        let item = &self.items[index];
        let parts: Vec<(PartId, Part)> = item
            .parts
            .iter()
            .filter_map(|p| self.accumulated(*p).cloned().map(|a| (*p, a)))
            .collect();
        let mut written = encode_parts(parts, ctx)?.into_iter();
        let mut out = match (written.next(), item.kind) {
            (Some(i), _) => i,
            // The whole-body encoder wrote nothing (its losses say why): the bare item.
            (None, Kind::Reasoning) => w::Item::Reasoning(w::Reasoning {
                id: item.id.clone(),
                summary: Vec::new(),
                content: None,
                encrypted_content: None,
                status: None,
                extra: Default::default(),
            }),
            (None, _) => match &item.done {
                Some(d) => d.clone(),
                None => w::Item::Other(Map::new()),
            },
        };
        if !item.own || item_id(&out).is_none() {
            set_item_id(&mut out, &item.id);
        }
        Ok(out)
    }

    fn item_done(
        &mut self,
        index: usize,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        if self.items[index].done.is_some() {
            return Ok(());
        }
        let item = self.item_of(index, ctx)?;
        let value = wire_types::to_value(&item);
        self.items[index].done = Some(item);
        self.emit(
            out,
            "response.output_item.done",
            json!({"output_index": index, "item": value}),
        )
    }

    /// The end: open parts and items end, and the terminal event carries the whole
    /// response (`failed`, with the error, after an `error` event for `error`).
    fn terminal(
        &mut self,
        error: Option<StreamError>,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
        let open: Vec<PartId> = self
            .placed
            .iter()
            .filter(|p| !p.ended)
            .map(|p| p.part)
            .collect();
        for part in open {
            self.end_part(part, out, ctx)?;
        }
        if let Some(i) = self.joinable.take() {
            self.item_done(i, out, ctx)?;
        }
        for i in 0..self.items.len() {
            self.item_done(i, out, ctx)?;
        }
        let mut output = Vec::with_capacity(self.items.len());
        for i in 0..self.items.len() {
            let item = if self.items[i].stale {
                self.item_of(i, ctx)?
            } else {
                self.items[i]
                    .done
                    .clone()
                    .unwrap_or_else(|| w::Item::Other(Map::new()))
            };
            output.push(item);
        }
        let mut response = match std::mem::take(&mut self.acc).finish() {
            Ok(r) => r,
            Err(Error::Incomplete { partial, .. }) => *partial,
            Err(e) => return Err(e),
        };
        response.choices.truncate(1);
        for c in &mut response.choices {
            c.message.content.clear();
        }
        let mut scratch = Ctx::new(F, ctx.options);
        fill_required(&mut response, &mut scratch);
        let mut wire = super::response::encode_response(response, &mut scratch)?;
        ctx.extend_losses(
            scratch
                .take_losses()
                .into_iter()
                .map(|mut l| {
                    if let Some(rest) = l.path.strip_prefix("/choices/0") {
                        l.path = format!("/finish{rest}");
                    }
                    l
                })
                .collect(),
        );
        wire.output = output;
        self.finished = true;
        let name = match (&error, &wire.status) {
            (Some(e), _) => {
                let code = e.code.clone().unwrap_or_else(|| match e.kind {
                    StreamErrorKind::Incomplete => "stream_incomplete".to_owned(),
                    _ => "server_error".to_owned(),
                });
                self.emit(
                    out,
                    "error",
                    json!({"code": code, "message": e.message, "param": null,
                           "error": {"type": code, "code": code, "message": e.message, "param": null}}),
                )?;
                wire.status = Some(w::ResponseStatus::Failed);
                // The response's `error.code` is a closed set in the SDK; the `error` event
                // above carries any other code as it came.
                let code = if RESPONSE_ERROR_CODES.contains(&code.as_str()) {
                    code
                } else {
                    "server_error".to_owned()
                };
                wire.error = Some(w::ResponseError {
                    code: Some(code),
                    message: Some(e.message.clone()),
                    extra: Default::default(),
                });
                "response.failed"
            }
            (None, Some(w::ResponseStatus::Incomplete)) => "response.incomplete",
            (None, Some(w::ResponseStatus::Failed)) => "response.failed",
            (None, _) => {
                wire.status = Some(w::ResponseStatus::Completed);
                "response.completed"
            }
        };
        self.emit(out, name, json!({"response": wire_types::to_value(&wire)}))
    }
}

/// The codes a failed response's `error` may have (openai-python
/// `types/responses/response_error.py`, `code: Literal[…]`).
const RESPONSE_ERROR_CODES: &[&str] = &[
    "server_error",
    "rate_limit_exceeded",
    "invalid_prompt",
    "data_residency_mismatch",
    "bio_policy",
    "misalignment_policy_violation",
    "vector_store_timeout",
    "invalid_image",
    "invalid_image_format",
    "invalid_base64_image",
    "invalid_image_url",
    "image_too_large",
    "image_too_small",
    "image_parse_error",
    "image_content_policy_violation",
    "invalid_image_mode",
    "image_file_too_large",
    "unsupported_image_media_type",
    "empty_image_file",
    "failed_to_download_image",
    "image_file_not_found",
];

/// The id of an item, if it has one.
fn item_id(item: &w::Item) -> Option<String> {
    match item {
        w::Item::Message(m) => m.id.clone(),
        w::Item::FunctionCall(c) => c.id.clone(),
        w::Item::FunctionCallOutput(o) => o.id.clone(),
        w::Item::Reasoning(r) => Some(r.id.clone()),
        w::Item::Other(m) => m.get("id").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// Gives an item the id its events carried.
fn set_item_id(item: &mut w::Item, id: &str) {
    match item {
        w::Item::Message(m) => m.id = Some(id.to_owned()),
        w::Item::FunctionCall(c) => c.id = Some(id.to_owned()),
        w::Item::FunctionCallOutput(o) => o.id = Some(id.to_owned()),
        w::Item::Reasoning(r) => id.clone_into(&mut r.id),
        w::Item::Other(m) => {
            m.insert("id".into(), Value::String(id.to_owned()));
        }
        _ => {}
    }
}

/// The items the whole-body encoder makes of parts of one assistant message, its losses
/// pointing at the parts (`/parts/<id>`).
fn encode_parts(parts: Vec<(PartId, Part)>, ctx: &mut Ctx<'_>) -> Result<Vec<w::Item>, Error> {
    let ids: Vec<PartId> = parts.iter().map(|(p, _)| *p).collect();
    let message = Message::new(Role::Assistant, parts.into_iter().map(|(_, p)| p).collect());
    let mut scratch = Ctx::new(F, ctx.options);
    let mut items = Vec::new();
    encode_assistant(
        message,
        "",
        Mode::Response("completed"),
        &mut items,
        &mut scratch,
    )?;
    let losses = scratch
        .take_losses()
        .into_iter()
        .map(|mut l| {
            if let Some(rest) = l.path.strip_prefix("/content/") {
                let (j, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                if let Some(id) = j.parse::<usize>().ok().and_then(|j| ids.get(j)) {
                    l.path = format!("{}{tail}", at(*id));
                }
            }
            l
        })
        .collect();
    ctx.extend_losses(losses);
    Ok(items)
}

/// The fields the SDK's `Response` requires that the source lacks, filled by the one
/// rule every response encoder follows (`passes::response`), for the responses the
/// stream writes whole (`response.created`, the terminal event).
fn fill_required(response: &mut crate::model::Response, ctx: &mut Ctx<'_>) {
    use crate::codec::Codec;
    crate::passes::response::fill_required(
        response,
        super::OpenaiResponses::RESPONSE_REQUIRES,
        ctx,
    );
}

#[cfg(test)]
mod tests {
    use crate::model::Arguments;
    use crate::stream::{Accumulator, Framing, StreamDecoder, StreamEncoder, StreamPart};
    use crate::{Error, Format, Options};
    use serde_json::Value;

    /// Every stream fixture of `format`: its name, bytes and framing.
    fn fixtures(format: &str) -> Vec<(String, Vec<u8>, Framing)> {
        let dir = test_support::fixtures_dir().join(format).join("stream");
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?.to_owned();
                let framing = if name.ends_with(".sse.txt") {
                    Framing::Sse
                } else if name.ends_with(".chunks.txt") {
                    Framing::Ndjson
                } else {
                    return None;
                };
                Some((name, std::fs::read(&p).ok()?, framing))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    fn decode(format: Format, bytes: &[u8], framing: Framing) -> Vec<StreamPart> {
        let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).unwrap();
        let mut parts = d.push(bytes).unwrap();
        parts.extend(d.finish().unwrap());
        parts
    }

    fn encode(parts: Vec<StreamPart>) -> Vec<u8> {
        let mut e = StreamEncoder::new(Format::OpenaiResponses, &Options::default()).unwrap();
        let mut bytes = e.encode_all(parts).unwrap();
        bytes.extend(e.finish().unwrap());
        bytes
    }

    /// The `event:` name and data of each SSE event written.
    fn events(bytes: &[u8]) -> Vec<(String, Value)> {
        let text = std::str::from_utf8(bytes).unwrap();
        text.split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|e| {
                let mut name = String::new();
                let mut data = String::new();
                for line in e.lines() {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = n.to_owned();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push_str(d);
                    }
                }
                (name, serde_json::from_str(&data).unwrap())
            })
            .collect()
    }

    fn body(parts: Vec<StreamPart>) -> Result<Value, Error> {
        let mut acc = Accumulator::new();
        acc.extend(parts);
        let r = acc.finish()?;
        Ok(crate::encode_response_value(r, Format::OpenaiResponses, &Options::default())?.value)
    }

    /// Every stream of Responses and Anthropic, written as a Responses stream: every
    /// event is valid against the SDK's `ResponseStreamEvent`, named after its type,
    /// numbered in order from 0, and the last is the terminal event.
    #[test]
    fn every_event_written_is_valid_against_the_sdk_event_schema() {
        let schema = test_support::conformance("openai-responses.event").unwrap();
        let mut checked = 0;
        for (source, format) in [
            ("openai-responses", Format::OpenaiResponses),
            ("anthropic", Format::Anthropic),
        ] {
            for (name, bytes, framing) in fixtures(source) {
                let written = encode(decode(format, &bytes, framing));
                let events = events(&written);
                for (n, (event, data)) in events.iter().enumerate() {
                    let mut data = data.clone();
                    // A Responses source's usage without `cache_write_tokens` (which the
                    // SDK requires) is written back as it came (see KNOWN in
                    // tests/it/stream.rs).
                    if let Some(d) = data
                        .pointer_mut("/response/usage/input_tokens_details")
                        .and_then(Value::as_object_mut)
                    {
                        if source == "openai-responses" {
                            d.entry("cache_write_tokens").or_insert(0.into());
                        }
                    }
                    let errors = test_support::schema_errors(schema, &data);
                    assert!(
                        errors.is_empty(),
                        "{source}/{name}: event {n} {data}: {errors:?}"
                    );
                    assert_eq!(data["type"], event.as_str(), "{source}/{name}: event {n}");
                    assert_eq!(data["sequence_number"], n, "{source}/{name}: event {n}");
                }
                let last = events.last().map(|(e, _)| e.as_str());
                assert!(
                    matches!(
                        last,
                        Some("response.completed" | "response.incomplete" | "response.failed")
                    ),
                    "{source}/{name}: ends with {last:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 20);
    }

    /// A Responses stream decoded and written again reads back to the same response,
    /// field for field (and a stream cut short stays cut short).
    #[test]
    fn a_responses_stream_written_back_adds_up_to_the_same_response() {
        for (name, bytes, framing) in fixtures("openai-responses") {
            let parts = decode(Format::OpenaiResponses, &bytes, framing);
            let written = encode(parts.clone());
            let back = decode(Format::OpenaiResponses, &written, Framing::Sse);
            match (body(parts), body(back)) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(test_support::first_difference(&a, &b), None, "{name}")
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{name}: {a:?} written back gives {b:?}"),
            }
        }
    }

    /// The arguments of a call, from a stream's parts.
    fn calls(parts: Vec<StreamPart>) -> Vec<(String, String)> {
        let mut acc = Accumulator::new();
        acc.extend(parts);
        let r = acc.finish().unwrap();
        r.choices[0]
            .message
            .content
            .iter()
            .filter_map(|p| match p {
                crate::model::Part::ToolCall(c) => match &c.arguments {
                    Arguments::Text(t) => Some((c.id.clone(), t.clone())),
                    a => Some((c.id.clone(), a.text())),
                },
                _ => None,
            })
            .collect()
    }

    fn fixture(name: &str) -> Vec<StreamPart> {
        let (_, bytes, framing) = fixtures("openai-responses")
            .into_iter()
            .find(|(n, _, _)| n == name)
            .unwrap();
        decode(Format::OpenaiResponses, &bytes, framing)
    }

    #[test]
    fn arguments_sent_only_in_the_done_event_are_the_call_s_arguments() {
        assert_eq!(
            calls(fixture("handmade-arguments-only-in-done.chunks.txt")),
            [(
                "call_H5DxLSFnsGhiROnUiDHmgyc8".to_owned(),
                r#"{"location":"San Francisco"}"#.to_owned()
            )]
        );
    }

    #[test]
    fn a_rotating_item_id_keeps_one_call_keyed_by_output_index() {
        assert_eq!(
            calls(fixture("handmade-item-id-rotating.chunks.txt")),
            [(
                "call_H5DxLSFnsGhiROnUiDHmgyc8".to_owned(),
                r#"{"location":"San Francisco"}"#.to_owned()
            )]
        );
    }

    #[test]
    fn interleaved_parallel_calls_stay_apart() {
        assert_eq!(
            calls(fixture("handmade-parallel-calls-interleaved.chunks.txt")),
            [
                (
                    "call_H5DxLSFnsGhiROnUiDHmgyc8".to_owned(),
                    r#"{"location":"San Francisco"}"#.to_owned()
                ),
                (
                    "call_Kq7WmZ2dPxB9fYtLsN4eRv1c".to_owned(),
                    r#"{"location":"Boston"}"#.to_owned()
                ),
            ]
        );
    }

    /// Text streams as it comes: each delta is written before the next part arrives.
    #[test]
    fn text_is_written_as_it_comes() {
        let mut e = StreamEncoder::new(Format::OpenaiResponses, &Options::default()).unwrap();
        let p = crate::stream::PartId(0);
        let mut names = Vec::new();
        for part in [
            StreamPart::Start(Default::default()),
            StreamPart::TextStart {
                part: p,
                choice: 0,
                meta: Default::default(),
            },
            StreamPart::TextDelta {
                part: p,
                text: "Hel".into(),
            },
            StreamPart::TextDelta {
                part: p,
                text: "lo".into(),
            },
        ] {
            names.push(
                events(&e.encode(part).unwrap())
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect::<Vec<_>>(),
            );
        }
        assert_eq!(
            names,
            [
                vec!["response.created", "response.in_progress"],
                vec!["response.output_item.added", "response.content_part.added"],
                vec!["response.output_text.delta"],
                vec!["response.output_text.delta"],
            ]
        );
        let end = events(&e.encode(StreamPart::End { part: p }).unwrap());
        let finish = events(
            &e.encode(StreamPart::Finish {
                choice: 0,
                stop_reason: None,
                vendor: Default::default(),
            })
            .unwrap(),
        );
        let names: Vec<&str> = end.iter().chain(&finish).map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.completed"
            ]
        );
        let (_, completed) = &finish[finish.len() - 1];
        assert_eq!(
            completed["response"]["output"][0]["content"][0]["text"],
            "Hello"
        );
        assert_eq!(
            completed["response"]["output"][0]["id"],
            finish[0].1["item"]["id"]
        );
    }

    /// Foreign reasoning is written as a reasoning item (its signature dropped, a loss),
    /// or, with `reasoning: drop`, not at all; the other items' indexes stay dense.
    #[test]
    fn foreign_reasoning_is_carried_or_dropped_as_the_options_say() {
        let bytes = std::fs::read(
            test_support::fixtures_dir()
                .join("anthropic/stream/thinking-signature-delta.chunks.txt"),
        )
        .unwrap();
        let parts = decode(Format::Anthropic, &bytes, Framing::Ndjson);
        for (mode, reasoning) in [
            (crate::ReasoningMode::Carry, true),
            (crate::ReasoningMode::Drop, false),
        ] {
            let options = Options {
                reasoning: mode,
                ..Default::default()
            };
            let mut e = StreamEncoder::new(Format::OpenaiResponses, &options).unwrap();
            let mut bytes = e.encode_all(parts.clone()).unwrap();
            bytes.extend(e.finish().unwrap());
            let (_, last) = events(&bytes).pop().unwrap();
            let output = last["response"]["output"].as_array().unwrap().clone();
            assert_eq!(
                output[0]["type"] == "reasoning",
                reasoning,
                "{mode:?}: {output:?}"
            );
            let mut source = Accumulator::new();
            source.extend(parts.clone());
            let text = source.finish().unwrap().choices[0].message.joined_text();
            let message = output.iter().find(|i| i["type"] == "message").unwrap();
            assert_eq!(message["content"][0]["text"], text.as_str(), "{mode:?}");
            let codes: Vec<_> = e.losses().iter().map(|l| l.code).collect();
            let dropped = codes.contains(&crate::LossCode::ReasoningDropped);
            assert_eq!(dropped, !reasoning, "{mode:?}: {:?}", e.losses());
            if reasoning {
                assert!(
                    codes.contains(&crate::LossCode::SignatureForeign),
                    "{:?}",
                    e.losses()
                );
            }
            let back = decode(Format::OpenaiResponses, &bytes, Framing::Sse);
            assert!(body(back).is_ok());
        }
    }

    /// An item that comes only in `response.output_item.done` (twice), and one only in
    /// the terminal response: each is in the response once, in its place.
    #[test]
    fn items_the_stream_did_not_announce_are_sent_whole_once() {
        let msg = r#"{"type":"message","id":"msg_a","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hi","annotations":[]}]}"#;
        let call = r#"{"type":"function_call","id":"fc_b","call_id":"call_b","name":"f","arguments":"{\"x\":1}","status":"completed"}"#;
        let head = r#""id":"resp_1","object":"response","created_at":1,"model":"m","tools":[],"tool_choice":"auto","parallel_tool_calls":true"#;
        let lines = [
            format!(
                r#"{{"type":"response.created","sequence_number":0,"response":{{{head},"status":"in_progress","output":[]}}}}"#
            ),
            format!(
                r#"{{"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":{msg}}}"#
            ),
            format!(
                r#"{{"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":{msg}}}"#
            ),
            format!(
                r#"{{"type":"response.completed","sequence_number":3,"response":{{{head},"status":"completed","output":[{msg},{call}]}}}}"#
            ),
        ];
        let parts = decode(
            Format::OpenaiResponses,
            lines.join("\n").as_bytes(),
            Framing::Ndjson,
        );
        let body = body(parts).unwrap();
        let expected: Value = serde_json::from_str(&format!("[{msg},{call}]")).unwrap();
        assert_eq!(body["output"], expected);
        assert_eq!(body["status"], "completed");
    }

    /// A source that ends without its finish ends the written stream with an `error`
    /// event and `response.failed`, which read back as an error.
    #[test]
    fn a_source_without_a_finish_is_not_a_normal_end() {
        let parts = fixture("handmade-no-terminal-event.chunks.txt");
        let mut e = StreamEncoder::new(Format::OpenaiResponses, &Options::default()).unwrap();
        let without_error: Vec<StreamPart> = parts
            .into_iter()
            .filter(|p| !matches!(p, StreamPart::Error(_)))
            .collect();
        let mut bytes = e.encode_all(without_error).unwrap();
        bytes.extend(e.finish().unwrap());
        let names: Vec<String> = events(&bytes).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names[names.len() - 2..], ["error", "response.failed"]);
        let back = decode(Format::OpenaiResponses, &bytes, Framing::Sse);
        assert!(matches!(body(back), Err(Error::Incomplete { .. })));
    }
}
