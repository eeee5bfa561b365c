//! Every request fixture and every stream event, as written back by wire-types, validates
//! against its format's official schema in `fixtures/conformance/` (generated from the
//! providers' SDKs; see its README). The SDK types are sometimes stricter than the API,
//! and compatible servers and hand-made quirk fixtures send what the SDK does not know: a
//! payload that does not validate as it stands is listed ([`KNOWN`] for requests;
//! [`KNOWN_EVENTS`] and [`KNOWN_EVENT_TYPES`] for stream events) with the reason, and must
//! fail for exactly that reason (the same instance paths) after write-back. A listed row
//! that no payload matches is an error too.
//!
//! Mistral and Cohere requests have no vendored schema: they are not checked here (noted
//! in `fixtures/conformance/README.md`); their stream events are.

use crate::support::{What, files_in, fixtures_dir, read_write};
use serde_json::Value;
use std::collections::BTreeMap;
use wire_types::{Format, Kind};

/// Fixtures that do not validate against the SDK schema, with the instance paths of every
/// error they must give and why that is not a wire-types fault.
const KNOWN: &[(&str, &[&str], &str)] = &[
    (
        "openai-responses/request/docs-functions.json",
        &["/tools/0"],
        "the API reference example leaves out `strict` on the function tool; the SDK's \
         FunctionToolParam requires the key (nullable), the API defaults it",
    ),
    (
        "openai-responses/request/docs-image-input.json",
        &["/input"],
        "the API reference example leaves out `detail` on `input_image` (reported at `/input`, \
         the anyOf over string and item array); the SDK's ResponseInputImageParam requires it, \
         the API defaults it to `auto`",
    ),
    (
        "openai-chat/request/rule-unknown-part-and-developer.json",
        &["/messages/1"],
        "deliberately carries a content part type Chat Completions does not have          (`x_video_url`), to show it is kept whole and converted to text elsewhere",
    ),
];

/// The schema file of a request of `format`, if the set has one.
pub fn request_schema(format: Format) -> Option<&'static str> {
    match format {
        Format::Mistral | Format::Cohere | Format::Mcp => None,
        _ => Some("request"),
    }
}

