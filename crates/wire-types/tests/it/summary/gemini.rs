//! Summaries for `gemini`.

use super::extra;
use crate::support::short;
use std::fmt::Write;
use wire_types::gemini::*;

fn json(v: &impl serde::Serialize, n: usize) -> String {
    short(&serde_json::to_string(v).unwrap(), n)
}

/// One part on one line: its data key, the gist of its value, signature and unknown keys.
fn part(p: &Part) -> String {
    let mut s = String::new();
    if let Some(t) = &p.text {
        let what = if p.is_thought() { "thought" } else { "text" };
        write!(s, "{what} \"{}\"", short(t, 40)).unwrap();
    }
    if let Some(b) = &p.inline_data {
        write!(
            s,
            "inlineData {} ({} base64 chars){}",
            b.mime_type,
            b.data.len(),
            extra(&b.extra)
        )
        .unwrap();
    }
    if let Some(f) = &p.file_data {
        write!(
            s,
            "fileData {} {}",
            f.mime_type.as_deref().unwrap_or("-"),
            short(&f.file_uri, 60)
        )
        .unwrap();
    }
    if let Some(c) = &p.function_call {
        write!(
            s,
            "call {} {}",
            c.id.as_deref().unwrap_or("(no id)"),
            c.name.as_deref().unwrap_or("(no name)")
        )
        .unwrap();
        if let Some(a) = &c.args {
            write!(s, " {}", json(a, 50)).unwrap();
        }
        for a in c.partial_args.iter().flatten() {
            write!(s, " partial {}", a.json_path.as_deref().unwrap_or("?")).unwrap();
            if let Some(v) = &a.string_value {
                write!(s, "=\"{}\"", short(v, 20)).unwrap();
            }
            if let Some(v) = &a.number_value {
                write!(s, "={v}").unwrap();
            }
            if let Some(v) = &a.bool_value {
                write!(s, "={v}").unwrap();
            }
            if a.null_value.is_some() {
                s.push_str("=null");
            }
            if a.will_continue == Some(true) {
                s.push('+');
            }
        }
        if c.will_continue == Some(true) {
            s.push_str(" (continues)");
        }
        s.push_str(&extra(&c.extra));
    }
    if let Some(r) = &p.function_response {
        let kind = if r.response.get("error").is_some() {
            "error"
        } else {
            "result"
        };
        write!(
            s,
            "{kind} {} {} {}",
            r.id.as_deref().unwrap_or("(no id)"),
            r.name,
            json(&r.response, 50)
        )
        .unwrap();
        for rp in r.parts.iter().flatten() {
            match (&rp.inline_data, &rp.file_data) {
                (Some(b), _) => write!(s, " +inlineData {}", b.mime_type).unwrap(),
                (None, Some(f)) => write!(s, " +fileData {}", f.file_uri).unwrap(),
                (None, None) => write!(s, " +part{}", extra(&rp.extra)).unwrap(),
            }
        }
        s.push_str(&extra(&r.extra));
    }
    if let Some(c) = &p.executable_code {
        write!(
            s,
            "executableCode {} \"{}\"",
            c.language,
            short(&c.code, 40)
        )
        .unwrap();
    }
    if let Some(r) = &p.code_execution_result {
        write!(
            s,
            "codeExecutionResult {} \"{}\"",
            r.outcome,
            short(r.output.as_deref().unwrap_or(""), 40)
        )
        .unwrap();
    }
    if let Some(t) = &p.tool_call {
        write!(s, "toolCall {}", json(t, 50)).unwrap();
    }
    if let Some(t) = &p.tool_response {
        write!(s, "toolResponse {}", json(t, 50)).unwrap();
    }
    if s.is_empty() {
        s.push_str("(no data key)");
    }
    if let Some(t) = p.thought {
        if p.text.is_none() {
            write!(s, " thought={t}").unwrap();
        }
    }
    if let Some(sig) = &p.thought_signature {
        write!(s, " sig {} ({} chars)", short(sig, 8), sig.len()).unwrap();
    }
    s.push_str(&extra(&p.extra));
    s
}

