use super::F;
use super::encode::document_data;
use super::response::{decode_usage, encode_stop, encode_usage, stop_reason_of};
use crate::model::{
    self, Arguments, Message, Part, PartMeta, Reasoning, ReasoningConfig, Role, Settings, Signed,
    StopKind, StopReason, Tool, ToolCall, ToolChoice, ToolDef, ToolResult, Usage,
};
use crate::{Ctx, Format, Loss, LossKind, Options, convert_request, convert_response};
use serde_json::{Value, json};
use wire_types::anthropic as w;

fn to_anthropic(neutral: model::Request) -> (Value, Vec<Loss>) {
    let out = crate::encode_request_value(neutral, F, &Options::default()).unwrap();
    (out.value, out.losses)
}

fn paths(losses: &[Loss]) -> Vec<(&str, LossKind)> {
    losses.iter().map(|l| (l.path.as_str(), l.kind)).collect()
}

fn call(id: &str, name: &str, arguments: Arguments) -> Part {
    Part::ToolCall(ToolCall {
        id: id.into(),
        synthetic_id: false,
        name: name.into(),
        arguments,
        meta: PartMeta::default(),
    })
}

fn result(id: &str, text: &str, is_error: bool) -> Part {
    Part::ToolResult(ToolResult {
        call_id: id.into(),
        name: None,
        content: vec![Part::text(text)],
        is_error,
        meta: PartMeta::default(),
    })
}

#[test]
fn a_result_name_is_a_loss_only_when_its_call_is_nowhere_in_the_conversation() {
    let named = |id: &str| match result(id, "ok", false) {
        Part::ToolResult(mut r) => {
            r.name = Some(format!("name_{id}"));
            Part::ToolResult(r)
        }
        _ => unreachable!(),
    };
    let args = || Arguments::Value(json!({}));
    let messages = vec![
        Message::new(Role::Assistant, vec![call("early", "f", args())]),
        Message::new(Role::Assistant, vec![call("latest", "f", args())]),
        // `latest` is in the message before, `early` further back, `later` comes after
        // (in the conversation all the same), `gone` is nowhere.
        Message::new(
            Role::Tool,
            vec![
                named("latest"),
                named("early"),
                named("later"),
                named("gone"),
            ],
        ),
        Message::new(Role::Assistant, vec![call("later", "f", args())]),
        Message::new(Role::Tool, vec![named("later")]),
    ];
    let (_, losses) = to_anthropic(request(messages));
    let names: Vec<_> = losses
        .iter()
        .filter(|l| l.path.ends_with("/name"))
        .map(|l| l.detail.as_str())
        .collect();
    assert_eq!(names.len(), 1, "{losses:?}");
    assert!(names[0].contains("name_gone"), "{names:?}");
}

