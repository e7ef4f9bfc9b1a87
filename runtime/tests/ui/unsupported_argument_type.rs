use mcp_runtime::prelude::*;

struct Opaque;

#[mcp_tool]
async fn tool(value: Opaque) -> String {
    let _ = value;
    String::new()
}

fn main() {}
