//! Request settings both ways: `options` (sampling, limits), `stream`, `think`, tool
//! choice (Ollama has none) and `format`.

use super::hints::{NO_STREAM, OPTIONS};
use super::{F, OPTION};
use crate::model::{OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::passes;
use crate::util::take_prefixed;
use crate::vendor::Fields;
use crate::{Ctx, LossCode};
use serde_json::{Map, Value};
use wire_types::ollama as w;

/// The settings of a request from its `options`, `stream` and `think`. The options with
/// no neutral setting become vendor fields of `v`, one each (`options.<key>`), so that
/// another format reports exactly the options it drops; so does a `think` level Ollama
/// does not name.
pub(super) fn decode_settings(
    options: Option<Map<String, Value>>,
    stream: Option<bool>,
    think: Option<w::Think>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Settings {
    let mut s = Settings::default();
    if let Some(options) = options {
        v.set_hint(F, OPTIONS, true);
        for (key, val) in decode_options(options, &mut s, ctx) {
            let name = format!("{OPTION}{key}");
            let mut neutral = String::new();
            wire_types::push_token(&mut neutral, &name);
            let mut source = "/options".to_owned();
            wire_types::push_token(&mut source, &key);
            ctx.map(neutral, source);
            v.set_field(F, &name, val);
        }
    }
    // Ollama streams unless told otherwise: an absent `stream` means streaming.
    s.stream = match stream {
        Some(b) => Some(b),
        None => {
            v.set_hint(F, NO_STREAM, true);
            Some(true)
        }
    };
    ctx.map("/settings/stream", "/stream");
    match think {
        None => {}
        Some(w::Think::Enabled(b)) => {
            s.reasoning = Some(ReasoningConfig {
                enabled: Some(b),
                ..Default::default()
            })
        }
        Some(w::Think::Level(l)) if l.is_known() => {
            s.reasoning = Some(ReasoningConfig {
                effort: Some(l.as_str().to_owned()),
                ..Default::default()
            })
        }
        Some(other) => v.set_field(F, "think", wire_types::to_value(&other)),
    }
    ctx.map("/settings/reasoning", "/think");
    s
}

/// Takes the neutral settings out of `options`; returns the options left.
fn decode_options(
    mut options: Map<String, Value>,
    s: &mut Settings,
    ctx: &mut Ctx<'_>,
) -> Map<String, Value> {
    let mut take = |key: &str, neutral: &str, ok: &dyn Fn(&Value) -> bool| -> Option<Value> {
        if options.get(key).is_some_and(ok) {
            ctx.map(
                format_args!("/settings/{neutral}"),
                format_args!("/options/{key}"),
            );
            options.shift_remove(key)
        } else {
            None
        }
    };
    let number = |v: &Value| v.is_number();
    s.temperature = take("temperature", "temperature", &number).and_then(as_number);
    s.top_p = take("top_p", "top_p", &number).and_then(as_number);
    s.top_k = take("top_k", "top_k", &|v| v.is_u64()).and_then(|v| v.as_u64());
    s.seed = take("seed", "seed", &|v| v.is_i64()).and_then(|v| v.as_i64());
    s.stop = take("stop", "stop", &|v| {
        v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    })
    .map(|v| match v {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    });
    s.max_tokens = take("num_predict", "max_tokens", &|v| v.is_u64()).and_then(|v| v.as_u64());
    s.presence_penalty = take("presence_penalty", "presence_penalty", &number).and_then(as_number);
    s.frequency_penalty =
        take("frequency_penalty", "frequency_penalty", &number).and_then(as_number);
    options
}

fn as_number(v: Value) -> Option<serde_json::Number> {
    match v {
        Value::Number(n) => Some(n),
        _ => None,
    }
}

/// The output format of `format`: `"json"` or a schema; anything else is a vendor field
/// of `v`.
pub(super) fn decode_format(
    format: Option<w::Format>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    ctx.map("/output_format", "/format");
    match format {
        None => None,
        Some(w::Format::Named(n)) if n == "json" => Some(OutputFormat::JsonObject),
        Some(w::Format::Schema(schema)) => Some(OutputFormat::JsonSchema {
            name: None,
            schema: Value::Object(schema),
            strict: None,
        }),
        Some(other) => passes::settings::keep_whole(v, F, "format", &other),
    }
}

/// The `options` object for `s`, with the options of Ollama's own kept in `fields`
/// (`options.<key>`) taken out; `None` when there is nothing to write and the source
/// (`v`) had no `options`.
pub(super) fn encode_options(
    s: &Settings,
    fields: &mut Map<String, Value>,
    v: &Vendor,
) -> Option<Map<String, Value>> {
    let mut options = Map::new();
    let mut put = |k: &str, val: Option<Value>| {
        if let Some(val) = val {
            options.insert(k.to_owned(), val);
        }
    };
    put("temperature", s.temperature.clone().map(Value::Number));
    put("top_p", s.top_p.clone().map(Value::Number));
    put("top_k", s.top_k.map(Value::from));
    put("seed", s.seed.map(Value::from));
    put("stop", s.stop.clone().map(Value::from));
    put("num_predict", s.max_tokens.map(Value::from));
    put(
        "presence_penalty",
        s.presence_penalty.clone().map(Value::Number),
    );
    put(
        "frequency_penalty",
        s.frequency_penalty.clone().map(Value::Number),
    );
    for (k, val) in take_prefixed(fields, OPTION) {
        options.entry(k).or_insert(val);
    }
    (!options.is_empty() || v.flag(F, OPTIONS)).then_some(options)
}

/// `stream` for the neutral setting: Ollama streams by default, and every other format
/// answers with one JSON body unless asked to stream, so that is said explicitly; an
/// absent `stream` of Ollama's own (`v`) stays absent.
pub(super) fn encode_stream(stream: Option<bool>, v: &Vendor) -> Option<bool> {
    if stream == Some(true) && v.flag(F, NO_STREAM) {
        None
    } else {
        Some(stream.unwrap_or(false))
    }
}

/// Whether the tools are left out to honour `choice`: Ollama has no `tool_choice`, so
/// `none` leaves out the `tools` (`count` of them, a loss each) and a forced or
/// restricted choice is a loss.
pub(super) fn encode_tool_choice(
    choice: Option<&ToolChoice>,
    count: usize,
    ctx: &mut Ctx<'_>,
) -> bool {
    let why = match choice {
        None | Some(ToolChoice::Auto) => return false,
        Some(ToolChoice::None) => {
            for k in 0..count {
                ctx.dropped(
                    LossCode::ToolChoiceChanged,
                    format!("/tools/{k}"),
                    "tool_choice is `none` and ollama has no tool_choice: the tools are left out so that none is called",
                );
            }
            return count > 0;
        }
        Some(ToolChoice::Required) => {
            "ollama cannot require a tool call (no tool_choice): the model decides".to_owned()
        }
        Some(ToolChoice::Tool { name }) => {
            format!("ollama cannot force a call of `{name}` (no tool_choice): the model decides")
        }
        Some(ToolChoice::Allowed { .. }) => {
            "ollama cannot restrict the callable tools (no tool_choice): every tool is offered"
                .to_owned()
        }
    };
    ctx.dropped(LossCode::ToolChoiceChanged, "/tool_choice", why);
    false
}

/// `think` for neutral reasoning settings (`None`: a `think` of Ollama's own kept in
/// `fields`, if any).
pub(super) fn encode_think(
    r: Option<&ReasoningConfig>,
    fields: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
) -> Option<w::Think> {
    match r {
        Some(r) => reasoning_think(r, ctx),
        None => None,
    }
    .or_else(|| fields.take_as("think"))
}

fn reasoning_think(r: &ReasoningConfig, ctx: &mut Ctx<'_>) -> Option<w::Think> {
    let at = "/settings/reasoning";
    passes::settings::thinking_always_returned(r, "thinking", at, ctx);
    let think = if r.enabled == Some(false) {
        Some(w::Think::Enabled(false))
    } else if let Some(e) = &r.effort {
        Some(match e.as_str() {
            "low" | "medium" | "high" | "max" => w::Think::Level(w::ThinkLevel::from(e.as_str())),
            "none" => w::Think::Enabled(false),
            "minimal" | "xhigh" => {
                let level = if e == "minimal" { "low" } else { "max" };
                ctx.changed(
                    LossCode::SettingChanged,
                    format!("{at}/effort"),
                    format!("ollama has no `{e}` thinking level: sent as `{level}`"),
                );
                w::Think::Level(w::ThinkLevel::from(level))
            }
            other => {
                ctx.changed(
                    LossCode::SettingChanged,
                    format!("{at}/effort"),
                    format!("ollama has no `{other}` thinking level: thinking is switched on"),
                );
                w::Think::Enabled(true)
            }
        })
    } else if r.enabled == Some(true) {
        Some(w::Think::Enabled(true))
    } else {
        r.budget_tokens.map(|b| w::Think::Enabled(b > 0))
    };
    if let Some(b) = r.budget_tokens {
        if !(b <= 0 && think == Some(w::Think::Enabled(false))) {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("{at}/budget_tokens"),
                format!("ollama takes no thinking budget ({b} tokens); thinking is only switched on or off"),
            );
        }
    }
    think
}

/// `format` for the neutral output format (`None`: a `format` of Ollama's own kept in
/// `fields`, if any).
pub(super) fn encode_format(
    output: Option<OutputFormat>,
    fields: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
) -> Option<w::Format> {
    match output {
        None => fields.take_as("format"),
        Some(OutputFormat::Text) => None,
        Some(OutputFormat::JsonObject) => Some(w::Format::Named("json".to_owned())),
        Some(schema) => match passes::settings::bare_schema(schema, ctx)? {
            Value::Object(m) => Some(w::Format::Schema(m)),
            other => {
                ctx.changed(
                    LossCode::SchemaChanged,
                    "/output_format/schema",
                    format!("ollama takes an object schema, not {other}: any JSON is asked for"),
                );
                Some(w::Format::Named("json".to_owned()))
            }
        },
    }
}
