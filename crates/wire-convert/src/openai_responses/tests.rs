use super::response::{decode_usage, encode_stop, encode_usage, stop_reason};
use super::tools::encode_tools;
use super::{F, is_absent};
use crate::model::{
    self, Choice, Message, Part, Role, Signed, StopKind, StopReason, Tool, ToolDef, Usage, Vendor,
};
use crate::{
    Ctx, LossCode, LossKind, Options, convert_request_value, convert_response_value, decode_request,
};
use serde_json::{Value, json};
use wire_types::Format;
use wire_types::openai_responses as w;

#[test]
fn status_and_incomplete_reason_make_the_stop_reason() {
    let status = |s: &str| Some(w::ResponseStatus::from(s));
    let details = |reason: &str| {
        Some(w::IncompleteDetails {
            reason: Some(w::IncompleteReason::from(reason)),
            extra: Default::default(),
        })
    };
    for (s, d, calls, kind, raw) in [
        ("completed", None, false, StopKind::EndTurn, "completed"),
        // Tool use shows only as function_call items; the status stays `completed`.
        ("completed", None, true, StopKind::ToolUse, "completed"),
        // The reason is the raw value, and the details are implied by it.
        (
            "incomplete",
            details("max_output_tokens"),
            false,
            StopKind::MaxTokens,
            "max_output_tokens",
        ),
        (
            "incomplete",
            details("content_filter"),
            false,
            StopKind::ContentFilter,
            "content_filter",
        ),
        (
            "incomplete",
            details("steered"),
            false,
            StopKind::Other,
            "steered",
        ),
        ("incomplete", None, false, StopKind::Other, "incomplete"),
        ("failed", None, false, StopKind::Error, "failed"),
        ("cancelled", None, false, StopKind::Other, "cancelled"),
    ] {
        let (r, left) = stop_reason(status(s), d, calls);
        let r = r.unwrap();
        assert_eq!(r.format, Some(F));
        assert_eq!(
            (r.kind, r.raw.as_deref(), left),
            (kind, Some(raw), None),
            "{s}"
        );
    }
    // Details that a `completed` status does not imply are kept as they are.
    let (_, left) = stop_reason(status("completed"), details("max_output_tokens"), false);
    assert_eq!(left, Some(json!({"reason": "max_output_tokens"})));
    assert_eq!(stop_reason(None, None, false), (None, None));
}

#[test]
fn stop_kinds_of_other_formats_become_a_status() {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let enc = |kind, raw: Option<&str>, format, ctx: &mut Ctx<'_>| {
        let r = StopReason {
            kind,
            raw: raw.map(str::to_owned),
            format,
        };
        let (s, d) = encode_stop(&r, "/choices/0/stop_reason", ctx);
        (
            s.as_str().to_owned(),
            d.and_then(|d| d.reason).map(|r| r.as_str().to_owned()),
        )
    };
    let anthropic = Some(Format::Anthropic);
    assert_eq!(
        enc(StopKind::MaxTokens, Some("max_tokens"), anthropic, &mut ctx),
        ("incomplete".into(), Some("max_output_tokens".into()))
    );
    assert_eq!(
        enc(
            StopKind::ContentFilter,
            Some("refusal"),
            anthropic,
            &mut ctx
        ),
        ("incomplete".into(), Some("content_filter".into()))
    );
    assert_eq!(
        enc(StopKind::ToolUse, Some("tool_use"), anthropic, &mut ctx),
        ("completed".into(), None)
    );
    assert!(ctx.losses().is_empty());
    assert_eq!(
        enc(
            StopKind::Error,
            Some("MALFORMED_FUNCTION_CALL"),
            Some(Format::Gemini),
            &mut ctx
        ),
        ("failed".into(), None)
    );
    assert_eq!(
        enc(StopKind::Pause, Some("pause_turn"), anthropic, &mut ctx),
        ("incomplete".into(), None)
    );
    assert_eq!(ctx.losses().len(), 2);
    // This format's own raw value goes back as it came.
    assert_eq!(
        enc(StopKind::Other, Some("steered"), Some(F), &mut ctx),
        ("incomplete".into(), Some("steered".into()))
    );
    assert_eq!(
        enc(StopKind::Other, Some("cancelled"), Some(F), &mut ctx),
        ("cancelled".into(), None)
    );
    assert_eq!(ctx.losses().len(), 2);
}

