use super::F;
use crate::model::{
    self, Media, Message, Part, PartMeta, ReasoningConfig, Role, Settings, Source, Text, ToolResult,
};
use crate::{Loss, LossCode, LossKind, Options, convert_request_value, convert_response_value};
use serde_json::json;

fn at(losses: &[Loss], path: &str) -> Vec<(LossKind, LossCode)> {
    losses
        .iter()
        .filter(|l| l.path == path)
        .map(|l| (l.kind, l.code))
        .collect()
}

/// The spellings the neutral model normalizes (the hints): a flat call without `id` or
/// `type`, object arguments, the legacy `max_tokens`, a string `stop`, a `function`
/// message, a refusal field, part arrays, bare base64 file data and an empty file.
#[test]
fn a_request_in_its_own_spellings_comes_back_as_it_came() {
    let body = json!({"model": "gpt-4o", "max_tokens": 5, "stop": "END", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"},
            {"type": "file", "file": {"file_data": "JVBERi0x", "filename": "a.pdf"}},
            {"type": "file", "file": {}}]},
        {"role": "assistant", "content": null, "refusal": "no",
            "tool_calls": [{"name": "f", "arguments": {"a": 1}}]},
        {"role": "function", "name": "f", "content": "done"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]});
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

/// A response's own spellings: no `role`, no `index`, no `logprobs`, its `object` tag,
/// empty token details.
#[test]
fn a_response_in_its_own_spellings_comes_back_as_it_came() {
    let body = json!({"id": "c1", "object": "chat.completion.x", "created": 1, "model": "m",
        "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3,
            "prompt_tokens_details": {}, "completion_tokens_details": {}}});
    let out = convert_response_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

/// Each kind of loss the encoder reports carries the code of what it is about.
#[test]
fn the_encoders_losses_carry_their_codes() {
    use LossCode::*;
    use LossKind::*;
    let media = |source, name: Option<&str>| Media {
        source,
        media_type: Some("image/png".into()),
        name: name.map(str::to_owned),
        meta: PartMeta::default(),
    };
    let result = ToolResult {
        call_id: "c".into(),
        name: None,
        content: vec![
            Part::text("boom"),
            Part::Image(media(
                Source::Base64 {
                    data: "iVBOR".into(),
                },
                None,
            )),
        ],
        is_error: true,
        meta: PartMeta::default(),
    };
    let req = model::Request {
        messages: vec![
            Message::new(
                Role::User,
                vec![
                    Part::Image(media(
                        Source::Url {
                            url: "https://x/a.png".into(),
                        },
                        Some("a"),
                    )),
                    Part::Image(media(
                        Source::FileId {
                            file_id: "f".into(),
                        },
                        None,
                    )),
                    Part::Document(media(Source::Text { text: "doc".into() }, None)),
                    Part::Json(model::Json {
                        value: json!({"a": 1}),
                        meta: PartMeta::default(),
                    }),
                ],
            ),
            Message::new(
                Role::Assistant,
                vec![
                    Part::text("x"),
                    Part::Image(media(
                        Source::Url {
                            url: "https://x/b.png".into(),
                        },
                        None,
                    )),
                ],
            ),
            Message::new(
                Role::Tool,
                vec![Part::ToolResult(result), Part::text("stray")],
            ),
        ],
        settings: Settings {
            top_k: Some(3),
            reasoning: Some(ReasoningConfig {
                budget_tokens: Some(4000),
                include: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    let l = &out.losses;
    for (path, want) in [
        ("/model", (Changed, FieldDefaulted)),
        ("/messages/0/content/0/name", (Dropped, PartChanged)),
        ("/messages/0/content/1", (Dropped, PartUnsupported)),
        ("/messages/0/content/2", (Changed, PartAsText)),
        ("/messages/0/content/3", (Changed, PartAsText)),
        ("/messages/1/content/1", (Dropped, PartUnsupported)),
        ("/messages/2/content/0/content/1", (Moved, PartUnsupported)),
        ("/messages/2/content/0/is_error", (Changed, PartChanged)),
        ("/messages/2/content/1", (Dropped, PartUnsupported)),
        ("/settings/top_k", (Dropped, FieldUnsupported)),
        ("/settings/reasoning/include", (Dropped, FieldUnsupported)),
        (
            "/settings/reasoning/budget_tokens",
            (Changed, SettingChanged),
        ),
    ] {
        assert_eq!(at(l, path), [want], "{path}: {l:?}");
    }
    assert_eq!(l.len(), 12, "{l:?}");
    // The moved image is in a user message after the results.
    assert_eq!(out.value["messages"][3]["role"], "user");
    assert_eq!(out.value["messages"][3]["content"][0]["type"], "image_url");
    assert_eq!(out.value["reasoning_effort"], "medium");
    assert_eq!(out.value["messages"][2]["content"], "Error: boom");
}

#[test]
fn a_foreign_stop_reason_and_a_missing_model_carry_their_codes() {
    let resp = model::Response {
        choices: vec![model::Choice {
            message: Message::new(
                Role::Assistant,
                vec![Part::Text(Text {
                    text: "hi".into(),
                    meta: PartMeta::default(),
                })],
            ),
            stop_reason: Some(model::StopReason::new(model::StopKind::Pause)),
            vendor: Default::default(),
        }],
        ..Default::default()
    };
    let out = crate::encode_response_value(resp, F, &Options::default()).unwrap();
    assert_eq!(
        at(&out.losses, "/choices/0/stop_reason"),
        [(LossKind::Changed, LossCode::StopReasonChanged)]
    );
    assert_eq!(
        at(&out.losses, "/model"),
        [(LossKind::Changed, LossCode::FieldDefaulted)]
    );
}

/// A `name` on a `tool` message (not in OpenAI's schema, but some clients send it) is an
/// unknown field like any other: it comes back, it is not dropped in silence.
#[test]
fn a_tool_message_keeps_its_name() {
    let body = json!({"model": "m", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "1", "name": "f"}]});
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}
