use oxmcp::prelude::*;

#[mcp_tool(nmae = "x")]
async fn tool() -> String {
    String::new()
}

fn main() {}
