use oxmcp::prelude::*;
use std::rc::Rc;

#[mcp_tool]
async fn shared(n: i64) -> String {
    let counter = Rc::new(n);
    let _ = list_roots().await;
    counter.to_string()
}

fn main() {}
