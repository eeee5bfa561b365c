//! Claude's extended-thinking constraints, for the formats that reach Claude: Anthropic
//! Messages, and Bedrock Converse (Claude's `thinking` in `additionalModelRequestFields`).
//!
//! With thinking on, the API rejects three things, which the encoders repair with a
//! `changed` loss each, by these rules:
//!
//! 1. a thinking budget not below `max_tokens`: `max_tokens` is raised to the budget plus
//!    1024 ([`room_for_budget`]);
//! 2. a tool choice that forces a call: it is sent as `auto`, thinking kept
//!    ([`forced_choice`], [`unforce`]);
//! 3. a conversation ending in an open tool loop whose assistant message does not start
//!    with reasoning the target signed: thinking is left off for the request
//!    ([`open_loop_without_own_reasoning`], [`LEFT_OFF`]).
//!
//! A source in the target's own format that sent such a combination gets it back as it
//! was (each encoder keeps a hint for that).

use crate::ctx::ReasoningView;
use crate::model::{Message, Part, Reasoning, Role, ToolChoice};
use crate::{Ctx, Format, LossCode};

/// The loss detail when thinking is left off for an open tool loop.
pub(crate) const LEFT_OFF: &str = "thinking is left off for this request: the conversation ends in a tool loop (tool results answering the last assistant message), and with thinking on Claude requires that message to start with its own signed reasoning; it has none (reasoning from another provider cannot be sent)";

/// Whether the conversation ends in an open tool loop (the last assistant message calls
/// tools and only tool results follow it) whose assistant message does not start with
/// reasoning that `format` signed. With thinking on, Claude rejects that ("a final
/// `assistant` message must start with a thinking block").
pub(crate) fn open_loop_without_own_reasoning(messages: &[Message], format: Format) -> bool {
    let Some(last) = messages.iter().rposition(|m| m.role == Role::Assistant) else {
        return false;
    };
    let after = &messages[last + 1..];
    let results_only = !after.is_empty()
        && after.iter().all(|m| {
            m.role == Role::Tool
                && !m.content.is_empty()
                && m.content.iter().all(|p| matches!(p, Part::ToolResult(_)))
        });
    let assistant = &messages[last].content;
    let signed = |p: &Part| match p {
        Part::Reasoning(r) => [r.signature.as_ref(), r.encrypted.as_ref()]
            .into_iter()
            .flatten()
            .any(|s| s.format == format),
        _ => false,
    };
    results_only
        && assistant.iter().any(|p| matches!(p, Part::ToolCall(_)))
        && !assistant.first().is_some_and(signed)
}

/// What a tool choice forces, said for a loss, when it forces a call (`required`, one
/// tool, or a required call among some tools); `None` for `auto`, `none` and an optional
/// choice among some tools.
pub(crate) fn forced_choice(choice: &ToolChoice) -> Option<String> {
    match choice {
        ToolChoice::Required => Some("`required` (some tool must be called)".to_owned()),
        ToolChoice::Tool { name } => Some(format!("forcing the tool `{name}`")),
        ToolChoice::Allowed {
            names,
            required: true,
        } => Some(format!(
            "a required call of one of the tools ({})",
            names.join(", ")
        )),
        _ => None,
    }
}

/// Records that the forced choice `what` (from [`forced_choice`]) is sent as `auto`.
pub(crate) fn unforce(what: &str, ctx: &mut Ctx<'_>) {
    ctx.changed(
        LossCode::ToolChoiceChanged,
        "/tool_choice",
        format!(
            "with thinking on, Claude allows only the `auto` and `none` tool choices: {what} is sent as `auto` (thinking is kept)"
        ),
    );
}

/// The `max_tokens` to send with a thinking `budget`: `max_tokens` itself when the
/// budget is below it, else the budget plus 1024, with a loss (`spelled`: how the target
/// names the field).
pub(crate) fn room_for_budget(
    max_tokens: u64,
    budget: u64,
    spelled: &str,
    ctx: &mut Ctx<'_>,
) -> u64 {
    if max_tokens > budget {
        return max_tokens;
    }
    let raised = budget.saturating_add(1024);
    ctx.changed(
        LossCode::SettingChanged,
        "/settings/max_tokens",
        format!(
            "Claude requires the thinking budget ({budget}) below {spelled}: {spelled} raised from {max_tokens} to {raised}"
        ),
    );
    raised
}

