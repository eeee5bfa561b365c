//! Request settings both ways: sampling, limits, reasoning (`thinking`,
//! `output_config.effort`), tool choice, output format (`output_config.format`).

use super::{F, hints};
use crate::model::{OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::passes;
use crate::passes::settings::effort_to_budget;
use crate::passes::thinking;
use crate::{Ctx, LossCode};
use serde_json::{Number, Value, json};
use wire_types::Extra;
use wire_types::anthropic as w;

/// `max_tokens` written when the source has none.
const DEFAULT_MAX_TOKENS: u64 = 4096;

// ---------------------------------------------------------------------------------------
// Decoding

/// Maps the sampling settings and limits to their source fields, and records which
/// sampling settings the request sent (hints `stream` and `sampling`).
pub(super) fn decode_sampling(s: &Settings, v: &mut Vendor, ctx: &mut Ctx<'_>) {
    for (neutral, source) in [
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("top_k", "top_k"),
        ("stop", "stop_sequences"),
        ("stream", "stream"),
    ] {
        ctx.map(
            format_args!("/settings/{neutral}"),
            format_args!("/{source}"),
        );
    }
    let sampling: Vec<Value> = [
        ("temperature", s.temperature.is_some()),
        ("top_p", s.top_p.is_some()),
        ("top_k", s.top_k.is_some()),
    ]
    .into_iter()
    .filter(|(_, present)| *present)
    .map(|(name, _)| Value::from(name))
    .collect();
    if !sampling.is_empty() {
        v.set_hint(F, hints::SAMPLING, Value::Array(sampling));
    }
}

/// The tool choice, and `disable_parallel_tool_use` into `s`; an unusual choice is kept
/// whole as the vendor field `tool_choice`.
pub(super) fn decode_tool_choice(
    choice: Option<w::ToolChoice>,
    s: &mut Settings,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<ToolChoice> {
    ctx.map("/tool_choice", "/tool_choice");
    ctx.map(
        "/settings/parallel_tool_calls",
        "/tool_choice/disable_parallel_tool_use",
    );
    let parallel = |d: Option<bool>| d.map(|d| !d);
    match choice {
        None => None,
        Some(w::ToolChoice::Auto(o)) if o.extra.is_empty() => {
            s.parallel_tool_calls = parallel(o.disable_parallel_tool_use);
            Some(ToolChoice::Auto)
        }
        Some(w::ToolChoice::Any(o)) if o.extra.is_empty() => {
            s.parallel_tool_calls = parallel(o.disable_parallel_tool_use);
            Some(ToolChoice::Required)
        }
        Some(w::ToolChoice::Tool(t)) if t.extra.is_empty() => {
            s.parallel_tool_calls = parallel(t.disable_parallel_tool_use);
            Some(ToolChoice::Tool { name: t.name })
        }
        Some(w::ToolChoice::None(n)) if n.extra.is_empty() => Some(ToolChoice::None),
        Some(other) => passes::settings::keep_whole(v, F, "tool_choice", &other),
    }
}

/// The reasoning settings of `thinking`; one the neutral model cannot say back the same
/// way is kept whole as the vendor field `thinking`.
pub(super) fn decode_thinking(
    thinking: Option<w::ThinkingConfig>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<ReasoningConfig> {
    ctx.map("/settings/reasoning", "/thinking");
    let display = |d: Option<&w::ThinkingDisplay>| match d {
        None => Some(None),
        Some(w::ThinkingDisplay::Summarized) => Some(Some(true)),
        Some(w::ThinkingDisplay::Omitted) => Some(Some(false)),
        Some(_) => None,
    };
    match thinking {
        None => None,
        Some(w::ThinkingConfig::Enabled(e)) if e.extra.is_empty() => {
            match (display(e.display.as_ref()), i64::try_from(e.budget_tokens)) {
                (Some(include), Ok(budget)) => Some(ReasoningConfig {
                    enabled: Some(true),
                    budget_tokens: Some(budget),
                    include,
                    ..Default::default()
                }),
                _ => {
                    v.set_field(
                        F,
                        "thinking",
                        wire_types::to_value(&w::ThinkingConfig::Enabled(e)),
                    );
                    None
                }
            }
        }
        Some(w::ThinkingConfig::Disabled(n)) if n.extra.is_empty() => Some(ReasoningConfig {
            enabled: Some(false),
            ..Default::default()
        }),
        Some(w::ThinkingConfig::Adaptive(a))
            if a.extra.is_empty() && display(a.display.as_ref()).is_some() =>
        {
            Some(ReasoningConfig {
                enabled: Some(true),
                include: display(a.display.as_ref()).flatten(),
                ..Default::default()
            })
        }
        Some(other) => passes::settings::keep_whole(v, F, "thinking", &other),
    }
}

/// The output format of `output_config`, its effort into `reasoning` (hint `effort`); an
/// `output_config` the neutral model cannot say back the same way is kept whole as the
/// vendor field `output_config`.
pub(super) fn decode_output_config(
    oc: Option<w::OutputConfig>,
    reasoning: &mut Option<ReasoningConfig>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    let oc = oc?;
    let format_ok = oc.format.as_ref().is_none_or(is_plain_json_schema);
    if !(oc.extra.is_empty() && format_ok && (oc.effort.is_some() || oc.format.is_some())) {
        v.set_field(F, "output_config", wire_types::to_value(&oc));
        return None;
    }
    if let Some(e) = oc.effort {
        ctx.map("/settings/reasoning/effort", "/output_config/effort");
        v.set_hint(F, hints::EFFORT, true);
        reasoning.get_or_insert_with(Default::default).effort = Some(e.as_str().to_owned());
    }
    match oc.format {
        Some(Value::Object(mut f)) => {
            ctx.map("/output_format", "/output_config/format");
            Some(OutputFormat::JsonSchema {
                name: None,
                schema: f.shift_remove("schema").unwrap_or(Value::Null),
                strict: None,
            })
        }
        _ => None,
    }
}

/// `{"type":"json_schema","schema":{…}}` and nothing else.
fn is_plain_json_schema(f: &Value) -> bool {
    f.as_object().is_some_and(|m| {
        m.len() == 2
            && m.get("type").and_then(Value::as_str) == Some("json_schema")
            && m.get("schema").is_some_and(Value::is_object)
    })
}

// ---------------------------------------------------------------------------------------
// Encoding

/// What the reasoning settings become.
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub(super) thinking: Option<w::ThinkingConfig>,
    pub(super) effort: Option<w::Effort>,
    /// The thinking budget written, if any.
    pub(super) budget: Option<u64>,
}

/// Whether a thinking configuration switches thinking on.
pub(super) fn thinking_on(t: Option<&w::ThinkingConfig>) -> bool {
    matches!(
        t,
        Some(w::ThinkingConfig::Enabled(_) | w::ThinkingConfig::Adaptive(_))
    )
}

fn plan_reasoning(r: ReasoningConfig, effort_hint: bool, ctx: &mut Ctx<'_>) -> Plan {
    const AT: &str = "/settings/reasoning";
    let display = r.include.map(|i| {
        if i {
            w::ThinkingDisplay::Summarized
        } else {
            w::ThinkingDisplay::Omitted
        }
    });
    let enabled = |budget_tokens: u64, display: Option<w::ThinkingDisplay>| {
        w::ThinkingConfig::Enabled(w::ThinkingEnabled {
            budget_tokens,
            display,
            extra: Extra::new(),
        })
    };
    let adaptive = |display: Option<w::ThinkingDisplay>| {
        w::ThinkingConfig::Adaptive(w::ThinkingAdaptive {
            display,
            extra: Extra::new(),
        })
    };
    let disabled = || w::ThinkingConfig::Disabled(w::NoFields::default());
    let mut plan = Plan::default();
    let foreign_effort = if effort_hint {
        plan.effort = r.effort.as_deref().map(w::Effort::from);
        None
    } else {
        r.effort.clone()
    };

    if r.enabled == Some(false) {
        plan.thinking = Some(disabled());
        if r.include == Some(true) {
            ctx.dropped(
                LossCode::SettingChanged,
                format!("{AT}/include"),
                "thinking is disabled: there is no thinking to return",
            );
        }
        if foreign_effort.is_some() {
            ctx.dropped(
                LossCode::SettingChanged,
                format!("{AT}/effort"),
                "thinking is disabled: the effort level is not sent",
            );
        }
        if r.budget_tokens.is_some() {
            ctx.dropped(
                LossCode::SettingChanged,
                format!("{AT}/budget_tokens"),
                "thinking is disabled: the budget is not sent",
            );
        }
        return plan;
    }
    if let Some(b) = r.budget_tokens {
        if let Some(e) = foreign_effort {
            ctx.dropped(
                LossCode::SettingChanged,
                format!("{AT}/effort"),
                format!(
                    "anthropic takes a thinking budget: effort `{e}` is not sent, the budget is"
                ),
            );
        }
        plan.thinking = Some(match u64::try_from(b) {
            Ok(0) => disabled(),
            Ok(b) => {
                plan.budget = Some(b);
                enabled(b, display)
            }
            Err(_) => {
                ctx.changed(
                    LossCode::SettingChanged,
                    format!("{AT}/budget_tokens"),
                    format!("a budget of {b} (dynamic) is sent as adaptive thinking"),
                );
                adaptive(display)
            }
        });
        return plan;
    }
    if let Some(e) = foreign_effort {
        match effort_to_budget(&e).map(u64::try_from) {
            Some(Ok(0)) => plan.thinking = Some(disabled()),
            Some(Ok(b)) => {
                ctx.changed(
                    LossCode::SettingChanged,
                    format!("{AT}/effort"),
                    format!("anthropic takes a thinking budget, not an effort level: `{e}` sent as budget_tokens {b}"),
                );
                plan.thinking = Some(enabled(b, display));
                plan.budget = Some(b);
            }
            _ => ctx.dropped(
                LossCode::SettingChanged,
                format!("{AT}/effort"),
                format!("effort level `{e}` has no anthropic thinking budget"),
            ),
        }
        return plan;
    }
    if r.enabled == Some(true) || display.is_some() {
        plan.thinking = Some(adaptive(display));
    }
    plan
}

/// The tool choice (`thinking`: thinking is on, so only `auto` and `none` are allowed: a
/// forced choice is sent as `auto`, a `changed` loss).
pub(super) fn encode_tool_choice(
    choice: Option<ToolChoice>,
    parallel: Option<bool>,
    has_tools: bool,
    thinking: bool,
    ctx: &mut Ctx<'_>,
) -> Option<w::ToolChoice> {
    let disable = parallel.map(|p| !p);
    let options = |d: Option<bool>| w::ToolChoiceOptions {
        disable_parallel_tool_use: d,
        extra: Extra::new(),
    };
    let tool = |name: String| {
        w::ToolChoice::Tool(w::ToolChoiceTool {
            name,
            disable_parallel_tool_use: disable,
            extra: Extra::new(),
        })
    };
    if let Some(what) = choice
        .as_ref()
        .and_then(thinking::forced_choice)
        .filter(|_| thinking)
    {
        thinking::unforce(&what, ctx);
        return Some(w::ToolChoice::Auto(options(disable)));
    }
    match choice {
        Some(ToolChoice::Auto) => Some(w::ToolChoice::Auto(options(disable))),
        Some(ToolChoice::Required) => Some(w::ToolChoice::Any(options(disable))),
        Some(ToolChoice::Tool { name }) => Some(tool(name)),
        Some(ToolChoice::None) => {
            if parallel == Some(false) {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    "/settings/parallel_tool_calls",
                    "anthropic's `none` tool choice takes no parallel setting (no tool is called)",
                );
            }
            Some(w::ToolChoice::None(w::NoFields::default()))
        }
        Some(ToolChoice::Allowed {
            mut names,
            required,
        }) => {
            if required && names.len() == 1 {
                return names.pop().map(tool);
            }
            let (choice, what) = if required {
                (
                    w::ToolChoice::Any(options(disable)),
                    "`any` (some tool must be called)",
                )
            } else {
                (w::ToolChoice::Auto(options(disable)), "`auto`")
            };
            ctx.changed(
                LossCode::ToolChoiceChanged,
                "/tool_choice",
                format!(
                    "anthropic cannot limit calls to some of the tools ({}): sent as {what}",
                    names.join(", ")
                ),
            );
            Some(choice)
        }
        None => match parallel {
            Some(false) if has_tools => Some(w::ToolChoice::Auto(options(Some(true)))),
            Some(false) => {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    "/settings/parallel_tool_calls",
                    "anthropic sets parallel tool use on a tool choice, and there are no tools",
                );
                None
            }
            _ => None,
        },
    }
}

