//! The same three tools as every format's tools array: sorted by name, through the
//! format's schema dialect, with the loss report. One snapshot per format.

use serde_json::json;
use tool_registry::{ToolRegistry, ToolSpec};
use wire_types::Format;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Booking {
    /// Where to.
    city: String,
    nights: Option<u32>,
    guest: Guest,
    class: Class,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Guest {
    name: String,
    email: Option<String>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Class {
    Economy,
    Business,
}

pub fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    // Registered out of order: arrays come out sorted.
    r.register(
        ToolSpec::new("shout", "Upper-case a text", json!({"type": "string"})).unwrap(),
        |_| Ok("".into()),
    )
    .unwrap();
    r.register_typed("book_hotel", "Book a hotel", |_: Booking| {
        Ok::<_, String>("booked")
    })
    .unwrap();
    r.register(
        ToolSpec::new("get_weather", "Current weather", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
            .unwrap(),
        |_| Ok("".into()),
    )
    .unwrap();
    r
}

#[test]
fn tools_arrays_for_every_format() {
    let r = registry();
    for format in Format::CHAT {
        let out = r.tools_for(format, &Default::default()).unwrap();
        let mut report = String::new();
        report.push_str("losses:\n");
        for l in &out.losses {
            report.push_str(&format!("- {l}\n"));
        }
        report.push_str(&serde_json::to_string_pretty(&out.value).unwrap());
        insta::assert_snapshot!(format!("tools_{}", format.module()), report);
    }
}

#[test]
fn the_bytes_do_not_depend_on_registration_order() {
    let a = registry();
    let mut b = ToolRegistry::new();
    b.register(
        ToolSpec::new("get_weather", "Current weather", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
            .unwrap(),
        |_| Ok("".into()),
    )
    .unwrap();
    b.register_typed("book_hotel", "Book a hotel", |_: Booking| {
        Ok::<_, String>("booked")
    })
    .unwrap();
    b.register(
        ToolSpec::new("shout", "Upper-case a text", json!({"type": "string"})).unwrap(),
        |_| Ok("".into()),
    )
    .unwrap();
    for format in Format::CHAT {
        let x = serde_json::to_string(&a.tools_for(format, &Default::default()).unwrap().value)
            .unwrap();
        let y = serde_json::to_string(&b.tools_for(format, &Default::default()).unwrap().value)
            .unwrap();
        assert_eq!(x, y, "{format}");
    }
}

#[test]
fn ollama_tools_go_through_the_ollama_dialect() {
    let out = registry()
        .tools_for(Format::Ollama, &Default::default())
        .unwrap();
    let book = &out.value[0]["function"]["parameters"];
    let text = book.to_string();
    // schemars' `$defs` are inlined (Ollama keeps no `$ref`), its `$schema` and `title`
    // dropped, each drop reported.
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    assert_eq!(
        book["properties"]["guest"]["properties"]["name"]["type"],
        "string"
    );
    assert!(book.get("$schema").is_none() && book.get("title").is_none());
    let losses: Vec<String> = out.losses.iter().map(ToString::to_string).collect();
    assert!(
        losses
            .iter()
            .any(|l| l.contains("/tools/0/input_schema/$schema")
                && l.contains("dropped by ollama's tool schema parser")),
        "{losses:#?}"
    );
}

fn strict_registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "guest": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
                "required": ["name"]
            }
        },
        "required": ["city"]
    });
    r.register(
        ToolSpec::new("forecast", "Forecast", schema)
            .unwrap()
            .with_strict(true),
        |args| Ok(args.into()),
    )
    .unwrap();
    r
}

#[test]
fn a_strict_tool_follows_openai_strict_rules_for_both_openai_formats() {
    let r = strict_registry();
    for format in [Format::OpenaiChat, Format::OpenaiResponses] {
        let out = r.tools_for(format, &Default::default()).unwrap();
        let tool = &out.value[0];
        let (strict, params) = match format {
            Format::OpenaiChat => (&tool["function"]["strict"], &tool["function"]["parameters"]),
            _ => (&tool["strict"], &tool["parameters"]),
        };
        assert_eq!(strict, true, "{format}");
        assert_eq!(
            params,
            &json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": ["integer", "null"]},
                    "guest": {
                        "type": ["object", "null"],
                        "properties": {"name": {"type": "string"}, "email": {"type": ["string", "null"]}},
                        "required": ["name", "email"],
                        "additionalProperties": false
                    }
                },
                "required": ["city", "days", "guest"],
                "additionalProperties": false
            }),
            "{format}"
        );
        assert!(
            out.losses
                .iter()
                .any(|l| l.to_string().contains("made required and nullable")),
            "{format}: the rewrite is reported"
        );
    }
}

