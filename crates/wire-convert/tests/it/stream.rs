//! Every recorded stream of every format, read as it arrives: the parts it decodes to and
//! the response they add up to (snapshots), each response valid against its format's SDK
//! response schema; the same parts and response however the bytes are split.

use proptest::prelude::*;
use std::path::Path;
use test_support::{Fixture, Report};
use wire_convert::stream::{Accumulator, Framing, StreamDecoder, StreamPart};
use wire_convert::{Error, Format, Loss, Options};

/// Streams whose accumulated response does not validate against the SDK's response
/// schema as it stands, with the instance paths of every error it must give and why that
/// Why a Bedrock stream without usage accumulates to a body the SDK's type refuses.
const NO_METADATA: &str = "the stream has no `metadata` event, so no usage: the Bedrock body \
    written from it, in its own format, carries what the stream carried (a body of the \
    format itself gets no stand-in), and the SDK's type requires `usage`";

/// is not a toolwire fault.
const KNOWN: &[(&str, &[&str], &str)] = &[
    (
        "mistral/stream/incremental-tool-call-args.chunks.txt",
        &["/choices/0/message", "/usage"],
        "the recording sends an `index` in its message's calls and `prompt_tokens_details` in \
         its usage, which the SDK's types do not have: written back as it came",
    ),
    (
        "bedrock/event-stream/handmade-empty-payload.eventstream",
        &[""],
        NO_METADATA,
    ),
    (
        "openai-chat/stream/handmade-tool-call-type-missing.chunks.txt",
        &["/choices/0/message/tool_calls"],
        "the server sends the call without `type` (kept so that the same format writes it \
         back as it came); the SDK's response type requires `type: function`",
    ),
    (
        "anthropic/stream/mcp-tool-use.chunks.txt",
        &["/content/0", "/content/1"],
        "MCP connector blocks (`mcp_tool_use`, `mcp_tool_result`) are a beta: the SDK's \
         non-beta Message type does not list them",
    ),
    (
        "anthropic/stream/handmade-compaction-delta.sse.txt",
        &["/content/0"],
        "compaction blocks are a beta: the SDK's non-beta Message type does not list them",
    ),
    (
        "openai-responses/stream/apply-patch.gpt-5.1.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/compat-lmstudio-reasoning-tool-call.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/function-call-args-delta.azure-gpt-5.1.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/handmade-arguments-only-in-done.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/handmade-done-sentinel.sse.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/handmade-item-id-rotating.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/handmade-keepalive.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/handmade-parallel-calls-interleaved.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/mcp-approval-request.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/reasoning-summary-and-function-calls.gpt-5.1-codex-max.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/tool-search-function-call.gpt-5.4.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "openai-responses/stream/web-search-annotations.gpt-5-mini.chunks.txt",
        &["/usage"],
        NO_CACHE_WRITE_TOKENS,
    ),
    (
        "bedrock/stream/text.chunks.txt",
        &["/usage"],
        "`usage.serverToolUsage` (in the real capture) is newer than the botocore 1.44.8 \
         service model the schema is generated from",
    ),
    (
        "bedrock/stream/reasoning.chunks.txt",
        &["/usage"],
        "`usage.serverToolUsage` (in the real capture) is newer than the botocore 1.44.8 \
         service model the schema is generated from",
    ),
    (
        "bedrock/stream/handmade-cache-details.chunks.txt",
        &["/usage"],
        "`usage.serverToolUsage` (in the real capture) is newer than the botocore 1.44.8 \
         service model the schema is generated from",
    ),
    (
        "bedrock/event-stream/text.eventstream",
        &["/usage"],
        "`usage.serverToolUsage` (in the real capture) is newer than the botocore 1.44.8 \
         service model the schema is generated from",
    ),
    (
        "bedrock/event-stream/reasoning.eventstream",
        &["/usage"],
        "`usage.serverToolUsage` (in the real capture) is newer than the botocore 1.44.8 \
         service model the schema is generated from",
    ),
    (
        "bedrock/event-stream/handmade-cache-details.eventstream",
        &["/usage"],
        "`usage.serverToolUsage` (in the real capture) is newer than the botocore 1.44.8 \
         service model the schema is generated from",
    ),
];

