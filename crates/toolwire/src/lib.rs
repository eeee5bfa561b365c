//! toolwire: being written.
