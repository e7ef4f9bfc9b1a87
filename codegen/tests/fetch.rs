//! `mcp-codegen fetch` verification against a local HTTP server on 127.0.0.1.
#![cfg(feature = "fetch")]

use std::thread;

/// Serve `body` (with `status`) to `n` requests on an ephemeral loopback port.
fn serve(body: &'static [u8], status: u16, n: usize) -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let addr = server.server_addr().to_ip().unwrap();
    thread::spawn(move || {
        for _ in 0..n {
            let Ok(req) = server.recv() else { return };
            let _ = req.respond(tiny_http::Response::from_data(body).with_status_code(status));
        }
    });
    format!("http://{addr}/schema.json")
}

const BODY: &[u8] = b"{\"$defs\": {}}";

#[test]
fn accepts_a_body_with_the_pinned_digest() {
    let url = serve(BODY, 200, 1);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("v/schema.json");
    mcp_codegen::source::fetch_from_url(&url, &mcp_codegen::source::sha256_hex(BODY), &dest)
        .unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), BODY);
}

#[test]
fn refuses_a_body_whose_digest_differs_and_writes_nothing() {
    let url = serve(BODY, 200, 1);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("schema.json");
    let err = mcp_codegen::source::fetch_from_url(&url, &"a".repeat(64), &dest)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sha256 mismatch") && err.contains(&url),
        "{err}"
    );
    assert!(!dest.exists(), "a refused download must not be written");
}

#[test]
fn reports_http_errors() {
    let url = serve(b"nope", 404, 1);
    let dir = tempfile::tempdir().unwrap();
    let err =
        mcp_codegen::source::fetch_from_url(&url, &"a".repeat(64), &dir.path().join("s.json"))
            .unwrap_err();
    assert!(err.to_string().contains("404"), "{err}");
}

#[test]
fn cli_fetch_from_dir_checks_the_digest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("2026-07-28")).unwrap();
    std::fs::write(dir.path().join("2026-07-28/schema.json"), BODY).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .args(["fetch", "2026-07-28", "--from"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sha256 mismatch"));
}
