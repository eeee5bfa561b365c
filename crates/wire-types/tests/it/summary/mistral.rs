//! Summaries for `mistral`.

use super::{args, choice_line, choices_head, extra, tool_def};
use crate::support::short;
use std::fmt::Write;
use wire_types::mistral::*;
use wire_types::{Arguments, TextOrParts};

fn chunk(c: &ContentChunk) -> String {
    match c {
        ContentChunk::Text(t) => format!("text \"{}\"", short(&t.text, 40)),
        ContentChunk::ImageUrl(i) => match &i.image_url {
            ImageUrlValue::Url(u) => format!("image_url {}", short(u, 40)),
            ImageUrlValue::Object(o) => format!("image_url {{url {}}}", short(&o.url, 40)),
        },
        ContentChunk::DocumentUrl(d) => format!(
            "document_url {}{}",
            short(&d.document_url, 40),
            d.document_name
                .as_deref()
                .map(|n| format!(" name {n}"))
                .unwrap_or_default()
        ),
        ContentChunk::InputAudio(a) => format!("input_audio {}", short(&a.input_audio, 20)),
        ContentChunk::File(f) => format!("file {}", f.file_id),
        ContentChunk::Reference(r) => format!("reference {:?}", r.reference_ids),
        ContentChunk::Thinking(t) => format!(
            "thinking \"{}\"{}",
            short(&thinking_text(t), 40),
            t.closed.map(|c| format!(" closed {c}")).unwrap_or_default()
        ),
        other => format!("OTHER {}", other.tag()),
    }
}

fn content(content: &TextOrParts<ContentChunk>) -> String {
    match content {
        TextOrParts::Text(t) => format!("\"{}\"", short(t, 60)),
        TextOrParts::Parts(ps) => {
            let names: Vec<String> = ps.iter().map(chunk).collect();
            format!("[{}]", names.join(", "))
        }
    }
}

fn calls(out: &mut String, calls: &[ToolCall]) {
    for c in calls {
        writeln!(
            out,
            "    call {}{} {} {}{}",
            c.id.as_deref().unwrap_or("(no id)"),
            c.index.map(|i| format!(" [{i}]")).unwrap_or_default(),
            c.function.name,
            args(&c.function.arguments),
            extra(&c.extra)
        )
        .unwrap();
    }
}

pub fn request(r: &Request) -> String {
    let mut out = format!("model {}{}\n", r.model, extra(&r.extra));
    for m in &r.messages {
        match m {
            Message::System(s) => writeln!(out, "  system {}", content(&s.content)).unwrap(),
            Message::User(u) => writeln!(out, "  user {}", content(&u.content)).unwrap(),
            Message::Assistant(a) => {
                let c = a
                    .content
                    .as_ref()
                    .map(content)
                    .unwrap_or_else(|| "(no content)".into());
                let prefix = if a.prefix == Some(true) {
                    " PREFIX"
                } else {
                    ""
                };
                writeln!(out, "  assistant{prefix} {c}{}", extra(&a.extra)).unwrap();
                calls(&mut out, a.tool_calls.as_deref().unwrap_or_default());
            }
            Message::Tool(t) => writeln!(
                out,
                "  tool {} name {} {}",
                t.tool_call_id.as_deref().unwrap_or("(no id)"),
                t.name.as_deref().unwrap_or("-"),
                content(&t.content)
            )
            .unwrap(),
            other => writeln!(out, "  OTHER role {}", other.tag()).unwrap(),
        }
    }
    for t in r.tools.iter().flatten() {
        tool_def(&mut out, &t.function.name, t.function.parameters.as_ref());
    }
    if let Some(c) = &r.tool_choice {
        writeln!(out, "  tool_choice {}", serde_json::to_string(c).unwrap()).unwrap();
    }
    if let Some(p) = r.parallel_tool_calls {
        writeln!(out, "  parallel_tool_calls {p}").unwrap();
    }
    if let Some(p) = &r.prompt_mode {
        writeln!(out, "  prompt_mode {p}").unwrap();
    }
    out
}

fn usage(u: &Usage) -> String {
    format!(
        "usage in {:?} out {:?} cached {:?}",
        u.prompt_tokens,
        u.completion_tokens,
        u.prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
    )
}

pub fn response(r: &Response) -> String {
    let mut out = choices_head(r.model.as_deref(), r.choices.len(), &r.extra);
    for c in &r.choices {
        let m = &c.message;
        let text = m
            .content
            .as_ref()
            .map(content)
            .unwrap_or_else(|| "(no content)".into());
        let finish = c.finish_reason.as_ref().map(|f| f.as_str());
        choice_line(&mut out, c.index, finish, &text, &m.extra);
        calls(&mut out, m.tool_calls.as_deref().unwrap_or_default());
    }
    if let Some(u) = &r.usage {
        writeln!(out, "  {}", usage(u)).unwrap();
    }
    out
}

pub fn event(e: &StreamEvent) -> String {
    match e {
        StreamEvent::Error(e) => format!(
            "error {}{}",
            e.message_text().unwrap_or("(structured message)"),
            extra(&e.extra)
        ),
        StreamEvent::Chunk(c) => {
            let mut s = String::from("chunk");
            for ch in &c.choices {
                if let Some(d) = &ch.delta {
                    if let Some(t) = &d.content {
                        write!(s, " content {}", content(t)).unwrap();
                    }
                    for tc in d.tool_calls.iter().flatten() {
                        write!(
                            s,
                            " tool_call[{}] {} {} +args \"{}\"",
                            tc.index
                                .map(|i| i.to_string())
                                .unwrap_or_else(|| "-".into()),
                            tc.id.as_deref().unwrap_or("(no id)"),
                            tc.function.name,
                            match &tc.function.arguments {
                                Arguments::Text(t) => short(t, 30),
                                Arguments::Json(v) => short(&v.to_string(), 30),
                            }
                        )
                        .unwrap();
                    }
                    s.push_str(&extra(&d.extra));
                }
                if let Some(f) = &ch.finish_reason {
                    write!(s, " finish {f}").unwrap();
                }
            }
            if let Some(u) = &c.usage {
                write!(s, " {}", usage(u)).unwrap();
            }
            s.push_str(&extra(&c.extra));
            s
        }
    }
}

pub fn error(e: &ErrorResponse) -> String {
    format!(
        "error {} {}{}\n",
        e.kind.as_deref().unwrap_or("-"),
        e.message_text().unwrap_or("(structured message)"),
        extra(&e.extra)
    )
}
