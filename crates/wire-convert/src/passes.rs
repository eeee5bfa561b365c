//! Passes over the neutral model that every format shares.

use crate::model::{Message, Part};
use std::collections::HashMap;

/// Gives every tool result without a name the name of its call, when the call is in the
/// conversation (the name then survives pruning of the call).
pub fn resolve_result_names(messages: &mut [Message]) {
    let wanted = result_names(messages);
    for (i, j, name) in wanted {
        if let Some(Part::ToolResult(r)) = messages.get_mut(i).and_then(|m| m.content.get_mut(j)) {
            r.name = Some(name);
        }
    }
}

/// The results that need a name and the name of their call (the latest call with that
/// id before the result): found while borrowing, so only those names are copied.
///
/// A result's call is nearly always in the latest message with calls, which is
/// searched first; the other calls are indexed only when a result looks further back
/// (each call at most once, so the pass stays linear).
fn result_names(messages: &[Message]) -> Vec<(usize, usize, String)> {
    let mut latest: Option<usize> = None;
    let mut index: HashMap<&str, &str> = HashMap::new();
    // Every call before this (message, part) position is in `index`.
    let mut indexed = (0, 0);
    let mut wanted = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for (j, p) in m.content.iter().enumerate() {
            match p {
                Part::ToolCall(_) => latest = Some(i),
                Part::ToolResult(r) if r.name.is_none() => {
                    let id = r.call_id.as_str();
                    let near = latest.and_then(|l| {
                        let parts = &messages[l].content;
                        let upto = if l == i { j } else { parts.len() };
                        parts[..upto].iter().rev().find_map(|p| match p {
                            Part::ToolCall(c) if c.id == id => Some(c.name.as_str()),
                            _ => None,
                        })
                    });
                    let name = near.or_else(|| {
                        index_calls(messages, &mut index, &mut indexed, (i, j));
                        index.get(id).copied()
                    });
                    if let Some(n) = name {
                        wanted.push((i, j, n.to_owned()));
                    }
                }
                _ => {}
            }
        }
    }
    wanted
}

/// Adds the calls from position `from` up to (not including) `to` to `index`, a later
/// call replacing an earlier one with the same id.
fn index_calls<'m>(
    messages: &'m [Message],
    index: &mut HashMap<&'m str, &'m str>,
    from: &mut (usize, usize),
    to: (usize, usize),
) {
    while *from < to {
        let (i, j) = *from;
        match messages.get(i).map(|m| m.content.get(j)) {
            Some(Some(p)) => {
                if let Part::ToolCall(c) = p {
                    index.insert(c.id.as_str(), c.name.as_str());
                }
                *from = (i, j + 1);
            }
            Some(None) => *from = (i + 1, 0),
            None => break,
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
                let rank = |p: &Part| match p {
                    Part::ToolResult(r) => messages[a]
                        .content
                        .iter()
                        .filter_map(|p| match p {
                            Part::ToolCall(c) => Some(c.id.as_str()),
                            _ => None,
                        })
                        .position(|c| c == r.call_id)
                        .unwrap_or(usize::MAX),
                    _ => usize::MAX,
                };
                let mut ranks = m.content.iter().map(rank);
                let mut prev = ranks.next().unwrap_or(0);
                let sorted = ranks.all(|r| {
                    let ok = prev <= r;
                    prev = r;
                    ok
                });
                if !sorted {
                    unsorted.push((i, m.content.iter().map(rank).collect()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Arguments, Role, ToolCall, ToolResult};

    fn call(id: &str, name: &str) -> Part {
        Part::ToolCall(ToolCall {
            id: id.into(),
            synthetic_id: false,
            name: name.into(),
            arguments: Arguments::Text("{}".into()),
            meta: Default::default(),
        })
    }

    fn result(id: &str) -> Part {
        Part::ToolResult(ToolResult {
            call_id: id.into(),
            name: None,
            content: vec![Part::text("ok")],
            is_error: false,
            meta: Default::default(),
        })
    }

    fn names(messages: &[Message]) -> Vec<Option<&str>> {
        messages
            .iter()
            .flat_map(|m| &m.content)
            .filter_map(|p| match p {
                Part::ToolResult(r) => Some(r.name.as_deref()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn result_names_come_from_the_latest_earlier_call_with_that_id_wherever_it_is() {
        let mut messages = vec![
            Message::new(
                Role::Assistant,
                vec![call("a", "first_a"), call("b", "bee")],
            ),
            Message::new(Role::Assistant, vec![call("c", "sea")]),
            // `a` answered two assistant messages later: found through the index.
            Message::new(Role::Tool, vec![result("c"), result("a"), result("zzz")]),
            // The same id called again: the later call names the later result.
            Message::new(Role::Assistant, vec![call("a", "second_a")]),
            Message::new(Role::Tool, vec![result("a"), result("b")]),
            // A result before its call (in the same message) gets no name from it.
            Message::new(Role::Tool, vec![result("d"), call("d", "late")]),
        ];
        resolve_result_names(&mut messages);
        assert_eq!(
            names(&messages),
            [
                Some("sea"),
                Some("first_a"),
                None,
                Some("second_a"),
                Some("bee"),
                None
            ]
        );
    }

    #[test]
    fn a_result_that_already_has_a_name_keeps_it() {
        let mut named = result("a");
        if let Part::ToolResult(r) = &mut named {
            r.name = Some("own".into());
        }
        let mut messages = vec![
            Message::new(Role::Assistant, vec![call("a", "from_call")]),
            Message::new(Role::Tool, vec![named]),
        ];
        resolve_result_names(&mut messages);
        assert_eq!(names(&messages), [Some("own")]);
    }
}
