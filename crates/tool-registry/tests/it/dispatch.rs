use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tool_registry::{ToolError, ToolErrorKind, ToolOutput, ToolRegistry, ToolSpec};
use wire_convert::model::{Arguments, ToolCall};

fn call(id: &str, name: &str, args: Arguments) -> ToolCall {
    ToolCall {
        id: id.into(),
        synthetic_id: false,
        name: name.into(),
        arguments: args,
        meta: Default::default(),
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Trip {
    city: String,
    /// Nights, 1 or more.
    nights: u32,
    #[allow(dead_code)]
    class: Option<Class>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Class {
    Economy,
    Business,
}

fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register_typed("book", "Book a trip", |t: Trip| {
        Ok::<_, String>(format!("{} for {} nights", t.city, t.nights))
    })
    .unwrap();
    r.register(
        ToolSpec::new("add", "Add", json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false})).unwrap(),
        |v| Ok(json!(v["a"].as_i64().unwrap_or(0) + v["b"].as_i64().unwrap_or(0)).into()),
    )
    .unwrap();
    r.register(
        ToolSpec::new("shout", "Upper-case a text", json!({"type": "string"})).unwrap(),
        |v| match v {
            Value::String(s) => Ok(s.to_uppercase().into()),
            other => Err(format!("expected text, got {other}").into()),
        },
    )
    .unwrap();
    r.register(
        ToolSpec::new("boom", "Panics", json!({"type": "object"})).unwrap(),
        |_| panic!("the disk is on fire"),
    )
    .unwrap();
    r.register_async(
        ToolSpec::new(
            "slow",
            "Yields a few times",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        )
        .unwrap(),
        |v| async move {
            let n = v["n"].as_u64().unwrap_or(0);
            for _ in 0..n {
                yield_now().await;
            }
            Ok(ToolOutput::Text(format!("slept {n}")))
        },
    )
    .unwrap();
    r.register_async(
        ToolSpec::new(
            "async_boom",
            "Panics when polled",
            json!({"type": "object"}),
        )
        .unwrap(),
        |_| async {
            yield_now().await;
            panic!("async fire")
        },
    )
    .unwrap();
    r
}

/// Returns `Pending` once, waking itself.
async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

#[test]
fn a_typed_tool_gets_its_schema_from_the_type_and_its_input_parsed() {
    let r = registry();
    let schema = r.spec("book").unwrap().input_schema();
    assert_eq!(schema["required"], json!(["city", "nights"]));
    assert_eq!(
        schema["properties"]["nights"]["description"],
        "Nights, 1 or more."
    );
    assert_eq!(
        r.dispatch("book", json!({"city": "Rome", "nights": 2})),
        Ok("Rome for 2 nights".into())
    );
    let out = r.dispatch("book", json!({"city": "Rome"}));
    assert_eq!(
        out,
        Err(ToolError::of(
            ToolErrorKind::InvalidArguments,
            "invalid arguments for book: /nights: missing field"
        ))
    );
    let out = r.dispatch(
        "book",
        json!({"city": "Rome", "nights": 2, "class": "first"}),
    );
    assert_eq!(
        out.unwrap_err().message(),
        "invalid arguments for book: /class: unknown variant `first`, expected `economy` or `business`"
    );
}

#[test]
fn raw_schema_arguments_are_validated_before_the_handler_and_the_path_named() {
    let r = registry();
    let out = r.dispatch("add", json!({"a": 1, "b": "2"})).unwrap_err();
    assert_eq!(out.kind(), ToolErrorKind::InvalidArguments);
    assert_eq!(
        out.message(),
        "invalid arguments for add: /b: \"2\" is not of type \"integer\""
    );
    let out = r.dispatch("add", json!({"a": 1})).unwrap_err();
    assert_eq!(
        out.message(),
        "invalid arguments for add: /: \"b\" is a required property"
    );
    assert_eq!(
        r.dispatch("add", json!({"a": 1, "b": 2})),
        Ok(json!(3).into())
    );
}

#[test]
fn a_non_object_schema_is_unwrapped_from_input_and_a_string_passes_as_text() {
    let r = registry();
    assert!(r.spec("shout").unwrap().wraps_input());
    assert_eq!(r.dispatch("shout", json!({"input": "hi"})), Ok("HI".into()));
    let c = call("c1", "shout", Arguments::Text("{\"input\":\"hey\"}".into()));
    assert_eq!(
        r.dispatch_call(&c).content,
        vec![wire_convert::model::Part::text("HEY")]
    );
}

