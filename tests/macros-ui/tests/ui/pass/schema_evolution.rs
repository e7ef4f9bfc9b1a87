//! The generated API's evolution policy, as user code relies on it: matches on unions and enums
//! have a wildcard arm, values are built with `new` (required values only) or `Default` plus
//! struct-update syntax, and request ids convert from numbers and strings.

use oxmcp::schema::{
    ClientRequest, LoggingLevel, RequestId, RequestMetaObject, Tool, ToolInputSchema,
};

fn method(r: &ClientRequest) -> &'static str {
    match r {
        ClientRequest::CallToolRequest(_) => "tools/call",
        // A method a newer schema adds lands here instead of breaking the build.
        _ => "other",
    }
}

fn severe(level: &LoggingLevel) -> bool {
    !matches!(level, LoggingLevel::Debug | LoggingLevel::Info)
}

fn main() {
    let tool = Tool {
        title: Some("Echo".into()),
        ..Tool::new(ToolInputSchema::default(), "echo")
    };
    let meta = RequestMetaObject::new(Default::default(), "2026-07-28");
    let ids: [RequestId; 3] = [7.into(), "a".into(), String::from("b").into()];
    let _ = (tool, meta, ids, method, severe);
}
