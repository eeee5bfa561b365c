//! The Mistral stream: `chat.completion.chunk`s shaped like OpenAI's, with Mistral's
//! differences: a call comes whole in one delta (no `index`, no `type`; compatible
//! servers split its arguments over deltas keyed by `index`), `finish_reason` and `usage`
//! on the same last chunk, and Magistral's `delta.content` an array of chunks
//! (`{"type":"thinking","thinking":[{"type":"text",…}]}`, then `text`), then
//! `data: [DONE]`.
//!
//! Decoding is the OpenAI-shaped core of [`openai_chat::stream`](crate::openai_chat::stream):
//! this module only reads Mistral's chunk into its deltas. The encoder is Mistral's own,
//! since what it writes differs where Mistral's clients expect it: each call whole, in one
//! delta, when its arguments are complete, and the usage on the finish chunk (which waits
//! for it), no chunk of its own.

mod decode;
mod encode;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
