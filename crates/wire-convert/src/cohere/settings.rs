//! Request settings both ways: sampling, limits, reasoning (`thinking`), tool choice,
//! output format (`response_format`).

use super::F;
use crate::model::{OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::passes;
use crate::vendor::Fields;
use crate::{Ctx, LossCode};
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::cohere as w;

/// The tool choice of `tool_choice` (absent is `auto`); a value Cohere does not name is a
/// vendor field of `v`.
pub(super) fn decode_tool_choice(
    choice: Option<w::ToolChoice>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<ToolChoice> {
    ctx.map("/tool_choice", "/tool_choice");
    match choice {
        None => None,
        Some(w::ToolChoice::Required) => Some(ToolChoice::Required),
        Some(w::ToolChoice::None) => Some(ToolChoice::None),
        Some(other) => passes::settings::keep_whole(v, F, "tool_choice", &other),
    }
}

/// The settings of a request (its sampling fields, `stream` and `thinking`, taken out of
/// `req`); a `thinking` the neutral model cannot say is a vendor field of `v`.
pub(super) fn decode_settings(req: &mut w::Request, v: &mut Vendor, ctx: &mut Ctx<'_>) -> Settings {
    let mut s = Settings {
        max_tokens: req.max_tokens,
        temperature: req.temperature.take(),
        top_p: req.p.take(),
        top_k: req.k,
        stop: req.stop_sequences.take(),
        seed: req.seed,
        presence_penalty: req.presence_penalty.take(),
        frequency_penalty: req.frequency_penalty.take(),
        stream: req.stream,
        ..Default::default()
    };
    for (neutral, source) in [
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "p"),
        ("top_k", "k"),
        ("stop", "stop_sequences"),
        ("seed", "seed"),
        ("presence_penalty", "presence_penalty"),
        ("frequency_penalty", "frequency_penalty"),
        ("stream", "stream"),
        ("reasoning", "thinking"),
    ] {
        ctx.map(
            format_args!("/settings/{neutral}"),
            format_args!("/{source}"),
        );
    }
    // The reasoning settings' own names in `thinking`.
    ctx.map(
        "/settings/reasoning/budget_tokens",
        "/thinking/token_budget",
    );
    ctx.map("/settings/reasoning/enabled", "/thinking/type");
    match req.thinking.take() {
        None => {}
        Some(t) if t.extra.is_empty() && t.kind.is_known() => {
            s.reasoning = Some(ReasoningConfig {
                enabled: Some(t.kind == w::ThinkingType::Enabled),
                budget_tokens: t.token_budget.and_then(|b| i64::try_from(b).ok()),
                ..Default::default()
            });
        }
        Some(other) => v.set_field(F, "thinking", wire_types::to_value(&other)),
    }
    s
}

/// The output format of `response_format`; one with fields the neutral model has no
/// place for is a vendor field of `v`.
pub(super) fn decode_response_format(
    format: Option<w::ResponseFormat>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    ctx.map("/output_format", "/response_format");
    match format {
        None => None,
        Some(w::ResponseFormat::Text(t)) if t.extra.is_empty() => Some(OutputFormat::Text),
        Some(w::ResponseFormat::JsonObject(j)) if j.extra.is_empty() => match j.json_schema {
            None => Some(OutputFormat::JsonObject),
            Some(schema) => Some(OutputFormat::JsonSchema {
                name: None,
                schema,
                strict: None,
            }),
        },
        Some(other) => passes::settings::keep_whole(v, F, "response_format", &other),
    }
}

/// `tool_choice` for the neutral choice (`None`: a `tool_choice` of Cohere's own kept in
/// `fields`, if any). A named tool or an allowed list cannot be said: a call of any tool
/// is required, or the model decides.
pub(super) fn encode_tool_choice(
    choice: Option<ToolChoice>,
    fields: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
) -> Option<w::ToolChoice> {
    let Some(choice) = choice else {
        return fields.take_as("tool_choice");
    };
    match choice {
        ToolChoice::Auto => None,
        ToolChoice::None => Some(w::ToolChoice::None),
        ToolChoice::Required => Some(w::ToolChoice::Required),
        ToolChoice::Tool { name } => {
            ctx.changed(
                LossCode::ToolChoiceChanged,
                "/tool_choice",
                format!("cohere cannot force a call of `{name}`: a call of any tool is required"),
            );
            Some(w::ToolChoice::Required)
        }
        ToolChoice::Allowed { names, required } => {
            ctx.changed(
                LossCode::ToolChoiceChanged,
                "/tool_choice",
                format!(
                    "cohere cannot restrict the callable tools to {}: every tool is offered",
                    names.join(", ")
                ),
            );
            required.then_some(w::ToolChoice::Required)
        }
    }
}

/// `thinking` for neutral reasoning settings (`None`: a `thinking` of Cohere's own kept in
/// `fields`, if any).
pub(super) fn encode_thinking_config(
    r: Option<&ReasoningConfig>,
    fields: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
) -> Option<w::Thinking> {
    match r {
        Some(r) => reasoning_thinking(r, ctx),
        None => fields.take_as("thinking"),
    }
}

fn reasoning_thinking(r: &ReasoningConfig, ctx: &mut Ctx<'_>) -> Option<w::Thinking> {
    let at = "/settings/reasoning";
    passes::settings::thinking_always_returned(r, "reasoning", at, ctx);
    let off = r.enabled == Some(false)
        || r.effort.as_deref() == Some("none")
        || (r.enabled.is_none() && r.effort.is_none() && r.budget_tokens.is_some_and(|b| b <= 0));
    if off {
        return Some(w::Thinking {
            kind: w::ThinkingType::Disabled,
            token_budget: None,
            extra: Extra::new(),
        });
    }
    let budget = match (r.budget_tokens, r.effort.as_deref()) {
        (Some(b), _) => u64::try_from(b).ok(),
        (None, Some(e)) => {
            match passes::settings::effort_to_budget(e) {
                Some(b) => {
                    ctx.changed(
                    LossCode::SettingChanged,
                    format!("{at}/effort"),
                    format!("cohere takes a token budget, not an effort level: `{e}` sent as {b} tokens"),
                );
                    u64::try_from(b).ok()
                }
                None => {
                    ctx.dropped(
                        LossCode::FieldUnsupported,
                        format!("{at}/effort"),
                        format!("cohere has no effort levels (`{e}`): thinking is switched on"),
                    );
                    None
                }
            }
        }
        (None, None) => None,
    };
    if r.enabled.is_none() && budget.is_none() && r.effort.is_none() {
        return None;
    }
    Some(w::Thinking {
        kind: w::ThinkingType::Enabled,
        token_budget: budget,
        extra: Extra::new(),
    })
}

/// `response_format` for the neutral output format (`None`: a `response_format` of
/// Cohere's own kept in `fields`, if any).
pub(super) fn encode_response_format(
    output: Option<OutputFormat>,
    fields: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
) -> Option<w::ResponseFormat> {
    match output {
        None => fields.take_as("response_format"),
        Some(OutputFormat::Text) => Some(w::ResponseFormat::Text(w::NoFields::default())),
        Some(OutputFormat::JsonObject) => {
            Some(w::ResponseFormat::JsonObject(w::JsonObjectFormat::default()))
        }
        Some(schema) => passes::settings::bare_schema(schema, ctx).map(|schema| {
            w::ResponseFormat::JsonObject(w::JsonObjectFormat {
                json_schema: Some(schema),
                extra: Extra::new(),
            })
        }),
    }
}
