//! The typed model the three handler attributes share (`#[mcp_tool]`, `#[mcp_prompt]`,
//! `#[mcp_resource]`): the attribute's options and the function's arguments, parsed and checked
//! with every error collected in a [`Ctxt`]. The expansion (`crate::expand`) reads only a model
//! that passed.

use crate::attrs::{lit_bool, lit_str, unraw};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, Type};

/// Which handler the attribute makes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "#[mcp_tool]",
            Kind::Prompt => "#[mcp_prompt]",
            Kind::Resource => "#[mcp_resource]",
        }
    }

    fn expected_options(self) -> &'static str {
        match self {
            Kind::Tool => {
                "name, title, description, annotations(...), scopes, task, task_start, trace_payloads or crate"
            }
            Kind::Prompt => "name, title, description or crate",
            Kind::Resource => "uri, name, title, description, mime_type or crate",
        }
    }
}

/// Options from the attribute's arguments.
#[derive(Default)]
pub struct Options {
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub uri: Option<LitStr>,
    pub mime_type: Option<String>,
    pub hints: [Option<bool>; 4],
    /// The path of the runtime crate (`crate = "..."`), for crates that re-export it.
    pub krate: Option<syn::Path>,
    /// OAuth scopes a caller needs (`scopes = ["files:write"]`, tools only).
    pub scopes: Vec<String>,
    pub scopes_set: bool,
    /// Task support (`task = "optional" | "required"`, tools only).
    pub task: Option<LitStr>,
    /// Where the task starts (`task_start = "call" | "explicit"`).
    pub task_start: Option<LitStr>,
    /// `trace_payloads`: the tool's telemetry records its arguments and result (tools only).
    pub trace_payloads: Option<proc_macro2::Span>,
}

/// The names of the annotation hints, in the order of `Options::hints`.
pub const HINTS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

/// One argument of the handler function.
pub struct Arg {
    pub name: Ident,
    /// The wire name, when `#[arg(rename = "...")]` sets one.
    pub rename: Option<String>,
    /// The HTTP header (`Mcp-Param-<name>`) that mirrors this argument, from `#[arg(header = "...")]`.
    pub header: Option<String>,
    pub ty: Type,
    pub description: Option<String>,
    pub optional: bool,
    /// Taken from the call (`State<T>`, `Principal`, `Option<Principal>`, `RequestContext`),
    /// not from the arguments.
    pub from_call: bool,
}

impl Arg {
    /// The name the argument has on the wire: its `rename`, or the parameter's name.
    pub fn wire_name(&self) -> String {
        self.rename.clone().unwrap_or_else(|| unraw(&self.name))
    }
}

/// Everything the expansion needs, checked.
pub struct Model {
    pub kind: Kind,
    pub opts: Options,
    pub func: ItemFn,
    pub args: Vec<Arg>,
}

impl Model {
    /// Parse and check the attribute's arguments and the function it is on. On any error, the
    /// output to emit: every error, and the function as written (without the macro's own
    /// `#[arg]` attributes), so the rest of the crate still type-checks.
    pub fn parse(kind: Kind, attr: TokenStream, item: TokenStream) -> Result<Model, TokenStream> {
        let mut func: ItemFn = match syn::parse2(item.clone()) {
            Ok(f) => f,
            Err(e) => {
                let mut out = e.to_compile_error();
                out.extend(item);
                return Err(out);
            }
        };
        let cx = Ctxt::new();
        let opts = parse_options(&cx, kind, attr);
        // `#[arg(...)]` attributes are the macro's; they are taken off the parameters whether
        // or not the rest is valid, so the function emitted on error compiles.
        let args = parse_args(&cx, kind, &mut func);
        check(&cx, kind, &opts, &func, &args);
        match cx.check() {
            Ok(()) => Ok(Model {
                kind,
                opts,
                func,
                args,
            }),
            Err(e) => {
                let mut out = e.to_compile_error();
                out.extend(func.into_token_stream());
                Err(out)
            }
        }
    }
}

