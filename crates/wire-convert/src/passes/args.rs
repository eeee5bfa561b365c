//! Tool-call arguments: the one rule for formats whose calls take a JSON object, and the
//! wrap of calls to tools whose input is not an object.

use crate::model::{self, Arguments, Part};
use crate::{Ctx, LossCode, schema, util};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// Arguments as a JSON object, for a format whose calls take one (Anthropic and Bedrock
/// `input`, Gemini `args`, Ollama `arguments`, MCP `arguments`).
#[derive(Debug)]
pub(crate) enum ObjectArgs {
    /// JSON text of an object, compact, not built into a tree (the common case: a model's
    /// arguments passed on).
    Raw(Box<RawValue>),
    /// An object.
    Map(Map<String, Value>),
}

impl ObjectArgs {
    /// Whether this is the empty object.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            ObjectArgs::Raw(r) => r.get() == "{}",
            ObjectArgs::Map(m) => m.is_empty(),
        }
    }

    /// As a wire field that holds an object or its text.
    pub(crate) fn into_wire<T: From<Map<String, Value>>>(self) -> wire_types::MaybeRaw<T> {
        match self {
            ObjectArgs::Raw(r) => wire_types::MaybeRaw::Raw(r),
            ObjectArgs::Map(m) => wire_types::MaybeRaw::Parsed(m.into()),
        }
    }

    /// As an object (text parsed: it is an object, so this cannot fail; an empty object
    /// if it somehow did).
    pub(crate) fn into_map(self) -> Map<String, Value> {
        match self {
            ObjectArgs::Raw(r) => serde_json::from_str(r.get()).unwrap_or_default(),
            ObjectArgs::Map(m) => m,
        }
    }
}

/// The arguments of the call at `at` (a neutral pointer) as a JSON object. An object, or
/// text holding one, goes as it is; anything else becomes an object with a `changed`
/// loss at `{at}/arguments`, one rule for every format:
///
/// * no arguments (empty text) or `null`: `{}`;
/// * another JSON value: `{"value": <value>}`;
/// * text that is not JSON: `{"invalid_json": "<text>"}`.
///
/// Calls to a tool whose schema is not an object were wrapped as `{"input": …}` before
/// encoding ([`wrap_non_object_calls`]), so they arrive here as objects.
pub(crate) fn object_arguments(args: Arguments, at: &str, ctx: &mut Ctx<'_>) -> ObjectArgs {
    let args = match util::raw_object(args) {
        Ok(raw) => return ObjectArgs::Raw(raw),
        Err(args) => args,
    };
    let one = |key: &str, value: Value| {
        let mut m = Map::new();
        m.insert(key.to_owned(), value);
        m
    };
    let (map, detail) = match args {
        Arguments::Value(Value::Object(m)) => return ObjectArgs::Map(m),
        Arguments::Value(Value::Null) => (Map::new(), "`null` arguments are sent as {}"),
        Arguments::Text(t) if t.trim().is_empty() => {
            (Map::new(), "no arguments (empty text) are sent as {}")
        }
        Arguments::Value(v) => (
            one("value", v),
            "arguments that are not a JSON object are sent as {\"value\": …}",
        ),
        Arguments::Text(t) => match serde_json::from_str::<Value>(&t) {
            Ok(Value::Object(m)) => {
                // serde_json kept the last value of a repeated key; toolwire's own reader,
                // which refuses one, says where it was.
                if let Err(e) = wire_types::value_from_str(&t) {
                    ctx.dropped(
                        LossCode::ArgumentsWrapped,
                        format!("{at}/arguments{}", e.pointer()),
                        format!(
                            "arguments with a repeated key are sent with its last value ({})",
                            e.message()
                        ),
                    );
                }
                return ObjectArgs::Map(m);
            }
            Ok(Value::Null) => (Map::new(), "`null` arguments are sent as {}"),
            Ok(v) => (
                one("value", v),
                "arguments that are not a JSON object are sent as {\"value\": …}",
            ),
            Err(_) => (
                one("invalid_json", Value::String(t)),
                "arguments that are not valid JSON are sent as {\"invalid_json\": \"<text>\"}",
            ),
        },
    };
    ctx.changed(
        LossCode::ArgumentsWrapped,
        format!("{at}/arguments"),
        format!("{} takes object arguments: {detail}", ctx.format),
    );
    ObjectArgs::Map(map)
}