/// Why a Responses capture's usage fails the SDK schema.
const NO_CACHE_WRITE_TOKENS: &str = "the server's `usage.input_tokens_details` has no \
     `cache_write_tokens` (recorded before the field existed, or from a server without it): \
     the SDK 3.57 schema requires it; toolwire writes the usage back as it came";

/// The framing of a stream fixture, by its file name: raw SSE, one event payload a line
/// (the recorder's `.chunks.txt`, Ollama's NDJSON), or AWS event-stream binary.
pub(crate) fn framing(name: &str) -> Framing {
    if name.ends_with(".sse.txt") {
        Framing::Sse
    } else if name.ends_with(".eventstream") {
        Framing::EventStream
    } else {
        Framing::Ndjson
    }
}

/// Every stream fixture: `fixtures/<format>/stream/*` and Bedrock's binary captures.
pub(crate) fn streams() -> Vec<(Format, Fixture)> {
    let mut out = test_support::fixtures("stream", &[".sse.txt", ".chunks.txt", ".ndjson"]);
    out.extend(test_support::fixtures("event-stream", &[".eventstream"]));
    out.into_iter()
        .filter_map(|f| Some((f.format.parse().ok()?, f)))
        .collect()
}

/// The parts of a stream pushed in the given pieces, and its decode losses.
pub(crate) fn decode(
    format: Format,
    framing: Framing,
    pieces: &[&[u8]],
) -> Result<(Vec<StreamPart>, Vec<Loss>), Error> {
    let mut decoder = StreamDecoder::with_framing(format, framing, &Options::default())?;
    let mut parts = Vec::new();
    for p in pieces {
        parts.extend(decoder.push(p)?);
    }
    parts.extend(decoder.finish()?);
    Ok((parts, decoder.losses().to_vec()))
}

/// Pieces of `bytes` cut at `cuts` (positions taken modulo the length).
pub(crate) fn cut<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    if bytes.is_empty() {
        return vec![bytes];
    }
    let mut at: Vec<usize> = cuts.iter().map(|c| c % bytes.len()).collect();
    at.sort_unstable();
    at.dedup();
    let mut pieces = Vec::new();
    let mut start = 0;
    for a in at {
        pieces.push(&bytes[start..a]);
        start = a;
    }
    pieces.push(&bytes[start..]);
    pieces
}

