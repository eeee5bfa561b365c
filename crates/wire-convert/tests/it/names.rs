//! Tool names the target rejects: rewritten in the request, restored in the target's
//! response and stream by the request conversion's name map.

use wire_convert::stream::StreamTranslator;
use wire_convert::{Format, LossCode, NameRule, Options, convert_request, convert_response};

/// An OpenAI Chat request whose tools have MCP-style names no OpenAI model would take
/// from Anthropic as they are (`.`), plus one that collides with the first once sanitised.
const REQUEST: &str = r#"{
  "model": "gpt-4o",
  "messages": [
    {"role": "user", "content": "Read the config"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "fs.read", "arguments": "{\"path\":\"a\"}"}}
    ]},
    {"role": "tool", "tool_call_id": "call_1", "content": "port = 1"}
  ],
  "tools": [
    {"type": "function", "function": {"name": "fs.read", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "fs_read", "parameters": {"type": "object"}}}
  ],
  "tool_choice": {"type": "function", "function": {"name": "fs.read"}}
}"#;

fn anthropic_call(name: &str) -> String {
    format!(
        r#"{{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{{"type": "tool_use", "id": "toolu_1", "name": "{name}", "input": {{"path": "b"}}}},
                    {{"type": "tool_use", "id": "toolu_2", "name": "fs_read", "input": {{"path": "c"}}}}],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {{"input_tokens": 10, "output_tokens": 5}}}}"#
    )
}

#[test]
fn a_rewritten_name_is_rewritten_everywhere_and_restored_in_the_response() {
    let req = convert_request(
        REQUEST,
        Format::OpenaiChat,
        Format::Anthropic,
        &Options::default(),
    )
    .unwrap();
    let new = req.names.get("fs.read").to_owned();
    assert_ne!(new, "fs.read");
    assert_ne!(new, "fs_read", "must not collide with the other tool");
    assert!(NameRule::of(Format::Anthropic).accepts(&new));
    assert_eq!(req.names.get("fs_read"), "fs_read");
    let body: serde_json::Value = serde_json::from_str(&req.value).unwrap();
    assert_eq!(body["tools"][0]["name"], new.as_str());
    assert_eq!(body["tools"][1]["name"], "fs_read");
    assert_eq!(body["messages"][1]["content"][0]["name"], new.as_str());
    assert_eq!(body["tool_choice"]["name"], new.as_str());
    let rewritten: Vec<_> = req
        .losses
        .iter()
        .filter(|l| l.code == LossCode::NameRewritten)
        .collect();
    assert_eq!(rewritten.len(), 1, "{:?}", req.losses);
    assert_eq!(rewritten[0].path, "/tools/0");

    // The model calls the rewritten name; the client sees its own.
    let back = Options::default().with_names(req.names.clone());
    let resp = convert_response(
        &anthropic_call(&new),
        Format::Anthropic,
        Format::OpenaiChat,
        &back,
    )
    .unwrap();
    let resp: serde_json::Value = serde_json::from_str(&resp.value).unwrap();
    let calls = &resp["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[0]["function"]["name"], "fs.read");
    assert_eq!(calls[1]["function"]["name"], "fs_read");

    // Without the map, the target's name is what comes back.
    let plain = convert_response(
        &anthropic_call(&new),
        Format::Anthropic,
        Format::OpenaiChat,
        &Options::default(),
    )
    .unwrap();
    assert!(plain.value.contains(&new));
}

#[test]
fn a_translated_stream_restores_the_names_too() {
    let req = convert_request(
        REQUEST,
        Format::OpenaiChat,
        Format::Anthropic,
        &Options::default(),
    )
    .unwrap();
    let new = req.names.get("fs.read").to_owned();
    let stream = format!(
        "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{{\"input_tokens\":3,\"output_tokens\":1}}}}}}\n\n\
event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"{new}\",\"input\":{{}}}}}}\n\n\
event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{}}\"}}}}\n\n\
event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"tool_use\"}},\"usage\":{{\"output_tokens\":2}}}}\n\n\
event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
    );
    let back = Options::default().with_names(req.names);
    let mut t = StreamTranslator::new(Format::Anthropic, Format::OpenaiChat, &back).unwrap();
    let mut out = t.push(stream.as_bytes()).unwrap();
    out.extend(t.finish().unwrap());
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains(r#""name":"fs.read""#), "{out}");
    assert!(!out.contains(&new), "{out}");
}
