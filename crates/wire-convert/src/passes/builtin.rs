//! Built-in (hosted) tools across formats: web search and code execution.
//!
//! A hosted tool stays a [`Tool::Opaque`] of its source format in the neutral model, so
//! the same format writes it back whole (`A → neutral → A` is exact). When another
//! format encodes it, [`translate`] reads it into one of the typed built-ins here
//! ([`Builtin`]) and writes that as the target's own equivalent, a loss for each setting
//! the target has no place for:
//!
//! | built-in | OpenAI Chat | Responses | Anthropic | Gemini |
//! |---|---|---|---|---|
//! | web search | `web_search_options` (a request field) | `web_search` | `web_search_20250305` | `googleSearch` |
//! | code execution | — | `code_interpreter` | `code_execution_20250825` | `codeExecution` |
//!
//! Settings that correspond: web search's `max_uses` (Anthropic), allowed domains
//! (Anthropic `allowed_domains`, Responses `filters.allowed_domains`), blocked domains
//! (Anthropic `blocked_domains`, Gemini `excludeDomains`), the user's approximate
//! location (Chat `user_location.approximate`, Responses and Anthropic `user_location`)
//! and the search context size (Chat and Responses `search_context_size`); code
//! execution's container (Responses `container`, which the target requires: `{"type":
//! "auto"}` when the source had none). Ollama, Bedrock, Mistral's chat completions and
//! Cohere have no built-in tools: there the tool is dropped with a
//! [`LossCode::ToolUnsupported`] loss (see [`super::tools::drop_foreign_tool`]).
//!
//! In responses (whole bodies), hosted code execution becomes the target's own between
//! Anthropic, Gemini and Responses, and Anthropic's web search a Responses
//! `web_search_call` ([`hosted_parts`]); a Gemini `groundingMetadata` becomes its
//! queries and sources as text ([`grounding_as_text`]). Any other hosted call or result,
//! and every one in a stream, becomes its text (the code and its output, the search
//! query, the sources' titles and URLs) with a `changed` loss: [`hosted_text`], used by
//! every encoder and stream encoder through [`crate::util::opaque_elsewhere`].

use crate::model::{Opaque, Part, PartMeta, Request, Response, Tool};
use crate::{Ctx, Format, LossCode};
use serde_json::{Map, Value, json};

/// The request field OpenAI Chat's web search is (it is not a tool there).
pub(crate) const CHAT_WEB_SEARCH: &str = "web_search_options";
/// Hint on a lifted Chat web search: the pointer its settings are at in the source.
const POINTER: &str = "builtin_pointer";

/// A built-in tool, typed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Builtin {
    /// Web search.
    WebSearch(Box<WebSearch>),
    /// Code execution in a sandbox.
    CodeExecution(CodeExecution),
}

/// Web search settings, as far as they correspond across formats.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WebSearch {
    /// How many searches one request may make (Anthropic `max_uses`).
    pub(crate) max_uses: Option<Value>,
    /// Only these domains (Anthropic `allowed_domains`, Responses
    /// `filters.allowed_domains`).
    pub(crate) allowed_domains: Option<Value>,
    /// Never these domains (Anthropic `blocked_domains`, Gemini `excludeDomains`).
    pub(crate) blocked_domains: Option<Value>,
    /// The user's approximate location: `city`, `region`, `country`, `timezone` (without
    /// the `type: approximate` tag every format puts on it).
    pub(crate) user_location: Option<Map<String, Value>>,
    /// `low`, `medium` or `high` (Chat and Responses `search_context_size`).
    pub(crate) context_size: Option<Value>,
    /// The source's settings with no equivalent anywhere else (a loss each), by their
    /// pointer below the tool.
    pub(crate) rest: Vec<(String, Value)>,
    /// Where the source has a setting other than at `/<its name here>` below the tool
    /// (Responses `/filters/allowed_domains`, Gemini `/excludeDomains`), for losses.
    pub(crate) spelled: Vec<(&'static str, &'static str)>,
}

impl WebSearch {
    /// The pointer below the tool of setting `name` in the source.
    fn at(&self, name: &'static str) -> String {
        match self.spelled.iter().find(|(n, _)| *n == name) {
            Some((_, p)) => (*p).to_owned(),
            None => format!("/{name}"),
        }
    }
}

/// Code execution settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CodeExecution {
    /// The container to run in (Responses `container`: an id, or `{"type": "auto", …}`).
    pub(crate) container: Option<Value>,
    /// The source's settings with no equivalent elsewhere, by their pointer below the
    /// tool.
    pub(crate) rest: Vec<(String, Value)>,
}

