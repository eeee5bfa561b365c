//! Summaries for `anthropic`.

use super::extra;
use crate::support::short;
use std::fmt::Write;
use wire_types::TextOrParts;
use wire_types::anthropic::*;

fn cache(c: &Option<Box<CacheControl>>) -> String {
    match c {
        None => String::new(),
        Some(c) => match &c.ttl {
            Some(ttl) => format!(" cache {}/{ttl}", c.kind),
            None => format!(" cache {}", c.kind),
        },
    }
}

/// A signature or other opaque token: its start and length.
fn opaque(s: &str) -> String {
    if s.is_empty() {
        "\"\"".to_owned()
    } else {
        format!(
            "{}…({} chars)",
            s.chars().take(8).collect::<String>(),
            s.chars().count()
        )
    }
}

/// A count, or `-` when absent.
fn n(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".to_owned())
}

fn source(s: &Source) -> String {
    match s {
        Source::Base64(d) => format!("base64 {} ({} chars)", d.media_type, d.data.len()),
        Source::Url(u) => format!("url {}", short(&u.url, 50)),
        Source::File(f) => format!("file {}", f.file_id),
        Source::Text(d) => format!("text {} \"{}\"", d.media_type, short(&d.data, 30)),
        Source::Content(c) => format!("content {}", inline(&c.content)),
        other => format!("OTHER {}", other.tag()),
    }
}

/// One block on one line.
fn block(b: &ContentBlock) -> String {
    match b {
        ContentBlock::Text(t) => format!(
            "text \"{}\"{}{}{}",
            short(&t.text, 50),
            t.citations
                .as_ref()
                .map(|c| format!(" citations {}", c.len()))
                .unwrap_or_default(),
            cache(&t.cache_control),
            extra(&t.extra)
        ),
        ContentBlock::Image(i) => format!(
            "image {}{}{}",
            source(&i.source),
            cache(&i.cache_control),
            extra(&i.extra)
        ),
        ContentBlock::Document(d) => format!(
            "document {}{}{}{}{}",
            source(&d.source),
            d.title
                .as_ref()
                .map(|t| format!(" title \"{}\"", short(t, 30)))
                .unwrap_or_default(),
            if d.citations.as_ref().and_then(|c| c.enabled) == Some(true) {
                " citations on"
            } else {
                ""
            },
            cache(&d.cache_control),
            extra(&d.extra)
        ),
        ContentBlock::ToolUse(u) => format!(
            "tool_use {} {} {}{}{}{}",
            u.id,
            u.name,
            short(&serde_json::to_string(&u.input).unwrap(), 60),
            u.caller
                .as_ref()
                .map(|c| format!(
                    " caller {}{}",
                    c.kind,
                    c.tool_id
                        .as_ref()
                        .map(|t| format!(" {t}"))
                        .unwrap_or_default()
                ))
                .unwrap_or_default(),
            cache(&u.cache_control),
            extra(&u.extra)
        ),
        ContentBlock::ToolResult(r) => format!(
            "tool_result {}{} {}{}{}",
            r.tool_use_id,
            match r.is_error {
                Some(true) => " ERROR",
                Some(false) => " ok",
                None => "",
            },
            r.content
                .as_ref()
                .map(inline)
                .unwrap_or_else(|| "(no content)".into()),
            cache(&r.cache_control),
            extra(&r.extra)
        ),
        ContentBlock::Thinking(t) => format!(
            "thinking \"{}\" sig {}{}",
            short(&t.thinking, 40),
            t.signature
                .as_deref()
                .map(opaque)
                .unwrap_or_else(|| "(none)".into()),
            extra(&t.extra)
        ),
        ContentBlock::RedactedThinking(r) => {
            format!("redacted_thinking {}{}", opaque(&r.data), extra(&r.extra))
        }
        ContentBlock::Compaction(c) => format!(
            "compaction \"{}\"{}",
            short(c.content.as_deref().unwrap_or(""), 40),
            extra(&c.extra)
        ),
        other => format!("OTHER {}", other.tag()),
    }
}

/// Content on one line: a quoted string or a bracketed list of blocks.
fn inline(content: &TextOrParts<ContentBlock>) -> String {
    match content {
        TextOrParts::Text(t) => format!("\"{}\"", short(t, 60)),
        TextOrParts::Parts(ps) => {
            let names: Vec<String> = ps.iter().map(block).collect();
            format!("[{}]", names.join(", "))
        }
    }
}

