//! Encoding: neutral stream parts in, the stream's events out.

use super::super::F;
use super::super::hints::NO_ID;
use super::super::response::encode_usage;
use super::decode::message_members;
use crate::model::{Part, StopKind, StopReason, ToolCall, Usage};
use crate::stream::{
    ChunkHead, EventEncoder, Events, Finish, Gate, PartId, Rule, StreamPart, StreamStart,
    UNFINISHED, Whole, at, call_type, error_code, meta_lost, no_place, reasoning_dropped,
    signature_lost, started_call,
};
use crate::vendor::Fields;
use crate::{Ctx, Error, LossCode};
use serde_json::{Map, Value};
use wire_types::openai_chat as w;

/// What an open part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    /// Reasoning, written as `reasoning_content` (only when this format made it).
    Reasoning,
    /// A tool call: its `index` in its choice.
    Tool(u32),
}

/// A choice being written.
#[derive(Debug, Default)]
struct Out {
    index: u32,
    /// Whether its first delta (with the role) went out.
    role: bool,
    calls: u32,
    finished: bool,
}

/// The Chat Completions stream encoder: one `chat.completion.chunk` per delta as it
/// comes (the role on a choice's first), the `finish_reason` chunk, then the usage chunk
/// with `choices: []` and `data: [DONE]`. A source that ends without a finish ends with an
/// error object instead, so that a client does not take a cut answer for a whole one.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    /// The id, model and source's format, from the start.
    head: ChunkHead,
    created: u64,
    /// Members written on every chunk (`system_fingerprint`, `service_tier`).
    every: Map<String, Value>,
    /// Members written on the first chunk only.
    first: Map<String, Value>,
    /// Known chunk members the source sent as `null` (`system_fingerprint: null`).
    nulls: Vec<&'static str>,
    choices: Vec<Out>,
    open: Vec<(PartId, u32, Open)>,
    /// Started, over, and the parts left out (reasoning dropped or another provider's),
    /// with what belongs to them.
    gate: Gate,
    usage: Option<Usage>,
    /// Text chunks written from a template, per choice: the chunk of an empty text delta
    /// serialized once and split where its `""` content goes (the envelope does not change
    /// after the first chunk), so a long answer's thousands of text chunks cost a string
    /// escape each instead of a chunk built and serialized (`cargo bench -p wire-convert
    /// --bench translate`). The bytes are the typed chunk's (tested).
    templates: Vec<(u32, String, String)>,
}

