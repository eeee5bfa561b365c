//! AWS Bedrock Converse ↔ the neutral model.
//!
//! * **System**: the top-level `system` blocks (text, `cachePoint`, `guardContent`) are one
//!   leading system message. Leading system and developer messages of another format go
//!   into `system`; a later one moves there too (a `moved` loss). A `system`-role message
//!   inside `messages` (in the service model since 2026) is read in place and written back
//!   in place (hint `inline`).
//! * **Turns**: Converse wants user and assistant turns to alternate. A user message is
//!   read as a tool message (its `toolResult` blocks) and a user message (the rest), in
//!   block order; tool results are put in call order (the calls of the last assistant
//!   message). When writing, a tool message and the user message after it become one user
//!   message, results first (the normal shape, no loss); any other run of messages with
//!   the same Converse role is merged into one message with a `changed` loss.
//! * **Content**: text; `image` ↔ image (base64 `bytes` with media type
//!   `image/<format>`; an `s3Location` ↔ an `s3://` URL); `document` ↔ document (bytes,
//!   S3, or plain `text`; `name` required: a missing or invalid one is derived from the
//!   neutral name, a `changed` loss); `video` ↔ a document whose media type is `video/*`;
//!   `audio` ↔ audio. Converse takes bytes or S3 only: an `http(s)` URL or a provider file
//!   id from another format is dropped with a loss, never fetched. Blank text blocks are
//!   rejected by Converse: whitespace-only text of another format is left out (a loss).
//! * **Tools**: `toolUse.input` is an object. JSON text is parsed; invalid JSON is sent as
//!   `{"invalid_json": "<text>"}`, a non-object value as `{"value": …}` (a `changed` loss
//!   each), `null` or empty text as `{}`. A tool whose schema is not an object is declared
//!   as `{"input": <schema>}` and the arguments of its calls are wrapped to match.
//!   `toolResult` blocks carry text, `json`, image, document and video content; `status:
//!   error` ↔ the error flag (an error result with no content gets a text block: the API
//!   rejects it empty). A result of another format always gets a `status` (`success` or
//!   `error`: the agent step relies on it); a bedrock result without one is written back
//!   without one (hint `no_status`).
//! * **Reasoning**: `reasoningContent.reasoningText` (text + signature) and
//!   `redactedContent` ↔ reasoning with [`Signed`] tokens of format `bedrock`; tokens of
//!   another format are dropped (a loss), and so is reasoning of another provider left
//!   with no bedrock token (Claude on Bedrock rejects unsigned reasoning, as the Anthropic
//!   API does). Bedrock's own unsigned reasoning (other model families) stays; summaries
//!   are sent as its text when there is no text.
//! * **Cache**: a `cachePoint` block caches what comes before it, so it is read as a
//!   neutral [`Cache`] on the part (or tool) before it, and written after the part that
//!   carries one. A cache point with nothing before it is kept as an opaque part.
//! * **Opaque**: `guardContent`, `citationsContent`, `searchResult`, server-side
//!   `toolUse`/`toolResult` (with a `type`), `systemTool`, and unknown blocks are kept
//!   whole ([`Part::Opaque`] / [`Tool::Opaque`]).
//! * **toolConfig**: `toolSpec` ↔ function tools, `toolChoice` `auto`/`any`/`tool` ↔
//!   auto/required/one tool. Converse has no `none`: without tool blocks in the messages
//!   toolConfig is left out (the tools with it, a loss each); with them toolConfig must
//!   stay (the API refuses tool blocks without it), so the choice is dropped (a loss).
//!   Tool blocks with no tool declared get placeholder `toolSpec`s named after the tools in
//!   the history (a `changed` loss). There is no parallel-call switch (`false` is a loss).
//! * **Settings**: `inferenceConfig` ↔ max tokens, temperature, top_p, stop. `top_k` and
//!   reasoning settings travel in `additionalModelRequestFields` as Anthropic Claude
//!   names them (`top_k`; `thinking: {type: enabled, budget_tokens}` or `{type:
//!   disabled}`): read from there, and written there for another format with a `changed`
//!   loss (other model families name them differently). An effort level becomes a token
//!   budget (`util::effort_to_budget`). For another format, Claude's rules for thinking
//!   apply, each with a `changed` loss: a `maxTokens` not above the budget is raised to
//!   the budget plus 1024 (`/settings/max_tokens`; without `maxTokens` the model's maximum
//!   applies and nothing is written), and thinking is not switched on when the
//!   conversation ends in an open tool loop (only tool results after the last assistant
//!   message, which calls tools) whose assistant message does not start with reasoning
//!   (`/settings/reasoning`), and a tool choice that forces a call (`any`, one tool) is
//!   sent as `auto` while thinking is on (`/tool_choice`). The other keys of `additionalModelRequestFields` are kept
//!   one vendor field each, so another format reports just those keys as dropped.
//!   `outputConfig.textFormat` (a JSON schema given as text) ↔ the structured-output
//!   request. Seed and penalties have no place (a loss).
//! * **Responses**: `output.message` is the one choice. Stop reasons: `end_turn`,
//!   `stop_sequence`, `max_tokens`, `model_context_window_exceeded` (max tokens),
//!   `tool_use`, `guardrail_intervened` and `content_filtered` (content filter),
//!   `malformed_model_output` and `malformed_tool_use` (error). Usage: `inputTokens`
//!   excludes cache reads and writes (the prompt-caching guide: total input =
//!   `inputTokens + cacheReadInputTokens + cacheWriteInputTokens`), so the neutral input
//!   count is that sum and the written `inputTokens` is the neutral count minus both.
//!   `metrics`, `trace` and the other response fields are vendor fields. Required fields a
//!   neutral response lacks: `metrics` is written as `{"latencyMs": 0}` and a missing
//!   stop reason as `end_turn` (`tool_use` when the message calls tools), without a loss;
//!   missing usage is written as zeros with a `changed` loss. Usage values that say
//!   nothing (zero cache counts, unknown zero counts, an empty `serverToolUsage`) are
//!   hints, not neutral counts or vendor fields: another format neither gets nor loses
//!   them.
//! * The model id is `modelId`, as the SDK input form (and the fixtures) carry it; on the
//!   REST wire it is in the URL path.
//!
//! Hints (see [`Vendor`]) this module writes and reads: `inline` (a system-role message in
//! `messages`), `separate` (a message the source kept apart from the previous one of the
//! same role), `joined` (a neutral message that continues the previous one's Converse
//! message), `empty` (a message with no blocks), `order` (the source order of a tool
//! message's results, when it was not call order), `role` (a response message whose role
//! is not `assistant`), `blank` (a blank text block), `format` (a media format that does
//! not map back from the media type), `no_format` (a document without `format`),
//! `raw_name` (a document name outside the documented charset), `no_status` (a tool
//! result without `status`), `empty_system`, `no_messages`, `inference_config`
//! (an `inferenceConfig` with none of the four settings), `tool_config` (a `toolConfig`
//! with no function tool), `amrf_keys` (the key order of `additionalModelRequestFields`),
//! `schema_text` (the JSON-schema text of `outputConfig` as written), `no_usage`,
//! `no_metrics`, on usage `quiet` (unknown fields that were zero or `{}`) and `zeros`
//! (cache counts that were 0), `nulls` and `nulls.<object>`. Vendor fields
//! `$inferenceConfig.<key>` and `$toolConfig.<key>` hold unknown fields of those objects,
//! and `$additionalModelRequestFields.<key>` the keys of that object the neutral model
//! has no place for.

use crate::ctx::{extra_from, vendor_from_extra};
use crate::model::{
    self, Arguments, Cache, Choice, Dialect, Json, Media, Message, OutputFormat, Part, PartMeta,
    Reasoning, ReasoningConfig, Role, Settings, Signed, Source, StopKind, StopReason, Text, Tool,
    ToolCall, ToolChoice, ToolDef, ToolResult, Usage, Vendor,
};
use crate::util::{self, effort_to_budget, opaque, opaque_elsewhere, parse_data_url};
use crate::{Ctx, Error, LossKind, schema};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use wire_types::bedrock as w;
use wire_types::{Extra, Format, MaybeRaw};

const F: Format = Format::Bedrock;

/// The prefix of the vendor fields that hold the keys of `additionalModelRequestFields`
/// the neutral model has no place for (one field per key).
const AMRF: &str = "$additionalModelRequestFields.";

// ---------------------------------------------------------------------------------------
// Media formats

/// Image formats and their media types.
const IMAGE_TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
];

/// Document formats and their media types.
const DOC_TYPES: &[(&str, &str)] = &[
    ("pdf", "application/pdf"),
    ("csv", "text/csv"),
    ("doc", "application/msword"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("html", "text/html"),
    ("txt", "text/plain"),
    ("md", "text/markdown"),
];

/// Video formats and their media types (first match wins when writing).
const VIDEO_TYPES: &[(&str, &str)] = &[
    ("mkv", "video/x-matroska"),
    ("mov", "video/quicktime"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("flv", "video/x-flv"),
    ("mpeg", "video/mpeg"),
    ("mpg", "video/mpeg"),
    ("wmv", "video/x-ms-wmv"),
    ("three_gp", "video/3gpp"),
];

/// Audio formats and their media types (first match wins when writing).
const AUDIO_TYPES: &[(&str, &str)] = &[
    ("mp3", "audio/mpeg"),
    ("opus", "audio/opus"),
    ("wav", "audio/wav"),
    ("aac", "audio/aac"),
    ("flac", "audio/flac"),
    ("mp4", "audio/mp4"),
    ("ogg", "audio/ogg"),
    ("mkv", "audio/x-matroska"),
    ("mka", "audio/x-matroska"),
    ("x-aac", "audio/x-aac"),
    ("m4a", "audio/mp4"),
    ("mpeg", "audio/mpeg"),
    ("mpga", "audio/mpeg"),
    ("pcm", "audio/pcm"),
    ("webm", "audio/webm"),
];

/// Media types other formats use for the same thing, with the Converse format.
const ALIASES: &[(&str, &str)] = &[
    ("image/jpg", "jpeg"),
    ("audio/mp3", "mp3"),
    ("audio/x-wav", "wav"),
    ("audio/wave", "wav"),
    ("audio/x-flac", "flac"),
    ("audio/x-m4a", "m4a"),
    ("audio/m4a", "m4a"),
    ("audio/l16", "pcm"),
    ("text/x-markdown", "md"),
];

fn media_type_of(table: &[(&'static str, &'static str)], format: &str) -> Option<&'static str> {
    table.iter().find(|(f, _)| *f == format).map(|(_, t)| *t)
}

/// The Converse format of a media type (parameters and case ignored).
fn format_of(table: &[(&'static str, &'static str)], media_type: &str) -> Option<&'static str> {
    let t = media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    table
        .iter()
        .find(|(_, m)| *m == t)
        .map(|(f, _)| *f)
        .or_else(|| {
            ALIASES
                .iter()
                .find(|(m, f)| *m == t && table.iter().any(|(g, _)| g == f))
                .map(|(_, f)| *f)
        })
}

/// The image format of base64 bytes, from their magic number.
pub(crate) fn sniff_image(b64: &str) -> Option<&'static str> {
    if b64.starts_with("iVBORw0KGgo") {
        Some("png")
    } else if b64.starts_with("/9j/") {
        Some("jpeg")
    } else if b64.starts_with("R0lGOD") {
        Some("gif")
    } else if b64.starts_with("UklGR") && b64.get(12..16) == Some("RUJQ") {
        // `RIFF` …. `WEBP`: bytes 9–11 (`EBP`) are characters 12–15.
        Some("webp")
    } else {
        None
    }
}

/// The media type for a format read from the wire, and the `format` hint when the media
/// type does not map back to the same format.
fn read_format(
    table: &[(&'static str, &'static str)],
    kind: Option<&str>,
    format: &str,
    meta: &mut PartMeta,
) -> Option<String> {
    let media_type = media_type_of(table, format)
        .map(str::to_owned)
        .or_else(|| kind.map(|k| format!("{k}/{format}")));
    if media_type.as_deref().and_then(|t| format_of(table, t)) != Some(format) {
        meta.vendor.set_hint(F, "format", format);
    }
    media_type
}

// ---------------------------------------------------------------------------------------
// Decoding

/// A decoded part and where it came from.
struct Dp {
    part: Part,
    /// Source pointer of the block.
    src: String,
    /// Source pointer of the `cachePoint` folded into the part, if any.
    cache_src: Option<String>,
}

