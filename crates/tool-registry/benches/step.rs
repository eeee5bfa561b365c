//! `cargo bench -p tool-registry`: the agent step on a small real response (OpenAI Chat,
//! two parallel tool calls; Anthropic, one call) — parse, dispatch to trivial handlers,
//! write the follow-up — next to a plain `serde_json::Value` parse of the same body, in
//! the same process, in batches run back to back. Prints the medians and the median of
//! the paired ratios (target: step / parse ≤ 2).

use serde_json::json;
use std::hint::black_box;
use std::time::Instant;
use tool_registry::{ToolRegistry, ToolSpec};
use wire_types::Format;

/// Medians over `rounds` of a batch of `batch` runs of `a` and of `b` timed back to back
/// (in alternating order), in µs per run, and the median of the per-round ratios: a
/// ratio of runs made together holds up on a machine whose speed drifts.
fn paired(
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
        t.elapsed().as_secs_f64() * 1e6 / batch as f64
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

fn main() {
    let cases = [
        (
            Format::OpenaiChat,
            include_str!("../../../fixtures/openai-chat/response/parallel-tool-calls.gpt-4o.json"),
        ),
        (
            Format::Anthropic,
            include_str!(
                "../../../fixtures/anthropic/response/text-plus-tool-use.claude-haiku-4-5.json"
            ),
        ),
    ];
    let mut registry = ToolRegistry::new();
    for name in ["GetWeatherArgs", "get_stock_price", "get_weather"] {
        registry
            .register(
                ToolSpec::new(name, "", json!({"type": "object"})).unwrap(),
                |_| Ok("ok".into()),
            )
            .unwrap();
    }
    for (format, body) in cases {
        let (s, p, ratio) = paired(
            41,
            200,
            || {
                black_box(registry.step(format, black_box(body)).unwrap());
            },
            || {
                black_box(serde_json::from_str::<serde_json::Value>(black_box(body)).unwrap());
            },
        );
        println!(
            "{format:<12} {} bytes: step {s:7.2} µs   serde_json parse {p:7.2} µs   ratio {ratio:.2} (target <= 2)",
            body.len()
        );
    }
}