fn request(messages: Vec<Message>) -> model::Request {
    model::Request {
        model: Some("claude-haiku-4-5".into()),
        messages,
        settings: Settings {
            max_tokens: Some(512),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn stop_reasons_map_both_ways() {
    let kinds = [
        ("end_turn", StopKind::EndTurn),
        ("stop_sequence", StopKind::StopSequence),
        ("max_tokens", StopKind::MaxTokens),
        ("model_context_window_exceeded", StopKind::MaxTokens),
        ("tool_use", StopKind::ToolUse),
        ("refusal", StopKind::ContentFilter),
        ("pause_turn", StopKind::Pause),
        ("brand_new_reason", StopKind::Other),
    ];
    for (raw, kind) in kinds {
        let r = stop_reason_of(&w::StopReason::from(raw));
        assert_eq!((r.kind, r.raw.as_deref()), (kind, Some(raw)));
        // Back to this format: the raw spelling, unknown values included.
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        assert_eq!(encode_stop(&r, "", &mut ctx).as_str(), raw);
    }
    // From another format: by kind; a kind with no Anthropic value is a loss.
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let foreign = |kind, raw: &str| StopReason {
        kind,
        raw: Some(raw.into()),
        format: Some(Format::Gemini),
    };
    let r = encode_stop(&foreign(StopKind::ContentFilter, "SAFETY"), "/s", &mut ctx);
    assert_eq!(r, w::StopReason::Refusal);
    let r = encode_stop(&foreign(StopKind::MaxTokens, "MAX_TOKENS"), "/s", &mut ctx);
    assert_eq!(r, w::StopReason::MaxTokens);
    assert!(ctx.losses().is_empty());
    let r = encode_stop(
        &foreign(StopKind::Error, "MALFORMED_FUNCTION_CALL"),
        "/s",
        &mut ctx,
    );
    assert_eq!(r, w::StopReason::EndTurn);
    assert_eq!(paths(ctx.losses()), [("/s", LossKind::Changed)]);
}

#[test]
fn usage_counts_cache_tokens_as_input_and_back() {
    let wire: w::Usage = serde_json::from_value(json!({
        "input_tokens": 42, "output_tokens": 61,
        "cache_creation_input_tokens": 1536, "cache_read_input_tokens": 8192,
        "output_tokens_details": {"thinking_tokens": 22}
    }))
    .unwrap();
    let u = decode_usage(wire);
    assert_eq!(u.input_tokens, Some(42 + 1536 + 8192));
    assert_eq!(u.cached_input_tokens, Some(8192));
    assert_eq!(u.cache_write_tokens, Some(1536));
    assert_eq!(u.output_tokens, Some(61));
    assert_eq!(u.reasoning_tokens, Some(22));

    // An OpenAI-style usage: 100 prompt tokens of which 80 cached.
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let back = encode_usage(
        Usage {
            input_tokens: Some(100),
            output_tokens: Some(7),
            total_tokens: Some(107),
            cached_input_tokens: Some(80),
            ..Default::default()
        },
        &mut ctx,
    );
    assert_eq!(back.input_tokens, Some(20));
    assert_eq!(back.cache_read_input_tokens, Some(80));
    assert_eq!(back.cache_creation_input_tokens, None);
    // The total is input + output: nothing lost.
    assert!(ctx.losses().is_empty());

    // More cached than counted input: saturates at 0 rather than wrapping.
    let back = encode_usage(
        Usage {
            input_tokens: Some(10),
            output_tokens: Some(1),
            cached_input_tokens: Some(8),
            cache_write_tokens: Some(5),
            ..Default::default()
        },
        &mut ctx,
    );
    assert_eq!(back.input_tokens, Some(0));
}

#[test]
fn a_user_turn_of_results_and_text_decodes_as_a_tool_and_a_user_message() {
    let body = json!({"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}},
            {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {"x": 1}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "bad", "is_error": true},
            {"type": "text", "text": "thanks"}]}
    ]});
    let d = crate::decode_request(&body.to_string(), F, &Default::default()).unwrap();
    let roles: Vec<Role> = d.value.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::User]);
    let Part::ToolResult(b) = &d.value.messages[2].content[1] else {
        panic!("not a result")
    };
    assert!(b.is_error);
    assert_eq!(b.name.as_deref(), Some("g"));
    assert_eq!(
        d.source_path("/messages/3/content/0"),
        "/messages/2/content/2"
    );
    assert_eq!(
        d.source_path("/messages/2/content/1"),
        "/messages/2/content/1"
    );
}

#[test]
fn results_and_the_user_message_after_them_are_one_turn_results_first() {
    let (out, losses) = to_anthropic(request(vec![
        Message::text(Role::User, "weather?"),
        Message::new(
            Role::Assistant,
            vec![
                Part::text(""),
                call("c1", "w", Arguments::Text(r#"{"c":"Paris"}"#.into())),
                call("c2", "w", Arguments::Text(r#"{"c":"Lyon"}"#.into())),
            ],
        ),
        Message::new(
            Role::Tool,
            vec![result("c1", "18C", false), result("c2", "timeout", true)],
        ),
        Message::text(Role::User, "and tomorrow?"),
    ]));
    assert!(losses.is_empty(), "{losses:?}");
    assert_eq!(
        out["messages"],
        json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "c1", "name": "w", "input": {"c": "Paris"}},
                {"type": "tool_use", "id": "c2", "name": "w", "input": {"c": "Lyon"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "18C"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "timeout", "is_error": true},
                {"type": "text", "text": "and tomorrow?"}]}
        ])
    );
}

#[test]
fn other_same_role_neighbours_are_merged_with_a_loss() {
    let (out, losses) = to_anthropic(request(vec![
        Message::text(Role::User, "one"),
        Message::text(Role::User, "two"),
        Message::new(
            Role::Assistant,
            vec![call("c1", "f", Arguments::Value(json!({})))],
        ),
        Message::text(Role::User, "interjection"),
        Message::new(Role::Tool, vec![result("c1", "done", false)]),
    ]));
    assert_eq!(
        out["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "done"},
                {"type": "text", "text": "interjection"}]}
        ])
    );
    assert_eq!(
        paths(&losses),
        [
            ("/messages/1", LossKind::Changed),
            ("/messages/4", LossKind::Moved)
        ]
    );
}