fn encode_output_format(f: Option<OutputFormat>, ctx: &mut Ctx<'_>) -> Option<Value> {
    match f? {
        OutputFormat::Text => None,
        OutputFormat::JsonObject => {
            ctx.changed(
                LossCode::SettingChanged,
                "/output_format",
                "anthropic structured output takes a schema: any JSON object is asked for as {\"type\":\"object\"}",
            );
            Some(json!({"type": "json_schema", "schema": {"type": "object"}}))
        }
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => {
            if name.is_some() {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    "/output_format/name",
                    "anthropic output formats have no name",
                );
            }
            if strict == Some(false) {
                ctx.changed(
                    LossCode::SettingChanged,
                    "/output_format/strict",
                    "anthropic always holds the output to its schema",
                );
            }
            let schema = if schema.is_object() {
                schema
            } else {
                ctx.changed(
                    LossCode::SchemaChanged,
                    "/output_format/schema",
                    "anthropic output schemas are objects: this one is sent as {\"type\":\"object\"}",
                );
                json!({"type": "object"})
            };
            Some(json!({"type": "json_schema", "schema": schema}))
        }
    }
}

/// The reasoning plan of a request: [`plan_reasoning`], unless thinking has to be left
/// off because the conversation ends in an open tool loop (`open_loop`: see
/// [`thinking::open_loop_without_own_reasoning`]) that the source did not send with
/// thinking on itself (hint `open_loop_thinking`): then no thinking, one loss.
pub(super) fn plan_request_reasoning(
    reasoning: Option<ReasoningConfig>,
    v: &Vendor,
    open_loop: bool,
    ctx: &mut Ctx<'_>,
) -> Plan {
    let Some(r) = reasoning else {
        return Plan::default();
    };
    // Planned aside: if thinking has to stay off, what the plan would have said about the
    // settings is no longer true.
    let mut aside = Ctx::new(F, ctx.options);
    let plan = plan_reasoning(r, v.flag(F, hints::EFFORT), &mut aside);
    if thinking_on(plan.thinking.as_ref()) && open_loop && !v.flag(F, hints::OPEN_LOOP_THINKING) {
        ctx.changed(
            LossCode::SettingChanged,
            "/settings/reasoning",
            thinking::LEFT_OFF,
        );
        Plan {
            effort: plan.effort,
            ..Plan::default()
        }
    } else {
        ctx.extend_losses(aside.take_losses());
        plan
    }
}

