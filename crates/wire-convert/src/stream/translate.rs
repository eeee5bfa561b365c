//! [`StreamTranslator`]: one format's stream in, another's out, as the bytes arrive.

use super::{Framing, StreamDecoder, StreamEncoder, StreamError, StreamPart, ToolStart};
use crate::{Error, Format, IdMap, Loss, NameMap, Options};
use wire_types::stream::{Limits, write_event_stream, write_ndjson, write_sse_frame};

/// Translates a live stream from one format to another: source bytes in pieces of any
/// size, target bytes out as soon as each target event can be written. Text is never
/// held back; only what the target forces waits (a Gemini or Ollama call until its
/// arguments are complete). What the target cannot carry is a loss, once per part.
///
/// A stream translated to its own format is passed through: the same events, written
/// again in the target framing.
///
/// With the request conversion's name map in [`Options::names`], calls to a tool name
/// that was rewritten for the source provider carry the client's name again.
///
/// ```
/// use wire_convert::stream::StreamTranslator;
/// use wire_convert::{Format, Options};
///
/// let mut t = StreamTranslator::new(Format::Anthropic, Format::OpenaiChat, &Options::default())?;
/// let mut out = t.push(b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
/// event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
/// event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n")?;
/// // The text is out before the source stream has ended.
/// assert!(String::from_utf8_lossy(&out).contains("\"content\":\"Hi\""));
/// out.extend(t.push(b"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
/// event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
/// event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")?);
/// out.extend(t.finish()?);
/// assert!(String::from_utf8_lossy(&out).ends_with("data: [DONE]\n\n"));
/// # Ok::<(), wire_convert::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamTranslator {
    decoder: StreamDecoder,
    /// `None` when passing a stream through to its own format.
    encoder: Option<StreamEncoder>,
    to_framing: Framing,
    /// The request conversion's name map ([`Options::names`]): calls to a rewritten name
    /// get the source's name back.
    names: NameMap,
    /// The first error the source stream reported (or its cut-off).
    error: Option<StreamError>,
}

impl StreamTranslator {
    /// A translator from `from`'s stream to `to`'s, each in its wire framing.
    pub fn new(from: Format, to: Format, options: &Options) -> Result<Self, Error> {
        Self::with_framing(from, Framing::of(from), to, Framing::of(to), options)
    }

    /// A translator with the framings given (Bedrock events one JSON object a line, say).
    pub fn with_framing(
        from: Format,
        from_framing: Framing,
        to: Format,
        to_framing: Framing,
        options: &Options,
    ) -> Result<Self, Error> {
        let mut decoder =
            StreamDecoder::with_limits(from, from_framing, Limits::default(), options)?;
        let encoder = if from == to {
            decoder.keep_frames();
            None
        } else {
            Some(StreamEncoder::with_framing(to, to_framing, options)?)
        };
        Ok(StreamTranslator {
            decoder,
            encoder,
            to_framing,
            names: options.names.clone(),
            error: None,
        })
    }

    /// Pushes the next source bytes; returns the target bytes now complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<u8>, Error> {
        let parts = self.decoder.push(bytes)?;
        self.forward(parts)
    }

    /// Ends the source stream; returns the last target bytes (what waited, what was
    /// open, the terminator).
    pub fn finish(&mut self) -> Result<Vec<u8>, Error> {
        let parts = self.decoder.finish()?;
        let mut out = self.forward(parts)?;
        if let Some(e) = &mut self.encoder {
            out.extend(e.finish()?);
        }
        Ok(out)
    }

    /// What could not be carried so far: the decoder's, then the encoder's.
    pub fn losses(&self) -> Vec<Loss> {
        let mut all = self.decoder.losses().to_vec();
        if let Some(e) = &self.encoder {
            all.extend(e.losses().iter().cloned());
        }
        all
    }

    /// The first error the source stream carried so far — a provider's error event, or
    /// [`StreamErrorKind::Incomplete`](super::StreamErrorKind::Incomplete) when it ended
    /// before its finish event. The error is also written to the target as its error
    /// event (or, passed through, as the source wrote it); this says the answer is not
    /// whole.
    pub fn error(&self) -> Option<&StreamError> {
        self.error.as_ref()
    }

    /// Tool-call ids rewritten for the target so far.
    pub fn ids(&self) -> IdMap {
        self.encoder
            .as_ref()
            .map(|e| e.ids().clone())
            .unwrap_or_default()
    }

    fn forward(&mut self, mut parts: Vec<StreamPart>) -> Result<Vec<u8>, Error> {
        if !self.names.is_empty() {
            for p in &mut parts {
                if let StreamPart::ToolStart(ToolStart { name, .. }) = p {
                    crate::passes::names::restore(name, &self.names);
                }
            }
        }
        if self.error.is_none() {
            self.error = parts.iter().find_map(|p| match p {
                StreamPart::Error(e) => Some(e.clone()),
                _ => None,
            });
        }
        match &mut self.encoder {
            Some(e) => e.encode_all(parts),
            None => {
                // The same format: the source's own events, framed again.
                let mut text = String::new();
                let mut bytes = Vec::new();
                for f in self.decoder.take_frames() {
                    match self.to_framing {
                        Framing::Sse => write_sse_frame(&mut text, &f),
                        Framing::Ndjson => match self.decoder.format() {
                            Format::Bedrock if f.name.is_some() => {
                                write_ndjson(
                                    &mut text,
                                    &f.to_bedrock_json().map_err(|e| Error::Stream {
                                        offset: f.offset,
                                        message: e.to_string(),
                                    })?,
                                );
                            }
                            _ => write_ndjson(&mut text, &f.data),
                        },
                        Framing::EventStream => {
                            let name = f.name.clone().unwrap_or_default();
                            write_event_stream(&mut bytes, f.kind, &name, &f.data);
                        }
                    }
                }
                bytes.extend(text.into_bytes());
                Ok(bytes)
            }
        }
    }
}
