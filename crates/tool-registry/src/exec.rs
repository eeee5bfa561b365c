//! A minimal executor: `block_on` and `join_all` over std only, so the registry works with
//! any async runtime (or none) without depending on one.
//!
//! Handlers' futures are polled inside `catch_unwind`: a panic while polling ends that
//! future with a panic message instead of unwinding through the caller.

use std::cell::Cell;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// A boxed, sendable future.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

thread_local! {
    /// The signal [`block_on`] parks on, kept between calls on this thread.
    static SIGNAL: Cell<Option<Arc<Signal>>> = const { Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// How many threads [`run_bounded`] started from this thread (for the tests).
    pub(crate) static STARTED: Cell<usize> = const { Cell::new(0) };
}

/// Wakes a thread parked in [`block_on`].
#[derive(Default)]
struct Signal {
    woken: Mutex<bool>,
    cond: Condvar,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut woken = self.woken.lock().unwrap_or_else(|e| e.into_inner());
        *woken = true;
        self.cond.notify_one();
    }
}

/// Runs a future to completion on the current thread.
///
/// Works for handlers that need no particular runtime (the common case: CPU work, or
/// futures driven by their own threads). A handler that needs a specific runtime's
/// reactor (tokio I/O, timers) must be dispatched from inside that runtime with the
/// `async` methods instead.
pub(crate) fn block_on<F: Future>(fut: F) -> F::Output {
    // The thread's signal is reused (one allocation per thread, not per call); a nested
    // `block_on` finds it taken and makes its own, so no wake meant for one is consumed
    // by the other. A late wake from an earlier call only causes one extra poll.
    let signal = SIGNAL
        .with(Cell::take)
        .unwrap_or_else(|| Arc::new(Signal::default()));
    *signal.woken.lock().unwrap_or_else(|e| e.into_inner()) = false;
    let waker = Waker::from(signal.clone());
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            drop(waker);
            SIGNAL.with(|s| s.set(Some(signal)));
            return out;
        }
        let mut woken = signal.woken.lock().unwrap_or_else(|e| e.into_inner());
        while !*woken {
            woken = signal.cond.wait(woken).unwrap_or_else(|e| e.into_inner());
        }
        *woken = false;
    }
}

/// The outcome of a future polled with [`CatchUnwind`]: its output, or the panic message.
pub(crate) type Caught<T> = Result<T, String>;

/// Polls a future inside `catch_unwind`; a panic becomes `Err(message)`.
pub(crate) struct CatchUnwind<F> {
    inner: Pin<Box<F>>,
}

impl<F: Future> CatchUnwind<F> {
    /// Wraps a future.
    pub(crate) fn new(fut: F) -> Self {
        CatchUnwind {
            inner: Box::pin(fut),
        }
    }
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Caught<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The number of worker threads [`run_bounded`] uses by default: the machine's available
/// parallelism, at most [`MAX_DEFAULT_WORKERS`] (1 when it cannot be told).
pub(crate) fn default_workers() -> usize {
    // Asked once: on Linux the answer reads the cgroup's CPU quota from files.
    static WORKERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *WORKERS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(MAX_DEFAULT_WORKERS)
    })
}

/// The cap on the default number of workers: a turn rarely has more calls, and a
/// handler that blocks on I/O should not make a step spawn a thread per core of a
/// large machine.
pub(crate) const MAX_DEFAULT_WORKERS: usize = 8;

