#![allow(unreachable_pub)] // a test binary: its `pub` items are reachable only within it, by design
//! The one integration-test binary of tool-registry.

/// Dispatch: typed and raw tools, validation, unwrapping, failures, panics, concurrency.
mod dispatch;
/// MCP client side: requests, responses, cursors, import and the agent step.
mod mcp_client;
/// MCP server core: lifecycle, tools, errors, concurrency, cancellation, robustness.
mod mcp_server;
/// Registration: names, schemas, duplicates, provider rules.
mod register;
/// The agent step on every real response fixture with tool calls (snapshots).
mod step;
/// Tools arrays for every format (snapshots).
mod tools;
