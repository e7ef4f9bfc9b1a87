//! The transports under abuse. HTTP: slow and idle connections are dropped after their
//! timeouts, oversized bodies are refused before they are read, the connection limit holds
//! without starving normal requests. Both: a listener that stops reading cannot grow the
//! server's memory, and a shutdown drains requests in flight and ends listen streams within its
//! deadline.

use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::{Limits, Server};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A server serving: its address, the server, the trigger of its shutdown, the serving task.
type Started = (
    std::net::SocketAddr,
    Arc<Server>,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
);

/// The fixture server with these limits, on an ephemeral port; its address, the server, the
/// trigger of its shutdown, and the serving task.
async fn start(limits: Limits) -> Started {
    start_with(HttpConfig::default().limits(limits)).await
}

/// [`start`] with these settings.
async fn start_with(config: HttpConfig) -> Started {
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .build()
            .unwrap(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(serve_listener(server.clone(), listener, config, async {
        let _ = stopped.await;
    }));
    (addr, server, stop, serving)
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "limits-test", "version": "1.0.0"}
    })
}

/// A whole HTTP/1.1 request for `message` with the headers the transport checks.
fn request(message: &Value, extra: &str) -> Vec<u8> {
    let body = message.to_string();
    let method = message["method"].as_str().unwrap_or_default();
    let name = message["params"]["name"]
        .as_str()
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn sleep_call(id: i64, ms: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "test_sleep", "arguments": {"ms": ms}, "_meta": meta()}})
}

/// Read from `tcp` until the peer closes or `limit` passes; what was read, and whether the
/// peer closed.
async fn read_until_closed(tcp: &mut TcpStream, limit: Duration) -> (String, bool) {
    read_until(tcp, limit, |_| false).await
}

/// Read from `tcp` until the peer closes, `done` holds for what was read, or `limit` passes;
/// what was read, and whether it ended (closed or done).
async fn read_until(
    tcp: &mut TcpStream,
    limit: Duration,
    done: impl Fn(&[u8]) -> bool,
) -> (String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, tcp.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&got).into(), true),
            Ok(Ok(n)) => {
                got.extend_from_slice(&buf[..n]);
                if done(&got) {
                    return (String::from_utf8_lossy(&got).into(), true);
                }
            }
            Err(_) => return (String::from_utf8_lossy(&got).into(), false),
        }
    }
}

/// Read one response with a `Content-Length` from `tcp`: its status line and body.
async fn read_response(tcp: &mut TcpStream) -> (String, String) {
    let mut got = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let text = String::from_utf8_lossy(&got).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length {
                let status = head.lines().next().unwrap_or_default().to_string();
                return (status, body[..length].to_string());
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut buf))
            .await
            .expect("a response within 5 s")
            .expect("the connection reads");
        assert!(n > 0, "the connection closed mid-response: {text}");
        got.extend_from_slice(&buf[..n]);
    }
}

fn short(header: Duration) -> Limits {
    Limits::default()
        .header_timeout(header)
        .body_timeout(Duration::from_millis(300))
}

#[tokio::test]
async fn slow_headers_and_idle_connections_are_closed_after_the_header_timeout() {
    let (addr, _server, _stop, _serving) = start(short(Duration::from_millis(300))).await;
    // Headers that never finish.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let (_, closed) = read_until_closed(&mut slow, Duration::from_secs(5)).await;
    assert!(closed, "a connection whose headers never end is closed");
    // A connection that never sends anything.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let (_, closed) = read_until_closed(&mut silent, Duration::from_secs(5)).await;
    assert!(closed, "a silent connection is closed");
    // A kept-alive connection that goes idle after a request.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(&request(&sleep_call(1, 0), ""))
        .await
        .unwrap();
    let (status, body) = read_response(&mut idle).await;
    assert!(status.contains("200"), "{status} {body}");
    let (_, closed) = read_until_closed(&mut idle, Duration::from_secs(5)).await;
    assert!(closed, "an idle kept-alive connection is closed");
}

#[tokio::test]
async fn a_connection_kept_busy_is_not_cut_by_the_header_timeout() {
    let (addr, _server, _stop, _serving) = start(short(Duration::from_millis(300))).await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    // A request that runs longer than the header timeout, then another on the same connection.
    for (id, ms) in [(1, 600), (2, 0)] {
        tcp.write_all(&request(&sleep_call(id, ms), ""))
            .await
            .unwrap();
        let (status, body) = read_response(&mut tcp).await;
        assert!(status.contains("200"), "{status} {body}");
        assert!(body.contains(&format!("slept {ms} ms")), "{body}");
    }
}

