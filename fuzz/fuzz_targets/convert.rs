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
    let options = Options {
        gemini_schema: if flags & 1 == 0 {
            GeminiSchema::Parameters
        } else {
            GeminiSchema::JsonSchema
        },
        ..Options::default()
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
        if !ok && known_open(&out) {
            return;
        }
        assert!(ok, "{from} → {to} {kind:?} wrote what toolwire cannot read back:\n{out}");
    }
    if let Ok(value) = wire_types::value_from_str(text) {
        let written = match kind {
            Body::Request => wire_convert::convert_request_value(&value, from, to, &options),
            _ => wire_convert::convert_response_value(&value, from, to, &options),
        };
        if let Ok(out) = written {
            // Known and open (issue 16, item 2): `Output for Value` turns a body it cannot
            // build into `null` instead of an error.
            if out.value.is_null() {
                return;
            }
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

/// Known and open (issue 16, item 2, left to wire-convert): tool-call argument text that
/// is carried as it is but is not a JSON value serde_json reads (nested deeper than 128,
/// a number out of range, a lone surrogate). Remove when arguments are checked on read.
fn known_open(out: &str) -> bool {
    match wire_types::value_from_str(out) {
        Ok(_) => false,
        Err(e) => {
            let m = e.message();
            m.contains("recursion limit") || m.contains("number out of range") || m.contains("surrogate")
        }
    }
}
