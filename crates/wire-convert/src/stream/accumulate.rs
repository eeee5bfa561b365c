//! [`Accumulator`]: stream parts in, the response they add up to out.

use super::{
    Finish, PartId, Signature, StreamDecoder, StreamError, StreamErrorKind, StreamPart, ToolStart,
    Whole,
};
use crate::model::{
    self, Arguments, Choice, Message, Part, PartMeta, Reasoning, Role, Text, ToolCall,
};
use crate::{Converted, Error, Format, Options};

/// Where an open part sits in the response being built.
#[derive(Debug, Clone, Copy)]
struct Slot {
    choice: usize,
    index: usize,
}

/// Adds stream parts up into the [`model::Response`] they make: the same response that
/// decoding the provider's non-streamed body of the same content gives.
///
/// A tool call's arguments are the concatenation of its deltas, read at its end (or at
/// the finish); nothing is read early.
#[derive(Debug, Default)]
pub struct Accumulator {
    response: model::Response,
    /// Open and closed parts, by id (ids are dense, in order of appearance).
    slots: Vec<Option<Slot>>,
    /// Argument text of the open calls, by part id.
    arguments: Vec<(PartId, String)>,
    /// Choices that finished.
    finished: Vec<usize>,
    error: Option<StreamError>,
}

impl Accumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Accumulator::default()
    }

    /// Adds one part.
    pub fn push(&mut self, part: StreamPart) {
        match part {
            StreamPart::Start(s) => {
                let r = &mut self.response;
                r.source = s.format.or(r.source);
                r.id = s.id.or(r.id.take());
                r.model = s.model.or(r.model.take());
                r.created = s.created.or(r.created);
                r.vendor.merge(s.vendor);
            }
            StreamPart::TextStart { part, choice, meta } => {
                self.open(
                    part,
                    choice,
                    Part::Text(Text {
                        text: String::new(),
                        meta,
                    }),
                );
            }
            StreamPart::TextDelta { part, text } => match self.part_mut(part) {
                Some(Part::Text(t)) => t.text.push_str(&text),
                Some(Part::Reasoning(r)) => r.text.get_or_insert_with(String::new).push_str(&text),
                _ => {}
            },
            StreamPart::ReasoningStart {
                part,
                choice,
                id,
                meta,
            } => {
                let source = self.response.source;
                self.open(
                    part,
                    choice,
                    Part::Reasoning(Reasoning {
                        id,
                        source,
                        meta,
                        ..Default::default()
                    }),
                );
            }
            StreamPart::ReasoningDelta { part, text } => {
                if let Some(Part::Reasoning(r)) = self.part_mut(part) {
                    r.text.get_or_insert_with(String::new).push_str(&text);
                }
            }
            StreamPart::SummaryDelta { part, index, text } => {
                if let Some(Part::Reasoning(r)) = self.part_mut(part) {
                    // Summaries come in order: an index past the last starts the next one
                    // (never a run of empty ones a hostile index would ask for).
                    let i = (index as usize).min(r.summary.len());
                    if i == r.summary.len() {
                        r.summary.push(String::new());
                    }
                    r.summary[i].push_str(&text);
                }
            }
            StreamPart::Signature(Signature {
                part,
                token,
                encrypted,
            }) => match self.part_mut(part) {
                Some(Part::Reasoning(r)) if encrypted => r.encrypted = Some(token),
                Some(Part::Reasoning(r)) => r.signature = Some(token),
                Some(other) => other.meta_mut().signature = Some(token),
                None => {}
            },
            StreamPart::ToolStart(t) => {
                self.arguments.push((t.part, String::new()));
                let (part, choice) = (t.part, t.choice);
                self.open(part, choice, Part::ToolCall(started_call(t)));
            }
            StreamPart::ToolDelta { part, json } => {
                if let Some((_, text)) = self.arguments.iter_mut().find(|(p, _)| *p == part) {
                    text.push_str(&json);
                }
            }
            StreamPart::Whole(Whole {
                part,
                choice,
                content,
            }) => self.open(part, choice, content),
            StreamPart::Meta { part, meta } => {
                if let Some(p) = self.part_mut(part) {
                    merge_meta(p.meta_mut(), meta);
                }
            }
            StreamPart::End { part } => self.close(part),
            StreamPart::Usage(u) => self.response.usage = Some(u),
            StreamPart::Finish(Finish {
                choice,
                stop_reason,
                vendor,
            }) => {
                let c = self.choice(choice as usize);
                c.stop_reason = stop_reason;
                c.vendor.merge(vendor);
                if !self.finished.contains(&(choice as usize)) {
                    self.finished.push(choice as usize);
                }
            }
            StreamPart::ResponseMeta(v) => self.response.vendor.merge(v),
            StreamPart::Error(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
            }
        }
    }

    /// Adds parts in order.
    pub fn extend(&mut self, parts: impl IntoIterator<Item = StreamPart>) {
        for p in parts {
            self.push(p);
        }
    }

    /// The response so far (open calls keep the arguments they had at their start).
    pub fn response(&self) -> &model::Response {
        &self.response
    }

    /// The response. Open parts are closed. A stream that reported an error, or ended
    /// without any choice finishing, is an [`Error::Incomplete`] carrying what arrived.
    pub fn finish(mut self) -> Result<model::Response, Error> {
        let open: Vec<PartId> = self.arguments.iter().map(|(p, _)| *p).collect();
        for part in open {
            self.close(part);
        }
        let error = self.error.take().or_else(|| {
            self.finished.is_empty().then(|| StreamError {
                kind: StreamErrorKind::Incomplete,
                code: None,
                message: "the stream has no finish".to_owned(),
                value: None,
            })
        });
        match error {
            None => Ok(self.response),
            Some(error) => Err(Error::Incomplete {
                error,
                partial: Box::new(self.response),
            }),
        }
    }

    fn choice(&mut self, index: usize) -> &mut Choice {
        let choices = &mut self.response.choices;
        while choices.len() <= index {
            choices.push(Choice {
                message: Message::new(Role::Assistant, Vec::new()),
                stop_reason: None,
                vendor: Default::default(),
            });
        }
        &mut choices[index]
    }

    fn open(&mut self, part: PartId, choice: u32, content: Part) {
        let choice = choice as usize;
        let message = &mut self.choice(choice).message;
        let index = message.content.len();
        message.content.push(content);
        let id = part.0 as usize;
        if self.slots.len() <= id {
            self.slots.resize(id + 1, None);
        }
        self.slots[id] = Some(Slot { choice, index });
    }

    fn part_mut(&mut self, part: PartId) -> Option<&mut Part> {
        let slot = (*self.slots.get(part.0 as usize)?)?;
        self.response
            .choices
            .get_mut(slot.choice)?
            .message
            .content
            .get_mut(slot.index)
    }

    fn close(&mut self, part: PartId) {
        let Some(i) = self.arguments.iter().position(|(p, _)| *p == part) else {
            return;
        };
        let (_, text) = self.arguments.swap_remove(i);
        if let Some(Part::ToolCall(c)) = self.part_mut(part) {
            // A call whose arguments never came has none: `{}`.
            c.arguments = Arguments::Text(if text.is_empty() {
                "{}".to_owned()
            } else {
                text
            });
        }
    }
}

