//! Encoding: neutral stream parts in, the stream's events out.

use super::super::encode::{Mode, encode_assistant};
use super::super::hints::MSG;
use super::super::{F, MSG_FIELD};
use crate::model::{Message, Part, PartMeta, Role};
use crate::stream::{
    Accumulator, EventEncoder, Events, Gate, PartId, Rule, StreamError, StreamErrorKind,
    StreamPart, StreamStart, ToolStart, UNFINISHED, Whole, at, start_once,
};
use crate::{Ctx, Error};
use serde_json::{Map, Value, json};
use wire_types::TextOrParts;
use wire_types::openai_responses as w;

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
    /// Started, over (the terminal event written), and the parts not written (another
    /// choice, reasoning dropped), with what belongs to them.
    gate: Gate,
    items: Vec<OutItem>,
    placed: Vec<Placed>,
    /// The message item that text parts join (an index into `items`).
    joinable: Option<usize>,
    /// Parts of choice 0 opened so far.
    opened: usize,
}

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        Rule::one("output", self.acc.response().source != Some(F))
    }

    fn start(&mut self, s: StreamStart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.start_response(s, out, ctx)
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if matches!(
            part,
            StreamPart::TextStart { .. }
                | StreamPart::ReasoningStart { .. }
                | StreamPart::ToolStart(_)
                | StreamPart::Whole(_)
        ) {
            self.opened += 1;
        }
        match part {
            StreamPart::Start(_) => Ok(()),
            StreamPart::TextStart { part, choice, meta } => {
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
            p @ StreamPart::ReasoningStart { part, .. } => {
                self.release(out, ctx)?;
                self.acc.push(p);
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
            p @ (StreamPart::Signature(_) | StreamPart::Usage(_) | StreamPart::ResponseMeta(_)) => {
                self.acc.push(p);
                Ok(())
            }
            p @ StreamPart::ToolStart(ToolStart { part, .. }) => {
                self.release(out, ctx)?;
                self.acc.push(p);
                let index = self.items.len();
                // The call as the parts add it up: its start (no arguments yet).
                let Some(Part::ToolCall(c)) = self.accumulated_at(self.opened - 1) else {
                    return Ok(());
                };
                let own = own_field(&c.meta, "id");
                let mine = own.is_some();
                let item_id = own.unwrap_or_else(|| format!("fc_{index}"));
                let added = json!({"type": "function_call", "id": item_id, "call_id": c.id, "name": c.name, "arguments": "", "status": "in_progress"});
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
            StreamPart::Whole(whole) => self.whole(whole, out, ctx),
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
            p @ StreamPart::Finish(_) => {
                self.acc.push(p);
                self.terminal(None, out, ctx)
            }
            StreamPart::Error(e) => {
                self.acc.push(StreamPart::Error(e.clone()));
                self.terminal(Some(e), out, ctx)
            }
        }
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        start_once(self, StreamStart::default(), out, ctx)?;
        // The source ended without a finish (its decoder reports why): not a normal end
        // here either.
        let e = StreamError {
            kind: StreamErrorKind::Incomplete,
            code: None,
            message: UNFINISHED.to_owned(),
            value: None,
        };
        self.acc.push(StreamPart::Error(e.clone()));
        self.terminal(Some(e), out, ctx)
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

    fn start_response(
        &mut self,
        start: StreamStart,
        out: &mut Events,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Error> {
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
        let mut response = super::super::response::encode_response(head, ctx)?;
        response.status = Some(w::ResponseStatus::InProgress);
        let value = wire_types::to_value(&response);
        self.emit(out, "response.created", json!({"response": value}))?;
        self.emit(out, "response.in_progress", json!({"response": value}))
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
        let own = match self.accumulated_at(p.pos) {
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
        self.accumulated_at(self.placed(part)?.pos)
    }

    /// The accumulated part at `pos` in the message's content.
    fn accumulated_at(&self, pos: usize) -> Option<&Part> {
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
    fn whole(&mut self, whole: Whole, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let part = whole.part;
        self.acc.push(StreamPart::Whole(Whole {
            choice: 0,
            ..whole.clone()
        }));
        let refusal = matches!(whole.content, Part::Refusal(_));
        match whole.content {
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
        let mut wire = super::super::response::encode_response(response, &mut scratch)?;
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
        self.gate.finished = true;
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
        super::super::OpenaiResponses::RESPONSE_REQUIRES,
        ctx,
    );
}
