use oxmcp::prelude::*;

#[derive(ElicitEnum)]
enum Choice {
    Plain,
    WithData(String),
}

fn main() {}