/// A tool call as its stream start gives it: its arguments to come (as deltas).
pub(crate) fn started_call(start: ToolStart) -> ToolCall {
    ToolCall {
        id: start.id,
        synthetic_id: start.synthetic_id,
        name: start.name,
        arguments: Arguments::Text(String::new()),
        meta: start.meta,
    }
}

/// Merges a part's later meta ([`StreamPart::Meta`]) into what it has: vendor fields
/// merged, a cache marker or signature replacing the earlier one.
pub(crate) fn merge_meta(into: &mut PartMeta, from: PartMeta) {
    into.vendor.merge(from.vendor);
    if from.cache.is_some() {
        into.cache = from.cache;
    }
    if from.signature.is_some() {
        into.signature = from.signature;
    }
}

/// Reads a whole stream of `from` (in its wire framing: SSE; NDJSON for Ollama; AWS
/// event-stream for Bedrock) and writes the response it adds up to as a body of `to`.
///
/// ```
/// use wire_convert::{Format, Options, stream::accumulate};
///
/// let sse = b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
/// event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
/// event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n\
/// event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
/// event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
/// event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
/// let out = accumulate(sse, Format::Anthropic, Format::OpenaiChat, &Options::default())?;
/// let body: serde_json::Value = serde_json::from_str(&out.value)?;
/// assert_eq!(body["choices"][0]["message"]["content"], "Hi");
/// assert_eq!(body["choices"][0]["finish_reason"], "stop");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn accumulate(
    body: &[u8],
    from: Format,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, Error> {
    let mut decoder = StreamDecoder::new(from, options)?;
    let mut acc = Accumulator::new();
    acc.extend(decoder.push(body)?);
    acc.extend(decoder.finish()?);
    let decode_losses = decoder.losses().to_vec();
    let response = acc.finish()?;
    let mut out = crate::encode_response(response, to, options)?;
    if !decode_losses.is_empty() {
        let mut losses = decode_losses;
        losses.append(&mut out.losses);
        out.losses = losses;
    }
    Ok(out)
}