fn check(path: &Path) -> Option<String> {
    let fixture = Fixture::of(path)?;
    let format: Format = fixture.format.parse().ok()?;
    let bytes = std::fs::read(path).unwrap();
    let framing = framing(&fixture.name);
    let mut report = Report::new();
    let (parts, losses) = match decode(format, framing, &[&bytes]) {
        Err(e) => {
            report.line(format_args!("error: {e}"));
            return Some(report.finish());
        }
        Ok(x) => x,
    };
    report.line(format_args!("parts: {}", parts.len()));
    report.list("decode losses", losses.iter());
    let mut acc = Accumulator::new();
    acc.extend(parts);
    let (response, error) = match acc.finish() {
        Ok(r) => (r, None),
        Err(Error::Incomplete { error, partial }) => (*partial, Some(error)),
        Err(e) => panic!("{}: {e}", fixture.rel()),
    };
    if let Some(e) = &error {
        report.line(format_args!("incomplete ({:?}): {e}", e.kind));
    }
    let out = wire_convert::encode_response_value(response, format, &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", fixture.rel()));
    report.list("encode losses", out.losses.iter());
    if error.is_none() {
        if let Some(v) = test_support::conformance(&format!("{format}.response")) {
            let errors = test_support::schema_errors(v, &out.value);
            let mut at: Vec<&str> = errors
                .iter()
                .map(|e| e.split(": ").next().unwrap_or_default())
                .collect();
            at.dedup();
            let known = KNOWN
                .iter()
                .find(|(name, _, _)| *name == fixture.rel())
                .map(|(_, paths, _)| paths.to_vec())
                .unwrap_or_default();
            assert_eq!(
                at,
                known,
                "{}: the accumulated response and the {format} response schema:\n{}",
                fixture.rel(),
                errors.join("\n")
            );
        }
    }
    report.json(&out.value);
    Some(report.finish())
}

#[test]
fn every_stream_fixture_accumulates() {
    insta::glob!(
        "../../../../fixtures",
        "*/{stream,event-stream}/*.{txt,ndjson,eventstream}",
        |path| {
            if let Some(report) = check(path) {
                insta::assert_snapshot!(report);
            }
        }
    );
}

#[test]
fn one_byte_at_a_time_gives_the_same_parts() {
    for (format, f) in streams() {
        let bytes = std::fs::read(&f.path).unwrap();
        let framing = framing(&f.name);
        let whole = decode(format, framing, &[&bytes])
            .map(|(p, _)| p)
            .map_err(|e| e.to_string());
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        let split = decode(format, framing, &bytewise)
            .map(|(p, _)| p)
            .map_err(|e| e.to_string());
        assert_eq!(whole, split, "{}", f.rel());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// Split a stream anywhere (inside UTF-8 sequences, between CR and LF, inside an AWS
    /// prelude): the same parts, so the same response.
    #[test]
    fn a_stream_split_anywhere_decodes_to_the_same_parts(
        which in any::<prop::sample::Index>(),
        cuts in prop::collection::vec(any::<usize>(), 0..24),
        crlf in any::<bool>(),
    ) {
        let all = streams();
        let (format, f) = &all[which.index(all.len())];
        let mut bytes = std::fs::read(&f.path).unwrap();
        let framing = framing(&f.name);
        if crlf && framing == Framing::Sse {
            bytes = String::from_utf8(bytes).unwrap().replace('\n', "\r\n").into_bytes();
        }
        let whole = decode(*format, framing, &[&bytes]);
        let split = decode(*format, framing, &cut(&bytes, &cuts));
        prop_assert_eq!(
            whole.map(|(p, _)| p).map_err(|e| e.to_string()),
            split.map(|(p, _)| p).map_err(|e| e.to_string()),
            "{}", f.rel()
        );
    }
}

/// The folder of `fixtures/sdk/` (and `fixtures/sdk/translated/`) whose official SDK
/// accumulates `format`'s streams; `None` for a format without an SDK accumulator.
pub(crate) fn sdk_folder(format: Format) -> Option<&'static str> {
    match format {
        // The beta accumulator keeps what the GA one drops (beta blocks' deltas).
        Format::Anthropic => Some("anthropic-beta"),
        Format::OpenaiChat => Some("openai-chat"),
        Format::OpenaiResponses => Some("openai-responses"),
        _ => None,
    }
}

/// Compares toolwire's accumulation of a stream (`ours`: the response, or why it was
/// refused) with the official SDK's (`sdk`: its body, or `{"error": "<type>: <message>"}`
/// where it refused the stream), after [`sdk_normalized`] on both sides; `allowed` is the
/// pointer where a listed difference may start. Every disagreement is pushed to
/// `failures`, named by `key`.
pub(crate) fn compare_with_sdk(
    key: &str,
    ours: Result<wire_convert::model::Response, String>,
    sdk: &serde_json::Value,
    format: Format,
    allowed: Option<&str>,
    failures: &mut Vec<String>,
) {
    // A Responses body's own `error` (`null`, or a failed response's object) is not a
    // refusal.
    match (ours, sdk.get("error").filter(|e| e.is_string())) {
        // Both refuse the stream (a provider error event).
        (Err(_), Some(_)) => {}
        (Err(e), None) => failures.push(format!("{key}: toolwire: {e}; the SDK accumulates")),
        // The SDK refuses a stream toolwire reads, for the reason listed.
        (Ok(_), Some(_)) if allowed.is_some() => {}
        (Ok(_), Some(e)) => failures.push(format!("{key}: the SDK says {e}; toolwire accumulates")),
        (Ok(r), None) => {
            let body = wire_convert::encode_response_value(r, format, &Options::default())
                .unwrap()
                .value;
            let diff = test_support::first_difference(&sdk_normalized(&body), &sdk_normalized(sdk));
            match (diff, allowed) {
                (None, None) => {}
                (None, Some(_)) => {
                    failures.push(format!("{key}: listed as a difference but agrees"))
                }
                (Some(d), Some(at)) if d.starts_with(at) => {}
                (Some(d), _) => failures.push(format!("{key}: {d}")),
            }
        }
    }
}

/// How an accumulated body and the official SDK's accumulation of the same stream are
/// compared: [`normalized`], without the `index` the OpenAI SDK's accumulator leaves on
/// each accumulated tool call (from the chunk fragments; a whole response's call has
/// none), and without the empty strings a stream encoder writes where the SDK's type
/// requires a field the source has none for (an OpenAI chunk's `id` and `model`, an
/// Anthropic thinking block's `signature` for reasoning another provider made): toolwire
/// reads those back as absent, the SDK keeps the empty string.
pub(crate) fn sdk_normalized(v: &serde_json::Value) -> serde_json::Value {
    let mut v = normalized(v);
    if let Some(m) = v.as_object_mut() {
        for key in ["id", "model"] {
            if m.get(key).is_some_and(|x| x == "") {
                m.remove(key);
            }
        }
    }
    for blocks in [v.get_mut("content")].into_iter().flatten() {
        for b in blocks.as_array_mut().into_iter().flatten() {
            if let Some(m) = b.as_object_mut() {
                if m.get("signature").is_some_and(|x| x == "") {
                    m.remove("signature");
                }
            }
        }
    }
    for c in v
        .get_mut("choices")
        .and_then(|c| c.as_array_mut())
        .into_iter()
        .flatten()
    {
        let calls = c
            .pointer_mut("/message/tool_calls")
            .and_then(|t| t.as_array_mut());
        for call in calls.into_iter().flatten() {
            if let Some(m) = call.as_object_mut() {
                m.remove("index");
            }
        }
    }
    v
}

/// How an accumulated body and the official SDK's accumulation of the same stream are
/// compared: `null` and absent are the same (the SDKs fill in every optional field), and
/// numbers by value (`1.0` and `1`).
pub(crate) fn normalized(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.clone(), normalized(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => v.clone(),
        },
        _ => v.clone(),
    }
}

