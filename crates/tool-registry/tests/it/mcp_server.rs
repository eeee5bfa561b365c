//! The MCP server core, message by message: lifecycle, `tools/list` pages, `tools/call`
//! results and failures, JSON-RPC errors, limits, concurrent calls with mixed id types,
//! cancellation, progress and logging, `list_changed`, and text no peer should send.

use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tool_registry::mcp::{McpServer, PendingCall, RequestId, ServerOptions};
use tool_registry::{LogLevel, ToolRegistry, ToolSpec};
use wire_types::mcp::{Icon, ToolAnnotations};

fn init_message(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

/// Flags the tools set, for the tests to look at.
#[derive(Default, Clone)]
struct Seen {
    /// The `hold` tool saw its call cancelled.
    hold_cancelled: Arc<AtomicBool>,
    /// The `forever` tool's future was dropped.
    forever_dropped: Arc<AtomicBool>,
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn registry(seen: &Seen) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(
        ToolSpec::new("get_weather", "Current weather", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
            .unwrap()
            .with_title("Weather")
            .with_annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() })
            .with_icons(vec![Icon { src: "https://example.com/w.png".into(), ..Default::default() }])
            .with_meta(json!({"example.com/tier": "free"}).as_object().unwrap().clone())
            .with_output_schema(json!({"type": "object", "properties": {"temp_c": {"type": "number"}}, "required": ["temp_c"]}))
            .unwrap(),
        |v| if v["city"] == "Atlantis" { Err("no such city".into()) } else { Ok(json!({"temp_c": 21}).into()) },
    )
    .unwrap();
    r.register(
        ToolSpec::new("echo", "Echo", json!({"type": "object"})).unwrap(),
        |v| Ok(v.to_string().into()),
    )
    .unwrap();
    r.register(
        ToolSpec::new("boom", "Panics", json!({"type": "object"})).unwrap(),
        |_| panic!("the disk is on fire"),
    )
    .unwrap();
    r.register(
        ToolSpec::new(
            "bad_output",
            "Breaks its output schema",
            json!({"type": "object"}),
        )
        .unwrap()
        .with_output_schema(
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        )
        .unwrap(),
        |_| Ok(json!({"n": "three"}).into()),
    )
    .unwrap();
    r.register(
        ToolSpec::new(
            "text_only",
            "Declares an output schema, returns text",
            json!({"type": "object"}),
        )
        .unwrap()
        .with_output_schema(json!({"type": "object"}))
        .unwrap(),
        |_| Ok("just text".into()),
    )
    .unwrap();
    let flag = seen.hold_cancelled.clone();
    r.register_with_context(
        ToolSpec::new(
            "hold",
            "Waits until cancelled (at most 20 s)",
            json!({"type": "object"}),
        )
        .unwrap(),
        move |_, ctx| {
            if ctx.wait(Duration::from_secs(20)) {
                flag.store(true, Ordering::SeqCst);
                return Err("cancelled".into());
            }
            Ok("held".into())
        },
    )
    .unwrap();
    let dropped = seen.forever_dropped.clone();
    r.register_async_with_context(
        ToolSpec::new(
            "forever",
            "Never finishes by itself",
            json!({"type": "object"}),
        )
        .unwrap(),
        move |_, _ctx| {
            let guard = SetOnDrop(dropped.clone());
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok("unreachable".into())
            }
        },
    )
    .unwrap();
    r.register_with_context(
        ToolSpec::new(
            "chatty",
            "Reports progress and logs",
            json!({"type": "object"}),
        )
        .unwrap(),
        |_, ctx| {
            ctx.progress(1.0, Some(3.0), Some("one"));
            ctx.progress(1.0, Some(3.0), None); // not an increase: not sent
            ctx.progress(0.5, None, None); // a decrease: not sent
            ctx.progress(3.0, Some(3.0), None);
            ctx.log(LogLevel::Debug, "debug detail");
            ctx.log(LogLevel::Warning, json!({"disk": "80%"}));
            Ok("done".into())
        },
    )
    .unwrap();
    r
}

fn server_with(options: ServerOptions) -> (McpServer, Seen) {
    let seen = Seen::default();
    (McpServer::new(registry(&seen), options), seen)
}

fn server() -> (McpServer, Seen) {
    server_with(ServerOptions::default())
}

