//! Soak: the fixture server in its own process under a long mixed load, HTTP then stdio, with
//! its resident memory and open descriptors sampled after warm-up and at the end. What a leak
//! or a stuck connection would show as growth.
//!
//! `cargo run --release -p mcp-benches --example soak -- [--seconds S]` (default 60 per
//! transport). The HTTP mix, from 8 workers: a plain call, a 3-round MRTR flow, a malformed
//! body, a tampered `requestState`, a `subscriptions/listen` stream dropped after its
//! acknowledgement, and a connection that sends half its headers and goes away. The stdio mix,
//! in batches of 500 lines: the same calls, first MRTR rounds, malformed lines, unknown tools,
//! and listen streams cancelled after their acknowledgement. The server's states live 30 s (see
//! `fixture`), so a run of two minutes or more shows where memory levels off.

#[path = "load/generator.rs"]
#[allow(dead_code)]
mod generator;

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxmcp::Server;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// (VmRSS, VmHWM) of `pid` in KiB.
fn rss_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Open descriptors of `pid`.
fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// The fixture server with a 30-second state lifetime: single use remembers every opened
/// state until it expires, so the run must outlast the lifetime to show memory level off (with
/// the default five minutes it grows for five minutes, by about 55 bytes per retry).
fn fixture() -> Arc<Server> {
    Arc::new(
        mcp_tests::conformance::server(
            Server::builder().request_state_ttl(Duration::from_secs(30)),
        )
        .build()
        .expect("the fixture server builds"),
    )
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "0.1.0"}
    })
}

/// What one soak saw.
struct Row {
    transport: &'static str,
    seconds: f64,
    operations: u64,
    failures: u64,
    rss_start: u64,
    rss_end: u64,
    peak: u64,
    fds_start: usize,
    fds_end: usize,
    /// RSS in KiB every 20 s of the measured run.
    series: Vec<u64>,
}

/// Sample `pid`'s RSS every 20 s until the returned sender is dropped or fires.
fn sampler(
    pid: u32,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<Vec<u64>>,
) {
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let mut series = Vec::new();
        loop {
            tokio::select! {
                _ = &mut stopped => return series,
                () = tokio::time::sleep(Duration::from_secs(20)) => series.push(rss_kib(pid).0),
            }
        }
    });
    (stop, task)
}

/// The fixture server over HTTP in a process of its own: the child (killed when dropped), its
/// pid and its port.
async fn http_server() -> Result<(tokio::process::Child, u32, u16), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("serve-http")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id().ok_or("no pid")?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?)
        .read_line(&mut line)
        .await
        .map_err(|e| e.to_string())?;
    let port: u16 = line
        .trim()
        .strip_prefix("PORT ")
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("server said {line:?}"))?;
    Ok((child, pid, port))
}

