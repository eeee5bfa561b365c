//! Any bytes, as the CLI reads a body it is not told the format of: parsed
//! (`value_from_slice`), detected, then read as what detection says. Never a panic;
//! detection is a function of the value alone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_fuzz::{Body, dispatch};
use wire_types::Kind;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = wire_types::value_from_slice(data) else {
        return;
    };
    let Ok(found) = wire_types::detect(&value) else {
        return;
    };
    assert_eq!(wire_types::detect(&value).ok(), Some(found));
    let body = match found.kind {
        Kind::Request => Body::Request,
        Kind::Response => Body::Response,
        Kind::StreamEvent => Body::StreamEvent,
        Kind::Error => Body::Error,
    };
    dispatch(found.format, body, data, |_| {});
});
