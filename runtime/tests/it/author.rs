//! What a server author relies on beyond handlers: any error type as a handler's error, "not
//! found" from a resource, in-process rounds with scripted answers, the client's capabilities
//! builder, key entries for `MCP_STATE_KEYS`, host settings behind a proxy, logging setup.

use crate::common;

use common::{meta, send};
use oxmcp::client::Capabilities;
use oxmcp::prelude::*;
use oxmcp::request_state::{KeyRing, SealingKey};
use oxmcp::schema::{ContentBlock, InputRequest};
use oxmcp::testing::Rounds;
use serde_json::json;

#[derive(Debug)]
struct Shelf;

impl std::fmt::Display for Shelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the shelf is empty")
    }
}

/// Fails through anyhow.
#[mcp_tool]
async fn with_anyhow(fail: bool) -> anyhow::Result<String> {
    if fail {
        anyhow::bail!("disk full");
    }
    Ok("fine".into())
}

/// Fails with a type that only implements Display.
#[mcp_tool]
async fn with_display(fail: bool) -> Result<String, Shelf> {
    if fail {
        Err(Shelf)
    } else {
        Ok("stocked".into())
    }
}

/// Fails with a boxed std error.
#[mcp_tool]
async fn with_boxed(n: String) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    Ok(n.parse::<i64>()?.to_string())
}

/// Says "not found" for ids it does not know.
#[mcp_resource(uri = "shop://items/{id}")]
async fn item(id: String) -> Result<String, ToolError> {
    match id.as_str() {
        "1" => Ok("apple".into()),
        _ => Err(ToolError::resource_not_found(&format!("shop://items/{id}"))),
    }
}

#[derive(ElicitForm)]
struct Name {
    /// Your name.
    name: String,
}

/// Two questions, then a greeting.
#[mcp_tool]
async fn two_questions() -> Result<String, ToolError> {
    let first = match elicit::<Name>("First?").await? {
        Elicited::Accept(n) => n.name,
        _ => return Ok("declined".into()),
    };
    let reply = sample(Sampling::user(format!("A nickname for {first}?"))).await?;
    Ok(format!(
        "{first} alias {}",
        reply.text().unwrap_or_default()
    ))
}

fn server() -> Server {
    Server::builder()
        .request_state_keys(KeyRing::parse(&format!("1:{}", "ef".repeat(32))).unwrap())
        .tool(with_anyhow)
        .tool(with_display)
        .tool(with_boxed)
        .tool(two_questions)
        .resource(item)
        .build()
        .unwrap()
}

fn text(r: &oxmcp::schema::CallToolResult) -> String {
    match &r.content[0] {
        ContentBlock::TextContent(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn any_displayable_error_is_a_tool_error_with_its_message() {
    let s = std::sync::Arc::new(server());
    let mut rounds = Rounds::new(s.clone());
    for (tool, args, message) in [
        ("with_anyhow", json!({"fail": true}), "disk full"),
        ("with_display", json!({"fail": true}), "the shelf is empty"),
        (
            "with_boxed",
            json!({"n": "x"}),
            "invalid digit found in string",
        ),
    ] {
        let r = rounds
            .call_tool(tool, args, |_, _| json!({}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true), "{tool}");
        assert_eq!(text(&r), message, "{tool}");
    }
    let ok = rounds
        .call_tool("with_anyhow", json!({"fail": false}), |_, _| json!({}))
        .await
        .unwrap();
    assert_eq!(text(&ok), "fine");
}

#[tokio::test]
async fn a_resource_says_not_found_with_the_protocol_error() {
    let s = server();
    let found = send(
        &s,
        1,
        "resources/read",
        json!({"uri": "shop://items/1", "_meta": meta(json!({}))}),
    )
    .await;
    assert_eq!(found["result"]["contents"][0]["text"], "apple");
    let missing = send(
        &s,
        2,
        "resources/read",
        json!({"uri": "shop://items/9", "_meta": meta(json!({}))}),
    )
    .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["message"], "Resource not found");
    assert_eq!(missing["error"]["data"]["uri"], "shop://items/9");
}

#[tokio::test]
async fn rounds_drive_a_multi_round_tool_with_scripted_answers() {
    let s = std::sync::Arc::new(server());
    let mut rounds = Rounds::new(s.clone());
    let result = rounds
        .call_tool("two_questions", json!({}), |_key, request| match request {
            InputRequest::ElicitRequest(_) => json!({"action": "accept", "content": {"name": "Ada"}}),
            _ => json!({"role": "assistant", "content": {"type": "text", "text": "Countess"}, "model": "m"}),
        })
        .await
        .unwrap();
    assert_eq!(text(&result), "Ada alias Countess");
    let kinds: Vec<&str> = rounds
        .asked()
        .iter()
        .map(|(_, r)| r.variant_name())
        .collect();
    assert_eq!(kinds, ["ElicitRequest", "CreateMessageRequest"]);

    // Without sampling declared, the tool cannot go on: -32021.
    let mut no_sampling =
        Rounds::new(s.clone()).capabilities(Capabilities::new().elicitation_form().build());
    let err = no_sampling
        .call_tool(
            "two_questions",
            json!({}),
            |_, _| json!({"action": "accept", "content": {"name": "Bo"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, -32021);
}

#[test]
fn the_capabilities_builder_writes_what_the_protocol_expects() {
    let caps = Capabilities::new()
        .elicitation_form()
        .elicitation_url()
        .sampling_with_tools()
        .roots()
        .build();
    assert_eq!(
        serde_json::to_value(caps).unwrap(),
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}})
    );
    assert_eq!(
        serde_json::to_value(Capabilities::new().build()).unwrap(),
        json!({})
    );
}

#[test]
fn a_generated_key_entry_is_a_ring_of_its_own_and_rotates_in() {
    let first = SealingKey::generate_entry(1).unwrap();
    let second = SealingKey::generate_entry(2).unwrap();
    assert_ne!(first[2..], second[2..], "fresh randomness each time");
    assert_eq!(first.len(), 2 + 64);
    assert!(first.starts_with("1:") && second.starts_with("2:"));
    assert!(first[2..].bytes().all(|b| b.is_ascii_hexdigit()));
    KeyRing::parse(&format!("{first},{second}")).expect("the entries form a ring");
}

#[tokio::test]
async fn allowed_hosts_admit_a_public_name_behind_a_proxy() {
    use oxmcp::http::{serve_listener, HttpConfig};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let config = HttpConfig::default().allowed_hosts(vec!["mcp.example.com".into()]);
    tokio::spawn(serve_listener(
        std::sync::Arc::new(server()),
        listener,
        config,
        std::future::pending(),
    ));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                      "params": {"_meta": meta(json!({}))}})
    .to_string();
    let headers = |host: &'static str| {
        vec![
            ("host", host),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "server/discover"),
        ]
    };
    let (status, _, _) =
        mcp_tests::support::post(&url, body.clone().into_bytes(), &headers("mcp.example.com"))
            .await;
    assert_eq!(status, 200);
    let (status, _, _) =
        mcp_tests::support::post(&url, body.into_bytes(), &headers("evil.example")).await;
    assert_eq!(status, 403);
}

#[test]
fn logging_setup_is_one_line_and_safe_to_repeat() {
    oxmcp::logging::init();
    oxmcp::logging::init();
    tracing::info!("logged to stderr");
}
