//! Summaries for `bedrock`.

use super::extra;
use crate::support::short;
use std::fmt::Write;
use wire_types::bedrock::*;

fn source(s: &Source) -> String {
    match s {
        Source::Bytes(b) => format!("bytes({} chars)", b.len()),
        Source::S3Location(l) => format!("s3 {}", l.uri),
        Source::Text(t) => format!("text \"{}\"", short(t, 30)),
        Source::Content(c) => format!("content({} chunks)", c.len()),
        other => format!("OTHER {}", other.key()),
    }
}

fn image(i: &ImageBlock) -> String {
    format!(
        "image {} {}{}",
        i.format,
        source(&i.source),
        extra(&i.extra)
    )
}

fn document(d: &DocumentBlock) -> String {
    format!(
        "document {} \"{}\" {}{}",
        d.format.as_ref().map(|f| f.as_str()).unwrap_or("-"),
        d.name,
        source(&d.source),
        extra(&d.extra)
    )
}

fn reasoning(r: &ReasoningContent) -> String {
    match r {
        ReasoningContent::ReasoningText(t) => format!(
            "reasoning \"{}\" signature {}",
            short(&t.text, 40),
            t.signature
                .as_deref()
                .map(|s| format!("\"{}\"", short(s, 12)))
                .unwrap_or_else(|| "none".into())
        ),
        ReasoningContent::RedactedContent(r) => format!("reasoning redacted \"{}\"", short(r, 12)),
        other => format!("reasoning OTHER {}", other.key()),
    }
}

fn result_part(p: &ToolResultContentBlock) -> String {
    match p {
        ToolResultContentBlock::Json(v) => format!("json {}", short(&v.to_string(), 50)),
        ToolResultContentBlock::Text(t) => format!("text \"{}\"", short(t, 40)),
        ToolResultContentBlock::Image(i) => image(i),
        ToolResultContentBlock::Document(d) => document(d),
        ToolResultContentBlock::Video(v) => format!("video {} {}", v.format, source(&v.source)),
        other => format!("OTHER {}", other.key()),
    }
}

fn block(b: &ContentBlock) -> String {
    match b {
        ContentBlock::Text(t) => format!("text \"{}\"", short(t, 60)),
        ContentBlock::Image(i) => image(i),
        ContentBlock::Document(d) => document(d),
        ContentBlock::Video(v) => format!("video {} {}", v.format, source(&v.source)),
        ContentBlock::Audio(a) => format!("audio {} {}", a.format, source(&a.source)),
        ContentBlock::ToolUse(u) => format!(
            "toolUse {} {} {}{}",
            u.tool_use_id,
            u.name,
            short(&serde_json::to_string(&u.input).unwrap(), 60),
            extra(&u.extra)
        ),
        ContentBlock::ToolResult(r) => {
            let parts: Vec<String> = r.content.iter().map(result_part).collect();
            format!(
                "toolResult {} {} [{}]{}",
                r.tool_use_id,
                r.status.as_ref().map(|s| s.as_str()).unwrap_or("-"),
                parts.join(", "),
                extra(&r.extra)
            )
        }
        ContentBlock::ReasoningContent(r) => reasoning(r),
        ContentBlock::CachePoint(c) => format!("cachePoint {}", c.kind),
        other => format!("OTHER {}", other.key()),
    }
}

fn message(out: &mut String, m: &Message) {
    writeln!(out, "  {}{}", m.role, extra(&m.extra)).unwrap();
    for b in &m.content {
        writeln!(out, "    {}", block(b)).unwrap();
    }
}

fn usage(u: &Usage) -> String {
    let details: Vec<String> = u
        .cache_details
        .iter()
        .flatten()
        .map(|d| {
            format!(
                "{}:{}{}",
                d.ttl.as_deref().unwrap_or("-"),
                d.input_tokens.map(|n| n.to_string()).unwrap_or("-".into()),
                extra(&d.extra)
            )
        })
        .collect();
    format!(
        "usage in {} out {} total {} cache read {:?} write {:?}{}{}",
        u.input_tokens,
        u.output_tokens,
        u.total_tokens,
        u.cache_read_input_tokens,
        u.cache_write_input_tokens,
        if details.is_empty() {
            String::new()
        } else {
            format!(" cacheDetails [{}]", details.join(", "))
        },
        extra(&u.extra)
    )
}

pub fn request(r: &Request) -> String {
    let mut out = format!(
        "model {}{}\n",
        r.model_id.as_deref().unwrap_or("(in path)"),
        extra(&r.extra)
    );
    for s in r.system.iter().flatten() {
        let line = match s {
            SystemContentBlock::Text(t) => format!("text \"{}\"", short(t, 60)),
            SystemContentBlock::CachePoint(c) => format!("cachePoint {}", c.kind),
            other => format!("OTHER {}", other.key()),
        };
        writeln!(out, "  system {line}").unwrap();
    }
    for m in r.messages.iter().flatten() {
        message(&mut out, m);
    }
    if let Some(c) = &r.tool_config {
        for t in &c.tools {
            let line = match t {
                Tool::ToolSpec(s) => format!(
                    "toolSpec {} (schema: {})",
                    s.name,
                    match &s.input_schema {
                        InputSchema::Json(v) => short(&v.to_string(), 40),
                        other => format!("OTHER {}", other.key()),
                    }
                ),
                Tool::CachePoint(c) => format!("cachePoint {}", c.kind),
                Tool::SystemTool(s) => format!("systemTool {}", s.name),
                other => format!("OTHER {}", other.key()),
            };
            writeln!(out, "  tool {line}").unwrap();
        }
        if let Some(choice) = &c.tool_choice {
            writeln!(
                out,
                "  toolChoice {}",
                serde_json::to_string(choice).unwrap()
            )
            .unwrap();
        }
    }
    if let Some(i) = &r.inference_config {
        writeln!(
            out,
            "  inference maxTokens {:?} temperature {:?} topP {:?} stop {:?}",
            i.max_tokens,
            i.temperature.as_ref().map(|n| n.to_string()),
            i.top_p.as_ref().map(|n| n.to_string()),
            i.stop_sequences
        )
        .unwrap();
    }
    if let Some(f) = &r.additional_model_request_fields {
        writeln!(out, "  additional fields {}", short(&f.to_string(), 60)).unwrap();
    }
    out
}