#[test]
fn usage_from_another_format_fills_the_required_details() {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let u = Usage {
        input_tokens: Some(100),
        output_tokens: Some(50),
        cached_input_tokens: Some(20),
        reasoning_tokens: Some(30),
        ..Default::default()
    };
    let out = wire_types::to_value(&encode_usage(u, &mut ctx).unwrap());
    assert_eq!(
        out,
        json!({
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 20, "cache_write_tokens": 0},
            "output_tokens": 50,
            "output_tokens_details": {"reasoning_tokens": 30},
            "total_tokens": 150
        })
    );
    assert!(ctx.losses().is_empty());
    // A missing count is written as 0, with a loss.
    let u = Usage {
        output_tokens: Some(7),
        ..Default::default()
    };
    let out = wire_types::to_value(&encode_usage(u, &mut ctx).unwrap());
    assert_eq!(out["input_tokens"], 0);
    assert_eq!(out["total_tokens"], 7);
    assert_eq!(ctx.losses().len(), 1);
    assert_eq!(ctx.losses()[0].path, "/usage/input_tokens");
    assert_eq!(ctx.losses()[0].code, LossCode::FieldDefaulted);
}

#[test]
fn usage_reads_cached_and_reasoning_tokens() {
    let u: w::Usage = wire_types::from_value(&json!({
        "input_tokens": 7243,
        "input_tokens_details": {"cached_tokens": 3072},
        "output_tokens": 423,
        "output_tokens_details": {"reasoning_tokens": 58},
        "total_tokens": 7666
    }))
    .unwrap();
    let n = decode_usage(u);
    assert_eq!(
        (
            n.input_tokens,
            n.cached_input_tokens,
            n.cache_write_tokens,
            n.output_tokens,
            n.reasoning_tokens,
            n.total_tokens
        ),
        (
            Some(7243),
            Some(3072),
            None,
            Some(423),
            Some(58),
            Some(7666)
        )
    );
    // The capture has no cache_write_tokens: none is added when written back.
    assert!(is_absent(
        &n.vendor,
        "input_tokens_details.cache_write_tokens"
    ));
}

fn request() -> Value {
    json!({
        "model": "gpt-5.4",
        "instructions": "Be terse.",
        "input": [
            {"role": "user", "content": "Weather in Paris and Tokyo?"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA1"},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_weather", "arguments": "{\"city\":\"Tokyo\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
            {"type": "function_call_output", "call_id": "call_2", "output": "21C"},
            {"type": "reasoning", "id": "rs_2", "summary": [{"type": "summary_text", "text": "Both found."}]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "phase": "final_answer",
             "content": [{"type": "output_text", "text": "Paris 18C, ", "annotations": []},
                         {"type": "output_text", "text": "Tokyo 21C.", "annotations": []}]},
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Now answer in French."}]},
            {"role": "user", "content": "Merci?"}
        ]
    })
}

#[test]
fn consecutive_assistant_items_make_one_message_and_split_back_in_order() {
    let d = decode_request(&request().to_string(), F, &Default::default()).unwrap();
    let roles: Vec<Role> = d.value.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Developer,
            Role::User
        ]
    );
    let kinds =
        |i: usize| -> Vec<&str> { d.value.messages[i].content.iter().map(Part::kind).collect() };
    assert_eq!(kinds(2), ["reasoning", "tool_call", "tool_call"]);
    assert_eq!(kinds(3), ["tool_result", "tool_result"]);
    assert_eq!(kinds(4), ["reasoning", "text", "text"]);
    // Sources of what a loss may point at.
    assert_eq!(d.source_path("/messages/0"), "/instructions");
    assert_eq!(d.source_path("/messages/2/content/2/id"), "/input/3/id");
    assert_eq!(d.source_path("/messages/3/content/1"), "/input/5");
    assert_eq!(d.source_path("/messages/4/content/2"), "/input/7/content/1");
    assert_eq!(
        d.source_path("/messages/4/content/1/$msg.phase"),
        "/input/7/phase"
    );
    // Written back: the same items in the same order, nothing lost.
    let out = convert_request_value(&request(), F, F, &Options::default()).unwrap();
    assert!(out.losses.is_empty());
    assert_eq!(out.value, request());
}

#[test]
fn encrypted_reasoning_never_leaves_its_format() {
    let out =
        convert_request_value(&request(), F, Format::OpenaiChat, &Options::default()).unwrap();
    let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
    assert!(paths.contains(&"/input/1/encrypted_content"), "{paths:?}");
    assert!(!out.value.to_string().contains("gAAAA1"));
    assert_eq!(
        out.value["messages"][0],
        json!({"role": "system", "content": "Be terse."})
    );
    // The developer message stays in place.
    assert_eq!(out.value["messages"][6]["role"], "developer");
}

