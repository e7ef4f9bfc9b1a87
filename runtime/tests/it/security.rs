//! The adversarial suite: every request authorized on every route and era, sessions bound to the
//! principal that opened them, bounded memory, per-caller quotas, and the JWKS rules, against the
//! fixture server over HTTP with authentication on and tokens of several principals signed here
//! (the keys of `tests/keys`). Each test names what an attacker tried.

use http_body_util::{BodyExt, Full};
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use oxmcp::auth::{AuthConfig, JwksFile, JwtVerifier};
use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::{request_state::KeyRing, Limits, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const ISSUER: &str = "https://auth.example.com";

fn keys_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/keys")
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A token for `sub` with `scope`, signed with `alg` by the test key `kid`, of type `typ`.
fn token_with(sub: &str, scope: &str, aud: &str, alg: Algorithm, typ: Option<&str>) -> String {
    let (kid, pem) = match alg {
        Algorithm::ES256 => ("ec-1", "ec.pem"),
        _ => ("rsa-1", "rsa.pem"),
    };
    let pem = std::fs::read(keys_dir().join(pem)).unwrap();
    let key = match alg {
        Algorithm::ES256 => EncodingKey::from_ec_pem(&pem).unwrap(),
        _ => EncodingKey::from_rsa_pem(&pem).unwrap(),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    header.typ = typ.map(str::to_string);
    let claims = json!({"sub": sub, "iss": ISSUER, "aud": aud, "scope": scope,
                        "exp": now() + 300, "iat": now()});
    encode(&header, &claims, &key).unwrap()
}

fn token(sub: &str, scope: &str, aud: &str) -> String {
    token_with(sub, scope, aud, Algorithm::RS256, Some("at+jwt"))
}

/// The fixture server with bearer authentication and `limits`, built by `build`: its URL.
async fn start_with(
    limits: Limits,
    build: impl FnOnce(oxmcp::ServerBuilder) -> oxmcp::ServerBuilder,
) -> String {
    start_with_catalog(limits, build).await.0
}

/// [`start_with`], and the server's catalog.
async fn start_with_catalog(
    limits: Limits,
    build: impl FnOnce(oxmcp::ServerBuilder) -> oxmcp::ServerBuilder,
) -> (String, oxmcp::server::Catalog) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier = JwtVerifier::new(JwksFile(keys_dir().join("jwks.json")), ISSUER, url.clone());
    let server = build(mcp_tests::conformance::server(Server::builder()))
        .request_state_keys(KeyRing::parse(&format!("1:{}", "ab".repeat(32))).unwrap())
        .build()
        .unwrap();
    let catalog = server.catalog();
    let config = HttpConfig::default()
        .auth(Some(
            AuthConfig::new(verifier, url.clone())
                .authorization_server(ISSUER)
                .scopes_supported(["admin"]),
        ))
        .limits(limits);
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        config,
        std::future::pending(),
    ));
    (url, catalog)
}

async fn start() -> String {
    start_with(Limits::default(), |b| b).await
}

/// One HTTP exchange: status, headers (lowercase names), body (JSON, or `null`; an event stream
/// is read up to its first `data:` line).
async fn exchange(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, Vec<(String, String)>, Value) {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let mut req = hyper::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let bytes = body.map(|b| b.to_string()).unwrap_or_default();
    let resp = client
        .request(
            req.body(Full::new(hyper::body::Bytes::from(bytes)))
                .unwrap(),
        )
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let sse = headers
        .iter()
        .any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"));
    let mut body = resp.into_body();
    let mut text = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        if let Some(data) = frame.data_ref() {
            text.extend_from_slice(data);
        }
        if sse && String::from_utf8_lossy(&text).contains("\ndata: {") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&text).into_owned();
    let json = if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .find_map(|d| serde_json::from_str(d).ok())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    (status, headers, json)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Open a 2025-11-25 session with `bearer`: its id.
async fn open_session(url: &str, bearer: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "1"}}});
    let auth = format!("Bearer {bearer}");
    let (status, headers, reply) = exchange(
        "POST",
        url,
        &[
            ("authorization", &auth),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        Some(init),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    header(&headers, "mcp-session-id")
        .expect("a session id")
        .to_string()
}

/// POST `message` in `session` as the holder of `bearer` (none: no token), with the 2025 headers.
async fn in_session(
    url: &str,
    bearer: Option<&str>,
    session: &str,
    message: Value,
) -> (u16, Vec<(String, String)>, Value) {
    let auth = bearer.map(|b| format!("Bearer {b}"));
    let mut headers = vec![
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", session),
    ];
    if let Some(a) = &auth {
        headers.push(("authorization", a.as_str()));
    }
    exchange("POST", url, &headers, Some(message)).await
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}}})
}

#[tokio::test]
async fn scopes_are_checked_inside_a_2025_session() {
    let url = start().await;
    let bob = token("bob", "", &url);
    let session = open_session(&url, &bob).await;
    let (status, headers, reply) =
        in_session(&url, Some(&bob), &session, call(1, "test_admin_only")).await;
    assert_eq!(status, 403, "{reply}");
    assert!(
        header(&headers, "www-authenticate").is_some_and(|h| h.contains("insufficient_scope")),
        "{headers:?}"
    );
    assert_eq!(reply["id"], 1, "{reply}");
    // With the scope, the same call in a session runs.
    let alice = token("alice", "admin", &url);
    let session = open_session(&url, &alice).await;
    let (status, _, reply) =
        in_session(&url, Some(&alice), &session, call(2, "test_admin_only")).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "admin: alice");
}

#[tokio::test]
async fn a_request_with_2026_headers_is_judged_as_2026_whatever_session_it_names() {
    let url = start().await;
    let bob = token("bob", "", &url);
    let session = open_session(&url, &bob).await;
    let auth = format!("Bearer {bob}");
    // The headers say test_whoami (what a policy proxy reads), the body calls test_admin_only.
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_admin_only", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (status, _, reply) = exchange(
        "POST",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "test_whoami"),
        ],
        Some(body),
    )
    .await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["code"], -32020, "{reply}");
}

