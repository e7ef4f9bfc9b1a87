use oxmcp::prelude::*;

#[mcp_tool]
fn add(a: i64, b: i64) -> String {
    format!("{}", a + b)
}

fn main() {}
