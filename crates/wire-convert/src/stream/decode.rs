//! [`StreamDecoder`]: bytes of one format's stream in, [`StreamPart`]s out, and the
//! [`EventDecoder`] state machine each format implements.

use super::{PartId, StreamError, StreamErrorKind, StreamPart, StreamStart, ToolStart};
use crate::{Ctx, Error, Format, Loss, LossCode, Options};
use wire_types::stream::{
    EventStreamParser, FrameError, FrameKind, FrameParser, Limits, NdjsonParser, RawFrame,
    SseParser,
};

/// How a stream's events are framed on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Framing {
    /// Server-sent events (`text/event-stream`).
    Sse,
    /// One JSON object per line: Ollama, and Bedrock events as boto3 yields them
    /// (`{"<eventType>": payload}` a line).
    Ndjson,
    /// AWS event-stream binary messages (Bedrock ConverseStream).
    EventStream,
}

impl Framing {
    /// The framing `format` streams in: NDJSON for Ollama, AWS event-stream for Bedrock,
    /// SSE for the others.
    pub fn of(format: Format) -> Framing {
        match format {
            Format::Ollama => Framing::Ndjson,
            Format::Bedrock => Framing::EventStream,
            _ => Framing::Sse,
        }
    }
}

/// One event handed to a format's decoder: its name (SSE `event:`, AWS `:event-type`),
/// and its JSON text (for Bedrock, always the `{"<eventType>": payload}` form).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Event<'a> {
    /// The event's name, if the framing gave one.
    #[allow(dead_code)] // read by the formats whose events are named only by it
    pub(crate) name: Option<&'a str>,
    /// The payload text.
    pub(crate) data: &'a str,
}

/// Where a format's decoder puts its parts: it gives out part ids in order and keeps
/// the start unique.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    out: Vec<StreamPart>,
    next: u32,
    started: bool,
    finished: bool,
}

impl Parts {
    /// A new part's id.
    pub(crate) fn id(&mut self) -> PartId {
        let id = PartId(self.next);
        self.next += 1;
        id
    }

    /// The response's start, the first time (a repeated start is dropped: some servers
    /// send `message_start` twice).
    pub(crate) fn start(&mut self, start: StreamStart) {
        if !self.started {
            self.started = true;
            self.out.push(StreamPart::Start(start));
        }
    }

    /// Whether the start was sent.
    pub(crate) fn started(&self) -> bool {
        self.started
    }

    /// Whether a finish was sent.
    #[allow(dead_code)] // for the decoders that end on a finish they did not send
    pub(crate) fn finished(&self) -> bool {
        self.finished
    }

    /// A part (a start first, if none was sent: the provider's first event carried
    /// nothing of the response itself).
    pub(crate) fn push(&mut self, part: StreamPart) {
        if !self.started && !matches!(part, StreamPart::Start(_)) {
            self.start(StreamStart::default());
        }
        if matches!(part, StreamPart::Finish(_)) {
            self.finished = true;
        }
        self.out.push(part);
    }

    fn take(&mut self) -> Vec<StreamPart> {
        std::mem::take(&mut self.out)
    }
}

/// A format's stream decoder: a state machine from its events to neutral parts.
pub(crate) trait EventDecoder: Send {
    /// One event.
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error>;

    /// The end of the stream: close what is still open. A stream without its finish event
    /// gets an [`StreamErrorKind::Incomplete`] error (see [`incomplete`]).
    fn end(&mut self, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error>;
}

/// The error part of a stream that ended before its finish event.
pub(crate) fn incomplete(format: Format) -> StreamPart {
    StreamPart::Error(StreamError {
        kind: StreamErrorKind::Incomplete,
        code: None,
        message: format!("the {format} stream ended before its finish event"),
        value: None,
    })
}

/// Losses a decoder reports once per key (an event type it has no part for, …), never
/// once per event: each a [`LossCode::PartUnsupported`] at the stream's root.
#[derive(Debug, Default)]
pub(crate) struct Once(Vec<String>);

impl Once {
    /// Reports `detail` the first time `key` comes.
    pub(crate) fn report(&mut self, key: &str, detail: String, ctx: &mut Ctx<'_>) {
        if !self.0.iter().any(|k| k == key) {
            self.0.push(key.to_owned());
            ctx.dropped(LossCode::PartUnsupported, "", detail);
        }
    }

    /// Reports an event of type `kind` that has no neutral part, the first time that type
    /// comes; `stream` names the stream (`an anthropic`).
    pub(crate) fn unknown_event(&mut self, stream: &str, kind: &str, ctx: &mut Ctx<'_>) {
        let detail = format!("{stream} stream event `{kind}` has no neutral part");
        self.report(kind, detail, ctx);
    }

    /// How many keys were reported.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

/// Whether a decoder's stream is over (its last event came: the finish, an error), and
/// what came after it: not part of the response (a recording of several turns, a server
/// that goes on), left out with one loss for all of it, never one per event.
#[derive(Debug, Default)]
pub(crate) struct Over {
    over: bool,
    reported: bool,
}

impl Over {
    /// The stream's last event came: what follows is left out.
    pub(crate) fn end(&mut self) {
        self.over = true;
    }

