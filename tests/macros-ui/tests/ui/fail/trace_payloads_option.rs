use oxmcp::prelude::*;

#[mcp_tool(trace_payloads = true)]
async fn valued() -> String {
    String::new()
}

#[mcp_tool(trace_payloads, trace_payloads)]
async fn twice() -> String {
    String::new()
}

#[mcp_prompt(trace_payloads)]
async fn not_a_tool() -> String {
    String::new()
}

fn main() {}