#[tokio::test]
async fn get_and_delete_need_a_token_and_an_allowed_host() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let session = open_session(&url, &alice).await;
    for method in ["GET", "DELETE"] {
        let (status, headers, _) = exchange(
            method,
            &url,
            &[
                ("mcp-session-id", &session),
                ("last-event-id", "1-0"),
                ("mcp-protocol-version", "2025-11-25"),
            ],
            None,
        )
        .await;
        assert_eq!(status, 401, "{method} without a token");
        assert!(header(&headers, "www-authenticate").is_some(), "{method}");
    }
    let auth = format!("Bearer {alice}");
    let (status, _, _) = exchange(
        "DELETE",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-session-id", &session),
            ("host", "evil.example"),
        ],
        None,
    )
    .await;
    assert_eq!(status, 403, "DELETE from another Host");
    // The session survived all of it.
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let (status, _, reply) = in_session(&url, Some(&alice), &session, ping).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let url = start().await;
    let alice = token("alice", "admin", &url);
    let mallory = token("mallory", "admin", &url);
    let session = open_session(&url, &alice).await;
    // Alice's call waits on an elicitation her client has not answered.
    let ask = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                     "params": {"name": "test_elicitation", "arguments": {"message": "Who?"}}});
    let (status, _, request) = in_session(&url, Some(&alice), &session, ask).await;
    assert_eq!(status, 200);
    assert_eq!(request["method"], "elicitation/create", "{request}");
    let asked = request["id"].clone();
    // Mallory, with a valid token of her own and Alice's session id, reaches nothing.
    let answer = json!({"jsonrpc": "2.0", "id": asked,
                        "result": {"action": "accept", "content": {"username": "m", "email": "m@x"}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 5}});
    for message in [call(1, "test_whoami"), answer, cancel] {
        let (status, _, reply) = in_session(&url, Some(&mallory), &session, message).await;
        assert_eq!(status, 404, "{reply}");
    }
    let auth = format!("Bearer {mallory}");
    for method in ["GET", "DELETE"] {
        let (status, _, _) = exchange(
            method,
            &url,
            &[("authorization", &auth), ("mcp-session-id", &session)],
            None,
        )
        .await;
        assert_eq!(status, 404, "{method} by another principal");
    }
    // Alice's session and her waiting call are untouched: she answers and gets her result.
    let answer = json!({"jsonrpc": "2.0", "id": request["id"],
                        "result": {"action": "accept", "content": {"username": "Ada", "email": "ada@example.com"}}});
    let (status, _, _) = in_session(&url, Some(&alice), &session, answer).await;
    assert_eq!(status, 202);
    let (status, _, reply) = in_session(&url, Some(&alice), &session, call(6, "test_whoami")).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "alice");
}

#[tokio::test]
async fn inside_a_session_the_version_header_must_be_the_sessions_and_a_batch_is_refused() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let session = open_session(&url, &alice).await;
    let auth = format!("Bearer {alice}");
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    for version in ["1999-01-01", "2025-06-18"] {
        let (status, _, reply) = exchange(
            "POST",
            &url,
            &[
                ("authorization", &auth),
                ("mcp-session-id", &session),
                ("mcp-protocol-version", version),
            ],
            Some(ping.clone()),
        )
        .await;
        assert_eq!(status, 400, "{version}: {reply}");
    }
    let batch = json!([ping.clone(), {"jsonrpc": "2.0", "id": 2, "method": "ping"}]);
    let (status, _, reply) = in_session(&url, Some(&alice), &session, batch).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    // What is no JSON-RPC message at all is refused too, not taken as a notification.
    for junk in [
        json!(42),
        json!("ping"),
        json!(null),
        json!({}),
        json!({"jsonrpc": "2.0", "id": 3}),
        json!({"jsonrpc": "2.0", "method": 7}),
    ] {
        let (status, _, reply) = in_session(&url, Some(&alice), &session, junk.clone()).await;
        assert_eq!(status, 400, "{junk}: {reply}");
        assert_eq!(reply["error"]["code"], -32600, "{junk}: {reply}");
    }
    // Responses and notifications are still taken.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    let (status, _, _) = in_session(&url, Some(&alice), &session, note).await;
    assert_eq!(status, 202);
    let answer = json!({"jsonrpc": "2.0", "id": "unknown", "result": {}});
    let (status, _, _) = in_session(&url, Some(&alice), &session, answer).await;
    assert_eq!(status, 202);
    let (status, _, _) = in_session(&url, Some(&alice), &session, ping.clone()).await;
    assert_eq!(status, 200);
    // Nor does a DELETE that names another version end the session; one with its own does.
    for (version, status) in [
        ("2026-07-28", 400),
        ("2025-06-18", 400),
        ("2025-11-25", 204),
    ] {
        let headers = [
            ("authorization", auth.as_str()),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", version),
        ];
        let (got, _, reply) = exchange("DELETE", &url, &headers, None).await;
        assert_eq!(got, status, "DELETE at {version}: {reply}");
    }
    let (status, _, _) = in_session(&url, Some(&alice), &session, ping).await;
    assert_eq!(status, 404, "the session ended");
}