async fn soak_http(seconds: f64) -> Result<Row, String> {
    let (_child, pid, port) = http_server().await?;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let addr = format!("127.0.0.1:{port}");
    let operations = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let run = |d: Duration| {
        let mut workers = Vec::new();
        for w in 0..8u64 {
            let (url, addr) = (url.clone(), addr.clone());
            let (ops, fails) = (operations.clone(), failures.clone());
            workers.push(tokio::spawn(async move {
                let client = generator::client();
                let Ok(conns) = generator::Conns::new(&url) else {
                    return;
                };
                let end = Instant::now() + d;
                let mut id = w << 40;
                let mut turn = w;
                while Instant::now() < end {
                    turn += 1;
                    let ok = match turn % 6 {
                        0 | 1 => {
                            let flow = if turn % 6 == 0 {
                                generator::Flow::plain()
                            } else {
                                generator::Flow::multi_round()
                            };
                            conns.flow(&flow, &mut id).await.is_ok()
                        }
                        2 => raw_exchange(&addr, b"{not json", "tools/call")
                            .await
                            .is_some_and(|r| r.contains("-32700")),
                        3 => {
                            let params = json!({"name": "test_input_required_result_elicitation",
                                "arguments": {}, "_meta": meta(), "requestState": "AgEtampered",
                                "inputResponses": {}});
                            generator::call(&client, &url, "test_input_required_result_elicitation", id, &params)
                                .await
                                .is_ok_and(|r| r["error"]["code"] == -32602)
                        }
                        4 => {
                            let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
                                "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
                            raw_exchange(&addr, listen.to_string().as_bytes(), "subscriptions/listen")
                                .await
                                .is_some_and(|r| r.contains("subscriptions/acknowledged"))
                        }
                        _ => half_headers(&addr).await,
                    };
                    ops.fetch_add(1, Ordering::Relaxed);
                    if !ok {
                        fails.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
        workers
    };
    // Warm-up, then the measured run.
    for w in run(Duration::from_secs(2)) {
        let _ = w.await;
    }
    operations.store(0, Ordering::Relaxed);
    failures.store(0, Ordering::Relaxed);
    let (rss_start, _) = rss_kib(pid);
    let fds_start = fds(pid);
    let started = Instant::now();
    let (stop, sampled) = sampler(pid);
    for w in run(Duration::from_secs_f64(seconds)) {
        let _ = w.await;
    }
    let loaded = started.elapsed().as_secs_f64();
    let _ = stop.send(());
    let series = sampled.await.unwrap_or_default();
    // Let the half-sent connections reach their header timeout (10 s), as on a long-lived server.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let (rss_end, peak) = rss_kib(pid);
    Ok(Row {
        transport: "HTTP",
        seconds: loaded,
        operations: operations.load(Ordering::Relaxed),
        failures: failures.load(Ordering::Relaxed),
        rss_start,
        rss_end,
        peak,
        fds_start,
        fds_end: fds(pid),
        series,
    })
}

/// POST `body` on a new connection and read until the first event or the whole response;
/// then drop the connection.
async fn raw_exchange(addr: &str, body: &[u8], method: &str) -> Option<String> {
    let mut tcp = tokio::net::TcpStream::connect(addr).await.ok()?;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.ok()?;
    tcp.write_all(body).await.ok()?;
    let mut got = vec![0u8; 8192];
    let n = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut got))
        .await
        .ok()?
        .ok()?;
    Some(String::from_utf8_lossy(&got[..n]).into_owned())
}

/// Half a request's headers, then gone.
async fn half_headers(addr: &str) -> bool {
    match tokio::net::TcpStream::connect(addr).await {
        Ok(mut tcp) => tcp
            .write_all(b"POST /mcp HTTP/1.1\r\nHost: local")
            .await
            .is_ok(),
        Err(_) => false,
    }
}

/// Memory per legacy (2025-era) HTTP session: RSS of a fresh server before and after `count`
/// sessions are opened with `initialize` and kept (each then served one `tools/list`).
async fn session_memory(count: usize) -> Result<(u64, u64), String> {
    let (_child, pid, port) = http_server().await?;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = generator::client();
    let post = |body: Value, session: Option<String>| {
        let mut req = hyper::Request::post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        let req = req.body(http_body_util::Full::new(hyper::body::Bytes::from(
            body.to_string(),
        )));
        let client = client.clone();
        async move {
            let resp = client
                .request(req.map_err(|e| e.to_string())?)
                .await
                .map_err(|e| e.to_string())?;
            let status = resp.status();
            let session = resp
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            use http_body_util::BodyExt;
            let body = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| e.to_string())?;
            if !status.is_success() {
                return Err(format!(
                    "HTTP {status}: {}",
                    String::from_utf8_lossy(&body.to_bytes())
                ));
            }
            Ok::<_, String>(session)
        }
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}, "sampling": {}},
        "clientInfo": {"name": "soak", "version": "0.1.0"}}});
    // Warm the server up with a few sessions first.
    for n in 0..50 {
        post(init.clone(), None)
            .await
            .map_err(|e| format!("warm-up session {n}: {e}"))?;
    }
    let (before, _) = rss_kib(pid);
    for n in 0..count {
        let session = post(init.clone(), None)
            .await
            .map_err(|e| format!("session {n}: {e}"))?
            .ok_or("no session id")?;
        post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            Some(session),
        )
        .await?;
    }
    let (after, _) = rss_kib(pid);
    Ok((before, after))
}

