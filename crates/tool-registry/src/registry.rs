//! [`ToolRegistry`]: registration and dispatch.

use crate::exec::{BoxFuture, CatchUnwind, block_on, join_all};
use crate::{Error, ToolSpec};
use serde_json::Value;
use std::collections::BTreeMap;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use wire_convert::model::{Arguments, Json, Part, ToolCall, ToolResult};

/// What a handler returns on success.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// Plain text.
    Text(String),
    /// A JSON value (sent as JSON text where a format takes text, as structured content
    /// where it takes JSON).
    Json(Value),
    /// Content parts (text, images, documents) in the neutral model.
    Parts(Vec<Part>),
}

impl From<String> for ToolOutput {
    fn from(s: String) -> Self {
        ToolOutput::Text(s)
    }
}

impl From<&str> for ToolOutput {
    fn from(s: &str) -> Self {
        ToolOutput::Text(s.to_owned())
    }
}

impl From<Value> for ToolOutput {
    fn from(v: Value) -> Self {
        ToolOutput::Json(v)
    }
}

/// A handler's failure: the message the model will read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError(message.into())
    }
}

impl<E: std::fmt::Display> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError(e.to_string())
    }
}

/// What a handler returns.
pub type ToolResultOf = Result<ToolOutput, ToolError>;

/// The outcome of one call, as the model will see it: output or failure, never a panic.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The tool that was called.
    pub name: String,
    /// The output, or the message of the failure (bad arguments, handler error, panic,
    /// unknown tool).
    pub result: Result<ToolOutput, String>,
}

impl Outcome {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.result.is_err()
    }

    /// The outcome as a neutral tool result for the call `call_id`.
    pub fn into_tool_result(self, call_id: impl Into<String>) -> ToolResult {
        let (content, is_error) = match self.result {
            Ok(ToolOutput::Text(t)) => (vec![Part::text(t)], false),
            Ok(ToolOutput::Json(v)) => (
                vec![Part::Json(Json {
                    value: v,
                    meta: Default::default(),
                })],
                false,
            ),
            Ok(ToolOutput::Parts(p)) => (p, false),
            Err(message) => (vec![Part::text(message)], true),
        };
        ToolResult {
            call_id: call_id.into(),
            name: Some(self.name),
            content,
            is_error,
            meta: Default::default(),
        }
    }
}

type SyncFn = dyn Fn(Value) -> ToolResultOf + Send + Sync;
type AsyncFn = dyn Fn(Value) -> BoxFuture<ToolResultOf> + Send + Sync;

enum Handler {
    Sync(Box<SyncFn>),
    Async(Box<AsyncFn>),
}

struct Entry {
    spec: ToolSpec,
    handler: Handler,
    #[cfg(feature = "validate")]
    validator: Option<jsonschema::Validator>,
}

