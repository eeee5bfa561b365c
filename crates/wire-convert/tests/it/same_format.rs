//! `A → neutral → A` gives back exactly what `A` said, with no loss: the neutral model
//! carries everything a format can say.

use crate::support::{Body, first_difference, fixtures, loss_lines, read_json};
use serde_json::Value;
use wire_convert::{
    Options, convert_request, convert_request_value, convert_response, convert_response_value,
};

/// The keys whose values keep the key order they arrived in (`preserve_order`): tool
/// arguments and JSON Schemas, which providers replay and hash.
const ORDERED: &[&str] = &[
    "input",
    "arguments",
    "args",
    "input_schema",
    "inputSchema",
    "parameters",
    "parametersJsonSchema",
    "schema",
    "responseJsonSchema",
];

/// Where a value under an [`ORDERED`] key is written with its keys in another order
/// than it came: compared as written text (`Value` equality ignores order). Only
/// objects count (Responses' `input` is the list of items, whose fields are known).
fn order_difference(input: &Value, output: &Value, at: &str) -> Option<String> {
    match input {
        Value::Object(m) => m.iter().find_map(|(k, v)| {
            let here = format!("{at}/{k}");
            let out = output.get(k)?;
            if ORDERED.contains(&k.as_str()) && v.is_object() {
                let (a, b) = (v.to_string(), out.to_string());
                if a != b {
                    return Some(format!("{here}: input {a} vs output {b}"));
                }
            }
            order_difference(v, out, &here)
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| order_difference(v, output.get(i)?, &format!("{at}/{i}"))),
        _ => None,
    }
}

fn check(body: Body) {
    let mut failures = Vec::new();
    for (format, path) in fixtures(body) {
        let text = std::fs::read_to_string(&path).unwrap();
        let input = read_json(&path);
        let name = path
            .strip_prefix(crate::support::fixtures_dir())
            .unwrap()
            .display()
            .to_string();
        let options = Options::default();
        let (value, text_out) = match body {
            Body::Request => (
                convert_request_value(&input, format, format, &options),
                convert_request(&text, format, format, &options),
            ),
            Body::Response => (
                convert_response_value(&input, format, format, &options),
                convert_response(&text, format, format, &options),
            ),
        };
        match (value, text_out) {
            (Err(e), _) | (_, Err(e)) => failures.push(format!("{name}: {e}")),
            (Ok(c), Ok(t)) => {
                if let Some(d) = first_difference(&input, &c.value) {
                    failures.push(format!("{name}: differs at {d}"));
                }
                // Arguments and schemas keep their key order: compared as text, on the
                // text path and the `Value` path alike.
                let written: Value = serde_json::from_str(&t.value).unwrap();
                for out in [&c.value, &written] {
                    if let Some(d) = order_difference(&input, out, "") {
                        failures.push(format!("{name}: key order differs at {d}"));
                    }
                }
                if first_difference(&input, &written).is_some() {
                    failures.push(format!("{name}: the text path writes another body"));
                }
                if !c.losses.is_empty() {
                    failures.push(format!(
                        "{name}: losses in a same-format round trip:\n{}",
                        loss_lines(&c.losses).collect::<Vec<_>>().join("\n")
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_request_fixture_round_trips_through_the_neutral_model() {
    check(Body::Request);
}

#[test]
fn every_response_fixture_round_trips_through_the_neutral_model() {
    check(Body::Response);
}

#[test]
fn openai_chat_choice_defaults_and_their_exceptions_round_trip() {
    // What the decoder does not record (role `assistant`, `index` = position,
    // `logprobs: null`, a usage details object with a count in it) comes back by default;
    // an absent field or another value is kept.
    let choice = |i: usize, extra: serde_json::Value| {
        let mut c = serde_json::json!({
            "message": {"role": "assistant", "content": "hi", "refusal": null},
            "finish_reason": "stop"
        });
        for (k, v) in extra.as_object().unwrap() {
            if k == "role" {
                c["message"]["role"] = v.clone();
            } else {
                c[k] = v.clone();
            }
        }
        if extra.get("index").is_none() && extra.get("no_index").is_none() {
            c["index"] = serde_json::json!(i);
        }
        c.as_object_mut().unwrap().remove("no_index");
        c
    };
    let mut no_role = choice(1, serde_json::json!({"logprobs": null}));
    no_role["message"].as_object_mut().unwrap().remove("role");
    let input = serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            choice(0, serde_json::json!({"logprobs": null})),
            no_role,
            choice(2, serde_json::json!({"index": 7, "logprobs": null})),
            choice(3, serde_json::json!({"no_index": true, "logprobs": null})),
            choice(4, serde_json::json!({})),
            choice(5, serde_json::json!({"logprobs": {"content": []}})),
        ],
        // An empty details object comes back (a hint), one with a count is rebuilt.
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": 2,
            "total_tokens": 3,
            "prompt_tokens_details": {},
            "completion_tokens_details": {"reasoning_tokens": 0}
        }
    });
    assert!(input["choices"][1]["message"].get("role").is_none());
    assert!(input["choices"][3].get("index").is_none());
    assert!(input["choices"][4].get("logprobs").is_none());
    let out = convert_response_value(
        &input,
        wire_convert::Format::OpenaiChat,
        wire_convert::Format::OpenaiChat,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(first_difference(&input, &out.value), None);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}
