use oxmcp::prelude::*;

#[mcp_tool(name = "a", name = "b", annotations(read_only = true, read_only = false))]
async fn tool(#[arg(description = "x", description = "y")] v: String) -> String {
    v
}

fn main() {}