#[test]
fn arguments_that_are_not_json_give_a_failed_result_the_model_can_read() {
    let r = registry();
    let res = r.dispatch_call(&call(
        "c1",
        "add",
        Arguments::Text("{\"a\": 1, \"b\": ".into()),
    ));
    assert!(res.is_error);
    assert_eq!(
        res.content,
        vec![wire_convert::model::Part::text(
            "the arguments of `add` are not valid JSON (EOF while parsing a value at line 1 column 14); send a JSON object"
        )]
    );
    assert_eq!(res.call_id, "c1");
    assert_eq!(res.name.as_deref(), Some("add"));
}

#[test]
fn an_unknown_tool_is_a_failure_naming_the_tools_from_dispatch_and_dispatch_call() {
    let r = registry();
    let err = r.dispatch("nope", json!({})).unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::UnknownTool);
    assert_eq!(
        err.message(),
        "unknown tool `nope`; available tools: add, async_boom, book, boom, shout, slow"
    );
    let res = r.dispatch_call(&call("c9", "nope", Arguments::Value(json!({}))));
    assert!(res.is_error);
    assert_eq!(
        res.content,
        vec![wire_convert::model::Part::text(
            "unknown tool `nope`; available tools: add, async_boom, book, boom, shout, slow"
        )]
    );
}

#[test]
fn a_panicking_handler_gives_a_failed_result_and_the_registry_keeps_serving() {
    let r = registry();
    assert_eq!(
        r.dispatch("boom", json!({})),
        Err(ToolError::of(
            ToolErrorKind::Panicked,
            "tool boom panicked: the disk is on fire"
        ))
    );
    assert_eq!(
        r.dispatch("async_boom", json!({})),
        Err(ToolError::of(
            ToolErrorKind::Panicked,
            "tool async_boom panicked: async fire"
        ))
    );
    assert_eq!(
        r.dispatch("add", json!({"a": 2, "b": 2})),
        Ok(json!(4).into())
    );
}

#[test]
fn dispatch_all_runs_concurrently_and_returns_results_in_call_order() {
    let r = registry();
    // The first call needs the most polls: concurrent polling finishes it last, yet it
    // stays first.
    let calls = vec![
        call("a", "slow", Arguments::Value(json!({"n": 5}))),
        call("b", "add", Arguments::Value(json!({"a": 1, "b": 1}))),
        call("c", "slow", Arguments::Value(json!({"n": 1}))),
        call("d", "boom", Arguments::Value(json!({}))),
        call("e", "missing", Arguments::Value(json!({}))),
    ];
    let results = r.dispatch_all(&calls);
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    assert_eq!(
        results[0].content,
        vec![wire_convert::model::Part::text("slept 5")]
    );
    assert_eq!(
        results[2].content,
        vec![wire_convert::model::Part::text("slept 1")]
    );
    let errors: Vec<bool> = results.iter().map(|r| r.is_error).collect();
    assert_eq!(errors, [false, false, false, true, true]);
}

/// A rendezvous of `n` handlers: each arrives and waits (at most `patience`) until all
/// `n` have arrived. Handlers run one after another never meet: the first gives up.
struct Rendezvous {
    arrived: std::sync::Mutex<usize>,
    all_here: std::sync::Condvar,
    n: usize,
}

impl Rendezvous {
    fn new(n: usize) -> Arc<Self> {
        Arc::new(Rendezvous {
            arrived: std::sync::Mutex::new(0),
            all_here: std::sync::Condvar::new(),
            n,
        })
    }

    /// Whether all `n` met within `patience`.
    fn meet(&self, patience: std::time::Duration) -> bool {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.all_here.notify_all();
        let (arrived, _) = self
            .all_here
            .wait_timeout_while(arrived, patience, |a| *a < self.n)
            .unwrap();
        *arrived >= self.n
    }
}

/// A registry with `meet`, a synchronous tool that waits for `n` callers at once and
/// answers with its call's id and tool name, as its context gives them.
fn meeting_registry(n: usize) -> ToolRegistry {
    let rendezvous = Rendezvous::new(n);
    let mut r = ToolRegistry::new();
    r.register_with_context(
        ToolSpec::new("meet", "", json!({"type": "object"})).unwrap(),
        move |_, ctx| {
            if !rendezvous.meet(std::time::Duration::from_secs(10)) {
                return Err("alone: the other calls did not run at the same time".into());
            }
            Ok(format!(
                "{} {}",
                ctx.call_id().unwrap_or("-"),
                ctx.tool_name().unwrap_or("-")
            )
            .into())
        },
    )
    .unwrap();
    r
}

