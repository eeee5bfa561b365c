//! `ollama`: requests, responses and stream lines survive write → read.

use super::*;
use wire_types::ollama::*;

fn tool_call() -> impl Strategy<Value = ToolCall> {
    (
        maybe(ident()),
        maybe(Just("function".to_owned())),
        maybe(0u32..8),
        ident(),
        object(),
        extra(),
    )
        .prop_map(|(id, kind, index, name, arguments, extra)| ToolCall {
            id,
            kind,
            function: FunctionCall {
                index,
                name,
                arguments: arguments.into(),
                extra: Extra::new(),
            },
            extra,
        })
}

fn message() -> impl Strategy<Value = Message> {
    (
        open(Role::KNOWN),
        maybe(text()),
        maybe(text()),
        maybe(prop::collection::vec("[A-Za-z0-9+/]{4,40}", 0..3)),
        maybe(prop::collection::vec(tool_call(), 0..3)),
        (maybe(ident()), maybe(ident()), any::<bool>(), extra()),
    )
        .prop_map(
            |(
                role,
                content,
                thinking,
                images,
                tool_calls,
                (tool_name, tool_call_id, null_images, mut extra),
            )| {
                if images.is_none() && null_images {
                    extra.mark_null("images");
                }
                Message {
                    role,
                    content,
                    thinking,
                    images,
                    tool_calls,
                    tool_name,
                    tool_call_id,
                    extra,
                }
            },
        )
}

fn tool() -> impl Strategy<Value = Tool> {
    function_tool()
}

fn format() -> impl Strategy<Value = Format> {
    prop_oneof![
        Just(Format::Named("json".to_owned())),
        object().prop_map(Format::Schema)
    ]
}

fn think() -> impl Strategy<Value = Think> {
    prop_oneof![
        any::<bool>().prop_map(Think::Enabled),
        prop_oneof![Just("low"), Just("medium"), Just("high")].prop_map(|l| Think::Level(l.into())),
        other_str(ThinkLevel::KNOWN).prop_map(|l| Think::Level(ThinkLevel::Other(l))),
    ]
}

fn request() -> impl Strategy<Value = Request> {
    (
        conversation(message(), tool()),
        (maybe(format()), maybe(object()), maybe(any::<bool>())),
        (
            maybe(prop_oneof![
                text().prop_map(Value::String),
                number().prop_map(Value::Number)
            ]),
            maybe(think()),
            extra(),
        ),
    )
        .prop_map(
            |((model, messages, tools), (format, options, stream), (keep_alive, think, extra))| {
                Request {
                    model,
                    messages,
                    tools,
                    format,
                    options,
                    stream,
                    keep_alive,
                    think,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn response() -> impl Strategy<Value = Response> {
    (
        (maybe(ident()), maybe(text())),
        maybe(message()),
        (maybe(any::<bool>()), maybe(open(DoneReason::KNOWN))),
        (
            maybe(any::<u64>()),
            maybe(0u64..100_000),
            maybe(0u64..100_000),
            maybe(any::<u64>()),
        ),
        extra(),
    )
        .prop_map(
            |(
                (model, created_at),
                message,
                (done, done_reason),
                (total_duration, prompt_eval_count, eval_count, eval_duration),
                extra,
            )| {
                Response {
                    model,
                    created_at,
                    message,
                    done,
                    done_reason,
                    total_duration,
                    prompt_eval_count,
                    eval_count,
                    eval_duration,
                    extra,
                    ..Default::default()
                }
            },
        )
}

fn stream_event() -> impl Strategy<Value = StreamEvent> {
    prop_oneof![
        // A chunk is told from an error by its first known key: give it at least `done`.
        response().prop_map(|mut r| {
            r.done.get_or_insert(false);
            StreamEvent::Chunk(r)
        }),
        text().prop_map(|error| StreamEvent::Error(ErrorResponse {
            error,
            extra: Extra::new()
        })),
    ]
}

identity_properties! {
    request_read_after_write_is_identity => request(),
    response_read_after_write_is_identity => response(),
    stream_event_read_after_write_is_identity => stream_event(),
}
