// A form with three mistakes in three fields, and an option given twice: every one is reported
// in the same compilation.
use oxmcp::prelude::*;

#[derive(ElicitForm)]
struct Signup {
    #[elicit(formt = "email")]
    email: String,
    #[elicit(format = "phone", title = "Phone")]
    phone: String,
    #[elicit(rename = 5, description = "How old")]
    age: u32,
    #[elicit(title = "Plan", title = "Plan again")]
    plan: String,
}

fn main() {}
