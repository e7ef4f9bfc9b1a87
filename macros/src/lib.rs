use proc_macro::TokenStream;
#[proc_macro_attribute] pub fn mcp_tool(_a: TokenStream, i: TokenStream) -> TokenStream { i }
#[proc_macro_attribute] pub fn mcp_prompt(_a: TokenStream, i: TokenStream) -> TokenStream { i }
#[proc_macro_attribute] pub fn mcp_resource(_a: TokenStream, i: TokenStream) -> TokenStream { i }
#[proc_macro_derive(ElicitForm, attributes(elicit))] pub fn elicit_form(_i: TokenStream) -> TokenStream { TokenStream::new() }
#[proc_macro_derive(ElicitEnum, attributes(elicit))] pub fn elicit_enum(_i: TokenStream) -> TokenStream { TokenStream::new() }
