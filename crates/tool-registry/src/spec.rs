//! [`ToolSpec`]: what a tool is called, what it does, and the shape of its input.

use crate::Error;
use serde_json::Value;
use wire_types::Format;

/// A tool's definition: name, description, input JSON Schema, optional output schema.
///
/// ```
/// use tool_registry::ToolSpec;
/// let spec = ToolSpec::new(
///     "get_weather",
///     "Current weather in a city",
///     serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// )?;
/// assert_eq!(spec.name(), "get_weather");
/// assert!(ToolSpec::new("get weather", "", serde_json::json!({})).is_err());
/// # Ok::<(), tool_registry::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    name: String,
    description: Option<String>,
    input_schema: Value,
    output_schema: Option<Value>,
}

impl ToolSpec {
    /// A tool with a name (1–64 of `[a-zA-Z0-9_-]`), a description and an input schema
    /// (a JSON Schema object; a non-object schema such as `{"type":"string"}` is allowed:
    /// providers see it wrapped as `{"input": …}` and the handler receives it unwrapped).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Result<Self, Error> {
        let name = name.into();
        check_name(&name)?;
        check_schema(&name, "input", &input_schema)?;
        let description = description.into();
        Ok(ToolSpec {
            name,
            description: (!description.is_empty()).then_some(description),
            input_schema,
            output_schema: None,
        })
    }

    /// Reads the input schema from JSON text (an error names what is wrong).
    pub fn from_schema_text(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: &str,
    ) -> Result<Self, Error> {
        let name = name.into();
        let value: Value = serde_json::from_str(schema).map_err(|e| Error::Schema {
            tool: name.clone(),
            message: format!("the input schema is not JSON: {e}"),
        })?;
        ToolSpec::new(name, description, value)
    }

    /// Adds an output schema (MCP `outputSchema`; results then carry `structuredContent`).
    pub fn with_output_schema(mut self, schema: Value) -> Result<Self, Error> {
        check_schema(&self.name, "output", &schema)?;
        self.output_schema = Some(schema);
        Ok(self)
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The input JSON Schema.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The output JSON Schema, if any.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// Whether the input schema describes something other than an object (providers
    /// then see it wrapped as `{"input": <schema>}`).
    pub fn wraps_input(&self) -> bool {
        !wire_convert::schema::is_object_schema(&self.input_schema)
    }

    /// Checks the name against `format`'s own rule, which may be stricter than the
    /// registry's (Gemini wants a letter or `_` first).
    pub fn check_for(&self, format: Format) -> Result<(), Error> {
        provider_rule(&self.name, format)
    }

    /// The neutral tool definition.
    pub fn to_def(&self) -> wire_convert::model::ToolDef {
        wire_convert::model::ToolDef {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: Some(self.input_schema.clone()),
            dialect: wire_convert::model::Dialect::JsonSchema,
            output_schema: self.output_schema.clone(),
            strict: None,
            cache: None,
            vendor: Default::default(),
        }
    }
}

/// 1–64 of `[a-zA-Z0-9_-]`: the rule every chat format accepts.
pub(crate) fn check_name(name: &str) -> Result<(), Error> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::Name {
            name: name.to_owned(),
            rule: "1-64 characters of [a-zA-Z0-9_-] (the rule every provider accepts)".to_owned(),
        })
    }
}

fn provider_rule(name: &str, format: Format) -> Result<(), Error> {
    let first = name.chars().next().unwrap_or(' ');
    let (ok, rule) = match format {
        Format::Gemini => (
            first.is_ascii_alphabetic() || first == '_',
            "gemini: must start with a letter or an underscore, then [a-zA-Z0-9_.:-], at most 64",
        ),
        Format::Bedrock => (
            first.is_ascii_alphabetic(),
            "bedrock: 1-64 of [a-zA-Z0-9_-]; start with a letter to be accepted by every model",
        ),
        _ => (true, ""),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::Name {
            name: name.to_owned(),
            rule: rule.to_owned(),
        })
    }
}

fn check_schema(tool: &str, which: &str, schema: &Value) -> Result<(), Error> {
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(Error::Schema {
            tool: tool.to_owned(),
            message: format!("the {which} schema must be a JSON Schema object, found {schema}"),
        });
    }
    #[cfg(feature = "validate")]
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Err(Error::Schema {
            tool: tool.to_owned(),
            message: format!(
                "the {which} schema is not a valid JSON Schema: {}: {e}",
                e.instance_path()
            ),
        });
    }
    Ok(())
}