/// A request id names its call until the call ends: a second request under an id still in
/// flight is refused (it would take over the first one's cancellation); once the call ended,
/// the id is free again.
#[tokio::test]
async fn inside_a_session_an_id_still_in_flight_is_refused() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let session = open_session(&url, &alice).await;
    let slow = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "test_sleep", "arguments": {"ms": 800}}});
    let first = {
        let (url, alice, session) = (url.clone(), alice.clone(), session.clone());
        tokio::spawn(async move { in_session(&url, Some(&alice), &session, slow).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let again = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let (status, _, reply) = in_session(&url, Some(&alice), &session, again.clone()).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(reply["id"], 9, "{reply}");
    let (status, _, reply) = first.await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.to_string().contains("800"),
        "the first call ran to its end: {reply}"
    );
    let (status, _, reply) = in_session(&url, Some(&alice), &session, again).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn malformed_hosts_and_origins_are_refused_not_prefix_matched() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let auth = format!("Bearer {alice}");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let base = [
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let with = |extra: (&'static str, &'static str)| {
        let mut h = base.to_vec();
        h.push(extra);
        h
    };
    let (status, _, _) = exchange("POST", &url, &base, Some(body.clone())).await;
    assert_eq!(status, 200);
    let (status, _, _) = exchange(
        "POST",
        &url,
        &with(("host", "localhost:80@evil.com")),
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 403, "a Host whose port is not digits");
    let (status, _, _) = exchange(
        "POST",
        &url,
        &with(("origin", "http://localhost:evil.com")),
        Some(body),
    )
    .await;
    assert_eq!(status, 403, "an Origin whose port is not digits");
}

#[tokio::test]
async fn one_principal_filling_its_quotas_leaves_others_room() {
    let limits = Limits::default()
        .sessions_per_caller(3)
        .requests_per_caller(2);
    let url = start_with(limits, |b| b.tasks_per_principal(3)).await;
    let mallory = token("mallory", "", &url);
    let alice = token("alice", "", &url);
    // Sessions.
    for _ in 0..3 {
        open_session(&url, &mallory).await;
    }
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let auth = format!("Bearer {mallory}");
    let (status, headers, reply) = exchange(
        "POST",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        Some(init),
    )
    .await;
    assert_eq!(status, 429, "{reply}");
    assert!(header(&headers, "retry-after").is_some());
    assert_eq!(reply["error"]["code"], oxmcp::QUOTA_EXCEEDED);
    open_session(&url, &alice).await;
    // Tasks.
    let task = |bearer: &str| {
        let auth = format!("Bearer {bearer}");
        let url = url.clone();
        async move {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "slow_compute", "arguments": {"seconds": 30},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {
                              "extensions": {"io.modelcontextprotocol/tasks": {}}}}}});
            exchange(
                "POST",
                &url,
                &[
                    ("authorization", &auth),
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "slow_compute"),
                ],
                Some(body),
            )
            .await
        }
    };
    for _ in 0..3 {
        let (status, _, reply) = task(&mallory).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    }
    let (status, headers, reply) = task(&mallory).await;
    assert_eq!(status, 429, "{reply}");
    assert_eq!(reply["error"]["code"], oxmcp::QUOTA_EXCEEDED, "{reply}");
    assert!(reply["error"]["data"]["retryAfterMs"].as_u64().is_some());
    assert!(header(&headers, "retry-after").is_some());
    let (status, _, reply) = task(&alice).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    // Requests in flight: two long calls of Mallory's hold her share.
    let slow = |bearer: String, url: String| async move {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "slow_compute", "arguments": {"seconds": 3},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let auth = format!("Bearer {bearer}");
        exchange(
            "POST",
            &url,
            &[
                ("authorization", &auth),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "slow_compute"),
            ],
            Some(body),
        )
        .await
    };
    let held: Vec<_> = (0..2)
        .map(|_| tokio::spawn(slow(mallory.clone(), url.clone())))
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, headers, _) = slow(mallory.clone(), url.clone()).await;
    assert_eq!(status, 429);
    assert!(header(&headers, "retry-after").is_some());
    let whoami = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "test_whoami", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let auth = format!("Bearer {alice}");
    let (status, _, reply) = exchange(
        "POST",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "test_whoami"),
        ],
        Some(whoami),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    for h in held {
        assert_eq!(h.await.unwrap().0, 200);
    }
}

#[tokio::test]
async fn a_large_initialize_or_task_argument_is_refused_with_a_clear_error() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let auth = format!("Bearer {alice}");
    // One 3 MiB string: a single value, so it is parsed, then refused by the session budget.
    let big = "x".repeat(3 << 20);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": big, "version": "1"}}});
    let (_, headers, reply) = exchange(
        "POST",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        Some(init),
    )
    .await;
    assert!(header(&headers, "mcp-session-id").is_none(), "no session");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("a session keeps at most"),
        "{reply}"
    );
    // A million small values: refused before it is parsed.
    let many: Vec<u8> = vec![0; 1 << 20];
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"x": many},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (status, _, reply) = exchange(
        "POST",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        Some(init),
    )
    .await;
    assert_eq!(status, 413, "{reply}");
    // A task whose arguments exceed the task budget.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow_compute", "arguments": {"seconds": 1, "label": big},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {
                      "extensions": {"io.modelcontextprotocol/tasks": {}}}}}});
    let (status, _, reply) = exchange(
        "POST",
        &url,
        &[
            ("authorization", &auth),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "slow_compute"),
        ],
        Some(body),
    )
    .await;
    assert_eq!(status, 400, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("a task keeps at most"),
        "{reply}"
    );
}

/// A JWKS file the test rewrites, and a verifier that trusts it for `max_age`.
fn rotating_jwks(max_age: Duration) -> (tempfile::TempDir, PathBuf, JwtVerifier) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jwks.json");
    std::fs::copy(keys_dir().join("jwks.json"), &file).unwrap();
    let verifier = JwtVerifier::new(
        JwksFile(file.clone()),
        ISSUER,
        "https://mcp.example.com/mcp",
    )
    .min_refresh_interval(max_age)
    .max_key_age(max_age);
    (dir, file, verifier)
}

#[tokio::test]
async fn a_key_removed_from_the_jwks_stops_being_trusted_without_an_unknown_kid() {
    let (_dir, file, verifier) = rotating_jwks(Duration::from_millis(300));
    let aud = "https://mcp.example.com/mcp";
    let rsa = token("alice", "", aud);
    let ec = token_with("bob", "", aud, Algorithm::ES256, Some("at+jwt"));
    assert!(verifier.verify_jwt(&rsa).await.is_ok());
    assert!(verifier.verify_jwt(&ec).await.is_ok());
    // The authorization server drops rsa-1; nobody ever sends a token with an unknown kid.
    let mut set: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    set["keys"]
        .as_array_mut()
        .unwrap()
        .retain(|k| k["kid"] != "rsa-1");
    std::fs::write(&file, set.to_string()).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let refused = verifier.verify_jwt(&rsa).await;
    assert!(
        refused.is_err(),
        "a token of a removed key, once verified, is refused"
    );
    assert!(
        verifier.verify_jwt(&ec).await.is_ok(),
        "the other key still works"
    );
}

