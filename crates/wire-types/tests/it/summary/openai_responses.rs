//! Summaries for `openai_responses`.

use super::{args, extra};
use crate::support::short;
use std::fmt::Write;
use wire_types::TextOrParts;
use wire_types::openai_responses::*;

fn part(p: &ContentPart) -> String {
    match p {
        ContentPart::InputText(t) => format!("input_text \"{}\"", short(&t.text, 40)),
        ContentPart::InputImage(i) => format!(
            "input_image {}{}",
            i.image_url
                .as_deref()
                .map(|u| short(u, 40))
                .or_else(|| i.file_id.as_ref().map(|f| format!("file {f}")))
                .unwrap_or_else(|| "(no source)".into()),
            i.detail
                .as_ref()
                .map(|d| format!(" detail {d}"))
                .unwrap_or_default()
        ),
        ContentPart::InputFile(f) => format!(
            "input_file {}",
            f.file_id
                .as_ref()
                .map(|id| format!("id {id}"))
                .or_else(|| f.file_url.as_ref().map(|u| format!("url {}", short(u, 40))))
                .or_else(|| f.file_data.as_ref().map(|d| format!(
                    "data {} ({} chars)",
                    f.filename.as_deref().unwrap_or("(no name)"),
                    d.len()
                )))
                .unwrap_or_else(|| "(no source)".into())
        ),
        ContentPart::OutputText(t) => format!(
            "output_text \"{}\"{}{}",
            short(&t.text, 40),
            match t.annotations.as_deref() {
                Some(a) if !a.is_empty() => {
                    let tags: Vec<&str> = a.iter().map(|x| x.tag()).collect();
                    format!(" annotations[{}]", tags.join(", "))
                }
                _ => String::new(),
            },
            match t.logprobs.as_deref() {
                Some(l) if !l.is_empty() => format!(" logprobs {}", l.len()),
                _ => String::new(),
            }
        ),
        ContentPart::Refusal(r) => format!("refusal \"{}\"", short(&r.refusal, 40)),
        ContentPart::ReasoningText(t) => format!("reasoning_text \"{}\"", short(&t.text, 40)),
        other => format!("OTHER {}", other.tag()),
    }
}

fn parts(content: &TextOrParts<ContentPart>) -> String {
    match content {
        TextOrParts::Text(t) => format!("\"{}\"", short(t, 60)),
        TextOrParts::Parts(ps) => {
            let names: Vec<String> = ps.iter().map(part).collect();
            format!("[{}]", names.join(", "))
        }
    }
}

fn summary_parts(s: &[SummaryPart]) -> String {
    let names: Vec<String> = s
        .iter()
        .map(|p| match p {
            SummaryPart::SummaryText(t) => format!("\"{}\"", short(&t.text, 40)),
            other => format!("OTHER {}", other.tag()),
        })
        .collect();
    format!("[{}]", names.join(", "))
}

/// One line per item, indented by `pad`.
fn item(out: &mut String, pad: &str, it: &Item) {
    let line = item_line(it);
    writeln!(out, "{pad}{line}").unwrap();
}

fn item_line(it: &Item) -> String {
    match it {
        Item::Message(m) => format!(
            "{} {}{}{}{} {}{}",
            if m.kind.is_some() {
                "message"
            } else {
                "message (no type)"
            },
            m.role,
            m.id.as_ref().map(|i| format!(" {i}")).unwrap_or_default(),
            m.status
                .as_ref()
                .map(|s| format!(" {s}"))
                .unwrap_or_default(),
            m.phase
                .as_ref()
                .map(|p| format!(" phase {p}"))
                .unwrap_or_default(),
            parts(&m.content),
            extra(&m.extra)
        ),
        Item::FunctionCall(c) => format!(
            "function_call {} {} {} {}{}{}",
            c.id.as_deref().unwrap_or("(no id)"),
            c.call_id,
            c.name,
            args(&c.arguments),
            c.status
                .as_ref()
                .map(|s| format!(" {s}"))
                .unwrap_or_default(),
            extra(&c.extra)
        ),
        Item::FunctionCallOutput(o) => format!(
            "function_call_output {} {}{}",
            o.call_id.as_deref().unwrap_or("(no call_id)"),
            parts(&o.output),
            extra(&o.extra)
        ),
        Item::Reasoning(r) => format!(
            "reasoning {} summary {}{}{}{}",
            r.id,
            summary_parts(&r.summary),
            r.content
                .as_ref()
                .map(|c| {
                    let names: Vec<String> = c.iter().map(part).collect();
                    format!(" content [{}]", names.join(", "))
                })
                .unwrap_or_default(),
            r.encrypted_content
                .as_ref()
                .map(|e| format!(" encrypted {} ({} chars)", short(e, 12), e.len()))
                .unwrap_or_default(),
            extra(&r.extra)
        ),
        other => format!("OTHER {}", other.tag()),
    }
}