/// Set `slot` from an option, or report a repeated option.
fn set_once<T>(slot: &mut Option<T>, value: T, meta: &syn::meta::ParseNestedMeta<'_>, cx: &Ctxt) {
    if slot.is_some() {
        let key = meta.path.to_token_stream().to_string();
        cx.syn_error(syn::Error::new(
            meta.path.span(),
            format!("`{key}` is given more than once"),
        ));
    } else {
        *slot = Some(value);
    }
}

fn parse_options(cx: &Ctxt, kind: Kind, attr: TokenStream) -> Options {
    let mut o = Options::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match (kind, key.as_str()) {
            (_, "name") => set_once(&mut o.name, lit_str(&meta)?.value(), &meta, cx),
            (_, "title") => set_once(&mut o.title, lit_str(&meta)?.value(), &meta, cx),
            (_, "description") => {
                set_once(&mut o.description, lit_str(&meta)?.value(), &meta, cx)
            }
            (_, "crate") => {
                let path: syn::Path = lit_str(&meta)?.parse()?;
                set_once(&mut o.krate, path, &meta, cx)
            }
            (Kind::Tool, "scopes") => {
                let list: syn::ExprArray = meta.value()?.parse()?;
                let mut scopes = Vec::new();
                for e in &list.elems {
                    match e {
                        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => scopes.push(s.value()),
                        other => cx.syn_error(syn::Error::new(other.span(), "a scope is a string literal")),
                    }
                }
                if o.scopes_set {
                    cx.syn_error(syn::Error::new(meta.path.span(), "`scopes` is given more than once"));
                }
                o.scopes_set = true;
                o.scopes = scopes;
            }
            (Kind::Tool, "task") => {
                let v = lit_str(&meta)?;
                if !matches!(v.value().as_str(), "optional" | "required") {
                    cx.syn_error(syn::Error::new(v.span(), "`task` is \"optional\" or \"required\""));
                }
                set_once(&mut o.task, v, &meta, cx)
            }
            (Kind::Tool, "task_start") => {
                let v = lit_str(&meta)?;
                if !matches!(v.value().as_str(), "call" | "explicit") {
                    cx.syn_error(syn::Error::new(v.span(), "`task_start` is \"call\" or \"explicit\""));
                }
                set_once(&mut o.task_start, v, &meta, cx)
            }
            (Kind::Tool, "trace_payloads") => {
                if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    // Skip the value, so the options after this one are still read.
                    if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    }
                    cx.syn_error(meta.error("`trace_payloads` takes no value: write it alone to record the tool's arguments and result in its telemetry"));
                }
                set_once(&mut o.trace_payloads, meta.path.span(), &meta, cx)
            }
            (Kind::Resource, "uri") => set_once(&mut o.uri, lit_str(&meta)?, &meta, cx),
            (Kind::Resource, "mime_type") => {
                set_once(&mut o.mime_type, lit_str(&meta)?.value(), &meta, cx)
            }
            (Kind::Tool, "annotations") => meta.parse_nested_meta(|a| {
                let k = a.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match HINTS.iter().position(|h| *h == k) {
                    Some(i) => set_once(&mut o.hints[i], lit_bool(&a)?, &a, cx),
                    None => cx.syn_error(a.error(
                        "unknown annotation; expected read_only, destructive, idempotent or open_world",
                    )),
                }
                Ok(())
            })?,
            _ => {
                // Skip the value, if any, so the options after this one are still read.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|n| {
                        if n.input.peek(syn::Token![=]) {
                            let _: syn::Expr = n.value()?.parse()?;
                        }
                        Ok(())
                    });
                }
                cx.syn_error(meta.error(format!(
                    "unknown {} option; expected {}",
                    kind.attr(),
                    kind.expected_options()
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        cx.syn_error(e);
    }
    o
}

/// The type inside parentheses, or inside the invisible group a `macro_rules!` macro puts around
/// a type it passes through as `$t:ty`.
fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Paren(inner) => peel(&inner.elem),
        Type::Group(inner) => peel(&inner.elem),
        other => other,
    }
}