    /// Whether the stream's last event came.
    pub(crate) fn is_over(&self) -> bool {
        self.over
    }

    /// Whether an event comes after the last, and so is left out: the first one after it
    /// that is not `quiet` (a ping, a keepalive: they say nothing) is reported
    /// ([`Over::left_out`]).
    pub(crate) fn after<D: Into<String>>(
        &mut self,
        quiet: bool,
        ctx: &mut Ctx<'_>,
        detail: impl FnOnce() -> D,
    ) -> bool {
        if !self.over {
            return false;
        }
        if !quiet {
            self.left_out(ctx, detail);
        }
        true
    }

    /// Leaves out an event after the last: the first time, a
    /// [`LossCode::PartUnsupported`] at the stream's root, `detail` (called then only)
    /// saying what came.
    pub(crate) fn left_out<D: Into<String>>(
        &mut self,
        ctx: &mut Ctx<'_>,
        detail: impl FnOnce() -> D,
    ) {
        if !std::mem::replace(&mut self.reported, true) {
            ctx.dropped(LossCode::PartUnsupported, "", detail());
        }
    }
}

/// The `type` member of an event as its wire type writes it (`?` when it has none): an
/// event the decoder does not know, named in its loss.
pub(crate) fn event_type(event: &impl serde::Serialize) -> String {
    wire_types::to_value(event)
        .get("type")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("?")
        .to_owned()
}

/// A call decoded whole (by the format's body decoder) split into the start of its part
/// (its id, name and meta) and its arguments, for the caller to stream as it must.
pub(crate) fn call_start(
    part: PartId,
    choice: u32,
    call: crate::model::ToolCall,
) -> (StreamPart, crate::model::Arguments) {
    let start = StreamPart::ToolStart(ToolStart {
        part,
        choice,
        id: call.id,
        synthetic_id: call.synthetic_id,
        name: call.name,
        meta: call.meta,
    });
    (start, call.arguments)
}

/// The end of a call's part: a call no argument text came for (`deltas` false) ends with
/// the arguments `{}`, never with none.
pub(crate) fn end_call(part: PartId, deltas: bool, out: &mut Parts) {
    if !deltas {
        out.push(StreamPart::ToolDelta {
            part,
            json: "{}".to_owned(),
        });
    }
    out.push(StreamPart::End { part });
}

/// A reasoning part decoded whole (by the format's body decoder) split into the start of
/// its part (its id and meta) and the rest (text, summaries, tokens), for the caller to
/// stream as it must.
pub(crate) fn reasoning_start(
    part: PartId,
    choice: u32,
    mut reasoning: crate::model::Reasoning,
) -> (StreamPart, crate::model::Reasoning) {
    let start = StreamPart::ReasoningStart {
        part,
        choice,
        id: reasoning.id.take(),
        meta: std::mem::take(&mut reasoning.meta),
    };
    (start, reasoning)
}

/// The error part of a provider's error event: its code and message, and its error
/// object as it came (`value`).
pub(crate) fn provider_error(
    code: Option<String>,
    message: String,
    value: &impl serde::Serialize,
) -> StreamPart {
    StreamPart::Error(StreamError {
        kind: StreamErrorKind::Provider,
        code,
        message,
        value: Some(wire_types::to_value(value)),
    })
}

/// The code of an OpenAI-style error object: its `code` (a string as it is, another value
/// as JSON text), else, when that is missing or `null`, its `type`.
pub(crate) fn error_code_of(
    code: Option<&serde_json::Value>,
    kind: Option<&String>,
) -> Option<String> {
    match code {
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Null) | None => kind.cloned(),
        Some(other) => Some(other.to_string()),
    }
}

/// Reads one event's JSON as `T`, the error pointing into the event.
pub(crate) fn read<T: serde::de::DeserializeOwned>(data: &str) -> Result<T, Error> {
    Ok(wire_types::from_str(data)?)
}

/// Reads one format's stream as it arrives: bytes in pieces of any size (or events from
/// your own framing), [`StreamPart`]s out as soon as they are known.
///
/// ```
/// use wire_convert::stream::{StreamDecoder, StreamPart};
/// use wire_convert::{Format, Options};
///
/// let mut decoder = StreamDecoder::new(Format::OpenaiChat, &Options::default())?;
/// let mut text = String::new();
/// for piece in [
///     &b"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel"[..],
///     b"lo\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
/// ] {
///     for part in decoder.push(piece)? {
///         if let StreamPart::TextDelta { text: t, .. } = part {
///             text.push_str(&t);
///         }
///     }
/// }
/// decoder.finish()?;
/// assert_eq!(text, "Hello");
/// # Ok::<(), wire_convert::Error>(())
/// ```
pub struct StreamDecoder {
    format: Format,
    framing: Framing,
    parser: Box<dyn FrameParser + Send>,
    events: Box<dyn EventDecoder>,
    parts: Parts,
    options: Options,
    losses: Vec<Loss>,
    ended: bool,
    /// The frames read, kept for a caller that passes them on (`None`: not kept).
    frames: Option<Vec<RawFrame>>,
}

impl std::fmt::Debug for StreamDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDecoder")
            .field("format", &self.format)
            .field("framing", &self.framing)
            .finish_non_exhaustive()
    }
}

