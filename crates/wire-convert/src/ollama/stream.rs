//! The `/api/chat` stream: NDJSON, each line a chat response whose `message` carries a
//! fragment of `content` or `thinking`, or whole `tool_calls` (a call never spans lines);
//! the last line has `done: true`, `done_reason`, the counts and the durations. A line
//! `{"error": "…"}` is the provider's error (the HTTP status stays 200).
//!
//! Each line is decoded by the whole-response decoder, so the accumulated response is
//! the one the non-streamed body gives: a call without an `id` gets the synthetic id of
//! its position among all the calls of the turn. Text and reasoning stay one part each
//! while they run; a part of another kind ends them (`thinking`, `content`, calls in the
//! order Ollama sends them make the parts of the whole body). The first line's `model`
//! and `created_at` are the response's; the last line's durations and unknown fields are
//! its vendor data. `/api/generate` lines (`response`, top-level `thinking`) are read as
//! the message's content and thinking.

use super::F;
use super::encode::{encode_call, encode_part, part_meta};
use super::hints::{DONE, NO_MESSAGE};
use super::response::{decode_response, encode_response, stop_of};
use crate::model::{
    self, Arguments, Choice, Message, Part, Role, StopReason, ToolCall, Usage, Vendor,
};
use crate::stream::{
    Event, EventDecoder, EventEncoder, Events, PartId, Parts, StreamError, StreamErrorKind,
    StreamPart, StreamStart, incomplete, read,
};
use crate::{Ctx, Error, LossCode, ReasoningMode, util};
use serde_json::Value;
use wire_types::ollama as w;

/// What kind of part is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Running {
    Text,
    Reasoning,
}

/// The `/api/chat` stream decoder.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// The text or reasoning part still open.
    open: Option<(PartId, Running)>,
    /// Calls so far (the position of the next one among the turn's calls).
    calls: usize,
    /// The `done: true` line came.
    done: bool,
    /// Lines came after the last one (reported once).
    after_done: bool,
    /// `/api/generate` lines were read (reported once).
    generate: bool,
    /// Message fields with no stream part, reported once each.
    unplaced: Vec<String>,
}

impl EventDecoder for Decoder {
    fn event(&mut self, event: Event<'_>, out: &mut Parts, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let mut line = match read::<w::StreamEvent>(event.data)? {
            w::StreamEvent::Error(e) => {
                self.close(out);
                out.push(StreamPart::Error(StreamError {
                    kind: StreamErrorKind::Provider,
                    code: None,
                    message: e.error.clone(),
                    value: Some(wire_types::to_value(&e)),
                }));
                return Ok(());
            }
            w::StreamEvent::Chunk(line) => line,
        };
        if self.done {
            if !self.after_done {
                self.after_done = true;
                ctx.dropped(
                    LossCode::PartUnsupported,
                    "",
                    "lines after the `done: true` line are not part of the response: left out",
                );
            }
            return Ok(());
        }
        if line.message.is_none() {
            self.generate_line(&mut line, ctx);
        }
        let done = line.done == Some(true);
        let done_reason = line.done_reason.clone();
        let first = !out.started();
        let mut r = decode_response(line, ctx)?;
        let mut vendor = std::mem::take(&mut r.vendor);
        // Whether this is the last line is the finish's to say.
        vendor.hints.remove(DONE);
        if !done {
            // A message-less line (a keep-alive) says nothing of the response's message.
            vendor.hints.remove(NO_MESSAGE);
        }
        if first {
            out.start(StreamStart {
                format: Some(F),
                id: None,
                model: r.model.take(),
                created: r.created,
                vendor: if done {
                    Vendor::default()
                } else {
                    std::mem::take(&mut vendor)
                },
            });
        } else {
            // Each line has its time: the response's is the first line's.
            vendor.fields.remove("created_at");
        }
        if !done && vendor.fields.remove("logprobs").is_some() {
            self.unplaced(ctx, "logprobs");
        }
        if let Some(choice) = r.choices.pop() {
            self.message(choice.message, out, ctx);
        }
        if done {
            self.close(out);
            vendor.set_hint(F, DONE, true);
            out.push(StreamPart::ResponseMeta(vendor));
            if let Some(u) = r.usage {
                out.push(StreamPart::Usage(u));
            }
            let (stop_reason, vendor) = stop_of(done_reason.as_ref(), Some(true), self.calls > 0);
            self.done = true;
            out.push(StreamPart::Finish {
                choice: 0,
                stop_reason,
                vendor,
            });
        } else if !vendor.fields.is_empty() {
            vendor.hints = Default::default();
            out.push(StreamPart::ResponseMeta(vendor));
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Parts, _ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if !self.done {
            self.close(out);
            out.push(incomplete(F));
        }
        Ok(())
    }
}

