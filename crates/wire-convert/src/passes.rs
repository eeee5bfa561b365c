//! Passes over the neutral model that every format shares.

use crate::model::{Message, Part};
use std::collections::HashMap;

/// Gives every tool result without a name the name of its call, when the call is in the
/// conversation (the name then survives pruning of the call).
pub fn resolve_result_names(messages: &mut [Message]) {
    let mut names: HashMap<String, String> = HashMap::new();
    for m in messages.iter() {
        for p in &m.content {
            if let Part::ToolCall(c) = p {
                names.insert(c.id.clone(), c.name.clone());
            }
        }
    }
    for m in messages.iter_mut() {
        for p in &mut m.content {
            if let Part::ToolResult(r) = p {
                if r.name.is_none() {
                    r.name = names.get(&r.call_id).cloned();
                }
            }
        }
    }
}

/// Puts the results of each tool message in the order of the calls they answer (the
/// nearest assistant turn before it), so the same history always gives the same bytes
/// whatever order the tools finished in. A reordering is a `moved` loss.
pub(crate) fn order_results(messages: &mut [Message], ctx: &mut crate::Ctx<'_>) {
    let mut calls: Vec<String> = Vec::new();
    for (i, m) in messages.iter_mut().enumerate() {
        match m.role {
            crate::model::Role::Assistant => {
                let ids: Vec<String> = m
                    .content
                    .iter()
                    .filter_map(|p| match p {
                        Part::ToolCall(c) => Some(c.id.clone()),
                        _ => None,
                    })
                    .collect();
                if !ids.is_empty() {
                    calls = ids;
                }
            }
            crate::model::Role::Tool => {
                let rank = |p: &Part| match p {
                    Part::ToolResult(r) => calls
                        .iter()
                        .position(|c| *c == r.call_id)
                        .unwrap_or(usize::MAX),
                    _ => usize::MAX,
                };
                let before: Vec<usize> = m.content.iter().map(rank).collect();
                if before.windows(2).any(|w| w[0] > w[1]) {
                    m.content.sort_by_key(rank);
                    ctx.loss(
                        format!("/messages/{i}"),
                        crate::LossKind::Moved,
                        "tool results reordered into the order of their calls",
                    );
                }
            }
            _ => {}
        }
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
