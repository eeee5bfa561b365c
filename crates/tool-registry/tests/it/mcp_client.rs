//! The MCP client side: requests written, responses read (and refused, with pointers),
//! `tools/list` cursors followed, tools imported into a registry and called through the
//! agent step, against the server core in the same process or a scripted peer.

use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tool_registry::mcp::{
    Implementation, McpClient, McpServer, RequestId, ServerOptions, call_tool_request,
    initialize_request, initialized_notification, list_tools_request, read_call_tool,
    read_initialize, read_list_tools,
};
use tool_registry::{Error, Step, ToolRegistry, ToolSpec};
use wire_convert::model::{Media, Part, Source};
use wire_types::Format;
use wire_types::mcp::CallToolParams;

fn me() -> Implementation {
    Implementation::new("test-client", "1")
}

#[test]
fn requests_are_json_rpc_with_the_given_ids() {
    let v: Value = serde_json::from_str(&initialize_request(&RequestId::from(1), &me())).unwrap();
    assert_eq!(
        v,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test-client", "version": "1"}}})
    );
    assert_eq!(
        initialized_notification(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
    );
    assert_eq!(
        list_tools_request(&RequestId::from("a"), None),
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#
    );
    assert_eq!(
        list_tools_request(&RequestId::from(2), Some("c2")),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c2"}}"#
    );
    let params: CallToolParams =
        serde_json::from_value(json!({"name": "add", "arguments": {"a": 1}})).unwrap();
    assert_eq!(
        call_tool_request(&RequestId::from(3), &params),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#
    );
}

#[test]
fn responses_are_read_and_every_kind_of_wrong_one_is_refused_with_its_pointer() {
    let id = RequestId::from(1);
    let init = read_initialize(
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"2","title":"S"},"instructions":"be nice","x":1}}"#,
        &id,
    )
    .unwrap();
    assert_eq!(init.protocol_version, "2025-06-18");
    assert_eq!(init.server_info.title.as_deref(), Some("S"));
    assert_eq!(init.instructions.as_deref(), Some("be nice"));
    assert_eq!(init.extra["x"], 1, "unknown members are kept");

    let err = |r: Result<_, Error>| r.map(|_: ()| ()).unwrap_err().to_string();
    let cases = [
        (
            "not json",
            "/: the response is not JSON: expected ident at line 1 column 2",
        ),
        (
            "[]",
            "/: expected a JSON-RPC response object, found an array",
        ),
        (r#"{"id":1,"result":{}}"#, "/jsonrpc: expected \"2.0\""),
        (
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
            "/id: expected the id of the request, 1, found 2",
        ),
        (
            r#"{"jsonrpc":"2.0","id":"1","result":{}}"#,
            "/id: expected the id of the request, 1, found \"1\"",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1}"#,
            "/result: missing field (and no `error`)",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool `x`"}}"#,
            "the MCP server answered with error -32602: unknown tool `x`",
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
            "the MCP server answered with error -32700: parse error",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err(read_list_tools(text, &id).map(|_| ())), want, "{text}");
    }
    assert_eq!(
        err(read_initialize(
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
            &id
        )
        .map(|_| ())),
        "/result/protocolVersion: the server chose protocol version \"2024-11-05\"; this client speaks 2025-11-25, 2025-06-18, 2025-03-26"
    );
    assert_eq!(
        err(read_list_tools(
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}"#,
            &id
        )
        .map(|_| ())),
        "/result/tools/0/inputSchema: missing field"
    );
    let r = read_call_tool(
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}"#,
        &id,
    )
    .unwrap();
    assert_eq!(r.is_error, Some(true));
}

/// An in-process server behind a closure transport, counting the requests it answers.
fn in_process(
    registry: ToolRegistry,
    options: ServerOptions,
) -> (
    impl Fn(&str) -> Result<Option<String>, String> + Send + Sync + 'static,
    Arc<AtomicUsize>,
) {
    let server = Mutex::new(McpServer::new(registry, options));
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    let transport = move |m: &str| {
        if m.contains("\"id\"") {
            counter.fetch_add(1, Ordering::SeqCst);
        }
        Ok(server.lock().unwrap().handle(m).finish().pop())
    };
    (transport, requests)
}

fn many_tools(n: usize) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    for i in 0..n {
        r.register(
            ToolSpec::new(format!("tool_{i:02}"), "", json!({"type": "object"})).unwrap(),
            move |_| Ok(format!("tool {i}").into()),
        )
        .unwrap();
    }
    r
}

