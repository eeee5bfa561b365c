use serde_json::json;
use tool_registry::{Error, ToolRegistry, ToolSpec};
use wire_types::Format;

fn object() -> serde_json::Value {
    json!({"type": "object", "properties": {"q": {"type": "string"}}})
}

#[test]
fn names_follow_the_portable_rule() {
    for ok in ["a", "get_weather", "GetWeather-2", &"x".repeat(64)] {
        assert!(ToolSpec::new(ok, "", object()).is_ok(), "{ok}");
    }
    for bad in ["", "get weather", "get.weather", "wetter☀", &"x".repeat(65)] {
        match ToolSpec::new(bad, "", object()) {
            Err(Error::Name { name, rule }) => {
                assert_eq!(name, bad);
                assert!(rule.contains("[a-zA-Z0-9_-]"), "{rule}");
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

/// A registered name a provider rejects is offered to it rewritten, with a loss naming
/// the provider's rule (an error under `Options::strict`); `check_for` names the rule.
#[test]
fn a_name_a_provider_rejects_is_rewritten_naming_the_providers_rule() {
    let mut registry = ToolRegistry::new();
    registry
        .register(ToolSpec::new("1st_tool", "", object()).unwrap(), |_| {
            Ok("x".into())
        })
        .unwrap();
    let out = registry
        .tools_for(Format::Gemini, &Default::default())
        .unwrap();
    assert_eq!(
        out.value[0]["functionDeclarations"][0]["name"],
        "t_1st_tool"
    );
    assert_eq!(out.losses.len(), 1);
    assert!(
        out.losses[0]
            .detail
            .contains("1-64 of [a-zA-Z0-9_.:-], the first a letter or `_`"),
        "{:?}",
        out.losses
    );
    let mut strict = wire_convert::Options::default();
    strict.strict = true;
    assert!(registry.tools_for(Format::Gemini, &strict).is_err());
    let err = registry
        .spec("1st_tool")
        .unwrap()
        .check_for(Format::Gemini)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool name `1st_tool` is invalid: gemini: 1-64 of [a-zA-Z0-9_.:-], the first a letter or `_`"
    );
    let chat = registry
        .tools_for(Format::OpenaiChat, &Default::default())
        .unwrap();
    assert!(chat.losses.is_empty());
}

#[test]
fn a_second_tool_with_the_same_name_is_refused() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolSpec::new("t", "", object()).unwrap(),
            |_| Ok("1".into()),
        )
        .unwrap();
    let err = registry
        .register(
            ToolSpec::new("t", "", object()).unwrap(),
            |_| Ok("2".into()),
        )
        .unwrap_err();
    assert_eq!(err, Error::Duplicate("t".into()));
    assert_eq!(registry.dispatch("t", json!({})), Ok("1".into()));
}

#[test]
fn a_bad_schema_fails_at_registration() {
    let err = ToolSpec::from_schema_text("t", "", "{\"type\": \"object\",").unwrap_err();
    assert!(
        matches!(&err, Error::Schema { message, .. } if message.starts_with("the input schema is not JSON: EOF")),
        "{err}"
    );
    let err = ToolSpec::new("t", "", json!(["not", "a", "schema"])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `t`: the input schema must be a JSON Schema object, found [\"not\",\"a\",\"schema\"]"
    );
    let err = ToolSpec::new("t", "", json!({"type": 12})).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("tool `t`: the input schema is not a valid JSON Schema: /type:"),
        "{err}"
    );
    let err = ToolSpec::new("t", "", object())
        .unwrap()
        .with_output_schema(json!("nope"))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("the output schema must be a JSON Schema object"),
        "{err}"
    );
}
