//! Decoding: the stream's events in, neutral stream parts out.

use super::super::decode::{decode_part, push_assistant_item};
use super::super::hints::{MSG, PARTS, TYPED};
use super::super::response::{decode_head, output_item};
use super::super::{F, MSG_FIELD};
use crate::model::{Message, Part, PartMeta, Role, Text};
use crate::stream::{
    Event, EventDecoder, Finish, Once, Over, PartId, Parts, Signature, StreamPart, StreamStart,
    ToolStart, Whole, call_start, error_code_of, event_type, incomplete, provider_error, read,
    reasoning_start,
};
use crate::{Ctx, Error};
use serde_json::{Map, Value};
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
    over: Over,
    /// Event types reported as having no neutral part (each once).
    unknown: Once,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let event = read::<w::StreamEvent>(event.data)?;
        let quiet = matches!(
            event,
            w::StreamEvent::Keepalive(_) | w::StreamEvent::Ping(_)
        );
        if self
            .over
            .after(quiet, ctx, || after_terminal(&event, &self.id))
        {
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
                let d = e.error.as_ref();
                let code = error_code_of(
                    e.code.as_ref().or(d.and_then(|d| d.code.as_ref())),
                    d.and_then(|d| d.kind.as_ref()),
                );
                let message = e.message().unwrap_or_default().to_owned();
                out.push(provider_error(code, message, &e));
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
                let stream = format!("a {F}");
                self.unknown
                    .unknown_event(&stream, &event_type(&other), ctx);
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.over.is_over() {
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
                out.push(StreamPart::ToolStart(ToolStart {
                    part,
                    choice: 0,
                    id: c.call_id,
                    synthetic_id: false,
                    name: c.name,
                    meta,
                }));
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
                out.push(StreamPart::Whole(Whole {
                    part: id,
                    choice: 0,
                    content: whole,
                }));
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
                        out.push(StreamPart::Signature(Signature {
                            part,
                            token,
                            encrypted: true,
                        }));
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
        out.push(StreamPart::Finish(Finish {
            choice: 0,
            stop_reason,
            vendor: Default::default(),
        }));
        self.over.end();
    }
}

/// What the loss of events after the terminal event (of response `id`) says came: another
/// response (a recording of several), or more events (a server that goes on).
fn after_terminal(event: &w::StreamEvent, id: &Option<String>) -> String {
    let what = match event {
        w::StreamEvent::Created(e) if e.response.id != *id => format!(
            "another response (`{}`) after the terminal event of `{}`",
            e.response.id.as_deref().unwrap_or("?"),
            id.as_deref().unwrap_or("?"),
        ),
        _ => "events after the terminal event".to_owned(),
    };
    format!("{what}: not part of the response, left out")
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
            let (start, args) = call_start(id, 0, c);
            let json = args.text();
            out.push(start);
            if !json.is_empty() {
                out.push(StreamPart::ToolDelta { part: id, json });
            }
            out.push(StreamPart::End { part: id });
        }
        Part::Reasoning(r) => {
            let (start, r) = reasoning_start(id, 0, r);
            out.push(start);
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
                out.push(StreamPart::Signature(Signature {
                    part: id,
                    token,
                    encrypted: true,
                }));
            }
            out.push(StreamPart::End { part: id });
        }
        other => out.push(StreamPart::Whole(Whole {
            part: id,
            choice: 0,
            content: other,
        })),
    }
    (id, meta)
}
