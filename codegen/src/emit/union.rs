//! How a union of the schema (`anyOf`/`oneOf`) is emitted: an enum, and the code that picks
//! its member when reading, by a tag, by the keys present, or by trying each in turn.

use super::*;

pub(crate) fn kind_pattern(kind: &str) -> TokenStream {
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

pub(crate) const KINDS: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];

/// The member an open union keeps an object of an unknown kind in.
pub(crate) const UNKNOWN: &str = "Unknown";

/// A type as formatted Rust text (for a support-macro call, which prettyplease does not format).
pub(crate) fn type_text(ty: &TokenStream) -> Result<String> {
    let item = unparse(quote!(type __T = #ty;))?;
    Ok(item
        .trim()
        .trim_start_matches("type __T = ")
        .trim_end_matches(';')
        .to_string())
}

/// The enum of a union of the schema and its reader: its members ([`members`]), how a value is
/// dispatched to one ([`dispatch`]), then the code that reads it.
pub(crate) fn emit_union(
    t: &TypeDef,
    variants: &[Variant],
    model: &Model,
    doc: TokenStream,
    open: bool,
) -> Result<Emitted> {
    let name = ident(&t.name);
    // An open union's extra member comes last, so the schema's members keep their indices; it
    // takes no part in planning the dispatch, only in where an unknown tag value leads.
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
    let members = members(&name, variants, &all, model)?;
    let dispatch = dispatch(t, variants, &all, open)?;
    let (deserialize, from_content) = reader(t, &name, &all, &dispatch, &members);
    let Members {
        defs,
        call,
        name_arms,
        schema_names,
        ..
    } = members;
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

/// The reader of union `t` (enum `name`, members `all`) as `dispatch` picks a member: its
/// `Deserialize` impl, and the function that picks a member from a buffered input
/// (`from_content`, or `choose` where the tag alone decides and the member is then read again
/// from the text).
fn reader(
    t: &TypeDef,
    name: &Ident,
    all: &[Variant],
    dispatch: &Dispatch,
    members: &Members,
) -> (TokenStream, TokenStream) {
    let Dispatch {
        kind_arms,
        expected,
        object_plan,
    } = dispatch;
    let (build_arms, stream_arms) = (&members.build_arms, &members.stream_arms);
    let object_plan = object_plan.as_ref();
    let objects_only = expected == &["object"];
    let expected = format!("expected {}", expected.join(" or "));
    let union_name = t.name.as_str();
    let streamed = object_plan
        .and_then(|p| emit_by_tag(p, all))
        .filter(|(prop, _)| STREAMED_TAGS.contains(&prop.as_str()));
    // A streamed union of objects whose tag alone picks every member: a fully buffered input
    // is chosen from the buffer and then read again from its text, tag first, by the streaming
    // code; no member is compiled to be read from the buffer.
    let by_tag_only =
        streamed.is_some() && objects_only && object_plan.is_some_and(|p| tag_decides_all(p, all));
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
    (deserialize, from_content)
}

/// A union's members as the enum and its support code need them.
struct Members {
    /// The enum's variants.
    defs: Vec<TokenStream>,
    /// The `union!` support macro's call (`Serialize`, `From`, `Validate`), one line a member.
    call: String,
    /// `variant_name`'s arms.
    name_arms: Vec<TokenStream>,
    /// Each member built from a buffered input, by index.
    build_arms: Vec<TokenStream>,
    /// Each member read from the rest of a streamed input, by index.
    stream_arms: Vec<TokenStream>,
    /// The schema names of the declared members.
    schema_names: Vec<String>,
}

/// The members of union `name`: the schema's `variants`, and `all` of them (an open union's
/// extra member last).
fn members(name: &Ident, variants: &[Variant], all: &[Variant], model: &Model) -> Result<Members> {
    let declared = variants.len();
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
    Ok(Members {
        defs,
        call,
        name_arms,
        build_arms,
        stream_arms,
        schema_names,
    })
}

/// How a union's reader picks a member.
struct Dispatch {
    /// One arm per JSON kind some member takes.
    kind_arms: Vec<TokenStream>,
    /// The kinds taken, in order, for the error that names them.
    expected: Vec<&'static str>,
    /// How objects are told apart, when a member is an object.
    object_plan: Option<ObjPlan>,
}

/// The dispatch of union `t`: first on the JSON kind, then (for objects) on the planned
/// discriminators; an open union sends objects of an unknown kind to its last member.
fn dispatch(t: &TypeDef, variants: &[Variant], all: &[Variant], open: bool) -> Result<Dispatch> {
    let declared = variants.len();
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
            let code = emit_plan(&plan, all);
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
    Ok(Dispatch {
        kind_arms,
        expected,
        object_plan,
    })
}

/// Discriminators whose unions read their input as a stream (up to the tag, then straight into
/// the member) instead of buffering it whole. Streaming is faster to run (a 3-request
/// `input_required` result parses in half the time) but each streamed union is compiled again
/// for every input type, so it is kept to the message-level unions: streaming every tagged union
/// (`type` too: content blocks, schema definitions) made the crate's release build 2.7x slower
/// for little further gain.
pub(crate) const STREAMED_TAGS: &[&str] = &["method", "resultType", "mode"];

/// For a plan that starts with a discriminator: the property and the body of `by_tag`, which
/// names the member a value of it decides on its own (`None` where more must be read).
pub(crate) fn emit_by_tag(plan: &ObjPlan, variants: &[Variant]) -> Option<(String, TokenStream)> {
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
pub(crate) fn tag_decides_all(plan: &ObjPlan, variants: &[Variant]) -> bool {
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
pub(crate) fn is_unknown(variants: &[Variant], i: usize) -> bool {
    variants
        .get(i)
        .is_some_and(|v| v.name == UNKNOWN && v.schema_name.is_none())
}

pub(crate) fn emit_plan(plan: &ObjPlan, variants: &[Variant]) -> TokenStream {
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
