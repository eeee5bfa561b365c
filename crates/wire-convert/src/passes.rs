//! Passes over the neutral model that every format shares.

use crate::model::{Message, Part};
use std::collections::HashMap;

/// Gives every tool result without a name the name of its call, when the call is in the
/// conversation (the name then survives pruning of the call).
pub fn resolve_result_names(messages: &mut [Message]) {
    // Which results need a name, and the name of their call: found while borrowing,
    // then assigned (only those names are copied).
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut wanted: Vec<(usize, usize, String)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for (j, p) in m.content.iter().enumerate() {
            match p {
                Part::ToolCall(c) => {
                    names.insert(c.id.as_str(), c.name.as_str());
                }
                Part::ToolResult(r) if r.name.is_none() => {
                    if let Some(n) = names.get(r.call_id.as_str()) {
                        wanted.push((i, j, (*n).to_owned()));
                    }
                }
                _ => {}
            }
        }
    }
    for (i, j, name) in wanted {
        if let Some(Part::ToolResult(r)) = messages.get_mut(i).and_then(|m| m.content.get_mut(j)) {
            r.name = Some(name);
        }
    }
}

/// Puts the results of each tool message in the order of the calls they answer (the
/// nearest assistant turn before it), so the same history always gives the same bytes
/// whatever order the tools finished in. A reordering is a `moved` loss.
pub(crate) fn order_results(messages: &mut [Message], ctx: &mut crate::Ctx<'_>) {
    // First find the tool messages whose results are out of order (borrowing only), then
    // sort those.
    let mut unsorted: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut calls: Option<usize> = None;
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            crate::model::Role::Assistant
                if m.content.iter().any(|p| matches!(p, Part::ToolCall(_))) =>
            {
                calls = Some(i);
            }
            crate::model::Role::Tool => {
                let Some(a) = calls else { continue };
                let ids: Vec<&str> = messages[a]
                    .content
                    .iter()
                    .filter_map(|p| match p {
                        Part::ToolCall(c) => Some(c.id.as_str()),
                        _ => None,
                    })
                    .collect();
                let ranks: Vec<usize> = m
                    .content
                    .iter()
                    .map(|p| match p {
                        Part::ToolResult(r) => ids
                            .iter()
                            .position(|c| *c == r.call_id)
                            .unwrap_or(usize::MAX),
                        _ => usize::MAX,
                    })
                    .collect();
                if ranks.windows(2).any(|w| w[0] > w[1]) {
                    unsorted.push((i, ranks));
                }
            }
            _ => {}
        }
    }
    for (i, ranks) in unsorted {
        let m = &mut messages[i];
        let mut ranked: Vec<(usize, Part)> = ranks
            .into_iter()
            .zip(std::mem::take(&mut m.content))
            .collect();
        ranked.sort_by_key(|(r, _)| *r);
        m.content = ranked.into_iter().map(|(_, p)| p).collect();
        ctx.loss(
            format!("/messages/{i}"),
            crate::LossKind::Moved,
            "tool results reordered into the order of their calls",
        );
    }
}

/// Wraps the arguments of calls to tools whose input schema is not an object as
/// `{"input": <arguments>}`, matching the schema every encoder exposes for them
/// (see [`crate::schema::wrap_non_object`]). A `changed` loss each.
pub(crate) fn wrap_non_object_calls(req: &mut crate::model::Request, ctx: &mut crate::Ctx<'_>) {
    let wrapped: Vec<String> = req
        .tools
        .iter()
        .filter_map(|t| match t {
            crate::model::Tool::Function(d) => d
                .input_schema
                .as_ref()
                .filter(|s| {
                    let s = match d.dialect {
                        crate::model::Dialect::GeminiOpenapi => crate::schema::from_gemini(s),
                        crate::model::Dialect::JsonSchema => (*s).clone(),
                    };
                    !crate::schema::is_object_schema(&s)
                })
                .map(|_| d.name.clone()),
            crate::model::Tool::Opaque(_) => None,
        })
        .collect();
    if wrapped.is_empty() {
        return;
    }
    for (i, m) in req.messages.iter_mut().enumerate() {
        for (j, p) in m.content.iter_mut().enumerate() {
            let Part::ToolCall(c) = p else { continue };
            if !wrapped.contains(&c.name) {
                continue;
            }
            let value = match c.arguments.value() {
                Some(serde_json::Value::Object(o)) if o.len() == 1 && o.contains_key("input") => {
                    continue;
                }
                Some(v) => v,
                None => serde_json::Value::String(c.arguments.text()),
            };
            c.arguments = crate::model::Arguments::Value(serde_json::json!({ "input": value }));
            ctx.loss(
                format!("/messages/{i}/content/{j}/arguments"),
                crate::LossKind::Changed,
                format!(
                    "`{}` takes a non-object input: its arguments are sent as {{\"input\": …}}",
                    c.name
                ),
            );
        }
    }
}
