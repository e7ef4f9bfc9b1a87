use mcp_runtime::prelude::*;

#[derive(ElicitEnum)]
enum Choice {
    Plain,
    WithData(String),
}

fn main() {}
