//! Developer automation.
fn main() {}