async fn soak_stdio(seconds: f64) -> Result<Row, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("serve-stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id().ok_or("no pid")?;
    let mut input = child.stdin.take().ok_or("no stdin")?;
    let mut output = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    let call = |id: u64, name: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": {}, "_meta": meta()}})
        .to_string()
    };
    let mut id = 0u64;
    let mut operations = 0u64;
    let mut failures = 0u64;
    let batch = |id: &mut u64| {
        // The lines sent, and how many replies (lines with an id) come back for them: listen
        // streams are cancelled right away, so their acknowledgement may or may not be sent.
        let mut text = String::new();
        let mut answers = 0;
        for i in 0..500u64 {
            *id += 1;
            match i % 5 {
                0 => text.push_str(&call(*id, "test_simple_text")),
                1 => text.push_str(&call(*id, "test_input_required_result_multi_round")),
                2 => text.push_str("{\"jsonrpc\": \"2.0\", broken"),
                3 => text.push_str(&call(*id, "no_such_tool")),
                _ => {
                    let listen = json!({"jsonrpc": "2.0", "id": format!("sub{id}"),
                        "method": "subscriptions/listen",
                        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}});
                    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": format!("sub{id}")}});
                    text.push_str(&format!("{listen}\n{cancel}\n"));
                    continue;
                }
            }
            text.push('\n');
            answers += 1;
        }
        (text, answers)
    };
    let mut drive = async |d: Duration, count: bool| -> Result<(), String> {
        let end = Instant::now() + d;
        while Instant::now() < end {
            let (text, answers) = batch(&mut id);
            input
                .write_all(text.as_bytes())
                .await
                .map_err(|e| e.to_string())?;
            input.flush().await.map_err(|e| e.to_string())?;
            let mut replies = 0;
            while replies < answers {
                let line = output
                    .next_line()
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or("the server closed its output")?;
                let message = serde_json::from_str::<Value>(&line).ok();
                if message.as_ref().is_some_and(|m| m.get("method").is_some()) {
                    continue;
                }
                replies += 1;
                if count {
                    operations += 1;
                    if message.is_none() {
                        failures += 1;
                    }
                }
            }
        }
        Ok(())
    };
    drive(Duration::from_secs(2), false).await?;
    let (rss_start, _) = rss_kib(pid);
    let fds_start = fds(pid);
    let started = Instant::now();
    let (stop, sampled) = sampler(pid);
    drive(Duration::from_secs_f64(seconds), true).await?;
    let _ = stop.send(());
    let series = sampled.await.unwrap_or_default();
    let (rss_end, peak) = rss_kib(pid);
    let fds_end = fds(pid);
    drop(input);
    let _ = child.wait().await;
    Ok(Row {
        transport: "stdio",
        seconds: started.elapsed().as_secs_f64(),
        operations,
        failures,
        rss_start,
        rss_end,
        peak,
        fds_start,
        fds_end,
        series,
    })
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve-http") => {
            let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("bind: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            };
            let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
            println!("PORT {port}");
            let served = oxmcp::http::serve_listener(
                fixture(),
                listener,
                Default::default(),
                std::future::pending(),
            )
            .await;
            return match served {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(_) => std::process::ExitCode::FAILURE,
            };
        }
        Some("serve-stdio") => {
            return match oxmcp::stdio::serve(fixture()).await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(_) => std::process::ExitCode::FAILURE,
            };
        }
        _ => {}
    }
    if args.first().map(String::as_str) == Some("sessions") {
        // Under the default cap of 10,000 sessions (50 are opened to warm up).
        let count = 9_000;
        return match session_memory(count).await {
            Ok((before, after)) => {
                println!(
                    "legacy HTTP sessions: {count} opened, RSS {before} -> {after} KiB, {:.0} bytes per session",
                    (after.saturating_sub(before) * 1024) as f64 / count as f64
                );
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("sessions: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    let mut seconds = 60.0;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next().and_then(|v| v.parse::<f64>().ok())) {
            ("--seconds", Some(v)) if v > 0.0 => seconds = v,
            _ => {
                eprintln!("usage: soak [--seconds S] | soak sessions | soak serve-http | soak serve-stdio");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    println!("| transport | seconds | operations | failed | RSS after warm-up KiB | RSS every 20 s KiB | RSS at end KiB | peak RSS KiB | descriptors after warm-up | descriptors at end |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in [soak_http(seconds).await, soak_stdio(seconds).await] {
        match row {
            Ok(r) => println!(
                "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.transport,
                r.seconds,
                r.operations,
                r.failures,
                r.rss_start,
                r.series
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                r.rss_end,
                r.peak,
                r.fds_start,
                r.fds_end
            ),
            Err(e) => {
                eprintln!("soak failed: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