/// Decodes a Converse request.
pub fn decode_request(req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    let mut out = model::Request {
        model: req.model_id,
        ..Default::default()
    };
    if out.model.is_some() {
        ctx.map("/model", "/modelId");
    }
    let mut v = vendor_from_extra(F, &req.extra, &[]);

    match req.system {
        Some(blocks) if blocks.is_empty() => v.set_hint(F, "empty_system", true),
        Some(blocks) => {
            let parts = decode_system(blocks, ctx);
            let mut msg = Message::new(Role::System, Vec::new());
            ctx.map("/messages/0", "/system");
            for dp in parts {
                push_dp(&mut msg, "/messages/0", dp, ctx);
            }
            out.messages.push(msg);
        }
        None => {}
    }

    match req.messages {
        None => v.set_hint(F, "no_messages", true),
        Some(messages) => decode_messages(messages, &mut out.messages, ctx)?,
    }

    if let Some(tc) = req.tool_config {
        sub_extra_decode(&mut v, "toolConfig", &tc.extra);
        for (i, t) in tc.tools.into_iter().enumerate() {
            let src = format!("/toolConfig/tools/{i}");
            let tool = match t {
                w::Tool::ToolSpec(spec) => match spec.input_schema {
                    w::InputSchema::Json(schema) => Tool::Function(ToolDef {
                        name: spec.name,
                        description: spec.description,
                        input_schema: Some(schema),
                        dialect: Dialect::JsonSchema,
                        output_schema: None,
                        strict: spec.strict,
                        cache: None,
                        vendor: vendor_from_extra(F, &spec.extra, &[]),
                    }),
                    other => opaque_tool(
                        ctx,
                        &w::Tool::ToolSpec(w::ToolSpec {
                            input_schema: other,
                            ..spec
                        }),
                    ),
                },
                w::Tool::CachePoint(c) => {
                    let k = out.tools.len();
                    match attach_tool_cache(out.tools.last_mut(), c) {
                        None => {
                            ctx.map(format_args!("/tools/{}/cache", k.saturating_sub(1)), src);
                            continue;
                        }
                        Some(c) => opaque_tool(ctx, &w::Tool::CachePoint(c)),
                    }
                }
                other => opaque_tool(ctx, &other),
            };
            ctx.map(format_args!("/tools/{}", out.tools.len()), src);
            out.tools.push(tool);
        }
        if !out.tools.iter().any(|t| matches!(t, Tool::Function(_))) {
            v.set_hint(F, "tool_config", true);
        }
        if tc.tool_choice.is_some() {
            ctx.map("/tool_choice", "/toolConfig/toolChoice");
        }
        out.tool_choice = match tc.tool_choice {
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
        };
    }

    let mut s = Settings::default();
    if let Some(ic) = req.inference_config {
        sub_extra_decode(&mut v, "inferenceConfig", &ic.extra);
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
            v.set_hint(F, "inference_config", true);
        }
        s.max_tokens = ic.max_tokens;
        s.temperature = ic.temperature;
        s.top_p = ic.top_p;
        s.stop = ic.stop_sequences;
    }
    match req.additional_model_request_fields {
        Some(Value::Object(mut m)) => {
            let keys: Vec<Value> = m.keys().map(|k| Value::String(k.clone())).collect();
            v.set_hint(F, "amrf_keys", keys);
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
            // The rest, key by key: another format reports just the keys it drops.
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
        Some(other) => v.set_field(F, "additionalModelRequestFields", other),
        None => {}
    }
    out.settings = s;

    if let Some(oc) = req.output_config {
        match read_output(&oc) {
            Some((format, text)) => {
                ctx.map("/output_format", "/outputConfig/textFormat");
                out.output_format = Some(format);
                if let Some(t) = text {
                    v.set_hint(F, "schema_text", t);
                }
            }
            None => v.set_field(F, "outputConfig", oc),
        }
    }

    field(&mut v, "guardrailConfig", &req.guardrail_config);
    field(
        &mut v,
        "additionalModelResponseFieldPaths",
        &req.additional_model_response_field_paths,
    );
    field(&mut v, "promptVariables", &req.prompt_variables);
    field(&mut v, "requestMetadata", &req.request_metadata);
    field(&mut v, "performanceConfig", &req.performance_config);
    field(&mut v, "serviceTier", &req.service_tier);
    out.vendor = v;
    Ok(out)
}

/// Puts the JSON of `value` into `v`'s fields under `key`.
fn field<T: serde::Serialize>(v: &mut Vendor, key: &str, value: &Option<T>) {
    if let Some(x) = value {
        v.set_field(F, key, wire_types::to_value(x));
    }
}

/// Keeps the unknown fields and explicit nulls of a nested settings object.
fn sub_extra_decode(v: &mut Vendor, object: &str, extra: &Extra) {
    for (k, val) in extra.fields() {
        v.set_field(F, &format!("${object}.{k}"), val.clone());
    }
    if !extra.nulls().is_empty() {
        let nulls: Vec<Value> = extra.nulls().iter().map(|n| Value::from(*n)).collect();
        v.set_hint(F, &format!("nulls.{object}"), nulls);
    }
}

/// The `Extra` of a nested settings object, rebuilt from `fields` (taken out) and hints.
fn sub_extra_encode(
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
    if let Some(Value::Array(nulls)) = v.hint(F, &format!("nulls.{object}")) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = known.iter().find(|f| **f == n) {
                extra.mark_null(f);
            }
        }
    }
    extra
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

fn opaque_tool(ctx: &Ctx<'_>, t: &w::Tool) -> Tool {
    match opaque(ctx, wire_types::to_value(t)) {
        Part::Opaque(o) => Tool::Opaque(o),
        _ => unreachable!("opaque() builds an opaque part"),
    }
}

/// Folds a plain cache point into the tool before it; gives it back when it cannot be.
fn attach_tool_cache(last: Option<&mut Tool>, c: w::CachePoint) -> Option<w::CachePoint> {
    if c.kind != w::CachePointType::Default || !c.extra.is_empty() {
        return Some(c);
    }
    let slot = match last {
        Some(Tool::Function(def)) => &mut def.cache,
        Some(Tool::Opaque(o)) => &mut o.meta.cache,
        None => return Some(c),
    };
    if slot.is_some() {
        return Some(c);
    }
    *slot = Some(Cache { ttl: c.ttl });
    None
}

/// Folds a plain cache point into the part before it; gives it back when it cannot be.
fn attach_cache(last: Option<&mut Dp>, c: w::CachePoint, src: &str) -> Option<w::CachePoint> {
    if c.kind != w::CachePointType::Default || !c.extra.is_empty() {
        return Some(c);
    }
    match last {
        Some(dp) if dp.part.meta().cache.is_none() => {
            dp.part.meta_mut().cache = Some(Cache { ttl: c.ttl });
            dp.cache_src = Some(src.to_owned());
            None
        }
        _ => Some(c),
    }
}

/// Appends a decoded part to `msg` (at neutral pointer `neutral`), recording where it and
/// what it holds came from.
fn push_dp(msg: &mut Message, neutral: &str, dp: Dp, ctx: &mut Ctx<'_>) {
    let at = format!("{neutral}/content/{}", msg.content.len());
    if let Part::ToolResult(r) = &dp.part {
        for m in 0..r.content.len() {
            ctx.map(
                format_args!("{at}/content/{m}"),
                format_args!("{}/toolResult/content/{m}", dp.src),
            );
        }
    }
    if let Some(c) = dp.cache_src {
        ctx.map(format_args!("{at}/cache"), c);
    }
    ctx.map(at, dp.src);
    msg.content.push(dp.part);
}

fn decode_system(blocks: Vec<w::SystemContentBlock>, ctx: &mut Ctx<'_>) -> Vec<Dp> {
    let mut out: Vec<Dp> = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.into_iter().enumerate() {
        let src = format!("/system/{k}");
        let part = match b {
            w::SystemContentBlock::Text(t) => text_part(t),
            w::SystemContentBlock::CachePoint(c) => match attach_cache(out.last_mut(), c, &src) {
                None => continue,
                Some(c) => opaque(
                    ctx,
                    wire_types::to_value(&w::SystemContentBlock::CachePoint(c)),
                ),
            },
            other => opaque(ctx, wire_types::to_value(&other)),
        };
        out.push(Dp {
            part,
            src,
            cache_src: None,
        });
    }
    out
}

fn text_part(t: String) -> Part {
    let mut meta = PartMeta::default();
    if t.trim().is_empty() {
        meta.vendor.set_hint(F, "blank", true);
    }
    Part::Text(Text { text: t, meta })
}

fn meta_of(extra: &Extra) -> PartMeta {
    PartMeta {
        vendor: vendor_from_extra(F, extra, &[]),
        ..Default::default()
    }
}

/// The Converse role of a message as the neutral role it decodes to.
fn neutral_role(role: &w::Role, at: &str) -> Result<Role, Error> {
    match role {
        w::Role::User => Ok(Role::User),
        w::Role::Assistant => Ok(Role::Assistant),
        w::Role::System => Ok(Role::System),
        other => Err(Error::invalid(
            format!("{at}/role"),
            format!("unknown role `{}`", other.as_str()),
        )),
    }
}

fn decode_messages(
    messages: Vec<w::Message>,
    out: &mut Vec<Message>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mut prev_role: Option<w::Role> = None;
    let mut last_calls: Vec<String> = Vec::new();
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        let role = neutral_role(&m.role, &at)?;
        let mut first = vendor_from_extra(F, &m.extra, &[]);
        if prev_role.as_ref() == Some(&m.role) {
            first.set_hint(F, "separate", true);
        }
        if role == Role::System {
            first.set_hint(F, "inline", true);
        }
        let parts = decode_blocks(m.content, &m.role, &at, ctx);
        prev_role = Some(m.role);
        if role == Role::Assistant {
            last_calls = parts
                .iter()
                .filter_map(|dp| match &dp.part {
                    Part::ToolCall(c) => Some(c.id.clone()),
                    _ => None,
                })
                .collect();
        }

        // A user message is split into tool messages (its results) and user messages
        // (the rest), in block order.
        let mut segments: Vec<(Role, Vec<Dp>)> = Vec::new();
        for dp in parts {
            let r = if role == Role::User && matches!(dp.part, Part::ToolResult(_)) {
                Role::Tool
            } else {
                role
            };
            match segments.last_mut() {
                Some((last, seg)) if *last == r => seg.push(dp),
                _ => segments.push((r, vec![dp])),
            }
        }
        if segments.is_empty() {
            first.set_hint(F, "empty", true);
            segments.push((role, Vec::new()));
        }
        let mut first = Some(first);
        let mut prev_seg: Option<Role> = None;
        for (r, mut seg) in segments {
            let mut msg = Message::new(r, Vec::new());
            if let Some(v) = first.take() {
                msg.vendor = v;
            } else if !(prev_seg == Some(Role::Tool) && r == Role::User) {
                msg.vendor.set_hint(F, "joined", true);
            }
            if r == Role::Tool {
                call_order(&mut seg, &last_calls, &mut msg.vendor);
            }
            prev_seg = Some(r);
            let n = format!("/messages/{}", out.len());
            ctx.map(n.clone(), at.clone());
            for dp in seg {
                push_dp(&mut msg, &n, dp, ctx);
            }
            out.push(msg);
        }
    }
    Ok(())
}

/// Puts the results of a tool message in the order of `calls` (stable; results of
/// unknown calls last), recording the source order as the `order` hint when it differs.
fn call_order(parts: &mut Vec<Dp>, calls: &[String], v: &mut Vendor) {
    let pos = |dp: &Dp| match &dp.part {
        Part::ToolResult(r) => calls
            .iter()
            .position(|c| *c == r.call_id)
            .unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    let keys: Vec<usize> = parts.iter().map(pos).collect();
    let mut idx: Vec<usize> = (0..parts.len()).collect();
    idx.sort_by_key(|&i| keys.get(i).copied().unwrap_or(usize::MAX));
    if idx.iter().enumerate().all(|(a, b)| a == *b) {
        return;
    }
    v.set_hint(
        F,
        "order",
        idx.iter().map(|&i| Value::from(i)).collect::<Vec<_>>(),
    );
    let mut slots: Vec<Option<Dp>> = parts.drain(..).map(Some).collect();
    *parts = idx
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .collect();
}

/// Decodes the blocks of a message with role `role` (at source pointer `at`).
fn decode_blocks(
    blocks: Vec<w::ContentBlock>,
    role: &w::Role,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Vec<Dp> {
    let mut out: Vec<Dp> = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.into_iter().enumerate() {
        let src = format!("{at}/content/{k}");
        let part = match b {
            w::ContentBlock::CachePoint(c) => match attach_cache(out.last_mut(), c, &src) {
                None => continue,
                Some(c) => opaque(ctx, wire_types::to_value(&w::ContentBlock::CachePoint(c))),
            },
            w::ContentBlock::Text(t) => text_part(t),
            w::ContentBlock::Image(i) => decode_image(i)
                .unwrap_or_else(|i| opaque(ctx, wire_types::to_value(&w::ContentBlock::Image(i)))),
            w::ContentBlock::Document(d) => decode_document(d).unwrap_or_else(|d| {
                opaque(ctx, wire_types::to_value(&w::ContentBlock::Document(d)))
            }),
            w::ContentBlock::Video(vb) => decode_video(vb).unwrap_or_else(|vb| {
                opaque(ctx, wire_types::to_value(&w::ContentBlock::Video(vb)))
            }),
            w::ContentBlock::Audio(a) => decode_audio(a)
                .unwrap_or_else(|a| opaque(ctx, wire_types::to_value(&w::ContentBlock::Audio(a)))),
            w::ContentBlock::ToolUse(u) if *role == w::Role::Assistant && u.kind.is_none() => {
                Part::ToolCall(ToolCall {
                    id: u.tool_use_id,
                    synthetic_id: false,
                    name: u.name,
                    arguments: util::args_of(u.input),
                    meta: meta_of(&u.extra),
                })
            }
            w::ContentBlock::ToolResult(r) if *role == w::Role::User && r.kind.is_none() => {
                decode_tool_result(r, ctx)
            }
            w::ContentBlock::ReasoningContent(rc) => decode_reasoning(rc).unwrap_or_else(|rc| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ContentBlock::ReasoningContent(rc)),
                )
            }),
            other => opaque(ctx, wire_types::to_value(&other)),
        };
        out.push(Dp {
            part,
            src,
            cache_src: None,
        });
    }
    out
}

/// Whether a source has a neutral form (`text` only for documents).
fn source_ok(s: &w::Source, text: bool) -> bool {
    match s {
        w::Source::Bytes(_) => true,
        w::Source::S3Location(l) => l.extra.is_empty(),
        w::Source::Text(_) => text,
        _ => false,
    }
}

fn decode_source(s: w::Source, meta: &mut PartMeta) -> Source {
    match s {
        w::Source::Bytes(data) => Source::Base64 { data },
        w::Source::S3Location(l) => {
            if let Some(owner) = l.bucket_owner {
                meta.vendor
                    .set_field(F, "bucketOwner", Value::String(owner));
            }
            Source::Url { url: l.uri }
        }
        w::Source::Text(text) => Source::Text { text },
        // `source_ok` was checked first.
        _ => Source::Text {
            text: String::new(),
        },
    }
}

