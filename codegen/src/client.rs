//! Typed Rust clients for a server's tools: from a `tools/list` result, one Rust type per tool
//! input and output (made by typify from the tool's JSON Schemas) and a client struct with one
//! typed `async fn` per tool, wrapping `oxmcp::client::Client`. A schema typify cannot
//! take (it panics on some shapes, such as `if`/`then`/`else`) falls back to
//! `serde_json::Value` for that tool, with a comment saying why.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("tools.rs");
//!     oxmcp_codegen::ClientBuilder::from_file("tools.json").out_file(out).generate()?;
//!     Ok(())
//! }
//! ```
//!
//! The generated module needs only `oxmcp` (with its default `derive` feature, for serde's
//! derives): serde, serde_json and the conversion error come through it. String `format`s
//! and `pattern`s are not checked on the client (the server checks them), so dates, UUIDs and
//! patterned strings are `String`s rather than types from chrono, uuid or regress.

use crate::error::Error;
use crate::naming::{field_name, pascal};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, Error>;

/// Where the tools come from.
#[derive(Debug, Clone)]
enum Source {
    File(PathBuf),
    Json(Value),
}

/// Generates a typed client module from a server's tools (a saved `tools/list` result).
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    source: Source,
    struct_name: String,
    out_file: Option<PathBuf>,
    runtime: String,
}

/// One tool's part of the generated module.
struct ToolCode {
    /// The types (typify's output, or the fallback alias).
    types: TokenStream,
    /// The client method.
    method: TokenStream,
}

impl ClientBuilder {
    /// Tools from a JSON file holding a `tools/list` result (`{"tools": [...]}`), a whole
    /// JSON-RPC response carrying one, or a bare array of tools.
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        ClientBuilder {
            source: Source::File(path.into()),
            struct_name: "ToolsClient".into(),
            out_file: None,
            runtime: DEFAULT_RUNTIME.into(),
        }
    }

    /// Tools from a `tools/list` result already in memory.
    pub fn from_tools_list(result: Value) -> Self {
        ClientBuilder {
            source: Source::Json(result),
            struct_name: "ToolsClient".into(),
            out_file: None,
            runtime: DEFAULT_RUNTIME.into(),
        }
    }

    /// The generated client struct's name (default `ToolsClient`).
    pub fn struct_name(mut self, name: impl Into<String>) -> Self {
        self.struct_name = name.into();
        self
    }

    /// The path the generated module reaches the runtime by (default `::oxmcp`), for a crate
    /// that depends on it under another name or through a crate that re-exports it. Everything
    /// the module uses comes through it: the client, the error types, serde and serde_json.
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime = path.into();
        self
    }

    /// Where [`ClientBuilder::generate`] writes the module.
    pub fn out_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.out_file = Some(path.into());
        self
    }

    fn tools(&self) -> Result<(Vec<Value>, String)> {
        let (value, origin) = match &self.source {
            Source::Json(v) => (v.clone(), "a tools/list result".to_string()),
            Source::File(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
                let value = serde_json::from_str(&text)
                    .map_err(|e| Error::in_file(path, format!("not JSON: {e}")))?;
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (value, name)
            }
        };
        let tools = value
            .pointer("/result/tools")
            .or_else(|| value.get("tools"))
            .unwrap_or(&value);
        let Some(tools) = tools.as_array() else {
            return Err(Error::msg(format!(
                "{origin}: expected a tools/list result (an object with `tools`), a response carrying one, or an array of tools"
            )));
        };
        Ok((tools.clone(), origin))
    }

    /// The generated module, formatted.
    pub fn generate_string(&self) -> Result<String> {
        if syn::parse_str::<syn::Ident>(&self.struct_name).is_err() {
            return Err(Error::msg(format!(
                "the client struct's name {:?} is not a Rust identifier",
                self.struct_name
            )));
        }
        let runtime: syn::Path = syn::parse_str(&self.runtime).map_err(|_| {
            Error::msg(format!(
                "the runtime path {:?} is not a Rust path",
                self.runtime
            ))
        })?;
        let (tools, origin) = self.tools()?;
        let mut parts = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for tool in &tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                return Err(Error::msg(format!("{origin}: a tool without a name")));
            };
            let method = field_name(name);
            if !seen.insert(method.clone()) {
                return Err(Error::msg(format!(
                    "{origin}: two tools map to the method name `{method}`"
                )));
            }
            parts.push(tool_code(name, &method, tool));
        }
        let types = parts.iter().map(|p| &p.types);
        let methods = parts.iter().map(|p| &p.method);
        let client = format_ident!("{}", self.struct_name);
        let doc = format!(" Typed calls of the tools in {origin}.");
        let file = quote! {
            //! Generated by `oxmcp-codegen client`; do not edit.
            #![allow(clippy::all, missing_docs, dead_code, unused_imports)]

            use #runtime::client::{Client, ClientError};
            use #runtime::schema::CallToolResult;

            #(#types)*

            #[doc = #doc]
            pub struct #client {
                inner: Client,
            }

            impl #client {
                /// Wrap a client (its input handler answers the tools' `input_required` rounds).
                pub fn new(inner: Client) -> Self {
                    Self { inner }
                }

                /// The wrapped client.
                pub fn inner(&self) -> &Client {
                    &self.inner
                }

                #(#methods)*
            }
        };
        let file = through_runtime(file, &runtime);
        let parsed: syn::File = syn::parse2(file)
            .map_err(|e| Error::msg(format!("generated code does not parse: {e}")))?;
        Ok(crate::docs::visible_controls(prettyplease::unparse(
            &parsed,
        )))
    }

    /// Generate and write the module to the out file (only if it changed).
    pub fn generate(&self) -> Result<String> {
        let text = self.generate_string()?;
        let Some(path) = &self.out_file else {
            return Err(Error::msg("no out_file set"));
        };
        crate::write_if_changed(path, &text)?;
        Ok(text)
    }

    /// Compare what would be generated with `committed`: none if equal, else a unified diff
    /// (the server's tools changed since the snapshot, or the generator did).
    pub fn check(&self, committed: &Path) -> Result<Option<String>> {
        let text = self.generate_string()?;
        let old = std::fs::read_to_string(committed)
            .map_err(|e| Error::in_file(committed, format!("cannot read: {e}")))?;
        if old == text {
            return Ok(None);
        }
        let diff = similar::TextDiff::from_lines(&old, &text)
            .unified_diff()
            .header(&committed.display().to_string(), "generated")
            .to_string();
        Ok(Some(diff))
    }
}

