//! Request settings both ways: sampling, limits, reasoning, tool choice, output format.

use super::F;
use super::hints::{MAX_TOKENS, STOP_STRING};
use crate::model::{OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::passes;
use crate::{Ctx, LossCode};
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::openai_chat as w;

/// The neutral tool choice; a choice it cannot say (an allowed-tools list, a custom
/// tool, unknown members) is kept whole as the `tool_choice` field of `v`.
pub(super) fn decode_tool_choice(c: Option<w::ToolChoice>, v: &mut Vendor) -> Option<ToolChoice> {
    match c? {
        w::ToolChoice::Mode(w::ToolChoiceMode::Auto) => Some(ToolChoice::Auto),
        w::ToolChoice::Mode(w::ToolChoiceMode::None) => Some(ToolChoice::None),
        w::ToolChoice::Mode(w::ToolChoiceMode::Required) => Some(ToolChoice::Required),
        w::ToolChoice::Named(w::NamedToolChoice::Function(f))
            if f.extra.is_empty() && f.function.extra.is_empty() =>
        {
            Some(ToolChoice::Tool {
                name: f.function.name,
            })
        }
        other => passes::settings::keep_whole(v, F, "tool_choice", &other),
    }
}

/// The neutral settings of `req` (the settings are taken out of it), and where each came
/// from. A legacy `max_tokens` alone is the limit (hint [`MAX_TOKENS`]); beside
/// `max_completion_tokens` it is kept as a field of `v`.
pub(super) fn decode_settings(req: &mut w::Request, v: &mut Vendor, ctx: &mut Ctx<'_>) -> Settings {
    for (neutral, source) in [
        (
            "/settings/max_tokens",
            if req.max_tokens.is_some() && req.max_completion_tokens.is_none() {
                "/max_tokens"
            } else {
                "/max_completion_tokens"
            },
        ),
        ("/settings/temperature", "/temperature"),
        ("/settings/top_p", "/top_p"),
        ("/settings/stop", "/stop"),
        ("/settings/seed", "/seed"),
        ("/settings/presence_penalty", "/presence_penalty"),
        ("/settings/frequency_penalty", "/frequency_penalty"),
        ("/settings/parallel_tool_calls", "/parallel_tool_calls"),
        ("/settings/reasoning", "/reasoning_effort"),
        ("/settings/stream", "/stream"),
    ] {
        ctx.map(neutral, source);
    }
    let mut s = Settings::default();
    match (req.max_completion_tokens, req.max_tokens) {
        (Some(m), None) => s.max_tokens = Some(m),
        (None, Some(m)) => {
            s.max_tokens = Some(m);
            v.set_hint(F, MAX_TOKENS, true);
        }
        (Some(m), Some(legacy)) => {
            s.max_tokens = Some(m);
            v.set_field(F, "max_tokens", Value::from(legacy));
        }
        (None, None) => {}
    }
    s.temperature = req.temperature.take();
    s.top_p = req.top_p.take();
    s.stop = passes::settings::read_stop_sequences(req.stop.take(), v, F, STOP_STRING);
    s.seed = req.seed;
    s.presence_penalty = req.presence_penalty.take();
    s.frequency_penalty = req.frequency_penalty.take();
    s.parallel_tool_calls = req.parallel_tool_calls;
    s.stream = req.stream;
    // `stream_options` that only asks for usage is the neutral setting; anything more is
    // kept whole.
    match req.stream_options.take() {
        Some(o)
            if o.include_obfuscation.is_none()
                && o.extra.is_empty()
                && o.include_usage.is_some() =>
        {
            ctx.map("/settings/stream_usage", "/stream_options/include_usage");
            s.stream_usage = o.include_usage;
        }
        other => v.keep(F, "stream_options", &other),
    }
    s.reasoning = req.reasoning_effort.as_ref().map(|e| ReasoningConfig {
        effort: Some(e.as_str().to_owned()),
        ..Default::default()
    });
    s
}

/// The neutral output format; one it cannot say (a schema with a description, unknown
/// members) is kept whole as the `response_format` field of `v`.
pub(super) fn decode_output_format(
    f: Option<w::ResponseFormat>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    for (neutral, source) in [
        ("/output_format", "/response_format"),
        ("/output_format/name", "/response_format/json_schema/name"),
        (
            "/output_format/schema",
            "/response_format/json_schema/schema",
        ),
        (
            "/output_format/strict",
            "/response_format/json_schema/strict",
        ),
    ] {
        ctx.map(neutral, source);
    }
    match f? {
        w::ResponseFormat::Text(x) if x.extra.is_empty() => Some(OutputFormat::Text),
        w::ResponseFormat::JsonObject(x) if x.extra.is_empty() => Some(OutputFormat::JsonObject),
        w::ResponseFormat::JsonSchema(j)
            if j.extra.is_empty()
                && j.json_schema.extra.is_empty()
                && j.json_schema.description.is_none() =>
        {
            Some(OutputFormat::JsonSchema {
                name: Some(j.json_schema.name),
                schema: j.json_schema.schema.unwrap_or(Value::Object(Map::new())),
                strict: j.json_schema.strict,
            })
        }
        other => passes::settings::keep_whole(v, F, "response_format", &other),
    }
}

/// Writes the neutral settings into `out`; `v` is the request's vendor record (its hints
/// say how the source spelled the limit and `stop`). `top_k` has no place (a loss).
pub(super) fn encode_settings(s: Settings, v: &Vendor, out: &mut w::Request, ctx: &mut Ctx<'_>) {
    let own = passes::settings::chat_settings!(s, out, v.flag(F, STOP_STRING), ctx);
    out.seed = own.seed;
    // Every other format streams its usage: a stream asked for elsewhere asks for it here.
    let from_elsewhere = ctx.source.is_some_and(|f| f != F);
    let asked = out.stream == Some(true) && from_elsewhere;
    let include_usage = own.stream_usage.or(asked.then_some(true));
    if include_usage.is_some() {
        out.stream_options = Some(w::StreamOptions {
            include_usage,
            include_obfuscation: None,
            extra: Default::default(),
        });
    }
    if let Some(m) = own.max_tokens {
        if v.flag(F, MAX_TOKENS) {
            out.max_tokens = Some(m);
        } else {
            out.max_completion_tokens = Some(m);
        }
    }
    if let Some(r) = own.reasoning {
        out.reasoning_effort = encode_effort(&r, "/settings/reasoning", ctx);
    }
}

/// A `reasoning_effort` for neutral reasoning settings (a token budget becomes the
/// nearest effort level, a `changed` loss).
fn encode_effort(r: &ReasoningConfig, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ReasoningEffort> {
    if r.include == Some(true) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            format!("{at}/include"),
            "openai-chat never returns reasoning text",
        );
    }
    if let Some(e) = &r.effort {
        return Some(w::ReasoningEffort::from(e.as_str()));
    }
    if let Some(e) = passes::settings::effort_off_or_budget(r, at, ctx) {
        return Some(e);
    }
    if r.enabled == Some(true) {
        ctx.changed(
            LossCode::SettingChanged,
            format!("{at}/enabled"),
            "openai-chat takes an effort level: reasoning switched on without one is sent as `medium`",
        );
        return Some(w::ReasoningEffort::Medium);
    }
    None
}

