//! Hosted calls and results in responses: as the target's own parts where it has them,
//! else as readable text.

use super::*;

/// Before encoding a response decoded from Gemini as another format: each candidate's
/// `groundingMetadata` (the Google Search grounding: its queries and sources) becomes a
/// text part at the end of the answer (`changed` loss), never nothing. The rest of it
/// (the search entry point's HTML, the supports that tie text segments to sources) has no
/// place elsewhere and is covered by that loss.
pub(crate) fn grounding_as_text(resp: &mut Response, ctx: &mut Ctx<'_>) {
    if ctx.format == Format::Gemini {
        return;
    }
    for (i, c) in resp.choices.iter_mut().enumerate() {
        if c.vendor.format != Some(Format::Gemini) {
            continue;
        }
        let Some(g) = c.vendor.fields.shift_remove("groundingMetadata") else {
            continue;
        };
        let mut out = String::new();
        if let Some(Value::Array(q)) = g.get("webSearchQueries") {
            for q in q.iter().filter_map(Value::as_str) {
                push_line(&mut out, &format!("[google_search] searched for: {q}"));
            }
        }
        if let Some(Value::Array(chunks)) = g.get("groundingChunks") {
            let found: Vec<Value> = chunks
                .iter()
                .filter_map(|c| c.get("web").or(c.get("retrievedContext")).cloned())
                .collect();
            if !found.is_empty() {
                push_line(&mut out, "Sources:");
                sources(&mut out, &found);
            }
        }
        let at = format!("/choices/{i}/groundingMetadata");
        if out.is_empty() {
            let detail = format!(
                "gemini grounding metadata has no equivalent in {}",
                ctx.format
            );
            ctx.dropped(LossCode::FieldUnsupported, at, detail);
            continue;
        }
        let detail = format!(
            "gemini grounding metadata has no equivalent in {}; its search queries and \
             sources are sent as a text part at the end of the answer",
            ctx.format
        );
        ctx.changed(LossCode::PartAsText, at, detail);
        c.message.content.push(Part::text(out));
    }
}

/// One step of hosted code execution, read from any format that has it.
#[derive(Debug)]
enum Step {
    /// The model ran this Python code.
    Call { id: Option<String>, code: String },
    /// What it printed; `ok`: it ran to completion.
    Result {
        id: Option<String>,
        stdout: String,
        stderr: String,
        ok: bool,
    },
    /// The model searched the web (Anthropic `server_tool_use` of `web_search`).
    Search { id: Option<String>, query: String },
    /// What the search found: the sources' URLs (Anthropic `web_search_tool_result`).
    Found {
        id: Option<String>,
        urls: Vec<String>,
    },
}