/// The keywords a global path (`::serde::..`) may follow; after any other identifier, `::`
/// continues a path instead.
const KEYWORDS: &[&str] = &[
    "as", "const", "dyn", "else", "for", "if", "impl", "in", "let", "match", "move", "mut", "pub",
    "ref", "return", "static", "type", "use", "where", "while",
];

/// The runtime path a typed client uses by default.
const DEFAULT_RUNTIME: &str = "::oxmcp";

/// `tokens` with everything reached through the runtime at `runtime`: `::serde` and
/// `::serde_json` through its re-exports (each serde derive told so with `#[serde(crate)]`), the
/// conversion error typify declares in every `error` module replaced by the runtime's one (and
/// the modules dropped), so the module needs no dependency but the runtime and repeats no type.
fn through_runtime(tokens: TokenStream, runtime: &syn::Path) -> TokenStream {
    use proc_macro2::{Delimiter, Group, Spacing, TokenTree};
    let private = quote!(#runtime::__private);
    let serde_crate = format!("{}::__private::serde", quote!(#runtime)).replace(' ', "");
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let ident_is =
        |t: Option<&TokenTree>, name: &str| matches!(t, Some(TokenTree::Ident(i)) if i == name);
    let path_sep = |t: Option<&TokenTree>, u: Option<&TokenTree>| {
        matches!((t, u), (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    let mut i = 0;
    while i < trees.len() {
        // `::serde::...` and `::serde_json::...`: through the runtime's re-exports.
        if path_sep(trees.get(i), trees.get(i + 1))
            && (ident_is(trees.get(i + 2), "serde") || ident_is(trees.get(i + 2), "serde_json"))
            && !matches!(out.last(), Some(TokenTree::Ident(i)) if !KEYWORDS.contains(&i.to_string().as_str()))
        {
            out.extend(quote!(#private ::));
            out.push(trees[i + 2].clone());
            i += 3;
            continue;
        }
        // `self::error::ConversionError`: the runtime's.
        if ident_is(trees.get(i), "self")
            && path_sep(trees.get(i + 1), trees.get(i + 2))
            && ident_is(trees.get(i + 3), "error")
            && path_sep(trees.get(i + 4), trees.get(i + 5))
            && ident_is(trees.get(i + 6), "ConversionError")
        {
            out.extend(quote!(#runtime::client::typed::ConversionError));
            i += 7;
            continue;
        }
        // `pub mod error { ... }`, with the attributes before it: gone.
        if ident_is(trees.get(i), "pub")
            && ident_is(trees.get(i + 1), "mod")
            && ident_is(trees.get(i + 2), "error")
            && matches!(trees.get(i + 3), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace)
        {
            while matches!(
                (out.len().checked_sub(2).map(|k| &out[k]), out.last()),
                (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g)))
                    if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket
            ) {
                out.truncate(out.len() - 2);
            }
            i += 4;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let inner = through_runtime(g.stream(), runtime);
                let mut group = Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                let derive = g.delimiter() == Delimiter::Bracket
                    && matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == '#')
                    && {
                        let text = g.stream().to_string();
                        text.starts_with("derive") && text.contains("serde")
                    };
                out.push(TokenTree::Group(group));
                if derive {
                    out.extend(quote!(#[serde(crate = #serde_crate)]));
                }
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// A schema as typify 0.8 reads it: `$defs` under `definitions`, refs pointing there, and the
/// name the root type should get as its title.
fn for_typify(schema: &Value, title: &str) -> Value {
    /// Rewrites the schema `v`, and the schemas inside it (never data such as `enum` or
    /// `default`, nor a `properties` map's names).
    fn rewrite(v: &mut Value) {
        let Value::Object(m) = v else { return };
        if let Some(defs) = m.remove("$defs") {
            m.insert("definitions".into(), defs);
        }
        // String formats and patterns would make typify reach for chrono, uuid and regress,
        // which the generated module's crate need not have; the server checks them, so the
        // client keeps such values as strings. That includes a string that may be null (`"type":
        // ["string", "null"]`) and a schema that states no type.
        let may_be_string = match m.get("type") {
            None => true,
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
            Some(_) => false,
        };
        if may_be_string {
            m.remove("format");
        }
        m.remove("pattern");
        if let Some(Value::String(r)) = m.get_mut("$ref") {
            if let Some(rest) = r.strip_prefix("#/$defs/") {
                *r = format!("#/definitions/{rest}");
            }
        }
        for (keyword, child) in m.iter_mut() {
            match keyword.as_str() {
                "properties" | "patternProperties" | "definitions" | "dependentSchemas" => {
                    if let Value::Object(schemas) = child {
                        schemas.values_mut().for_each(rewrite);
                    }
                }
                "anyOf"
                | "oneOf"
                | "allOf"
                | "prefixItems"
                | "items"
                | "additionalItems"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems" => match child {
                    Value::Array(schemas) => schemas.iter_mut().for_each(rewrite),
                    schema => rewrite(schema),
                },
                _ => {}
            }
        }
    }
    let mut schema = schema.clone();
    rewrite(&mut schema);
    if let Value::Object(m) = &mut schema {
        m.insert("title".into(), Value::String(title.into()));
        m.remove("$schema");
    }
    schema
}

/// typify's types for `schema`, named `name`; why not, if it cannot.
fn typify_types(schema: &Value, name: &str) -> std::result::Result<TokenStream, String> {
    let schema = for_typify(schema, name);
    let root: schemars08::schema::RootSchema = serde_json::from_value(schema)
        .map_err(|e| format!("not a JSON Schema typify reads: {e}"))?;
    // typify reports some unsupported shapes by panicking; that is caught, and its message
    // becomes the reason for the fallback instead of being printed.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let generated = std::panic::catch_unwind(move || {
        let mut settings = typify::TypeSpaceSettings::default();
        settings.with_struct_builder(false);
        let mut space = typify::TypeSpace::new(&settings);
        space
            .add_root_schema(root)
            .map(|_| space.to_stream())
            .map_err(|e| e.to_string())
    });
    std::panic::set_hook(hook);
    match generated {
        Ok(Ok(tokens)) => match declared_twice(&tokens) {
            None => Ok(tokens),
            Some(what) => Err(format!(
                "typify cannot take this schema ({what} is declared twice: two names in the schema become one in Rust)"
            )),
        },
        Ok(Err(e)) => Err(format!("typify: {e}")),
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .and_then(|m| m.lines().next())
                .unwrap_or("");
            // The first line only (typify appends the whole schema), without a trailing colon.
            let message =
                message.trim_end_matches(|c: char| c == ':' || c == '{' || c.is_whitespace());
            Err(format!("typify cannot take this schema ({message})"))
        }
    }
}

/// The first type, field or variant `tokens` declares twice in one scope, if any. typify maps
/// distinct JSON names to one Rust name in some cases (`a-b` and `a"b` both become `a_b`), and
/// the module would not compile.
fn declared_twice(tokens: &TokenStream) -> Option<String> {
    let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) else {
        return Some("code that does not parse".to_string());
    };
    let mut types = std::collections::BTreeSet::new();
    for item in &file.items {
        let (ident, members): (_, Vec<String>) = match item {
            syn::Item::Struct(s) => (
                &s.ident,
                s.fields
                    .iter()
                    .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
                    .collect(),
            ),
            syn::Item::Enum(e) => (
                &e.ident,
                e.variants.iter().map(|v| v.ident.to_string()).collect(),
            ),
            syn::Item::Type(t) => (&t.ident, Vec::new()),
            _ => continue,
        };
        if !types.insert(ident.to_string()) {
            return Some(format!("`{ident}`"));
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some(twice) = members.into_iter().find(|m| !seen.insert(m.clone())) {
            return Some(format!("`{ident}::{twice}`"));
        }
    }
    None
}

fn tool_code(name: &str, method: &str, tool: &Value) -> ToolCode {
    let base = pascal(name);
    let module = format_ident!("{}", method);
    // Named as typify names a root type from its title (heck's PascalCase: `ABArgs` becomes
    // `AbArgs`), so the module's re-export finds it.
    let args_name = heck::ToPascalCase::to_pascal_case(format!("{base}Args").as_str());
    let args_ident = format_ident!("{}", args_name);
    let input = tool.get("inputSchema").cloned().unwrap_or_else(|| {
        let mut m = Map::new();
        m.insert("type".into(), "object".into());
        Value::Object(m)
    });
    let (input_types, input_note) = match typify_types(&input, &args_name) {
        Ok(tokens) => (tokens, None),
        Err(why) => {
            let doc = format!(" The arguments, untyped: {why}.");
            (
                quote! { #[doc = #doc] pub type #args_ident = ::serde_json::Value; },
                Some(why),
            )
        }
    };
    // A tool whose input declares no property takes no argument: its method has none.
    let takes_nothing = input
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
        && input
            .get("additionalProperties")
            .is_none_or(|a| a == &Value::Bool(false))
        && input_note.is_none();
    let args = if takes_nothing {
        quote!(&::serde_json::Map::<
            ::std::string::String,
            ::serde_json::Value,
        >::new())
    } else {
        quote!(&args)
    };
    let out_name = heck::ToPascalCase::to_pascal_case(format!("{base}Output").as_str());
    let output = tool.get("outputSchema").filter(|s| s.is_object());
    let (output_types, returns, call) = match output {
        None => (
            TokenStream::new(),
            quote!(CallToolResult),
            quote!(self.inner.call_tool_checked(#name, #args).await),
        ),
        Some(schema) => {
            let out_ident = format_ident!("{}", out_name);
            let types = match typify_types(schema, &out_name) {
                Ok(tokens) => tokens,
                Err(why) => {
                    let doc = format!(" The structured output, untyped: {why}.");
                    quote! { #[doc = #doc] pub type #out_ident = ::serde_json::Value; }
                }
            };
            (
                types,
                quote!(#module::#out_ident),
                quote!(self.inner.call_tool_typed(#name, #args).await),
            )
        }
    };
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut doc = format!(" `{name}`: {}", description.replace('\n', " "));
    if let Some(why) = input_note {
        doc.push_str(&format!(" (arguments untyped: {why})"));
    }
    let module_doc = format!(" The types of the tool `{name}`.");
    let method_ident = format_ident!("{}", method);
    let parameter = (!takes_nothing).then(|| quote!(, args: #module::#args_ident));
    let output_module = (!output_types.is_empty()).then(|| {
        let out_ident = format_ident!("{}", out_name);
        quote! {
            /// The structured output's types.
            pub mod output {
                #output_types
            }
            pub use output::#out_ident;
        }
    });
    ToolCode {
        types: quote! {
            #[doc = #module_doc]
            pub mod #module {
                /// The arguments' types.
                pub mod args {
                    #input_types
                }
                pub use args::#args_ident;
                #output_module
            }
        },
        method: quote! {
            #[doc = #doc]
            pub async fn #method_ident(&self #parameter) -> ::core::result::Result<#returns, ClientError> {
                #call
            }
        },
    }
}
