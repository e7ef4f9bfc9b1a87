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
/// `oxmcp::handler::ToolHandler` (register it with `Server::builder().tool(name)`), with the
/// function body available as `name::run`.
///
/// The function may await `elicit()`, `sample()`, `list_roots()` and `step()` anywhere: the call
/// is suspended with `input_required` and resumes from its `requestState` on whichever instance
/// the retry reaches (or, in a 2025 session, the asks are real requests to the client).
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// Books a table (this doc comment is the tool's description).
/// #[mcp_tool(
///     name = "book_table",                 // the tool's name (default: the function's)
///     title = "Book a table",              // a human-readable title
///     description = "Books a table.",      // instead of the doc comment
///     annotations(read_only = false, destructive = false, idempotent = true, open_world = true),
///     scopes = ["bookings:write"],         // OAuth scopes a caller's token must hold
/// )]
/// async fn book(
///     #[arg(description = "Where to eat")] restaurant: String,
///     #[arg(rename = "partySize", header = "Party-Size")] party: u8,
///     note: Option<String>,                // optional: not in `required`
///     caller: Option<Principal>,           // extractors are not part of the input schema
/// ) -> Result<String, ToolError> {
///     let who = caller.map_or("anonymous".to_string(), |p| p.subject);
///     Ok(format!("{who}: {restaurant} for {party}{}", note.unwrap_or_default()))
/// }
/// # let _ = Server::builder().tool(book).build().unwrap();
/// ```
///
/// # Options
///
/// Each may be given once.
///
/// - `name = "..."`: the tool's name; `title = "..."`; `description = "..."` (default: the doc
///   comment).
/// - `annotations(read_only = bool, destructive = bool, idempotent = bool, open_world = bool)`:
///   the tool's behaviour hints.
/// - `scopes = ["a", "b"]`: over HTTP with authentication, a token without every scope is
///   answered 403 `insufficient_scope` naming them, so the client can ask for more (a tool
///   hidden from the caller with `Catalog::tool_visible_to` is unknown to it instead).
/// - `task = "optional"` or `task = "required"` (feature `tasks`): the tool may run, or must
///   run, as a task of the tasks extension; a client that declared the extension gets a created
///   task and polls it. `"required"` refuses a client without the extension (-32021).
/// - `task_start = "call"` (the default) or `"explicit"`: with `"explicit"` the call is an
///   ordinary MRTR call until the function awaits `oxmcp::start_task()`, and a task from there.
/// - `trace_payloads` (feature `otel`): the call's SERVER spans, and the run span of a task it
///   becomes, record its arguments and its result as JSON text (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Off by
///   default, since either can hold what must not leave the process; answers elicited in later
///   rounds and `requestState` are never recorded.
/// - `crate = "path"`: for a crate that re-exports `oxmcp` (default `::oxmcp`); the prompt and
///   resource attributes take it too.
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// Exports a report: asks which format first, then runs in the background.
/// #[mcp_tool(task = "optional", task_start = "explicit")]
/// async fn export(rows: u32) -> Result<String, ToolError> {
///     // Before `start_task` this is an ordinary call: a quick question is a round of the
///     // request itself.
///     oxmcp::start_task().await;
///     // From here a client that declared the tasks extension polls a task.
///     Ok(format!("exported {rows} rows"))
/// }
/// # let _ = Server::builder().tool(export).build().unwrap();
/// ```
///
/// # Arguments
///
/// Every argument other than an extractor is a property of the tool's `inputSchema`, under its
/// own name (any name, `r#type` included). `Option<T>` makes it optional. Built-in types
/// (`String`, `bool`, the integer and float types, and `Option`, `Vec` or String-keyed maps of
/// them) need nothing more; a type of your own derives its schema with `#[mcp_type]`.
/// `#[arg(description = "...")]` documents one, `rename = "..."` sets its wire name and
/// `header = "..."` mirrors it in an `Mcp-Param-<header>` HTTP header.
///
/// Extractors take part of the request instead: `State<T>` (a value given to
/// `ServerBuilder::state`), `Principal` (the authenticated caller; the call fails without one)
/// or `Option<Principal>`, and `RequestContext` (progress, logging, `_meta`, cancellation).
///
/// # Return type
///
/// `String`, `&'static str`, `()`, `CallToolResult`, `ContentBlock`, `Vec<ContentBlock>` or
/// `Json<T>` (structured output with an `outputSchema`), or a `Result` of one of them whose error
/// implements `Display`: a `ToolError::Tool` (or any error) is shown to the model with
/// `isError: true`, a `ToolError::Protocol` is a JSON-RPC error.
///
/// On an error in the attribute or the signature the function is kept as written and every error
/// of the item is reported at once.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(model::Kind::Tool, attr.into(), item.into()).into()
}