#[tokio::test]
async fn a_slow_body_is_answered_408() {
    let (addr, _server, _stop, _serving) = start(short(Duration::from_secs(10))).await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let full = request(&sleep_call(1, 0), "");
    // Headers and the first bytes of the body, then nothing.
    let split = full.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4 + 5;
    tcp.write_all(&full[..split]).await.unwrap();
    let started = Instant::now();
    let (status, body) = read_response(&mut tcp).await;
    assert!(status.contains("408"), "{status} {body}");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_the_body_is_sent() {
    let (addr, _server, _stop, _serving) = start(Limits::default()).await;
    for expect in ["", "Expect: 100-continue\r\n"] {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             {expect}Content-Length: 10000000000\r\n\r\n"
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        let (status, body) = read_response(&mut tcp).await;
        assert!(
            status.contains("413"),
            "{expect:?}: 413 without the body, got {status} {body}"
        );
    }
}

#[tokio::test]
async fn idle_connections_at_the_limit_do_not_starve_a_real_request() {
    let limits = short(Duration::from_millis(400)).max_connections(4);
    let (addr, _server, _stop, _serving) = start(limits).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // The fifth waits for a slot, which the idle ones free when their timeout ends.
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(&request(&sleep_call(1, 0), ""))
        .await
        .unwrap();
    let (status, body) = read_response(&mut tcp).await;
    assert!(status.contains("200"), "{status} {body}");
}

#[tokio::test]
async fn a_listener_that_stops_reading_is_ended_instead_of_buffered() {
    let limits = Limits::default().queue(16);
    let (addr, server, _stop, _serving) = start(limits).await;
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
    // A small receive buffer, so the socket holds little of what the server writes.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut tcp = socket.connect(addr).await.unwrap();
    tcp.write_all(&request(&listen, "")).await.unwrap();
    // Wait for the acknowledgement, then stop reading while the server announces changes.
    let mut buf = vec![0u8; 4096];
    let n = tcp.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("200"));
    let sent = 100_000;
    for _ in 0..sent {
        server.notify_list_changed(oxmcp::ListKind::Tools);
        tokio::task::yield_now().await;
    }
    // Now read everything: the stream ends, having carried far fewer than were sent.
    // (The end of a chunked body: the response is over, the connection may stay open.)
    let last_chunk = |got: &[u8]| got.ends_with(b"\r\n0\r\n\r\n");
    let (text, ended) = read_until(&mut tcp, Duration::from_secs(10), last_chunk).await;
    let delivered = text.matches("notifications/tools/list_changed").count();
    assert!(
        delivered < sent / 2,
        "a stalled listener got {delivered} of {sent} notifications buffered"
    );
    assert!(
        ended,
        "the stalled listen stream ends (delivered {delivered})"
    );
    eprintln!("delivered {delivered} of {sent}");
}