/// Whether reasoning `r` (of which the target may receive `view`) can be sent to Claude,
/// which takes back only reasoning it signed: it carries a signature or an encrypted
/// payload, or was made by the target. Otherwise a `dropped` loss at `at`, its detail
/// written by `detail` from the name of the reasoning's source.
pub(crate) fn claude_takes(
    r: &Reasoning,
    view: &ReasoningView<'_>,
    at: &str,
    detail: impl FnOnce(&str) -> String,
    ctx: &mut Ctx<'_>,
) -> bool {
    if view.signature.is_some() || view.encrypted.is_some() || r.source == Some(ctx.format) {
        return true;
    }
    let from = r
        .source
        .map_or_else(|| "an unknown provider".to_owned(), |f| f.to_string());
    ctx.dropped(LossCode::ReasoningDropped, at.to_owned(), detail(&from));
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;
    use crate::model::{Arguments, Reasoning, Signed, ToolCall, ToolResult};

    fn call() -> Part {
        Part::ToolCall(ToolCall {
            id: "c".into(),
            synthetic_id: false,
            name: "f".into(),
            arguments: Arguments::Text("{}".into()),
            meta: Default::default(),
        })
    }

    fn result() -> Part {
        Part::ToolResult(ToolResult {
            call_id: "c".into(),
            name: None,
            content: vec![Part::text("ok")],
            is_error: false,
            meta: Default::default(),
        })
    }

    fn reasoning(format: Format) -> Part {
        Part::Reasoning(Reasoning {
            text: Some("hm".into()),
            signature: Some(Signed {
                value: "sig".into(),
                format,
            }),
            ..Default::default()
        })
    }

    #[test]
    fn an_open_loop_needs_reasoning_the_target_signed_at_the_start_of_its_assistant_message() {
        let user = Message::text(Role::User, "go");
        let tool = Message::new(Role::Tool, vec![result()]);
        let assistant = |parts| Message::new(Role::Assistant, parts);
        let open = |parts| vec![user.clone(), assistant(parts), tool.clone()];
        let f = Format::Anthropic;
        assert!(open_loop_without_own_reasoning(&open(vec![call()]), f));
        assert!(open_loop_without_own_reasoning(
            &open(vec![reasoning(Format::Gemini), call()]),
            f
        ));
        assert!(open_loop_without_own_reasoning(
            &open(vec![call(), reasoning(f)]),
            f
        ));
        assert!(!open_loop_without_own_reasoning(
            &open(vec![reasoning(f), call()]),
            f
        ));
        // Not open: the loop was closed by an answer, or the assistant called nothing,
        // or nothing answered it yet.
        let mut closed = open(vec![call()]);
        closed.push(assistant(vec![Part::text("done")]));
        assert!(!open_loop_without_own_reasoning(&closed, f));
        assert!(!open_loop_without_own_reasoning(
            &[
                user.clone(),
                assistant(vec![Part::text("hi")]),
                tool.clone()
            ],
            f
        ));
        assert!(!open_loop_without_own_reasoning(
            &[user.clone(), assistant(vec![call()])],
            f
        ));
        // A user turn after the results is not a tool loop any more.
        let mut answered = open(vec![call()]);
        answered.push(Message::text(Role::User, "and?"));
        assert!(!open_loop_without_own_reasoning(&answered, f));
    }

    #[test]
    fn only_a_choice_that_forces_a_call_is_forced() {
        assert!(forced_choice(&ToolChoice::Required).is_some());
        assert!(forced_choice(&ToolChoice::Tool { name: "f".into() }).is_some());
        let allowed = |required| ToolChoice::Allowed {
            names: vec!["a".into(), "b".into()],
            required,
        };
        assert_eq!(
            forced_choice(&allowed(true)).as_deref(),
            Some("a required call of one of the tools (a, b)")
        );
        assert_eq!(forced_choice(&allowed(false)), None);
        assert_eq!(forced_choice(&ToolChoice::Auto), None);
        assert_eq!(forced_choice(&ToolChoice::None), None);
    }

    #[test]
    fn max_tokens_makes_room_for_the_budget_with_a_loss_only_when_it_must() {
        let options = Options::default();
        let mut ctx = Ctx::new(Format::Anthropic, &options);
        assert_eq!(room_for_budget(8000, 4000, "max_tokens", &mut ctx), 8000);
        assert!(ctx.take_losses().is_empty());
        assert_eq!(room_for_budget(4000, 4000, "max_tokens", &mut ctx), 5024);
        let losses = ctx.take_losses();
        assert_eq!(losses.len(), 1);
        assert_eq!(losses[0].path, "/settings/max_tokens");
        assert_eq!(losses[0].code, LossCode::SettingChanged);
    }
}