/// What a built-in becomes in a target.
#[derive(Debug)]
pub(crate) enum Placed {
    /// A tool of the target (its wire JSON).
    Tool(Value),
    /// A request field of the target (OpenAI Chat `web_search_options`).
    Field(&'static str, Value),
}

fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// Moves `key` out of `m` unless it is absent or `null`.
fn take(m: &mut Map<String, Value>, key: &str) -> Option<Value> {
    m.shift_remove(key).filter(|v| !v.is_null())
}

/// A location object without its `type` tag (`approximate`, the only kind).
fn location(v: Value, rest: &mut Vec<(String, Value)>, at: &str) -> Option<Map<String, Value>> {
    match v {
        Value::Object(mut m) => {
            match m.shift_remove("type") {
                Some(t) if t != "approximate" => rest.push((format!("{at}/type"), t)),
                _ => {}
            }
            m.retain(|_, v| !v.is_null());
            Some(m)
        }
        Value::Null => None,
        other => {
            rest.push((at.to_owned(), other));
            None
        }
    }
}

fn rest_of(m: Map<String, Value>, below: &str) -> Vec<(String, Value)> {
    m.into_iter()
        .map(|(k, v)| {
            let mut p = below.to_owned();
            wire_types::push_token(&mut p, &k);
            (p, v)
        })
        .collect()
}

/// Reads a hosted tool kept whole as one of the built-ins, if it is one.
pub(crate) fn decode(o: &Opaque) -> Option<Builtin> {
    let Value::Object(map) = &o.value else {
        return None;
    };
    let mut m = map.clone();
    match o.format {
        Format::Anthropic => {
            let kind = str_of(&o.value, "type")?;
            if kind.starts_with("web_search_") {
                m.shift_remove("type");
                m.shift_remove("name");
                let mut w = WebSearch {
                    max_uses: take(&mut m, "max_uses"),
                    allowed_domains: take(&mut m, "allowed_domains"),
                    blocked_domains: take(&mut m, "blocked_domains"),
                    ..WebSearch::default()
                };
                if let Some(l) = take(&mut m, "user_location") {
                    w.user_location = location(l, &mut w.rest, "/user_location");
                }
                w.rest.extend(rest_of(m, ""));
                Some(Builtin::WebSearch(Box::new(w)))
            } else if kind.starts_with("code_execution_") {
                m.shift_remove("type");
                m.shift_remove("name");
                Some(Builtin::CodeExecution(CodeExecution {
                    container: None,
                    rest: rest_of(m, ""),
                }))
            } else {
                None
            }
        }
        Format::OpenaiResponses => match str_of(&o.value, "type")? {
            "web_search"
            | "web_search_2025_08_26"
            | "web_search_preview"
            | "web_search_preview_2025_03_11" => {
                m.shift_remove("type");
                let mut w = WebSearch {
                    context_size: take(&mut m, "search_context_size"),
                    ..WebSearch::default()
                };
                if let Some(l) = take(&mut m, "user_location") {
                    w.user_location = location(l, &mut w.rest, "/user_location");
                }
                match take(&mut m, "filters") {
                    Some(Value::Object(mut f)) => {
                        w.allowed_domains = take(&mut f, "allowed_domains");
                        w.spelled
                            .push(("allowed_domains", "/filters/allowed_domains"));
                        w.rest.extend(rest_of(f, "/filters"));
                    }
                    Some(other) => w.rest.push(("/filters".into(), other)),
                    None => {}
                }
                w.rest.extend(rest_of(m, ""));
                Some(Builtin::WebSearch(Box::new(w)))
            }
            "code_interpreter" => {
                m.shift_remove("type");
                Some(Builtin::CodeExecution(CodeExecution {
                    container: take(&mut m, "container"),
                    rest: rest_of(m, ""),
                }))
            }
            _ => None,
        },
        Format::Gemini => {
            // One built-in per opaque tool: `{"googleSearch": {…}}`.
            if m.len() != 1 {
                return None;
            }
            let (key, value) = m.into_iter().next()?;
            let Value::Object(mut s) = value else {
                return None;
            };
            match key.as_str() {
                "googleSearch" => {
                    let mut w = WebSearch {
                        blocked_domains: take(&mut s, "excludeDomains"),
                        spelled: vec![("blocked_domains", "/excludeDomains")],
                        ..WebSearch::default()
                    };
                    w.rest = rest_of(s, "");
                    Some(Builtin::WebSearch(Box::new(w)))
                }
                "googleSearchRetrieval" => Some(Builtin::WebSearch(Box::new(WebSearch {
                    rest: rest_of(s, ""),
                    ..WebSearch::default()
                }))),
                "codeExecution" => Some(Builtin::CodeExecution(CodeExecution {
                    container: None,
                    rest: rest_of(s, ""),
                })),
                _ => None,
            }
        }
        Format::OpenaiChat => {
            let Some(Value::Object(mut s)) = m.shift_remove(CHAT_WEB_SEARCH) else {
                return None;
            };
            let mut w = WebSearch {
                context_size: take(&mut s, "search_context_size"),
                ..WebSearch::default()
            };
            match take(&mut s, "user_location") {
                Some(Value::Object(mut l)) => {
                    match l.shift_remove("type") {
                        Some(t) if t != "approximate" => {
                            w.rest.push(("/user_location/type".into(), t));
                        }
                        _ => {}
                    }
                    if let Some(a) = take(&mut l, "approximate") {
                        w.user_location = location(a, &mut w.rest, "/user_location/approximate");
                    }
                    w.rest.extend(rest_of(l, "/user_location"));
                }
                Some(other) => w.rest.push(("/user_location".into(), other)),
                None => {}
            }
            w.rest.extend(rest_of(s, ""));
            Some(Builtin::WebSearch(Box::new(w)))
        }
        _ => None,
    }
}

/// Records that the setting at `at` has no place in the target.
fn unsupported(ctx: &mut Ctx<'_>, at: &str, what: &str, builtin: &str) {
    let detail = format!("{} {builtin} has no {what}", ctx.format);
    ctx.dropped(LossCode::FieldUnsupported, at, detail);
}

/// A location with its `type: approximate` tag, for Responses and Anthropic.
fn tagged_location(l: Map<String, Value>) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), Value::from("approximate"));
    out.extend(l);
    Value::Object(out)
}