fn tools(out: &mut String, tools: &[Tool]) {
    for t in tools {
        match t {
            Tool::Function(f) => writeln!(
                out,
                "  tool def {} (schema: {}, strict: {}){}",
                f.name,
                if f.parameters.is_some() {
                    "yes"
                } else {
                    "none"
                },
                f.strict
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "-".into()),
                extra(&f.extra)
            )
            .unwrap(),
            other => writeln!(out, "  tool def OTHER {}", other.tag()).unwrap(),
        }
    }
}

fn usage(u: &Usage) -> String {
    format!(
        "usage in {:?} (cached {:?}) out {:?} (reasoning {:?}) total {:?}",
        u.input_tokens,
        u.input_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens),
        u.output_tokens,
        u.output_tokens_details
            .as_ref()
            .and_then(|d| d.reasoning_tokens),
        u.total_tokens
    )
}

pub fn request(r: &Request) -> String {
    let mut out = format!(
        "model {}{}\n",
        r.model.as_deref().unwrap_or("(none)"),
        extra(&r.extra)
    );
    if let Some(i) = &r.instructions {
        writeln!(out, "  instructions \"{}\"", short(i, 60)).unwrap();
    }
    match &r.input {
        None => {}
        Some(Input::Text(t)) => writeln!(out, "  input \"{}\"", short(t, 60)).unwrap(),
        Some(Input::Items(items)) => {
            for it in items {
                item(&mut out, "  ", it);
            }
        }
    }
    tools(&mut out, r.tools.as_deref().unwrap_or_default());
    if let Some(c) = &r.tool_choice {
        writeln!(out, "  tool_choice {}", serde_json::to_string(c).unwrap()).unwrap();
    }
    if let Some(re) = &r.reasoning {
        writeln!(
            out,
            "  reasoning effort {} summary {}",
            re.effort.as_ref().map(|e| e.as_str()).unwrap_or("-"),
            re.summary.as_deref().unwrap_or("-")
        )
        .unwrap();
    }
    if let Some(inc) = &r.include {
        writeln!(out, "  include {}", inc.join(", ")).unwrap();
    }
    out
}

fn response_body(out: &mut String, pad: &str, r: &Response) {
    for it in &r.output {
        item(out, pad, it);
    }
    if let Some(d) = &r.incomplete_details {
        writeln!(
            out,
            "{pad}incomplete {}",
            d.reason.as_ref().map(|r| r.as_str()).unwrap_or("-")
        )
        .unwrap();
    }
    if let Some(e) = &r.error {
        writeln!(
            out,
            "{pad}error {} {}",
            e.code.as_deref().unwrap_or("-"),
            short(e.message.as_deref().unwrap_or(""), 60)
        )
        .unwrap();
    }
    if let Some(u) = &r.usage {
        writeln!(out, "{pad}{}", usage(u)).unwrap();
    }
}

pub fn response(r: &Response) -> String {
    let mut out = format!(
        "model {} status {} output {}{}\n",
        r.model.as_deref().unwrap_or("?"),
        r.status.as_ref().map(|s| s.as_str()).unwrap_or("-"),
        r.output.len(),
        extra(&r.extra)
    );
    response_body(&mut out, "  ", r);
    tools(&mut out, r.tools.as_deref().unwrap_or_default());
    if let Some(c) = &r.tool_choice {
        writeln!(out, "  tool_choice {}", serde_json::to_string(c).unwrap()).unwrap();
    }
    out
}

