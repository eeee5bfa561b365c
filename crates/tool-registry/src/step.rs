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
    /// The model's turn ended on calls the registry does not run, and nothing it can:
    /// hosted tool calls (Responses `apply_patch_call`, `web_search_call`,
    /// `mcp_approval_request`, Anthropic `server_tool_use`, … — kept whole in the neutral
    /// model as opaque parts) with no text, or calls of custom tools nobody registered.
    /// Nothing ran. Answer them yourself (an `apply_patch_call_output`, an approval, the
    /// custom tool's output) or call the model again; a turn of hosted calls that ends in
    /// text is a [`Step::Final`].
    Unhandled {
        /// The custom tool calls no registered tool takes, in order (the input text as a
        /// JSON string in `arguments`, read with [`wire_convert::decode_custom_call`]).
        calls: Vec<ToolCall>,
        /// The other parts the registry cannot run or read as text (hosted calls and
        /// their results), in order.
        hosted: Vec<Part>,
        /// The text of the first choice (often empty).
        text: String,
        /// The response in the neutral model (boxed: it is large next to the other arm).
        response: Box<model::Response>,
        /// What the neutral model could not carry from the response (normally nothing).
        losses: Vec<Loss>,
    },
    /// The model called tools; they ran. Append the follow-up to the conversation and
    /// call the model again.
    Continue {
        /// The response's id, when the format gives one (the decoded neutral response's
        /// `id`).
        id: Option<String>,
        /// The response's token usage, when the format gives it (the decoded neutral
        /// response's `usage`; boxed: it is large next to the other fields).
        usage: Option<Box<model::Usage>>,
        /// The calls, in order: function calls, and custom tool calls (a Responses
        /// `custom_tool_call`, whose input text is a JSON string in `arguments`; one no
        /// registered tool takes gets a failed result, like an unknown function).
        calls: Vec<ToolCall>,
        /// Their results, in call order (failures included: `is_error`).
        results: Vec<ToolResult>,
        /// The messages (items, contents) to append, in the response's format, each as
        /// its JSON text (ready to be written into the next request body;
        /// [`Step::follow_up_values`] parses them): the assistant turn as history, then the
        /// results the format's way — OpenAI `tool` messages (failures prefixed
        /// `Error:`), one Anthropic user message of `tool_result` blocks with `is_error`,
        /// Responses items, one Gemini content of `functionResponse` parts, Ollama `tool`
        /// messages with `tool_name`, Bedrock `toolResult` blocks with `status`, Mistral
        /// and Cohere `tool` messages; a custom tool call is answered with a Responses
        /// `custom_tool_call_output` item.
        follow_up: Vec<Box<RawValue>>,
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
                Step::Unhandled {
                    calls,
                    hosted,
                    text,
                    response,
                    losses,
                },
                Step::Unhandled {
                    calls: c,
                    hosted: h,
                    text: t,
                    response: r,
                    losses: l,
                },
            ) => calls == c && hosted == h && text == t && response == r && losses == l,
            (
                Step::Continue {
                    id,
                    usage,
                    calls,
                    results,
                    follow_up,
                    losses,
                },
                Step::Continue {
                    id: i,
                    usage: u,
                    calls: c,
                    results: r,
                    follow_up: f,
                    losses: l,
                },
            ) => {
                id == i
                    && usage == u
                    && calls == c
                    && results == r
                    && losses == l
                    && follow_up
                        .iter()
                        .map(|x| x.get())
                        .eq(f.iter().map(|x| x.get()))
            }
            _ => false,
        }
    }
}

impl Step {
    /// The follow-up messages as `serde_json::Value`s (empty for [`Step::Final`] and
    /// [`Step::Unhandled`]), for a conversation held as values.
    pub fn follow_up_values(&self) -> Vec<Value> {
        match self {
            Step::Final { .. } | Step::Unhandled { .. } => Vec::new(),
            Step::Continue { follow_up, .. } => follow_up
                .iter()
                // Each item was written by serde_json: it reads back.
                .filter_map(|item| serde_json::from_str(item.get()).ok())
                .collect(),
        }
    }
}

