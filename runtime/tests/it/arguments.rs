//! A tool's arguments: the `inputSchema` that `#[mcp_tool]` writes for them, what every client
//! reads to call the tool, so its exact shape is pinned here (names, renames, descriptions,
//! headers, which arguments are required, and the `$defs` of the user's own types); and how a
//! call's arguments are read into the parameters, and refused with a message naming the one
//! that is wrong.

use crate::common;

use common::{all_caps, call, send};
use oxmcp::prelude::*;
use oxmcp::{handler::ToolHandler, Server};
use serde_json::{json, Value};

/// A point on the map.
#[mcp_type]
#[derive(Debug)]
struct Point {
    /// East-west, in degrees.
    x: f64,
    y: f64,
}

/// How to travel.
#[mcp_type]
#[derive(Debug)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Walk,
    Ride,
}

/// Plans a trip.
#[mcp_tool]
#[allow(clippy::too_many_arguments)]
async fn plan(
    #[arg(description = "Who travels")] name: String,
    count: Option<u32>,
    #[arg(rename = "resourceUri")] uri: String,
    #[arg(header = "Region", description = "A region, mirrored in a header")] region: String,
    stops: Vec<String>,
    start: Point,
    end: Option<Point>,
    mode: Mode,
    r#type: bool,
) -> String {
    format!("{name} {count:?} {uri} {region} {stops:?} {start:?} {end:?} {mode:?} {type}", type = r#type)
}

/// Takes nothing.
#[mcp_tool]
async fn ping() -> String {
    "pong".into()
}

fn schema_of(tool: impl ToolHandler) -> Value {
    serde_json::to_value(tool.tool().input_schema).expect("a schema serializes")
}

/// Equal as text, so the order of keys (what a client shows) is checked too.
fn assert_same(got: &Value, want: &Value) {
    let text = |v: &Value| serde_json::to_string_pretty(v).expect("JSON writes");
    assert_eq!(text(got), text(want));
}

#[test]
fn arguments_become_properties_with_their_wire_names_and_docs() {
    let want = json!({
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "name": {
          "description": "Who travels",
          "type": "string"
        },
        "count": {
          "type": [
            "integer",
            "null"
          ],
          "format": "uint32",
          "minimum": 0,
          "default": null
        },
        "resourceUri": {
          "type": "string"
        },
        "region": {
          "description": "A region, mirrored in a header",
          "type": "string",
          "x-mcp-header": "Region"
        },
        "stops": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "start": {
          "$ref": "#/$defs/Point"
        },
        "end": {
          "anyOf": [
            {
              "$ref": "#/$defs/Point"
            },
            {
              "type": "null"
            }
          ],
          "default": null
        },
        "mode": {
          "$ref": "#/$defs/Mode"
        },
        "type": {
          "type": "boolean"
        }
      },
      "required": [
        "name",
        "resourceUri",
        "region",
        "stops",
        "start",
        "mode",
        "type"
      ],
      "$defs": {
        "Point": {
          "description": "A point on the map.",
          "type": "object",
          "properties": {
            "x": {
              "description": "East-west, in degrees.",
              "type": "number",
              "format": "double"
            },
            "y": {
              "type": "number",
              "format": "double"
            }
          },
          "required": [
            "x",
            "y"
          ]
        },
        "Mode": {
          "description": "How to travel.",
          "type": "string",
          "enum": [
            "walk",
            "ride"
          ]
        }
      }
    });
    assert_same(&schema_of(plan), &want);
}

#[test]
fn no_arguments_is_an_empty_object() {
    let want = json!({
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {}
    });
    assert_same(&schema_of(ping), &want);
}

/// The text of a `tools/call` result, and whether it is a tool error.
async fn call_plan(args: Value) -> (bool, String) {
    let server = Server::builder()
        .tool(plan)
        .build()
        .expect("the server builds");
    let reply = send(&server, 1, "tools/call", call("plan", args, all_caps())).await;
    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (result["isError"] == json!(true), text.to_string())
}

fn plan_args() -> Value {
    json!({
        "name": "Ada", "resourceUri": "file:///trip", "region": "eu", "stops": ["Bern"],
        "start": {"x": 1.5, "y": 2.0}, "mode": "walk", "type": true
    })
}

