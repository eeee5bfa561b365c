//! Any request or response of any format converted to any other format, on the text path
//! and the `Value` path: never a panic, and whatever a conversion writes, toolwire reads
//! back as the target format.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_fuzz::{Body, dispatch, shape};
use wire_convert::{Format, GeminiSchema, Options};

fuzz_target!(|data: &[u8]| {
    let [selector, target, flags, body @ ..] = data else {
        return;
    };
    let (from, kind) = shape(*selector);
    if from == Format::Mcp || !matches!(kind, Body::Request | Body::Response) {
        return;
    }
    let to = Format::CHAT[usize::from(*target) % Format::CHAT.len()];
    let mut options = Options::default();
    options.gemini_schema = if flags & 1 == 0 {
        GeminiSchema::Parameters
    } else {
        GeminiSchema::JsonSchema
    };
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let written = match kind {
        Body::Request => wire_convert::convert_request(text, from, to, &options).map(|c| c.value),
        _ => wire_convert::convert_response(text, from, to, &options).map(|c| c.value),
    };
    if let Ok(out) = written {
        let mut ok = false;
        dispatch(to, kind, out.as_bytes(), |r| ok = r);
        assert!(
            ok,
            "{from} → {to} {kind:?} wrote what toolwire cannot read back:\n{out}"
        );
    }
    if let Ok(value) = wire_types::value_from_str(text) {
        let written = match kind {
            Body::Request => wire_convert::convert_request_value(&value, from, to, &options),
            _ => wire_convert::convert_response_value(&value, from, to, &options),
        };
        if let Ok(out) = written {
            assert!(
                !out.value.is_null(),
                "{from} → {to} {kind:?}: the Value path wrote null"
            );
            let bytes = serde_json::to_vec(&out.value).unwrap_or_default();
            let mut ok = false;
            dispatch(to, kind, &bytes, |r| ok = r);
            assert!(
                ok,
                "{from} → {to} {kind:?} (Value path) wrote what toolwire cannot read back:\n{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
});
