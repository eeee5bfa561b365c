//! Summaries for `ollama`.

use super::{extra, tool_def};
use crate::support::short;
use std::fmt::Write;
use wire_types::ollama::*;

fn message(out: &mut String, m: &Message) {
    write!(out, "{}", m.role).unwrap();
    if let Some(t) = &m.tool_name {
        write!(out, " tool_name {t}").unwrap();
    }
    if let Some(id) = &m.tool_call_id {
        write!(out, " tool_call_id {id}").unwrap();
    }
    match &m.content {
        Some(c) => write!(out, " \"{}\"", short(c, 60)).unwrap(),
        None => out.push_str(" (no content)"),
    }
    if let Some(t) = &m.thinking {
        write!(out, " thinking \"{}\"", short(t, 40)).unwrap();
    }
    if let Some(images) = &m.images {
        let sizes: Vec<String> = images
            .iter()
            .map(|i| format!("{} b64 chars", i.len()))
            .collect();
        write!(out, " images [{}]", sizes.join(", ")).unwrap();
    }
    out.push_str(&extra(&m.extra));
    for c in m.tool_calls.iter().flatten() {
        let f = &c.function;
        write!(
            out,
            "\n    call {}{} {} args {}{}",
            c.id.as_deref().unwrap_or("(no id)"),
            f.index.map(|i| format!(" [{i}]")).unwrap_or_default(),
            f.name,
            short(&serde_json::to_string(&f.arguments).unwrap(), 60),
            extra(&c.extra)
        )
        .unwrap();
    }
}

fn think(t: &Think) -> String {
    match t {
        Think::Enabled(b) => b.to_string(),
        Think::Level(l) => format!("level {l}"),
    }
}

pub fn request(r: &Request) -> String {
    let mut out = format!("model {}{}\n", r.model, extra(&r.extra));
    for m in &r.messages {
        out.push_str("  ");
        message(&mut out, m);
        out.push('\n');
    }
    for t in r.tools.iter().flatten() {
        tool_def(&mut out, &t.function.name, t.function.parameters.as_ref());
    }
    if let Some(f) = &r.format {
        match f {
            Format::Named(n) => writeln!(out, "  format \"{n}\"").unwrap(),
            Format::Schema(s) => writeln!(
                out,
                "  format schema {}",
                short(&serde_json::to_string(s).unwrap(), 60)
            )
            .unwrap(),
        }
    }
    if let Some(t) = &r.think {
        writeln!(out, "  think {}", think(t)).unwrap();
    }
    if let Some(o) = &r.options {
        let keys: Vec<&str> = o.keys().map(|k| k.as_str()).collect();
        writeln!(out, "  options [{}]", keys.join(", ")).unwrap();
    }
    if let Some(s) = r.stream {
        writeln!(out, "  stream {s}").unwrap();
    }
    out
}

fn line(r: &Response) -> String {
    let mut s = format!(
        "done {}",
        r.done.map(|d| d.to_string()).unwrap_or_else(|| "-".into())
    );
    if let Some(d) = &r.done_reason {
        write!(s, " reason {d}").unwrap();
    }
    if let Some(m) = &r.message {
        s.push(' ');
        message(&mut s, m);
    }
    if r.prompt_eval_count.is_some() || r.eval_count.is_some() {
        write!(
            s,
            " usage in {:?} out {:?}",
            r.prompt_eval_count, r.eval_count
        )
        .unwrap();
    }
    s.push_str(&extra(&r.extra));
    s
}

pub fn response(r: &Response) -> String {
    format!(
        "model {}\n  {}\n",
        r.model.as_deref().unwrap_or("?"),
        line(r)
    )
}

pub fn event(e: &StreamEvent) -> String {
    match e {
        StreamEvent::Chunk(c) => format!("chunk {}", line(c)),
        StreamEvent::Error(e) => format!("error \"{}\"{}", short(&e.error, 60), extra(&e.extra)),
    }
}

pub fn error(e: &ErrorResponse) -> String {
    format!("error \"{}\"{}\n", e.error, extra(&e.extra))
}
