//! Tool names the target rejects, rewritten by the target's [`NameRule`] in tool
//! definitions, calls, results and tool choice alike (one `changed` loss per name, at its
//! definition); and the reverse, restoring a client's names in a response with the
//! request's [`NameMap`].

use crate::model::{Message, Part, Request, Response, Tool, ToolChoice};
use crate::{Ctx, LossCode, NameMap, NameRule};
use std::ops::ControlFlow;

/// Where a tool name is used: a tool definition, a part of a message, the tool choice.
/// Its pointer is written only when a loss needs it (most requests need none).
#[derive(Clone, Copy)]
enum Use {
    Tool(usize),
    Part(usize, usize),
    Choice,
}

impl std::fmt::Display for Use {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Use::Tool(k) => write!(f, "/tools/{k}"),
            Use::Part(i, j) => write!(f, "/messages/{i}/content/{j}"),
            Use::Choice => f.write_str("/tool_choice"),
        }
    }
}

/// Calls `f` with every tool name of a request and the neutral place of the item that
/// uses it (the tool, the part, the tool choice), definitions first, so a name's loss
/// points at its definition when it has one; stops when `f` says so.
fn visit<'r>(req: &'r Request, mut f: impl FnMut(&'r str, Use) -> ControlFlow<()>) {
    let mut go = || {
        for (k, t) in req.tools.iter().enumerate() {
            if let Tool::Function(d) = t {
                f(d.name.as_str(), Use::Tool(k))?;
            }
        }
        for (i, m) in req.messages.iter().enumerate() {
            for (j, p) in m.content.iter().enumerate() {
                match p {
                    Part::ToolCall(c) => f(c.name.as_str(), Use::Part(i, j))?,
                    Part::ToolResult(r) => {
                        if let Some(n) = &r.name {
                            f(n.as_str(), Use::Part(i, j))?;
                        }
                    }
                    _ => {}
                }
            }
        }
        match &req.tool_choice {
            Some(ToolChoice::Tool { name }) => f(name.as_str(), Use::Choice)?,
            Some(ToolChoice::Allowed { names, .. }) => {
                for n in names {
                    f(n.as_str(), Use::Choice)?;
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    };
    let _ = go();
}

/// Every tool name of a request with the place that uses it ([`visit`]).
fn collect(req: &Request) -> Vec<(&str, Use)> {
    let mut out = Vec::new();
    visit(req, |name, at| {
        out.push((name, at));
        ControlFlow::Continue(())
    });
    out
}

/// Whether `rule` accepts every tool name of `req`. A transcript names a handful of
/// tools thousands of times: a name equal to one of the last few accepted is not
/// checked again.
fn all_accepted(req: &Request, rule: NameRule) -> bool {
    let mut recent: [&str; 4] = [""; 4];
    let mut next = 0;
    let mut ok = true;
    visit(req, |name, _| {
        if !name.is_empty() && recent.contains(&name) {
            return ControlFlow::Continue(());
        }
        if !rule.accepts(name) {
            ok = false;
            return ControlFlow::Break(());
        }
        recent[next] = name;
        next = (next + 1) % recent.len();
        ControlFlow::Continue(())
    });
    ok
}

fn rename(name: &mut String, map: &NameMap) {
    let new = map.get(name);
    if new != name {
        *name = new.to_owned();
    }
}

/// Rewrites the tool names of a request for `ctx.format`; returns the table.
pub(crate) fn map_request(req: &mut Request, ctx: &mut Ctx<'_>) -> NameMap {
    let rule = NameRule::of(ctx.format);
    if all_accepted(req, rule) {
        return NameMap::default();
    }
    let uses = collect(req);
    let map = NameMap::build(rule, uses.iter().map(|(n, _)| *n));
    let mut reported = std::collections::HashSet::new();
    for (name, at) in &uses {
        let new = map.get(name);
        if new != *name && reported.insert(*name) {
            ctx.changed(
                LossCode::NameRewritten,
                at.to_string(),
                format!(
                    "tool name `{name}` is not valid for {} ({}); written as `{new}` in definitions, calls, results and tool choice (the conversion's name map restores it)",
                    ctx.format,
                    rule.describe()
                ),
            );
        }
    }
    drop(uses);
    for t in &mut req.tools {
        if let Tool::Function(d) = t {
            rename(&mut d.name, &map);
        }
    }
    for m in &mut req.messages {
        rename_parts(m, &map);
    }
    match &mut req.tool_choice {
        Some(ToolChoice::Tool { name }) => rename(name, &map),
        Some(ToolChoice::Allowed { names, .. }) => {
            for n in names {
                rename(n, &map);
            }
        }
        _ => {}
    }
    map
}

fn rename_parts(m: &mut Message, map: &NameMap) {
    for p in &mut m.content {
        match p {
            Part::ToolCall(c) => rename(&mut c.name, map),
            Part::ToolResult(r) => {
                if let Some(n) = &mut r.name {
                    rename(n, map);
                }
            }
            _ => {}
        }
    }
}

/// The source's name for a target's tool name, by `map` (itself when it was not
/// rewritten).
pub(crate) fn restore(name: &mut String, map: &NameMap) {
    let old = map.reverse(name);
    if old != name {
        *name = old.to_owned();
    }
}

/// Restores the source's tool names in a response's calls (and results) by `map`, the
/// name map of the request conversion. Restoring twice changes nothing: a rewritten name
/// is never another tool's original name.
pub(crate) fn restore_response(resp: &mut Response, map: &NameMap) {
    if map.is_empty() {
        return;
    }
    for c in &mut resp.choices {
        for p in &mut c.message.content {
            match p {
                Part::ToolCall(c) => restore(&mut c.name, map),
                Part::ToolResult(r) => {
                    if let Some(n) = &mut r.name {
                        restore(n, map);
                    }
                }
                _ => {}
            }
        }
    }
}
