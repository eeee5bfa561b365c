//! The `streamGenerateContent?alt=sse` stream: each event is a whole
//! `GenerateContentResponse` chunk holding the next parts of each candidate, its usage so
//! far, and on the last chunk of a candidate its `finishReason`; `{"error": …}` mid-stream.
//!
//! Each chunk's parts are decoded by the whole-body code (`decode_part`, `decode_call`),
//! so the accumulated response is the one the non-streamed body gives: consecutive text
//! parts extend one open text part (thought parts one reasoning part), a
//! `thoughtSignature` on a later part goes to the open part's meta, a whole
//! `functionCall` is a call with its arguments at once, and code-execution and media
//! parts arrive whole. Vertex AI's `streamFunctionCallArguments` streams a call over
//! several parts (`willContinue`, `partialArgs` at JSON paths): it is built up and its
//! arguments sent at its end. A prompt blocked before any candidate
//! (`promptFeedback.blockReason`) is a finish with a content-filter stop, not an error.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
