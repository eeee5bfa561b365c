//! [`ToolRegistry`]: registration and dispatch.

use crate::exec::{BoxFuture, CatchUnwind, Job, block_on, join_all, run_bounded};
use crate::{CallContext, Error, ToolSpec};
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

/// Why a call failed: the one failure type of a tool call, whatever went wrong.
///
/// Handlers return it (`Err("no such city".into())`, or `?` on any error that is
/// `Display`); the registry makes it for everything that goes wrong around the handler
/// (unknown tool, bad arguments, a panic). Its [`message`](ToolError::message) is written
/// for the model, which reads it as the failed result and can correct its call.
///
/// It does not implement `Display` itself: the blanket `From<E: Display>` that lets a
/// handler use `?` on any error would then conflict with `From<T> for T`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    content: Vec<Part>,
}

/// What kind of failure a [`ToolError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// No tool of that name is registered (the message lists the tools that are).
    UnknownTool,
    /// The arguments are not JSON, break the input schema, or do not deserialize into a
    /// typed tool's input.
    InvalidArguments,
    /// The handler returned an error.
    Failed,
    /// The handler panicked (the registry caught it and keeps serving).
    Panicked,
    /// The handler's output breaks the tool's declared output schema (the MCP server
    /// checks `structuredContent`).
    InvalidOutput,
}

impl ToolError {
    /// A handler failure ([`ToolErrorKind::Failed`]) with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::of(ToolErrorKind::Failed, message)
    }

    /// A failure of a given kind.
    pub fn of(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            content: Vec::new(),
        }
    }

    /// Adds content parts after the message (an image of the failure, say); the model
    /// sees the message first, then these.
    pub fn with_content(mut self, parts: Vec<Part>) -> Self {
        self.content = parts;
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The message the model reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The content parts after the message (normally none).
    pub fn content(&self) -> &[Part] {
        &self.content
    }
}

impl<E: std::fmt::Display> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError::new(e.to_string())
    }
}

/// What a handler returns, and what a dispatch gives back.
pub type ToolResultOf = Result<ToolOutput, ToolError>;

/// A call's result as the neutral model's tool result for call `call_id` of `name`.
pub(crate) fn to_tool_result(
    result: ToolResultOf,
    name: String,
    call_id: impl Into<String>,
) -> ToolResult {
    let (content, is_error) = match result {
        Ok(ToolOutput::Text(t)) => (vec![Part::text(t)], false),
        Ok(ToolOutput::Json(v)) => (
            vec![Part::Json(Json {
                value: v,
                meta: Default::default(),
            })],
            false,
        ),
        Ok(ToolOutput::Parts(p)) => (p, false),
        Err(e) => {
            let mut parts = Vec::with_capacity(1 + e.content.len());
            parts.push(Part::text(e.message));
            parts.extend(e.content);
            (parts, true)
        }
    };
    ToolResult {
        call_id: call_id.into(),
        name: Some(name),
        content,
        is_error,
        meta: Default::default(),
    }
}

/// One finished call: the tool's name and its result.
pub(crate) struct Done {
    pub(crate) name: String,
    pub(crate) result: ToolResultOf,
}

impl Done {
    fn into_tool_result(self, call_id: impl Into<String>) -> ToolResult {
        to_tool_result(self.result, self.name, call_id)
    }
}

type SyncFn = dyn Fn(Value, &CallContext) -> ToolResultOf + Send + Sync;
type AsyncFn = dyn Fn(Value, CallContext) -> BoxFuture<ToolResultOf> + Send + Sync;

enum Handler {
    Sync(Box<SyncFn>),
    Async(Box<AsyncFn>),
}

/// A registered tool: its spec, its handler, and its compiled schemas.
pub(crate) struct Entry {
    pub(crate) spec: ToolSpec,
    handler: Handler,
    #[cfg(feature = "validate")]
    validator: Option<jsonschema::Validator>,
    /// The output schema, compiled (MCP checks `structuredContent` against it).
    #[cfg(feature = "validate")]
    pub(crate) output_validator: Option<jsonschema::Validator>,
    /// How long the synchronous handler took the last time it ran, in nanoseconds
    /// (`u64::MAX` until it has run): a handler known to be quick runs on the calling
    /// thread, since starting a thread costs more.
    last_run: std::sync::atomic::AtomicU64,
}

/// A synchronous handler that last returned within this many nanoseconds is quick: it
/// runs on the calling thread (starting a thread costs about as much, and more on a
/// loaded machine).
const QUICK_NANOS: u64 = 50_000;