fn ready() -> (McpServer, Seen) {
    let (mut s, seen) = server();
    let out = s.handle(&init_message("2025-11-25")).finish();
    assert_eq!(out.len(), 1);
    let none = s
        .handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .finish();
    assert!(none.is_empty(), "a notification gets no response");
    (s, seen)
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The one message a request gets.
fn one(s: &mut McpServer, message: &str) -> Value {
    let out = s.handle(message).finish();
    assert_eq!(out.len(), 1, "{out:?}");
    parse(&out[0])
}

fn call(id: Value, name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
        .to_string()
}

fn error_of(v: &Value) -> (i64, &str) {
    (
        v["error"]["code"].as_i64().unwrap_or(0),
        v["error"]["message"].as_str().unwrap_or(""),
    )
}

#[test]
fn initialize_answers_with_the_clients_version_when_spoken_else_the_latest() {
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let (mut s, _) = server();
        let r = one(&mut s, &init_message(asked));
        assert_eq!(r["id"], 0);
        assert_eq!(r["result"]["protocolVersion"], answered, "asked {asked}");
        assert_eq!(s.protocol_version(), Some(answered));
        assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], true);
        assert_eq!(r["result"]["capabilities"]["logging"], json!({}));
        assert_eq!(r["result"]["serverInfo"]["name"], "toolwire");
        assert_eq!(
            r["result"]["serverInfo"]["version"],
            env!("CARGO_PKG_VERSION")
        );
    }
    let (mut s, _) = server();
    let r = one(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    );
    assert_eq!(
        error_of(&r),
        (-32602, "invalid params: /protocolVersion: missing field")
    );
    assert_eq!(
        s.protocol_version(),
        None,
        "a refused initialize initializes nothing"
    );
}

#[test]
fn requests_before_initialize_are_refused_ping_is_answered_and_initialize_happens_once() {
    let (mut s, _) = server();
    let r = one(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#,
    );
    assert_eq!(r["id"], "a");
    assert_eq!(error_of(&r).0, -32600);
    assert!(error_of(&r).1.contains("before `initialize`"), "{r}");
    let r = one(&mut s, r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
    one(&mut s, &init_message("2025-06-18"));
    let r = one(&mut s, &init_message("2025-06-18"));
    assert_eq!(
        error_of(&r),
        (
            -32600,
            "invalid request: the session is already initialized"
        )
    );
}

#[test]
fn tools_list_pages_follow_cursors_to_every_tool_with_its_mcp_members() {
    let (mut s, _) = server_with(ServerOptions {
        page_size: 3,
        ..Default::default()
    });
    one(&mut s, &init_message("2025-11-25"));
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    let mut pages = 0;
    loop {
        let r = one(
            &mut s,
            &json!({"jsonrpc": "2.0", "id": pages, "method": "tools/list", "params": {"cursor": cursor}})
                .to_string(),
        );
        pages += 1;
        let tools = r["result"]["tools"].as_array().unwrap();
        assert!(tools.len() <= 3);
        names.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
        if let Some(t) = tools.iter().find(|t| t["name"] == "get_weather") {
            assert_eq!(t["title"], "Weather");
            assert_eq!(t["annotations"], json!({"readOnlyHint": true}));
            assert_eq!(t["icons"], json!([{"src": "https://example.com/w.png"}]));
            assert_eq!(t["_meta"], json!({"example.com/tier": "free"}));
            assert_eq!(t["outputSchema"]["required"], json!(["temp_c"]));
            assert_eq!(t["inputSchema"]["required"], json!(["city"]));
        }
        match r["result"].get("nextCursor") {
            Some(c) => cursor = c.clone(),
            None => break,
        }
    }
    let want: Vec<String> = s.registry().names().map(str::to_owned).collect();
    assert_eq!(names, want, "every tool once, sorted");
    assert_eq!(pages, want.len().div_ceil(3));
    for bad in [json!(7), json!("not a cursor!")] {
        let r = one(
            &mut s,
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"cursor": bad}})
                .to_string(),
        );
        assert_eq!(error_of(&r).0, -32602, "{r}");
    }
}

