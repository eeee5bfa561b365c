//! OpenAI Responses: `POST /v1/responses` request and response bodies and the stream
//! events of a streamed response.
//!
//! Transcribed from the `openai-python` SDK types (`types/responses/*`,
//! `types/shared_params/reasoning.py`, commit e43b422, 2026-08-21), checked against the
//! schemas exported from `openai` 3.57.0 in `fixtures/conformance/openai-responses.*`, and
//! the API reference; see `../shared/docs/providers.md` §2 as vendored in
//! `ARCHITECTURE.md`. Real payloads: `fixtures/openai-responses/`.
//!
//! Also read here: Open Responses servers (LM Studio) and Azure OpenAI, whose additions
//! (`content_filters`, …) land in `extra`.
//!
//! ## Style
//! * `input` is an [`Input`]: a string or an array of [`Item`]s. The same [`Item`] union
//!   reads a response's `output`, since output items are replayed as input.
//! * An easy input message may leave out `"type": "message"`: [`Item`] then tells it by
//!   its `role`, and [`Message::kind`] records that `type` was absent so none is written.
//! * Item types this crate does not model (`web_search_call`, `mcp_call`,
//!   `apply_patch_call`, …) and hosted tools are kept whole in the `Other` arms.
//! * Every stream event of the SDK's `ResponseStreamEvent` union (`response_stream_event.py`,
//!   the union in `fixtures/conformance/openai-responses.event.schema.json`) has its own
//!   [`StreamEvent`] arm; hosted-tool progress events share [`ItemEvent`]. An unknown event
//!   is kept whole in [`StreamEvent::Other`].
//! * Floating-point settings are [`Number`] so that `1` stays `1` and `1.0` stays `1.0`.
//! * Function-call `arguments` are [`Arguments`]: JSON text as the model wrote it.

use crate::common::{Arguments, TextOrParts};
use crate::error::{Category, Error};
use crate::extra::Extra;
use crate::macros::Key;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Number, Value};
use std::fmt;

pub use crate::common::{
    ErrorDetail, Logprob, NoFields, ReasoningEffort, ToolChoiceMode, TopLogprob,
};

mod request;
mod response;
mod stream;

pub use request::*;
pub use response::*;
pub use stream::*;

/// Checks what the types leave open: every message role is one the Responses API knows,
/// and every `function_call_output` names the call it answers.
pub fn validate_request(request: &Request) -> Result<(), Error> {
    let Some(Input::Items(items)) = &request.input else {
        return Ok(());
    };
    for (i, item) in items.iter().enumerate() {
        match item {
            Item::Message(m) => {
                if let Role::Other(role) = &m.role {
                    return Err(crate::common::unknown_role_named(
                        &format!("/input/{i}"),
                        &Value::from(role.as_str()).to_string(),
                        Role::KNOWN,
                    ));
                }
            }
            Item::FunctionCallOutput(o) if o.call_id.is_none() => {
                return Err(Error::new(
                    Category::Shape,
                    format!("/input/{i}/call_id"),
                    "missing field (a function_call_output needs the `call_id` of the call it answers)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
