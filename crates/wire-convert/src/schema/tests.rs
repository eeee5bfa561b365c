use super::*;
use crate::Options;
use wire_types::Format;

#[test]
fn gemini_inlines_refs_and_rewrites_nullables() {
    let opts = Options::default();
    let mut ctx = Ctx::new(Format::Gemini, &opts);
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]},
            "days": {"type": ["integer", "null"], "format": "uint32", "minimum": 0}
        },
        "required": ["city"],
        "additionalProperties": false,
        "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}
    });
    let out = to_gemini(&schema, &mut ctx, "/tools/0/input_schema");
    assert_eq!(
        out,
        json!({
            "type": "OBJECT",
            "properties": {
                "city": {"type": "STRING"},
                "unit": {"type": "STRING", "enum": ["c", "f"], "nullable": true},
                "days": {"type": "INTEGER", "minimum": 0, "nullable": true}
            },
            "required": ["city"]
        })
    );
    let paths: Vec<&str> = ctx.losses().iter().map(|l| l.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/tools/0/input_schema/$schema",
            "/tools/0/input_schema/properties/days/format",
            "/tools/0/input_schema/additionalProperties",
        ]
    );
}

#[test]
fn a_recursive_ref_is_reported_not_followed() {
    let opts = Options::default();
    let mut ctx = Ctx::new(Format::Gemini, &opts);
    let schema = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
    let out = to_gemini(&schema, &mut ctx, "");
    assert_eq!(
        out,
        json!({"type": "OBJECT", "properties": {"next": {"type": "OBJECT"}}})
    );
    assert_eq!(ctx.losses().len(), 1);
    assert_eq!(ctx.losses()[0].path, "/properties/next/$ref");
}

#[test]
fn strict_closes_objects_and_makes_optionals_nullable() {
    let opts = Options::default();
    let mut ctx = Ctx::new(Format::OpenaiChat, &opts);
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer", "enum": [1, 2]}}, "required": ["a"]});
    let out = to_openai_strict(&schema, &mut ctx, "");
    assert_eq!(
        out,
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"], "enum": [1, 2, null]}}, "required": ["a", "b"], "additionalProperties": false})
    );
    assert_eq!(ctx.losses().len(), 2);
    // Already strict: unchanged, no loss.
    let mut ctx = Ctx::new(Format::OpenaiChat, &opts);
    assert_eq!(to_openai_strict(&out, &mut ctx, ""), out);
    assert!(ctx.losses().is_empty());
}

#[test]
fn gemini_parameters_read_back_as_json_schema() {
    let g = json!({"type": "OBJECT", "properties": {"x": {"type": "STRING", "nullable": true}}, "required": ["x"]});
    assert_eq!(
        from_gemini(&g),
        json!({"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "required": ["x"]})
    );
}

// ---------------------------------------------------------------------------------------
// Hostile schemas: `$ref` inlining stays within its budget (the "billion laughs" shape
// of `$defs` that each reference the previous one twice), a root that is only a `$ref`
// is resolved, never wrapped with a dangling `$ref`. Inputs in `fixtures/hostile/`.

use crate::{GeminiSchema, convert_request};
use serde_json::{Value, json};

/// A schema whose definition `d{i}` uses `d{i-1}` twice, `levels` deep: fully inlined it
/// would have 2^levels leaves.
fn laughs(levels: usize) -> Value {
    let mut defs = serde_json::Map::new();
    defs.insert("d0".into(), json!({"type": "string"}));
    for i in 1..=levels {
        let prev = format!("#/$defs/d{}", i - 1);
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
        );
    }
    json!({"type": "object", "properties": {"x": {"$ref": format!("#/$defs/d{levels}")}},
           "required": ["x"], "$defs": defs})
}

/// Every JSON value in `v`.
fn nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(nodes).sum(),
        Value::Object(m) => m.values().map(nodes).sum(),
        _ => 0,
    }
}

/// The most nodes inlining may produce for an input of `input` nodes (a little more
/// than the budget's copies: each node an inlined schema writes is at most one of the
/// input's, and the root's own nodes come once).
fn bound(input: usize) -> usize {
    let b = Budget::DEFAULT;
    input + b.factor * input + b.slack
}

fn read(path: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(path),
    )
    .unwrap()
}

