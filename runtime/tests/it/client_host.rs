//! What a host needs from the client beyond calls: list helpers that follow every page, a time
//! limit per request (a default and one per call) that abandons the request and tells the server,
//! the era readable and forceable, a 2025 session ended with DELETE, and errors that name the
//! address they failed on. Against the project's own server over HTTP, in both eras.

use oxmcp::client::InputKind;
use oxmcp::client::{Client, ClientError, Era, Protocol};
use oxmcp::prelude::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How the `slow` calls went: started, ran to the end, or ended (finished or dropped).
#[derive(Default, Clone)]
struct Calls {
    started: Arc<AtomicUsize>,
    finished: Arc<AtomicUsize>,
    ended: Arc<AtomicUsize>,
    /// `notifications/cancelled` messages received.
    cancelled: Arc<AtomicUsize>,
}

/// Counts a call ended when dropped, whether it finished or was cancelled.
struct Ends(Arc<AtomicUsize>);

impl Drop for Ends {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Takes `ms`, counting itself started, finished and ended; reports progress halfway.
#[mcp_tool]
async fn slow(calls: State<Calls>, ms: u64) -> String {
    calls.started.fetch_add(1, Ordering::SeqCst);
    let _ends = Ends(calls.ended.clone());
    oxmcp::progress(0.5, Some(1.0), Some("halfway"));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    calls.finished.fetch_add(1, Ordering::SeqCst);
    "slow done".into()
}

/// The first of three prompts.
#[mcp_prompt]
async fn first() -> String {
    "one".into()
}

/// The second of three prompts.
#[mcp_prompt]
async fn second() -> String {
    "two".into()
}

/// The third of three prompts.
#[mcp_prompt]
async fn third() -> String {
    "three".into()
}

/// A fixed resource.
#[mcp_resource(uri = "test://fixed/a")]
async fn fixed_a() -> String {
    "a".into()
}

/// A fixed resource.
#[mcp_resource(uri = "test://fixed/b")]
async fn fixed_b() -> String {
    "b".into()
}

/// A fixed resource.
#[mcp_resource(uri = "test://fixed/c")]
async fn fixed_c() -> String {
    "c".into()
}

/// A template.
#[mcp_resource(uri = "test://notes/{id}")]
async fn note(id: String) -> String {
    id
}

/// A template.
#[mcp_resource(uri = "test://files/{name}")]
async fn file(name: String) -> String {
    name
}

/// A template.
#[mcp_resource(uri = "test://users/{user}")]
async fn profile(user: String) -> String {
    user
}

/// The server (one item per list page), served over HTTP on a free port: its URL. Every
/// `notifications/cancelled` POSTed to it is counted in `calls.cancelled`.
async fn serve(calls: Calls) -> String {
    let server = Arc::new(
        Server::builder()
            .state(calls.clone())
            .page_size(1)
            .tool(slow)
            .prompt(first)
            .prompt(second)
            .prompt(third)
            .resource(fixed_a)
            .resource(fixed_b)
            .resource(fixed_c)
            .resource(note)
            .resource(file)
            .resource(profile)
            .build()
            .unwrap(),
    );
    let cancelled = calls.cancelled.clone();
    let router = oxmcp::http::router(server, oxmcp::http::HttpConfig::default()).layer(
        axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let cancelled = cancelled.clone();
                async move {
                    let (parts, body) = req.into_parts();
                    let bytes = axum::body::to_bytes(body, 1 << 20)
                        .await
                        .unwrap_or_default();
                    if bytes.windows(23).any(|w| w == b"notifications/cancelled") {
                        cancelled.fetch_add(1, Ordering::SeqCst);
                    }
                    next.run(axum::extract::Request::from_parts(
                        parts,
                        axum::body::Body::from(bytes),
                    ))
                    .await
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/mcp")
}

/// Wait (up to 5 s) until `counter` reaches `n`.
async fn reaches(counter: &AtomicUsize, n: usize) -> bool {
    for _ in 0..500 {
        if counter.load(Ordering::SeqCst) >= n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn list_helpers_follow_every_page_in_both_eras() {
    let url = serve(Calls::default()).await;
    for era in [Era::Stateless, Era::Session] {
        let client = Client::http(&url).era(era);
        let page = client.list_prompts(None).await.unwrap();
        assert_eq!(page.prompts.len(), 1, "{era:?}: one per page");
        let next = page.next_cursor.expect("a second page");
        let page = client.list_prompts(Some(&next)).await.unwrap();
        assert_eq!(page.prompts.len(), 1);

        let mut prompts: Vec<String> = client
            .list_all_prompts()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        prompts.sort();
        assert_eq!(prompts, ["first", "second", "third"], "{era:?}");

        let mut resources: Vec<String> = client
            .list_all_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.uri)
            .collect();
        resources.sort();
        assert_eq!(
            resources,
            ["test://fixed/a", "test://fixed/b", "test://fixed/c"],
            "{era:?}"
        );

        let mut templates: Vec<String> = client
            .list_all_resource_templates()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.uri_template)
            .collect();
        templates.sort();
        assert_eq!(
            templates,
            [
                "test://files/{name}",
                "test://notes/{id}",
                "test://users/{user}"
            ],
            "{era:?}"
        );
        assert!(client
            .list_resource_templates(None)
            .await
            .unwrap()
            .next_cursor
            .is_some());
    }
}

#[tokio::test]
async fn the_era_is_readable_and_can_be_forced() {
    let url = serve(Calls::default()).await;
    // Probed: this server speaks 2026-07-28.
    let probed = Client::http(&url);
    assert_eq!(
        probed.protocol(),
        None,
        "nothing agreed before the first request"
    );
    probed.list_all_prompts().await.unwrap();
    assert_eq!(
        probed.protocol(),
        Some(Protocol::Stateless {
            version: "2026-07-28".into()
        })
    );
    // Forced into a 2025 session, although the server speaks 2026 too.
    let session = Client::http(&url).era(Era::Session);
    let agreed = session.connect().await.unwrap();
    assert_eq!(agreed.era(), Era::Session);
    assert_eq!(agreed.version(), "2025-11-25");
    let Protocol::Session {
        session: Some(id), ..
    } = &agreed
    else {
        panic!("an HTTP session id: {agreed:?}")
    };
    assert_eq!(id.len(), 32, "{id}");
    assert_eq!(session.protocol(), Some(agreed.clone()));
    assert_eq!(
        session
            .call_tool("slow", json!({"ms": 1}))
            .await
            .unwrap()
            .content
            .len(),
        1
    );
    // Forced stateless: no probe, and calls work.
    let stateless = Client::http(&url).era(Era::Stateless);
    assert_eq!(stateless.connect().await.unwrap().era(), Era::Stateless);
    stateless.call_tool("slow", json!({"ms": 1})).await.unwrap();
}

/// POST `body` in session `id` as a 2025-11-25 client would: the HTTP status.
async fn status_in_session(url: &str, id: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}});
    let resp = raw_post(url, id, body).await;
    resp.status().as_u16()
}