#[test]
fn synchronous_handlers_of_one_turn_run_at_the_same_time_and_see_their_call() {
    let mut r = meeting_registry(2);
    r.set_max_parallel(2);
    let calls = vec![
        call("call_a", "meet", Arguments::Value(json!({}))),
        call("call_b", "meet", Arguments::Value(json!({}))),
    ];
    let results = r.dispatch_all(&calls);
    let texts: Vec<String> = results.iter().map(|r| text_of(&r.content)).collect();
    // Both met (they ran at once), each named by its own call, in call order.
    assert_eq!(texts, ["call_a meet", "call_b meet"]);
}

#[test]
fn at_most_max_parallel_handlers_run_at_once() {
    // Six slow calls, two workers: never more than two handlers at once, and every call
    // still gets its result in order.
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let mut r = ToolRegistry::new();
    let (run, max) = (running.clone(), most.clone());
    r.register_with_context(
        ToolSpec::new("gauge", "", json!({"type": "object"})).unwrap(),
        move |_, ctx| {
            let now = run.fetch_add(1, Ordering::SeqCst) + 1;
            max.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(20));
            run.fetch_sub(1, Ordering::SeqCst);
            Ok(ctx.call_id().unwrap_or_default().into())
        },
    )
    .unwrap();
    r.set_max_parallel(2);
    let ids = ["u", "v", "w", "x", "y", "z"];
    let calls: Vec<ToolCall> = ids
        .iter()
        .map(|id| call(id, "gauge", Arguments::Value(json!({}))))
        .collect();
    let results = r.dispatch_all(&calls);
    let texts: Vec<String> = results.iter().map(|r| text_of(&r.content)).collect();
    assert_eq!(texts, ids);
    let most = most.load(Ordering::SeqCst);
    assert!((1..=2).contains(&most), "at most two at once, saw {most}");
}

#[test]
fn the_agent_step_runs_a_turns_synchronous_calls_in_parallel() {
    let r = {
        let mut r = meeting_registry(2);
        r.set_max_parallel(4);
        r
    };
    let body = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "meet", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "meet", "arguments": "{}"}}]}}]});
    let step = r
        .step(wire_types::Format::OpenaiChat, &body.to_string())
        .unwrap();
    let follow_up = step.follow_up_values();
    assert_eq!(follow_up[1]["content"], "call_1 meet");
    assert_eq!(follow_up[2]["content"], "call_2 meet");
}

#[test]
fn dispatch_names_the_tool_and_dispatch_call_names_the_call_too() {
    let mut r = ToolRegistry::new();
    r.register_with_context(
        ToolSpec::new("who", "", json!({"type": "object"})).unwrap(),
        |_, ctx| Ok(format!("{:?} {:?}", ctx.call_id(), ctx.tool_name()).into()),
    )
    .unwrap();
    assert_eq!(
        r.dispatch("who", json!({})),
        Ok(ToolOutput::Text("None Some(\"who\")".into()))
    );
    let result = r.dispatch_call(&call("toolu_9", "who", Arguments::Value(json!({}))));
    assert_eq!(text_of(&result.content), "Some(\"toolu_9\") Some(\"who\")");
}

fn text_of(parts: &[wire_convert::model::Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            wire_convert::model::Part::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn sixteen_threads_dispatch_at_once_and_nothing_is_lost() {
    let counter = Arc::new(AtomicUsize::new(0));
    let mut r = ToolRegistry::new();
    let c = counter.clone();
    r.register(
        ToolSpec::new(
            "count",
            "",
            json!({"type": "object", "properties": {"k": {"type": "integer"}}}),
        )
        .unwrap(),
        move |v| {
            c.fetch_add(1, Ordering::SeqCst);
            Ok(json!(v["k"]).into())
        },
    )
    .unwrap();
    let r = Arc::new(r);
    let handles: Vec<_> = (0..16)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                (0..200)
                    .map(|i| r.dispatch("count", json!({"k": t * 1000 + i})))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for (t, h) in handles.into_iter().enumerate() {
        let got = h.join().unwrap();
        let want: Vec<_> = (0..200)
            .map(|i| Ok(ToolOutput::Json(json!(t * 1000 + i))))
            .collect();
        assert_eq!(got, want);
    }
    assert_eq!(counter.load(Ordering::SeqCst), 16 * 200);
}

#[test]
fn the_registry_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ToolRegistry>();
}
