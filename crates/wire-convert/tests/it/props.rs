//! Properties of the conversions.
//!
//! * `neutral_to_format_and_back_keeps_the_conversation`: for arbitrary neutral
//!   conversations (canonical: system first, roles alternating, calls answered), encoding
//!   to each format and decoding back keeps every text, call and result, except where the
//!   loss report says otherwise.
//! * `id_mapping_is_injective_and_stable`: rewritten ids obey the target rule, never
//!   collide, and the same ids always map the same way.
//! * `a_to_b_to_a_keeps_calls_results_and_text`: for every request fixture of format A and
//!   every format B, A → B → A keeps every tool call, result and text of A.

use crate::support::{Body, fixtures, read_json};
use proptest::prelude::*;
use serde_json::{Value, json};
use wire_convert::model::{
    Arguments, Message, Part, Request, Role, Tool, ToolCall, ToolDef, ToolResult,
};
use wire_convert::{Format, Loss, Options};
use wire_convert::{IdMap, IdRule};

/// What must survive: texts per role, calls (name, arguments), results (call, text, error).
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Text(Role, String),
    Call(String, String, Value),
    Result(String, String, bool),
}

fn projection(req: &Request, ids: Option<&IdMap>) -> Vec<Item> {
    let back = |id: &str| {
        ids.map(|m| m.reverse(id).to_owned())
            .unwrap_or_else(|| id.to_owned())
    };
    let mut out = Vec::new();
    for m in &req.messages {
        let role = if m.role == Role::Developer {
            Role::System
        } else {
            m.role
        };
        for p in &m.content {
            match p {
                Part::Text(t) if !t.text.is_empty() => out.push(Item::Text(role, t.text.clone())),
                Part::ToolCall(c) => out.push(Item::Call(
                    back(&c.id),
                    c.name.clone(),
                    c.arguments.value().unwrap_or(Value::Null),
                )),
                Part::ToolResult(r) => {
                    let text: String = r
                        .content
                        .iter()
                        .map(|p| match p {
                            Part::Text(t) => t.text.clone(),
                            Part::Json(j) => j.value.to_string(),
                            _ => String::new(),
                        })
                        .collect();
                    out.push(Item::Result(back(&r.call_id), text, r.is_error))
                }
                _ => {}
            }
        }
    }
    // Texts of one role in a row are one text to every format that joins parts.
    let mut merged: Vec<Item> = Vec::new();
    for item in out {
        match (merged.last_mut(), &item) {
            (Some(Item::Text(r1, t1)), Item::Text(r2, t2)) if r1 == r2 => t1.push_str(t2),
            _ => merged.push(item),
        }
    }
    merged
}

/// Drops the items a loss covers: a `changed`/`dropped` loss under a message part.
fn without_lost(items: Vec<Item>, req: &Request, losses: &[Loss]) -> Vec<Item> {
    let lost_ids: Vec<String> = req
        .messages
        .iter()
        .enumerate()
        .flat_map(|(i, m)| m.content.iter().enumerate().map(move |(j, p)| (i, j, p)))
        .filter(|(i, j, _)| {
            losses
                .iter()
                .any(|l| l.path.starts_with(&format!("/messages/{i}/content/{j}")))
        })
        .filter_map(|(_, _, p)| match p {
            Part::ToolCall(c) => Some(c.id.clone()),
            Part::ToolResult(r) => Some(r.call_id.clone()),
            _ => None,
        })
        .collect();
    items
        .into_iter()
        .filter(|i| match i {
            Item::Call(id, ..) | Item::Result(id, ..) => !lost_ids.contains(id),
            Item::Text(..) => true,
        })
        .collect()
}

fn word() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9 ,.!?'-]{0,30}"
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z_]{2,12}"
}

fn args() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(
        "[a-z]{1,6}",
        prop_oneof![
            word().prop_map(Value::from),
            (0i64..1000).prop_map(Value::from),
            any::<bool>().prop_map(Value::from)
        ],
        0..4,
    )
    .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// A canonical conversation: a system message, then user / assistant turns, some with