impl Encoder {
    fn out(&mut self, index: u32) -> &mut Out {
        let i = match self.choices.iter().position(|c| c.index == index) {
            Some(i) => i,
            None => {
                self.choices.push(Out {
                    index,
                    ..Default::default()
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[i]
    }

    /// One chunk with one choice.
    fn chunk(
        &mut self,
        index: u32,
        mut delta: w::Delta,
        finish: Option<w::FinishReason>,
        logprobs: Option<w::ChunkLogprobs>,
        extra: wire_types::Extra,
        out: &mut Events,
    ) -> Result<(), Error> {
        let o = self.out(index);
        if !o.role {
            o.role = true;
            delta.role = Some("assistant".to_owned());
        }
        let mut extra = extra;
        // A finish's content-filter results (Azure) come in `extra`, as an object.
        let content_filter_results = match extra.remove("content_filter_results") {
            Some(Value::Object(m)) => Some(m),
            _ => None,
        };
        let mut choice = w::ChunkChoice {
            index: Some(index),
            delta: Some(delta),
            finish_reason: finish,
            logprobs,
            content_filter_results,
            extra,
        };
        if choice.finish_reason.is_none() {
            choice.extra.mark_null("finish_reason");
        }
        if choice.logprobs.is_none() {
            choice.extra.mark_null("logprobs");
        }
        let chunk = self.envelope(Some(vec![choice]), None);
        out.push(None, &chunk)
    }

    /// The chunk of an empty text delta of choice `index` (whose role is sent), serialized
    /// and split around its `""` content.
    fn text_template(&mut self, index: u32) -> Result<(u32, String, String), Error> {
        let delta = w::Delta {
            content: Some(String::new()),
            ..Default::default()
        };
        let mut choice = w::ChunkChoice {
            index: Some(index),
            delta: Some(delta),
            finish_reason: None,
            logprobs: None,
            content_filter_results: None,
            extra: Default::default(),
        };
        choice.extra.mark_null("finish_reason");
        choice.extra.mark_null("logprobs");
        let chunk = self.envelope(Some(vec![choice]), None);
        let text = serde_json::to_string(&chunk).map_err(|e| Error::invalid("", e.to_string()))?;
        // Every other string in the chunk is escaped, so this is the content's place.
        let marker = "\"content\":\"\"";
        let at = text
            .find(marker)
            .ok_or_else(|| Error::invalid("", "a text chunk without its content"))?;
        let split = at + marker.len() - 2;
        Ok((
            index,
            text[..split].to_owned(),
            text[split + 2..].to_owned(),
        ))
    }

    /// A chunk around `choices` (and `usage`).
    fn envelope(
        &mut self,
        choices: Option<Vec<w::ChunkChoice>>,
        usage: Option<w::Usage>,
    ) -> w::Chunk {
        let mut fields = self.every.clone();
        fields.extend(std::mem::take(&mut self.first));
        let system_fingerprint = fields.take_as("system_fingerprint");
        let service_tier = fields.take_as("service_tier");
        let moderation = fields.shift_remove("moderation").map(Box::new);
        let prompt_filter_results = fields.take_as("prompt_filter_results");
        let mut extra = wire_types::Extra::from(fields);
        for n in &self.nulls {
            extra.mark_null(n);
        }
        w::Chunk {
            id: Some(self.head.id.clone()),
            object: Some("chat.completion.chunk".to_owned()),
            created: Some(self.created),
            model: Some(self.head.model.clone()),
            choices,
            usage,
            system_fingerprint,
            service_tier,
            obfuscation: None,
            moderation,
            prompt_filter_results,
            extra,
        }
    }

    fn text_delta(&mut self, index: u32, text: String, out: &mut Events) -> Result<(), Error> {
        let role_sent = self.choices.iter().any(|c| c.index == index && c.role);
        if role_sent && self.first.is_empty() {
            let k = match self.templates.iter().position(|(i, _, _)| *i == index) {
                Some(k) => k,
                None => {
                    let template = self.text_template(index)?;
                    self.templates.push(template);
                    self.templates.len() - 1
                }
            };
            let (_, prefix, suffix) = &self.templates[k];
            return out.push_spliced(None, prefix, &text, suffix);
        }
        let delta = w::Delta {
            content: Some(text),
            ..Default::default()
        };
        self.chunk(index, delta, None, None, Default::default(), out)
    }

    fn reasoning_delta(&mut self, index: u32, text: String, out: &mut Events) -> Result<(), Error> {
        let delta = w::Delta {
            reasoning_content: Some(text),
            ..Default::default()
        };
        self.chunk(index, delta, None, None, Default::default(), out)
    }

    fn call_fragment(
        &mut self,
        choice: u32,
        fragment: w::ToolCallDelta,
        out: &mut Events,
    ) -> Result<(), Error> {
        let first = !self.out(choice).role;
        let mut delta = w::Delta {
            tool_calls: Some(vec![fragment]),
            ..Default::default()
        };
        if first {
            // What OpenAI sends on a call's first chunk: no content.
            delta.extra.mark_null("content");
        }
        self.chunk(choice, delta, None, None, Default::default(), out)
    }

    /// A call's first fragment (`call`: its id, name and vendor data; its arguments follow
    /// as deltas).
    fn tool_start(
        &mut self,
        part: PartId,
        choice: u32,
        call: ToolCall,
        ctx: &mut Ctx<'_>,
        out: &mut Events,
    ) -> Result<(), Error> {
        let ToolCall { id, name, meta, .. } = call;
        let o = self.out(choice);
        let index = o.calls;
        o.calls += 1;
        self.open.push((part, choice, Open::Tool(index)));
        signature_lost(meta.signature.as_ref(), part, ctx);
        let v = &meta.vendor;
        let mut fields = ctx.vendor_fields(v, &at(part));
        let kind = call_type(v, &mut fields, F)
            .as_deref()
            .map(w::ToolCallType::from);
        let id = (!v.flag(F, NO_ID)).then_some(id);
        let extra_content = fields.take_as("extra_content");
        // Members of a whole body's call that a fragment has no place for.
        for key in ["name", "arguments"] {
            if fields.shift_remove(key).is_some() {
                ctx.dropped(
                    LossCode::FieldUnsupported,
                    format!("{}/{key}", at(part)),
                    format!("a flat call's `{key}` is not written in an openai-chat stream"),
                );
            }
        }
        let fragment = w::ToolCallDelta {
            index: Some(index),
            id,
            kind,
            function: Some(w::FunctionCallDelta {
                name: Some(name),
                arguments: Some(String::new()),
                extra: Default::default(),
            }),
            extra_content,
            extra: wire_types::Extra::from(ctx.unknown_only(
                fields,
                w::ToolCallDelta::FIELDS,
                at(part),
            )),
        };
        self.call_fragment(choice, fragment, out)
    }

    fn tool_delta(&mut self, part: PartId, json: String, out: &mut Events) -> Result<(), Error> {
        let Some(&(_, choice, Open::Tool(index))) = self.open.iter().find(|(p, _, _)| *p == part)
        else {
            return Ok(());
        };
        let fragment = w::ToolCallDelta {
            index: Some(index),
            function: Some(w::FunctionCallDelta {
                name: None,
                arguments: Some(json),
                extra: Default::default(),
            }),
            ..Default::default()
        };
        self.call_fragment(choice, fragment, out)
    }

    fn kind(&self, part: PartId) -> Option<(u32, Open)> {
        self.open
            .iter()
            .find(|(p, _, _)| *p == part)
            .map(|(_, c, k)| (*c, *k))
    }

    /// Whether reasoning is another provider's, which is not written (a loss): only this
    /// format's own is.
    fn foreign_reasoning(&self, part: PartId, ctx: &mut Ctx<'_>) -> bool {
        if self.head.source != Some(F) {
            ctx.dropped(
                LossCode::ReasoningDropped,
                at(part),
                "openai-chat streams have no field for another provider's reasoning",
            );
            return true;
        }
        false
    }

    fn whole(&mut self, whole: Whole, ctx: &mut Ctx<'_>, out: &mut Events) -> Result<(), Error> {
        let (part, choice) = (whole.part, whole.choice);
        match whole.content {
            Part::Refusal(t) => {
                ctx.report_unwritten_fields(&t.meta.vendor, &at(part));
                let delta = w::Delta {
                    refusal: Some(t.text),
                    ..Default::default()
                };
                self.chunk(choice, delta, None, None, Default::default(), out)
            }
            Part::Text(t) => {
                ctx.report_unwritten_fields(&t.meta.vendor, &at(part));
                self.text_delta(choice, t.text, out)
            }
            Part::ToolCall(c) => {
                let json = c.arguments.text();
                self.tool_start(part, choice, c, ctx, out)?;
                self.tool_delta(part, json, out)?;
                self.open.retain(|(p, _, _)| *p != part);
                Ok(())
            }
            Part::Reasoning(r) => {
                if !reasoning_dropped(part, true, ctx) && !self.foreign_reasoning(part, ctx) {
                    if let Some(text) = r.text {
                        self.reasoning_delta(choice, text, out)?;
                    }
                }
                Ok(())
            }
            other => {
                no_place(part, &other, "an openai-chat response stream", ctx);
                Ok(())
            }
        }
    }

    fn finish(&mut self, f: Finish, ctx: &mut Ctx<'_>, out: &mut Events) -> Result<(), Error> {
        let choice = f.choice;
        self.open.retain(|(_, c, _)| *c != choice);
        let mut fields = ctx.vendor_fields(&f.vendor, "/finish");
        let logprobs = fields
            .shift_remove("logprobs")
            .and_then(|l| serde_json::from_value::<w::ChunkLogprobs>(l).ok());
        let mut delta = w::Delta::default();
        let mut m = message_members(&mut fields);
        if !m.is_empty() {
            if let Some(x) = m.take_as::<w::ExtraContent>("extra_content") {
                delta.extra_content = Some(x);
            }
            if let Some(r) = m
                .shift_remove("role")
                .and_then(|r| r.as_str().map(str::to_owned))
            {
                delta.role = Some(r);
                self.out(choice).role = true;
            }
            delta.extra =
                wire_types::Extra::from(ctx.unknown_only(m, w::Delta::FIELDS, "/finish/message"));
        }
        let finish = Some(match f.stop_reason {
            Some(r) => finish_reason(&r, ctx),
            None => w::FinishReason::Stop,
        });
        let content_filter_results = fields.take_as("content_filter_results");
        let mut extra =
            wire_types::Extra::from(ctx.unknown_only(fields, w::ChunkChoice::FIELDS, "/finish"));
        if let Some(cf) = content_filter_results {
            extra.insert("content_filter_results".to_owned(), Value::Object(cf));
        }
        self.chunk(choice, delta, finish, logprobs, extra, out)?;
        self.out(choice).finished = true;
        Ok(())
    }
}

/// The `finish_reason` of a neutral stop: this format's own as it came; another format's
/// by kind (a kind Chat Completions has no word for is `stop`, with a loss: the SDK's
/// types take no other value).
fn finish_reason(r: &StopReason, ctx: &mut Ctx<'_>) -> w::FinishReason {
    if let Some(raw) = r.raw_for(F) {
        return w::FinishReason::from(raw);
    }
    match r.kind {
        StopKind::EndTurn | StopKind::StopSequence => w::FinishReason::Stop,
        StopKind::MaxTokens => w::FinishReason::Length,
        StopKind::ToolUse => w::FinishReason::ToolCalls,
        StopKind::ContentFilter => w::FinishReason::ContentFilter,
        StopKind::Pause | StopKind::Error | StopKind::Other => {
            let raw = r.raw.clone().unwrap_or_else(|| format!("{:?}", r.kind));
            ctx.changed(
                LossCode::StopReasonChanged,
                "/finish/stop_reason",
                format!("stop reason `{raw}` has no openai-chat equivalent: written as `stop`"),
            );
            w::FinishReason::Stop
        }
    }
}

impl EventEncoder for Encoder {
    fn gate(&mut self) -> &mut Gate {
        &mut self.gate
    }

    fn rule(&self) -> Rule {
        Rule::every_choice(true).no_tokens()
    }

    fn start(&mut self, s: StreamStart, _out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        self.head = ChunkHead::new(s.format, s.id, s.model, ctx);
        self.created = s.created.unwrap_or(0);
        let mut nulls = wire_types::Extra::new();
        ctx.mark_nulls(&mut nulls, &s.vendor, w::Chunk::FIELDS);
        self.nulls = nulls.nulls().to_vec();
        for (k, v) in ctx.vendor_fields(&s.vendor, "") {
            if k == "system_fingerprint" || k == "service_tier" {
                self.every.insert(k, v);
            } else {
                self.first.insert(k, v);
            }
        }
        Ok(())
    }

    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        match part {
            // Signatures are the gate's to report (`Rule::no_tokens`).
            StreamPart::Start(_) | StreamPart::Signature(_) => {}
            StreamPart::TextStart { part, choice, meta } => {
                meta_lost(&meta, part, ctx);
                self.open.push((part, choice, Open::Text));
                // An empty text opens the part (with the role on a choice's first chunk, as
                // OpenAI's first chunk): a text that stays empty is still there.
                self.text_delta(choice, String::new(), out)?;
            }
            StreamPart::TextDelta { part, text } => match self.kind(part) {
                Some((choice, Open::Text)) if !text.is_empty() => {
                    self.text_delta(choice, text, out)?
                }
                Some((choice, Open::Reasoning)) if !text.is_empty() => {
                    self.reasoning_delta(choice, text, out)?
                }
                _ => {}
            },
            StreamPart::ReasoningStart {
                part, choice, meta, ..
            } => {
                if self.foreign_reasoning(part, ctx) {
                    self.gate.dropped.drop(part);
                    return Ok(());
                }
                ctx.report_unwritten_fields(&meta.vendor, &at(part));
                self.open.push((part, choice, Open::Reasoning));
                if !self.out(choice).role {
                    self.reasoning_delta(choice, String::new(), out)?;
                }
            }
            StreamPart::ReasoningDelta { part, text }
            | StreamPart::SummaryDelta { part, text, .. } => {
                if let Some((choice, Open::Reasoning)) = self.kind(part) {
                    if !text.is_empty() {
                        self.reasoning_delta(choice, text, out)?;
                    }
                }
            }
            StreamPart::ToolStart(t) => {
                let (part, choice) = (t.part, t.choice);
                self.tool_start(part, choice, started_call(t), ctx, out)?;
            }
            StreamPart::ToolDelta { part, json } => {
                if !json.is_empty() {
                    self.tool_delta(part, json, out)?;
                }
            }
            StreamPart::Whole(whole) => self.whole(whole, ctx, out)?,
            StreamPart::Meta { part, meta } => {
                match self.kind(part) {
                    Some((choice, Open::Tool(index)))
                        if meta.vendor.format == Some(F)
                            && meta.vendor.fields.contains_key("extra_content") =>
                    {
                        // Gemini's signature on a call's last fragment.
                        let mut fields = meta.vendor.fields.to_map();
                        let fragment = w::ToolCallDelta {
                            index: Some(index),
                            extra_content: fields.take_as("extra_content"),
                            extra: wire_types::Extra::from(fields),
                            ..Default::default()
                        };
                        self.call_fragment(choice, fragment, out)?;
                    }
                    _ => ctx.report_unwritten_fields(&meta.vendor, &at(part)),
                }
                signature_lost(meta.signature.as_ref(), part, ctx);
            }
            StreamPart::End { part } => self.open.retain(|(p, _, _)| *p != part),
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish(f) => self.finish(f, ctx, out)?,
            StreamPart::ResponseMeta(v) => ctx.report_unwritten_fields(&v, ""),
            StreamPart::Error(e) => {
                let code = error_code(&e);
                error_event(out, e.message, code)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.choices.iter().any(|c| c.finished) {
            // The source ended without a finish (its decoder reports why): not a normal
            // end here either.
            return error_event(out, UNFINISHED.to_owned(), None);
        }
        if let Some(u) = self.usage.take() {
            let usage = encode_usage(u, ctx);
            let chunk = self.envelope(Some(Vec::new()), Some(usage));
            out.push(None, &chunk)?;
        }
        out.done();
        Ok(())
    }
}

/// An error object, as OpenAI sends one mid-stream.
fn error_event(out: &mut Events, message: String, code: Option<String>) -> Result<(), Error> {
    let kind = code.clone().unwrap_or_else(|| "server_error".to_owned());
    out.push(
        None,
        &w::ErrorResponse {
            error: w::ErrorDetail {
                message: Some(message),
                kind: Some(kind),
                param: None,
                code: code.map(Value::String),
                extra: Default::default(),
            },
            extra: Default::default(),
        },
    )
}
