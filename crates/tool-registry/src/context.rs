//! [`CallContext`]: what a running call can tell whoever runs it (progress, log
//! messages), and whether it is still wanted (cancellation).
//!
//! A handler registered with [`ToolRegistry::register_with_context`] or
//! [`ToolRegistry::register_async_with_context`] gets the context of its call, which
//! names the call ([`CallContext::call_id`], [`CallContext::tool_name`]). Outside MCP (the
//! agent step, `dispatch`) reports go nowhere and the call is never cancelled. The MCP server gives each `tools/call` a
//! context whose reports become `notifications/progress` and `notifications/message`, and
//! which `notifications/cancelled` cancels.
//!
//! [`ToolRegistry::register_with_context`]: crate::ToolRegistry::register_with_context
//! [`ToolRegistry::register_async_with_context`]: crate::ToolRegistry::register_async_with_context

use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The severity of a log message, RFC 5424's eight levels as MCP's `logging` uses them,
/// from least to most severe (the order is `Ord`'s).
///
/// A closed set on purpose: MCP fixes these eight, and a level a peer sends that is not
/// one of them is invalid (`-32602`), not a new level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name (`debug`, `info`, …, `emergency`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level of a wire name; `None` for anything else.
    pub fn parse(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// What a running call reported, as [`CallContext`] hands it to its sink.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Notice {
    /// Progress: `progress` so far, out of `total` when known (any unit; MCP asks that
    /// `progress` increase from one report to the next).
    Progress {
        /// Work done so far.
        progress: f64,
        /// Total work, when known.
        total: Option<f64>,
        /// A line for a person.
        message: Option<String>,
    },
    /// A log message at `level`; `data` is any JSON (usually a string).
    Log {
        /// Severity.
        level: LogLevel,
        /// The message or structured detail.
        data: Value,
    },
}

type Sink = dyn Fn(Notice) + Send + Sync;

struct Inner {
    sink: Mutex<Option<Arc<Sink>>>,
    state: Mutex<State>,
    cond: Condvar,
}

#[derive(Default)]
struct State {
    cancelled: bool,
    wakers: Vec<Waker>,
}

/// The context of one call: report progress and log messages, learn of cancellation.
///
/// Cheap to clone (one `Arc`); clones are the same context. Cancellation is cooperative
/// for synchronous handlers (check [`CallContext::is_cancelled`], or sleep with
/// [`CallContext::wait`], which wakes early); an async handler's future is also dropped
/// by the MCP server as soon as its call is cancelled.
///
/// ```
/// use tool_registry::{CallContext, LogLevel, Notice};
/// use std::sync::{Arc, Mutex};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = seen.clone();
/// let ctx = CallContext::new(move |n| sink.lock().unwrap().push(n));
/// ctx.progress(1.0, Some(2.0), None);
/// ctx.log(LogLevel::Info, "half way");
/// assert_eq!(seen.lock().unwrap().len(), 2);
/// assert!(!ctx.is_cancelled());
/// ctx.cancel();
/// assert!(ctx.wait(std::time::Duration::from_secs(60)), "returns at once: cancelled");
/// ```
#[derive(Clone)]
pub struct CallContext {
    inner: Option<Arc<Inner>>,
    call: Option<Arc<Call>>,
}

/// Which call a context belongs to.
#[derive(Debug)]
struct Call {
    id: Option<String>,
    name: String,
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("call_id", &self.call_id())
            .field("tool_name", &self.tool_name())
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl Default for CallContext {
    fn default() -> Self {
        CallContext::none()
    }
}

impl CallContext {
    /// A context whose reports go nowhere and which is never cancelled (what `dispatch`
    /// and the agent step give handlers).
    pub fn none() -> Self {
        CallContext {
            inner: None,
            call: None,
        }
    }

    /// A context whose reports go to `sink` (called on the handler's thread, in order).
    pub fn new(sink: impl Fn(Notice) + Send + Sync + 'static) -> Self {
        let ctx = CallContext::detached();
        ctx.set_sink(Arc::new(sink));
        ctx
    }

    /// A context without a sink yet (reports are dropped until [`Self::set_sink`]).
    pub(crate) fn detached() -> Self {
        CallContext {
            inner: Some(Arc::new(Inner {
                sink: Mutex::new(None),
                state: Mutex::new(State::default()),
                cond: Condvar::new(),
            })),
            call: None,
        }
    }

    /// The same context, naming its call: the tool's name and, when there is one, the
    /// call's id.
    pub(crate) fn with_call(mut self, id: Option<String>, name: impl Into<String>) -> Self {
        self.call = Some(Arc::new(Call {
            id,
            name: name.into(),
        }));
        self
    }

    /// The id of the call: the model's tool-call id in the agent step and
    /// [`ToolRegistry::dispatch_call`](crate::ToolRegistry::dispatch_call) (`call_…`,
    /// `toolu_…`, or the id the decoder made up for a format without ids), the JSON-RPC
    /// request id (as text: `7`, `abc`) in the MCP server. `None` for
    /// [`ToolRegistry::dispatch`](crate::ToolRegistry::dispatch), which has no call, and for
    /// a context made with [`CallContext::new`] or [`CallContext::none`].
    pub fn call_id(&self) -> Option<&str> {
        self.call.as_ref().and_then(|c| c.id.as_deref())
    }

