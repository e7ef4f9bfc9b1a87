//! A crate that re-exports the runtime under another path points the macros at it.
mod toolkit {
    pub use oxmcp as runtime;
}

use toolkit::runtime::{mcp_prompt, mcp_resource, mcp_tool};

/// Add two numbers.
#[mcp_tool(crate = "toolkit::runtime")]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

#[mcp_prompt(crate = "toolkit::runtime")]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

#[mcp_resource(crate = "toolkit::runtime", uri = "test://{id}")]
async fn item(id: String) -> String {
    id
}

fn main() {
    let _server = toolkit::runtime::Server::builder()
        .tool(add)
        .prompt(greet)
        .resource(item)
        .build();
}
