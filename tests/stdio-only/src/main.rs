//! An MCP server over stdio, built with `oxmcp`'s `stdio` feature alone: what a desktop
//! server needs, with no HTTP stack compiled in (`cargo tree -p mcp-stdio-only` shows no axum or
//! hyper) and, for tools whose arguments are built-in types, no schemars. Its test drives an
//! MRTR round over its stdin and stdout. The `derive` feature adds a tool with a structured
//! argument and output.

use oxmcp::prelude::*;

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

/// Label a parcel: built-in argument types only, so their schemas need no schemars.
#[mcp_tool]
async fn label(
    #[arg(description = "Where it goes.")] city: String,
    stamps: u8,
    tags: Vec<String>,
    express: Option<bool>,
    weight: Option<f64>,
    grade: Option<char>,
    customs: Option<std::collections::BTreeMap<String, u32>>,
) -> String {
    let tags = tags.join(",");
    let express = if express.unwrap_or(false) {
        " express"
    } else {
        ""
    };
    let weight = weight.map(|w| format!(" {w} kg")).unwrap_or_default();
    let grade = grade.map(|g| format!(" grade {g}")).unwrap_or_default();
    let customs = customs
        .map(|c| {
            c.iter()
                .map(|(what, n)| format!(" {n}x{what}"))
                .collect::<String>()
        })
        .unwrap_or_default();
    format!("{city}: {stamps} stamps [{tags}]{express}{weight}{grade}{customs}")
}

/// Where to send a postcard: a structured argument, declared with `#[mcp_type]` so this crate
/// needs no serde or schemars dependency of its own.
#[cfg(feature = "derive")]
#[mcp_type]
struct Address {
    /// The city.
    city: String,
    /// The postal code, if known.
    #[serde(default)]
    postcode: Option<String>,
}

/// What was sent, as structured output.
#[cfg(feature = "derive")]
#[mcp_type]
struct Sent {
    to: String,
    stamps: u8,
}

/// Send a postcard.
#[cfg(feature = "derive")]
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
    let builder = Server::builder()
        .name("stdio-only")
        .version("1.0.0")
        .tool(greet)
        .tool(label);
    #[cfg(feature = "derive")]
    let builder = builder.tool(postcard);
    let server = builder.build().map_err(std::io::Error::other)?;
    server.serve_stdio().await
}