/// parallel calls answered in one tool message, ending with a user message.
fn conversation() -> impl Strategy<Value = Request> {
    let turn = (
        word(),
        prop::option::of(word()),
        prop::collection::vec((name(), args(), word()), 0..3),
    );
    (word(), prop::collection::vec(turn, 1..4), word()).prop_map(|(system, turns, last)| {
        let mut messages = vec![Message::text(Role::System, system)];
        let mut tools: Vec<String> = Vec::new();
        let mut n = 0;
        for (user, answer, calls) in turns {
            messages.push(Message::text(Role::User, user));
            let mut assistant = Vec::new();
            if let Some(a) = answer {
                assistant.push(Part::text(a));
            }
            let mut results = Vec::new();
            for (tool, a, out) in calls {
                n += 1;
                let id = format!("call_{n}abc");
                assistant.push(Part::ToolCall(ToolCall {
                    id: id.clone(),
                    synthetic_id: false,
                    name: tool.clone(),
                    arguments: Arguments::Value(a),
                    meta: Default::default(),
                }));
                results.push(Part::ToolResult(ToolResult {
                    call_id: id,
                    name: Some(tool.clone()),
                    content: vec![Part::text(out)],
                    is_error: false,
                    meta: Default::default(),
                }));
                if !tools.contains(&tool) {
                    tools.push(tool);
                }
            }
            if assistant.is_empty() {
                assistant.push(Part::text("ok"));
            }
            messages.push(Message::new(Role::Assistant, assistant));
            if !results.is_empty() {
                messages.push(Message::new(Role::Tool, results));
                messages.push(Message::new(Role::Assistant, vec![Part::text("done")]));
            }
        }
        messages.push(Message::text(Role::User, last));
        Request {
            model: Some("m".into()),
            messages,
            tools: tools
                .into_iter()
                .map(|t| {
                    Tool::Function(ToolDef::new(
                        t,
                        "a tool",
                        json!({"type": "object", "properties": {}}),
                    ))
                })
                .collect(),
            settings: wire_convert::model::Settings {
                max_tokens: Some(100),
                ..Default::default()
            },
            ..Default::default()
        }
    })
}

/// What must survive, and what did.
type WantGot = (Vec<Item>, Vec<Item>);

fn round_trip(req: &Request, format: Format) -> Result<Option<WantGot>, String> {
    let encoded = match wire_convert::encode_request_value(req.clone(), format, &Options::default())
    {
        Err(e) => return Err(format!("encode: {e}")),
        Ok(c) => c,
    };
    let text = serde_json::to_string(&encoded.value).unwrap();
    let decoded = wire_convert::decode_request(&text, format, &Options::default())
        .map_err(|e| format!("decode: {e}: {text}"))?;
    let want = without_lost(projection(req, None), req, &encoded.losses);
    let got = projection(&decoded.value, Some(&encoded.ids));
    let got: Vec<Item> = got
        .into_iter()
        .filter(|i| {
            want.iter()
                .any(|w| std::mem::discriminant(w) == std::mem::discriminant(i))
                || matches!(i, Item::Text(..))
        })
        .collect();
    Ok(Some((want, got)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: test_support::proptest_cases(48), ..ProptestConfig::default() })]

    #[test]
    fn neutral_to_format_and_back_keeps_the_conversation(req in conversation()) {
        for format in Format::CHAT {
            match round_trip(&req, format) {
                Ok(None) => {}
                Ok(Some((want, got))) => prop_assert_eq!(want, got, "{}", format),
                Err(e) => prop_assert!(false, "{}: {}", format, e),
            }
        }
    }

    #[test]
    fn id_mapping_is_injective_and_stable(ids in prop::collection::vec("[ -~]{0,80}", 1..12)) {
        for rule in [IdRule::Nine, IdRule::Safe { max: None }, IdRule::Safe { max: Some(64) }, IdRule::Any] {
            let a = IdMap::build(rule, ids.iter().map(String::as_str));
            let b = IdMap::build(rule, ids.iter().map(String::as_str));
            prop_assert_eq!(&a, &b);
            let mut seen = std::collections::HashMap::new();
            for id in &ids {
                let t = a.get(id);
                prop_assert!(rule.accepts(t), "{:?} → {:?} breaks {:?}", id, t, rule);
                if let Some(prev) = seen.insert(t.to_owned(), id.clone()) {
                    prop_assert_eq!(&prev, id, "two ids map to {}", t);
                }
                prop_assert_eq!(a.reverse(t), id.as_str());
            }
        }
    }
}

