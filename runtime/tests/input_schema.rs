//! The `inputSchema` that `#[mcp_tool]` writes for its arguments: what every client reads to
//! call the tool, so its exact shape is pinned here (names, renames, descriptions, headers,
//! which arguments are required, and the `$defs` of the user's own types).

use mcp_runtime::prelude::*;
use mcp_runtime::ToolHandler;
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
