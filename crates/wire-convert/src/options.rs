//! [`Options`]: the settings of a conversion.

use crate::{NameMap, SchemaBudget};

/// What to do with reasoning that another provider produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReasoningMode {
    /// Carry its text as the target's reasoning, where the target has a place for it
    /// (signatures and encrypted payloads are never sent to another provider).
    #[default]
    Carry,
    /// Drop it (a loss each).
    Drop,
}

/// What to do with a part only its own format understands, when converting elsewhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpaqueMode {
    /// A hosted tool's call or result (web search, code execution) as its readable text
    /// (the code and its output, the search query, the sources' titles and URLs); any
    /// other part's `text` field, if it has one, as a text part; a part without text is
    /// kept as its JSON text, without the signatures and encrypted payloads in it (a
    /// `changed` loss each way).
    #[default]
    AsText,
    /// Drop it, a `dropped` loss.
    Drop,
}

/// Which Gemini field receives a tool's input schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum GeminiSchema {
    /// `parameters`: the OpenAPI subset, rewritten with a loss per unsupported keyword.
    #[default]
    Parameters,
    /// `parametersJsonSchema`: JSON Schema as it is.
    JsonSchema,
}

/// Conversion settings. The defaults suit a gateway: carry what can be carried, report
/// the rest.
///
/// New settings are added over time, so it is built from the default and changed field by
/// field:
///
/// ```
/// let mut options = wire_convert::Options::default();
/// options.strict = true;
/// # let _ = options;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Turn any loss into [`crate::Error::Lossy`]. Default: off.
    pub strict: bool,
    /// Reasoning from another provider. Default: [`ReasoningMode::Carry`].
    pub reasoning: ReasoningMode,
    /// Parts only the source understands. Default: [`OpaqueMode::AsText`].
    pub opaque: OpaqueMode,
    /// Gemini schema field. Default: [`GeminiSchema::Parameters`].
    pub gemini_schema: GeminiSchema,
    /// Record where each neutral item came from when decoding, so that
    /// [`crate::Decoded::source_path`] (and a conversion's loss paths) point into the
    /// input. Default: on. Turn it off when a decoded value's losses are not needed in
    /// source terms (an agent writing a response back in its own format): decoding is
    /// then a little cheaper.
    pub source_map: bool,
    /// How far `$ref` inlining may grow a tool schema for the dialects without `$ref`
    /// (Gemini `parameters`, Ollama). Default: [`SchemaBudget::DEFAULT`] (8 nodes per
    /// input node plus 10 000, 64 levels deep).
    pub schema_budget: SchemaBudget,
    /// The tool-name map of the request conversion ([`crate::Converted::names`]): when
    /// converting the target's response or stream back, calls to a rewritten name get
    /// the source's name again. Default: empty (names as they are).
    pub names: NameMap,
}

impl Options {
    /// These options with `names`, the request conversion's name map, for converting
    /// the target's response or stream back:
    ///
    /// ```
    /// # use wire_convert::{Format, Options, convert_request};
    /// let body = r#"{"model": "m", "messages": [{"role": "user", "content": "hi"}],
    ///     "tools": [{"type": "function", "function": {"name": "fs.read", "parameters": {"type": "object"}}}]}"#;
    /// let out = convert_request(body, Format::OpenaiChat, Format::Anthropic, &Options::default()).unwrap();
    /// let back = Options::default().with_names(out.names);
    /// assert_eq!(back.names.reverse("fs_read"), "fs.read");
    /// ```
    pub fn with_names(mut self, names: NameMap) -> Self {
        self.names = names;
        self
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            strict: false,
            reasoning: ReasoningMode::default(),
            opaque: OpaqueMode::default(),
            gemini_schema: GeminiSchema::default(),
            source_map: true,
            schema_budget: SchemaBudget::DEFAULT,
            names: NameMap::default(),
        }
    }
}
