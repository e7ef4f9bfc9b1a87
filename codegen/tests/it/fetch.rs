//! `oxmcp-codegen fetch` verification against a local HTTP server on 127.0.0.1.
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
    oxmcp_codegen::source::fetch_from_url(&url, &oxmcp_codegen::source::sha256_hex(BODY), &dest)
        .unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), BODY);
}

#[test]
fn refuses_a_body_whose_digest_differs_and_writes_nothing() {
    let url = serve(BODY, 200, 1);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("schema.json");
    let err = oxmcp_codegen::source::fetch_from_url(&url, &"a".repeat(64), &dest)
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
        oxmcp_codegen::source::fetch_from_url(&url, &"a".repeat(64), &dir.path().join("s.json"))
            .unwrap_err();
    assert!(err.to_string().contains("404"), "{err}");
}

#[test]
fn cli_fetch_from_dir_checks_the_digest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("2026-07-28")).unwrap();
    std::fs::write(dir.path().join("2026-07-28/schema.json"), BODY).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
        .args(["fetch", "2026-07-28", "--from"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sha256 mismatch"));
}

/// The repository's own spec data, as a `--from` source.
fn repo_schema() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema")
}

#[test]
fn cli_fetch_all_copies_every_version_its_examples_and_the_license() {
    let into = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
        .args(["fetch", "--all", "--from"])
        .arg(repo_schema())
        .arg("--into")
        .arg(into.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pins = oxmcp_codegen::Pins::builtin().unwrap();
    // What was copied verifies against the pins, as `check` verifies the repository's copy.
    let report = oxmcp_codegen::source::verify_tree(into.path(), &pins).unwrap();
    assert_eq!(report.len(), pins.versions.len());
    assert!(into.path().join("LICENSE").is_file());
    let with_examples = pins
        .versions
        .iter()
        .filter(|p| p.examples_sha256.is_some())
        .count();
    assert!(with_examples >= 1);
    assert!(into.path().join("2026-07-28/examples").is_dir());
}

#[test]
fn cli_fetch_refuses_examples_that_differ_from_the_pin() {
    // A source whose examples gained a file: the schema is copied, the examples are refused
    // and what was there before stays.
    let src = tempfile::tempdir().unwrap();
    let version = src.path().join("2026-07-28");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::copy(
        repo_schema().join("2026-07-28/schema.json"),
        version.join("schema.json"),
    )
    .unwrap();
    std::fs::create_dir_all(version.join("examples/Extra")).unwrap();
    std::fs::write(version.join("examples/Extra/one.json"), "{}").unwrap();
    let into = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(into.path().join("2026-07-28/examples")).unwrap();
    std::fs::write(into.path().join("2026-07-28/examples/keep.json"), "{}").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
        .args(["fetch", "2026-07-28", "--from"])
        .arg(src.path())
        .arg("--into")
        .arg(into.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("examples digest mismatch"), "{stderr}");
    assert!(into.path().join("2026-07-28/examples/keep.json").is_file());
}
