//! Profiling aid: the agent step of `cargo bench -p tool-registry --bench step`, alone
//! (`valgrind --tool=callgrind --toggle-collect='tool_registry::step::*'`, or
//! `perf record` it). Arguments: the format (`openai-chat` by default, or `anthropic`)
//! and the number of steps (1,000 by default).

use serde_json::json;
use tool_registry::{ToolRegistry, ToolSpec};
use wire_types::Format;

fn main() {
    let mut args = std::env::args().skip(1);
    let format: Format = args
        .next()
        .and_then(|f| f.parse().ok())
        .unwrap_or(Format::OpenaiChat);
    let steps: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let body = match format {
        Format::Anthropic => include_str!(
            "../../../fixtures/anthropic/response/text-plus-tool-use.claude-haiku-4-5.json"
        ),
        _ => include_str!("../../../fixtures/openai-chat/response/parallel-tool-calls.gpt-4o.json"),
    };
    let mut registry = ToolRegistry::new();
    for name in ["GetWeatherArgs", "get_stock_price", "get_weather"] {
        registry
            .register(
                ToolSpec::new(name, "", json!({"type": "object"})).expect("a valid spec"),
                |_| Ok("ok".into()),
            )
            .expect("a new name");
    }
    for _ in 0..steps {
        std::hint::black_box(registry.step(format, std::hint::black_box(body)).ok());
    }
}
