//! Writes Rust for a [`Model`]: structs that keep unknown fields, open string enums, constant
//! markers, and unions with explicit dispatch. The output depends only on serde, serde_json and
//! indexmap, so it can be `include!`d from build.rs output.

use crate::dispatch::{plan_objects, ObjPlan};
use crate::docs::rustdoc;
use crate::error::{Error, Result};
use crate::model::{Field, Kind, Model, Ty, TypeDef, Variant};
use crate::naming::pascal;
use crate::rules::annotate;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// The support macros and functions every generated file carries in its `__private` module
/// (hand-formatted Rust; the per-type code invokes them instead of spelling out serde impls).
const SUPPORT_MACROS: &str = include_str!("../support_macros.rs");

/// The support module's helper functions and types (the error helpers, the dispatch helpers,
/// the buffered and scalar deserializers of unions): a real Rust file, written into the
/// generated support module as it is.
const SUPPORT_PRIVATE: &str = include_str!("../support_private.rs");

/// The support code of `Validate`: the trait, its error, the checks and the macros the
/// generated types invoke.
const SUPPORT_VALIDATE: &str = include_str!("../support_validate.rs");

/// The same macros when validation is off: they expand to nothing.
const SUPPORT_NO_VALIDATE: &str = include_str!("../support_novalidate.rs");

/// Whether and how the generated types implement `Validate` (see [`crate::Builder::validation`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Validation {
    /// Always: the output then needs the `regex` crate if the schema has a `pattern`.
    #[default]
    Always,
    /// Behind a Cargo feature of the crate that compiles the output (e.g. `validate`), so a
    /// build without it compiles no check and no regex.
    Feature(String),
    /// Never: the schema's validation keywords are not checked, and not reported either.
    Off,
}

/// The code for one type: items formatted by prettyplease, then a support-macro call formatted
/// here (prettyplease would fill a macro's tokens into long lines).
struct Emitted {
    items: TokenStream,
    call: Option<String>,
}

impl From<TokenStream> for Emitted {
    fn from(items: TokenStream) -> Self {
        Emitted { items, call: None }
    }
}

fn unparse(items: TokenStream) -> Result<String> {
    let file: syn::File = syn::parse2(items)
        .map_err(|e| Error::msg(format!("generated code does not parse: {e}")))?;
    Ok(crate::docs::visible_controls(prettyplease::unparse(&file)))
}