#[tokio::test]
async fn a_key_takes_only_its_declared_algorithm_and_tokens_must_be_access_tokens() {
    let (_dir, _file, verifier) = rotating_jwks(Duration::from_secs(300));
    let aud = "https://mcp.example.com/mcp";
    // rsa-1 declares RS256: a PS256 token signed by the same key is refused.
    let ps = token_with("alice", "", aud, Algorithm::PS256, Some("at+jwt"));
    let err = verifier.verify_jwt_uncached(&ps).await.unwrap_err();
    assert!(
        matches!(&err, oxmcp::auth::AuthError::Algorithm { algorithm, allowed } if algorithm == "PS256" && allowed == &["RS256".to_string()]),
        "{err}"
    );
    for typ in [
        Some("at+jwt"),
        Some("JWT"),
        Some("application/at+jwt"),
        None,
    ] {
        let t = token_with("alice", "", aud, Algorithm::RS256, typ);
        assert!(verifier.verify_jwt_uncached(&t).await.is_ok(), "{typ:?}");
    }
    for typ in ["dpop+jwt", "logout+jwt", "id_token"] {
        let t = token_with("alice", "", aud, Algorithm::RS256, Some(typ));
        let err = verifier.verify_jwt_uncached(&t).await.unwrap_err();
        assert!(
            err.to_string().contains("not an access token"),
            "{typ}: {err}"
        );
    }
}

#[tokio::test]
async fn a_tool_visible_to_a_scope_is_hidden_from_and_refused_to_others() {
    let (url, catalog) = start_with_catalog(Limits::default(), |b| b).await;
    assert!(catalog.tool_visible_to("test_whoami", |p| p.is_some_and(|p| p.has_scope("ops"))));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let as_caller = |token: String, method: &'static str, params: Value| {
        let url = url.clone();
        async move {
            let auth = format!("Bearer {token}");
            let mut headers = vec![
                ("authorization", auth.as_str()),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", method),
            ];
            if method == "tools/call" {
                headers.push(("mcp-name", "test_whoami"));
            }
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
            exchange("POST", &url, &headers, Some(body)).await
        }
    };
    let listed = |reply: &Value| {
        reply["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "test_whoami")
    };
    let call = json!({"name": "test_whoami", "arguments": {}, "_meta": meta});
    // Without the scope: not listed, and a call is answered as for an unknown tool.
    let bob = token("bob", "", &url);
    let (_, _, list) = as_caller(bob.clone(), "tools/list", json!({"_meta": meta})).await;
    assert!(!listed(&list), "{list}");
    let (status, _, reply) = as_caller(bob, "tools/call", call.clone()).await;
    assert_eq!(status, 400, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool"),
        "{reply}"
    );
    // With it: listed and callable.
    let carol = token("carol", "ops", &url);
    let (_, _, list) = as_caller(carol.clone(), "tools/list", json!({"_meta": meta})).await;
    assert!(listed(&list), "{list}");
    let (status, _, reply) = as_caller(carol, "tools/call", call).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "carol");
}

#[tokio::test]
async fn a_tool_hidden_from_a_caller_is_unknown_to_it_even_when_it_needs_a_scope_in_both_eras() {
    // `test_admin_only` needs `admin`, and is shown only to callers with `ops`.
    let (url, catalog) = start_with_catalog(Limits::default(), |b| b).await;
    assert!(catalog.tool_visible_to("test_admin_only", |p| p.is_some_and(|p| p.has_scope("ops"))));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let stateless = |token: String| {
        let url = url.clone();
        let meta = meta.clone();
        async move {
            let auth = format!("Bearer {token}");
            let headers = [
                ("authorization", auth.as_str()),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "test_admin_only"),
            ];
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": {"name": "test_admin_only", "arguments": {}, "_meta": meta}});
            exchange("POST", &url, &headers, Some(body)).await
        }
    };
    let in_a_session = |token: String| {
        let url = url.clone();
        async move {
            let session = open_session(&url, &token).await;
            in_session(&url, Some(&token), &session, call(1, "test_admin_only")).await
        }
    };
    let unknown = |status: u16, headers: &[(String, String)], reply: &Value| {
        assert!(
            header(headers, "www-authenticate").is_none(),
            "a hidden tool is not refused for scope: {headers:?}"
        );
        assert_ne!(status, 403, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("unknown tool")),
            "{reply}"
        );
    };
    // Without `ops` the tool is hidden: unknown, with or without `admin`, in both eras.
    for scopes in ["", "admin"] {
        let bob = token("bob", scopes, &url);
        let (status, headers, reply) = stateless(bob.clone()).await;
        unknown(status, &headers, &reply);
        let (status, headers, reply) = in_a_session(bob).await;
        unknown(status, &headers, &reply);
    }
    // With `ops` it is shown; without `admin` it is refused for scope so the client can step up.
    let erin = token("erin", "ops", &url);
    for (status, headers, reply) in [stateless(erin.clone()).await, in_a_session(erin).await] {
        assert_eq!(status, 403, "{reply}");
        assert!(
            header(&headers, "www-authenticate").is_some_and(|h| h.contains("scope=\"admin\"")),
            "{headers:?}"
        );
    }
    // With both it runs.
    let frank = token("frank", "ops admin", &url);
    for (status, _, reply) in [stateless(frank.clone()).await, in_a_session(frank).await] {
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["result"]["content"][0]["text"], "admin: frank");
    }
}

/// Who a generated request says it is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Who {
    /// The principal that opened the session under test (scope `""`).
    Alice,
    /// Another principal with a valid token.
    Bob,
    /// No `Authorization` header.
    NoToken,
    /// A bearer token that is no JWT.
    Garbage,
    /// A valid signature for another audience.
    OtherAudience,
    /// A valid signature on an ID token, not an access token.
    IdToken,
    /// Basic credentials instead of a bearer token.
    Basic,
}

