//! Request settings both ways: `inferenceConfig` (limits and sampling), the keys of
//! `additionalModelRequestFields` the neutral model has settings for (`top_k`, Claude's
//! `thinking`), tool choice, output format (`outputConfig`), and the unknown fields of
//! those nested objects.

use super::{AMRF, F, hints};
use crate::model::{OutputFormat, ReasoningConfig, Settings, ToolChoice, Vendor};
use crate::passes::settings::effort_to_budget;
use crate::passes::thinking;
use crate::vendor::Fields;
use crate::{Ctx, LossCode};
use serde_json::{Map, Value, json};
use wire_types::Extra;
use wire_types::bedrock as w;

// ---------------------------------------------------------------------------------------
// Decoding

/// The tool choice of `toolConfig`; an unusual one is kept whole as the vendor field
/// `toolChoice`.
pub(super) fn decode_tool_choice(
    choice: Option<w::ToolChoice>,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<ToolChoice> {
    if choice.is_some() {
        ctx.map("/tool_choice", "/toolConfig/toolChoice");
    }
    match choice {
        None => None,
        Some(w::ToolChoice::Auto(n)) if n.extra.is_empty() => Some(ToolChoice::Auto),
        Some(w::ToolChoice::Any(n)) if n.extra.is_empty() => Some(ToolChoice::Required),
        Some(w::ToolChoice::Tool(t)) if t.extra.is_empty() => {
            Some(ToolChoice::Tool { name: t.name })
        }
        Some(other) => {
            v.set_field(F, "toolChoice", wire_types::to_value(&other));
            None
        }
    }
}

/// The limits and sampling settings of `inferenceConfig` into `s` (hint
/// `inference_config` when it held none of them).
pub(super) fn decode_inference_config(
    ic: w::InferenceConfig,
    s: &mut Settings,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) {
    sub_extra_decode(v, "inferenceConfig", &ic.extra);
    for (set, neutral, source) in [
        (ic.max_tokens.is_some(), "max_tokens", "maxTokens"),
        (ic.temperature.is_some(), "temperature", "temperature"),
        (ic.top_p.is_some(), "top_p", "topP"),
        (ic.stop_sequences.is_some(), "stop", "stopSequences"),
    ] {
        if set {
            ctx.map(
                format_args!("/settings/{neutral}"),
                format_args!("/inferenceConfig/{source}"),
            );
        }
    }
    if ic.max_tokens.is_none()
        && ic.temperature.is_none()
        && ic.top_p.is_none()
        && ic.stop_sequences.is_none()
    {
        v.set_hint(F, hints::INFERENCE_CONFIG, true);
    }
    s.max_tokens = ic.max_tokens;
    s.temperature = ic.temperature;
    s.top_p = ic.top_p;
    s.stop = ic.stop_sequences;
}

/// `additionalModelRequestFields`: `top_k` and Claude's `thinking` into `s`, the other
/// keys one vendor field each (`$additionalModelRequestFields.<key>`), so that another
/// format reports just the keys it drops; the key order as the hint `amrf_keys`.
pub(super) fn decode_amrf(amrf: Value, s: &mut Settings, v: &mut Vendor, ctx: &mut Ctx<'_>) {
    let Value::Object(mut m) = amrf else {
        v.set_field(F, "additionalModelRequestFields", amrf);
        return;
    };
    let keys: Vec<Value> = m.keys().map(|k| Value::String(k.clone())).collect();
    v.set_hint(F, hints::AMRF_KEYS, keys);
    if let Some(k) = m.get("top_k").and_then(Value::as_u64) {
        s.top_k = Some(k);
        m.shift_remove("top_k");
        ctx.map("/settings/top_k", "/additionalModelRequestFields/top_k");
    }
    if let Some(r) = m.get("thinking").and_then(read_thinking) {
        s.reasoning = Some(r);
        m.shift_remove("thinking");
        ctx.map(
            "/settings/reasoning",
            "/additionalModelRequestFields/thinking",
        );
    }
    for (k, val) in m {
        let key = format!("{AMRF}{k}");
        let (mut neutral, mut source) = (String::new(), String::new());
        wire_types::push_token(&mut neutral, &key);
        source.push_str("/additionalModelRequestFields");
        wire_types::push_token(&mut source, &k);
        ctx.map(neutral, source);
        v.set_field(F, &key, val);
    }
}

/// The output format of `outputConfig` (hint `schema_text` when the schema text would not
/// be written back the same); one the neutral model cannot say is kept whole as the vendor
/// field `outputConfig`.
pub(super) fn decode_output_config(
    oc: Value,
    v: &mut Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<OutputFormat> {
    match read_output(&oc) {
        Some((format, text)) => {
            ctx.map("/output_format", "/outputConfig/textFormat");
            for field in ["name", "schema"] {
                ctx.map(
                    format_args!("/output_format/{field}"),
                    format_args!("/outputConfig/textFormat/structure/jsonSchema/{field}"),
                );
            }
            if let Some(t) = text {
                v.set_hint(F, hints::SCHEMA_TEXT, t);
            }
            Some(format)
        }
        None => {
            v.set_field(F, "outputConfig", oc);
            None
        }
    }
}

/// Claude's `thinking` object, when it is exactly one of the two shapes the neutral model
/// says back the same way.
fn read_thinking(t: &Value) -> Option<ReasoningConfig> {
    let m = t.as_object()?;
    match m.get("type")?.as_str()? {
        "enabled" if m.len() == 2 => {
            let b = m.get("budget_tokens")?;
            Some(ReasoningConfig {
                enabled: Some(true),
                budget_tokens: Some(b.as_i64()?),
                ..Default::default()
            })
        }
        "disabled" if m.len() == 1 => Some(ReasoningConfig {
            enabled: Some(false),
            ..Default::default()
        }),
        _ => None,
    }
}

/// `outputConfig` when it is exactly `{textFormat: {type: json_schema, structure:
/// {jsonSchema: {schema, name?}}}}` with a schema that parses; with the schema text when
/// writing the parsed value would not give it back.
fn read_output(oc: &Value) -> Option<(OutputFormat, Option<String>)> {
    let m = oc.as_object()?;
    if m.len() != 1 {
        return None;
    }
    let tf = m.get("textFormat")?.as_object()?;
    if tf.len() != 2 || tf.get("type")?.as_str()? != "json_schema" {
        return None;
    }
    let st = tf.get("structure")?.as_object()?;
    if st.len() != 1 {
        return None;
    }
    let js = st.get("jsonSchema")?.as_object()?;
    if js.keys().any(|k| k != "schema" && k != "name") {
        return None;
    }
    let text = js.get("schema")?.as_str()?;
    let schema: Value = serde_json::from_str(text).ok()?;
    let name = match js.get("name") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return None,
    };
    // Compare as text: the hint keeps spacing and key spelling the value would lose.
    let written = schema.to_string();
    let hint = (written.as_str() != text).then(|| text.to_owned());
    Some((
        OutputFormat::JsonSchema {
            name,
            schema,
            strict: None,
        },
        hint,
    ))
}

/// Keeps the unknown fields and explicit nulls of a nested settings object.
pub(super) fn sub_extra_decode(v: &mut Vendor, object: &str, extra: &Extra) {
    for (k, val) in extra.fields() {
        v.set_field(F, &format!("${object}.{k}"), val.clone());
    }
    if !extra.nulls().is_empty() {
        let nulls: Vec<Value> = extra.nulls().iter().map(|n| Value::from(*n)).collect();
        v.set_hint(F, &format!("{}{object}", hints::NULLS_OF), nulls);
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// The tool choice to write, and whether it was `none` (which Converse lacks: see
/// [`super::tools::encode_tool_config`]). `own`: the source's own choice kept as a vendor
/// field, written when the neutral request has none.
pub(super) fn encode_tool_choice(
    choice: Option<ToolChoice>,
    own: Option<Value>,
    ctx: &mut Ctx<'_>,
) -> (Option<w::ToolChoice>, bool) {
    let choice = match choice {
        None => own.and_then(|c| serde_json::from_value(c).ok()),
        Some(ToolChoice::Auto) => Some(w::ToolChoice::Auto(w::NoFields::default())),
        Some(ToolChoice::Required) => Some(w::ToolChoice::Any(w::NoFields::default())),
        Some(ToolChoice::Tool { name }) => Some(specific(name)),
        Some(ToolChoice::Allowed {
            mut names,
            required,
        }) => {
            if required && names.len() == 1 {
                Some(specific(names.remove(0)))
            } else {
                ctx.changed(
                    LossCode::ToolChoiceChanged,
                    "/tool_choice",
                    format!(
                        "bedrock cannot restrict the choice to some tools ({}): sent as `{}`",
                        names.join(", "),
                        if required { "any" } else { "auto" }
                    ),
                );
                Some(if required {
                    w::ToolChoice::Any(w::NoFields::default())
                } else {
                    w::ToolChoice::Auto(w::NoFields::default())
                })
            }
        }
        Some(ToolChoice::None) => return (None, true),
    };
    (choice, false)
}

/// Reports the settings Converse has no place for: seed, penalties, a parallel-call
/// switch, and `stream` (a separate endpoint).
pub(super) fn report_unplaced_settings(s: &Settings, ctx: &mut Ctx<'_>) {
    crate::passes::settings::drop_seed_and_penalties(s, "bedrock converse", "sampling seed", ctx);
    if s.parallel_tool_calls == Some(false) {
        ctx.dropped(
            LossCode::FieldUnsupported,
            "/settings/parallel_tool_calls",
            "bedrock has no switch to turn parallel tool calls off",
        );
    }
    if s.stream == Some(true) {
        ctx.moved(
            LossCode::StreamChanged,
            "/settings/stream",
            "bedrock streams through another operation: call `ConverseStream` (`/model/{modelId}/converse-stream`) with this body (it has no stream field)",
        );
    }
}

/// `inferenceConfig`: limits and sampling, `maxTokens` raised above the thinking `budget`
/// written for another format when it must be; `None` when it holds nothing (unless the
/// source sent it empty: hint `inference_config`).
pub(super) fn encode_inference_config(
    s: Settings,
    budget: Option<i64>,
    fields: &mut Map<String, Value>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<w::InferenceConfig> {
    let max_tokens = match (s.max_tokens, budget.and_then(|b| u64::try_from(b).ok())) {
        (Some(m), Some(b)) => Some(thinking::room_for_budget(m, b, "maxTokens", ctx)),
        (m, _) => m,
    };
    let extra = sub_extra_encode(fields, v, "inferenceConfig", w::InferenceConfig::FIELDS);
    let ic = w::InferenceConfig {
        max_tokens,
        temperature: s.temperature,
        top_p: s.top_p,
        stop_sequences: s.stop,
        extra,
    };
    (ic.max_tokens.is_some()
        || ic.temperature.is_some()
        || ic.top_p.is_some()
        || ic.stop_sequences.is_some()
        || !ic.extra.is_empty()
        || v.flag(F, hints::INFERENCE_CONFIG))
    .then_some(ic)
}

/// `outputConfig` for a neutral output format: a JSON schema as its text (the source's own
/// text when it still says the same schema: hint `schema_text`); the source's own
/// `outputConfig` when the neutral request has no output format.
pub(super) fn encode_output_config(
    format: Option<OutputFormat>,
    fields: &mut Map<String, Value>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<Value> {
    match format {
        None => fields.take_as::<Value>("outputConfig"),
        Some(OutputFormat::Text) => None,
        Some(OutputFormat::JsonObject) => {
            ctx.changed(
                LossCode::SettingChanged,
                "/output_format",
                "bedrock has no plain JSON mode: sent as the JSON schema {\"type\":\"object\"}",
            );
            Some(text_format(None, "{\"type\":\"object\"}".to_owned()))
        }
        Some(OutputFormat::JsonSchema {
            name,
            schema,
            strict,
        }) => {
            if strict.is_some() {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    "/output_format/strict",
                    "bedrock's structured output has no strict flag",
                );
            }
            let text = v
                .hint(F, hints::SCHEMA_TEXT)
                .and_then(Value::as_str)
                .filter(|t| serde_json::from_str::<Value>(t).ok().as_ref() == Some(&schema))
                .map(str::to_owned)
                .unwrap_or_else(|| schema.to_string());
            Some(text_format(name, text))
        }
    }
}

/// Claude on Bedrock, as on Anthropic's API, rejects a tool choice that forces a call
/// while thinking is on (`amrf`: the `additionalModelRequestFields` written): it is sent
/// as `auto`, a loss saying what it forced (`forced`: see [`thinking::forced_choice`]). A
/// Bedrock request of its own is written back as it came.
pub(super) fn unforce_while_thinking(
    tool_config: &mut Option<w::ToolConfig>,
    amrf: Option<&Value>,
    forced: Option<&str>,
    ctx: &mut Ctx<'_>,
) {
    let thinking = amrf
        .and_then(|a| a.get("thinking"))
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t != "disabled");
    if let Some(tc) = tool_config
        .as_mut()
        .filter(|_| thinking && ctx.source != Some(F))
    {
        if matches!(
            tc.tool_choice,
            Some(w::ToolChoice::Any(_) | w::ToolChoice::Tool(_))
        ) {
            thinking::unforce(forced.unwrap_or("a forced tool choice"), ctx);
            tc.tool_choice = Some(w::ToolChoice::Auto(w::NoFields::default()));
        }
    }
}

/// A tool choice naming one tool.
fn specific(name: String) -> w::ToolChoice {
    w::ToolChoice::Tool(w::SpecificToolChoice {
        name,
        extra: Extra::new(),
    })
}

/// `additionalModelRequestFields`: the source's own (same format), plus `top_k` and
/// Claude's `thinking` (`open_loop`: see [`encode_thinking`]). Also the
/// thinking budget written for another format, if any.
pub(super) fn encode_amrf(
    fields: &mut Map<String, Value>,
    v: &Vendor,
    top_k: Option<u64>,
    reasoning: Option<&ReasoningConfig>,
    open_loop: bool,
    ctx: &mut Ctx<'_>,
) -> (Option<Value>, Option<i64>) {
    let order = v
        .hint(F, hints::AMRF_KEYS)
        .and_then(Value::as_array)
        .cloned();
    let same = order.is_some();
    if let Some(other) = fields.shift_remove("additionalModelRequestFields") {
        // Only the same format writes a non-object, and then nothing was taken out.
        return (Some(other), None);
    }
    let keys: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with(AMRF))
        .cloned()
        .collect();
    let mut m = Map::new();
    for k in keys {
        if let (Some(name), Some(val)) = (k.strip_prefix(AMRF), fields.shift_remove(&k)) {
            m.insert(name.to_owned(), val);
        }
    }
    if let Some(k) = top_k {
        if !same {
            ctx.changed(
                LossCode::SettingChanged,
                "/settings/top_k",
                "sent as `top_k` in additionalModelRequestFields (Anthropic Claude's name; other model families name it differently)",
            );
        }
        m.insert("top_k".into(), Value::from(k));
    }
    let mut budget = None;
    if let Some(r) = reasoning {
        if let Some((t, b)) = encode_thinking(r, same, open_loop, ctx) {
            m.insert("thinking".into(), t);
            budget = b.filter(|_| !same);
        }
    }
    if let Some(order) = order {
        let mut sorted = Map::new();
        for k in order.iter().filter_map(Value::as_str) {
            if let Some(val) = m.shift_remove(k) {
                sorted.insert(k.to_owned(), val);
            }
        }
        sorted.extend(m);
        m = sorted;
    }
    ((same || !m.is_empty()).then_some(Value::Object(m)), budget)
}

/// Claude's `thinking` for neutral reasoning settings, and the budget it sets. Thinking is
/// not switched on for another format when `open_loop`
/// ([`thinking::open_loop_without_own_reasoning`]: Claude rejects that).
fn encode_thinking(
    r: &ReasoningConfig,
    same: bool,
    open_loop: bool,
    ctx: &mut Ctx<'_>,
) -> Option<(Value, Option<i64>)> {
    let at = "/settings/reasoning";
    let include_lost = |ctx: &mut Ctx<'_>| {
        if r.include == Some(false) {
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("{at}/include"),
                "bedrock returns the reasoning whenever thinking is on",
            );
        }
    };
    let note = "sent as Claude's `thinking` in additionalModelRequestFields (other model families name it differently)";
    let disabled = r.enabled == Some(false)
        || r.effort.as_deref() == Some("none")
        || r.budget_tokens.is_some_and(|b| b <= 0);
    let (value, budget, detail) = if disabled {
        (json!({"type": "disabled"}), None, note.to_owned())
    } else if let Some(b) = r.budget_tokens {
        (
            json!({"type": "enabled", "budget_tokens": b}),
            Some(b),
            note.to_owned(),
        )
    } else if let Some(e) = &r.effort {
        match effort_to_budget(e) {
            Some(b) => (
                json!({"type": "enabled", "budget_tokens": b}),
                Some(b),
                format!("effort `{e}` {note} with a budget of {b} tokens"),
            ),
            None => {
                include_lost(ctx);
                ctx.dropped(
                    LossCode::SettingChanged,
                    format!("{at}/effort"),
                    format!("effort `{e}` has no token budget bedrock could be given"),
                );
                return None;
            }
        }
    } else if r.enabled == Some(true) {
        (
            json!({"type": "enabled", "budget_tokens": 1024}),
            Some(1024),
            format!("{note}, with the minimum budget of 1024 tokens (the source gave none)"),
        )
    } else {
        include_lost(ctx);
        return None;
    };
    if budget.is_some() && open_loop && !same {
        ctx.changed(LossCode::SettingChanged, at, thinking::LEFT_OFF);
        return None;
    }
    include_lost(ctx);
    if !same {
        ctx.changed(LossCode::SettingChanged, at, detail);
    }
    Some((value, budget))
}
/// `outputConfig` asking for output that follows the JSON schema `schema` (its text).
fn text_format(name: Option<String>, schema: String) -> Value {
    let mut js = Map::new();
    js.insert("schema".into(), Value::String(schema));
    if let Some(n) = name {
        js.insert("name".into(), Value::String(n));
    }
    json!({"textFormat": {"type": "json_schema", "structure": {"jsonSchema": js}}})
}

/// The `Extra` of a nested settings object, rebuilt from `fields` (taken out) and hints.
pub(super) fn sub_extra_encode(
    fields: &mut Map<String, Value>,
    v: &Vendor,
    object: &str,
    known: &'static [&'static str],
) -> Extra {
    let prefix = format!("${object}.");
    let keys: Vec<String> = fields
        .keys()
        .filter(|k| k.starts_with(&prefix))
        .cloned()
        .collect();
    let mut extra = Extra::new();
    for k in keys {
        if let Some(val) = fields.shift_remove(&k) {
            extra.insert(k[prefix.len()..].to_owned(), val);
        }
    }
    if let Some(Value::Array(nulls)) = v.hint(F, &format!("{}{object}", hints::NULLS_OF)) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = known.iter().find(|f| **f == n) {
                extra.mark_null(f);
            }
        }
    }
    extra
}
