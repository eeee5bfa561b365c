//! Tool results: named after their calls, put in the order of their calls, and their
//! error flag written as an `Error: ` prefix where the target has none.

use crate::model::{Message, Part};
use crate::util::SmallMap;
use crate::{Ctx, Format, LossCode};
use std::collections::HashMap;
use wire_types::TextOrParts;

/// The loss of a tool result's error flag (at `at`) for `format`, which has none on
/// tool results: the text says it instead, prefixed `Error: `.
pub(crate) fn error_flag_lost(format: Format, at: &str, ctx: &mut Ctx<'_>) {
    ctx.changed(
        LossCode::PartChanged,
        format!("{at}/is_error"),
        format!("{format} has no error flag on tool results: the text is prefixed `Error: `"),
    );
}

/// Prefixes a failed result's text `Error: `, unless it already says so (no
/// `Error: Error: …`).
pub(crate) fn prefix_error(text: &mut String) {
    if !text.starts_with("Error:") {
        text.insert_str(0, "Error: ");
    }
}

/// A failed tool result's content with its first text prefixed `Error: `
/// ([`prefix_error`]), or an `Error: ` text first when it has none: `text_of` gives an
/// item's text when it is a text, `item` makes a text item.
pub(crate) fn error_prefixed<T>(
    content: Option<TextOrParts<T>>,
    text_of: impl FnOnce(&mut T) -> Option<&mut String>,
    item: impl FnOnce(String) -> T,
) -> TextOrParts<T> {
    match content {
        None => TextOrParts::Text("Error: ".to_owned()),
        Some(TextOrParts::Text(mut t)) => {
            prefix_error(&mut t);
            TextOrParts::Text(t)
        }
        Some(TextOrParts::Parts(mut p)) => {
            match p.first_mut().and_then(text_of) {
                Some(t) => prefix_error(t),
                None => p.insert(0, item("Error: ".to_owned())),
            }
            TextOrParts::Parts(p)
        }
    }
}

/// A tool result's content for a target with no error flag on tool results: a failed
/// result's with its first text prefixed `Error: ` ([`error_prefixed`]), and the loss of
/// the flag ([`error_flag_lost`]).
pub(crate) fn error_as_text<T: crate::util::TextItem>(
    content: Option<TextOrParts<T>>,
    is_error: bool,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<TextOrParts<T>> {
    if !is_error {
        return content;
    }
    error_flag_lost(ctx.format, at, ctx);
    Some(error_prefixed(content, T::text_mut, T::text))
}

/// Gives every tool result without a name the name of its call, when the call is in the
/// conversation (the name then survives pruning of the call).
pub(crate) fn resolve_result_names(messages: &mut [Message]) {
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
/// A result's call is nearly always in the latest message with calls, which is looked
/// up first (its calls so far in a map, rebuilt as each message with calls begins); the
/// other calls are indexed only when a result looks further back. Each call is put in
/// each map at most once, so the pass stays linear however many calls and results a
/// message holds.
fn result_names(messages: &[Message]) -> Vec<(usize, usize, String)> {
    // The calls of the latest message with calls, up to the current position.
    let mut latest: Option<usize> = None;
    let mut near: SmallMap<&str> = SmallMap::new();
    let mut index: HashMap<&str, &str> = HashMap::new();
    // Every call before this (message, part) position is in `index`.
    let mut indexed = (0, 0);
    let mut wanted = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for (j, p) in m.content.iter().enumerate() {
            match p {
                Part::ToolCall(c) => {
                    if latest != Some(i) {
                        latest = Some(i);
                        near.clear();
                    }
                    near.insert(c.id.as_str(), c.name.as_str(), false);
                }
                Part::ToolResult(r) if r.name.is_none() => {
                    let id = r.call_id.as_str();
                    let name = near.get(id).or_else(|| {
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
    // The position of each call id in the assistant turn `calls` (its first call with
    // that id), built once per turn when a tool message needs it.
    let mut ranks: Option<(usize, SmallMap<usize>)> = None;
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            crate::model::Role::Assistant
                if m.content.iter().any(|p| matches!(p, Part::ToolCall(_))) =>
            {
                calls = Some(i);
            }
            crate::model::Role::Tool => {
                let Some(a) = calls else { continue };
                if ranks.as_ref().is_none_or(|(at, _)| *at != a) {
                    let mut by_id = SmallMap::new();
                    let ids = messages[a].content.iter().filter_map(|p| match p {
                        Part::ToolCall(c) => Some(c.id.as_str()),
                        _ => None,
                    });
                    for (n, id) in ids.enumerate() {
                        by_id.insert(id, n, true);
                    }
                    ranks = Some((a, by_id));
                }
                let Some((_, by_id)) = &ranks else { continue };
                let rank = |p: &Part| match p {
                    Part::ToolResult(r) => by_id.get(r.call_id.as_str()).unwrap_or(usize::MAX),
                    _ => usize::MAX,
                };
                let mut in_order = m.content.iter().map(rank);
                let mut prev = in_order.next().unwrap_or(0);
                let sorted = in_order.all(|r| {
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
    drop(ranks);
    for (i, ranks) in unsorted {
        let m = &mut messages[i];
        let mut ranked: Vec<(usize, Part)> = ranks
            .into_iter()
            .zip(std::mem::take(&mut m.content))
            .collect();
        ranked.sort_by_key(|(r, _)| *r);
        m.content = ranked.into_iter().map(|(_, p)| p).collect();
        ctx.moved(
            crate::LossCode::ResultsReordered,
            format!("/messages/{i}"),
            "tool results reordered into the order of their calls",
        );
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
