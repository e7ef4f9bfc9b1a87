//! `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]`: parse the function and its options,
//! check them, and expand into a unit struct implementing the runtime's handler trait.

use crate::attrs::{doc_text, fingerprint, lit_bool, lit_str, opt_str};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

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
}

/// Options from the attribute's arguments.
#[derive(Default)]
struct Options {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    uri: Option<(String, Span)>,
    mime_type: Option<String>,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

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
}

/// Everything the expansion needs, checked.
struct Model {
    kind: Kind,
    opts: Options,
    func: ItemFn,
    args: Vec<Arg>,
}

pub fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    match parse(kind, attr, item).and_then(|m| generate(&m)) {
        Ok(ts) => ts,
        Err(e) => e.to_compile_error(),
    }
}

fn parse_options(kind: Kind, attr: TokenStream) -> syn::Result<Options> {
    let mut o = Options::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match (kind, key.as_str()) {
            (_, "name") => o.name = Some(lit_str(&meta)?.value()),
            (_, "title") => o.title = Some(lit_str(&meta)?.value()),
            (_, "description") => o.description = Some(lit_str(&meta)?.value()),
            (Kind::Resource, "uri") => {
                let s = lit_str(&meta)?;
                o.uri = Some((s.value(), s.span()));
            }
            (Kind::Resource, "mime_type") => o.mime_type = Some(lit_str(&meta)?.value()),
            (Kind::Tool, "annotations") => meta.parse_nested_meta(|a| {
                let k = a.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match k.as_str() {
                    "read_only" => o.read_only = Some(lit_bool(&a)?),
                    "destructive" => o.destructive = Some(lit_bool(&a)?),
                    "idempotent" => o.idempotent = Some(lit_bool(&a)?),
                    "open_world" => o.open_world = Some(lit_bool(&a)?),
                    _ => {
                        return Err(a.error(
                            "unknown annotation; expected read_only, destructive, idempotent or open_world",
                        ))
                    }
                }
                Ok(())
            })?,
            _ => {
                let expected = match kind {
                    Kind::Tool => "name, title, description or annotations(...)",
                    Kind::Prompt => "name, title or description",
                    Kind::Resource => "uri, name, title, description or mime_type",
                };
                return Err(meta.error(format!("unknown {} option; expected {expected}", kind.attr())));
            }
        }
        Ok(())
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(o)
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

fn parse(kind: Kind, attr: TokenStream, item: TokenStream) -> syn::Result<Model> {
    let opts = parse_options(kind, attr)?;
    let mut func: ItemFn = syn::parse2(item)?;
    let attr_name = kind.attr();
    if func.sig.asyncness.is_none() {
        return Err(syn::Error::new(
            func.sig.fn_token.span(),
            format!("{attr_name} needs an `async fn`: handlers may await elicit(), sample() and list_roots()"),
        ));
    }
    if !func.sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            func.sig.generics.span(),
            format!("{attr_name} functions cannot be generic: the arguments' schema must be known"),
        ));
    }
    let mut args = Vec::new();
    for input in func.sig.inputs.iter_mut() {
        let pt = match input {
            FnArg::Receiver(r) => {
                return Err(syn::Error::new(
                    r.span(),
                    format!("{attr_name} does not support `self`: write a free function and reach shared state through a static or the server's state"),
                ))
            }
            FnArg::Typed(pt) => pt,
        };
        let name = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "handler arguments must be plain names (`city: String`), not patterns",
                ))
            }
        };
        match &*pt.ty {
            Type::Reference(r) => {
                return Err(syn::Error::new(
                    r.span(),
                    "handler arguments are deserialized from JSON and must be owned: use `String` instead of `&str`, `Vec<T>` instead of `&[T]`",
                ))
            }
            Type::ImplTrait(t) => {
                return Err(syn::Error::new(
                    t.span(),
                    "`impl Trait` arguments are not supported: name a concrete type",
                ))
            }
            _ => {}
        }
        // `#[arg(description = "...")]` documents an argument; it is consumed here.
        let mut description = None;
        let mut rename = None;
        let mut header = None;
        let mut keep = Vec::new();
        for a in pt.attrs.drain(..) {
            if a.path().is_ident("arg") {
                a.parse_nested_meta(|m| {
                    if m.path.is_ident("description") {
                        description = Some(lit_str(&m)?.value());
                        Ok(())
                    } else if m.path.is_ident("rename") {
                        rename = Some(lit_str(&m)?.value());
                        Ok(())
                    } else if m.path.is_ident("header") {
                        header = Some(lit_str(&m)?.value());
                        Ok(())
                    } else {
                        Err(m.error(
                            "unknown argument option; expected description, rename or header",
                        ))
                    }
                })?;
            } else {
                keep.push(a);
            }
        }
        pt.attrs = keep;
        let optional = is_option(&pt.ty);
        if kind == Kind::Prompt && !is_string_like(&pt.ty) {
            return Err(syn::Error::new(
                pt.ty.span(),
                "prompt arguments are strings: use `String` or `Option<String>`",
            ));
        }
        args.push(Arg {
            name,
            rename,
            header,
            ty: (*pt.ty).clone(),
            description,
            optional,
        });
    }
    if kind == Kind::Resource {
        let Some((uri, span)) = &opts.uri else {
            return Err(syn::Error::new(
                Span::call_site(),
                "#[mcp_resource] needs `uri = \"...\"` (a URI, or a template such as \"file:///{path}\")",
            ));
        };
        let vars = template_vars(uri);
        for a in &args {
            if !vars.contains(&a.name.to_string()) {
                return Err(syn::Error::new(
                    a.name.span(),
                    format!(
                        "argument `{}` is not a variable of the URI template `{uri}`",
                        a.name
                    ),
                ));
            }
        }
        for v in &vars {
            if !args.iter().any(|a| a.name == v) {
                return Err(syn::Error::new(
                    *span,
                    format!("URI template variable `{v}` has no argument of that name"),
                ));
            }
        }
    }
    Ok(Model {
        kind,
        opts,
        func,
        args,
    })
}

