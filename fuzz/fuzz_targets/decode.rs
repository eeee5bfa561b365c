//! Any bytes, read as any format's request, response, stream event, error body or MCP
//! shape with wire-types: never a panic, and the text path agrees with the `Value` path
//! (what `value_from_slice` parses, `from_value` reads exactly when `from_slice` does).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_fuzz::{dispatch, shape};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let (format, kind) = shape(selector);
    let mut read = false;
    dispatch(format, kind, body, |ok| read = ok);
    // One reading of every body: text a `Value` can be parsed from reads the same way.
    if let Ok(value) = wire_types::value_from_slice(body) {
        let text = serde_json::to_vec(&value).unwrap_or_default();
        let mut again = false;
        dispatch(format, kind, &text, |ok| again = ok);
        assert_eq!(
            read, again,
            "text and Value paths disagree on {format} {kind:?}"
        );
    }
});
