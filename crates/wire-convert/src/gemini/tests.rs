use super::decode::decode_response_object;
use super::encode::{Item, SKIP_SIGNATURE, response_object};
use super::response::{decode_usage, encode_stop, encode_usage, stop_kind};
use super::settings::{decode_tool_choice, encode_thinking, encode_tool_choice};
use super::{F, signed};
use crate::model::{
    self, Message, OutputFormat, Part, PartMeta, Reasoning, ReasoningConfig, Role, Signed,
    StopKind, StopReason, Text, ToolChoice, ToolResult, Usage,
};
use crate::{
    Converted, Ctx, GeminiSchema, LossCode, LossKind, Options, convert_request, convert_response,
    decode_request as decode,
};
use serde_json::{Value, json};
use wire_types::Format;
use wire_types::gemini as w;

fn gemini_request(body: Value) -> model::Request {
    decode(&body.to_string(), Format::Gemini, &Default::default())
        .unwrap()
        .value
}

/// `body`, an OpenAI Chat request, converted to Gemini with the default options.
fn from_chat(body: &Value) -> (Value, Converted<String>) {
    let out = convert_request(
        &body.to_string(),
        Format::OpenaiChat,
        F,
        &Options::default(),
    )
    .unwrap();
    (serde_json::from_str(&out.value).unwrap(), out)
}

/// The losses of a conversion as (pointer, kind, code).
fn losses(out: &Converted<impl Sized>) -> Vec<(&str, LossKind, LossCode)> {
    out.losses
        .iter()
        .map(|l| (l.path.as_str(), l.kind, l.code))
        .collect()
}

