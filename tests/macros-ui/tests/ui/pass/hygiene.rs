//! Handler arguments may be called anything, including the names the expansion uses for its
//! own parameters and locals.
use oxmcp::prelude::*;

#[mcp_resource(uri = "file:///{uri}")]
async fn by_uri(uri: String) -> String {
    uri
}

#[mcp_resource(uri = "test://{args}/{message}")]
async fn by_args(args: String, message: String) -> String {
    format!("{args}{message}")
}

#[mcp_tool]
async fn named_like_the_expansion(
    args: String,
    message: String,
    uri: String,
    v: i64,
    __mcp_args: Option<String>,
    r#type: String,
) -> String {
    format!("{args}{message}{uri}{v}{__mcp_args:?}{}", r#type)
}

#[mcp_prompt]
async fn prompt_named_args(args: String, uri: Option<String>) -> String {
    format!("{args}{uri:?}")
}

fn main() {
    let _server = Server::builder()
        .resource(by_uri)
        .resource(by_args)
        .tool(named_like_the_expansion)
        .prompt(prompt_named_args)
        .build();
}
