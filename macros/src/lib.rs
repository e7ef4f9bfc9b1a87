//! Proc macros of the MCP toolkit. Use them through `oxmcp`, which re-exports them.
//!
//! In serde_derive's structure: each macro parses its input into a typed model (`model`), with
//! every error collected in a context (`ctxt`) and reported at once (each carries the span of
//! the offending token), then expands per kind (`expand::{tool, prompt, resource}`) into calls to
//! `oxmcp`, where the logic lives. On an error the item is emitted as written beside the errors,
//! so the rest of the crate still type-checks.

use proc_macro::TokenStream;

mod attrs;
mod ctxt;
mod expand;
mod form;
mod model;
mod types;

/// Turn an `async fn` into an MCP tool: a unit struct of the same name that implements
/// `oxmcp::handler::ToolHandler`, with the function body available as `name::run`.
///
/// Options: `name = "..."`, `title = "..."`, `description = "..."` (default: the doc comment),
/// `annotations(read_only = bool, destructive = bool, idempotent = bool, open_world = bool)`,
/// and `crate = "path"` for a crate that re-exports `oxmcp` (default `::oxmcp`;
/// the prompt and resource attributes take it too). Each option may be given once.
/// Arguments become the tool's `inputSchema` and may have any name; `#[arg(description = "...")]`
/// documents one, `rename = "..."` sets its wire name, `header = "..."` mirrors it in an
/// `Mcp-Param-*` HTTP header. On an error the function is kept as written and every error of
/// the item is reported at once.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(model::Kind::Tool, attr.into(), item.into()).into()
}

/// Turn an `async fn` into an MCP prompt (`prompts/get`); arguments are the prompt's arguments
/// (`String`, or `Option<String>` for optional ones).
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(model::Kind::Prompt, attr.into(), item.into()).into()
}

/// Turn an `async fn` into an MCP resource (`resources/read`): `uri = "..."` is a URI or a URI
/// template whose `{variables}` are the function's arguments; also `name`, `title`,
/// `description`, `mime_type`.
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(model::Kind::Resource, attr.into(), item.into()).into()
}

/// Make a struct or enum usable as a tool argument or a structured output (`Json<T>`): derives
/// `Serialize`, `Deserialize` and `JsonSchema` through `oxmcp`'s own re-exports, so the
/// server needs no direct serde or schemars dependency. `#[serde(...)]` and `#[schemars(...)]`
/// attributes on the type and its fields work as usual. Option: `crate = "path"`. Needs
/// `oxmcp`'s `derive` feature (a default one), which builds the schemars derive.
#[proc_macro_attribute]
pub fn mcp_type(attr: TokenStream, item: TokenStream) -> TokenStream {
    types::expand(attr.into(), item.into()).into()
}

/// Derive `oxmcp::ElicitForm` for a struct whose fields are flat form fields.
#[proc_macro_derive(ElicitForm, attributes(elicit))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    form::derive_form(input.into()).into()
}

/// Derive `oxmcp::ElicitEnum` for an enum of unit variants (a single- or multi-select).
#[proc_macro_derive(ElicitEnum, attributes(elicit))]
pub fn derive_elicit_enum(input: TokenStream) -> TokenStream {
    form::derive_enum(input.into()).into()
}

/// What `#[mcp_type]` derives in place of `JsonSchema` when `oxmcp` is built without its
/// `derive` feature: an error at the type that names the feature to turn on.
#[doc(hidden)]
#[proc_macro_derive(JsonSchemaNeedsDeriveFeature, attributes(schemars))]
pub fn json_schema_needs_derive_feature(input: TokenStream) -> TokenStream {
    types::needs_derive_feature(input.into()).into()
}

/// What `#[mcp_type]` derives in place of serde's `Serialize` and `Deserialize` without the
/// runtime's `derive` feature: nothing, so that the one error is the one that names the feature.
#[doc(hidden)]
#[proc_macro_derive(SerdeNeedsDeriveFeature, attributes(serde))]
pub fn serde_needs_derive_feature(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
