//! Any bytes that read as a wire type: written and read again, the value is the same
//! (and writing it twice gives the same text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_fuzz::{read_write_read, shape};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let (format, kind) = shape(selector);
    read_write_read(format, kind, body);
});
