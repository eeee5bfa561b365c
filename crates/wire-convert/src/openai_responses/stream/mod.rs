//! The Responses stream: `response.created` and `response.in_progress`, then per output
//! item `response.output_item.added`, its content events (`response.content_part.*`,
//! `response.output_text.*`, `response.refusal.*`, `response.function_call_arguments.*`,
//! `response.reasoning_summary_*`, `response.reasoning_text.*`) and
//! `response.output_item.done`, then one terminal event carrying the whole response
//! (`response.completed`, `response.incomplete` or `response.failed`); `error`,
//! `keepalive`, `ping` and hosted tools' progress events in between.
//!
//! Decoding keys every item by its `output_index` (GitHub Copilot rotates `item_id` on
//! every event; parallel calls interleave). Text, arguments and reasoning stream as
//! deltas; a part's vendor data (annotations, logprobs, the item's `id` and `status`) is
//! read from the complete item of `response.output_item.done` by the whole-body decoder
//! and sent as a [`StreamPart::Meta`] before the part's end, so the parts add up to what
//! the non-streamed body gives. A call whose arguments come only in
//! `response.function_call_arguments.done` (or only in the done item) gets them there.
//! Refusals, and items other than messages, function calls and reasoning (hosted tools:
//! `web_search_call`, `mcp_call`, `apply_patch_call`, …), arrive whole at their end. The
//! terminal event's response gives the usage, the stop reason and the response-level
//! vendor data ([`StreamPart::ResponseMeta`]); its items are not sent again, but an item
//! it holds that the stream never sent is, and an item field it changed (a rotated item
//! id) comes as a [`StreamPart::Meta`]. Events after the terminal event (a second
//! response, in a recording of several) are left out, with a loss.
//!
//! The decoder holds the items still open and, for each item done, its part ids and the
//! vendor data they were given (no content), to compare with the terminal response.
//!
//! Encoding writes the full event sequence (`sequence_number`, item ids, output and
//! content indexes, every `.done` event) as the parts come, and ends with the whole
//! response: the parts are added up by an [`Accumulator`], each item is written by the
//! whole-body encoder at its end, and the terminal event's response is the whole-body
//! encoder's with those items. Consecutive text parts share one message item (a part
//! that starts a Responses message item starts a new one), as in a whole body. An item
//! carries its parts' own Responses id, else one made up from its output index
//! (`msg_<n>`, `fc_<n>`, `rs_<n>`). Reasoning of another format opens its item at its
//! first text; reasoning with nothing this format can carry writes no item (a loss).
//! An error part, or a source that ends without its finish, ends the stream with an
//! `error` event and `response.failed`.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

pub(crate) use decode::Decoder;
pub(crate) use encode::Encoder;