#[test]
fn reasoning_of_another_format_is_dropped_from_a_request_but_returned_in_a_response() {
    let reasoning = Part::Reasoning(model::Reasoning {
        text: Some("thinking".into()),
        signature: Some(Signed {
            value: "sig".into(),
            format: Format::Anthropic,
        }),
        source: Some(Format::Anthropic),
        ..Default::default()
    });
    let message = Message::new(Role::Assistant, vec![reasoning, Part::text("Hi.")]);
    let req = model::Request {
        model: Some("m".into()),
        messages: vec![Message::text(Role::User, "Hello"), message.clone()],
        ..Default::default()
    };
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    assert_eq!(
        out.value["input"],
        json!([{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."}])
    );
    let losses: Vec<(&str, LossCode)> = out
        .losses
        .iter()
        .map(|l| (l.path.as_str(), l.code))
        .collect();
    assert_eq!(
        losses,
        [
            (
                "/messages/1/content/0/signature",
                LossCode::SignatureForeign
            ),
            ("/messages/1/content/0", LossCode::ReasoningDropped)
        ]
    );

    let resp = model::Response {
        choices: vec![Choice {
            message,
            stop_reason: Some(StopReason::new(StopKind::EndTurn)),
            vendor: Vendor::default(),
        }],
        ..Default::default()
    };
    let out = crate::encode_response_value(resp, F, &Options::default()).unwrap();
    assert_eq!(
        out.value["output"],
        json!([
            {"type": "reasoning", "id": "rs_0", "summary": [],
             "content": [{"type": "reasoning_text", "text": "thinking"}]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}
        ])
    );
    assert_eq!(out.value["status"], "completed");
    assert_eq!(out.value["object"], "response");
}

#[test]
fn hosted_and_custom_items_are_kept_whole_on_their_side() {
    let body = json!({
        "input": [
            {"role": "user", "content": "Patch it."},
            {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "*** Begin Patch"},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
            {"type": "apply_patch_call_output", "call_id": "c2", "status": "completed"},
            {"type": "item_reference", "id": "msg_9"}
        ]
    });
    let d = decode_request(&body.to_string(), F, &Default::default()).unwrap();
    let roles: Vec<Role> = d.value.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::User, Role::Assistant]
    );
    assert_eq!(d.value.messages[2].content.len(), 2);
    let out = convert_request_value(&body, F, F, &Options::default()).unwrap();
    assert!(out.losses.is_empty());
    assert_eq!(out.value, body);
}

#[test]
fn a_leading_system_message_of_another_format_stays_an_input_message() {
    let chat = json!({"model": "gpt-4o", "messages": [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Hi"}]});
    let out = convert_request_value(&chat, Format::OpenaiChat, F, &Options::default()).unwrap();
    assert_eq!(
        out.value,
        json!({"model": "gpt-4o", "input": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "Hi"}]})
    );
}

#[test]
fn tools_of_another_format_are_flat_and_say_strict() {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let tools = vec![
        Tool::Function(ToolDef::new(
            "a",
            "A.",
            json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        )),
        Tool::Function(ToolDef {
            strict: Some(true),
            ..ToolDef::new(
                "b",
                "B.",
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            )
        }),
    ];
    let out = wire_types::to_value(&encode_tools(tools, &mut ctx));
    assert_eq!(
        out,
        json!([
            {"type": "function", "name": "a", "description": "A.",
             "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}, "strict": false},
            {"type": "function", "name": "b", "description": "B.",
             "parameters": {"type": "object", "properties": {"x": {"type": ["string", "null"]}},
                            "additionalProperties": false, "required": ["x"]}, "strict": true}
        ])
    );
    // Strict mode rewrote b's schema: two losses, under /tools/1.
    assert_eq!(ctx.losses().len(), 2);
    assert!(
        ctx.losses()
            .iter()
            .all(|l| l.path.starts_with("/tools/1/input_schema"))
    );
}

#[test]
fn a_tool_that_no_longer_fits_is_dropped_with_a_loss_and_the_others_kept() {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    // A kept field of this format that its object cannot hold (`strict` must be a bool).
    let mut bad = ToolDef::new("bad", "B.", json!({"type": "object"}));
    bad.vendor = Vendor::new(F, json!({"strict": "yes"}).as_object().unwrap().clone());
    let hosted = Tool::Opaque(model::Opaque {
        format: F,
        value: json!({"type": "web_search"}),
        meta: Default::default(),
    });
    // A built-in with no Responses equivalent (Google Search would be mapped).
    let foreign = Tool::Opaque(model::Opaque {
        format: Format::Gemini,
        value: json!({"urlContext": {}}),
        meta: Default::default(),
    });
    let tools = vec![Tool::Function(bad), hosted, foreign];
    let out = wire_types::to_value(&encode_tools(tools, &mut ctx));
    assert_eq!(out, json!([{"type": "web_search"}]));
    let losses: Vec<(&str, LossKind, LossCode)> = ctx
        .losses()
        .iter()
        .map(|l| (l.path.as_str(), l.kind, l.code))
        .collect();
    assert_eq!(
        losses,
        [
            ("/tools/0", LossKind::Dropped, LossCode::ToolUnsupported),
            ("/tools/2", LossKind::Dropped, LossCode::ToolUnsupported)
        ]
    );
}

#[test]
fn bad_input_names_its_pointer() {
    let body =
        json!({"input": [{"role": "user", "content": "a"}, {"role": "tool", "content": "b"}]});
    let err = convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap_err();
    assert_eq!(err.pointer(), Some("/input/1/role"));
    let body = json!({"input": [{"type": "function_call_output", "output": "b"}]});
    let err = convert_request_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap_err();
    assert_eq!(err.pointer(), Some("/input/0/call_id"));
}

#[test]
fn an_incomplete_response_goes_to_chat_as_length() {
    let body = json!({"id": "resp_1", "object": "response", "created_at": 1, "model": "m",
        "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
        "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "incomplete",
                    "content": [{"type": "output_text", "text": "Par", "annotations": []}]}],
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": []});
    let out = convert_response_value(&body, F, Format::OpenaiChat, &Options::default()).unwrap();
    assert_eq!(out.value["choices"][0]["finish_reason"], "length");
    let back = convert_response_value(&body, F, F, &Options::default()).unwrap();
    assert_eq!(back.value, body);
    assert!(back.losses.is_empty());
}

#[test]
fn a_failed_result_is_prefixed_once() {
    let body = json!({"model": "c", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
                "content": "Error: boom"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
                "content": "timeout"}]}]});
    let out = convert_request_value(&body, Format::Anthropic, F, &Options::default()).unwrap();
    let input = &out.value["input"];
    assert_eq!(input[3]["type"], "function_call_output");
    assert_eq!(input[3]["output"], "Error: boom");
    assert_eq!(input[4]["output"], "Error: timeout");
    for path in [
        "/messages/2/content/0/is_error",
        "/messages/2/content/1/is_error",
    ] {
        let l: Vec<_> = out.losses.iter().filter(|l| l.path == path).collect();
        assert_eq!(l.len(), 1, "{path}");
        assert_eq!(
            (l[0].kind, l[0].code),
            (LossKind::Changed, LossCode::PartChanged)
        );
    }
}