fn is_string_like(ty: &Type) -> bool {
    let last = |t: &Type| match t {
        Type::Path(p) => p.path.segments.last().cloned(),
        _ => None,
    };
    match last(ty) {
        Some(s) if s.ident == "String" => true,
        Some(s) if s.ident == "Option" => match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => matches!(
                a.args.first(),
                Some(syn::GenericArgument::Type(inner)) if last(inner).is_some_and(|s| s.ident == "String")
            ),
            _ => false,
        },
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

fn generate(m: &Model) -> syn::Result<TokenStream> {
    let rt = quote!(::mcp_runtime);
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
    let arg_names: Vec<&Ident> = m.args.iter().map(|a| &a.name).collect();
    let arg_fields = m.args.iter().map(|a| {
        let (n, t) = (&a.name, &a.ty);
        let desc = a
            .description
            .as_ref()
            .map(|d| quote!(#[schemars(description = #d)]));
        let default = a.optional.then(|| quote!(#[serde(default)]));
        let rename = a.rename.as_ref().map(|r| quote!(#[serde(rename = #r)]));
        let header = a
            .header
            .as_ref()
            .map(|h| quote!(#[schemars(extend("x-mcp-header" = #h))]));
        quote!(#desc #default #rename #header #n: #t,)
    });
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
    let args_struct = quote! {
        #[derive(#rt::__private::serde::Deserialize, #rt::__private::schemars::JsonSchema)]
        #[serde(crate = "::mcp_runtime::__private::serde")]
        #[schemars(crate = "::mcp_runtime::__private::schemars")]
        #[allow(non_camel_case_types, dead_code)]
        struct __McpArgs { #(#arg_fields)* }
    };
    let parse_args = |on_err: TokenStream| {
        quote! {
            let __McpArgs { #(#arg_names),* } = match #rt::__private::parse_args::<__McpArgs>(args) {
                ::core::result::Result::Ok(v) => v,
                ::core::result::Result::Err(message) => return #on_err,
            };
        }
    };
    let imp = match m.kind {
        Kind::Tool => {
            let parse = parse_args(quote!(#rt::__private::bad_args(message)));
            let ann = |v: Option<bool>| match v {
                Some(b) => quote!(::core::option::Option::Some(#b)),
                None => quote!(::core::option::Option::None),
            };
            let (ro, de, id, ow) = (
                ann(m.opts.read_only),
                ann(m.opts.destructive),
                ann(m.opts.idempotent),
                ann(m.opts.open_world),
            );
            let ret_span = output.span();
            let into = quote_spanned!(ret_span=> <#ret_ty as #rt::IntoToolResult>);
            quote! {
                impl #rt::ToolHandler for #ident {
                    fn tool(&self) -> #rt::schema::Tool {
                        #rt::__private::tool(
                            #name, #title, #description,
                            #rt::__private::input_schema::<__McpArgs>(),
                            #into::output_schema(),
                            [#ro, #de, #id, #ow],
                        )
                    }
                    fn fingerprint(&self) -> &'static str { #fingerprint }
                    fn call(&self, args: #rt::__private::serde_json::Map<::std::string::String, #rt::__private::serde_json::Value>)
                        -> #rt::__private::BoxFuture<::core::result::Result<#rt::schema::CallToolResult, #rt::schema::Error>>
                    {
                        #rt::__private::boxed(async move {
                            #parse
                            #into::into_tool_result(#ident::run(#(#arg_names),*).await)
                        })
                    }
                }
            }
        }
        Kind::Prompt => {
            let parse = parse_args(
                quote!(::core::result::Result::Err(#rt::schema::Error::invalid_params(message))),
            );
            let prompt_args = m.args.iter().map(|a| {
                let n = a.rename.clone().unwrap_or_else(|| a.name.to_string());
                let d = opt_str(&a.description);
                let required = !a.optional;
                quote!((#n, #d, #required))
            });
            let ret_span = output.span();
            let into = quote_spanned!(ret_span=> <#ret_ty as #rt::IntoPromptResult>);
            quote! {
                impl #rt::PromptHandler for #ident {
                    fn prompt(&self) -> #rt::schema::Prompt {
                        #rt::__private::prompt(#name, #title, #description, &[#(#prompt_args),*])
                    }
                    fn fingerprint(&self) -> &'static str { #fingerprint }
                    fn get(&self, args: #rt::__private::serde_json::Map<::std::string::String, #rt::__private::serde_json::Value>)
                        -> #rt::__private::BoxFuture<::core::result::Result<#rt::schema::GetPromptResult, #rt::schema::Error>>
                    {
                        #rt::__private::boxed(async move {
                            #parse
                            #into::into_prompt_result(#ident::run(#(#arg_names),*).await)
                        })
                    }
                }
            }
        }
        Kind::Resource => {
            let parse = parse_args(
                quote!(::core::result::Result::Err(#rt::schema::Error::invalid_params(message))),
            );
            let uri = m
                .opts
                .uri
                .as_ref()
                .map(|(u, _)| u.clone())
                .unwrap_or_default();
            let mime = opt_str(&m.opts.mime_type);
            let ret_span = output.span();
            let into = quote_spanned!(ret_span=> <#ret_ty as #rt::IntoResourceResult>);
            quote! {
                impl #rt::ResourceHandler for #ident {
                    fn resource(&self) -> ::core::option::Option<#rt::schema::Resource> {
                        #rt::__private::resource(#uri, #name, #title, #description, #mime)
                    }
                    fn template(&self) -> ::core::option::Option<#rt::schema::ResourceTemplate> {
                        #rt::__private::resource_template(#uri, #name, #title, #description, #mime)
                    }
                    fn uri_template(&self) -> &'static str { #uri }
                    fn fingerprint(&self) -> &'static str { #fingerprint }
                    fn read(&self, uri: ::std::string::String, args: #rt::__private::serde_json::Map<::std::string::String, #rt::__private::serde_json::Value>)
                        -> #rt::__private::BoxFuture<::core::result::Result<#rt::schema::ReadResourceResult, #rt::schema::Error>>
                    {
                        #rt::__private::boxed(async move {
                            #parse
                            #into::into_resource_result(#ident::run(#(#arg_names),*).await, &uri, #mime)
                        })
                    }
                }
            }
        }
    };
    Ok(quote! {
        #head
        const _: () = {
            #args_struct
            #imp
        };
    })
}
