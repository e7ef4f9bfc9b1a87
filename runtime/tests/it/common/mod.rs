//! Drive a server purely with JSON-RPC messages.
#![allow(dead_code)]

use oxmcp::Server;
use serde_json::{json, Value};

/// `_meta` for a client with these capabilities.
pub fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1.0.0"}
    })
}

/// Every capability an MRTR client can declare.
pub fn all_caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

/// Send one request and return the whole response.
pub async fn send(server: &Server, id: i64, method: &str, params: Value) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let reply = server
        .handle_message(&msg.to_string(), None)
        .await
        .expect("a request gets a reply")
        .to_value();
    assert_eq!(reply["id"], json!(id), "reply to the right id: {reply}");
    reply
}

/// `tools/call` params.
pub fn call(name: &str, args: Value, caps: Value) -> Value {
    json!({"name": name, "arguments": args, "_meta": meta(caps)})
}

/// A form acceptance.
pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The key of the first input request of an `input_required` result, after checking that it is
/// one.
pub fn first_key(result: &Value) -> String {
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next())
        .cloned()
        .unwrap_or_else(|| panic!("no input request in {result}"))
}
