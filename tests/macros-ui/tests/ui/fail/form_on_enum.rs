use oxmcp::prelude::*;

#[derive(ElicitForm)]
enum NotAForm {
    A,
}

fn main() {}