/// The code execution steps an opaque part holds (Anthropic `server_tool_use` of
/// `code_execution` and its `code_execution_tool_result`, Gemini `executableCode` and
/// `codeExecutionResult`, a Responses `code_interpreter_call` item: both at once).
fn steps(o: &Opaque) -> Option<Vec<Step>> {
    let v = &o.value;
    let text = |v: &Value, k: &str| str_of(v, k).unwrap_or("").to_owned();
    match o.format {
        Format::Anthropic => match str_of(v, "type")? {
            "server_tool_use" if str_of(v, "name") == Some("web_search") => {
                let query = str_of(v.get("input")?, "query")?.to_owned();
                let id = str_of(v, "id").map(str::to_owned);
                Some(vec![Step::Search { id, query }])
            }
            "web_search_tool_result" => {
                let Value::Array(results) = v.get("content")? else {
                    return None;
                };
                let urls = results
                    .iter()
                    .filter_map(|r| str_of(r, "url").map(str::to_owned))
                    .collect();
                let id = str_of(v, "tool_use_id").map(str::to_owned);
                Some(vec![Step::Found { id, urls }])
            }
            "server_tool_use" if str_of(v, "name") == Some("code_execution") => {
                let code = str_of(v.get("input")?, "code")?.to_owned();
                let id = str_of(v, "id").map(str::to_owned);
                Some(vec![Step::Call { id, code }])
            }
            "code_execution_tool_result" => {
                let c = v.get("content")?;
                if str_of(c, "type") != Some("code_execution_result") {
                    return None;
                }
                Some(vec![Step::Result {
                    id: str_of(v, "tool_use_id").map(str::to_owned),
                    stdout: text(c, "stdout"),
                    stderr: text(c, "stderr"),
                    ok: c.get("return_code").and_then(Value::as_i64) == Some(0),
                }])
            }
            _ => None,
        },
        Format::Gemini => {
            if let Some(e) = v.get("executableCode") {
                let lang = str_of(e, "language").unwrap_or("PYTHON");
                if lang != "PYTHON" {
                    return None;
                }
                Some(vec![Step::Call {
                    id: None,
                    code: str_of(e, "code")?.to_owned(),
                }])
            } else {
                let r = v.get("codeExecutionResult")?;
                let ok = str_of(r, "outcome") == Some("OUTCOME_OK");
                let output = text(r, "output");
                let (stdout, stderr) = if ok {
                    (output, String::new())
                } else {
                    (String::new(), output)
                };
                Some(vec![Step::Result {
                    id: None,
                    stdout,
                    stderr,
                    ok,
                }])
            }
        }
        Format::OpenaiResponses if str_of(v, "type")? == "code_interpreter_call" => {
            let id = str_of(v, "id").map(str::to_owned);
            let code = str_of(v, "code")?.to_owned();
            let mut stdout = String::new();
            if let Some(Value::Array(outputs)) = v.get("outputs") {
                for out in outputs {
                    if let Some(logs) = str_of(out, "logs") {
                        stdout.push_str(logs);
                    }
                }
            }
            let ok = str_of(v, "status") != Some("failed");
            Some(vec![
                Step::Call {
                    id: id.clone(),
                    code,
                },
                Step::Result {
                    id,
                    stdout,
                    stderr: String::new(),
                    ok,
                },
            ])
        }
        _ => None,
    }
}