/// Where a generated request goes.
#[derive(Debug, Clone, Copy)]
enum Route {
    /// POST in Alice's session, with its version.
    InAlices,
    /// POST with the 2026-07-28 headers and no session.
    Stateless,
    /// A 2025 `initialize`.
    Initialize,
    /// GET of Alice's session's stream.
    GetAlices,
    /// DELETE of Alice's session.
    DeleteAlices,
    /// GET and DELETE with no session.
    NoSession(&'static str),
}

/// What a generated POST carries.
fn any_call() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    prop::sample::select(vec![
        ("ping", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "test_whoami", "arguments": {}}),
        ),
        (
            "tools/call",
            json!({"name": "test_admin_only", "arguments": {}}),
        ),
        (
            "tools/call",
            json!({"name": "test_simple_text", "arguments": {}}),
        ),
        ("resources/list", json!({})),
    ])
    .prop_map(
        |(method, params)| json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
    )
}

/// One runtime and one server for every case of the properties below.
fn shared() -> &'static (tokio::runtime::Runtime, String) {
    static SHARED: std::sync::OnceLock<(tokio::runtime::Runtime, String)> =
        std::sync::OnceLock::new();
    SHARED.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let url = runtime.block_on(start());
        (runtime, url)
    })
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(48)
    ))]

    /// Any mix of callers, routes and eras: whoever holds no valid access token for this server
    /// gets 401 with a challenge on every route, in every era; another principal reaches
    /// nothing of Alice's session; a tool that needs a scope is refused without it; and after
    /// all of it Alice's session still answers her.
    #[test]
    fn every_route_and_era_needs_a_valid_token_and_a_session_stays_its_openers(
        steps in proptest::collection::vec(
            (
                proptest::sample::select(vec![Who::Alice, Who::Bob, Who::NoToken, Who::Garbage,
                    Who::OtherAudience, Who::IdToken, Who::Basic]),
                proptest::sample::select(vec![Route::InAlices, Route::InAlices, Route::Stateless,
                    Route::Initialize, Route::GetAlices, Route::DeleteAlices,
                    Route::NoSession("GET"), Route::NoSession("DELETE")]),
                any_call(),
            ),
            1..8,
        ),
    ) {
        let (runtime, url) = shared();
        let outcome: Result<(), String> = runtime.block_on(async {
            let alice = token("alice", "", url);
            let session = open_session(url, &alice).await;
            let mut alive = true;
            for (who, route, message) in steps {
                let credentials = match who {
                    Who::Alice => Some(format!("Bearer {alice}")),
                    Who::Bob => Some(format!("Bearer {}", token("bob", "", url))),
                    Who::NoToken => None,
                    Who::Garbage => Some("Bearer not.a.jwt".to_string()),
                    Who::OtherAudience => Some(format!(
                        "Bearer {}",
                        token("alice", "", "https://elsewhere.example/mcp")
                    )),
                    Who::IdToken => Some(format!(
                        "Bearer {}",
                        token_with("alice", "", url, Algorithm::RS256, Some("id_token"))
                    )),
                    Who::Basic => Some("Basic YWxpY2U6c2VjcmV0".to_string()),
                };
                let mut headers: Vec<(&str, String)> = Vec::new();
                if let Some(c) = credentials {
                    headers.push(("authorization", c));
                }
                let method_header = message["method"].as_str().unwrap_or("").to_string();
                let (method, body) = match route {
                    Route::InAlices => {
                        headers.push(("mcp-protocol-version", "2025-11-25".into()));
                        headers.push(("mcp-session-id", session.clone()));
                        ("POST", Some(message.clone()))
                    }
                    Route::Stateless => {
                        let mut stateless_message = message.clone();
                        stateless_message["params"]["_meta"] = json!({
                            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {}});
                        headers.push(("mcp-protocol-version", "2026-07-28".into()));
                        headers.push(("mcp-method", method_header.clone()));
                        if let Some(name) = message["params"]["name"].as_str() {
                            headers.push(("mcp-name", name.to_string()));
                        }
                        ("POST", Some(stateless_message))
                    }
                    Route::Initialize => {
                        headers.push(("mcp-protocol-version", "2025-11-25".into()));
                        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"}}});
                        ("POST", Some(init))
                    }
                    Route::GetAlices | Route::DeleteAlices => {
                        headers.push(("mcp-protocol-version", "2025-11-25".into()));
                        headers.push(("mcp-session-id", session.clone()));
                        let method = if matches!(route, Route::GetAlices) { "GET" } else { "DELETE" };
                        (method, None)
                    }
                    Route::NoSession(method) => (method, None),
                };
                let refs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                // Alice's own GET is her standalone stream, which stays open: a moment is enough.
                let patience = if matches!(route, Route::GetAlices) {
                    Duration::from_millis(300)
                } else {
                    Duration::from_secs(2)
                };
                let exchanged = tokio::time::timeout(patience, exchange(method, url, &refs, body)).await;
                let valid = matches!(who, Who::Alice | Who::Bob);
                let step = format!("{who:?} {route:?} {message}");
                let Ok((status, response_headers, reply)) = exchanged else {
                    // Only Alice's own GET may stay open (her standalone stream).
                    if who == Who::Alice && matches!(route, Route::GetAlices) && alive {
                        continue;
                    }
                    return Err(format!("{step}: no answer within {patience:?}"));
                };
                if !valid {
                    if status != 401 || header(&response_headers, "www-authenticate").is_none() {
                        return Err(format!("{step}: {status} {reply} without a valid token"));
                    }
                    continue;
                }
                let on_alices = matches!(route, Route::InAlices | Route::GetAlices | Route::DeleteAlices);
                if who == Who::Bob && on_alices && status != 404 {
                    return Err(format!("{step}: Bob reached Alice's session: {status} {reply}"));
                }
                if who == Who::Alice && on_alices && !alive && status != 404 {
                    return Err(format!("{step}: the ended session answered {status} {reply}"));
                }
                let admin = message["params"]["name"] == "test_admin_only";
                if admin && matches!(route, Route::Stateless) && status != 403 {
                    return Err(format!("{step}: a tool that needs a scope ran without it: {status} {reply}"));
                }
                if admin && matches!(route, Route::InAlices) && who == Who::Alice && alive
                    && reply.get("result").is_some()
                {
                    return Err(format!("{step}: a tool that needs a scope ran without it: {reply}"));
                }
                if who == Who::Alice && matches!(route, Route::DeleteAlices) && alive {
                    if status != 204 {
                        return Err(format!("{step}: Alice's DELETE got {status}"));
                    }
                    alive = false;
                }
                if status >= 500 {
                    return Err(format!("{step}: {status} {reply}"));
                }
            }
            if alive {
                let ping = json!({"jsonrpc": "2.0", "id": "last", "method": "ping"});
                let (status, _, reply) = in_session(url, Some(&alice), &session, ping).await;
                if status != 200 || reply["result"] != json!({}) {
                    return Err(format!("Alice's session no longer answers her: {status} {reply}"));
                }
                let auth = format!("Bearer {alice}");
                let headers = [("authorization", auth.as_str()), ("mcp-session-id", session.as_str())];
                exchange("DELETE", url, &headers, None).await;
            }
            Ok(())
        });
        proptest::prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}

