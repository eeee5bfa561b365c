//! `cargo bench -p tool-registry`: the agent step on a small real response (OpenAI Chat,
//! two parallel tool calls; Anthropic, one call) — parse, dispatch to trivial handlers,
//! write the follow-up — next to a plain `serde_json::Value` parse of the same body, in
//! the same process, in batches run back to back. Prints the medians and the median of
//! the paired ratios (target: step / parse ≤ 2).

use serde_json::json;
use std::hint::black_box;
use tool_registry::{ToolRegistry, ToolSpec};
use wire_types::Format;

#[path = "../../wire-types/benches/support/paired.rs"]
mod paired;

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
        let (s, p, ratio) = paired::paired(
            41,
            200,
            || {
                black_box(registry.step(format, black_box(body)).unwrap());
            },
            || {
                black_box(serde_json::from_str::<serde_json::Value>(black_box(body)).unwrap());
            },
        );
        let (s, p) = (s * 1e6, p * 1e6);
        println!(
            "{format:<12} {} bytes: step {s:7.2} µs   serde_json parse {p:7.2} µs   ratio {ratio:.2} (target <= 2)",
            body.len()
        );
    }
}