#[test]
fn foreign_calls_of_the_current_turn_get_the_skip_signature_on_the_first_call_of_each_step() {
    let call = |id: &str| json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}});
    let tool = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": "ok"});
    let body = json!({"model": "m", "messages": [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": null, "tool_calls": [call("a")]},
        tool("a"),
        {"role": "user", "content": "now"},
        {"role": "assistant", "content": "Two at once.", "tool_calls": [call("b"), call("c")]},
        tool("b"), tool("c"),
        {"role": "assistant", "content": null, "tool_calls": [call("d")]},
        tool("d")]});
    let (v, _) = from_chat(&body);
    let signatures: Vec<(String, Option<&str>)> = v["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter(|p| p.get("functionCall").is_some())
        .map(|p| {
            (
                p["functionCall"]["id"].as_str().unwrap().to_owned(),
                p["thoughtSignature"].as_str(),
            )
        })
        .collect();
    let skip = Some(SKIP_SIGNATURE);
    assert_eq!(
        signatures,
        [
            // An earlier turn: not validated, left as it was.
            ("a".to_owned(), None),
            // The current turn: the first call of each step.
            ("b".to_owned(), skip),
            ("c".to_owned(), None),
            ("d".to_owned(), skip),
        ]
    );
    // Gemini's own history is written back as it came, signatures or none.
    let own = json!({"contents": [
        {"role": "user", "parts": [{"text": "now"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]});
    let back = convert_request(&own.to_string(), F, F, &Options::default()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&back.value).unwrap(), own);
    // A signature the call has is kept.
    let mut neutral = gemini_request(own);
    if let Some(Part::ToolCall(c)) = neutral.messages[1].content.first_mut() {
        c.meta.signature = Some(Signed {
            format: F,
            value: "c2lnbmVk".into(),
        });
    }
    let out = crate::encode_request_value(neutral, F, &Options::default()).unwrap();
    assert_eq!(
        out.value["contents"][1]["parts"][0]["thoughtSignature"],
        "c2lnbmVk"
    );
}

#[test]
fn finish_reasons_map_to_kinds() {
    use w::FinishReason as R;
    assert_eq!(stop_kind(&R::Stop, false), StopKind::EndTurn);
    assert_eq!(stop_kind(&R::Stop, true), StopKind::ToolUse);
    assert_eq!(stop_kind(&R::MaxTokens, false), StopKind::MaxTokens);
    for r in [
        R::Safety,
        R::Recitation,
        R::Blocklist,
        R::Spii,
        R::ImageSafety,
    ] {
        assert_eq!(stop_kind(&r, false), StopKind::ContentFilter);
    }
    assert_eq!(
        stop_kind(&R::from("IMAGE_SOMETHING_NEW"), false),
        StopKind::ContentFilter
    );
    for r in [
        R::MalformedFunctionCall,
        R::UnexpectedToolCall,
        R::TooManyToolCalls,
    ] {
        assert_eq!(stop_kind(&r, false), StopKind::Error);
    }
    for r in [R::OtherReason, R::Language, R::from("SOMETHING_NEW")] {
        assert_eq!(stop_kind(&r, false), StopKind::Other);
    }

    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    let tool_use = StopReason::new(StopKind::ToolUse);
    assert_eq!(encode_stop(&tool_use, "", &mut ctx), R::Stop);
    assert!(ctx.losses().is_empty());
    let pause = StopReason {
        kind: StopKind::Pause,
        raw: Some("pause_turn".into()),
        format: Some(Format::Anthropic),
    };
    assert_eq!(encode_stop(&pause, "/x", &mut ctx), R::OtherReason);
    assert_eq!(ctx.losses().len(), 1);
    // The same format's raw value goes back as it was.
    let raw = StopReason {
        kind: StopKind::Other,
        raw: Some("LANGUAGE".into()),
        format: Some(F),
    };
    assert_eq!(encode_stop(&raw, "", &mut ctx), R::Language);
}

#[test]
fn usage_counts_tool_prompt_as_input_and_thoughts_as_output() {
    let um: w::UsageMetadata = serde_json::from_value(json!({
        "promptTokenCount": 21, "candidatesTokenCount": 96, "totalTokenCount": 363,
        "toolUsePromptTokenCount": 160, "thoughtsTokenCount": 86,
        "cachedContentTokenCount": 8
    }))
    .unwrap();
    let u = decode_usage(um.clone());
    assert_eq!(u.input_tokens, Some(181));
    assert_eq!(u.output_tokens, Some(182));
    assert_eq!(u.reasoning_tokens, Some(86));
    assert_eq!(u.cached_input_tokens, Some(8));
    assert_eq!(u.total_tokens, Some(363));
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    assert_eq!(encode_usage(u, &mut ctx), um);

    // Thoughts only (the budget went to thinking): candidates stay absent.
    let um: w::UsageMetadata =
        serde_json::from_value(json!({"promptTokenCount": 41, "thoughtsTokenCount": 1023}))
            .unwrap();
    let u = decode_usage(um.clone());
    assert_eq!(u.output_tokens, Some(1023));
    assert_eq!(encode_usage(u, &mut ctx), um);

    // From another format: candidates = output - reasoning, total = input + output.
    let u = Usage {
        input_tokens: Some(100),
        output_tokens: Some(50),
        reasoning_tokens: Some(20),
        ..Default::default()
    };
    let um = encode_usage(u, &mut ctx);
    assert_eq!(um.prompt_token_count, Some(100));
    assert_eq!(um.candidates_token_count, Some(30));
    assert_eq!(um.thoughts_token_count, Some(20));
    assert_eq!(um.total_token_count, Some(150));
}

#[test]
fn results_match_calls_by_name_and_order() {
    let req = gemini_request(json!({"contents": [
        {"role": "user", "parts": [{"text": "sums"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "sum", "args": {"x": 1}}},
            {"functionCall": {"name": "mul", "args": {"x": 2}}},
            {"functionCall": {"name": "sum", "args": {"x": 3}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "sum", "response": {"output": "1"}}},
            {"functionResponse": {"name": "sum", "response": {"output": "3"}}},
            {"functionResponse": {"name": "mul", "response": {"output": "2"}}},
            {"functionResponse": {"name": "gone", "response": {"output": "?"}}}]}
    ]}));
    let ids: Vec<&str> = req.messages[1]
        .content
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) => {
                assert!(c.synthetic_id);
                Some(c.id.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["call_1_0_sum", "call_1_1_mul", "call_1_2_sum"]);
    let results: Vec<(&str, Option<&str>)> = req.messages[2]
        .content
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult(r) => Some((r.call_id.as_str(), r.name.as_deref())),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("call_1_0_sum", Some("sum")),
            ("call_1_2_sum", Some("sum")),
            ("call_1_1_mul", Some("mul")),
            // Its call was pruned: a synthetic id, and the name survives.
            ("call_2_3_gone", Some("gone")),
        ]
    );
}

