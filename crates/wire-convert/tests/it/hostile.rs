//! Bodies a stranger could send a gateway (`fixtures/hostile/`): whatever a conversion
//! writes, toolwire reads back, on the text and the `Value` paths alike.

use wire_convert::model::Part;
use wire_convert::{Format, Options};

/// A response whose calls' argument text is well-formed JSON that no `Value` reader
/// takes (nested 128 deep, `1e400`, a lone surrogate), converted to every format on both
/// paths: the output reads back as the target; each call's arguments are carried as
/// the same text, or changed with a loss at that call.
#[test]
fn arguments_no_value_reader_takes_are_carried_as_text_or_reported() {
    let path =
        test_support::fixtures_dir().join("hostile/unreadable-arguments.openai-chat.response.json");
    let body = std::fs::read_to_string(path).unwrap();
    let value: serde_json::Value = wire_types::value_from_str(&body).unwrap_or_else(|e| {
        // The body itself (its argument strings) is fine for a `Value`.
        panic!("{e}")
    });
    let options = Options::default();
    let source = wire_convert::decode_response(&body, Format::OpenaiChat, &options).unwrap();
    let texts: Vec<String> = calls(&source.value);
    assert_eq!(texts.len(), 3);
    for to in Format::CHAT {
        let text = wire_convert::convert_response(&body, Format::OpenaiChat, to, &options)
            .unwrap_or_else(|e| panic!("→ {to}: {e}"));
        let by_value =
            wire_convert::convert_response_value(&value, Format::OpenaiChat, to, &options)
                .unwrap_or_else(|e| panic!("→ {to} (Value): {e}"));
        assert!(
            !by_value.value.is_null(),
            "→ {to}: the Value path wrote null"
        );
        let written_value = serde_json::to_string(&by_value.value).unwrap();
        for (how, written, losses) in [
            ("text", text.value.as_str(), &text.losses),
            ("Value", written_value.as_str(), &by_value.losses),
        ] {
            let back = wire_convert::decode_response(written, to, &options).unwrap_or_else(|e| {
                panic!("→ {to} ({how} path) wrote what toolwire cannot read back: {e}\n{written}")
            });
            for (i, (was, now)) in texts.iter().zip(calls(&back.value)).enumerate() {
                if *was != now {
                    let at = format!("/choices/0/message/tool_calls/{i}");
                    assert!(
                        losses.iter().any(|l| l.path.starts_with(&at)),
                        "→ {to} ({how} path): call {i}'s arguments changed with no loss at {at}: {losses:?}"
                    );
                }
            }
        }
    }
}

/// The argument text of each call in the first choice.
fn calls(r: &wire_convert::model::Response) -> Vec<String> {
    r.choices[0]
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.arguments.text()),
            _ => None,
        })
        .collect()
}

/// The top-level JSON keys `format`'s request and response wire types model.
fn wire_fields(format: Format) -> (&'static [&'static str], &'static [&'static str]) {
    use wire_types as w;
    match format {
        Format::OpenaiChat => (
            w::openai_chat::Request::FIELDS,
            w::openai_chat::Response::FIELDS,
        ),
        Format::OpenaiResponses => (
            w::openai_responses::Request::FIELDS,
            w::openai_responses::Response::FIELDS,
        ),
        Format::Anthropic => (
            w::anthropic::Request::FIELDS,
            w::anthropic::Response::FIELDS,
        ),
        Format::Gemini => (w::gemini::Request::FIELDS, w::gemini::Response::FIELDS),
        Format::Ollama => (w::ollama::Request::FIELDS, w::ollama::Response::FIELDS),
        Format::Bedrock => (w::bedrock::Request::FIELDS, w::bedrock::Response::FIELDS),
        Format::Mistral => (w::mistral::Request::FIELDS, w::mistral::Response::FIELDS),
        Format::Cohere => (w::cohere::Request::FIELDS, w::cohere::Response::FIELDS),
        other => panic!("{other}: not a chat format"),
    }
}

