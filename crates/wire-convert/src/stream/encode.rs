//! [`StreamEncoder`]: [`StreamPart`]s in, a format's stream out (its typed events in its
//! wire framing), and the [`EventEncoder`] state machine each format implements.

use super::{Framing, StreamPart};
use crate::ids::IdMapper;
use crate::{Ctx, Error, Format, IdMap, Loss, Options};
use serde::Serialize;
use std::collections::HashSet;
use wire_types::stream::{FrameKind, write_event_stream, write_ndjson, write_sse};

/// One event to write: its name (the SSE `event:` line; Bedrock's event type) and its
/// JSON payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutEvent {
    pub(crate) name: Option<&'static str>,
    pub(crate) data: String,
}

/// Where a format's encoder puts its events.
#[derive(Debug, Default)]
pub(crate) struct Events {
    out: Vec<OutEvent>,
    /// OpenAI's `data: [DONE]` terminator, after the events.
    done: bool,
}

impl Events {
    /// An event named `name` (or none) with `value` as its payload. A value that cannot
    /// be written as JSON is an error, never a silent `null`.
    pub(crate) fn push<T: Serialize>(
        &mut self,
        name: Option<&'static str>,
        value: &T,
    ) -> Result<(), Error> {
        let data = serde_json::to_string(value).map_err(|e| Error::invalid("", e.to_string()))?;
        self.out.push(OutEvent { name, data });
        Ok(())
    }

    /// The `[DONE]` terminator.
    #[allow(dead_code)] // the OpenAI-style encoders end with it
    pub(crate) fn done(&mut self) {
        self.done = true;
    }
}

/// A format's stream encoder: a state machine from neutral parts to its events.
pub(crate) trait EventEncoder: Send {
    /// One part. Losses go to `ctx` with the pointer `/parts/<part id>[/field]` (or
    /// `/usage`, `/finish`), once per part, never once per delta.
    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error>;

    /// The end of the source stream: what had to wait is written, what is open is
    /// closed, and the format's terminator.
    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error>;
}

/// Writes [`StreamPart`]s as one format's stream, in its wire framing (or another),
/// event by event: nothing is held back but what the format forces (a Gemini or Ollama
/// call waits for its complete arguments; a Responses stream ends with the whole
/// response).
///
/// Tool-call ids are rewritten for the target's rule as they come, deterministically
/// and without collisions ([`StreamEncoder::ids`]); what the target cannot carry is a
/// loss, once per part ([`StreamEncoder::losses`]).
pub struct StreamEncoder {
    format: Format,
    framing: Framing,
    events: Box<dyn EventEncoder>,
    buf: Events,
    options: Options,
    losses: Vec<Loss>,
    seen: HashSet<(String, String)>,
    ids: IdMapper,
    finished: bool,
}

impl std::fmt::Debug for StreamEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamEncoder")
            .field("format", &self.format)
            .field("framing", &self.framing)
            .finish_non_exhaustive()
    }
}

impl StreamEncoder {
    /// An encoder of `format`'s stream in its wire framing ([`Framing::of`]).
    pub fn new(format: Format, options: &Options) -> Result<Self, Error> {
        Self::with_framing(format, Framing::of(format), options)
    }

    /// An encoder of `format`'s stream in another framing (Bedrock events as one
    /// `{"<eventType>": payload}` object a line, say).
    pub fn with_framing(
        format: Format,
        framing: Framing,
        options: &Options,
    ) -> Result<Self, Error> {
        let events = crate::codec::codec(format, "stream")?.stream_encoder();
        Ok(StreamEncoder {
            format,
            framing,
            events,
            buf: Events::default(),
            options: options.clone(),
            losses: Vec::new(),
            seen: HashSet::new(),
            ids: IdMapper::new(crate::IdRule::of(format)),
            finished: false,
        })
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes one part; returns the bytes of every event it completes.
    pub fn encode(&mut self, part: StreamPart) -> Result<Vec<u8>, Error> {
        let part = self.map_ids(part);
        let mut ctx = Ctx::new(self.format, &self.options);
        let result = self.events.part(part, &mut self.buf, &mut ctx);
        let losses = ctx.take_losses();
        self.keep_losses(losses);
        result?;
        self.write()
    }

    /// Writes parts in order.
    pub fn encode_all(
        &mut self,
        parts: impl IntoIterator<Item = StreamPart>,
    ) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        for p in parts {
            out.extend(self.encode(p)?);
        }
        Ok(out)
    }

    /// Ends the stream: what waited, what is open, the terminator.
    pub fn finish(&mut self) -> Result<Vec<u8>, Error> {
        if self.finished {
            return Ok(Vec::new());
        }
        self.finished = true;
        let mut ctx = Ctx::new(self.format, &self.options);
        let result = self.events.end(&mut self.buf, &mut ctx);
        let losses = ctx.take_losses();
        self.keep_losses(losses);
        result?;
        self.write()
    }

    /// What the target could not carry so far, once per part.
    pub fn losses(&self) -> &[Loss] {
        &self.losses
    }

    /// Tool-call ids rewritten for the target so far (source → target).
    pub fn ids(&self) -> &IdMap {
        self.ids.map()
    }

    fn map_ids(&mut self, mut part: StreamPart) -> StreamPart {
        if let StreamPart::ToolStart { id, part: p, .. } = &mut part {
            if let Some(new) = self.ids.map_id(id) {
                let detail = format!(
                    "tool-call id `{id}` is not valid for {} ({}); written as `{new}`",
                    self.format,
                    crate::IdRule::of(self.format).describe()
                );
                let path = format!("/parts/{}/id", p.0);
                if self.seen.insert((path.clone(), detail.clone())) {
                    self.losses.push(Loss {
                        path,
                        kind: crate::LossKind::Changed,
                        code: crate::LossCode::IdRewritten,
                        detail,
                    });
                }
                *id = new;
            }
        }
        part
    }

    fn keep_losses(&mut self, losses: Vec<Loss>) {
        for loss in losses {
            if self.seen.insert((loss.path.clone(), loss.detail.clone())) {
                self.losses.push(loss);
            }
        }
    }

    fn write(&mut self) -> Result<Vec<u8>, Error> {
        let mut text = String::new();
        let mut bytes = Vec::new();
        for e in self.buf.out.drain(..) {
            match self.framing {
                Framing::Sse => write_sse(&mut text, e.name, &e.data),
                Framing::Ndjson if self.format == Format::Bedrock => {
                    // Bedrock's decoded form: `{"<eventType>": payload}` a line.
                    let name = e.name.unwrap_or("event");
                    write_ndjson(&mut text, &format!("{{\"{name}\":{}}}", e.data));
                }
                Framing::Ndjson => write_ndjson(&mut text, &e.data),
                Framing::EventStream => {
                    let name = e.name.unwrap_or("event");
                    let kind = if name.ends_with("Exception") {
                        FrameKind::Exception
                    } else {
                        FrameKind::Event
                    };
                    write_event_stream(&mut bytes, kind, name, &e.data);
                }
            }
        }
        if std::mem::take(&mut self.buf.done) && self.framing == Framing::Sse {
            write_sse(&mut text, None, "[DONE]");
        }
        if bytes.is_empty() {
            Ok(text.into_bytes())
        } else {
            bytes.extend(text.into_bytes());
            Ok(bytes)
        }
    }
}