#[test]
fn tools_call_results_structured_content_and_every_failure_as_is_error() {
    let (mut s, _) = ready();
    let r = one(
        &mut s,
        &call(json!(1), "get_weather", json!({"city": "Oslo"})),
    );
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["structuredContent"], json!({"temp_c": 21}));
    assert_eq!(r["result"]["content"][0]["text"], "{\"temp_c\":21}");
    assert!(r["result"].get("isError").is_none_or(|e| e == false));

    let failures = [
        (
            call(json!(2), "get_weather", json!({"city": "Atlantis"})),
            "no such city",
        ),
        (
            call(json!(3), "get_weather", json!({})),
            "invalid arguments for get_weather: /: \"city\" is a required property",
        ),
        (
            call(json!(4), "boom", json!({})),
            "tool boom panicked: the disk is on fire",
        ),
        (
            call(json!(5), "bad_output", json!({})),
            "tool bad_output returned structured content that does not match its output schema: /n: \"three\" is not of type \"integer\"",
        ),
        (
            call(json!(6), "text_only", json!({})),
            "tool text_only declares an output schema but returned no structured content (a JSON object)",
        ),
    ];
    for (message, text) in failures {
        let r = one(&mut s, &message);
        assert_eq!(r["result"]["isError"], true, "{r}");
        assert_eq!(r["result"]["content"][0]["text"], text);
    }
    // The server kept serving after the panic.
    let r = one(&mut s, &call(json!(7), "echo", json!({"x": 1})));
    assert_eq!(r["result"]["content"][0]["text"], "{\"x\":1}");
    // An unknown tool is a protocol error, with the id echoed.
    let r = one(&mut s, &call(json!("u"), "nope", json!({})));
    assert_eq!(r["id"], "u");
    assert_eq!(error_of(&r).0, -32602);
    assert!(error_of(&r).1.contains("unknown tool `nope`"), "{r}");
    let r = one(
        &mut s,
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{}}}"#,
    );
    assert_eq!(
        error_of(&r),
        (-32602, "invalid params: /name: missing field")
    );
}

#[test]
fn each_malformed_message_gets_its_json_rpc_error_and_notifications_get_none() {
    let (mut s, _) = ready();
    let cases: [(&str, i64, Value); 9] = [
        ("{\"jsonrpc\":", -32700, Value::Null),
        ("not json at all", -32700, Value::Null),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            Value::Null,
        ),
        ("42", -32600, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            -32600,
            json!(3),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"m","method":"resources/list"}"#,
            -32601,
            json!("m"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}"#,
            -32602,
            json!(4),
        ),
    ];
    for (message, code, id) in cases {
        let r = one(&mut s, message);
        assert_eq!(r["jsonrpc"], "2.0");
        assert_eq!((error_of(&r).0, &r["id"]), (code, &id), "{message} -> {r}");
    }
    for silent in [
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nobody"}}"#,
        r#"{"jsonrpc":"2.0","id":77,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":78,"error":{"code":1,"message":"x"}}"#,
    ] {
        assert!(s.handle(silent).finish().is_empty(), "{silent}");
    }
}

#[test]
fn a_message_over_the_limit_is_refused_unread_and_one_at_the_limit_is_handled() {
    let (mut s, _) = server_with(ServerOptions {
        max_message_bytes: 200,
        ..Default::default()
    });
    let init = init_message("2025-11-25");
    let padded = format!("{init:<200}");
    assert_eq!(padded.len(), 200);
    let over = format!("{padded} ");
    let r = one(&mut s, &over);
    assert_eq!(r["id"], Value::Null);
    assert_eq!(
        error_of(&r),
        (
            -32600,
            "invalid request: the message is 201 bytes or more, over the limit of 200"
        )
    );
    assert_eq!(s.protocol_version(), None, "nothing of it was read");
    let r = one(&mut s, &padded);
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    let out = s
        .handle_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}")
        .finish();
    let r = parse(&out[0]);
    assert_eq!(
        error_of(&r),
        (
            -32700,
            "parse error: the message is not UTF-8 (invalid byte at offset 35)"
        )
    );
}

/// Runs a pending call on a thread; its notifications and response come back.
fn spawn(call: PendingCall) -> std::thread::JoinHandle<(Vec<String>, Option<String>)> {
    std::thread::spawn(move || {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let response = call.run(move |m| sink.lock().unwrap().push(m));
        let sent = sent.lock().unwrap().clone();
        (sent, response)
    })
}

