//! The Messages stream: `message_start`, then per block `content_block_start`, its
//! deltas and `content_block_stop`, then `message_delta` (stop reason, cumulative usage)
//! and `message_stop`; `ping` and `error` in between.
//!
//! Each block's start is decoded by the same code as a whole response's block, so the
//! accumulated response is the one the non-streamed body gives. Server-tool blocks whose
//! input streams (`server_tool_use`) are sent whole at their stop, their input filled in;
//! result blocks arrive whole at their start.

mod decode;
mod encode;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