impl ToolRegistry {
    /// Parses a response body of `format`, dispatches its tool calls (concurrently, as
    /// [`ToolRegistry::dispatch_all`] does; an unknown tool gets a failed result listing
    /// the available tools), and returns the final answer or the follow-up to append, in
    /// the same format; blocks until the calls are done. A turn with nothing the registry
    /// can run — hosted calls and no text, or only calls of custom tools nobody
    /// registered — is [`Step::Unhandled`], never an empty final answer.
    pub fn step(&self, format: Format, body: &str) -> Result<Step, Error> {
        crate::exec::block_on(self.step_async(format, body))
    }

    /// [`ToolRegistry::step`] as a future.
    pub async fn step_async(&self, format: Format, body: &str) -> Result<Step, Error> {
        // No source map: the follow-up is written in the response's own format, so its
        // losses point into the neutral follow-up, not back into the body.
        let mut options = Options::default();
        options.source_map = false;
        let decoded = wire_convert::decode_response(body, format, &options)?;
        self.step_decoded(format, decoded.value, decoded.losses)
            .await
    }

    /// The step for a response already in the neutral model (a streamed response added up
    /// by [`wire_convert::stream::Accumulator`], say); the follow-up is written in
    /// `format`.
    pub fn step_response(&self, format: Format, response: model::Response) -> Result<Step, Error> {
        crate::exec::block_on(self.step_response_async(format, response))
    }

    /// [`ToolRegistry::step_response`] as a future.
    pub async fn step_response_async(
        &self,
        format: Format,
        response: model::Response,
    ) -> Result<Step, Error> {
        self.step_decoded(format, response, Vec::new()).await
    }

