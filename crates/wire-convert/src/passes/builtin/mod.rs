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

mod response;
#[cfg(test)]
mod tests;

pub(crate) use response::{grounding_as_text, hosted_parts, hosted_text, renumber};
