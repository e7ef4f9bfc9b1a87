use oxmcp::prelude::*;

#[mcp_tool(nmae = "x", title = "T")]
fn tool(city: &str, #[arg(descripton = "d")] n: i64) -> String {
    format!("{city}{n}")
}

fn main() {
    // The function is kept, so code that calls it still type-checks.
    let _ = tool("x", 1);
}
