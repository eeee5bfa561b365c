//! [`Loss`]: what a conversion could not carry as it was, as data.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What happened to something that could not be carried as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// It has no place in the target and is not in the output.
    Dropped,
    /// It is in the output, altered (an id remapped, a schema keyword rewritten,
    /// arguments wrapped, text standing in for an unknown part).
    Changed,
    /// It is in the output, elsewhere (a mid-conversation system message moved to the
    /// top).
    Moved,
}

impl LossKind {
    /// `dropped`, `changed` or `moved`.
    pub fn name(self) -> &'static str {
        match self {
            LossKind::Dropped => "dropped",
            LossKind::Changed => "changed",
            LossKind::Moved => "moved",
        }
    }
}

/// What a loss is about, for callers that filter losses without matching their text
/// (a gateway that accepts rewritten ids but refuses dropped content, say).
///
/// The code says *what*; [`LossKind`] says what happened to it. New codes are added as
/// conversions learn new rules, so matching on this enum needs a wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LossCode {
    /// A field or setting of the source that the target has no place for (a provider's
    /// own setting, an unknown field kept from the source object).
    FieldUnsupported,
    /// A value the target requires and the source lacked, written with a stand-in
    /// (`max_tokens`, `model`, a response `id` or `created`).
    FieldDefaulted,
    /// A content part the target cannot carry where it stands (a media kind it lacks, an
    /// opaque part without text, a part in a message that takes none).
    PartUnsupported,
    /// Content carried as text (a JSON part as its JSON text, an opaque part's text, a
    /// refusal as assistant text, a text document as a text part).
    PartAsText,
    /// A detail of a part the target cannot say (a media type, a file name, a title, an
    /// error flag).
    PartChanged,
    /// Messages merged or split to fit the target's turns, or an empty one left out.
    TurnsChanged,
    /// A system or developer message moved to where the target keeps instructions.
    SystemMoved,
    /// Tool results reordered into the order of their calls.
    ResultsReordered,
    /// A tool-call id rewritten to the target's rule (calls and results alike).
    IdRewritten,
    /// A tool name rewritten to the target's rule.
    NameRewritten,
    /// Tool-call arguments that were not a JSON object, written as one.
    ArgumentsWrapped,
    /// A tool the target has no equivalent for (another provider's hosted tool).
    ToolUnsupported,
    /// A provider's built-in tool (web search, code execution) written as the target's
    /// own equivalent, which runs on the target provider's service.
    ToolMapped,
    /// A JSON Schema rewritten for the target's dialect (a keyword dropped or changed).
    SchemaChanged,
    /// The tool choice changed (a mode the target lacks, a forced choice while thinking).
    ToolChoiceChanged,
    /// A setting changed to fit the target (an effort for a budget, `max_tokens` raised,
    /// thinking left off).
    SettingChanged,
    /// A reasoning signature or encrypted payload made by another provider: never sent.
    SignatureForeign,
    /// Reasoning that has no place in the target, or dropped as the options ask.
    ReasoningDropped,
    /// A cache marker the target cannot carry.
    CacheUnsupported,
    /// A stop reason the target has no equivalent for.
    StopReasonChanged,
    /// Token counts the target cannot carry, or counts differently.
    UsageChanged,
    /// Output choices beyond the first, for a target with one output.
    ChoicesDropped,
    /// A request that streams through another operation of the target (Gemini
    /// `streamGenerateContent`, Bedrock `ConverseStream`), or stream options it lacks.
    StreamChanged,
}

impl LossCode {
    /// The code's name, as it serializes (`signature_foreign`).
    pub fn name(self) -> &'static str {
        use LossCode::*;
        match self {
            FieldUnsupported => "field_unsupported",
            FieldDefaulted => "field_defaulted",
            PartUnsupported => "part_unsupported",
            PartAsText => "part_as_text",
            PartChanged => "part_changed",
            TurnsChanged => "turns_changed",
            SystemMoved => "system_moved",
            ResultsReordered => "results_reordered",
            IdRewritten => "id_rewritten",
            NameRewritten => "name_rewritten",
            ArgumentsWrapped => "arguments_wrapped",
            ToolUnsupported => "tool_unsupported",
            ToolMapped => "tool_mapped",
            SchemaChanged => "schema_changed",
            ToolChoiceChanged => "tool_choice_changed",
            SettingChanged => "setting_changed",
            SignatureForeign => "signature_foreign",
            ReasoningDropped => "reasoning_dropped",
            CacheUnsupported => "cache_unsupported",
            StopReasonChanged => "stop_reason_changed",
            UsageChanged => "usage_changed",
            ChoicesDropped => "choices_dropped",
            StreamChanged => "stream_changed",
        }
    }
}

/// Something the target could not carry as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loss {
    /// JSON pointer (RFC 6901) in the input; for a value built in code rather than
    /// decoded, in the neutral model's JSON.
    pub path: String,
    /// Dropped, changed or moved.
    pub kind: LossKind,
    /// What it is about, for filtering.
    pub code: LossCode,
    /// What and why, for people.
    pub detail: String,
}

impl fmt::Display for Loss {
    /// `<pointer>: <kind>: <detail>`; the pointer of the whole body is shown as `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}: {}", self.kind.name(), self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_serializes_as_its_name() {
        for code in [
            LossCode::FieldUnsupported,
            LossCode::SignatureForeign,
            LossCode::IdRewritten,
            LossCode::StreamChanged,
        ] {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::from(code.name())
            );
        }
    }

    #[test]
    fn a_loss_displays_pointer_kind_and_detail() {
        let loss = Loss {
            path: String::new(),
            kind: LossKind::Dropped,
            code: LossCode::FieldUnsupported,
            detail: "x".into(),
        };
        assert_eq!(loss.to_string(), "/: dropped: x");
    }
}
