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
const SUPPORT_MACROS: &str = include_str!("support_macros.rs");

/// The support code of `Validate`: the trait, its error, the checks and the macros the
/// generated types invoke.
const SUPPORT_VALIDATE: &str = include_str!("support_validate.rs");

/// The same macros when validation is off: they expand to nothing.
const SUPPORT_NO_VALIDATE: &str = include_str!("support_novalidate.rs");

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
    let mut out = unparse(private_module())?;
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

fn kind_pattern(kind: &str) -> TokenStream {
    match kind {
        "object" => quote!(__private::Content::Map(_)),
        "array" => quote!(__private::Content::Seq(_)),
        "string" => quote!(__private::Content::Str(_) | __private::Content::String(_)),
        "boolean" => quote!(__private::Content::Bool(_)),
        "null" => quote!(__private::Content::Null),
        "integer" => quote!(__private::Content::U64(_) | __private::Content::I64(_)),
        _ => quote!(
            __private::Content::U64(_) | __private::Content::I64(_) | __private::Content::F64(_)
        ),
    }
}

const KINDS: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];

/// The member an open union keeps an object of an unknown kind in.
const UNKNOWN: &str = "Unknown";

/// A type as formatted Rust text (for a support-macro call, which prettyplease does not format).
fn type_text(ty: &TokenStream) -> Result<String> {
    let item = unparse(quote!(type __T = #ty;))?;
    Ok(item
        .trim()
        .trim_start_matches("type __T = ")
        .trim_end_matches(';')
        .to_string())
}

fn emit_union(
    t: &TypeDef,
    variants: &[Variant],
    model: &Model,
    doc: TokenStream,
    open: bool,
) -> Result<Emitted> {
    let name = ident(&t.name);
    // An open union's extra member comes last, so the schema's members keep their indices; it
    // takes no part in planning the dispatch, only in where an unknown tag value leads.
    let declared = variants.len();
    let mut all = variants.to_vec();
    if open {
        if variants.iter().any(|v| v.name == UNKNOWN) {
            return Err(Error::msg(format!(
                "open union `{}` already has a member named `{UNKNOWN}`",
                t.name
            )));
        }
        all.push(Variant {
            name: UNKNOWN.into(),
            ty: Ty::Map(Box::new(Ty::Any)),
            boxed: false,
            schema_name: None,
            shape: Default::default(),
        });
    }
    let mut defs = Vec::new();
    // `Serialize`, `From` and `Validate` come from the `union!` support macro: one line per
    // member.
    let mut call = format!("__private::union!({name} {{\n");
    let mut name_arms = Vec::new();
    let mut build_arms = Vec::new();
    let mut stream_arms = Vec::new();
    let mut schema_names = Vec::new();
    let mut from_count = BTreeMap::<String, usize>::new();
    // `From` only where the payload type is unique after following aliases (two members that
    // are the same Rust type would make conflicting impls).
    let canonical = |ty: &Ty| -> Result<String> {
        let mut ty = ty.clone();
        for _ in 0..32 {
            match &ty {
                Ty::Named(n) => match model.get(n).map(|t| &t.kind) {
                    Some(Kind::Alias(inner)) => ty = inner.clone(),
                    _ => break,
                },
                _ => break,
            }
        }
        Ok(rust_ty(&ty)?.to_string())
    };
    for v in variants {
        *from_count.entry(canonical(&v.ty)?).or_default() += 1;
    }
    for (i, v) in all.iter().enumerate() {
        let vname = ident(&v.name);
        let mut ty = rust_ty(&v.ty)?;
        let plain = ty.clone();
        if v.boxed {
            ty = quote!(::std::boxed::Box<#ty>);
        }
        let vdoc = match &v.schema_name {
            Some(s) => format!(" A `{s}`."),
            None if i == declared => " An object of a kind this schema version does not define (a newer peer's), kept whole so it serializes back unchanged.".to_string(),
            None => format!(" A JSON {}.", v.name.to_lowercase()),
        };
        defs.push(quote!(#[doc = #vdoc] #vname(#ty),));
        let label = v.name.as_str();
        name_arms.push(quote!(Self::#vname(_) => #label,));
        if i < declared {
            schema_names.push(v.schema_name.clone().unwrap_or_default());
        }
        let idx = i;
        let wrap = if v.boxed {
            quote!(|v| Self::#vname(::std::boxed::Box::new(v)))
        } else {
            quote!(Self::#vname)
        };
        build_arms.push(quote! {
            #idx => ::serde::Deserialize::deserialize(__private::ContentDeserializer::<::serde_json::Error>::new(content)).map(#wrap).map_err(|e| __private::context(label, e)),
        });
        stream_arms.push(quote! {
            #idx => ::serde::Deserialize::deserialize(rest).map(#wrap),
        });
        if i < declared && from_count.get(&canonical(&v.ty)?) == Some(&1) {
            let how = if v.boxed { "boxed" } else { "from" };
            call.push_str(&format!("    {vname} [{how} {}],\n", type_text(&plain)?));
        } else {
            call.push_str(&format!("    {vname},\n"));
        }
    }
    call.push_str("});\n");

    // Dispatch: first on the JSON kind, then (for objects) on the planned discriminators.
    let mut object_plan = None;
    let mut kind_arms = Vec::new();
    let mut expected = Vec::new();
    for kind in KINDS {
        let members: Vec<usize> = variants
            .iter()
            .enumerate()
            .filter(|(_, v)| v.shape.kinds.is_empty() || v.shape.kinds.contains(kind))
            .map(|(i, _)| i)
            .collect();
        if members.is_empty() {
            continue;
        }
        // Integers already have their own arm when both kinds are members.
        let mut pattern = if *kind == "number" && expected.contains(&"integer") {
            quote!(__private::Content::F64(_))
        } else {
            kind_pattern(kind)
        };
        expected.push(*kind);
        let body = if *kind == "object" {
            let mut plan = plan_objects(variants, &members)
                .ok_or_else(|| Error::msg(format!("union `{}` has no object member", t.name)))?;
            if open {
                match &mut plan {
                    ObjPlan::Tag { other, .. } if other.is_none() => {
                        *other = Some(Box::new(ObjPlan::One(declared)));
                    }
                    ObjPlan::Tag { prop, .. } => {
                        return Err(Error::msg(format!(
                            "union `{}` already gives unknown `{prop}` values to a member, so it cannot be open",
                            t.name
                        )))
                    }
                    _ => {
                        return Err(Error::msg(format!(
                            "union `{}` is not dispatched on one discriminator, so it cannot be open",
                            t.name
                        )))
                    }
                }
            }
            if !matches!(plan, ObjPlan::One(_)) {
                pattern = quote!(__private::Content::Map(map));
            }
            let code = emit_plan(&plan, &all);
            object_plan = Some(plan);
            code
        } else {
            let first = members[0];
            let label = variants[first].name.as_str();
            quote!((#first, #label))
        };
        kind_arms.push(quote!(#pattern => #body,));
    }
    if open && object_plan.is_none() {
        return Err(Error::msg(format!(
            "union `{}` has no object member, so it cannot be open",
            t.name
        )));
    }
    let objects_only = expected == ["object"];
    let expected = format!("expected {}", expected.join(" or "));
    let union_name = t.name.as_str();
    let streamed = object_plan
        .as_ref()
        .and_then(|p| emit_by_tag(p, &all))
        .filter(|(prop, _)| STREAMED_TAGS.contains(&prop.as_str()));
    // A streamed union of objects whose tag alone picks every member: a fully buffered input
    // is chosen from the buffer and then read again from its text, tag first, by the streaming
    // code; no member is compiled to be read from the buffer.
    let by_tag_only = streamed.is_some()
        && objects_only
        && object_plan
            .as_ref()
            .is_some_and(|p| tag_decides_all(p, &all));
    let from_buffer = if by_tag_only {
        quote! {
            let (_, label) = Self::choose(&content)?;
            __private::reread::<Self>(content, label)
        }
    } else {
        quote!(Self::from_content(content))
    };
    let deserialize = match streamed {
        // The tag alone picks the member: read the object up to the tag, then hand the member
        // what was read plus the rest of the input, unbuffered.
        Some((prop, by_tag)) => quote! {
            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<__D: ::serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    __private::deserialize_streamed(deserializer)
                }
            }
            impl __private::Streamed for #name {
                const NAME: &'static str = #union_name;
                const TAG: &'static str = #prop;
                fn by_tag(tag: &__private::Content<'_>) -> ::core::option::Option<(usize, &'static str)> {
                    #by_tag
                }
                #[inline]
                fn from_buffer(content: __private::Content<'_>) -> ::core::result::Result<Self, ::serde_json::Error> {
                    #from_buffer
                }
                fn build<'de, __A: ::serde::de::MapAccess<'de>>(which: usize, rest: __private::Prefixed<'de, __A>) -> ::core::result::Result<Self, __A::Error> {
                    match which {
                        #(#stream_arms)*
                        _ => ::core::result::Result::Err(<__A::Error as ::serde::de::Error>::custom("no member chosen")),
                    }
                }
            }
        },
        None => quote! {
            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<__D: ::serde::Deserializer<'de>>(deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                    // Buffer the input (borrowing strings where it can), choose the member from the
                    // buffer, then build only that member from it.
                    let content = <__private::Content<'de> as ::serde::Deserialize>::deserialize(deserializer)?;
                    Self::from_content(content).map_err(<__D::Error as ::serde::de::Error>::custom)
                }
            }
        },
    };
    let choose = quote! {
        #(#kind_arms)*
        // Unreachable when a member takes any JSON value.
        #[allow(unreachable_patterns)]
        other => return ::core::result::Result::Err(__private::error(&::std::format!(
            "invalid {} for {}, {}", __private::kind(other), #union_name, #expected
        ))),
    };
    let from_content = if by_tag_only {
        quote! {
            /// The member (index, label) a buffered input is for, or why it is none.
            fn choose(content: &__private::Content<'_>) -> ::core::result::Result<(usize, &'static str), ::serde_json::Error> {
                let chosen: (usize, &'static str) = match content { #choose };
                ::core::result::Result::Ok(chosen)
            }
        }
    } else {
        quote! {
            // Inline: compiled only in the crates that read this union, not here for every
            // union whether or not its reader ever parses it (a server builds the decoders of
            // the messages it receives, not of those it only sends).
            #[inline]
            fn from_content(content: __private::Content<'_>) -> ::core::result::Result<Self, ::serde_json::Error> {
                let (which, label): (usize, &'static str) = match &content { #choose };
                match which {
                    #(#build_arms)*
                    _ => ::core::result::Result::Err(__private::error("no member chosen")),
                }
            }
        }
    };
    let items = quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        #[non_exhaustive]
        pub enum #name { #(#defs)* }
        impl #name {
            /// Schema type names of the members, in declaration order (empty for inline members).
            pub const VARIANT_SCHEMA_NAMES: &'static [&'static str] = &[#(#schema_names),*];
            /// The name of the member this value holds.
            pub fn variant_name(&self) -> &'static str {
                match self { #(#name_arms)* }
            }
            /// Picks the member by its discriminators and deserializes only that member, so an
            /// error names what is wrong with it (e.g. ``tools/call: missing field `name` ``).
            // Inline: compiled where it is called, so this crate does not build the
            // `serde_json::Value` deserializer of every union and all its members for callers
            // that never read a `Value`.
            #[inline]
            pub fn from_json(value: ::serde_json::Value) -> ::core::result::Result<Self, ::serde_json::Error> {
                ::serde::Deserialize::deserialize(value)
            }
            #from_content
        }
        #deserialize
    };
    Ok(Emitted {
        items,
        call: Some(call),
    })
}

/// Discriminators whose unions read their input as a stream (up to the tag, then straight into
/// the member) instead of buffering it whole. Streaming is faster to run (a 3-request
/// `input_required` result parses in half the time) but each streamed union is compiled again
/// for every input type, so it is kept to the message-level unions: streaming every tagged union
/// (`type` too: content blocks, schema definitions) made the crate's release build 2.7x slower
/// for little further gain.
const STREAMED_TAGS: &[&str] = &["method", "resultType", "mode"];

/// For a plan that starts with a discriminator: the property and the body of `by_tag`, which
/// names the member a value of it decides on its own (`None` where more must be read).
fn emit_by_tag(plan: &ObjPlan, variants: &[Variant]) -> Option<(String, TokenStream)> {
    let ObjPlan::Tag {
        prop, cases, other, ..
    } = plan
    else {
        return None;
    };
    if !cases.iter().any(|(_, sub)| matches!(sub, ObjPlan::One(_))) {
        return None;
    }
    let arms: Vec<TokenStream> = cases
        .iter()
        .map(|(value, sub)| {
            let code = match sub {
                ObjPlan::One(i) => quote!(::core::option::Option::Some((#i, #value))),
                _ => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(#value) => #code,)
        })
        .collect();
    let other = match other.as_deref() {
        // A discriminator that is not a string is not a newer kind: buffer, and let
        // `from_content` report it.
        Some(p @ ObjPlan::One(i)) if is_unknown(variants, *i) => {
            let chosen = emit_plan(p, variants);
            quote!(if tag.as_str().is_some() { ::core::option::Option::Some(#chosen) } else { ::core::option::Option::None })
        }
        Some(p @ ObjPlan::One(_)) => {
            let chosen = emit_plan(p, variants);
            quote!(::core::option::Option::Some(#chosen))
        }
        _ => quote!(::core::option::Option::None),
    };
    Some((
        prop.clone(),
        quote! {
            match tag.as_str() {
                #(#arms)*
                _ => #other,
            }
        },
    ))
}

/// Whether `plan` picks every member from the tag's value alone, as `by_tag` does: each known
/// value names one member, the tag is required, and any other value is an error or (a string)
/// the open union's unknown member.
fn tag_decides_all(plan: &ObjPlan, variants: &[Variant]) -> bool {
    match plan {
        ObjPlan::Tag {
            cases,
            absent: None,
            other,
            ..
        } => {
            cases.iter().all(|(_, sub)| matches!(sub, ObjPlan::One(_)))
                && match other.as_deref() {
                    None => true,
                    Some(ObjPlan::One(i)) => is_unknown(variants, *i),
                    Some(_) => false,
                }
        }
        _ => false,
    }
}

/// Whether member `i` is an open union's [`UNKNOWN`] member (inline members never take that
/// name: `emit_union` refuses to open a union that has one).
fn is_unknown(variants: &[Variant], i: usize) -> bool {
    variants
        .get(i)
        .is_some_and(|v| v.name == UNKNOWN && v.schema_name.is_none())
}

fn emit_plan(plan: &ObjPlan, variants: &[Variant]) -> TokenStream {
    match plan {
        ObjPlan::One(i) => {
            let label = variants[*i]
                .schema_name
                .as_deref()
                .unwrap_or(&variants[*i].name);
            quote!((#i, #label))
        }
        ObjPlan::Tag {
            prop,
            cases,
            absent,
            other,
        } => {
            // Cases that lead where an unknown value leads anyway are folded into `_`.
            let arms = cases
                .iter()
                .filter(|(_, sub)| other.as_deref() != Some(sub))
                .map(|(value, sub)| {
                    let code = match sub {
                        ObjPlan::One(i) => quote!((#i, #value)),
                        _ => emit_plan(sub, variants),
                    };
                    quote!(::core::option::Option::Some(#value) => #code,)
                });
            let known: Vec<String> = cases.iter().map(|(v, _)| format!("`{v}`")).collect();
            let known = known.join(", ");
            let absent_arm = match absent {
                Some(p) if absent.as_deref() == other.as_deref() => {
                    let _ = p;
                    quote!()
                }
                Some(p) => {
                    let code = emit_plan(p, variants);
                    quote!(_ if tag.is_none() => #code,)
                }
                None => {
                    let msg = format!("missing field `{prop}`");
                    quote!(_ if tag.is_none() => return ::core::result::Result::Err(__private::error(#msg)),)
                }
            };
            let not_string = match other.as_deref() {
                Some(ObjPlan::One(i)) if is_unknown(variants, *i) => {
                    let msg = format!("invalid `{prop}`, expected a string");
                    quote!(_ if tag.and_then(__private::Content::as_str).is_none() => return ::core::result::Result::Err(__private::error(#msg)),)
                }
                _ => quote!(),
            };
            let other = match other {
                Some(p) => emit_plan(p, variants),
                None => quote!(
                    return ::core::result::Result::Err(__private::error(&::std::format!(
                        "unknown `{}` value {}, expected one of {}", #prop, __private::show(tag), #known
                    )))
                ),
            };
            quote! {{
                let tag = __private::get(map, #prop);
                match tag.and_then(__private::Content::as_str) {
                    #(#arms)*
                    #absent_arm
                    #not_string
                    _ => #other,
                }
            }}
        }
        ObjPlan::Keys(cands) => {
            let rows = cands.iter().map(|c| {
                let req = c.required.iter().map(|p| quote!(&[#(#p),*]));
                let uniq = &c.unique;
                quote!((&[#(#req),*], &[#(#uniq),*]))
            });
            let indices: Vec<usize> = cands.iter().map(|c| c.variant).collect();
            let labels: Vec<&str> = cands
                .iter()
                .map(|c| {
                    variants[c.variant]
                        .schema_name
                        .as_deref()
                        .unwrap_or(&variants[c.variant].name)
                })
                .collect();
            quote! {{
                const TABLE: &[__private::Candidate] = &[#(#rows),*];
                const INDEX: &[(usize, &str)] = &[#((#indices, #labels)),*];
                INDEX[__private::choose(map, TABLE)]
            }}
        }
    }
}

fn private_module() -> TokenStream {
    quote! {
            /// Required key paths that set a member apart, and optional keys only it declares.
            pub type Candidate = (&'static [&'static [&'static str]], &'static [&'static str]);

            pub fn error(message: &str) -> ::serde_json::Error {
                <::serde_json::Error as ::serde::de::Error>::custom(message)
            }

            pub fn context(label: &str, e: ::serde_json::Error) -> ::serde_json::Error {
                error(&::std::format!("{label}: {e}"))
            }

            /// `label: message` for any error type; a position serde_json already appended is
            /// dropped, since serde_json appends it again on the way out.
            pub fn context_any<E: ::serde::de::Error>(label: &str, e: E) -> E {
                let text = e.to_string();
                E::custom(::std::format!("{label}: {}", without_position(&text)))
            }

            /// An error's text without the ` at line L column C` serde_json ends it with.
            fn without_position(text: &str) -> &str {
                match text.rfind(" at line ") {
                    ::core::option::Option::Some(at) if text[at..].contains(" column ") => &text[..at],
                    _ => text,
                }
            }

            /// A union that reads its input up to its discriminator, then hands the member the
            /// rest unbuffered (see [`deserialize_streamed`]).
            pub trait Streamed: ::core::marker::Sized {
                const NAME: &'static str;
                /// The discriminating property.
                const TAG: &'static str;
                /// The member (index, label) a value of the tag alone decides, if it does.
                fn by_tag(tag: &Content<'_>) -> ::core::option::Option<(usize, &'static str)>;
                /// Dispatch on a fully buffered input.
                fn from_buffer(content: Content<'_>) -> ::core::result::Result<Self, ::serde_json::Error>;
                /// Build member `which` from the entries read so far and the rest of the map.
                fn build<'de, A: ::serde::de::MapAccess<'de>>(which: usize, rest: Prefixed<'de, A>) -> ::core::result::Result<Self, A::Error>;
            }

            /// Deserialize a [`Streamed`] union: objects are read up to the tag and then streamed
            /// into the member; anything else (or an object whose tag does not decide) is
            /// buffered and dispatched whole.
            pub fn deserialize_streamed<'de, T: Streamed, D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<T, D::Error> {
                deserializer.deserialize_any(StreamVisitor(::core::marker::PhantomData))
            }

            struct StreamVisitor<T>(::core::marker::PhantomData<T>);

            impl<T: Streamed> StreamVisitor<T> {
                fn buffered<E: ::serde::de::Error>(content: Content<'_>) -> ::core::result::Result<T, E> {
                    T::from_buffer(content).map_err(E::custom)
                }
            }

            impl<'de, T: Streamed> ::serde::de::Visitor<'de> for StreamVisitor<T> {
                type Value = T;
                fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(T::NAME)
                }
                fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::core::result::Result<T, A::Error> {
                    // Entries before the tag are replayed to the member only while they are all
                    // scalars (the envelope's `jsonrpc` and `id`): an object or array before the
                    // tag sends the whole input down the buffered path instead, so no member is
                    // compiled to read nested values from the buffer as well as the stream.
                    let mut read = ::std::vec::Vec::new();
                    let mut nested = false;
                    while let ::core::option::Option::Some(key) = map.next_key::<Content<'de>>()? {
                        let value: Content<'de> = map.next_value()?;
                        let chosen = if nested {
                            ::core::option::Option::None
                        } else if key.as_str() == ::core::option::Option::Some(T::TAG) {
                            T::by_tag(&value)
                        } else {
                            nested = matches!(value, Content::Seq(_) | Content::Map(_));
                            ::core::option::Option::None
                        };
                        read.push((key, value));
                        if let ::core::option::Option::Some((which, label)) = chosen {
                            return T::build(which, Prefixed::new(read, map)).map_err(|e| context_any(label, e));
                        }
                    }
                    Self::buffered(Content::Map(read))
                }
                fn visit_seq<A: ::serde::de::SeqAccess<'de>>(self, seq: A) -> ::core::result::Result<T, A::Error> {
                    Self::buffered(Content::visit_seq(seq)?)
                }
                fn visit_bool<E: ::serde::de::Error>(self, v: bool) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::Bool(v))
                }
                fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::U64(v))
                }
                fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::I64(v))
                }
                fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::F64(v))
                }
                fn visit_borrowed_str<E: ::serde::de::Error>(self, v: &'de str) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::Str(v))
                }
                fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::String(v.into()))
                }
                fn visit_string<E: ::serde::de::Error>(self, v: ::std::string::String) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::String(v))
                }
                fn visit_unit<E: ::serde::de::Error>(self) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::Null)
                }
                fn visit_none<E: ::serde::de::Error>(self) -> ::core::result::Result<T, E> {
                    Self::buffered(Content::Null)
                }
                fn visit_some<D: ::serde::Deserializer<'de>>(self, d: D) -> ::core::result::Result<T, D::Error> {
                    deserialize_streamed(d)
                }
            }

            /// A map whose first entries were already read into [`Content`] (scalars only, see
            /// [`StreamVisitor`]): replays them, then reads on from the input.
            pub struct Prefixed<'de, A> {
                read: ::std::vec::IntoIter<(Content<'de>, Content<'de>)>,
                value: ::core::option::Option<Content<'de>>,
                rest: A,
            }

            impl<'de, A> Prefixed<'de, A> {
                pub fn new(read: ::std::vec::Vec<(Content<'de>, Content<'de>)>, rest: A) -> Self {
                    Prefixed { read: read.into_iter(), value: ::core::option::Option::None, rest }
                }
            }

            impl<'de, A: ::serde::de::MapAccess<'de>> ::serde::de::MapAccess<'de> for Prefixed<'de, A> {
                type Error = A::Error;
                fn next_key_seed<K: ::serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> ::core::result::Result<::core::option::Option<K::Value>, A::Error> {
                    match self.read.next() {
                        ::core::option::Option::Some((key, value)) => {
                            self.value = ::core::option::Option::Some(value);
                            seed.deserialize(ScalarDeserializer::<A::Error>::new(key)).map(::core::option::Option::Some)
                        }
                        ::core::option::Option::None => self.rest.next_key_seed(seed),
                    }
                }
                fn next_value_seed<V: ::serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> ::core::result::Result<V::Value, A::Error> {
                    match self.value.take() {
                        ::core::option::Option::Some(value) => seed.deserialize(ScalarDeserializer::<A::Error>::new(value)),
                        ::core::option::Option::None => self.rest.next_value_seed(seed),
                    }
                }
                fn size_hint(&self) -> ::core::option::Option<usize> {
                    self.rest.size_hint().map(|n| n + self.read.len())
                }
            }

            impl<'de, A: ::serde::de::MapAccess<'de>> ::serde::Deserializer<'de> for Prefixed<'de, A> {
                type Error = A::Error;
                fn deserialize_any<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, A::Error> {
                    visitor.visit_map(self)
                }
                ::serde::forward_to_deserialize_any! {
                    bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                    bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct
                    map struct enum identifier ignored_any
                }
            }

            pub fn kind(v: &Content<'_>) -> &'static str {
                match v {
                    Content::Null => "null",
                    Content::Bool(_) => "boolean",
                    Content::U64(_) | Content::I64(_) | Content::F64(_) => "number",
                    Content::Str(_) | Content::String(_) => "string",
                    Content::Seq(_) => "array",
                    Content::Map(_) => "object",
                }
            }

            pub fn show(v: ::core::option::Option<&Content<'_>>) -> ::std::string::String {
                match v {
                    ::core::option::Option::Some(c) => match c.as_str() {
                        ::core::option::Option::Some(s) => ::std::format!("`{s}`"),
                        ::core::option::Option::None => ::std::format!("of type {}", kind(c)),
                    },
                    ::core::option::Option::None => "(absent)".into(),
                }
            }

            /// The value of `key` in a buffered object (the last one, as serde_json keeps).
            pub fn get<'a, 'de>(map: &'a [(Content<'de>, Content<'de>)], key: &str) -> ::core::option::Option<&'a Content<'de>> {
                map.iter().rev().find(|(k, _)| k.as_str() == ::core::option::Option::Some(key)).map(|(_, v)| v)
            }

            fn has(map: &[(Content<'_>, Content<'_>)], path: &[&str]) -> bool {
                let ::core::option::Option::Some((last, parents)) = path.split_last() else { return true };
                let mut cur = map;
                for key in parents {
                    match get(cur, key) {
                        ::core::option::Option::Some(Content::Map(next)) => cur = next,
                        _ => return false,
                    }
                }
                get(cur, last).is_some()
            }

            /// The candidate whose distinguishing keys are all present and that matches the most of
            /// its own keys; failing that, the one missing the fewest (so its error names them).
            pub fn choose(map: &[(Content<'_>, Content<'_>)], table: &[Candidate]) -> usize {
                let mut best: ::core::option::Option<(usize, usize)> = ::core::option::Option::None;
                for (i, (required, unique)) in table.iter().enumerate() {
                    if required.iter().all(|p| has(map, p)) {
                        let score = required.len() + unique.iter().filter(|k| get(map, k).is_some()).count();
                        if best.is_none_or(|(_, s)| score > s) {
                            best = ::core::option::Option::Some((i, score));
                        }
                    }
                }
                if let ::core::option::Option::Some((i, _)) = best {
                    return i;
                }
                let mut nearest = (0, usize::MAX);
                for (i, (required, _)) in table.iter().enumerate() {
                    let missing = required.iter().filter(|p| !has(map, p)).count();
                    if missing < nearest.1 {
                        nearest = (i, missing);
                    }
                }
                nearest.0
            }

            /// A buffered JSON value: what a union reads before it knows its member. Cheaper than
            /// `serde_json::Value`: strings are borrowed from the input where possible and objects
            /// are plain vectors, so nothing is hashed or copied twice.
            pub enum Content<'de> {
                Null,
                Bool(bool),
                U64(u64),
                I64(i64),
                F64(f64),
                Str(&'de str),
                String(::std::string::String),
                Seq(::std::vec::Vec<Content<'de>>),
                Map(::std::vec::Vec<(Content<'de>, Content<'de>)>),
            }

            impl<'de> Content<'de> {
                pub fn as_str(&self) -> ::core::option::Option<&str> {
                    match self {
                        Content::Str(s) => ::core::option::Option::Some(s),
                        Content::String(s) => ::core::option::Option::Some(s),
                        _ => ::core::option::Option::None,
                    }
                }

                pub fn visit_seq<A: ::serde::de::SeqAccess<'de>>(mut seq: A) -> ::core::result::Result<Content<'de>, A::Error> {
                    let mut items = ::std::vec::Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                    while let ::core::option::Option::Some(item) = seq.next_element()? {
                        items.push(item);
                    }
                    ::core::result::Result::Ok(Content::Seq(items))
                }
            }

            impl<'de> ::serde::Deserialize<'de> for Content<'de> {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    struct Visitor;
                    impl<'de> ::serde::de::Visitor<'de> for Visitor {
                        type Value = Content<'de>;
                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str("any JSON value")
                        }
                        fn visit_unit<E>(self) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::Null)
                        }
                        fn visit_none<E>(self) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::Null)
                        }
                        fn visit_some<D: ::serde::Deserializer<'de>>(self, d: D) -> ::core::result::Result<Content<'de>, D::Error> {
                            ::serde::Deserialize::deserialize(d)
                        }
                        fn visit_bool<E>(self, v: bool) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::Bool(v))
                        }
                        fn visit_u64<E>(self, v: u64) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::U64(v))
                        }
                        fn visit_i64<E>(self, v: i64) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::I64(v))
                        }
                        fn visit_f64<E>(self, v: f64) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::F64(v))
                        }
                        fn visit_borrowed_str<E>(self, v: &'de str) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::Str(v))
                        }
                        fn visit_str<E>(self, v: &str) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::String(v.into()))
                        }
                        fn visit_string<E>(self, v: ::std::string::String) -> ::core::result::Result<Content<'de>, E> {
                            ::core::result::Result::Ok(Content::String(v))
                        }
                        fn visit_seq<A: ::serde::de::SeqAccess<'de>>(self, seq: A) -> ::core::result::Result<Content<'de>, A::Error> {
                            Content::visit_seq(seq)
                        }
                        fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::core::result::Result<Content<'de>, A::Error> {
                            let mut entries = ::std::vec::Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                            while let ::core::option::Option::Some(entry) = map.next_entry()? {
                                entries.push(entry);
                            }
                            ::core::result::Result::Ok(Content::Map(entries))
                        }
                    }
                    deserializer.deserialize_any(Visitor)
                }
            }

            /// Replays a [`Content`] to any `Deserialize` type, with errors of type `E`.
            pub struct ContentDeserializer<'de, E>(Content<'de>, ::core::marker::PhantomData<E>);

            impl<'de, E> ContentDeserializer<'de, E> {
                pub fn new(content: Content<'de>) -> Self {
                    ContentDeserializer(content, ::core::marker::PhantomData)
                }
            }

            impl<'de, E: ::serde::de::Error> ::serde::de::IntoDeserializer<'de, E> for Content<'de> {
                type Deserializer = ContentDeserializer<'de, E>;
                fn into_deserializer(self) -> ContentDeserializer<'de, E> {
                    ContentDeserializer::new(self)
                }
            }

            impl<'de, E: ::serde::de::Error> ::serde::Deserializer<'de> for ContentDeserializer<'de, E> {
                type Error = E;
                fn deserialize_any<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Seq(v) => visit_content_seq(v, visitor),
                        Content::Map(v) => visit_content_map(v, visitor),
                        scalar => ScalarDeserializer::<E>::new(scalar).deserialize_any(visitor),
                    }
                }
                fn deserialize_option<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Null => visitor.visit_none(),
                        other => visitor.visit_some(ContentDeserializer::<E>::new(other)),
                    }
                }
                fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(self, _name: &'static str, visitor: V) -> ::core::result::Result<V::Value, E> {
                    visitor.visit_newtype_struct(self)
                }
                // An object is asked for: only an object will do, as with serde_json itself
                // (`serde_json::Map` would otherwise turn `null` into `{}`).
                // The shapes a field usually asks for are answered directly instead of through
                // `deserialize_any`, which would compile every `visit_*` of each visitor (a
                // struct's visitor takes only a map); the errors are the same.
                fn deserialize_map<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Map(v) => visit_content_map(v, visitor),
                        other => ::core::result::Result::Err(E::invalid_type(unexpected(&other), &visitor)),
                    }
                }
                fn deserialize_seq<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Seq(v) => visit_content_seq(v, visitor),
                        other => ::core::result::Result::Err(E::invalid_type(unexpected(&other), &visitor)),
                    }
                }
                // A string or a boolean is a scalar: read as `ScalarDeserializer` reads it, which
                // refuses an array or object the same way.
                fn deserialize_str<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    ScalarDeserializer::<E>::new(self.0).deserialize_str(visitor)
                }
                fn deserialize_string<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    self.deserialize_str(visitor)
                }
                fn deserialize_bool<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    ScalarDeserializer::<E>::new(self.0).deserialize_bool(visitor)
                }
                fn deserialize_struct<V: ::serde::de::Visitor<'de>>(self, _name: &'static str, _fields: &'static [&'static str], visitor: V) -> ::core::result::Result<V::Value, E> {
                    self.deserialize_map(visitor)
                }
                ::serde::forward_to_deserialize_any! {
                    i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
                    unit unit_struct tuple tuple_struct enum identifier ignored_any
                }
            }

            /// Replays a scalar [`Content`] (null, a boolean, a number or a string), for
            /// [`ContentDeserializer`] too, with errors of type `E`; an object or array is refused
            /// as the wrong type. It never hands a visitor a map or a sequence, so a type read
            /// through it does not compile its members' decoding for it: replaying the scalars
            /// read before a union's tag costs little code per member.
            pub struct ScalarDeserializer<'de, E>(Content<'de>, ::core::marker::PhantomData<E>);

            impl<'de, E> ScalarDeserializer<'de, E> {
                pub fn new(content: Content<'de>) -> Self {
                    ScalarDeserializer(content, ::core::marker::PhantomData)
                }
            }

            impl<'de, E: ::serde::de::Error> ::serde::Deserializer<'de> for ScalarDeserializer<'de, E> {
                type Error = E;
                fn deserialize_any<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Null => visitor.visit_unit(),
                        Content::Bool(v) => visitor.visit_bool(v),
                        Content::U64(v) => visitor.visit_u64(v),
                        Content::I64(v) => visitor.visit_i64(v),
                        Content::F64(v) => visitor.visit_f64(v),
                        Content::Str(v) => visitor.visit_borrowed_str(v),
                        Content::String(v) => visitor.visit_string(v),
                        other => ::core::result::Result::Err(E::invalid_type(unexpected(&other), &visitor)),
                    }
                }
                fn deserialize_option<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Null => visitor.visit_none(),
                        other => visitor.visit_some(ScalarDeserializer::<E>::new(other)),
                    }
                }
                fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(self, _name: &'static str, visitor: V) -> ::core::result::Result<V::Value, E> {
                    visitor.visit_newtype_struct(self)
                }
                // Answered directly, as `ContentDeserializer` answers them, so a visitor's other
                // `visit_*` methods are not compiled for nothing; the errors are the same.
                fn deserialize_map<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    ::core::result::Result::Err(E::invalid_type(unexpected(&self.0), &visitor))
                }
                fn deserialize_seq<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    ::core::result::Result::Err(E::invalid_type(unexpected(&self.0), &visitor))
                }
                fn deserialize_struct<V: ::serde::de::Visitor<'de>>(self, _name: &'static str, _fields: &'static [&'static str], visitor: V) -> ::core::result::Result<V::Value, E> {
                    self.deserialize_map(visitor)
                }
                fn deserialize_str<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Str(v) => visitor.visit_borrowed_str(v),
                        Content::String(v) => visitor.visit_string(v),
                        other => ::core::result::Result::Err(E::invalid_type(unexpected(&other), &visitor)),
                    }
                }
                fn deserialize_string<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    self.deserialize_str(visitor)
                }
                fn deserialize_bool<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::core::result::Result<V::Value, E> {
                    match self.0 {
                        Content::Bool(v) => visitor.visit_bool(v),
                        other => ::core::result::Result::Err(E::invalid_type(unexpected(&other), &visitor)),
                    }
                }
                ::serde::forward_to_deserialize_any! {
                    i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit
                    unit_struct tuple tuple_struct enum identifier ignored_any
                }
            }

            /// A buffered object of a [`Streamed`] union whose tag picked member `label`, read
            /// again from its JSON text with the tag moved first (the last one given, which
            /// `get` and so the choice read), so the streaming code builds the member: the
            /// member is not compiled a second time to be read from the buffer.
            pub fn reread<T: Streamed + ::serde::de::DeserializeOwned>(content: Content<'_>, label: &str) -> ::core::result::Result<T, ::serde_json::Error> {
                let Content::Map(mut entries) = content else {
                    return ::core::result::Result::Err(error(&::std::format!("{label}: expected an object")));
                };
                let tag = entries.iter().rposition(|(k, _)| k.as_str() == ::core::option::Option::Some(T::TAG));
                match tag {
                    // The tag picks a member on its own, so the text is streamed, never buffered
                    // again.
                    ::core::option::Option::Some(at) if T::by_tag(&entries[at].1).is_some() => {
                        let tag = entries.remove(at);
                        entries.insert(0, tag);
                    }
                    _ => return ::core::result::Result::Err(error(&::std::format!("{label}: no member chosen"))),
                }
                let text = ::serde_json::to_vec(&Content::Map(entries))?;
                // The position is in the text written here, not in the input.
                ::serde_json::from_slice::<T>(&text).map_err(|e| error(without_position(&e.to_string())))
            }

            /// A buffered value written back as JSON, members in the order read.
            impl ::serde::Serialize for Content<'_> {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    match self {
                        Content::Null => serializer.serialize_unit(),
                        Content::Bool(v) => serializer.serialize_bool(*v),
                        Content::U64(v) => serializer.serialize_u64(*v),
                        Content::I64(v) => serializer.serialize_i64(*v),
                        Content::F64(v) => serializer.serialize_f64(*v),
                        Content::Str(v) => serializer.serialize_str(v),
                        Content::String(v) => serializer.serialize_str(v),
                        Content::Seq(items) => serializer.collect_seq(items),
                        Content::Map(entries) => serializer.collect_map(entries.iter().map(|(k, v)| (k, v))),
                    }
                }
            }

            /// An array's items to `visitor`; all of them must be taken.
            fn visit_content_seq<'de, V: ::serde::de::Visitor<'de>, E: ::serde::de::Error>(items: ::std::vec::Vec<Content<'de>>, visitor: V) -> ::core::result::Result<V::Value, E> {
                let mut seq = ::serde::de::value::SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                ::core::result::Result::Ok(value)
            }

            /// An object's members to `visitor`; all of them must be taken.
            fn visit_content_map<'de, V: ::serde::de::Visitor<'de>, E: ::serde::de::Error>(entries: ::std::vec::Vec<(Content<'de>, Content<'de>)>, visitor: V) -> ::core::result::Result<V::Value, E> {
                let mut map = ::serde::de::value::MapDeserializer::new(entries.into_iter());
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                ::core::result::Result::Ok(value)
            }

            fn unexpected<'a>(content: &'a Content<'_>) -> ::serde::de::Unexpected<'a> {
                use ::serde::de::Unexpected;
                match content {
                    Content::Null => Unexpected::Unit,
                    Content::Bool(v) => Unexpected::Bool(*v),
                    Content::U64(v) => Unexpected::Unsigned(*v),
                    Content::I64(v) => Unexpected::Signed(*v),
                    Content::F64(v) => Unexpected::Float(*v),
                    Content::Str(v) => Unexpected::Str(v),
                    Content::String(v) => Unexpected::Str(v),
                    Content::Seq(_) => Unexpected::Seq,
                    Content::Map(_) => Unexpected::Map,
                }
            }

            pub fn expect_const<'de, D: ::serde::Deserializer<'de>>(deserializer: D, expected: &'static str) -> ::core::result::Result<(), D::Error> {
                struct Visitor(&'static str);
                impl<'de> ::serde::de::Visitor<'de> for Visitor {
                    type Value = ();
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        write!(f, "the string `{}`", self.0)
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<(), E> {
                        if v == self.0 {
                            ::core::result::Result::Ok(())
                        } else {
                            ::core::result::Result::Err(E::invalid_value(::serde::de::Unexpected::Str(v), &self))
                        }
                    }
                }
                deserializer.deserialize_str(Visitor(expected))
            }

            /// An object key, borrowed from the input where the input allows it.
            pub struct Key<'de>(::std::borrow::Cow<'de, str>);

            impl<'de> Key<'de> {
                pub fn as_str(&self) -> &str {
                    &self.0
                }
                pub fn into_string(self) -> ::std::string::String {
                    self.0.into_owned()
                }
            }

            impl<'de> ::serde::Deserialize<'de> for Key<'de> {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    struct Visitor;
                    impl<'de> ::serde::de::Visitor<'de> for Visitor {
                        type Value = Key<'de>;
                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str("a string key")
                        }
                        fn visit_borrowed_str<E: ::serde::de::Error>(self, v: &'de str) -> ::core::result::Result<Key<'de>, E> {
                            ::core::result::Result::Ok(Key(::std::borrow::Cow::Borrowed(v)))
                        }
                        fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<Key<'de>, E> {
                            ::core::result::Result::Ok(Key(::std::borrow::Cow::Owned(v.to_string())))
                        }
                        fn visit_string<E: ::serde::de::Error>(self, v: ::std::string::String) -> ::core::result::Result<Key<'de>, E> {
                            ::core::result::Result::Ok(Key(::std::borrow::Cow::Owned(v)))
                        }
                    }
                    deserializer.deserialize_str(Visitor)
                }
        }
    }
}
