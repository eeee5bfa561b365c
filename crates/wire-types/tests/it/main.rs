#![allow(unreachable_pub)] // a test binary: its `pub` items are reachable only within it, by design
//! The one integration-test binary of wire-types.
//!
//! Every test reads the shared `fixtures/` folder through the `check` helpers in
//! `support`; snapshots are in `snapshots/`.

/// Per-format one-screen summaries of parsed payloads, for the snapshots.
mod summary;
/// Reading fixtures, dispatching on their format, comparing written-back JSON.
mod support;

/// Request fixtures and stream events written back validate against the official SDK
/// schemas.
mod conformance;
/// Format and kind detection on every fixture.
mod detect;
/// Stream framing of every stream fixture however split; AWS event-stream vectors; limits.
mod framing;
/// Duplicate keys, a byte order mark, `-0`, a Responses item whose role and type disagree.
mod hostile;
/// Every `invalid/` case fails with the pointer it names; snapshot of the error.
mod invalid;
/// Arbitrary values of the main types survive write → read.
mod props;
/// Every fixture reads and writes back to equal JSON; snapshot of its summary.
mod roundtrip;
