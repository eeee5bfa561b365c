//! Summaries for `mcp`, and its dispatch: MCP fixtures sit in `tools-list/` (a
//! `tools/list` result), `call/` (`tools/call` params) and `result/` (a `CallToolResult`).

use super::extra;
use crate::support::short;
use std::fmt::Write;
use wire_types::mcp::*;

pub fn read_write(
    what: &str,
    text: &str,
) -> Result<(serde_json::Value, String), wire_types::Error> {
    match what {
        "tools-list" => {
            let v: ListToolsResult = wire_types::from_str(text)?;
            for (i, tool) in v.tools.iter().enumerate() {
                validate_tool(tool).map_err(|e| e.within(&format!("/tools/{i}")))?;
            }
            Ok((wire_types::to_value(&v), tools_list(&v)))
        }
        "call" => {
            let v: CallToolParams = wire_types::from_str(text)?;
            Ok((wire_types::to_value(&v), call(&v)))
        }
        _ => {
            let v: CallToolResult = wire_types::from_str(text)?;
            Ok((wire_types::to_value(&v), result(&v)))
        }
    }
}

fn keys(m: &serde_json::Map<String, serde_json::Value>) -> String {
    m.keys().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
}

fn tools_list(v: &ListToolsResult) -> String {
    let mut out = format!(
        "{} tools, next cursor {}{}\n",
        v.tools.len(),
        v.next_cursor.as_deref().unwrap_or("none"),
        extra(&v.extra)
    );
    for t in &v.tools {
        writeln!(
            out,
            "  tool {}{} input [{}] output {}{}",
            t.name,
            t.title
                .as_deref()
                .map(|s| format!(" \"{s}\""))
                .unwrap_or_default(),
            t.input_schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(keys)
                .unwrap_or_default(),
            t.output_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.as_object())
                .map(|p| format!("[{}]", keys(p)))
                .unwrap_or_else(|| "none".into()),
            extra(&t.extra)
        )
        .unwrap();
        if let Some(d) = &t.description {
            writeln!(out, "    description \"{}\"", short(d, 60)).unwrap();
        }
        if let Some(a) = &t.annotations {
            writeln!(
                out,
                "    hints readOnly {:?} destructive {:?} idempotent {:?} openWorld {:?}{}",
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint,
                extra(&a.extra)
            )
            .unwrap();
        }
        if let Some(x) = &t.execution {
            writeln!(
                out,
                "    execution taskSupport {:?}",
                x.task_support.as_ref().map(|s| s.as_str())
            )
            .unwrap();
        }
        if let Some(icons) = &t.icons {
            writeln!(out, "    icons {}", icons.len()).unwrap();
        }
        if let Some(m) = &t.meta {
            writeln!(out, "    _meta [{}]", keys(m)).unwrap();
        }
    }
    out
}

fn call(v: &CallToolParams) -> String {
    format!(
        "call {} arguments {}{}{}{}\n",
        v.name,
        v.arguments
            .as_ref()
            .map(|a| short(&serde_json::Value::Object(a.clone()).to_string(), 60))
            .unwrap_or_else(|| "none".into()),
        v.meta
            .as_ref()
            .map(|m| format!(" _meta [{}]", keys(m)))
            .unwrap_or_default(),
        v.task
            .as_ref()
            .map(|t| format!(" task ttl {:?}", t.ttl))
            .unwrap_or_default(),
        extra(&v.extra)
    )
}

fn annotations(a: &Option<Annotations>) -> String {
    match a {
        None => String::new(),
        Some(a) => format!(
            " (audience {:?} priority {:?})",
            a.audience
                .as_ref()
                .map(|r| r.iter().map(|r| r.as_str()).collect::<Vec<_>>()),
            a.priority.as_ref().map(|p| p.to_string())
        ),
    }
}

fn result(v: &CallToolResult) -> String {
    let mut out = format!(
        "result isError {:?}, {} blocks{}\n",
        v.is_error,
        v.content.len(),
        extra(&v.extra)
    );
    for b in &v.content {
        let line = match b {
            ContentBlock::Text(t) => format!(
                "text \"{}\"{}",
                short(&t.text, 50),
                annotations(&t.annotations)
            ),
            ContentBlock::Image(i) => format!(
                "image {} ({} chars){}",
                i.mime_type,
                i.data.len(),
                annotations(&i.annotations)
            ),
            ContentBlock::Audio(a) => format!(
                "audio {} ({} chars){}{}",
                a.mime_type,
                a.data.len(),
                annotations(&a.annotations),
                a.meta
                    .as_ref()
                    .map(|m| format!(" _meta [{}]", keys(m)))
                    .unwrap_or_default()
            ),
            ContentBlock::ResourceLink(l) => format!(
                "resource_link {} \"{}\" {:?} size {:?}",
                l.uri, l.name, l.mime_type, l.size
            ),
            ContentBlock::Resource(r) => {
                let c = &r.resource;
                let body = match (&c.text, &c.blob) {
                    (Some(t), _) => format!("text \"{}\"", short(t, 30)),
                    (None, Some(b)) => format!("blob ({} chars)", b.len()),
                    (None, None) => "(no contents)".into(),
                };
                format!(
                    "resource {} {:?} {body}{}{}",
                    c.uri,
                    c.mime_type,
                    annotations(&r.annotations),
                    extra(&c.extra)
                )
            }
            other => format!("OTHER {}", other.tag()),
        };
        writeln!(out, "  {line}").unwrap();
    }
    if let Some(s) = &v.structured_content {
        writeln!(
            out,
            "  structuredContent {}",
            short(&serde_json::Value::Object(s.clone()).to_string(), 60)
        )
        .unwrap();
    }
    out
}