/// Content after a header: a string inline, blocks one per line below it.
fn content(out: &mut String, head: &str, content: &TextOrParts<ContentBlock>) {
    match content {
        TextOrParts::Text(t) => writeln!(out, "  {head} \"{}\"", short(t, 60)).unwrap(),
        TextOrParts::Parts(ps) => {
            writeln!(out, "  {head}").unwrap();
            for b in ps {
                writeln!(out, "    {}", block(b)).unwrap();
            }
        }
    }
}

/// The [`counts`] of a usage object (`Usage` and `MessageDeltaUsage` share the names).
macro_rules! counts {
    ($u:expr) => {
        counts(
            ($u.input_tokens, $u.output_tokens),
            ($u.cache_read_input_tokens, $u.cache_creation_input_tokens),
            $u.cache_creation.as_ref(),
            $u.server_tool_use.as_ref(),
            $u.output_tokens_details.as_ref(),
        )
    };
}

fn delta_usage(u: &MessageDeltaUsage) -> String {
    let mut s = counts!(u);
    for it in u.iterations.iter().flatten() {
        write!(
            s,
            " [{} in {} out {}]",
            it.kind.as_deref().unwrap_or("-"),
            n(it.input_tokens),
            n(it.output_tokens)
        )
        .unwrap();
    }
    s.push_str(&extra(&u.extra));
    s
}

fn usage(u: &Usage) -> String {
    let mut s = counts!(u);
    s.push_str(&extra(&u.extra));
    s
}

/// The counts a response's usage and a `message_delta`'s share.
fn counts(
    (input, output): (Option<u64>, Option<u64>),
    (cache_read, cache_write): (Option<u64>, Option<u64>),
    cache_creation: Option<&CacheCreation>,
    server_tool_use: Option<&ServerToolUsage>,
    details: Option<&OutputTokensDetails>,
) -> String {
    let mut s = format!("usage in {} out {}", n(input), n(output));
    if cache_read.is_some() || cache_write.is_some() {
        write!(s, " cache read {} write {}", n(cache_read), n(cache_write)).unwrap();
    }
    if let Some(c) = cache_creation {
        write!(
            s,
            " (5m {}, 1h {})",
            n(c.ephemeral_5m_input_tokens),
            n(c.ephemeral_1h_input_tokens)
        )
        .unwrap();
    }
    if let Some(t) = server_tool_use {
        write!(
            s,
            " server_tools search {} fetch {}",
            n(t.web_search_requests),
            n(t.web_fetch_requests)
        )
        .unwrap();
    }
    if let Some(d) = details {
        write!(s, " thinking {}", n(d.thinking_tokens)).unwrap();
    }
    s
}

pub fn request(r: &Request) -> String {
    let mut out = format!(
        "model {} max_tokens {}{}\n",
        r.model,
        r.max_tokens,
        extra(&r.extra)
    );
    if let Some(s) = &r.system {
        content(&mut out, "system", s);
    }
    for m in &r.messages {
        let head = match &m.role {
            Role::Other(role) => format!("OTHER role {role}"),
            role => role.to_string(),
        };
        content(&mut out, &format!("{head}{}", extra(&m.extra)), &m.content);
    }
    for t in r.tools.iter().flatten() {
        match t {
            Tool::Custom(c) => writeln!(
                out,
                "  tool def {}{}{}{}{}",
                c.name,
                if c.kind.is_some() {
                    " (type custom)"
                } else {
                    ""
                },
                if c.strict == Some(true) {
                    " strict"
                } else {
                    ""
                },
                cache(&c.cache_control),
                extra(&c.extra)
            )
            .unwrap(),
            Tool::Other(_) => writeln!(
                out,
                "  tool def OTHER {} {}",
                t.kind().unwrap_or(""),
                t.name().unwrap_or("")
            )
            .unwrap(),
        }
    }
    match &r.tool_choice {
        None => {}
        Some(ToolChoice::Auto(o)) => writeln!(
            out,
            "  tool_choice auto{}",
            parallel(o.disable_parallel_tool_use)
        )
        .unwrap(),
        Some(ToolChoice::Any(o)) => writeln!(
            out,
            "  tool_choice any{}",
            parallel(o.disable_parallel_tool_use)
        )
        .unwrap(),
        Some(ToolChoice::Tool(t)) => writeln!(
            out,
            "  tool_choice tool {}{}",
            t.name,
            parallel(t.disable_parallel_tool_use)
        )
        .unwrap(),
        Some(ToolChoice::None(_)) => writeln!(out, "  tool_choice none").unwrap(),
        Some(other) => writeln!(out, "  tool_choice OTHER {}", other.tag()).unwrap(),
    }
    match &r.thinking {
        None => {}
        Some(ThinkingConfig::Enabled(e)) => {
            writeln!(out, "  thinking enabled budget {}", e.budget_tokens).unwrap()
        }
        Some(t) => writeln!(out, "  thinking {}", t.tag()).unwrap(),
    }
    out
}