fn decode_image(i: w::ImageBlock) -> Result<Part, w::ImageBlock> {
    if !source_ok(&i.source, false) {
        return Err(i);
    }
    let mut meta = meta_of(&i.extra);
    let media_type = read_format(IMAGE_TYPES, Some("image"), i.format.as_str(), &mut meta);
    field(&mut meta.vendor, "error", &i.error);
    let source = decode_source(i.source, &mut meta);
    Ok(Part::Image(Media {
        source,
        media_type,
        name: None,
        meta,
    }))
}

fn decode_document(d: w::DocumentBlock) -> Result<Part, w::DocumentBlock> {
    if !source_ok(&d.source, true) {
        return Err(d);
    }
    let mut meta = meta_of(&d.extra);
    let media_type = match &d.format {
        Some(f) => read_format(DOC_TYPES, None, f.as_str(), &mut meta),
        None => {
            meta.vendor.set_hint(F, "no_format", true);
            None
        }
    };
    if !valid_doc_name(&d.name) {
        meta.vendor.set_hint(F, "raw_name", true);
    }
    field(&mut meta.vendor, "context", &d.context);
    field(&mut meta.vendor, "citations", &d.citations);
    let source = decode_source(d.source, &mut meta);
    Ok(Part::Document(Media {
        source,
        media_type,
        name: Some(d.name),
        meta,
    }))
}

fn decode_video(vb: w::VideoBlock) -> Result<Part, w::VideoBlock> {
    if !source_ok(&vb.source, false) {
        return Err(vb);
    }
    let mut meta = meta_of(&vb.extra);
    let media_type = read_format(VIDEO_TYPES, Some("video"), vb.format.as_str(), &mut meta);
    let source = decode_source(vb.source, &mut meta);
    Ok(Part::Document(Media {
        source,
        media_type,
        name: None,
        meta,
    }))
}

fn decode_audio(a: w::AudioBlock) -> Result<Part, w::AudioBlock> {
    if !source_ok(&a.source, false) {
        return Err(a);
    }
    let mut meta = meta_of(&a.extra);
    let media_type = read_format(AUDIO_TYPES, Some("audio"), a.format.as_str(), &mut meta);
    field(&mut meta.vendor, "error", &a.error);
    let source = decode_source(a.source, &mut meta);
    Ok(Part::Audio(Media {
        source,
        media_type,
        name: None,
        meta,
    }))
}

fn decode_tool_result(r: w::ToolResultBlock, ctx: &mut Ctx<'_>) -> Part {
    let mut meta = meta_of(&r.extra);
    let is_error = match r.status {
        None => {
            meta.vendor.set_hint(F, "no_status", true);
            false
        }
        Some(w::ToolResultStatus::Error) => true,
        Some(w::ToolResultStatus::Success) => false,
        Some(other) => {
            meta.vendor
                .set_field(F, "status", Value::String(other.as_str().to_owned()));
            false
        }
    };
    let mut content = Vec::with_capacity(r.content.len());
    for b in r.content {
        content.push(match b {
            w::ToolResultContentBlock::Json(value) => Part::Json(Json {
                value,
                meta: PartMeta::default(),
            }),
            w::ToolResultContentBlock::Text(t) => text_part(t),
            w::ToolResultContentBlock::Image(i) => decode_image(i).unwrap_or_else(|i| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ToolResultContentBlock::Image(i)),
                )
            }),
            w::ToolResultContentBlock::Document(d) => decode_document(d).unwrap_or_else(|d| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ToolResultContentBlock::Document(d)),
                )
            }),
            w::ToolResultContentBlock::Video(vb) => decode_video(vb).unwrap_or_else(|vb| {
                opaque(
                    ctx,
                    wire_types::to_value(&w::ToolResultContentBlock::Video(vb)),
                )
            }),
            other => opaque(ctx, wire_types::to_value(&other)),
        });
    }
    Part::ToolResult(ToolResult {
        call_id: r.tool_use_id,
        name: None,
        content,
        is_error,
        meta,
    })
}

fn decode_reasoning(rc: w::ReasoningContent) -> Result<Part, w::ReasoningContent> {
    match rc {
        w::ReasoningContent::ReasoningText(t) => Ok(Part::Reasoning(Reasoning {
            text: Some(t.text),
            signature: t.signature.map(|value| Signed { value, format: F }),
            source: Some(F),
            meta: meta_of(&t.extra),
            ..Default::default()
        })),
        w::ReasoningContent::RedactedContent(value) => Ok(Part::Reasoning(Reasoning {
            encrypted: Some(Signed { value, format: F }),
            source: Some(F),
            ..Default::default()
        })),
        other => Err(other),
    }
}

/// Decodes a Converse response.
pub fn decode_response(resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    let mut out = model::Response::default();
    let mut v = vendor_from_extra(F, &resp.extra, &[]);
    match resp.output {
        w::Output::Message(m) => {
            let mut msg = Message::new(Role::Assistant, Vec::new());
            msg.vendor = vendor_from_extra(F, &m.extra, &[]);
            if m.role != w::Role::Assistant {
                msg.vendor.set_hint(F, "role", m.role.as_str());
            }
            ctx.map("/choices/0/message", "/output/message");
            for dp in decode_blocks(m.content, &m.role, "/output/message", ctx) {
                push_dp(&mut msg, "/choices/0/message", dp, ctx);
            }
            ctx.map("/choices/0/stop_reason", "/stopReason");
            out.choices.push(Choice {
                message: msg,
                stop_reason: Some(stop_reason(&resp.stop_reason)),
                vendor: Vendor::default(),
            });
        }
        other => {
            v.set_field(F, "output", wire_types::to_value(&other));
            v.set_field(
                F,
                "stopReason",
                Value::String(resp.stop_reason.as_str().to_owned()),
            );
        }
    }
    match resp.usage {
        Some(u) => out.usage = Some(decode_usage(u)),
        None => v.set_hint(F, "no_usage", true),
    }
    match &resp.metrics {
        Some(_) => field(&mut v, "metrics", &resp.metrics),
        None => v.set_hint(F, "no_metrics", true),
    }
    field(
        &mut v,
        "additionalModelResponseFields",
        &resp.additional_model_response_fields,
    );
    field(&mut v, "trace", &resp.trace);
    field(&mut v, "performanceConfig", &resp.performance_config);
    field(&mut v, "serviceTier", &resp.service_tier);
    out.vendor = v;
    Ok(out)
}

fn stop_reason(r: &w::StopReason) -> StopReason {
    let kind = match r {
        w::StopReason::EndTurn => StopKind::EndTurn,
        w::StopReason::StopSequence => StopKind::StopSequence,
        w::StopReason::MaxTokens | w::StopReason::ModelContextWindowExceeded => StopKind::MaxTokens,
        w::StopReason::ToolUse => StopKind::ToolUse,
        w::StopReason::GuardrailIntervened | w::StopReason::ContentFiltered => {
            StopKind::ContentFilter
        }
        w::StopReason::MalformedModelOutput | w::StopReason::MalformedToolUse => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: Some(r.as_str().to_owned()),
        format: Some(F),
    }
}

/// Whether a usage value says nothing: zero, or an empty object (`serverToolUsage: {}`).
fn says_nothing(v: &Value) -> bool {
    v.as_f64() == Some(0.0) || v.as_object().is_some_and(Map::is_empty)
}