#[test]
fn the_committed_fixture_is_the_thirty_level_shape() {
    let committed: Value =
        serde_json::from_str(&read("hostile/billion-laughs-30.schema.json")).unwrap();
    assert_eq!(committed, laughs(30));
    let request: Value =
        serde_json::from_str(&read("hostile/billion-laughs-30.openai-chat.json")).unwrap();
    assert_eq!(request["tools"][0]["function"]["parameters"], laughs(30));
}

#[test]
fn billion_laughs_to_gemini_is_bounded_and_reported() {
    let input = laughs(30);
    let out = adapt(&input, Format::Gemini, &Options::default());
    assert!(
        nodes(&out.value) <= bound(nodes(&input)),
        "{} nodes",
        nodes(&out.value)
    );
    let cut: Vec<_> = out
        .losses
        .iter()
        .filter(|l| l.detail.contains("expansion budget"))
        .collect();
    assert!(!cut.is_empty());
    assert!(cut.iter().all(|l| l.path.ends_with("/$ref")), "{cut:?}");
    // What is written is readable: no deeper than serde_json reads.
    let text = wire_types::to_string(&out.value);
    assert!(wire_types::value_from_str(&text).is_ok());
}

#[test]
fn billion_laughs_to_ollama_is_bounded_and_reported() {
    let input = laughs(30);
    let out = adapt(&input, Format::Ollama, &Options::default());
    assert!(
        nodes(&out.value) <= bound(nodes(&input)),
        "{} nodes",
        nodes(&out.value)
    );
    assert!(
        out.losses
            .iter()
            .any(|l| l.detail.contains("expansion budget"))
    );
    assert!(wire_types::value_from_str(&wire_types::to_string(&out.value)).is_ok());
}

