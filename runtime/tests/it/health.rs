//! What a load balancer and an orchestrator ask of a server process: liveness and readiness on
//! the server's port (no token, any `Host`), readiness failing while the task store is down and
//! from the moment the process is asked to stop, while it goes on serving for the drain time.

use oxmcp::http::{serve_listener, HealthPaths, HttpConfig};
use oxmcp::tasks::{StoreFuture, TaskChange, TaskRecord, TaskStore, TaskStoreError};
use oxmcp::{Limits, Server};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A task store that can be switched off.
#[derive(Default)]
struct Flaky {
    down: AtomicBool,
    inner: oxmcp::tasks::InMemoryTaskStore,
}

impl TaskStore for Flaky {
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        self.inner.insert(record)
    }
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        self.inner.get(id)
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        self.inner.update(id, change)
    }
    fn ping(&self) -> StoreFuture<'_, ()> {
        let down = self.down.load(Ordering::SeqCst);
        Box::pin(async move {
            if down {
                Err(TaskStoreError::Unavailable(oxmcp::Cause::words(
                    "switched off",
                )))
            } else {
                Ok(())
            }
        })
    }
}

async fn get(url: &str, host: &str) -> (u16, String) {
    use http_body_util::{BodyExt, Empty};
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let req = hyper::Request::get(url)
        .header("host", host)
        .body(Empty::<hyper::body::Bytes>::new())
        .unwrap();
    let resp = client.request(req).await.unwrap();
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// The value of the series `name` in Prometheus text (0 when absent).
fn series(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// Serve `server` with `limits` at a fresh address until told to stop: its base URL, the stop
/// signal and the serving task.
async fn serve_until_stopped(
    server: Server,
    limits: Limits,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let config = HttpConfig::default().limits(limits);
    let serving = tokio::spawn(serve_listener(Arc::new(server), listener, config, async {
        let _ = stop_rx.await;
    }));
    (base, stop_tx, serving)
}

/// While a server drains, its 2025 sessions take answers and notifications (so calls in flight
/// finish) but not new requests (404: the client moves to a session elsewhere); when it stops,
/// a session's standalone stream ends at once rather than holding the shutdown to its grace
/// period.
#[tokio::test]
async fn a_draining_server_moves_sessions_away_and_ends_their_streams() {
    use mcp_tests::support::post;
    let server = mcp_tests::conformance::server(Server::builder())
        .metrics()
        .build()
        .unwrap();
    let (base, stop_tx, serving) = serve_until_stopped(
        server,
        Limits::default()
            .drain(Duration::from_millis(500))
            .shutdown_grace(Duration::from_secs(30)),
    )
    .await;
    let url = format!("{base}/mcp");
    let session_headers = [
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "application/json, text/event-stream"),
    ];
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (status, headers, _) = post(&url, init.to_string().into_bytes(), &session_headers).await;
    assert_eq!(status, 200);
    let session = headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session");
    let in_session = [
        session_headers[0],
        session_headers[1],
        ("mcp-session-id", session.as_str()),
    ];
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let (status, _, _) = post(&url, list.to_string().into_bytes(), &in_session).await;
    assert_eq!(status, 200, "served before the stop");
    // The session's standalone stream, held open.
    let http = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Empty<hyper::body::Bytes>>();
    let mut open = hyper::Request::get(&url);
    for (k, v) in in_session {
        open = open.header(k, v);
    }
    let stream = http
        .request(open.body(Default::default()).unwrap())
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);

    stop_tx.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, _, _) = post(&url, list.to_string().into_bytes(), &in_session).await;
    assert_eq!(
        status, 404,
        "a new request in a session of a draining server"
    );
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": 99}});
    let (status, _, _) = post(&url, note.to_string().into_bytes(), &in_session).await;
    assert_eq!(status, 202, "notifications and answers still arrive");
    // A session's own requests are not new work a load balancer sent astray.
    let (_, metrics) = get(&format!("{base}/metrics"), "localhost").await;
    assert_eq!(
        series(&metrics, "mcp_requests_while_draining_total"),
        0.0,
        "{metrics}"
    );
    // The open stream does not hold the shutdown to its 30 s grace.
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("the server stops once drained, its standalone streams ended")
        .unwrap()
        .unwrap();
    drop(stream);
}

