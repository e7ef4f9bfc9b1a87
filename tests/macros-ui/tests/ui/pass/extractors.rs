//! State, the caller and the request context may be taken by tools, prompts and resources, in
//! any position, under full paths too.
use oxmcp::prelude::*;

struct Db;

#[mcp_tool(scopes = ["files:read"])]
async fn tool(db: State<Db>, name: String, who: Option<Principal>, ctx: oxmcp::RequestContext) -> String {
    let _ = (&*db, who, ctx.target());
    name
}

#[mcp_prompt]
async fn prompt(topic: String, db: oxmcp::State<Db>, who: Principal) -> String {
    let _ = (&*db, who);
    topic
}

#[mcp_resource(uri = "db://{table}")]
async fn resource(db: State<Db>, table: String) -> String {
    let _ = &*db;
    table
}

fn main() {
    let _server = Server::builder()
        .state(Db)
        .tool(tool)
        .prompt(prompt)
        .resource(resource)
        .build();
}