#[test]
fn list_tools_follows_cursors_page_after_page() {
    let options = ServerOptions {
        page_size: 4,
        ..Default::default()
    };
    let (transport, requests) = in_process(many_tools(10), options);
    let client = McpClient::connect(transport, me()).unwrap();
    assert_eq!(client.server().server_info.name, "toolwire");
    let tools = client.list_tools().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let want: Vec<String> = (0..10).map(|i| format!("tool_{i:02}")).collect();
    assert_eq!(names, want);
    // initialize, then three pages (4 + 4 + 2).
    assert_eq!(requests.load(Ordering::SeqCst), 1 + 3);
}

/// A scripted server: answers `initialize`, and `tools/list` / `tools/call` with `list`
/// and `call` (given the params), echoing the id.
fn scripted(
    list: impl Fn(&Value) -> Value + Send + Sync + 'static,
    call: impl Fn(&Value) -> Value + Send + Sync + 'static,
) -> impl Fn(&str) -> Result<Option<String>, String> + Send + Sync + 'static {
    move |m: &str| {
        let v: Value = serde_json::from_str(m).map_err(|e| e.to_string())?;
        let Some(id) = v.get("id") else {
            return Ok(None);
        };
        let result = match v["method"].as_str() {
            Some("initialize") => {
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "scripted", "version": "0"}})
            }
            Some("tools/list") => list(&v["params"]),
            Some("tools/call") => call(&v["params"]),
            _ => {
                return Ok(Some(
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})
                        .to_string(),
                ));
            }
        };
        Ok(Some(
            json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        ))
    }
}

#[test]
fn a_cursor_given_twice_is_an_error_not_a_loop() {
    let transport = scripted(
        |_| json!({"tools": [], "nextCursor": "again"}),
        |_| json!({"content": []}),
    );
    let client = McpClient::connect(transport, me()).unwrap();
    assert_eq!(
        client.list_tools().unwrap_err().to_string(),
        "/result/nextCursor: the server gave cursor \"again\" twice"
    );
}

#[test]
fn imported_tools_run_through_the_step_and_reach_each_model_in_its_shape() {
    let mut tools = ToolRegistry::new();
    tools
        .register(
            ToolSpec::new(
                "weather",
                "Weather",
                json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            )
            .unwrap()
            .with_title("Weather")
            .with_output_schema(
                json!({"type": "object", "properties": {"temp_c": {"type": "number"}}}),
            )
            .unwrap(),
            |v| {
                if v["city"] == "Atlantis" {
                    return Err("no such city".into());
                }
                Ok(json!({"temp_c": 21}).into())
            },
        )
        .unwrap();
    tools
        .register(
            ToolSpec::new("picture", "An image", json!({"type": "object"})).unwrap(),
            |_| {
                Ok(tool_registry::ToolOutput::Parts(vec![Part::Image(Media {
                    source: Source::Base64 {
                        data: "iVBORw0KGgo=".into(),
                    },
                    media_type: Some("image/png".into()),
                    name: None,
                    meta: Default::default(),
                })]))
            },
        )
        .unwrap();
    let (transport, _) = in_process(tools, ServerOptions::default());
    let client = Arc::new(McpClient::connect(transport, me()).unwrap());
    let mut registry = ToolRegistry::new();
    let imported = client.import(&mut registry).unwrap();
    assert_eq!(imported.tools.len(), 2);
    assert!(imported.skipped.is_empty());
    let spec = registry.spec("weather").unwrap();
    assert_eq!(spec.title(), Some("Weather"));
    assert!(spec.output_schema().is_some());

    let response = r#"{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[
        {"type":"tool_use","id":"t1","name":"weather","input":{"city":"Oslo"}},
        {"type":"tool_use","id":"t2","name":"weather","input":{"city":"Atlantis"}},
        {"type":"tool_use","id":"t3","name":"picture","input":{}}],
        "stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}"#;
    let step = registry.step(Format::Anthropic, response).unwrap();
    let items = step.follow_up_values();
    let blocks = &items[1]["content"];
    // The structured result once (its JSON echo in a text block is not repeated).
    assert_eq!(
        blocks[0]["content"],
        json!([{"type": "text", "text": "{\"temp_c\":21}"}])
    );
    assert_eq!(
        blocks[1],
        json!({"type": "tool_result", "tool_use_id": "t2", "content": "no such city", "is_error": true})
    );
    assert_eq!(
        blocks[2]["content"][0]["source"],
        json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="})
    );

    // Gemini takes the structured result as an object.
    let gemini = r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Oslo"}}},{"functionCall":{"name":"picture","args":{}}}]},"finishReason":"STOP"}]}"#;
    let step = registry.step(Format::Gemini, gemini).unwrap();
    let items = step.follow_up_values();
    assert_eq!(
        items[1]["parts"][0]["functionResponse"]["response"],
        json!({"temp_c": 21})
    );
    // OpenAI Chat: the image cannot stay in the tool message; the move is reported.
    let openai = r#"{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"picture","arguments":"{}"}}]}}]}"#;
    let Step::Continue { losses, .. } = registry.step(Format::OpenaiChat, openai).unwrap() else {
        panic!("a call")
    };
    assert_eq!(losses.len(), 1, "{losses:?}");
    assert_eq!(losses[0].path, "/messages/1/content/0/content/0");
}

