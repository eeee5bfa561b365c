//! `cargo bench -p tool-registry`: the agent step on a small real response (OpenAI Chat,
//! two parallel tool calls; Anthropic, one call) — parse, dispatch to trivial handlers,
//! write the follow-up — next to a plain `serde_json::Value` parse of the same body, in
//! the same process. Prints the medians and the ratio (target: step / parse ≤ 2).

use serde_json::json;
use std::hint::black_box;
use std::time::Instant;
use tool_registry::{ToolRegistry, ToolSpec};
use wire_types::Format;

fn median_us(runs: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..runs / 10 {
        f();
    }
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[runs / 2]
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
        let mut step = Vec::new();
        let mut parse = Vec::new();
        for _ in 0..5 {
            step.push(median_us(2000, || {
                black_box(registry.step(format, black_box(body)).unwrap());
            }));
            parse.push(median_us(2000, || {
                black_box(serde_json::from_str::<serde_json::Value>(black_box(body)).unwrap());
            }));
        }
        step.sort_by(|a, b| a.total_cmp(b));
        parse.sort_by(|a, b| a.total_cmp(b));
        let (s, p) = (step[2], parse[2]);
        println!(
            "{format:<12} {} bytes: step {s:7.2} µs   serde_json parse {p:7.2} µs   ratio {:.2} (target <= 2)",
            body.len(),
            s / p
        );
    }
}
