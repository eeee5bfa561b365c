//! Tool definitions: the loop every encoder runs over the neutral tools, and the
//! OpenAI-style function tool (`{"type": "function", "function": {name, description,
//! parameters, strict}}`) that OpenAI Chat, Mistral, Ollama and Cohere share.
//!
//! A tool without parameters gets [`no_parameters`] where the target requires a schema.
//!
//! Fields of the wrapper object that the neutral model has no place for are kept in the
//! tool's vendor record as `$tool.<name>`, next to the function object's own fields, so
//! the same format writes each back where it was.

use crate::ctx::extra_from;
use crate::model::{Arguments, Dialect, Opaque, PartMeta, Tool, ToolCall, ToolDef, Vendor};
use crate::{Ctx, Format, LossCode, schema};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use wire_types::Extra;

/// A request's `tools` array read as neutral tools, each at the same pointer on both
/// sides (`/tools/<k>`), by `decode`.
pub(crate) fn decode_tools<T>(
    tools: Option<Vec<T>>,
    mut decode: impl FnMut(T) -> Tool,
    ctx: &mut Ctx<'_>,
) -> Vec<Tool> {
    let mut out = Vec::new();
    for (k, t) in tools.into_iter().flatten().enumerate() {
        ctx.map(format_args!("/tools/{k}"), format_args!("/tools/{k}"));
        out.push(decode(t));
    }
    out
}

/// Maps call `c` of the source message at `at` (its OpenAI-style `tool_calls/<c>`) to
/// part `k` of the neutral message at `neutral`, and the call's name and arguments to
/// those of its `function` object.
pub(crate) fn map_function_call(ctx: &mut Ctx<'_>, neutral: &str, k: usize, at: &str, c: usize) {
    let part = (neutral, "/content/", k);
    let call = (at, "/tool_calls/", c);
    ctx.map(part, call);
    for (n, s) in [
        ("/name", "/function/name"),
        ("/arguments", "/function/arguments"),
    ] {
        ctx.map((part, n), (call, s));
    }
}

/// Hint: the wrapper object had no `type` (written back without one).
pub(crate) const NO_TYPE: &str = "no_type";

/// Reads the `type` of an OpenAI-style function call of `format` into `v`, for
/// [`function_type`] to write back: `function` says nothing; none is the hint
/// [`NO_TYPE`]; another is the vendor field `type`.
pub(crate) fn read_function_type(kind: Option<&str>, v: &mut Vendor, format: Format) {
    match kind {
        Some("function") => {}
        None => v.set_hint(format, NO_TYPE, true),
        Some(other) => v.set_field(format, "type", Value::String(other.to_owned())),
    }
}

/// Call `c` of the neutral message at `base`, decoded: named `name`, with `arguments`
/// and `meta`; its id is the source's, or else one made with
/// [`crate::ids::synthetic_id`] ([`ToolCall::synthetic_id`]), recorded as the hint
/// `no_id` of `format` where the format writes no id back for it.
pub(crate) fn decoded_call(
    id: Option<String>,
    (base, c): (&str, usize),
    name: String,
    arguments: Arguments,
    mut meta: PartMeta,
    no_id: Option<(Format, &str)>,
) -> ToolCall {
    let (id, synthetic_id) = match id {
        Some(id) => (id, false),
        None => {
            if let Some((format, hint)) = no_id {
                meta.vendor.set_hint(format, hint, true);
            }
            (crate::ids::synthetic_id(base, c, &name), true)
        }
    };
    ToolCall {
        id,
        synthetic_id,
        name,
        arguments,
        meta,
    }
}

/// The `type` of a function call or tool (`at`: its neutral pointer) as the OpenAI-style
/// source had it: none where it had none (hint [`NO_TYPE`]), its own `type` (the vendor
/// field, taken out of `fields` so that it never goes out twice), else `function`. A
/// vendor `type` that is no string (only a hand-built neutral value has one) is written
/// as `function`, with the loss of [`Ctx::take_fit`].
pub(crate) fn function_type<T: for<'s> From<&'s str>>(
    v: &Vendor,
    at: &str,
    fields: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
) -> Option<T> {
    if v.flag(ctx.format, NO_TYPE) {
        return None;
    }
    let kind = ctx.take_fit::<String>(fields, "type", at);
    Some(T::from(kind.as_deref().unwrap_or("function")))
}
/// Hint: the wrapper object's explicit `null`s (a list of field names).
pub(crate) const TOOL_NULLS: &str = "tool_nulls";
/// The prefix of a wrapper object's field kept in the tool's vendor record.
const TOOL_FIELD: &str = "$tool.";
/// Hint: the function object had no `parameters`, in a format that requires them
/// ([`parameters_required`]): written back without, by the same format.
const NO_PARAMETERS: &str = "no_parameters";

