use oxmcp::prelude::*;

struct Db;

#[mcp_tool]
async fn tool(#[arg(description = "the pool")] db: State<Db>) -> String {
    let _ = &*db;
    String::new()
}

fn main() {}
