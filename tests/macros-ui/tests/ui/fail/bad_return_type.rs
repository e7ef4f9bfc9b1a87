use oxmcp::prelude::*;

struct Opaque;

#[mcp_tool]
async fn tool() -> Opaque {
    Opaque
}

fn main() {}
