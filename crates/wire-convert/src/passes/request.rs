//! The start every request decoder shares.

use crate::Format;
use crate::model::{Request, Vendor};
use wire_types::Extra;

/// The neutral request a decoder of `format` fills, holding the source's `model`, and
/// the request's vendor record: its unknown fields (`extra`) first, the known ones that
/// have no neutral place joining them after.
pub(crate) fn open_request(model: String, extra: &Extra, format: Format) -> (Request, Vendor) {
    let out = Request {
        model: Some(model),
        ..Default::default()
    };
    (out, Vendor::from_extra(format, extra, &[]))
}