/// Streams where toolwire's accumulation and the SDK's differ, at these pointers, and why
/// the SDK is not the one to follow there.
const SDK_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "openai-chat/azure-model-router.chunks.txt",
        "/prompt_filter_results",
        "Azure's first chunk (no id, no choices) carries the prompt's content-filter \
         results: the SDK's accumulator drops that chunk, toolwire keeps them on the response",
    ),
    (
        "openai-chat/handmade-gemini-text-signature-last-chunk.chunks.txt",
        "/choices/0/message/role",
        "the signature chunk repeats `role`: the SDK joins the two into \"assistantassistant\", \
         toolwire keeps one",
    ),
    (
        "openai-chat/handmade-gemini-tool-call-thought-signature.chunks.txt",
        "",
        "Gemini's endpoint sends the call without `index`: the SDK fails (TypeError), \
         toolwire reads the call",
    ),
    (
        "openai-chat/handmade-tool-call-index-missing.chunks.txt",
        "",
        "the fragments have no `index`: the SDK fails (TypeError), toolwire matches them by \
         id and name",
    ),
    (
        "openai-chat/handmade-usage-without-choices.chunks.txt",
        "",
        "the usage chunk has no `choices` key: the SDK fails (TypeError), toolwire reads it",
    ),
    (
        "openai-chat/handmade-role-empty.chunks.txt",
        "/choices/0/message/role",
        "`role: \"\"` is a compatible server's way of saying nothing: the SDK keeps the empty \
         string, toolwire the assistant role (vercel/ai PR#15464)",
    ),
    (
        "openai-chat/handmade-tool-call-fresh-id-every-chunk.chunks.txt",
        "/choices/0/message/tool_calls/0/id",
        "a fresh id on every fragment of one call: the SDK joins them all into one id, \
         toolwire keeps the first (0xPlaygrounds/rig#1510)",
    ),
    (
        "openai-chat/handmade-tool-call-index-reused.chunks.txt",
        "/choices/0/message/tool_calls",
        "one `index` for two calls with their own ids and names: the SDK merges them into one \
         call (names and arguments joined), toolwire keeps two (langchain-ai/langchain PR#35281)",
    ),
    (
        "anthropic/fine-grained-invalid-partial-json.claude-3-7-sonnet.sse.txt",
        "/content/1/input",
        "the stream stops at max_tokens inside the tool input: the SDK drops the unfinished \
         string, toolwire keeps the text as {\"invalid_json\": …} with a loss",
    ),
    (
        "anthropic/handmade-cut-off-before-message-stop.sse.txt",
        "/content/0/input",
        "the stream breaks off inside the tool input: the SDK drops the unfinished input, \
         toolwire keeps the text as {\"invalid_json\": …} with a loss",
    ),
    (
        "anthropic/tool-search-multi-turn.chunks.txt",
        "",
        "three messages recorded in one file: the SDK mixes them up (fixtures/sdk/README.md)",
    ),
    (
        "openai-responses/handmade-item-id-rotating.chunks.txt",
        "",
        "the server (GitHub Copilot) gives the item a new `item_id` on every event and another \
         in the terminal response: the SDK checks item identities and refuses the stream; \
         toolwire keys items by `output_index` and keeps the terminal response's item",
    ),
    (
        "openai-responses/reasoning-summary-and-function-calls.gpt-5.1-codex-max.chunks.txt",
        "",
        "four responses of an agent loop recorded in one file: the SDK refuses the second \
         `response.created` (another id); toolwire reads the first response and leaves the \
         rest out with a loss, as it does for several Anthropic messages in one file",
    ),
];

