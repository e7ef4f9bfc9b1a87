use mcp_runtime::prelude::*;

#[derive(ElicitForm)]
enum NotAForm {
    A,
}

fn main() {}
