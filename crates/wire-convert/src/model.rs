//! The neutral model: one vocabulary for every format.
//!
//! Every format decodes into these types and encodes out of them (`A → neutral → B`). The
//! model is rich enough that `A → neutral → A` gives back what `A` said: what has no
//! neutral field travels in a [`Vendor`] tagged with the format it came from, and goes
//! back into that format only.
//!
//! It serializes as its own JSON (`serde`), tagged with `"type"` / `"role"`, so a
//! transcript can be stored in one canonical form.
//!
//! # Canonical form
//!
//! Decoders produce, and encoders expect, a conversation where:
//!
//! * tool results are [`Part::ToolResult`]s in [`Role::Tool`] messages, one message per
//!   batch of consecutive results, in call order; no other part sits in a tool message;
//! * tool calls are [`Part::ToolCall`]s in [`Role::Assistant`] messages;
//! * every tool call has an id (synthesized from its position when the source had none,
//!   see [`ToolCall::synthetic_id`]), and every tool result names its call and, when it
//!   can be found, its tool.
//!
//! System and developer instructions are messages ([`Role::System`], [`Role::Developer`])
//! wherever they were; formats with a top-level system field decode it as leading
//! system messages and encode leading system messages into it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};
use wire_types::Format;

/// Fields of a source object that have no neutral equivalent, kept for the format they
/// came from.
///
/// An encoder for the same format writes `fields` back into the object it builds; an
/// encoder for another format reports each of them as a loss. `hints` record how the
/// source spelled something the neutral model normalizes (a string vs an array of parts,
/// a field that was absent vs empty), so the same format can write it back exactly; they
/// are never reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Vendor {
    /// The format the fields and hints belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// Source fields with no neutral equivalent, by their source name.
    #[serde(default, skip_serializing_if = "VendorMap::is_empty")]
    pub fields: VendorMap,
    /// How the source spelled what the neutral model normalizes.
    #[serde(default, skip_serializing_if = "VendorMap::is_empty")]
    pub hints: VendorMap,
}

/// The map of a [`Vendor`] record: a JSON object, its entries in insertion order.
///
/// A record holds one to three entries, so they are kept in one list (one allocation,
/// none while empty; a hash map would cost three and a hasher seed). Past
/// [`VendorMap::LIST_MAX`] entries (a body with many unknown fields) they move into a
/// serde_json [`Map`], so no operation turns quadratic on a large object.
///
/// It reads like a [`Map`] (`get`, `contains_key`, `iter`, `insert`, `remove`), with the
/// same entry order after any change. Equality is of the maps, in any order (an emptied
/// map equals one never filled).
#[derive(Debug, Clone)]
pub struct VendorMap(Entries);

#[derive(Debug, Clone)]
enum Entries {
    List(Vec<(String, Value)>),
    Map(Box<Map<String, Value>>),
}

impl Default for VendorMap {
    fn default() -> Self {
        VendorMap::new()
    }
}

impl PartialEq for VendorMap {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl VendorMap {
    /// The most entries kept in a list; one more moves them into a [`Map`].
    pub const LIST_MAX: usize = 16;

    /// An empty map (no allocation).
    pub const fn new() -> Self {
        VendorMap(Entries::List(Vec::new()))
    }

