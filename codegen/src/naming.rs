//! Rust names from schema names: snake_case fields, PascalCase types, keywords escaped.

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Words of a name: split at non-alphanumerics and at lower-to-upper case changes.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let boundary = (p.is_ascii_lowercase() || p.is_ascii_digit()) && c.is_ascii_uppercase();
            if boundary && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A snake_case field name for a JSON property (`io.modelcontextprotocol/clientInfo` becomes `client_info`).
pub fn field_name(json_name: &str) -> String {
    let last = json_name.rsplit('/').next().unwrap_or(json_name);
    let mut name = words(last)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if name.is_empty() {
        name = "field".into();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("f_{name}");
    }
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// A PascalCase type name piece (`tools/call` becomes `ToolsCall`, `2.0` becomes `V2_0`).
pub fn pascal(name: &str) -> String {
    let mut out = String::new();
    for w in words(name) {
        if out.ends_with(|c: char| c.is_ascii_digit())
            && w.starts_with(|c: char| c.is_ascii_digit())
        {
            out.push('_');
        }
        let mut chars = w.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}

/// Type names a schema type cannot take: what the generated module declares besides the
/// schema's types, the generic parameters and local types of the code generated beside them,
/// `Self`, and Rust's primitive types, which a type of the same name would shadow in the
/// generated code.
pub const RESERVED_TYPES: &[&str] = &[
    "__private",
    "Validate",
    "ValidationError",
    "ValidationPath",
    "__A",
    "__D",
    "__S",
    "__Visitor",
    "Self",
    "bool",
    "char",
    "str",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "f64",
];

/// A type name that is a valid Rust identifier, keeping a schema name as it is where possible
/// (a reserved one gets a trailing `_`).
pub fn type_name(schema_name: &str) -> String {
    if RESERVED_TYPES.contains(&schema_name) {
        return format!("{schema_name}_");
    }
    if !schema_name.is_empty()
        && schema_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !schema_name.starts_with(|c: char| c.is_ascii_digit())
        && !KEYWORDS.contains(&schema_name)
    {
        schema_name.to_string()
    } else {
        pascal(schema_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        assert_eq!(field_name("_meta"), "meta");
        assert_eq!(
            field_name("io.modelcontextprotocol/clientInfo"),
            "client_info"
        );
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("$schema"), "schema");
        assert_eq!(field_name("ttlMs"), "ttl_ms");
        assert_eq!(field_name("mimeType"), "mime_type");
        assert_eq!(field_name("URL"), "url");
    }

    #[test]
    fn types() {
        assert_eq!(pascal("tools/call"), "ToolsCall");
        assert_eq!(pascal("2.0"), "V2_0");
        assert_eq!(pascal("ref/resource"), "RefResource");
        assert_eq!(pascal("date-time"), "DateTime");
        assert_eq!(type_name("JSONRPCRequest"), "JSONRPCRequest");
        assert_eq!(type_name("Self"), "Self_");
        assert_eq!(type_name("__private"), "__private_");
        assert_eq!(type_name("i64"), "i64_");
    }
}
