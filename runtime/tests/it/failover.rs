//! The client behind a load balancer whose instances stop and die: a reply lost to a gateway's
//! 502 or to a connection cut mid-stream is reported as such ([`ClientError::ReplyLost`]) and,
//! with [`Client::resend_lost`], sent again; a 2025 session that died with its instance (its
//! stream cannot be resumed, or an answer to the server is refused with 404) moves to a new
//! session where the call is made again. Two servers stand for two instances, behind a small
//! gateway in the test that can fail requests, cut a response stream and switch instances.

use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use oxmcp::client::{Client, ClientError, Era};
use oxmcp::prelude::*;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which instance a server is.
#[derive(Clone)]
struct Label(&'static str);

#[derive(oxmcp::ElicitForm)]
struct Who {
    /// Who is asking?
    name: String,
}

/// Asks who is asking; answers with the instance that finished the call.
#[mcp_tool]
async fn greet(instance: State<Label>) -> Result<String, ToolError> {
    let who = match elicit::<Who>("Who?").await? {
        Elicited::Accept(w) => w.name,
        _ => "nobody".into(),
    };
    Ok(format!("{} greets {who}", instance.0 .0))
}

/// Reports progress, then answers with the instance that ran it.
#[mcp_tool]
async fn report(instance: State<Label>) -> String {
    oxmcp::progress(0.5, Some(1.0), Some("halfway"));
    tokio::time::sleep(Duration::from_millis(20)).await;
    format!("{} reported", instance.0 .0)
}

/// Asks twice; answers with the instance that finished the call.
#[mcp_tool]
async fn greet_twice(instance: State<Label>) -> Result<String, ToolError> {
    let mut names = Vec::new();
    for question in ["Who?", "And who else?"] {
        if let Elicited::Accept(w) = elicit::<Who>(question).await? {
            names.push(w.name);
        }
    }
    Ok(format!("{} greets {}", instance.0 .0, names.join(" and ")))
}

/// Single use of a `requestState` across the instances (what Redis does in a deployment).
#[derive(Default)]
struct Used(Mutex<std::collections::HashSet<oxmcp::request_state::TokenId>>);

impl oxmcp::request_state::SharedReplayGuard for Used {
    fn first_use(
        &self,
        token_id: oxmcp::request_state::TokenId,
        _: u64,
    ) -> oxmcp::request_state::GuardFuture<'_> {
        let first = self.0.lock().unwrap().insert(token_id);
        Box::pin(async move { Ok(first) })
    }
    fn release(&self, token_id: oxmcp::request_state::TokenId) {
        self.0.lock().unwrap().remove(&token_id);
    }
}

/// One instance: its address. Every instance shares one key ring and one single-use record.
async fn instance(label: &'static str, used: Arc<Used>) -> String {
    let ring = oxmcp::request_state::KeyRing::parse(&format!("1:{}", "5a".repeat(32))).unwrap();
    let server = Arc::new(
        Server::builder()
            .state(Label(label))
            .request_state_keys(ring)
            .request_state_codec(move |codec| codec.shared_single_use(used))
            .tool(greet)
            .tool(greet_twice)
            .tool(report)
            .build()
            .unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(oxmcp::http::serve_listener(
        server,
        listener,
        oxmcp::http::HttpConfig::default(),
        std::future::pending(),
    ));
    addr
}

type Body = http_body_util::combinators::BoxBody<Bytes, std::io::Error>;

/// What a gateway answers when no instance replied.
fn bad_gateway(why: &'static str) -> hyper::Response<Body> {
    let body = Full::new(Bytes::from(why)).map_err(|e| match e {}).boxed();
    hyper::Response::builder().status(502).body(body).unwrap()
}

/// What becomes of the event stream an instance was sending when it died.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Death {
    /// It breaks before the marked piece.
    Before,
    /// It breaks after the marked piece.
    After,
    /// It stays open (a proxy that holds it): only later requests see the other instance.
    Held,
}