#[test]
fn a_user_content_reads_as_results_then_text_and_writes_back_as_it_was() {
    let body = json!({"contents": [
        {"role": "model", "parts": [
            {"functionCall": {"name": "a", "args": {}}},
            {"functionCall": {"name": "b", "args": {}}}]},
        {"role": "user", "parts": [
            {"text": "first the note"},
            {"functionResponse": {"name": "a", "response": {"output": "x"}}},
            {"text": "between"},
            {"functionResponse": {"name": "b", "response": {"output": "y"}}}]}
    ]});
    let req = gemini_request(body.clone());
    let roles: Vec<Role> = req.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::Assistant, Role::Tool, Role::User]);
    assert_eq!(req.messages[2].joined_text(), "first the notebetween");
    let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
    assert!(out.losses.is_empty());
}

#[test]
fn real_ids_are_kept_and_synthetic_ones_never_written() {
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [
            {"functionCall": {"id": "fc_1", "name": "a", "args": {}}},
            {"functionCall": {"name": "b", "args": {}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "fc_1", "name": "a", "response": {"output": "x"}}},
            {"functionResponse": {"name": "b", "response": {"output": "y"}}}]}
    ]});
    let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
    let v: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(v, body);
    assert!(out.losses.is_empty());

    // To OpenAI Chat, every call has an id, and the results agree with them.
    let out = convert_request(
        &body.to_string(),
        F,
        Format::OpenaiChat,
        &Options::default(),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(v["messages"][1]["tool_calls"][0]["id"], "fc_1");
    assert_eq!(v["messages"][1]["tool_calls"][1]["id"], "call_1_1_b");
    assert_eq!(v["messages"][2]["tool_call_id"], "fc_1");
    assert_eq!(v["messages"][3]["tool_call_id"], "call_1_1_b");
}

#[test]
fn responses_objects_read_as_text_json_or_error() {
    let read = |v: Value| -> w::FunctionResult { serde_json::from_value(v).unwrap() };
    let (c, e) = decode_response_object(read(json!({"output": "21°C"})));
    assert_eq!(c, vec![Part::text("21°C")]);
    assert!(!e);
    let (c, e) = decode_response_object(read(json!({"error": "timeout"})));
    assert_eq!(c, vec![Part::text("timeout")]);
    assert!(e);
    let (c, _) = decode_response_object(read(json!({"temp": 21, "unit": "C"})));
    assert!(matches!(&c[0], Part::Json(j) if j.value == json!({"temp": 21, "unit": "C"})));

    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    for (item, is_error, response) in [
        (Item::Text("ok".into()), false, json!({"output": "ok"})),
        (
            Item::Json(json!([1, 2]), false),
            false,
            json!({"output": [1, 2]}),
        ),
        (Item::Json(json!({"a": 1}), false), false, json!({"a": 1})),
        (Item::Text("bad".into()), true, json!({"error": "bad"})),
    ] {
        let written = response_object(vec![item], is_error, "", &mut ctx);
        assert_eq!(wire_types::to_value(&written), response);
    }
    assert!(ctx.losses().is_empty());
}

#[test]
fn tool_choice_round_trips() {
    for c in [
        ToolChoice::Auto,
        ToolChoice::None,
        ToolChoice::Required,
        ToolChoice::Tool { name: "a".into() },
        ToolChoice::Allowed {
            names: vec!["a".into(), "b".into()],
            required: true,
        },
        ToolChoice::Allowed {
            names: vec!["a".into()],
            required: false,
        },
    ] {
        assert_eq!(decode_tool_choice(&encode_tool_choice(c.clone())), Some(c));
    }
}

#[test]
fn media_urls_need_a_media_type() {
    assert_eq!(
        crate::media::guess_media_type("https://x.org/a/cat.JPG?s=1"),
        Some("image/jpeg")
    );
    assert_eq!(crate::media::guess_media_type("https://x.org/a/cat"), None);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://x.org/cat.png"}},
        {"type": "image_url", "image_url": {"url": "https://x.org/render?id=7"}}]}]});
    let (v, out) = from_chat(&body);
    assert_eq!(
        v["contents"][0]["parts"][1],
        json!({"fileData": {"mimeType": "image/png", "fileUri": "https://x.org/cat.png"}})
    );
    assert_eq!(v["contents"][0]["parts"].as_array().unwrap().len(), 2);
    assert_eq!(
        losses(&out),
        [
            ("/model", LossKind::Dropped, LossCode::FieldUnsupported),
            (
                "/messages/0/content/2",
                LossKind::Dropped,
                LossCode::PartUnsupported
            )
        ]
    );
}

