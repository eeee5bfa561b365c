//! Request settings both ways: sampling, limits, reasoning, tool choice, output format.

use super::F;
use super::hints::{NAMED_NO_TYPE, STOP_STRING, TOOL_CHOICE_REQUIRED};
use crate::model::{OutputFormat, Settings, ToolChoice, Vendor};
use crate::passes;
use crate::vendor::Fields;
use crate::{Ctx, LossCode};
use serde_json::{Map, Value};
use wire_types::Extra;
use wire_types::mistral as w;

/// The neutral tool choice (`any` and `required` are both a required call); a choice it
/// cannot say is kept whole as the `tool_choice` field of `v`.
pub(super) fn decode_tool_choice(
    c: Option<w::ToolChoice>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<ToolChoice> {
    ctx.map("/tool_choice", "/tool_choice");
    match c? {
        w::ToolChoice::Mode(w::ToolChoiceMode::Auto) => Some(ToolChoice::Auto),
        w::ToolChoice::Mode(w::ToolChoiceMode::None) => Some(ToolChoice::None),
        w::ToolChoice::Mode(w::ToolChoiceMode::Any) => Some(ToolChoice::Required),
        w::ToolChoice::Mode(w::ToolChoiceMode::Required) => {
            v.set_hint(F, TOOL_CHOICE_REQUIRED, true);
            Some(ToolChoice::Required)
        }
        w::ToolChoice::Named(n)
            if n.extra.is_empty()
                && n.function.extra.is_empty()
                && matches!(n.kind.as_deref(), None | Some("function")) =>
        {
            if n.kind.is_none() {
                v.set_hint(F, NAMED_NO_TYPE, true);
            }
            Some(ToolChoice::Tool {
                name: n.function.name,
            })
        }
        other => passes::settings::keep_whole(v, F, "tool_choice", &other),
    }
}

/// The neutral settings of `req` (the settings are taken out of it), and where each came
/// from. A `random_seed` past the neutral seed's range is kept as a field of `v`.
pub(super) fn decode_settings(req: &mut w::Request, v: &mut Vendor, ctx: &mut Ctx<'_>) -> Settings {
    let mut s = Settings {
        max_tokens: req.max_tokens,
        temperature: req.temperature.take(),
        top_p: req.top_p.take(),
        presence_penalty: req.presence_penalty.take(),
        frequency_penalty: req.frequency_penalty.take(),
        parallel_tool_calls: req.parallel_tool_calls,
        stream: req.stream,
        ..Default::default()
    };
    for key in [
        "max_tokens",
        "temperature",
        "top_p",
        "presence_penalty",
        "frequency_penalty",
        "parallel_tool_calls",
        "stream",
        "stop",
    ] {
        ctx.map(format_args!("/settings/{key}"), format_args!("/{key}"));
    }
    s.stop = passes::settings::read_stop_sequences(req.stop.take(), v, F, STOP_STRING);
    match req.random_seed.map(i64::try_from) {
        None => {}
        Some(Ok(seed)) => s.seed = Some(seed),
        Some(Err(_)) => v.keep(F, "random_seed", &req.random_seed),
    }
    ctx.map("/settings/seed", "/random_seed");
    s
}

/// The neutral output format; one it cannot say (unknown members, a schema with a
/// description or none) is kept whole as the `response_format` field of `v`.
pub(super) fn decode_output_format(
    f: Option<w::ResponseFormat>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    ctx.map("/output_format", "/response_format");
    match f? {
        f if !f.extra.is_empty() => passes::settings::keep_whole(v, F, "response_format", &f),
        w::ResponseFormat {
            kind: Some(w::ResponseFormatType::Text),
            json_schema: None,
            ..
        } => Some(OutputFormat::Text),
        w::ResponseFormat {
            kind: Some(w::ResponseFormatType::JsonObject),
            json_schema: None,
            ..
        } => Some(OutputFormat::JsonObject),
        w::ResponseFormat {
            kind: Some(w::ResponseFormatType::JsonSchema),
            json_schema: Some(spec),
            ..
        } if spec.extra.is_empty() && spec.description.is_none() && spec.schema.is_some() => {
            Some(OutputFormat::JsonSchema {
                name: Some(spec.name),
                schema: spec.schema.unwrap_or(Value::Null),
                strict: spec.strict,
            })
        }
        other => passes::settings::keep_whole(v, F, "response_format", &other),
    }
}

/// The settings as Mistral takes them, written into `out`; `fields` are the request's
/// vendor fields (a `random_seed` kept from the source is taken from them). `top_k`, a
/// reasoning setting and a negative seed have no place (a loss each).
pub(super) fn encode_settings(
    s: Settings,
    v: &Vendor,
    fields: &mut Map<String, Value>,
    out: &mut w::Request,
    ctx: &mut Ctx<'_>,
) {
    let own = passes::settings::chat_settings!(s, out, v.flag(F, STOP_STRING), ctx);
    if own.reasoning.is_some() {
        ctx.dropped(
            LossCode::FieldUnsupported,
            "/settings/reasoning",
            "mistral has no reasoning setting (reasoning models think by themselves; `prompt_mode` only picks a system prompt)",
        );
    }
    out.random_seed = match own.seed {
        None => fields.take_as("random_seed"),
        Some(seed) => match u64::try_from(seed) {
            Ok(seed) => Some(seed),
            Err(_) => {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    "/settings/seed",
                    format!("mistral's random_seed is not negative ({seed})"),
                );
                None
            }
        },
    };
    out.max_tokens = own.max_tokens;
}