impl Decoder {
    /// An `/api/generate` line: its `response` and top-level `thinking` become a message.
    fn generate_line(&mut self, line: &mut w::Response, ctx: &mut Ctx<'_>) {
        let text = match line.extra.remove("response") {
            Some(Value::String(t)) => t,
            Some(other) => {
                line.extra.insert("response".to_owned(), other);
                return;
            }
            None => return,
        };
        let thinking = match line.extra.remove("thinking") {
            Some(Value::String(t)) => Some(t),
            Some(other) => {
                line.extra.insert("thinking".to_owned(), other);
                None
            }
            None => None,
        };
        if !self.generate {
            self.generate = true;
            ctx.changed(
                LossCode::StreamChanged,
                "/response",
                "an /api/generate stream: its `response` text is read as the message's content",
            );
        }
        line.message = Some(w::Message {
            role: w::Role::Assistant,
            content: Some(text),
            thinking,
            images: None,
            tool_calls: None,
            tool_name: None,
            tool_call_id: None,
            extra: wire_types::Extra::new(),
        });
    }

    /// A message field that has no stream part, reported once.
    fn unplaced(&mut self, ctx: &mut Ctx<'_>, key: &str) {
        if !self.unplaced.iter().any(|k| k == key) {
            self.unplaced.push(key.to_owned());
            ctx.dropped(
                LossCode::FieldUnsupported,
                format!("/{key}"),
                format!("`{key}` of a stream line has no neutral stream part: left out"),
            );
        }
    }

    /// The parts of one line's message.
    fn message(&mut self, m: Message, out: &mut Parts, ctx: &mut Ctx<'_>) {
        if let Some(fields) = m.vendor.fields_for(F) {
            let keys: Vec<String> = fields.keys().cloned().collect();
            for k in keys {
                self.unplaced(ctx, &format!("message/{k}"));
            }
        }
        for p in m.content {
            match p {
                Part::Text(t) => {
                    if !t.text.is_empty() {
                        let part = self.running(Running::Text, out);
                        out.push(StreamPart::TextDelta { part, text: t.text });
                    }
                }
                Part::Reasoning(r) => {
                    if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                        let part = self.running(Running::Reasoning, out);
                        out.push(StreamPart::ReasoningDelta { part, text });
                    }
                }
                Part::ToolCall(c) => {
                    self.close(out);
                    let id = if c.synthetic_id {
                        crate::ids::synthetic_id("/choices/0", self.calls, &c.name)
                    } else {
                        c.id
                    };
                    self.calls += 1;
                    let part = out.id();
                    out.push(StreamPart::ToolStart {
                        part,
                        choice: 0,
                        id,
                        synthetic_id: c.synthetic_id,
                        name: c.name,
                        meta: c.meta,
                    });
                    let json = c.arguments.text();
                    out.push(StreamPart::ToolDelta {
                        part,
                        json: if json.trim().is_empty() {
                            "{}".to_owned()
                        } else {
                            json
                        },
                    });
                    out.push(StreamPart::End { part });
                }
                other => {
                    self.close(out);
                    let part = out.id();
                    out.push(StreamPart::Whole {
                        part,
                        choice: 0,
                        content: other,
                    });
                }
            }
        }
    }

    /// The open part of `kind`, opened now (ending another) if need be.
    fn running(&mut self, kind: Running, out: &mut Parts) -> PartId {
        if let Some((part, k)) = self.open {
            if k == kind {
                return part;
            }
        }
        self.close(out);
        let part = out.id();
        out.push(match kind {
            Running::Text => StreamPart::TextStart {
                part,
                choice: 0,
                meta: Default::default(),
            },
            Running::Reasoning => StreamPart::ReasoningStart {
                part,
                choice: 0,
                id: None,
                meta: Default::default(),
            },
        });
        self.open = Some((part, kind));
        part
    }

    fn close(&mut self, out: &mut Parts) {
        if let Some((part, _)) = self.open.take() {
            out.push(StreamPart::End { part });
        }
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

/// What an open part is.
#[derive(Debug)]
enum Open {
    Text,
    Reasoning,
    /// A call, held until its end: Ollama sends calls whole.
    Call(Box<ToolCall>, String),
    /// Left out (another choice, reasoning dropped): its deltas with it.
    Dropped,
}

/// The `/api/chat` stream encoder: a line per text or thinking delta as it comes, a line
/// with the whole call(s) once every open call has ended (in the order they started),
/// and at the end the `done: true` line with `done_reason`, the counts and the source's
/// vendor data (it waits for the end because usage may follow the finish). An error
/// becomes an `{"error": "…"}` line.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    model: Option<String>,
    created_at: Option<String>,
    source: Option<crate::Format>,
    /// The response's vendor data: the start's and every `ResponseMeta`.
    vendor: Vendor,
    /// Open parts, in the order they started.
    open: Vec<(PartId, Open)>,
    /// Calls that ended, waiting for the calls still open before them.
    ready: Vec<(PartId, ToolCall)>,
    usage: Option<Usage>,
    finish: Option<(Option<StopReason>, Vendor)>,
    /// The last line was written (done or error).
    ended: bool,
}