/// Before encoding a response as Anthropic, Gemini or Responses: hosted code execution
/// of another of them (the code the model ran and its output) becomes the target's own
/// blocks, parts or items, a `changed` loss each ([`LossCode::ToolMapped`]). Ids the
/// target needs and the source lacks are made up from the step's position
/// (`srvtoolu_<n>`, `ci_<n>`), so a call and its result still pair. Any other hosted
/// part, and every hosted part in other targets, is left to
/// [`crate::util::opaque_elsewhere`] (its text).
///
/// A call and its result may become one item, and one item two blocks, so the parts of a
/// message it rewrote move: it returns, for each such choice, the source position of each
/// part now there, for [`renumber`] to point the encoder's losses back.
pub(crate) fn hosted_parts(resp: &mut Response, ctx: &mut Ctx<'_>) -> Vec<(usize, Vec<usize>)> {
    let to = ctx.format;
    let mut moved = Vec::new();
    if !matches!(
        to,
        Format::Anthropic | Format::Gemini | Format::OpenaiResponses
    ) {
        return moved;
    }
    for (i, choice) in resp.choices.iter_mut().enumerate() {
        let content = &mut choice.message.content;
        if !content
            .iter()
            .any(|p| matches!(p, Part::Opaque(o) if o.format != to))
        {
            continue;
        }
        let mut out = Vec::with_capacity(content.len());
        let mut n = 0;
        let mut last_id: Option<String> = None;
        // Responses: the item of each call (its source id, its place in `out`), for its
        // result to fill in; a Gemini result answers the last call.
        let mut calls: Vec<(Option<String>, usize)> = Vec::new();
        let mut origin: Vec<usize> = Vec::new();
        let mut last = 0;
        for (k, part) in std::mem::take(content).into_iter().enumerate() {
            origin.resize(out.len(), last);
            last = k;
            let found = match &part {
                Part::Opaque(o) if o.format != to => steps(o).map(|s| (o.format, s)),
                _ => None,
            };
            let search = |s: &Step| matches!(s, Step::Search { .. } | Step::Found { .. });
            let Some((from, steps)) = found.filter(|(_, s)| {
                // Web search has an equivalent in Responses only.
                to == Format::OpenaiResponses || !s.iter().any(search)
            }) else {
                out.push(part);
                continue;
            };
            let at = format!("/choices/{i}/message/content/{k}");
            let kind = match (to, steps.iter().any(search)) {
                (_, true) => "a `web_search_call` item (without the sources' titles)",
                _ => match to {
                    Format::Anthropic => {
                        "`server_tool_use` and `code_execution_tool_result` blocks"
                    }
                    Format::Gemini => "`executableCode` and `codeExecutionResult` parts",
                    _ => "a `code_interpreter_call` item",
                },
            };
            let what = if steps.iter().any(search) {
                "web search"
            } else {
                "code execution"
            };
            let mut detail = format!("{from} hosted {what} is written as {kind} of {to}");
            if to == Format::OpenaiResponses && what == "code execution" {
                detail.push_str(" (with an empty `container_id`)");
            }
            ctx.changed(LossCode::ToolMapped, at, detail);
            for step in steps {
                match (to, step) {
                    (Format::OpenaiResponses, Step::Call { id, code }) => {
                        n += 1;
                        let item = id.clone().unwrap_or_else(|| format!("ci_{n}"));
                        calls.push((id, out.len()));
                        out.push(interpreter_call(item, code));
                    }
                    (
                        Format::OpenaiResponses,
                        Step::Result {
                            stdout,
                            stderr,
                            ok,
                            id,
                        },
                    ) => {
                        let call = match &id {
                            Some(id) => calls.iter().position(|(c, _)| c.as_ref() == Some(id)),
                            None => calls.len().checked_sub(1),
                        };
                        let at = match call {
                            Some(c) => calls.remove(c).1,
                            None => {
                                n += 1;
                                out.push(interpreter_call(
                                    id.unwrap_or_else(|| format!("ci_{n}")),
                                    String::new(),
                                ));
                                out.len() - 1
                            }
                        };
                        if let Some(Part::Opaque(o)) = out.get_mut(at) {
                            let status = if ok { "completed" } else { "failed" };
                            o.value["status"] = Value::from(status);
                            o.value["outputs"] =
                                json!([{"type": "logs", "logs": stdout + &stderr}]);
                        }
                    }
                    (Format::Anthropic, Step::Call { id, code }) => {
                        n += 1;
                        let id = id.unwrap_or_else(|| format!("srvtoolu_{n}"));
                        last_id = Some(id.clone());
                        out.push(opaque(
                            to,
                            json!({"type": "server_tool_use", "id": id, "name": "code_execution",
                                   "input": {"code": code}}),
                        ));
                    }
                    (
                        Format::Anthropic,
                        Step::Result {
                            id,
                            stdout,
                            stderr,
                            ok,
                        },
                    ) => {
                        let id = id
                            .or_else(|| last_id.take())
                            .unwrap_or_else(|| format!("srvtoolu_{n}"));
                        out.push(opaque(
                            to,
                            json!({"type": "code_execution_tool_result", "tool_use_id": id,
                                   "content": {"type": "code_execution_result", "stdout": stdout,
                                               "stderr": stderr, "return_code": if ok { 0 } else { 1 },
                                               "content": []}}),
                        ));
                    }
                    (_, Step::Search { id, query }) => {
                        n += 1;
                        let item = id.clone().unwrap_or_else(|| format!("ws_{n}"));
                        calls.push((id, out.len()));
                        let mut map = Map::new();
                        map.insert("type".into(), Value::from("web_search_call"));
                        map.insert("id".into(), Value::String(item));
                        map.insert("status".into(), Value::from("in_progress"));
                        map.insert("action".into(), json!({"type": "search", "query": query}));
                        out.push(crate::openai_responses::opaque_item(map));
                    }
                    (_, Step::Found { id, urls }) => {
                        let call = id
                            .as_ref()
                            .and_then(|id| calls.iter().position(|(c, _)| c.as_ref() == Some(id)));
                        let sources: Vec<Value> = urls
                            .into_iter()
                            .map(|u| json!({"type": "url", "url": u}))
                            .collect();
                        let at = match call {
                            Some(c) => calls.remove(c).1,
                            // A result whose call is not in this message: an item alone.
                            None => {
                                n += 1;
                                let mut map = Map::new();
                                map.insert("type".into(), Value::from("web_search_call"));
                                let item = id.unwrap_or_else(|| format!("ws_{n}"));
                                map.insert("id".into(), Value::String(item));
                                map.insert("action".into(), json!({"type": "search"}));
                                out.push(crate::openai_responses::opaque_item(map));
                                out.len() - 1
                            }
                        };
                        if let Some(Part::Opaque(o)) = out.get_mut(at) {
                            o.value["status"] = Value::from("completed");
                            o.value["action"]["sources"] = Value::Array(sources);
                        }
                    }
                    (_, Step::Call { code, .. }) => out.push(opaque(
                        to,
                        json!({"executableCode": {"language": "PYTHON", "code": code}}),
                    )),
                    (
                        _,
                        Step::Result {
                            stdout, stderr, ok, ..
                        },
                    ) => {
                        let outcome = if ok { "OUTCOME_OK" } else { "OUTCOME_FAILED" };
                        out.push(opaque(
                            to,
                            json!({"codeExecutionResult": {"outcome": outcome,
                                   "output": stdout + &stderr}}),
                        ));
                    }
                }
            }
        }
        origin.resize(out.len(), last);
        *content = out;
        if origin.iter().enumerate().any(|(new, old)| new != *old) {
            moved.push((i, origin));
        }
    }
    moved
}

