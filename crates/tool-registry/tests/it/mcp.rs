//! The registry behind an MCP server.

use serde_json::json;
use tool_registry::{Error, ToolRegistry, ToolSpec};
use wire_types::mcp::CallToolParams;

fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("get_weather", "Current weather", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
            .unwrap()
            .with_output_schema(json!({"type": "object", "properties": {"temp_c": {"type": "number"}}}))
            .unwrap(),
        |v| if v["city"] == "Atlantis" { Err("no such city".into()) } else { Ok(json!({"temp_c": 21}).into()) },
    )
    .unwrap();
    r.register(
        ToolSpec::new("echo", "Echo", json!({"type": "object"})).unwrap(),
        |v| Ok(v.to_string().into()),
    )
    .unwrap();
    r
}

fn params(name: &str, args: serde_json::Value) -> CallToolParams {
    serde_json::from_value(json!({"name": name, "arguments": args})).unwrap()
}

#[test]
fn tools_list_has_every_tool_sorted_with_its_schemas() {
    let list = registry().mcp_list();
    let v = serde_json::to_value(&list).unwrap();
    assert_eq!(v["tools"][0]["name"], "echo");
    assert_eq!(v["tools"][1]["name"], "get_weather");
    assert_eq!(v["tools"][1]["inputSchema"]["required"], json!(["city"]));
    assert_eq!(
        v["tools"][1]["outputSchema"]["properties"]["temp_c"]["type"],
        "number"
    );
}

#[test]
fn tools_call_gives_a_call_tool_result() {
    let r = registry();
    let ok = serde_json::to_value(
        r.mcp_call(&params("get_weather", json!({"city": "Paris"})))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(ok["structuredContent"], json!({"temp_c": 21}));
    // `isError` defaults to false: left out on success.
    assert!(ok.get("isError").is_none_or(|v| v == &json!(false)), "{ok}");
    // Clients without structured-content support see the JSON as text.
    assert_eq!(ok["content"][0]["text"], "{\"temp_c\":21}");
    let failed = serde_json::to_value(
        r.mcp_call(&params("get_weather", json!({"city": "Atlantis"})))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(failed["isError"], json!(true));
    assert_eq!(failed["content"][0]["text"], "no such city");
    let invalid =
        serde_json::to_value(r.mcp_call(&params("get_weather", json!({}))).unwrap()).unwrap();
    assert_eq!(invalid["isError"], json!(true));
    assert_eq!(
        invalid["content"][0]["text"],
        "invalid arguments for get_weather: /: \"city\" is a required property"
    );
    assert!(matches!(
        r.mcp_call(&params("nope", json!({}))),
        Err(Error::UnknownTool { .. })
    ));
}