impl StreamDecoder {
    /// A decoder of `format`'s stream in its wire framing ([`Framing::of`]).
    pub fn new(format: Format, options: &Options) -> Result<Self, Error> {
        Self::with_framing(format, Framing::of(format), options)
    }

    /// A decoder of `format`'s stream in another framing (Bedrock events one JSON object
    /// a line, say), with the default limit on one event's size.
    pub fn with_framing(
        format: Format,
        framing: Framing,
        options: &Options,
    ) -> Result<Self, Error> {
        Self::with_limits(format, framing, Limits::default(), options)
    }

    /// [`StreamDecoder::with_framing`] with a limit on one event's size (a larger event is
    /// an error, so a hostile stream cannot grow memory without bound).
    pub fn with_limits(
        format: Format,
        framing: Framing,
        limits: Limits,
        options: &Options,
    ) -> Result<Self, Error> {
        let events = crate::codec::codec(format, "stream")?.stream_decoder();
        let parser: Box<dyn FrameParser + Send> = match framing {
            Framing::Sse => Box::new(SseParser::new(limits)),
            Framing::Ndjson => Box::new(NdjsonParser::new(limits)),
            Framing::EventStream => Box::new(EventStreamParser::new(limits)),
        };
        Ok(StreamDecoder {
            format,
            framing,
            parser,
            events,
            parts: Parts::default(),
            options: options.clone(),
            losses: Vec::new(),
            ended: false,
            frames: None,
        })
    }

    /// The format decoded.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Pushes the next bytes of the stream; returns every part now known.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamPart>, Error> {
        self.parser.push(bytes);
        self.drain()?;
        Ok(self.parts.take())
    }

    /// Ends the stream: the last event if it had no terminator, the parts still open,
    /// and an incomplete-stream error if the finish event never came.
    pub fn finish(&mut self) -> Result<Vec<StreamPart>, Error> {
        self.parser.finish();
        self.drain()?;
        if !self.ended {
            self.ended = true;
            let mut ctx = Ctx::new(self.format, &self.options);
            self.events.end(&mut self.parts, &mut ctx)?;
            self.losses.extend(ctx.take_losses());
        }
        Ok(self.parts.take())
    }

    /// One event from your own framing: its name (SSE `event:`; for Bedrock the event
    /// type, or `None` when `data` is already `{"<eventType>": payload}`) and its JSON.
    /// `[DONE]` is accepted and ends nothing by itself.
    pub fn push_event(&mut self, name: Option<&str>, data: &str) -> Result<Vec<StreamPart>, Error> {
        if data.trim() != "[DONE]" {
            self.event(name, data, 0)?;
        }
        Ok(self.parts.take())
    }

    /// What decoding could not carry so far (rare).
    pub fn losses(&self) -> &[Loss] {
        &self.losses
    }

    fn drain(&mut self) -> Result<(), Error> {
        loop {
            let frame = match self.parser.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => return Ok(()),
                Err(e) => return Err(frame_error(&e)),
            };
            self.frame(frame)?;
        }
    }

    /// Keeps every frame read, for [`StreamDecoder::take_frames`].
    pub(crate) fn keep_frames(&mut self) {
        self.frames.get_or_insert_with(Vec::new);
    }

    /// The frames read since the last call (when kept).
    pub(crate) fn take_frames(&mut self) -> Vec<RawFrame> {
        self.frames.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn frame(&mut self, frame: RawFrame) -> Result<(), Error> {
        let kept = self.frames.is_some().then(|| frame.clone());
        self.decode_frame(frame)?;
        if let (Some(frames), Some(f)) = (&mut self.frames, kept) {
            frames.push(f);
        }
        Ok(())
    }

    fn decode_frame(&mut self, frame: RawFrame) -> Result<(), Error> {
        match frame.kind {
            FrameKind::Done => Ok(()),
            FrameKind::Event | FrameKind::Exception | FrameKind::Error
                if self.framing == Framing::EventStream =>
            {
                let json = frame.to_bedrock_json().map_err(|e| Error::Stream {
                    offset: frame.offset,
                    message: e.to_string(),
                })?;
                self.event(frame.name.as_deref(), &json, frame.offset)
            }
            _ => self.event(frame.name.as_deref(), &frame.data, frame.offset),
        }
    }

    fn event(&mut self, name: Option<&str>, data: &str, offset: u64) -> Result<(), Error> {
        let mut ctx = Ctx::new(self.format, &self.options);
        self.events
            .event(Event { name, data }, &mut self.parts, &mut ctx)
            .map_err(|e| match e {
                e @ Error::Unsupported { .. } => e,
                e => Error::Stream {
                    offset,
                    message: e.to_string(),
                },
            })?;
        self.losses.extend(ctx.take_losses());
        Ok(())
    }
}

fn frame_error(e: &FrameError) -> Error {
    Error::Stream {
        offset: e.offset(),
        message: e.kind().to_string(),
    }
}
