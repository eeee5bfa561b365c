//! Summaries for `openai_chat`.

use super::{args, choice_line, choices_head, extra, tool_def};
use crate::support::short;
use std::fmt::Write;
use wire_types::TextOrParts;
use wire_types::openai_chat::*;

fn parts(content: &TextOrParts<ContentPart>) -> String {
    match content {
        TextOrParts::Text(t) => format!("\"{}\"", short(t, 60)),
        TextOrParts::Parts(ps) => {
            let names: Vec<String> = ps
                .iter()
                .map(|p| match p {
                    ContentPart::Text(t) => format!("text \"{}\"", short(&t.text, 40)),
                    ContentPart::ImageUrl(i) => {
                        format!("image_url {}", short(&i.image_url.url, 40))
                    }
                    ContentPart::InputAudio(a) => format!("input_audio {}", a.input_audio.format),
                    ContentPart::File(_) => "file".to_owned(),
                    ContentPart::Refusal(r) => format!("refusal \"{}\"", short(&r.refusal, 40)),
                    other => format!("OTHER {}", other.tag()),
                })
                .collect();
            format!("[{}]", names.join(", "))
        }
    }
}

fn calls(out: &mut String, calls: &[ToolCall]) {
    for c in calls {
        let args = c.arguments().map(args).unwrap_or_default();
        writeln!(
            out,
            "    call {} {} {args}{}",
            c.id.as_deref().unwrap_or("(no id)"),
            c.name().unwrap_or("(custom)"),
            extra(&c.extra)
        )
        .unwrap();
    }
}

pub fn request(r: &Request) -> String {
    let mut out = format!("model {}{}\n", r.model, extra(&r.extra));
    for m in &r.messages {
        match m {
            Message::System(s) => writeln!(out, "  system {}", parts(&s.content)).unwrap(),
            Message::Developer(s) => writeln!(out, "  developer {}", parts(&s.content)).unwrap(),
            Message::User(u) => writeln!(out, "  user {}", parts(&u.content)).unwrap(),
            Message::Assistant(a) => {
                let content = a
                    .content
                    .as_ref()
                    .map(parts)
                    .unwrap_or_else(|| "(no content)".into());
                writeln!(out, "  assistant {content}{}", extra(&a.extra)).unwrap();
                calls(&mut out, a.tool_calls.as_deref().unwrap_or_default());
            }
            Message::Tool(t) => {
                writeln!(out, "  tool {} {}", t.tool_call_id, parts(&t.content)).unwrap()
            }
            Message::Function(f) => writeln!(out, "  function {}", f.name).unwrap(),
            other => writeln!(out, "  OTHER role {}", other.tag()).unwrap(),
        }
    }
    for t in r.tools.iter().flatten() {
        match t {
            Tool::Function(f) => {
                tool_def(&mut out, &f.function.name, f.function.parameters.as_ref())
            }
            other => writeln!(out, "  tool def {}", other.tag()).unwrap(),
        }
    }
    if let Some(c) = &r.tool_choice {
        writeln!(out, "  tool_choice {}", serde_json::to_string(c).unwrap()).unwrap();
    }
    out
}

pub fn response(r: &Response) -> String {
    let mut out = choices_head(r.model.as_deref(), r.choices.len(), &r.extra);
    for c in &r.choices {
        let m = &c.message;
        let content = m
            .content
            .as_ref()
            .map(parts)
            .unwrap_or_else(|| "(no content)".into());
        let finish = c.finish_reason.as_ref().map(|f| f.as_str());
        choice_line(&mut out, c.index, finish, &content, &m.extra);
        if let Some(r) = &m.refusal {
            writeln!(out, "    refusal \"{}\"", short(r, 60)).unwrap();
        }
        calls(&mut out, m.tool_calls.as_deref().unwrap_or_default());
    }
    if let Some(u) = &r.usage {
        writeln!(
            out,
            "  usage in {:?} out {:?} reasoning {:?}",
            u.prompt_tokens,
            u.completion_tokens,
            u.completion_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens)
        )
        .unwrap();
    }
    out
}

/// The thought signature of Gemini's `extra_content`, either namespace.
fn signature(x: Option<&ExtraContent>) -> Option<&str> {
    let x = x?;
    x.google
        .as_ref()
        .or(x.vertex.as_ref())?
        .thought_signature
        .as_deref()
}

pub fn event(e: &StreamEvent) -> String {
    match e {
        StreamEvent::Error(e) => format!("error {}", e.error.message.as_deref().unwrap_or("")),
        StreamEvent::Chunk(c) => {
            let mut s = String::from("chunk");
            if c.choices.is_none() {
                s.push_str(" (no choices)");
            }
            for ch in c.choices.iter().flatten() {
                if let Some(d) = &ch.delta {
                    if let Some(r) = &d.role {
                        if r.is_empty() {
                            s.push_str(" role \"\"");
                        }
                    }
                    if let Some(t) = &d.content {
                        write!(s, " content \"{}\"", short(t, 30)).unwrap();
                    }
                    if let Some(t) = d.reasoning_content.as_ref().or(d.reasoning.as_ref()) {
                        write!(s, " reasoning \"{}\"", short(t, 30)).unwrap();
                    }
                    if let Some(t) = &d.refusal {
                        write!(s, " refusal \"{}\"", short(t, 30)).unwrap();
                    }
                    if let Some(sig) = signature(d.extra_content.as_ref()) {
                        write!(s, " signature \"{}\"", short(sig, 12)).unwrap();
                    }
                    for tc in d.tool_calls.iter().flatten() {
                        let f = tc.function.as_ref();
                        write!(
                            s,
                            " tool_call[{}] {}{}",
                            tc.index.map(|i| i.to_string()).unwrap_or("-".into()),
                            f.and_then(|f| f.name.as_deref()).unwrap_or(""),
                            f.and_then(|f| f.arguments.as_deref())
                                .map(|a| format!(" +args \"{}\"", short(a, 30)))
                                .unwrap_or_default()
                        )
                        .unwrap();
                        if let Some(id) = &tc.id {
                            write!(s, " id {id}").unwrap();
                        }
                        if let Some(sig) = signature(tc.extra_content.as_ref()) {
                            write!(s, " signature \"{}\"", short(sig, 12)).unwrap();
                        }
                    }
                }
                match &ch.finish_reason {
                    Some(f) if f.as_str().is_empty() => s.push_str(" finish \"\""),
                    Some(f) => write!(s, " finish {f}").unwrap(),
                    None => {}
                }
                if let Some(l) = &ch.logprobs {
                    let n = l.content.iter().chain(l.refusal.iter()).flatten().count();
                    write!(s, " logprobs {n}").unwrap();
                }
                if ch.content_filter_results.is_some() {
                    s.push_str(" filtered");
                }
            }
            if let Some(p) = &c.prompt_filter_results {
                write!(s, " prompt_filter_results {}", p.len()).unwrap();
            }
            if let Some(u) = &c.usage {
                write!(s, " usage {:?}/{:?}", u.prompt_tokens, u.completion_tokens).unwrap();
            }
            s.push_str(&extra(&c.extra));
            s
        }
    }
}

pub fn error(e: &ErrorResponse) -> String {
    format!(
        "error {} {}\n",
        e.error.kind.as_deref().unwrap_or("-"),
        e.error.message.as_deref().unwrap_or("")
    )
}
