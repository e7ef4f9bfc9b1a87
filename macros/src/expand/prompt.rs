//! `#[mcp_prompt]`: the `PromptHandler` implementation.

use super::Shared;
use crate::attrs::opt_str;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

pub(super) fn imp(s: &Shared<'_>) -> TokenStream {
    let Shared {
        m,
        rt,
        ident,
        name,
        title,
        description,
        fingerprint,
        field_names,
        extract,
        needs,
        map_type,
        ret_ty,
        ..
    } = s;
    let ret_span = s.ret_span;

    let parse = s.parse_args(
        quote!(::core::result::Result::Err(#rt::schema::Error::invalid_params(__mcp_message))),
    );
    let prompt_args = m.args.iter().filter(|a| !a.from_call).map(|a| {
        let n = a.wire_name();
        let d = opt_str(&a.description);
        let required = !a.optional;
        quote!((#n, #d, #required))
    });
    let into = quote_spanned!(ret_span=> <#ret_ty as #rt::handler::IntoPromptResult>);
    let body = s.boxed(quote! {
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