/// Writes `b` as the target's equivalent (`ctx.format`), a loss (pointers below `at`, the
/// source tool's neutral pointer) for each setting it cannot carry; `None` when the
/// target has no such tool.
pub(crate) fn encode(b: Builtin, at: &str, ctx: &mut Ctx<'_>) -> Option<Placed> {
    let target = ctx.format;
    match b {
        Builtin::WebSearch(w) => {
            let w = *w;
            let name = "web search";
            let mut out = Map::new();
            let (max_uses, allowed, blocked, location, size) = match target {
                Format::Anthropic => (true, true, true, true, false),
                Format::OpenaiResponses => (false, true, false, true, true),
                Format::Gemini => (false, false, true, false, false),
                Format::OpenaiChat => (false, false, false, true, true),
                _ => return None,
            };
            let spelled = |name: &'static str| format!("{at}{}", w.at(name));
            let lose = |ctx: &mut Ctx<'_>, field: String, what: &str| {
                unsupported(ctx, &field, what, name);
            };
            let (a_max, a_allowed, a_blocked, a_location, a_size) = (
                spelled("max_uses"),
                spelled("allowed_domains"),
                spelled("blocked_domains"),
                spelled("user_location"),
                spelled("search_context_size"),
            );
            match (w.max_uses, max_uses) {
                (Some(v), true) => {
                    out.insert("max_uses".into(), v);
                }
                (Some(_), false) => lose(ctx, a_max, "limit on the number of searches"),
                (None, _) => {}
            }
            match (w.allowed_domains, allowed) {
                (Some(v), true) => {
                    out.insert("allowed_domains".into(), v);
                }
                (Some(_), false) => lose(ctx, a_allowed, "list of allowed domains"),
                (None, _) => {}
            }
            match (w.blocked_domains, blocked) {
                (Some(v), true) => {
                    out.insert("blocked_domains".into(), v);
                }
                (Some(_), false) => lose(ctx, a_blocked, "list of blocked domains"),
                (None, _) => {}
            }
            match (w.user_location, location) {
                (Some(l), true) => {
                    out.insert("user_location".into(), tagged_location(l));
                }
                (Some(_), false) => lose(ctx, a_location, "user location"),
                (None, _) => {}
            }
            match (w.context_size, size) {
                (Some(v), true) => {
                    out.insert("search_context_size".into(), v);
                }
                (Some(_), false) => lose(ctx, a_size, "search context size"),
                (None, _) => {}
            }
            for (p, _) in &w.rest {
                let detail = format!(
                    "this web search setting has no equivalent in {}",
                    ctx.format
                );
                ctx.dropped(LossCode::FieldUnsupported, format!("{at}{p}"), detail);
            }
            Some(match target {
                Format::Anthropic => {
                    let mut t = Map::new();
                    t.insert("type".into(), Value::from("web_search_20250305"));
                    t.insert("name".into(), Value::from("web_search"));
                    t.extend(out);
                    Placed::Tool(Value::Object(t))
                }
                Format::OpenaiResponses => {
                    let mut t = Map::new();
                    t.insert("type".into(), Value::from("web_search"));
                    if let Some(d) = out.shift_remove("allowed_domains") {
                        t.insert("filters".into(), json!({ "allowed_domains": d }));
                    }
                    t.extend(out);
                    Placed::Tool(Value::Object(t))
                }
                Format::Gemini => {
                    let mut s = Map::new();
                    if let Some(d) = out.shift_remove("blocked_domains") {
                        s.insert("excludeDomains".into(), d);
                    }
                    Placed::Tool(json!({ "googleSearch": s }))
                }
                _ => {
                    // OpenAI Chat: `user_location: {type, approximate: {…}}`.
                    if let Some(Value::Object(mut l)) = out.shift_remove("user_location") {
                        l.shift_remove("type");
                        out.insert(
                            "user_location".into(),
                            json!({"type": "approximate", "approximate": l}),
                        );
                    }
                    Placed::Field(CHAT_WEB_SEARCH, Value::Object(out))
                }
            })
        }
        Builtin::CodeExecution(c) => {
            let tool = match target {
                Format::Anthropic => {
                    json!({"type": "code_execution_20250825", "name": "code_execution"})
                }
                Format::OpenaiResponses => {
                    let container = c.container.clone().unwrap_or(json!({"type": "auto"}));
                    json!({"type": "code_interpreter", "container": container})
                }
                Format::Gemini => json!({"codeExecution": {}}),
                _ => return None,
            };
            // `{"type": "auto"}` alone says what no container says.
            let default = c.container == Some(json!({"type": "auto"}));
            if c.container.is_some() && !default && target != Format::OpenaiResponses {
                unsupported(
                    ctx,
                    &format!("{at}/container"),
                    "container",
                    "code execution",
                );
            }
            for (p, _) in &c.rest {
                let detail = format!(
                    "this code execution setting has no equivalent in {}",
                    ctx.format
                );
                ctx.dropped(LossCode::FieldUnsupported, format!("{at}{p}"), detail);
            }
            Some(Placed::Tool(tool))
        }
    }
}