    /// Whether there is nothing in it.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        match &self.0 {
            Entries::List(l) => l.len(),
            Entries::Map(m) => m.len(),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            Entries::List(l) => l.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Entries::Map(m) => m.get(key),
        }
    }

    /// The value of `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match &mut self.0 {
            Entries::List(l) => l.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            Entries::Map(m) => m.get_mut(key),
        }
    }

    /// The value of `key`, inserted by `default` first if it is not there.
    pub fn get_or_insert_with(&mut self, key: &str, default: impl FnOnce() -> Value) -> &mut Value {
        if matches!(&self.0, Entries::List(l) if l.len() >= Self::LIST_MAX)
            && !self.contains_key(key)
        {
            self.promote();
        }
        match &mut self.0 {
            Entries::List(l) => {
                let i = match l.iter().position(|(k, _)| k == key) {
                    Some(i) => i,
                    None => {
                        l.push((key.to_owned(), default()));
                        l.len() - 1
                    }
                };
                &mut l[i].1
            }
            Entries::Map(m) => m.entry(key).or_insert_with(default),
        }
    }

    /// Moves a full list into a [`Map`] (entry order kept).
    fn promote(&mut self) {
        if let Entries::List(l) = &mut self.0 {
            let mut map = Map::with_capacity(l.len() + 1);
            map.extend(std::mem::take(l));
            self.0 = Entries::Map(Box::new(map));
        }
    }

    /// Whether `key` is in it.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entries, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.0 {
            Entries::List(l) => IterRepr::List(l.iter()),
            Entries::Map(m) => IterRepr::Map(m.iter()),
        })
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(k, _)| k)
    }

    /// Inserts `key`; an existing key keeps its place and its old value is returned (as
    /// [`Map::insert`]).
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match &mut self.0 {
            Entries::List(l) => {
                if let Some((_, v)) = l.iter_mut().find(|(k, _)| *k == key) {
                    return Some(std::mem::replace(v, value));
                }
                if l.len() < Self::LIST_MAX {
                    // Records rarely grow past one or two entries.
                    l.reserve_exact(1);
                    l.push((key, value));
                    return None;
                }
                self.promote();
                self.insert(key, value)
            }
            Entries::Map(m) => m.insert(key, value),
        }
    }

    /// Removes `key`, keeping the order of the rest.
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        match &mut self.0 {
            Entries::List(l) => {
                let i = l.iter().position(|(k, _)| k == key)?;
                Some(l.remove(i).1)
            }
            Entries::Map(m) => m.shift_remove(key),
        }
    }

    /// Removes `key`; the last entry takes its place (as [`Map::remove`] does with
    /// serde_json's `preserve_order`).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        match &mut self.0 {
            Entries::List(l) => {
                let i = l.iter().position(|(k, _)| k == key)?;
                Some(l.swap_remove(i).1)
            }
            Entries::Map(m) => m.remove(key),
        }
    }

    /// Keeps the entries `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Value) -> bool) {
        match &mut self.0 {
            Entries::List(l) => l.retain_mut(|(k, v)| keep(k, v)),
            Entries::Map(m) => m.retain(keep),
        }
    }

    /// Takes the entries out as a [`Map`], leaving it empty.
    pub fn take(&mut self) -> Map<String, Value> {
        std::mem::take(self).into_map()
    }

    /// The entries as a [`Map`].
    pub fn into_map(self) -> Map<String, Value> {
        match self.0 {
            Entries::List(l) if l.is_empty() => Map::new(),
            Entries::List(l) => {
                let mut map = Map::with_capacity(l.len());
                map.extend(l);
                map
            }
            Entries::Map(m) => *m,
        }
    }

    /// A copy of the entries as a [`Map`].
    pub fn to_map(&self) -> Map<String, Value> {
        self.clone().into_map()
    }
}

/// The entries of a [`VendorMap`], in order.
#[derive(Debug, Clone)]
pub struct Iter<'a>(IterRepr<'a>);

#[derive(Debug, Clone)]
enum IterRepr<'a> {
    List(std::slice::Iter<'a, (String, Value)>),
    Map(serde_json::map::Iter<'a>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::List(l) => l.next().map(|(k, v)| (k, v)),
            IterRepr::Map(m) => m.next(),
        }
    }
}

/// The entries of a [`VendorMap`], in order, by value.
#[derive(Debug)]
pub struct IntoIter(IntoIterRepr);

#[derive(Debug)]
enum IntoIterRepr {
    List(std::vec::IntoIter<(String, Value)>),
    Map(serde_json::map::IntoIter),
}

impl Iterator for IntoIter {
    type Item = (String, Value);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IntoIterRepr::List(l) => l.next(),
            IntoIterRepr::Map(m) => m.next(),
        }
    }
}

