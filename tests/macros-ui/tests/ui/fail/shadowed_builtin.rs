use oxmcp::prelude::*;

/// A type of the author's own that takes a built-in type's name.
#[mcp_type]
pub struct String {
    pub text: std::string::String,
}

/// The argument's name says `String`; its type is not the built-in one.
#[mcp_tool]
async fn echo(said: String) -> std::string::String {
    said.text
}

fn main() {}
