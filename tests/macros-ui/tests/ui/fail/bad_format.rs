use oxmcp::prelude::*;

#[derive(ElicitForm)]
struct Contact {
    #[elicit(format = "phone")]
    phone: String,
}

fn main() {}
