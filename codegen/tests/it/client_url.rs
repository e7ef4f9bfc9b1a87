//! `oxmcp-codegen client --url`: the tools of a live server, listed with the runtime's client,
//! so a 2025-era server (a session opened by `initialize`) and a server that answers with an
//! event stream work, with the headers given by `--header`. The servers here are small
//! loopback stand-ins that speak each wire and refuse a request without the bearer token.
#![cfg(feature = "cli")]

use serde_json::{json, Value};
use std::process::Command;
use std::sync::{Arc, Mutex};

const TOKEN: &str = "Bearer s3cret";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
}

/// The tools both servers list: the example server's, as saved in the repository.
fn tools() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../runtime/examples/bistro_client/tools.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// How a stand-in server speaks.
#[derive(Clone, Copy)]
enum Wire {
    /// 2025-11-25: `initialize` opens a session; every answer is an event stream.
    Legacy2025,
    /// 2026-07-28: stateless, answering `tools/list` with an event stream.
    ModernSse,
}

/// The requests a stand-in server saw, as (method or HTTP verb, Authorization header).
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A server on an ephemeral loopback port, and what it saw.
fn serve(wire: Wire) -> (String, Seen) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let addr = server.server_addr().to_ip().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let tools = tools();
    std::thread::spawn(move || {
        for mut req in server.incoming_requests() {
            let header = |name: &'static str| {
                req.headers()
                    .iter()
                    .find(|h| h.field.equiv(name))
                    .map(|h| h.value.to_string())
            };
            let auth = header("Authorization").unwrap_or_default();
            let session = header("Mcp-Session-Id");
            let mut body = String::new();
            let _ = req.as_reader().read_to_string(&mut body);
            let msg: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let method = msg["method"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| req.method().to_string());
            log.lock().unwrap().push((method.clone(), auth.clone()));
            if auth != TOKEN {
                let _ = req.respond(
                    tiny_http::Response::from_string("")
                        .with_status_code(401)
                        .with_header(h("WWW-Authenticate", "Bearer")),
                );
                continue;
            }
            let reply =
                |result: Value| json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            let sse = |v: Value| {
                tiny_http::Response::from_string(format!("event: message\ndata: {v}\n\n"))
                    .with_header(h("Content-Type", "text/event-stream"))
            };
            let _ = match (wire, method.as_str()) {
                (Wire::Legacy2025, "initialize") => req.respond(
                    sse(reply(json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "session-era", "version": "1"}
                    })))
                    .with_header(h("Mcp-Session-Id", "s-1")),
                ),
                // Everything else of a 2025 server needs the session.
                (Wire::Legacy2025, _) if session.as_deref() != Some("s-1") => req
                    .respond(tiny_http::Response::from_string("no session").with_status_code(400)),
                (Wire::Legacy2025, "notifications/initialized") => {
                    req.respond(tiny_http::Response::from_string("").with_status_code(202))
                }
                (Wire::Legacy2025, "GET") => {
                    req.respond(tiny_http::Response::from_string("").with_status_code(405))
                }
                (Wire::ModernSse, "server/discover") => req.respond(
                    tiny_http::Response::from_string(
                        reply(json!({
                            "supportedVersions": ["2026-07-28"],
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "stateless-era", "version": "1"}
                        }))
                        .to_string(),
                    )
                    .with_header(h("Content-Type", "application/json")),
                ),
                (_, "tools/list") => req.respond(sse(reply(tools.clone()))),
                _ => req.respond(tiny_http::Response::from_string("").with_status_code(404)),
            };
        }
    });
    (format!("http://{addr}/mcp"), seen)
}

fn h(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap()
}

/// The module `client --tools` writes for the same tools, to compare with.
fn from_file() -> String {
    let out = bin()
        .args([
            "client",
            "--struct",
            "BistroClient",
            "--tools",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../runtime/examples/bistro_client/tools.json"
            ),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The struct's doc comment names where the tools came from.
    String::from_utf8(out.stdout)
        .unwrap()
        .replace("tools in tools.json", "tools in a tools/list result")
}

fn from_url(url: &str, header: Option<&str>) -> std::process::Output {
    let mut cmd = bin();
    cmd.args(["client", "--struct", "BistroClient", "--url", url]);
    if let Some(header) = header {
        cmd.args(["--header", header]);
    }
    cmd.output().unwrap()
}

#[test]
fn a_2025_era_server_answering_with_event_streams() {
    let (url, seen) = serve(Wire::Legacy2025);
    let out = from_url(&url, Some(&format!("Authorization: {TOKEN}")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), from_file());
    let seen = seen.lock().unwrap();
    let methods: Vec<&str> = seen.iter().map(|(m, _)| m.as_str()).collect();
    assert!(methods.contains(&"initialize"), "{methods:?}");
    assert!(methods.contains(&"tools/list"), "{methods:?}");
    assert!(seen.iter().all(|(_, auth)| auth == TOKEN), "{seen:?}");
}

#[test]
fn a_2026_server_answering_with_an_event_stream() {
    let (url, seen) = serve(Wire::ModernSse);
    let out = from_url(&url, Some(&format!("authorization:{TOKEN}")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), from_file());
    let seen = seen.lock().unwrap();
    assert!(
        !seen.iter().any(|(m, _)| m == "initialize"),
        "a 2026 server gets no initialize: {seen:?}"
    );
    assert!(seen.iter().all(|(_, auth)| auth == TOKEN), "{seen:?}");
}

#[test]
fn without_the_token_the_error_is_one_line() {
    let (url, _) = serve(Wire::ModernSse);
    let out = from_url(&url, None);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    let out = from_url(&url, Some("no colon here"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'NAME: VALUE'"));
}