/// A hand-built neutral value (a caller's, or one read from JSON) may hold a vendor record
/// of the target's own whose fields are named like the wire fields and do not fit them.
/// Whatever the encoder writes of its own (a required `model`, `created`, `role`), the
/// body must read back: no key written twice, no value of the wrong type under a known
/// key. What is not written is a loss at its key.
#[test]
fn own_vendor_fields_named_like_wire_fields_never_break_the_body() {
    use serde_json::{Map, Value, json};
    use wire_convert::model::{self, Message, Role};
    // A value no typed field of these bodies takes: an array of a lone `null`.
    let misfit = || json!([null]);
    let options = Options::default();
    for format in Format::CHAT {
        let (request_fields, response_fields) = wire_fields(format);
        let record = |keys: &[&str]| {
            let fields: Map<String, Value> =
                keys.iter().map(|k| ((*k).to_owned(), misfit())).collect();
            model::Vendor::new(format, fields)
        };
        let response = model::Response {
            id: Some("resp_1".into()),
            model: Some("m".into()),
            choices: vec![model::Choice {
                message: Message::new(Role::Assistant, vec![model::Part::text("hi")]),
                stop_reason: None,
                vendor: Default::default(),
            }],
            vendor: record(response_fields),
            ..Default::default()
        };
        // Refusing such a value is right too, with an error that names the field.
        if let Ok(out) = refused_or(wire_convert::encode_response(response, format, &options)) {
            wire_convert::decode_response(&out.value, format, &options).unwrap_or_else(|e| {
                panic!(
                    "{format} response: toolwire cannot read back its own body: {e}\n{}",
                    out.value
                )
            });
            carried_or_lost(&out.value, &out.losses, response_fields, format);
        }
        let request = model::Request {
            model: Some("m".into()),
            messages: vec![Message::new(Role::User, vec![model::Part::text("hi")])],
            vendor: record(request_fields),
            ..Default::default()
        };
        if let Ok(out) = refused_or(wire_convert::encode_request(request, format, &options)) {
            wire_convert::decode_request(&out.value, format, &options).unwrap_or_else(|e| {
                panic!(
                    "{format} request: toolwire cannot read back its own body: {e}\n{}",
                    out.value
                )
            });
            carried_or_lost(&out.value, &out.losses, request_fields, format);
        }
    }
}

/// The encoder's answer, or its refusal when that names a field (a pointer below the
/// root): any other error fails the test.
fn refused_or<T>(r: Result<T, wire_convert::Error>) -> Result<T, ()> {
    r.map_err(|e| {
        let text = e.to_string();
        assert!(
            text.contains("/") && text.contains("do not fit"),
            "a refusal that does not name the field: {text}"
        );
    })
}

/// Every key of `keys` is in the body with the misfit value (its wire field takes any
/// JSON), or is a loss at `/key` (written from the neutral value instead, or not written).
fn carried_or_lost(body: &str, losses: &[wire_convert::Loss], keys: &[&str], format: Format) {
    let body: serde_json::Value = serde_json::from_str(body).unwrap();
    for key in keys {
        let path = format!("/{key}");
        let carried = body.get(*key) == Some(&serde_json::json!([null]));
        assert!(
            carried || losses.iter().any(|l| l.path == path),
            "{format}: `{key}` neither carried nor a loss at {path}: {losses:#?}"
        );
    }
}

/// The nested objects a format keeps under a prefix (a call's `function.` fields for
/// Ollama, Mistral and Cohere): a kept field named like
/// one of the nested struct's own is a loss at its pointer, never a key written twice.
#[test]
fn nested_vendor_fields_named_like_wire_fields_are_losses() {
    use serde_json::{Map, Value, json};
    use wire_convert::model::{self, Arguments, Message, Part, Role, ToolCall};
    let options = Options::default();
    for format in [Format::Ollama, Format::Mistral, Format::Cohere] {
        let mut fields = Map::new();
        fields.insert("function.name".to_owned(), json!([null]));
        fields.insert("function.arguments".to_owned(), json!([null]));
        let mut call = ToolCall {
            id: "abcdefghi".into(),
            synthetic_id: false,
            name: "get_weather".into(),
            arguments: Arguments::Text("{}".into()),
            meta: Default::default(),
        };
        call.meta.vendor = model::Vendor::new(format, fields);
        let request = model::Request {
            model: Some("m".into()),
            messages: vec![
                Message::new(Role::User, vec![Part::text("hi")]),
                Message::new(Role::Assistant, vec![Part::ToolCall(call)]),
            ],
            ..Default::default()
        };
        let out = wire_convert::encode_request(request, format, &options).unwrap();
        let back = wire_convert::decode_request(&out.value, format, &options)
            .unwrap_or_else(|e| panic!("{format}: {e}\n{}", out.value));
        assert!(back.losses.is_empty(), "{format}: {:?}", back.losses);
        let body: Value = serde_json::from_str(&out.value).unwrap();
        let function = &body["messages"][1]["tool_calls"][0]["function"];
        assert_eq!(function["name"], "get_weather", "{format}: {function}");
        for key in ["name", "arguments"] {
            let path = format!("/messages/1/content/0/function/{key}");
            assert!(
                out.losses.iter().any(|l| l.path == path),
                "{format}: no loss at {path}: {:#?}",
                out.losses
            );
        }
    }
}