/// Loads `fixtures/conformance/<format>.<kind>.schema.json` into a validator.
pub fn validator(format: Format, kind: &str) -> jsonschema::Validator {
    let path = fixtures_dir().join(format!("conformance/{format}.{kind}.schema.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The instance paths of every schema error, each with the start of its message.
pub fn errors(validator: &jsonschema::Validator, value: &Value) -> BTreeMap<String, String> {
    validator
        .iter_errors(value)
        .map(|e| {
            // anyOf/oneOf messages start with the whole instance: keep the end, which says why.
            let full = e.to_string();
            let n = full.chars().count();
            let msg: String = if n > 160 {
                format!("…{}", full.chars().skip(n - 120).collect::<String>())
            } else {
                full
            };
            (e.instance_path().to_string(), msg)
        })
        .collect()
}

#[test]
fn every_request_fixture_validates_against_its_sdk_schema() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for format in Format::CHAT {
        let Some(kind) = request_schema(format) else {
            continue;
        };
        let files = files_in(&fixtures_dir().join(format.name()).join("request"));
        if files.is_empty() {
            continue;
        }
        let validator = validator(format, kind);
        for path in files {
            let rel = format!(
                "{}/request/{}",
                format,
                path.file_name().unwrap().to_string_lossy()
            );
            let text = std::fs::read_to_string(&path).unwrap();
            let (written, _) = read_write(format, What::Chat(Kind::Request), &text)
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            let errs = errors(&validator, &written);
            checked += 1;
            match KNOWN.iter().find(|(f, _, _)| *f == rel) {
                Some((_, paths, why)) => {
                    let got: Vec<&str> = errs.keys().map(|k| k.as_str()).collect();
                    if got != *paths {
                        failures.push(format!("{rel}: listed as failing at {paths:?} ({why}), but fails at {got:?}: {errs:#?}"));
                    }
                }
                None if !errs.is_empty() => failures.push(format!("{rel}: {errs:#?}")),
                None => {}
            }
        }
    }
    assert!(checked > 0);
    assert!(
        failures.is_empty(),
        "schema failures:\n{}",
        failures.join("\n")
    );
}

/// The schema file (`fixtures/conformance/<format>.<kind>.schema.json`) one stream event of
/// `format` is checked against: the SDK's own stream-event type where it has one, its
/// response type where a chunk is a response (Gemini, Ollama).
pub fn event_schema(format: Format) -> Option<&'static str> {
    match format {
        Format::OpenaiChat => Some("chunk"),
        Format::Gemini | Format::Ollama => Some("response"),
        Format::OpenaiResponses
        | Format::Anthropic
        | Format::Bedrock
        | Format::Mistral
        | Format::Cohere => Some("event"),
        Format::Mcp => None,
    }
}

/// The members of a schema whose root is an `anyOf` of objects told apart by a `type`
/// constant (the Responses, Anthropic and Cohere event unions), each as its own validator,
/// so that an event is checked against the member its `type` names and its errors say
/// where, rather than "not valid under any of the schemas listed in the 'anyOf'".
pub struct TaggedMembers {
    schema: Value,
    by_tag: BTreeMap<String, String>,
    validators: BTreeMap<String, jsonschema::Validator>,
}

impl TaggedMembers {
    /// The members of `fixtures/conformance/<format>.<kind>.schema.json` (none when its
    /// root is not such a union).
    pub fn new(format: Format, kind: &str) -> Self {
        let path = fixtures_dir().join(format!("conformance/{format}.{kind}.schema.json"));
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut by_tag = BTreeMap::new();
        for member in schema["anyOf"].as_array().into_iter().flatten() {
            let Some(name) = member["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                continue;
            };
            let def = &schema["$defs"][name];
            let tag = &def["properties"]["type"];
            if let Some(t) = tag["const"].as_str().or_else(|| tag["enum"][0].as_str()) {
                by_tag.insert(t.to_owned(), name.to_owned());
            }
        }
        TaggedMembers {
            schema,
            by_tag,
            validators: BTreeMap::new(),
        }
    }

    /// The errors of `value` against the member its `type` names; against the whole
    /// `schema` when there are no members or the union has none for that `type` (then the
    /// one error, at the root, says so).
    pub fn errors(
        &mut self,
        whole: &jsonschema::Validator,
        value: &Value,
    ) -> BTreeMap<String, String> {
        let Some(tag) = value["type"].as_str() else {
            return errors(whole, value);
        };
        if self.by_tag.is_empty() {
            return errors(whole, value);
        }
        let Some(name) = self.by_tag.get(tag) else {
            return BTreeMap::from([(
                String::new(),
                format!("the union has no member for type \"{tag}\""),
            )]);
        };
        let validator = self.validators.entry(name.clone()).or_insert_with(|| {
            let schema = serde_json::json!({
                "$defs": self.schema["$defs"].clone(),
                "$ref": format!("#/$defs/{name}"),
            });
            jsonschema::validator_for(&schema).unwrap()
        });
        errors(validator, value)
    }
}

/// Event types of a format that the schema does not describe, or describes more strictly
/// than the API sends them: an event of the type, in any fixture, either validates or fails
/// exactly at these instance paths. (format, `type`, paths, why)
const KNOWN_EVENT_TYPES: &[(Format, &str, &[&str], &str)] = &[
    (
        Format::Anthropic,
        "ping",
        &[""],
        "documented keep-alive (streaming guide), but not a member of the SDK's \
         `RawMessageStreamEvent` union: the SDK's stream reader drops it before typing",
    ),
    (
        Format::Anthropic,
        "error",
        &[""],
        "documented mid-stream error (streaming guide); the SDK's stream reader raises it \
         instead of typing it, so `RawMessageStreamEvent` has no member for it",
    ),
    (
        Format::OpenaiResponses,
        "keepalive",
        &[""],
        "undocumented heartbeat OpenAI sends on long streams (openai/openai-node#1964); not \
         in the SDK's `ResponseStreamEvent` union",
    ),
    (
        Format::OpenaiResponses,
        "response.apply_patch_call_operation_diff.delta",
        &[""],
        "sent by OpenAI for the `apply_patch` tool (real capture) but not in the union of \
         openai 3.57.0",
    ),
    (
        Format::OpenaiResponses,
        "response.apply_patch_call_operation_diff.done",
        &[""],
        "sent by OpenAI for the `apply_patch` tool (real capture) but not in the union of \
         openai 3.57.0",
    ),
    (
        Format::OpenaiResponses,
        "response.completed",
        &["/response/usage"],
        "openai 3.57.0 makes `usage.input_tokens_details.cache_write_tokens` required; \
         OpenAI, Azure and LM Studio (every capture) leave it out: the schema is newer than \
         the servers",
    ),
    (
        Format::Cohere,
        "message-start",
        &["/delta"],
        "the SDK's `ChatMessageStartEventDeltaMessage` has only `role`; Cohere sends the \
         empty `content`, `tool_plan`, `tool_calls` and `citations` too (every capture)",
    ),
];

/// Single stream events that do not validate against their format's schema, with the
/// instance paths of every error they must give and why that is not a wire-types fault:
/// (fixture, event labels as [`crate::support::payloads`] names them, paths, why).
/// A row here wins over [`KNOWN_EVENT_TYPES`].
const KNOWN_EVENTS: &[(&str, &[&str], &[&str], &str)] = &[
    // OpenAI Chat: compatible servers' quirks the SDK types do not allow.
    (
        "openai-chat/stream/azure-model-router.chunks.txt",
        &["line 1"],
        &["/object"],
        "Azure's prompt-filter chunk has empty `id`, `model` and `object` (`\"\"`, not \
         `chat.completion.chunk`)",
    ),
    (
        "openai-chat/stream/handmade-finish-reason-empty.chunks.txt",
        &["line 1", "line 2", "line 3", "line 4", "line 5"],
        &["/choices/0/finish_reason"],
        "the quirk itself: `finish_reason: \"\"` from compatible servers, outside the SDK enum",
    ),
    (
        "openai-chat/stream/handmade-role-empty.chunks.txt",
        &["line 1"],
        &["/choices/0/delta/role"],
        "the quirk itself: `role: \"\"` (vercel/ai PR#15464), outside the SDK enum",
    ),
    (
        "openai-chat/stream/handmade-tool-call-index-missing.chunks.txt",
        &["line 2", "line 3", "line 4", "line 5", "line 6", "line 7"],
        &["/choices/0/delta/tool_calls"],
        "the quirk itself: tool-call fragments without the `index` the SDK requires \
         (Gemini's OpenAI endpoint)",
    ),
    (
        "openai-chat/stream/handmade-gemini-tool-call-thought-signature.chunks.txt",
        &["line 1"],
        &["/choices/0/delta/tool_calls"],
        "Gemini's OpenAI endpoint sends the whole call without `index` (required by the SDK); \
         `extra_content` itself is allowed (open object)",
    ),
    (
        "openai-chat/stream/handmade-usage-without-choices.chunks.txt",
        &["line 7"],
        &[""],
        "the quirk itself: a usage chunk without the `choices` the SDK requires",
    ),
    // OpenAI Responses.
    (
        "openai-responses/stream/error-event-response-failed.chunks.txt",
        &["line 3"],
        &[""],
        "OpenAI sends the `error` event nested (`error: {type, code, message, param}`, \
         openai/openai-dotnet#849); the SDK type has the documented flat shape and requires \
         a top-level `message`",
    ),
    (
        "openai-responses/stream/error-event-response-failed.chunks.txt",
        &["line 4"],
        &["/response/error"],
        "`response.error.code` is `insufficient_quota`, outside the SDK's closed enum of \
         error codes",
    ),
    (
        "openai-responses/stream/web-search-annotations.gpt-5-mini.chunks.txt",
        &[
            "line 5", "line 12", "line 19", "line 26", "line 33", "line 40",
        ],
        &["/item"],
        "`output_item.added` of a `web_search_call` comes before its `action` is known; the \
         SDK's `ResponseFunctionWebSearch` requires `action`",
    ),
    // Anthropic.
    (
        "anthropic/stream/mcp-tool-use.chunks.txt",
        &["line 2", "line 9"],
        &["/content_block"],
        "`mcp_tool_use` / `mcp_tool_result` blocks of the MCP connector (beta) are not in \
         the GA SDK's content-block union",
    ),
    (
        "anthropic/stream/tool-search-multi-turn.chunks.txt",
        &["line 82"],
        &["/usage/server_tool_use"],
        "the capture's `server_tool_use` has no `web_fetch_requests`, which the SDK requires",
    ),
    (
        "anthropic/stream/handmade-compaction-delta.sse.txt",
        &["line 4 (content_block_start)"],
        &["/content_block"],
        "compaction blocks are beta (anthropic-sdk-python `types/beta/`), not in the GA \
         content-block union the schema is made from",
    ),
    (
        "anthropic/stream/handmade-compaction-delta.sse.txt",
        &[
            "line 7 (content_block_delta)",
            "line 10 (content_block_delta)",
        ],
        &["/delta"],
        "`compaction_delta` is beta (anthropic-sdk-python `types/beta/`), not in the GA delta \
         union the schema is made from",
    ),
    // Gemini and Ollama: error objects are not responses.
    (
        "gemini/stream/handmade-midstream-error.sse.txt",
        &["line 5"],
        &[""],
        "a mid-stream `{\"error\": …}` object, not a `GenerateContentResponse`",
    ),
    (
        "ollama/stream/generate-error-mid-stream.ndjson",
        &["line 1", "line 2", "line 3", "line 4", "line 5"],
        &[""],
        "`/api/generate` lines (`response` text, no `message`) and an `{\"error\": …}` line; \
         the schema is the `/api/chat` response",
    ),
    (
        "ollama/stream/handmade-chat-error-mid-stream.ndjson",
        &["line 2"],
        &[""],
        "an `{\"error\": …}` line, not a chat response",
    ),
    // Bedrock.
    (
        "bedrock/stream/text.chunks.txt",
        &["line 16"],
        &["/metadata/usage"],
        "`usage.serverToolUsage` is newer than the botocore 1.44.8 service model",
    ),
    (
        "bedrock/stream/reasoning.chunks.txt",
        &["line 26"],
        &["/metadata/usage"],
        "`usage.serverToolUsage` is newer than the botocore 1.44.8 service model",
    ),
    (
        "bedrock/stream/handmade-cache-details.chunks.txt",
        &["line 16"],
        &["/metadata/usage"],
        "derived from `text.chunks.txt`, whose `usage.serverToolUsage` is newer than the \
         botocore 1.44.8 service model",
    ),
    (
        "bedrock/stream/tool-use-input-delta.chunks.txt",
        &["line 5"],
        &["/metadata"],
        "the capture's `metadata` has no `metrics` (trimmed, see SOURCES.md caveats)",
    ),
    // Mistral.
    (
        "mistral/stream/incremental-tool-call-args.chunks.txt",
        &["line 3"],
        &["/usage"],
        "La Plateforme sends `usage.prompt_tokens_details`, which the mistralai SDK's \
         `UsageInfo` (made strict) does not have",
    ),
];

/// The paths `format`'s event `label` of `rel` (whose `type` is `tag`) is listed to fail at,
/// with why, and which row said so.
fn known_event(
    format: Format,
    rel: &str,
    label: &str,
    tag: Option<&str>,
) -> Option<(&'static [&'static str], &'static str, usize)> {
    if let Some(i) = KNOWN_EVENTS
        .iter()
        .position(|(f, ls, _, _)| *f == rel && ls.contains(&label))
    {
        let (_, _, paths, why) = KNOWN_EVENTS[i];
        return Some((paths, why, i));
    }
    let i = KNOWN_EVENT_TYPES
        .iter()
        .position(|(f, t, _, _)| *f == format && Some(*t) == tag)?;
    let (_, _, paths, why) = KNOWN_EVENT_TYPES[i];
    Some((paths, why, KNOWN_EVENTS.len() + i))
}

