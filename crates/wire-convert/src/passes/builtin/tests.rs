//! Tests of the built-in tools pass.

use crate::{Format, LossCode, LossKind, Options, convert_request_value, convert_response_value};
use serde_json::{Value, json};

fn anthropic_request(tools: Value) -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "What happened today?"}],
        "tools": tools
    })
}

fn codes_at(losses: &[crate::Loss], path: &str) -> Vec<(LossKind, LossCode)> {
    losses
        .iter()
        .filter(|l| l.path == path)
        .map(|l| (l.kind, l.code))
        .collect()
}

#[test]
fn anthropic_web_search_to_responses_maps_domains_and_location_and_loses_max_uses() {
    let body = anthropic_request(json!([{
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 3,
        "allowed_domains": ["example.com"],
        "user_location": {"type": "approximate", "city": "Paris", "country": "FR"}
    }]));
    let out = convert_request_value(
        &body,
        Format::Anthropic,
        Format::OpenaiResponses,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        out.value["tools"],
        json!([{
            "type": "web_search",
            "filters": {"allowed_domains": ["example.com"]},
            "user_location": {"type": "approximate", "city": "Paris", "country": "FR"}
        }])
    );
    assert_eq!(
        codes_at(&out.losses, "/tools/0/max_uses"),
        [(LossKind::Dropped, LossCode::FieldUnsupported)]
    );
    assert_eq!(
        codes_at(&out.losses, "/tools/0"),
        [(LossKind::Changed, LossCode::ToolMapped)]
    );
}

#[test]
fn responses_web_search_to_anthropic_keeps_settings_and_loses_context_size() {
    let body = json!({
        "model": "gpt-5",
        "input": "Hi",
        "tools": [{
            "type": "web_search",
            "search_context_size": "high",
            "filters": {"allowed_domains": ["a.org"]},
            "user_location": {"type": "approximate", "timezone": "Europe/Paris"}
        }]
    });
    let out = convert_request_value(
        &body,
        Format::OpenaiResponses,
        Format::Anthropic,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        out.value["tools"],
        json!([{
            "type": "web_search_20250305",
            "name": "web_search",
            "allowed_domains": ["a.org"],
            "user_location": {"type": "approximate", "timezone": "Europe/Paris"}
        }])
    );
    assert_eq!(
        codes_at(&out.losses, "/tools/0/search_context_size"),
        [(LossKind::Dropped, LossCode::FieldUnsupported)]
    );
}

#[test]
fn chat_web_search_options_become_a_web_search_tool_and_back() {
    let body = json!({
        "model": "gpt-4o-search-preview",
        "messages": [{"role": "user", "content": "Hi"}],
        "web_search_options": {
            "search_context_size": "low",
            "user_location": {"type": "approximate", "approximate": {"city": "Oslo"}}
        }
    });
    let opts = Options::default();
    let out =
        convert_request_value(&body, Format::OpenaiChat, Format::OpenaiResponses, &opts).unwrap();
    assert_eq!(
        out.value["tools"],
        json!([{
            "type": "web_search",
            "user_location": {"type": "approximate", "city": "Oslo"},
            "search_context_size": "low"
        }])
    );
    assert!(out.value.get("web_search_options").is_none());
    assert_eq!(
        codes_at(&out.losses, "/web_search_options"),
        [(LossKind::Changed, LossCode::ToolMapped)]
    );
    let back = convert_request_value(
        &out.value,
        Format::OpenaiResponses,
        Format::OpenaiChat,
        &opts,
    )
    .unwrap();
    assert_eq!(back.value["web_search_options"], body["web_search_options"]);
    assert!(back.value.get("tools").is_none());
    // To Gemini: the search, without the settings it has no place for.
    let gemini = convert_request_value(&body, Format::OpenaiChat, Format::Gemini, &opts).unwrap();
    assert_eq!(gemini.value["tools"], json!([{"googleSearch": {}}]));
    for p in [
        "/web_search_options/search_context_size",
        "/web_search_options/user_location",
    ] {
        assert_eq!(
            codes_at(&gemini.losses, p),
            [(LossKind::Dropped, LossCode::FieldUnsupported)],
            "{p}: {:?}",
            gemini.losses
        );
    }
}