#[test]
fn import_renames_names_outside_the_registry_rule_and_calls_by_the_original() {
    let long = format!("ns.{}", "x".repeat(120));
    let list_long = long.clone();
    let called = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = called.clone();
    let transport = scripted(
        move |_| {
            json!({"tools": [
                {"name": "files.read", "description": "Read a file", "inputSchema": {"type": "object"}},
                {"name": list_long, "inputSchema": {"type": "object"}},
                {"name": "bad_schema", "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}},
                {"name": "files_read", "inputSchema": {"type": "object"}}
            ]})
        },
        move |p| {
            seen.lock()
                .unwrap()
                .push(p["name"].as_str().unwrap_or("").to_owned());
            json!({"content": [{"type": "text", "text": format!("called {}", p["name"])}]})
        },
    );
    let client = Arc::new(McpClient::connect(transport, me()).unwrap());
    let mut registry = ToolRegistry::new();
    let imported = client.import(&mut registry).unwrap();
    let names: Vec<(&str, &str)> = imported
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.mcp_name.as_str()))
        .collect();
    // The server's own `files_read` keeps its name; the rewritten `files.read` is kept
    // apart from it (wire-convert's one rewrite: a hash suffix on a collision).
    assert_eq!(names[0].1, "files.read");
    assert!(
        names[0].0.starts_with("files_read_") && names[0].0.len() == "files_read_".len() + 8,
        "{names:?}"
    );
    assert_eq!(names[1].1, long);
    assert_eq!(names[1].0.len(), 64);
    assert!(names[1].0.starts_with("ns_xxx"));
    assert_eq!(names[2], ("files_read", "files_read"));
    assert_eq!(imported.skipped.len(), 1);
    assert_eq!(imported.skipped[0].mcp_name, "bad_schema");
    assert!(
        imported.skipped[0]
            .reason
            .contains("not a valid JSON Schema"),
        "{:?}",
        imported.skipped
    );

    let rewritten = names[0].0.to_owned();
    assert_eq!(
        registry.dispatch(&rewritten, json!({})),
        Ok("called \"files.read\"".into())
    );
    assert_eq!(
        registry.dispatch("files_read", json!({})),
        Ok("called \"files_read\"".into())
    );
    let local = names[1].0.to_owned();
    assert_eq!(
        registry.dispatch(&local, json!({})),
        Ok(format!("called \"{long}\"").into())
    );
    assert_eq!(
        called.lock().unwrap().as_slice(),
        ["files.read", "files_read", long.as_str()]
    );
}

#[test]
fn transport_failures_and_refusals_reach_the_model_as_failed_results() {
    let up = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let flag = up.clone();
    let inner = scripted(
        |_| json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        |_| json!({"content": []}),
    );
    let transport = move |m: &str| {
        if !flag.load(Ordering::SeqCst) {
            return Err("connection reset".to_owned());
        }
        if m.contains("tools/call") && m.contains("\"refuse\"") {
            let id: Value = serde_json::from_str::<Value>(m).unwrap()["id"].clone();
            return Ok(Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "unknown tool"}}).to_string()));
        }
        inner(m)
    };
    let client = Arc::new(McpClient::connect(transport, me()).unwrap());
    let mut registry = ToolRegistry::new();
    client.import(&mut registry).unwrap();
    assert_eq!(
        registry
            .dispatch("t", json!({"refuse": true}))
            .unwrap_err()
            .message(),
        "the MCP server refused the call (-32602): unknown tool"
    );
    up.store(false, Ordering::SeqCst);
    assert_eq!(
        registry.dispatch("t", json!({})).unwrap_err().message(),
        "the MCP call failed: transport: connection reset"
    );
    let failed = McpClient::connect(
        |_: &str| Err::<Option<String>, _>("no route".to_owned()),
        me(),
    );
    assert!(matches!(failed, Err(Error::Transport(m)) if m == "no route"));
}