fn at(part: PartId) -> String {
    format!("/parts/{}", part.0)
}

impl Encoder {
    fn line(&self, message: w::Message, out: &mut Events) -> Result<(), Error> {
        out.push(
            None,
            &w::Response {
                model: self.model.clone(),
                created_at: self.created_at.clone(),
                message: Some(message),
                done: Some(false),
                ..Default::default()
            },
        )
    }

    fn text_line(&self, text: String, thinking: bool, out: &mut Events) -> Result<(), Error> {
        if text.is_empty() {
            return Ok(());
        }
        let mut m = super::plain_message(w::Role::Assistant);
        if thinking {
            m.thinking = Some(text);
        } else {
            m.content = Some(text);
        }
        self.line(m, out)
    }

    fn kind(&self, part: PartId) -> Option<&Open> {
        self.open.iter().find(|(p, _)| *p == part).map(|(_, o)| o)
    }

    /// Ends a part; a call is ready, and the ready calls go out once no call is open.
    fn end_part(&mut self, part: PartId, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let Some(i) = self.open.iter().position(|(p, _)| *p == part) else {
            return Ok(());
        };
        if let (_, Open::Call(mut call, args)) = self.open.remove(i) {
            call.arguments = Arguments::Text(if args.trim().is_empty() {
                "{}".to_owned()
            } else {
                args
            });
            self.ready.push((part, *call));
        }
        if !self.open.iter().any(|(_, o)| matches!(o, Open::Call(..))) {
            self.flush(out, ctx)?;
        }
        Ok(())
    }

    /// Writes the calls that are ready, in one line.
    fn flush(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.ready.is_empty() {
            return Ok(());
        }
        self.ready.sort_by_key(|(p, _)| *p);
        let calls = std::mem::take(&mut self.ready)
            .into_iter()
            .map(|(p, c)| encode_call(c, &at(p), ctx))
            .collect();
        let mut m = super::plain_message(w::Role::Assistant);
        m.tool_calls = Some(calls);
        self.line(m, out)
    }

    /// Ends every open part (a call open at the finish is complete).
    fn close_all(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        while let Some((part, _)) = self.open.first() {
            let part = *part;
            self.end_part(part, out, ctx)?;
        }
        self.flush(out, ctx)
    }

    fn choice_ok(&mut self, part: PartId, choice: u32, ctx: &mut Ctx<'_>) -> bool {
        if choice == 0 {
            return true;
        }
        self.open.push((part, Open::Dropped));
        ctx.dropped(
            LossCode::ChoicesDropped,
            at(part),
            format!("ollama streams one message: a part of choice {choice} is not sent"),
        );
        false
    }

    /// The `done: true` line.
    fn done_line(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        let (stop_reason, vendor) = self.finish.take().unwrap_or_default();
        let response = model::Response {
            id: None,
            model: self.model.clone(),
            created: None,
            choices: vec![Choice {
                message: Message::new(Role::Assistant, Vec::new()),
                stop_reason,
                vendor,
            }],
            usage: self.usage.take(),
            vendor: std::mem::take(&mut self.vendor),
            source: self.source,
        };
        // The whole-response encoder, its pointers those of a stream.
        let before = ctx.take_losses();
        let mut line = encode_response(response, ctx)?;
        let mut losses = before;
        for mut l in ctx.take_losses() {
            if let Some(rest) = l.path.strip_prefix("/choices/0") {
                l.path = format!("/finish{rest}");
            }
            losses.push(l);
        }
        ctx.extend_losses(losses);
        line.done = Some(true);
        if line.created_at.is_none() {
            line.created_at = self.created_at.clone();
        }
        self.ended = true;
        out.push(None, &line)
    }

