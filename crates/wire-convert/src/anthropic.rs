//! Placeholder: the anthropic converter is being written.

use crate::model;
use crate::{Ctx, Error};
use wire_types::anthropic as w;

/// Decodes a request (not written yet).
pub fn decode_request(_req: w::Request, ctx: &mut Ctx<'_>) -> Result<model::Request, Error> {
    Err(Error::Unsupported {
        format: ctx.format,
        what: "request conversion yet",
    })
}

/// Encodes a request (not written yet).
pub fn encode_request(_req: model::Request, ctx: &mut Ctx<'_>) -> Result<w::Request, Error> {
    Err(Error::Unsupported {
        format: ctx.format,
        what: "request conversion yet",
    })
}

/// Decodes a response (not written yet).
pub fn decode_response(_resp: w::Response, ctx: &mut Ctx<'_>) -> Result<model::Response, Error> {
    Err(Error::Unsupported {
        format: ctx.format,
        what: "response conversion yet",
    })
}

/// Encodes a response (not written yet).
pub fn encode_response(_resp: model::Response, ctx: &mut Ctx<'_>) -> Result<w::Response, Error> {
    Err(Error::Unsupported {
        format: ctx.format,
        what: "response conversion yet",
    })
}

/// Encodes tool definitions (not written yet: nothing).
pub fn encode_tools(
    _tools: Vec<model::Tool>,
    _ctx: &mut Ctx<'_>,
) -> Option<Vec<serde_json::Value>> {
    None
}