#[test]
fn interleaved_calls_with_number_and_string_ids_run_concurrently_and_cancel_one_by_one() {
    let (mut s, seen) = ready();
    // `1` and `"1"` are two ids: both run at once.
    let a = s.handle(&call(json!(1), "hold", json!({})));
    assert!(a.messages.is_empty());
    let a = a.call.expect("a pending call");
    assert_eq!(a.id(), &RequestId::from(1));
    assert_eq!(a.tool(), "hold");
    let b = s.handle(&call(json!("1"), "hold", json!({}))).call.unwrap();
    assert_eq!(s.running(), 2);
    let (a, b) = (spawn(a), spawn(b));
    // While both run, other messages are handled, and a third call finishes first.
    assert_eq!(
        one(&mut s, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)["result"],
        json!({})
    );
    let c = one(&mut s, &call(json!(3.5), "echo", json!({"k": "v"})));
    assert_eq!(c["id"], 3.5);
    // An id still running cannot be used again.
    let dup = one(&mut s, &call(json!(1), "echo", json!({})));
    assert_eq!(dup["id"], 1);
    assert_eq!(error_of(&dup).0, -32600);
    // Cancel the number one: it ends without a response; the string one runs on.
    assert!(
        s.handle(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#)
            .finish()
            .is_empty()
    );
    let (_, response) = a.join().unwrap();
    assert_eq!(response, None, "a cancelled call sends no response");
    assert!(seen.hold_cancelled.load(Ordering::SeqCst));
    assert!(!b.is_finished(), "the string-id call is still running");
    assert_eq!(s.running(), 1);
    // Now the string one.
    assert!(s.cancel(&RequestId::from("1")));
    assert_eq!(b.join().unwrap().1, None);
    assert_eq!(s.running(), 0);
    // Ids are free again once their calls ended.
    let r = one(&mut s, &call(json!(1), "echo", json!({})));
    assert_eq!(r["result"]["content"][0]["text"], "{}");
}

#[test]
fn an_async_call_cancelled_is_dropped_at_once() {
    let (mut s, seen) = ready();
    let pending = s
        .handle(&call(json!("f"), "forever", json!({})))
        .call
        .unwrap();
    let running = spawn(pending);
    std::thread::sleep(Duration::from_millis(30));
    assert!(!running.is_finished());
    s.handle(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"f"}}"#)
        .finish();
    let (sent, response) = running.join().unwrap();
    assert_eq!((sent.len(), response), (0, None));
    assert!(
        seen.forever_dropped.load(Ordering::SeqCst),
        "the future was dropped"
    );
}

#[test]
fn a_client_that_disconnects_mid_call_leaves_nothing_running() {
    let (mut s, seen) = ready();
    let held = spawn(s.handle(&call(json!(1), "hold", json!({}))).call.unwrap());
    let forever = spawn(
        s.handle(&call(json!(2), "forever", json!({})))
            .call
            .unwrap(),
    );
    // A call accepted but never run (the transport dropped it) frees its id too.
    drop(s.handle(&call(json!(3), "hold", json!({}))).call.unwrap());
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(s.running(), 2);
    s.cancel_all(); // what a transport does when its peer is gone
    assert_eq!(held.join().unwrap().1, None);
    assert_eq!(forever.join().unwrap().1, None);
    assert!(seen.hold_cancelled.load(Ordering::SeqCst));
    assert!(seen.forever_dropped.load(Ordering::SeqCst));
    assert_eq!(s.running(), 0);
}

#[test]
fn progress_is_sent_increasing_for_a_token_and_logs_at_or_above_the_level_set() {
    let (mut s, _) = ready();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {}, "_meta": {"progressToken": "tok"}}})
    .to_string();
    let out: Vec<Value> = s
        .handle(&message)
        .finish()
        .iter()
        .map(|m| parse(m))
        .collect();
    assert_eq!(
        out,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok", "progress": 1, "total": 3, "message": "one"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok", "progress": 3, "total": 3}}),
            // `info` until the client sets a level: the debug message is not sent.
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning", "logger": "chatty", "data": {"disk": "80%"}}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "done"}]}}),
        ]
    );
    // No token: no progress. Level `debug`: both log messages.
    let r = one(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#,
    );
    assert_eq!(r["result"], json!({}));
    let out: Vec<Value> = s
        .handle(&call(json!(3), "chatty", json!({})))
        .finish()
        .iter()
        .map(|m| parse(m))
        .collect();
    let methods: Vec<&str> = out.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(methods, ["notifications/message", "notifications/message"]);
    assert_eq!(out[0]["params"]["level"], "debug");
    // Level `error`: neither.
    one(
        &mut s,
        r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"error"}}"#,
    );
    assert_eq!(
        s.handle(&call(json!(5), "chatty", json!({})))
            .finish()
            .len(),
        1
    );
    let r = one(
        &mut s,
        r#"{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"loud"}}"#,
    );
    assert_eq!(error_of(&r).0, -32602);
}