/// Points the losses an encoder reported at parts [`hosted_parts`] moved back at the
/// parts' neutral positions before the move.
pub(crate) fn renumber(losses: &mut [crate::Loss], moved: &[(usize, Vec<usize>)]) {
    for (i, origin) in moved {
        let prefix = format!("/choices/{i}/message/content/");
        for loss in losses.iter_mut() {
            let Some(rest) = loss.path.strip_prefix(&prefix) else {
                continue;
            };
            let end = rest.find('/').unwrap_or(rest.len());
            let Some(old) = rest[..end]
                .parse::<usize>()
                .ok()
                .and_then(|n| origin.get(n))
            else {
                continue;
            };
            loss.path = format!("{prefix}{old}{}", &rest[end..]);
        }
    }
}

fn opaque(format: Format, value: Value) -> Part {
    Part::Opaque(Opaque {
        format,
        value,
        meta: PartMeta::default(),
    })
}

/// A Responses `code_interpreter_call` item for `code`, still running (`in_progress`,
/// no outputs) until its result fills it in. Responses requires a `container_id`, which
/// no other format has: written empty.
fn interpreter_call(id: String, code: String) -> Part {
    let (outputs, status) = (json!([]), "in_progress");
    let mut map = Map::new();
    map.insert("type".into(), Value::from("code_interpreter_call"));
    map.insert("id".into(), Value::String(id));
    map.insert("status".into(), Value::from(status));
    map.insert("code".into(), Value::String(code));
    map.insert("container_id".into(), Value::from(""));
    map.insert("outputs".into(), outputs);
    crate::openai_responses::opaque_item(map)
}

/// The readable text of a hosted call or result (web search, code execution) of any
/// format, for a target without its equivalent: the code and its output, the search
/// query, the sources' titles and URLs. `None` for any other opaque part.
pub(crate) fn hosted_text(o: &Opaque) -> Option<String> {
    let v = &o.value;
    match o.format {
        Format::Anthropic => anthropic_text(v),
        Format::OpenaiResponses => responses_text(v),
        Format::Gemini => gemini_text(v),
        _ => None,
    }
}

fn push_line(out: &mut String, line: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
}

/// `title <url>` lines of sources (objects with `url` and maybe `title`).
fn sources(out: &mut String, items: &[Value]) {
    for s in items {
        if let Some(url) = str_of(s, "url").or_else(|| str_of(s, "uri")) {
            match str_of(s, "title") {
                Some(t) if !t.is_empty() => push_line(out, &format!("- {t} <{url}>")),
                _ => push_line(out, &format!("- <{url}>")),
            }
        }
    }
}

fn code_block(out: &mut String, label: &str, lang: &str, code: &str) {
    push_line(
        out,
        &format!("{label}:\n```{lang}\n{}\n```", code.trim_end()),
    );
}

