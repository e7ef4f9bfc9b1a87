//! A small MCP server with a multi-round tool: it asks who the booking is for (a form), asks
//! the client's model for a greeting, and books once. The booking book is application state;
//! the caller, when authenticated, is noted on the booking.
//!
//! ```text
//! cargo run -p oxmcp --example bistro              # stdio
//! cargo run -p oxmcp --example bistro -- --http 127.0.0.1:8080   # http://127.0.0.1:8080/mcp
//! # bearer authentication: JWT access tokens signed by a key of the JWKS file
//! cargo run -p oxmcp --example bistro -- --http 127.0.0.1:8080 \
//!     --auth-jwks jwks.json --auth-issuer https://auth.example.com
//! ```
//!
//! `MCP_STATE_KEYS` sets the `requestState` key ring (see the `state-key` example); `RUST_LOG`
//! the log level (logs go to stderr).

use oxmcp::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// The restaurant's booking book, shared by every call.
struct Bookings {
    next: AtomicU32,
}

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
    bookings: State<Bookings>,
    caller: Option<Principal>,
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
        Ok::<_, ToolError>(bookings.next.fetch_add(1, Ordering::SeqCst))
    })
    .await?;
    let by = caller.map_or_else(String::new, |p| format!(" (booked by {})", p.subject));
    Ok(format!(
        "Booking #{id}: {party} at {restaurant} for {} <{}> ({:?}){by}. {greeting}",
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

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    oxmcp::logging::init();
    let mut builder = Server::builder()
        .name("bistro")
        .version("1.0.0")
        .instructions("Books tables. Ask before booking for someone else.")
        .state(Bookings {
            next: AtomicU32::new(1),
        })
        .tool(book_table)
        .resource(specials);
    if let Ok(ring) = std::env::var("MCP_STATE_KEYS") {
        builder = builder.request_state_keys(oxmcp::request_state::KeyRing::parse(&ring)?);
    }
    let server = builder.build()?;
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--http") {
        return Ok(server.serve_stdio().await?);
    }
    let addr = flag(&args, "--http").unwrap_or_else(|| "127.0.0.1:8080".into());
    let mut config = oxmcp::http::HttpConfig::default();
    if let (Some(jwks), Some(issuer)) = (flag(&args, "--auth-jwks"), flag(&args, "--auth-issuer")) {
        use oxmcp::auth::{AuthConfig, JwksFile, JwtVerifier};
        // Tokens must name this endpoint as their audience.
        let resource = format!("http://{addr}/mcp");
        let verifier = JwtVerifier::new(JwksFile(jwks.into()), issuer.clone(), resource.clone());
        config.auth = Some(AuthConfig::new(verifier, resource).authorization_server(issuer));
    }
    tracing::info!("bistro: http://{addr}/mcp");
    Ok(server.serve_http_with(&addr, config).await?)
}
