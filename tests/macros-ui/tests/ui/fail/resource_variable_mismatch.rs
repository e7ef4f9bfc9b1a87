use oxmcp::prelude::*;

#[mcp_resource(uri = "test://items/{id}")]
async fn item(name: String) -> String {
    name
}

fn main() {}
