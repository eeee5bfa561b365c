//! The rules of requests' settings several formats share, written once: the settings an
//! OpenAI-shaped request takes as they are, a wire value kept whole, the model a target requires, stop sequences as a string or a list, the
//! losses of the settings a target has no place for (seed and penalties, `top_k`, the
//! parallel-calls switch, an output schema's name and strictness, hidden thinking), and
//! reasoning effort levels against token budgets.

use crate::model::{OutputFormat, ReasoningConfig, Settings, Vendor};
use crate::{Ctx, Format, LossCode};
use serde::Serialize;
use serde_json::Value;
use wire_types::TextOrParts;

/// Keeps a wire value the neutral model cannot say whole, as the field `key` (its wire
/// name) of `format` in `v`, for the same format to write back and any other to report;
/// the neutral value is absent (`None`).
pub(crate) fn keep_whole<T>(
    v: &mut Vendor,
    format: Format,
    key: &str,
    value: &impl Serialize,
) -> Option<T> {
    v.set_field(format, key, wire_types::to_value(value));
    None
}

/// Reports the seed and penalties of `s`, for a target that has none of them: a
/// `dropped` loss each, at `/settings/<key>`, saying "`<target> has no <what>`" (the seed
/// named `seed`).
pub(crate) fn drop_seed_and_penalties(s: &Settings, target: &str, seed: &str, ctx: &mut Ctx<'_>) {
    for (set, key, what) in [
        (s.seed.is_some(), "seed", seed),
        (
            s.presence_penalty.is_some(),
            "presence_penalty",
            "presence penalty",
        ),
        (
            s.frequency_penalty.is_some(),
            "frequency_penalty",
            "frequency penalty",
        ),
    ] {
        if set {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/settings/{key}"),
                format!("{target} has no {what}"),
            );
        }
    }
}

/// The loss of `parallel_tool_calls: false` (at `at`) for `format`, which has no such
/// switch.
pub(crate) fn no_parallel_switch(off: Option<bool>, at: &str, format: Format, ctx: &mut Ctx<'_>) {
    if off == Some(false) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            at.to_owned(),
            format!("{format} has no switch for parallel tool calls"),
        );
    }
}

/// A request's model, which the target requires: the empty string, and a loss saying to
/// set it, when the source has none (it may be in the source's URL).
pub(crate) fn model_or_blank(model: Option<String>, ctx: &mut Ctx<'_>) -> String {
    model.unwrap_or_else(|| {
        model_missing(ctx);
        String::new()
    })
}

/// The loss of a request without a model, where the target requires one.
pub(crate) fn model_missing(ctx: &mut Ctx<'_>) {
    ctx.changed(
        LossCode::FieldDefaulted,
        "/model",
        "the source has no model (it may be in its URL); set `model` before sending",
    );
}

/// Stop sequences as a format that takes a string or a list writes them: one sequence
/// as the string when the source wrote it so (`as_string`), else the list.
pub(crate) fn stop_sequences(
    stop: Option<Vec<String>>,
    as_string: bool,
) -> Option<TextOrParts<String>> {
    stop.map(|mut st| {
        if as_string && st.len() == 1 {
            TextOrParts::Text(st.remove(0))
        } else {
            TextOrParts::Parts(st)
        }
    })
}

/// Stop sequences as a format that takes a string or a list reads them: the string is one
/// sequence, with the `as_string` hint of `format` in `v` for [`stop_sequences`].
pub(crate) fn read_stop_sequences(
    stop: Option<TextOrParts<String>>,
    v: &mut Vendor,
    format: Format,
    as_string: &str,
) -> Option<Vec<String>> {
    stop.map(|st| match st {
        TextOrParts::Text(t) => {
            v.set_hint(format, as_string, true);
            vec![t]
        }
        TextOrParts::Parts(p) => p,
    })
}

/// The settings an OpenAI-shaped request ([`chat_settings!`]) writes by rules of its own.
pub(crate) struct OwnSettings {
    /// Output-token limit.
    pub(crate) max_tokens: Option<u64>,
    /// Sampling seed.
    pub(crate) seed: Option<i64>,
    /// Reasoning effort or budget.
    pub(crate) reasoning: Option<ReasoningConfig>,
    /// Whether a stream reports its usage.
    pub(crate) stream_usage: Option<bool>,
}

/// Writes the settings an OpenAI-shaped request (Chat Completions, Mistral) takes as they
/// are into `$out`, a wire request with fields of the same names: the sampling settings,
/// the penalties, the parallel-calls switch, `stream`, and `stop` ([`stop_sequences`], a
/// string when `$stop_string`); `top_k` has no place ([`drop_top_k`]). Gives back the
/// settings the format writes by rules of its own ([`OwnSettings`]).
macro_rules! chat_settings {
    ($s:expr, $out:expr, $stop_string:expr, $ctx:expr) => {{
        let $crate::model::Settings {
            max_tokens,
            temperature,
            top_p,
            top_k,
            stop,
            seed,
            presence_penalty,
            frequency_penalty,
            parallel_tool_calls,
            reasoning,
            stream,
            stream_usage,
        } = $s;
        $out.parallel_tool_calls = parallel_tool_calls;
        $out.temperature = temperature;
        $out.top_p = top_p;
        $out.stop = $crate::passes::settings::stop_sequences(stop, $stop_string);
        $out.presence_penalty = presence_penalty;
        $out.frequency_penalty = frequency_penalty;
        $out.stream = stream;
        $crate::passes::settings::drop_top_k(top_k, $ctx);
        $crate::passes::settings::OwnSettings {
            max_tokens,
            seed,
            reasoning,
            stream_usage,
        }
    }};
}
pub(crate) use chat_settings;