/// `max_tokens`, which Anthropic requires: the source's, raised above the thinking
/// `budget` when it must be (unless the source sent it so: hint `budget_over_max`), or a
/// default when the source has none (a loss).
pub(super) fn encode_max_tokens(
    max_tokens: Option<u64>,
    budget: Option<u64>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> u64 {
    match (max_tokens, budget) {
        (Some(m), Some(b)) if !v.flag(F, hints::BUDGET_OVER_MAX) => {
            thinking::room_for_budget(m, b, "max_tokens", ctx)
        }
        (Some(m), _) => m,
        (None, budget) => {
            let (d, why) = match budget {
                Some(b) => (
                    b.saturating_add(DEFAULT_MAX_TOKENS),
                    format!(" (the thinking budget {b} plus {DEFAULT_MAX_TOKENS})"),
                ),
                None => (DEFAULT_MAX_TOKENS, String::new()),
            };
            ctx.changed(
                LossCode::FieldDefaulted,
                "/max_tokens",
                format!("anthropic requires max_tokens and the source has none: {d} written{why}"),
            );
            d
        }
    }
}

/// The `output_config` to write for a neutral output format and the planned `effort`.
pub(super) fn encode_output_config(
    output_format: Option<OutputFormat>,
    effort: Option<w::Effort>,
    ctx: &mut Ctx<'_>,
) -> Option<w::OutputConfig> {
    let format = encode_output_format(output_format, ctx);
    (format.is_some() || effort.is_some()).then(|| w::OutputConfig {
        effort,
        format,
        extra: Extra::new(),
    })
}

/// The sampling settings written.
#[derive(Debug, Default)]
pub(super) struct Sampling {
    pub(super) temperature: Option<Number>,
    pub(super) top_p: Option<Number>,
    pub(super) top_k: Option<u64>,
    pub(super) stream: Option<bool>,
}

/// The sampling settings to write. The official request schema (SDK 2.14) has no
/// `temperature`, `top_p` or `top_k` any more, and describes the non-streaming body: they
/// go back to a source that had them (hints `sampling`, `stream`), and are a loss from
/// anywhere else. Seed and penalties have no place at all (a loss each).
pub(super) fn encode_sampling(s: &Settings, v: &Vendor, ctx: &mut Ctx<'_>) -> Sampling {
    let keep_sampling = |name: &str, ctx: &mut Ctx<'_>| {
        let own = v
            .hint(F, hints::SAMPLING)
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x == name));
        if !own {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/settings/{name}"),
                format!("the anthropic request schema (SDK 2.14) has no `{name}`"),
            );
        }
        own
    };
    let temperature = s
        .temperature
        .clone()
        .filter(|_| keep_sampling("temperature", ctx));
    let top_p = s.top_p.clone().filter(|_| keep_sampling("top_p", ctx));
    let top_k = s.top_k.filter(|_| keep_sampling("top_k", ctx));
    let stream = s.stream;
    crate::passes::settings::drop_seed_and_penalties(s, "anthropic", "seed", ctx);
    Sampling {
        temperature,
        top_p,
        top_k,
        stream,
    }
}
