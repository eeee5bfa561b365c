//! Summaries for `openai_responses` (placeholder until the types are written).

use wire_types::openai_responses::*;

pub fn request(v: &Request) -> String {
    format!("(not summarized yet){}\n", super::extra(&v.extra))
}

pub fn response(v: &Response) -> String {
    format!("(not summarized yet){}\n", super::extra(&v.extra))
}

pub fn event(v: &StreamEvent) -> String {
    format!("(not summarized yet){}", super::extra(&v.extra))
}

pub fn error(v: &ErrorResponse) -> String {
    format!("(not summarized yet){}\n", super::extra(&v.extra))
}
