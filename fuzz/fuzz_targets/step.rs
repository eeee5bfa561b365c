//! Any response of any format through the agent step, with one tool registered: never a
//! panic; every follow-up item is JSON that reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::{Step, ToolRegistry, ToolSpec};
use wire_convert::Format;

fuzz_target!(|data: &[u8]| {
    let [format, body @ ..] = data else {
        return;
    };
    let format = Format::CHAT[usize::from(*format) % Format::CHAT.len()];
    let Ok(body) = std::str::from_utf8(body) else {
        return;
    };
    let mut registry = ToolRegistry::new();
    let spec = ToolSpec::new(
        "get_weather",
        "Echoes its arguments",
        serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )
    .unwrap();
    registry
        .register(spec, |args| Ok(args.to_string().into()))
        .unwrap();
    if let Ok(step @ Step::Continue { .. }) = registry.step(format, body) {
        let Step::Continue { follow_up, .. } = &step else {
            unreachable!()
        };
        assert_eq!(step.follow_up_values().len(), follow_up.len(), "{format}");
    }
});
