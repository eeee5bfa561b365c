//! One module per format, each with `request`, `response`, `event` and `error`
//! summaries: a few lines that show what the typed structs understood (roles, part and
//! block types, tool calls, unknown members kept whole, unknown fields kept in `extra`).

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod gemini;
pub mod mcp;
pub mod mistral;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;

/// `" +extra[a, b]"` when an object kept unknown fields, else `""`.
pub fn extra(e: &wire_types::Extra) -> String {
    if e.fields().is_empty() {
        String::new()
    } else {
        let keys: Vec<&str> = e.fields().keys().map(|k| k.as_str()).collect();
        format!(" +extra[{}]", keys.join(", "))
    }
}