fn parallel(disable: Option<bool>) -> &'static str {
    match disable {
        Some(true) => " disable_parallel_tool_use",
        Some(false) => " parallel allowed",
        None => "",
    }
}

fn message_head(r: &Response) -> String {
    format!(
        "{} model {} stop {}{}{}",
        r.id.as_deref().unwrap_or("(no id)"),
        r.model.as_deref().unwrap_or("?"),
        r.stop_reason.as_ref().map(|s| s.as_str()).unwrap_or("-"),
        r.stop_details
            .as_ref()
            .map(|d| format!(
                " ({} {})",
                d.kind.as_deref().unwrap_or("-"),
                d.category.as_deref().unwrap_or("-")
            ))
            .unwrap_or_default(),
        extra(&r.extra)
    )
}

pub fn response(r: &Response) -> String {
    let mut out = format!("{}\n", message_head(r));
    for b in &r.content {
        writeln!(out, "  {}", block(b)).unwrap();
    }
    if let Some(u) = &r.usage {
        writeln!(out, "  {}", usage(u)).unwrap();
    }
    out
}

pub fn event(e: &StreamEvent) -> String {
    match e {
        StreamEvent::MessageStart(s) => {
            let m = &s.message;
            format!(
                "message_start {} blocks {}{}{}",
                message_head(m),
                m.content.len(),
                m.usage
                    .as_ref()
                    .map(|u| format!(" {}", usage(u)))
                    .unwrap_or_default(),
                extra(&s.extra)
            )
        }
        StreamEvent::ContentBlockStart(s) => {
            format!(
                "content_block_start[{}] {}{}",
                s.index,
                block(&s.content_block),
                extra(&s.extra)
            )
        }
        StreamEvent::ContentBlockDelta(d) => {
            let delta = match &d.delta {
                BlockDelta::Text(t) => format!("text_delta \"{}\"", short(&t.text, 30)),
                BlockDelta::InputJson(j) => {
                    format!("input_json_delta \"{}\"", short(&j.partial_json, 30))
                }
                BlockDelta::Thinking(t) => format!("thinking_delta \"{}\"", short(&t.thinking, 30)),
                BlockDelta::Signature(s) => format!("signature_delta {}", opaque(&s.signature)),
                BlockDelta::Citations(c) => format!(
                    "citations_delta {}",
                    c.citation
                        .get("type")
                        .and_then(|t| t.as_str())
                        .unwrap_or("?")
                ),
                BlockDelta::Compaction(c) => format!(
                    "compaction_delta \"{}\"",
                    short(c.content.as_deref().unwrap_or(""), 30)
                ),
                other => format!("OTHER {}", other.tag()),
            };
            format!(
                "content_block_delta[{}] {delta}{}",
                d.index,
                extra(&d.extra)
            )
        }
        StreamEvent::ContentBlockStop(s) => {
            format!("content_block_stop[{}]{}", s.index, extra(&s.extra))
        }
        StreamEvent::MessageDelta(d) => format!(
            "message_delta stop {}{}{}{}{}",
            d.delta
                .stop_reason
                .as_ref()
                .map(|s| s.as_str())
                .unwrap_or("-"),
            extra(&d.delta.extra),
            d.usage
                .as_ref()
                .map(|u| format!(" {}", delta_usage(u)))
                .unwrap_or_default(),
            d.context_management
                .as_ref()
                .map(|c| format!(
                    " context edits {}",
                    c.applied_edits.iter().flatten().count()
                ))
                .unwrap_or_default(),
            extra(&d.extra)
        ),
        StreamEvent::MessageStop(s) => format!("message_stop{}", extra(&s.extra)),
        StreamEvent::Ping(p) => format!("ping{}", extra(&p.extra)),
        StreamEvent::Error(e) => format!(
            "error {} {}{}",
            e.error.kind.as_deref().unwrap_or("-"),
            e.error.message.as_deref().unwrap_or(""),
            extra(&e.extra)
        ),
        other => format!("OTHER {}", other.tag()),
    }
}

pub fn error(e: &ErrorResponse) -> String {
    format!(
        "error {} {}{}{}\n",
        e.error.kind.as_deref().unwrap_or("-"),
        short(e.error.message.as_deref().unwrap_or(""), 80),
        e.request_id
            .as_ref()
            .map(|r| format!(" (request {r})"))
            .unwrap_or_default(),
        extra(&e.extra)
    )
}
