//! JSON-RPC 2.0 as MCP uses it: reading one message, writing responses, errors and
//! notifications as JSON text.
//!
//! MCP narrows JSON-RPC: a request id is a string or a number, never `null`; `params` is
//! an object; batches (arrays) were removed in protocol version 2025-06-18. The envelope
//! is not modeled in wire-types (which has the `params` and `result` members), so it is
//! read here from a `serde_json::Value`.

use serde_json::{Map, Value, json};

/// JSON-RPC's parse error: the text is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request: JSON, but not a request MCP accepts (a batch, a wrong
/// `jsonrpc`, an id that is not a string or number, a request before `initialize`).
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's method not found.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's invalid params (an unknown tool, a bad cursor, a missing field).
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC internal error (the server could not write its answer).
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// A request id: a string or a number, kept as it arrived so that it is echoed exactly
/// (`1` and `"1"` are two different ids).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// A string id.
    String(String),
    /// A number id, as its JSON text (`7`, `-1`, `2.5`).
    Number(String),
}

impl RequestId {
    /// The id of a JSON value, when it is a string or a number.
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => Some(RequestId::Number(n.to_string())),
            _ => None,
        }
    }

    /// The id as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::String(s) => Value::String(s.clone()),
            RequestId::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n.to_string())
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl std::fmt::Display for RequestId {
    /// The id as JSON text (`7`, `"abc"`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::String(s) => write!(f, "{}", Value::String(s.clone())),
            RequestId::Number(n) => f.write_str(n),
        }
    }
}

/// One message read: what kind it is.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request: it gets exactly one response.
    Request {
        id: RequestId,
        method: String,
        params: Map<String, Value>,
    },
    /// A notification: no response, ever.
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// A response to a request of ours (the server core sends none, so it is ignored).
    Response,
}

/// Why a message could not be read: the code, the message, and the id when one could
/// be read (errors about a message whose id is unknown carry `null`).
#[derive(Debug, PartialEq)]
pub(crate) struct Refusal {
    pub(crate) id: Option<RequestId>,
    pub(crate) code: i64,
    pub(crate) message: String,
}

/// Reads one message. `None` in the refusal's id means the id could not be read.
pub(crate) fn read(text: &str) -> Result<Incoming, Refusal> {
    let refuse = |id: Option<RequestId>, code, message: String| Refusal { id, code, message };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| refuse(None, PARSE_ERROR, format!("parse error: {e}")))?;
    let mut object = match value {
        Value::Object(o) => o,
        Value::Array(_) => {
            return Err(refuse(
                None,
                INVALID_REQUEST,
                "invalid request: batches are not supported (JSON-RPC batching was removed from MCP in 2025-06-18); send one message at a time".into(),
            ));
        }
        other => {
            return Err(refuse(
                None,
                INVALID_REQUEST,
                format!(
                    "invalid request: expected a JSON-RPC object, found {}",
                    kind(&other)
                ),
            ));
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(v) => match RequestId::from_value(v) {
            Some(id) => Some(id),
            None => {
                return Err(refuse(
                    None,
                    INVALID_REQUEST,
                    format!(
                        "invalid request: /id: expected a string or a number, found {}",
                        kind(v)
                    ),
                ));
            }
        },
    };
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => {
            return Err(refuse(
                id,
                INVALID_REQUEST,
                format!("invalid request: /jsonrpc: expected \"2.0\", found {other}"),
            ));
        }
        None => {
            return Err(refuse(
                id,
                INVALID_REQUEST,
                "invalid request: /jsonrpc: missing field (expected \"2.0\")".into(),
            ));
        }
    }
    let method = match object.remove("method") {
        Some(Value::String(m)) => m,
        Some(other) => {
            return Err(refuse(
                id,
                INVALID_REQUEST,
                format!(
                    "invalid request: /method: expected a string, found {}",
                    kind(&other)
                ),
            ));
        }
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            return Ok(Incoming::Response);
        }
        None => {
            return Err(refuse(
                id,
                INVALID_REQUEST,
                "invalid request: /method: missing field".into(),
            ));
        }
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(other) => {
            return Err(refuse(
                id,
                INVALID_PARAMS,
                format!(
                    "invalid params: /params: expected an object, found {}",
                    kind(&other)
                ),
            ));
        }
    };
    Ok(match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    })
}

/// A JSON type's name, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A success response.
pub(crate) fn result(id: &RequestId, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result}).to_string()
}

/// An error response (`id` `None` is written as `null`).
pub(crate) fn error(id: Option<&RequestId>, code: i64, message: &str) -> String {
    let id = id.map_or(Value::Null, RequestId::to_value);
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// A request.
pub(crate) fn request(id: &RequestId, method: &str, params: Option<Value>) -> String {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), "2.0".into());
    m.insert("id".into(), id.to_value());
    m.insert("method".into(), method.into());
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m).to_string()
}

/// A notification.
pub(crate) fn notification(method: &str, params: Option<Value>) -> String {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), "2.0".into());
    m.insert("method".into(), method.into());
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_keep_their_type_and_are_echoed_exactly() {
        let n = RequestId::from_value(&json!(7)).unwrap();
        let s = RequestId::from_value(&json!("7")).unwrap();
        assert_ne!(n, s);
        assert_eq!(
            result(&n, json!({})),
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );
        assert_eq!(
            result(&s, json!({})),
            r#"{"jsonrpc":"2.0","id":"7","result":{}}"#
        );
        assert_eq!(n.to_string(), "7");
        assert_eq!(s.to_string(), "\"7\"");
        assert_eq!(RequestId::from_value(&json!(null)), None);
    }

    #[test]
    fn each_kind_of_bad_message_is_refused_with_its_code_and_the_id_when_readable() {
        let code = |t: &str| read(t).map(|_| ()).unwrap_err();
        assert_eq!(code("{").code, PARSE_ERROR);
        assert_eq!(code("[]").code, INVALID_REQUEST);
        assert_eq!(code("3").code, INVALID_REQUEST);
        let r = code(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#);
        assert_eq!((r.code, r.id), (INVALID_REQUEST, Some("a".into())));
        let r = code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!((r.code, r.id), (INVALID_REQUEST, None));
        let r = code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#);
        assert_eq!((r.code, r.id), (INVALID_PARAMS, Some(1.into())));
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Incoming::Response)
        ));
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Incoming::Notification { .. })
        ));
    }
}
