//! A generated OpenAI Chat transcript for the benchmarks: deterministic, at least
//! `min_bytes` long, many rounds of user → assistant with three parallel tool calls →
//! three tool results → assistant answer. Shared by the benches of several crates
//! (included with `#[path]`).

/// The transcript as JSON text.
pub(crate) fn openai_chat_transcript(min_bytes: usize) -> String {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut word = move || {
        const WORDS: &[&str] = &[
            "weather",
            "Paris",
            "tomorrow",
            "rain",
            "the",
            "a",
            "forecast",
            "wind",
            "°C",
            "humidity",
            "check",
            "please",
            "café",
            "north",
            "\"quoted\"",
            "stock",
            "price",
            "AAPL",
            "exchange",
            "and",
        ];
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        WORDS[(seed % WORDS.len() as u64) as usize]
    };
    let mut sentence =
        |n: usize| -> String { (0..n).map(|_| word()).collect::<Vec<_>>().join(" ") };
    let mut messages = vec![
        serde_json::json!({"role": "system", "content": "You are a helpful assistant. Use the tools."}),
    ];
    let mut size = 0;
    let mut round = 0;
    while size < min_bytes {
        let user = sentence(40);
        messages.push(serde_json::json!({"role": "user", "content": user}));
        let calls: Vec<serde_json::Value> = (0..3)
            .map(|k| {
                let args = serde_json::json!({"city": sentence(2), "days": k + 1, "units": "metric", "note": sentence(8)});
                let name = ["get_weather", "get_stock_price", "search"][k];
                serde_json::json!({
                    "id": format!("call_{round:06}_{k}"),
                    "type": "function",
                    "function": {"name": name, "arguments": args.to_string()}
                })
            })
            .collect();
        messages
            .push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": calls}));
        for k in 0..3 {
            let result = serde_json::json!({"ok": true, "text": sentence(30), "values": [k, round % 97, 3.5]});
            messages.push(serde_json::json!({"role": "tool", "tool_call_id": format!("call_{round:06}_{k}"), "content": result.to_string()}));
        }
        let answer = sentence(80);
        messages.push(serde_json::json!({"role": "assistant", "content": answer}));
        size += 6 * 40 + user.len() + answer.len() + 1200;
        round += 1;
    }
    let tools: Vec<serde_json::Value> = ["get_weather", "get_stock_price", "search"]
        .iter()
        .map(|n| serde_json::json!({"type": "function", "function": {"name": n, "description": "A tool.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}))
        .collect();
    let body = serde_json::json!({"model": "gpt-4o", "messages": messages, "tools": tools, "temperature": 0.2, "parallel_tool_calls": true});
    let text = body.to_string();
    assert!(text.len() >= min_bytes);
    text
}
