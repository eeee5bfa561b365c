use super::decode::decode_request;
use super::encode::{doc_name, encode_request};
use super::response::{decode_usage, encode_stop, encode_usage, stop_reason};
use super::{
    AUDIO_TYPES, DOC_TYPES, F, IMAGE_TYPES, format_of, hints, read_format, valid_doc_name,
};
use crate::model::{
    self, Arguments, Media, Message, Part, PartMeta, Reasoning, ReasoningConfig, Role, Settings,
    Signed, Source, StopKind, StopReason, Tool, ToolCall, ToolChoice, ToolDef, ToolResult, Usage,
};
use crate::{Ctx, Format, LossKind, Options};
use serde_json::{Value, json};
use wire_types::bedrock as w;

fn req(body: Value) -> (model::Request, Vec<crate::Loss>) {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let typed: w::Request = wire_types::from_value(&body).unwrap();
    let out = decode_request(typed, &mut ctx).unwrap();
    (out, ctx.take_losses())
}

fn enc(r: model::Request) -> (Value, Vec<crate::Loss>) {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let out = encode_request(r, &mut ctx).unwrap();
    (wire_types::to_value(&out), ctx.take_losses())
}

#[test]
fn stop_reasons_map_to_kinds_and_back() {
    let cases = [
        ("end_turn", StopKind::EndTurn),
        ("stop_sequence", StopKind::StopSequence),
        ("max_tokens", StopKind::MaxTokens),
        ("model_context_window_exceeded", StopKind::MaxTokens),
        ("tool_use", StopKind::ToolUse),
        ("guardrail_intervened", StopKind::ContentFilter),
        ("content_filtered", StopKind::ContentFilter),
        ("malformed_model_output", StopKind::Error),
        ("malformed_tool_use", StopKind::Error),
        ("brand_new_reason", StopKind::Other),
    ];
    let opts = Options::default();
    for (raw, kind) in cases {
        let r = stop_reason(&w::StopReason::from(raw));
        assert_eq!(r.kind, kind, "{raw}");
        let mut ctx = Ctx::new(F, &opts);
        assert_eq!(encode_stop(&r, "", &mut ctx).as_str(), raw);
        assert!(ctx.losses().is_empty());
    }
    // From another format: by kind.
    let mut ctx = Ctx::new(F, &opts);
    let pause = StopReason {
        kind: StopKind::Pause,
        raw: Some("pause_turn".into()),
        format: Some(Format::Anthropic),
    };
    assert_eq!(encode_stop(&pause, "/x", &mut ctx).as_str(), "end_turn");
    assert_eq!(ctx.losses().len(), 1);
    let filter = StopReason {
        kind: StopKind::ContentFilter,
        raw: Some("SAFETY".into()),
        format: Some(Format::Gemini),
    };
    assert_eq!(
        encode_stop(&filter, "/x", &mut ctx).as_str(),
        "content_filtered"
    );
    assert_eq!(ctx.losses().len(), 1);
}

#[test]
fn usage_input_counts_cache_reads_and_writes() {
    // inputTokens excludes cached tokens: 412 + 2048 read + 16 written = 2476.
    let u: w::Usage = wire_types::from_value(&json!({
        "inputTokens": 412, "outputTokens": 118, "totalTokens": 2594,
        "cacheReadInputTokens": 2048, "cacheWriteInputTokens": 16
    }))
    .unwrap();
    let n = decode_usage(u.clone());
    assert_eq!(n.input_tokens, Some(2476));
    assert_eq!(n.cached_input_tokens, Some(2048));
    assert_eq!(n.cache_write_tokens, Some(16));
    assert_eq!(n.total_tokens, Some(2594));
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    assert_eq!(encode_usage(n, &mut ctx), u);
    // OpenAI-style usage (input includes cached): 1000 in, 600 cached, 50 out.
    let oa = Usage {
        input_tokens: Some(1000),
        output_tokens: Some(50),
        cached_input_tokens: Some(600),
        ..Default::default()
    };
    let b = encode_usage(oa, &mut ctx);
    assert_eq!(
        (
            b.input_tokens,
            b.cache_read_input_tokens,
            b.output_tokens,
            b.total_tokens
        ),
        (400, Some(600), 50, 1050)
    );
}

