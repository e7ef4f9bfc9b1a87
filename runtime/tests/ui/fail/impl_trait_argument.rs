use mcp_runtime::prelude::*;

#[mcp_tool]
async fn tool(value: impl Into<String>) -> String {
    value.into()
}

fn main() {}