/// The official SDK's accumulator (`fixtures/sdk`, generated by its `generate.sh`) and
/// toolwire's give the same body for every recorded stream of the formats that have one.
#[test]
fn accumulation_agrees_with_the_official_sdks() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for (format, f) in streams() {
        let Some(sdk_folder) = sdk_folder(format) else {
            continue;
        };
        let sdk_path =
            test_support::fixtures_dir().join(format!("sdk/{sdk_folder}/{}.json", f.name));
        let Ok(text) = std::fs::read_to_string(&sdk_path) else {
            failures.push(format!(
                "{}: no SDK result at {}",
                f.rel(),
                sdk_path.display()
            ));
            continue;
        };
        let sdk: serde_json::Value = serde_json::from_str(&text).unwrap();
        let bytes = std::fs::read(&f.path).unwrap();
        let ours =
            match decode(format, framing(&f.name), &[&bytes]) {
                Err(e) => Err(e.to_string()),
                Ok((parts, _)) => {
                    let mut acc = Accumulator::new();
                    acc.extend(parts);
                    match acc.finish() {
                        Ok(r) => Ok(r),
                        // A stream cut short: the SDK returns the message so far as if it
                        // were whole (`stop_reason: null`); toolwire says it is incomplete,
                        // with the same message so far, which is what is compared.
                        Err(Error::Incomplete { error, partial })
                            if error.kind == wire_convert::stream::StreamErrorKind::Incomplete
                                && ["/stop_reason", "/choices/0/finish_reason"].iter().any(
                                    |p| sdk.pointer(p).is_some_and(serde_json::Value::is_null),
                                ) =>
                        {
                            Ok(*partial)
                        }
                        Err(e) => Err(e.to_string()),
                    }
                }
            };
        let key = format!("{}/{}", format, f.name);
        let allowed = SDK_DIFFERENCES
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, at, _)| *at);
        compared += 1;
        compare_with_sdk(&key, ours, &sdk, format, allowed, &mut failures);
    }
    assert!(compared > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a response says, for comparing across formats: its text, its calls (name and
/// arguments as JSON) and its stop kind.
fn gist(
    r: &wire_convert::model::Response,
) -> (String, Vec<(String, serde_json::Value)>, Option<String>) {
    use wire_convert::model::Part;
    let Some(c) = r.choices.first() else {
        return (String::new(), Vec::new(), None);
    };
    let calls = c
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(call) => Some((
                call.name.clone(),
                match call.arguments.value() {
                    // Text that is not JSON, which a format whose arguments are an
                    // object carries as `{"invalid_json": text}` (with a loss): the same
                    // arguments.
                    Some(serde_json::Value::Object(m))
                        if m.len() == 1 && m.get("invalid_json").is_some_and(|v| v.is_string()) =>
                    {
                        m["invalid_json"].clone()
                    }
                    Some(v) => v,
                    None => serde_json::Value::String(call.arguments.text()),
                },
            )),
            _ => None,
        })
        .collect();
    (
        c.message.joined_text(),
        calls,
        c.stop_reason.as_ref().map(|s| format!("{:?}", s.kind)),
    )
}

