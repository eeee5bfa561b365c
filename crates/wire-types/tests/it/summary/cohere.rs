//! Summaries for `cohere`.

use super::{args, extra, tool_def};
use crate::support::short;
use std::fmt::Write;
use wire_types::cohere::*;
use wire_types::{Arguments, TextOrParts};

fn item(c: &Content) -> String {
    match c {
        Content::Text(t) => format!("text \"{}\"", short(&t.text, 40)),
        Content::ImageUrl(i) => format!("image_url {}", short(&i.image_url.url, 40)),
        Content::Thinking(t) => format!("thinking \"{}\"", short(&t.thinking, 40)),
        Content::Document(d) => document(&d.document),
        other => format!("OTHER {}", other.tag()),
    }
}

fn document(d: &Document) -> String {
    let keys: Vec<&str> = d.data.keys().map(|k| k.as_str()).collect();
    format!(
        "document {} {{{}}}",
        d.id.as_deref().unwrap_or("(no id)"),
        keys.join(", ")
    )
}

fn content(content: &TextOrParts<Content>) -> String {
    match content {
        TextOrParts::Text(t) => format!("\"{}\"", short(t, 60)),
        TextOrParts::Parts(ps) => items(ps),
    }
}

fn items(ps: &[Content]) -> String {
    let names: Vec<String> = ps.iter().map(item).collect();
    format!("[{}]", names.join(", "))
}

fn call(c: &ToolCall) -> String {
    format!(
        "{} {} {}{}",
        c.id.as_deref().unwrap_or("(no id)"),
        c.name().unwrap_or("(no name)"),
        c.function
            .as_ref()
            .and_then(|f| f.arguments.as_ref())
            .map(args)
            .unwrap_or_default(),
        extra(&c.extra)
    )
}

fn citation(c: &Citation) -> String {
    let sources: Vec<String> = c
        .sources
        .iter()
        .flatten()
        .map(|s| match s {
            Source::Document(d) => format!("document {}", d.id.as_deref().unwrap_or("?")),
            Source::Tool(t) => format!("tool {}", t.id.as_deref().unwrap_or("?")),
            other => format!("OTHER {}", other.tag()),
        })
        .collect();
    let pos = |p: Option<u64>| p.map(|p| p.to_string()).unwrap_or_else(|| "?".into());
    format!(
        "citation {}..{} {} \"{}\" <- [{}]",
        pos(c.start),
        pos(c.end),
        c.kind.as_ref().map(|k| k.as_str()).unwrap_or("-"),
        short(c.text.as_deref().unwrap_or(""), 30),
        sources.join(", ")
    )
}

fn turn(out: &mut String, plan: Option<&str>, calls: &[ToolCall], citations: &[Citation]) {
    if let Some(p) = plan {
        writeln!(out, "    tool_plan \"{}\"", short(p, 60)).unwrap();
    }
    for c in calls {
        writeln!(out, "    call {}", call(c)).unwrap();
    }
    for c in citations {
        writeln!(out, "    {}", citation(c)).unwrap();
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
                writeln!(out, "  assistant {c}{}", extra(&a.extra)).unwrap();
                turn(
                    &mut out,
                    a.tool_plan.as_deref(),
                    a.tool_calls.as_deref().unwrap_or_default(),
                    a.citations.as_deref().unwrap_or_default(),
                );
            }
            Message::Tool(t) => {
                writeln!(out, "  tool {} {}", t.tool_call_id, content(&t.content)).unwrap()
            }
            other => writeln!(out, "  OTHER role {}", other.tag()).unwrap(),
        }
    }
    for d in r.documents.iter().flatten() {
        match d {
            RequestDocument::Text(t) => writeln!(out, "  document \"{}\"", short(t, 40)).unwrap(),
            RequestDocument::Object(d) => writeln!(out, "  {}", document(d)).unwrap(),
        }
    }
    for t in r.tools.iter().flatten() {
        tool_def(&mut out, &t.function.name, t.function.parameters.as_ref());
    }
    if let Some(c) = &r.tool_choice {
        writeln!(out, "  tool_choice {c}").unwrap();
    }
    if let Some(t) = &r.thinking {
        writeln!(out, "  thinking {} budget {:?}", t.kind, t.token_budget).unwrap();
    }
    out
}

fn usage(u: &Usage) -> String {
    let billed = u.billed_units.as_ref();
    let tokens = u.tokens.as_ref();
    format!(
        "usage billed {:?}/{:?} tokens {:?}/{:?} cached {:?}",
        billed.and_then(|b| b.input_tokens),
        billed.and_then(|b| b.output_tokens),
        tokens.and_then(|t| t.input_tokens),
        tokens.and_then(|t| t.output_tokens),
        u.cached_tokens
    )
}