/// Tools registered once, served to every provider, dispatched safely.
///
/// * Registration validates the name and the schema (a bad schema fails here, not at
///   call time); a second tool with the same name is an error.
/// * Dispatch never panics and never lets a handler's panic through: a panic, a handler
///   error, arguments that are not JSON or do not match the schema all become a failed
///   [`Outcome`] the model can read and correct.
/// * The registry is `Send + Sync`: share it in an `Arc` and dispatch from any thread.
///
/// ```
/// use tool_registry::{ToolRegistry, ToolSpec};
/// use serde_json::json;
///
/// let mut registry = ToolRegistry::new();
/// registry.register(
///     ToolSpec::new("add", "Adds two numbers", json!({
///         "type": "object",
///         "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///         "required": ["a", "b"]
///     }))?,
///     |input| Ok(json!(input["a"].as_f64().unwrap_or(0.0) + input["b"].as_f64().unwrap_or(0.0)).into()),
/// )?;
/// let out = registry.dispatch("add", json!({"a": 1, "b": 2}))?;
/// assert_eq!(out.result, Ok(json!(3.0).into()));
/// // Arguments that break the schema are a failed result, not an error.
/// let bad = registry.dispatch("add", json!({"a": 1}))?;
/// assert!(bad.is_error());
/// # Ok::<(), tool_registry::Error>(())
/// ```
#[derive(Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<Entry>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn insert(&mut self, spec: ToolSpec, handler: Handler, validate: bool) -> Result<(), Error> {
        if self.tools.contains_key(spec.name()) {
            return Err(Error::Duplicate(spec.name().to_owned()));
        }
        #[cfg(feature = "validate")]
        let validator = if validate {
            Some(
                jsonschema::validator_for(spec.input_schema()).map_err(|e| Error::Schema {
                    tool: spec.name().to_owned(),
                    message: format!("the input schema does not compile: {e}"),
                })?,
            )
        } else {
            None
        };
        #[cfg(not(feature = "validate"))]
        let _ = validate;
        let name = spec.name().to_owned();
        self.tools.insert(
            name,
            Arc::new(Entry {
                spec,
                handler,
                #[cfg(feature = "validate")]
                validator,
            }),
        );
        Ok(())
    }

    /// Registers a tool with a synchronous handler. The handler receives the arguments
    /// (unwrapped from `{"input": …}` for a non-object schema), checked against the
    /// schema first when the `validate` feature is on.
    pub fn register<F>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(Value) -> ToolResultOf + Send + Sync + 'static,
    {
        self.insert(spec, Handler::Sync(Box::new(handler)), true)
    }

    /// Registers a tool with an async handler. No runtime is assumed: the future is polled
    /// by whoever awaits the dispatch (or by the built-in `block_on` of the blocking
    /// methods).
    pub fn register_async<F, Fut>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResultOf> + Send + 'static,
    {
        let boxed = move |v: Value| -> BoxFuture<ToolResultOf> { Box::pin(handler(v)) };
        self.insert(spec, Handler::Async(Box::new(boxed)), true)
    }

    /// Registers a tool whose input is a Rust type: the schema comes from schemars, and
    /// the arguments are deserialized before the handler runs; arguments that do not fit
    /// give the model a failed result naming the field and why.
    ///
    /// ```
    /// use tool_registry::ToolRegistry;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Weather { city: String, days: Option<u8> }
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register_typed("get_weather", "Weather forecast", |w: Weather| {
    ///     Ok::<_, std::convert::Infallible>(format!("{}: sunny for {} days", w.city, w.days.unwrap_or(1)))
    /// })?;
    /// let out = registry.dispatch("get_weather", serde_json::json!({"city": "Paris"}))?;
    /// assert_eq!(out.result, Ok("Paris: sunny for 1 days".into()));
    /// let bad = registry.dispatch("get_weather", serde_json::json!({"city": 3}))?;
    /// assert_eq!(bad.result.unwrap_err(), "invalid arguments for get_weather: /city: invalid type: integer `3`, expected a string");
    /// # Ok::<(), tool_registry::Error>(())
    /// ```
    #[cfg(feature = "schemars")]
    pub fn register_typed<I, O, E, F>(
        &mut self,
        name: &str,
        description: &str,
        handler: F,
    ) -> Result<(), Error>
    where
        I: serde::de::DeserializeOwned + schemars::JsonSchema,
        O: Into<ToolOutput>,
        E: std::fmt::Display,
        F: Fn(I) -> Result<O, E> + Send + Sync + 'static,
    {
        let schema = schemars::schema_for!(I).to_value();
        let spec = ToolSpec::new(name, description, schema)?;
        let tool = name.to_owned();
        let f = move |v: Value| -> ToolResultOf {
            let input: I = wire_types::from_value(&v)
                .map_err(|e| ToolError(format!("invalid arguments for {tool}: {e}")))?;
            handler(input)
                .map(Into::into)
                .map_err(|e| ToolError(e.to_string()))
        };
        // serde checks the input; the generated schema need not be compiled too.
        self.insert(spec, Handler::Sync(Box::new(f)), false)
    }

    /// The registered specs, sorted by name.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.tools.values().map(|e| &e.spec)
    }

    /// The spec of one tool.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.get(name).map(|e| &e.spec)
    }

    /// The names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// Calls a tool with a JSON value. An unknown tool is an error; everything that goes
    /// wrong inside the call is a failed [`Outcome`].
    pub fn dispatch(&self, name: &str, input: Value) -> Result<Outcome, Error> {
        let entry = self.entry(name)?;
        Ok(block_on(run(entry, input)))
    }

    /// [`ToolRegistry::dispatch`] for async callers.
    pub async fn dispatch_async(&self, name: &str, input: Value) -> Result<Outcome, Error> {
        let entry = self.entry(name)?;
        Ok(run(entry, input).await)
    }

    /// Calls the tool a model asked for. Never fails: an unknown tool, arguments that
    /// are not JSON, and every failure of the call itself become a failed result.
    pub fn dispatch_call(&self, call: &ToolCall) -> ToolResult {
        block_on(self.dispatch_call_async(call))
    }

    /// [`ToolRegistry::dispatch_call`] for async callers.
    pub async fn dispatch_call_async(&self, call: &ToolCall) -> ToolResult {
        self.call_future(call)
            .await
            .into_tool_result(call.id.clone())
    }

    /// Runs the calls of one model turn concurrently and returns the results in call
    /// order.
    pub async fn dispatch_all(&self, calls: &[ToolCall]) -> Vec<ToolResult> {
        // Synchronous handlers run as their calls are started, in call order; the async
        // ones are then polled together, each holding its slot with a stand-in result.
        let mut results: Vec<ToolResult> = Vec::with_capacity(calls.len());
        let mut running: Vec<(usize, BoxFuture<Outcome>)> = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let outcome = match self.start_call(call) {
                Started::Done(outcome) => outcome,
                Started::Running(future) => {
                    running.push((i, future));
                    Outcome {
                        name: call.name.clone(),
                        result: Err("the call did not finish".to_owned()),
                    }
                }
            };
            results.push(outcome.into_tool_result(call.id.clone()));
        }
        if !running.is_empty() {
            let (at, futures): (Vec<usize>, Vec<_>) = running.into_iter().unzip();
            for (i, outcome) in at.into_iter().zip(join_all(futures).await) {
                if let (Some(slot), Some(call)) = (results.get_mut(i), calls.get(i)) {
                    *slot = outcome.into_tool_result(call.id.clone());
                }
            }
        }
        results
    }

    /// [`ToolRegistry::dispatch_all`], blocking: async handlers are polled concurrently
    /// on this thread, synchronous ones run one after another.
    pub fn dispatch_all_blocking(&self, calls: &[ToolCall]) -> Vec<ToolResult> {
        block_on(self.dispatch_all(calls))
    }

    fn entry(&self, name: &str) -> Result<Arc<Entry>, Error> {
        self.tools
            .get(name)
            .cloned()
            .ok_or_else(|| Error::UnknownTool {
                name: name.to_owned(),
                available: self.tools.keys().cloned().collect(),
            })
    }

    fn call_future(&self, call: &ToolCall) -> BoxFuture<Outcome> {
        match self.start_call(call) {
            Started::Done(outcome) => Box::pin(std::future::ready(outcome)),
            Started::Running(future) => future,
        }
    }

    /// Starts one call: everything up to an async handler's future, which is handed back
    /// to be polled; the rest (a synchronous handler, any failure) is done here.
    fn start_call(&self, call: &ToolCall) -> Started {
        let Some(entry) = self.tools.get(&call.name) else {
            let available: Vec<&str> = self.names().collect();
            let message = format!(
                "unknown tool `{}`; available tools: {}",
                call.name,
                if available.is_empty() {
                    "none".to_owned()
                } else {
                    available.join(", ")
                }
            );
            return Started::Done(Outcome {
                name: call.name.clone(),
                result: Err(message),
            });
        };
        let input = match &call.arguments {
            Arguments::Value(Value::Null) => Value::Object(Default::default()),
            Arguments::Value(v) => v.clone(),
            // No arguments: empty text, or `null` (Cohere sends "null" for a tool
            // without parameters).
            Arguments::Text(t) if t.trim().is_empty() || t.trim() == "null" => {
                Value::Object(Default::default())
            }
            Arguments::Text(t) => match serde_json::from_str::<Value>(t) {
                Ok(v) => v,
                Err(e) => {
                    let name = &call.name;
                    return Started::Done(Outcome {
                        name: name.clone(),
                        result: Err(format!(
                            "the arguments of `{name}` are not valid JSON ({e}); send a JSON object"
                        )),
                    });
                }
            },
        };
        start(entry, input)
    }
}