#[test]
fn results_are_put_in_call_order_and_written_back_in_source_order() {
    let body = json!({"messages": [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "a", "name": "f", "input": {}}},
            {"toolUse": {"toolUseId": "b", "name": "g", "input": {}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "b", "content": [{"text": "B"}]}},
            {"cachePoint": {"type": "default"}},
            {"toolResult": {"toolUseId": "a", "content": [{"text": "A"}]}},
            {"text": "and now?"}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}});
    let (n, losses) = req(body.clone());
    assert!(losses.is_empty());
    let tool = &n.messages[2];
    assert_eq!(tool.role, Role::Tool);
    let ids: Vec<&str> = tool
        .content
        .iter()
        .map(|p| match p {
            Part::ToolResult(r) => r.call_id.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(tool.vendor.hint(F, hints::ORDER), Some(&json!([1, 0])));
    // The cache point follows `b`'s result.
    assert!(tool.content[1].meta().cache.is_some());
    assert_eq!(n.messages[3].role, Role::User);
    let (back, losses) = enc(n);
    assert!(losses.is_empty(), "{losses:?}");
    assert_eq!(back, body);
}

#[test]
fn same_role_runs_merge_with_a_loss_except_results_then_user() {
    let r = model::Request {
        messages: vec![
            Message::text(Role::System, "be brief"),
            Message::text(Role::User, "a"),
            Message::text(Role::User, "b"),
            Message::new(
                Role::Assistant,
                vec![Part::ToolCall(ToolCall {
                    id: "c1".into(),
                    synthetic_id: false,
                    name: "f".into(),
                    arguments: Arguments::Text("[1,2]".into()),
                    meta: PartMeta::default(),
                })],
            ),
            Message::new(
                Role::Tool,
                vec![Part::ToolResult(ToolResult {
                    call_id: "c1".into(),
                    name: Some("f".into()),
                    content: vec![],
                    is_error: true,
                    meta: PartMeta::default(),
                })],
            ),
            Message::text(Role::User, "next"),
            Message::text(Role::System, "late"),
        ],
        tool_choice: Some(ToolChoice::None),
        ..Default::default()
    };
    let (out, losses) = enc(r);
    assert_eq!(
        out,
        json!({
            "messages": [
                {"role": "user", "content": [{"text": "a"}, {"text": "b"}]},
                {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c1", "name": "f", "input": {"value": [1, 2]}}}]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "c1", "content": [{"text": "Error"}], "status": "error"}},
                    {"text": "next"}]}],
            "system": [{"text": "be brief"}, {"text": "late"}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object", "properties": {}}}}}]}
        })
    );
    let paths: Vec<(&str, LossKind)> = losses.iter().map(|l| (l.path.as_str(), l.kind)).collect();
    assert_eq!(
        paths,
        [
            ("/messages/2", LossKind::Changed),
            ("/messages/3/content/0/arguments", LossKind::Changed),
            ("/messages/4/content/0/content", LossKind::Changed),
            ("/messages/6", LossKind::Moved),
            ("/tool_choice", LossKind::Dropped),
            ("/tools", LossKind::Changed),
        ]
    );
}

#[test]
fn other_formats_are_written_with_their_losses() {
    let media = |source, media_type: Option<&str>, name: Option<&str>| Media {
        source,
        media_type: media_type.map(str::to_owned),
        name: name.map(str::to_owned),
        meta: PartMeta::default(),
    };
    let r = model::Request {
        model: Some("us.anthropic.claude-sonnet-4-20250514-v1:0".into()),
        messages: vec![
            Message::new(
                Role::User,
                vec![
                    Part::text("Look:"),
                    Part::Image(media(
                        Source::Url {
                            url: "https://example.com/cat.png".into(),
                        },
                        Some("image/png"),
                        None,
                    )),
                    Part::Document(media(
                        Source::Base64 {
                            data: "JVBERi0xLjQK".into(),
                        },
                        None,
                        None,
                    )),
                    Part::text("   "),
                ],
            ),
            Message::new(
                Role::Assistant,
                vec![
                    Part::Reasoning(Reasoning {
                        text: Some("thinking…".into()),
                        signature: Some(Signed {
                            value: "c2ln".into(),
                            format: Format::Gemini,
                        }),
                        source: Some(Format::Gemini),
                        ..Default::default()
                    }),
                    Part::text("Done."),
                ],
            ),
        ],
        tools: vec![Tool::Function(ToolDef::new(
            "f",
            "F",
            json!({"type": "object"}),
        ))],
        tool_choice: Some(ToolChoice::None),
        settings: Settings {
            top_k: Some(5),
            parallel_tool_calls: Some(false),
            reasoning: Some(ReasoningConfig {
                effort: Some("high".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let (out, losses) = enc(r);
    assert_eq!(
        out,
        json!({
            "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0",
            "messages": [
                {"role": "user", "content": [
                    {"text": "Look:"},
                    {"document": {"format": "pdf", "name": "Document 1", "source": {"bytes": "JVBERi0xLjQK"}}}]},
                {"role": "assistant", "content": [
                    {"text": "Done."}]}],
            "additionalModelRequestFields": {"top_k": 5, "thinking": {"type": "enabled", "budget_tokens": 16384}}
        })
    );
    let paths: Vec<(&str, LossKind)> = losses.iter().map(|l| (l.path.as_str(), l.kind)).collect();
    assert_eq!(
        paths,
        [
            ("/messages/0/content/1", LossKind::Dropped),
            ("/messages/0/content/2/name", LossKind::Changed),
            ("/messages/0/content/3", LossKind::Dropped),
            ("/messages/1/content/0/signature", LossKind::Dropped),
            ("/messages/1/content/0", LossKind::Dropped),
            ("/tool_choice", LossKind::Changed),
            ("/tools/0", LossKind::Dropped),
            ("/settings/parallel_tool_calls", LossKind::Dropped),
            ("/settings/top_k", LossKind::Changed),
            ("/settings/reasoning", LossKind::Changed),
        ]
    );
}

fn paths(losses: &[crate::Loss]) -> Vec<(&str, LossKind)> {
    losses.iter().map(|l| (l.path.as_str(), l.kind)).collect()
}

#[test]
fn a_forced_tool_choice_with_thinking_is_sent_as_auto_unless_the_request_is_bedrocks_own() {
    let tool = json!({"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {}}}});
    for (choice, what) in [
        (json!("required"), "`required`"),
        (
            json!({"type": "function", "function": {"name": "get_weather"}}),
            "forcing the tool `get_weather`",
        ),
    ] {
        let body = json!({"model": "m", "reasoning_effort": "high", "tool_choice": choice,
            "tools": [tool], "messages": [{"role": "user", "content": "Weather?"}]});
        let out = crate::convert_request_value(&body, Format::OpenaiChat, F, &Options::default())
            .unwrap();
        assert_eq!(
            out.value["additionalModelRequestFields"]["thinking"]["type"],
            "enabled"
        );
        assert_eq!(out.value["toolConfig"]["toolChoice"], json!({"auto": {}}));
        let l: Vec<_> = out
            .losses
            .iter()
            .filter(|l| l.path == "/tool_choice" && l.detail.contains(what))
            .collect();
        assert_eq!(l.len(), 1, "{:?}", out.losses);
        assert_eq!(l[0].kind, LossKind::Changed);
        // Without thinking the choice stays forced.
        let mut plain = body.clone();
        plain.as_object_mut().unwrap().remove("reasoning_effort");
        let out = crate::convert_request_value(&plain, Format::OpenaiChat, F, &Options::default())
            .unwrap();
        assert_ne!(out.value["toolConfig"]["toolChoice"], json!({"auto": {}}));
    }
    // Bedrock's own request is written back as it came.
    let own = json!({"modelId": "m", "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}],
            "toolChoice": {"any": {}}},
        "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}});
    let out = crate::convert_request_value(&own, F, F, &Options::default()).unwrap();
    assert_eq!(out.value, own);
}

fn call(id: &str) -> Part {
    Part::ToolCall(ToolCall {
        id: id.into(),
        synthetic_id: false,
        name: "f".into(),
        arguments: Arguments::Value(json!({})),
        meta: PartMeta::default(),
    })
}

fn result(id: &str, is_error: bool) -> Part {
    Part::ToolResult(ToolResult {
        call_id: id.into(),
        name: Some("f".into()),
        content: vec![Part::text("42")],
        is_error,
        meta: PartMeta::default(),
    })
}

fn with_settings(messages: Vec<Message>, settings: Settings) -> model::Request {
    model::Request {
        model: Some("m".into()),
        messages,
        tools: vec![Tool::Function(ToolDef::new(
            "f",
            "F",
            json!({"type": "object"}),
        ))],
        settings,
        ..Default::default()
    }
}

#[test]
fn reasoning_without_a_bedrock_token_is_sent_only_when_bedrock_made_it() {
    let reasoning = |source: Option<Format>, signature: Option<Signed>| {
        Part::Reasoning(Reasoning {
            text: Some("step by step".into()),
            signature,
            source,
            ..Default::default()
        })
    };
    let bedrock_sig = Signed {
        value: "c2ln".into(),
        format: F,
    };
    let r = with_settings(
        vec![
            Message::text(Role::User, "hi"),
            Message::new(
                Role::Assistant,
                vec![
                    // Foreign and unsigned: dropped.
                    reasoning(Some(Format::OpenaiResponses), None),
                    // Unknown provider: dropped.
                    reasoning(None, None),
                    // Bedrock's own, unsigned (another model family): kept.
                    reasoning(Some(F), None),
                    // Bedrock-signed: kept with its signature.
                    reasoning(Some(F), Some(bedrock_sig)),
                    Part::text("Done."),
                ],
            ),
        ],
        Settings::default(),
    );
    let (out, losses) = enc(r);
    assert_eq!(
        out["messages"][1]["content"],
        json!([
            {"reasoningContent": {"reasoningText": {"text": "step by step"}}},
            {"reasoningContent": {"reasoningText": {"text": "step by step", "signature": "c2ln"}}},
            {"text": "Done."}
        ])
    );
    assert_eq!(
        paths(&losses),
        [
            ("/messages/1/content/0", LossKind::Dropped),
            ("/messages/1/content/1", LossKind::Dropped)
        ]
    );
    assert!(losses[0].detail.contains("from openai-responses"));
}

#[test]
fn thinking_is_not_switched_on_in_an_open_tool_loop_without_reasoning() {
    let thinking = Settings {
        max_tokens: Some(8192),
        reasoning: Some(ReasoningConfig {
            enabled: Some(true),
            budget_tokens: Some(2048),
            ..Default::default()
        }),
        ..Default::default()
    };
    let foreign = Part::Reasoning(Reasoning {
        text: Some("call f".into()),
        source: Some(Format::Gemini),
        ..Default::default()
    });
    let own = Part::Reasoning(Reasoning {
        text: Some("call f".into()),
        signature: Some(Signed {
            value: "c2ln".into(),
            format: F,
        }),
        source: Some(F),
        ..Default::default()
    });
    let conversation = |reasoning: Option<Part>, then_user: bool| {
        let mut assistant: Vec<Part> = reasoning.into_iter().collect();
        assistant.push(call("c1"));
        let mut m = vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, assistant),
            Message::new(Role::Tool, vec![result("c1", false)]),
        ];
        if then_user {
            m.push(Message::text(Role::User, "and?"));
        }
        m
    };

    // Foreign reasoning is dropped: nothing to send back, thinking stays off.
    let (out, losses) = enc(with_settings(
        conversation(Some(foreign), false),
        thinking.clone(),
    ));
    assert_eq!(out.get("additionalModelRequestFields"), None);
    assert_eq!(out["inferenceConfig"], json!({"maxTokens": 8192}));
    assert_eq!(
        paths(&losses),
        [
            ("/messages/1/content/0", LossKind::Dropped),
            ("/settings/reasoning", LossKind::Changed)
        ]
    );
    assert!(losses[1].detail.contains("left off"));

    // No reasoning at all: the same.
    let (out, losses) = enc(with_settings(conversation(None, false), thinking.clone()));
    assert_eq!(out.get("additionalModelRequestFields"), None);
    assert_eq!(paths(&losses), [("/settings/reasoning", LossKind::Changed)]);

    // Its own signed reasoning first, or a user message after the results: thinking on.
    let on = json!({"thinking": {"type": "enabled", "budget_tokens": 2048}});
    let (out, _) = enc(with_settings(
        conversation(Some(own), false),
        thinking.clone(),
    ));
    assert_eq!(out["additionalModelRequestFields"], on);
    let (out, _) = enc(with_settings(conversation(None, true), thinking.clone()));
    assert_eq!(out["additionalModelRequestFields"], on);

    // Switching thinking off is allowed.
    let off = Settings {
        reasoning: Some(ReasoningConfig {
            enabled: Some(false),
            ..Default::default()
        }),
        ..Default::default()
    };
    let (out, _) = enc(with_settings(conversation(None, false), off));
    assert_eq!(
        out["additionalModelRequestFields"],
        json!({"thinking": {"type": "disabled"}})
    );

    // A bedrock source with the shape is written back as it was.
    let body = json!({
        "modelId": "m",
        "messages": [
            {"role": "user", "content": [{"text": "hi"}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "c1", "content": [{"text": "42"}]}}]}
        ],
        "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]},
        "inferenceConfig": {"maxTokens": 1024},
        "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    });
    let out = crate::convert_request_value(&body, F, F, &crate::Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

#[test]
fn a_budget_not_below_max_tokens_raises_max_tokens() {
    let settings = |max_tokens, reasoning| Settings {
        max_tokens,
        reasoning: Some(reasoning),
        ..Default::default()
    };
    let budget = |b| ReasoningConfig {
        budget_tokens: Some(b),
        ..Default::default()
    };
    let hi = || vec![Message::text(Role::User, "hi")];

    let (out, losses) = enc(with_settings(hi(), settings(Some(200), budget(2048))));
    assert_eq!(out["inferenceConfig"]["maxTokens"], 2048 + 1024);
    assert_eq!(
        out["additionalModelRequestFields"]["thinking"]["budget_tokens"],
        2048
    );
    assert_eq!(
        paths(&losses),
        [
            ("/settings/reasoning", LossKind::Changed),
            ("/settings/max_tokens", LossKind::Changed)
        ]
    );
    assert!(losses[1].detail.contains("raised from 200 to 3072"));

    // An effort's budget (high: 16384) equal to maxTokens is not below it.
    let effort = ReasoningConfig {
        effort: Some("high".into()),
        ..Default::default()
    };
    let (out, losses) = enc(with_settings(hi(), settings(Some(16384), effort)));
    assert_eq!(out["inferenceConfig"]["maxTokens"], 16384 + 1024);
    assert_eq!(
        paths(&losses)[1],
        ("/settings/max_tokens", LossKind::Changed)
    );

    // Room enough, or no maxTokens (the model's maximum applies): unchanged.
    let (out, losses) = enc(with_settings(hi(), settings(Some(4096), budget(2048))));
    assert_eq!(out["inferenceConfig"]["maxTokens"], 4096);
    assert_eq!(paths(&losses), [("/settings/reasoning", LossKind::Changed)]);
    let (out, _) = enc(with_settings(hi(), settings(None, budget(2048))));
    assert_eq!(out.get("inferenceConfig"), None);

    // Thinking off: no budget to make room for.
    let off = ReasoningConfig {
        enabled: Some(false),
        budget_tokens: Some(2048),
        ..Default::default()
    };
    let (out, _) = enc(with_settings(hi(), settings(Some(200), off)));
    assert_eq!(out["inferenceConfig"]["maxTokens"], 200);

    // A bedrock source with such a budget is written back as it was.
    let body = json!({
        "modelId": "m",
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "inferenceConfig": {"maxTokens": 200},
        "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    });
    let out = crate::convert_request_value(&body, F, F, &crate::Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

#[test]
fn results_of_another_format_always_carry_a_status() {
    let r = with_settings(
        vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, vec![call("c1"), call("c2")]),
            Message::new(Role::Tool, vec![result("c1", false), result("c2", true)]),
        ],
        Settings::default(),
    );
    let (out, losses) = enc(r);
    let statuses: Vec<&Value> = out["messages"][2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["toolResult"]["status"])
        .collect();
    assert_eq!(statuses, [&json!("success"), &json!("error")]);
    assert!(losses.is_empty(), "{losses:?}");

    // Bedrock results keep what they had: no status, success, error.
    let body = json!({
        "modelId": "m",
        "messages": [
            {"role": "user", "content": [{"text": "hi"}]},
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}},
                {"toolUse": {"toolUseId": "c2", "name": "f", "input": {}}},
                {"toolUse": {"toolUseId": "c3", "name": "f", "input": {}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "c1", "content": [{"text": "1"}]}},
                {"toolResult": {"toolUseId": "c2", "content": [{"text": "2"}], "status": "success"}},
                {"toolResult": {"toolUseId": "c3", "content": [{"text": "3"}], "status": "error"}}]}
        ],
        "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}
    });
    let out = crate::convert_request_value(&body, F, F, &crate::Options::default()).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

#[test]
fn only_the_dropped_keys_of_additional_fields_are_reported() {
    let body = json!({
        "modelId": "m",
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "additionalModelRequestFields": {
            "top_k": 40,
            "anthropic_beta": ["token-efficient-tools-2025-02-19"],
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "a/b": 1
        }
    });
    let opts = crate::Options::default();
    let out = crate::convert_request_value(&body, F, Format::Gemini, &opts).unwrap();
    let dropped: Vec<&str> = out
        .losses
        .iter()
        .filter(|l| l.path.starts_with("/additionalModelRequestFields"))
        .filter(|l| l.kind == LossKind::Dropped)
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(
        dropped,
        [
            "/additionalModelRequestFields/anthropic_beta",
            "/additionalModelRequestFields/a~1b"
        ]
    );
    assert!(
        !out.losses
            .iter()
            .any(|l| l.path == "/additionalModelRequestFields"),
        "{:?}",
        out.losses
    );
    // The same format gets every key back, in its order.
    let out = crate::convert_request_value(&body, F, F, &opts).unwrap();
    assert_eq!(out.value, body);
    assert_eq!(
        out.value["additionalModelRequestFields"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["top_k", "anthropic_beta", "thinking", "a/b"]
    );
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

#[test]
fn usage_that_says_nothing_is_no_loss_elsewhere() {
    let body = json!({
        "output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
        "stopReason": "end_turn",
        "usage": {
            "cacheReadInputTokenCount": 0,
            "cacheReadInputTokens": 0,
            "cacheWriteInputTokenCount": 0,
            "cacheWriteInputTokens": 0,
            "inputTokens": 22,
            "outputTokens": 57,
            "serverToolUsage": {},
            "totalTokens": 79
        },
        "metrics": {"latencyMs": 1}
    });
    let opts = crate::Options::default();
    for to in [Format::OpenaiChat, Format::Gemini, Format::Ollama] {
        let out = crate::convert_response_value(&body, F, to, &opts).unwrap();
        assert!(
            !out.losses.iter().any(|l| l.path.starts_with("/usage")),
            "{to}: {:?}",
            out.losses
        );
    }
    let out = crate::convert_response_value(&body, F, F, &opts).unwrap();
    assert_eq!(out.value, body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);

    // What does say something is still carried or reported.
    let mut busy = body.clone();
    busy["usage"]["cacheReadInputTokens"] = json!(5);
    busy["usage"]["serverToolUsage"] = json!({"webSearch": 1});
    let out = crate::convert_response_value(&busy, F, Format::Ollama, &opts).unwrap();
    let usage: Vec<(&str, LossKind)> = paths(&out.losses)
        .into_iter()
        .filter(|(p, _)| p.starts_with("/usage/"))
        .collect();
    assert_eq!(
        usage,
        [
            ("/usage/serverToolUsage", LossKind::Dropped),
            ("/usage/cacheReadInputTokens", LossKind::Dropped),
            ("/usage/totalTokens", LossKind::Dropped)
        ]
    );
}

#[test]
fn settings_without_a_place_are_reported_in_plain_words() {
    let r = with_settings(
        vec![Message::text(Role::User, "hi")],
        Settings {
            seed: Some(7),
            presence_penalty: Some(1.into()),
            ..Default::default()
        },
    );
    let (_, losses) = enc(r);
    let details: Vec<&str> = losses.iter().map(|l| l.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "bedrock converse has no sampling seed",
            "bedrock converse has no presence penalty"
        ]
    );
}

#[test]
fn document_names_are_made_valid() {
    assert!(valid_doc_name("Booking confirmation ABX3K7"));
    assert!(!valid_doc_name("nyc-7day.csv"));
    assert_eq!(doc_name("nyc-7day.csv"), "nyc-7day");
    assert_eq!(doc_name("my_file  (v2).final.pdf"), "my file (v2) final");
    assert_eq!(doc_name("..."), "");
}

#[test]
fn media_formats_map_both_ways() {
    assert_eq!(format_of(IMAGE_TYPES, "image/jpg"), Some("jpeg"));
    assert_eq!(format_of(AUDIO_TYPES, "audio/mpeg"), Some("mp3"));
    assert_eq!(
        format_of(DOC_TYPES, "text/markdown; charset=utf-8"),
        Some("md")
    );
    assert_eq!(format_of(IMAGE_TYPES, "audio/mp3"), None);
    // `mpga` maps to audio/mpeg, which maps back to mp3: the hint keeps it.
    let mut meta = PartMeta::default();
    assert_eq!(
        read_format(AUDIO_TYPES, Some("audio"), "mpga", &mut meta).as_deref(),
        Some("audio/mpeg")
    );
    assert_eq!(meta.vendor.hint(F, hints::FORMAT), Some(&json!("mpga")));
}

#[test]
fn each_loss_says_what_it_is_about() {
    let refusal = Part::Refusal(crate::model::Text {
        text: "no".into(),
        meta: PartMeta::default(),
    });
    let foreign = Part::Reasoning(Reasoning {
        text: Some("hm".into()),
        source: Some(Format::Gemini),
        ..Default::default()
    });
    let settings = Settings {
        seed: Some(7),
        ..Default::default()
    };
    let mut req = with_settings(
        vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, vec![refusal, foreign, call("c1")]),
            Message::text(Role::System, "late"),
            Message::text(Role::User, "again"),
        ],
        settings,
    );
    // A call with no tool declared: Converse needs a placeholder spec for it.
    req.tools.clear();
    let (_, losses) = enc(req);
    let codes: Vec<_> = losses
        .iter()
        .map(|l| (l.path.as_str(), l.kind, l.code))
        .collect();
    use crate::LossCode::*;
    assert_eq!(
        codes,
        [
            ("/messages/1/content/0", LossKind::Changed, PartAsText),
            ("/messages/1/content/1", LossKind::Dropped, ReasoningDropped),
            ("/messages/2", LossKind::Moved, SystemMoved),
            ("/tools", LossKind::Changed, FieldDefaulted),
            ("/settings/seed", LossKind::Dropped, FieldUnsupported),
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Streams

mod stream {
    use crate::stream::{
        Finish, Framing, StreamDecoder, StreamEncoder, StreamErrorKind, StreamPart, ToolStart,
        Whole,
    };
    use crate::{Error, Format, Options};
    use serde_json::{Value, json};

    fn framing(name: &str) -> Framing {
        if name.ends_with(".sse.txt") {
            Framing::Sse
        } else if name.ends_with(".eventstream") {
            Framing::EventStream
        } else {
            Framing::Ndjson
        }
    }

    /// The parts of a Bedrock stream given as `{"<eventType>": payload}` events, and the
    /// decode losses.
    fn decode(events: &[Value]) -> (Vec<StreamPart>, Vec<crate::Loss>) {
        let text: String = events.iter().map(|e| format!("{e}\n")).collect();
        decode_bytes(Format::Bedrock, Framing::Ndjson, text.as_bytes()).unwrap()
    }

    fn decode_bytes(
        format: Format,
        framing: Framing,
        bytes: &[u8],
    ) -> Result<(Vec<StreamPart>, Vec<crate::Loss>), Error> {
        let mut d = StreamDecoder::with_framing(format, framing, &Options::default())?;
        let mut parts = d.push(bytes)?;
        parts.extend(d.finish()?);
        Ok((parts, d.losses().to_vec()))
    }

    /// The events a Bedrock encoder writes for `parts`, as `{"<eventType>": payload}`
    /// values, and its losses.
    fn encode(parts: Vec<StreamPart>) -> (Vec<Value>, Vec<crate::Loss>) {
        let mut e =
            StreamEncoder::with_framing(Format::Bedrock, Framing::Ndjson, &Options::default())
                .unwrap();
        let mut bytes = e.encode_all(parts).unwrap();
        bytes.extend(e.finish().unwrap());
        let events = String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (events, e.losses().to_vec())
    }

    fn names(events: &[Value]) -> Vec<&str> {
        events
            .iter()
            .filter_map(|e| e.as_object()?.keys().next().map(String::as_str))
            .collect()
    }

    fn kinds(parts: &[StreamPart]) -> Vec<&'static str> {
        parts
            .iter()
            .map(|p| match p {
                StreamPart::Start(_) => "start",
                StreamPart::TextStart { .. } => "text_start",
                StreamPart::TextDelta { .. } => "text",
                StreamPart::ReasoningStart { .. } => "reasoning_start",
                StreamPart::ReasoningDelta { .. } => "reasoning",
                StreamPart::Signature(_) => "signature",
                StreamPart::ToolStart(_) => "tool_start",
                StreamPart::ToolDelta { .. } => "tool",
                StreamPart::Whole(_) => "whole",
                StreamPart::Meta { .. } => "meta",
                StreamPart::End { .. } => "end",
                StreamPart::Usage(_) => "usage",
                StreamPart::Finish(_) => "finish",
                StreamPart::ResponseMeta(_) => "response_meta",
                StreamPart::Error(_) => "error",
                _ => "other",
            })
            .collect()
    }

    fn text_stream() -> Vec<Value> {
        vec![
            json!({"messageStart": {"role": "assistant"}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}),
            json!({"contentBlockStop": {"contentBlockIndex": 0}}),
            json!({"messageStop": {"stopReason": "end_turn"}}),
            json!({"metadata": {"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}, "metrics": {"latencyMs": 10}}}),
        ]
    }

    #[test]
    fn metadata_after_message_stop_is_read_and_the_finish_waits_for_it() {
        let (parts, losses) = decode(&text_stream());
        assert_eq!(
            kinds(&parts),
            [
                "start",
                "text_start",
                "text",
                "end",
                "usage",
                "response_meta",
                "finish"
            ]
        );
        assert!(losses.is_empty(), "{losses:?}");
        let StreamPart::Usage(u) = &parts[4] else {
            unreachable!()
        };
        assert_eq!((u.input_tokens, u.output_tokens), (Some(3), Some(1)));
        // Parts are handed out as they are known: nothing before `metadata` waits for it.
        let mut d =
            StreamDecoder::with_framing(Format::Bedrock, Framing::Ndjson, &Options::default())
                .unwrap();
        let events = text_stream();
        let upto_stop: String = events[..4].iter().map(|e| format!("{e}\n")).collect();
        let early = d.push(upto_stop.as_bytes()).unwrap();
        assert_eq!(kinds(&early), ["start", "text_start", "text", "end"]);
        let rest = d.push(format!("{}\n", events[4]).as_bytes()).unwrap();
        assert_eq!(kinds(&rest), ["usage", "response_meta", "finish"]);
        assert!(d.finish().unwrap().is_empty());
    }

    #[test]
    fn metadata_before_message_stop_finishes_at_message_stop() {
        let mut events = text_stream();
        events.swap(3, 4);
        let (parts, _) = decode(&events);
        assert_eq!(kinds(&parts).last(), Some(&"finish"));
        assert!(kinds(&parts).contains(&"usage"));
        assert!(!kinds(&parts).contains(&"error"));
    }

    #[test]
    fn only_a_stream_without_message_stop_is_incomplete() {
        // `messageStop` and no `metadata`: finished, without usage.
        let (parts, _) = decode(&text_stream()[..4]);
        assert_eq!(kinds(&parts).last(), Some(&"finish"));
        assert!(!kinds(&parts).contains(&"error"));
        // No `messageStop`: incomplete, the open text closed first.
        let (parts, _) = decode(&text_stream()[..2]);
        assert_eq!(&kinds(&parts)[3..], ["end", "error"]);
        let Some(StreamPart::Error(e)) = parts.last() else {
            unreachable!()
        };
        assert_eq!(e.kind, StreamErrorKind::Incomplete);
    }

    #[test]
    fn exceptions_become_provider_errors_named_by_their_event() {
        for name in [
            "internalServerException",
            "modelStreamErrorException",
            "serviceUnavailableException",
            "throttlingException",
            "validationException",
            // An `error` message, named by its `:error-code`.
            "InternalFailure",
        ] {
            let mut events = text_stream();
            events.truncate(2);
            events.push(json!({name: {"message": "it broke"}}));
            // What follows an exception is not part of the message.
            events.push(
                json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "more"}}}),
            );
            let (parts, losses) = decode(&events);
            let errors: Vec<_> = parts
                .iter()
                .filter_map(|p| match p {
                    StreamPart::Error(e) => Some(e),
                    _ => None,
                })
                .collect();
            assert_eq!(errors.len(), 1, "{name}: {parts:?}");
            assert_eq!(errors[0].kind, StreamErrorKind::Provider, "{name}");
            assert_eq!(errors[0].code.as_deref(), Some(name));
            assert_eq!(errors[0].message, "it broke");
            assert_eq!(kinds(&parts).iter().filter(|k| **k == "text").count(), 1);
            assert_eq!(losses.len(), 1, "{name}: {losses:?}");
        }
    }

    #[test]
    fn calls_stay_apart_on_a_reused_index_and_a_call_without_input_gets_an_empty_object() {
        let start = |id: &str| json!({"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": id, "name": "f"}}}});
        let input = |s: &str| json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": s}}}});
        let stop = json!({"contentBlockStop": {"contentBlockIndex": 0}});
        let events = vec![
            json!({"messageStart": {"role": "assistant"}}),
            start("a"),
            input(""),
            stop.clone(),
            start("b"),
            input("{\"x\":"),
            input("1}"),
            // The second call's block starts again without its stop.
            start("c"),
            input("{\"y\":2}"),
            stop,
            json!({"messageStop": {"stopReason": "tool_use"}}),
        ];
        let (parts, _) = decode(&events);
        // The call with only an empty fragment ends with the arguments `{}`, in the parts
        // themselves (a consumer of the parts need not know the rule).
        assert!(
            matches!(&parts[2..4], [StreamPart::ToolDelta { json, .. }, StreamPart::End { .. }] if json == "{}"),
            "{parts:?}"
        );
        let mut acc = crate::stream::Accumulator::new();
        acc.extend(parts);
        let r = acc.finish().unwrap();
        let calls: Vec<(String, Value)> = r.choices[0]
            .message
            .content
            .iter()
            .filter_map(|p| match p {
                crate::model::Part::ToolCall(c) => Some((c.id.clone(), c.arguments.value()?)),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls,
            [
                ("a".to_owned(), json!({})),
                ("b".to_owned(), json!({"x": 1})),
                ("c".to_owned(), json!({"y": 2}))
            ]
        );
    }

    #[test]
    fn a_call_is_complete_at_its_stop_not_when_its_input_parses() {
        let events = [
            json!({"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "a", "name": "f"}}}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"a\":1}"}}}}),
        ];
        let mut d =
            StreamDecoder::with_framing(Format::Bedrock, Framing::Ndjson, &Options::default())
                .unwrap();
        let text: String = events.iter().map(|e| format!("{e}\n")).collect();
        // `{"a":1}` parses, but the block has not stopped: the call is still open.
        let so_far = d.push(text.as_bytes()).unwrap();
        assert_eq!(kinds(&so_far), ["start", "tool_start", "tool"]);
        // The stream breaks off: its end closes the call, and says it is incomplete.
        let rest = d.finish().unwrap();
        assert_eq!(kinds(&rest), ["end", "error"]);
    }

    #[test]
    fn a_bedrock_stream_written_back_is_the_stream_it_was() {
        for name in [
            "text.chunks.txt",
            "reasoning.chunks.txt",
            "handmade-cache-details.chunks.txt",
            "handmade-throttling-exception.chunks.txt",
        ] {
            let path = test_support::fixtures_dir()
                .join("bedrock/stream")
                .join(name);
            let text = std::fs::read_to_string(&path).unwrap();
            let source: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let (parts, _) = decode(&source);
            let (written, losses) = encode(parts);
            assert_eq!(written, source, "{name}");
            assert!(losses.is_empty(), "{name}: {losses:?}");
        }
    }

    #[test]
    fn server_tool_blocks_and_citations_are_kept_and_written_back() {
        let events = vec![
            json!({"messageStart": {"role": "assistant"}}),
            json!({"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "s1", "name": "web_search", "type": "server_tool_use"}}}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"q\":\"x\"}"}}}}),
            json!({"contentBlockStop": {"contentBlockIndex": 0}}),
            json!({"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolResult": {"toolUseId": "s1", "type": "web_search_result", "status": "success"}}}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolResult": [{"text": "found"}]}}}),
            json!({"contentBlockStop": {"contentBlockIndex": 1}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"text": "It is x."}}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"citation": {"title": "X", "source": "https://x.example", "sourceContent": [{"text": "x"}], "location": {"web": {"url": "https://x.example"}}}}}}),
            json!({"contentBlockStop": {"contentBlockIndex": 2}}),
            // A call with a field this crate does not know: kept, and written back.
            json!({"contentBlockStart": {"contentBlockIndex": 3, "start": {"toolUse": {"toolUseId": "c1", "name": "f", "caller": "x"}}}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 3, "delta": {"toolUse": {"input": "{}"}}}}),
            json!({"contentBlockStop": {"contentBlockIndex": 3}}),
            json!({"messageStop": {"stopReason": "end_turn"}}),
            json!({"metadata": {"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}, "metrics": {"latencyMs": 10}}}),
        ];
        let (parts, losses) = decode(&events);
        assert!(losses.is_empty(), "{losses:?}");
        let mut acc = crate::stream::Accumulator::new();
        acc.extend(parts.clone());
        let r = acc.finish().unwrap();
        let content = &r.choices[0].message.content;
        let opaque = |i: usize| match &content[i] {
            crate::model::Part::Opaque(o) => o.value.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            opaque(0),
            json!({"toolUse": {"toolUseId": "s1", "name": "web_search", "type": "server_tool_use", "input": {"q": "x"}}})
        );
        assert_eq!(
            opaque(1),
            json!({"toolResult": {"toolUseId": "s1", "type": "web_search_result", "status": "success", "content": [{"text": "found"}]}})
        );
        let crate::model::Part::Text(t) = &content[2] else {
            panic!("{content:?}")
        };
        assert_eq!(t.text, "It is x.");
        assert_eq!(
            t.meta.vendor.fields.get("citations"),
            Some(&json!([
                events[8]["contentBlockDelta"]["delta"]["citation"]
            ]))
        );
        // As a whole response: the cited text is the `citationsContent` block the
        // non-streamed response has, and the body is valid.
        let body = crate::encode_response_value(r, Format::Bedrock, &Options::default())
            .unwrap()
            .value;
        assert_eq!(
            body["output"]["message"]["content"][2],
            json!({"citationsContent": {
                "content": [{"text": "It is x."}],
                "citations": [events[8]["contentBlockDelta"]["delta"]["citation"]],
            }})
        );
        let schema =
            test_support::conformance("bedrock.response").expect("bedrock.response schema");
        // Valid but for the unknown field, kept on the call as it came.
        assert_eq!(
            test_support::schema_errors(schema, &body),
            [
                "/output/message/content/3/toolUse: Additional properties are not allowed \
                 ('caller' was unexpected)"
            ]
        );
        // Written back: the same events.
        let (written, losses) = encode(parts);
        assert_eq!(written, events);
        assert!(losses.is_empty(), "{losses:?}");
    }

    #[test]
    fn unknown_fields_are_kept_where_they_have_a_place_and_reported_once_where_not() {
        let mut events = text_stream();
        events[0]["messageStart"]["new"] = json!(1);
        events[3]["messageStop"]["why"] = json!("x");
        events[4]["metadata"]["region"] = json!("eu");
        let (parts, losses) = decode(&events);
        assert!(losses.is_empty(), "{losses:?}");
        let (written, losses) = encode(parts);
        assert_eq!(written, events);
        assert!(losses.is_empty(), "{losses:?}");
        // A block event's own fields have no part to go with: one loss for all of them.
        let mut events = text_stream();
        let delta = events[1].clone();
        events.insert(2, delta);
        events[1]["contentBlockDelta"]["p"] = json!("abc");
        events[2]["contentBlockDelta"]["p"] = json!("abcd");
        let (_, losses) = decode(&events);
        assert_eq!(losses.len(), 1, "{losses:?}");
        assert!(
            losses[0].detail.contains("`contentBlockDelta`"),
            "{losses:?}"
        );
    }

    #[test]
    fn a_generated_image_is_read_whole_and_written_back() {
        let events = vec![
            json!({"messageStart": {"role": "assistant"}}),
            json!({"contentBlockStart": {"contentBlockIndex": 0, "start": {"image": {"format": "png"}}}}),
            json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"image": {"source": {"bytes": "iVBORw0KGgo="}}}}}),
            json!({"contentBlockStop": {"contentBlockIndex": 0}}),
            json!({"messageStop": {"stopReason": "end_turn"}}),
            json!({"metadata": {"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}, "metrics": {"latencyMs": 10}}}),
        ];
        let (parts, losses) = decode(&events);
        assert!(losses.is_empty(), "{losses:?}");
        let image = parts.iter().find_map(|p| match p {
            StreamPart::Whole(Whole {
                content: crate::model::Part::Image(m),
                ..
            }) => Some(m),
            _ => None,
        });
        assert_eq!(
            image.and_then(|m| m.media_type.as_deref()),
            Some("image/png"),
            "{parts:?}"
        );
        let (written, losses) = encode(parts);
        assert_eq!(written, events);
        assert!(losses.is_empty(), "{losses:?}");
    }

    #[test]
    fn the_encoder_passes_fragments_through_and_writes_metadata_after_message_stop() {
        use crate::model::{StopKind, StopReason, Usage};
        use crate::stream::{PartId, StreamStart};
        let p = PartId;
        let parts = vec![
            StreamPart::Start(StreamStart::default()),
            StreamPart::TextStart {
                part: p(0),
                choice: 0,
                meta: Default::default(),
            },
            StreamPart::TextDelta {
                part: p(0),
                text: "Hel".into(),
            },
            StreamPart::TextDelta {
                part: p(0),
                text: "lo".into(),
            },
            StreamPart::ToolStart(ToolStart {
                part: p(1),
                choice: 0,
                id: "call 1".into(),
                synthetic_id: false,
                name: "f".into(),
                meta: Default::default(),
            }),
            StreamPart::ToolDelta {
                part: p(1),
                json: "{\"a\"".into(),
            },
            StreamPart::ToolDelta {
                part: p(1),
                json: ":1}".into(),
            },
            StreamPart::End { part: p(1) },
            StreamPart::ToolStart(ToolStart {
                part: p(2),
                choice: 0,
                id: "call_2".into(),
                synthetic_id: false,
                name: "g".into(),
                meta: Default::default(),
            }),
            StreamPart::End { part: p(0) },
            StreamPart::End { part: p(2) },
            // The finish before the usage, as OpenAI Chat sends them.
            StreamPart::Finish(Finish {
                choice: 0,
                stop_reason: Some(StopReason {
                    kind: StopKind::ToolUse,
                    raw: None,
                    format: None,
                }),
                vendor: Default::default(),
            }),
            StreamPart::Usage(Usage {
                input_tokens: Some(5),
                output_tokens: Some(7),
                ..Default::default()
            }),
        ];
        let (events, losses) = encode(parts);
        assert_eq!(
            names(&events),
            [
                "messageStart",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockStart",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockStop",
                "contentBlockStart",
                "contentBlockStop",
                "contentBlockDelta",
                "contentBlockStop",
                "messageStop",
                "metadata"
            ]
        );
        let input = |i: usize| events[i]["contentBlockDelta"]["delta"]["toolUse"]["input"].clone();
        assert_eq!((input(4), input(5)), (json!("{\"a\""), json!(":1}")));
        // The call without arguments says `{}`.
        assert_eq!(input(9), json!("{}"));
        assert_eq!(
            events[3]["contentBlockStart"]["start"]["toolUse"]["toolUseId"],
            "call_1"
        );
        assert_eq!(
            events[11],
            json!({"messageStop": {"stopReason": "tool_use"}})
        );
        assert_eq!(
            events[12]["metadata"]["usage"],
            json!({"inputTokens": 5, "outputTokens": 7, "totalTokens": 12})
        );
        let paths: Vec<&str> = losses.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["/parts/1/id"]);
    }

    #[test]
    fn an_unfinished_source_ends_with_an_exception() {
        let parts = vec![
            StreamPart::TextStart {
                part: crate::stream::PartId(0),
                choice: 0,
                meta: Default::default(),
            },
            StreamPart::TextDelta {
                part: crate::stream::PartId(0),
                text: "Hi".into(),
            },
        ];
        let (events, _) = encode(parts);
        assert_eq!(
            names(&events),
            [
                "messageStart",
                "contentBlockDelta",
                "internalServerException"
            ]
        );
        let bytes = {
            let mut e = StreamEncoder::new(Format::Bedrock, &Options::default()).unwrap();
            let mut b = e
                .encode(StreamPart::TextStart {
                    part: crate::stream::PartId(0),
                    choice: 0,
                    meta: Default::default(),
                })
                .unwrap();
            b.extend(e.finish().unwrap());
            b
        };
        // Read back from AWS event-stream framing: a provider error, not a quiet end.
        let (parts, _) = decode_bytes(Format::Bedrock, Framing::EventStream, &bytes).unwrap();
        let Some(StreamPart::Error(e)) = parts.last() else {
            panic!("{parts:?}")
        };
        assert_eq!(e.code.as_deref(), Some("internalServerException"));
    }

    /// Every stream fixture of every format with a decoder, written as a Bedrock stream:
    /// each event valid against the event schema of the SDK (botocore's service model).
    #[test]
    fn every_event_the_encoder_writes_validates_against_the_sdk_event_schema() {
        let schema = test_support::conformance("bedrock.event").expect("bedrock.event schema");
        let mut fixtures =
            test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]);
        fixtures.extend(test_support::fixtures("event-stream", &[".eventstream"]));
        let mut checked = 0;
        let mut failures = Vec::new();
        for f in fixtures {
            let Ok(format) = f.format.parse::<Format>() else {
                continue;
            };
            let bytes = std::fs::read(&f.path).unwrap();
            let Ok((parts, _)) = decode_bytes(format, framing(&f.name), &bytes) else {
                continue;
            };
            let (events, _) = encode(parts);
            for (i, e) in events.iter().enumerate() {
                checked += 1;
                for err in test_support::schema_errors(schema, e) {
                    // `usage.serverToolUsage` comes in real captures and is newer than the
                    // botocore 1.44.8 service model the schema is generated from.
                    if err.starts_with("/metadata/usage: ") && err.contains("'serverToolUsage'") {
                        continue;
                    }
                    failures.push(format!("{}/{} event {i}: {err}: {e}", f.format, f.name));
                }
            }
        }
        assert!(checked > 300, "{checked}");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