    /// The step for a whole streamed response of `format`, in its wire framing (SSE;
    /// NDJSON for Ollama; AWS event-stream for Bedrock): the stream is added up, then
    /// stepped as the response it makes. A stream that reported an error or broke off
    /// is an error: the calls of a response that did not finish are not run (their
    /// arguments may be cut short).
    ///
    /// ```
    /// use tool_registry::{Step, ToolRegistry};
    /// use wire_types::Format;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct City { city: String }
    ///
    /// let mut registry = ToolRegistry::new();
    /// registry.register_typed("weather", "Weather", |c: City| Ok::<_, String>(format!("{}: 21°C", c.city)))?;
    /// let sse = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n\
    /// event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"weather\",\"input\":{}}}\n\n\
    /// event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Oslo\\\"}\"}}\n\n\
    /// event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
    /// event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n\
    /// event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    /// let step = registry.step_stream(Format::Anthropic, sse.as_bytes())?;
    /// let Step::Continue { results, .. } = step else { panic!("a call") };
    /// assert!(!results[0].is_error);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn step_stream(&self, format: Format, stream: &[u8]) -> Result<Step, Error> {
        crate::exec::block_on(self.step_stream_async(format, stream))
    }

    /// [`ToolRegistry::step_stream`] as a future.
    pub async fn step_stream_async(&self, format: Format, stream: &[u8]) -> Result<Step, Error> {
        let mut options = Options::default();
        options.source_map = false;
        let mut decoder = wire_convert::stream::StreamDecoder::new(format, &options)?;
        let mut acc = wire_convert::stream::Accumulator::new();
        acc.extend(decoder.push(stream)?);
        acc.extend(decoder.finish()?);
        let losses = decoder.losses().to_vec();
        let response = acc.finish()?;
        self.step_decoded(format, response, losses).await
    }

    async fn step_decoded(
        &self,
        format: Format,
        mut response: model::Response,
        mut losses: Vec<Loss>,
    ) -> Result<Step, Error> {
        let Some(choice) = response.choices.first() else {
            return Ok(Step::Final {
                text: String::new(),
                response: Box::new(response),
                losses,
            });
        };
        // Function calls, and custom calls (`custom` says which), in order; the parts
        // kept whole that are no custom call are hosted calls and their results.
        let mut calls: Vec<ToolCall> = Vec::with_capacity(
            choice
                .message
                .content
                .iter()
                .filter(|p| matches!(p, Part::ToolCall(_) | Part::Opaque(_)))
                .count(),
        );
        let mut custom: Vec<bool> = Vec::with_capacity(calls.capacity());
        let mut hosted: Vec<Part> = Vec::new();
        for p in &choice.message.content {
            match p {
                Part::ToolCall(c) => {
                    calls.push(c.clone());
                    custom.push(false);
                }
                Part::Opaque(_) => match wire_convert::decode_custom_call(p) {
                    Some(c) => {
                        calls.push(c);
                        custom.push(true);
                    }
                    None => hosted.push(p.clone()),
                },
                _ => {}
            }
        }
        // Something to run: a function call, or a custom call of a registered tool.
        let runnable = calls
            .iter()
            .zip(&custom)
            .any(|(c, &is_custom)| !is_custom || self.spec(&c.name).is_some());
        if !runnable {
            let text = choice.message.joined_text();
            if calls.is_empty() && (hosted.is_empty() || !text.is_empty()) {
                return Ok(Step::Final {
                    text,
                    response: Box::new(response),
                    losses,
                });
            }
            return Ok(Step::Unhandled {
                calls,
                hosted,
                text,
                response: Box::new(response),
                losses,
            });
        }
        // A call of a name `tools_for` rewrote for this format runs the registered tool;
        // its result keeps the name the model called.
        let names = self.names_of(format);
        let mut results = if names.is_empty() {
            self.dispatch_all_async(&calls).await
        } else {
            let registered: Vec<ToolCall> = calls
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    let original = names.reverse(&c.name);
                    if original != c.name && self.spec(&c.name).is_none() {
                        c.name = original.to_owned();
                    }
                    c
                })
                .collect();
            self.dispatch_all_async(&registered).await
        };
        for (r, c) in results.iter_mut().zip(&calls) {
            if r.name.is_some() {
                r.name = Some(c.name.clone());
            }
        }
        // The response is not handed back on this path: its message moves into the
        // follow-up instead of being copied.
        let message = response.choices.swap_remove(0).message;
        let (items, follow_up_losses) = follow_up(format, message, &results, &custom)?;
        losses.extend(follow_up_losses);
        Ok(Step::Continue {
            id: response.id,
            usage: response.usage.map(Box::new),
            calls,
            results,
            follow_up: items,
            losses,
        })
    }
}

/// The assistant turn and the results, encoded as `format`'s conversation items; the
/// result of a custom call (`custom[k]`) as the custom tool call output that answers it.
pub(crate) fn follow_up(
    format: Format,
    assistant: Message,
    results: &[ToolResult],
    custom: &[bool],
) -> Result<(Vec<Box<RawValue>>, Vec<Loss>), Error> {
    let mut losses = Vec::new();
    let mut parts = Vec::with_capacity(results.len());
    for (k, r) in results.iter().enumerate() {
        if custom.get(k).copied().unwrap_or(false) {
            let out = wire_convert::encode_custom_output(r.clone(), &Options::default())?;
            let at = format!("/messages/1/content/{k}");
            losses.extend(out.losses.into_iter().map(|mut l| {
                l.path.insert_str(0, &at);
                l
            }));
            parts.push(out.value);
        } else {
            parts.push(Part::ToolResult(r.clone()));
        }
    }
    let request = model::Request {
        messages: vec![assistant, Message::new(Role::Tool, parts)],
        source: Some(format),
        ..Default::default()
    };
    // The follow-up is the response's own format: its history is written back as it is.
    // Its losses concern the appended messages only (not a missing model or max_tokens).
    let encoded = wire_convert::encode_messages(request, format, &Options::default())?;
    losses.extend(encoded.losses);
    Ok((encoded.value, losses))
}