/// Reports a `top_k` the target has no place for.
pub(crate) fn drop_top_k(top_k: Option<u64>, ctx: &mut Ctx<'_>) {
    if top_k.is_some() {
        let detail = format!("{} has no top_k", ctx.format);
        ctx.dropped(LossCode::FieldUnsupported, "/settings/top_k", detail);
    }
}

/// The name a target that requires one (OpenAI Chat and Responses, Mistral) gives an
/// output schema without a name.
pub(crate) fn schema_name(name: Option<String>) -> String {
    name.unwrap_or_else(|| "output".to_owned())
}

/// The schema of an output format that is one (`None` otherwise), for a target that
/// takes the bare schema (Cohere, Ollama): its name and a `strict: false` are losses
/// ([`drop_schema_name`], [`always_strict`]).
pub(crate) fn bare_schema(f: OutputFormat, ctx: &mut Ctx<'_>) -> Option<Value> {
    match f {
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => {
            drop_schema_name(name.as_deref(), ctx);
            always_strict(strict, ctx);
            Some(schema)
        }
        _ => None,
    }
}

/// Reports the name of an output schema, for a target whose output schemas have none.
pub(crate) fn drop_schema_name(name: Option<&str>, ctx: &mut Ctx<'_>) {
    if let Some(name) = name {
        let detail = format!("{} output schemas have no name (`{name}`)", ctx.format);
        ctx.dropped(LossCode::FieldUnsupported, "/output_format/name", detail);
    }
}

/// Reports an output schema that is not strict (`strict: false`), for a target that
/// always constrains the output to the schema (Cohere, Ollama).
pub(crate) fn always_strict(strict: Option<bool>, ctx: &mut Ctx<'_>) {
    if strict == Some(false) {
        let detail = format!("{} always constrains the output to the schema", ctx.format);
        ctx.changed(LossCode::SettingChanged, "/output_format/strict", detail);
    }
}

/// Reports reasoning settings that ask to hide the thinking (`include: false`, at
/// `at/include`), for a target that always returns the thinking of a `model` model.
pub(crate) fn thinking_always_returned(
    r: &ReasoningConfig,
    model: &str,
    at: &str,
    ctx: &mut Ctx<'_>,
) {
    if r.include == Some(false) {
        let detail = format!(
            "{} returns the thinking of a {model} model; it cannot be hidden",
            ctx.format
        );
        ctx.dropped(LossCode::FieldUnsupported, format!("{at}/include"), detail);
    }
}

/// The effort level a target that takes no token budget sends for `budget` tokens (the
/// nearest, [`budget_to_effort`]), with a `changed` loss at `at/budget_tokens`.
pub(crate) fn effort_for_budget(budget: i64, at: &str, ctx: &mut Ctx<'_>) -> &'static str {
    let e = budget_to_effort(budget);
    let detail = format!(
        "{} takes an effort level, not a token budget: {budget} tokens sent as `{e}`",
        ctx.format
    );
    ctx.changed(
        LossCode::SettingChanged,
        format!("{at}/budget_tokens"),
        detail,
    );
    e
}

/// The effort level of reasoning settings without one, for a target that takes levels
/// only (OpenAI Chat, Responses): `none` when reasoning is off, else the level nearest a
/// token budget ([`effort_for_budget`]); `None` when the settings say neither.
pub(crate) fn effort_off_or_budget(
    r: &ReasoningConfig,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<wire_types::openai_chat::ReasoningEffort> {
    use wire_types::openai_chat::ReasoningEffort;
    if r.enabled == Some(false) {
        return Some(ReasoningEffort::None);
    }
    let b = r.budget_tokens?;
    Some(ReasoningEffort::from(effort_for_budget(b, at, ctx)))
}

/// An effort level for a reasoning token budget (for formats that take levels only).
pub(crate) fn budget_to_effort(budget: i64) -> &'static str {
    match budget {
        i64::MIN..=0 => "none",
        1..=2048 => "low",
        2049..=8192 => "medium",
        _ => "high",
    }
}

/// A reasoning token budget for an effort level (for formats that take budgets only).
#[allow(dead_code)] // used by the budget-only formats' encoders
pub(crate) fn effort_to_budget(effort: &str) -> Option<i64> {
    match effort {
        "none" => Some(0),
        "minimal" => Some(1024),
        "low" => Some(2048),
        "medium" => Some(8192),
        "high" => Some(16384),
        "xhigh" | "max" => Some(32768),
        _ => None,
    }
}
