//! The v2 chat stream: `message-start`; per content item `content-start` (`text` or
//! `thinking`), `content-delta`s and `content-end`; `tool-plan-delta`s before the calls;
//! per call `tool-call-start` (id, name, often empty arguments), `tool-call-delta`s (none
//! for a call without arguments) and `tool-call-end`, keyed by `index`;
//! `citation-start` / `citation-end` pairs; `message-end` (finish reason, usage, and an
//! `error` when generation failed); `debug` (the rendered prompt) on debug requests.
//!
//! Each call's start is decoded by the whole-response decoder (its synthetic id when it
//! has none is the one the whole body gives); the tool plan is a reasoning part with the
//! `tool_plan` hint, as in a whole response. Citations are the message's: they are held
//! and come with the finish, in its vendor record (the whole-response encoder writes them
//! on the message). The `debug` prompt is response vendor data (`debug`), written back as
//! a `debug` event by the encoder.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