async fn raw_post(url: &str, session: &str, body: Value) -> hyper::Response<hyper::body::Incoming> {
    use http_body_util::Full;
    let http = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<hyper::body::Bytes>>();
    let req = hyper::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .body(Full::new(hyper::body::Bytes::from(body.to_string())))
        .unwrap();
    http.request(req).await.unwrap()
}

/// A session the server no longer knows (here ended behind the client's back, as when its
/// instance restarts): the next call gets 404, and the client opens a new session and sends
/// the call there.
#[tokio::test]
async fn a_session_the_server_forgot_is_replaced_and_the_call_sent_again() {
    let calls = Calls::default();
    let url = serve(calls.clone()).await;
    let client = Client::http(&url).era(Era::Session);
    let Protocol::Session {
        session: Some(old_id),
        ..
    } = client.connect().await.unwrap()
    else {
        panic!("a session")
    };
    client.call_tool("slow", json!({"ms": 1})).await.unwrap();
    // Another party ends the session.
    use http_body_util::Full;
    let http = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<hyper::body::Bytes>>();
    let delete = hyper::Request::delete(&url)
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &old_id)
        .body(Full::new(hyper::body::Bytes::new()))
        .unwrap();
    assert!(http.request(delete).await.unwrap().status().is_success());
    assert_eq!(status_in_session(&url, &old_id).await, 404);

    let before = calls.started.load(Ordering::SeqCst);
    let result = client.call_tool("slow", json!({"ms": 1})).await.unwrap();
    assert_eq!(result.is_error, None);
    assert_eq!(
        calls.started.load(Ordering::SeqCst),
        before + 1,
        "the call ran once"
    );
    let Some(Protocol::Session {
        session: Some(new_id),
        ..
    }) = client.protocol()
    else {
        panic!("still a session")
    };
    assert_ne!(new_id, old_id, "a new session");
    assert_eq!(status_in_session(&url, &new_id).await, 200);
}

