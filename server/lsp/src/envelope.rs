//! The JSON-RPC 2.0 envelope of an incoming message, checked before the service sees it: what
//! the service could not decode is answered here with an error response and dropped, as
//! JSON-RPC asks (parse error -32700, invalid request -32600, id `null` when it is unknown).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tower_lsp::jsonrpc::{Request, Response};

/// JSON-RPC's code for a body that is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is no request, notification or response.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's code for a request of a method the server does not have.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// A message that passed the checks.
#[derive(Debug)]
pub struct Checked {
    pub kind: Kind,
    /// The message, with `"params": null` removed (the service rejects it; clients that send it
    /// mean "no params").
    pub json: Value,
}

/// What a checked message is.
#[derive(Debug, PartialEq)]
pub enum Kind {
    Request { id: Value, method: String },
    Notification { method: String },
    Response,
}

/// An error response to send instead of passing a message on.
#[derive(Debug, PartialEq, Serialize)]
pub struct Rejection {
    jsonrpc: &'static str,
    pub id: Value,
    pub error: ErrorObject,
}

/// JSON-RPC's error object.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
}

impl Rejection {
    /// An error response to request `id` (`null` when unknown).
    pub fn new(id: Value, code: i64, message: String) -> Rejection {
        Rejection {
            jsonrpc: "2.0",
            id,
            error: ErrorObject { code, message },
        }
    }

    /// The response's JSON text.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// Check one message body.
pub fn check(body: &[u8]) -> Result<Checked, Rejection> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| Rejection::new(Value::Null, PARSE_ERROR, format!("Parse error: {e}")))?;
    let invalid = |id: &Value, why: &str| {
        Rejection::new(
            id.clone(),
            INVALID_REQUEST,
            format!("Invalid request: {why}"),
        )
    };
    let mut obj = match value {
        Value::Object(obj) => obj,
        Value::Array(_) => return Err(invalid(&Value::Null, "batches are not part of LSP")),
        _ => return Err(invalid(&Value::Null, "a message is a JSON object")),
    };
    let id = match obj.get("id") {
        None => None,
        Some(id) if is_id(id) => Some(id.clone()),
        Some(_) => {
            return Err(invalid(
                &Value::Null,
                "`id` must be an integer, a string or null",
            ))
        }
    };
    // Only a request's id is echoed: answering a malformed response with its id would look
    // like an answer to the client's own request with that id.
    let echo = match (&id, obj.get("method")) {
        (Some(id), Some(Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(invalid(&echo, "`jsonrpc` must be \"2.0\""));
    }
    if obj.get("params") == Some(&Value::Null) {
        obj.remove("params");
    }
    let kind = match (obj.get("method"), id) {
        (Some(Value::String(method)), id) => {
            if !matches!(
                obj.get("params"),
                None | Some(Value::Object(_) | Value::Array(_))
            ) {
                return Err(invalid(&echo, "`params` must be an object or an array"));
            }
            match id {
                Some(id) => Kind::Request {
                    id,
                    method: method.clone(),
                },
                None => Kind::Notification {
                    method: method.clone(),
                },
            }
        }
        (Some(_), _) => return Err(invalid(&Value::Null, "`method` must be a string")),
        (None, Some(_)) if is_response(&obj) => Kind::Response,
        (None, _) => {
            return Err(invalid(
                &Value::Null,
                "neither a request (`method`) nor a response (`id` and `result` or `error`)",
            ))
        }
    };
    let json = Value::Object(obj);
    // The service's own decoding is the final word (it must never see what it cannot decode).
    let decodes = match kind {
        Kind::Response => Response::deserialize(&json).is_ok(),
        _ => Request::deserialize(&json).is_ok(),
    };
    if !decodes {
        return Err(invalid(&echo, "a message the server cannot decode"));
    }
    Ok(Checked { kind, json })
}

/// An id the protocol allows: an integer (that fits 64 bits), a string, or `null`.
fn is_id(id: &Value) -> bool {
    match id {
        Value::Number(n) => n.as_i64().is_some(),
        Value::String(_) | Value::Null => true,
        _ => false,
    }
}

/// A response carries exactly one of `result` and a well-formed `error`.
fn is_response(obj: &Map<String, Value>) -> bool {
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) => true,
        (None, Some(error)) => ErrorObject::deserialize(error).is_ok(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rejected(body: &str) -> Value {
        match check(body.as_bytes()) {
            Ok(c) => panic!("accepted {body}: {c:?}"),
            Err(r) => serde_json::to_value(&r).unwrap_or_default(),
        }
    }

    fn error(id: Value, code: i64, message: &str) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        assert_eq!(
            rejected("hello"),
            error(
                Value::Null,
                PARSE_ERROR,
                "Parse error: expected value at line 1 column 1"
            )
        );
        assert_eq!(
            rejected(""),
            error(
                Value::Null,
                PARSE_ERROR,
                "Parse error: EOF while parsing a value at line 1 column 0"
            )
        );
        assert_eq!(
            rejected("{}"),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: `jsonrpc` must be \"2.0\""
            )
        );
        assert_eq!(
            rejected("null"),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: a message is a JSON object"
            )
        );
        assert_eq!(
            rejected("[]"),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: batches are not part of LSP"
            )
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0"}"#),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: neither a request (`method`) nor a response (`id` and `result` or `error`)"
            )
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: `id` must be an integer, a string or null"
            )
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","method":7}"#),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: `method` must be a string"
            )
        );
        // A request's id is known and echoed.
        assert_eq!(
            rejected(r#"{"jsonrpc":"1.0","id":"x","method":"a"}"#),
            error(
                json!("x"),
                INVALID_REQUEST,
                "Invalid request: `jsonrpc` must be \"2.0\""
            )
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":4,"method":"a","params":3}"#),
            error(
                json!(4),
                INVALID_REQUEST,
                "Invalid request: `params` must be an object or an array"
            )
        );
        // A response whose error is no error object.
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":4,"error":"no"}"#),
            error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: neither a request (`method`) nor a response (`id` and `result` or `error`)"
            )
        );
    }

    #[test]
    fn requests_notifications_and_responses_pass() {
        let c = check(br#"{"jsonrpc":"2.0","id":3,"method":"shutdown","params":null}"#).unwrap();
        assert_eq!(
            c.kind,
            Kind::Request {
                id: json!(3),
                method: "shutdown".into()
            }
        );
        assert_eq!(
            c.json,
            json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" })
        );
        let c = check(br#"{"jsonrpc":"2.0","method":"exit"}"#).unwrap();
        assert_eq!(
            c.kind,
            Kind::Notification {
                method: "exit".into()
            }
        );
        let c = check(br#"{"jsonrpc":"2.0","id":"s1","result":null}"#).unwrap();
        assert_eq!(c.kind, Kind::Response);
        let c = check(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}"#).unwrap();
        assert_eq!(c.kind, Kind::Response);
    }
}
