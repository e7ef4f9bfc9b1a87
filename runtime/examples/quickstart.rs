//! A table-booking MCP server over stdio: the README's example.
use oxmcp::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// The application's state: here a counter; in a real server a database pool, a config.
struct Bookings {
    next: AtomicU32,
}

#[derive(ElicitForm)]
struct Contact {
    /// Who the table is for.
    name: String,
    #[elicit(format = "email")]
    email: String,
}

/// Book a table.
#[mcp_tool]
async fn book_table(
    bookings: State<Bookings>, // registered with .state(...); not a tool argument
    caller: Option<Principal>, // the authenticated caller, if any; not a tool argument
    restaurant: String,
    party: u8,
) -> Result<String, ToolError> {
    let who = match elicit::<Contact>("Who is the booking for?").await? {
        Elicited::Accept(c) => c,
        Elicited::Decline | Elicited::Cancel => return Ok("Booking cancelled.".into()),
    };
    // Runs once, however many rounds the call takes.
    let id = step("reserve", async {
        Ok::<_, ToolError>(bookings.next.fetch_add(1, Ordering::SeqCst))
    })
    .await?;
    let by = caller
        .map(|p| p.subject)
        .unwrap_or_else(|| "anonymous".into());
    Ok(format!(
        "Booked #{id} at {restaurant} for {party}, name {} <{}> (by {by})",
        who.name, who.email
    ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let telemetry = oxmcp::otel::init()?; // logs to stderr; traces too if OTEL_EXPORTER_OTLP_ENDPOINT
    let server = Server::builder()
        .name("bistro")
        .version("1.0.0")
        .state(Bookings {
            next: AtomicU32::new(1),
        })
        // The requestState key ring from MCP_STATE_KEYS when set (every instance the same);
        // without it a random key is made at start, and a log line says so.
        .request_state_keys_from_env()
        .tool(book_table)
        .build()?; // fails if a handler needs a state type that is not registered
    if std::env::args().any(|a| a == "--http") {
        eprintln!("MCP at http://127.0.0.1:8080/mcp: in MCP Inspector (npx @modelcontextprotocol/inspector) pick Streamable HTTP");
        server.serve_http("127.0.0.1:8080").await?; // or .into_router() for axum
    } else {
        eprintln!("MCP on stdin/stdout: npx @modelcontextprotocol/inspector cargo run -p oxmcp --example quickstart");
        server.serve_stdio().await?;
    }
    Ok(telemetry.shutdown().await?)
}
