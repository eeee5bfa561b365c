//! What a target's response requires and the source may lack (an Anthropic response has
//! no creation time, a Bedrock one no id and no model, a Gemini one may have no answer):
//! one rule for every target, applied to the neutral response before it is encoded.
//!
//! Each format says what its SDK's response type requires ([`Required`], on its
//! [`Codec`](crate::codec::Codec)). A field the source has is written as it is. A
//! response decoded from the target itself is left alone, so that it is written back as
//! it was. Otherwise each missing field gets a documented, deterministic stand-in and a
//! `changed` loss ([`LossCode::FieldDefaulted`]) at its neutral pointer:
//!
//! | field | stand-in |
//! |---|---|
//! | `id` | `""` ([`STAND_IN_ID`]) |
//! | `model` | `""` ([`STAND_IN_MODEL`]): set it before sending |
//! | `created` | `0`, the Unix epoch ([`STAND_IN_CREATED`]) |
//! | `usage` | `0` input and `0` output tokens |
//! | a choice's `stop_reason` | `tool_use` when the answer calls tools, else `end_turn` |
//! | the answer | one empty assistant message at the end of its turn (a body that holds one) |

use crate::model::{Choice, Message, Part, Response, Role, StopKind, StopReason, Usage, Vendor};
use crate::{Ctx, Format, LossCode};
use serde_json::Value;

/// The stand-in for a required response id the source lacks.
pub(crate) const STAND_IN_ID: &str = "";
/// The stand-in for a required model name the source lacks.
pub(crate) const STAND_IN_MODEL: &str = "";
/// The stand-in for a required creation time the source lacks (Unix seconds).
pub(crate) const STAND_IN_CREATED: u64 = 0;

/// The response fields a format's SDK requires (and the format's encoder writes from the
/// neutral response, not from constants of its own).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Required {
    /// The response id.
    pub(crate) id: bool,
    /// The model name.
    pub(crate) model: bool,
    /// The creation time.
    pub(crate) created: bool,
    /// The token usage.
    pub(crate) usage: bool,
    /// Each choice's stop reason.
    pub(crate) stop_reason: bool,
    /// An answer: the body holds exactly one message.
    pub(crate) choice: bool,
}

impl Required {
    /// Nothing required (Gemini, Ollama: the encoder writes what it must on its own).
    pub(crate) const NONE: Required = Required {
        id: false,
        model: false,
        created: false,
        usage: false,
        stop_reason: false,
        choice: false,
    };

    /// This set and the response id.
    pub(crate) const fn id(self) -> Required {
        Required { id: true, ..self }
    }

    /// This set and the model name.
    pub(crate) const fn model(self) -> Required {
        Required {
            model: true,
            ..self
        }
    }

    /// This set and the creation time.
    pub(crate) const fn created(self) -> Required {
        Required {
            created: true,
            ..self
        }
    }

    /// This set and the token usage.
    pub(crate) const fn usage(self) -> Required {
        Required {
            usage: true,
            ..self
        }
    }

    /// This set and each choice's stop reason.
    pub(crate) const fn stop_reason(self) -> Required {
        Required {
            stop_reason: true,
            ..self
        }
    }

    /// This set and an answer (exactly one message).
    pub(crate) const fn choice(self) -> Required {
        Required {
            choice: true,
            ..self
        }
    }
}

/// Fills what `required` asks for and `resp` lacks, with a loss each, unless `resp` was
/// decoded from `to` (see the module documentation).
pub(crate) fn fill_required(resp: &mut Response, required: Required, ctx: &mut Ctx<'_>) {
    let to = ctx.format;
    if resp.source == Some(to) {
        return;
    }
    if required.id && resp.id.is_none() {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/id",
            format!("the source has no response id and {to} requires one: written as \"\""),
        );
        resp.id = Some(STAND_IN_ID.to_owned());
    }
    if required.model && resp.model.is_none() {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/model",
            format!(
                "the source names no model and {to} requires one: written as \"\" \
                 (set it before sending)"
            ),
        );
        resp.model = Some(STAND_IN_MODEL.to_owned());
    }
    if required.created && resp.created.is_none() {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/created",
            format!(
                "the source has no creation time and {to} requires one: written as 0 \
                 (the Unix epoch)"
            ),
        );
        resp.created = Some(STAND_IN_CREATED);
    }
    if required.usage && resp.usage.is_none() {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/usage",
            format!("the source reports no usage and {to} requires it: zeros written"),
        );
        resp.usage = Some(Usage {
            input_tokens: Some(0),
            output_tokens: Some(0),
            ..Usage::default()
        });
    }
    if required.choice && resp.choices.is_empty() {
        ctx.changed(
            LossCode::FieldDefaulted,
            "/choices",
            format!(
                "the source has no answer and a {to} response holds one: an empty \
                 assistant message (stopped at the end of its turn) written"
            ),
        );
        resp.choices.push(empty_choice());
    }
    if required.stop_reason {
        for (i, c) in resp.choices.iter_mut().enumerate() {
            if c.stop_reason.is_some() {
                continue;
            }
            let calls = c
                .message
                .content
                .iter()
                .any(|p| matches!(p, Part::ToolCall(_)));
            let (kind, said) = if calls {
                (StopKind::ToolUse, "a tool-use stop")
            } else {
                (StopKind::EndTurn, "the end of the turn")
            };
            ctx.changed(
                LossCode::FieldDefaulted,
                format!("/choices/{i}/stop_reason"),
                format!("the source gives no stop reason and {to} requires one: {said} written"),
            );
            c.stop_reason = Some(StopReason::new(kind));
        }
    }
}

