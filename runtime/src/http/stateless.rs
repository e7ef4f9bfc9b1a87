//! The stateless (2026-07-28) POST: the MCP headers checked against the body (400, -32020),
//! the caller's scopes for a `tools/call` (403), then the server core, answered as JSON or, when
//! the handler sends notifications, as an SSE stream ending with the response. What the 2026
//! read cannot take may be 2025-era: an `initialize` opens a session.

use super::config::Core;
use super::edge::{header_str, insufficient_scope, Caller, METHOD, NAME, PROTOCOL_VERSION};
use super::quota::InFlight;
use super::respond::reply_response;
use super::session::Sessions;
use crate::http::sse::{counted, event_stream, AbortOnDrop};
use crate::server::Server;
use crate::wire::param::{decode_param, param_text};
use crate::wire::{
    name_field, request_head, request_id, request_meta, Incoming, Notifier, Reply, RequestHead,
};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use oxmcp_schema::{CallToolRequest, ClientRequest, Error};
use std::sync::Arc;

/// One stateless POST from `caller`, its body already read within the limits.
pub(crate) async fn post(
    app: Arc<Core>,
    sessions: &Arc<Sessions>,
    headers: HeaderMap,
    body: &[u8],
    caller: Caller,
    in_flight: Option<InFlight>,
) -> Response {
    // What the stateless path cannot read may be 2025-era: an `initialize`, or a request that
    // needs its session. A POST without a 2026 version header is looked at as such before the
    // 2026 read (a 2026 body is never taken for a 2025 one), so a 2025 client's
    // `initialize` is read once; one with it, only when the 2026 read refuses it.
    let version = header_str(&headers, &PROTOCOL_VERSION);
    let session_header = version.is_none_or(|v| crate::SESSION_VERSIONS.contains(&v));
    let read = (!session_header).then(|| app.server.read(body));
    if read
        .as_ref()
        .is_none_or(|incoming| matches!(incoming, Incoming::Rejected(_)))
    {
        let answered = sessions.post_without_session(&app, version, body, &caller);
        if let Some(response) = answered {
            return response;
        }
    }
    let incoming = read.unwrap_or_else(|| app.server.read(body));
    if let Err(refused) = check_request(&app.server, &headers, &incoming) {
        return reply_response(&refused);
    }
    if let Incoming::Request(request) = &incoming {
        if let ClientRequest::CallToolRequest(call) = &**request {
            let needed = app
                .server
                .tool_scopes(&call.params.name, caller.principal.as_ref());
            if !needed.is_empty() && app.authenticates() && !caller.has_scopes(needed) {
                let id = serde_json::to_value(request_id(request)).unwrap_or_default();
                return insufficient_scope(&app, id, needed).into_response();
            }
        }
    }
    let principal = caller.principal;
    if let Incoming::Request(request) = &incoming {
        let wants_stream = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/event-stream"));
        let meta = request_meta(request);
        let may_notify = meta.progress_token.is_some() || meta.log_level.is_some();
        let listen = matches!(**request, ClientRequest::SubscriptionsListenRequest(_));
        if let Some(refused) = crate::transport::listen_refused(request, &app.config.limits) {
            return reply_response(&refused);
        }
        if listen && app.config.buffered {
            return reply_response(&Reply::error(
                Some(request_id(request).clone()),
                Error::new(
                    oxmcp_schema::error_codes::METHOD_NOT_FOUND,
                    "subscriptions/listen is not served here: this host returns responses whole, and a subscription stream never ends",
                ),
            ));
        }
        if listen || (wants_stream && may_notify) {
            let via = crate::wire::Via::http(&headers);
            return Box::pin(stream_response(app, incoming, principal, in_flight, via)).await;
        }
    }
    let via = crate::wire::Via::http(&headers);
    match app
        .server
        .handle_via(incoming, principal.as_ref(), None, via)
        .await
    {
        Some(reply) => reply_response(&reply),
        // Notifications and responses: accepted, nothing to say.
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// Check the `Mcp-Param-*` headers of a `tools/call` against its arguments.
fn check_param_headers(
    server: &Server,
    headers: &HeaderMap,
    call: &CallToolRequest,
) -> Result<(), String> {
    let args = call.params.arguments.as_ref();
    for (arg, header) in server.header_params(&call.params.name).iter() {
        let name = format!("mcp-param-{}", header.to_ascii_lowercase());
        let body_value = args.and_then(|a| a.get(arg)).map(param_text);
        match (header_str(headers, &name), body_value) {
            (None, Some(_)) => return Err(format!("missing Mcp-Param-{header} header")),
            (Some(raw), Some(b)) => {
                if decode_param(raw)? != b {
                    return Err(format!(
                        "Mcp-Param-{header} header does not match argument `{arg}`"
                    ));
                }
            }
            (Some(_), None) => {
                return Err(format!(
                    "Mcp-Param-{header} header without argument `{arg}`"
                ))
            }
            (None, None) => {}
        }
    }
    Ok(())
}

/// Compare the MCP headers with the request; the mismatch, if any.
fn check_headers(headers: &HeaderMap, head: RequestHead<'_>) -> Result<(), String> {
    match (header_str(headers, &PROTOCOL_VERSION), head.version) {
        (None, _) => return Err("missing MCP-Protocol-Version header".into()),
        (Some(h), Some(v)) if h != v => {
            return Err(format!(
                "MCP-Protocol-Version header `{h}` does not match _meta `{v}`"
            ))
        }
        _ => {}
    }
    let method = head.method;
    match header_str(headers, &METHOD) {
        None => return Err("missing Mcp-Method header".into()),
        Some(h) if h != method => {
            return Err(format!(
                "Mcp-Method header `{h}` does not match method `{method}`"
            ))
        }
        _ => {}
    }
    if let Some(field) = name_field(method) {
        match (header_str(headers, &NAME), head.name) {
            (None, Some(_)) => return Err("missing Mcp-Name header".into()),
            (Some(h), Some(b)) if h != b => {
                return Err(format!(
                    "Mcp-Name header `{h}` does not match params.{field} `{b}`"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The header checks of a request, as the error reply they fail with.
fn check_request(server: &Server, headers: &HeaderMap, incoming: &Incoming) -> Result<(), Reply> {
    let (id, checked) = match incoming {
        Incoming::Request(r) => {
            let checked = check_headers(headers, request_head(r)).and_then(|()| match &**r {
                ClientRequest::CallToolRequest(call) => check_param_headers(server, headers, call),
                _ => Ok(()),
            });
            (Some(request_id(r)), checked)
        }
        Incoming::Extension(r) => (Some(&r.id), check_headers(headers, r.head())),
        Incoming::Rejected(rejected) => match &rejected.head {
            Some(head) => (rejected.id.as_ref(), check_headers(headers, head.head())),
            None => return Ok(()),
        },
        // Neither carries `_meta` to check the header against, but a version no era has is
        // still refused (400), as the transport requires of every POST.
        Incoming::Notification(_) | Incoming::Response => {
            let Some(v) = header_str(headers, &PROTOCOL_VERSION) else {
                return Ok(());
            };
            let session_versions: &[&str] = if server.serves_sessions() {
                crate::SESSION_VERSIONS
            } else {
                &[]
            };
            if crate::SUPPORTED_VERSIONS.contains(&v) || session_versions.contains(&v) {
                return Ok(());
            }
            let supported = [crate::SUPPORTED_VERSIONS, session_versions].concat();
            return Err(Reply::error(
                None,
                Error::unsupported_protocol_version(v, &supported),
            ));
        }
    };
    checked.map_err(|why| Reply::error(id.cloned(), Error::header_mismatch(why)))
}

/// What a streaming-capable request produced first.
enum First {
    /// A notification: the answer is an SSE stream that starts with it.
    Note(String),
    /// The reply, before any notification.
    Reply(Option<Reply>),
}

/// Answer on an SSE stream: notifications as they come, then the response, then the end. A
/// reply that comes before any notification (an error decided before anything was streamed, or
/// a quick result) is answered as plain JSON instead, with the HTTP status of its error. The
/// request counts against its caller for as long as the stream is open.
async fn stream_response(
    app: Arc<Core>,
    incoming: Incoming,
    principal: Option<crate::handler::Principal>,
    in_flight: Option<InFlight>,
    via: crate::wire::Via,
) -> Response {
    let (tx, mut rx) = Notifier::channel(app.config.limits.queue);
    let server = app.server.clone();
    let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<Option<Reply>>();
    let task = AbortOnDrop(tokio::spawn(async move {
        let _in_flight = in_flight;
        let reply = server
            .handle_via(incoming, principal.as_ref(), Some(tx), via)
            .await;
        let _ = done_tx.send(reply);
    }));
    // The notification sender is dropped with the call, before the reply is sent: a closed
    // channel without a notification means the reply is on its way.
    let first = tokio::select! {
        biased;
        note = rx.recv() => match note {
            Some(note) => First::Note(note),
            None => First::Reply((&mut done_rx).await.ok().flatten()),
        },
        reply = &mut done_rx => First::Reply(reply.ok().flatten()),
    };
    let note = match first {
        First::Note(note) => note,
        First::Reply(Some(reply)) => return reply_response(&reply),
        First::Reply(None) => return StatusCode::ACCEPTED.into_response(),
    };
    let reply = async move { done_rx.await.ok().flatten().map(|r| r.to_json()) };
    let open = counted(&app.server, "stateless");
    event_stream(note, rx, task, reply, open)
}
