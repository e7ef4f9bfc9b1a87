use oxmcp::prelude::*;

#[mcp_tool]
async fn shout(text: &str) -> String {
    text.to_uppercase()
}

fn main() {}
