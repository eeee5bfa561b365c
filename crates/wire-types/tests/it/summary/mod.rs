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

/// `"  tool def <name> (schema: yes|none)\n"`: a function tool, and whether it has a
/// parameters schema.
pub fn tool_def(out: &mut String, name: &str, parameters: Option<&serde_json::Value>) {
    use std::fmt::Write;
    let schema = if parameters.is_some() { "yes" } else { "none" };
    writeln!(out, "  tool def {name} (schema: {schema})").unwrap();
}

/// The first line of an OpenAI-shaped response (Chat, Mistral): model and choice count.
pub fn choices_head(model: Option<&str>, choices: usize, e: &wire_types::Extra) -> String {
    format!(
        "model {} choices {choices}{}\n",
        model.unwrap_or("?"),
        extra(e)
    )
}

/// One choice of an OpenAI-shaped response: index, finish reason, content summary.
pub fn choice_line(
    out: &mut String,
    index: Option<u32>,
    finish: Option<&str>,
    content: &str,
    e: &wire_types::Extra,
) {
    use std::fmt::Write;
    writeln!(
        out,
        "  choice {} finish {} content {content}{}",
        index.unwrap_or(0),
        finish.unwrap_or("-"),
        extra(e)
    )
    .unwrap();
}

/// Tool-call arguments: `text …` (JSON text) or `json …` (a value).
pub fn args(a: &wire_types::Arguments) -> String {
    match a {
        wire_types::Arguments::Text(t) => format!("text {}", crate::support::short(t, 60)),
        wire_types::Arguments::Json(v) => {
            format!("json {}", crate::support::short(&v.to_string(), 60))
        }
    }
}
