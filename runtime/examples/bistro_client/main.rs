//! A typed client for the `bistro` example server, generated from its `tools/list`:
//!
//! ```text
//! # the snapshot of bistro's tools, and the module generated from it (both committed; CI
//! # checks the module is fresh)
//! cargo run -p oxmcp-codegen -- client --tools runtime/examples/bistro_client/tools.json \
//!     --struct BistroClient --out runtime/examples/bistro_client/tools.rs
//! cargo build -p oxmcp --example bistro
//! cargo run -p oxmcp --example bistro_client
//! ```
//!
//! It starts bistro over stdio (the binary next to this one), books a table through the typed
//! `book_table`, and answers the form and the sampling request the tool asks for on the way.

#[rustfmt::skip]
mod tools;

use oxmcp::client::{Client, ClientError};
use oxmcp::schema::{ClientCapabilities, InputRequest};
use oxmcp::BoxFuture;
use serde_json::{json, Value};

/// The user and the model, scripted: Ada books; the model writes a fixed greeting.
fn answer(_key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>> {
    Box::pin(async move {
        Ok(match request {
            InputRequest::ElicitRequest(_) => json!({"action": "accept", "content": {
                "name": "Ada", "email": "ada@example.com", "seating": "Terrace"}}),
            InputRequest::CreateMessageRequest(_) => json!({"role": "assistant",
                "model": "scripted", "content": {"type": "text", "text": "Welcome, Ada!"}}),
            InputRequest::ListRootsRequest(_) => json!({"roots": []}),
            // A kind of input request a newer protocol adds: say so rather than guess.
            other => return Err(ClientError::unanswerable(&other)),
        })
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bistro = std::env::current_exe()?.with_file_name("bistro");
    let caps: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {}, "sampling": {}}))?;
    let client = Client::stdio(&bistro.to_string_lossy(), &[])?.with_input(caps, answer);
    let bistro = tools::BistroClient::new(client);
    let booked = bistro
        .book_table(tools::book_table::BookTableArgs {
            restaurant: "Chez Ada".into(),
            party: 2,
        })
        .await?;
    for block in &booked.content {
        if let oxmcp::schema::ContentBlock::TextContent(t) = block {
            println!("{}", t.text);
        }
    }
    Ok(())
}