/// A load balancer in miniature in front of instances A and B.
struct Gateway {
    backends: [String; 2],
    /// The instance requests go to.
    active: AtomicUsize,
    /// POSTs still to be answered 502 without being forwarded.
    fail_posts: AtomicUsize,
    /// The next POST carrying a `requestState` is forwarded and answered, but the answer is
    /// dropped for a 502 and later requests go to the other instance: an instance that died
    /// as it replied.
    lose_answered_state: std::sync::atomic::AtomicBool,
    /// At the first piece of the next event stream holding this text, the instance "dies":
    /// from then on requests go to the other one, and the stream goes as `Death` says.
    cut: Mutex<Option<(&'static str, Death)>>,
    /// Requests forwarded to each instance.
    forwarded: [AtomicUsize; 2],
    http: hyper_util::client::legacy::Client<
        hyper_util::client::legacy::connect::HttpConnector,
        Full<Bytes>,
    >,
}

impl Gateway {
    async fn start(a: String, b: String) -> (Arc<Gateway>, String) {
        let gateway = Arc::new(Gateway {
            backends: [a, b],
            active: AtomicUsize::new(0),
            fail_posts: AtomicUsize::new(0),
            lose_answered_state: Default::default(),
            cut: Mutex::new(None),
            forwarded: Default::default(),
            http: hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let serving = gateway.clone();
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let gateway = serving.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let gateway = gateway.clone();
                        async move { Ok::<_, std::convert::Infallible>(gateway.pass(req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                        .await;
                });
            }
        });
        (gateway, url)
    }

    async fn pass(self: Arc<Self>, req: hyper::Request<Incoming>) -> hyper::Response<Body> {
        let (parts, body) = req.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        let failing = parts.method == hyper::Method::POST
            && self
                .fail_posts
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
        if failing {
            return bad_gateway("no server answered");
        }
        let to = self.active.load(Ordering::SeqCst);
        self.forwarded[to].fetch_add(1, Ordering::SeqCst);
        let lose = parts.method == hyper::Method::POST
            && body.windows(12).any(|w| w == b"requestState")
            && self.lose_answered_state.swap(false, Ordering::SeqCst);
        let mut forward = hyper::Request::builder().method(parts.method).uri(format!(
            "http://{}{}",
            self.backends[to],
            parts.uri.path()
        ));
        for (name, value) in &parts.headers {
            if name != hyper::header::HOST {
                forward = forward.header(name, value);
            }
        }
        let resp = self
            .http
            .request(forward.body(Full::new(body)).unwrap())
            .await
            .unwrap();
        if lose {
            let _ = resp.into_body().collect().await;
            self.active.store(1 - to, Ordering::SeqCst);
            return bad_gateway("the instance died");
        }
        let streams = resp
            .headers()
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let cut = if streams {
            self.cut.lock().unwrap().take()
        } else {
            None
        };
        let (head, mut upstream) = resp.into_parts();
        let Some((marker, death)) = cut else {
            let body = upstream.map_err(std::io::Error::other).boxed();
            return hyper::Response::from_parts(head, body);
        };
        // The stream is passed on piece by piece until the marker; then the instance "dies":
        // the stream breaks and the other instance takes every later request.
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(16);
        let gateway = self.clone();
        tokio::spawn(async move {
            while let Some(Ok(frame)) = upstream.frame().await {
                let hit = frame
                    .data_ref()
                    .is_some_and(|d| d.windows(marker.len()).any(|w| w == marker.as_bytes()));
                if hit {
                    if death != Death::Before {
                        let _ = tx.send(Ok(frame)).await;
                    }
                    gateway.active.store(1 - to, Ordering::SeqCst);
                    if death == Death::Held {
                        continue;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let _ = tx.send(Err(std::io::Error::other("instance died"))).await;
                    return;
                }
                if tx.send(Ok(frame)).await.is_err() {
                    return;
                }
            }
        });
        let frames = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|frame| (frame, rx))
        });
        hyper::Response::from_parts(head, BodyExt::boxed(StreamBody::new(frames)))
    }
}

