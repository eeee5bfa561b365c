//! Passes over the neutral model, and rules several formats share, each written once.
//!
//! * [`results`]: tool results named after their calls; results in the order of their
//!   calls.
//! * [`args`]: arguments as the JSON object a format's calls take; calls to tools whose
//!   input is not an object wrapped as `{"input": …}`.
//! * [`builtin`]: hosted web search and code execution tools of one format as another's
//!   equivalent; hosted calls and results as text where the target has none.
//! * [`content`]: a decoded message's start; string-or-parts message content (Mistral,
//!   Cohere): plain messages, turn content, tool results.
//! * [`tools`]: the tools loop every encoder runs, and the OpenAI-style function tool
//!   (OpenAI Chat, Mistral, Ollama, Cohere).
//! * [`response`]: what a target's response requires and the source lacks, filled with
//!   documented stand-ins (a loss each).
//! * [`request`]: the neutral request and vendor record every request decoder starts
//!   with.
//! * [`names`]: tool names the target rejects rewritten (and restored in responses).
//! * [`thinking`]: Claude's extended-thinking constraints (Anthropic, Bedrock).

pub(crate) mod args;
pub(crate) mod builtin;
pub(crate) mod content;
pub(crate) mod finish;
pub(crate) mod names;
pub(crate) mod request;
pub(crate) mod response;
pub(crate) mod results;
pub(crate) mod settings;
pub(crate) mod thinking;
pub(crate) mod tools;

pub(crate) use args::{object_arguments, wrap_non_object_calls};
pub(crate) use results::{order_results, resolve_result_names};