pub fn response(r: &Response) -> String {
    let m = &r.message;
    let mut out = format!(
        "finish {} content {}{}\n",
        r.finish_reason.as_ref().map(|f| f.as_str()).unwrap_or("-"),
        m.content
            .as_deref()
            .map(items)
            .unwrap_or_else(|| "(no content)".into()),
        extra(&r.extra)
    );
    turn(
        &mut out,
        m.tool_plan.as_deref(),
        m.tool_calls.as_deref().unwrap_or_default(),
        m.citations.as_deref().unwrap_or_default(),
    );
    if let Some(u) = &r.usage {
        writeln!(out, "  {}", usage(u)).unwrap();
    }
    out
}

fn fragment(d: Option<&ContentDelta>) -> String {
    let Some(c) = d
        .and_then(|d| d.message.as_ref())
        .and_then(|m| m.content.as_ref())
    else {
        return String::new();
    };
    let mut s = String::new();
    if let Some(k) = &c.kind {
        write!(s, " <{k}>").unwrap();
    }
    if let Some(t) = &c.text {
        write!(s, " text \"{}\"", short(t, 30)).unwrap();
    }
    if let Some(t) = &c.thinking {
        write!(s, " thinking \"{}\"", short(t, 30)).unwrap();
    }
    s
}

pub fn event(e: &StreamEvent) -> String {
    let mut s = e.tag().to_owned();
    match e {
        StreamEvent::MessageStart(m) => {
            write!(s, " {}", m.id.as_deref().unwrap_or("(no id)")).unwrap();
            s.push_str(&extra(&m.extra));
        }
        StreamEvent::ContentStart(c) | StreamEvent::ContentDelta(c) => {
            write!(
                s,
                "[{}]{}",
                c.index.unwrap_or(0),
                fragment(c.delta.as_ref())
            )
            .unwrap();
            s.push_str(&extra(&c.extra));
        }
        StreamEvent::ContentEnd(i) | StreamEvent::ToolCallEnd(i) | StreamEvent::CitationEnd(i) => {
            write!(s, "[{}]{}", i.index.unwrap_or(0), extra(&i.extra)).unwrap();
        }
        StreamEvent::ToolPlanDelta(p) => {
            let plan = p
                .delta
                .as_ref()
                .and_then(|d| d.message.as_ref())
                .and_then(|m| m.tool_plan.as_deref());
            write!(
                s,
                " \"{}\"{}",
                short(plan.unwrap_or(""), 30),
                extra(&p.extra)
            )
            .unwrap();
        }
        StreamEvent::ToolCallStart(t) => {
            let c = t
                .delta
                .as_ref()
                .and_then(|d| d.message.as_ref())
                .and_then(|m| m.tool_calls.as_ref());
            write!(
                s,
                "[{}] {}{}",
                t.index.unwrap_or(0),
                c.map(call).unwrap_or_default(),
                extra(&t.extra)
            )
            .unwrap();
        }
        StreamEvent::ToolCallDelta(t) => {
            let c = t
                .delta
                .as_ref()
                .and_then(|d| d.message.as_ref())
                .and_then(|m| m.tool_calls.as_ref());
            let fragment = c
                .and_then(|c| c.function.as_ref())
                .and_then(|f| f.arguments.as_ref());
            let text = match fragment {
                Some(Arguments::Text(t)) => short(t, 30),
                Some(Arguments::Json(v)) => short(&v.to_string(), 30),
                None => String::new(),
            };
            write!(
                s,
                "[{}] +args \"{text}\"{}",
                t.index.unwrap_or(0),
                extra(&t.extra)
            )
            .unwrap();
        }
        StreamEvent::CitationStart(c) => {
            let cit = c
                .delta
                .as_ref()
                .and_then(|d| d.message.as_ref())
                .and_then(|m| m.citations.as_ref());
            write!(
                s,
                "[{}] {}",
                c.index.unwrap_or(0),
                cit.map(citation).unwrap_or_default()
            )
            .unwrap();
        }
        StreamEvent::MessageEnd(m) => {
            if let Some(d) = &m.delta {
                if let Some(f) = &d.finish_reason {
                    write!(s, " finish {f}").unwrap();
                }
                if let Some(u) = &d.usage {
                    write!(s, " {}", usage(u)).unwrap();
                }
                if let Some(e) = &d.error {
                    write!(s, " error \"{}\"", short(e, 40)).unwrap();
                }
            }
            s.push_str(&extra(&m.extra));
        }
        StreamEvent::Debug(d) => {
            write!(
                s,
                " prompt \"{}\"",
                short(d.prompt.as_deref().unwrap_or(""), 30)
            )
            .unwrap();
            s.push_str(&extra(&d.extra));
        }
        other => s = format!("OTHER {}", other.tag()),
    }
    s
}

pub fn error(e: &ErrorResponse) -> String {
    format!("error \"{}\"{}\n", e.message, extra(&e.extra))
}