/// The client's input: every elicitation answered as Ada.
fn answering(client: Client) -> Client {
    struct Ada;
    impl oxmcp::client::TypedInput for Ada {
        fn elicit(
            &self,
            _: oxmcp::schema::ElicitRequest,
        ) -> oxmcp::BoxFuture<Result<oxmcp::schema::ElicitResult, ClientError>> {
            Box::pin(async {
                Ok(
                    serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                        .unwrap(),
                )
            })
        }
    }
    let caps = oxmcp::client::Capabilities::new()
        .elicitation_form()
        .build();
    client.with_input(caps, oxmcp::client::Typed(Ada))
}

fn text(result: &oxmcp::schema::CallToolResult) -> String {
    match &result.content[0] {
        oxmcp::schema::ContentBlock::TextContent(t) => t.text.clone(),
        other => panic!("{other:?}"),
    }
}

async fn pair() -> (Arc<Gateway>, String) {
    let used = Arc::new(Used::default());
    Gateway::start(instance("A", used.clone()).await, instance("B", used).await).await
}

#[tokio::test]
async fn a_gateways_502_is_a_lost_reply_and_is_sent_again_when_asked() {
    for era in [Era::Stateless, Era::Session] {
        let (gateway, url) = pair().await;
        // The first POST (the call, or the session's initialize) meets a 502.
        gateway.fail_posts.store(1, Ordering::SeqCst);
        let plain = answering(Client::http(&url).era(era));
        let lost = plain.call_tool("greet", json!({})).await.unwrap_err();
        assert!(
            matches!(lost, ClientError::ReplyLost { .. }),
            "{era:?}: {lost:?}"
        );
        assert!(lost.to_string().contains("502"), "{lost}");

        gateway.fail_posts.store(1, Ordering::SeqCst);
        let resending = answering(Client::http(&url).era(era).resend_lost(2));
        let done = resending.call_tool("greet", json!({})).await.unwrap();
        assert_eq!(text(&done), "A greets Ada", "{era:?}");
        // In a session already open, the call's own POST.
        gateway.fail_posts.store(1, Ordering::SeqCst);
        let done = resending.call_tool("greet", json!({})).await.unwrap();
        assert_eq!(text(&done), "A greets Ada", "{era:?}");
        // Past the number of resends, the loss is reported.
        gateway.fail_posts.store(3, Ordering::SeqCst);
        let lost = resending.call_tool("greet", json!({})).await.unwrap_err();
        assert!(
            matches!(lost, ClientError::ReplyLost { .. }),
            "{era:?}: {lost:?}"
        );
        assert_eq!(gateway.fail_posts.load(Ordering::SeqCst), 0);
    }
}

#[tokio::test]
async fn a_2026_stream_cut_mid_way_is_lost_then_resent_to_another_instance() {
    let (gateway, url) = pair().await;
    *gateway.cut.lock().unwrap() = Some(("notifications/progress", Death::After));
    let plain = Client::http(&url).era(Era::Stateless);
    let lost = plain
        .with_progress(|_| {}, plain.call_tool("report", json!({})))
        .await
        .unwrap_err();
    assert!(matches!(lost, ClientError::ReplyLost { .. }), "{lost:?}");

    let (gateway, url) = pair().await;
    *gateway.cut.lock().unwrap() = Some(("notifications/progress", Death::After));
    let resending = Client::http(&url).era(Era::Stateless).resend_lost(1);
    let done = resending
        .with_progress(|_| {}, resending.call_tool("report", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&done), "B reported");
    assert_eq!(gateway.forwarded[0].load(Ordering::SeqCst), 1);
}

