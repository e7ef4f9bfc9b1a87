use oxmcp::prelude::*;

#[mcp_tool(task = "sometimes")]
async fn maybe() -> String {
    String::new()
}

#[mcp_tool(task_start = "explicit")]
async fn started() -> String {
    String::new()
}

#[mcp_tool(task = "optional", task_start = "later")]
async fn later() -> String {
    String::new()
}

fn main() {}