#[test]
fn a_to_b_to_a_keeps_calls_results_and_text() {
    let mut failures = Vec::new();
    for (a, path) in fixtures(Body::Request) {
        let input = read_json(&path);
        let Ok(original) = wire_convert::decode_request(&input.to_string(), a, &Options::default())
        else {
            continue;
        };
        for b in Format::CHAT {
            let there = match wire_convert::convert_request_value(&input, a, b, &Options::default())
            {
                Err(e) => {
                    failures.push(format!("{} → {b}: {e}", path.display()));
                    continue;
                }
                Ok(c) => c,
            };
            let back = match wire_convert::convert_request_value(
                &there.value,
                b,
                a,
                &Options::default(),
            ) {
                Err(e) => {
                    failures.push(format!("{} → {b} → {a}: {e}", path.display()));
                    continue;
                }
                Ok(c) => c,
            };
            let again =
                wire_convert::decode_request(&back.value.to_string(), a, &Options::default())
                    .unwrap()
                    .value;
            // Calls and results, by id and name (mapped back through both conversions'
            // id and name maps). An id the decoder made up (Gemini, Ollama) is derived from
            // the call's name, which a target may rewrite: such ids compare by position.
            let ids_back = |id: &str| there.ids.reverse(back.ids.reverse(id)).to_owned();
            let names_back = |n: &str| there.names.reverse(back.names.reverse(n)).to_owned();
            let by_position = original
                .value
                .messages
                .iter()
                .flat_map(|m| &m.content)
                .any(|p| matches!(p, Part::ToolCall(c) if c.synthetic_id));
            let synthetic = |r: &Request| -> std::collections::HashMap<String, String> {
                r.messages
                    .iter()
                    .flat_map(|m| &m.content)
                    .filter_map(|p| match p {
                        Part::ToolCall(c) if by_position => Some(c.id.clone()),
                        _ => None,
                    })
                    .enumerate()
                    .map(|(k, id)| (id, format!("<call {k}>")))
                    .collect()
            };
            let calls = |r: &Request, map: &dyn Fn(&str) -> String| -> Vec<(String, String)> {
                let syn = synthetic(r);
                let id = |i: &str| syn.get(i).cloned().unwrap_or_else(|| map(i));
                r.messages
                    .iter()
                    .flat_map(|m| &m.content)
                    .filter_map(|p| match p {
                        Part::ToolCall(c) => Some((id(&c.id), names_back(&c.name))),
                        _ => None,
                    })
                    .collect()
            };
            let results = |r: &Request, map: &dyn Fn(&str) -> String| -> Vec<String> {
                let syn = synthetic(r);
                let id = |i: &str| syn.get(i).cloned().unwrap_or_else(|| map(i));
                r.messages
                    .iter()
                    .flat_map(|m| &m.content)
                    .filter_map(|p| match p {
                        Part::ToolResult(x) => Some(id(&x.call_id)),
                        _ => None,
                    })
                    .collect()
            };
            let texts = |r: &Request| -> String {
                r.messages
                    .iter()
                    .flat_map(|m| &m.content)
                    .filter_map(|p| match p {
                        Part::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("")
            };
            let ident = |id: &str| id.to_owned();
            let (c0, c1) = (calls(&original.value, &ident), calls(&again, &ids_back));
            let (r0, r1) = (results(&original.value, &ident), results(&again, &ids_back));
            if c0 != c1 {
                failures.push(format!(
                    "{} → {b} → {a}: calls {c0:?} became {c1:?}",
                    path.display()
                ));
            }
            let mut r0s = r0.clone();
            let mut r1s = r1.clone();
            r0s.sort();
            r1s.sort();
            if r0s != r1s {
                failures.push(format!(
                    "{} → {b} → {a}: results {r0:?} became {r1:?}",
                    path.display()
                ));
            }
            // Every text of the original is still there (formats may join or split texts,
            // prefix `Error: `, or turn an unknown part into text: containment, not equality).
            let t1 = texts(&again);
            for m in &original.value.messages {
                for p in &m.content {
                    if let Part::Text(t) = p {
                        if !t.text.is_empty()
                            && !t1.contains(&t.text)
                            && !there
                                .losses
                                .iter()
                                .chain(&back.losses)
                                .any(|l| l.detail.contains("text"))
                        {
                            failures.push(format!(
                                "{} → {b} → {a}: text lost: {}",
                                path.display(),
                                t.text.chars().take(60).collect::<String>()
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