#[test]
fn system_messages_move_and_same_role_turns_merge() {
    let body = json!({"model": "m", "messages": [
        {"role": "system", "content": "Be terse."},
        {"role": "developer", "content": "Use metric units."},
        {"role": "user", "content": "Weather?"},
        {"role": "user", "content": "In Paris."},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "21"},
        {"role": "user", "content": "And tomorrow?"},
        {"role": "system", "content": "Answer in French."}]});
    let (v, out) = from_chat(&body);
    assert_eq!(
        v["systemInstruction"],
        json!({"parts": [{"text": "Be terse."}, {"text": "Use metric units."}, {"text": "Answer in French."}]})
    );
    assert_eq!(
        v["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Weather?"}, {"text": "In Paris."}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "w", "args": {"city": "Paris"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "c1", "name": "w", "response": {"output": "21"}}},
                {"text": "And tomorrow?"}]}
        ])
    );
    assert_eq!(
        losses(&out),
        [
            ("/model", LossKind::Dropped, LossCode::FieldUnsupported),
            ("/messages/3", LossKind::Changed, LossCode::TurnsChanged),
            ("/messages/7", LossKind::Moved, LossCode::SystemMoved),
        ]
    );
}

#[test]
fn a_signed_model_turn_keeps_its_own_content() {
    let signed_text = |t: &str, sig: &str| {
        Part::Text(Text {
            text: t.into(),
            meta: PartMeta {
                signature: Some(signed(sig.into())),
                ..Default::default()
            },
        })
    };
    let req = model::Request {
        messages: vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, vec![signed_text("a", "s1")]),
            Message::new(Role::Assistant, vec![signed_text("b", "s2")]),
            Message::text(Role::Assistant, "c"),
        ],
        ..Default::default()
    };
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    let contents = out.value["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3);
    assert_eq!(
        contents[2]["parts"],
        json!([{"text": "b", "thoughtSignature": "s2"}, {"text": "c"}])
    );
    assert_eq!(out.losses.len(), 1);
    assert_eq!(out.losses[0].path, "/messages/3");
}

#[test]
fn output_schemas_round_trip_in_either_field() {
    for (field, schema) in [
        (
            "responseSchema",
            json!({"type": "OBJECT", "properties": {"a": {"type": "STRING", "nullable": true}}}),
        ),
        (
            "responseJsonSchema",
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
        ),
    ] {
        let body = json!({"contents": [{"role": "user", "parts": [{"text": "json please"}]}],
            "generationConfig": {"responseMimeType": "application/json", field: schema}});
        let out = convert_request(&body.to_string(), F, F, &Options::default()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&out.value).unwrap(), body);
        assert!(out.losses.is_empty());
        let req = gemini_request(body);
        assert!(matches!(
            &req.output_format,
            Some(OutputFormat::JsonSchema { schema, .. })
                if schema == &json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}})
        ));
    }
}

#[test]
fn json_schema_tools_follow_the_option() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters":
            {"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "additionalProperties": false}}},
            {"type": "function", "function": {"name": "g", "parameters": {"type": "object", "properties": {}}}}]});
    let (v, out) = from_chat(&body);
    let decls = &v["tools"][0]["functionDeclarations"];
    assert_eq!(
        decls[0]["parameters"],
        json!({"type": "OBJECT", "properties": {"x": {"type": "STRING", "nullable": true}}})
    );
    // No properties: Gemini refuses an empty OBJECT, so there are no parameters.
    assert_eq!(decls[1], json!({"name": "g"}));
    assert_eq!(out.losses.len(), 2);
    let opts = Options {
        gemini_schema: GeminiSchema::JsonSchema,
        ..Default::default()
    };
    let out = convert_request(&body.to_string(), Format::OpenaiChat, F, &opts).unwrap();
    let v: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(
        v["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
        body["tools"][0]["function"]["parameters"]
    );
}

