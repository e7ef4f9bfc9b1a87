use oxmcp::prelude::*;

#[mcp_tool]
async fn tool(value: impl Into<String>) -> String {
    value.into()
}

fn main() {}