fn anthropic_text(v: &Value) -> Option<String> {
    let mut out = String::new();
    match str_of(v, "type")? {
        "server_tool_use" => {
            let input = v.get("input").unwrap_or(&Value::Null);
            let name = str_of(v, "name").unwrap_or("tool");
            if let Some(q) = str_of(input, "query") {
                push_line(&mut out, &format!("[{name}] searched for: {q}"));
            } else if let Some(code) = str_of(input, "code") {
                code_block(&mut out, &format!("[{name}] ran"), "python", code);
            } else if let Some(cmd) = str_of(input, "command") {
                code_block(&mut out, &format!("[{name}] ran"), "bash", cmd);
            } else {
                push_line(&mut out, &format!("[{name}] called with {input}"));
            }
        }
        "web_search_tool_result" => {
            push_line(&mut out, "[web_search] results:");
            match v.get("content") {
                Some(Value::Array(items)) if items.is_empty() => {
                    out.push_str(" none");
                }
                Some(Value::Array(items)) => sources(&mut out, items),
                Some(e) => {
                    let code = str_of(e, "error_code").unwrap_or("unknown");
                    push_line(&mut out, &format!("error: {code}"));
                }
                None => {}
            }
        }
        "code_execution_tool_result" | "bash_code_execution_tool_result" => {
            let c = v.get("content").unwrap_or(&Value::Null);
            push_line(&mut out, "[code_execution] result:");
            if let Some(code) = c.get("return_code") {
                push_line(&mut out, &format!("return code: {code}"));
            }
            for key in ["stdout", "stderr"] {
                if let Some(s) = str_of(c, key).filter(|s| !s.is_empty()) {
                    code_block(&mut out, key, "", s);
                }
            }
            if let Some(e) = str_of(c, "error_code") {
                push_line(&mut out, &format!("error: {e}"));
            }
        }
        _ => return None,
    }
    Some(out)
}

fn responses_text(v: &Value) -> Option<String> {
    let mut out = String::new();
    match str_of(v, "type")? {
        "web_search_call" => {
            let action = v.get("action").unwrap_or(&Value::Null);
            match str_of(action, "type") {
                Some("search") | None => {
                    let queries: Vec<&str> = match action.get("queries") {
                        Some(Value::Array(q)) => q.iter().filter_map(Value::as_str).collect(),
                        _ => str_of(action, "query").into_iter().collect(),
                    };
                    if queries.is_empty() {
                        push_line(&mut out, "[web_search] searched");
                    }
                    for q in queries {
                        push_line(&mut out, &format!("[web_search] searched for: {q}"));
                    }
                    if let Some(Value::Array(s)) = action.get("sources") {
                        sources(&mut out, s);
                    }
                }
                Some("open_page") => {
                    let url = str_of(action, "url").unwrap_or("");
                    push_line(&mut out, &format!("[web_search] opened <{url}>"));
                }
                Some("find") | Some("find_in_page") => {
                    let p = str_of(action, "pattern").unwrap_or("");
                    let url = str_of(action, "url").unwrap_or("");
                    push_line(
                        &mut out,
                        &format!("[web_search] looked for {p:?} in <{url}>"),
                    );
                }
                Some(other) => push_line(&mut out, &format!("[web_search] {other}")),
            }
        }
        "code_interpreter_call" => {
            if let Some(code) = str_of(v, "code") {
                code_block(&mut out, "[code_interpreter] ran", "python", code);
            }
            if let Some(Value::Array(outputs)) = v.get("outputs") {
                for o in outputs {
                    if let Some(logs) = str_of(o, "logs") {
                        code_block(&mut out, "output", "", logs);
                    } else if let Some(url) = str_of(o, "url") {
                        push_line(&mut out, &format!("image: <{url}>"));
                    }
                }
            }
            if out.is_empty() {
                push_line(&mut out, "[code_interpreter] ran");
            }
        }
        _ => return None,
    }
    Some(out)
}

fn gemini_text(v: &Value) -> Option<String> {
    let mut out = String::new();
    if let Some(e) = v.get("executableCode") {
        let lang = str_of(e, "language").unwrap_or("").to_ascii_lowercase();
        let lang = if lang == "language_unspecified" {
            ""
        } else {
            &lang
        };
        code_block(
            &mut out,
            "[code_execution] ran",
            lang,
            str_of(e, "code").unwrap_or(""),
        );
    } else if let Some(r) = v.get("codeExecutionResult") {
        let outcome = str_of(r, "outcome").unwrap_or("OUTCOME_UNSPECIFIED");
        push_line(&mut out, &format!("[code_execution] result: {outcome}"));
        if let Some(o) = str_of(r, "output").filter(|s| !s.is_empty()) {
            code_block(&mut out, "output", "", o);
        }
    } else {
        return None;
    }
    Some(out)
}
