use oxmcp::prelude::*;

#[derive(ElicitForm)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