/// Tools registered once, served to every provider, dispatched safely.
///
/// * Registration validates the name and the schema (a bad schema fails here, not at
///   call time); a second tool with the same name is an error.
/// * Dispatch never panics and never lets a handler's panic through: a panic, a handler
///   error, an unknown tool, arguments that are not JSON or do not match the schema all
///   become a [`ToolError`] the model can read and correct.
/// * The registry is `Send + Sync`: share it in an `Arc` and dispatch from any thread.
/// * Naming: the plain method blocks until the call is done (async handlers are driven
///   on the calling thread, no runtime needed); the `_async` method is the same call as a
///   future, for callers on an async runtime.
///
/// ```
/// use tool_registry::{ToolErrorKind, ToolRegistry, ToolSpec};
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
/// assert_eq!(registry.dispatch("add", json!({"a": 1, "b": 2})), Ok(json!(3.0).into()));
/// // Arguments that break the schema are a failure the model can read.
/// let bad = registry.dispatch("add", json!({"a": 1})).unwrap_err();
/// assert_eq!(bad.kind(), ToolErrorKind::InvalidArguments);
/// assert_eq!(bad.message(), "invalid arguments for add: /: \"b\" is a required property");
/// # Ok::<(), tool_registry::Error>(())
/// ```
#[derive(Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<Entry>>,
    /// At most this many synchronous handlers of one turn at once (`None`: the default).
    max_parallel: Option<usize>,
    /// Per format (indexed as [`wire_types::Format::ALL`]), the names [`ToolRegistry::names_for`]
    /// gives: made on first use, so a step does not check every registered name again;
    /// emptied whenever the tools change.
    pub(crate) names: [std::sync::OnceLock<wire_convert::NameMap>; wire_types::Format::ALL.len()],
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

    /// Sets how many synchronous handlers of one model turn may run at once, each on its
    /// own thread ([`ToolRegistry::dispatch_all`] and the agent step); `1` runs them one
    /// after another on the calling thread, and `0` is taken as `1`. The default is the
    /// machine's available parallelism, at most 8.
    ///
    /// ```
    /// let mut registry = tool_registry::ToolRegistry::new();
    /// assert!((1..=8).contains(&registry.max_parallel()));
    /// registry.set_max_parallel(2);
    /// assert_eq!(registry.max_parallel(), 2);
    /// ```
    pub fn set_max_parallel(&mut self, n: usize) -> &mut Self {
        self.max_parallel = Some(n.max(1));
        self
    }

    /// How many synchronous handlers of one turn may run at once (see
    /// [`ToolRegistry::set_max_parallel`]).
    pub fn max_parallel(&self) -> usize {
        self.max_parallel
            .unwrap_or_else(crate::exec::default_workers)
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
        #[cfg(feature = "validate")]
        let output_validator = match spec.output_schema() {
            Some(schema) => Some(
                jsonschema::validator_for(schema).map_err(|e| Error::Schema {
                    tool: spec.name().to_owned(),
                    message: format!("the output schema does not compile: {e}"),
                })?,
            ),
            None => None,
        };
        #[cfg(not(feature = "validate"))]
        let _ = validate;
        let name = spec.name().to_owned();
        self.names = Default::default();
        self.tools.insert(
            name,
            Arc::new(Entry {
                spec,
                handler,
                #[cfg(feature = "validate")]
                validator,
                #[cfg(feature = "validate")]
                output_validator,
                last_run: std::sync::atomic::AtomicU64::new(u64::MAX),
            }),
        );
        Ok(())
    }

    /// Registers a tool whose arguments are not checked here (an MCP server's tool,
    /// which checks its own).
    pub(crate) fn register_unchecked<F>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(Value, &CallContext) -> ToolResultOf + Send + Sync + 'static,
    {
        self.insert(spec, Handler::Sync(Box::new(handler)), false)
    }

    /// Removes a tool; returns whether it was there. Calls already running finish.
    pub fn remove(&mut self, name: &str) -> bool {
        self.names = Default::default();
        self.tools.remove(name).is_some()
    }

    /// Registers a tool with a synchronous handler. The handler receives the arguments
    /// (unwrapped from `{"input": …}` for a non-object schema), checked against the
    /// schema first when the `validate` feature is on.
    pub fn register<F>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(Value) -> ToolResultOf + Send + Sync + 'static,
    {
        self.register_with_context(spec, move |v, _: &CallContext| handler(v))
    }

    /// [`ToolRegistry::register`] for a handler that also gets its call's
    /// [`CallContext`]: to report progress and log messages (MCP sends them to the
    /// client) and to stop early when the call is cancelled.
    ///
    /// ```
    /// use tool_registry::{LogLevel, ToolRegistry, ToolSpec};
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register_with_context(
    ///     ToolSpec::new("count", "Counts to three, slowly", serde_json::json!({"type": "object"}))?,
    ///     |_, ctx| {
    ///         for i in 1..=3 {
    ///             if ctx.wait(std::time::Duration::from_millis(1)) {
    ///                 return Err("cancelled".into());
    ///             }
    ///             ctx.progress(f64::from(i), Some(3.0), None);
    ///         }
    ///         ctx.log(LogLevel::Info, "counted");
    ///         Ok("3".into())
    ///     },
    /// )?;
    /// assert_eq!(registry.dispatch("count", serde_json::json!({})), Ok("3".into()));
    /// # Ok::<(), tool_registry::Error>(())
    /// ```
    pub fn register_with_context<F>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(Value, &CallContext) -> ToolResultOf + Send + Sync + 'static,
    {
        self.insert(spec, Handler::Sync(Box::new(handler)), true)
    }

    /// Registers a custom tool ([`ToolSpec::custom`]): the handler gets the model's input
    /// text (a Responses `custom_tool_call`'s `input`, or the `input` member of a function
    /// call in the other formats). A spec that is not custom is an error.
    ///
    /// ```
    /// use tool_registry::{ToolRegistry, ToolSpec};
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register_custom(ToolSpec::custom("shout", "Upper-cases text")?, |text| {
    ///     Ok(text.to_uppercase().into())
    /// })?;
    /// assert_eq!(registry.dispatch("shout", "hi".into()), Ok("HI".into()));
    /// assert_eq!(registry.dispatch("shout", serde_json::json!({"input": "hi"})), Ok("HI".into()));
    /// # Ok::<(), tool_registry::Error>(())
    /// ```
    pub fn register_custom<F>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(String) -> ToolResultOf + Send + Sync + 'static,
    {
        if !spec.is_custom() {
            return Err(Error::Schema {
                tool: spec.name().to_owned(),
                message: "register_custom takes a custom tool (ToolSpec::custom)".to_owned(),
            });
        }
        let tool = spec.name().to_owned();
        self.register(spec, move |v| match v {
            Value::String(text) => handler(text),
            other => Err(ToolError::of(
                ToolErrorKind::InvalidArguments,
                format!("invalid arguments for {tool}: expected the input text, found {other}"),
            )),
        })
    }

    /// Registers a tool with an async handler. No runtime is assumed: the future is polled
    /// by whoever awaits the `_async` dispatch, or driven on the calling thread by the
    /// blocking methods.
    pub fn register_async<F, Fut>(&mut self, spec: ToolSpec, handler: F) -> Result<(), Error>
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResultOf> + Send + 'static,
    {
        self.register_async_with_context(spec, move |v, _: CallContext| handler(v))
    }

    /// [`ToolRegistry::register_async`] for a handler that also gets its call's
    /// [`CallContext`] (its own clone, to keep across `.await`s). When an MCP call is
    /// cancelled, the server stops polling the future and drops it.
    pub fn register_async_with_context<F, Fut>(
        &mut self,
        spec: ToolSpec,
        handler: F,
    ) -> Result<(), Error>
    where
        F: Fn(Value, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResultOf> + Send + 'static,
    {
        let boxed = move |v: Value, ctx: CallContext| -> BoxFuture<ToolResultOf> {
            Box::pin(handler(v, ctx))
        };
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
    /// let out = registry.dispatch("get_weather", serde_json::json!({"city": "Paris"}));
    /// assert_eq!(out, Ok("Paris: sunny for 1 days".into()));
    /// let bad = registry.dispatch("get_weather", serde_json::json!({"city": 3})).unwrap_err();
    /// assert_eq!(bad.message(), "invalid arguments for get_weather: /city: invalid type: integer `3`, expected a string");
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
        let f = move |v: Value, _: &CallContext| -> ToolResultOf {
            let input: I = wire_types::from_value(&v).map_err(|e| {
                ToolError::of(
                    ToolErrorKind::InvalidArguments,
                    format!("invalid arguments for {tool}: {e}"),
                )
            })?;
            handler(input)
                .map(Into::into)
                .map_err(|e| ToolError::new(e.to_string()))
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

    /// Calls a tool with a JSON value, blocking until it is done. Everything that goes
    /// wrong, an unknown tool included, is a [`ToolError`].
    pub fn dispatch(&self, name: &str, input: Value) -> ToolResultOf {
        block_on(self.dispatch_async(name, input))
    }

    /// [`ToolRegistry::dispatch`] as a future.
    pub async fn dispatch_async(&self, name: &str, input: Value) -> ToolResultOf {
        let done = match self.tools.get(name) {
            None => self.unknown(name),
            Some(entry) => match start(entry, input, &CallContext::none().with_call(None, name)) {
                Started::Done(done) => done,
                Started::Running(future) => future.await,
            },
        };
        done.result
    }

    /// Calls the tool a model asked for, blocking until it is done. Never fails: an
    /// unknown tool, arguments that are not JSON, and every failure of the call itself
    /// become a failed result.
    pub fn dispatch_call(&self, call: &ToolCall) -> ToolResult {
        block_on(self.dispatch_call_async(call))
    }

    /// [`ToolRegistry::dispatch_call`] as a future.
    pub async fn dispatch_call_async(&self, call: &ToolCall) -> ToolResult {
        let done = match self.prepare_call(call) {
            Prepared::Done(done) => done,
            Prepared::Ready(entry, input, ctx) => match run(&entry, input, &ctx) {
                Started::Done(done) => done,
                Started::Running(future) => future.await,
            },
        };
        done.into_tool_result(call.id.clone())
    }

    /// Runs the calls of one model turn concurrently and returns the results in call
    /// order, blocking until all are done: synchronous handlers run in parallel, each on
    /// its own thread, at most [`ToolRegistry::max_parallel`] at once (one call runs on
    /// the calling thread); then async handlers are polled together on this thread.
    /// Each handler's [`CallContext`] names its call (id and tool name).
    ///
    /// A synchronous handler that returned within 50 µs the last time it ran runs on the
    /// calling thread, in call order, as the calls are read: starting a thread costs more
    /// than that. A handler runs in parallel with the others the first time, and whenever
    /// it was slower last time.
    pub fn dispatch_all(&self, calls: &[ToolCall]) -> Vec<ToolResult> {
        block_on(self.dispatch_all_async(calls))
    }

    /// [`ToolRegistry::dispatch_all`] as a future (the synchronous handlers block the
    /// task that polls it while they run, as they would if called directly).
    pub async fn dispatch_all_async(&self, calls: &[ToolCall]) -> Vec<ToolResult> {
        // Every call is prepared first (unknown tools, bad arguments settled here; a quick
        // synchronous handler run at once); the other synchronous handlers then run on
        // scoped threads, and the async ones are polled together. A slot stays empty until its call is done; one still empty at the
        // end (a handler that panicked past its guard, a thread that could not start)
        // gets the stand-in failure.
        let mut slots: Vec<Option<Done>> = Vec::with_capacity(calls.len());
        let mut sync: Vec<(usize, Arc<Entry>, Value, CallContext)> = Vec::new();
        let mut running: Vec<(usize, BoxFuture<Done>)> = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let done = match self.prepare_call(call) {
                Prepared::Done(done) => Some(done),
                // A quick one runs here and now: no job boxed, no thread started.
                Prepared::Ready(entry, input, ctx) if entry.is_sync() && entry.is_quick() => {
                    match run(&entry, input, &ctx) {
                        Started::Done(done) => Some(done),
                        Started::Running(_) => None,
                    }
                }
                Prepared::Ready(entry, input, ctx) if entry.is_sync() => {
                    sync.push((i, entry, input, ctx));
                    None
                }
                Prepared::Ready(entry, input, ctx) => match run(&entry, input, &ctx) {
                    Started::Done(done) => Some(done),
                    Started::Running(future) => {
                        running.push((i, future));
                        None
                    }
                },
            };
            slots.push(done);
        }
        if !sync.is_empty() {
            let workers = self.max_parallel();
            let (at, jobs): (Vec<usize>, Vec<Job<'_, Done>>) = sync
                .into_iter()
                .map(|(i, entry, input, ctx)| {
                    let job: Job<'_, Done> = Box::new(move || match run(&entry, input, &ctx) {
                        Started::Done(done) => done,
                        // Not reached: the entry's handler is synchronous.
                        Started::Running(_) => unfinished(entry.spec.name()),
                    });
                    (i, job)
                })
                .unzip();
            for (i, done) in at.into_iter().zip(run_bounded(jobs, workers)) {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = done;
                }
            }
        }
        if !running.is_empty() {
            let (at, futures): (Vec<usize>, Vec<_>) = running.into_iter().unzip();
            for (i, done) in at.into_iter().zip(join_all(futures).await) {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = Some(done);
                }
            }
        }
        slots
            .into_iter()
            .zip(calls)
            .map(|(done, call)| {
                done.unwrap_or_else(|| unfinished(&call.name))
                    .into_tool_result(call.id.clone())
            })
            .collect()
    }

    /// The failure of a call to a tool nobody registered, listing the ones that are.
    fn unknown(&self, name: &str) -> Done {
        Done {
            name: name.to_owned(),
            result: Err(ToolError::of(
                ToolErrorKind::UnknownTool,
                self.unknown_message(name),
            )),
        }
    }

    /// What the model reads when it calls a tool nobody registered.
    pub(crate) fn unknown_message(&self, name: &str) -> String {
        let available: Vec<&str> = self.names().collect();
        format!(
            "unknown tool `{name}`; available tools: {}",
            if available.is_empty() {
                "none".to_owned()
            } else {
                available.join(", ")
            }
        )
    }

    /// The specs after a bound, sorted by name (the MCP server's pages).
    pub(crate) fn specs_after(
        &self,
        after: std::ops::Bound<&str>,
    ) -> impl Iterator<Item = &ToolSpec> {
        self.tools
            .range::<str, _>((after, std::ops::Bound::Unbounded))
            .map(|(_, e)| &e.spec)
    }

    /// Prepares one call: its tool found, its arguments read, unwrapped and checked; any
    /// failure is the call's result.
    fn prepare_call(&self, call: &ToolCall) -> Prepared {
        let Some(entry) = self.tools.get(&call.name) else {
            return Prepared::Done(self.unknown(&call.name));
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
                    return Prepared::Done(Done {
                        name: name.clone(),
                        result: Err(ToolError::of(
                            ToolErrorKind::InvalidArguments,
                            format!(
                                "the arguments of `{name}` are not valid JSON ({e}); send a JSON object"
                            ),
                        )),
                    });
                }
            },
        };
        let ctx = CallContext::none().with_call(Some(call.id.clone()), call.name.as_str());
        match prepare(entry, input) {
            Ok(input) => Prepared::Ready(entry.clone(), input, ctx),
            Err(done) => Prepared::Done(done),
        }
    }

    /// The entry of a tool, shared (a call holds it while it runs).
    pub(crate) fn entry(&self, name: &str) -> Option<Arc<Entry>> {
        self.tools.get(name).cloned()
    }
}