#[tokio::test]
async fn arguments_are_read_by_their_wire_names() {
    let (error, text) = call_plan(plan_args()).await;
    assert!(!error, "{text}");
    assert_eq!(
        text,
        "Ada None file:///trip eu [\"Bern\"] Point { x: 1.5, y: 2.0 } None Walk true"
    );
    // Optional arguments given, and an argument no parameter names (ignored).
    let mut args = plan_args();
    args["count"] = json!(3);
    args["end"] = json!({"x": 0.0, "y": 0.0});
    args["unknown"] = json!("ignored");
    let (error, text) = call_plan(args).await;
    assert!(!error, "{text}");
    assert!(text.starts_with("Ada Some(3) "), "{text}");
    assert!(text.contains("Some(Point { x: 0.0, y: 0.0 })"), "{text}");
    // `null` for an optional argument is its absence.
    let mut args = plan_args();
    args["count"] = Value::Null;
    let (error, text) = call_plan(args).await;
    assert!(!error && text.starts_with("Ada None "), "{text}");
}

#[tokio::test]
async fn a_bad_argument_is_a_tool_error_that_names_it() {
    // (argument, its bad value or `None` to leave it out, how the error text begins)
    let cases = [
        (
            "count",
            Some(json!("three")),
            "invalid arguments: `count`: invalid type: string \"three\"",
        ),
        (
            "start",
            Some(json!({"x": 1.0})),
            "invalid arguments: `start`: missing field `y`",
        ),
        (
            "mode",
            Some(json!("fly")),
            "invalid arguments: `mode`: unknown variant `fly`",
        ),
        (
            "resourceUri",
            None,
            "invalid arguments: missing field `resourceUri`",
        ),
    ];
    for (name, value, begins) in cases {
        let mut args = plan_args();
        match value {
            Some(v) => args[name] = v,
            None => {
                args.as_object_mut().unwrap().remove(name);
            }
        }
        let (error, text) = call_plan(args).await;
        assert!(error, "{name}: {text}");
        assert!(text.starts_with(begins), "{name}: {text}");
    }
    // Nothing follows the missing-argument message.
    let mut args = plan_args();
    args.as_object_mut().unwrap().remove("resourceUri");
    assert_eq!(
        call_plan(args).await.1,
        "invalid arguments: missing field `resourceUri`"
    );
}

/// Declares a tool whose parameter types come through a `macro_rules!` macro as `$t:ty`, which
/// wraps each in an invisible group.
macro_rules! tool_of {
    ($name:ident, $first:ty, $second:ty) => {
        /// Takes two arguments of the macro's types.
        #[mcp_tool]
        async fn $name(first: $first, second: $second) -> String {
            format!("{first:?} {second:?}")
        }
    };
}

tool_of!(grouped, Option<u8>, Vec<String>);
tool_of!(with_caller, Option<Principal>, Vec<String>);

/// The same parameters, written in parentheses.
#[allow(unused_parens)]
mod parenthesized {
    use super::*;

    /// Takes two arguments in parentheses.
    #[mcp_tool]
    pub async fn parened(first: (Option<u8>), second: (Vec<String>)) -> String {
        format!("{first:?} {second:?}")
    }
}

#[test]
fn types_passed_through_a_macro_or_parenthesized_are_read_as_written() {
    let want = json!({
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "first": {
          "type": [
            "integer",
            "null"
          ],
          "format": "uint8",
          "minimum": 0,
          "maximum": 255,
          "default": null
        },
        "second": {
          "type": "array",
          "items": {
            "type": "string"
          }
        }
      },
      "required": [
        "second"
      ]
    });
    assert_same(&schema_of(grouped), &want);
    assert_same(&schema_of(parenthesized::parened), &want);
    // An extractor passed through a macro is still taken from the call, not from the arguments.
    let mut second_only = want;
    if let Some(properties) = second_only["properties"].as_object_mut() {
        properties.shift_remove("first");
    }
    assert_same(&schema_of(with_caller), &second_only);
}