/// The 2026 request metadata, with the tasks extension when `tasks`.
fn meta_2026(tasks: bool) -> Value {
    let caps = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": caps})
}

/// A 2026 request of `method` naming `name`, as the holder of `bearer`.
async fn stateless(
    url: &str,
    bearer: &str,
    method: &str,
    name: Option<&str>,
    body: Value,
) -> (u16, Vec<(String, String)>, Value) {
    let auth = format!("Bearer {bearer}");
    let mut headers = vec![
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if let Some(name) = name {
        headers.push(("mcp-name", name));
    }
    exchange("POST", url, &headers, Some(body)).await
}

/// Start a task of `slow_compute` for 30 s as the holder of `bearer`.
async fn start_task(url: &str, bearer: &str) -> (u16, Vec<(String, String)>, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow_compute", "arguments": {"seconds": 30}, "_meta": meta_2026(true)}});
    stateless(url, bearer, "tools/call", Some("slow_compute"), body).await
}

/// A GET of `session`'s stream (resumed after `last` when given) as the holder of `bearer`,
/// kept open: its status, and the response whose unread body holds the connection.
async fn hold_stream(
    url: &str,
    bearer: &str,
    session: &str,
    last: Option<&str>,
) -> (u16, hyper::Response<hyper::body::Incoming>) {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<hyper::body::Bytes>>();
    let mut req = hyper::Request::get(url)
        .header("authorization", format!("Bearer {bearer}"))
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session);
    if let Some(last) = last {
        req = req.header("last-event-id", last);
    }
    let resp = client
        .request(req.body(Full::default()).unwrap())
        .await
        .unwrap();
    (resp.status().as_u16(), resp)
}

/// How long `work` takes, which must be under a second.
async fn within_a_second<T>(what: &str, work: impl std::future::Future<Output = T>) -> T {
    let started = std::time::Instant::now();
    let done = tokio::time::timeout(Duration::from_secs(5), work)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 5 s"));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{what} took {:?}",
        started.elapsed()
    );
    done
}

#[tokio::test]
async fn a_principal_holding_its_streams_subscriptions_and_tasks_leaves_another_every_room() {
    let limits = Limits::default()
        .requests_per_caller(6)
        .sessions_per_caller(3)
        .subscriptions(4)
        .subscription_bytes(4096);
    let url = start_with(limits, |b| b.tasks_per_principal(2)).await;
    let mallory = token("mallory", "", &url);
    let alice = token("alice", "", &url);
    let session = open_session(&url, &mallory).await;
    // Subscriptions: a count and a size per session, each refusal naming its limit.
    let subscribe = |id: i64, uri: String| {
        json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
               "params": {"uri": uri}})
    };
    for i in 0..4 {
        let (status, _, reply) = in_session(
            &url,
            Some(&mallory),
            &session,
            subscribe(i, format!("test://r/{i}")),
        )
        .await;
        assert_eq!((status, &reply["result"]), (200, &json!({})), "{reply}");
    }
    let (_, _, reply) = in_session(
        &url,
        Some(&mallory),
        &session,
        subscribe(9, "test://r/9".into()),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Limits::subscriptions"));
    let unsubscribe = json!({"jsonrpc": "2.0", "id": 10, "method": "resources/unsubscribe",
                             "params": {"uri": "test://r/0"}});
    in_session(&url, Some(&mallory), &session, unsubscribe).await;
    let (_, _, reply) = in_session(
        &url,
        Some(&mallory),
        &session,
        subscribe(11, format!("test://{}", "x".repeat(5000))),
    )
    .await;
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Limits::subscription_bytes"),
        "{reply}"
    );
    // A 2026 listen filter is held as long as its stream: bounded the same way.
    let listen = json!({"jsonrpc": "2.0", "id": 12, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["a", "b", "c", "d", "e"]},
        "_meta": meta_2026(false)}});
    let (status, _, reply) = stateless(&url, &mallory, "subscriptions/listen", None, listen).await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (400, &json!(-32602)),
        "{reply}"
    );
    // Tasks, up to the principal's quota.
    for _ in 0..2 {
        assert_eq!(start_task(&url, &mallory).await.0, 200);
    }
    let (status, headers, _) = start_task(&url, &mallory).await;
    assert_eq!(status, 429);
    assert!(header(&headers, "retry-after").is_some());
    // Streams: the session's standalone stream, then resumptions of it, each held open; past
    // the requests in flight a caller may have, the next is refused.
    let mut held = Vec::new();
    let (status, stream) = hold_stream(&url, &mallory, &session, None).await;
    assert_eq!(status, 200);
    held.push(stream);
    for _ in 0..5 {
        let (status, stream) = hold_stream(&url, &mallory, &session, Some("1-0")).await;
        assert_eq!(status, 200);
        held.push(stream);
    }
    let (status, refused) = hold_stream(&url, &mallory, &session, Some("1-0")).await;
    assert_eq!(
        status, 429,
        "a seventh stream is one past the caller's share"
    );
    assert!(refused.headers().get("retry-after").is_some());
    // Alice is untouched by all of it: she opens a session, calls, opens a stream, subscribes
    // and starts a task, each answered within a second.
    let hers = within_a_second("initialize", open_session(&url, &alice)).await;
    let whoami = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_whoami", "arguments": {}, "_meta": meta_2026(false)}});
    let (status, _, reply) = within_a_second(
        "a call",
        stateless(&url, &alice, "tools/call", Some("test_whoami"), whoami),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    let (status, _stream) =
        within_a_second("a stream", hold_stream(&url, &alice, &hers, None)).await;
    assert_eq!(status, 200);
    let (_, _, reply) = within_a_second(
        "a subscription",
        in_session(
            &url,
            Some(&alice),
            &hers,
            subscribe(1, "test://mine".into()),
        ),
    )
    .await;
    assert_eq!(reply["result"], json!({}), "{reply}");
    let (status, _, reply) = within_a_second("a task", start_task(&url, &alice)).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["resultType"], "task");
    // Her streams let go, Mallory may open one again.
    held.clear();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(hold_stream(&url, &mallory, &session, None).await.0, 200);
}