/// A call after [`start`]: finished, or an async handler still to be polled.
pub(crate) enum Started {
    Done(Done),
    Running(BoxFuture<Done>),
}

/// A call after [`ToolRegistry::prepare_call`]: settled already (an unknown tool, bad
/// arguments), or ready to run with its checked input and its context.
enum Prepared {
    Done(Done),
    Ready(Arc<Entry>, Value, CallContext),
}

/// The stand-in result of a call whose handler is still to run.
fn unfinished(name: &str) -> Done {
    Done {
        name: name.to_owned(),
        result: Err(ToolError::new("the call did not finish")),
    }
}

impl Entry {
    /// Whether the handler is synchronous (it runs to the end when called).
    fn is_sync(&self) -> bool {
        matches!(self.handler, Handler::Sync(_))
    }

    /// Whether the handler returned within [`QUICK_NANOS`] the last time it ran (never,
    /// before its first run).
    fn is_quick(&self) -> bool {
        self.last_run.load(std::sync::atomic::Ordering::Relaxed) <= QUICK_NANOS
    }
}

/// One call up to an async handler's future: unwrap, validate, run a synchronous
/// handler (so a turn of synchronous calls needs no future at all), panics caught.
pub(crate) fn start(entry: &Entry, input: Value, ctx: &CallContext) -> Started {
    match prepare(entry, input) {
        Ok(input) => run(entry, input, ctx),
        Err(done) => Started::Done(done),
    }
}