#[tokio::test]
async fn liveness_and_readiness_follow_the_task_store_and_the_drain() {
    let store = Arc::new(Flaky::default());
    let server = mcp_tests::conformance::server(Server::builder())
        .task_store(store.clone())
        .metrics()
        .build()
        .unwrap();
    let (base, stop_tx, serving) =
        serve_until_stopped(server, Limits::default().drain(Duration::from_millis(600))).await;
    // A probe from elsewhere (its own Host) and without a token is answered.
    assert_eq!(
        get(&format!("{base}/healthz"), "10.0.0.7:8080").await,
        (200, "ok".into())
    );
    assert_eq!(
        get(&format!("{base}/readyz"), "10.0.0.7:8080").await,
        (200, "ready".into())
    );
    // The task store down: not ready, still alive.
    store.down.store(true, Ordering::SeqCst);
    let (status, why) = get(&format!("{base}/readyz"), "localhost").await;
    assert_eq!(status, 503);
    assert!(why.contains("switched off"), "{why}");
    assert_eq!(get(&format!("{base}/healthz"), "localhost").await.0, 200);
    store.down.store(false, Ordering::SeqCst);
    // Asked to stop: not ready at once, and requests are still served during the drain.
    stop_tx.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        get(&format!("{base}/readyz"), "localhost").await,
        (503, "draining".into())
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (status, _, reply) = mcp_tests::support::post(
        &format!("{base}/mcp"),
        body.to_string().into_bytes(),
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "test_simple_text"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    // That request was new work routed to an instance that was not ready: counted.
    let (_, metrics) = get(&format!("{base}/metrics"), "localhost").await;
    assert_eq!(
        series(&metrics, "mcp_requests_while_draining_total"),
        1.0,
        "{metrics}"
    );
    // After the drain the server stops.
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("the server stops after the drain")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn the_health_paths_can_be_moved_or_left_out() {
    let server = Arc::new(Server::builder().build().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let config = HttpConfig::default().health(Some(
        HealthPaths::default().liveness("/live").readiness("/ready"),
    ));
    tokio::spawn(serve_listener(
        server,
        listener,
        config,
        std::future::pending(),
    ));
    assert_eq!(get(&format!("{base}/live"), "localhost").await.0, 200);
    assert_eq!(get(&format!("{base}/ready"), "localhost").await.0, 200);
    assert_eq!(get(&format!("{base}/healthz"), "localhost").await.0, 404);
    let none = Arc::new(Server::builder().build().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let config = HttpConfig::default().health(None);
    tokio::spawn(serve_listener(
        none,
        listener,
        config,
        std::future::pending(),
    ));
    assert_eq!(get(&format!("{base}/readyz"), "localhost").await.0, 404);
}

#[tokio::test]
async fn metrics_count_requests_rounds_sessions_and_refusals() {
    let server = mcp_tests::conformance::server(Server::builder())
        .metrics()
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::default(),
        std::future::pending(),
    ));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let call = |tool: &'static str, extra: serde_json::Value| {
        let base = base.clone();
        let meta = meta.clone();
        async move {
            let mut params = json!({"name": tool, "arguments": {}, "_meta": meta});
            if let (serde_json::Value::Object(p), serde_json::Value::Object(e)) =
                (&mut params, extra)
            {
                p.extend(e);
            }
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
            mcp_tests::support::post(
                &format!("{base}/mcp"),
                body.to_string().into_bytes(),
                &[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", tool),
                ],
            )
            .await
        }
    };
    let value = series;
    let (_, before) = get(&format!("{base}/metrics"), "10.0.0.7").await;
    assert_eq!(
        value(
            &before,
            r#"mcp_requests_total{method="tools/call",outcome="ok"}"#
        ),
        0.0
    );
    for _ in 0..3 {
        assert_eq!(call("test_simple_text", json!({})).await.0, 200);
    }
    let (_, _, round) = call("test_input_required_result_elicitation", json!({})).await;
    assert_eq!(round["result"]["resultType"], "input_required");
    let (_, _, refused) = call(
        "test_input_required_result_elicitation",
        json!({"requestState": "tampered", "inputResponses": {}}),
    )
    .await;
    assert!(refused.get("error").is_some(), "{refused}");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, _, _) = mcp_tests::support::post(
        &format!("{base}/mcp"),
        init.to_string().into_bytes(),
        &[("mcp-protocol-version", "2025-11-25")],
    )
    .await;
    assert_eq!(status, 200);
    let (status, text) = get(&format!("{base}/metrics"), "10.0.0.7").await;
    assert_eq!(status, 200);
    assert_eq!(
        value(
            &text,
            r#"mcp_requests_total{method="tools/call",outcome="ok"}"#
        ),
        3.0,
        "{text}"
    );
    assert_eq!(
        value(
            &text,
            r#"mcp_requests_total{method="tools/call",outcome="input_required"}"#
        ),
        1.0
    );
    assert_eq!(
        value(&text, r#"mcp_mrtr_rounds_total{method="tools/call"}"#),
        1.0
    );
    assert_eq!(
        value(
            &text,
            r#"mcp_request_state_refused_total{reason="malformed"}"#
        ),
        1.0,
        "{text}"
    );
    assert_eq!(value(&text, "mcp_sessions_open"), 1.0, "{text}");
    assert!(
        value(
            &text,
            r#"mcp_request_duration_seconds_count{method="tools/call"}"#
        ) >= 5.0,
        "{text}"
    );
}

/// Reports progress, then takes 800 ms: its answer streams for that long.
#[oxmcp::mcp_tool]
async fn streaming() -> String {
    oxmcp::progress(0.5, Some(1.0), Some("halfway"));
    tokio::time::sleep(Duration::from_millis(800)).await;
    "done".into()
}

#[tokio::test]
async fn open_streams_are_counted_by_era_while_they_are_open() {
    use oxmcp::client::{Client, Era};
    let server = Server::builder().metrics().tool(streaming).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::default(),
        std::future::pending(),
    ));
    let open = |era: &'static str| {
        let base = base.clone();
        async move {
            let (_, text) = get(&format!("{base}/metrics"), "localhost").await;
            let series = format!("mcp_streams_open{{era=\"{era}\"}} ");
            text.lines()
                .find_map(|l| l.strip_prefix(&series))
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
        }
    };
    // Wait (up to 5 s) for the count of `era` to be `n`.
    let reaches = move |era: &'static str, n: i64| async move {
        for _ in 0..500 {
            if open(era).await == n {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    };
    let url = format!("{base}/mcp");

    // A stateless call with a progress token streams its answer: one stream while it runs.
    let client = Arc::new(Client::http(&url).era(Era::Stateless));
    let calling = client.clone();
    let call = tokio::spawn(async move {
        calling
            .with_progress(|_| {}, calling.call_tool("streaming", json!({})))
            .await
    });
    assert!(reaches("stateless", 1).await, "no stream counted");
    call.await.unwrap().unwrap();
    assert!(reaches("stateless", 0).await, "the stream is still counted");

    // A 2025 session's standalone stream counts while the session lives.
    let session = Client::http(&url).era(Era::Session);
    session.connect().await.unwrap();
    assert!(reaches("session", 1).await, "no session stream counted");
    session.close().await.unwrap();
    assert!(
        reaches("session", 0).await,
        "the session's stream is still counted"
    );
}