#[tokio::test]
async fn more_slow_header_connections_from_one_address_than_the_server_takes_leave_others_fast() {
    use tokio::io::AsyncWriteExt;
    let limits = Limits::default()
        .max_connections(32)
        .connections_per_address(16);
    let url = start_with(limits, |b| b).await;
    let addr: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let alice = token("alice", "", &url);
    // 48 connections from 127.0.0.1 that send half a request's headers and stop; each one
    // the server closes is dialled again at once.
    let flood = tokio::spawn(async move {
        let mut open = tokio::task::JoinSet::new();
        loop {
            while open.len() < 48 {
                open.spawn(async move {
                    let Ok(mut tcp) = tokio::net::TcpStream::connect(addr).await else {
                        return;
                    };
                    let _ = tcp
                        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                        .await;
                    let mut byte = [0u8; 1];
                    let _ = tokio::io::AsyncReadExt::read(&mut tcp, &mut byte).await;
                });
            }
            open.join_next().await;
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A call from another address (127.0.0.2), with its own connection each time.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_whoami", "arguments": {}, "_meta": meta_2026(false)}})
    .to_string();
    for _ in 0..5 {
        let reply = within_a_second("a call from another address", async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
            let tcp = socket.connect(addr).await.unwrap();
            let (mut send, conn) =
                hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
                    .await
                    .unwrap();
            tokio::spawn(conn);
            let req = hyper::Request::post("/mcp")
                .header("host", addr.to_string())
                .header("authorization", format!("Bearer {alice}"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "test_whoami")
                .body(Full::new(hyper::body::Bytes::from(body.clone())))
                .unwrap();
            let resp = send.send_request(req).await.unwrap();
            let status = resp.status().as_u16();
            let bytes = resp.into_body().collect().await.unwrap().to_bytes();
            (status, String::from_utf8_lossy(&bytes).into_owned())
        })
        .await;
        assert_eq!(reply.0, 200, "{}", reply.1);
        assert!(reply.1.contains("alice"), "{}", reply.1);
    }
    flood.abort();
}

#[tokio::test]
async fn an_mcp_header_given_twice_is_refused_naming_it_in_both_eras() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let auth = format!("Bearer {alice}");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_whoami", "arguments": {}, "_meta": meta_2026(false)}});
    let base = [
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "test_whoami"),
    ];
    for (name, second) in [
        ("mcp-name", "test_admin_only"),
        ("mcp-method", "tools/list"),
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-param-region", "x"),
    ] {
        let mut headers = base.to_vec();
        headers.push((name, second));
        if name == "mcp-param-region" {
            headers.push((name, "y"));
        }
        let (status, _, reply) = exchange("POST", &url, &headers, Some(call.clone())).await;
        assert_eq!(status, 400, "{name}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains(name) && message.contains("more than once"),
            "{message}"
        );
    }
    // A session's id and a stream's resumption point alike.
    let session = open_session(&url, &alice).await;
    let twice = [
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", session.as_str()),
        ("mcp-session-id", "another"),
    ];
    let (status, _, reply) = exchange("POST", &url, &twice, Some(call.clone())).await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("mcp-session-id"));
    let resume = [
        ("authorization", auth.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", session.as_str()),
        ("last-event-id", "1-0"),
        ("last-event-id", "2-0"),
    ];
    let (status, _, reply) = exchange("GET", &url, &resume, None).await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("last-event-id"));
}

#[tokio::test]
async fn a_body_nested_past_the_parsers_depth_is_a_parse_error_closed_or_not() {
    let url = start().await;
    let alice = token("alice", "", &url);
    let auth = format!("Bearer {alice}");
    let depth = 100_000;
    let closed = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let unclosed = "{\"a\":".repeat(depth);
    for (what, body) in [("closed", closed), ("unclosed", unclosed)] {
        for version in ["2026-07-28", "2025-11-25"] {
            let client =
                hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                    .build_http::<Full<hyper::body::Bytes>>();
            let req = hyper::Request::post(&url)
                .header("authorization", &auth)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", version)
                .body(Full::new(hyper::body::Bytes::from(body.clone())))
                .unwrap();
            let resp = client.request(req).await.unwrap();
            let status = resp.status().as_u16();
            let bytes = resp.into_body().collect().await.unwrap().to_bytes();
            let reply: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(
                (status, &reply["error"]["code"]),
                (400, &json!(-32700)),
                "{what} at {version}: {reply}"
            );
        }
    }
}