#[test]
fn system_messages_go_to_the_top_and_a_late_one_moves_there() {
    let (out, losses) = to_anthropic(request(vec![
        Message::text(Role::System, "Be terse."),
        Message::text(Role::User, "hi"),
    ]));
    assert_eq!(out["system"], "Be terse.");
    assert!(losses.is_empty());

    let (out, losses) = to_anthropic(request(vec![
        Message::text(Role::System, "Be terse."),
        Message::text(Role::Developer, "Use metric units."),
        Message::text(Role::User, "hi"),
        Message::text(Role::Assistant, "hello"),
        Message::text(Role::System, "Now answer in French."),
        Message::text(Role::User, "weather?"),
    ]));
    assert_eq!(
        out["system"],
        json!([
            {"type": "text", "text": "Be terse."},
            {"type": "text", "text": "Use metric units."},
            {"type": "text", "text": "Now answer in French."}
        ])
    );
    assert_eq!(out["messages"].as_array().map(Vec::len), Some(3));
    assert_eq!(paths(&losses), [("/messages/4", LossKind::Moved)]);
}

#[test]
fn a_non_object_schema_and_its_calls_are_wrapped() {
    let mut req = request(vec![
        Message::text(Role::User, "shout"),
        Message::new(
            Role::Assistant,
            vec![call("c1", "echo", Arguments::Text("\"hi\"".into()))],
        ),
    ]);
    req.tools = vec![Tool::Function(ToolDef::new(
        "echo",
        "echoes",
        json!({"type": "string"}),
    ))];
    let (out, losses) = to_anthropic(req);
    assert_eq!(
        out["tools"][0]["input_schema"],
        json!({"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]})
    );
    assert_eq!(
        out["messages"][1]["content"][0]["input"],
        json!({"input": "hi"})
    );
    assert_eq!(
        paths(&losses),
        [
            ("/messages/1/content/0/arguments", LossKind::Changed),
            ("/tools/0/input_schema", LossKind::Changed)
        ]
    );
}

#[test]
fn the_name_of_a_result_whose_call_was_pruned_is_a_loss() {
    let mut named = result("c9", "42", false);
    if let Part::ToolResult(r) = &mut named {
        r.name = Some("answer".into());
    }
    let (out, losses) = to_anthropic(request(vec![Message::new(Role::Tool, vec![named])]));
    assert_eq!(
        out["messages"],
        json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c9", "content": "42"}]}])
    );
    assert_eq!(
        paths(&losses),
        [("/messages/0/content/0/name", LossKind::Dropped)]
    );
}

#[test]
fn parallel_false_without_a_tool_choice_is_auto_with_parallel_use_disabled() {
    let mut req = request(vec![Message::text(Role::User, "hi")]);
    req.tools = vec![Tool::Function(ToolDef::new(
        "f",
        "does f",
        json!({"type": "object"}),
    ))];
    req.settings.parallel_tool_calls = Some(false);
    let (out, losses) = to_anthropic(req);
    assert_eq!(
        out["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
    assert!(losses.is_empty());
}

#[test]
fn an_effort_alone_becomes_a_budget_with_room_below_max_tokens() {
    let mut req = request(vec![Message::text(Role::User, "hi")]);
    req.settings.max_tokens = None;
    req.settings.reasoning = Some(ReasoningConfig {
        effort: Some("high".into()),
        ..Default::default()
    });
    let (out, losses) = to_anthropic(req);
    assert_eq!(
        out["thinking"],
        json!({"type": "enabled", "budget_tokens": 16384})
    );
    assert_eq!(out["max_tokens"], 16384 + 4096);
    assert_eq!(
        paths(&losses),
        [
            ("/settings/reasoning/effort", LossKind::Changed),
            ("/max_tokens", LossKind::Changed)
        ]
    );

    // A budget with no max_tokens: the budget plus 4096.
    let mut req = request(vec![Message::text(Role::User, "hi")]);
    req.settings.max_tokens = None;
    req.settings.reasoning = Some(ReasoningConfig {
        budget_tokens: Some(2048),
        ..Default::default()
    });
    let (out, losses) = to_anthropic(req);
    assert_eq!(out["max_tokens"], 2048 + 4096);
    assert_eq!(paths(&losses), [("/max_tokens", LossKind::Changed)]);
    assert!(losses[0].detail.contains("6144 written"), "{losses:?}");
}

#[test]
fn a_budget_not_below_max_tokens_raises_max_tokens() {
    // An effort's budget (medium: 8192) above max_tokens 512: the budget is kept and
    // max_tokens raised to the budget plus 1024.
    let mut req = request(vec![Message::text(Role::User, "hi")]);
    req.settings.reasoning = Some(ReasoningConfig {
        effort: Some("medium".into()),
        ..Default::default()
    });
    let (out, losses) = to_anthropic(req);
    assert_eq!(out["thinking"]["budget_tokens"], 8192);
    assert_eq!(out["max_tokens"], 8192 + 1024);
    assert_eq!(
        paths(&losses),
        [
            ("/settings/reasoning/effort", LossKind::Changed),
            ("/settings/max_tokens", LossKind::Changed)
        ]
    );
    assert!(
        losses[1].detail.contains("raised from 512 to 9216"),
        "{losses:?}"
    );

    // An explicit budget equal to max_tokens is not below it either.
    let mut req = request(vec![Message::text(Role::User, "hi")]);
    req.settings.max_tokens = Some(2048);
    req.settings.reasoning = Some(ReasoningConfig {
        enabled: Some(true),
        budget_tokens: Some(2048),
        ..Default::default()
    });
    let (out, losses) = to_anthropic(req);
    assert_eq!(
        (&out["thinking"]["budget_tokens"], &out["max_tokens"]),
        (&json!(2048), &json!(3072))
    );
    assert_eq!(
        paths(&losses),
        [("/settings/max_tokens", LossKind::Changed)]
    );

    // Room enough: nothing changes.
    let mut req = request(vec![Message::text(Role::User, "hi")]);
    req.settings.max_tokens = Some(10_000);
    req.settings.reasoning = Some(ReasoningConfig {
        budget_tokens: Some(4096),
        ..Default::default()
    });
    let (out, losses) = to_anthropic(req);
    assert_eq!(out["max_tokens"], 10_000);
    assert!(losses.is_empty(), "{losses:?}");

    // An anthropic source that sent such a budget gets it back as it was.
    let body = json!({"model": "m", "max_tokens": 1024,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [{"role": "user", "content": "hi"}]});
    let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

fn with_tools(mut req: model::Request) -> model::Request {
    req.tools = vec![
        Tool::Function(ToolDef::new("f", "does f", json!({"type": "object"}))),
        Tool::Function(ToolDef::new("g", "does g", json!({"type": "object"}))),
    ];
    req
}

#[test]
fn a_forced_tool_choice_with_thinking_is_sent_as_auto() {
    let forced = [
        ToolChoice::Required,
        ToolChoice::Tool { name: "f".into() },
        ToolChoice::Allowed {
            names: vec!["f".into()],
            required: true,
        },
        ToolChoice::Allowed {
            names: vec!["f".into(), "g".into()],
            required: true,
        },
    ];
    for choice in forced {
        let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
        req.settings.max_tokens = Some(8192);
        req.settings.parallel_tool_calls = Some(false);
        req.settings.reasoning = Some(ReasoningConfig {
            enabled: Some(true),
            budget_tokens: Some(2048),
            ..Default::default()
        });
        req.tool_choice = Some(choice.clone());
        let (out, losses) = to_anthropic(req);
        assert_eq!(
            out["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048}),
            "{choice:?}"
        );
        assert_eq!(
            out["tool_choice"],
            json!({"type": "auto", "disable_parallel_tool_use": true}),
            "{choice:?}"
        );
        assert_eq!(
            paths(&losses),
            [("/tool_choice", LossKind::Changed)],
            "{choice:?}"
        );
        assert!(losses[0].detail.contains("`auto`"), "{losses:?}");
    }

    // Adaptive thinking (on, no budget) counts too; `none` and `auto` stay.
    let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
    req.settings.reasoning = Some(ReasoningConfig {
        enabled: Some(true),
        ..Default::default()
    });
    req.tool_choice = Some(ToolChoice::Tool { name: "g".into() });
    let (out, losses) = to_anthropic(req);
    assert_eq!(out["thinking"], json!({"type": "adaptive"}));
    assert_eq!(out["tool_choice"], json!({"type": "auto"}));
    assert_eq!(paths(&losses), [("/tool_choice", LossKind::Changed)]);
    for (choice, wire) in [(ToolChoice::None, "none"), (ToolChoice::Auto, "auto")] {
        let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
        req.settings.reasoning = Some(ReasoningConfig {
            enabled: Some(true),
            ..Default::default()
        });
        req.tool_choice = Some(choice);
        let (out, losses) = to_anthropic(req);
        assert_eq!(out["tool_choice"], json!({"type": wire}));
        assert!(losses.is_empty(), "{losses:?}");
    }

    // Without thinking (or with it disabled) a forced choice stays forced.
    let mut req = with_tools(request(vec![Message::text(Role::User, "hi")]));
    req.settings.reasoning = Some(ReasoningConfig {
        enabled: Some(false),
        ..Default::default()
    });
    req.tool_choice = Some(ToolChoice::Required);
    let (out, losses) = to_anthropic(req);
    assert_eq!(out["tool_choice"], json!({"type": "any"}));
    assert!(losses.is_empty(), "{losses:?}");

    // An anthropic source that sent the combination gets it back as it was.
    let body = json!({"model": "m", "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tool_choice": {"type": "any"},
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": "hi"}]});
    let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

#[test]
fn thinking_is_left_off_in_an_open_tool_loop_without_own_thinking() {
    let gemini_thought = Part::Reasoning(Reasoning {
        text: Some("I should call f".into()),
        source: Some(Format::Gemini),
        ..Default::default()
    });
    let own = Part::Reasoning(Reasoning {
        text: Some("I should call f".into()),
        signature: Some(Signed {
            value: "sig".into(),
            format: F,
        }),
        source: Some(F),
        ..Default::default()
    });
    let loop_of = |reasoning: Option<Part>, then_user: bool| {
        let mut assistant: Vec<Part> = reasoning.into_iter().collect();
        assistant.push(call("toolu_1", "f", Arguments::Value(json!({}))));
        let mut messages = vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, assistant),
            Message::new(Role::Tool, vec![result("toolu_1", "42", false)]),
        ];
        if then_user {
            messages.push(Message::text(Role::User, "and then?"));
        }
        let mut req = with_tools(request(messages));
        req.settings.max_tokens = Some(8192);
        req.settings.reasoning = Some(ReasoningConfig {
            effort: Some("low".into()),
            ..Default::default()
        });
        req.tool_choice = Some(ToolChoice::Required);
        req
    };

    // Foreign reasoning is dropped, so the last assistant message has no thinking:
    // thinking is left out, and so the forced choice and the effort stay as they are.
    let (out, losses) = to_anthropic(loop_of(Some(gemini_thought), false));
    assert_eq!(out.get("thinking"), None);
    assert_eq!(out["tool_choice"], json!({"type": "any"}));
    assert_eq!(out["max_tokens"], 8192);
    assert_eq!(
        out["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}])
    );
    assert_eq!(
        paths(&losses),
        [
            ("/messages/1/content/0", LossKind::Dropped),
            ("/settings/reasoning", LossKind::Changed)
        ]
    );
    assert!(losses[1].detail.contains("thinking is left off"));

    // No reasoning at all: the same.
    let (out, losses) = to_anthropic(loop_of(None, false));
    assert_eq!(out.get("thinking"), None);
    assert_eq!(paths(&losses), [("/settings/reasoning", LossKind::Changed)]);

    // Its own signed thinking first: thinking stays on (and the choice becomes auto).
    let (out, losses) = to_anthropic(loop_of(Some(own), false));
    assert_eq!(
        out["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(
        paths(&losses),
        [
            ("/settings/reasoning/effort", LossKind::Changed),
            ("/tool_choice", LossKind::Changed)
        ]
    );

    // A user message after the results closes the loop: thinking stays on.
    let (out, _) = to_anthropic(loop_of(None, true));
    assert_eq!(out["thinking"]["type"], "enabled");

    // An anthropic source with the shape is written back as it was.
    let body = json!({"model": "m", "max_tokens": 4096,
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "tools": [{"name": "f", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}]}
    ]});
    let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
}

#[test]
fn only_anthropic_signed_reasoning_is_sent() {
    let own = Part::Reasoning(Reasoning {
        text: Some("thinking".into()),
        signature: Some(Signed {
            value: "sig".into(),
            format: F,
        }),
        source: Some(F),
        ..Default::default()
    });
    let foreign = Part::Reasoning(Reasoning {
        text: Some("gemini thought".into()),
        signature: Some(Signed {
            value: "g-sig".into(),
            format: Format::Gemini,
        }),
        source: Some(Format::Gemini),
        ..Default::default()
    });
    let (out, losses) = to_anthropic(request(vec![
        Message::text(Role::User, "hi"),
        Message::new(Role::Assistant, vec![foreign, own, Part::text("hello")]),
    ]));
    assert_eq!(
        out["messages"][1]["content"],
        json!([
            {"type": "thinking", "thinking": "thinking", "signature": "sig"},
            {"type": "text", "text": "hello"}
        ])
    );
    assert_eq!(
        paths(&losses),
        [
            ("/messages/1/content/0/signature", LossKind::Dropped),
            ("/messages/1/content/0", LossKind::Dropped)
        ]
    );
}

#[test]
fn openai_data_urls_and_audio_map_to_anthropic_sources_or_losses() {
    let body = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/jpg;base64,/9j/4AAQ"}},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        {"type": "text", "text": "what is this?"}
    ]}]});
    let out = convert_request(
        &body.to_string(),
        Format::OpenaiChat,
        F,
        &Options::default(),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(
        v["messages"][0]["content"],
        json!([
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
            {"type": "text", "text": "what is this?"}
        ])
    );
    let p: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(p, ["/messages/0/content/1", "/max_tokens"]);
}

#[test]
fn a_base64_text_document_becomes_a_text_source() {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let s = document_data(
        Some("text/markdown"),
        "IyBUaXRsZQpib2R5".into(),
        "/d",
        &mut ctx,
    );
    assert_eq!(
        s.map(|s| wire_types::to_value(&s)),
        Some(json!({"type": "text", "media_type": "text/plain", "data": "# Title\nbody"}))
    );
    assert_eq!(paths(ctx.losses()), [("/d/media_type", LossKind::Changed)]);
}

#[test]
fn a_foreign_response_gets_the_required_fields() {
    let body = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
        "model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "hi"}}]});
    let out = convert_response(
        &body.to_string(),
        Format::OpenaiChat,
        F,
        &Options::default(),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(
        v,
        json!({"id": "chatcmpl-1", "type": "message", "role": "assistant", "model": "gpt-4o",
            "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 0, "output_tokens": 0}})
    );
    assert!(out.losses.iter().any(|l| l.path == "/usage"));
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
    let mut req = request(vec![
        Message::text(Role::User, "hi"),
        Message::new(Role::Assistant, vec![refusal, foreign]),
        Message::text(Role::System, "late"),
        Message::text(Role::User, "again"),
    ]);
    req.settings.max_tokens = None;
    req.settings.seed = Some(7);
    let (_, losses) = to_anthropic(req);
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
            ("/max_tokens", LossKind::Changed, FieldDefaulted),
            ("/settings/seed", LossKind::Dropped, FieldUnsupported),
        ]
    );
}

#[test]
fn an_own_vendor_field_that_does_not_fit_is_a_loss_not_a_key_twice() {
    // Hand-built: an Anthropic vendor record whose `type` and `role` are no strings. The
    // encoder writes its defaults (`message`, `assistant`) and must not write the misfits
    // beside them: the body reads back, and each misfit is a loss.
    let mut fields = serde_json::Map::new();
    fields.insert("type".to_owned(), json!(5));
    fields.insert("role".to_owned(), json!(["x"]));
    let response = model::Response {
        id: Some("msg_1".into()),
        model: Some("claude".into()),
        choices: vec![model::Choice {
            message: Message::new(Role::Assistant, vec![Part::text("hi")]),
            stop_reason: None,
            vendor: Default::default(),
        }],
        vendor: model::Vendor::new(F, fields),
        ..Default::default()
    };
    let out = crate::encode_response(response, F, &Options::default()).unwrap();
    let read: w::Response = wire_types::from_str(&out.value).unwrap();
    let value = wire_types::to_value(&read);
    assert_eq!(
        (&value["type"], &value["role"]),
        (&json!("message"), &json!("assistant"))
    );
    let lost: Vec<&str> = out
        .losses
        .iter()
        .filter(|l| l.code == crate::LossCode::FieldDefaulted && l.path != "/usage")
        .map(|l| l.path.as_str())
        .collect();
    assert_eq!(lost, ["/type", "/role"], "{:?}", out.losses);
}