#[test]
fn no_empty_assistant_message_before_calls() {
    let mistral = json!({"model": "m", "messages": [
        {"role": "user", "content": "status?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "D681PevKs",
            "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "D681PevKs", "name": "f", "content": "ok"}]});
    let out = convert_request_value(&mistral, Format::Mistral, F, &Options::default()).unwrap();
    assert_eq!(
        out.value["input"],
        json!([
            {"role": "user", "content": "status?"},
            {"type": "function_call", "call_id": "D681PevKs", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "D681PevKs", "output": "ok"}
        ])
    );
    assert!(out.losses.is_empty(), "{:?}", out.losses);
    // An empty message item of Responses' own before its calls stays.
    let own = json!({"model": "m", "input": [
        {"role": "user", "content": "status?"},
        {"type": "message", "role": "assistant", "content": ""},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}]});
    let same = convert_request_value(&own, F, F, &Options::default()).unwrap();
    assert_eq!(same.value, own);
    assert!(same.losses.is_empty());
}

#[test]
fn a_custom_call_reads_from_its_item_and_its_output_is_a_custom_output_item() {
    let body = json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
        "model": "gpt-5", "output": [
            {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "sql", "input": "SELECT 1"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed"}]});
    let d = crate::decode_response(&body.to_string(), F, &Options::default()).unwrap();
    let parts = &d.value.choices[0].message.content;
    let call = crate::decode_custom_call(&parts[0]).unwrap();
    assert_eq!((call.id.as_str(), call.name.as_str()), ("call_1", "sql"));
    assert_eq!(call.arguments.value(), Some(json!("SELECT 1")));
    assert_eq!(
        crate::decode_custom_call(&parts[1]),
        None,
        "a hosted call is no custom call"
    );

    let failed = crate::model::ToolResult {
        call_id: "call_1".into(),
        name: Some("sql".into()),
        content: vec![crate::model::Part::text("no such table")],
        is_error: true,
        meta: Default::default(),
    };
    let out = crate::encode_custom_output(failed, &Options::default()).unwrap();
    let crate::model::Part::Opaque(item) = out.value else {
        panic!("an item kept whole")
    };
    assert_eq!(
        item.value,
        json!({"type": "custom_tool_call_output", "call_id": "call_1", "output": "Error: no such table"})
    );
    assert_eq!(out.losses[0].path, "/is_error");
}