#[test]
fn list_changed_is_sent_when_the_listed_tools_change_after_initialize() {
    let (mut s, _) = server();
    let add = |r: &mut ToolRegistry| {
        r.register(
            ToolSpec::new("new_tool", "", json!({"type": "object"})).unwrap(),
            |_| Ok("x".into()),
        )
        .unwrap()
    };
    assert!(
        s.update_tools(add).is_empty(),
        "nobody to tell before initialize"
    );
    one(&mut s, &init_message("2025-11-25"));
    assert!(
        s.update_tools(|_| {}).is_empty(),
        "no change, no notification"
    );
    let out = s.update_tools(|r| {
        r.remove("new_tool");
    });
    assert_eq!(
        out,
        [r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#]
    );
    let r = one(&mut s, &call(json!(1), "new_tool", json!({})));
    assert_eq!(error_of(&r).0, -32602, "the removed tool is gone");
}

fn message() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        Just(json!(1)),
        Just(json!("1")),
        Just(json!(null)),
        Just(json!([1])),
        (-5i64..5).prop_map(Value::from),
        "[a-z]{0,3}".prop_map(Value::from),
    ];
    let method = prop_oneof![
        Just("initialize"),
        Just("ping"),
        Just("tools/list"),
        Just("tools/call"),
        Just("logging/setLevel"),
        Just("notifications/cancelled"),
        Just("notifications/initialized"),
        Just("nope"),
    ];
    let params = prop_oneof![
        Just(json!(null)),
        Just(json!([])),
        Just(json!({"protocolVersion": "2025-06-18"})),
        Just(json!({"name": "echo", "arguments": {"a": 1}})),
        Just(json!({"name": "boom"})),
        Just(json!({"name": "get_weather", "arguments": {"city": 3}})),
        Just(json!({"name": 7})),
        Just(json!({"cursor": "zzz"})),
        Just(json!({"level": "debug"})),
        Just(json!({"requestId": 1})),
    ];
    let structured = (id, method, params, any::<bool>()).prop_map(|(id, m, p, with_id)| {
        let mut o = json!({"jsonrpc": "2.0", "method": m, "params": p});
        if with_id {
            o["id"] = id;
        }
        o.to_string()
    });
    prop_oneof![
        structured.clone(),
        // The same, cut short or with a byte changed.
        (structured.clone(), any::<prop::sample::Index>())
            .prop_map(|(s, i)| s[..i.index(s.len() + 1).min(s.len())].to_owned()),
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn no_message_sequence_makes_the_server_panic_and_every_reply_is_json_rpc(
        messages in prop::collection::vec(message(), 1..12)
    ) {
        let (mut s, _) = server();
        for m in &messages {
            let handled = s.handle(m);
            let is_request = serde_json::from_str::<Value>(m)
                .ok()
                .is_some_and(|v| v.get("id").is_some() && v.get("method").is_some());
            let out = handled.finish();
            for line in &out {
                let v: Value = serde_json::from_str(line).expect("every reply is JSON");
                prop_assert_eq!(&v["jsonrpc"], "2.0");
                prop_assert!(v.get("result").is_some() || v.get("error").is_some() || v.get("method").is_some());
            }
            let responses = out.iter().filter(|l| !l.contains("\"method\"")).count();
            if is_request {
                prop_assert_eq!(responses, 1, "one response per request: {:?}", out);
            }
        }
        prop_assert_eq!(s.running(), 0);
    }
}

#[test]
fn a_tool_sees_the_request_id_and_its_name_in_its_context() {
    let mut r = ToolRegistry::new();
    r.register_with_context(
        ToolSpec::new("whoami", "", json!({"type": "object"})).unwrap(),
        |_, ctx| {
            Ok(format!(
                "{} {}",
                ctx.call_id().unwrap_or("-"),
                ctx.tool_name().unwrap_or("-")
            )
            .into())
        },
    )
    .unwrap();
    let mut s = McpServer::new(r, ServerOptions::default());
    s.handle(&init_message("2025-11-25")).finish();
    s.handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .finish();
    for (id, want) in [(json!(7), "7 whoami"), (json!("abc"), "abc whoami")] {
        let r = one(&mut s, &call(id, "whoami", json!({})));
        assert_eq!(r["result"]["content"][0]["text"], want);
    }
}
