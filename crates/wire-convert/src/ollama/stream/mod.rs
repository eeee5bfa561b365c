//! The `/api/chat` stream: NDJSON, each line a chat response whose `message` carries a
//! fragment of `content` or `thinking`, or whole `tool_calls` (a call never spans lines);
//! the last line has `done: true`, `done_reason`, the counts and the durations. A line
//! `{"error": "…"}` is the provider's error (the HTTP status stays 200).
//!
//! Each line is decoded by the whole-response decoder, so the accumulated response is
//! the one the non-streamed body gives: a call without an `id` gets the synthetic id of
//! its position among all the calls of the turn. Text and reasoning stay one part each
//! while they run; a part of another kind ends them (`thinking`, `content`, calls in the
//! order Ollama sends them make the parts of the whole body). The first line's `model`
//! and `created_at` are the response's; the last line's durations and unknown fields are
//! its vendor data. `/api/generate` lines (`response`, top-level `thinking`) are read as
//! the message's content and thinking.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