/// The input schema of a tool that takes no parameters, where the target requires one
/// (Anthropic `input_schema`, Bedrock `inputSchema`, Mistral and Cohere `parameters`):
/// an object with no properties, which says the same.
pub(crate) fn no_parameters() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// Whether `format`'s OpenAI-style function object requires `parameters` (its SDK type
/// has it required): Mistral's `Function` and Cohere's `ToolV2Function` do; OpenAI Chat's
/// and Ollama's do not.
fn parameters_required(format: Format) -> bool {
    matches!(format, Format::Mistral | Format::Cohere)
}

/// Records that an opaque tool of another format has no place in this one.
pub(crate) fn drop_foreign_tool(o: &Opaque, at: &str, ctx: &mut Ctx<'_>) {
    // Its `type` (`name`), or the key of a Gemini built-in (`{"googleSearch": {}}`).
    let kind = o
        .value
        .get("type")
        .or(o.value.get("name"))
        .cloned()
        .or_else(|| {
            let m = o.value.as_object()?;
            let key = m.keys().next().filter(|_| m.len() == 1)?;
            Some(Value::from(key.as_str()))
        })
        .unwrap_or(Value::Null);
    let detail = format!(
        "{} tool {kind} has no equivalent in {}",
        o.format, ctx.format
    );
    ctx.dropped(
        LossCode::ToolUnsupported,
        super::builtin::pointer(o, at),
        detail,
    );
}

/// The tools array: each function tool through `function`, this format's own opaque
/// tools (its hosted tools) read back whole as `T`, another format's as this format's
/// equivalent built-in tool ([`super::builtin::translate`]) or dropped with a loss.
/// `None` when there are no tools.
pub(crate) fn encode_tools<T: DeserializeOwned>(
    tools: Vec<Tool>,
    ctx: &mut Ctx<'_>,
    mut function: impl FnMut(ToolDef, &str, &mut Ctx<'_>) -> T,
) -> Option<Vec<T>> {
    if tools.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(tools.len());
    for (k, t) in tools.into_iter().enumerate() {
        let at = format!("/tools/{k}");
        match t {
            Tool::Function(def) => out.push(function(def, &at, ctx)),
            Tool::Opaque(o) if o.format == ctx.format => match serde_json::from_value(o.value) {
                Ok(t) => out.push(t),
                Err(e) => {
                    let detail = format!(
                        "this {} tool, kept whole, is no longer a valid tool: {e}",
                        ctx.format
                    );
                    ctx.dropped(LossCode::ToolUnsupported, at, detail);
                }
            },
            Tool::Opaque(o) => {
                if let Some(value) = super::builtin::translate(&o, &at, ctx) {
                    match serde_json::from_value(value) {
                        Ok(t) => out.push(t),
                        Err(e) => {
                            let detail = format!("a {} built-in tool: {e}", ctx.format);
                            ctx.dropped(LossCode::ToolUnsupported, at, detail);
                        }
                    }
                }
            }
        }
    }
    Some(out)
}

/// What a format does with a tool's `strict` flag.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Strict {
    /// It has the flag: carried as it is.
    Carried,
    /// It has the flag, and a strict tool's schema follows OpenAI's strict rules.
    Schema,
    /// It has none: a strict tool is a loss, with this reason.
    Unsupported(&'static str),
}

/// An OpenAI-style function tool, ready to be put in a format's own wire struct.
#[derive(Debug)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) parameters: Option<Value>,
    /// The `strict` flag, where the format carries it.
    pub(crate) strict: Option<bool>,
    /// The wrapper's `type` (`"function"`), `None` when the source had none.
    pub(crate) kind: Option<String>,
    /// The function object's unknown fields and explicit nulls (`known`: its `FIELDS`).
    pub(crate) function_extra: Extra,
    /// The wrapper object's unknown fields and explicit nulls.
    pub(crate) tool_extra: Extra,
}

/// A format's OpenAI-style function tool (its wrapper struct around its function struct),
/// read through [`decode_function`] and written from a [`Function`]. Implemented with
/// [`function_tool!`], which writes the field copies once for every such format.
pub(crate) trait FunctionTool: Sized {
    /// The `FIELDS` of the format's function struct (for its explicit nulls).
    const FUNCTION_FIELDS: &'static [&'static str];
    /// The `FIELDS` of the format's wrapper struct (for its explicit nulls).
    const TOOL_FIELDS: &'static [&'static str];
    /// Reads the tool as a neutral tool of `format`.
    fn decode(self, format: Format) -> Tool;
    /// The wire tool holding `f`.
    fn from_function(f: Function) -> Self;
}

