//! `#[mcp_resource]`: the `ResourceHandler` implementation (a resource or a URI template).

use super::Shared;
use crate::attrs::opt_str;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

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
    let uri = m.opts.uri.as_ref().map(LitStr::value).unwrap_or_default();
    let mime = opt_str(&m.opts.mime_type);
    let into = quote_spanned!(ret_span=> <#ret_ty as #rt::handler::IntoResourceResult>);
    let body = s.boxed(quote! {
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