/// The input the handler gets: unwrapped from `{"input": …}` for a non-object schema,
/// checked against the schema; a failure is the call's result.
fn prepare(entry: &Entry, input: Value) -> Result<Value, Done> {
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
    let mut input = input;
    if entry.spec.strict() {
        let schema = entry.spec.input_schema();
        strip_optional_nulls(schema, schema, &mut input, 0);
    }
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
            let name = entry.spec.name().to_owned();
            let result = Err(ToolError::of(
                ToolErrorKind::InvalidArguments,
                format!("invalid arguments for {name}: {}", problems.join("; ")),
            ));
            return Err(Done { name, result });
        }
    }
    Ok(input)
}

/// Runs the handler on checked input: a synchronous one here, an async one up to its
/// future; panics caught.
fn run(entry: &Entry, input: Value, ctx: &CallContext) -> Started {
    let name = entry.spec.name().to_owned();
    let panicked = |name: &str, payload: &(dyn std::any::Any + Send)| {
        ToolError::of(
            ToolErrorKind::Panicked,
            format!(
                "tool {name} panicked: {}",
                crate::exec::panic_message(payload)
            ),
        )
    };
    match &entry.handler {
        Handler::Sync(f) => {
            let started = std::time::Instant::now();
            let result = match catch_unwind(AssertUnwindSafe(|| f(input, ctx))) {
                Ok(r) => r,
                Err(payload) => Err(panicked(&name, payload.as_ref())),
            };
            let took = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            entry
                .last_run
                .store(took, std::sync::atomic::Ordering::Relaxed);
            Started::Done(Done { name, result })
        }
        Handler::Async(f) => match catch_unwind(AssertUnwindSafe(|| f(input, ctx.clone()))) {
            Ok(fut) => Started::Running(Box::pin(async move {
                let result = match CatchUnwind::new(fut).await {
                    Ok(r) => r,
                    Err(panic) => Err(ToolError::of(
                        ToolErrorKind::Panicked,
                        format!("tool {name} panicked: {panic}"),
                    )),
                };
                Done { name, result }
            })),
            Err(payload) => {
                let result = Err(panicked(&name, payload.as_ref()));
                Started::Done(Done { name, result })
            }
        },
    }
}

