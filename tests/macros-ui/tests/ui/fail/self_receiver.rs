use oxmcp::prelude::*;

struct Calculator;

impl Calculator {
    #[mcp_tool]
    async fn add(&self, a: i64) -> String {
        format!("{a}")
    }
}

fn main() {}
