//! The ConverseStream stream: `messageStart`, then per block an optional
//! `contentBlockStart` (tool use, server tool result, image), its `contentBlockDelta`s and
//! `contentBlockStop`, then `messageStop` (stop reason) and `metadata` (usage, metrics,
//! trace); an exception may come instead of any event. The decoder always reads the
//! `{"<eventType>": payload}` form (the framing turns AWS event-stream messages into it).
//!
//! Text and reasoning blocks get no `contentBlockStart`: a block begins with the first
//! delta for its `contentBlockIndex`, and an index used again after its stop is a new
//! block. Bedrock sends usage in `metadata` after `messageStop` (a capture has the two the
//! other way round): the finish is sent once both came, so that an encoder writing the
//! finish sees the usage first, or at the end of the stream when `metadata` never came. A
//! stream without `messageStop` is incomplete.
//!
//! Blocks that come whole in a non-streamed body (a server tool's call or result, a
//! generated image, an unknown start) are rebuilt from their start and deltas and decoded
//! by the whole-body code at their stop, so the accumulated response is the one the
//! non-streamed body gives. Citation deltas stay on their text part (a `citations`
//! field, sent at the block's stop), which a whole response writes as `citationsContent`.
//! Unknown fields of `messageStart`, `messageStop` and `metadata` are kept (start,
//! finish and response vendor data) and written back where they came from.

mod decode;
mod encode;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
