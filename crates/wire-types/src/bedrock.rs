//! Placeholder: this format's types are being written. Until then every body reads into
//! `extra` whole.

use crate::error::Error;

wire_struct! {
    /// A request body.
    #[derive(Default)]
    pub struct Request {}
}

wire_struct! {
    /// A response body.
    #[derive(Default)]
    pub struct Response {}
}

wire_struct! {
    /// One stream event.
    #[derive(Default)]
    pub struct StreamEvent {}
}

wire_struct! {
    /// An error body.
    #[derive(Default)]
    pub struct ErrorResponse {}
}

/// Checks what the types leave open.
pub fn validate_request(_request: &Request) -> Result<(), Error> {
    Ok(())
}