/// Implements [`FunctionTool`] for a wrapper struct `$tool` (with `function: $def` and
/// `extra`), naming its optional `type` field in `kind: [...]` and the function struct's
/// optional `strict` field in `strict: [...]` (empty brackets where the format has none).
macro_rules! function_tool {
    (@strict) => { None };
    (@strict $strict:expr) => { $strict };
    (@kind) => { (None, false) };
    (@kind $kind:expr) => { ($kind.as_deref(), true) };
    ($tool:ty, $($def:ident)::+, kind: [$($kind:ident)?], strict: [$($strict:ident)?]) => {
        impl $crate::passes::tools::FunctionTool for $tool {
            const FUNCTION_FIELDS: &'static [&'static str] = $($def)::+::FIELDS;
            const TOOL_FIELDS: &'static [&'static str] = <$tool>::FIELDS;

            fn decode(self, format: $crate::Format) -> $crate::model::Tool {
                let f = self.function;
                let strict = $crate::passes::tools::function_tool!(@strict $(f.$strict)?);
                let (kind, has_kind) = $crate::passes::tools::function_tool!(@kind $(self.$kind)?);
                $crate::passes::tools::decode_function(
                    $crate::passes::tools::WireFunction {
                        name: f.name,
                        description: f.description,
                        parameters: f.parameters,
                        strict,
                        kind,
                        has_kind,
                        function_extra: &f.extra,
                        tool_extra: &self.extra,
                    },
                    format,
                )
            }

            fn from_function(f: $crate::passes::tools::Function) -> Self {
                Self {
                    $($kind: f.kind,)?
                    function: $($def)::+ {
                        name: f.name,
                        description: f.description,
                        parameters: f.parameters,
                        $($strict: f.strict,)?
                        extra: f.function_extra,
                    },
                    extra: f.tool_extra,
                }
            }
        }
    };
}
pub(crate) use function_tool;

// Cohere's and Ollama's tool: one wire type (`wire_types`' common `FunctionTool`) that
// both formats name `Tool`.
function_tool!(wire_types::ollama::Tool, wire_types::ollama::FunctionDef, kind: [kind], strict: []);

/// Writes `def` (at neutral pointer `at`) as the OpenAI-style function tool `T` of this
/// context's format.
pub(crate) fn encode_function_tool<T: FunctionTool>(
    def: ToolDef,
    at: &str,
    strict: Strict,
    ctx: &mut Ctx<'_>,
) -> T {
    T::from_function(encode_function::<T>(def, at, strict, ctx))
}

/// Writes `def` (at neutral pointer `at`) as the pieces of the OpenAI-style function tool
/// `T` of this context's format, for a format that changes them before building `T`.
pub(crate) fn encode_function<T: FunctionTool>(
    def: ToolDef,
    at: &str,
    strict: Strict,
    ctx: &mut Ctx<'_>,
) -> Function {
    let (function_fields, tool_fields) = (T::FUNCTION_FIELDS, T::TOOL_FIELDS);
    let format = ctx.format;
    let mut fields = ctx.vendor_fields(&def.vendor, at);
    let mut tool = crate::util::take_prefixed(&mut fields, TOOL_FIELD);
    let kind = function_type(&def.vendor, at, &mut tool, ctx);
    let parameters = match def.input_schema {
        Some(s) => {
            let s = schema::json_schema_input(s, def.dialect, ctx, at);
            Some(match strict {
                Strict::Schema if def.strict == Some(true) => {
                    schema::to_openai_strict(&s, ctx, &format!("{at}/input_schema"))
                }
                _ => s,
            })
        }
        None if parameters_required(format) && !def.vendor.flag(format, NO_PARAMETERS) => {
            Some(no_parameters())
        }
        None => None,
    };
    if def.output_schema.is_some() {
        ctx.dropped(
            LossCode::SchemaChanged,
            format!("{at}/output_schema"),
            format!("{format} tools have no output schema"),
        );
    }
    let strict = match strict {
        Strict::Carried | Strict::Schema => def.strict,
        Strict::Unsupported(why) => {
            if def.strict == Some(true) {
                ctx.dropped(LossCode::FieldUnsupported, format!("{at}/strict"), why);
            }
            None
        }
    };
    if def.cache.is_some() {
        ctx.dropped(
            LossCode::CacheUnsupported,
            format!("{at}/cache"),
            format!("{format} has no cache marker"),
        );
    }
    let mut tool_extra = Extra::from(ctx.unknown_only(tool, tool_fields, at));
    if let Some(Value::Array(nulls)) = def.vendor.hint(format, TOOL_NULLS) {
        for n in nulls.iter().filter_map(Value::as_str) {
            if let Some(f) = tool_fields.iter().find(|f| **f == n) {
                tool_extra.mark_null(f);
            }
        }
    }
    Function {
        function_extra: extra_from(fields, &def.vendor, function_fields, at, ctx),
        name: def.name,
        description: def.description,
        parameters,
        strict,
        kind,
        tool_extra,
    }
}

