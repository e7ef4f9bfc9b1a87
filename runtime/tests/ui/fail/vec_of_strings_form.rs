use mcp_runtime::prelude::*;

#[derive(ElicitForm)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
