//! The demo registry both MCP examples serve (`mcp_server`, stdio; `mcp_http`,
//! Streamable HTTP): a few everyday tools (one with an output schema, one that always
//! fails, one that waits and can be cancelled) and the tools the official MCP conformance
//! suite (`@modelcontextprotocol/conformance` 0.1.10) calls by fixed name.

use serde_json::{Value, json};
use std::time::Duration;
use toolwire::convert::model::{Media, Part, Source};
use toolwire::prelude::*;
use toolwire::registry::{LogLevel, ToolError};

/// A 1×1 red PNG.
pub(crate) const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// Eight samples of 8 kHz, 8-bit mono silence, as a WAV file.
pub(crate) const WAV: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
}

fn none() -> Value {
    json!({"type": "object", "properties": {}})
}

fn media(data: &str, media_type: &str) -> Media {
    Media {
        source: Source::Base64 {
            data: data.to_owned(),
        },
        media_type: Some(media_type.to_owned()),
        name: None,
        meta: Default::default(),
    }
}

/// An embedded text resource: a document named by its URI.
fn resource(uri: &str, media_type: &str, text: &str) -> Part {
    Part::Document(Media {
        source: Source::Text {
            text: text.to_owned(),
        },
        media_type: Some(media_type.to_owned()),
        name: Some(uri.to_owned()),
        meta: Default::default(),
    })
}

/// The demo registry.
pub(crate) fn registry() -> Result<ToolRegistry, toolwire::registry::Error> {
    let mut r = ToolRegistry::new();
    r.register_typed("add", "Add two numbers", |x: Add| {
        Ok::<_, String>(json!(x.a + x.b).to_string())
    })?;
    r.register(
        ToolSpec::new(
            "get_weather",
            "Current weather in a city (structured: temperature in °C and conditions)",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        )?
        .with_title("Weather")
        .with_output_schema(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "temperature_c": {"type": "number"}, "conditions": {"type": "string"}},
            "required": ["city", "temperature_c", "conditions"]
        }))?,
        |v| {
            let city = v["city"].as_str().unwrap_or_default();
            if city.eq_ignore_ascii_case("atlantis") {
                return Err(format!("no weather station in {city}").into());
            }
            Ok(json!({"city": city, "temperature_c": 21.5, "conditions": "clear"}).into())
        },
    )?;
    r.register(
        ToolSpec::new(
            "always_fails",
            "A tool that always fails (for clients' error paths)",
            none(),
        )?,
        |_| Err(ToolError::new("this tool always fails")),
    )?;
    r.register_with_context(
        ToolSpec::new(
            "wait",
            "Waits `seconds` (at most 30), reporting progress each second; stops when cancelled",
            json!({"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 30}}, "required": ["seconds"]}),
        )?,
        |v, ctx| {
            let seconds = v["seconds"].as_f64().unwrap_or(0.0).clamp(0.0, 30.0);
            let mut waited = 0.0;
            while waited < seconds {
                let step = (seconds - waited).min(1.0);
                if ctx.wait(Duration::from_secs_f64(step)) {
                    return Err("cancelled".into());
                }
                waited += step;
                ctx.progress(waited, Some(seconds), None);
            }
            Ok(format!("waited {seconds} s").into())
        },
    )?;

    // The conformance suite's tools (`tools-call-*`, `json-schema-2020-12`).
    r.register(
        ToolSpec::new("test_simple_text", "Returns a simple text", none())?,
        |_| Ok("This is a simple text response for testing.".into()),
    )?;
    r.register(
        ToolSpec::new("test_image_content", "Returns a 1x1 red PNG image", none())?,
        |_| {
            Ok(ToolOutput::Parts(vec![Part::Image(media(
                PNG,
                "image/png",
            ))]))
        },
    )?;
    r.register(
        ToolSpec::new(
            "test_audio_content",
            "Returns a short WAV audio clip",
            none(),
        )?,
        |_| {
            Ok(ToolOutput::Parts(vec![Part::Audio(media(
                WAV,
                "audio/wav",
            ))]))
        },
    )?;
    r.register(
        ToolSpec::new(
            "test_embedded_resource",
            "Returns an embedded text resource",
            none(),
        )?,
        |_| {
            Ok(ToolOutput::Parts(vec![resource(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            )]))
        },
    )?;
    r.register(
        ToolSpec::new(
            "test_multiple_content_types",
            "Returns text, an image and an embedded resource",
            none(),
        )?,
        |_| {
            Ok(ToolOutput::Parts(vec![
                Part::text("Multiple content types test:"),
                Part::Image(media(PNG, "image/png")),
                resource(
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                ),
            ]))
        },
    )?;
    r.register_with_context(
        ToolSpec::new(
            "test_tool_with_logging",
            "Sends three info log messages while it runs",
            none(),
        )?,
        |_, ctx| {
            ctx.log(LogLevel::Info, "Tool execution started");
            ctx.wait(Duration::from_millis(50));
            ctx.log(LogLevel::Info, "Tool processing data");
            ctx.wait(Duration::from_millis(50));
            ctx.log(LogLevel::Info, "Tool execution completed");
            Ok("Tool with logging executed successfully".into())
        },
    )?;
    r.register(
        ToolSpec::new("test_error_handling", "Always fails", none())?,
        |_| Err("This tool intentionally returns an error for testing".into()),
    )?;
    r.register_with_context(
        ToolSpec::new(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100 while it runs",
            none(),
        )?,
        |_, ctx| {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 && ctx.wait(Duration::from_millis(50)) {
                    return Err("cancelled".into());
                }
                ctx.progress(p, Some(100.0), None);
            }
            Ok("Tool with progress executed successfully".into())
        },
    )?;
    r.register(
        ToolSpec::new(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                    }
                },
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                "additionalProperties": false
            }),
        )?,
        |v| Ok(format!("hello {}", v["name"].as_str().unwrap_or("nobody")).into()),
    )?;
    Ok(r)
}