/// `map["key"]`: the value, or `null` when the key is not there (as indexing a
/// [`Value`] does).
impl std::ops::Index<&str> for VendorMap {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl Extend<(String, Value)> for VendorMap {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, entries: I) {
        for (k, v) in entries {
            self.insert(k, v);
        }
    }
}

impl FromIterator<(String, Value)> for VendorMap {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(entries: I) -> Self {
        let mut map = VendorMap::new();
        map.extend(entries);
        map
    }
}

impl From<Map<String, Value>> for VendorMap {
    fn from(map: Map<String, Value>) -> Self {
        if map.len() <= Self::LIST_MAX {
            VendorMap(Entries::List(map.into_iter().collect()))
        } else {
            VendorMap(Entries::Map(Box::new(map)))
        }
    }
}

impl From<VendorMap> for Map<String, Value> {
    fn from(map: VendorMap) -> Self {
        map.into_map()
    }
}

impl IntoIterator for VendorMap {
    type Item = (String, Value);
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter(match self.0 {
            Entries::List(l) => IntoIterRepr::List(l.into_iter()),
            Entries::Map(m) => IntoIterRepr::Map(m.into_iter()),
        })
    }
}

impl<'a> IntoIterator for &'a VendorMap {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Serialize for VendorMap {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for VendorMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(VendorMap::from)
    }
}

impl Vendor {
    /// Nothing kept.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.hints.is_empty()
    }

    /// A vendor record for `format` with the given fields.
    pub fn new(format: Format, fields: Map<String, Value>) -> Self {
        Vendor {
            format: Some(format),
            fields: fields.into(),
            hints: VendorMap::default(),
        }
    }

    /// The fields, if they belong to `format`.
    pub fn fields_for(&self, format: Format) -> Option<&VendorMap> {
        (self.format == Some(format)).then_some(&self.fields)
    }

    /// A hint, if the record belongs to `format`.
    pub fn hint(&self, format: Format, key: &str) -> Option<&Value> {
        if self.format == Some(format) {
            self.hints.get(key)
        } else {
            None
        }
    }

    /// Whether a boolean hint is set for `format`.
    pub fn flag(&self, format: Format, key: &str) -> bool {
        self.hint(format, key).and_then(Value::as_bool) == Some(true)
    }

    /// Sets a hint (and the format, if none yet).
    pub fn set_hint(&mut self, format: Format, key: &str, value: impl Into<Value>) {
        self.format.get_or_insert(format);
        self.hints.insert(key.to_owned(), value.into());
    }

    /// Adds a field (and sets the format, if none yet).
    pub fn set_field(&mut self, format: Format, key: &str, value: Value) {
        self.format.get_or_insert(format);
        self.fields.insert(key.to_owned(), value);
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A request: the conversation, the tools, and the generation settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Model id, as the source named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The conversation, in order.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Tool definitions, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Which tool the model must or may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Sampling, limits and reasoning settings.
    #[serde(default, skip_serializing_if = "is_default")]
    pub settings: Settings,
    /// Structured-output request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_format: Option<OutputFormat>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions (OpenAI `system`, Anthropic/Gemini/Bedrock top-level system, Responses
    /// `instructions`).
    System,
    /// Instructions from the developer (OpenAI `developer`): a system message for every
    /// format that has no separate role.
    Developer,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// Tool results (see the canonical form in the module docs).
    Tool,
}

impl Role {
    /// `system` or `developer`.
    pub fn is_system(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }

    /// The neutral name.
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said, in order.
    #[serde(default)]
    pub content: Vec<Part>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

impl Message {
    /// A message with the given role and parts.
    pub fn new(role: Role, content: Vec<Part>) -> Self {
        Message {
            role,
            content,
            vendor: Vendor::default(),
        }
    }

    /// A message with one text part.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message::new(role, vec![Part::text(text)])
    }