/// `-` for an absent count.
fn n(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn role(c: &Content) -> String {
    c.role
        .as_ref()
        .map_or_else(|| "(no role)".to_owned(), |r| r.to_string())
}

fn parts(out: &mut String, c: &Content) {
    match &c.parts {
        None => writeln!(out, "    (no parts)").unwrap(),
        Some(ps) => {
            for p in ps {
                writeln!(out, "    {}", part(p)).unwrap();
            }
        }
    }
}

fn usage(u: &UsageMetadata) -> String {
    format!(
        "prompt {} candidates {} thoughts {} cached {} toolUse {} total {}{}",
        n(u.prompt_token_count),
        n(u.candidates_token_count),
        n(u.thoughts_token_count),
        n(u.cached_content_token_count),
        n(u.tool_use_prompt_token_count),
        n(u.total_token_count),
        extra(&u.extra)
    )
}

pub fn request(r: &Request) -> String {
    let mut out = format!("request{}\n", extra(&r.extra));
    if let Some(s) = &r.system_instruction {
        writeln!(out, "  systemInstruction{}", extra(&s.extra)).unwrap();
        parts(&mut out, s);
    }
    for c in &r.contents {
        writeln!(out, "  {}{}", role(c), extra(&c.extra)).unwrap();
        parts(&mut out, c);
    }
    for t in r.tools.iter().flatten() {
        for d in t.function_declarations.iter().flatten() {
            let schema = match (&d.parameters, &d.parameters_json_schema) {
                (Some(_), None) => "parameters",
                (None, Some(_)) => "parametersJsonSchema",
                (None, None) => "no parameters",
                (Some(_), Some(_)) => "both",
            };
            writeln!(
                out,
                "  tool function {} ({schema}){}",
                d.name,
                extra(&d.extra)
            )
            .unwrap();
        }
        for (name, set) in [
            ("googleSearch", t.google_search.is_some()),
            ("googleSearchRetrieval", t.google_search_retrieval.is_some()),
            ("codeExecution", t.code_execution.is_some()),
            ("urlContext", t.url_context.is_some()),
            ("fileSearch", t.file_search.is_some()),
            ("googleMaps", t.google_maps.is_some()),
            ("computerUse", t.computer_use.is_some()),
            ("mcpServers", t.mcp_servers.is_some()),
        ] {
            if set {
                writeln!(out, "  tool {name}").unwrap();
            }
        }
        if !t.extra.is_empty() {
            writeln!(out, "  tool{}", extra(&t.extra)).unwrap();
        }
    }
    if let Some(fc) = r
        .tool_config
        .as_ref()
        .and_then(|t| t.function_calling_config.as_ref())
    {
        let allowed = fc
            .allowed_function_names
            .as_ref()
            .map(|a| format!(" allowed {a:?}"))
            .unwrap_or_default();
        writeln!(
            out,
            "  toolConfig mode {}{allowed}{}",
            fc.mode.as_ref().map(|m| m.as_str()).unwrap_or("-"),
            extra(&fc.extra)
        )
        .unwrap();
    }
    if let Some(g) = &r.generation_config {
        let mut line = String::from("  generationConfig");
        if let Some(v) = &g.temperature {
            write!(line, " temperature {v}").unwrap();
        }
        if let Some(v) = &g.max_output_tokens {
            write!(line, " maxOutputTokens {v}").unwrap();
        }
        if let Some(v) = &g.response_mime_type {
            write!(line, " responseMimeType {v}").unwrap();
        }
        if let Some(t) = &g.thinking_config {
            line.push_str(" thinking");
            if let Some(b) = t.thinking_budget {
                write!(line, " budget {b}").unwrap();
            }
            if let Some(l) = &t.thinking_level {
                write!(line, " level {l}").unwrap();
            }
            if let Some(i) = t.include_thoughts {
                write!(line, " includeThoughts {i}").unwrap();
            }
            line.push_str(&extra(&t.extra));
        }
        line.push_str(&extra(&g.extra));
        writeln!(out, "{line}").unwrap();
    }
    for s in r.safety_settings.iter().flatten() {
        writeln!(out, "  safety {} {}", s.category, s.threshold).unwrap();
    }
    out
}

pub fn response(r: &Response) -> String {
    let mut out = format!(
        "model {} candidates {}{}\n",
        r.model_version.as_deref().unwrap_or("?"),
        r.candidates.as_ref().map_or(0, |c| c.len()),
        extra(&r.extra)
    );
    for c in r.candidates.iter().flatten() {
        writeln!(
            out,
            "  candidate {} finish {}{} content {}{}",
            c.index.unwrap_or(0),
            c.finish_reason.as_ref().map(|f| f.as_str()).unwrap_or("-"),
            c.finish_message
                .as_deref()
                .map(|m| format!(" \"{}\"", short(m, 40)))
                .unwrap_or_default(),
            c.content.as_ref().map_or_else(
                || "(none)".to_owned(),
                |c| format!("{}{}", role(c), extra(&c.extra))
            ),
            extra(&c.extra)
        )
        .unwrap();
        if let Some(c) = &c.content {
            parts(&mut out, c);
        }
        if c.grounding_metadata.is_some() {
            writeln!(out, "    groundingMetadata").unwrap();
        }
    }
    if let Some(f) = &r.prompt_feedback {
        writeln!(
            out,
            "  promptFeedback block {}{}",
            f.block_reason.as_ref().map(|b| b.as_str()).unwrap_or("-"),
            extra(&f.extra)
        )
        .unwrap();
    }
    if let Some(u) = &r.usage_metadata {
        writeln!(out, "  usage {}", usage(u)).unwrap();
    }
    out
}

pub fn event(e: &StreamEvent) -> String {
    match e {
        StreamEvent::Error(e) => format!(
            "error {} {} {}",
            e.error
                .code
                .map_or_else(|| "-".to_owned(), |c| c.to_string()),
            e.error.status.as_deref().unwrap_or("-"),
            e.error.message.as_deref().unwrap_or("")
        ),
        StreamEvent::Chunk(c) => {
            let mut s = String::from("chunk");
            for cand in c.candidates.iter().flatten() {
                let parts: Vec<String> = cand
                    .content
                    .iter()
                    .flat_map(|c| c.parts.iter().flatten())
                    .map(part)
                    .collect();
                if !parts.is_empty() {
                    write!(s, " [{}]", parts.join(", ")).unwrap();
                }
                if let Some(f) = &cand.finish_reason {
                    write!(s, " finish {f}").unwrap();
                }
                s.push_str(&extra(&cand.extra));
            }
            if let Some(b) = c
                .prompt_feedback
                .as_ref()
                .and_then(|f| f.block_reason.as_ref())
            {
                write!(s, " blocked {b}").unwrap();
            }
            if let Some(u) = &c.usage_metadata {
                write!(
                    s,
                    " usage {}/{}/{}",
                    n(u.prompt_token_count),
                    n(u.candidates_token_count),
                    n(u.thoughts_token_count)
                )
                .unwrap();
            }
            s.push_str(&extra(&c.extra));
            s
        }
    }
}

pub fn error(e: &ErrorResponse) -> String {
    let details: Vec<&str> = e
        .error
        .details
        .iter()
        .flatten()
        .map(|d| d.get("@type").and_then(|t| t.as_str()).unwrap_or("?"))
        .collect();
    format!(
        "error {} {} {}\n  details {details:?}{}\n",
        e.error
            .code
            .map_or_else(|| "-".to_owned(), |c| c.to_string()),
        e.error.status.as_deref().unwrap_or("-"),
        e.error.message.as_deref().unwrap_or(""),
        extra(&e.error.extra)
    )
}
