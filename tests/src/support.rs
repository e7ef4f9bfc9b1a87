//! Helpers the transport tests share: key rings and a client that answers every input request
//! the fixture server makes.

use mcp_runtime::client::{Client, ClientError};
use mcp_runtime::schema::{ClientCapabilities, InputRequest};
use serde_json::{json, Value};

/// A key ring of one key.
pub const RING_OLD: &str = "1:1111111111111111111111111111111111111111111111111111111111111111";
/// The same key and a newer one that seals.
pub const RING_NEW: &str = "1:1111111111111111111111111111111111111111111111111111111111111111,2:2222222222222222222222222222222222222222222222222222222222222222";

/// The capabilities the answering client declares: forms, sampling and roots.
pub fn caps() -> ClientCapabilities {
    serde_json::from_value(json!({"elicitation": {}, "sampling": {}, "roots": {}})).unwrap()
}

/// Answers forms by field name, sampling with "Paris", roots with one root.
pub fn answering_client(client: Client) -> Client {
    client.with_input(caps(), |_key: &str, req: InputRequest| -> mcp_runtime::BoxFuture<Result<Value, ClientError>> {
        Box::pin(async move {
            Ok(match req {
                InputRequest::ElicitRequest(e) => {
                    let text = serde_json::to_value(&e.params).unwrap().to_string();
                    if text.contains("color") {
                        json!({"action": "accept", "content": {"color": "teal"}})
                    } else if text.contains("\"context\"") {
                        json!({"action": "accept", "content": {"context": "tests"}})
                    } else if text.contains("\"ok\"") {
                        json!({"action": "accept", "content": {"ok": true}})
                    } else {
                        json!({"action": "accept", "content": {"name": "Ada"}})
                    }
                }
                InputRequest::CreateMessageRequest(_) => {
                    json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"})
                }
                InputRequest::ListRootsRequest(_) => json!({"roots": [{"uri": "file:///home/ada"}]}),
            })
        })
    })
}

/// The text of the first content block.
pub fn text(r: &mcp_runtime::schema::CallToolResult) -> String {
    match &r.content[0] {
        mcp_runtime::schema::ContentBlock::TextContent(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}