    /// The concatenated text parts.
    pub fn joined_text(&self) -> String {
        self.content
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A cache breakpoint: cache the prompt up to and including what carries it
/// (Anthropic `cache_control`, Bedrock `cachePoint`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    /// Time to live as the source gave it (`5m`, `1h`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

/// An opaque token (signature, encrypted reasoning) and the format that made it. It is
/// only ever sent back to that format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signed {
    /// The token, as received.
    pub value: String,
    /// The format whose API produced it.
    pub format: Format,
}

/// What every part may carry besides its content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PartMeta {
    /// A cache breakpoint after this part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
    /// A reasoning signature attached to this part (Gemini `thoughtSignature`, which may
    /// sit on a text or a function-call part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signed>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

impl PartMeta {
    /// Nothing carried.
    pub fn is_empty(&self) -> bool {
        self.cache.is_none() && self.signature.is_none() && self.vendor.is_empty()
    }
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text(Text),
    /// A refusal by the model (OpenAI `refusal`).
    Refusal(Text),
    /// An image.
    Image(Media),
    /// Audio.
    Audio(Media),
    /// A document or file (PDF, text, …).
    Document(Media),
    /// A JSON value (a tool's structured result: Bedrock `json`, Gemini `response`).
    Json(Json),
    /// A call of a tool by the model.
    ToolCall(ToolCall),
    /// The result of a tool call.
    ToolResult(ToolResult),
    /// The model's reasoning.
    Reasoning(Reasoning),
    /// A part only its own format understands (server-tool blocks, hosted-tool items,
    /// code execution), kept whole.
    Opaque(Opaque),
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(Text {
            text: text.into(),
            meta: PartMeta::default(),
        })
    }

    /// The part's kind, as in its neutral JSON `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            Part::Text(_) => "text",
            Part::Refusal(_) => "refusal",
            Part::Image(_) => "image",
            Part::Audio(_) => "audio",
            Part::Document(_) => "document",
            Part::Json(_) => "json",
            Part::ToolCall(_) => "tool_call",
            Part::ToolResult(_) => "tool_result",
            Part::Reasoning(_) => "reasoning",
            Part::Opaque(_) => "opaque",
        }
    }

    /// What the part carries besides its content.
    pub fn meta(&self) -> &PartMeta {
        match self {
            Part::Text(p) | Part::Refusal(p) => &p.meta,
            Part::Image(p) | Part::Audio(p) | Part::Document(p) => &p.meta,
            Part::Json(p) => &p.meta,
            Part::ToolCall(p) => &p.meta,
            Part::ToolResult(p) => &p.meta,
            Part::Reasoning(p) => &p.meta,
            Part::Opaque(p) => &p.meta,
        }
    }

    /// Mutable access to [`Part::meta`].
    pub fn meta_mut(&mut self) -> &mut PartMeta {
        match self {
            Part::Text(p) | Part::Refusal(p) => &mut p.meta,
            Part::Image(p) | Part::Audio(p) | Part::Document(p) => &mut p.meta,
            Part::Json(p) => &mut p.meta,
            Part::ToolCall(p) => &mut p.meta,
            Part::ToolResult(p) => &mut p.meta,
            Part::Reasoning(p) => &mut p.meta,
            Part::Opaque(p) => &mut p.meta,
        }
    }
}

/// A text (or refusal) part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Text {
    /// The text.
    pub text: String,
    /// Cache marker, signature, vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// Where media bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// An `http(s)` URL (or a provider file URI such as Gemini's Files API or `s3://`).
    Url {
        /// The URL.
        url: String,
    },
    /// Inline bytes, base64 (standard alphabet, as received).
    Base64 {
        /// The base64 text.
        data: String,
    },
    /// A file uploaded to the provider beforehand.
    FileId {
        /// The provider's file id.
        file_id: String,
    },
    /// Inline plain text (Anthropic text documents, Bedrock text sources).
    Text {
        /// The text.
        text: String,
    },
}

/// An image, audio clip or document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Media {
    /// Where the bytes are.
    pub source: Source,
    /// IANA media type (`image/png`, `application/pdf`, `audio/wav`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// File name or document title, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Cache marker, vendor fields (OpenAI `detail`, Anthropic `citations`, …).
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A JSON value as content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Json {
    /// The value.
    pub value: Value,
    /// Vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// Tool-call arguments: a JSON value, or the exact text the source carried.
///
/// Equality is by meaning: text equals a value when it parses to that value, so the
/// same call read from an object-arguments format and from a JSON-text format compares
/// equal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arguments {
    /// A JSON value (normally an object).
    Value(Value),
    /// JSON text as the model wrote it (OpenAI-family `arguments`), kept byte for byte.
    /// It may not be valid JSON.
    Text(String),
}

