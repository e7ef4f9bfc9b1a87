//! What a client sends does not decide how much the server holds: five sessions opened with a
//! 4 MiB `initialize` and five tasks started with a 4 MiB argument (each in two shapes: one huge
//! string, and a million small values) leave the process less than 100 MiB larger; forty
//! `resources/subscribe` of 4 MiB URIs less than 50 MiB; twenty tasks with a 4 MiB `_meta` less
//! than 80 MiB; a skill whose frontmatter is an alias bomb, indexed by a server, less than
//! 100 MiB; and another client's `tools/call` stays fast. One test in its own binary, so
//! nothing else moves the process's memory meanwhile.

use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::{request_state::KeyRing, Server};
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

/// A body just under the 4 MiB limit: `wrap` puts `filler` where the payload goes. The filler's
/// text is written directly and spliced in (a million-value `Value` would take longer to build
/// and print in a debug build than the server takes to refuse it).
fn four_mib(wrap: impl Fn(Value) -> Value, huge_string: bool) -> Vec<u8> {
    const MARK: &str = "\"filler-goes-here\"";
    let frame = wrap(json!("filler-goes-here")).to_string();
    let room = 4 * 1024 * 1024 - (frame.len() - MARK.len()) - 64;
    let filler = if huge_string {
        format!("\"{}\"", "x".repeat(room - 2))
    } else {
        format!("[{}0]", "0,".repeat(room / 2 - 1))
    };
    let body = frame.replacen(MARK, &filler, 1).into_bytes();
    assert!(body.len() <= 4 * 1024 * 1024 && body.len() > 4 * 1024 * 1024 - 4096);
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_bodies_leave_memory_bounded_and_other_clients_fast() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = mcp_tests::conformance::server(Server::builder())
        .request_state_keys(KeyRing::parse(&format!("1:{}", "ab".repeat(32))).unwrap())
        .build()
        .unwrap();
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::default(),
        std::future::pending(),
    ));
    let stateless = |name: &'static str| {
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
            mcp_tests::support::post(&url, plain.clone(), &stateless("test_simple_text")).await;
        assert_eq!(status, 200);
    }
    // The spliced bodies are JSON (checked without building a value), so a refusal below is the
    // server's limits at work, not a parse error.
    for huge_string in [true, false] {
        let body = four_mib(|filler| json!({"payload": filler}), huge_string);
        serde_json::from_slice::<&serde_json::value::RawValue>(&body).unwrap();
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
                mcp_tests::support::post(&url, task, &stateless("slow_compute")).await;
            assert!(
                matches!(status, 400 | 413),
                "the task is refused: {status} {reply}"
            );
        }
    }
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    assert!(grown_mib < 100, "RSS grew by {grown_mib} MiB");

    // Forty subscriptions of 4 MiB URIs in one 2025 session: refused past the session's
    // limits, none kept.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "subscriber", "version": "1"}}})
    .to_string()
    .into_bytes();
    let (status, headers, reply) =
        mcp_tests::support::post(&url, init, &[("mcp-protocol-version", "2025-11-25")]).await;
    assert_eq!(status, 200, "{reply}");
    let session = headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session");
    let in_session = [
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", session.as_str()),
    ];
    let before = rss_kib();
    let mut refused = 0;
    for i in 0..40 {
        let subscribe = four_mib(
            |filler| {
                json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe",
                       "params": {"uri": filler}})
            },
            true,
        );
        let (status, _, reply) = mcp_tests::support::post(&url, subscribe, &in_session).await;
        assert_eq!(status, 200, "{reply}");
        if reply["error"]["code"] == -32602 {
            refused += 1;
        }
    }
    assert_eq!(refused, 40, "every 4 MiB subscription is refused");
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    assert!(grown_mib < 50, "subscriptions: RSS grew by {grown_mib} MiB");

    // Twenty tasks whose `_meta` is 4 MiB: refused by the task budget, none kept.
    let before = rss_kib();
    for _ in 0..20 {
        let task = four_mib(
            |filler| {
                let mut meta = meta(true);
                meta["pad"] = filler;
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                    "name": "slow_compute", "arguments": {"seconds": 30}, "_meta": meta}})
            },
            true,
        );
        let (status, _, reply) =
            mcp_tests::support::post(&url, task, &stateless("slow_compute")).await;
        assert_eq!(status, 400, "the task is refused: {reply}");
    }
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    assert!(
        grown_mib < 80,
        "tasks with a large _meta: RSS grew by {grown_mib} MiB"
    );

    // A skill whose frontmatter nests aliases nine deep, nine wide (9^9 copies if expanded),
    // beside a sound one: the server indexes the sound one and leaves the bomb out.
    let skills = tempfile::tempdir().unwrap();
    let mut bomb = String::from("---\nname: bomb\ndescription: d\na: &a [\"lol\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(", ");
        bomb.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    bomb.push_str("---\n");
    for (name, text) in [
        ("bomb", bomb),
        (
            "sound",
            "---\nname: sound\ndescription: d\n---\n# Sound\n".to_string(),
        ),
    ] {
        std::fs::create_dir(skills.path().join(name)).unwrap();
        std::fs::write(skills.path().join(name).join("SKILL.md"), text).unwrap();
    }
    let before = rss_kib();
    let indexed = Server::builder()
        .skills_dir(skills.path())
        .request_state_keys(KeyRing::parse(&format!("1:{}", "ab".repeat(32))).unwrap())
        .build();
    let grown_mib = rss_kib().saturating_sub(before) / 1024;
    assert!(
        grown_mib < 100,
        "an alias bomb: RSS grew by {grown_mib} MiB"
    );
    assert!(indexed.is_ok(), "the server starts without the bomb");
    // Another client's calls stay fast.
    let mut times = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let (status, _, _) =
            mcp_tests::support::post(&url, plain.clone(), &stateless("test_simple_text")).await;
        times.push(started.elapsed());
        assert_eq!(status, 200);
    }
    times.sort();
    let p50 = times[times.len() / 2];
    assert!(p50 < Duration::from_millis(2), "p50 {p50:?}");
}