/// Turn an `async fn` into an MCP prompt (`prompts/get`): a unit struct of the same name that
/// implements `oxmcp::handler::PromptHandler` (register it with `.prompt(name)`).
///
/// Options: `name`, `title`, `description` (default: the doc comment) and `crate`, as for
/// [`macro@mcp_tool`]. Arguments are the prompt's arguments: `String`, or `Option<String>` for an
/// optional one, documented with `#[arg(description = "...")]` and renamed with
/// `#[arg(rename = "...")]`; the extractors of a tool work here too. It returns a `String` (one
/// user message), a `GetPromptResult` or `Vec<PromptMessage>`, or a `Result` of one; it may ask
/// the client as a tool does.
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// Reviews code in a language.
/// #[mcp_prompt(name = "review", title = "Code review")]
/// async fn review(
///     #[arg(description = "The code to review")] code: String,
///     language: Option<String>,
/// ) -> String {
///     format!("Review this {} code:\n{code}", language.as_deref().unwrap_or("source"))
/// }
/// # let _ = Server::builder().prompt(review).build().unwrap();
/// ```
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(model::Kind::Prompt, attr.into(), item.into()).into()
}

/// Turn an `async fn` into an MCP resource (`resources/read`): a unit struct of the same name
/// that implements `oxmcp::handler::ResourceHandler` (register it with `.resource(name)`).
///
/// Options: `uri = "..."` (required) is a URI, or a URI template (RFC 6570 level 1) whose
/// `{variables}` are the function's `String` arguments, listed in `resources/templates/list`;
/// `name`, `title`, `description` (default: the doc comment), `mime_type` and `crate`. It returns
/// a `String` (the text at the URI), a `ReadResourceResult`, or a `Result` of one;
/// `ToolError::resource_not_found(uri)` answers a template URI that names nothing.
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// The application's settings.
/// #[mcp_resource(uri = "config://app", mime_type = "application/json")]
/// async fn settings() -> String {
///     r#"{"theme": "dark"}"#.to_string()
/// }
///
/// /// One user's profile.
/// #[mcp_resource(uri = "users://{id}/profile", name = "profile", title = "User profile")]
/// async fn profile(id: String) -> Result<String, ToolError> {
///     match id.as_str() {
///         "1" => Ok("Ada".into()),
///         _ => Err(ToolError::resource_not_found(&format!("users://{id}/profile"))),
///     }
/// }
/// # let _ = Server::builder().resource(settings).resource(profile).build().unwrap();
/// ```
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(model::Kind::Resource, attr.into(), item.into()).into()
}

/// Make a struct or enum usable as a tool argument or a structured output (`Json<T>`): derives
/// `Serialize`, `Deserialize` and `JsonSchema` through `oxmcp`'s own re-exports, so the
/// server needs no direct serde or schemars dependency. `#[serde(...)]` and `#[schemars(...)]`
/// attributes on the type and its fields work as usual. Option: `crate = "path"`. Needs
/// `oxmcp`'s `derive` feature (a default one), which builds the schemars derive.
///
/// ```
/// use oxmcp::prelude::*;
///
/// /// Where to send a parcel.
/// #[mcp_type]
/// struct Address {
///     /// Street and number.
///     street: String,
///     #[serde(default)]
///     floor: Option<u8>,
/// }
///
/// /// Ships a parcel.
/// #[mcp_tool]
/// async fn ship(to: Address) -> Json<Address> {
///     Json(to)
/// }
/// # let _ = Server::builder().tool(ship).build().unwrap();
/// ```
#[proc_macro_attribute]
pub fn mcp_type(attr: TokenStream, item: TokenStream) -> TokenStream {
    types::expand(attr.into(), item.into()).into()
}

/// Derive `oxmcp::ElicitForm` for a struct whose fields are flat form fields, for
/// `elicit::<T>(message)`: `String`, `bool`, the integer and float types, a `#[derive(ElicitEnum)]`
/// enum (a single select) or a `Vec` of one (a multi-select), each optional as `Option<T>`. The
/// field's doc comment is its description; `#[elicit(title = "...", description = "...",
/// rename = "...", default = <JSON value>, minimum = .., maximum = .., min_length = ..,
/// max_length = .., min_items = .., max_items = .., format = "email" | "uri" | "date" |
/// "date-time")]` refine it.
///
/// ```
/// use oxmcp::prelude::*;
///
/// #[derive(ElicitEnum)]
/// enum Seating {
///     Inside,
///     #[elicit(title = "On the terrace")]
///     Outside,
/// }
///
/// #[derive(ElicitForm)]
/// struct Booking {
///     /// How many people?
///     #[elicit(minimum = 1, maximum = 12)]
///     party: u8,
///     /// Where to sit.
///     seating: Option<Seating>,
/// }
///
/// /// Books a table after asking the user for the details.
/// #[mcp_tool]
/// async fn book() -> Result<String, ToolError> {
///     match elicit::<Booking>("Your booking").await? {
///         Elicited::Accept(b) => Ok(format!("a table for {}", b.party)),
///         _ => Ok("no booking".into()),
///     }
/// }
/// # let _ = Server::builder().tool(book).build().unwrap();
/// ```
#[proc_macro_derive(ElicitForm, attributes(elicit))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    form::derive_form(input.into()).into()
}

/// Derive `oxmcp::ElicitEnum` for an enum of unit variants (a single select in an
/// `ElicitForm`, or a multi-select as a `Vec`): each variant's wire value is its name, or
/// `#[elicit(rename = "...")]`, and its label its doc comment or `#[elicit(title = "...")]`. See
/// [`macro@ElicitForm`] for an example.
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