impl Arguments {
    /// The arguments as a value, if they are one or parse to one.
    pub fn value(&self) -> Option<Value> {
        match self {
            Arguments::Value(v) => Some(v.clone()),
            Arguments::Text(t) => serde_json::from_str(t).ok(),
        }
    }

    /// The arguments as JSON text: the source text when there is one, else compact JSON.
    pub fn text(&self) -> String {
        match self {
            Arguments::Value(v) => v.to_string(),
            Arguments::Text(t) => t.clone(),
        }
    }
}

impl PartialEq for Arguments {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Arguments::Text(a), Arguments::Text(b)) if a == b => true,
            (Arguments::Value(a), Arguments::Value(b)) => a == b,
            _ => match (self.value(), other.value()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}

/// A call of a tool by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id that results refer to.
    pub id: String,
    /// Whether `id` was made up by the decoder because the source had none (Gemini,
    /// Ollama); such an id is left out when writing back to a format without ids.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub synthetic_id: bool,
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub arguments: Arguments,
    /// Cache marker, signature (Gemini puts `thoughtSignature` on function calls), vendor
    /// fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name: from the source when it has one (Gemini, Ollama, Mistral),
    /// otherwise resolved from the matching call, so that it survives when the call is
    /// pruned from history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The result: text, JSON, images, documents.
    #[serde(default)]
    pub content: Vec<Part>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Cache marker, vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// The model's reasoning.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reasoning {
    /// The reasoning text, when the provider exposes it (Anthropic `thinking`, Bedrock
    /// `reasoningText`, Ollama/Mistral/Cohere thinking, Responses `reasoning_text`,
    /// Gemini thought parts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Summaries (Responses `summary_text` items).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// Signature over the reasoning (Anthropic `signature`, Bedrock `signature`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signed>,
    /// Encrypted or redacted reasoning (Responses `encrypted_content`, Anthropic
    /// `redacted_thinking.data`, Bedrock `redactedContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<Signed>,
    /// Provider id of the reasoning item (Responses `rs_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The format whose model produced this reasoning, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Format>,
    /// Cache marker, vendor fields.
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A part only its own format understands, kept whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opaque {
    /// The format it came from.
    pub format: Format,
    /// The part as the source wrote it.
    pub value: Value,
    /// Vendor fields (normally none: everything is in `value`).
    #[serde(flatten, default, skip_serializing_if = "PartMeta::is_empty")]
    pub meta: PartMeta,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Tool {
    /// A function the caller runs.
    Function(ToolDef),
    /// A tool only its own format knows (hosted web search, code execution, …), kept
    /// whole.
    Opaque(Opaque),
}

/// The schema language of a tool's input schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// JSON Schema (every format's schema field except Gemini `parameters`).
    #[default]
    JsonSchema,
    /// The OpenAPI 3.0 `Schema` subset of Gemini's `parameters` / `responseSchema`.
    GeminiOpenapi,
}

/// A function tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Schema of the input; `None` for a tool without parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// The schema language of `input_schema`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub dialect: Dialect,
    /// Schema of the output (MCP `outputSchema`, Gemini `responseJsonSchema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Strict schema adherence (OpenAI `strict`, Anthropic `strict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Cache breakpoint after this tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Cache>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

impl ToolDef {
    /// A tool with a name, a description and an input schema.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        ToolDef {
            name: name.into(),
            description: Some(description.into()),
            input_schema: Some(input_schema),
            dialect: Dialect::JsonSchema,
            output_schema: None,
            strict: None,
            cache: None,
            vendor: Vendor::default(),
        }
    }
}

