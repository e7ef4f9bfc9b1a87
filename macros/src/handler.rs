//! `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]`: parse the options and the function into
//! a model (collecting every error), check it, and expand into a unit struct implementing the
//! runtime's handler trait. On any error the user's function is emitted unchanged beside the
//! errors, so the rest of the crate still type-checks and every mistake shows at once.

use crate::attrs::{combine, doc_text, fingerprint, lit_bool, lit_str, opt_str, unraw};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type};

/// Which handler the attribute makes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[mcp_tool]",
            Kind::Prompt => "#[mcp_prompt]",
            Kind::Resource => "#[mcp_resource]",
        }
    }

    fn expected_options(self) -> &'static str {
        match self {
            Kind::Tool => {
                "name, title, description, annotations(...), scopes, task, task_start or crate"
            }
            Kind::Prompt => "name, title, description or crate",
            Kind::Resource => "uri, name, title, description, mime_type or crate",
        }
    }
}

/// Options from the attribute's arguments.
#[derive(Default)]
struct Options {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    uri: Option<LitStr>,
    mime_type: Option<String>,
    hints: [Option<bool>; 4],
    /// The path of the runtime crate (`crate = "..."`), for crates that re-export it.
    krate: Option<syn::Path>,
    /// OAuth scopes a caller needs (`scopes = ["files:write"]`, tools only).
    scopes: Vec<String>,
    scopes_set: bool,
    /// Task support (`task = "optional" | "required"`, tools only).
    task: Option<LitStr>,
    /// Where the task starts (`task_start = "call" | "explicit"`).
    task_start: Option<LitStr>,
}

/// The names of the annotation hints, in the order of `Options::hints`.
const HINTS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

/// One argument of the handler function.
struct Arg {
    name: Ident,
    /// The wire name, when `#[arg(rename = "...")]` sets one.
    rename: Option<String>,
    /// The HTTP header (`Mcp-Param-<name>`) that mirrors this argument, from `#[arg(header = "...")]`.
    header: Option<String>,
    ty: Type,
    description: Option<String>,
    optional: bool,
    /// Taken from the call (`State<T>`, `Principal`, `Option<Principal>`, `RequestContext`),
    /// not from the arguments.
    from_call: bool,
}

impl Arg {
    /// The name the argument has on the wire: its `rename`, or the parameter's name.
    fn wire_name(&self) -> String {
        self.rename.clone().unwrap_or_else(|| unraw(&self.name))
    }
}

/// Everything the expansion needs, checked.
struct Model {
    kind: Kind,
    opts: Options,
    func: ItemFn,
    args: Vec<Arg>,
}

pub fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let mut errors = Vec::new();
    let opts = parse_options(kind, attr, &mut errors);
    // `#[arg(...)]` attributes are the macro's; they are taken off the parameters whether or not
    // the rest is valid, so the function emitted on error compiles.
    let args = parse_args(kind, &mut func, &mut errors);
    check(kind, &opts, &func, &args, &mut errors);
    match combine(errors) {
        Some(e) => {
            let mut out = e.to_compile_error();
            out.extend(func.into_token_stream());
            out
        }
        None => generate(&Model {
            kind,
            opts,
            func,
            args,
        }),
    }
}

/// Set `slot` from an option, or report a repeated option.
fn set_once<T>(
    slot: &mut Option<T>,
    value: T,
    meta: &syn::meta::ParseNestedMeta<'_>,
    errors: &mut Vec<syn::Error>,
) {
    if slot.is_some() {
        let key = meta.path.to_token_stream().to_string();
        errors.push(syn::Error::new(
            meta.path.span(),
            format!("`{key}` is given more than once"),
        ));
    } else {
        *slot = Some(value);
    }
}

