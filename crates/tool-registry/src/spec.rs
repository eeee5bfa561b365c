//! [`ToolSpec`]: what a tool is called, what it does, and the shape of its input.

use crate::Error;
use serde_json::{Map, Value};
use wire_types::Format;
use wire_types::mcp::{Icon, ToolAnnotations};

/// A tool's definition: name, description, input JSON Schema, optional output schema,
/// and what MCP clients show people (title, annotations, icons, `_meta`).
///
/// The MCP members describe the tool to people and MCP clients, not to a model:
/// [`ToolRegistry::tools_for`](crate::ToolRegistry::tools_for) leaves them out of chat
/// formats' tools arrays without reporting a loss; the MCP server lists them.
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
    title: Option<String>,
    annotations: Option<ToolAnnotations>,
    icons: Vec<Icon>,
    meta: Option<Map<String, Value>>,
    strict: bool,
    /// A custom tool (free-text input): `Some`, with its grammar if it has one.
    custom: Option<Option<wire_convert::model::Grammar>>,
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
            title: None,
            annotations: None,
            icons: Vec::new(),
            meta: None,
            strict: false,
            custom: None,
        })
    }

    /// A custom tool: its input is free text rather than JSON arguments (OpenAI Responses'
    /// `custom` tool), optionally held to a grammar ([`ToolSpec::with_grammar`]). Its
    /// input schema is `{"type": "string"}`; register it with
    /// [`ToolRegistry::register_custom`](crate::ToolRegistry::register_custom) (or any
    /// `register`: the handler gets the text as a JSON string).
    ///
    /// In the `tools` array of `openai-responses` it is a `custom` tool, whose calls
    /// (`custom_tool_call`) the agent step runs and answers with a
    /// `custom_tool_call_output`. Every other format has no custom tools: there it is a
    /// function tool taking `{"input": string}` (a `changed` loss; a grammar is a
    /// `dropped` loss), and the handler gets the `input` text all the same. MCP lists it
    /// the same way (`inputSchema` `{"input": string}`, no grammar: MCP has no place for
    /// one).
    ///
    /// ```
    /// use tool_registry::{ToolRegistry, ToolSpec};
    /// use wire_types::Format;
    ///
    /// let spec = ToolSpec::custom("sql", "Runs a read-only query")?
    ///     .with_grammar("regex", r"^SELECT .+$");
    /// let mut registry = ToolRegistry::new();
    /// registry.register_custom(spec, |query| Ok(format!("ran: {query}").into()))?;
    /// let tools = registry.tools_for(Format::OpenaiResponses, &Default::default())?;
    /// assert_eq!(tools.value[0]["type"], "custom");
    /// assert_eq!(tools.value[0]["format"]["definition"], r"^SELECT .+$");
    /// let chat = registry.tools_for(Format::OpenaiChat, &Default::default())?;
    /// assert_eq!(chat.value[0]["function"]["parameters"]["properties"]["input"]["type"], "string");
    /// # Ok::<(), tool_registry::Error>(())
    /// ```
    pub fn custom(name: impl Into<String>, description: impl Into<String>) -> Result<Self, Error> {
        let mut spec = ToolSpec::new(name, description, serde_json::json!({"type": "string"}))?;
        spec.custom = Some(None);
        Ok(spec)
    }

    /// Holds a custom tool's input to a grammar: `syntax` is `lark` or `regex`, the
    /// languages OpenAI accepts (written as given), `definition` the grammar. On a tool
    /// that is not custom it makes it one (its input schema becomes `{"type":
    /// "string"}`).
    pub fn with_grammar(
        mut self,
        syntax: impl Into<String>,
        definition: impl Into<String>,
    ) -> Self {
        self.input_schema = serde_json::json!({"type": "string"});
        self.custom = Some(Some(wire_convert::model::Grammar {
            syntax: syntax.into(),
            definition: definition.into(),
        }));
        self
    }

    /// Whether this is a custom tool ([`ToolSpec::custom`]).
    pub fn is_custom(&self) -> bool {
        self.custom.is_some()
    }

    /// A custom tool's grammar, if it has one.
    pub fn grammar(&self) -> Option<&wire_convert::model::Grammar> {
        self.custom.as_ref().and_then(Option::as_ref)
    }

    /// The custom tool in the neutral shape wire-convert writes
    /// ([`wire_convert::encode_custom_tool`]); `None` for a tool that is not custom.
    pub fn to_custom_tool(&self) -> Option<wire_convert::model::CustomTool> {
        let grammar = self.custom.as_ref()?;
        Some(wire_convert::model::CustomTool {
            name: self.name.clone(),
            description: self.description.clone(),
            grammar: grammar.clone(),
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

    /// Adds a title: the name people see (MCP `title`).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Adds behaviour hints (MCP `annotations`: read-only, destructive, idempotent,
    /// open-world).
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Adds icons for a user interface (MCP `icons`).
    pub fn with_icons(mut self, icons: Vec<Icon>) -> Self {
        self.icons = icons;
        self
    }

    /// Adds protocol metadata (MCP `_meta`, an object).
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Asks for OpenAI's strict mode (structured outputs: the model's arguments always
    /// match the schema). In the `tools` arrays of `openai-chat` and `openai-responses`
    /// the function tool then says `strict: true` and its schema follows the strict rules
    /// (wire-convert's strict transform, each rewrite a `changed` loss): every object
    /// closed with `additionalProperties: false`, every property required, the optional
    /// ones made nullable, the keywords strict mode does not support dropped.
    ///
    /// Since the model then sends `null` for an optional property it leaves out, a call
    /// to a strict tool has its `null` members that the registered schema does not
    /// require removed before it is checked and handed to the handler (the handler sees
    /// them absent, as the schema says).
    ///
    /// Other formats ignore it, with no loss: their `strict` flags (Anthropic, Bedrock,
    /// Mistral) have other rules or are not generally available, and Gemini, Ollama and
    /// Cohere have none; the tool is written as it would be without strict mode.
    ///
    /// ```
    /// use tool_registry::{ToolRegistry, ToolSpec};
    /// use wire_types::Format;
    ///
    /// let spec = ToolSpec::new("get_weather", "", serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    ///     "required": ["city"],
    /// }))?
    /// .with_strict(true);
    /// let mut registry = ToolRegistry::new();
    /// registry.register(spec, |args| Ok(args.into()))?;
    /// let tools = registry.tools_for(Format::OpenaiResponses, &Default::default())?;
    /// assert_eq!(tools.value[0]["strict"], true);
    /// assert_eq!(tools.value[0]["parameters"]["required"], serde_json::json!(["city", "days"]));
    /// assert_eq!(tools.value[0]["parameters"]["properties"]["days"]["type"], serde_json::json!(["integer", "null"]));
    /// // The model leaves `days` out as `null`; the handler sees it absent.
    /// assert_eq!(
    ///     registry.dispatch("get_weather", serde_json::json!({"city": "Oslo", "days": null})),
    ///     Ok(serde_json::json!({"city": "Oslo"}).into()),
    /// );
    /// # Ok::<(), tool_registry::Error>(())
    /// ```
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether the tool asks for OpenAI's strict mode ([`ToolSpec::with_strict`]; off by
    /// default).
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// The title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The behaviour hints, if any.
    pub fn annotations(&self) -> Option<&ToolAnnotations> {
        self.annotations.as_ref()
    }

    /// The icons (none by default).
    pub fn icons(&self) -> &[Icon] {
        &self.icons
    }

    /// The `_meta` object, if any.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_ref()
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
        !wire_convert::is_object_schema(&self.input_schema)
    }

    /// Checks the name against `format`'s own rule, which may be stricter than the
    /// registry's (Gemini wants a letter or `_` first).
    pub fn check_for(&self, format: Format) -> Result<(), Error> {
        provider_rule(&self.name, format)
    }

    /// The tool as MCP lists it (`tools/list`), through wire-convert's MCP encoder: a
    /// non-object input schema is exposed as `{"input": <schema>}`, like every format
    /// sees it.
    pub fn to_mcp_tool(&self) -> wire_types::mcp::Tool {
        let mut def = self.to_def();
        let v = &mut def.vendor;
        let mcp = Format::Mcp;
        if let Some(t) = &self.title {
            v.set_field(mcp, "title", Value::String(t.clone()));
        }
        if let Some(a) = &self.annotations {
            v.set_field(mcp, "annotations", wire_types::to_value(a));
        }
        if !self.icons.is_empty() {
            v.set_field(mcp, "icons", wire_types::to_value(&self.icons));
        }
        if let Some(m) = &self.meta {
            v.set_field(mcp, "_meta", Value::Object(m.clone()));
        }
        // The only losses possible here are the documented rewrites (the wrap of a
        // non-object schema, `"type": "object"` added): names already keep MCP's rule.
        let name = def.name.clone();
        wire_convert::encode_mcp_tools(
            vec![wire_convert::model::Tool::Function(def)],
            &wire_convert::Options::default(),
        )
        .ok()
        .and_then(|out| out.value.into_iter().next())
        // Not reached: a function tool always writes as an MCP tool when nothing is strict.
        .unwrap_or_else(|| wire_types::mcp::Tool {
            name,
            title: None,
            description: None,
            input_schema: serde_json::Map::from_iter([("type".to_owned(), "object".into())]),
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
            extra: Default::default(),
        })
    }

    /// The neutral tool definition (without the MCP-only members), `strict` set when the
    /// spec asks for strict mode ([`ToolSpec::with_strict`]).
    pub fn to_def(&self) -> wire_convert::model::ToolDef {
        wire_convert::model::ToolDef {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: Some(self.input_schema.clone()),
            dialect: wire_convert::model::Dialect::JsonSchema,
            output_schema: self.output_schema.clone(),
            strict: self.strict.then_some(true),
            cache: None,
            vendor: Default::default(),
        }
    }
}

/// 1–64 of `[a-zA-Z0-9_-]`: the rule every chat format accepts.
pub(crate) fn check_name(name: &str) -> Result<(), Error> {
    // The OpenAI rule, 1-64 of [a-zA-Z0-9_-], from wire-convert's table: a registered name
    // every format takes apart from its first character (checked per format below).
    if wire_convert::NameRule::of(Format::OpenaiChat).accepts(name) {
        Ok(())
    } else {
        Err(Error::Name {
            name: name.to_owned(),
            rule: "1-64 characters of [a-zA-Z0-9_-] (the rule every provider accepts)".to_owned(),
        })
    }
}

/// `format`'s own rule for `name`, from wire-convert's [`wire_convert::NameRule`] table.
fn provider_rule(name: &str, format: Format) -> Result<(), Error> {
    let rule = wire_convert::NameRule::of(format);
    if rule.accepts(name) {
        Ok(())
    } else {
        Err(Error::Name {
            name: name.to_owned(),
            rule: format!("{format}: {}", rule.describe()),
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
