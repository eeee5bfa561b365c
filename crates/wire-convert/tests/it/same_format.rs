//! `A → neutral → A` gives back exactly what `A` said, with no loss: the neutral model
//! carries everything a format can say.

use crate::support::{Body, first_difference, fixtures, losses_text, read_json};
use wire_convert::{Error, Options, convert_request_value, convert_response_value};

fn check(body: Body) {
    let mut failures = Vec::new();
    for (format, path) in fixtures(body) {
        let input = read_json(&path);
        let name = path
            .strip_prefix(crate::support::fixtures_dir())
            .unwrap()
            .display()
            .to_string();
        let out = match body {
            Body::Request => convert_request_value(&input, format, format, &Options::default()),
            Body::Response => convert_response_value(&input, format, format, &Options::default()),
        };
        match out {
            Err(Error::Unsupported { .. }) => continue,
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(c) => {
                if let Some(d) = first_difference(&input, &c.value, String::new()) {
                    failures.push(format!("{name}: differs at {d}"));
                }
                if !c.losses.is_empty() {
                    failures.push(format!(
                        "{name}: losses in a same-format round trip:\n{}",
                        losses_text(&c.losses)
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
    assert_eq!(first_difference(&input, &out.value, String::new()), None);
    assert!(out.losses.is_empty(), "{}", losses_text(&out.losses));
}