/// Every stream fixture written as every format's stream (through the stream encoder,
/// the same format included): the written stream reads back as that format, and adds up
/// to the same text, calls and stop as the source, except where the encoder's losses
/// name a part or the finish.
#[test]
fn every_stream_translates_to_every_format() {
    use wire_convert::stream::StreamEncoder;
    let mut checked = 0;
    let mut failures = Vec::new();
    for (from, f) in streams() {
        let bytes = std::fs::read(&f.path).unwrap();
        let Ok((parts, _)) = decode(from, framing(&f.name), &[&bytes]) else {
            continue;
        };
        let mut source = Accumulator::new();
        source.extend(parts.clone());
        let source = match source.finish() {
            Ok(r) => Some(r),
            Err(Error::Incomplete { .. }) => None,
            Err(e) => panic!("{}: {e}", f.rel()),
        };
        for to in Format::CHAT {
            let mut encoder = match StreamEncoder::new(to, &Options::default()) {
                Ok(e) => e,
                Err(e) => panic!("{to}: {e}"),
            };
            let written = match encoder.encode_all(parts.clone()) {
                Err(e) => {
                    failures.push(format!("{} → {to}: {e}", f.rel()));
                    continue;
                }
                Ok(mut w) => match encoder.finish() {
                    Ok(rest) => {
                        w.extend(rest);
                        w
                    }
                    Err(e) => {
                        failures.push(format!("{} → {to}: finish: {e}", f.rel()));
                        continue;
                    }
                },
            };
            checked += 1;
            let back = decode(to, Framing::of(to), &[&written]);
            let back = match back {
                Ok((p, _)) => p,
                Err(e) => {
                    failures.push(format!(
                        "{} → {to}: the written stream does not read back: {e}",
                        f.rel()
                    ));
                    continue;
                }
            };
            let mut acc = Accumulator::new();
            acc.extend(back);
            match (acc.finish(), &source) {
                (Ok(r), Some(s)) => {
                    // What differs must be what a loss of the encoder names: the parts
                    // (text, calls) or the finish (the stop).
                    let ((text, calls, stop), (s_text, s_calls, s_stop)) = (gist(&r), gist(s));
                    let named =
                        |prefix: &str| encoder.losses().iter().any(|l| l.path.starts_with(prefix));
                    let unexplained = (text != s_text && !named("/parts"))
                        || (calls != s_calls && !named("/parts"))
                        || (stop != s_stop && !named("/finish"));
                    if unexplained {
                        failures.push(format!(
                            "{} → {to}: adds up to {:?}, the source to {:?}, and no loss says so: {:?}",
                            f.rel(),
                            (text, calls, stop),
                            (s_text, s_calls, s_stop),
                            encoder.losses()
                        ));
                    }
                }
                (Err(_), None) => {}
                (Ok(_), None) => failures.push(format!(
                    "{} → {to}: an incomplete source ends normally",
                    f.rel()
                )),
                (Err(e), Some(_)) => failures.push(format!("{} → {to}: {e}", f.rel())),
            }
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