/// Emit the whole model as one formatted Rust source file; the unions named in `open` keep an
/// object with an unknown discriminator value in an `Unknown` member (see
/// [`crate::Builder::open_union`]). With `support_path`, the file reaches the support code
/// through `use <support_path> as __private;` (see [`support_module`]) instead of carrying it.
pub fn emit(
    model: &Model,
    header: &str,
    open: &BTreeSet<String>,
    support_path: Option<&str>,
    validation: &Validation,
) -> Result<String> {
    let defaults = default_types(model);
    let mut out = String::new();
    for line in header.lines() {
        out.push_str("// ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    if let Some(path) = support_path {
        syn::parse_str::<syn::Path>(path)
            .map_err(|e| Error::msg(format!("support_path `{path}` is not a Rust path: {e}")))?;
        out.push_str(&format!("use {path} as __private;\n"));
    } else {
        // The validation types live in the private support module; the file's user names them.
        let export =
            "#[allow(unused_imports)]\npub use __private::{Validate, ValidationError, ValidationPath};\n";
        match validation {
            Validation::Always => out.push_str(export),
            Validation::Feature(f) => {
                out.push_str(&format!("#[cfg(feature = {})]\n{export}", lit(f)))
            }
            Validation::Off => {}
        }
    }
    for t in &model.types {
        let emitted = emit_type(t, model, &defaults, open.contains(&t.name))?;
        out.push_str(&unparse(emitted.items)?);
        if let Some(call) = emitted.call {
            out.push_str(&call);
        }
    }
    if support_path.is_none() {
        out.push_str("/// Support code for the generated types; not a public API.\n#[doc(hidden)]\n#[allow(dead_code, unused_macros, unused_imports)]\nmod __private {\n");
        for line in support_lines(validation)?.lines() {
            if !line.is_empty() {
                out.push_str("    ");
                out.push_str(line);
            }
            out.push('\n');
        }
        out.push_str("}\n");
    }
    Ok(out)
}

/// The support code's items, unindented.
fn support_lines(validation: &Validation) -> Result<String> {
    let mut out = String::from(SUPPORT_PRIVATE);
    out.push_str(SUPPORT_MACROS);
    let module = |cfg: Option<String>, text: &str| {
        let mut m = String::from("\n");
        if let Some(cfg) = cfg {
            m.push_str(&format!("#[cfg({cfg})]\n"));
        }
        m.push_str("mod validation {\n");
        for line in text.lines() {
            if !line.is_empty() {
                m.push_str("    ");
                m.push_str(line);
            }
            m.push('\n');
        }
        m.push_str("}\n");
        m
    };
    match validation {
        Validation::Always => out.push_str(&module(None, SUPPORT_VALIDATE)),
        Validation::Off => out.push_str(&module(None, SUPPORT_NO_VALIDATE)),
        Validation::Feature(f) => {
            let on = format!("feature = {}", lit(f));
            out.push_str(&module(Some(on.clone()), SUPPORT_VALIDATE));
            out.push_str(&module(Some(format!("not({on})")), SUPPORT_NO_VALIDATE));
        }
    }
    out.push_str("pub use validation::*;\n");
    Ok(out)
}

/// The support code as a module file of its own, for a crate that compiles several generated
/// files (see [`crate::Builder::support_path`]): declare it once (`mod support;`, with
/// `#[rustfmt::skip]`) and give each generation its path. `validation` decides whether the
/// `Validate` trait and its checks are in it (and behind which feature).
pub fn support_module(validation: &Validation) -> Result<String> {
    let mut out = String::from(
        "// @generated by oxmcp-codegen: the support code of the generated types. Do not edit.\n\n\
         //! Support code for the generated types (serde macros, dispatch helpers, validation);\n\
         //! not a public API.\n#![allow(dead_code, unused_macros, unused_imports)]\n\n",
    );
    out.push_str(&support_lines(validation)?);
    Ok(out)
}

/// A Rust string literal for `text`.
fn lit(text: &str) -> String {
    proc_macro2::Literal::string(text).to_string()
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

fn docs(doc: Option<&str>) -> TokenStream {
    let Some(doc) = doc else { return quote!() };
    let lines = rustdoc(doc);
    let lines = lines.iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

fn rust_ty(ty: &Ty) -> Result<TokenStream> {
    Ok(match ty {
        Ty::String => quote!(::std::string::String),
        Ty::Integer => quote!(i64),
        Ty::Number => quote!(::serde_json::Number),
        Ty::Bool => quote!(bool),
        Ty::Null => quote!(()),
        Ty::Any => quote!(::serde_json::Value),
        Ty::Named(n) => {
            let i = ident(n);
            quote!(#i)
        }
        Ty::Path(p) => {
            let t: syn::Type = syn::parse_str(p).map_err(|e| {
                Error::msg(format!("replacement type `{p}` is not a Rust type: {e}"))
            })?;
            quote!(#t)
        }
        Ty::Vec(t) => {
            let t = rust_ty(t)?;
            quote!(::std::vec::Vec<#t>)
        }
        Ty::Map(t) if **t == Ty::Any => {
            quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>)
        }
        Ty::Map(t) => {
            let t = rust_ty(t)?;
            quote!(::indexmap::IndexMap<::std::string::String, #t>)
        }
    })
}

/// Which generated types implement `Default`: constants, and structs whose required fields all
/// have a default that is valid on the wire (constants, arrays, maps, and such structs). A
/// required string, number, boolean, enum, union or untyped value has no valid default (an empty
/// `protocolVersion` is not a version), so its struct gets a `new` taking the required values.
fn default_types(model: &Model) -> BTreeSet<String> {
    let mut yes = BTreeSet::new();
    loop {
        let before = yes.len();
        for t in &model.types {
            let ok = match &t.kind {
                Kind::Const(_) => true,
                Kind::Struct { fields, .. } => fields
                    .iter()
                    .all(|f| !f.required || ty_default(&f.ty, &yes)),
                Kind::Alias(ty) => ty_default(ty, &yes),
                Kind::StringEnum(_) | Kind::Union(_) => false,
            };
            if ok {
                yes.insert(t.name.clone());
            }
        }
        if yes.len() == before {
            return yes;
        }
    }
}

fn ty_default(ty: &Ty, yes: &BTreeSet<String>) -> bool {
    match ty {
        Ty::Vec(_) | Ty::Map(_) => true,
        Ty::Named(n) => yes.contains(n),
        _ => false,
    }
}

/// Whether `ty` is a constant marker type (a required field of it needs no argument).
fn is_const(ty: &Ty, model: &Model) -> bool {
    matches!(ty, Ty::Named(n) if matches!(model.get(n).map(|t| &t.kind), Some(Kind::Const(_))))
}

/// `new` for a struct without `Default`: the required values in schema order (constants are
/// filled in), every optional field `None`. Adding an optional field to the schema does not
/// change it, which is what makes it the evolution-safe way to build a value.
fn emit_new(name: &Ident, fields: &[Field], extra: bool, model: &Model) -> Result<TokenStream> {
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for f in fields {
        let fname = ident(&f.rust_name);
        if !f.required {
            inits.push(quote!(#fname: ::core::option::Option::None));
        } else if is_const(&f.ty, model) {
            inits.push(quote!(#fname: ::core::default::Default::default()));
        } else {
            let ty = rust_ty(&f.ty)?;
            let (param, value) = if f.ty == Ty::String {
                (
                    quote!(impl ::core::convert::Into<::std::string::String>),
                    quote!(#fname.into()),
                )
            } else {
                (ty, quote!(#fname))
            };
            params.push(quote!(#fname: #param));
            inits.push(if f.boxed {
                quote!(#fname: ::std::boxed::Box::new(#value))
            } else if f.ty == Ty::String {
                quote!(#fname: #value)
            } else {
                quote!(#fname)
            });
        }
    }
    if extra {
        inits.push(quote!(extra: ::core::default::Default::default()));
    }
    Ok(quote! {
        impl #name {
            /// A value with the required fields given and every optional one absent.
            #[allow(clippy::too_many_arguments)]
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits),* }
            }
        }
    })
}

fn emit_type(
    t: &TypeDef,
    model: &Model,
    defaults: &BTreeSet<String>,
    open: bool,
) -> Result<Emitted> {
    let doc = docs(t.doc.as_deref());
    let name = ident(&t.name);
    Ok(match &t.kind {
        Kind::Alias(ty) => {
            let ty = rust_ty(ty)?;
            quote! { #doc pub type #name = #ty; }.into()
        }
        Kind::Const(value) => emit_const(&name, value, doc),
        Kind::StringEnum(values) => emit_enum(&name, values, doc),
        Kind::Struct { fields, extra } => {
            let mut emitted = emit_struct(
                t,
                fields,
                extra.as_ref(),
                doc,
                defaults.contains(&t.name),
                model,
            )?;
            if !defaults.contains(&t.name) {
                emitted
                    .items
                    .extend(emit_new(&name, fields, extra.is_some(), model)?);
            }
            emitted
        }
        Kind::Union(variants) => emit_union(t, variants, model, doc, open)?,
    })
}

fn emit_const(name: &Ident, value: &str, doc: TokenStream) -> Emitted {
    Emitted {
        items: quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
            pub struct #name;
        },
        call: Some(format!("__private::constant!({name} = {});\n", lit(value))),
    }
}

fn emit_enum(name: &Ident, values: &[String], doc: TokenStream) -> Emitted {
    let mut seen = BTreeMap::<String, usize>::new();
    let variants: Vec<Ident> = values
        .iter()
        .map(|v| {
            let mut n = pascal(v);
            if n == "Other" {
                n = "OtherValue".into();
            }
            let count = seen.entry(n.clone()).or_default();
            *count += 1;
            if *count > 1 {
                n = format!("{n}{count}");
            }
            ident(&n)
        })
        .collect();
    let variant_docs = values.iter().map(|v| format!(" `{v}`"));
    let mut call = format!("__private::string_enum!({name} {{\n");
    for (v, value) in variants.iter().zip(values) {
        call.push_str(&format!("    {v} = {},\n", lit(value)));
    }
    call.push_str("});\n");
    Emitted {
        items: quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, Eq, Hash)]
            #[non_exhaustive]
            pub enum #name {
                #( #[doc = #variant_docs] #variants, )*
                /// A value this version of the schema does not know, kept as it came.
                Other(::std::string::String),
            }
        },
        call: Some(call),
    }
}

fn field_ty(f: &Field) -> Result<TokenStream> {
    let mut ty = rust_ty(&f.ty)?;
    if f.boxed {
        ty = quote!(::std::boxed::Box<#ty>);
    }
    Ok(ty)
}

fn emit_struct(
    t: &TypeDef,
    fields: &[Field],
    extra: Option<&Ty>,
    doc: TokenStream,
    default: bool,
    model: &Model,
) -> Result<Emitted> {
    // Serialize and Deserialize come from the `object!` support macro rather than a derive:
    // one pass over the map, unknown keys straight into `extra` (serde's `flatten` would buffer
    // every value first), and no proc-macro expansion at build time. The validation rules of the
    // object and of each field follow them in brackets.
    let name = ident(&t.name);
    let mut defs = Vec::new();
    let own = annotate(&t.rules, &Ty::Named(t.name.clone()), model).rules;
    let mut call = if own.is_empty() {
        format!("__private::object!({name} {{\n")
    } else {
        format!("__private::object!({name} [{own}] {{\n")
    };
    for f in fields {
        let fdoc = docs(f.doc.as_deref());
        let fname = ident(&f.rust_name);
        let ty = field_ty(f)?;
        let kind = if f.required {
            defs.push(quote! { #fdoc pub #fname: #ty, });
            "req"
        } else {
            defs.push(quote! { #fdoc pub #fname: ::core::option::Option<#ty>, });
            "opt"
        };
        let rules = annotate(&f.rules, &f.ty, model).rules;
        if rules.is_empty() {
            call.push_str(&format!("    {kind} {fname} = {},\n", lit(&f.json_name)));
        } else {
            call.push_str(&format!(
                "    {kind} {fname} = {} [{rules}],\n",
                lit(&f.json_name)
            ));
        }
    }
    call.push('}');
    if let Some(ty) = extra {
        let map_ty = rust_ty(&Ty::Map(Box::new(ty.clone())))?;
        defs.push(quote! {
            /// Properties the schema does not name, kept in order so nothing is lost on a round trip.
            pub extra: #map_ty,
        });
        call.push_str(" extra");
    }
    call.push_str(");\n");
    let derive_default = if default { quote!(Default,) } else { quote!() };
    Ok(Emitted {
        items: quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, #derive_default)]
            pub struct #name { #(#defs)* }
        },
        call: Some(call),
    })
}

mod union;
use union::*;
