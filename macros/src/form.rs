//! `#[derive(ElicitForm)]` and `#[derive(ElicitEnum)]`, every mistake of the item reported at
//! once (errors collected in a [`Ctxt`]; an option given twice is one of them).
//!
//! Flatness is checked by the type system: every field's type must implement `ElicitField`
//! (strings, booleans, numbers, `ElicitEnum` types, `Vec` of those, `Option` of these), so a
//! nested struct, a map or a `Vec<String>` fails to compile with a message saying forms are flat.

use crate::attrs::{doc_text, lit_str};
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields};

pub fn derive_form(input: TokenStream) -> TokenStream {
    match form(input) {
        Ok(ts) => ts,
        Err(e) => e.to_compile_error(),
    }
}

pub fn derive_enum(input: TokenStream) -> TokenStream {
    match enumeration(input) {
        Ok(ts) => ts,
        Err(e) => e.to_compile_error(),
    }
}

/// `#[elicit(...)]` options of one form field.
#[derive(Default)]
struct FieldOpts {
    rename: Option<String>,
    tokens: Vec<TokenStream>,
}

fn num_lit(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<TokenStream> {
    let e: Expr = meta.value()?.parse()?;
    Ok(quote!(#e))
}

/// Skip what is left of an option's value, up to the comma before the next option.
fn skip_value(input: syn::parse::ParseStream<'_>) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(syn::Token![,]) {
        input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// The options of a field's `#[elicit(...)]` attributes. A mistake in one option is recorded
/// and the next option is still read.
fn field_opts(cx: &Ctxt, attrs: &[syn::Attribute]) -> FieldOpts {
    let mut o = FieldOpts::default();
    let mut seen: Vec<String> = Vec::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        let parsed = a.parse_nested_meta(|m| {
            let key = m.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            if seen.contains(&key) {
                cx.error_spanned_by(&m.path, format!("`{key}` is given more than once"));
            }
            seen.push(key.clone());
            // An option whose value is wrong is recorded; the value is consumed either way so
            // the options after it are read.
            let option = (|| -> syn::Result<()> {
                match key.as_str() {
                    "rename" => o.rename = Some(lit_str(&m)?.value()),
                    "title" => {
                        let v = lit_str(&m)?;
                        o.tokens.push(quote!(title: ::core::option::Option::Some(#v),));
                    }
                    "description" => {
                        let v = lit_str(&m)?;
                        o.tokens.push(quote!(description: ::core::option::Option::Some(#v),));
                    }
                    "format" => {
                        let v = lit_str(&m)?;
                        if !["email", "uri", "date", "date-time"].contains(&v.value().as_str()) {
                            return Err(syn::Error::new(
                                v.span(),
                                "format must be one of \"email\", \"uri\", \"date\", \"date-time\"",
                            ));
                        }
                        o.tokens.push(quote!(format: ::core::option::Option::Some(#v),));
                    }
                    "min_length" | "max_length" | "min_items" | "max_items" => {
                        let v = num_lit(&m)?;
                        let k = syn::Ident::new(&key, m.path.span());
                        o.tokens.push(quote!(#k: ::core::option::Option::Some((#v) as i64),));
                    }
                    "minimum" | "maximum" => {
                        let v = num_lit(&m)?;
                        let k = syn::Ident::new(&key, m.path.span());
                        o.tokens.push(quote!(#k: ::core::option::Option::Some((#v) as f64),));
                    }
                    "default" => {
                        let e: Expr = m.value()?.parse()?;
                        o.tokens.push(quote!(default: ::core::option::Option::Some(::oxmcp::__private::serde_json::json!(#e)),));
                    }
                    _ => {
                        return Err(m.error(
                            "unknown elicit option; expected rename, title, description, format, min_length, max_length, minimum, maximum, min_items, max_items or default",
                        ));
                    }
                }
                Ok(())
            })();
            if let Err(e) = option {
                cx.syn_error(e);
                skip_value(m.input)?;
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    o
}

fn form(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    let cx = Ctxt::new();
    if !input.generics.params.is_empty() {
        cx.syn_error(syn::Error::new(
            input.generics.span(),
            "ElicitForm cannot be derived for a generic type",
        ));
    }
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(f) => &f.named,
            other => {
                cx.syn_error(syn::Error::new(
                    other.span(),
                    "ElicitForm needs a struct with named fields: each field is one form field",
                ));
                return cx.check().map(|()| TokenStream::new());
            }
        },
        _ => {
            cx.syn_error(syn::Error::new(
                input.ident.span(),
                "ElicitForm needs a struct with named fields (derive ElicitEnum for a choice)",
            ));
            return cx.check().map(|()| TokenStream::new());
        }
    };
    let rt = quote!(::oxmcp);
    let mut props = Vec::new();
    let mut inits = Vec::new();
    for f in fields {
        let Some(ident) = &f.ident else { continue };
        let opts = field_opts(&cx, &f.attrs);
        let wire = opts.rename.clone().unwrap_or_else(|| ident.to_string());
        let ty = &f.ty;
        let mut tokens = opts.tokens.clone();
        if !tokens
            .iter()
            .any(|t| t.to_string().starts_with("description"))
        {
            if let Some(d) = doc_text(&f.attrs) {
                tokens.push(quote!(description: ::core::option::Option::Some(#d),));
            }
        }
        // Spanned on the type, so "not a primitive form field" points at the offending type.
        let field_trait = quote_spanned!(ty.span()=> <#ty as #rt::handler::ElicitField>);
        props.push(quote! {
            {
                let opts = #rt::handler::FieldOptions { #(#tokens)* ..::core::default::Default::default() };
                properties.insert(::std::string::String::from(#wire), #field_trait::schema(&opts));
                if #field_trait::REQUIRED {
                    required.push(::std::string::String::from(#wire));
                }
            }
        });
        inits.push(quote! {
            #ident: #field_trait::parse(content.get(#wire))
                .map_err(|e| ::std::format!("field `{}`: {}", #wire, e))?,
        });
    }
    cx.check()?;
    Ok(quote! {
        impl #rt::ElicitForm for #name {
            fn requested_schema() -> #rt::schema::ElicitRequestFormParamsRequestedSchema {
                let mut properties = #rt::__private::IndexMap::new();
                let mut required = ::std::vec::Vec::new();
                #(#props)*
                #rt::schema::ElicitRequestFormParamsRequestedSchema::new(properties, required)
            }
            fn from_content(
                content: &#rt::__private::IndexMap<::std::string::String, #rt::schema::ElicitResultContentValue>,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                ::core::result::Result::Ok(#name { #(#inits)* })
            }
        }
    })
}

fn enumeration(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    let Data::Enum(e) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "ElicitEnum needs an enum of unit variants (derive ElicitForm for a form)",
        ));
    };
    let rt = quote!(::oxmcp);
    let cx = Ctxt::new();
    let mut options = Vec::new();
    let mut from = Vec::new();
    let mut to = Vec::new();
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            cx.syn_error(syn::Error::new(
                v.fields.span(),
                "ElicitEnum variants cannot carry data: a choice is a plain value",
            ));
        }
        let mut wire = v.ident.to_string();
        let mut title = None;
        for a in v.attrs.iter().filter(|a| a.path().is_ident("elicit")) {
            let parsed = a.parse_nested_meta(|m| {
                if m.path.is_ident("rename") {
                    wire = lit_str(&m)?.value();
                } else if m.path.is_ident("title") {
                    title = Some(lit_str(&m)?.value());
                } else {
                    cx.syn_error(
                        m.error("unknown elicit option on a variant; expected rename or title"),
                    );
                    skip_value(m.input)?;
                }
                Ok(())
            });
            if let Err(e) = parsed {
                cx.syn_error(e);
            }
        }
        if title.is_none() {
            title = doc_text(&v.attrs);
        }
        let t = match &title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        let ident = &v.ident;
        options.push(quote!((#wire, #t)));
        from.push(quote!(#wire => ::core::option::Option::Some(#name::#ident),));
        to.push(quote!(#name::#ident => #wire,));
    }
    cx.check()?;
    Ok(quote! {
        impl #rt::ElicitEnum for #name {
            fn options() -> &'static [(&'static str, ::core::option::Option<&'static str>)] {
                &[#(#options),*]
            }
            fn from_wire(value: &str) -> ::core::option::Option<Self> {
                match value { #(#from)* _ => ::core::option::Option::None }
            }
            fn to_wire(&self) -> &'static str {
                match self { #(#to)* }
            }
        }
        impl #rt::handler::ElicitField for #name {
            fn schema(opts: &#rt::handler::FieldOptions) -> #rt::schema::PrimitiveSchemaDefinition {
                #rt::__private::single_select::<Self>(opts)
            }
            fn parse(value: ::core::option::Option<&#rt::schema::ElicitResultContentValue>) -> ::core::result::Result<Self, ::std::string::String> {
                #rt::__private::parse_single::<Self>(value)
            }
        }
    })
}
