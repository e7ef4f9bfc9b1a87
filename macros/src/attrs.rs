//! Shared parsing: doc comments, `key = value` options, and the handler fingerprint.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::hash::Hasher;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr};

/// The doc comment lines of `attrs`, without the leading space rustdoc adds.
pub fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(
                    s.value()
                        .strip_prefix(' ')
                        .map(str::to_string)
                        .unwrap_or_else(|| s.value()),
                ),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The doc comment as one text, or `None` when there is none.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let text = doc_lines(attrs).join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// A short digest of an item's tokens: changes whenever the handler's code changes.
///
/// FNV-1a over the token text: a fixed algorithm (the same value from every compiler, so every
/// build of one source agrees), and no cryptographic strength needed, since the text is the
/// author's code and not input; the runtime digests it again with SHA-256 before it binds a
/// sealed state to it.
pub fn fingerprint(item: &impl ToTokens) -> String {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(item.to_token_stream().to_string().as_bytes());
    format!("{:016x}", hasher.finish())
}

/// Parse a string literal option value.
pub fn lit_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Parse a `true`/`false` option value.
pub fn lit_bool(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<bool> {
    Ok(meta.value()?.parse::<syn::LitBool>()?.value)
}

/// An `Option<String>` as tokens of `Option<&'static str>`.
pub fn opt_str(v: &Option<String>) -> TokenStream {
    match v {
        Some(s) => quote::quote!(::core::option::Option::Some(#s)),
        None => quote::quote!(::core::option::Option::None),
    }
}

/// All of `errors` as one error (each keeps its span), or `None` when there are none.
pub fn combine(errors: Vec<syn::Error>) -> Option<syn::Error> {
    errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    })
}

/// An identifier as written on the wire: without the `r#` of a raw identifier.
pub fn unraw(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    match name.strip_prefix("r#") {
        Some(bare) => bare.to_string(),
        None => name,
    }
}
