//! A one-tool MCP server over stdio, built with `mcp-runtime`'s `stdio` feature alone: what a
//! desktop server needs, with no HTTP stack compiled in (`cargo tree -p mcp-stdio-only` shows no
//! axum or hyper). Its test drives an MRTR round over its stdin and stdout.

use mcp_runtime::prelude::*;

#[derive(ElicitForm)]
struct Name {
    /// Who to greet.
    name: String,
}

/// Greet someone, asking for their name.
#[mcp_tool]
async fn greet(greeting: String) -> Result<String, ToolError> {
    match elicit::<Name>("Who is it?").await? {
        Elicited::Accept(n) => Ok(format!("{greeting}, {}!", n.name)),
        Elicited::Decline | Elicited::Cancel => Ok("Nobody to greet.".into()),
    }
}

/// Where to send a postcard: a structured argument, declared with `#[mcp_type]` so this crate
/// needs no serde or schemars dependency of its own.
#[mcp_type]
struct Address {
    /// The city.
    city: String,
    /// The postal code, if known.
    #[serde(default)]
    postcode: Option<String>,
}

/// What was sent, as structured output.
#[mcp_type]
struct Sent {
    to: String,
    stamps: u8,
}

/// Send a postcard.
#[mcp_tool]
async fn postcard(address: Address, stamps: u8) -> Json<Sent> {
    let to = match address.postcode {
        Some(code) => format!("{code} {}", address.city),
        None => address.city,
    };
    Json(Sent { to, stamps })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let server = Server::builder()
        .name("stdio-only")
        .version("1.0.0")
        .tool(greet)
        .tool(postcard)
        .build()
        .map_err(std::io::Error::other)?;
    server.serve_stdio().await
}
