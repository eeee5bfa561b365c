//! The `toolwire` command.
fn main() {}
