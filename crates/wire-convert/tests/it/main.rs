#![allow(unreachable_pub)] // a test binary: its `pub` items are reachable only within it, by design
//! The one integration-test binary of wire-convert. Every test runs on the shared
//! `fixtures/` through the helpers in `support`.

/// Fixture listing, schema validation, the silent-drop check.
mod support;

/// Bare conversations and tools read alone, and written back.
mod bare;
/// Hostile bodies (`fixtures/hostile/`): what a conversion writes reads back.
mod hostile;
/// Every fixture to every format: converted JSON and losses (snapshots), each output
/// valid against its target's SDK schema, nothing dropped without a loss.
mod matrix;
/// Neutral-model fixtures (one per conversion rule) encoded to every format.
mod names;
mod neutral;
/// Properties: neutral → format → neutral, id mapping, A → B → A on every fixture.
mod props;
/// Every fixture decodes and encodes back to its own format unchanged, with no loss.
mod same_format;
/// Every recorded stream decoded as it arrives and accumulated (snapshots); split
/// anywhere, the same parts.
mod stream;
/// Every recorded stream translated to every format: each event the translator writes
/// valid against the target's SDK stream-event schema; split anywhere, the same bytes.
mod translate;