#[test]
fn gemini_built_ins_map_to_anthropic_and_blocked_domains_travel() {
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [
            {"googleSearch": {"excludeDomains": ["spam.example"]}},
            {"codeExecution": {}}
        ]
    });
    let out = convert_request_value(
        &body,
        Format::Gemini,
        Format::Anthropic,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        out.value["tools"],
        json!([
            {"type": "web_search_20250305", "name": "web_search", "blocked_domains": ["spam.example"]},
            {"type": "code_execution_20250825", "name": "code_execution"}
        ])
    );
    let back = convert_request_value(
        &out.value,
        Format::Anthropic,
        Format::Gemini,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(back.value["tools"], body["tools"]);
}

#[test]
fn code_execution_to_responses_gets_an_auto_container_and_a_container_is_a_loss_in_gemini() {
    let body = anthropic_request(json!([
        {"type": "code_execution_20250825", "name": "code_execution"}
    ]));
    let opts = Options::default();
    let out =
        convert_request_value(&body, Format::Anthropic, Format::OpenaiResponses, &opts).unwrap();
    assert_eq!(
        out.value["tools"],
        json!([{"type": "code_interpreter", "container": {"type": "auto"}}])
    );
    let responses = json!({
        "model": "gpt-5",
        "input": "Hi",
        "tools": [{"type": "code_interpreter", "container": "cntr_1"}]
    });
    let out =
        convert_request_value(&responses, Format::OpenaiResponses, Format::Gemini, &opts).unwrap();
    assert_eq!(out.value["tools"], json!([{"codeExecution": {}}]));
    assert_eq!(
        codes_at(&out.losses, "/tools/0/container"),
        [(LossKind::Dropped, LossCode::FieldUnsupported)]
    );
}

#[test]
fn a_web_search_in_a_bare_chat_tools_array_is_a_loss_not_silence() {
    let tool = crate::model::Tool::Opaque(crate::model::Opaque {
        format: Format::Anthropic,
        value: json!({"type": "web_search_20250305", "name": "web_search"}),
        meta: Default::default(),
    });
    let out = crate::encode_tools(vec![tool], Format::OpenaiChat, &Options::default()).unwrap();
    assert_eq!(out.value, json!([]));
    assert!(
        codes_at(&out.losses, "/tools/0").contains(&(LossKind::Dropped, LossCode::ToolUnsupported)),
        "{:?}",
        out.losses
    );
}

#[test]
fn built_in_tools_are_a_loss_where_the_target_has_none() {
    let body = anthropic_request(json!([
        {"type": "web_search_20250305", "name": "web_search"},
        {"type": "code_execution_20250825", "name": "code_execution"}
    ]));
    for to in [
        Format::Ollama,
        Format::Bedrock,
        Format::Mistral,
        Format::Cohere,
    ] {
        let out = convert_request_value(&body, Format::Anthropic, to, &Options::default()).unwrap();
        for p in ["/tools/0", "/tools/1"] {
            assert_eq!(
                codes_at(&out.losses, p),
                [(LossKind::Dropped, LossCode::ToolUnsupported)],
                "{to} {p}"
            );
        }
    }
    // Code execution has no Chat equivalent either.
    let out = convert_request_value(
        &body,
        Format::Anthropic,
        Format::OpenaiChat,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(out.value["web_search_options"], json!({}));
    assert_eq!(
        codes_at(&out.losses, "/tools/1"),
        [(LossKind::Dropped, LossCode::ToolUnsupported)]
    );
}

#[test]
fn a_same_format_round_trip_of_built_in_tools_is_exact_and_lossless() {
    let cases = [
        (
            Format::Anthropic,
            anthropic_request(json!([{
                "type": "web_search_20250305", "name": "web_search", "max_uses": 2,
                "blocked_domains": ["x.com"], "cache_control": {"type": "ephemeral"}
            }])),
        ),
        (
            Format::OpenaiChat,
            json!({
                "model": "m",
                "messages": [{"role": "user", "content": "Hi"}],
                "web_search_options": {"search_context_size": "high"}
            }),
        ),
        (
            Format::OpenaiResponses,
            json!({"model": "m", "input": "Hi", "tools": [
                {"type": "web_search_preview", "search_context_size": "low"},
                {"type": "code_interpreter", "container": {"type": "auto", "memory_limit": "4g"}}
            ]}),
        ),
        (
            Format::Gemini,
            json!({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                   "tools": [{"googleSearch": {"timeRangeFilter": {"startTime": "2025-01-01T00:00:00Z"}}},
                             {"codeExecution": {}}]}),
        ),
    ];
    for (f, body) in cases {
        let out = convert_request_value(&body, f, f, &Options::default()).unwrap();
        assert_eq!(out.value, body, "{f}");
        assert!(out.losses.is_empty(), "{f}: {:?}", out.losses);
    }
}

#[test]
fn a_lost_setting_points_where_the_source_spelled_it() {
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [{"googleSearch": {"excludeDomains": ["x.com"]}}]
    });
    let out = convert_request_value(
        &body,
        Format::Gemini,
        Format::OpenaiResponses,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(out.value["tools"], json!([{"type": "web_search"}]));
    assert_eq!(
        codes_at(&out.losses, "/tools/0/googleSearch/excludeDomains"),
        [(LossKind::Dropped, LossCode::FieldUnsupported)],
        "{:?}",
        out.losses
    );
}

