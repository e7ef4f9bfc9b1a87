//! `#[mcp_type]`: the derives a type needs to be a tool argument or a structured output
//! (`Serialize`, `Deserialize`, `JsonSchema`), through the runtime's re-exports, so a server
//! author depends on `oxmcp` alone.

use crate::attrs::lit_str;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut krate: Option<syn::Path> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            if krate.is_some() {
                return Err(meta.error("`crate` is given more than once"));
            }
            krate = Some(lit_str(&meta)?.parse()?);
            Ok(())
        } else {
            Err(meta.error("unknown #[mcp_type] option; expected crate"))
        }
    });
    let parsed = syn::parse::Parser::parse2(parser, attr)
        .and_then(|()| syn::parse2::<syn::DeriveInput>(item.clone()));
    let input = match parsed {
        Ok(i) => i,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let rt = match &krate {
        Some(p) => p.to_token_stream(),
        None => quote!(::oxmcp),
    };
    let path = rt.to_string().replace(' ', "");
    let serde_path = format!("{path}::__private::serde");
    let schemars_path = format!("{path}::__private::schemars");
    quote! {
        #[derive(
            #rt::__private::DeriveSerialize,
            #rt::__private::DeriveDeserialize,
            #rt::__private::DeriveJsonSchema
        )]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #input
    }
}

/// The error of `#[mcp_type]` without the runtime's `derive` feature, at the type's name.
pub fn needs_derive_feature(input: TokenStream) -> TokenStream {
    let span = match syn::parse2::<syn::DeriveInput>(input) {
        Ok(i) => i.ident.span(),
        Err(e) => return e.to_compile_error(),
    };
    syn::Error::new(
        span,
        "#[mcp_type] derives `JsonSchema`, which needs oxmcp's `derive` feature: add \"derive\" to its features",
    )
    .to_compile_error()
}
