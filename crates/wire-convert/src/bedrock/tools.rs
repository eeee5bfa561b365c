//! Tool definitions both ways (`toolConfig.tools`), and the tool specs Converse requires
//! for the tool blocks of a conversation.

use super::settings::sub_extra_encode;
use super::{F, cache_point, hints};
use crate::model::{Cache, Dialect, Message, Opaque, Part, PartMeta, Tool, ToolDef, Vendor};
use crate::{Ctx, LossCode, passes, schema};
use serde_json::{Map, Value};
use std::collections::HashSet;
use wire_types::Extra;
use wire_types::bedrock as w;

// ---------------------------------------------------------------------------------------
// Decoding

/// The tools of a `toolConfig`: tool specs with a JSON schema as function tools, a plain
/// cache point as the cache marker of the tool before it, anything else kept whole.
pub(super) fn decode_tools(tools: Vec<w::Tool>, ctx: &mut Ctx<'_>) -> Vec<Tool> {
    let mut out: Vec<Tool> = Vec::with_capacity(tools.len());
    for (i, t) in tools.into_iter().enumerate() {
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
                    vendor: Vendor::from_extra(F, &spec.extra, &[]),
                }),
                other => opaque_tool(&w::Tool::ToolSpec(w::ToolSpec {
                    input_schema: other,
                    ..spec
                })),
            },
            w::Tool::CachePoint(c) => {
                let k = out.len();
                match attach_tool_cache(out.last_mut(), c) {
                    None => {
                        ctx.map(format_args!("/tools/{}/cache", k.saturating_sub(1)), src);
                        continue;
                    }
                    Some(c) => opaque_tool(&w::Tool::CachePoint(c)),
                }
            }
            other => opaque_tool(&other),
        };
        ctx.map(format_args!("/tools/{}", out.len()), src);
        out.push(tool);
    }
    out
}

/// A tool kept whole.
fn opaque_tool(t: &w::Tool) -> Tool {
    Tool::Opaque(Opaque {
        format: F,
        value: wire_types::to_value(t),
        meta: PartMeta::default(),
    })
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

// ---------------------------------------------------------------------------------------
// Encoding

/// Encodes tool definitions as a Converse `toolConfig` (no tool choice; `None` for none).
pub(super) fn encode_tools(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Option<w::ToolConfig> {
    if tools.is_empty() {
        return None;
    }
    Some(w::ToolConfig {
        tools: encode_tool_list(tools, ctx),
        tool_choice: None,
        extra: Extra::new(),
    })
}

/// The tool specs of neutral tools, each followed by a cache point when it carries a
/// cache marker; another format's opaque tools are dropped with a loss each.
pub(super) fn encode_tool_list(tools: Vec<Tool>, ctx: &mut Ctx<'_>) -> Vec<w::Tool> {
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
                    Err(e) => ctx.dropped(
                        LossCode::ToolUnsupported,
                        at,
                        format!("not a bedrock tool: {e}"),
                    ),
                }
            }
            Tool::Opaque(o) => passes::tools::drop_foreign_tool(&o, &at, ctx),
        }
    }
    out
}

/// A function tool as a tool spec (a non-object input schema wrapped as `{"input": …}`).
fn encode_tool_def(def: ToolDef, at: &str, ctx: &mut Ctx<'_>) -> w::ToolSpec {
    let schema = match def.input_schema {
        None => passes::tools::no_parameters(),
        Some(s) => schema::object_input(s, def.dialect, ctx, at),
    };
    if def.output_schema.is_some() {
        ctx.dropped(
            LossCode::SchemaChanged,
            format!("{at}/output_schema"),
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

/// The request's tools and tool choice as written, for its `toolConfig`.
pub(super) struct ToolsOut {
    /// The tool specs.
    pub(super) tools: Vec<w::Tool>,
    /// How many neutral tools there were.
    pub(super) count: usize,
    /// The names of the tools the messages call or answer ([`tool_names`]).
    pub(super) history: Vec<String>,
    /// The tool choice written.
    pub(super) choice: Option<w::ToolChoice>,
    /// The tool choice was `none`, which Converse lacks.
    pub(super) none: bool,
}

/// The request's `toolConfig`. Converse has no `none` tool choice: without tool blocks in
/// `messages` the whole `toolConfig` is left out (the tools with it, a loss each); with
/// them it must stay, and the choice is dropped (a loss). Tool blocks with no tool
/// declared get placeholder specs named after the tools in the history (a loss).
pub(super) fn encode_tool_config(
    t: ToolsOut,
    messages: &[w::Message],
    fields: &mut Map<String, Value>,
    v: &Vendor,
    ctx: &mut Ctx<'_>,
) -> Option<w::ToolConfig> {
    let ToolsOut {
        mut tools,
        count,
        history,
        choice,
        none,
    } = t;
    let has_tool_blocks = messages.iter().any(|m| {
        m.content.iter().any(|b| {
            matches!(
                b,
                w::ContentBlock::ToolUse(_) | w::ContentBlock::ToolResult(_)
            )
        })
    });
    let extra = sub_extra_encode(fields, v, "toolConfig", w::ToolConfig::FIELDS);
    let declared = v.flag(F, hints::TOOL_CONFIG);
    if none && !has_tool_blocks {
        ctx.changed(
            LossCode::ToolChoiceChanged,
            "/tool_choice",
            "bedrock has no `none` tool choice: toolConfig is left out so that no tool can be called",
        );
        for k in 0..count {
            ctx.dropped(
                LossCode::ToolChoiceChanged,
                format!("/tools/{k}"),
                "left out with toolConfig (tool choice `none`)",
            );
        }
        return None;
    }
    if none {
        ctx.dropped(
            LossCode::ToolChoiceChanged,
            "/tool_choice",
            "bedrock has no `none` tool choice, and toolConfig must stay while the messages hold tool blocks: the model may still call a tool",
        );
    }
    if tools.is_empty() && has_tool_blocks && !declared {
        let names = if history.is_empty() {
            vec!["placeholder_tool".to_owned()]
        } else {
            history
        };
        ctx.changed(
            LossCode::FieldDefaulted,
            "/tools",
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
        // Only the same format writes a tool choice without tools (and means it).
        if choice.is_some() && v.format != Some(F) {
            ctx.dropped(
                LossCode::ToolChoiceChanged,
                "/tool_choice",
                "no tool is declared: bedrock has no tool choice without tools",
            );
        }
        return None;
    }
    Some(w::ToolConfig {
        tools,
        tool_choice: choice,
        extra,
    })
}

/// The names of the tools the messages call or answer, in first-seen order.
pub(super) fn tool_names(messages: &[Message]) -> Vec<String> {
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

/// A tool spec that declares a tool the history uses, so that Converse accepts the
/// history's tool blocks.
fn placeholder(name: String) -> w::Tool {
    w::Tool::ToolSpec(w::ToolSpec {
        name,
        description: None,
        input_schema: w::InputSchema::Json(passes::tools::no_parameters()),
        strict: None,
        extra: Extra::new(),
    })
}