/// A job for [`run_bounded`].
pub(crate) type Job<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Runs `jobs` on at most `workers` scoped threads and returns their outputs in the order
/// given; blocks until all are done. One job, or one worker, runs on the calling thread
/// (no thread is spawned). A job that panics (jobs are expected to catch their own
/// panics) or a thread that cannot be spawned leaves `None` in its slot; the other jobs
/// still run.
pub(crate) fn run_bounded<T: Send>(jobs: Vec<Job<'_, T>>, workers: usize) -> Vec<Option<T>> {
    let n = jobs.len();
    if n <= 1 || workers <= 1 {
        return jobs
            .into_iter()
            .map(|job| catch_unwind(AssertUnwindSafe(job)).ok())
            .collect();
    }
    let queue = Mutex::new(jobs.into_iter().enumerate());
    let slots: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let work = || {
        loop {
            let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some((i, job)) = next else { break };
            if let Ok(out) = catch_unwind(AssertUnwindSafe(job)) {
                if let Some(slot) = slots.lock().unwrap_or_else(|e| e.into_inner()).get_mut(i) {
                    *slot = Some(out);
                }
            }
        }
    };
    std::thread::scope(|scope| {
        // The calling thread is one of the workers.
        for _ in 1..workers.min(n) {
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_err()
            {
                break;
            }
            #[cfg(test)]
            STARTED.with(|n| n.set(n.get() + 1));
        }
        work();
    });
    slots.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Polls every future concurrently (on the current task) and returns their outputs in
/// the order given.
pub(crate) async fn join_all<T>(futures: Vec<BoxFuture<T>>) -> Vec<T> {
    JoinAll {
        slots: futures.into_iter().map(Slot::Pending).collect(),
    }
    .await
}

enum Slot<T> {
    Pending(BoxFuture<T>),
    Done(Option<T>),
}

struct JoinAll<T> {
    slots: Vec<Slot<T>>,
}

impl<T> Unpin for JoinAll<T> {}

impl<T> Future for JoinAll<T> {
    type Output = Vec<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let mut all_done = true;
        for slot in self.slots.iter_mut() {
            if let Slot::Pending(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Slot::Done(Some(v)),
                    Poll::Pending => all_done = false,
                }
            }
        }
        if !all_done {
            return Poll::Pending;
        }
        let out = self
            .slots
            .iter_mut()
            .filter_map(|s| match s {
                Slot::Done(v) => v.take(),
                Slot::Pending(_) => None,
            })
            .collect();
        Poll::Ready(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_all_keeps_call_order_and_catches_panics() {
        let futs: Vec<BoxFuture<Caught<u32>>> = vec![
            Box::pin(CatchUnwind::new(async { 1 })),
            Box::pin(CatchUnwind::new(async { panic!("boom") })),
            Box::pin(CatchUnwind::new(async { 3 })),
        ];
        let out = block_on(join_all(futs));
        assert_eq!(out, vec![Ok(1), Err("boom".to_owned()), Ok(3)]);
    }

    #[test]
    fn run_bounded_keeps_job_order_and_uses_at_most_its_workers() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let jobs: Vec<Job<'_, usize>> = (0..12usize)
            .map(|i| {
                let (running, most) = (&running, &most);
                Box::new(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    running.fetch_sub(1, Ordering::SeqCst);
                    if i == 4 {
                        panic!("job 4");
                    }
                    i * 10
                }) as Job<'_, usize>
            })
            .collect();
        let out = run_bounded(jobs, 3);
        let want: Vec<Option<usize>> = (0..12).map(|i| (i != 4).then_some(i * 10)).collect();
        assert_eq!(out, want);
        let most = most.load(Ordering::SeqCst);
        assert!((1..=3).contains(&most), "at most 3 at once, saw {most}");
        assert!(default_workers() >= 1 && default_workers() <= MAX_DEFAULT_WORKERS);
    }

    #[test]
    fn block_on_waits_for_a_wake_from_another_thread() {
        let (tx, rx) = std::sync::mpsc::channel::<u32>();
        let fut = std::future::poll_fn(move |cx| match rx.try_recv() {
            Ok(v) => Poll::Ready(v),
            Err(_) => {
                let waker = cx.waker().clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    waker.wake();
                });
                Poll::Pending
            }
        });
        let sender = std::thread::spawn(move || tx.send(7));
        assert_eq!(block_on(fut), 7);
        let _ = sender.join();
    }

    /// A future that is ready with `value` once another thread, after `delay`, says so.
    fn later(value: u32, delay: std::time::Duration) -> impl Future<Output = u32> {
        let ready = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut started = false;
        std::future::poll_fn(move |cx| {
            if ready.load(std::sync::atomic::Ordering::SeqCst) {
                return Poll::Ready(value);
            }
            if !started {
                started = true;
                let (ready, waker) = (ready.clone(), cx.waker().clone());
                std::thread::spawn(move || {
                    std::thread::sleep(delay);
                    ready.store(true, std::sync::atomic::Ordering::SeqCst);
                    waker.wake();
                });
            }
            Poll::Pending
        })
    }

    #[test]
    fn nested_block_on_keeps_each_wake_for_its_own_caller() {
        // The thread's signal is reused between calls; a `block_on` inside a poll must
        // not take the wake meant for the outer one (the outer would then wait forever).
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            assert_eq!(
                block_on(later(1, Default::default())),
                1,
                "warms the reused signal"
            );
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let mut started = false;
            let outer = std::future::poll_fn(move |cx| {
                if started {
                    return match rx.try_recv() {
                        Ok(()) => Poll::Ready(2),
                        Err(_) => Poll::Pending,
                    };
                }
                started = true;
                // Woken while the inner `block_on` below is still waiting.
                let (tx, waker) = (tx.clone(), cx.waker().clone());
                std::thread::spawn(move || {
                    let _ = tx.send(());
                    waker.wake();
                });
                let inner = block_on(later(3, std::time::Duration::from_millis(50)));
                assert_eq!(inner, 3);
                Poll::Pending
            });
            let _ = done_tx.send(block_on(outer));
            // Reused again after the nested use.
            let _ = done_tx.send(block_on(later(4, std::time::Duration::from_millis(5))));
        });
        let wait = std::time::Duration::from_secs(20);
        assert_eq!(done_rx.recv_timeout(wait), Ok(2));
        assert_eq!(done_rx.recv_timeout(wait), Ok(4));
    }
}