/// Removes the `null` members a model in OpenAI's strict mode sends for the optional
/// properties it leaves out (strict mode makes them required and nullable): a member is
/// removed when its value is `null` and `schema` (the registered one) has it as a
/// property it does not require; nested objects and array items are visited through
/// `properties`, `items`, `anyOf`/`oneOf` and local `$ref`s, at most 64 levels deep.
fn strip_optional_nulls(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth > 64 {
        return;
    }
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => match local_ref(root, r) {
            Some(target) => target,
            None => return,
        },
        None => schema,
    };
    if let Some(Value::Array(branches)) = schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        if schema.get("properties").is_none() && schema.get("items").is_none() {
            // The branch the value can be: the first that is not the `null` one.
            if let Some(b) = branches
                .iter()
                .find(|b| b.get("type") != Some(&Value::from("null")))
            {
                strip_optional_nulls(root, b, value, depth + 1);
            }
            return;
        }
    }
    match value {
        Value::Object(members) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required = |k: &str| {
                schema
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(k)))
            };
            members.retain(|k, v| !(v.is_null() && props.contains_key(k) && !required(k)));
            for (k, v) in members.iter_mut() {
                if let Some(s) = props.get(k) {
                    strip_optional_nulls(root, s, v, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for v in items {
                    strip_optional_nulls(root, s, v, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// The definition a local `$ref` (`#/$defs/…`, `#/definitions/…`, any `#/…` pointer)
/// points to in `root`.
fn local_ref<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    root.pointer(r.strip_prefix('#')?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::STARTED;
    use wire_convert::model::Arguments;

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            synthetic_id: false,
            name: "where".into(),
            arguments: Arguments::Value(serde_json::json!({})),
            meta: Default::default(),
        }
    }

    #[test]
    fn a_handler_that_was_quick_last_time_runs_on_the_calling_thread() {
        let mut r = ToolRegistry::new();
        r.register(
            ToolSpec::new("where", "", serde_json::json!({"type": "object"})).unwrap(),
            |_| Ok("here".into()),
        )
        .unwrap();
        r.set_max_parallel(2);
        let calls = [call("call_a"), call("call_b")];
        let started = || STARTED.with(std::cell::Cell::get);
        // Nothing is known of the handler yet: the two calls run in parallel.
        let before = started();
        assert!(r.dispatch_all(&calls).iter().all(|r| !r.is_error));
        assert_eq!(
            started(),
            before + 1,
            "the first turn starts a second worker"
        );
        // It returned at once: now both run here, and no thread is started.
        assert!(r.dispatch_all(&calls).iter().all(|r| !r.is_error));
        assert_eq!(started(), before + 1, "the second turn starts none");
    }
}