/// A `.done` event's final text.
fn done_text(name: &str, index: u32, item: &str, text: &str, x: &wire_types::Extra) -> String {
    format!(
        "{name} [{index}] {item} \"{}\"{}",
        short(text, 40),
        extra(x)
    )
}

pub fn event(e: &StreamEvent) -> String {
    let name = e.tag().trim_start_matches("response.").to_owned();
    match e {
        StreamEvent::Created(r)
        | StreamEvent::Queued(r)
        | StreamEvent::InProgress(r)
        | StreamEvent::Completed(r)
        | StreamEvent::Incomplete(r)
        | StreamEvent::Failed(r) => {
            let resp = &r.response;
            let mut s = format!(
                "{name} {} status {} output {}{}",
                resp.id.as_deref().unwrap_or("?"),
                resp.status.as_ref().map(|s| s.as_str()).unwrap_or("-"),
                resp.output.len(),
                extra(&resp.extra)
            );
            let mut body = String::new();
            response_body(&mut body, "", resp);
            for line in body.lines() {
                write!(s, " | {line}").unwrap();
            }
            s
        }
        StreamEvent::OutputItemAdded(i) | StreamEvent::OutputItemDone(i) => {
            format!(
                "{name} [{}] {}{}",
                i.output_index,
                item_line(&i.item),
                extra(&i.extra)
            )
        }
        StreamEvent::ContentPartAdded(p) | StreamEvent::ContentPartDone(p) => {
            format!(
                "{name} [{}:{}] {}",
                p.output_index,
                p.content_index,
                part(&p.part)
            )
        }
        StreamEvent::OutputTextDelta(d)
        | StreamEvent::RefusalDelta(d)
        | StreamEvent::ReasoningTextDelta(d) => format!(
            "{name} [{}:{}] \"{}\"{}{}",
            d.output_index,
            d.content_index,
            short(&d.delta, 30),
            match d.logprobs.as_deref() {
                Some(l) if !l.is_empty() => format!(" logprobs {}", l.len()),
                _ => String::new(),
            },
            extra(&d.extra)
        ),
        StreamEvent::OutputTextDone(d) | StreamEvent::ReasoningTextDone(d) => format!(
            "{name} [{}:{}] \"{}\"{}",
            d.output_index,
            d.content_index,
            short(&d.text, 40),
            extra(&d.extra)
        ),
        StreamEvent::RefusalDone(d) => format!(
            "{name} [{}:{}] \"{}\"{}",
            d.output_index,
            d.content_index,
            short(&d.refusal, 40),
            extra(&d.extra)
        ),
        StreamEvent::FunctionCallArgumentsDelta(d)
        | StreamEvent::CustomToolCallInputDelta(d)
        | StreamEvent::CodeInterpreterCallCodeDelta(d)
        | StreamEvent::McpCallArgumentsDelta(d)
        | StreamEvent::ApplyPatchCallOperationDiffDelta(d) => format!(
            "{name} [{}] {} \"{}\"{}",
            d.output_index,
            d.item_id,
            short(&d.delta, 30),
            extra(&d.extra)
        ),
        StreamEvent::CustomToolCallInputDone(d) => {
            done_text(&name, d.output_index, &d.item_id, &d.input, &d.extra)
        }
        StreamEvent::CodeInterpreterCallCodeDone(d) => {
            done_text(&name, d.output_index, &d.item_id, &d.code, &d.extra)
        }
        StreamEvent::ApplyPatchCallOperationDiffDone(d) => {
            done_text(&name, d.output_index, &d.item_id, &d.diff, &d.extra)
        }
        StreamEvent::WebSearchCallInProgress(i)
        | StreamEvent::WebSearchCallSearching(i)
        | StreamEvent::WebSearchCallCompleted(i)
        | StreamEvent::FileSearchCallInProgress(i)
        | StreamEvent::FileSearchCallSearching(i)
        | StreamEvent::FileSearchCallCompleted(i)
        | StreamEvent::CodeInterpreterCallInProgress(i)
        | StreamEvent::CodeInterpreterCallInterpreting(i)
        | StreamEvent::CodeInterpreterCallCompleted(i)
        | StreamEvent::ImageGenerationCallInProgress(i)
        | StreamEvent::ImageGenerationCallGenerating(i)
        | StreamEvent::ImageGenerationCallCompleted(i)
        | StreamEvent::McpCallInProgress(i)
        | StreamEvent::McpCallCompleted(i)
        | StreamEvent::McpCallFailed(i)
        | StreamEvent::McpListToolsInProgress(i)
        | StreamEvent::McpListToolsCompleted(i)
        | StreamEvent::McpListToolsFailed(i)
        | StreamEvent::CompactionCompacting(i) => {
            format!(
                "{name} [{}] {}{}",
                i.output_index,
                i.item_id,
                extra(&i.extra)
            )
        }
        StreamEvent::OutputTextAnnotationAdded(a) => format!(
            "{name} [{}] {} part {} annotation {} {}{}",
            a.output_index,
            a.item_id,
            a.content_index,
            a.annotation_index,
            a.annotation.as_ref().map(|x| x.tag()).unwrap_or("-"),
            extra(&a.extra)
        ),
        StreamEvent::ImageGenerationCallPartialImage(p) => format!(
            "{name} [{}] {} image {} ({} base64 chars){}",
            p.output_index,
            p.item_id,
            p.partial_image_index,
            p.partial_image_b64.len(),
            extra(&p.extra)
        ),
        StreamEvent::ShellCallCommandAdded(c)
        | StreamEvent::ShellCallCommandDelta(c)
        | StreamEvent::ShellCallCommandDone(c) => format!(
            "{name} [{}] command {} \"{}\"{}",
            c.output_index,
            c.command_index,
            short(
                c.delta.as_deref().or(c.command.as_deref()).unwrap_or(""),
                30
            ),
            extra(&c.extra)
        ),
        StreamEvent::ShellCallOutputContentDelta(o)
        | StreamEvent::ShellCallOutputContentDone(o) => {
            format!(
                "{name} [{}] {} command {}{}",
                o.output_index,
                o.item_id,
                o.command_index,
                extra(&o.extra)
            )
        }
        StreamEvent::AudioDelta(a)
        | StreamEvent::AudioDone(a)
        | StreamEvent::AudioTranscriptDelta(a)
        | StreamEvent::AudioTranscriptDone(a) => format!(
            "{name} \"{}\"{}",
            short(a.delta.as_deref().unwrap_or(""), 30),
            extra(&a.extra)
        ),
        StreamEvent::Keepalive(m) | StreamEvent::Ping(m) => format!("{name}{}", extra(&m.extra)),
        StreamEvent::FunctionCallArgumentsDone(d) | StreamEvent::McpCallArgumentsDone(d) => {
            format!(
                "{name} [{}] {}{} {}{}",
                d.output_index,
                d.item_id,
                d.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default(),
                short(&d.arguments, 60),
                extra(&d.extra)
            )
        }
        StreamEvent::ReasoningSummaryPartAdded(p) | StreamEvent::ReasoningSummaryPartDone(p) => {
            format!(
                "{name} [{}] {} summary {} {}",
                p.output_index,
                p.item_id,
                p.summary_index,
                summary_parts(std::slice::from_ref(&p.part))
            )
        }
        StreamEvent::ReasoningSummaryTextDelta(d) => format!(
            "{name} [{}] summary {} \"{}\"{}",
            d.output_index,
            d.summary_index,
            short(&d.delta, 30),
            extra(&d.extra)
        ),
        StreamEvent::ReasoningSummaryTextDone(d) => format!(
            "{name} [{}] summary {} \"{}\"{}",
            d.output_index,
            d.summary_index,
            short(&d.text, 40),
            extra(&d.extra)
        ),
        StreamEvent::Error(err) => format!(
            "error {} {}{}",
            err.code
                .as_ref()
                .or_else(|| err.error.as_ref().and_then(|e| e.code.as_ref()))
                .map(|c| c
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| c.to_string()))
                .unwrap_or_else(|| "-".into()),
            short(err.message().unwrap_or(""), 60),
            extra(&err.extra)
        ),
        other => format!("OTHER {}", other.tag()),
    }
}

pub fn error(e: &ErrorResponse) -> String {
    format!(
        "error {} {}\n",
        e.error.kind.as_deref().unwrap_or("-"),
        e.error.message.as_deref().unwrap_or("")
    )
}