/// Wraps the arguments of calls to tools whose input schema is not an object as
/// `{"input": <arguments>}`, matching the schema every encoder exposes for them
/// (see [`crate::schema::wrap_non_object`]). A `changed` loss each.
pub(crate) fn wrap_non_object_calls(req: &mut model::Request, ctx: &mut Ctx<'_>) {
    // A set: a request with many tools and many calls stays linear.
    let wrapped: std::collections::HashSet<String> = req
        .tools
        .iter()
        .filter_map(|t| match t {
            model::Tool::Function(d) => d
                .input_schema
                .as_ref()
                .filter(|s| {
                    let s = match d.dialect {
                        model::Dialect::GeminiOpenapi => schema::from_gemini(s),
                        model::Dialect::JsonSchema => (*s).clone(),
                    };
                    !schema::is_object_schema(&s)
                })
                .map(|_| d.name.clone()),
            model::Tool::Opaque(_) => None,
        })
        .collect();
    if wrapped.is_empty() {
        return;
    }
    for (i, m) in req.messages.iter_mut().enumerate() {
        for (j, p) in m.content.iter_mut().enumerate() {
            let Part::ToolCall(c) = p else { continue };
            if !wrapped.contains(c.name.as_str()) {
                continue;
            }
            let value = match c.arguments.value() {
                Some(serde_json::Value::Object(o)) if o.len() == 1 && o.contains_key("input") => {
                    continue;
                }
                Some(v) => v,
                None => Value::String(c.arguments.text()),
            };
            c.arguments = model::Arguments::Value(json!({ "input": value }));
            ctx.changed(
                LossCode::ArgumentsWrapped,
                format!("/messages/{i}/content/{j}/arguments"),
                format!(
                    "`{}` takes a non-object input: its arguments are sent as {{\"input\": …}}",
                    c.name
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Options};

    fn object(args: Arguments) -> (String, Vec<String>) {
        let options = Options::default();
        let mut ctx = Ctx::new(Format::Anthropic, &options);
        let out = object_arguments(args, "/messages/1/content/0", &mut ctx);
        let text = match out {
            ObjectArgs::Raw(r) => r.get().to_owned(),
            ObjectArgs::Map(m) => Value::Object(m).to_string(),
        };
        (
            text,
            ctx.take_losses()
                .into_iter()
                .map(|l| l.to_string())
                .collect(),
        )
    }

    #[test]
    fn an_object_goes_as_it_is_and_anything_else_is_wrapped_with_one_loss() {
        let text = |t: &str| Arguments::Text(t.to_owned());
        let loss = |d: &str| {
            vec![format!(
                "/messages/1/content/0/arguments: changed: anthropic takes object arguments: {d}"
            )]
        };
        assert_eq!(object(text("{\"a\": 1}")), ("{\"a\":1}".to_owned(), vec![]));
        assert_eq!(
            object(Arguments::Value(json!({"a": 1}))),
            ("{\"a\":1}".to_owned(), vec![])
        );
        for empty in ["", "  "] {
            assert_eq!(
                object(text(empty)),
                (
                    "{}".to_owned(),
                    loss("no arguments (empty text) are sent as {}")
                )
            );
        }
        for null in [text("null"), Arguments::Value(Value::Null)] {
            assert_eq!(
                object(null),
                ("{}".to_owned(), loss("`null` arguments are sent as {}"))
            );
        }
        for value in [text("[1,2]"), Arguments::Value(json!([1, 2]))] {
            assert_eq!(
                object(value),
                (
                    "{\"value\":[1,2]}".to_owned(),
                    loss("arguments that are not a JSON object are sent as {\"value\": …}")
                )
            );
        }
        assert_eq!(
            object(text("{\"a\": ")),
            (
                "{\"invalid_json\":\"{\\\"a\\\": \"}".to_owned(),
                loss(
                    "arguments that are not valid JSON are sent as {\"invalid_json\": \"<text>\"}"
                )
            )
        );
    }
}