pub fn response(r: &Response) -> String {
    let mut out = format!("stop {}{}\n", r.stop_reason, extra(&r.extra));
    match r.message() {
        Some(m) => message(&mut out, m),
        None => writeln!(out, "  output OTHER {}", r.output.key()).unwrap(),
    }
    if let Some(u) = &r.usage {
        writeln!(out, "  {}", usage(u)).unwrap();
    }
    if let Some(m) = &r.metrics {
        writeln!(out, "  latency {} ms", m.latency_ms).unwrap();
    }
    out
}

pub fn event(e: &StreamEvent) -> String {
    match e {
        StreamEvent::MessageStart(m) => format!("messageStart {}{}", m.role, extra(&m.extra)),
        StreamEvent::ContentBlockStart(s) => {
            let what = match &s.start {
                ContentBlockStart::ToolUse(u) => format!("toolUse {} {}", u.tool_use_id, u.name),
                ContentBlockStart::ToolResult(r) => format!("toolResult {}", r.tool_use_id),
                ContentBlockStart::Image(i) => format!("image {}", i.format),
                other => format!("OTHER {}", other.key()),
            };
            format!(
                "contentBlockStart[{}] {what}{}",
                s.content_block_index,
                extra(&s.extra)
            )
        }
        StreamEvent::ContentBlockDelta(d) => {
            let what = match &d.delta {
                ContentBlockDelta::Text(t) => format!("text \"{}\"", short(t, 30)),
                ContentBlockDelta::ToolUse(u) => {
                    format!("toolUse input \"{}\"", short(&u.input, 30))
                }
                ContentBlockDelta::ReasoningContent(r) => match r {
                    ReasoningDelta::Text(t) => format!("reasoning text \"{}\"", short(t, 30)),
                    ReasoningDelta::Signature(s) => {
                        format!("reasoning signature \"{}\"", short(s, 12))
                    }
                    ReasoningDelta::RedactedContent(s) => {
                        format!("reasoning redacted \"{}\"", short(s, 12))
                    }
                    other => format!("reasoning OTHER {}", other.key()),
                },
                ContentBlockDelta::Citation(c) => format!(
                    "citation {}{}",
                    short(
                        c.title.as_deref().or(c.source.as_deref()).unwrap_or("-"),
                        30
                    ),
                    extra(&c.extra)
                ),
                ContentBlockDelta::ToolResult(r) => format!("toolResult {} pieces", r.len()),
                ContentBlockDelta::Image(i) => format!(
                    "image {}",
                    i.source
                        .as_ref()
                        .map(source)
                        .unwrap_or_else(|| "error".into())
                ),
                other => format!("OTHER {}", other.key()),
            };
            format!(
                "contentBlockDelta[{}] {what}{}",
                d.content_block_index,
                extra(&d.extra)
            )
        }
        StreamEvent::ContentBlockStop(s) => format!(
            "contentBlockStop[{}]{}",
            s.content_block_index,
            extra(&s.extra)
        ),
        StreamEvent::MessageStop(s) => format!(
            "messageStop {}{}{}",
            s.stop_reason,
            s.additional_model_response_fields
                .as_ref()
                .map(|f| format!(" fields {f}"))
                .unwrap_or_default(),
            extra(&s.extra)
        ),
        StreamEvent::Metadata(m) => format!(
            "metadata {}{}{}",
            m.usage
                .as_ref()
                .map(usage)
                .unwrap_or_else(|| "(no usage)".into()),
            m.metrics
                .as_ref()
                .map(|m| format!(" latency {} ms", m.latency_ms))
                .unwrap_or_default(),
            extra(&m.extra)
        ),
        StreamEvent::InternalServerException(x)
        | StreamEvent::ModelStreamErrorException(x)
        | StreamEvent::ValidationException(x)
        | StreamEvent::ThrottlingException(x)
        | StreamEvent::ServiceUnavailableException(x) => format!(
            "{} \"{}\"{}{}{}",
            e.key(),
            x.message.as_deref().unwrap_or(""),
            x.original_status_code
                .map(|c| format!(" original {c}"))
                .unwrap_or_default(),
            x.original_message
                .as_deref()
                .map(|m| format!(" \"{m}\""))
                .unwrap_or_default(),
            extra(&x.extra)
        ),
        other => format!("OTHER {}", other.key()),
    }
}

pub fn error(e: &ErrorResponse) -> String {
    format!(
        "error {} {}{}\n",
        e.kind.as_deref().unwrap_or("-"),
        e.message.as_deref().unwrap_or(""),
        extra(&e.extra)
    )
}