fn parse_options(kind: Kind, attr: TokenStream, errors: &mut Vec<syn::Error>) -> Options {
    let mut o = Options::default();
    let mut found = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match (kind, key.as_str()) {
            (_, "name") => set_once(&mut o.name, lit_str(&meta)?.value(), &meta, &mut found),
            (_, "title") => set_once(&mut o.title, lit_str(&meta)?.value(), &meta, &mut found),
            (_, "description") => {
                set_once(&mut o.description, lit_str(&meta)?.value(), &meta, &mut found)
            }
            (_, "crate") => {
                let path: syn::Path = lit_str(&meta)?.parse()?;
                set_once(&mut o.krate, path, &meta, &mut found)
            }
            (Kind::Tool, "scopes") => {
                let list: syn::ExprArray = meta.value()?.parse()?;
                let mut scopes = Vec::new();
                for e in &list.elems {
                    match e {
                        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => scopes.push(s.value()),
                        other => found.push(syn::Error::new(other.span(), "a scope is a string literal")),
                    }
                }
                if o.scopes_set {
                    found.push(syn::Error::new(meta.path.span(), "`scopes` is given more than once"));
                }
                o.scopes_set = true;
                o.scopes = scopes;
            }
            (Kind::Tool, "task") => {
                let v = lit_str(&meta)?;
                if !matches!(v.value().as_str(), "optional" | "required") {
                    found.push(syn::Error::new(v.span(), "`task` is \"optional\" or \"required\""));
                }
                set_once(&mut o.task, v, &meta, &mut found)
            }
            (Kind::Tool, "task_start") => {
                let v = lit_str(&meta)?;
                if !matches!(v.value().as_str(), "call" | "explicit") {
                    found.push(syn::Error::new(v.span(), "`task_start` is \"call\" or \"explicit\""));
                }
                set_once(&mut o.task_start, v, &meta, &mut found)
            }
            (Kind::Resource, "uri") => set_once(&mut o.uri, lit_str(&meta)?, &meta, &mut found),
            (Kind::Resource, "mime_type") => {
                set_once(&mut o.mime_type, lit_str(&meta)?.value(), &meta, &mut found)
            }
            (Kind::Tool, "annotations") => meta.parse_nested_meta(|a| {
                let k = a.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match HINTS.iter().position(|h| *h == k) {
                    Some(i) => set_once(&mut o.hints[i], lit_bool(&a)?, &a, &mut found),
                    None => found.push(a.error(
                        "unknown annotation; expected read_only, destructive, idempotent or open_world",
                    )),
                }
                Ok(())
            })?,
            _ => {
                // Skip the value, if any, so the options after this one are still read.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|n| {
                        if n.input.peek(syn::Token![=]) {
                            let _: syn::Expr = n.value()?.parse()?;
                        }
                        Ok(())
                    });
                }
                found.push(meta.error(format!(
                    "unknown {} option; expected {}",
                    kind.attr(),
                    kind.expected_options()
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        errors.push(e);
    }
    for e in found.drain(..) {
        errors.push(e);
    }
    o
}

/// The type inside parentheses, or inside the invisible group a `macro_rules!` macro puts around
/// a type it passes through as `$t:ty`.
fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Paren(inner) => peel(&inner.elem),
        Type::Group(inner) => peel(&inner.elem),
        other => other,
    }
}