fn decode_usage(u: w::Usage) -> Usage {
    let mut v = vendor_from_extra(F, &u.extra, &[]);
    // Zero counts and empty objects carry nothing, so another format loses nothing: they
    // are hints (written back here only), not fields or neutral counts.
    let quiet: Map<String, Value> = v
        .fields
        .iter()
        .filter(|(_, x)| says_nothing(x))
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect();
    let mut zeros = Vec::new();
    let mut counted = |key: &str, n: Option<u64>| match n {
        Some(0) => {
            zeros.push(Value::from(key));
            None
        }
        n => n,
    };
    let read = counted("cacheReadInputTokens", u.cache_read_input_tokens);
    let write = counted("cacheWriteInputTokens", u.cache_write_input_tokens);
    if !quiet.is_empty() {
        v.fields.retain(|k, _| !quiet.contains_key(k));
        v.set_hint(F, "quiet", Value::Object(quiet));
    }
    if !zeros.is_empty() {
        v.set_hint(F, "zeros", zeros);
    }
    field(&mut v, "cacheDetails", &u.cache_details);
    Usage {
        input_tokens: Some(
            u.input_tokens
                .saturating_add(read.unwrap_or(0))
                .saturating_add(write.unwrap_or(0)),
        ),
        output_tokens: Some(u.output_tokens),
        total_tokens: Some(u.total_tokens),
        cached_input_tokens: read,
        cache_write_tokens: write,
        reasoning_tokens: None,
        vendor: v,
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// What the encoder of one request keeps track of.
#[derive(Default)]
struct Env {
    /// Documents named so far for want of a name.
    unnamed: usize,
}

/// Encodes a neutral request as a Converse request.
pub fn encode_request(req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    let v = req.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    let mut env = Env { unnamed: 0 };
    let history = tool_names(&req.messages);
    let n_tools = req.tools.len();
    let tools = encode_tool_list(req.tools, ctx);
    let (system, messages) = encode_messages(req.messages, &mut env, ctx);
    let has_tool_blocks = messages.iter().any(|m| {
        m.content.iter().any(|b| {
            matches!(
                b,
                w::ContentBlock::ToolUse(_) | w::ContentBlock::ToolResult(_)
            )
        })
    });

    // Tool choice and toolConfig.
    let choice_field = fields.shift_remove("toolChoice");
    let mut none = false;
    let tool_choice = match req.tool_choice {
        None => choice_field.and_then(|c| serde_json::from_value(c).ok()),
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
                ctx.loss(
                    "/tool_choice",
                    LossKind::Changed,
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
        Some(ToolChoice::None) => {
            none = true;
            None
        }
    };
    let config_extra = sub_extra_encode(&mut fields, &v, "toolConfig", w::ToolConfig::FIELDS);
    let declared = v.flag(F, "tool_config");
    let tool_config = if none && !has_tool_blocks {
        ctx.loss(
            "/tool_choice",
            LossKind::Changed,
            "bedrock has no `none` tool choice: toolConfig is left out so that no tool can be called",
        );
        for k in 0..n_tools {
            ctx.loss(
                format!("/tools/{k}"),
                LossKind::Dropped,
                "left out with toolConfig (tool choice `none`)",
            );
        }
        None
    } else {
        if none {
            ctx.loss(
                "/tool_choice",
                LossKind::Dropped,
                "bedrock has no `none` tool choice, and toolConfig must stay while the messages hold tool blocks: the model may still call a tool",
            );
        }
        let mut tools = tools;
        if tools.is_empty() && has_tool_blocks && !declared {
            let names = if history.is_empty() {
                vec!["placeholder_tool".to_owned()]
            } else {
                history
            };
            ctx.loss(
                "/tools",
                LossKind::Changed,
                format!(
                    "bedrock requires toolConfig when messages hold toolUse or toolResult blocks: placeholder tool specs declared for {}",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            tools = names.into_iter().map(placeholder).collect();
        }
        if tools.is_empty() && !declared {
            if tool_choice.is_some() && req_choice_lost(&v) {
                ctx.loss(
                    "/tool_choice",
                    LossKind::Dropped,
                    "no tool is declared: bedrock has no tool choice without tools",
                );
            }
            None
        } else {
            Some(w::ToolConfig {
                tools,
                tool_choice,
                extra: config_extra,
            })
        }
    };

    // Settings.
    let s = req.settings;
    for (set, key, what) in [
        (s.seed.is_some(), "seed", "sampling seed"),
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
            ctx.loss(
                format!("/settings/{key}"),
                LossKind::Dropped,
                format!("bedrock converse has no {what}"),
            );
        }
    }
    if s.parallel_tool_calls == Some(false) {
        ctx.loss(
            "/settings/parallel_tool_calls",
            LossKind::Dropped,
            "bedrock has no switch to turn parallel tool calls off",
        );
    }
    if s.stream == Some(true) {
        ctx.loss(
            "/settings/stream",
            LossKind::Dropped,
            "bedrock streams through the ConverseStream endpoint, not a body field",
        );
    }
    // Thinking before inferenceConfig: its budget must stay below maxTokens.
    let open_loop = open_loop_without_reasoning(&messages);
    let (amrf, budget) = encode_amrf(
        &mut fields,
        &v,
        s.top_k,
        s.reasoning.as_ref(),
        open_loop,
        ctx,
    );
    let max_tokens = match (s.max_tokens, budget.and_then(|b| u64::try_from(b).ok())) {
        (Some(m), Some(b)) if m <= b => {
            let raised = b.saturating_add(1024);
            ctx.loss(
                "/settings/max_tokens",
                LossKind::Changed,
                format!(
                    "Claude requires the thinking budget ({b}) below maxTokens: maxTokens raised from {m} to {raised}"
                ),
            );
            Some(raised)
        }
        (m, _) => m,
    };
    let inference_extra = sub_extra_encode(
        &mut fields,
        &v,
        "inferenceConfig",
        w::InferenceConfig::FIELDS,
    );
    let ic = w::InferenceConfig {
        max_tokens,
        temperature: s.temperature,
        top_p: s.top_p,
        stop_sequences: s.stop,
        extra: inference_extra,
    };
    let inference_config = (ic.max_tokens.is_some()
        || ic.temperature.is_some()
        || ic.top_p.is_some()
        || ic.stop_sequences.is_some()
        || !ic.extra.is_empty()
        || v.flag(F, "inference_config"))
    .then_some(ic);

    let output_config = match req.output_format {
        None => take_field::<Value>(&mut fields, "outputConfig"),
        Some(OutputFormat::Text) => None,
        Some(OutputFormat::JsonObject) => {
            ctx.loss(
                "/output_format",
                LossKind::Changed,
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
                ctx.loss(
                    "/output_format/strict",
                    LossKind::Dropped,
                    "bedrock's structured output has no strict flag",
                );
            }
            let text = v
                .hint(F, "schema_text")
                .and_then(Value::as_str)
                .filter(|t| serde_json::from_str::<Value>(t).ok().as_ref() == Some(&schema))
                .map(str::to_owned)
                .unwrap_or_else(|| schema.to_string());
            Some(text_format(name, text))
        }
    };

    // Claude on Bedrock, as on Anthropic's API, rejects a tool choice that forces a call
    // while thinking is on. A Bedrock request of its own is written back as it came.
    let mut tool_config = tool_config;
    let thinking = amrf
        .as_ref()
        .and_then(|a| a.get("thinking"))
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t != "disabled");
    if let Some(tc) = tool_config
        .as_mut()
        .filter(|_| thinking && ctx.source != Some(F))
    {
        let forced = match &tc.tool_choice {
            Some(w::ToolChoice::Any(_)) => Some("`any` (some tool must be called)".to_owned()),
            Some(w::ToolChoice::Tool(t)) => Some(format!("forcing the tool `{}`", t.name)),
            _ => None,
        };
        if let Some(what) = forced {
            ctx.loss(
                "/tool_choice",
                LossKind::Changed,
                format!(
                    "with thinking on, Claude allows only the `auto` tool choice: {what} is sent as `auto` (thinking is kept)"
                ),
            );
            tc.tool_choice = Some(w::ToolChoice::Auto(w::NoFields::default()));
        }
    }

    Ok(w::Request {
        model_id: req.model,
        messages: if messages.is_empty() && v.flag(F, "no_messages") {
            None
        } else {
            Some(messages)
        },
        system: if system.is_empty() {
            v.flag(F, "empty_system").then(Vec::new)
        } else {
            Some(system)
        },
        inference_config,
        tool_config,
        guardrail_config: take_field(&mut fields, "guardrailConfig"),
        additional_model_request_fields: amrf,
        additional_model_response_field_paths: take_field(
            &mut fields,
            "additionalModelResponseFieldPaths",
        ),
        prompt_variables: take_field(&mut fields, "promptVariables"),
        request_metadata: take_field(&mut fields, "requestMetadata"),
        performance_config: take_field(&mut fields, "performanceConfig"),
        service_tier: take_field(&mut fields, "serviceTier"),
        output_config,
        extra: extra_from(fields, &v, w::Request::FIELDS, ctx),
    })
}

/// Whether a tool choice that cannot be written is a loss (always, unless the same
/// format wrote it that way).
fn req_choice_lost(v: &Vendor) -> bool {
    v.format != Some(F)
}

fn specific(name: String) -> w::ToolChoice {
    w::ToolChoice::Tool(w::SpecificToolChoice {
        name,
        extra: Extra::new(),
    })
}

/// A tool spec that declares a tool the history uses, so that Converse accepts the
/// history's tool blocks.
fn placeholder(name: String) -> w::Tool {
    w::Tool::ToolSpec(w::ToolSpec {
        name,
        description: None,
        input_schema: w::InputSchema::Json(json!({"type": "object", "properties": {}})),
        strict: None,
        extra: Extra::new(),
    })
}

fn text_format(name: Option<String>, schema: String) -> Value {
    let mut js = Map::new();
    js.insert("schema".into(), Value::String(schema));
    if let Some(n) = name {
        js.insert("name".into(), Value::String(n));
    }
    json!({"textFormat": {"type": "json_schema", "structure": {"jsonSchema": js}}})
}

/// The names of the tools the messages call or answer, in first-seen order.
fn tool_names(messages: &[Message]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in messages {
        for p in &m.content {
            let name = match p {
                Part::ToolCall(c) => Some(c.name.as_str()),
                Part::ToolResult(r) => r.name.as_deref(),
                _ => None,
            };
            if let Some(n) = name {
                if seen.insert(n.to_owned()) {
                    out.push(n.to_owned());
                }
            }
        }
    }
    out
}

/// Takes a vendor field back into its typed form; a value that does not fit is left in
/// `fields` (and so written as it was).
fn take_field<T: DeserializeOwned>(fields: &mut Map<String, Value>, key: &str) -> Option<T> {
    let value = fields.shift_remove(key)?;
    match serde_json::from_value(value.clone()) {
        Ok(t) => Some(t),
        Err(_) => {
            fields.insert(key.to_owned(), value);
            None
        }
    }
}

/// `additionalModelRequestFields`: the source's own (same format), plus `top_k` and
/// Claude's `thinking` (`open_loop`: see [`open_loop_without_reasoning`]). Also the
/// thinking budget written for another format, if any.
fn encode_amrf(
    fields: &mut Map<String, Value>,
    v: &Vendor,
    top_k: Option<u64>,
    reasoning: Option<&ReasoningConfig>,
    open_loop: bool,
    ctx: &mut Ctx<'_>,
) -> (Option<Value>, Option<i64>) {
    let order = v.hint(F, "amrf_keys").and_then(Value::as_array).cloned();
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
            ctx.loss(
                "/settings/top_k",
                LossKind::Changed,
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
/// not switched on for another format when `open_loop` (the conversation ends in a tool
/// loop whose assistant message has no reasoning to send back: Claude rejects that).
fn encode_thinking(
    r: &ReasoningConfig,
    same: bool,
    open_loop: bool,
    ctx: &mut Ctx<'_>,
) -> Option<(Value, Option<i64>)> {
    let at = "/settings/reasoning";
    let include_lost = |ctx: &mut Ctx<'_>| {
        if r.include == Some(false) {
            ctx.loss(
                format!("{at}/include"),
                LossKind::Dropped,
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
                ctx.loss(
                    format!("{at}/effort"),
                    LossKind::Dropped,
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
        ctx.loss(
            at,
            LossKind::Changed,
            "thinking is not switched on for this request: the conversation ends in a tool loop (tool results answering the last assistant message), and with thinking on Claude requires that message to start with its own signed reasoning; it has none (reasoning from another provider cannot be sent)",
        );
        return None;
    }
    include_lost(ctx);
    if !same {
        ctx.loss(at, LossKind::Changed, detail);
    }
    Some((value, budget))
}

/// Whether the conversation ends in an open tool loop (the last assistant message calls
/// tools and only user messages of tool results follow it) whose assistant message does
/// not start with reasoning. With thinking on, Claude rejects that ("a final `assistant`
/// message must start with a thinking block").
fn open_loop_without_reasoning(messages: &[w::Message]) -> bool {
    let Some(last) = messages.iter().rposition(|m| m.role == w::Role::Assistant) else {
        return false;
    };
    let result = |b: &w::ContentBlock| matches!(b, w::ContentBlock::ToolResult(_));
    let after = messages.get(last + 1..).unwrap_or_default();
    let results_only = !after.is_empty()
        && after.iter().all(|m| {
            m.role == w::Role::User
                && m.content.iter().any(result)
                && m.content
                    .iter()
                    .all(|b| result(b) || matches!(b, w::ContentBlock::CachePoint(_)))
        });
    let assistant = messages
        .get(last)
        .map(|m| m.content.as_slice())
        .unwrap_or_default();
    results_only
        && assistant
            .iter()
            .any(|b| matches!(b, w::ContentBlock::ToolUse(_)))
        && !matches!(
            assistant.first(),
            Some(w::ContentBlock::ReasoningContent(_))
        )
}

/// Encodes tool definitions as a Converse `toolConfig` (no tool choice; `None` for none).
pub fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<w::ToolConfig> {
    if tools.is_empty() {
        return None;
    }
    Some(w::ToolConfig {
        tools: encode_tool_list(tools, ctx),
        tool_choice: None,
        extra: Extra::new(),
    })
}

fn cache_point(c: Cache) -> w::CachePoint {
    w::CachePoint {
        kind: w::CachePointType::Default,
        ttl: c.ttl,
        extra: Extra::new(),
    }
}

fn encode_tool_list(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Vec<w::Tool> {
    let mut out = Vec::with_capacity(tools.len());
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => {
                let cache = def.cache.clone();
                out.push(w::Tool::ToolSpec(encode_tool_def(def, &at, ctx)));
                if let Some(c) = cache {
                    out.push(w::Tool::CachePoint(cache_point(c)));
                }
            }
            Tool::Opaque(o) if o.format == F => {
                let cache = o.meta.cache.clone();
                match serde_json::from_value::<w::Tool>(o.value) {
                    Ok(t) => {
                        out.push(t);
                        if let Some(c) = cache {
                            out.push(w::Tool::CachePoint(cache_point(c)));
                        }
                    }
                    Err(e) => ctx.loss(at, LossKind::Dropped, format!("not a bedrock tool: {e}")),
                }
            }
            Tool::Opaque(o) => ctx.loss(
                at,
                LossKind::Dropped,
                format!(
                    "{} tool {} has no equivalent in {F}",
                    o.format,
                    o.value
                        .get("type")
                        .or(o.value.get("name"))
                        .cloned()
                        .unwrap_or(Value::Null)
                ),
            ),
        }
    }
    out
}

fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::ToolSpec {
    let schema = match def.input_schema {
        None => json!({"type": "object", "properties": {}}),
        Some(s) => {
            let s = match def.dialect {
                Dialect::GeminiOpenapi => schema::from_gemini(&s),
                Dialect::JsonSchema => s,
            };
            match schema::wrap_non_object(&s) {
                Some(wrapped) => {
                    ctx.loss(
                        format!("{at}/input_schema"),
                        LossKind::Changed,
                        "a non-object input schema is exposed as {\"input\": <schema>}",
                    );
                    wrapped
                }
                None => s,
            }
        }
    };
    if def.output_schema.is_some() {
        ctx.loss(
            format!("{at}/output_schema"),
            LossKind::Dropped,
            "bedrock tools have no output schema",
        );
    }
    w::ToolSpec {
        name: def.name,
        description: def.description,
        input_schema: w::InputSchema::Json(schema),
        strict: def.strict,
        extra: ctx.extra(&def.vendor, w::ToolSpec::FIELDS, at),
    }
}

/// The Converse role a neutral message is written with.
fn wire_role(role: Role) -> w::Role {
    match role {
        Role::User | Role::Tool => w::Role::User,
        Role::Assistant => w::Role::Assistant,
        Role::System | Role::Developer => w::Role::System,
    }
}

fn encode_messages(
    messages: Vec<Message>,
    env: &mut Env,
    ctx: &mut Ctx<'_>,
) -> (Vec<w::SystemContentBlock>, Vec<w::Message>) {
    let mut system = Vec::new();
    let mut out: Vec<w::Message> = Vec::new();
    // The neutral role of the last message written to `out`.
    let mut last: Option<Role> = None;
    for (i, m) in messages.into_iter().enumerate() {
        let at = format!("/messages/{i}");
        if m.role.is_system() && !m.vendor.flag(F, "inline") {
            if last.is_some() {
                ctx.loss(
                    at.clone(),
                    LossKind::Moved,
                    "bedrock takes system instructions in the top-level `system` only: this mid-conversation message moved there",
                );
            }
            encode_system(m, &at, &mut system, ctx);
            continue;
        }
        let role = wire_role(m.role);
        let separate = m.vendor.flag(F, "separate");
        let joined = m.vendor.flag(F, "joined");
        let keep_empty = m.vendor.flag(F, "empty");
        let had_parts = !m.content.is_empty();
        let extra = ctx.extra(&m.vendor, w::Message::FIELDS, &at);
        let content = encode_content(m.content, m.role, &m.vendor, &at, env, ctx);
        if content.is_empty() && !keep_empty {
            if !had_parts {
                ctx.loss(
                    at,
                    LossKind::Dropped,
                    "an empty message: bedrock rejects a message without content",
                );
            }
            continue;
        }
        match out.last_mut() {
            Some(prev) if prev.role == role && !separate => {
                let normal = last == Some(Role::Tool) && m.role == Role::User;
                if !normal && !joined {
                    ctx.loss(
                        at,
                        LossKind::Changed,
                        format!(
                            "merged into the previous {role} message: bedrock requires user and assistant turns to alternate"
                        ),
                    );
                }
                prev.content.extend(content);
                for (k, val) in extra.fields() {
                    prev.extra.insert(k.clone(), val.clone());
                }
            }
            _ => out.push(w::Message {
                role,
                content,
                extra,
            }),
        }
        last = Some(m.role);
    }
    (system, out)
}

fn encode_system(m: Message, at: &str, out: &mut Vec<w::SystemContentBlock>, ctx: &mut Ctx<'_>) {
    let _ = ctx.vendor_fields(&m.vendor, at);
    for (j, p) in m.content.into_iter().enumerate() {
        let pat = format!("{at}/content/{j}");
        let _ = ctx.own(
            p.meta().signature.as_ref(),
            format_args!("{pat}/signature"),
            "a reasoning signature",
        );
        let cache = p.meta().cache.clone();
        let before = out.len();
        match p {
            Part::Text(t) => {
                if text_ok(&t, &pat, ctx) {
                    let _ = ctx.vendor_fields(&t.meta.vendor, &pat);
                    out.push(w::SystemContentBlock::Text(t.text));
                }
            }
            Part::Json(j) => {
                ctx.loss(
                    pat.clone(),
                    LossKind::Changed,
                    "a JSON part is sent as its JSON text",
                );
                out.push(w::SystemContentBlock::Text(j.value.to_string()));
            }
            Part::Opaque(o) if o.format == F => {
                match serde_json::from_value::<w::SystemContentBlock>(o.value) {
                    Ok(b) => out.push(b),
                    Err(e) => ctx.loss(
                        pat.clone(),
                        LossKind::Dropped,
                        format!("not a bedrock system block: {e}"),
                    ),
                }
            }
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &pat) {
                    out.push(w::SystemContentBlock::Text(t.text));
                }
            }
            other => ctx.loss(
                pat.clone(),
                LossKind::Dropped,
                format!(
                    "bedrock system prompts hold text only: a {} part has no place there",
                    other.kind()
                ),
            ),
        }
        if let Some(c) = cache {
            if out.len() > before {
                out.push(w::SystemContentBlock::CachePoint(cache_point(c)));
            } else {
                cache_lost(&pat, ctx);
            }
        }
    }
}

fn cache_lost(pat: &str, ctx: &mut Ctx<'_>) {
    ctx.loss(
        format!("{pat}/cache"),
        LossKind::Dropped,
        "the cache marker's part was left out",
    );
}

/// Whether a text part is written: Converse rejects blank text blocks, so one from
/// another format is left out (a loss when it held whitespace).
fn text_ok(t: &Text, pat: &str, ctx: &mut Ctx<'_>) -> bool {
    if !t.text.trim().is_empty() || t.meta.vendor.flag(F, "blank") {
        return true;
    }
    if !t.text.is_empty() {
        ctx.loss(
            pat.to_owned(),
            LossKind::Dropped,
            "bedrock rejects blank text blocks: whitespace-only text left out",
        );
    }
    false
}

/// The parts of a tool message in source order (hint `order`), with their neutral
/// indices.
fn source_order(parts: Vec<Part>, v: &Vendor) -> Vec<(usize, Part)> {
    let mut indexed: Vec<(usize, Part)> = parts.into_iter().enumerate().collect();
    let Some(order) = v.hint(F, "order").and_then(Value::as_array) else {
        return indexed;
    };
    let order: Vec<usize> = order
        .iter()
        .filter_map(Value::as_u64)
        .map(|n| n as usize)
        .collect();
    let n = indexed.len();
    let mut seen = vec![false; n];
    let valid = order.len() == n
        && order.iter().all(|&o| match seen.get_mut(o) {
            Some(s) if !*s => {
                *s = true;
                true
            }
            _ => false,
        });
    if !valid {
        return indexed;
    }
    let mut slots: Vec<Option<(usize, Part)>> = (0..n).map(|_| None).collect();
    for (item, &o) in indexed.drain(..).zip(&order) {
        if let Some(s) = slots.get_mut(o) {
            *s = Some(item);
        }
    }
    slots.into_iter().flatten().collect()
}

fn encode_content(
    parts: Vec<Part>,
    role: Role,
    v: &Vendor,
    at: &str,
    env: &mut Env,
    ctx: &mut Ctx<'_>,
) -> Vec<w::ContentBlock> {
    let indexed = if role == Role::Tool {
        source_order(parts, v)
    } else {
        parts.into_iter().enumerate().collect()
    };
    let mut out = Vec::with_capacity(indexed.len());
    for (j, p) in indexed {
        let pat = format!("{at}/content/{j}");
        let cache = p.meta().cache.clone();
        let before = out.len();
        encode_part(p, &pat, env, &mut out, ctx);
        if let Some(c) = cache {
            if out.len() > before {
                out.push(w::ContentBlock::CachePoint(cache_point(c)));
            } else {
                cache_lost(&pat, ctx);
            }
        }
    }
    out
}

fn encode_part(
    p: Part,
    pat: &str,
    env: &mut Env,
    out: &mut Vec<w::ContentBlock>,
    ctx: &mut Ctx<'_>,
) {
    let _ = ctx.own(
        p.meta().signature.as_ref(),
        format_args!("{pat}/signature"),
        "a reasoning signature",
    );
    match p {
        Part::Text(t) => {
            if text_ok(&t, pat, ctx) {
                let _ = ctx.vendor_fields(&t.meta.vendor, pat);
                out.push(w::ContentBlock::Text(t.text));
            }
        }
        Part::Refusal(t) => {
            ctx.loss(
                pat.to_owned(),
                LossKind::Changed,
                "bedrock has no refusal part: sent as text",
            );
            let _ = ctx.vendor_fields(&t.meta.vendor, pat);
            out.push(w::ContentBlock::Text(t.text));
        }
        Part::Image(m) => {
            if let Some(b) = encode_image(m, pat, ctx) {
                out.push(w::ContentBlock::Image(b));
            }
        }
        Part::Audio(m) => {
            if let Some(b) = encode_audio(m, pat, ctx) {
                out.push(w::ContentBlock::Audio(b));
            }
        }
        Part::Document(m) => match encode_document(m, pat, env, ctx) {
            Some(Doc::Document(d)) => out.push(w::ContentBlock::Document(d)),
            Some(Doc::Video(vb)) => out.push(w::ContentBlock::Video(vb)),
            None => {}
        },
        Part::Json(j) => {
            ctx.loss(
                pat.to_owned(),
                LossKind::Changed,
                "a JSON part outside a tool result is sent as its JSON text",
            );
            out.push(w::ContentBlock::Text(j.value.to_string()));
        }
        Part::ToolCall(c) => out.push(w::ContentBlock::ToolUse(encode_call(c, pat, ctx))),
        Part::ToolResult(r) => {
            out.push(w::ContentBlock::ToolResult(encode_result(r, pat, env, ctx)))
        }
        Part::Reasoning(r) => encode_reasoning(r, pat, out, ctx),
        Part::Opaque(o) if o.format == F => match serde_json::from_value(o.value) {
            Ok(b) => out.push(b),
            Err(e) => ctx.loss(
                pat.to_owned(),
                LossKind::Dropped,
                format!("not a bedrock content block: {e}"),
            ),
        },
        Part::Opaque(o) => {
            if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, pat) {
                if !t.text.trim().is_empty() {
                    out.push(w::ContentBlock::Text(t.text));
                }
            }
        }
    }
}

fn encode_reasoning(r: Reasoning, pat: &str, out: &mut Vec<w::ContentBlock>, ctx: &mut Ctx<'_>) {
    let Some(view) = ctx.reasoning(&r, pat) else {
        return;
    };
    if view.signature.is_none() && view.encrypted.is_none() && r.source != Some(F) {
        let from = r
            .source
            .map_or_else(|| "an unknown provider".to_owned(), |f| f.to_string());
        ctx.loss(
            pat.to_owned(),
            LossKind::Dropped,
            format!(
                "Claude on bedrock accepts only reasoning it signed: reasoning from {from} is dropped (it would go as reasoningText without a signature)"
            ),
        );
        return;
    }
    if r.id.is_some() {
        ctx.loss(
            format!("{pat}/id"),
            LossKind::Dropped,
            "bedrock reasoning blocks have no id",
        );
    }
    if let Some(enc) = view.encrypted {
        out.push(w::ContentBlock::ReasoningContent(
            w::ReasoningContent::RedactedContent(enc.to_owned()),
        ));
    }
    let text = match (view.text, view.summary.is_empty()) {
        (Some(t), true) => Some(t.to_owned()),
        (Some(t), false) => {
            ctx.loss(
                format!("{pat}/summary"),
                LossKind::Dropped,
                "bedrock reasoning has no summary (the reasoning text is sent)",
            );
            Some(t.to_owned())
        }
        (None, false) => {
            ctx.loss(
                format!("{pat}/summary"),
                LossKind::Changed,
                "bedrock reasoning has no summary: sent as the reasoning text",
            );
            Some(view.summary.join("\n\n"))
        }
        (None, true) => None,
    };
    if text.is_some() || view.signature.is_some() {
        out.push(w::ContentBlock::ReasoningContent(
            w::ReasoningContent::ReasoningText(w::ReasoningText {
                text: text.unwrap_or_default(),
                signature: view.signature.map(str::to_owned),
                extra: ctx.extra(&r.meta.vendor, w::ReasoningText::FIELDS, pat),
            }),
        ));
    } else {
        let _ = ctx.vendor_fields(&r.meta.vendor, pat);
    }
}

fn encode_call(c: ToolCall, pat: &str, ctx: &mut Ctx<'_>) -> w::ToolUseBlock {
    let arguments = match util::raw_object(c.arguments) {
        Ok(raw) => {
            return w::ToolUseBlock {
                tool_use_id: c.id,
                name: c.name,
                input: MaybeRaw::Raw(raw),
                kind: None,
                extra: ctx.extra(&c.meta.vendor, w::ToolUseBlock::FIELDS, pat),
            };
        }
        Err(arguments) => arguments,
    };
    let at = format!("{pat}/arguments");
    let empty = matches!(&arguments, Arguments::Text(t) if t.trim().is_empty());
    let value = match arguments {
        Arguments::Value(v) => Ok(v),
        Arguments::Text(t) if t.trim().is_empty() => Ok(Value::Null),
        Arguments::Text(t) => serde_json::from_str::<Value>(&t).map_err(|_| t),
    };
    let input = match value {
        Err(text) => {
            ctx.loss(
                at,
                LossKind::Changed,
                "the arguments are not valid JSON: sent as {\"invalid_json\": <text>} (bedrock takes an object)",
            );
            json!({ "invalid_json": text })
        }
        // Calls to a tool with a non-object schema were wrapped before encoding
        // (`passes::wrap_non_object_calls`).
        Ok(Value::Object(m)) => Value::Object(m),
        Ok(Value::Null) if empty => Value::Object(Map::new()),
        Ok(Value::Null) => {
            ctx.loss(
                at,
                LossKind::Changed,
                "null arguments are sent as {} (bedrock takes an object)",
            );
            Value::Object(Map::new())
        }
        Ok(other) => {
            ctx.loss(
                at,
                LossKind::Changed,
                "the arguments are not a JSON object: sent as {\"value\": …} (bedrock takes an object)",
            );
            json!({ "value": other })
        }
    };
    w::ToolUseBlock {
        tool_use_id: c.id,
        name: c.name,
        input: MaybeRaw::Parsed(input),
        kind: None,
        extra: ctx.extra(&c.meta.vendor, w::ToolUseBlock::FIELDS, pat),
    }
}

fn encode_result(r: ToolResult, pat: &str, env: &mut Env, ctx: &mut Ctx<'_>) -> w::ToolResultBlock {
    let mut fields = ctx.vendor_fields(&r.meta.vendor, pat);
    let status_field = fields
        .shift_remove("status")
        .and_then(|s| s.as_str().map(w::ToolResultStatus::from));
    let mut content = Vec::with_capacity(r.content.len());
    for (k, p) in r.content.into_iter().enumerate() {
        let cpat = format!("{pat}/content/{k}");
        if p.meta().cache.is_some() {
            ctx.loss(
                format!("{cpat}/cache"),
                LossKind::Dropped,
                "bedrock has no cache point inside a tool result",
            );
        }
        let _ = ctx.own(
            p.meta().signature.as_ref(),
            format_args!("{cpat}/signature"),
            "a reasoning signature",
        );
        match p {
            Part::Text(t) => {
                if text_ok(&t, &cpat, ctx) {
                    let _ = ctx.vendor_fields(&t.meta.vendor, &cpat);
                    content.push(w::ToolResultContentBlock::Text(t.text));
                }
            }
            Part::Refusal(t) => {
                ctx.loss(
                    cpat.clone(),
                    LossKind::Changed,
                    "bedrock has no refusal part: sent as text",
                );
                content.push(w::ToolResultContentBlock::Text(t.text));
            }
            Part::Json(j) => {
                let _ = ctx.vendor_fields(&j.meta.vendor, &cpat);
                content.push(w::ToolResultContentBlock::Json(j.value));
            }
            Part::Image(m) => {
                if let Some(b) = encode_image(m, &cpat, ctx) {
                    content.push(w::ToolResultContentBlock::Image(b));
                }
            }
            Part::Document(m) => match encode_document(m, &cpat, env, ctx) {
                Some(Doc::Document(d)) => content.push(w::ToolResultContentBlock::Document(d)),
                Some(Doc::Video(vb)) => content.push(w::ToolResultContentBlock::Video(vb)),
                None => {}
            },
            Part::Opaque(o) if o.format == F => match serde_json::from_value(o.value) {
                Ok(b) => content.push(b),
                Err(e) => ctx.loss(
                    cpat,
                    LossKind::Dropped,
                    format!("not a bedrock tool-result block: {e}"),
                ),
            },
            Part::Opaque(o) => {
                if let Some(Part::Text(t)) = opaque_elsewhere(ctx, &o, &cpat) {
                    content.push(w::ToolResultContentBlock::Text(t.text));
                }
            }
            Part::Audio(_) => ctx.loss(
                cpat,
                LossKind::Dropped,
                "bedrock tool results carry no audio",
            ),
            other => ctx.loss(
                cpat,
                LossKind::Dropped,
                format!(
                    "a {} part has no place in a bedrock tool result",
                    other.kind()
                ),
            ),
        }
    }
    // Always a status (the agent step reads it), except where a bedrock source had none.
    let status = if r.is_error {
        Some(w::ToolResultStatus::Error)
    } else if status_field.is_some() {
        status_field
    } else if r.meta.vendor.flag(F, "no_status") {
        None
    } else {
        Some(w::ToolResultStatus::Success)
    };
    if r.is_error && content.is_empty() {
        ctx.loss(
            format!("{pat}/content"),
            LossKind::Changed,
            "bedrock rejects an error result without content: a text block `Error` added",
        );
        content.push(w::ToolResultContentBlock::Text("Error".to_owned()));
    }
    w::ToolResultBlock {
        tool_use_id: r.call_id,
        content,
        status,
        kind: None,
        extra: extra_from(fields, &r.meta.vendor, w::ToolResultBlock::FIELDS, ctx),
    }
}

/// A media source: bytes or S3. A URL (other than `s3://` and `data:`) or a file id of
/// another provider is dropped with a loss: Converse never fetches, and nothing is
/// fetched here either.
fn encode_source(
    src: Source,
    fields: &mut Map<String, Value>,
    text: bool,
    what: &str,
    pat: &str,
    ctx: &mut Ctx<'_>,
) -> Option<w::Source> {
    match src {
        Source::Base64 { data } => Some(w::Source::Bytes(data)),
        Source::Url { url } if url.starts_with("s3://") => {
            Some(w::Source::S3Location(w::S3Location {
                uri: url,
                bucket_owner: fields
                    .shift_remove("bucketOwner")
                    .and_then(|o| o.as_str().map(str::to_owned)),
                extra: Extra::new(),
            }))
        }
        Source::Url { url } => match parse_data_url(&url) {
            Some((_, data)) => Some(w::Source::Bytes(data)),
            None => {
                ctx.loss(
                    pat.to_owned(),
                    LossKind::Dropped,
                    format!(
                        "bedrock takes {what} as bytes or an S3 location, not a URL ({url}); nothing is fetched"
                    ),
                );
                None
            }
        },
        Source::FileId { file_id } => {
            ctx.loss(
                pat.to_owned(),
                LossKind::Dropped,
                format!(
                    "bedrock takes {what} as bytes or an S3 location, not a file id (`{file_id}`)"
                ),
            );
            None
        }
        Source::Text { text: t } if text => Some(w::Source::Text(t)),
        Source::Text { .. } => {
            ctx.loss(
                pat.to_owned(),
                LossKind::Dropped,
                format!("bedrock has no {what} given as text"),
            );
            None
        }
    }
}

/// The Converse format of a media part: the source's own (hint `format`), else the one
/// its media type names, else the one its bytes show.
fn media_format(
    m: &Media,
    table: &[(&'static str, &'static str)],
    sniff: fn(&str) -> Option<&'static str>,
) -> Option<String> {
    if let Some(f) = m.meta.vendor.hint(F, "format").and_then(Value::as_str) {
        return Some(f.to_owned());
    }
    m.media_type
        .as_deref()
        .and_then(|t| format_of(table, t))
        .or_else(|| match &m.source {
            Source::Base64 { data } => sniff(data),
            _ => None,
        })
        .map(str::to_owned)
}

fn no_sniff(_: &str) -> Option<&'static str> {
    None
}

fn sniff_pdf(b64: &str) -> Option<&'static str> {
    b64.starts_with("JVBERi0").then_some("pdf")
}

fn unsupported(media_type: Option<&str>, pat: &str, what: &str, formats: &str, ctx: &mut Ctx<'_>) {
    ctx.loss(
        pat.to_owned(),
        LossKind::Dropped,
        format!(
            "bedrock {what} are {formats}; {}",
            match media_type {
                Some(t) => format!("`{t}` is not one of them"),
                None => "this one has no media type".to_owned(),
            }
        ),
    );
}

fn name_dropped(name: &Option<String>, pat: &str, what: &str, ctx: &mut Ctx<'_>) {
    if name.is_some() {
        ctx.loss(
            format!("{pat}/name"),
            LossKind::Dropped,
            format!("bedrock {what} have no name"),
        );
    }
}

fn encode_image(m: Media, pat: &str, ctx: &mut Ctx<'_>) -> Option<w::ImageBlock> {
    let format = media_format(&m, IMAGE_TYPES, sniff_image);
    let mut fields = ctx.vendor_fields(&m.meta.vendor, pat);
    let source = encode_source(m.source, &mut fields, false, "images", pat, ctx)?;
    let Some(format) = format else {
        unsupported(
            m.media_type.as_deref(),
            pat,
            "images",
            "png, jpeg, gif or webp",
            ctx,
        );
        return None;
    };
    name_dropped(&m.name, pat, "images", ctx);
    let error = fields.shift_remove("error");
    Some(w::ImageBlock {
        format: w::ImageFormat::from(format),
        source,
        error,
        extra: extra_from(fields, &m.meta.vendor, w::ImageBlock::FIELDS, ctx),
    })
}

fn encode_audio(m: Media, pat: &str, ctx: &mut Ctx<'_>) -> Option<w::AudioBlock> {
    let format = media_format(&m, AUDIO_TYPES, no_sniff);
    let mut fields = ctx.vendor_fields(&m.meta.vendor, pat);
    let source = encode_source(m.source, &mut fields, false, "audio", pat, ctx)?;
    let Some(format) = format else {
        unsupported(
            m.media_type.as_deref(),
            pat,
            "audio clips",
            "mp3, opus, wav, aac, flac, mp4, ogg, mkv, mka, x-aac, m4a, mpeg, mpga, pcm or webm",
            ctx,
        );
        return None;
    };
    name_dropped(&m.name, pat, "audio clips", ctx);
    let error = fields.shift_remove("error");
    Some(w::AudioBlock {
        format: w::AudioFormat::from(format),
        source,
        error,
        extra: extra_from(fields, &m.meta.vendor, w::AudioBlock::FIELDS, ctx),
    })
}

enum Doc {
    Document(w::DocumentBlock),
    Video(w::VideoBlock),
}

fn encode_document(m: Media, pat: &str, env: &mut Env, ctx: &mut Ctx<'_>) -> Option<Doc> {
    let video = m
        .media_type
        .as_deref()
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("video/"));
    if video {
        let format = media_format(&m, VIDEO_TYPES, no_sniff);
        let mut fields = ctx.vendor_fields(&m.meta.vendor, pat);
        let source = encode_source(m.source, &mut fields, false, "videos", pat, ctx)?;
        let Some(format) = format else {
            unsupported(
                m.media_type.as_deref(),
                pat,
                "videos",
                "mkv, mov, mp4, webm, flv, mpeg, mpg, wmv or three_gp",
                ctx,
            );
            return None;
        };
        name_dropped(&m.name, pat, "videos", ctx);
        return Some(Doc::Video(w::VideoBlock {
            format: w::VideoFormat::from(format),
            source,
            extra: extra_from(fields, &m.meta.vendor, w::VideoBlock::FIELDS, ctx),
        }));
    }

    let v = &m.meta.vendor;
    let known = media_format(&m, DOC_TYPES, sniff_pdf);
    let text_source = matches!(m.source, Source::Text { .. });
    let mut fields = ctx.vendor_fields(v, pat);
    let source = encode_source(m.source, &mut fields, true, "documents", pat, ctx)?;
    let format = if v.flag(F, "no_format") {
        None
    } else if known.is_some() {
        known
    } else {
        match &m.media_type {
            Some(t) if t.to_ascii_lowercase().starts_with("text/") => {
                ctx.loss(
                    format!("{pat}/media_type"),
                    LossKind::Changed,
                    format!("bedrock has no `{t}` document format: sent as txt"),
                );
                Some("txt".to_owned())
            }
            // The format is optional for a text source.
            _ if text_source => None,
            _ => {
                unsupported(
                    m.media_type.as_deref(),
                    pat,
                    "documents",
                    "pdf, csv, doc, docx, xls, xlsx, html, txt or md",
                    ctx,
                );
                return None;
            }
        }
    };
    let name = match m.name {
        Some(n) if valid_doc_name(&n) || v.flag(F, "raw_name") => n,
        Some(n) => {
            let mut d = doc_name(&n);
            if d.is_empty() {
                env.unnamed += 1;
                d = format!("Document {}", env.unnamed);
            }
            ctx.loss(
                format!("{pat}/name"),
                LossKind::Changed,
                format!(
                    "bedrock document names hold letters, digits, single spaces, hyphens, parentheses and square brackets: `{n}` sent as `{d}`"
                ),
            );
            d
        }
        None => {
            env.unnamed += 1;
            let d = format!("Document {}", env.unnamed);
            ctx.loss(
                format!("{pat}/name"),
                LossKind::Changed,
                format!("bedrock documents need a name: named `{d}`"),
            );
            d
        }
    };
    let context = fields
        .shift_remove("context")
        .and_then(|c| c.as_str().map(str::to_owned));
    let citations = take_field(&mut fields, "citations");
    Some(Doc::Document(w::DocumentBlock {
        format: format.map(w::DocumentFormat::from),
        name,
        source,
        context,
        citations,
        extra: extra_from(fields, &m.meta.vendor, w::DocumentBlock::FIELDS, ctx),
    }))
}