/// The stand-in answer: an assistant message with no content, at the end of its turn.
fn empty_choice() -> Choice {
    Choice {
        message: Message::new(Role::Assistant, Vec::new()),
        stop_reason: Some(StopReason::new(StopKind::EndTurn)),
        vendor: Default::default(),
    }
}

/// The `object` type tag of an OpenAI-style response body of `format` (OpenAI Chat,
/// Mistral): the source's own as it came (the hint `hint`), else `chat.completion` for a
/// response from another format.
pub(crate) fn object_tag(v: &Vendor, format: Format, hint: &str) -> Option<String> {
    v.hint(format, hint)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| (v.format != Some(format)).then(|| "chat.completion".to_owned()))
}

/// Reports a response's creation time, for a target whose responses carry none.
pub(crate) fn drop_created(created: Option<u64>, ctx: &mut Ctx<'_>) {
    if created.is_some() {
        let detail = format!("{} responses carry no creation time", ctx.format);
        ctx.dropped(LossCode::FieldUnsupported, "/created", detail);
    }
}

/// Reports a response field the target has no place for (`/id` for Ollama, `/model` for
/// Cohere), when the source set it: `what` says so after "{format} responses", and the
/// detail names the value.
pub(crate) fn drop_unplaced(
    value: Option<&str>,
    path: &'static str,
    what: &str,
    ctx: &mut Ctx<'_>,
) {
    if let Some(value) = value {
        let detail = format!("{} responses {what} (`{value}`)", ctx.format);
        ctx.dropped(LossCode::FieldUnsupported, path, detail);
    }
}

