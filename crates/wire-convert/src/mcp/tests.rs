use super::F;
use super::decode::{decode_call, decode_result};
use super::encode::{encode_call, encode_result};
use super::tools::{ToolsPage, decode_tools_list, encode_tools_list};
use crate::model::{
    self, Arguments, Cache, Json, Media, Message, Part, PartMeta, Reasoning, Role, Signed, Source,
    Text, Tool, ToolCall, ToolDef, ToolResult,
};
use crate::{Ctx, LossCode, LossKind, Options};
use serde_json::{Value, json};
use wire_types::Format;
use wire_types::mcp as w;

fn ctx(opts: &Options) -> Ctx<'_> {
    Ctx::new(F, opts)
}

fn read<T: serde::de::DeserializeOwned>(text: &str) -> (T, Value) {
    let v: Value = serde_json::from_str(text).unwrap();
    (wire_types::from_value(&v).unwrap(), v)
}

/// Schema errors of an MCP value (`tools`: the `tools` array; else a call result).
fn conformance(tools: bool, value: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(if tools {
        include_str!("../../../../fixtures/conformance/mcp.tools.schema.json")
    } else {
        include_str!("../../../../fixtures/conformance/mcp.call-result.schema.json")
    })
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    v.iter_errors(value).map(|e| e.to_string()).collect()
}

const RESULTS: [&str; 4] = [
    include_str!("../../../../fixtures/mcp/result/handmade-text.json"),
    include_str!("../../../../fixtures/mcp/result/handmade-structured.json"),
    include_str!("../../../../fixtures/mcp/result/handmade-error.json"),
    include_str!("../../../../fixtures/mcp/result/handmade-mixed-content.json"),
];

#[test]
fn tools_list_round_trips_exactly() {
    let opts = Options::default();
    let (list, json) = read::<w::ListToolsResult>(include_str!(
        "../../../../fixtures/mcp/tools-list/handmade-two-tools.json"
    ));
    let mut c = ctx(&opts);
    let page = decode_tools_list(list, &mut c).unwrap();
    let Tool::Function(weather) = &page.tools[0] else {
        panic!("a function tool")
    };
    assert_eq!(weather.name, "get_weather");
    assert_eq!(
        weather.output_schema.as_ref().unwrap()["required"][2],
        "humidity"
    );
    assert_eq!(
        weather.vendor.fields["title"],
        "Weather Information Provider"
    );
    assert_eq!(weather.vendor.fields["annotations"]["readOnlyHint"], true);
    assert_eq!(page.next_cursor.as_deref(), Some("eyJwYWdlIjoyfQ=="));
    let (back, names) = encode_tools_list(page, &mut c);
    assert!(names.is_empty());
    assert!(c.losses().is_empty(), "{:?}", c.losses());
    assert_eq!(wire_types::to_value(&back), json);
    assert_eq!(conformance(true, &json["tools"]), Vec::<String>::new());
}

#[test]
fn results_round_trip_exactly() {
    let opts = Options::default();
    for text in RESULTS {
        let (r, json) = read::<w::CallToolResult>(text);
        let mut c = ctx(&opts);
        let n = decode_result(r, "call_1", Some("get_weather"), &mut c).unwrap();
        let back = encode_result(n, &mut c);
        assert!(c.losses().is_empty(), "{:?}", c.losses());
        assert_eq!(wire_types::to_value(&back), json);
        assert_eq!(conformance(false, &json), Vec::<String>::new());
    }
}

#[test]
fn calls_round_trip_exactly() {
    let opts = Options::default();
    for text in [
        include_str!("../../../../fixtures/mcp/call/handmade-get-weather.json"),
        include_str!("../../../../fixtures/mcp/call/handmade-task.json"),
    ] {
        let (p, json) = read::<w::CallToolParams>(text);
        let mut c = ctx(&opts);
        let call = decode_call(p, "7", &mut c).unwrap();
        assert_eq!(call.id, "7");
        let back = encode_call(call, &mut c);
        assert!(c.losses().is_empty());
        assert_eq!(wire_types::to_value(&back), json);
    }
}