/// Whether a document name keeps to the documented charset: letters, digits, hyphens,
/// parentheses, square brackets, and whitespace no more than one in a row.
fn valid_doc_name(n: &str) -> bool {
    !n.is_empty()
        && !n.contains("  ")
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '(' | ')' | '[' | ']'))
}

/// A valid document name from a file name: the extension cut, every other character a
/// space, runs of spaces one space, no space at either end (empty if nothing is left).
fn doc_name(n: &str) -> String {
    let stem = match n.rsplit_once('.') {
        Some((s, ext))
            if !s.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            s
        }
        _ => n,
    };
    let mut out = String::with_capacity(stem.len());
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') {
            c
        } else {
            ' '
        };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end().to_owned()
}

/// Encodes a neutral response as a Converse response.
pub fn encode_response(resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    let v = resp.vendor;
    let mut fields = ctx.vendor_fields(&v, "");
    if resp.id.is_some() {
        ctx.loss("/id", LossKind::Dropped, "bedrock responses have no id");
    }
    if resp.created.is_some() {
        ctx.loss(
            "/created",
            LossKind::Dropped,
            "bedrock responses carry no creation time",
        );
    }
    if resp.model.is_some() {
        ctx.loss(
            "/model",
            LossKind::Dropped,
            "bedrock responses do not name the model",
        );
    }
    let mut env = Env::default();
    let mut choices = resp.choices.into_iter();
    let (output, stop) = match choices.next() {
        Some(c) => {
            let _ = ctx.vendor_fields(&c.vendor, "/choices/0");
            let at = "/choices/0/message";
            let m = c.message;
            let role = m
                .vendor
                .hint(F, "role")
                .and_then(Value::as_str)
                .map(w::Role::from)
                .unwrap_or(w::Role::Assistant);
            if m.role != Role::Assistant {
                ctx.loss(
                    format!("{at}/role"),
                    LossKind::Changed,
                    format!("a {} message written as the assistant's", m.role.name()),
                );
            }
            let calls = m.content.iter().any(|p| matches!(p, Part::ToolCall(_)));
            let extra = ctx.extra(&m.vendor, w::Message::FIELDS, at);
            let content = encode_content(m.content, Role::Assistant, &m.vendor, at, &mut env, ctx);
            let stop = match c.stop_reason {
                Some(r) => encode_stop(&r, "/choices/0/stop_reason", ctx),
                None if calls => w::StopReason::ToolUse,
                None => w::StopReason::EndTurn,
            };
            (
                w::Output::Message(w::Message {
                    role,
                    content,
                    extra,
                }),
                stop,
            )
        }
        None => {
            let output = take_field(&mut fields, "output").unwrap_or_else(|| {
                w::Output::Message(w::Message {
                    role: w::Role::Assistant,
                    content: Vec::new(),
                    extra: Extra::new(),
                })
            });
            let stop = fields
                .shift_remove("stopReason")
                .and_then(|s| s.as_str().map(w::StopReason::from))
                .unwrap_or(w::StopReason::EndTurn);
            (output, stop)
        }
    };
    for (i, _) in choices.enumerate() {
        ctx.loss(
            format!("/choices/{}", i + 1),
            LossKind::Dropped,
            "a bedrock response holds one message",
        );
    }
    let usage = match resp.usage {
        Some(u) => Some(encode_usage(u, ctx)),
        None if v.flag(F, "no_usage") => None,
        None => {
            ctx.loss(
                "/usage",
                LossKind::Changed,
                "bedrock responses carry usage and the source has none: zeros written",
            );
            Some(w::Usage::default())
        }
    };
    let metrics = match take_field(&mut fields, "metrics") {
        Some(m) => Some(m),
        None if v.flag(F, "no_metrics") => None,
        None => Some(w::Metrics::default()),
    };
    Ok(w::Response {
        output,
        stop_reason: stop,
        usage,
        metrics,
        additional_model_response_fields: take_field(&mut fields, "additionalModelResponseFields"),
        trace: take_field(&mut fields, "trace"),
        performance_config: take_field(&mut fields, "performanceConfig"),
        service_tier: take_field(&mut fields, "serviceTier"),
        extra: extra_from(fields, &v, w::Response::FIELDS, ctx),
    })
}