    /// The name of the tool being called; `None` for a context made with
    /// [`CallContext::new`] or [`CallContext::none`].
    pub fn tool_name(&self) -> Option<&str> {
        self.call.as_ref().map(|c| c.name.as_str())
    }

    /// Where reports go from now on.
    pub(crate) fn set_sink(&self, sink: Arc<Sink>) {
        if let Some(inner) = &self.inner {
            *lock(&inner.sink) = Some(sink);
        }
    }

    fn report(&self, notice: Notice) {
        let Some(inner) = &self.inner else { return };
        if self.is_cancelled() {
            return;
        }
        // The sink is cloned out so that it runs without the lock held.
        let sink = lock(&inner.sink).clone();
        if let Some(sink) = sink {
            sink(notice);
        }
    }

    /// Reports progress: `progress` so far out of `total` (when known), with an optional
    /// line for a person. Over MCP it is sent only when the request asked for progress
    /// (a `progressToken`) and `progress` is greater than the last value sent.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.report(Notice::Progress {
            progress,
            total,
            message: message.map(str::to_owned),
        });
    }

    /// Sends a log message (over MCP: `notifications/message`, when `level` is at or
    /// above the level the client set; the logger is the tool's name).
    pub fn log(&self, level: LogLevel, data: impl Into<Value>) {
        self.report(Notice::Log {
            level,
            data: data.into(),
        });
    }

    /// Whether the call was cancelled (its result will not be sent).
    pub fn is_cancelled(&self) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|inner| lock(&inner.state).cancelled)
    }

    /// Cancels the call: [`Self::is_cancelled`] turns true, [`Self::wait`] and
    /// [`Self::cancelled`] return, and later reports are dropped. Cancelling twice is the
    /// same as once; a [`CallContext::none`] cannot be cancelled.
    pub fn cancel(&self) {
        let Some(inner) = &self.inner else { return };
        let wakers = {
            let mut state = lock(&inner.state);
            state.cancelled = true;
            std::mem::take(&mut state.wakers)
        };
        inner.cond.notify_all();
        for w in wakers {
            w.wake();
        }
    }

    /// Sleeps for `duration` or until the call is cancelled, whichever comes first;
    /// returns whether it was cancelled. For synchronous handlers that wait.
    pub fn wait(&self, duration: Duration) -> bool {
        let Some(inner) = &self.inner else {
            std::thread::sleep(duration);
            return false;
        };
        let deadline = Instant::now() + duration;
        let mut state = lock(&inner.state);
        while !state.cancelled {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = match inner.cond.wait_timeout(state, deadline - now) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        }
        true
    }

    /// A future that completes when the call is cancelled (never, for
    /// [`CallContext::none`]). For async handlers that want to stop early.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        Cancelled { ctx: self.clone() }
    }

    /// Polls for cancellation, keeping `cx`'s waker to be woken by [`Self::cancel`].
    pub(crate) fn poll_cancelled(&self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(inner) = &self.inner else {
            return Poll::Pending;
        };
        let mut state = lock(&inner.state);
        if state.cancelled {
            return Poll::Ready(());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

struct Cancelled {
    ctx: CallContext,
}

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.ctx.poll_cancelled(cx)
    }
}

/// A lock that survives a panic of another holder (nothing here is left half-written).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_names_its_call_and_its_clones_keep_the_name() {
        let ctx = CallContext::none().with_call(Some("call_1".into()), "get_weather");
        let clone = ctx.clone();
        assert_eq!(clone.call_id(), Some("call_1"));
        assert_eq!(clone.tool_name(), Some("get_weather"));
        let unnamed = CallContext::detached().with_call(None, "add");
        assert_eq!(
            (unnamed.call_id(), unnamed.tool_name()),
            (None, Some("add"))
        );
        assert_eq!(CallContext::none().tool_name(), None);
        assert_eq!(CallContext::new(|_| {}).call_id(), None);
    }

    #[test]
    fn levels_are_ordered_by_severity_and_read_back_from_their_names() {
        assert!(LogLevel::Debug < LogLevel::Info && LogLevel::Alert < LogLevel::Emergency);
        for l in LogLevel::ALL {
            assert_eq!(LogLevel::parse(l.as_str()), Some(l));
        }
        assert_eq!(LogLevel::parse("verbose"), None);
    }

    #[test]
    fn a_cancelled_context_drops_reports_and_wakes_a_waiting_thread() {
        let seen = Arc::new(Mutex::new(0));
        let s = seen.clone();
        let ctx = CallContext::new(move |_| *s.lock().unwrap() += 1);
        let waiting = {
            let ctx = ctx.clone();
            std::thread::spawn(move || ctx.wait(Duration::from_secs(60)))
        };
        std::thread::sleep(Duration::from_millis(20));
        ctx.log(LogLevel::Info, "before");
        ctx.cancel();
        ctx.log(LogLevel::Info, "after");
        assert!(
            waiting.join().unwrap(),
            "woken by the cancel, not the minute"
        );
        assert_eq!(*seen.lock().unwrap(), 1);
    }

    #[test]
    fn the_cancelled_future_completes_when_cancelled_from_another_thread() {
        let ctx = CallContext::detached();
        let c = ctx.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            c.cancel();
        });
        crate::exec::block_on(ctx.cancelled());
        assert!(ctx.is_cancelled());
        assert!(!CallContext::none().wait(Duration::from_millis(1)));
    }
}
