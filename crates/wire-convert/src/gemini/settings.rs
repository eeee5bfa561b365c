//! Request settings both ways: sampling, limits, reasoning, tool choice, output format.

use super::hints::{
    GENERATION_CONFIG, RESPONSE_JSON_SCHEMA, RESPONSE_SCHEMA, THINKING_BOTH, TOOL_CONFIG,
};
use super::{F, keep_rest, rebuild, rest};
use crate::model::{self, OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::{Ctx, GeminiSchema, LossCode, schema};
use serde_json::{Map, Number, Value};
use wire_types::gemini as w;

/// `toolConfig` as the neutral tool choice (`None` when its function calling config has
/// no neutral form: it is then kept, with the rest of the object, in `v`).
pub(super) fn decode_tool_config(
    mut tc: w::ToolConfig,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<ToolChoice> {
    ctx.map("/tool_choice", "/toolConfig/functionCallingConfig");
    let mut choice = None;
    if let Some(fcc) = tc.function_calling_config.take() {
        choice = decode_tool_choice(&fcc);
        if choice.is_none() {
            tc.function_calling_config = Some(fcc);
        }
    }
    let r = rest(&tc, &[]);
    if r.is_empty() {
        v.set_hint(F, TOOL_CONFIG, true);
    } else {
        keep_rest(v, "toolConfig", r);
    }
    choice
}

/// A function calling config as the neutral tool choice, when it has one.
pub(super) fn decode_tool_choice(f: &w::FunctionCallingConfig) -> Option<ToolChoice> {
    if !f.extra.is_empty() || f.stream_function_call_arguments.is_some() {
        return None;
    }
    use w::FunctionCallingMode as M;
    match (f.mode.as_ref()?, f.allowed_function_names.as_deref()) {
        (M::Auto, None) => Some(ToolChoice::Auto),
        (M::None, None) => Some(ToolChoice::None),
        (M::Any, None) => Some(ToolChoice::Required),
        (M::Any, Some([one])) => Some(ToolChoice::Tool { name: one.clone() }),
        (M::Any, Some(names)) if names.len() > 1 => Some(ToolChoice::Allowed {
            names: names.to_vec(),
            required: true,
        }),
        (M::Validated, Some(names)) if !names.is_empty() => Some(ToolChoice::Allowed {
            names: names.to_vec(),
            required: false,
        }),
        _ => None,
    }
}

/// `generationConfig` as the neutral settings and output format; what has no neutral
/// place is kept in `v`.
pub(super) fn decode_generation_config(
    mut gc: w::GenerationConfig,
    out: &mut model::Request,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) {
    let g = "/generationConfig";
    let mut s = Settings {
        max_tokens: gc.max_output_tokens.take(),
        temperature: gc.temperature.take(),
        top_p: gc.top_p.take(),
        stop: gc.stop_sequences.take(),
        seed: gc.seed.take(),
        presence_penalty: gc.presence_penalty.take(),
        frequency_penalty: gc.frequency_penalty.take(),
        ..Default::default()
    };
    if let Some(k) = gc.top_k.as_ref().and_then(Number::as_u64) {
        s.top_k = Some(k);
        gc.top_k = None;
    }
    for (neutral, source) in [
        ("max_tokens", "maxOutputTokens"),
        ("temperature", "temperature"),
        ("top_p", "topP"),
        ("top_k", "topK"),
        ("stop", "stopSequences"),
        ("seed", "seed"),
        ("presence_penalty", "presencePenalty"),
        ("frequency_penalty", "frequencyPenalty"),
        ("reasoning", "thinkingConfig"),
        ("reasoning/include", "thinkingConfig/includeThoughts"),
        ("reasoning/budget_tokens", "thinkingConfig/thinkingBudget"),
        ("reasoning/enabled", "thinkingConfig/thinkingBudget"),
        ("reasoning/effort", "thinkingConfig/thinkingLevel"),
    ] {
        ctx.map(
            format_args!("/settings/{neutral}"),
            format_args!("{g}/{source}"),
        );
    }
    ctx.map("/settings", g);

    let mut thinking_rest = None;
    if let Some(mut tc) = gc.thinking_config.take() {
        let mut r = ReasoningConfig {
            include: tc.include_thoughts.take(),
            ..Default::default()
        };
        match tc.thinking_budget.take() {
            Some(0) => r.enabled = Some(false),
            Some(-1) => r.enabled = Some(true),
            Some(b) => r.budget_tokens = Some(b),
            None => {}
        }
        if let Some(level) = tc.thinking_level.take() {
            if r.budget_tokens.is_some() || r.enabled.is_some() {
                v.set_hint(F, THINKING_BOTH, true);
            }
            r.effort = Some(level.as_str().to_ascii_lowercase());
        }
        let tr = rest(&tc, &[]);
        if !tr.is_empty() {
            thinking_rest = Some(tr);
        }
        s.reasoning = Some(r);
    }
    out.settings = s;

    // Output format.
    ctx.map("/output_format", g);
    let mime = gc.response_mime_type.as_deref();
    match (mime, &gc.response_schema, &gc.response_json_schema) {
        (Some("text/plain"), None, None) => {
            out.output_format = Some(OutputFormat::Text);
            gc.response_mime_type = None;
        }
        (Some("application/json"), None, None) => {
            out.output_format = Some(OutputFormat::JsonObject);
            gc.response_mime_type = None;
        }
        (Some("application/json"), None, Some(_)) => {
            ctx.map(
                "/output_format/schema",
                format_args!("{g}/responseJsonSchema"),
            );
            v.set_hint(F, RESPONSE_JSON_SCHEMA, true);
            out.output_format = Some(OutputFormat::JsonSchema {
                name: None,
                schema: gc.response_json_schema.take().unwrap_or_default(),
                strict: None,
            });
            gc.response_mime_type = None;
        }
        (Some("application/json"), Some(_), None) => {
            ctx.map("/output_format/schema", format_args!("{g}/responseSchema"));
            let original = gc.response_schema.take().unwrap_or_default();
            out.output_format = Some(OutputFormat::JsonSchema {
                name: None,
                schema: schema::from_gemini(&original),
                strict: None,
            });
            v.set_hint(F, RESPONSE_SCHEMA, original);
            gc.response_mime_type = None;
        }
        _ => {}
    }

    let mut r = rest(&gc, &[]);
    if let Some(tr) = thinking_rest {
        r.insert("thinkingConfig".into(), Value::Object(tr));
    }
    if r.is_empty() {
        v.set_hint(F, GENERATION_CONFIG, true);
    } else {
        keep_rest(v, "generationConfig", r);
    }
}

/// `toolConfig` for the neutral tool choice and what a Gemini source kept of the object
/// (`rest`, the [`TOOL_CONFIG`] hint of `v`); `None` when there is nothing to write.
pub(super) fn encode_tool_config(
    choice: Option<ToolChoice>,
    rest: Map<String, Value>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<w::ToolConfig> {
    if choice.is_none() && rest.is_empty() && !v.flag(F, TOOL_CONFIG) {
        return None;
    }
    let mut tc: w::ToolConfig = rebuild(rest, &[], "", "toolConfig", ctx);
    if let Some(choice) = choice {
        tc.function_calling_config = Some(encode_tool_choice(choice));
    }
    Some(tc)
}

/// The function calling config of a neutral tool choice.
pub(super) fn encode_tool_choice(c: ToolChoice) -> w::FunctionCallingConfig {
    use w::FunctionCallingMode as M;
    let (mode, names) = match c {
        ToolChoice::Auto => (M::Auto, None),
        ToolChoice::None => (M::None, None),
        ToolChoice::Required => (M::Any, None),
        ToolChoice::Tool { name } => (M::Any, Some(vec![name])),
        ToolChoice::Allowed {
            names,
            required: true,
        } => (M::Any, Some(names)),
        ToolChoice::Allowed {
            names,
            required: false,
        } => (M::Validated, Some(names)),
    };
    w::FunctionCallingConfig {
        mode: Some(mode),
        allowed_function_names: names,
        ..Default::default()
    }
}

/// Thinking level for a neutral effort, if Gemini has one.
fn thinking_level(effort: &str) -> Option<w::ThinkingLevel> {
    let upper = effort.to_ascii_uppercase();
    let level = w::ThinkingLevel::from(upper.as_str());
    level.is_known().then_some(level)
}

/// `generationConfig` for the neutral settings and output format, over what a Gemini
/// source kept of the object (`rest`, the [`GENERATION_CONFIG`] hint of `v`); `None` when
/// there is nothing to write. The settings Gemini has no field for are losses.
pub(super) fn encode_generation_config(
    s: Settings,
    output_format: Option<OutputFormat>,
    rest: Map<String, Value>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<w::GenerationConfig> {
    if s.parallel_tool_calls == Some(false) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            "/settings/parallel_tool_calls",
            "gemini has no switch for parallel function calls",
        );
    }
    if s.stream == Some(true) {
        ctx.moved(
            LossCode::StreamChanged,
            "/settings/stream",
            "gemini streams through another operation: call `:streamGenerateContent?alt=sse` with this body (it has no stream field)",
        );
    }
    let present = !rest.is_empty() || v.flag(F, GENERATION_CONFIG);
    let mut gc: w::GenerationConfig = rebuild(rest, &[], "", "generationConfig", ctx);
    gc.max_output_tokens = s.max_tokens;
    gc.temperature = s.temperature;
    gc.top_p = s.top_p;
    if let Some(k) = s.top_k {
        gc.top_k = Some(Number::from(k));
    }
    gc.stop_sequences = s.stop;
    gc.seed = s.seed;
    gc.presence_penalty = s.presence_penalty;
    gc.frequency_penalty = s.frequency_penalty;
    if let Some(r) = s.reasoning {
        let tc = gc.thinking_config.get_or_insert_with(Default::default);
        encode_thinking(r, tc, v.flag(F, THINKING_BOTH), ctx);
    }
    if let Some(f) = output_format {
        encode_output_format(f, &mut gc, v, ctx);
    }
    let empty = wire_types::to_value(&gc)
        .as_object()
        .is_none_or(Map::is_empty);
    (present || !empty).then_some(gc)
}

/// `thinkingConfig` for the neutral reasoning config (`both`: the source had a level and
/// a budget together, so both are written back).
pub(super) fn encode_thinking(
    r: ReasoningConfig,
    tc: &mut w::ThinkingConfig,
    both: bool,
    ctx: &mut Ctx<'_>,
) {
    let at = "/settings/reasoning";
    tc.include_thoughts = r.include;
    let mut level = None;
    let mut budget = r.budget_tokens;
    if let Some(e) = &r.effort {
        match thinking_level(e) {
            Some(l) => level = Some(l),
            None if e == "none" => {
                ctx.changed(
                    LossCode::SettingChanged,
                    format!("{at}/effort"),
                    "gemini has no `none` thinking level: thinking turned off with thinkingBudget 0",
                );
                budget = Some(0);
            }
            None if e == "max" => {
                ctx.changed(
                    LossCode::SettingChanged,
                    format!("{at}/effort"),
                    "gemini has no `max` thinking level: sent as XHIGH",
                );
                level = Some(w::ThinkingLevel::Xhigh);
            }
            None => ctx.dropped(
                LossCode::SettingChanged,
                format!("{at}/effort"),
                format!("gemini has no thinking level `{e}`"),
            ),
        }
    }
    if budget.is_none() {
        match r.enabled {
            Some(false) => budget = Some(0),
            Some(true) if level.is_none() => budget = Some(-1),
            _ => {}
        }
    }
    if level.is_some() && budget.is_some() && !both {
        ctx.dropped(
            LossCode::SettingChanged,
            format!("{at}/budget_tokens"),
            "gemini takes a thinking level or a thinking budget, not both: the budget is dropped",
        );
        budget = None;
    }
    tc.thinking_budget = budget;
    tc.thinking_level = level;
}

/// The output format into `generationConfig`: the MIME type and the schema (the original
/// OpenAPI schema of a Gemini source, else JSON Schema as the option or the source says,
/// else the schema rewritten for Gemini).
fn encode_output_format(
    f: OutputFormat,
    gc: &mut w::GenerationConfig,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) {
    match f {
        OutputFormat::Text => gc.response_mime_type = Some("text/plain".into()),
        OutputFormat::JsonObject => gc.response_mime_type = Some("application/json".into()),
        OutputFormat::JsonSchema {
            name,
            schema: s,
            strict,
        } => {
            gc.response_mime_type = Some("application/json".into());
            crate::passes::settings::drop_schema_name(name.as_deref(), ctx);
            if strict == Some(true) {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    "/output_format/strict",
                    "gemini has no strict flag for output schemas",
                );
            }
            if let Some(original) = v.hint(F, RESPONSE_SCHEMA) {
                gc.response_schema = Some(original.clone());
            } else if v.flag(F, RESPONSE_JSON_SCHEMA)
                || ctx.options.gemini_schema == GeminiSchema::JsonSchema
            {
                gc.response_json_schema = Some(s);
            } else {
                gc.response_schema = Some(schema::to_gemini(&s, ctx, "/output_format/schema"));
            }
        }
    }
}
