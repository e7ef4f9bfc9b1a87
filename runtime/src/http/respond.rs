//! How the HTTP edge answers: JSON-RPC replies with the status their error maps to, and the
//! typed refusals of the edge's checks, each rendering its own status, headers and JSON-RPC
//! error.

use crate::wire::Reply;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use oxmcp_schema::error_codes;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) use crate::server::QUOTA_EXCEEDED;

/// A JSON body with this status.
pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// The response carrying `reply`, with the HTTP status its error code maps to.
pub(crate) fn reply_response(reply: &Reply) -> Response {
    let code = reply.error_code();
    let mut response = json_response(status_for(code), reply.to_json());
    if code == Some(QUOTA_EXCEEDED) {
        let seconds = reply
            .to_value()
            .pointer("/error/data/retryAfterMs")
            .and_then(Value::as_u64)
            .map_or(1, |ms| ms.div_ceil(1000).max(1));
        if let Ok(v) = HeaderValue::from_str(&seconds.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
    }
    response
}

/// The HTTP status for a reply with this JSON-RPC error code (none for a result).
pub(crate) fn status_for(code: Option<i64>) -> StatusCode {
    use error_codes::*;
    match code {
        Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            PARSE_ERROR
            | INVALID_REQUEST
            | INVALID_PARAMS
            | HEADER_MISMATCH
            | MISSING_REQUIRED_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(QUOTA_EXCEEDED) => StatusCode::TOO_MANY_REQUESTS,
        _ => StatusCode::OK,
    }
}

/// Why the edge refused a request before it reached a session, a stream or a handler.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// No `Host` header, or more than one (400).
    BadHost(&'static str),
    /// An MCP header given more than once (400), by its name.
    Repeated(String),
    /// A `Host` or `Origin` that is malformed or not allowed (403).
    NotAllowed(&'static str),
    /// No valid bearer token (401, with the challenge).
    #[cfg(feature = "auth")]
    Unauthorized { challenge: Option<String> },
    /// A token without the scopes the request needs (403, with the challenge).
    InsufficientScope {
        id: Value,
        scopes: String,
        challenge: Option<String>,
    },
    /// A declared or received body over the limit (413).
    TooLarge(usize),
    /// A body with more JSON values than the limit (413).
    TooManyValues(usize),
    /// A body nested deeper than any parse reads (400, -32700: a parse error, as a smaller
    /// body of the same depth gets from the parser itself).
    TooDeep,
    /// A body that did not arrive in time (408, the connection closed).
    BodyTooSlow,
    /// A body that could not be read (400).
    BodyUnreadable,
    /// The caller is over one of its quotas (429, `Retry-After`).
    Quota {
        what: &'static str,
        retry_after: Duration,
    },
    /// The server is over a shared limit (503, `Retry-After`).
    Full {
        what: &'static str,
        retry_after: Duration,
    },
    /// A 2025-era request without its session (400).
    NoSession,
    /// A session that is unknown, expired or not the caller's (404).
    UnknownSession,
    /// A request in a session whose `MCP-Protocol-Version` is not the session's (400).
    SessionVersion { sent: String, session: String },
    /// A JSON-RPC batch (400): batching was removed in 2025-06-18.
    Batch,
    /// A body that is no JSON-RPC request, notification or response (400).
    NotAMessage,
    /// A request whose id names a request of the session still in flight (400).
    IdInFlight(Value),
    /// GET or DELETE without a session (405).
    MethodNotAllowed,
}

/// A JSON-RPC error body.
fn error_body(id: &Value, code: i64, message: &str, data: Option<Value>) -> String {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()
}

fn with_header(mut response: Response, name: header::HeaderName, value: &str) -> Response {
    if let Ok(v) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, v);
    }
    response
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let null = Value::Null;
        let invalid = |status: StatusCode, message: &str| {
            json_response(
                status,
                error_body(&null, error_codes::INVALID_REQUEST, message, None),
            )
        };
        match self {
            Refusal::BadHost(why) => invalid(StatusCode::BAD_REQUEST, why),
            Refusal::Repeated(name) => invalid(
                StatusCode::BAD_REQUEST,
                &format!("the {name} header is given more than once; send it once"),
            ),
            Refusal::NotAllowed(which) => {
                invalid(StatusCode::FORBIDDEN, &format!("{which} not allowed"))
            }
            #[cfg(feature = "auth")]
            Refusal::Unauthorized { challenge } => {
                let response = invalid(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized: a valid bearer token is required",
                );
                match challenge {
                    Some(c) => with_header(response, header::WWW_AUTHENTICATE, &c),
                    None => response,
                }
            }
            Refusal::InsufficientScope {
                id,
                scopes,
                challenge,
            } => {
                let message = format!("insufficient scope: this request needs {scopes}");
                let response = json_response(
                    StatusCode::FORBIDDEN,
                    error_body(&id, error_codes::INVALID_REQUEST, &message, None),
                );
                match challenge {
                    Some(c) => with_header(response, header::WWW_AUTHENTICATE, &c),
                    None => response,
                }
            }
            Refusal::TooLarge(limit) => invalid(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body over {limit} bytes"),
            ),
            Refusal::TooManyValues(limit) => invalid(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body with more than {limit} JSON values"),
            ),
            Refusal::TooDeep => json_response(
                StatusCode::BAD_REQUEST,
                error_body(
                    &null,
                    error_codes::PARSE_ERROR,
                    &format!(
                        "parse error: arrays and objects nested deeper than {}",
                        crate::wire::MAX_JSON_DEPTH
                    ),
                    None,
                ),
            ),
            Refusal::BodyTooSlow => with_header(
                invalid(StatusCode::REQUEST_TIMEOUT, "request body too slow"),
                header::CONNECTION,
                "close",
            ),
            Refusal::BodyUnreadable => invalid(StatusCode::BAD_REQUEST, "request body not read"),
            Refusal::Quota { what, retry_after } => {
                let ms = retry_after.as_millis() as u64;
                let body = error_body(
                    &null,
                    QUOTA_EXCEEDED,
                    &format!("too many {what} for this caller; try again later"),
                    Some(json!({"retryAfterMs": ms})),
                );
                let seconds = retry_after.as_secs().max(1).to_string();
                with_header(
                    json_response(StatusCode::TOO_MANY_REQUESTS, body),
                    header::RETRY_AFTER,
                    &seconds,
                )
            }
            Refusal::Full { what, retry_after } => {
                let seconds = retry_after.as_secs().max(1).to_string();
                with_header(
                    invalid(
                        StatusCode::SERVICE_UNAVAILABLE,
                        &format!("too many {what}; try again later"),
                    ),
                    header::RETRY_AFTER,
                    &seconds,
                )
            }
            Refusal::NoSession => invalid(
                StatusCode::BAD_REQUEST,
                "missing Mcp-Session-Id: initialize first",
            ),
            Refusal::UnknownSession => invalid(
                StatusCode::NOT_FOUND,
                "unknown or expired session; initialize again",
            ),
            Refusal::SessionVersion { sent, session } => invalid(
                StatusCode::BAD_REQUEST,
                &format!("MCP-Protocol-Version `{sent}` is not this session's version `{session}`"),
            ),
            Refusal::Batch => invalid(
                StatusCode::BAD_REQUEST,
                "JSON-RPC batches are not supported: send one message per request",
            ),
            Refusal::NotAMessage => invalid(
                StatusCode::BAD_REQUEST,
                "invalid request: not a JSON-RPC request, notification or response",
            ),
            Refusal::IdInFlight(id) => json_response(
                StatusCode::BAD_REQUEST,
                error_body(
                    &id,
                    error_codes::INVALID_REQUEST,
                    "invalid request: a request with this id is still in flight",
                    None,
                ),
            ),
            Refusal::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                [(header::ALLOW, HeaderValue::from_static("POST"))],
                "this MCP endpoint takes POST only (2026-07-28 has no GET stream)",
            )
                .into_response(),
        }
    }
}
