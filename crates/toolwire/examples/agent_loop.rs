//! An agent loop over recorded responses (no network): the registry offers its tools,
//! each recorded model response goes through `ToolRegistry::step`, and the follow-up is
//! appended to the conversation until the model gives its final answer.
//!
//! The responses are real OpenAI captures from `fixtures/` (two parallel tool calls, then
//! a text answer); with a live model you would send `messages` and `tools` instead of
//! reading the next recording.
//!
//! Run: `cargo run -p toolwire --example agent_loop`

use serde_json::json;
use serde_json::value::RawValue;
use toolwire::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(non_snake_case)]
struct GetWeatherArgs {
    city: String,
    country: String,
    units: Option<String>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct StockQuery {
    ticker: String,
    exchange: String,
}

const RECORDED: [&str; 2] = [
    include_str!("../../../fixtures/openai-chat/response/parallel-tool-calls.gpt-4o.json"),
    include_str!("../../../fixtures/openai-chat/response/text-full-usage.gpt-4.1-nano.json"),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut registry = ToolRegistry::new();
    registry.register_typed("GetWeatherArgs", "Weather in a city", |a: GetWeatherArgs| {
        Ok::<_, String>(json!({"city": a.city, "country": a.country, "units": a.units.unwrap_or_default(), "temp": 11}))
    })?;
    registry.register_typed(
        "get_stock_price",
        "Latest price of a stock",
        |q: StockQuery| {
            if q.exchange != "NASDAQ" {
                return Err(format!("no data for {}", q.exchange));
            }
            Ok(json!({"ticker": q.ticker, "price": 227.5}))
        },
    )?;

    let tools = registry.tools_for(Format::OpenaiChat, &Options::default())?;
    // The conversation is kept as JSON text per message: the step's follow-up comes that
    // way, ready to be written into the next request body.
    let mut messages: Vec<Box<RawValue>> = vec![serde_json::value::to_raw_value(
        &json!({"role": "user", "content": "Weather in Edinburgh, and AAPL's price?"}),
    )?];
    println!(
        "tools offered: {}",
        tools.value.as_array().map(Vec::len).unwrap_or(0)
    );

    for (turn, response) in RECORDED.iter().enumerate() {
        // A live loop would POST {"model", "messages", "tools"} here and read the reply.
        match registry.step(Format::OpenaiChat, response)? {
            Step::Continue {
                calls,
                results,
                follow_up,
                losses,
                ..
            } => {
                for (c, r) in calls.iter().zip(&results) {
                    println!(
                        "turn {turn}: {}({}) -> {}",
                        c.name,
                        c.arguments.text(),
                        if r.is_error { "failed" } else { "ok" }
                    );
                }
                for l in losses {
                    println!("  loss: {l}");
                }
                messages.extend(follow_up);
            }
            Step::Unhandled { calls, hosted, .. } => {
                // Calls only the caller can answer (hosted tools, custom tools nobody
                // registered): none in this recording.
                println!(
                    "turn {turn}: {} call(s) and {} hosted part(s) to answer by hand",
                    calls.len(),
                    hosted.len()
                );
                break;
            }
            Step::Final { text, .. } => {
                println!(
                    "turn {turn}: final answer ({} chars): {}…",
                    text.len(),
                    text.chars().take(60).collect::<String>()
                );
                break;
            }
        }
    }
    println!("conversation: {} messages", messages.len());
    assert_eq!(
        messages.len(),
        4,
        "user, assistant with two calls, two tool results"
    );
    Ok(())
}