#[tokio::test]
async fn everything_a_task_keeps_counts_against_its_budget() {
    let url = start_with(Limits::default(), |b| b.task_budget(64 * 1024)).await;
    let alice = token("alice", "", &url);
    // A large _meta beside small arguments.
    let mut meta = meta_2026(true);
    meta["pad"] = json!("x".repeat(100 * 1024));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow_compute", "arguments": {"seconds": 30}, "_meta": meta}});
    let (status, _, reply) =
        stateless(&url, &alice, "tools/call", Some("slow_compute"), body).await;
    assert_eq!(status, 400, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("task_budget") && message.contains("_meta"),
        "{message}"
    );
    // Answers to a task's input request count too: a task parked on an elicitation is not
    // made to keep a huge answer.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "confirm_delete", "arguments": {"filename": "a.txt"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {
                      "elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}}}});
    let (_, _, created) = stateless(&url, &alice, "tools/call", Some("confirm_delete"), body).await;
    let task = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_string();
    let get = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get",
               "params": {"taskId": task, "_meta": meta_2026(true)}})
    };
    let mut parked = Value::Null;
    for i in 0..50 {
        let (_, _, got) = stateless(&url, &alice, "tasks/get", Some(&task), get(i)).await;
        if got["result"]["status"] == "input_required" {
            parked = got;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let key = parked["result"]["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .expect("an input request");
    let update = json!({"jsonrpc": "2.0", "id": 99, "method": "tasks/update", "params": {
        "taskId": task, "_meta": meta_2026(true),
        "inputResponses": {key: {"action": "accept",
            "content": {"confirm": true, "pad": "y".repeat(100 * 1024)}}}}});
    let (status, _, reply) = stateless(&url, &alice, "tasks/update", Some(&task), update).await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("task_budget"));
    let (_, _, still) = stateless(&url, &alice, "tasks/get", Some(&task), get(100)).await;
    assert_eq!(still["result"]["status"], "input_required", "{still}");
}

#[tokio::test]
async fn a_jwks_that_cannot_be_fetched_again_is_not_trusted_past_its_maximum_age() {
    for breakage in ["deleted", "invalid"] {
        let (_dir, file, verifier) = rotating_jwks(Duration::from_millis(400));
        let aud = "https://mcp.example.com/mcp";
        let rsa = token("alice", "", aud);
        assert!(verifier.verify_jwt(&rsa).await.is_ok());
        match breakage {
            "deleted" => std::fs::remove_file(&file).unwrap(),
            _ => std::fs::write(&file, "{not json").unwrap(),
        }
        // Within the maximum age the keys held still serve.
        assert!(verifier.verify_jwt(&rsa).await.is_ok(), "{breakage}");
        tokio::time::sleep(Duration::from_millis(900)).await;
        let refused = verifier.verify_jwt(&rsa).await;
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.to_string().contains("maximum age")),
            "{breakage}: {refused:?}"
        );
        assert!(
            verifier.verify_jwt_uncached(&rsa).await.is_err(),
            "{breakage}"
        );
        // The set is back: tokens are taken again.
        std::fs::copy(keys_dir().join("jwks.json"), &file).unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(
            verifier.verify_jwt(&rsa).await.is_ok(),
            "{breakage}: recovered"
        );
    }
}

#[tokio::test]
async fn a_key_without_alg_takes_one_family_its_type_allows() {
    let mut set: Value =
        serde_json::from_str(&std::fs::read_to_string(keys_dir().join("jwks.json")).unwrap())
            .unwrap();
    for key in set["keys"].as_array_mut().unwrap() {
        key.as_object_mut().unwrap().remove("alg");
    }
    let verifier = |algorithms: Option<&[Algorithm]>| {
        let v = JwtVerifier::new(
            oxmcp::auth::StaticJwks(set.to_string()),
            ISSUER,
            "https://mcp.example.com/mcp",
        );
        match algorithms {
            Some(a) => v.algorithms(a),
            None => v,
        }
    };
    let aud = "https://mcp.example.com/mcp";
    let signed = |alg| token_with("alice", "", aud, alg, Some("at+jwt"));
    let default = verifier(None);
    for alg in [Algorithm::RS256, Algorithm::RS512, Algorithm::ES256] {
        assert!(
            default.verify_jwt_uncached(&signed(alg)).await.is_ok(),
            "{alg:?}"
        );
    }
    for alg in [Algorithm::PS256, Algorithm::PS512] {
        let err = default.verify_jwt_uncached(&signed(alg)).await.unwrap_err();
        assert!(
            matches!(&err, oxmcp::auth::AuthError::Algorithm { allowed, .. } if allowed.iter().all(|a| a.starts_with("RS"))),
            "{alg:?}: {err}"
        );
    }
    // With only PSS configured, the RSA key takes that family, and PKCS #1 v1.5 no longer.
    let pss = verifier(Some(&[Algorithm::PS256, Algorithm::ES256]));
    assert!(pss
        .verify_jwt_uncached(&signed(Algorithm::PS256))
        .await
        .is_ok());
    assert!(pss
        .verify_jwt_uncached(&signed(Algorithm::RS256))
        .await
        .is_err());
}

#[tokio::test]
async fn the_client_reports_a_missing_token_and_a_missing_scope_as_data() {
    use oxmcp::client::{Client, ClientError, Era};
    let url = start().await;
    // No credentials at all: the challenge, and where to log in.
    let bare = Client::http(&url).era(Era::Stateless);
    let refused = bare.list_tools().await.unwrap_err();
    let ClientError::Unauthorized {
        challenge,
        logged_in,
    } = &refused
    else {
        panic!("{refused:?}")
    };
    assert!(!logged_in);
    assert!(
        challenge
            .resource_metadata
            .as_deref()
            .is_some_and(|m| m.contains("/.well-known/oauth-protected-resource")),
        "{challenge:?}"
    );
    assert!(refused.to_string().contains("Client::oauth"), "{refused}");
    // A token without the scope a tool needs: the scopes it asks for.
    let alice = token("alice", "", &url);
    let scoped = Client::http(&url)
        .era(Era::Stateless)
        .header("authorization", &format!("Bearer {alice}"))
        .unwrap();
    let forbidden = scoped
        .call_tool("test_admin_only", json!({}))
        .await
        .unwrap_err();
    let ClientError::Forbidden { scopes, challenge } = &forbidden else {
        panic!("{forbidden:?}")
    };
    assert_eq!(scopes, &["admin".to_string()]);
    assert_eq!(challenge.error.as_deref(), Some("insufficient_scope"));
    // In a 2025 session alike.
    let session = Client::http(&url)
        .era(Era::Session)
        .header("authorization", &format!("Bearer {alice}"))
        .unwrap();
    let forbidden = session
        .call_tool("test_admin_only", json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(&forbidden, ClientError::Forbidden { scopes, .. } if scopes == &["admin".to_string()]),
        "{forbidden:?}"
    );
}