fn encode_stop(r: &StopReason, at: &str, ctx: &mut Ctx<'_>) -> w::StopReason {
    if let Some(raw) = r.raw_for(F) {
        return w::StopReason::from(raw);
    }
    let (stop, lossy) = match r.kind {
        StopKind::EndTurn => (w::StopReason::EndTurn, false),
        StopKind::StopSequence => (w::StopReason::StopSequence, false),
        StopKind::MaxTokens => (w::StopReason::MaxTokens, false),
        StopKind::ToolUse => (w::StopReason::ToolUse, false),
        StopKind::ContentFilter => (w::StopReason::ContentFiltered, false),
        StopKind::Error => (w::StopReason::MalformedModelOutput, r.raw.is_some()),
        StopKind::Pause | StopKind::Other => (w::StopReason::EndTurn, true),
    };
    if lossy {
        ctx.loss(
            at.to_owned(),
            LossKind::Changed,
            format!(
                "stop reason `{}` has no bedrock equivalent: written as `{}`",
                r.raw.as_deref().unwrap_or("other"),
                stop.as_str()
            ),
        );
    }
    stop
}

fn encode_usage(u: Usage, ctx: &mut Ctx<'_>) -> w::Usage {
    let mut fields = ctx.vendor_fields(&u.vendor, "/usage");
    if let Some(Value::Object(quiet)) = u.vendor.hint(F, "quiet") {
        for (k, x) in quiet {
            fields.insert(k.clone(), x.clone());
        }
    }
    let zero = |key: &str| {
        u.vendor
            .hint(F, "zeros")
            .and_then(Value::as_array)
            .is_some_and(|z| z.iter().any(|x| x == key))
            .then_some(0)
    };
    let read = u
        .cached_input_tokens
        .or_else(|| zero("cacheReadInputTokens"));
    let write = u
        .cache_write_tokens
        .or_else(|| zero("cacheWriteInputTokens"));
    let input = u.input_tokens.unwrap_or_else(|| {
        ctx.loss(
            "/usage/input_tokens",
            LossKind::Changed,
            "bedrock requires inputTokens and the source has none: 0 written",
        );
        0
    });
    let output = u.output_tokens.unwrap_or_else(|| {
        ctx.loss(
            "/usage/output_tokens",
            LossKind::Changed,
            "bedrock requires outputTokens and the source has none: 0 written",
        );
        0
    });
    if u.reasoning_tokens.is_some_and(|n| n > 0) {
        ctx.loss(
            "/usage/reasoning_tokens",
            LossKind::Dropped,
            "bedrock usage has no reasoning-token count (they are part of outputTokens)",
        );
    }
    let cache_details = take_field(&mut fields, "cacheDetails");
    w::Usage {
        input_tokens: input
            .saturating_sub(read.unwrap_or(0))
            .saturating_sub(write.unwrap_or(0)),
        output_tokens: output,
        total_tokens: u.total_tokens.unwrap_or(input.saturating_add(output)),
        cache_read_input_tokens: read,
        cache_write_input_tokens: write,
        cache_details,
        extra: extra_from(fields, &u.vendor, w::Usage::FIELDS, ctx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn req(body: Value) -> (model::Request, Vec<crate::Loss>) {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let typed: w::Request = wire_types::from_value(&body).unwrap();
        let out = decode_request(typed, &mut ctx).unwrap();
        (out, ctx.take_losses())
    }

    fn enc(r: model::Request) -> (Value, Vec<crate::Loss>) {
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        let out = encode_request(r, &mut ctx).unwrap();
        (wire_types::to_value(&out), ctx.take_losses())
    }

    #[test]
    fn stop_reasons_map_to_kinds_and_back() {
        let cases = [
            ("end_turn", StopKind::EndTurn),
            ("stop_sequence", StopKind::StopSequence),
            ("max_tokens", StopKind::MaxTokens),
            ("model_context_window_exceeded", StopKind::MaxTokens),
            ("tool_use", StopKind::ToolUse),
            ("guardrail_intervened", StopKind::ContentFilter),
            ("content_filtered", StopKind::ContentFilter),
            ("malformed_model_output", StopKind::Error),
            ("malformed_tool_use", StopKind::Error),
            ("brand_new_reason", StopKind::Other),
        ];
        let opts = Options::default();
        for (raw, kind) in cases {
            let r = stop_reason(&w::StopReason::from(raw));
            assert_eq!(r.kind, kind, "{raw}");
            let mut ctx = Ctx::new(F, &opts);
            assert_eq!(encode_stop(&r, "", &mut ctx).as_str(), raw);
            assert!(ctx.losses().is_empty());
        }
        // From another format: by kind.
        let mut ctx = Ctx::new(F, &opts);
        let pause = StopReason {
            kind: StopKind::Pause,
            raw: Some("pause_turn".into()),
            format: Some(Format::Anthropic),
        };
        assert_eq!(encode_stop(&pause, "/x", &mut ctx).as_str(), "end_turn");
        assert_eq!(ctx.losses().len(), 1);
        let filter = StopReason {
            kind: StopKind::ContentFilter,
            raw: Some("SAFETY".into()),
            format: Some(Format::Gemini),
        };
        assert_eq!(
            encode_stop(&filter, "/x", &mut ctx).as_str(),
            "content_filtered"
        );
        assert_eq!(ctx.losses().len(), 1);
    }

    #[test]
    fn usage_input_counts_cache_reads_and_writes() {
        // inputTokens excludes cached tokens: 412 + 2048 read + 16 written = 2476.
        let u: w::Usage = wire_types::from_value(&json!({
            "inputTokens": 412, "outputTokens": 118, "totalTokens": 2594,
            "cacheReadInputTokens": 2048, "cacheWriteInputTokens": 16
        }))
        .unwrap();
        let n = decode_usage(u.clone());
        assert_eq!(n.input_tokens, Some(2476));
        assert_eq!(n.cached_input_tokens, Some(2048));
        assert_eq!(n.cache_write_tokens, Some(16));
        assert_eq!(n.total_tokens, Some(2594));
        let opts = Options::default();
        let mut ctx = Ctx::new(F, &opts);
        assert_eq!(encode_usage(n, &mut ctx), u);
        // OpenAI-style usage (input includes cached): 1000 in, 600 cached, 50 out.
        let oa = Usage {
            input_tokens: Some(1000),
            output_tokens: Some(50),
            cached_input_tokens: Some(600),
            ..Default::default()
        };
        let b = encode_usage(oa, &mut ctx);
        assert_eq!(
            (
                b.input_tokens,
                b.cache_read_input_tokens,
                b.output_tokens,
                b.total_tokens
            ),
            (400, Some(600), 50, 1050)
        );
    }

    #[test]
    fn results_are_put_in_call_order_and_written_back_in_source_order() {
        let body = json!({"messages": [
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "a", "name": "f", "input": {}}},
                {"toolUse": {"toolUseId": "b", "name": "g", "input": {}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "b", "content": [{"text": "B"}]}},
                {"cachePoint": {"type": "default"}},
                {"toolResult": {"toolUseId": "a", "content": [{"text": "A"}]}},
                {"text": "and now?"}]}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}});
        let (n, losses) = req(body.clone());
        assert!(losses.is_empty());
        let tool = &n.messages[2];
        assert_eq!(tool.role, Role::Tool);
        let ids: Vec<&str> = tool
            .content
            .iter()
            .map(|p| match p {
                Part::ToolResult(r) => r.call_id.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(tool.vendor.hint(F, "order"), Some(&json!([1, 0])));
        // The cache point follows `b`'s result.
        assert!(tool.content[1].meta().cache.is_some());
        assert_eq!(n.messages[3].role, Role::User);
        let (back, losses) = enc(n);
        assert!(losses.is_empty(), "{losses:?}");
        assert_eq!(back, body);
    }

    #[test]
    fn same_role_runs_merge_with_a_loss_except_results_then_user() {
        let r = model::Request {
            messages: vec![
                Message::text(Role::System, "be brief"),
                Message::text(Role::User, "a"),
                Message::text(Role::User, "b"),
                Message::new(
                    Role::Assistant,
                    vec![Part::ToolCall(ToolCall {
                        id: "c1".into(),
                        synthetic_id: false,
                        name: "f".into(),
                        arguments: Arguments::Text("[1,2]".into()),
                        meta: PartMeta::default(),
                    })],
                ),
                Message::new(
                    Role::Tool,
                    vec![Part::ToolResult(ToolResult {
                        call_id: "c1".into(),
                        name: Some("f".into()),
                        content: vec![],
                        is_error: true,
                        meta: PartMeta::default(),
                    })],
                ),
                Message::text(Role::User, "next"),
                Message::text(Role::System, "late"),
            ],
            tool_choice: Some(ToolChoice::None),
            ..Default::default()
        };
        let (out, losses) = enc(r);
        assert_eq!(
            out,
            json!({
                "messages": [
                    {"role": "user", "content": [{"text": "a"}, {"text": "b"}]},
                    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c1", "name": "f", "input": {"value": [1, 2]}}}]},
                    {"role": "user", "content": [
                        {"toolResult": {"toolUseId": "c1", "content": [{"text": "Error"}], "status": "error"}},
                        {"text": "next"}]}],
                "system": [{"text": "be brief"}, {"text": "late"}],
                "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object", "properties": {}}}}}]}
            })
        );
        let paths: Vec<(&str, LossKind)> =
            losses.iter().map(|l| (l.path.as_str(), l.kind)).collect();
        assert_eq!(
            paths,
            [
                ("/messages/2", LossKind::Changed),
                ("/messages/3/content/0/arguments", LossKind::Changed),
                ("/messages/4/content/0/content", LossKind::Changed),
                ("/messages/6", LossKind::Moved),
                ("/tool_choice", LossKind::Dropped),
                ("/tools", LossKind::Changed),
            ]
        );
    }

    #[test]
    fn other_formats_are_written_with_their_losses() {
        let media = |source, media_type: Option<&str>, name: Option<&str>| Media {
            source,
            media_type: media_type.map(str::to_owned),
            name: name.map(str::to_owned),
            meta: PartMeta::default(),
        };
        let r = model::Request {
            model: Some("us.anthropic.claude-sonnet-4-20250514-v1:0".into()),
            messages: vec![
                Message::new(
                    Role::User,
                    vec![
                        Part::text("Look:"),
                        Part::Image(media(
                            Source::Url {
                                url: "https://example.com/cat.png".into(),
                            },
                            Some("image/png"),
                            None,
                        )),
                        Part::Document(media(
                            Source::Base64 {
                                data: "JVBERi0xLjQK".into(),
                            },
                            None,
                            None,
                        )),
                        Part::text("   "),
                    ],
                ),
                Message::new(
                    Role::Assistant,
                    vec![
                        Part::Reasoning(Reasoning {
                            text: Some("thinking…".into()),
                            signature: Some(Signed {
                                value: "c2ln".into(),
                                format: Format::Gemini,
                            }),
                            source: Some(Format::Gemini),
                            ..Default::default()
                        }),
                        Part::text("Done."),
                    ],
                ),
            ],
            tools: vec![Tool::Function(ToolDef::new(
                "f",
                "F",
                json!({"type": "object"}),
            ))],
            tool_choice: Some(ToolChoice::None),
            settings: Settings {
                top_k: Some(5),
                parallel_tool_calls: Some(false),
                reasoning: Some(ReasoningConfig {
                    effort: Some("high".into()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let (out, losses) = enc(r);
        assert_eq!(
            out,
            json!({
                "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0",
                "messages": [
                    {"role": "user", "content": [
                        {"text": "Look:"},
                        {"document": {"format": "pdf", "name": "Document 1", "source": {"bytes": "JVBERi0xLjQK"}}}]},
                    {"role": "assistant", "content": [
                        {"text": "Done."}]}],
                "additionalModelRequestFields": {"top_k": 5, "thinking": {"type": "enabled", "budget_tokens": 16384}}
            })
        );
        let paths: Vec<(&str, LossKind)> =
            losses.iter().map(|l| (l.path.as_str(), l.kind)).collect();
        assert_eq!(
            paths,
            [
                ("/messages/0/content/1", LossKind::Dropped),
                ("/messages/0/content/2/name", LossKind::Changed),
                ("/messages/0/content/3", LossKind::Dropped),
                ("/messages/1/content/0/signature", LossKind::Dropped),
                ("/messages/1/content/0", LossKind::Dropped),
                ("/tool_choice", LossKind::Changed),
                ("/tools/0", LossKind::Dropped),
                ("/settings/parallel_tool_calls", LossKind::Dropped),
                ("/settings/top_k", LossKind::Changed),
                ("/settings/reasoning", LossKind::Changed),
            ]
        );
    }

    fn paths(losses: &[crate::Loss]) -> Vec<(&str, LossKind)> {
        losses.iter().map(|l| (l.path.as_str(), l.kind)).collect()
    }

    #[test]
    fn a_forced_tool_choice_with_thinking_is_sent_as_auto_unless_the_request_is_bedrocks_own() {
        let tool = json!({"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {}}}});
        for (choice, what) in [
            (json!("required"), "`any`"),
            (
                json!({"type": "function", "function": {"name": "get_weather"}}),
                "forcing the tool `get_weather`",
            ),
        ] {
            let body = json!({"model": "m", "reasoning_effort": "high", "tool_choice": choice,
                "tools": [tool], "messages": [{"role": "user", "content": "Weather?"}]});
            let out =
                crate::convert_request_value(&body, Format::OpenaiChat, F, &Options::default())
                    .unwrap();
            assert_eq!(
                out.value["additionalModelRequestFields"]["thinking"]["type"],
                "enabled"
            );
            assert_eq!(out.value["toolConfig"]["toolChoice"], json!({"auto": {}}));
            let l: Vec<_> = out
                .losses
                .iter()
                .filter(|l| l.path == "/tool_choice" && l.detail.contains(what))
                .collect();
            assert_eq!(l.len(), 1, "{:?}", out.losses);
            assert_eq!(l[0].kind, LossKind::Changed);
            // Without thinking the choice stays forced.
            let mut plain = body.clone();
            plain.as_object_mut().unwrap().remove("reasoning_effort");
            let out =
                crate::convert_request_value(&plain, Format::OpenaiChat, F, &Options::default())
                    .unwrap();
            assert_ne!(out.value["toolConfig"]["toolChoice"], json!({"auto": {}}));
        }
        // Bedrock's own request is written back as it came.
        let own = json!({"modelId": "m", "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}],
                "toolChoice": {"any": {}}},
            "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}});
        let out = crate::convert_request_value(&own, F, F, &Options::default()).unwrap();
        assert_eq!(out.value, own);
    }

    fn call(id: &str) -> Part {
        Part::ToolCall(ToolCall {
            id: id.into(),
            synthetic_id: false,
            name: "f".into(),
            arguments: Arguments::Value(json!({})),
            meta: PartMeta::default(),
        })
    }

    fn result(id: &str, is_error: bool) -> Part {
        Part::ToolResult(ToolResult {
            call_id: id.into(),
            name: Some("f".into()),
            content: vec![Part::text("42")],
            is_error,
            meta: PartMeta::default(),
        })
    }

    fn with_settings(messages: Vec<Message>, settings: Settings) -> model::Request {
        model::Request {
            model: Some("m".into()),
            messages,
            tools: vec![Tool::Function(ToolDef::new(
                "f",
                "F",
                json!({"type": "object"}),
            ))],
            settings,
            ..Default::default()
        }
    }

    #[test]
    fn reasoning_without_a_bedrock_token_is_sent_only_when_bedrock_made_it() {
        let reasoning = |source: Option<Format>, signature: Option<Signed>| {
            Part::Reasoning(Reasoning {
                text: Some("step by step".into()),
                signature,
                source,
                ..Default::default()
            })
        };
        let bedrock_sig = Signed {
            value: "c2ln".into(),
            format: F,
        };
        let r = with_settings(
            vec![
                Message::text(Role::User, "hi"),
                Message::new(
                    Role::Assistant,
                    vec![
                        // Foreign and unsigned: dropped.
                        reasoning(Some(Format::OpenaiResponses), None),
                        // Unknown provider: dropped.
                        reasoning(None, None),
                        // Bedrock's own, unsigned (another model family): kept.
                        reasoning(Some(F), None),
                        // Bedrock-signed: kept with its signature.
                        reasoning(Some(F), Some(bedrock_sig)),
                        Part::text("Done."),
                    ],
                ),
            ],
            Settings::default(),
        );
        let (out, losses) = enc(r);
        assert_eq!(
            out["messages"][1]["content"],
            json!([
                {"reasoningContent": {"reasoningText": {"text": "step by step"}}},
                {"reasoningContent": {"reasoningText": {"text": "step by step", "signature": "c2ln"}}},
                {"text": "Done."}
            ])
        );
        assert_eq!(
            paths(&losses),
            [
                ("/messages/1/content/0", LossKind::Dropped),
                ("/messages/1/content/1", LossKind::Dropped)
            ]
        );
        assert!(losses[0].detail.contains("from openai-responses"));
    }

    #[test]
    fn thinking_is_not_switched_on_in_an_open_tool_loop_without_reasoning() {
        let thinking = Settings {
            max_tokens: Some(8192),
            reasoning: Some(ReasoningConfig {
                enabled: Some(true),
                budget_tokens: Some(2048),
                ..Default::default()
            }),
            ..Default::default()
        };
        let foreign = Part::Reasoning(Reasoning {
            text: Some("call f".into()),
            source: Some(Format::Gemini),
            ..Default::default()
        });
        let own = Part::Reasoning(Reasoning {
            text: Some("call f".into()),
            signature: Some(Signed {
                value: "c2ln".into(),
                format: F,
            }),
            source: Some(F),
            ..Default::default()
        });
        let conversation = |reasoning: Option<Part>, then_user: bool| {
            let mut assistant: Vec<Part> = reasoning.into_iter().collect();
            assistant.push(call("c1"));
            let mut m = vec![
                Message::text(Role::User, "hi"),
                Message::new(Role::Assistant, assistant),
                Message::new(Role::Tool, vec![result("c1", false)]),
            ];
            if then_user {
                m.push(Message::text(Role::User, "and?"));
            }
            m
        };

        // Foreign reasoning is dropped: nothing to send back, thinking stays off.
        let (out, losses) = enc(with_settings(
            conversation(Some(foreign), false),
            thinking.clone(),
        ));
        assert_eq!(out.get("additionalModelRequestFields"), None);
        assert_eq!(out["inferenceConfig"], json!({"maxTokens": 8192}));
        assert_eq!(
            paths(&losses),
            [
                ("/messages/1/content/0", LossKind::Dropped),
                ("/settings/reasoning", LossKind::Changed)
            ]
        );
        assert!(losses[1].detail.contains("not switched on"));

        // No reasoning at all: the same.
        let (out, losses) = enc(with_settings(conversation(None, false), thinking.clone()));
        assert_eq!(out.get("additionalModelRequestFields"), None);
        assert_eq!(paths(&losses), [("/settings/reasoning", LossKind::Changed)]);

        // Its own signed reasoning first, or a user message after the results: thinking on.
        let on = json!({"thinking": {"type": "enabled", "budget_tokens": 2048}});
        let (out, _) = enc(with_settings(
            conversation(Some(own), false),
            thinking.clone(),
        ));
        assert_eq!(out["additionalModelRequestFields"], on);
        let (out, _) = enc(with_settings(conversation(None, true), thinking.clone()));
        assert_eq!(out["additionalModelRequestFields"], on);

        // Switching thinking off is allowed.
        let off = Settings {
            reasoning: Some(ReasoningConfig {
                enabled: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        };
        let (out, _) = enc(with_settings(conversation(None, false), off));
        assert_eq!(
            out["additionalModelRequestFields"],
            json!({"thinking": {"type": "disabled"}})
        );

        // A bedrock source with the shape is written back as it was.
        let body = json!({
            "modelId": "m",
            "messages": [
                {"role": "user", "content": [{"text": "hi"}]},
                {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}}]},
                {"role": "user", "content": [{"toolResult": {"toolUseId": "c1", "content": [{"text": "42"}]}}]}
            ],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]},
            "inferenceConfig": {"maxTokens": 1024},
            "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}
        });
        let out = crate::convert_request_value(&body, F, F, &crate::Options::default()).unwrap();
        assert_eq!(out.value, body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    #[test]
    fn a_budget_not_below_max_tokens_raises_max_tokens() {
        let settings = |max_tokens, reasoning| Settings {
            max_tokens,
            reasoning: Some(reasoning),
            ..Default::default()
        };
        let budget = |b| ReasoningConfig {
            budget_tokens: Some(b),
            ..Default::default()
        };
        let hi = || vec![Message::text(Role::User, "hi")];

        let (out, losses) = enc(with_settings(hi(), settings(Some(200), budget(2048))));
        assert_eq!(out["inferenceConfig"]["maxTokens"], 2048 + 1024);
        assert_eq!(
            out["additionalModelRequestFields"]["thinking"]["budget_tokens"],
            2048
        );
        assert_eq!(
            paths(&losses),
            [
                ("/settings/reasoning", LossKind::Changed),
                ("/settings/max_tokens", LossKind::Changed)
            ]
        );
        assert!(losses[1].detail.contains("raised from 200 to 3072"));

        // An effort's budget (high: 16384) equal to maxTokens is not below it.
        let effort = ReasoningConfig {
            effort: Some("high".into()),
            ..Default::default()
        };
        let (out, losses) = enc(with_settings(hi(), settings(Some(16384), effort)));
        assert_eq!(out["inferenceConfig"]["maxTokens"], 16384 + 1024);
        assert_eq!(
            paths(&losses)[1],
            ("/settings/max_tokens", LossKind::Changed)
        );

        // Room enough, or no maxTokens (the model's maximum applies): unchanged.
        let (out, losses) = enc(with_settings(hi(), settings(Some(4096), budget(2048))));
        assert_eq!(out["inferenceConfig"]["maxTokens"], 4096);
        assert_eq!(paths(&losses), [("/settings/reasoning", LossKind::Changed)]);
        let (out, _) = enc(with_settings(hi(), settings(None, budget(2048))));
        assert_eq!(out.get("inferenceConfig"), None);

        // Thinking off: no budget to make room for.
        let off = ReasoningConfig {
            enabled: Some(false),
            budget_tokens: Some(2048),
            ..Default::default()
        };
        let (out, _) = enc(with_settings(hi(), settings(Some(200), off)));
        assert_eq!(out["inferenceConfig"]["maxTokens"], 200);

        // A bedrock source with such a budget is written back as it was.
        let body = json!({
            "modelId": "m",
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "inferenceConfig": {"maxTokens": 200},
            "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2048}}
        });
        let out = crate::convert_request_value(&body, F, F, &crate::Options::default()).unwrap();
        assert_eq!(out.value, body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    #[test]
    fn results_of_another_format_always_carry_a_status() {
        let r = with_settings(
            vec![
                Message::text(Role::User, "hi"),
                Message::new(Role::Assistant, vec![call("c1"), call("c2")]),
                Message::new(Role::Tool, vec![result("c1", false), result("c2", true)]),
            ],
            Settings::default(),
        );
        let (out, losses) = enc(r);
        let statuses: Vec<&Value> = out["messages"][2]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| &b["toolResult"]["status"])
            .collect();
        assert_eq!(statuses, [&json!("success"), &json!("error")]);
        assert!(losses.is_empty(), "{losses:?}");

        // Bedrock results keep what they had: no status, success, error.
        let body = json!({
            "modelId": "m",
            "messages": [
                {"role": "user", "content": [{"text": "hi"}]},
                {"role": "assistant", "content": [
                    {"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}},
                    {"toolUse": {"toolUseId": "c2", "name": "f", "input": {}}},
                    {"toolUse": {"toolUseId": "c3", "name": "f", "input": {}}}]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "c1", "content": [{"text": "1"}]}},
                    {"toolResult": {"toolUseId": "c2", "content": [{"text": "2"}], "status": "success"}},
                    {"toolResult": {"toolUseId": "c3", "content": [{"text": "3"}], "status": "error"}}]}
            ],
            "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}
        });
        let out = crate::convert_request_value(&body, F, F, &crate::Options::default()).unwrap();
        assert_eq!(out.value, body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    #[test]
    fn only_the_dropped_keys_of_additional_fields_are_reported() {
        let body = json!({
            "modelId": "m",
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "additionalModelRequestFields": {
                "top_k": 40,
                "anthropic_beta": ["token-efficient-tools-2025-02-19"],
                "thinking": {"type": "enabled", "budget_tokens": 2048},
                "a/b": 1
            }
        });
        let opts = crate::Options::default();
        let out = crate::convert_request_value(&body, F, Format::Gemini, &opts).unwrap();
        let dropped: Vec<&str> = out
            .losses
            .iter()
            .filter(|l| l.path.starts_with("/additionalModelRequestFields"))
            .filter(|l| l.kind == LossKind::Dropped)
            .map(|l| l.path.as_str())
            .collect();
        assert_eq!(
            dropped,
            [
                "/additionalModelRequestFields/anthropic_beta",
                "/additionalModelRequestFields/a~1b"
            ]
        );
        assert!(
            !out.losses
                .iter()
                .any(|l| l.path == "/additionalModelRequestFields"),
            "{:?}",
            out.losses
        );
        // The same format gets every key back, in its order.
        let out = crate::convert_request_value(&body, F, F, &opts).unwrap();
        assert_eq!(out.value, body);
        assert_eq!(
            out.value["additionalModelRequestFields"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["top_k", "anthropic_beta", "thinking", "a/b"]
        );
        assert!(out.losses.is_empty(), "{:?}", out.losses);
    }

    #[test]
    fn usage_that_says_nothing_is_no_loss_elsewhere() {
        let body = json!({
            "output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
            "stopReason": "end_turn",
            "usage": {
                "cacheReadInputTokenCount": 0,
                "cacheReadInputTokens": 0,
                "cacheWriteInputTokenCount": 0,
                "cacheWriteInputTokens": 0,
                "inputTokens": 22,
                "outputTokens": 57,
                "serverToolUsage": {},
                "totalTokens": 79
            },
            "metrics": {"latencyMs": 1}
        });
        let opts = crate::Options::default();
        for to in [Format::OpenaiChat, Format::Gemini, Format::Ollama] {
            let out = crate::convert_response_value(&body, F, to, &opts).unwrap();
            assert!(
                !out.losses.iter().any(|l| l.path.starts_with("/usage")),
                "{to}: {:?}",
                out.losses
            );
        }
        let out = crate::convert_response_value(&body, F, F, &opts).unwrap();
        assert_eq!(out.value, body);
        assert!(out.losses.is_empty(), "{:?}", out.losses);

        // What does say something is still carried or reported.
        let mut busy = body.clone();
        busy["usage"]["cacheReadInputTokens"] = json!(5);
        busy["usage"]["serverToolUsage"] = json!({"webSearch": 1});
        let out = crate::convert_response_value(&busy, F, Format::Ollama, &opts).unwrap();
        let usage: Vec<(&str, LossKind)> = paths(&out.losses)
            .into_iter()
            .filter(|(p, _)| p.starts_with("/usage/"))
            .collect();
        assert_eq!(
            usage,
            [
                ("/usage/serverToolUsage", LossKind::Dropped),
                ("/usage/cacheReadInputTokens", LossKind::Dropped),
                ("/usage/totalTokens", LossKind::Dropped)
            ]
        );
    }

    #[test]
    fn settings_without_a_place_are_reported_in_plain_words() {
        let r = with_settings(
            vec![Message::text(Role::User, "hi")],
            Settings {
                seed: Some(7),
                presence_penalty: Some(1.into()),
                ..Default::default()
            },
        );
        let (_, losses) = enc(r);
        let details: Vec<&str> = losses.iter().map(|l| l.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "bedrock converse has no sampling seed",
                "bedrock converse has no presence penalty"
            ]
        );
    }

    #[test]
    fn document_names_are_made_valid() {
        assert!(valid_doc_name("Booking confirmation ABX3K7"));
        assert!(!valid_doc_name("nyc-7day.csv"));
        assert_eq!(doc_name("nyc-7day.csv"), "nyc-7day");
        assert_eq!(doc_name("my_file  (v2).final.pdf"), "my file (v2) final");
        assert_eq!(doc_name("..."), "");
    }

    #[test]
    fn media_formats_map_both_ways() {
        assert_eq!(format_of(IMAGE_TYPES, "image/jpg"), Some("jpeg"));
        assert_eq!(format_of(AUDIO_TYPES, "audio/mpeg"), Some("mp3"));
        assert_eq!(
            format_of(DOC_TYPES, "text/markdown; charset=utf-8"),
            Some("md")
        );
        assert_eq!(format_of(IMAGE_TYPES, "audio/mp3"), None);
        assert_eq!(sniff_image("UklGRiQAAABXRUJQVlA4"), Some("webp"));
        assert_eq!(sniff_image("UklGRiQAAABXQVZF"), None);
        // `mpga` maps to audio/mpeg, which maps back to mp3: the hint keeps it.
        let mut meta = PartMeta::default();
        assert_eq!(
            read_format(AUDIO_TYPES, Some("audio"), "mpga", &mut meta).as_deref(),
            Some("audio/mpeg")
        );
        assert_eq!(meta.vendor.hint(F, "format"), Some(&json!("mpga")));
    }
}
