//! The agent step: a model response in, the final answer or the follow-up out, in the
//! response's own format.

use crate::{Error, ToolRegistry};
use serde_json::Value;
use serde_json::value::RawValue;
use wire_convert::model::{self, Message, Part, Role, ToolCall, ToolResult};
use wire_convert::{Loss, Options};
use wire_types::Format;

/// What to do after a model response.
///
/// Equality compares the follow-up items by their text.
#[derive(Debug, Clone)]
pub enum Step {
    /// The model answered without calling tools: its text, and the whole response.
    Final {
        /// The text of the first choice.
        text: String,
        /// The response in the neutral model (boxed: it is large next to the other arm).
        response: Box<model::Response>,
        /// What the neutral model could not carry from the response (decoding keeps what
        /// it does not model as vendor data, so this is normally empty).
        losses: Vec<Loss>,
    },
    /// The model called tools; they ran. Append `append` to the conversation and call
    /// the model again.
    Continue {
        /// The calls, in order.
        calls: Vec<ToolCall>,
        /// Their results, in call order (failures included: `is_error`).
        results: Vec<ToolResult>,
        /// The messages (items, contents) to append, in the response's format, each as
        /// its JSON text (ready to be written into the next request body;
        /// [`Step::append_values`] parses them): the assistant turn as history, then the
        /// results the format's way — OpenAI `tool` messages (failures prefixed
        /// `Error:`), one Anthropic user message of `tool_result` blocks with `is_error`,
        /// Responses items, one Gemini content of `functionResponse` parts, Ollama `tool`
        /// messages with `tool_name`, Bedrock `toolResult` blocks with `status`, Mistral
        /// and Cohere `tool` messages.
        append: Vec<Box<RawValue>>,
        /// What the format could not carry in the follow-up (e.g. an image in an OpenAI
        /// tool result, moved to a user message), after what decoding the response could
        /// not carry (normally nothing).
        losses: Vec<Loss>,
    },
}

impl PartialEq for Step {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Step::Final {
                    text,
                    response,
                    losses,
                },
                Step::Final {
                    text: t,
                    response: r,
                    losses: l,
                },
            ) => text == t && response == r && losses == l,
            (
                Step::Continue {
                    calls,
                    results,
                    append,
                    losses,
                },
                Step::Continue {
                    calls: c,
                    results: r,
                    append: a,
                    losses: l,
                },
            ) => {
                calls == c
                    && results == r
                    && losses == l
                    && append.iter().map(|i| i.get()).eq(a.iter().map(|i| i.get()))
            }
            _ => false,
        }
    }
}

impl Step {
    /// The follow-up messages as `serde_json::Value`s (empty for [`Step::Final`]), for a
    /// conversation held as values.
    pub fn append_values(&self) -> Vec<Value> {
        match self {
            Step::Final { .. } => Vec::new(),
            Step::Continue { append, .. } => append
                .iter()
                // Each item was written by serde_json: it reads back.
                .filter_map(|item| serde_json::from_str(item.get()).ok())
                .collect(),
        }
    }
}

impl ToolRegistry {
    /// Parses a response body of `format`, dispatches its tool calls (concurrently; an
    /// unknown tool gets a failed result listing the available tools), and returns the
    /// final answer or the follow-up to append, in the same format.
    pub fn step(&self, format: Format, body: &str) -> Result<Step, Error> {
        crate::block_on(self.step_async(format, body))
    }

    /// [`ToolRegistry::step`] for async callers.
    pub async fn step_async(&self, format: Format, body: &str) -> Result<Step, Error> {
        // No source map: the follow-up is written in the response's own format, so its
        // losses point into the neutral follow-up, not back into the body.
        let (mut response, mut losses) = wire_convert::decode_response_unmapped(body, format)?;
        let Some(choice) = response.choices.first() else {
            return Ok(Step::Final {
                text: String::new(),
                response: Box::new(response),
                losses,
            });
        };
        let mut calls: Vec<ToolCall> = Vec::with_capacity(
            choice
                .message
                .content
                .iter()
                .filter(|p| matches!(p, Part::ToolCall(_)))
                .count(),
        );
        calls.extend(choice.message.content.iter().filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.clone()),
            _ => None,
        }));
        if calls.is_empty() {
            let text = choice.message.joined_text();
            return Ok(Step::Final {
                text,
                response: Box::new(response),
                losses,
            });
        }
        let results = self.dispatch_all(&calls).await;
        // The response is not handed back on this path: its message moves into the
        // follow-up instead of being copied.
        let message = response.choices.swap_remove(0).message;
        let (append, follow_up_losses) = follow_up(format, message, &results)?;
        losses.extend(follow_up_losses);
        Ok(Step::Continue {
            calls,
            results,
            append,
            losses,
        })
    }
}

/// The assistant turn and the results, encoded as `format`'s conversation items.
pub(crate) fn follow_up(
    format: Format,
    assistant: Message,
    results: &[ToolResult],
) -> Result<(Vec<Box<RawValue>>, Vec<Loss>), Error> {
    let request = model::Request {
        messages: vec![
            assistant,
            Message::new(
                Role::Tool,
                results.iter().cloned().map(Part::ToolResult).collect(),
            ),
        ],
        ..Default::default()
    };
    // The follow-up is the response's own format: its history is written back as it is.
    // Its losses concern the appended messages only (not a missing model or max_tokens).
    let encoded =
        wire_convert::encode_messages_from(request, Some(format), format, &Options::default())?;
    Ok((encoded.value, encoded.losses))
}
