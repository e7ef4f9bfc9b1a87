//! `#[mcp_tool]`: the `ToolHandler` implementation (listing with hints, scopes, task support and
//! telemetry of payloads; the call).

use super::Shared;
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
        arg_schemas,
        extract,
        needs,
        map_type,
        ret_ty,
        ..
    } = s;
    let ret_span = s.ret_span;

    let parse = s.parse_args(quote!(#rt::__private::bad_args(__mcp_message)));
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
        let check = quote_spanned!(t.span()=> #rt::__private::tasks_on!(););
        quote! {
            fn task_support(&self) -> #rt::handler::TaskSupport {
                #check
                #rt::handler::TaskSupport { mode: #mode, explicit_start: #explicit }
            }
        }
    });
    let trace_payloads = m.opts.trace_payloads.map(|_| {
        quote! {
            fn trace_payloads(&self) -> bool { true }
        }
    });
    let into = quote_spanned!(ret_span=> <#ret_ty as #rt::handler::IntoToolResult>);
    let body = s.boxed(quote! {
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
            #trace_payloads
        }
    }
}
