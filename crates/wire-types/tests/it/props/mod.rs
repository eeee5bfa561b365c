//! Property tests: arbitrary values of each format's main types survive write → read
//! unchanged (`read_after_write_is_identity`). One module per format; the strategies they
//! share are in `support`.
//!
//! The strategies build canonical values only: an `Other` arm never holds a known tag or
//! spelling (reading maps those to their variant), and `extra` keys never collide with a
//! modeled field (prefix `x_`).

// What every format module takes with `use super::*`.
use proptest::prelude::*;
use serde_json::{Map, Value};
use wire_types::Extra;

#[macro_use]
mod support;
pub use support::*;

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod gemini;
pub mod mcp;
pub mod mistral;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;