/// Writes the first of `choices` by `first` (given the choice and its pointer), for a
/// target whose response holds one answer: another format's fields on that choice are
/// reported first (the choice is no object of its own there), and each further choice is
/// a loss saying so (`why`). `None` when there is no choice.
pub(crate) fn first_choice<R>(
    choices: Vec<Choice>,
    why: &str,
    ctx: &mut Ctx<'_>,
    first: impl FnOnce(Choice, &str, &mut Ctx<'_>) -> R,
) -> Option<R> {
    let mut first = Some(first);
    let mut out = None;
    for (i, c) in choices.into_iter().enumerate() {
        let at = format!("/choices/{i}");
        match first.take() {
            Some(f) => {
                ctx.report_foreign_fields(&c.vendor, &at);
                out = Some(f(c, &at, ctx));
            }
            None => ctx.dropped(LossCode::ChoicesDropped, at, why),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::model::{
        Arguments, Choice, Message, Part, Response, Role, StopKind, StopReason, ToolCall,
    };
    use crate::{Format, LossCode, LossKind, Options, encode_response_value};
    use serde_json::json;

    fn bare(choices: Vec<Choice>) -> Response {
        Response {
            choices,
            ..Response::default()
        }
    }

    fn answer(parts: Vec<Part>, stop: Option<StopKind>) -> Choice {
        Choice {
            message: Message::new(Role::Assistant, parts),
            stop_reason: stop.map(StopReason::new),
            vendor: Default::default(),
        }
    }

    fn call() -> Part {
        Part::ToolCall(ToolCall {
            id: "call_1".into(),
            synthetic_id: false,
            name: "now".into(),
            arguments: Arguments::Text("{}".into()),
            meta: Default::default(),
        })
    }

    /// `(path, kind, code)` of each loss.
    fn losses(c: &crate::Converted<serde_json::Value>) -> Vec<(String, LossKind, LossCode)> {
        c.losses
            .iter()
            .map(|l| (l.path.clone(), l.kind, l.code))
            .collect()
    }

    fn schema_errors(format: Format, value: &serde_json::Value) -> Vec<String> {
        let v = test_support::conformance(&format!("{format}.response")).unwrap();
        test_support::schema_errors(v, value)
    }

    #[test]
    fn a_bare_response_gets_the_stand_ins_each_target_requires_with_a_loss_each() {
        let resp = bare(vec![answer(
            vec![Part::text("Hi")],
            Some(StopKind::EndTurn),
        )]);
        let mistral =
            encode_response_value(resp.clone(), Format::Mistral, &Options::default()).unwrap();
        assert_eq!(mistral.value["id"], json!(""));
        assert_eq!(mistral.value["model"], json!(""));
        assert_eq!(mistral.value["created"], json!(0));
        assert_eq!(
            mistral.value["usage"],
            json!({"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})
        );
        let defaulted = |paths: &[&str]| -> Vec<(String, LossKind, LossCode)> {
            paths
                .iter()
                .map(|p| ((*p).to_owned(), LossKind::Changed, LossCode::FieldDefaulted))
                .collect()
        };
        assert_eq!(
            losses(&mistral),
            defaulted(&["/id", "/model", "/created", "/usage"])
        );
        assert_eq!(
            schema_errors(Format::Mistral, &mistral.value),
            Vec::<String>::new()
        );

        // The same rule, for each target what its SDK requires.
        let expect: [(Format, &[&str]); 7] = [
            (Format::OpenaiChat, &["/id", "/model", "/created"]),
            (Format::OpenaiResponses, &["/id", "/model", "/created"]),
            (Format::Anthropic, &["/id", "/model", "/usage"]),
            (Format::Bedrock, &["/usage"]),
            (Format::Cohere, &["/id"]),
            (Format::Gemini, &[]),
            (Format::Ollama, &[]),
        ];
        for (format, paths) in expect {
            let out = encode_response_value(resp.clone(), format, &Options::default()).unwrap();
            assert_eq!(losses(&out), defaulted(paths), "{format}");
            assert_eq!(
                schema_errors(format, &out.value),
                Vec::<String>::new(),
                "{format}"
            );
        }
    }

    #[test]
    fn a_response_from_the_target_itself_is_written_back_as_it_was() {
        let mut resp = bare(vec![answer(vec![Part::text("Hi")], None)]);
        resp.source = Some(Format::Mistral);
        let out = encode_response_value(resp, Format::Mistral, &Options::default()).unwrap();
        assert!(out.losses.is_empty(), "{:?}", out.losses);
        for key in ["id", "model", "created", "usage"] {
            assert!(out.value.get(key).is_none(), "{key}: {}", out.value);
        }
        assert!(out.value["choices"][0].get("finish_reason").is_none());
    }

    #[test]
    fn a_missing_stop_reason_is_a_tool_use_stop_when_the_answer_calls_tools() {
        let resp = bare(vec![
            answer(vec![Part::text("Checking."), call()], None),
            answer(vec![Part::text("Done.")], None),
        ]);
        let out = encode_response_value(resp, Format::OpenaiChat, &Options::default()).unwrap();
        assert_eq!(
            out.value["choices"][0]["finish_reason"],
            json!("tool_calls")
        );
        assert_eq!(out.value["choices"][1]["finish_reason"], json!("stop"));
        let at: Vec<&str> = out
            .losses
            .iter()
            .filter(|l| l.path.ends_with("/stop_reason"))
            .map(|l| l.path.as_str())
            .collect();
        assert_eq!(at, ["/choices/0/stop_reason", "/choices/1/stop_reason"]);
    }

    #[test]
    fn no_answer_becomes_one_empty_assistant_message_where_the_body_holds_one() {
        let out =
            encode_response_value(bare(Vec::new()), Format::Cohere, &Options::default()).unwrap();
        assert_eq!(out.value["finish_reason"], json!("COMPLETE"));
        assert_eq!(out.value["message"]["role"], json!("assistant"));
        assert_eq!(
            losses(&out),
            [
                (
                    "/id".to_owned(),
                    LossKind::Changed,
                    LossCode::FieldDefaulted
                ),
                (
                    "/choices".to_owned(),
                    LossKind::Changed,
                    LossCode::FieldDefaulted
                ),
            ]
        );
        assert_eq!(
            schema_errors(Format::Cohere, &out.value),
            Vec::<String>::new()
        );
        // A format whose body holds a list of choices keeps an empty list.
        let chat = encode_response_value(bare(Vec::new()), Format::OpenaiChat, &Options::default())
            .unwrap();
        assert_eq!(chat.value["choices"], json!([]));
    }
}