#[test]
fn a_settings_field_without_equivalent_is_a_loss_of_its_own() {
    // Gemini's `timeRangeFilter` has no place in Anthropic's web search.
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [{"googleSearch": {"timeRangeFilter": {"startTime": "2025-01-01T00:00:00Z"}}}]
    });
    let out = convert_request_value(
        &body,
        Format::Gemini,
        Format::Anthropic,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        codes_at(&out.losses, "/tools/0/googleSearch/timeRangeFilter"),
        [(LossKind::Dropped, LossCode::FieldUnsupported)],
        "{:?}",
        out.losses
    );
}

fn gemini_code_execution() -> Value {
    json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"executableCode": {"language": "PYTHON", "code": "print(1 + 1)\n"}},
                {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n"}},
                {"text": "It is 2."}
            ]},
            "finishReason": "STOP"
        }],
        "modelVersion": "gemini-2.5-flash"
    })
}

#[test]
fn gemini_code_execution_becomes_anthropic_code_execution_blocks_and_back() {
    let opts = Options::default();
    let out = convert_response_value(
        &gemini_code_execution(),
        Format::Gemini,
        Format::Anthropic,
        &opts,
    )
    .unwrap();
    let content = &out.value["content"];
    assert_eq!(
        content[0],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
               "input": {"code": "print(1 + 1)\n"}})
    );
    assert_eq!(
        content[1],
        json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1",
               "content": {"type": "code_execution_result", "stdout": "2\n", "stderr": "",
                           "return_code": 0, "content": []}})
    );
    for p in [
        "/candidates/0/content/parts/0",
        "/candidates/0/content/parts/1",
    ] {
        assert_eq!(
            codes_at(&out.losses, p),
            [(LossKind::Changed, LossCode::ToolMapped)]
        );
    }
    let back =
        convert_response_value(&out.value, Format::Anthropic, Format::Gemini, &opts).unwrap();
    let parts = &back.value["candidates"][0]["content"]["parts"];
    assert_eq!(
        parts[0],
        gemini_code_execution()["candidates"][0]["content"]["parts"][0]
    );
    assert_eq!(
        parts[1],
        gemini_code_execution()["candidates"][0]["content"]["parts"][1]
    );
}

#[test]
fn gemini_code_execution_becomes_one_responses_code_interpreter_call() {
    let out = convert_response_value(
        &gemini_code_execution(),
        Format::Gemini,
        Format::OpenaiResponses,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        out.value["output"][0],
        json!({"type": "code_interpreter_call", "id": "ci_1", "status": "completed",
               "code": "print(1 + 1)\n", "container_id": "",
               "outputs": [{"type": "logs", "logs": "2\n"}]})
    );
    assert_eq!(out.value["output"][1]["type"], "message");
}

#[test]
fn gemini_code_execution_in_ollama_is_its_code_and_output_as_text() {
    let out = convert_response_value(
        &gemini_code_execution(),
        Format::Gemini,
        Format::Ollama,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        out.value["message"]["content"],
        "[code_execution] ran:\n```python\nprint(1 + 1)\n```\n\
         [code_execution] result: OUTCOME_OK\noutput:\n```\n2\n```\nIt is 2."
    );
    for p in [
        "/candidates/0/content/parts/0",
        "/candidates/0/content/parts/1",
    ] {
        assert_eq!(
            codes_at(&out.losses, p),
            [(LossKind::Changed, LossCode::PartAsText)]
        );
    }
}