#[test]
fn every_stream_event_validates_against_its_sdk_schema() {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut used = vec![false; KNOWN_EVENTS.len() + KNOWN_EVENT_TYPES.len()];
    for format in Format::CHAT {
        let Some(kind) = event_schema(format) else {
            continue;
        };
        let files = files_in(&fixtures_dir().join(format.name()).join("stream"));
        if files.is_empty() {
            continue;
        }
        let validator = validator(format, kind);
        let mut members = TaggedMembers::new(format, kind);
        for path in files {
            let rel = format!(
                "{}/stream/{}",
                format,
                path.file_name().unwrap().to_string_lossy()
            );
            for (label, text) in crate::support::payloads(&path) {
                let (written, _) = read_write(format, What::Chat(Kind::StreamEvent), &text)
                    .unwrap_or_else(|e| panic!("{rel} {label}: {e}"));
                let errs = members.errors(&validator, &written);
                checked += 1;
                let tag = written.get("type").and_then(Value::as_str);
                match known_event(format, &rel, &label, tag) {
                    // A type rule allows the event to pass; a row for the event does not.
                    Some((_, _, row)) if errs.is_empty() && row >= KNOWN_EVENTS.len() => {}
                    Some((paths, why, row)) => {
                        used[row] = true;
                        let got: Vec<&str> = errs.keys().map(|k| k.as_str()).collect();
                        if got != paths {
                            failures.push(format!("{rel} {label}: listed as failing at {paths:?} ({why}), but fails at {got:?}: {errs:#?}"));
                        }
                    }
                    None if !errs.is_empty() => failures.push(format!("{rel} {label}: {errs:#?}")),
                    None => {}
                }
            }
        }
    }
    assert!(checked > 0);
    for (i, used) in used.iter().enumerate() {
        if !used {
            failures.push(match KNOWN_EVENTS.get(i) {
                Some((f, ls, _, _)) => format!("{f} {ls:?}: listed, but no such event"),
                None => {
                    let (f, t, _, _) = KNOWN_EVENT_TYPES[i - KNOWN_EVENTS.len()];
                    format!("{f} {t}: listed, but no fixture has such an event")
                }
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} schema failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
