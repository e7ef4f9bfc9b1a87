//! The descriptors handlers are listed with (`Tool`, `Prompt`, `Resource`, `ResourceTemplate`),
//! built field by field in the generated types from what the macros know, so a descriptor
//! cannot come out different from what was declared.

use oxmcp_schema::{
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations, ToolInputSchema,
    ToolOutputSchema,
};
use serde_json::{Map, Value};

/// The `$schema` keyword, which the descriptor types keep in their own field.
const SCHEMA_KEYWORD: &str = "$schema";

/// What the `#[mcp_tool]` attribute says of a tool.
#[derive(Debug, Default)]
pub struct ToolSpec<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// A title for people.
    pub title: Option<&'a str>,
    /// What the tool does (the doc comment by default).
    pub description: Option<&'a str>,
    /// `annotations(read_only, destructive, idempotent, open_world)`.
    pub hints: [Option<bool>; 4],
}

/// A tool descriptor from the attribute's options and the JSON Schemas of the arguments and of
/// the structured output.
pub fn tool(
    spec: ToolSpec<'_>,
    input_schema: ToolInputSchema,
    output_schema: Option<Map<String, Value>>,
) -> Tool {
    let [read_only, destructive, idempotent, open_world] = spec.hints;
    let annotations = spec
        .hints
        .iter()
        .any(Option::is_some)
        .then(|| ToolAnnotations {
            read_only_hint: read_only,
            destructive_hint: destructive,
            idempotent_hint: idempotent,
            open_world_hint: open_world,
            ..Default::default()
        });
    Tool {
        title: spec.title.map(str::to_string),
        description: spec.description.map(str::to_string),
        output_schema: output_schema.map(|mut extra| ToolOutputSchema {
            schema: take_schema_keyword(&mut extra),
            extra,
        }),
        annotations,
        ..Tool::new(input_schema, spec.name)
    }
}

/// `$schema`, removed from `schema` when it is a string.
fn take_schema_keyword(schema: &mut Map<String, Value>) -> Option<String> {
    match schema.shift_remove(SCHEMA_KEYWORD) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            schema.insert(SCHEMA_KEYWORD.into(), other);
            None
        }
        None => None,
    }
}

/// The `inputSchema` of a tool from the JSON Schema of its arguments struct: always an object
/// schema with `properties` (the protocol requires `type: "object"`), without the struct's title.
pub fn input_schema(schema: Value) -> ToolInputSchema {
    let mut extra = match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    extra.shift_remove("title");
    // `type` is the descriptor's own (always "object") field.
    extra.shift_remove("type");
    extra
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    ToolInputSchema {
        schema: take_schema_keyword(&mut extra),
        extra,
        ..Default::default()
    }
}

/// A prompt descriptor: arguments as (name, description, required).
pub fn prompt(
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    args: &[(&str, Option<&str>, bool)],
) -> Prompt {
    let arguments: Vec<PromptArgument> = args
        .iter()
        .map(|(n, d, required)| PromptArgument {
            description: d.map(str::to_string),
            required: Some(*required),
            ..PromptArgument::new(*n)
        })
        .collect();
    Prompt {
        title: title.map(str::to_string),
        description: description.map(str::to_string),
        arguments: (!arguments.is_empty()).then_some(arguments),
        ..Prompt::new(name)
    }
}

/// What the `#[mcp_resource]` attribute says of a resource.
#[derive(Debug, Default)]
pub struct ResourceSpec<'a> {
    /// The URI, or a URI template with `{variables}`.
    pub uri: &'a str,
    /// The resource's name.
    pub name: &'a str,
    /// A title for people.
    pub title: Option<&'a str>,
    /// What the resource holds (the doc comment by default).
    pub description: Option<&'a str>,
    /// The MIME type of its contents.
    pub mime_type: Option<&'a str>,
}

impl ResourceSpec<'_> {
    /// Whether the URI is a template (it has variables).
    pub fn is_template(&self) -> bool {
        self.uri.contains('{')
    }
}

/// A resource descriptor, for a URI without template variables.
pub fn resource(spec: &ResourceSpec<'_>) -> Option<Resource> {
    (!spec.is_template()).then(|| Resource {
        title: spec.title.map(str::to_string),
        description: spec.description.map(str::to_string),
        mime_type: spec.mime_type.map(str::to_string),
        ..Resource::new(spec.name, spec.uri)
    })
}

/// A resource template descriptor, for a URI with template variables.
pub fn resource_template(spec: &ResourceSpec<'_>) -> Option<ResourceTemplate> {
    spec.is_template().then(|| ResourceTemplate {
        title: spec.title.map(str::to_string),
        description: spec.description.map(str::to_string),
        mime_type: spec.mime_type.map(str::to_string),
        ..ResourceTemplate::new(spec.name, spec.uri)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_descriptor_says_exactly_what_was_declared() {
        let input = input_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "__McpArgs",
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }));
        let tool = tool(
            ToolSpec {
                name: "weather",
                title: Some("Weather"),
                description: Some("Forecast."),
                hints: [Some(true), None, None, Some(false)],
            },
            input,
            None,
        );
        assert_eq!(
            serde_json::to_value(&tool).unwrap(),
            json!({
                "annotations": {"openWorldHint": false, "readOnlyHint": true},
                "description": "Forecast.",
                "inputSchema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"]
                },
                "name": "weather",
                "title": "Weather"
            })
        );
    }

    #[test]
    fn a_schema_without_properties_gets_an_empty_object() {
        let s = serde_json::to_value(input_schema(json!({"type": "object"}))).unwrap();
        assert_eq!(s, json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn resources_and_templates_are_told_apart_by_their_variables() {
        let fixed = ResourceSpec {
            uri: "file:///a",
            name: "a",
            ..Default::default()
        };
        let template = ResourceSpec {
            uri: "file:///{path}",
            name: "p",
            mime_type: Some("text/plain"),
            ..Default::default()
        };
        assert!(resource(&fixed).is_some() && resource_template(&fixed).is_none());
        assert!(resource(&template).is_none());
        assert_eq!(
            resource_template(&template).unwrap().mime_type.as_deref(),
            Some("text/plain")
        );
    }
}
