use oxmcp::prelude::*;

struct Address {
    street: String,
}

#[derive(ElicitForm)]
struct Contact {
    name: String,
    address: Address,
}

fn main() {}
