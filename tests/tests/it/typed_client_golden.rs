//! The typed client module committed in `typed_client/generated.rs` is what `oxmcp-codegen
//! client` makes of the fixture server's `tools/list` today (`UPDATE_GOLDEN=1` rewrites it),
//! and a change to the server's tools is reported by `check` as a diff. The same for the corpus
//! of tools shaped like real public servers' (`typed_client/corpus_tools.json`). `typed_client.rs`
//! compiles the module and calls the server through it.

use serde_json::{json, Value};

const GENERATED: &str = "tests/it/typed_client/generated.rs";

/// The fixture server's `tools/list` result.
async fn tools_list() -> Value {
    let server = mcp_tests::typed_tools::server();
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let reply = server.handle_message(&msg.to_string(), None).await.unwrap();
    reply.to_value()["result"].clone()
}

/// The module `b` generates is the committed one at `relative` (under the crate), or rewritten
/// there with `UPDATE_GOLDEN=1`.
fn assert_fresh(b: &oxmcp_codegen::ClientBuilder, relative: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, b.generate_string().unwrap()).unwrap();
    }
    if let Some(diff) = b.check(&path).unwrap() {
        panic!("{relative} is stale (UPDATE_GOLDEN=1 rewrites it):\n{diff}");
    }
}

fn builder(tools: Value) -> oxmcp_codegen::ClientBuilder {
    oxmcp_codegen::ClientBuilder::from_tools_list(tools).struct_name("TripClient")
}

#[tokio::test]
async fn the_committed_client_is_what_the_generator_makes_of_the_servers_tools() {
    assert_fresh(&builder(tools_list().await), GENERATED);
}

#[tokio::test]
async fn a_changed_tool_is_reported_as_drift() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED);
    let mut tools = tools_list().await;
    tools["tools"][0]["inputSchema"]["properties"]["budget"] =
        json!({"type": "integer", "description": "At most this much"});
    let diff = builder(tools)
        .check(&path)
        .unwrap()
        .expect("a new argument is drift");
    assert!(diff.contains("budget"), "{diff}");
}

#[test]
fn the_committed_corpus_client_is_fresh() {
    let tools = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/typed_client/corpus_tools.json");
    let b = oxmcp_codegen::ClientBuilder::from_file(tools).struct_name("CorpusClient");
    assert_fresh(&b, "tests/it/typed_client/corpus.rs");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_live_server_gives_the_same_client_as_its_saved_tools() {
    let server = std::sync::Arc::new(mcp_tests::typed_tools::server());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(oxmcp::http::serve_listener(
        server,
        listener,
        Default::default(),
        std::future::pending(),
    ));
    // As `oxmcp-codegen client --url` does: every tool listed with the runtime's client.
    let tools = oxmcp::client::Client::http(&url)
        .list_all_tools()
        .await
        .unwrap();
    let live = oxmcp_codegen::ClientBuilder::from_tools_list(
        serde_json::json!({ "tools": serde_json::to_value(&tools).unwrap() }),
    )
    .struct_name("TripClient")
    .generate_string()
    .unwrap();
    let saved = builder(tools_list().await).generate_string().unwrap();
    assert_eq!(live, saved);
}

#[test]
fn a_generated_module_needs_no_dependency_but_the_runtime_and_declares_no_error_type() {
    for relative in [GENERATED, "tests/it/typed_client/corpus.rs"] {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative),
        )
        .unwrap();
        // serde and serde_json only through the runtime's re-exports, so the user's crate
        // needs neither.
        let direct = text
            .match_indices("serde")
            .filter(|(at, _)| {
                let before = &text[..*at];
                before.ends_with("::") && !before.ends_with("__private::")
            })
            .count();
        assert_eq!(direct, 0, "{relative} names serde directly");
        // Every serde derive is told where serde is (else it would name the serde crate).
        let derives = text.matches("__private::serde::Deserialize,").count()
            + text.matches("__private::serde::Serialize,").count();
        assert!(derives > 0, "{relative}");
        let told = text
            .matches("#[serde(crate = \"::oxmcp::__private::serde\")]")
            .count();
        let items = text
            .split("#[derive(")
            .skip(1)
            .filter(|d| d[..d.find(")]").unwrap()].contains("serde"))
            .count();
        assert_eq!(
            told, items,
            "{relative}: a serde derive without #[serde(crate)]"
        );
        // One conversion error, the runtime's.
        assert!(!text.contains("struct ConversionError"), "{relative}");
        assert!(!text.contains("mod error"), "{relative}");
    }
}

#[test]
fn a_runtime_path_of_ones_own_is_used_everywhere() {
    let tools = json!({"tools": [{"name": "pick", "inputSchema": {"type": "object",
        "properties": {"size": {"type": "string", "enum": ["s", "m"]}}}}]});
    let text = oxmcp_codegen::ClientBuilder::from_tools_list(tools)
        .runtime_path("::my_sdk::mcp")
        .generate_string()
        .unwrap();
    assert!(
        text.contains("use ::my_sdk::mcp::client::{Client, ClientError};"),
        "{text}"
    );
    assert!(
        text.contains("::my_sdk::mcp::client::typed::ConversionError"),
        "{text}"
    );
    assert!(
        text.contains("#[serde(crate = \"::my_sdk::mcp::__private::serde\")]"),
        "{text}"
    );
    assert!(!text.contains("::oxmcp"), "{text}");
}