#[test]
fn anthropic_web_search_becomes_one_responses_web_search_call_and_later_losses_point_right() {
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
             "input": {"query": "rust 2024 edition"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "Rust 2024",
                 "url": "https://doc.rust-lang.org/edition-guide/",
                 "encrypted_content": "SECRET", "page_age": null}
            ]},
            {"type": "text", "text": "It shipped.", "citations": [
                {"type": "web_search_result_location", "url": "https://doc.rust-lang.org/edition-guide/",
                 "title": "Rust 2024", "encrypted_index": "SECRET", "cited_text": "Rust 2024"}
            ]}
        ],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}
    });
    let out = convert_response_value(
        &body,
        Format::Anthropic,
        Format::OpenaiResponses,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        out.value["output"][0],
        json!({"type": "web_search_call", "id": "srvtoolu_1", "status": "completed",
               "action": {"type": "search", "query": "rust 2024 edition",
                          "sources": [{"type": "url", "url": "https://doc.rust-lang.org/edition-guide/"}]}})
    );
    for p in ["/content/0", "/content/1"] {
        assert_eq!(
            codes_at(&out.losses, p),
            [(LossKind::Changed, LossCode::ToolMapped)]
        );
    }
    // Two parts became one item: the text's loss still names the text (2, not 1).
    assert_eq!(
        codes_at(&out.losses, "/content/2/citations"),
        [(LossKind::Dropped, LossCode::FieldUnsupported)],
        "{:?}",
        out.losses
    );
}

#[test]
fn a_hosted_web_search_to_ollama_is_its_query_and_sources_as_text_not_nothing() {
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
             "input": {"query": "rust 2024 edition"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "Rust 2024", "url": "https://doc.rust-lang.org/edition-guide/",
                 "encrypted_content": "SECRET", "page_age": null}
            ]},
            {"type": "text", "text": "It shipped."}
        ],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 1}
    });
    let out = convert_response_value(
        &body,
        Format::Anthropic,
        Format::Ollama,
        &Options::default(),
    )
    .unwrap();
    let text = out.value["message"]["content"].as_str().unwrap();
    assert!(
        text.contains("[web_search] searched for: rust 2024 edition"),
        "{text}"
    );
    assert!(
        text.contains("- Rust 2024 <https://doc.rust-lang.org/edition-guide/>"),
        "{text}"
    );
    assert!(!text.contains("SECRET"), "{text}");
    for p in ["/content/0", "/content/1"] {
        assert_eq!(
            codes_at(&out.losses, p),
            [(LossKind::Changed, LossCode::PartAsText)]
        );
    }
}

#[test]
fn a_responses_web_search_call_becomes_its_queries_and_sources_as_text() {
    let o = crate::model::Opaque {
        format: Format::OpenaiResponses,
        value: json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
            "action": {"type": "search", "query": "q1",
                       "sources": [{"type": "url", "url": "https://a.example"}]}}),
        meta: Default::default(),
    };
    assert_eq!(
        super::hosted_text(&o).unwrap(),
        "[web_search] searched for: q1\n- <https://a.example>"
    );
    let code = crate::model::Opaque {
        format: Format::OpenaiResponses,
        value: json!({"type": "code_interpreter_call", "id": "ci_1", "code": "print(2)",
            "outputs": [{"type": "logs", "logs": "2\n"}], "status": "completed", "container_id": "c"}),
        meta: Default::default(),
    };
    assert_eq!(
        super::hosted_text(&code).unwrap(),
        "[code_interpreter] ran:\n```python\nprint(2)\n```\noutput:\n```\n2\n```"
    );
}

#[test]
fn gemini_grounding_becomes_its_queries_and_sources_as_text_elsewhere() {
    let body = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": "Cloudy."}]},
            "finishReason": "STOP",
            "groundingMetadata": {
                "webSearchQueries": ["weather in London"],
                "groundingChunks": [{"web": {"uri": "https://w.example/london", "title": "w.example"}}]
            }
        }],
        "modelVersion": "gemini-2.5-flash"
    });
    let opts = Options::default();
    let out = convert_response_value(&body, Format::Gemini, Format::Anthropic, &opts).unwrap();
    assert_eq!(
        out.value["content"][1]["text"],
        "[google_search] searched for: weather in London\nSources:\n- w.example <https://w.example/london>"
    );
    assert_eq!(
        codes_at(&out.losses, "/candidates/0/groundingMetadata"),
        [(LossKind::Changed, LossCode::PartAsText)]
    );
    let same = convert_response_value(&body, Format::Gemini, Format::Gemini, &opts).unwrap();
    assert_eq!(same.value, body);
    assert!(same.losses.is_empty(), "{:?}", same.losses);
}
