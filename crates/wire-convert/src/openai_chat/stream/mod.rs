//! The Chat Completions stream: `chat.completion.chunk`s, each with choice deltas (role,
//! `content`, `refusal`, `tool_calls` fragments keyed by `index`, `finish_reason`), a last
//! chunk with `usage` and `choices: []` (`stream_options.include_usage`), then
//! `data: [DONE]`.
//!
//! The decoder is written once for every OpenAI-shaped stream ([`Shaped`], over its
//! [`Core`]): a format reads its typed chunk into [`ChoiceDelta`]s and hands them over
//! ([`ReadChunks`]); Mistral's stream uses the same decoder. Compatible servers bend
//! every rule (`shared/docs/streaming.md`), so a tool-call fragment is matched to its
//! call by `index` (the latest call when there is none), and starts a new call only when
//! it names a tool and carries an id other than the call's: a fresh id on every fragment
//! of one call, a name in a later fragment, one `index` for two calls all decode to the
//! calls that were meant. A call is complete at the choice's finish, never because its
//! arguments parse so far.
//!
//! A choice's `Finish` waits for the usage chunk (or the stream's end), so that an encoder
//! that writes usage with its stop (Anthropic's `message_delta`) has it. Logprobs and the
//! choice's other members travel on the `Finish` (their lists joined); the message's own
//! members the neutral model has no place for (Gemini's `extra_content` on a text answer,
//! a role other than `assistant`) go in its vendor field `message`, which the response
//! encoder writes back on the message.
//!
//! Refusal text has no stream part of its own: it is sent whole, as a refusal part, when
//! its choice finishes.

mod decode;
mod encode;
/// What the stream tests of the OpenAI-shaped formats share.
#[cfg(test)]
pub(crate) mod testing;

pub(crate) use decode::{
    CallDelta, ChoiceDelta, Core, Decoder, MESSAGE, ReadChunks, Shaped, put_message_members,
};
pub(crate) use encode::Encoder;