/// A call after [`start`]: finished, or an async handler still to be polled.
enum Started {
    Done(Outcome),
    Running(BoxFuture<Outcome>),
}

/// One call: unwrap, validate, run the handler with panics caught.
async fn run(entry: Arc<Entry>, input: Value) -> Outcome {
    match start(&entry, input) {
        Started::Done(outcome) => outcome,
        Started::Running(future) => future.await,
    }
}

/// [`run`] up to an async handler's future: a synchronous handler runs here, so a
/// turn of synchronous calls needs no future at all.
fn start(entry: &Entry, input: Value) -> Started {
    let name = entry.spec.name().to_owned();
    let input = if entry.spec.wraps_input() {
        match input {
            Value::Object(mut m) if m.contains_key("input") && m.len() == 1 => {
                m.shift_remove("input").unwrap_or(Value::Null)
            }
            other => other,
        }
    } else {
        input
    };
    #[cfg(feature = "validate")]
    // `is_valid` first: it stops at the first problem and builds no error, so valid
    // input (the common case) costs no allocation.
    if let Some(v) = entry.validator.as_ref().filter(|v| !v.is_valid(&input)) {
        let problems: Vec<String> = v
            .iter_errors(&input)
            .take(5)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "/".to_owned() } else { at })
            })
            .collect();
        if !problems.is_empty() {
            let result = Err(format!(
                "invalid arguments for {name}: {}",
                problems.join("; ")
            ));
            return Started::Done(Outcome { name, result });
        }
    }
    let panicked = |name: &str, payload: &(dyn std::any::Any + Send)| {
        format!(
            "tool {name} panicked: {}",
            crate::exec::panic_message(payload)
        )
    };
    match &entry.handler {
        Handler::Sync(f) => {
            let result = match catch_unwind(AssertUnwindSafe(|| f(input))) {
                Ok(r) => r.map_err(|e| e.0),
                Err(payload) => Err(panicked(&name, payload.as_ref())),
            };
            Started::Done(Outcome { name, result })
        }
        Handler::Async(f) => match catch_unwind(AssertUnwindSafe(|| f(input))) {
            Ok(fut) => Started::Running(Box::pin(async move {
                let result = match CatchUnwind::new(fut).await {
                    Ok(r) => r.map_err(|e| e.0),
                    Err(panic) => Err(format!("tool {name} panicked: {panic}")),
                };
                Outcome { name, result }
            })),
            Err(payload) => {
                let result = Err(panicked(&name, payload.as_ref()));
                Started::Done(Outcome { name, result })
            }
        },
    }
}