/// The wire pieces of an OpenAI-style function tool, to decode.
#[derive(Debug)]
pub(crate) struct WireFunction<'a> {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) parameters: Option<Value>,
    pub(crate) strict: Option<bool>,
    /// The wrapper's `type`, if the format has the field and it was there.
    pub(crate) kind: Option<&'a str>,
    /// Whether the format's wrapper has a `type` field at all.
    pub(crate) has_kind: bool,
    pub(crate) function_extra: &'a Extra,
    pub(crate) tool_extra: &'a Extra,
}

/// Reads an OpenAI-style function tool of `format` into a neutral tool.
pub(crate) fn decode_function(f: WireFunction<'_>, format: Format) -> Tool {
    let mut v = Vendor::from_extra(format, f.function_extra, &[]);
    crate::util::put_prefixed(&mut v, format, TOOL_FIELD, f.tool_extra);
    if !f.tool_extra.nulls().is_empty() {
        let nulls: Vec<Value> = f
            .tool_extra
            .nulls()
            .iter()
            .map(|n| Value::from(*n))
            .collect();
        v.set_hint(format, TOOL_NULLS, nulls);
    }
    if f.parameters.is_none() && parameters_required(format) {
        v.set_hint(format, NO_PARAMETERS, true);
    }
    if f.has_kind {
        match f.kind {
            Some("function") => {}
            None => v.set_hint(format, NO_TYPE, true),
            Some(other) => {
                v.set_field(format, &format!("{TOOL_FIELD}type"), Value::from(other));
            }
        }
    }
    Tool::Function(ToolDef {
        name: f.name,
        description: f.description,
        input_schema: f.parameters,
        dialect: Dialect::JsonSchema,
        output_schema: None,
        strict: f.strict,
        cache: None,
        vendor: v,
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{Dialect, Tool, ToolDef};
    use crate::{Format, Options, convert_request_value, encode_tools};
    use serde_json::{Value, json};

    fn no_params() -> Tool {
        Tool::Function(ToolDef {
            name: "now".into(),
            description: Some("The current time".into()),
            input_schema: None,
            dialect: Dialect::JsonSchema,
            output_schema: None,
            strict: None,
            cache: None,
            vendor: Default::default(),
        })
    }

    /// The schema a format's first tool carries, found where that format puts it.
    fn schema_of(format: Format, tools: &Value) -> Option<Value> {
        let t = match format {
            Format::Bedrock => &tools["tools"][0]["toolSpec"]["inputSchema"]["json"],
            Format::Anthropic => &tools[0]["input_schema"],
            Format::Gemini => &tools[0]["functionDeclarations"][0]["parameters"],
            Format::OpenaiResponses => &tools[0]["parameters"],
            _ => &tools[0]["function"]["parameters"],
        };
        (!t.is_null()).then(|| t.clone())
    }

    #[test]
    fn a_tool_without_parameters_gets_an_empty_object_where_the_target_requires_a_schema() {
        let empty = json!({"type": "object", "properties": {}});
        for format in Format::CHAT {
            let out = encode_tools(vec![no_params()], format, &Options::default()).unwrap();
            assert!(out.losses.is_empty(), "{format}: {:?}", out.losses);
            let required = matches!(
                format,
                Format::Anthropic | Format::Bedrock | Format::Mistral | Format::Cohere
            );
            let expected = required.then(|| empty.clone());
            assert_eq!(schema_of(format, &out.value), expected, "{format}");
        }
    }

    #[test]
    fn a_mistral_or_cohere_tool_without_parameters_is_written_back_without() {
        for format in [Format::Mistral, Format::Cohere] {
            let body = json!({
                "model": "m",
                "messages": [{"role": "user", "content": "Hi"}],
                "tools": [{"type": "function", "function": {"name": "now"}}]
            });
            let same = convert_request_value(&body, format, format, &Options::default()).unwrap();
            assert_eq!(same.value["tools"], body["tools"], "{format}");
            let other = match format {
                Format::Mistral => Format::Cohere,
                _ => Format::Mistral,
            };
            let out = convert_request_value(&body, format, other, &Options::default()).unwrap();
            assert_eq!(
                out.value["tools"][0]["function"]["parameters"],
                json!({"type": "object", "properties": {}}),
                "{format} → {other}"
            );
        }
    }
}