/// The wire `response_format` (every neutral output format has one; a schema without a
/// name is named `output`).
pub(super) fn encode_output_format(f: OutputFormat) -> w::ResponseFormat {
    let (kind, json_schema) = match f {
        OutputFormat::Text => (w::ResponseFormatType::Text, None),
        OutputFormat::JsonObject => (w::ResponseFormatType::JsonObject, None),
        OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        } => (
            w::ResponseFormatType::JsonSchema,
            Some(w::JsonSchemaSpec {
                name: passes::settings::schema_name(name),
                description: None,
                schema: Some(schema),
                strict,
                extra: Extra::new(),
            }),
        ),
    };
    w::ResponseFormat {
        kind: Some(kind),
        json_schema,
        extra: Extra::new(),
    }
}

/// The wire tool choice; `v` is the request's vendor record (its hints say how the
/// source spelled a required call and a named choice). An allowed-tools list cannot be
/// said: every tool is offered (a loss).
pub(super) fn encode_tool_choice(c: ToolChoice, v: &Vendor, ctx: &mut Ctx<'_>) -> w::ToolChoice {
    let required = |v: &Vendor| {
        if v.flag(F, TOOL_CHOICE_REQUIRED) {
            w::ToolChoiceMode::Required
        } else {
            w::ToolChoiceMode::Any
        }
    };
    match c {
        ToolChoice::Auto => w::ToolChoice::Mode(w::ToolChoiceMode::Auto),
        ToolChoice::None => w::ToolChoice::Mode(w::ToolChoiceMode::None),
        ToolChoice::Required => w::ToolChoice::Mode(required(v)),
        ToolChoice::Tool { name } => w::ToolChoice::Named(w::NamedToolChoice {
            kind: (!v.flag(F, NAMED_NO_TYPE)).then(|| "function".to_owned()),
            function: w::NameRef {
                name,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        }),
        ToolChoice::Allowed { names, required: r } => {
            ctx.changed(
                LossCode::ToolChoiceChanged,
                "/tool_choice",
                format!(
                    "mistral cannot restrict the callable tools to {}: every tool is offered{}",
                    names.join(", "),
                    if r { " and a call is required" } else { "" }
                ),
            );
            w::ToolChoice::Mode(if r {
                w::ToolChoiceMode::Any
            } else {
                w::ToolChoiceMode::Auto
            })
        }
    }
}