/// The last segment of a type's path (`Option<u8>` of `std::option::Option<u8>`), what the
/// macro recognizes a type by; none for a qualified path (`<T as Trait>::Item`) or another kind
/// of type.
fn path_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match peel(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn is_option(ty: &Type) -> bool {
    path_segment(ty).is_some_and(|s| s.ident == "Option")
}

/// Whether a type is named `String` (a map key the runtime's schemas take).
fn is_plain_string(ty: &Type) -> bool {
    path_segment(ty)
        .is_some_and(|s| s.ident == "String" && matches!(s.arguments, syn::PathArguments::None))
}

/// Whether a type is named like one whose schema the runtime writes itself: `String`, `char`,
/// `bool`, an integer or float type, or an `Option`, `Vec` or `String`-keyed `HashMap` or
/// `BTreeMap` of one.
pub fn is_builtin(ty: &Type) -> bool {
    let Some(last) = path_segment(ty) else {
        return false;
    };
    let name = last.ident.to_string();
    match &last.arguments {
        syn::PathArguments::None => matches!(
            name.as_str(),
            "String"
                | "bool"
                | "char"
                | "i128"
                | "u128"
                | "f32"
                | "f64"
                | "i8"
                | "i16"
                | "i32"
                | "i64"
                | "isize"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "usize"
        ),
        syn::PathArguments::AngleBracketed(a) if name == "Option" || name == "Vec" => {
            matches!(a.args.first(), Some(syn::GenericArgument::Type(inner)) if a.args.len() == 1 && is_builtin(inner))
        }
        // String-keyed maps (a `HashMap`'s hasher, a third argument, is left to schemars).
        syn::PathArguments::AngleBracketed(a) if name == "HashMap" || name == "BTreeMap" => {
            let mut args = a.args.iter();
            match (args.next(), args.next(), args.next()) {
                (
                    Some(syn::GenericArgument::Type(key)),
                    Some(syn::GenericArgument::Type(value)),
                    None,
                ) => is_plain_string(key) && is_builtin(value),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The function's parameters as handler arguments; `#[arg(...)]` is consumed.
fn parse_args(cx: &Ctxt, kind: Kind, func: &mut ItemFn) -> Vec<Arg> {
    let attr_name = kind.attr();
    let mut args = Vec::new();
    for input in func.sig.inputs.iter_mut() {
        let pt = match input {
            FnArg::Receiver(r) => {
                cx.syn_error(syn::Error::new(
                    r.span(),
                    format!("{attr_name} does not support `self`: a handler is a free function; share data through a `static` or a type with interior mutability"),
                ));
                continue;
            }
            FnArg::Typed(pt) => pt,
        };
        let mut description = None;
        let mut rename = None;
        let mut header = None;
        let mut keep = Vec::new();
        for a in pt.attrs.drain(..) {
            if !a.path().is_ident("arg") {
                keep.push(a);
                continue;
            }
            let parsed = a.parse_nested_meta(|m| {
                if m.path.is_ident("description") {
                    set_once(&mut description, lit_str(&m)?.value(), &m, cx);
                } else if m.path.is_ident("rename") {
                    set_once(&mut rename, lit_str(&m)?.value(), &m, cx);
                } else if m.path.is_ident("header") {
                    set_once(&mut header, lit_str(&m)?.value(), &m, cx);
                } else {
                    if m.input.peek(syn::Token![=]) {
                        let _: syn::Expr = m.value()?.parse()?;
                    }
                    cx.syn_error(
                        m.error("unknown argument option; expected description, rename or header"),
                    );
                }
                Ok(())
            });
            if let Err(e) = parsed {
                cx.syn_error(e);
            }
        }
        pt.attrs = keep;
        let name = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            other => {
                cx.syn_error(syn::Error::new(
                    other.span(),
                    "handler arguments must be plain names (`city: String`), not patterns",
                ));
                continue;
            }
        };
        match &*pt.ty {
            Type::Reference(r) => {
                cx.syn_error(syn::Error::new(
                    r.span(),
                    "handler arguments are deserialized from JSON and must be owned: use `String` instead of `&str`, `Vec<T>` instead of `&[T]`",
                ));
                continue;
            }
            Type::ImplTrait(t) => {
                cx.syn_error(syn::Error::new(
                    t.span(),
                    "`impl Trait` arguments are not supported: name a concrete type",
                ));
                continue;
            }
            _ => {}
        }
        let from_call = is_from_call(&pt.ty);
        if from_call && (description.is_some() || rename.is_some() || header.is_some()) {
            cx.syn_error(syn::Error::new(
                pt.ty.span(),
                "`#[arg(...)]` describes a tool argument; this parameter is taken from the call, not from the arguments",
            ));
        }
        if kind == Kind::Prompt && !from_call && !is_string_like(&pt.ty) {
            cx.syn_error(syn::Error::new(
                pt.ty.span(),
                "prompt arguments are strings: use `String` or `Option<String>`",
            ));
        }
        args.push(Arg {
            from_call,
            optional: is_option(&pt.ty),
            name,
            rename,
            header,
            ty: (*pt.ty).clone(),
            description,
        });
    }
    args
}

/// Checks that need the whole model: the function's shape, and a resource's URI template
/// against its arguments.
fn check(cx: &Ctxt, kind: Kind, opts: &Options, func: &ItemFn, args: &[Arg]) {
    let attr_name = kind.attr();
    if func.sig.asyncness.is_none() {
        cx.syn_error(syn::Error::new(
            func.sig.fn_token.span(),
            format!("{attr_name} needs an `async fn`: handlers may await elicit(), sample() and list_roots()"),
        ));
    }
    if !func.sig.generics.params.is_empty() {
        cx.syn_error(syn::Error::new(
            func.sig.generics.span(),
            format!("{attr_name} functions cannot be generic: the arguments' schema must be known"),
        ));
    }
    if let (Some(start), None) = (&opts.task_start, &opts.task) {
        cx.syn_error(syn::Error::new(
            start.span(),
            "`task_start` needs `task = \"optional\"` or `task = \"required\"`",
        ));
    }
    if kind != Kind::Resource {
        return;
    }
    let Some(uri) = &opts.uri else {
        cx.syn_error(syn::Error::new(
            Span::call_site(),
            "#[mcp_resource] needs `uri = \"...\"` (a URI, or a template such as \"file:///{path}\")",
        ));
        return;
    };
    let vars = template_vars(&uri.value());
    for a in args.iter().filter(|a| !a.from_call) {
        if !vars.contains(&a.name.to_string()) {
            cx.syn_error(syn::Error::new(
                a.name.span(),
                format!(
                    "argument `{}` is not a variable of the URI template `{}`",
                    a.name,
                    uri.value()
                ),
            ));
        }
    }
    for v in &vars {
        if !args.iter().any(|a| !a.from_call && a.name == v) {
            cx.syn_error(syn::Error::new(
                uri.span(),
                format!("URI template variable `{v}` has no argument of that name"),
            ));
        }
    }
}

/// The last segment of a type path and its first generic type argument, if any.
fn last_segment(ty: &Type) -> Option<(&Ident, Option<&Type>)> {
    let seg = path_segment(ty)?;
    let inner = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    Some((&seg.ident, inner))
}

/// Whether a parameter is taken from the call rather than from the arguments: `State<T>`,
/// `Principal`, `Option<Principal>` or `RequestContext`, by the last segment of its path.
fn is_from_call(ty: &Type) -> bool {
    match last_segment(ty) {
        Some((ident, inner)) if ident == "Option" => inner
            .and_then(last_segment)
            .is_some_and(|(i, _)| i == "Principal"),
        Some((ident, _)) => ident == "State" || ident == "Principal" || ident == "RequestContext",
        None => false,
    }
}

fn is_string_like(ty: &Type) -> bool {
    match last_segment(ty) {
        Some((ident, _)) if ident == "String" => true,
        Some((ident, Some(inner))) if ident == "Option" => {
            last_segment(inner).is_some_and(|(i, _)| i == "String")
        }
        _ => false,
    }
}

fn template_vars(uri: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = uri;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(rest[open + 1..open + close].to_string());
        rest = &rest[open + close + 1..];
    }
    out
}
