use oxmcp::prelude::*;

#[mcp_prompt]
async fn greet(times: u32) -> String {
    format!("{times}")
}

fn main() {}
