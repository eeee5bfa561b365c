//! What the fuzz targets share: the wire shapes a selector byte picks, and the checks
//! every target makes.
//!
//! An input is one selector byte (which shape, see [`SHAPES`]) followed by the body; the
//! convert target takes a second byte for the target format. `seed.sh` writes the
//! fixtures in this layout.
#![forbid(unsafe_code)]

use wire_convert::Format;

/// Which body a selector byte names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A chat request.
    Request,
    /// A chat response.
    Response,
    /// A stream event (one payload).
    StreamEvent,
    /// An error body.
    Error,
    /// MCP: a `tools/list` result, a `tools/call` params or result.
    McpList,
    /// MCP `tools/call` params.
    McpCall,
    /// MCP `tools/call` result.
    McpResult,
}

/// Every (format, body) the targets know, indexed by the selector byte (modulo the
/// length).
pub const SHAPES: &[(Format, Body)] = &[
    (Format::OpenaiChat, Body::Request),
    (Format::OpenaiChat, Body::Response),
    (Format::OpenaiChat, Body::StreamEvent),
    (Format::OpenaiChat, Body::Error),
    (Format::OpenaiResponses, Body::Request),
    (Format::OpenaiResponses, Body::Response),
    (Format::OpenaiResponses, Body::StreamEvent),
    (Format::OpenaiResponses, Body::Error),
    (Format::Anthropic, Body::Request),
    (Format::Anthropic, Body::Response),
    (Format::Anthropic, Body::StreamEvent),
    (Format::Anthropic, Body::Error),
    (Format::Gemini, Body::Request),
    (Format::Gemini, Body::Response),
    (Format::Gemini, Body::StreamEvent),
    (Format::Gemini, Body::Error),
    (Format::Ollama, Body::Request),
    (Format::Ollama, Body::Response),
    (Format::Ollama, Body::StreamEvent),
    (Format::Ollama, Body::Error),
    (Format::Bedrock, Body::Request),
    (Format::Bedrock, Body::Response),
    (Format::Bedrock, Body::StreamEvent),
    (Format::Bedrock, Body::Error),
    (Format::Mistral, Body::Request),
    (Format::Mistral, Body::Response),
    (Format::Mistral, Body::StreamEvent),
    (Format::Mistral, Body::Error),
    (Format::Cohere, Body::Request),
    (Format::Cohere, Body::Response),
    (Format::Cohere, Body::StreamEvent),
    (Format::Cohere, Body::Error),
    (Format::Mcp, Body::McpList),
    (Format::Mcp, Body::McpCall),
    (Format::Mcp, Body::McpResult),
];

/// The shape a selector byte names.
pub fn shape(selector: u8) -> (Format, Body) {
    SHAPES[usize::from(selector) % SHAPES.len()]
}

/// Reads `bytes` as the wire type of `(format, body)`, then, when it reads, writes it
/// and reads that again: the second reading must equal the first, and the written text
/// must be JSON equal to the value written (`check` is called with both readings).
pub fn read_write_read(format: Format, body: Body, bytes: &[u8]) {
    macro_rules! go {
        ($ty:ty) => {{
            let Ok(first) = wire_types::from_slice::<$ty>(bytes) else {
                return;
            };
            let text = wire_types::to_string(&first);
            // `from_slice` again (not `from_str`): one reader per type keeps the build small.
            let second: $ty = match wire_types::from_slice(text.as_bytes()) {
                Ok(v) => v,
                Err(e) => panic!("written text does not read back: {e}\n{text}"),
            };
            assert!(first == second, "read → write → read differs\n{text}");
            let again = wire_types::to_string(&second);
            assert_eq!(text, again, "written twice, two texts");
        }};
    }
    use wire_types as w;
    match (format, body) {
        (Format::OpenaiChat, Body::Request) => go!(w::openai_chat::Request),
        (Format::OpenaiChat, Body::Response) => go!(w::openai_chat::Response),
        (Format::OpenaiChat, Body::StreamEvent) => go!(w::openai_chat::StreamEvent),
        (Format::OpenaiChat, Body::Error) => go!(w::openai_chat::ErrorResponse),
        (Format::OpenaiResponses, Body::Request) => go!(w::openai_responses::Request),
        (Format::OpenaiResponses, Body::Response) => go!(w::openai_responses::Response),
        (Format::OpenaiResponses, Body::StreamEvent) => go!(w::openai_responses::StreamEvent),
        (Format::OpenaiResponses, Body::Error) => go!(w::openai_responses::ErrorResponse),
        (Format::Anthropic, Body::Request) => go!(w::anthropic::Request),
        (Format::Anthropic, Body::Response) => go!(w::anthropic::Response),
        (Format::Anthropic, Body::StreamEvent) => go!(w::anthropic::StreamEvent),
        (Format::Anthropic, Body::Error) => go!(w::anthropic::ErrorResponse),
        (Format::Gemini, Body::Request) => go!(w::gemini::Request),
        (Format::Gemini, Body::Response) => go!(w::gemini::Response),
        (Format::Gemini, Body::StreamEvent) => go!(w::gemini::StreamEvent),
        (Format::Gemini, Body::Error) => go!(w::gemini::ErrorResponse),
        (Format::Ollama, Body::Request) => go!(w::ollama::Request),
        (Format::Ollama, Body::Response) => go!(w::ollama::Response),
        (Format::Ollama, Body::StreamEvent) => go!(w::ollama::StreamEvent),
        (Format::Ollama, Body::Error) => go!(w::ollama::ErrorResponse),
        (Format::Bedrock, Body::Request) => go!(w::bedrock::Request),
        (Format::Bedrock, Body::Response) => go!(w::bedrock::Response),
        (Format::Bedrock, Body::StreamEvent) => go!(w::bedrock::StreamEvent),
        (Format::Bedrock, Body::Error) => go!(w::bedrock::ErrorResponse),
        (Format::Mistral, Body::Request) => go!(w::mistral::Request),
        (Format::Mistral, Body::Response) => go!(w::mistral::Response),
        (Format::Mistral, Body::StreamEvent) => go!(w::mistral::StreamEvent),
        (Format::Mistral, Body::Error) => go!(w::mistral::ErrorResponse),
        (Format::Cohere, Body::Request) => go!(w::cohere::Request),
        (Format::Cohere, Body::Response) => go!(w::cohere::Response),
        (Format::Cohere, Body::StreamEvent) => go!(w::cohere::StreamEvent),
        (Format::Cohere, Body::Error) => go!(w::cohere::ErrorResponse),
        (_, Body::McpList) => go!(w::mcp::ListToolsResult),
        (_, Body::McpCall) => go!(w::mcp::CallToolParams),
        (_, Body::McpResult) => go!(w::mcp::CallToolResult),
        _ => {}
    }
}

