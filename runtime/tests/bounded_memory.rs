//! What a client sends does not decide how much the server holds: five sessions opened with a
//! 4 MiB `initialize` and five tasks started with a 4 MiB argument (each in two shapes: one huge
//! string, and a million small values) leave the process less than 100 MiB larger, and another
//! client's `tools/call` stays fast. One test in its own binary, so nothing else moves the
//! process's memory meanwhile.

use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::{state::StateKeys, Server};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The process's resident memory, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

fn meta(tasks: bool) -> Value {
    let caps = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": caps})
}

/// A body just under the 4 MiB limit: `wrap` puts `filler` where the payload goes.
fn four_mib(wrap: impl Fn(Value) -> Value, huge_string: bool) -> Vec<u8> {
    let probe = wrap(json!("")).to_string().len();
    let room = 4 * 1024 * 1024 - probe - 64;
    let filler = if huge_string {
        json!("x".repeat(room))
    } else {
        json!(vec![0u8; room / 2])
    };
    let body = wrap(filler).to_string().into_bytes();
    assert!(body.len() <= 4 * 1024 * 1024 && body.len() > 4 * 1024 * 1024 - 4096);
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_bodies_leave_memory_bounded_and_other_clients_fast() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = mcp_tests::conformance::server(Server::builder())
        .state_keys(StateKeys::parse(&format!("1:{}", "ab".repeat(32))).unwrap())
        .build()
        .unwrap();
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::default(),
        std::future::pending(),
    ));
    let modern = |name: &'static str| {
        vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ]
    };
    let plain = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {}, "_meta": meta(false)}})
    .to_string()
    .into_bytes();
    // Warm up the server and the allocator with ordinary traffic.
    for _ in 0..50 {
        let (status, _, _) =
            mcp_tests::support::post(&url, plain.clone(), &modern("test_simple_text")).await;
        assert_eq!(status, 200);
    }
    let before = rss_kib();
    for huge_string in [true, false] {
        for _ in 0..5 {
            let init = four_mib(
                |filler| {
                    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                        "protocolVersion": "2025-11-25", "capabilities": {"x": filler},
                        "clientInfo": {"name": "big", "version": "1"}}})
                },
                huge_string,
            );
            let (status, headers, reply) =
                mcp_tests::support::post(&url, init, &[("mcp-protocol-version", "2025-11-25")])
                    .await;
            assert!(
                !headers.iter().any(|(k, _)| k == "mcp-session-id"),
                "no session is opened: {status} {reply}"
            );
            let task = four_mib(
                |filler| {
                    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                        "name": "slow_compute", "arguments": {"seconds": 30, "label": filler},
                        "_meta": meta(true)}})
                },
                huge_string,
            );
            let (status, _, reply) =
                mcp_tests::support::post(&url, task, &modern("slow_compute")).await;
            assert!(
                matches!(status, 400 | 413),
                "the task is refused: {status} {reply}"
            );
        }
    }
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    assert!(grown_mib < 100, "RSS grew by {grown_mib} MiB");
    // Another client's calls stay fast.
    let mut times = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let (status, _, _) =
            mcp_tests::support::post(&url, plain.clone(), &modern("test_simple_text")).await;
        times.push(started.elapsed());
        assert_eq!(status, 200);
    }
    times.sort();
    let p50 = times[times.len() / 2];
    assert!(p50 < Duration::from_millis(2), "p50 {p50:?}");
}
