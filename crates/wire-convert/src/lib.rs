//! wire-convert: being written.