    fn error_line(&mut self, message: String, out: &mut Events) -> Result<(), Error> {
        self.ended = true;
        out.push(
            None,
            &w::ErrorResponse {
                error: message,
                extra: Default::default(),
            },
        )
    }
}

impl EventEncoder for Encoder {
    fn part(&mut self, part: StreamPart, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        match part {
            StreamPart::Start(s) => {
                self.source = s.format;
                self.model = s.model;
                let own = s.vendor.fields_for(F).and_then(|f| f.get("created_at"));
                self.created_at = own
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| s.created.map(util::rfc3339_of_unix));
                if let Some(id) = &s.id {
                    ctx.dropped(
                        LossCode::FieldUnsupported,
                        "/id",
                        format!("ollama responses have no id (`{id}`)"),
                    );
                }
                self.vendor.merge(s.vendor);
            }
            StreamPart::TextStart { part, choice, meta } => {
                if self.choice_ok(part, choice, ctx) {
                    part_meta(&meta, &at(part), ctx);
                    self.open.push((part, Open::Text));
                }
            }
            StreamPart::TextDelta { part, text } => match self.kind(part) {
                Some(Open::Text) => self.text_line(text, false, out)?,
                Some(Open::Reasoning) => self.text_line(text, true, out)?,
                _ => {}
            },
            StreamPart::ReasoningStart {
                part,
                choice,
                id,
                meta,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                let foreign = self.source != Some(F);
                if ctx.options.reasoning == ReasoningMode::Drop && foreign {
                    self.open.push((part, Open::Dropped));
                    ctx.dropped(
                        LossCode::ReasoningDropped,
                        at(part),
                        "reasoning dropped (option reasoning = drop)",
                    );
                    return Ok(());
                }
                if let Some(id) = id {
                    ctx.dropped(
                        LossCode::SignatureForeign,
                        format!("{}/id", at(part)),
                        format!("reasoning item id `{id}` means nothing to ollama"),
                    );
                }
                part_meta(&meta, &at(part), ctx);
                self.open.push((part, Open::Reasoning));
            }
            StreamPart::ReasoningDelta { part, text } => {
                if matches!(self.kind(part), Some(Open::Reasoning)) {
                    self.text_line(text, true, out)?;
                }
            }
            StreamPart::SummaryDelta { part, text, .. } => {
                if matches!(self.kind(part), Some(Open::Reasoning)) {
                    ctx.changed(
                        LossCode::PartChanged,
                        format!("{}/summary", at(part)),
                        "ollama has no reasoning summary: the summary is sent as thinking",
                    );
                    self.text_line(text, true, out)?;
                }
            }
            StreamPart::Signature {
                part,
                token,
                encrypted,
            } => {
                if matches!(self.kind(part), Some(Open::Reasoning)) {
                    let (field, what) = if encrypted {
                        ("encrypted", "encrypted reasoning")
                    } else {
                        ("signature", "a reasoning signature")
                    };
                    ctx.report_unplaced_token(
                        Some(&token),
                        format_args!("{}/{field}", at(part)),
                        what,
                    );
                }
            }
            StreamPart::ToolStart {
                part,
                choice,
                id,
                synthetic_id,
                name,
                meta,
            } => {
                if self.choice_ok(part, choice, ctx) {
                    let call = ToolCall {
                        id,
                        synthetic_id,
                        name,
                        arguments: Arguments::Text(String::new()),
                        meta,
                    };
                    self.open
                        .push((part, Open::Call(Box::new(call), String::new())));
                }
            }
            StreamPart::ToolDelta { part, json } => {
                if let Some((_, Open::Call(_, args))) =
                    self.open.iter_mut().find(|(p, _)| *p == part)
                {
                    args.push_str(&json);
                }
            }
            StreamPart::Whole {
                part,
                choice,
                content,
            } => {
                if !self.choice_ok(part, choice, ctx) {
                    return Ok(());
                }
                match content {
                    Part::ToolCall(call) => {
                        self.ready.push((part, call));
                        if !self.open.iter().any(|(_, o)| matches!(o, Open::Call(..))) {
                            self.flush(out, ctx)?;
                        }
                    }
                    other => {
                        let m = encode_part(other, &at(part), ctx);
                        let empty = m.content.as_deref().is_none_or(str::is_empty)
                            && m.thinking.is_none()
                            && m.images.is_none();
                        if !empty {
                            self.line(m, out)?;
                        }
                    }
                }
            }
            StreamPart::Meta { part, meta } => {
                if let Some(Open::Call(call, _)) = self
                    .open
                    .iter_mut()
                    .find(|(p, _)| *p == part)
                    .map(|(_, o)| o)
                {
                    // Written with the call.
                    call.meta.vendor.merge(meta.vendor);
                    if meta.signature.is_some() {
                        call.meta.signature = meta.signature;
                    }
                    if meta.cache.is_some() {
                        call.meta.cache = meta.cache;
                    }
                } else if matches!(self.kind(part), Some(Open::Text | Open::Reasoning)) {
                    part_meta(&meta, &at(part), ctx);
                }
            }
            StreamPart::End { part } => self.end_part(part, out, ctx)?,
            StreamPart::Usage(u) => self.usage = Some(u),
            StreamPart::Finish {
                choice,
                stop_reason,
                vendor,
            } => {
                if choice == 0 {
                    self.close_all(out, ctx)?;
                    self.finish = Some((stop_reason, vendor));
                }
            }
            StreamPart::ResponseMeta(v) => self.vendor.merge(v),
            StreamPart::Error(e) => {
                // What is complete goes out; a call still open never ran.
                self.flush(out, ctx)?;
                let message = match &e.code {
                    Some(code) => format!("{code}: {}", e.message),
                    None => e.message,
                };
                self.error_line(message, out)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, out: &mut Events, ctx: &mut Ctx<'_>) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        if self.finish.is_some() {
            self.close_all(out, ctx)?;
            return self.done_line(out, ctx);
        }
        // The source ended without a finish (its decoder reports why): not a normal end
        // here either.
        self.flush(out, ctx)?;
        self.error_line("the source stream ended before it finished".to_owned(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::F;
    use crate::model::Part;
    use crate::stream::{
        Accumulator, Framing, PartId, StreamDecoder, StreamEncoder, StreamErrorKind, StreamPart,
    };
    use crate::{Error, Format, LossCode, Options};
    use serde_json::{Value, json};
    use wire_types::ollama as w;

    fn lines(values: &[Value]) -> Vec<u8> {
        let mut out = String::new();
        for v in values {
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out.into_bytes()
    }

    fn decode(bytes: &[u8]) -> Vec<StreamPart> {
        let mut d = StreamDecoder::new(F, &Options::default()).unwrap();
        let mut parts = d.push(bytes).unwrap();
        parts.extend(d.finish().unwrap());
        parts
    }

    fn written(bytes: &[u8]) -> Vec<Value> {
        std::str::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn done(extra: Value) -> Value {
        let mut line = json!({"model": "m", "created_at": "2025-07-07T20:22:19Z",
            "message": {"role": "assistant", "content": ""}, "done": true,
            "done_reason": "stop", "prompt_eval_count": 5, "eval_count": 7});
        if let (Some(l), Value::Object(e)) = (line.as_object_mut(), extra) {
            l.extend(e);
        }
        line
    }

    fn call(name: &str, args: Value) -> Value {
        json!({"function": {"name": name, "arguments": args}})
    }

    fn chunk(message: Value) -> Value {
        json!({"model": "m", "created_at": "2025-07-07T20:22:19Z", "message": message,
            "done": false})
    }

    /// Calls of several lines get the ids the whole body with all of them gets, and stay
    /// apart; the stop reason is tool use though the last line has no call.
    #[test]
    fn calls_across_lines_get_the_whole_body_ids_and_stay_apart() {
        let stream = lines(&[
            chunk(json!({"role": "assistant", "content": "",
                "tool_calls": [call("a", json!({"x": 1})), call("a", json!({"x": 2}))]})),
            chunk(json!({"role": "assistant", "content": "",
                "tool_calls": [call("b", json!({}))]})),
            done(json!({})),
        ]);
        let mut acc = Accumulator::new();
        acc.extend(decode(&stream));
        let streamed = acc.finish().unwrap();
        let whole = crate::decode_response_value(
            &done(
                json!({"message": {"role": "assistant", "content": "", "tool_calls": [
                call("a", json!({"x": 1})), call("a", json!({"x": 2})), call("b", json!({}))]}}),
            ),
            F,
            &Options::default(),
        )
        .unwrap()
        .value;
        let ids = |r: &crate::model::Response| -> Vec<(String, String, Option<Value>)> {
            r.choices[0]
                .message
                .content
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall(c) => Some((c.id.clone(), c.name.clone(), c.arguments.value())),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(ids(&streamed), ids(&whole));
        assert_eq!(ids(&streamed)[2].0, "call_0_2_b");
        assert_eq!(ids(&streamed)[2].2, Some(json!({})));
        assert_eq!(
            streamed.choices[0].stop_reason,
            whole.choices[0].stop_reason
        );
        assert_eq!(streamed.usage, whole.usage);
    }

    #[test]
    fn thinking_then_text_are_one_part_each() {
        let stream = lines(&[
            chunk(json!({"role": "assistant", "content": "", "thinking": "Let "})),
            chunk(json!({"role": "assistant", "content": "", "thinking": "me see"})),
            chunk(json!({"role": "assistant", "content": "It is"})),
            chunk(json!({"role": "assistant", "content": " 4."})),
            done(json!({})),
        ]);
        let mut acc = Accumulator::new();
        acc.extend(decode(&stream));
        let r = acc.finish().unwrap();
        let content = &r.choices[0].message.content;
        assert_eq!(content.len(), 2);
        assert!(
            matches!(&content[0], Part::Reasoning(t) if t.text.as_deref() == Some("Let me see"))
        );
        assert!(matches!(&content[1], Part::Text(t) if t.text == "It is 4."));
    }

    #[test]
    fn an_error_line_is_a_provider_error_and_no_done_line_is_incomplete() {
        let parts = decode(&lines(&[
            chunk(json!({"role": "assistant", "content": "Hi"})),
            json!({"error": "model crashed"}),
        ]));
        let errors: Vec<_> = parts
            .iter()
            .filter_map(|p| match p {
                StreamPart::Error(e) => Some(e),
                _ => None,
            })
            .collect();
        assert_eq!(errors[0].kind, StreamErrorKind::Provider);
        assert_eq!(errors[0].message, "model crashed");
        assert_eq!(errors[0].value, Some(json!({"error": "model crashed"})));
        let parts = decode(&lines(&[chunk(
            json!({"role": "assistant", "content": "Hi"}),
        )]));
        assert!(matches!(
            parts.last(),
            Some(StreamPart::Error(e)) if e.kind == StreamErrorKind::Incomplete
        ));
        let mut acc = Accumulator::new();
        acc.extend(parts);
        assert!(matches!(acc.finish(), Err(Error::Incomplete { .. })));
    }

    /// Text goes out at once; a call waits for its end, then goes out whole, with every
    /// call that ended with it in one line; the last line carries the reason and counts.
    #[test]
    fn the_encoder_sends_text_at_once_and_calls_whole_at_their_end() {
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        let p = PartId;
        let start = StreamPart::Start(crate::stream::StreamStart {
            model: Some("m".to_owned()),
            ..Default::default()
        });
        assert!(e.encode(start).unwrap().is_empty());
        e.encode(StreamPart::TextStart {
            part: p(0),
            choice: 0,
            meta: Default::default(),
        })
        .unwrap();
        let text = e
            .encode(StreamPart::TextDelta {
                part: p(0),
                text: "Hi".to_owned(),
            })
            .unwrap();
        assert_eq!(written(&text)[0]["message"]["content"], "Hi");
        for (i, name) in [(1, "a"), (2, "b")] {
            let out = e
                .encode(StreamPart::ToolStart {
                    part: p(i),
                    choice: 0,
                    id: format!("call_{i}"),
                    synthetic_id: false,
                    name: name.to_owned(),
                    meta: Default::default(),
                })
                .unwrap();
            assert!(out.is_empty());
        }
        for json in ["{\"x\":", "1}"] {
            let out = e
                .encode(StreamPart::ToolDelta {
                    part: p(1),
                    json: json.to_owned(),
                })
                .unwrap();
            assert!(out.is_empty());
        }
        // The first call ended, the second is still open: nothing yet.
        assert!(e.encode(StreamPart::End { part: p(1) }).unwrap().is_empty());
        let out = written(&e.encode(StreamPart::End { part: p(2) }).unwrap());
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0]["message"]["tool_calls"],
            json!([
                {"id": "call_1", "function": {"name": "a", "arguments": {"x": 1}}},
                {"id": "call_2", "function": {"name": "b", "arguments": {}}}
            ])
        );
        assert_eq!(out[0]["done"], false);
        e.encode(StreamPart::Finish {
            choice: 0,
            stop_reason: Some(crate::model::StopReason::new(
                crate::model::StopKind::ToolUse,
            )),
            vendor: Default::default(),
        })
        .unwrap();
        // Usage may follow the finish: the last line waits for the end.
        assert!(
            e.encode(StreamPart::Usage(crate::model::Usage {
                input_tokens: Some(3),
                output_tokens: Some(4),
                ..Default::default()
            }))
            .unwrap()
            .is_empty()
        );
        let last = written(&e.finish().unwrap());
        assert_eq!(last.len(), 1);
        assert_eq!(last[0]["done"], true);
        assert_eq!(last[0]["done_reason"], "stop");
        assert_eq!(last[0]["prompt_eval_count"], 3);
        assert_eq!(last[0]["eval_count"], 4);
    }

    #[test]
    fn a_source_without_a_finish_ends_with_an_error_line() {
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        e.encode(StreamPart::TextStart {
            part: PartId(0),
            choice: 0,
            meta: Default::default(),
        })
        .unwrap();
        let out = written(&e.finish().unwrap());
        assert!(out[0]["error"].is_string());
        assert!(decode(&lines(&out)).iter().any(|p| matches!(
            p,
            StreamPart::Error(e) if e.kind == StreamErrorKind::Provider
        )));
    }

    #[test]
    fn a_foreign_signature_is_one_loss_per_part() {
        let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
        e.encode(StreamPart::ReasoningStart {
            part: PartId(0),
            choice: 0,
            id: None,
            meta: Default::default(),
        })
        .unwrap();
        for _ in 0..3 {
            e.encode(StreamPart::Signature {
                part: PartId(0),
                token: crate::model::Signed {
                    value: "sig".to_owned(),
                    format: Format::Anthropic,
                },
                encrypted: false,
            })
            .unwrap();
        }
        let signature: Vec<_> = e
            .losses()
            .iter()
            .filter(|l| l.code == LossCode::SignatureForeign)
            .collect();
        assert_eq!(signature.len(), 1, "{signature:?}");
        assert_eq!(signature[0].path, "/parts/0/signature");
    }

    /// Every stream fixture of every format with a decoder, written as an Ollama stream:
    /// each line reads as an Ollama line and is valid against the SDK's response type;
    /// Ollama's own fixtures read back to the same parts.
    #[test]
    fn every_line_written_is_valid_and_ollama_streams_round_trip() {
        let schema = test_support::conformance("ollama.response").unwrap();
        let mut checked = 0;
        for f in test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]) {
            let Ok(format) = f.format.parse::<Format>() else {
                continue;
            };
            let framing = if f.name.ends_with(".sse.txt") {
                Framing::Sse
            } else {
                Framing::Ndjson
            };
            let bytes = std::fs::read(&f.path).unwrap();
            let mut d = StreamDecoder::with_framing(format, framing, &Options::default()).unwrap();
            let parts = match d.push(&bytes).and_then(|mut p| {
                p.extend(d.finish()?);
                Ok(p)
            }) {
                Ok(p) => p,
                Err(_) => continue,
            };
            let mut e = StreamEncoder::new(F, &Options::default()).unwrap();
            let mut out = e.encode_all(parts.clone()).unwrap();
            out.extend(e.finish().unwrap());
            for line in written(&out) {
                if line.get("error").is_some() {
                    wire_types::from_value::<w::ErrorResponse>(&line).unwrap();
                    continue;
                }
                wire_types::from_value::<w::Response>(&line)
                    .unwrap_or_else(|e| panic!("{}: {e}: {line}", f.rel()));
                let errors = test_support::schema_errors(schema, &line);
                assert!(errors.is_empty(), "{}: {line}: {errors:?}", f.rel());
            }
            if format == F && !f.name.starts_with("generate") {
                assert_eq!(decode(&out), parts, "{}", f.rel());
            }
            checked += 1;
        }
        assert!(checked > 4);
    }
}