#[test]
fn result_blocks_decode_to_the_expected_parts() {
    let opts = Options::default();
    let (r, _) = read::<w::CallToolResult>(RESULTS[3]);
    let n = decode_result(r, "c", None, &mut ctx(&opts)).unwrap();
    let kinds: Vec<(&str, Option<&str>)> = n
        .content
        .iter()
        .map(|p| {
            let name = match p {
                Part::Image(m) | Part::Audio(m) | Part::Document(m) => m.name.as_deref(),
                _ => None,
            };
            (p.kind(), name)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("text", None),
            ("image", None),
            ("document", Some("nyc-7day.csv")),
            ("document", Some("file:///project/forecast/summary.md")),
            ("image", Some("file:///project/forecast/radar.gif")),
            ("audio", None),
            ("document", Some("file:///project/src/main.rs")),
        ]
    );
    let (r, _) = read::<w::CallToolResult>(RESULTS[1]);
    let n = decode_result(r, "c", None, &mut ctx(&opts)).unwrap();
    assert!(matches!(&n.content[1], Part::Json(j) if j.value["humidity"] == 65));
    let (r, _) = read::<w::CallToolResult>(RESULTS[2]);
    assert!(
        decode_result(r, "c", None, &mut ctx(&opts))
            .unwrap()
            .is_error
    );
}

#[test]
fn a_neutral_result_is_written_as_mcp() {
    let opts = Options::default();
    let mut c = ctx(&opts);
    let r = ToolResult {
        call_id: "call_1".into(),
        name: Some("report".into()),
        content: vec![
            Part::Json(Json {
                value: json!({"ok": false}),
                meta: PartMeta::default(),
            }),
            Part::Json(Json {
                value: json!([1, 2]),
                meta: PartMeta::default(),
            }),
            Part::Image(Media {
                source: Source::Base64 {
                    data: "iVBORw0KGgoAAAANSUhEUg==".into(),
                },
                media_type: None,
                name: None,
                meta: PartMeta::default(),
            }),
            Part::Image(Media {
                source: Source::Url {
                    url: "https://example.com/a/chart.png".into(),
                },
                media_type: Some("image/png".into()),
                name: None,
                meta: PartMeta::default(),
            }),
            Part::Document(Media {
                source: Source::Base64 {
                    data: "JVBERi0xLjQK".into(),
                },
                media_type: Some("application/pdf".into()),
                name: Some("report.pdf".into()),
                meta: PartMeta::default(),
            }),
            Part::Document(Media {
                source: Source::Text {
                    text: "plain notes".into(),
                },
                media_type: None,
                name: None,
                meta: PartMeta::default(),
            }),
        ],
        is_error: true,
        meta: PartMeta::default(),
    };
    let out = wire_types::to_value(&encode_result(r, &mut c));
    assert_eq!(
        out,
        json!({
            "content": [
                {"type": "text", "text": "{\"ok\":false}"},
                {"type": "text", "text": "[1,2]"},
                {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "https://example.com/a/chart.png", "name": "chart.png", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "attachment:report.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjQK"}},
                {"type": "resource", "resource": {"uri": "attachment:document-5", "text": "plain notes"}}
            ],
            "structuredContent": {"ok": false},
            "isError": true
        })
    );
    assert_eq!(conformance(false, &out), Vec::<String>::new());
    let paths: Vec<&str> = c.losses().iter().map(|l| l.path.as_str()).collect();
    assert_eq!(paths, ["/content/1", "/content/3"]);
}