/// The last segment of a type's path (`Option<u8>` of `std::option::Option<u8>`), what the
/// macro recognizes a type by; none for a qualified path (`<T as Trait>::Item`) or another kind
/// of type.
fn path_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match peel(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn is_option(ty: &Type) -> bool {
    path_segment(ty).is_some_and(|s| s.ident == "Option")
}

/// Whether a type is named `String` (a map key the runtime's schemas take).
fn is_plain_string(ty: &Type) -> bool {
    path_segment(ty)
        .is_some_and(|s| s.ident == "String" && matches!(s.arguments, syn::PathArguments::None))
}

/// Whether a type is named like one whose schema the runtime writes itself: `String`, `char`,
/// `bool`, an integer or float type, or an `Option`, `Vec` or `String`-keyed `HashMap` or
/// `BTreeMap` of one.
fn is_builtin(ty: &Type) -> bool {
    let Some(last) = path_segment(ty) else {
        return false;
    };
    let name = last.ident.to_string();
    match &last.arguments {
        syn::PathArguments::None => matches!(
            name.as_str(),
            "String"
                | "bool"
                | "char"
                | "i128"
                | "u128"
                | "f32"
                | "f64"
                | "i8"
                | "i16"
                | "i32"
                | "i64"
                | "isize"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "usize"
        ),
        syn::PathArguments::AngleBracketed(a) if name == "Option" || name == "Vec" => {
            matches!(a.args.first(), Some(syn::GenericArgument::Type(inner)) if a.args.len() == 1 && is_builtin(inner))
        }
        // String-keyed maps (a `HashMap`'s hasher, a third argument, is left to schemars).
        syn::PathArguments::AngleBracketed(a) if name == "HashMap" || name == "BTreeMap" => {
            let mut args = a.args.iter();
            match (args.next(), args.next(), args.next()) {
                (
                    Some(syn::GenericArgument::Type(key)),
                    Some(syn::GenericArgument::Type(value)),
                    None,
                ) => is_plain_string(key) && is_builtin(value),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The function's parameters as handler arguments; `#[arg(...)]` is consumed.
fn parse_args(kind: Kind, func: &mut ItemFn, errors: &mut Vec<syn::Error>) -> Vec<Arg> {
    let attr_name = kind.attr();
    let mut args = Vec::new();
    for input in func.sig.inputs.iter_mut() {
        let pt = match input {
            FnArg::Receiver(r) => {
                errors.push(syn::Error::new(
                    r.span(),
                    format!("{attr_name} does not support `self`: a handler is a free function; share data through a `static` or a type with interior mutability"),
                ));
                continue;
            }
            FnArg::Typed(pt) => pt,
        };
        let mut description = None;
        let mut rename = None;
        let mut header = None;
        let mut keep = Vec::new();
        let mut found = Vec::new();
        for a in pt.attrs.drain(..) {
            if !a.path().is_ident("arg") {
                keep.push(a);
                continue;
            }
            let parsed = a.parse_nested_meta(|m| {
                if m.path.is_ident("description") {
                    set_once(&mut description, lit_str(&m)?.value(), &m, &mut found);
                } else if m.path.is_ident("rename") {
                    set_once(&mut rename, lit_str(&m)?.value(), &m, &mut found);
                } else if m.path.is_ident("header") {
                    set_once(&mut header, lit_str(&m)?.value(), &m, &mut found);
                } else {
                    if m.input.peek(syn::Token![=]) {
                        let _: syn::Expr = m.value()?.parse()?;
                    }
                    found.push(
                        m.error("unknown argument option; expected description, rename or header"),
                    );
                }
                Ok(())
            });
            if let Err(e) = parsed {
                errors.push(e);
            }
        }
        for e in found {
            errors.push(e);
        }
        pt.attrs = keep;
        let name = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            other => {
                errors.push(syn::Error::new(
                    other.span(),
                    "handler arguments must be plain names (`city: String`), not patterns",
                ));
                continue;
            }
        };
        match &*pt.ty {
            Type::Reference(r) => {
                errors.push(syn::Error::new(
                    r.span(),
                    "handler arguments are deserialized from JSON and must be owned: use `String` instead of `&str`, `Vec<T>` instead of `&[T]`",
                ));
                continue;
            }
            Type::ImplTrait(t) => {
                errors.push(syn::Error::new(
                    t.span(),
                    "`impl Trait` arguments are not supported: name a concrete type",
                ));
                continue;
            }
            _ => {}
        }
        let from_call = is_from_call(&pt.ty);
        if from_call && (description.is_some() || rename.is_some() || header.is_some()) {
            errors.push(syn::Error::new(
                pt.ty.span(),
                "`#[arg(...)]` describes a tool argument; this parameter is taken from the call, not from the arguments",
            ));
        }
        if kind == Kind::Prompt && !from_call && !is_string_like(&pt.ty) {
            errors.push(syn::Error::new(
                pt.ty.span(),
                "prompt arguments are strings: use `String` or `Option<String>`",
            ));
        }
        args.push(Arg {
            from_call,
            optional: is_option(&pt.ty),
            name,
            rename,
            header,
            ty: (*pt.ty).clone(),
            description,
        });
    }
    args
}

/// Checks that need the whole model: the function's shape, and a resource's URI template
/// against its arguments.
fn check(kind: Kind, opts: &Options, func: &ItemFn, args: &[Arg], errors: &mut Vec<syn::Error>) {
    let attr_name = kind.attr();
    if func.sig.asyncness.is_none() {
        errors.push(syn::Error::new(
            func.sig.fn_token.span(),
            format!("{attr_name} needs an `async fn`: handlers may await elicit(), sample() and list_roots()"),
        ));
    }
    if !func.sig.generics.params.is_empty() {
        errors.push(syn::Error::new(
            func.sig.generics.span(),
            format!("{attr_name} functions cannot be generic: the arguments' schema must be known"),
        ));
    }
    if let (Some(start), None) = (&opts.task_start, &opts.task) {
        errors.push(syn::Error::new(
            start.span(),
            "`task_start` needs `task = \"optional\"` or `task = \"required\"`",
        ));
    }
    if kind != Kind::Resource {
        return;
    }
    let Some(uri) = &opts.uri else {
        errors.push(syn::Error::new(
            Span::call_site(),
            "#[mcp_resource] needs `uri = \"...\"` (a URI, or a template such as \"file:///{path}\")",
        ));
        return;
    };
    let vars = template_vars(&uri.value());
    for a in args.iter().filter(|a| !a.from_call) {
        if !vars.contains(&a.name.to_string()) {
            errors.push(syn::Error::new(
                a.name.span(),
                format!(
                    "argument `{}` is not a variable of the URI template `{}`",
                    a.name,
                    uri.value()
                ),
            ));
        }
    }
    for v in &vars {
        if !args.iter().any(|a| !a.from_call && a.name == v) {
            errors.push(syn::Error::new(
                uri.span(),
                format!("URI template variable `{v}` has no argument of that name"),
            ));
        }
    }
}

/// The last segment of a type path and its first generic type argument, if any.
fn last_segment(ty: &Type) -> Option<(&Ident, Option<&Type>)> {
    let seg = path_segment(ty)?;
    let inner = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    Some((&seg.ident, inner))
}

/// Whether a parameter is taken from the call rather than from the arguments: `State<T>`,
/// `Principal`, `Option<Principal>` or `RequestContext`, by the last segment of its path.
fn is_from_call(ty: &Type) -> bool {
    match last_segment(ty) {
        Some((ident, inner)) if ident == "Option" => inner
            .and_then(last_segment)
            .is_some_and(|(i, _)| i == "Principal"),
        Some((ident, _)) => ident == "State" || ident == "Principal" || ident == "RequestContext",
        None => false,
    }
}

fn is_string_like(ty: &Type) -> bool {
    match last_segment(ty) {
        Some((ident, _)) if ident == "String" => true,
        Some((ident, Some(inner))) if ident == "Option" => {
            last_segment(inner).is_some_and(|(i, _)| i == "String")
        }
        _ => false,
    }
}

fn template_vars(uri: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = uri;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(rest[open + 1..open + close].to_string());
        rest = &rest[open + close + 1..];
    }
    out
}

fn generate(m: &Model) -> TokenStream {
    let rt = match &m.opts.krate {
        Some(path) => quote!(#path),
        None => quote!(::oxmcp),
    };
    let func = &m.func;
    let vis = &func.vis;
    let ident = &func.sig.ident;
    let fingerprint = fingerprint(func);
    let docs: Vec<_> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let other_attrs: Vec<_> = func
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc"))
        .collect();
    let name = m.opts.name.clone().unwrap_or_else(|| ident.to_string());
    let description = m.opts.description.clone().or_else(|| doc_text(&func.attrs));
    let title = opt_str(&m.opts.title);
    let description = opt_str(&description);
    // The fields of the arguments struct are numbered, so no name of the user's can clash with
    // the expansion's own; the wire names are set with `rename`.
    let field_names: Vec<Ident> = (0..m.args.len())
        .map(|i| format_ident!("__mcp_arg_{}", i))
        .collect();
    // The input schema is built by the runtime from a table of the arguments (no schemars
    // derive to compile), each type's own schema through `schema_of::<T>`.
    let arg_schemas: Vec<TokenStream> = m
        .args
        .iter()
        .filter(|a| !a.from_call)
        .map(|a| {
            let t = &a.ty;
            let wire = a.wire_name();
            let description = opt_str(&a.description);
            let header = opt_str(&a.header);
            let optional = a.optional;
            // A type named like a built-in one gets the runtime's own schema (no schemars);
            // `Builtin`'s bound checks that the name meant that type.
            let schema = if is_builtin(t) {
                quote!(#rt::__private::builtin)
            } else {
                quote!(#rt::__private::schema_of)
            };
            quote! {
                #rt::__private::ArgSchema {
                    name: #wire,
                    description: #description,
                    header: #header,
                    optional: #optional,
                    schema: #schema::<#t>,
                }
            }
        })
        .collect();
    let sig_inputs = &func.sig.inputs;
    let output = &func.sig.output;
    let body = &func.block;
    let ret_ty = match output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, t) => quote!(#t),
    };
    let run_doc =
        format!(" The body of the `{name}` handler, callable directly (e.g. from tests).");
    let head = quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #ident;

        impl #ident {
            #[doc = #run_doc]
            #(#other_attrs)*
            #vis async fn run(#sig_inputs) #output #body
        }
    };
    // Parameters taken from the call are extracted before the handler's future is made, so a
    // missing one fails the call at once.
    let extract: Vec<TokenStream> = m
        .args
        .iter()
        .zip(&field_names)
        .filter(|(a, _)| a.from_call)
        .map(|(a, field)| {
            let t = &a.ty;
            quote_spanned! {t.span()=>
                let #field = match <#t as #rt::handler::FromCall>::from_call(__mcp_parts) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => return #rt::__private::failed(e),
                };
            }
        })
        .collect();
    let call_types: Vec<&Type> = m
        .args
        .iter()
        .filter(|a| a.from_call)
        .map(|a| &a.ty)
        .collect();
    let needs = (!call_types.is_empty()).then(|| {
        quote! {
            fn needs(&self) -> ::std::vec::Vec<#rt::handler::Need> {
                [#(<#call_types as #rt::handler::FromCall>::need()),*].into_iter().flatten().collect()
            }
        }
    });
    // Each argument is taken from the arguments object by its wire name and deserialized on
    // its own, so an error names the argument; an absent `Option` argument is `None`.
    let parse_args = |on_err: TokenStream| {
        let fields = m
            .args
            .iter()
            .zip(&field_names)
            .filter(|(a, _)| !a.from_call)
            .map(|(a, field)| {
                let t = &a.ty;
                let wire = a.wire_name();
                let optional = a.optional;
                quote! {
                    let #field: #t = match #rt::__private::arg(&mut __mcp_args, #wire, #optional) {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(__mcp_message) => return #on_err,
                    };
                }
            });
        quote! {
            #[allow(unused_mut, unused_variables)]
            let mut __mcp_args = __mcp_args;
            #(#fields)*
        }
    };
    // The handler's future must be `Send`; the requirement is spanned at the function's name so
    // the error (whose notes name what is held across an await) points into the user's code.
    let span = ident.span();
    let rt_at_name = respan(rt.clone(), span);
    let boxed = |body: TokenStream| quote_spanned!(span=> #rt_at_name::__private::boxed(async move { #body }));
    let map_type = quote!(#rt::__private::serde_json::Map<::std::string::String, #rt::__private::serde_json::Value>);
    let ret_span = output.span();
    let imp = match m.kind {
        Kind::Tool => {
            let parse = parse_args(quote!(#rt::__private::bad_args(__mcp_message)));
            let hint = |v: Option<bool>| match v {
                Some(b) => quote!(::core::option::Option::Some(#b)),
                None => quote!(::core::option::Option::None),
            };
            let hints = m.opts.hints.map(hint);
            let scope_list = &m.opts.scopes;
            let scopes = (!scope_list.is_empty()).then(|| {
                quote! {
                    fn scopes(&self) -> &'static [&'static str] { &[#(#scope_list),*] }
                }
            });
            let task = m.opts.task.as_ref().map(|t| {
                let mode = match t.value().as_str() {
                    "required" => quote!(#rt::handler::TaskMode::Required),
                    _ => quote!(#rt::handler::TaskMode::Optional),
                };
                let explicit = m
                    .opts
                    .task_start
                    .as_ref()
                    .is_some_and(|s| s.value() == "explicit");
                quote! {
                    fn task_support(&self) -> #rt::handler::TaskSupport {
                        #rt::handler::TaskSupport { mode: #mode, explicit_start: #explicit }
                    }
                }
            });
            let into = quote_spanned!(ret_span=> <#ret_ty as #rt::handler::IntoToolResult>);
            let body = boxed(quote! {
                #parse
                #into::into_tool_result(#ident::run(#(#field_names),*).await)
            });
            quote! {
                impl #rt::handler::ToolHandler for #ident {
                    fn tool(&self) -> #rt::schema::Tool {
                        #rt::__private::tool(
                            #rt::__private::ToolSpec {
                                name: #name,
                                title: #title,
                                description: #description,
                                hints: [#(#hints),*],
                            },
                            #rt::__private::input_schema(&[#(#arg_schemas),*]),
                            #into::output_schema(),
                        )
                    }
                    fn fingerprint(&self) -> &'static str { #fingerprint }
                    fn call(&self, __mcp_args: #map_type, __mcp_parts: &#rt::handler::CallParts<'_>)
                        -> #rt::__private::BoxFuture<::core::result::Result<#rt::schema::CallToolResult, #rt::schema::Error>>
                    {
                        #(#extract)*
                        #body
                    }
                    #needs
                    #scopes
                    #task
                }
            }
        }
        Kind::Prompt => {
            let parse = parse_args(
                quote!(::core::result::Result::Err(#rt::schema::Error::invalid_params(__mcp_message))),
            );
            let prompt_args = m.args.iter().filter(|a| !a.from_call).map(|a| {
                let n = a.wire_name();
                let d = opt_str(&a.description);
                let required = !a.optional;
                quote!((#n, #d, #required))
            });
            let into = quote_spanned!(ret_span=> <#ret_ty as #rt::handler::IntoPromptResult>);
            let body = boxed(quote! {
                #parse
                #into::into_prompt_result(#ident::run(#(#field_names),*).await)
            });
            quote! {
                impl #rt::handler::PromptHandler for #ident {
                    fn prompt(&self) -> #rt::schema::Prompt {
                        #rt::__private::prompt(#name, #title, #description, &[#(#prompt_args),*])
                    }
                    fn fingerprint(&self) -> &'static str { #fingerprint }
                    fn get(&self, __mcp_args: #map_type, __mcp_parts: &#rt::handler::CallParts<'_>)
                        -> #rt::__private::BoxFuture<::core::result::Result<#rt::schema::GetPromptResult, #rt::schema::Error>>
                    {
                        #(#extract)*
                        #body
                    }
                    #needs
                }
            }
        }
        Kind::Resource => {
            let parse = parse_args(
                quote!(::core::result::Result::Err(#rt::schema::Error::invalid_params(__mcp_message))),
            );
            let uri = m.opts.uri.as_ref().map(LitStr::value).unwrap_or_default();
            let mime = opt_str(&m.opts.mime_type);
            let into = quote_spanned!(ret_span=> <#ret_ty as #rt::handler::IntoResourceResult>);
            let body = boxed(quote! {
                #parse
                #into::into_resource_result(#ident::run(#(#field_names),*).await, &__mcp_uri, #mime)
            });
            let spec = quote! {
                #rt::__private::ResourceSpec {
                    uri: #uri,
                    name: #name,
                    title: #title,
                    description: #description,
                    mime_type: #mime,
                }
            };
            quote! {
                impl #rt::handler::ResourceHandler for #ident {
                    fn resource(&self) -> ::core::option::Option<#rt::schema::Resource> {
                        #rt::__private::resource(&#spec)
                    }
                    fn template(&self) -> ::core::option::Option<#rt::schema::ResourceTemplate> {
                        #rt::__private::resource_template(&#spec)
                    }
                    fn uri_template(&self) -> &'static str { #uri }
                    fn fingerprint(&self) -> &'static str { #fingerprint }
                    fn read(&self, __mcp_uri: ::std::string::String, __mcp_args: #map_type, __mcp_parts: &#rt::handler::CallParts<'_>)
                        -> #rt::__private::BoxFuture<::core::result::Result<#rt::schema::ReadResourceResult, #rt::schema::Error>>
                    {
                        #(#extract)*
                        #body
                    }
                    #needs
                }
            }
        }
    };
    quote! {
        #head
        const _: () = {
            #imp
        };
    }
}

/// `tokens` with every token's span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}