/// The wire tool choice (every neutral choice has one).
pub(super) fn encode_tool_choice(c: ToolChoice) -> w::ToolChoice {
    match c {
        ToolChoice::Auto => w::ToolChoice::Mode(w::ToolChoiceMode::Auto),
        ToolChoice::None => w::ToolChoice::Mode(w::ToolChoiceMode::None),
        ToolChoice::Required => w::ToolChoice::Mode(w::ToolChoiceMode::Required),
        ToolChoice::Tool { name } => {
            w::ToolChoice::Named(w::NamedToolChoice::Function(w::FunctionChoice {
                function: w::NameRef {
                    name,
                    extra: Extra::new(),
                },
                extra: Extra::new(),
            }))
        }
        ToolChoice::Allowed { names, required } => {
            let tools: Vec<Value> = names
                .into_iter()
                .map(|n| serde_json::json!({"type": "function", "function": {"name": n}}))
                .collect();
            w::ToolChoice::Named(w::NamedToolChoice::AllowedTools(w::AllowedToolsChoice {
                allowed_tools: serde_json::json!({"mode": if required { "required" } else { "auto" }, "tools": tools}),
                extra: Extra::new(),
            }))
        }
    }
}

/// The wire `response_format` (every neutral output format has one; a schema without a
/// name is named `output`).
pub(super) fn encode_output_format(f: OutputFormat) -> w::ResponseFormat {
    match f {
        OutputFormat::Text => w::ResponseFormat::Text(w::NoFields::default()),
        OutputFormat::JsonObject => w::ResponseFormat::JsonObject(w::NoFields::default()),
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => w::ResponseFormat::JsonSchema(w::JsonSchemaFormat {
            json_schema: w::JsonSchemaSpec {
                name: passes::settings::schema_name(name),
                description: None,
                schema: Some(schema),
                strict,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        }),
    }
}