/// Which tool the model must or may call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call (OpenAI `required`, Anthropic `any`, Gemini `ANY`).
    Required,
    /// This tool.
    Tool {
        /// Its name.
        name: String,
    },
    /// Only these tools (OpenAI `allowed_tools`, Gemini `allowedFunctionNames`).
    Allowed {
        /// The tool names.
        names: Vec<String>,
        /// Whether one of them must be called.
        required: bool,
    },
}

/// Reasoning settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReasoningConfig {
    /// On or off, when the source said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Effort level (`minimal`, `low`, `medium`, `high`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// Token budget (Anthropic `budget_tokens`, Gemini `thinkingBudget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<i64>,
    /// Ask for the reasoning (or its summary) in the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<bool>,
}

/// Generation settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Output-token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Number>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<Number>,
    /// Top-k sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Presence penalty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<Number>,
    /// Frequency penalty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<Number>,
    /// Whether the model may call several tools in one turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Reasoning effort or budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningConfig>,
    /// Stream the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
}

/// A structured-output request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputFormat {
    /// Plain text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching a schema.
    JsonSchema {
        /// Schema name, when the format has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The JSON Schema.
        schema: Value,
        /// Strict adherence.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

/// A response: one or more choices (most formats have exactly one), usage, metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Response id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When it was created, in Unix seconds: OpenAI Chat's and Mistral's `created`,
    /// Responses' `created_at`; Ollama's `created_at` and Vertex AI's `createTime` (RFC
    /// 3339 text) to the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u64>,
    /// The answers; the first is the one single-choice formats carry.
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// Token usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

/// One answer of a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The assistant message.
    pub message: Message,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

/// The kind of a stop reason, across formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// Natural end of the turn.
    EndTurn,
    /// A stop sequence matched.
    StopSequence,
    /// The output-token limit (or the context window) was reached.
    MaxTokens,
    /// The model called tools.
    ToolUse,
    /// A content filter or safety system stopped it (or the model refused).
    ContentFilter,
    /// A server-side tool loop paused (Anthropic `pause_turn`).
    Pause,
    /// The model produced a malformed call or output, or the provider failed.
    Error,
    /// A reason with no neutral kind: see [`StopReason::raw`].
    Other,
}

/// Why generation stopped: a neutral kind and the source's own spelling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopReason {
    /// The neutral kind.
    pub kind: StopKind,
    /// The value as the source spelled it (written back unchanged to the same format,
    /// and to any format when the kind is [`StopKind::Other`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// The format `raw` belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
}

impl StopReason {
    /// A stop reason of `kind` with no source spelling.
    pub fn new(kind: StopKind) -> Self {
        StopReason {
            kind,
            raw: None,
            format: None,
        }
    }

    /// The source spelling, if it belongs to `format`.
    pub fn raw_for(&self, format: Format) -> Option<&str> {
        if self.format == Some(format) {
            self.raw.as_deref()
        } else {
            None
        }
    }
}