/// Where the losses of hosted tool `o`, found at neutral pointer `at`, point: a Chat web
/// search lifted from its request field points at that field.
pub(crate) fn pointer<'a>(o: &'a Opaque, at: &'a str) -> &'a str {
    o.meta
        .vendor
        .hint(o.format, POINTER)
        .and_then(Value::as_str)
        .unwrap_or(at)
}

/// A hosted tool of another format as this context's equivalent: `Some(tool JSON)` for a
/// tool of the target; `None` when it was placed elsewhere (a request field, kept in the
/// context for the encoder, see [`Ctx::request_fields`]) or has no equivalent (then
/// dropped with a loss).
pub(crate) fn translate(o: &Opaque, at: &str, ctx: &mut Ctx<'_>) -> Option<Value> {
    let pointer = pointer(o, at).to_owned();
    let placed = decode(o).and_then(|b| encode(b, &pointer, ctx));
    if let Some(p) = &placed {
        let source = o
            .value
            .get("type")
            .and_then(Value::as_str)
            .or_else(|| o.value.as_object()?.keys().next().map(String::as_str))
            .unwrap_or("?");
        let target = match p {
            Placed::Tool(v) => v
                .get("type")
                .and_then(Value::as_str)
                .or_else(|| v.as_object()?.keys().next().map(String::as_str))
                .unwrap_or("?")
                .to_owned(),
            Placed::Field(k, _) => (*k).to_owned(),
        };
        let detail = format!(
            "{} built-in tool `{source}` is sent as {}'s `{target}`",
            o.format, ctx.format
        );
        ctx.changed(LossCode::ToolMapped, pointer.as_str(), detail);
    }
    match placed {
        Some(Placed::Tool(v)) => Some(v),
        Some(Placed::Field(k, v)) => {
            ctx.request_fields.push((k.to_owned(), v, pointer));
            None
        }
        None => {
            super::tools::drop_foreign_tool(o, &pointer, ctx);
            None
        }
    }
}

/// Before encoding a request decoded from OpenAI Chat as another format: its
/// `web_search_options` (a request field there) becomes a hosted tool of the request,
/// so the target's tools loop translates it like any other.
pub(crate) fn lift_request_fields(req: &mut Request, to: Format) {
    if to == Format::OpenaiChat || req.vendor.format != Some(Format::OpenaiChat) {
        return;
    }
    let Some(options) = req.vendor.fields.shift_remove(CHAT_WEB_SEARCH) else {
        return;
    };
    let mut meta = PartMeta::default();
    let mut p = String::new();
    wire_types::push_token(&mut p, CHAT_WEB_SEARCH);
    meta.vendor.set_hint(Format::OpenaiChat, POINTER, p);
    let mut value = Map::new();
    value.insert(CHAT_WEB_SEARCH.into(), options);
    req.tools.push(Tool::Opaque(Opaque {
        format: Format::OpenaiChat,
        value: Value::Object(value),
        meta,
    }));
}

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

