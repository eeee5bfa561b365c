//! Paired timing for the benchmarks: two workloads timed back to back, round after
//! round, so that their ratio holds up on a machine whose speed drifts (a shared host),
//! which a ratio of two separately taken medians does not. Shared by the benches of
//! several crates (included with `#[path]`).

use std::time::Instant;

/// Medians over `rounds` of a batch of `batch` runs of `a` and of `b`, timed back to back
/// in alternating order, in seconds per run; and the median of the per-round ratios
/// a / b.
pub(crate) fn paired(
    rounds: usize,
    batch: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (f64, f64, f64) {
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        t.elapsed().as_secs_f64() / batch as f64
    };
    time(&mut a);
    time(&mut b);
    let (mut ta, mut tb, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = time(&mut a);
            (x, time(&mut b))
        } else {
            let y = time(&mut b);
            (time(&mut a), y)
        };
        ta.push(x);
        tb.push(y);
        ratio.push(x / y);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(|p, q| p.total_cmp(q));
        v[v.len() / 2]
    };
    (median(ta), median(tb), median(ratio))
}
