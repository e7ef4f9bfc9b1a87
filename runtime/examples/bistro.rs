//! A small MCP server with a multi-round tool: it asks who the booking is for (a form), asks
//! the client's model for a greeting, and books once.
//!
//! ```text
//! cargo run -p mcp-runtime --example bistro              # stdio
//! cargo run -p mcp-runtime --example bistro -- --http 127.0.0.1:8080   # http://127.0.0.1:8080/mcp
//! ```

use mcp_runtime::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

static NEXT_BOOKING: AtomicU32 = AtomicU32::new(1);

#[derive(ElicitEnum, Debug)]
enum Seating {
    #[elicit(title = "Inside")]
    Inside,
    #[elicit(title = "On the terrace")]
    Terrace,
}

#[derive(ElicitForm, Debug)]
struct Contact {
    /// Who the table is for.
    name: String,
    /// Where we send the confirmation.
    #[elicit(format = "email")]
    email: String,
    seating: Option<Seating>,
}

/// Book a table at a restaurant.
#[mcp_tool(annotations(destructive = false, open_world = false))]
async fn book_table(
    #[arg(description = "The restaurant's name")] restaurant: String,
    #[arg(description = "How many people")] party: u8,
) -> Result<String, ToolError> {
    let who = match elicit::<Contact>(format!("Who is the table for {party} at {restaurant} for?"))
        .await?
    {
        Elicited::Accept(c) => c,
        Elicited::Decline | Elicited::Cancel => return Ok("Booking cancelled.".into()),
    };
    // Prefer a greeting from the client's model; without sampling, use a plain one.
    let greeting = match sample(
        Sampling::user(format!("Write a one-line welcome for {}", who.name)).max_tokens(40),
    )
    .await
    {
        Ok(r) => r.text().unwrap_or("Welcome!").to_string(),
        Err(AskError::MissingCapability(_)) => "Welcome!".to_string(),
        Err(e) => return Err(e.into()),
    };
    // The side effect runs once, however many rounds the call takes.
    let id = step("book", async {
        Ok::<_, ToolError>(NEXT_BOOKING.fetch_add(1, Ordering::SeqCst))
    })
    .await?;
    Ok(format!(
        "Booking #{id}: {party} at {restaurant} for {} <{}> ({:?}). {greeting}",
        who.name,
        who.email,
        who.seating.unwrap_or(Seating::Inside)
    ))
}

/// Today's specials.
#[mcp_resource(uri = "bistro://specials", name = "specials", mime_type = "text/plain")]
async fn specials() -> String {
    "Soupe à l'oignon; ratatouille; tarte tatin".into()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::builder()
        .name("bistro")
        .version("1.0.0")
        .instructions("Books tables. Ask before booking for someone else.")
        .tool(book_table)
        .resource(specials)
        .build()
        .map_err(std::io::Error::other)?;
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--http") {
        Some(i) => {
            let addr = args
                .get(i + 1)
                .map(String::as_str)
                .unwrap_or("127.0.0.1:8080");
            eprintln!("bistro: http://{addr}/mcp");
            server.serve_http(addr).await
        }
        None => server.serve_stdio().await,
    }
}