#[test]
fn tools_from_other_formats_are_made_valid() {
    let opts = Options::default();
    let mut c = ctx(&opts);
    let mut odd = ToolDef::new("get weather!", "Weather", json!({"type": "array"}));
    odd.strict = Some(true);
    let mut open = ToolDef::new(
        "get_weather_",
        "Same name once fixed",
        json!({"properties": {"x": {"type": "string"}}}),
    );
    open.vendor
        .set_field(Format::OpenaiChat, "x-extra", json!(1));
    let bare = ToolDef {
        input_schema: None,
        ..ToolDef::new("now", "Current time", Value::Null)
    };
    let page = ToolsPage {
        tools: vec![
            Tool::Function(open),
            Tool::Function(odd),
            Tool::Function(bare),
        ],
        ..Default::default()
    };
    let (list, names) = encode_tools_list(page, &mut c);
    let out = wire_types::to_value(&list);
    assert_eq!(
        out,
        json!({"tools": [
            {"name": "get_weather_", "description": "Same name once fixed", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
            {"name": "get_weather__86c76ab7", "description": "Weather", "inputSchema": {"type": "object", "properties": {"input": {"type": "array"}}, "required": ["input"]}},
            {"name": "now", "description": "Current time", "inputSchema": {"type": "object"}}
        ]})
    );
    assert_eq!(conformance(true, &out["tools"]), Vec::<String>::new());
    let paths: Vec<&str> = c.losses().iter().map(|l| l.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/tools/0/x-extra",
            "/tools/0/input_schema/type",
            "/tools/1/name",
            "/tools/1/input_schema",
            "/tools/1/strict",
        ]
    );
    // The returned map restores the client's names.
    assert_eq!(names.reverse("get_weather__86c76ab7"), "get weather!");
    assert_eq!(names.reverse("get_weather_"), "get_weather_");
    let rule = crate::NameRule::of(crate::Format::Mcp);
    let long = "x".repeat(200);
    let map = crate::NameMap::build(rule, [long.as_str(), ""]);
    assert_eq!(map.get(&long).len(), 128);
    assert_eq!(map.get(""), "tool");
}

#[test]
fn mcp_tools_and_results_travel_to_bedrock() {
    let opts = Options::default();
    let (list, _) = read::<w::ListToolsResult>(include_str!(
        "../../../../fixtures/mcp/tools-list/handmade-two-tools.json"
    ));
    let page = decode_tools_list(list, &mut ctx(&opts)).unwrap();
    let (r, _) = read::<w::CallToolResult>(RESULTS[1]);
    let result = decode_result(r, "call_1", Some("get_weather"), &mut ctx(&opts)).unwrap();
    let req = model::Request {
        messages: vec![
            Message::text(Role::User, "Weather in New York?"),
            Message::new(
                Role::Assistant,
                vec![Part::ToolCall(ToolCall {
                    id: "call_1".into(),
                    synthetic_id: false,
                    name: "get_weather".into(),
                    arguments: Arguments::Value(json!({"location": "New York"})),
                    meta: PartMeta::default(),
                })],
            ),
            Message::new(Role::Tool, vec![Part::ToolResult(result)]),
        ],
        tools: page.tools,
        ..Default::default()
    };
    let out = crate::encode_request_value(req, Format::Bedrock, &opts).unwrap();
    let b = out.value;
    assert_eq!(
        b["messages"][2]["content"][0]["toolResult"]["content"][1],
        json!({"json": {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}})
    );
    // Bedrock takes no `.` in a tool name: rewritten by its `NameRule`, in the name map.
    assert_eq!(
        b["toolConfig"]["tools"][1]["toolSpec"]["name"],
        "files_delete"
    );
    assert_eq!(out.names.reverse("files_delete"), "files.delete");
    // MCP-only tool fields are reported, each at its place.
    let paths: Vec<&str> = out.losses.iter().map(|l| l.path.as_str()).collect();
    assert!(paths.contains(&"/tools/0/title"));
    assert!(paths.contains(&"/tools/0/output_schema"));
    assert!(paths.contains(&"/tools/1/execution"));
    assert!(
        out.losses
            .iter()
            .any(|l| l.path == "/tools/1" && l.code == LossCode::NameRewritten)
    );
}

/// Each loss as (path, kind, code).
fn coded(losses: &[crate::Loss]) -> Vec<(&str, LossKind, LossCode)> {
    losses
        .iter()
        .map(|l| (l.path.as_str(), l.kind, l.code))
        .collect()
}