#[tokio::test]
async fn shutdown_drains_requests_in_flight_and_ends_listen_streams() {
    let (addr, _server, stop, serving) = start(Limits::default()).await;
    // A listen stream and a request that is still running when the shutdown starts.
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
    let mut listener = TcpStream::connect(addr).await.unwrap();
    listener.write_all(&request(&listen, "")).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = listener.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("200"));
    let mut busy = TcpStream::connect(addr).await.unwrap();
    busy.write_all(&request(&sleep_call(7, 400), ""))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    stop.send(()).unwrap();
    let (status, body) = read_response(&mut busy).await;
    assert!(status.contains("200"), "{status} {body}");
    assert!(
        body.contains("slept 400 ms"),
        "the request in flight finished: {body}"
    );
    let (_, ended) = read_until_closed(&mut listener, Duration::from_secs(5)).await;
    assert!(ended, "the listen stream ended");
    let result = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(result.is_ok(), "serve_listener returned");
    assert!(started.elapsed() < Duration::from_secs(5));
    // New connections are refused once it has stopped.
    assert!(TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn shutdown_cuts_off_what_is_still_running_at_its_deadline() {
    let limits = Limits::default().shutdown_grace(Duration::from_millis(300));
    let (addr, _server, stop, serving) = start(limits).await;
    let mut hung = TcpStream::connect(addr).await.unwrap();
    hung.write_all(&request(&sleep_call(1, 60_000), ""))
        .await
        .unwrap();
    // A request whose headers are half sent.
    let mut half = TcpStream::connect(addr).await.unwrap();
    half.write_all(b"POST /mcp HTTP/1.1\r\nHost: loc")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    stop.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(
        result.is_ok(),
        "serve_listener returned within its deadline"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    let (_, closed) = read_until_closed(&mut hung, Duration::from_secs(2)).await;
    assert!(closed, "the hung request's connection was closed");
}

/// The client's ends of an in-memory stdio pipe: the server's output by line, its input.
type Lines = tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;
type Input = tokio::io::WriteHalf<tokio::io::DuplexStream>;

/// The fixture server on an in-memory stdio pipe of `pipe` bytes, until `shutdown`.
fn stdio(
    limits: Limits,
    pipe: usize,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> (
    Arc<Server>,
    tokio::task::JoinHandle<std::io::Result<()>>,
    Lines,
    Input,
) {
    use tokio::io::AsyncBufReadExt;
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .build()
            .unwrap(),
    );
    let (client, server_end) = tokio::io::duplex(pipe);
    let (read, write) = tokio::io::split(server_end);
    let config = oxmcp::stdio::StdioConfig::default().limits(limits);
    let serving = tokio::spawn(oxmcp::stdio::serve_io_until(
        server.clone(),
        read,
        write,
        config,
        shutdown,
    ));
    let (client_read, client_write) = tokio::io::split(client);
    let lines = tokio::io::BufReader::new(client_read).lines();
    (server, serving, lines, client_write)
}

async fn send_line(out: &mut Input, message: &Value) {
    out.write_all(format!("{message}\n").as_bytes())
        .await
        .unwrap();
}

#[tokio::test]
async fn stdio_shutdown_answers_what_finishes_and_cuts_off_the_rest_at_its_deadline() {
    let limits = Limits::default().shutdown_grace(Duration::from_millis(500));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (_server, serving, mut lines, mut input) = stdio(limits, 64 * 1024, async {
        let _ = stopped.await;
    });
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
    send_line(&mut input, &listen).await;
    send_line(&mut input, &sleep_call(1, 200)).await;
    send_line(&mut input, &sleep_call(2, 60_000)).await;
    let ack = lines.next_line().await.unwrap().unwrap();
    assert!(ack.contains("subscriptions/acknowledged"), "{ack}");
    let started = Instant::now();
    stop.send(()).unwrap();
    let mut replies = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        replies.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    // Output ends: the server returned, with a reply for each request and none for the stream.
    let done = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(matches!(done, Ok(Ok(Ok(())))), "serve_io_until returned");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(replies.len(), 2, "{replies:?}");
    let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(by_id(1)["result"]["content"][0]["text"], "slept 200 ms");
    assert_eq!(by_id(2)["error"]["code"], -32603, "cut off: {}", by_id(2));
}

#[tokio::test]
async fn a_stdio_client_that_stops_reading_loses_notifications_but_no_reply() {
    let limits = Limits::default().queue(16);
    // A pipe of 1 KiB: the server's writes block almost at once.
    let (server, _serving, mut lines, mut input) = stdio(limits, 1024, std::future::pending());
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
    send_line(&mut input, &listen).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let sent = 20_000;
    for _ in 0..sent {
        server.notify_list_changed(oxmcp::ListKind::Tools);
        tokio::task::yield_now().await;
    }
    send_line(&mut input, &sleep_call(9, 0)).await;
    let mut delivered = 0;
    loop {
        let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("the reply comes")
            .unwrap()
            .unwrap();
        if line.contains("list_changed") {
            delivered += 1;
        }
        if line.contains("slept 0 ms") {
            break;
        }
    }
    assert!(
        delivered < 100,
        "{delivered} of {sent} notifications were buffered for a client that was not reading"
    );
}

/// A chunked POST of `body` cut into `pieces` chunks, each written on its own after a pause.
async fn post_chunked(tcp: &mut TcpStream, body: &str, pieces: usize, method: &str) {
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let size = body.len().div_ceil(pieces);
    for piece in body.as_bytes().chunks(size) {
        let chunk = [format!("{:x}\r\n", piece.len()).as_bytes(), piece, b"\r\n"].concat();
        // The server may refuse (and close) before the last piece.
        if tcp.write_all(&chunk).await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = tcp.write_all(b"0\r\n\r\n").await;
}

#[tokio::test]
async fn a_chunked_body_is_read_whole_and_one_over_the_limit_is_refused() {
    let (addr, _server, _stop, _serving) = start_with(HttpConfig::default().max_body(2048)).await;
    // Three pieces, each arriving on its own: read as one body.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": meta()}});
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    post_chunked(&mut tcp, &list.to_string(), 3, "tools/list").await;
    let (status, body) = read_response(&mut tcp).await;
    assert!(status.contains("200"), "{status} {body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert!(reply["result"]["tools"].is_array(), "{reply}");
    // Over the limit only once the pieces are added up: 413.
    let padded = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                        "params": {"_meta": meta(), "cursor": "x".repeat(3000)}});
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    post_chunked(&mut tcp, &padded.to_string(), 4, "tools/list").await;
    let (status, body) = read_response(&mut tcp).await;
    assert!(status.contains("413"), "{status} {body}");
}
