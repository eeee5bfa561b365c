//! Bare conversations and tools (`decode_messages`, `decode_tools`): every request
//! fixture's conversation items and tools value, read alone, decode to the neutral model
//! and write back as they were; one OpenAI message alone does too; pointers point into
//! the bare input.

use crate::support::{Body, fixtures, read_json};
use serde_json::{Value, json};
use wire_convert::model::{Request, Tool};
use wire_convert::{
    Format, LossCode, Options, decode_messages, decode_messages_value, decode_request_value,
    decode_tools, decode_tools_value, encode_messages, encode_tools,
};

/// The request member holding the conversation items.
fn items_member(format: Format) -> &'static str {
    match format {
        Format::OpenaiResponses => "input",
        Format::Gemini => "contents",
        _ => "messages",
    }
}

/// The request member holding what `encode_tools` writes.
fn tools_member(format: Format) -> &'static str {
    match format {
        Format::Bedrock => "toolConfig",
        _ => "tools",
    }
}

/// Items written back as JSON values.
fn written(items: &[Box<serde_json::value::RawValue>]) -> Value {
    Value::Array(
        items
            .iter()
            .map(|i| serde_json::from_str(i.get()).unwrap())
            .collect(),
    )
}

#[test]
fn every_fixture_conversation_read_alone_writes_back_as_it_was() {
    let options = Options::default();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (format, path) in fixtures(Body::Request) {
        let input = read_json(&path);
        let Some(items @ Value::Array(_)) = input.get(items_member(format)) else {
            continue;
        };
        let name = path.display();
        let decoded = match decode_messages_value(items, format, &options) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if !decoded.losses.is_empty() {
            failures.push(format!("{name}: losses {:?}", decoded.losses));
        }
        // The text path reads the same.
        let text = serde_json::to_string(items).unwrap();
        let from_text = decode_messages(&text, format, &options).unwrap();
        assert_eq!(from_text.value, decoded.value, "{name}");
        let request = Request {
            messages: decoded.value,
            source: Some(format),
            ..Default::default()
        };
        let back = encode_messages(request, format, &options).unwrap();
        if written(&back.value) != *items {
            failures.push(format!(
                "{name}: written back\n{}\ninstead of\n{}",
                written(&back.value),
                items
            ));
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} conversations");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_fixture_tools_value_read_alone_is_the_requests_and_writes_back_as_it_was() {
    let options = Options::default();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (format, path) in fixtures(Body::Request) {
        let input = read_json(&path);
        let Some(tools) = input.get(tools_member(format)) else {
            continue;
        };
        let name = path.display();
        let decoded = decode_tools_value(tools, format, &options).unwrap();
        let whole = decode_request_value(&input, format, &options).unwrap();
        if decoded.value != whole.value.tools {
            failures.push(format!("{name}: not the request's tools"));
        }
        let back = encode_tools(decoded.value, format, &options).unwrap();
        // Bedrock's `toolConfig` also holds the tool choice: not a tool, reported.
        let mut expected = tools.clone();
        if expected
            .as_object_mut()
            .and_then(|m| m.remove("toolChoice"))
            .is_some()
        {
            let codes: Vec<LossCode> = decoded.losses.iter().map(|l| l.code).collect();
            assert_eq!(codes, [LossCode::ToolChoiceChanged], "{name}");
            assert_eq!(decoded.losses[0].path, "/toolChoice", "{name}");
        } else if !decoded.losses.is_empty() {
            failures.push(format!("{name}: losses {:?}", decoded.losses));
        }
        if back.value != expected {
            failures.push(format!(
                "{name}: written back\n{}\ninstead of\n{expected}",
                back.value
            ));
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} tools values");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn each_openai_chat_message_alone_writes_back_as_it_was() {
    let options = Options::default();
    let mut checked = 0;
    for (format, path) in fixtures(Body::Request) {
        if format != Format::OpenaiChat {
            continue;
        }
        let input = read_json(&path);
        for (i, m) in input["messages"].as_array().unwrap().iter().enumerate() {
            let decoded = decode_messages_value(m, format, &options).unwrap();
            assert_eq!(decoded.value.len(), 1, "{}: /messages/{i}", path.display());
            let request = Request {
                messages: decoded.value,
                source: Some(format),
                ..Default::default()
            };
            let back = encode_messages(request, format, &options).unwrap();
            assert_eq!(
                written(&back.value),
                json!([m]),
                "{}: /messages/{i}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} messages");
}

#[test]
fn pointers_point_into_the_bare_input() {
    let options = Options::default();
    let one = r#"{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"arguments":"{}"}}]}"#;
    let err = decode_messages(one, Format::OpenaiChat, &options).unwrap_err();
    assert_eq!(err.pointer(), Some("/tool_calls/0/function/name"), "{err}");
    let many = format!(r#"[{{"role":"user","content":"Hi"}},{one}]"#);
    let err = decode_messages(&many, Format::OpenaiChat, &options).unwrap_err();
    assert_eq!(
        err.pointer(),
        Some("/1/tool_calls/0/function/name"),
        "{err}"
    );
    let err = decode_tools(
        r#"[{"type":"function","function":{}}]"#,
        Format::Mistral,
        &options,
    )
    .unwrap_err();
    assert_eq!(err.pointer(), Some("/0/function/name"), "{err}");
    let err = decode_messages("7", Format::OpenaiChat, &options).unwrap_err();
    assert_eq!(err.pointer(), Some(""), "{err}");

    // `source_path` (what an encoder's loss pointer is rewritten with) points into the
    // bare array, or into the single message.
    let items = json!([
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}
    ]);
    let decoded = decode_messages_value(&items, Format::Anthropic, &options).unwrap();
    assert_eq!(decoded.source_path("/messages/1/content/0"), "/1/content/0");
    let single = decode_messages_value(&items[1], Format::Anthropic, &options).unwrap();
    assert_eq!(single.source_path("/messages/0/content/0"), "/content/0");
}

#[test]
fn an_openai_chat_tool_may_leave_out_its_type() {
    let options = Options::default();
    let function =
        json!({"name": "now", "description": "The time", "parameters": {"type": "object"}});
    let with = decode_tools_value(
        &json!([{"type": "function", "function": function}]),
        Format::OpenaiChat,
        &options,
    )
    .unwrap();
    let without = decode_tools_value(
        &json!([{"function": function}]),
        Format::OpenaiChat,
        &options,
    )
    .unwrap();
    assert!(matches!(&without.value[..], [Tool::Function(d)] if d.name == "now"));
    assert_eq!(without.value, with.value);
    assert!(without.losses.is_empty());
    let back = encode_tools(without.value, Format::Gemini, &options).unwrap();
    assert_eq!(back.value[0]["functionDeclarations"][0]["name"], "now");
}
