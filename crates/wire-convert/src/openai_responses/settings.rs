//! Request settings both ways: sampling, limits, reasoning, tool choice, output format.

use super::hints::SUMMARY;
use super::{F, put_sub, to_map};
use crate::model::{OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::passes;
use crate::{Ctx, LossCode};
use serde_json::{Value, json};
use wire_types::openai_responses as w;

/// The request's sampling and limit settings, taken out of `req`.
pub(super) fn decode_settings(req: &mut w::Request, ctx: &mut Ctx<'_>) -> Settings {
    let s = Settings {
        max_tokens: req.max_output_tokens.take(),
        temperature: req.temperature.take(),
        top_p: req.top_p.take(),
        parallel_tool_calls: req.parallel_tool_calls.take(),
        stream: req.stream.take(),
        ..Default::default()
    };
    for (neutral, source, set) in [
        ("max_tokens", "max_output_tokens", s.max_tokens.is_some()),
        ("temperature", "temperature", s.temperature.is_some()),
        ("top_p", "top_p", s.top_p.is_some()),
        (
            "parallel_tool_calls",
            "parallel_tool_calls",
            s.parallel_tool_calls.is_some(),
        ),
        ("stream", "stream", s.stream.is_some()),
    ] {
        if set {
            ctx.map(
                format_args!("/settings/{neutral}"),
                format_args!("/{source}"),
            );
        }
    }
    s
}

/// `reasoning` as the neutral reasoning config (a summary asked for is `include`, its
/// value the [`SUMMARY`] hint); the rest of the object is kept in `v`.
pub(super) fn decode_reasoning_config(
    mut r: w::ReasoningConfig,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> ReasoningConfig {
    ctx.map("/settings/reasoning", "/reasoning");
    let mut rc = ReasoningConfig {
        effort: r.effort.take().map(|e| e.as_str().to_owned()),
        ..Default::default()
    };
    if rc.effort.is_some() {
        ctx.map("/settings/reasoning/effort", "/reasoning/effort");
    }
    if let Some(summary) = r.summary.take() {
        ctx.map("/settings/reasoning/include", "/reasoning/summary");
        rc.include = Some(true);
        v.set_hint(F, SUMMARY, summary);
    }
    put_sub(v, "reasoning", to_map(&r));
    rc
}

/// `text.format` as the neutral output format; the rest of `text` is kept in `v` (and
/// the whole format too, when it says more than the neutral one).
pub(super) fn decode_text(
    mut t: w::TextConfig,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    let (format, keep) = match t.format.take() {
        None => (None, None),
        Some(w::TextFormat::Text(x)) if x.extra.is_empty() => (Some(OutputFormat::Text), None),
        Some(w::TextFormat::JsonObject(x)) if x.extra.is_empty() => {
            (Some(OutputFormat::JsonObject), None)
        }
        Some(w::TextFormat::JsonSchema(j)) => {
            let neutral = OutputFormat::JsonSchema {
                name: Some(j.name.clone()),
                schema: j.schema.clone(),
                strict: j.strict,
            };
            // A description (or an unknown field) has no neutral place: the whole
            // format is kept as well, and wins when written back here.
            let keep = (j.description.is_some() || !j.extra.is_empty())
                .then_some(w::TextFormat::JsonSchema(j));
            (Some(neutral), keep)
        }
        Some(other) => (None, Some(other)),
    };
    if format.is_some() {
        ctx.map("/output_format", "/text/format");
    }
    t.format = keep;
    put_sub(v, "text", to_map(&t));
    format
}

/// The neutral settings and output format into `out` (which holds what this format kept
/// of them, in `v`'s fields); the settings Responses has no field for are losses.
pub(super) fn encode_settings(
    s: Settings,
    output_format: Option<OutputFormat>,
    v: &Vendor,
    out: &mut w::Request,
    ctx: &mut Ctx<'_>,
) {
    out.max_output_tokens = s.max_tokens.or(out.max_output_tokens);
    out.temperature = s.temperature.or(out.temperature.take());
    out.top_p = s.top_p.or(out.top_p.take());
    out.parallel_tool_calls = s.parallel_tool_calls.or(out.parallel_tool_calls);
    out.stream = s.stream.or(out.stream);
    for (key, set) in [
        ("stop", s.stop.is_some()),
        ("seed", s.seed.is_some()),
        ("top_k", s.top_k.is_some()),
        ("presence_penalty", s.presence_penalty.is_some()),
        ("frequency_penalty", s.frequency_penalty.is_some()),
    ] {
        if set {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/settings/{key}"),
                format!("{F} has no `{key}` setting"),
            );
        }
    }
    if let Some(r) = s.reasoning {
        let mut rc = out.reasoning.take().unwrap_or_default();
        rc.effort = encode_effort(&r, "/settings/reasoning", ctx).or(rc.effort);
        if r.include == Some(true) {
            let summary = v.hint(F, SUMMARY).and_then(Value::as_str).unwrap_or("auto");
            rc.summary = Some(summary.to_owned());
        }
        out.reasoning = Some(rc);
    }
    if let Some(f) = output_format {
        let mut tc = out.text.take().unwrap_or_default();
        if tc.format.is_none() {
            tc.format = Some(encode_format(f));
        }
        out.text = Some(tc);
    }
}

/// A wire tool choice as the neutral one, when it has one.
pub(super) fn decode_tool_choice(tc: &w::ToolChoice) -> Option<ToolChoice> {
    match tc {
        w::ToolChoice::Mode(w::ToolChoiceMode::Auto) => Some(ToolChoice::Auto),
        w::ToolChoice::Mode(w::ToolChoiceMode::None) => Some(ToolChoice::None),
        w::ToolChoice::Mode(w::ToolChoiceMode::Required) => Some(ToolChoice::Required),
        w::ToolChoice::Named(w::NamedToolChoice::Function(n)) if n.extra.is_empty() => {
            Some(ToolChoice::Tool {
                name: n.name.clone(),
            })
        }
        w::ToolChoice::Named(w::NamedToolChoice::AllowedTools(a)) if a.extra.is_empty() => {
            let required = match a.mode.as_str() {
                "auto" => false,
                "required" => true,
                _ => return None,
            };
            let names = a
                .tools
                .iter()
                .map(|t| match t {
                    Value::Object(m)
                        if m.len() == 2
                            && m.get("type").and_then(Value::as_str) == Some("function") =>
                    {
                        m.get("name").and_then(Value::as_str).map(str::to_owned)
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(ToolChoice::Allowed { names, required })
        }
        _ => None,
    }
}

/// The effort to send for a neutral reasoning config (a token budget becomes the
/// nearest effort, with a loss).
fn encode_effort(r: &ReasoningConfig, at: &str, ctx: &mut Ctx<'_>) -> Option<w::ReasoningEffort> {
    if let Some(e) = &r.effort {
        if r.budget_tokens.is_some() {
            ctx.dropped(
                LossCode::SettingChanged,
                format!("{at}/budget_tokens"),
                format!("{F} takes an effort level only; the token budget is left out"),
            );
        }
        let lower = e.to_ascii_lowercase();
        return Some(w::ReasoningEffort::from(lower.as_str()));
    }
    passes::settings::effort_off_or_budget(r, at, ctx)
}

/// A neutral output format as `text.format` (a schema without a name is `output`).
fn encode_format(f: OutputFormat) -> w::TextFormat {
    match f {
        OutputFormat::Text => w::TextFormat::Text(w::NoFields::default()),
        OutputFormat::JsonObject => w::TextFormat::JsonObject(w::NoFields::default()),
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => w::TextFormat::JsonSchema(w::JsonSchemaFormat {
            name: passes::settings::schema_name(name),
            schema,
            description: None,
            strict,
            extra: Default::default(),
        }),
    }
}

/// A neutral tool choice as the wire one.
pub(super) fn encode_tool_choice(c: ToolChoice) -> w::ToolChoice {
    match c {
        ToolChoice::Auto => w::ToolChoice::Mode(w::ToolChoiceMode::Auto),
        ToolChoice::None => w::ToolChoice::Mode(w::ToolChoiceMode::None),
        ToolChoice::Required => w::ToolChoice::Mode(w::ToolChoiceMode::Required),
        ToolChoice::Tool { name } => {
            w::ToolChoice::Named(w::NamedToolChoice::Function(w::NameChoice {
                name,
                extra: Default::default(),
            }))
        }
        ToolChoice::Allowed { names, required } => {
            w::ToolChoice::Named(w::NamedToolChoice::AllowedTools(w::AllowedToolsChoice {
                mode: if required { "required" } else { "auto" }.to_owned(),
                tools: names
                    .into_iter()
                    .map(|n| json!({"type": "function", "name": n}))
                    .collect(),
                extra: Default::default(),
            }))
        }
    }
}