/// A 2025 call whose instance dies while it asks the user: whether the stream breaks before
/// the question arrives (the stream cannot be resumed on the other instance: 404), after it (the
/// answer is refused there: 404, and the stream cannot be resumed), or is held open by the
/// proxy (only the answer's 404 tells), the client opens a session on the other instance and
/// makes the call again, without being asked to resend anything.
#[tokio::test]
async fn a_2025_call_whose_instance_dies_finishes_in_a_new_session() {
    for death in [Death::Before, Death::After, Death::Held] {
        let (gateway, url) = pair().await;
        let client = answering(Client::http(&url).era(Era::Session));
        client.list_tools().await.unwrap();
        *gateway.cut.lock().unwrap() = Some(("elicitation/create", death));
        let Ok(done) = tokio::time::timeout(
            Duration::from_secs(10),
            client.call_tool("greet", json!({})),
        )
        .await
        else {
            panic!("{death:?}: the call hangs")
        };
        let done = done.unwrap();
        assert_eq!(text(&done), "B greets Ada", "{death:?}");
        assert!(gateway.cut.lock().unwrap().is_none(), "the stream was cut");
    }
}

/// A 2026 round whose instance used its `requestState` and died before the answer got out: the
/// resend on another instance is refused (a state is single-use, across instances), and the
/// client starts the call over; the server asks again.
#[tokio::test]
async fn a_resent_round_whose_state_was_used_starts_the_call_over() {
    let (gateway, url) = pair().await;
    let asked = Arc::new(AtomicUsize::new(0));
    let counting = asked.clone();
    let client = Client::http(&url)
        .era(Era::Stateless)
        .resend_lost(1)
        .with_input(
            oxmcp::client::Capabilities::new()
                .elicitation_form()
                .build(),
            move |_key: &str,
                  _req: oxmcp::schema::InputRequest|
                  -> oxmcp::BoxFuture<Result<serde_json::Value, ClientError>> {
                counting.fetch_add(1, Ordering::SeqCst);
                Box::pin(async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) })
            },
        );
    // The second round (the first that carries a state) is lost after A answered it.
    gateway.lose_answered_state.store(true, Ordering::SeqCst);
    let done = client.call_tool("greet_twice", json!({})).await.unwrap();
    assert_eq!(text(&done), "B greets Ada and Ada");
    assert!(
        !gateway.lose_answered_state.load(Ordering::SeqCst),
        "a reply was lost"
    );
    // Two questions, the first asked twice: once on A, once more on B after the start over.
    assert_eq!(asked.load(Ordering::SeqCst), 3);

    // Without resending, the loss is the caller's to see.
    let (gateway, url) = pair().await;
    let client = answering(Client::http(&url).era(Era::Stateless));
    gateway.lose_answered_state.store(true, Ordering::SeqCst);
    let lost = client
        .call_tool("greet_twice", json!({}))
        .await
        .unwrap_err();
    assert!(matches!(lost, ClientError::ReplyLost { .. }), "{lost:?}");
}

/// A server whose event stream does not read (bytes that are not UTF-8) answered: the client
/// reports a protocol error and does not send the request again, even when asked to resend
/// lost replies.
#[tokio::test]
async fn an_event_stream_that_does_not_read_is_not_a_lost_reply() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let posts = Arc::new(AtomicUsize::new(0));
    let counted = posts.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let counted = counted.clone();
            tokio::spawn(async move {
                let (read, mut write) = tcp.into_split();
                let mut read = tokio::io::BufReader::new(read);
                if mcp_tests::support::read_request(&mut read).await.is_none() {
                    return;
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let mut out = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                    connection: close\r\n\r\ndata: \xff\xfe{\n\n"
                    .to_vec();
                out.extend_from_slice(b"data: {}\n\n");
                let _ = write.write_all(&out).await;
            });
        }
    });
    let client = Client::http(&url).era(Era::Stateless).resend_lost(3);
    let failed = client.call_tool("greet", json!({})).await.unwrap_err();
    assert!(matches!(failed, ClientError::Protocol { .. }), "{failed:?}");
    assert_eq!(posts.load(Ordering::SeqCst), 1, "sent once");
}
