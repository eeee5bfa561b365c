//! `mcp`: tools, `tools/list` results, `tools/call` params and results survive
//! write → read; and the MCP fixtures, as written back, validate against the MCP SDK's
//! schemas (`fixtures/conformance/mcp.{tools,call-result}.schema.json`). The schema checks
//! sit here because `conformance.rs` only knows request schemas.

use super::*;
use crate::support::{What, written_fixtures};
use wire_types::Format;
use wire_types::mcp::*;

fn annotations() -> impl Strategy<Value = Annotations> {
    (
        maybe(prop::collection::vec(
            prop_oneof![
                Just(Role::User),
                Just(Role::Assistant),
                other_str(Role::KNOWN).prop_map(Role::Other)
            ],
            0..3,
        )),
        maybe(number()),
        maybe(text()),
    )
        .prop_map(|(audience, priority, last_modified)| Annotations {
            audience,
            priority,
            last_modified,
            extra: Extra::new(),
        })
}

fn icon() -> impl Strategy<Value = Icon> {
    (
        text(),
        maybe(text()),
        maybe(prop::collection::vec(text(), 0..2)),
    )
        .prop_map(|(src, mime_type, sizes)| Icon {
            src,
            mime_type,
            sizes,
            ..Default::default()
        })
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        (
            ident(),
            maybe(text()),
            maybe(text()),
            object(),
            maybe(object()),
        ),
        (
            maybe((
                maybe(text()),
                maybe(any::<bool>()),
                maybe(any::<bool>()),
                maybe(any::<bool>()),
                maybe(any::<bool>()),
            )),
            maybe(prop_oneof![
                Just(TaskSupport::Forbidden),
                Just(TaskSupport::Optional),
                Just(TaskSupport::Required),
                other_str(TaskSupport::KNOWN).prop_map(TaskSupport::Other),
            ]),
            maybe(prop::collection::vec(icon(), 0..2)),
            maybe(object()),
            extra(),
        ),
    )
        .prop_map(
            |(
                (name, title, description, input_schema, output_schema),
                (hints, task_support, icons, meta, extra),
            )| Tool {
                name,
                title,
                description,
                input_schema,
                output_schema,
                annotations: hints.map(
                    |(
                        title,
                        read_only_hint,
                        destructive_hint,
                        idempotent_hint,
                        open_world_hint,
                    )| {
                        ToolAnnotations {
                            title,
                            read_only_hint,
                            destructive_hint,
                            idempotent_hint,
                            open_world_hint,
                            extra: Extra::new(),
                        }
                    },
                ),
                execution: task_support.map(|t| ToolExecution {
                    task_support: Some(t),
                    extra: Extra::new(),
                }),
                icons,
                meta,
                extra,
            },
        )
}

fn list() -> impl Strategy<Value = ListToolsResult> {
    (
        prop::collection::vec(tool(), 0..4),
        maybe(text()),
        maybe(object()),
    )
        .prop_map(|(tools, next_cursor, meta)| ListToolsResult {
            tools,
            next_cursor,
            meta,
            extra: Extra::new(),
        })
}

fn call() -> impl Strategy<Value = CallToolParams> {
    (
        ident(),
        maybe(object()),
        maybe(object()),
        maybe(maybe(0u64..1_000_000)),
        extra(),
    )
        .prop_map(|(name, arguments, meta, task, extra)| CallToolParams {
            name,
            arguments,
            meta,
            task: task.map(|ttl| TaskMetadata {
                ttl,
                extra: Extra::new(),
            }),
            extra,
        })
}

fn media() -> impl Strategy<Value = MediaContent> {
    (text(), text(), maybe(annotations()), maybe(object())).prop_map(
        |(data, mime_type, annotations, meta)| MediaContent {
            data,
            mime_type,
            annotations,
            meta,
            extra: Extra::new(),
        },
    )
}

fn block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        (text(), maybe(annotations()), maybe(object()), extra()).prop_map(
            |(text, annotations, meta, extra)| {
                ContentBlock::Text(TextContent {
                    text,
                    annotations,
                    meta,
                    extra,
                })
            }
        ),
        media().prop_map(ContentBlock::Image),
        media().prop_map(ContentBlock::Audio),
        (
            text(),
            text(),
            maybe(text()),
            maybe(text()),
            maybe(0u64..1_000_000)
        )
            .prop_map(
                |(uri, name, title, mime_type, size)| ContentBlock::ResourceLink(ResourceLink {
                    uri,
                    name,
                    title,
                    mime_type,
                    size,
                    ..Default::default()
                })
            ),
        (
            text(),
            maybe(text()),
            prop_oneof![
                text().prop_map(|t| (Some(t), None)),
                text().prop_map(|b| (None, Some(b)))
            ],
            maybe(annotations())
        )
            .prop_map(
                |(uri, mime_type, (text, blob), annotations)| ContentBlock::Resource(
                    EmbeddedResource {
                        resource: ResourceContents {
                            uri,
                            mime_type,
                            text,
                            blob,
                            ..Default::default()
                        },
                        annotations,
                        ..Default::default()
                    }
                )
            ),
        other_tagged("type", ContentBlock::KNOWN).prop_map(ContentBlock::Other),
    ]
}

fn result() -> impl Strategy<Value = CallToolResult> {
    (
        prop::collection::vec(block(), 0..4),
        maybe(object()),
        maybe(any::<bool>()),
        maybe(object()),
        extra(),
    )
        .prop_map(
            |(content, structured_content, is_error, meta, extra)| CallToolResult {
                content,
                structured_content,
                is_error,
                meta,
                extra,
            },
        )
}

identity_properties! {
    tools_list_read_after_write_is_identity => list(),
    call_params_read_after_write_is_identity => call(),
    call_result_read_after_write_is_identity => result(),
}

/// The written-back JSON of every fixture in `fixtures/mcp/<folder>/`.
fn written(folder: &'static str) -> Vec<(String, Value)> {
    written_fixtures(Format::Mcp, folder, What::Mcp(folder), |_| true)
}

#[test]
fn tools_list_fixtures_validate_against_the_sdk_schema() {
    let validator = crate::conformance::validator(Format::Mcp, "tools");
    let lists = written("tools-list");
    assert!(!lists.is_empty());
    for (name, v) in lists {
        let errs = crate::conformance::errors(&validator, &v["tools"]);
        assert!(errs.is_empty(), "{name}: {errs:#?}");
    }
}

#[test]
fn result_fixtures_validate_against_the_sdk_schema() {
    let validator = crate::conformance::validator(Format::Mcp, "call-result");
    let results = written("result");
    assert!(!results.is_empty());
    for (name, v) in results {
        let errs = crate::conformance::errors(&validator, &v);
        assert!(errs.is_empty(), "{name}: {errs:#?}");
    }
}