/// Reads `bytes` as the wire type of `(format, body)` and hands `ok` whether it read;
/// no panic, whatever the bytes.
pub fn dispatch(format: Format, body: Body, bytes: &[u8], ok: impl FnOnce(bool)) {
    macro_rules! go {
        ($ty:ty) => {
            ok(wire_types::from_slice::<$ty>(bytes).is_ok())
        };
    }
    use wire_types as w;
    match (format, body) {
        (Format::OpenaiChat, Body::Request) => go!(w::openai_chat::Request),
        (Format::OpenaiChat, Body::Response) => go!(w::openai_chat::Response),
        (Format::OpenaiChat, Body::StreamEvent) => go!(w::openai_chat::StreamEvent),
        (Format::OpenaiChat, Body::Error) => go!(w::openai_chat::ErrorResponse),
        (Format::OpenaiResponses, Body::Request) => go!(w::openai_responses::Request),
        (Format::OpenaiResponses, Body::Response) => go!(w::openai_responses::Response),
        (Format::OpenaiResponses, Body::StreamEvent) => go!(w::openai_responses::StreamEvent),
        (Format::OpenaiResponses, Body::Error) => go!(w::openai_responses::ErrorResponse),
        (Format::Anthropic, Body::Request) => go!(w::anthropic::Request),
        (Format::Anthropic, Body::Response) => go!(w::anthropic::Response),
        (Format::Anthropic, Body::StreamEvent) => go!(w::anthropic::StreamEvent),
        (Format::Anthropic, Body::Error) => go!(w::anthropic::ErrorResponse),
        (Format::Gemini, Body::Request) => go!(w::gemini::Request),
        (Format::Gemini, Body::Response) => go!(w::gemini::Response),
        (Format::Gemini, Body::StreamEvent) => go!(w::gemini::StreamEvent),
        (Format::Gemini, Body::Error) => go!(w::gemini::ErrorResponse),
        (Format::Ollama, Body::Request) => go!(w::ollama::Request),
        (Format::Ollama, Body::Response) => go!(w::ollama::Response),
        (Format::Ollama, Body::StreamEvent) => go!(w::ollama::StreamEvent),
        (Format::Ollama, Body::Error) => go!(w::ollama::ErrorResponse),
        (Format::Bedrock, Body::Request) => go!(w::bedrock::Request),
        (Format::Bedrock, Body::Response) => go!(w::bedrock::Response),
        (Format::Bedrock, Body::StreamEvent) => go!(w::bedrock::StreamEvent),
        (Format::Bedrock, Body::Error) => go!(w::bedrock::ErrorResponse),
        (Format::Mistral, Body::Request) => go!(w::mistral::Request),
        (Format::Mistral, Body::Response) => go!(w::mistral::Response),
        (Format::Mistral, Body::StreamEvent) => go!(w::mistral::StreamEvent),
        (Format::Mistral, Body::Error) => go!(w::mistral::ErrorResponse),
        (Format::Cohere, Body::Request) => go!(w::cohere::Request),
        (Format::Cohere, Body::Response) => go!(w::cohere::Response),
        (Format::Cohere, Body::StreamEvent) => go!(w::cohere::StreamEvent),
        (Format::Cohere, Body::Error) => go!(w::cohere::ErrorResponse),
        (_, Body::McpList) => go!(w::mcp::ListToolsResult),
        (_, Body::McpCall) => go!(w::mcp::CallToolParams),
        (_, Body::McpResult) => go!(w::mcp::CallToolResult),
        _ => ok(false),
    }
}