#[test]
fn each_tool_loss_has_the_code_of_what_it_is_about() {
    let opts = Options::default();
    let mut c = ctx(&opts);
    let odd = ToolDef {
        output_schema: Some(json!({"type": "string"})),
        strict: Some(true),
        cache: Some(Cache::default()),
        ..ToolDef::new("get weather", "Weather", json!({"type": "array"}))
    };
    let open = ToolDef {
        output_schema: Some(json!({"properties": {}})),
        ..ToolDef::new("now", "Now", json!({"properties": {}}))
    };
    let page = ToolsPage {
        tools: vec![Tool::Function(odd), Tool::Function(open)],
        ..Default::default()
    };
    encode_tools_list(page, &mut c);
    use LossCode::*;
    use LossKind::*;
    assert_eq!(
        coded(c.losses()),
        [
            ("/tools/0/name", Changed, NameRewritten),
            ("/tools/0/input_schema", Changed, SchemaChanged),
            ("/tools/0/output_schema", Dropped, SchemaChanged),
            ("/tools/0/strict", Dropped, FieldUnsupported),
            ("/tools/0/cache", Dropped, CacheUnsupported),
            ("/tools/1/input_schema/type", Changed, SchemaChanged),
            ("/tools/1/output_schema/type", Changed, SchemaChanged),
        ]
    );
}

#[test]
fn each_result_loss_has_the_code_of_what_it_is_about() {
    let opts = Options::default();
    let mut c = ctx(&opts);
    let media = |source, media_type: Option<&str>, name: Option<&str>| Media {
        source,
        media_type: media_type.map(str::to_owned),
        name: name.map(str::to_owned),
        meta: PartMeta::default(),
    };
    let signed = |format| {
        Part::Text(Text {
            text: "t".into(),
            meta: PartMeta {
                signature: Some(Signed {
                    value: "sig".into(),
                    format,
                }),
                ..Default::default()
            },
        })
    };
    let r = ToolResult {
        call_id: "c1".into(),
        name: None,
        content: vec![
            Part::Refusal(Text {
                text: "no".into(),
                meta: PartMeta::default(),
            }),
            Part::Json(Json {
                value: json!([1]),
                meta: PartMeta::default(),
            }),
            // Bytes of no known kind, without a media type, and a name.
            Part::Image(media(
                Source::Base64 {
                    data: "AAAA".into(),
                },
                None,
                Some("a.bin"),
            )),
            Part::Audio(media(
                Source::Url {
                    url: "https://x.org/a.wav".into(),
                },
                Some("audio/wav"),
                None,
            )),
            Part::Document(media(
                Source::FileId {
                    file_id: "file-1".into(),
                },
                None,
                None,
            )),
            Part::Reasoning(Reasoning {
                text: Some("hm".into()),
                ..Default::default()
            }),
            // A signature MCP would have made has no place in a result either.
            signed(Format::Mcp),
            signed(Format::Gemini),
            Part::Text(Text {
                text: "cached".into(),
                meta: PartMeta {
                    cache: Some(Cache::default()),
                    ..Default::default()
                },
            }),
        ],
        is_error: false,
        meta: PartMeta::default(),
    };
    encode_result(r, &mut c);
    use LossCode::*;
    use LossKind::*;
    assert_eq!(
        coded(c.losses()),
        [
            ("/content/0", Changed, PartAsText),
            ("/content/1", Changed, PartAsText),
            ("/content/2/media_type", Changed, PartChanged),
            ("/content/2/name", Dropped, PartChanged),
            ("/content/3", Changed, PartChanged),
            ("/content/4", Dropped, PartUnsupported),
            ("/content/5", Dropped, ReasoningDropped),
            ("/content/6/signature", Dropped, PartChanged),
            ("/content/7/signature", Dropped, SignatureForeign),
            ("/content/8/cache", Dropped, CacheUnsupported),
        ]
    );
}