#[test]
fn thinking_settings_map_both_ways() {
    let opts = Options::default();
    let mut ctx = Ctx::new(F, &opts);
    for (r, budget, level) in [
        (
            ReasoningConfig {
                enabled: Some(true),
                budget_tokens: Some(2048),
                ..Default::default()
            },
            Some(2048),
            None,
        ),
        // No `none` level: thinking off is a zero budget (the one loss).
        (
            ReasoningConfig {
                effort: Some("none".into()),
                ..Default::default()
            },
            Some(0),
            None,
        ),
        (
            ReasoningConfig {
                effort: Some("medium".into()),
                ..Default::default()
            },
            None,
            Some(w::ThinkingLevel::Medium),
        ),
    ] {
        let mut tc = w::ThinkingConfig::default();
        encode_thinking(r, &mut tc, false, &mut ctx);
        assert_eq!((tc.thinking_budget, tc.thinking_level), (budget, level));
    }
    assert_eq!(ctx.losses().len(), 1);
    assert_eq!(ctx.losses()[0].code, LossCode::SettingChanged);
    let req = gemini_request(json!({"contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"thinkingConfig": {"thinkingBudget": -1}}}));
    assert_eq!(
        req.settings.reasoning,
        Some(ReasoningConfig {
            enabled: Some(true),
            ..Default::default()
        })
    );
}

#[test]
fn a_usage_round_trip_through_a_response() {
    let body = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "now", "args": {}}}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5}});
    let out = convert_response(
        &body.to_string(),
        F,
        Format::OpenaiChat,
        &Options::default(),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(v["usage"]["completion_tokens"], 2);
}

/// A neutral request of one user turn and one assistant message holding `part`.
fn with_assistant_part(part: Part) -> model::Request {
    model::Request {
        messages: vec![
            Message::text(Role::User, "hi"),
            Message::new(Role::Assistant, vec![part]),
        ],
        ..Default::default()
    }
}

#[test]
fn a_reasoning_id_is_one_loss_whoever_made_it() {
    let reasoning = |source| {
        Part::Reasoning(Reasoning {
            text: Some("thinking".into()),
            id: Some("rs_1".into()),
            source,
            ..Default::default()
        })
    };
    // Another format's reasoning item: the shared rule says its id means nothing here.
    let req = with_assistant_part(reasoning(Some(Format::OpenaiResponses)));
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    assert_eq!(
        losses(&out),
        [(
            "/messages/1/content/0/id",
            LossKind::Dropped,
            LossCode::SignatureForeign
        )]
    );
    // Reasoning built in code, with an id: Gemini says its thought parts have none.
    let req = with_assistant_part(reasoning(None));
    let out = crate::encode_request_value(req, F, &Options::default()).unwrap();
    assert_eq!(
        losses(&out),
        [(
            "/messages/1/content/0/id",
            LossKind::Dropped,
            LossCode::PartChanged
        )]
    );
    assert_eq!(
        out.value["contents"][1]["parts"][0],
        json!({"text": "thinking", "thought": true})
    );
}

#[test]
fn a_signature_inside_a_result_is_reported_whoever_made_it() {
    let result = |format| {
        let text = Part::Text(Text {
            text: "21".into(),
            meta: PartMeta {
                signature: Some(Signed {
                    value: "c2ln".into(),
                    format,
                }),
                ..Default::default()
            },
        });
        let call = Part::ToolCall(model::ToolCall {
            id: "c1".into(),
            synthetic_id: false,
            name: "w".into(),
            arguments: model::Arguments::Text("{}".into()),
            meta: Default::default(),
        });
        model::Request {
            messages: vec![
                Message::text(Role::User, "hi"),
                Message::new(Role::Assistant, vec![call]),
                Message::new(
                    Role::Tool,
                    vec![Part::ToolResult(ToolResult {
                        call_id: "c1".into(),
                        name: None,
                        content: vec![text],
                        is_error: false,
                        meta: Default::default(),
                    })],
                ),
            ],
            ..Default::default()
        }
    };
    let at = "/messages/2/content/0/content/0/signature";
    for (format, code) in [
        (Format::Anthropic, LossCode::SignatureForeign),
        // Gemini's own: a function response carries no signature on its text either.
        (F, LossCode::PartChanged),
    ] {
        let out = crate::encode_request_value(result(format), F, &Options::default()).unwrap();
        assert_eq!(losses(&out), [(at, LossKind::Dropped, code)], "{format}");
        assert_eq!(
            out.value["contents"][2]["parts"][0]["functionResponse"]["response"],
            json!({"output": "21"})
        );
    }
}
