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
