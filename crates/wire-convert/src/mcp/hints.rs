//! The hints MCP's readers write and its writers read (see [`crate::vendor`]): how an MCP
//! value spelled what the neutral model normalizes, so that it is written back as it
//! came. Each constant is named after its key.
//!
//! Shared with every format and not repeated here: [`crate::vendor::NULLS`] (explicit
//! nulls of known fields, on any object).

/// On a JSON part of a result: it was the result's `structuredContent` (`true`), so no
/// text block with its JSON is added for it.
pub(super) const STRUCTURED: &str = "structured";
/// On an image or audio part of a result: it was an embedded `resource` with a `blob`
/// (`true`), not an `image` or `audio` block, and is written back as one.
pub(super) const RESOURCE: &str = "resource";
/// On a part from an embedded `resource`: the explicit nulls of its `resource` (contents)
/// object (a list of field names).
pub(super) const RESOURCE_NULLS: &str = "nulls.resource";
/// On a result: it had `isError: false` (`true`), written back rather than left out.
pub(super) const IS_ERROR_FALSE: &str = "is_error_false";
/// On a call: its params had no `arguments` (`true`); read as `{}`, left out again.
pub(super) const NO_ARGUMENTS: &str = "no_arguments";