#[cfg(test)]
mod tests {
    use crate::{
        Format, LossCode, LossKind, Options, convert_request_value, convert_response_value,
    };
    use serde_json::{Value, json};

    fn anthropic_request(tools: Value) -> Value {
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": "What happened today?"}],
            "tools": tools
        })
    }

    fn codes_at(losses: &[crate::Loss], path: &str) -> Vec<(LossKind, LossCode)> {
        losses
            .iter()
            .filter(|l| l.path == path)
            .map(|l| (l.kind, l.code))
            .collect()
    }

    #[test]
    fn anthropic_web_search_to_responses_maps_domains_and_location_and_loses_max_uses() {
        let body = anthropic_request(json!([{
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": 3,
            "allowed_domains": ["example.com"],
            "user_location": {"type": "approximate", "city": "Paris", "country": "FR"}
        }]));
        let out = convert_request_value(
            &body,
            Format::Anthropic,
            Format::OpenaiResponses,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            out.value["tools"],
            json!([{
                "type": "web_search",
                "filters": {"allowed_domains": ["example.com"]},
                "user_location": {"type": "approximate", "city": "Paris", "country": "FR"}
            }])
        );
        assert_eq!(
            codes_at(&out.losses, "/tools/0/max_uses"),
            [(LossKind::Dropped, LossCode::FieldUnsupported)]
        );
        assert_eq!(
            codes_at(&out.losses, "/tools/0"),
            [(LossKind::Changed, LossCode::ToolMapped)]
        );
    }

    #[test]
    fn responses_web_search_to_anthropic_keeps_settings_and_loses_context_size() {
        let body = json!({
            "model": "gpt-5",
            "input": "Hi",
            "tools": [{
                "type": "web_search",
                "search_context_size": "high",
                "filters": {"allowed_domains": ["a.org"]},
                "user_location": {"type": "approximate", "timezone": "Europe/Paris"}
            }]
        });
        let out = convert_request_value(
            &body,
            Format::OpenaiResponses,
            Format::Anthropic,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            out.value["tools"],
            json!([{
                "type": "web_search_20250305",
                "name": "web_search",
                "allowed_domains": ["a.org"],
                "user_location": {"type": "approximate", "timezone": "Europe/Paris"}
            }])
        );
        assert_eq!(
            codes_at(&out.losses, "/tools/0/search_context_size"),
            [(LossKind::Dropped, LossCode::FieldUnsupported)]
        );
    }

    #[test]
    fn chat_web_search_options_become_a_web_search_tool_and_back() {
        let body = json!({
            "model": "gpt-4o-search-preview",
            "messages": [{"role": "user", "content": "Hi"}],
            "web_search_options": {
                "search_context_size": "low",
                "user_location": {"type": "approximate", "approximate": {"city": "Oslo"}}
            }
        });
        let opts = Options::default();
        let out = convert_request_value(&body, Format::OpenaiChat, Format::OpenaiResponses, &opts)
            .unwrap();
        assert_eq!(
            out.value["tools"],
            json!([{
                "type": "web_search",
                "user_location": {"type": "approximate", "city": "Oslo"},
                "search_context_size": "low"
            }])
        );
        assert!(out.value.get("web_search_options").is_none());
        assert_eq!(
            codes_at(&out.losses, "/web_search_options"),
            [(LossKind::Changed, LossCode::ToolMapped)]
        );
        let back = convert_request_value(
            &out.value,
            Format::OpenaiResponses,
            Format::OpenaiChat,
            &opts,
        )
        .unwrap();
        assert_eq!(back.value["web_search_options"], body["web_search_options"]);
        assert!(back.value.get("tools").is_none());
        // To Gemini: the search, without the settings it has no place for.
        let gemini =
            convert_request_value(&body, Format::OpenaiChat, Format::Gemini, &opts).unwrap();
        assert_eq!(gemini.value["tools"], json!([{"googleSearch": {}}]));
        for p in [
            "/web_search_options/search_context_size",
            "/web_search_options/user_location",
        ] {
            assert_eq!(
                codes_at(&gemini.losses, p),
                [(LossKind::Dropped, LossCode::FieldUnsupported)],
                "{p}: {:?}",
                gemini.losses
            );
        }
    }

    #[test]
    fn gemini_built_ins_map_to_anthropic_and_blocked_domains_travel() {
        let body = json!({
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [
                {"googleSearch": {"excludeDomains": ["spam.example"]}},
                {"codeExecution": {}}
            ]
        });
        let out = convert_request_value(
            &body,
            Format::Gemini,
            Format::Anthropic,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            out.value["tools"],
            json!([
                {"type": "web_search_20250305", "name": "web_search", "blocked_domains": ["spam.example"]},
                {"type": "code_execution_20250825", "name": "code_execution"}
            ])
        );
        let back = convert_request_value(
            &out.value,
            Format::Anthropic,
            Format::Gemini,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(back.value["tools"], body["tools"]);
    }

    #[test]
    fn code_execution_to_responses_gets_an_auto_container_and_a_container_is_a_loss_in_gemini() {
        let body = anthropic_request(json!([
            {"type": "code_execution_20250825", "name": "code_execution"}
        ]));
        let opts = Options::default();
        let out = convert_request_value(&body, Format::Anthropic, Format::OpenaiResponses, &opts)
            .unwrap();
        assert_eq!(
            out.value["tools"],
            json!([{"type": "code_interpreter", "container": {"type": "auto"}}])
        );
        let responses = json!({
            "model": "gpt-5",
            "input": "Hi",
            "tools": [{"type": "code_interpreter", "container": "cntr_1"}]
        });
        let out = convert_request_value(&responses, Format::OpenaiResponses, Format::Gemini, &opts)
            .unwrap();
        assert_eq!(out.value["tools"], json!([{"codeExecution": {}}]));
        assert_eq!(
            codes_at(&out.losses, "/tools/0/container"),
            [(LossKind::Dropped, LossCode::FieldUnsupported)]
        );
    }

    #[test]
    fn a_web_search_in_a_bare_chat_tools_array_is_a_loss_not_silence() {
        let tool = crate::model::Tool::Opaque(crate::model::Opaque {
            format: Format::Anthropic,
            value: json!({"type": "web_search_20250305", "name": "web_search"}),
            meta: Default::default(),
        });
        let out = crate::encode_tools(vec![tool], Format::OpenaiChat, &Options::default()).unwrap();
        assert_eq!(out.value, json!([]));
        assert!(
            codes_at(&out.losses, "/tools/0")
                .contains(&(LossKind::Dropped, LossCode::ToolUnsupported)),
            "{:?}",
            out.losses
        );
    }

    #[test]
    fn built_in_tools_are_a_loss_where_the_target_has_none() {
        let body = anthropic_request(json!([
            {"type": "web_search_20250305", "name": "web_search"},
            {"type": "code_execution_20250825", "name": "code_execution"}
        ]));
        for to in [
            Format::Ollama,
            Format::Bedrock,
            Format::Mistral,
            Format::Cohere,
        ] {
            let out =
                convert_request_value(&body, Format::Anthropic, to, &Options::default()).unwrap();
            for p in ["/tools/0", "/tools/1"] {
                assert_eq!(
                    codes_at(&out.losses, p),
                    [(LossKind::Dropped, LossCode::ToolUnsupported)],
                    "{to} {p}"
                );
            }
        }
        // Code execution has no Chat equivalent either.
        let out = convert_request_value(
            &body,
            Format::Anthropic,
            Format::OpenaiChat,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(out.value["web_search_options"], json!({}));
        assert_eq!(
            codes_at(&out.losses, "/tools/1"),
            [(LossKind::Dropped, LossCode::ToolUnsupported)]
        );
    }

    #[test]
    fn a_same_format_round_trip_of_built_in_tools_is_exact_and_lossless() {
        let cases = [
            (
                Format::Anthropic,
                anthropic_request(json!([{
                    "type": "web_search_20250305", "name": "web_search", "max_uses": 2,
                    "blocked_domains": ["x.com"], "cache_control": {"type": "ephemeral"}
                }])),
            ),
            (
                Format::OpenaiChat,
                json!({
                    "model": "m",
                    "messages": [{"role": "user", "content": "Hi"}],
                    "web_search_options": {"search_context_size": "high"}
                }),
            ),
            (
                Format::OpenaiResponses,
                json!({"model": "m", "input": "Hi", "tools": [
                    {"type": "web_search_preview", "search_context_size": "low"},
                    {"type": "code_interpreter", "container": {"type": "auto", "memory_limit": "4g"}}
                ]}),
            ),
            (
                Format::Gemini,
                json!({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                       "tools": [{"googleSearch": {"timeRangeFilter": {"startTime": "2025-01-01T00:00:00Z"}}},
                                 {"codeExecution": {}}]}),
            ),
        ];
        for (f, body) in cases {
            let out = convert_request_value(&body, f, f, &Options::default()).unwrap();
            assert_eq!(out.value, body, "{f}");
            assert!(out.losses.is_empty(), "{f}: {:?}", out.losses);
        }
    }

    #[test]
    fn a_lost_setting_points_where_the_source_spelled_it() {
        let body = json!({
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [{"googleSearch": {"excludeDomains": ["x.com"]}}]
        });
        let out = convert_request_value(
            &body,
            Format::Gemini,
            Format::OpenaiResponses,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(out.value["tools"], json!([{"type": "web_search"}]));
        assert_eq!(
            codes_at(&out.losses, "/tools/0/googleSearch/excludeDomains"),
            [(LossKind::Dropped, LossCode::FieldUnsupported)],
            "{:?}",
            out.losses
        );
    }

    #[test]
    fn a_settings_field_without_equivalent_is_a_loss_of_its_own() {
        // Gemini's `timeRangeFilter` has no place in Anthropic's web search.
        let body = json!({
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [{"googleSearch": {"timeRangeFilter": {"startTime": "2025-01-01T00:00:00Z"}}}]
        });
        let out = convert_request_value(
            &body,
            Format::Gemini,
            Format::Anthropic,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            codes_at(&out.losses, "/tools/0/googleSearch/timeRangeFilter"),
            [(LossKind::Dropped, LossCode::FieldUnsupported)],
            "{:?}",
            out.losses
        );
    }

    fn gemini_code_execution() -> Value {
        json!({
            "candidates": [{
                "content": {"role": "model", "parts": [
                    {"executableCode": {"language": "PYTHON", "code": "print(1 + 1)\n"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n"}},
                    {"text": "It is 2."}
                ]},
                "finishReason": "STOP"
            }],
            "modelVersion": "gemini-2.5-flash"
        })
    }

    #[test]
    fn gemini_code_execution_becomes_anthropic_code_execution_blocks_and_back() {
        let opts = Options::default();
        let out = convert_response_value(
            &gemini_code_execution(),
            Format::Gemini,
            Format::Anthropic,
            &opts,
        )
        .unwrap();
        let content = &out.value["content"];
        assert_eq!(
            content[0],
            json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
                   "input": {"code": "print(1 + 1)\n"}})
        );
        assert_eq!(
            content[1],
            json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1",
                   "content": {"type": "code_execution_result", "stdout": "2\n", "stderr": "",
                               "return_code": 0, "content": []}})
        );
        for p in [
            "/candidates/0/content/parts/0",
            "/candidates/0/content/parts/1",
        ] {
            assert_eq!(
                codes_at(&out.losses, p),
                [(LossKind::Changed, LossCode::ToolMapped)]
            );
        }
        let back =
            convert_response_value(&out.value, Format::Anthropic, Format::Gemini, &opts).unwrap();
        let parts = &back.value["candidates"][0]["content"]["parts"];
        assert_eq!(
            parts[0],
            gemini_code_execution()["candidates"][0]["content"]["parts"][0]
        );
        assert_eq!(
            parts[1],
            gemini_code_execution()["candidates"][0]["content"]["parts"][1]
        );
    }

    #[test]
    fn gemini_code_execution_becomes_one_responses_code_interpreter_call() {
        let out = convert_response_value(
            &gemini_code_execution(),
            Format::Gemini,
            Format::OpenaiResponses,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            out.value["output"][0],
            json!({"type": "code_interpreter_call", "id": "ci_1", "status": "completed",
                   "code": "print(1 + 1)\n", "container_id": "",
                   "outputs": [{"type": "logs", "logs": "2\n"}]})
        );
        assert_eq!(out.value["output"][1]["type"], "message");
    }

    #[test]
    fn gemini_code_execution_in_ollama_is_its_code_and_output_as_text() {
        let out = convert_response_value(
            &gemini_code_execution(),
            Format::Gemini,
            Format::Ollama,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            out.value["message"]["content"],
            "[code_execution] ran:\n```python\nprint(1 + 1)\n```\n\
             [code_execution] result: OUTCOME_OK\noutput:\n```\n2\n```\nIt is 2."
        );
        for p in [
            "/candidates/0/content/parts/0",
            "/candidates/0/content/parts/1",
        ] {
            assert_eq!(
                codes_at(&out.losses, p),
                [(LossKind::Changed, LossCode::PartAsText)]
            );
        }
    }

    #[test]
    fn anthropic_web_search_becomes_one_responses_web_search_call_and_later_losses_point_right() {
        let body = json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "rust 2024 edition"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    {"type": "web_search_result", "title": "Rust 2024",
                     "url": "https://doc.rust-lang.org/edition-guide/",
                     "encrypted_content": "SECRET", "page_age": null}
                ]},
                {"type": "text", "text": "It shipped.", "citations": [
                    {"type": "web_search_result_location", "url": "https://doc.rust-lang.org/edition-guide/",
                     "title": "Rust 2024", "encrypted_index": "SECRET", "cited_text": "Rust 2024"}
                ]}
            ],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}
        });
        let out = convert_response_value(
            &body,
            Format::Anthropic,
            Format::OpenaiResponses,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            out.value["output"][0],
            json!({"type": "web_search_call", "id": "srvtoolu_1", "status": "completed",
                   "action": {"type": "search", "query": "rust 2024 edition",
                              "sources": [{"type": "url", "url": "https://doc.rust-lang.org/edition-guide/"}]}})
        );
        for p in ["/content/0", "/content/1"] {
            assert_eq!(
                codes_at(&out.losses, p),
                [(LossKind::Changed, LossCode::ToolMapped)]
            );
        }
        // Two parts became one item: the text's loss still names the text (2, not 1).
        assert_eq!(
            codes_at(&out.losses, "/content/2/citations"),
            [(LossKind::Dropped, LossCode::FieldUnsupported)],
            "{:?}",
            out.losses
        );
    }

    #[test]
    fn a_hosted_web_search_to_ollama_is_its_query_and_sources_as_text_not_nothing() {
        let body = json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "rust 2024 edition"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    {"type": "web_search_result", "title": "Rust 2024", "url": "https://doc.rust-lang.org/edition-guide/",
                     "encrypted_content": "SECRET", "page_age": null}
                ]},
                {"type": "text", "text": "It shipped."}
            ],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}
        });
        let out = convert_response_value(
            &body,
            Format::Anthropic,
            Format::Ollama,
            &Options::default(),
        )
        .unwrap();
        let text = out.value["message"]["content"].as_str().unwrap();
        assert!(
            text.contains("[web_search] searched for: rust 2024 edition"),
            "{text}"
        );
        assert!(
            text.contains("- Rust 2024 <https://doc.rust-lang.org/edition-guide/>"),
            "{text}"
        );
        assert!(!text.contains("SECRET"), "{text}");
        for p in ["/content/0", "/content/1"] {
            assert_eq!(
                codes_at(&out.losses, p),
                [(LossKind::Changed, LossCode::PartAsText)]
            );
        }
    }

    #[test]
    fn a_responses_web_search_call_becomes_its_queries_and_sources_as_text() {
        let o = crate::model::Opaque {
            format: Format::OpenaiResponses,
            value: json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
                "action": {"type": "search", "query": "q1",
                           "sources": [{"type": "url", "url": "https://a.example"}]}}),
            meta: Default::default(),
        };
        assert_eq!(
            super::hosted_text(&o).unwrap(),
            "[web_search] searched for: q1\n- <https://a.example>"
        );
        let code = crate::model::Opaque {
            format: Format::OpenaiResponses,
            value: json!({"type": "code_interpreter_call", "id": "ci_1", "code": "print(2)",
                "outputs": [{"type": "logs", "logs": "2\n"}], "status": "completed", "container_id": "c"}),
            meta: Default::default(),
        };
        assert_eq!(
            super::hosted_text(&code).unwrap(),
            "[code_interpreter] ran:\n```python\nprint(2)\n```\noutput:\n```\n2\n```"
        );
    }

    #[test]
    fn gemini_grounding_becomes_its_queries_and_sources_as_text_elsewhere() {
        let body = json!({
            "candidates": [{
                "content": {"role": "model", "parts": [{"text": "Cloudy."}]},
                "finishReason": "STOP",
                "groundingMetadata": {
                    "webSearchQueries": ["weather in London"],
                    "groundingChunks": [{"web": {"uri": "https://w.example/london", "title": "w.example"}}]
                }
            }],
            "modelVersion": "gemini-2.5-flash"
        });
        let opts = Options::default();
        let out = convert_response_value(&body, Format::Gemini, Format::Anthropic, &opts).unwrap();
        assert_eq!(
            out.value["content"][1]["text"],
            "[google_search] searched for: weather in London\nSources:\n- w.example <https://w.example/london>"
        );
        assert_eq!(
            codes_at(&out.losses, "/candidates/0/groundingMetadata"),
            [(LossKind::Changed, LossCode::PartAsText)]
        );
        let same = convert_response_value(&body, Format::Gemini, Format::Gemini, &opts).unwrap();
        assert_eq!(same.value, body);
        assert!(same.losses.is_empty(), "{:?}", same.losses);
    }
}
