//! `fixtures/neutral/request/*.json`: requests written in the neutral model's own JSON,
//! one per conversion rule, encoded to every format. Each output must validate against
//! the target's SDK schema and drop nothing without a loss.

use crate::support::{Body, loss_lines, schema_errors, silent_drops};
use serde_json::Value;
use test_support::Report;
use wire_convert::model::Request;
use wire_convert::{Format, Options, decode_request_value, encode_request_value as encode_request};

#[test]
fn every_neutral_fixture_to_every_format() {
    insta::glob!("../../../../fixtures/neutral", "request/*.json", |path| {
        let input: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let request: Request = serde_json::from_value(input.clone())
            .unwrap_or_else(|e| panic!("{}: not a neutral request: {e}", path.display()));
        // The neutral JSON itself round-trips.
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            input,
            "{}",
            path.display()
        );
        let mut report = Report::new();
        let mut failures = Vec::new();
        for to in Format::CHAT {
            report.heading(format_args!("→ {to}"));
            match encode_request(request.clone(), to, &Options::default()) {
                Err(e) => {
                    report.line(format_args!("error: {e}\n"));
                    failures.push(format!("{to}: {e}"));
                }
                Ok(c) => {
                    report.list("losses", loss_lines(&c.losses));
                    for e in schema_errors(to, Body::Request, &c.value) {
                        failures.push(format!("{to}: schema: {e}"));
                    }
                    if let Err(e) = decode_request_value(&c.value, to, &Options::default()) {
                        failures.push(format!("{to}: the output does not read back: {e}"));
                    }
                    for d in silent_drops(&input, &c.value, &c.losses) {
                        failures.push(format!("{to}: dropped without a loss: {d}"));
                    }
                    report.json(&c.value);
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{}:\n{}",
            path.display(),
            failures.join("\n")
        );
        insta::assert_snapshot!(report.finish());
    });
}

/// The types behind `rule-schemars-schema.json`: nested structs with `Option` fields, a
/// unit enum, a data-carrying enum, and a recursive type.
mod types {
    #![allow(dead_code)]
    use schemars::JsonSchema;

    /// A trip to plan.
    #[derive(JsonSchema)]
    pub struct Itinerary {
        /// Who travels.
        pub traveller: Traveller,
        /// The legs, in order.
        pub legs: Vec<Leg>,
        /// Budget in euros.
        pub budget_eur: Option<f64>,
        pub class: CabinClass,
        pub notes: Option<String>,
    }

    #[derive(JsonSchema)]
    pub struct Traveller {
        pub name: String,
        pub email: Option<String>,
        pub loyalty: Option<Loyalty>,
    }

    #[derive(JsonSchema)]
    pub struct Loyalty {
        pub program: String,
        pub number: String,
    }

    #[derive(JsonSchema)]
    pub struct Leg {
        pub from: String,
        pub to: String,
        /// ISO 8601 date.
        pub date: String,
        pub mode: TransportMode,
    }

    #[derive(JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum CabinClass {
        Economy,
        Premium,
        Business,
    }

    #[derive(JsonSchema)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    pub enum TransportMode {
        Flight { number: String },
        Train { operator: String, seat: Option<u32> },
        Car,
    }

    /// A category tree (recursive).
    #[derive(JsonSchema)]
    pub struct Category {
        pub name: String,
        pub children: Vec<Category>,
    }
}

/// The fixture holds exactly what schemars 1.x generates for the types above (set
/// `TOOLWIRE_WRITE_FIXTURES=1` to rewrite it after changing them).
#[test]
fn the_schemars_fixture_is_what_schemars_generates() {
    let itinerary = schemars::schema_for!(types::Itinerary).to_value();
    let category = schemars::schema_for!(types::Category).to_value();
    let request = serde_json::json!({
        "model": "any-model",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Plan Lisbon → Porto by train on 3 May, economy, for Ana (ana@example.com)."}]}
        ],
        "tools": [
            {"type": "function", "name": "plan_trip", "description": "Plan a trip", "input_schema": itinerary},
            {"type": "function", "name": "file_under", "description": "File the trip under a category", "input_schema": category}
        ]
    });
    let path = crate::support::fixtures_dir().join("neutral/request/rule-schemars-schema.json");
    let text = serde_json::to_string_pretty(&request).unwrap() + "\n";
    if std::env::var_os("TOOLWIRE_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        on_disk, request,
        "rerun with TOOLWIRE_WRITE_FIXTURES=1 and review the diff"
    );
}

#[test]
fn a_part_kept_whole_that_no_longer_reads_is_a_loss_not_a_silent_drop() {
    use wire_convert::model::{Message, Opaque, Part, Role, Tool, ToolResult};
    let opaque = |format| Opaque {
        format,
        value: serde_json::json!("not an object"),
        meta: Default::default(),
    };
    for format in [
        Format::OpenaiChat,
        Format::Mistral,
        Format::Ollama,
        Format::Cohere,
    ] {
        let request = Request {
            model: Some("m".into()),
            messages: vec![Message::text(Role::User, "hi")],
            tools: vec![Tool::Opaque(opaque(format))],
            ..Default::default()
        };
        let out = encode_request(request, format, &Options::default()).unwrap();
        assert!(
            out.losses.iter().any(|l| l.path == "/tools/0"
                && l.kind == wire_convert::LossKind::Dropped
                && l.detail.contains("no longer a valid tool")),
            "{format}: {:?}",
            out.losses
        );
    }
    let result = ToolResult {
        call_id: "c1".into(),
        name: Some("f".into()),
        content: vec![Part::text("ok"), Part::Opaque(opaque(Format::OpenaiChat))],
        is_error: false,
        meta: Default::default(),
    };
    let request = Request {
        model: Some("m".into()),
        messages: vec![Message::new(Role::Tool, vec![Part::ToolResult(result)])],
        ..Default::default()
    };
    let out = encode_request(request, Format::OpenaiChat, &Options::default()).unwrap();
    assert!(
        out.losses
            .iter()
            .any(|l| l.path == "/messages/0/content/0/content/1"
                && l.detail.contains("no longer a valid content part")),
        "{:?}",
        out.losses
    );
}

#[test]
fn message_items_report_the_losses_of_the_messages_only() {
    use wire_convert::encode_messages;
    use wire_convert::model::{Cache, Message, Part, Role};
    let mut cached = Part::text("hi");
    if let Part::Text(t) = &mut cached {
        t.meta.cache = Some(Cache::default());
    }
    // No model: a request-level loss for the formats that carry the model in the body.
    let request = Request {
        messages: vec![Message::new(Role::User, vec![cached])],
        ..Default::default()
    };
    for format in [Format::OpenaiChat, Format::Mistral, Format::Ollama] {
        let whole = encode_request(request.clone(), format, &Options::default()).unwrap();
        assert!(
            whole.losses.iter().any(|l| l.path == "/model"),
            "{format}: {:?}",
            whole.losses
        );
        let items = encode_messages(request.clone(), format, &Options::default()).unwrap();
        let paths: Vec<&str> = items.losses.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["/messages/0/content/0/cache"], "{format}");
    }
}
