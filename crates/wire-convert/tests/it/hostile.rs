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
