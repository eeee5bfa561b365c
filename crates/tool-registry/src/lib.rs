//! tool-registry: being written.