#[test]
fn billion_laughs_request_converts_to_gemini_and_reads_back() {
    let body = read("hostile/billion-laughs-30.openai-chat.json");
    let out = convert_request(
        &body,
        Format::OpenaiChat,
        Format::Gemini,
        &Options::default(),
    )
    .unwrap();
    let written = wire_types::value_from_str(&out.value).unwrap();
    let params = &written["tools"][0]["functionDeclarations"][0]["parameters"];
    assert!(
        nodes(params) <= bound(nodes(&laughs(30))),
        "{} nodes",
        nodes(params)
    );
    assert!(wire_types::from_str::<wire_types::gemini::Request>(&out.value).is_ok());
    // With strict on, the cut is an error naming the pointer.
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let err = convert_request(&body, Format::OpenaiChat, Format::Gemini, &strict).unwrap_err();
    let crate::Error::Lossy { losses } = err else {
        panic!("{err}")
    };
    assert!(
        losses
            .iter()
            .any(|l| l.detail.contains("expansion budget") && l.path.starts_with("/tools/0/")),
        "{losses:?}"
    );
    // With parametersJsonSchema the `$ref`s are kept as they are: nothing to expand.
    let json = Options {
        gemini_schema: GeminiSchema::JsonSchema,
        ..Options::default()
    };
    let out = convert_request(&body, Format::OpenaiChat, Format::Gemini, &json).unwrap();
    let written: Value = serde_json::from_str(&out.value).unwrap();
    assert_eq!(
        written["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
        laughs(30)
    );
}

#[test]
fn a_small_budget_cuts_early_and_a_large_one_inlines_everything() {
    let input = laughs(4);
    let opts = Options::default();
    let mut ctx = Ctx::new(Format::Gemini, &opts);
    let full = to_gemini_with(&input, &mut ctx, "", Budget::DEFAULT);
    assert!(ctx.losses().is_empty(), "{:?}", ctx.losses());
    // 2^4 leaves, each a STRING.
    assert_eq!(wire_types::to_string(&full).matches("STRING").count(), 16);
    let mut ctx = Ctx::new(Format::Gemini, &opts);
    let tight = Budget {
        factor: 0,
        slack: 20,
        depth: 64,
    };
    let cut = to_gemini_with(&input, &mut ctx, "", tight);
    assert!(nodes(&cut) < nodes(&full));
    assert!(!ctx.losses().is_empty());
    let mut ctx = Ctx::new(Format::Gemini, &opts);
    let shallow = Budget {
        depth: 4,
        ..Budget::DEFAULT
    };
    let _ = to_gemini_with(&input, &mut ctx, "", shallow);
    assert!(
        ctx.losses()
            .iter()
            .all(|l| l.detail.contains("expansion budget"))
    );
    assert!(!ctx.losses().is_empty());
}

#[test]
fn a_root_ref_is_an_object_schema_and_is_never_wrapped() {
    let s: Value = serde_json::from_str(&read("hostile/root-ref.schema.json")).unwrap();
    assert!(is_object_schema(&s));
    assert_eq!(wrap_non_object(&s), None);
    let resolved = resolve_root_ref(s.clone());
    assert_eq!(resolved["type"], "object");
    assert_eq!(resolved["properties"]["next"]["$ref"], "#/$defs/Args");
    assert!(resolved["$defs"]["Args"].is_object());
    // For every format: an object at the root, no loss for wrapping, no dangling `$ref`.
    for format in Format::CHAT {
        let out = adapt(&s, format, &Options::default());
        assert!(
            !out.losses.iter().any(|l| l.detail.contains("non-object")),
            "{format}: {:?}",
            out.losses
        );
        assert!(
            no_dangling_ref(&out.value, &out.value),
            "{format}: {}",
            out.value
        );
    }
}

#[test]
fn a_root_ref_request_converts_with_an_object_root_everywhere() {
    let body = read("hostile/root-ref.openai-chat.json");
    for to in Format::CHAT {
        let out = convert_request(&body, Format::OpenaiChat, to, &Options::default()).unwrap();
        assert!(
            !out.losses.iter().any(|l| l.detail.contains("non-object")),
            "{to}: {:?}",
            out.losses
        );
    }
    // OpenAI strict mode: the root inlined and closed, its `$ref`s resolvable.
    let opts = Options::default();
    let mut ctx = Ctx::new(Format::OpenaiChat, &opts);
    let s: Value = serde_json::from_str(&read("hostile/root-ref.schema.json")).unwrap();
    let strict = to_openai_strict(&s, &mut ctx, "");
    assert_eq!(strict["type"], "object");
    assert_eq!(strict["additionalProperties"], false);
    assert!(no_dangling_ref(&strict, &strict), "{strict}");
}

#[test]
fn a_wrapped_schema_takes_its_defs_along() {
    let s = json!({"type": "array", "items": {"$ref": "#/$defs/Item"},
                   "$defs": {"Item": {"type": "object", "properties": {"more": {"$ref": "#"}}}}});
    let wrapped = wrap_non_object(&s).unwrap();
    assert_eq!(
        wrapped["properties"]["input"]["items"]["$ref"],
        "#/$defs/Item"
    );
    assert!(wrapped["$defs"]["Item"].is_object());
    // The reference to the old root now points at where it went.
    assert_eq!(
        wrapped["$defs"]["Item"]["properties"]["more"]["$ref"],
        "#/properties/input"
    );
    assert!(no_dangling_ref(&wrapped, &wrapped), "{wrapped}");
}

/// Whether every local `$ref` in `v` resolves as a JSON pointer in `root`.
fn no_dangling_ref(v: &Value, root: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().all(|(k, x)| match (k.as_str(), x) {
            ("$ref", Value::String(r)) => match r.strip_prefix('#') {
                Some(p) => root.pointer(p).is_some(),
                None => true,
            },
            ("enum" | "const" | "default" | "examples", _) => true,
            _ => no_dangling_ref(x, root),
        }),
        Value::Array(a) => a.iter().all(|x| no_dangling_ref(x, root)),
        _ => true,
    }
}

#[test]
fn ollama_writes_a_reference_to_the_root_as_an_open_object_with_a_loss() {
    let opts = crate::Options::default();
    let mut ctx = Ctx::new(wire_types::Format::Ollama, &opts);
    let s = json!({"type": "object", "properties": {"name": {"type": "string"},
                   "children": {"type": "array", "items": {"$ref": "#"}}}});
    let out = to_ollama(&s, &mut ctx, "");
    assert_eq!(
        out["properties"]["children"]["items"],
        json!({"type": "object"})
    );
    let losses = ctx.take_losses();
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].path, "/properties/children/items/$ref");
    assert!(
        losses[0].detail.starts_with("recursive `$ref` #"),
        "{}",
        losses[0]
    );
}