#[tokio::test]
async fn a_2025_session_ends_with_delete_when_closed_or_dropped() {
    let url = serve(Calls::default()).await;
    for close in [true, false] {
        let client = Client::http(&url).era(Era::Session);
        let Protocol::Session {
            session: Some(id), ..
        } = client.connect().await.unwrap()
        else {
            panic!("a session")
        };
        assert_eq!(status_in_session(&url, &id).await, 200, "open");
        if close {
            client.close().await.unwrap();
        } else {
            drop(client);
        }
        let mut ended = false;
        for _ in 0..200 {
            if status_in_session(&url, &id).await == 404 {
                ended = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(ended, "the session outlived its client (closed: {close})");
    }
}

#[tokio::test]
async fn the_time_limit_abandons_a_request_and_the_server_stops_it_in_both_eras() {
    let calls = Calls::default();
    let url = serve(calls.clone()).await;
    let mut expected = 0;
    for era in [Era::Stateless, Era::Session] {
        let client = Client::http(&url)
            .era(era)
            .timeout(Some(Duration::from_millis(300)));
        client.connect().await.unwrap();
        let finished = calls.finished.load(Ordering::SeqCst);
        let started = std::time::Instant::now();
        let err = client
            .call_tool("slow", json!({"ms": 30_000}))
            .await
            .unwrap_err();
        assert_matches_timeout(
            &err,
            ClientError::Timeout {
                method: "tools/call".into(),
                after: Duration::from_millis(300),
            },
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        expected += 1;
        assert!(reaches(&calls.started, expected).await);
        // The server stopped the call: it ended without finishing.
        assert!(
            reaches(&calls.ended, expected).await,
            "{era:?}: the abandoned call still runs"
        );
        assert_eq!(calls.finished.load(Ordering::SeqCst), finished, "{era:?}");
        // Stateless, closing the request's connection is the cancellation; in a session, a
        // disconnection is not, and `notifications/cancelled` is sent.
        match era {
            Era::Stateless => assert_eq!(calls.cancelled.load(Ordering::SeqCst), 0),
            Era::Session => assert!(
                reaches(&calls.cancelled, 1).await,
                "no notifications/cancelled in the session"
            ),
        }

        // A call given its own, longer limit finishes under the same short default.
        let done = client
            .within(
                Duration::from_secs(10),
                client.call_tool("slow", json!({"ms": 600})),
            )
            .await
            .unwrap();
        assert_eq!(done.content.len(), 1, "{era:?}");
        expected += 1;
        assert_eq!(
            calls.finished.load(Ordering::SeqCst),
            finished + 1,
            "{era:?}"
        );
        assert!(reaches(&calls.ended, expected).await);
    }
}

#[tokio::test]
async fn a_failed_connection_names_the_address_and_the_cause() {
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://{addr}/mcp");
    for era in [Era::Stateless, Era::Session] {
        let err = Client::http(&url)
            .era(era)
            .call_tool("slow", json!({"ms": 1}))
            .await
            .unwrap_err();
        let ClientError::Transport { target, .. } = &err else {
            panic!("{era:?}: {err:?}")
        };
        assert_eq!(target, &url, "{era:?}: {err}");
        let text = err.to_string();
        assert!(text.to_lowercase().contains("refused"), "{era:?}: {text}");
        // The connection error is the error's source.
        assert!(std::error::Error::source(&err).is_some(), "{era:?}");
    }
}

#[tokio::test]
async fn a_url_that_names_no_server_is_refused_before_sending_and_not_resent() {
    for url in [
        "notaurl",
        "/mcp",
        "ftp://127.0.0.1:9/mcp",
        "127.0.0.1:9/mcp",
    ] {
        for era in [None, Some(Era::Stateless), Some(Era::Session)] {
            let mut client = Client::http(url).resend_lost(3);
            if let Some(era) = era {
                client = client.era(era);
            }
            let err = client.list_tools().await.unwrap_err();
            assert!(
                matches!(&err, ClientError::Transport { target, cause } if target == url && cause.to_string().contains("not an absolute")),
                "{url} {era:?}: {err:?}"
            );
        }
    }
}

#[tokio::test]
async fn progress_reaches_the_callback_of_its_call_in_both_eras() {
    let url = serve(Calls::default()).await;
    for era in [Era::Stateless, Era::Session] {
        let client = Client::http(&url).era(era);
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        client
            .with_progress(
                move |p| sink.lock().unwrap().push(p),
                client.call_tool("slow", json!({"ms": 1})),
            )
            .await
            .unwrap();
        let seen_now = seen.lock().unwrap().clone();
        let halfway: Vec<_> = seen_now
            .iter()
            .map(|p| (p.progress, p.total, p.message.as_deref()))
            .collect();
        assert_eq!(halfway, [(0.5, Some(1.0), Some("halfway"))], "{era:?}");
        // Outside `with_progress` a call carries no token, and nothing reaches the callback.
        client.call_tool("slow", json!({"ms": 1})).await.unwrap();
        assert_eq!(seen.lock().unwrap().len(), 1, "{era:?}");
    }
}

#[tokio::test]
async fn a_spawned_servers_stderr_goes_to_the_callback_not_the_hosts() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let script = "echo 'starting up' >&2; echo 'ready' >&2; exec cat >/dev/null";
    let _client = Client::stdio_with_stderr("sh", &["-c", script], move |line| {
        let _ = tx.send(line.to_string());
    })
    .unwrap();
    for expected in ["starting up", "ready"] {
        let line = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("a stderr line");
        assert_eq!(line.as_deref(), Some(expected));
    }
}

#[derive(oxmcp::ElicitForm)]
struct Who {
    /// Who is asking?
    name: String,
}

/// Asks the user, the client's model and the client's roots, in turn.
#[mcp_tool]
async fn survey() -> Result<String, ToolError> {
    let who = match elicit::<Who>("Who?").await? {
        Elicited::Accept(w) => w.name,
        _ => "nobody".into(),
    };
    let line = sample(Sampling::user("A line")).await?;
    let roots = list_roots().await?;
    Ok(format!(
        "{who}; {}; {} roots",
        line.text().unwrap_or_default(),
        roots.len()
    ))
}

/// A host that answers all three kinds of input with typed results.
struct Host;

impl oxmcp::client::TypedInput for Host {
    fn elicit(
        &self,
        request: oxmcp::schema::ElicitRequest,
    ) -> oxmcp::BoxFuture<Result<oxmcp::schema::ElicitResult, ClientError>> {
        assert!(serde_json::to_string(&request.params)
            .unwrap()
            .contains("Who?"));
        Box::pin(async {
            Ok(
                serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                    .unwrap(),
            )
        })
    }

    fn sample(
        &self,
        _: oxmcp::schema::CreateMessageRequest,
    ) -> oxmcp::BoxFuture<Result<oxmcp::schema::CreateMessageResult, ClientError>> {
        Box::pin(async {
            Ok(serde_json::from_value(json!({"role": "assistant",
                "content": {"type": "text", "text": "Fjords"}, "model": "m"}))
            .unwrap())
        })
    }

    fn roots(
        &self,
        _: oxmcp::schema::ListRootsRequest,
    ) -> oxmcp::BoxFuture<Result<oxmcp::schema::ListRootsResult, ClientError>> {
        Box::pin(async {
            Ok(serde_json::from_value(json!({"roots": [{"uri": "file:///home/ada"}]})).unwrap())
        })
    }
}

/// A host that answers nothing itself: elicitations are declined, the rest unanswerable.
struct Nothing;

impl oxmcp::client::TypedInput for Nothing {}

#[tokio::test]
async fn a_typed_input_handler_answers_in_both_eras() {
    let server = Arc::new(Server::builder().tool(survey).build().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(oxmcp::http::serve_listener(
        server,
        listener,
        oxmcp::http::HttpConfig::default(),
        std::future::pending(),
    ));
    let caps = || {
        oxmcp::client::Capabilities::new()
            .elicitation_form()
            .sampling()
            .roots()
            .build()
    };
    for era in [Era::Stateless, Era::Session] {
        let client = Client::http(&url)
            .era(era)
            .with_input(caps(), oxmcp::client::Typed(Host));
        let done = client.call_tool("survey", json!({})).await.unwrap();
        let oxmcp::schema::ContentBlock::TextContent(text) = &done.content[0] else {
            panic!("{done:?}")
        };
        assert_eq!(text.text, "Ada; Fjords; 1 roots", "{era:?}");
    }
    let client = Client::http(&url)
        .era(Era::Stateless)
        .with_input(caps(), oxmcp::client::Typed(Nothing));
    let refused = client.call_tool("survey", json!({})).await.unwrap_err();
    assert!(
        matches!(
            &refused,
            ClientError::Unanswerable {
                request: InputKind::Sampling
            }
        ),
        "{refused:?}"
    );
}

#[tokio::test]
async fn computed_headers_are_fresh_on_every_request_and_replace_fixed_ones() {
    let server = Arc::new(
        Server::builder()
            .tool(slow)
            .state(Calls::default())
            .build()
            .unwrap(),
    );
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let router = oxmcp::http::router(server, oxmcp::http::HttpConfig::default()).layer(
        axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let header = |name: &str| {
                    req.headers()
                        .get_all(name)
                        .iter()
                        .map(|v| v.to_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                record
                    .lock()
                    .unwrap()
                    .push((header("authorization"), header("x-fixed")));
                next.run(req)
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });

    let issued = Arc::new(AtomicUsize::new(0));
    let client = Client::http(&url)
        .era(Era::Stateless)
        .header("Authorization", "Bearer fixed")
        .unwrap()
        .header("X-Fixed", "1")
        .unwrap()
        .headers_from(move || {
            let n = issued.fetch_add(1, Ordering::SeqCst) + 1;
            let mut headers = hyper::HeaderMap::new();
            headers.insert("authorization", format!("Bearer t{n}").parse().unwrap());
            headers
        });
    client.call_tool("slow", json!({"ms": 1})).await.unwrap();
    client.call_tool("slow", json!({"ms": 1})).await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("Bearer t1".to_string(), "1".to_string()),
            ("Bearer t2".to_string(), "1".to_string())
        ]
    );
}

/// `err` is the timeout `expected` describes.
fn assert_matches_timeout(err: &ClientError, expected: ClientError) {
    match (err, &expected) {
        (
            ClientError::Timeout { method, after },
            ClientError::Timeout {
                method: m,
                after: a,
            },
        ) => assert_eq!((method, after), (m, a)),
        _ => panic!("{err:?} is not {expected:?}"),
    }
}