/// Token usage. `input_tokens` counts every input token, cached ones included
/// (OpenAI's meaning; Anthropic's `input_tokens` is converted), and `output_tokens`
/// includes reasoning tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// All input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// All output tokens, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Total, when the source gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Input tokens read from a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Input tokens written to a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    /// Reasoning tokens (part of `output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Source fields with no neutral equivalent.
    #[serde(default, skip_serializing_if = "Vendor::is_empty")]
    pub vendor: Vendor,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One change to a map, applied to a `VendorMap` and to a serde_json `Map` alike.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u8),
        GetOrInsert(u8, u8),
        Remove(u8),
        ShiftRemove(u8),
        RetainOdd,
    }

    /// More keys than a list holds, so a map moves into a `Map` and keeps changing there;
    /// few enough that inserts hit existing keys and removes find them.
    const KEYS: u8 = VendorMap::LIST_MAX as u8 + 8;

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            // Inserts outweigh removes so that a map holds about 18 keys: it crosses
            // `LIST_MAX` often and is then changed as a `Map`.
            10 => (0u8..KEYS, any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => (0u8..KEYS, any::<u8>()).prop_map(|(k, v)| Op::GetOrInsert(k, v)),
            2 => (0u8..KEYS).prop_map(Op::Remove),
            2 => (0u8..KEYS).prop_map(Op::ShiftRemove),
            1 => Just(Op::RetainOdd),
        ]
    }

    proptest! {
        /// A `VendorMap` reads and writes like the `Map` it replaced: the same entries
        /// in the same order after any changes (the bytes an encoder writes from it
        /// depend on that order), the same answers to `get` and `insert`.
        #[test]
        fn vendor_map_behaves_as_a_map(ops in proptest::collection::vec(op(), 0..96)) {
            let mut ours = VendorMap::new();
            let mut map = Map::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        let (k, v) = (format!("k{k}"), Value::from(v));
                        prop_assert_eq!(ours.insert(k.clone(), v.clone()), map.insert(k, v));
                    }
                    Op::GetOrInsert(k, v) => {
                        let k = format!("k{k}");
                        let ours = ours.get_or_insert_with(&k, || Value::from(v)).clone();
                        prop_assert_eq!(&ours, map.entry(k).or_insert_with(|| Value::from(v)));
                    }
                    Op::Remove(k) => {
                        let k = format!("k{k}");
                        prop_assert_eq!(ours.remove(&k), map.remove(&k));
                    }
                    Op::ShiftRemove(k) => {
                        let k = format!("k{k}");
                        prop_assert_eq!(ours.shift_remove(&k), map.shift_remove(&k));
                    }
                    Op::RetainOdd => {
                        let odd = |_: &String, v: &mut Value| v.as_u64().is_some_and(|n| n % 2 == 1);
                        ours.retain(odd);
                        map.retain(odd);
                    }
                }
                prop_assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&map).unwrap());
                prop_assert_eq!(ours.len(), map.len());
                for k in 0..KEYS {
                    let k = format!("k{k}");
                    prop_assert_eq!(ours.get(&k), map.get(&k));
                    prop_assert_eq!(&ours[k.as_str()], map.get(&k).unwrap_or(&Value::Null));
                }
                prop_assert_eq!(ours.to_map(), map.clone());
            }
        }
    }

    #[test]
    fn a_large_vendor_map_moves_into_a_map() {
        // A body with many unknown fields must not make every insert and lookup a scan.
        let mut grown = VendorMap::new();
        for i in 0..VendorMap::LIST_MAX {
            grown.insert(format!("k{i}"), i.into());
        }
        assert!(matches!(grown.0, Entries::List(_)));
        grown.insert("one more".into(), Value::Null);
        assert!(matches!(grown.0, Entries::Map(_)));
        let big: Map<String, Value> = (0..1000).map(|i| (format!("k{i}"), i.into())).collect();
        let from = VendorMap::from(big.clone());
        assert!(matches!(from.0, Entries::Map(_)));
        assert_eq!(from.into_map(), big);
    }

    #[test]
    fn vendor_map_equality_ignores_order_and_an_empty_map_holds_nothing() {
        let empty = VendorMap::new();
        assert!(
            matches!(&empty.0, Entries::List(l) if l.capacity() == 0),
            "an empty map allocates nothing"
        );
        assert_eq!(
            std::mem::size_of::<VendorMap>(),
            24,
            "three words in every part"
        );
        let mut ab = VendorMap::new();
        ab.insert("a".into(), 1.into());
        ab.insert("b".into(), 2.into());
        let ba: VendorMap = [("b".to_owned(), 2.into()), ("a".to_owned(), 1.into())]
            .into_iter()
            .collect();
        assert_eq!(ab, ba);
        let mut emptied = ab.clone();
        emptied.retain(|_, _| false);
        assert_eq!(emptied, empty);
        ab.insert("b".into(), 3.into());
        assert_ne!(ab, ba, "a changed value");
        // Serde: written and read as the object it stands for.
        let text = serde_json::to_string(&ba).unwrap();
        assert_eq!(text, r#"{"b":2,"a":1}"#);
        let back: VendorMap = serde_json::from_str(&text).unwrap();
        assert_eq!(back.keys().collect::<Vec<_>>(), ["b", "a"]);
    }
}