#[test]
fn other_formats_ignore_strict_mode_without_a_loss() {
    let strict = strict_registry();
    let mut plain = ToolRegistry::new();
    let spec = strict.spec("forecast").unwrap().clone().with_strict(false);
    plain.register(spec, |args| Ok(args.into())).unwrap();
    for format in Format::CHAT {
        if matches!(format, Format::OpenaiChat | Format::OpenaiResponses) {
            continue;
        }
        let a = strict.tools_for(format, &Default::default()).unwrap();
        let b = plain.tools_for(format, &Default::default()).unwrap();
        assert_eq!(a.value, b.value, "{format}");
        assert_eq!(a.losses, b.losses, "{format}");
        assert!(!a.value.to_string().contains("strict"), "{format}");
    }
}

#[test]
fn a_strict_tools_null_optional_members_reach_the_handler_absent() {
    let r = strict_registry();
    // What a strict-mode model sends: every property, `null` for the ones it leaves out.
    let out = r.dispatch(
        "forecast",
        json!({"city": "Oslo", "days": null, "guest": {"name": "Ann", "email": null}}),
    );
    assert_eq!(
        out,
        Ok(json!({"city": "Oslo", "guest": {"name": "Ann"}}).into())
    );
    // A required member sent as `null` is still a failure the model can read.
    let bad = r.dispatch("forecast", json!({"city": null})).unwrap_err();
    assert_eq!(bad.kind(), tool_registry::ToolErrorKind::InvalidArguments);
}

#[test]
fn a_custom_tool_is_a_custom_tool_for_responses_and_a_text_function_elsewhere() {
    let mut r = ToolRegistry::new();
    r.register_custom(
        ToolSpec::custom("math_exp", "Creates valid mathematical expressions")
            .unwrap()
            .with_grammar("lark", "start: INT\n%import common.INT"),
        |text| Ok(text.into()),
    )
    .unwrap();
    r.register(
        ToolSpec::new("add", "", json!({"type": "object"})).unwrap(),
        |_| Ok("".into()),
    )
    .unwrap();
    let responses = r
        .tools_for(Format::OpenaiResponses, &Default::default())
        .unwrap();
    assert_eq!(
        responses.value[1],
        json!({"type": "custom", "name": "math_exp",
               "description": "Creates valid mathematical expressions",
               "format": {"type": "grammar", "syntax": "lark", "definition": "start: INT\n%import common.INT"}})
    );
    assert!(responses.losses.is_empty(), "{:?}", responses.losses);
    let tools = test_support::conformance("openai-responses.request").unwrap();
    let body = json!({"model": "gpt-5", "input": "2 + 2", "tools": responses.value});
    let errors = test_support::schema_errors(tools, &body);
    assert!(errors.is_empty(), "{errors:#?}");

    let chat = r
        .tools_for(Format::OpenaiChat, &Default::default())
        .unwrap();
    assert_eq!(
        chat.value[1]["function"]["parameters"],
        json!({"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]})
    );
    let losses: Vec<String> = chat.losses.iter().map(ToString::to_string).collect();
    assert_eq!(
        losses,
        [
            "/tools/1: changed: openai-chat has no custom tools: written as a function tool taking {\"input\": string}",
            "/tools/1/format: dropped: openai-chat cannot hold a custom tool's input to a grammar: the model is asked for text only",
        ]
    );
    // Its calls there are function calls with `input`; the handler gets the text.
    assert_eq!(
        r.dispatch("math_exp", json!({"input": "1"})),
        Ok("1".into())
    );
    // With `Options::strict`, the losses are an error.
    let mut strict = wire_convert::Options::default();
    strict.strict = true;
    assert!(r.tools_for(Format::Anthropic, &strict).is_err());
}

#[test]
fn register_custom_takes_only_custom_tools() {
    let mut r = ToolRegistry::new();
    let err = r
        .register_custom(
            ToolSpec::new("add", "", json!({"type": "object"})).unwrap(),
            |t| Ok(t.into()),
        )
        .unwrap_err();
    assert!(err.to_string().contains("custom tool"), "{err}");
}
