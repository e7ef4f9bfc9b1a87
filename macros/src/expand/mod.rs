//! The expansion of the three handler attributes from a checked [`Model`]: what they share
//! (the unit struct and its `run`, the arguments' table and parsing, the parameters taken from
//! the call) here, each handler trait's implementation in its own module.

mod prompt;
mod resource;
mod tool;

use crate::attrs::{doc_text, fingerprint, opt_str};
use crate::model::{is_builtin, Kind, Model};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ReturnType, Type};

/// Expand `#[mcp_tool]`, `#[mcp_prompt]` or `#[mcp_resource]` on `item`: every error of the
/// item at once beside the function as written, or the handler.
pub fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    match Model::parse(kind, attr, item) {
        Ok(model) => generate(&model),
        Err(output) => output,
    }
}

/// What every kind's implementation is built from.
pub(super) struct Shared<'a> {
    pub(super) m: &'a Model,
    /// The path of the runtime crate.
    pub(super) rt: TokenStream,
    /// The function's (and the unit struct's) name.
    pub(super) ident: &'a Ident,
    pub(super) name: String,
    pub(super) title: TokenStream,
    pub(super) description: TokenStream,
    pub(super) fingerprint: String,
    /// The names the arguments are bound to, in order (numbered, so none clashes with the
    /// user's).
    pub(super) field_names: Vec<Ident>,
    /// The arguments' table the runtime builds the input schema from.
    pub(super) arg_schemas: Vec<TokenStream>,
    /// The extraction of the parameters taken from the call.
    pub(super) extract: Vec<TokenStream>,
    /// The `needs` method, when a parameter comes from the call.
    pub(super) needs: Option<TokenStream>,
    /// The arguments object's type.
    pub(super) map_type: TokenStream,
    /// The function's return type, and where it is written.
    pub(super) ret_ty: TokenStream,
    pub(super) ret_span: Span,
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
    let arg_schemas = arg_schemas(m, &rt);
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
    let (extract, needs) = from_call(m, &rt, &field_names);
    let map_type = quote!(#rt::__private::serde_json::Map<::std::string::String, #rt::__private::serde_json::Value>);
    let ret_span = output.span();
    let shared = Shared {
        m,
        rt: rt.clone(),
        ident,
        name,
        title,
        description,
        fingerprint,
        field_names,
        arg_schemas,
        extract,
        needs,
        map_type,
        ret_ty,
        ret_span,
    };
    let imp = match m.kind {
        Kind::Tool => tool::imp(&shared),
        Kind::Prompt => prompt::imp(&shared),
        Kind::Resource => resource::imp(&shared),
    };
    quote! {
        #head
        const _: () = {
            #imp
        };
    }
}

/// The input schema's table of the arguments (no schemars derive to compile): each
/// argument's wire name, description, header and whether it is optional, and its type's own
/// schema through `schema_of::<T>` (or the runtime's own for a built-in type).
fn arg_schemas(m: &Model, rt: &TokenStream) -> Vec<TokenStream> {
    m.args
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
        .collect()
}

/// The parameters taken from the call (`State<T>`, `Principal`, ...): their extraction, which
/// runs before the handler's future is made so a missing one fails the call at once, and the
/// `needs` the server checks when it is built.
fn from_call(
    m: &Model,
    rt: &TokenStream,
    field_names: &[Ident],
) -> (Vec<TokenStream>, Option<TokenStream>) {
    let extract: Vec<TokenStream> = m
        .args
        .iter()
        .zip(field_names)
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
    (extract, needs)
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

impl Shared<'_> {
    /// Each argument taken from the arguments object by its wire name and deserialized on its
    /// own, so an error names the argument; an absent `Option` argument is `None`. `on_err`
    /// is what the handler returns for a bad one.
    pub(super) fn parse_args(&self, on_err: TokenStream) -> TokenStream {
        let rt = &self.rt;
        let fields = self
            .m
            .args
            .iter()
            .zip(&self.field_names)
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
    }

    /// `body` as the handler's boxed future. It must be `Send`; the requirement is spanned at
    /// the function's name so the error (whose notes name what is held across an await)
    /// points into the user's code.
    pub(super) fn boxed(&self, body: TokenStream) -> TokenStream {
        let span = self.ident.span();
        let rt_at_name = respan(self.rt.clone(), span);
        quote_spanned!(span=> #rt_at_name::__private::boxed(async move { #body }))
    }
}
