//! Passes over the neutral model that every format shares.

use crate::model::{Message, Part};
use std::collections::HashMap;

/// Gives every tool result without a name the name of its call, when the call is in the
/// conversation (the name then survives pruning of the call).
pub fn resolve_result_names(messages: &mut [Message]) {
    let mut names: HashMap<String, String> = HashMap::new();
    for m in messages.iter() {
        for p in &m.content {
            if let Part::ToolCall(c) = p {
                names.insert(c.id.clone(), c.name.clone());
            }
        }
    }
    for m in messages.iter_mut() {
        for p in &mut m.content {
            if let Part::ToolResult(r) = p {
                if r.name.is_none() {
                    r.name = names.get(&r.call_id).cloned();
                }
            }
        }
    }
}
