//! The runtime's modules import one way, in the layers ARCHITECTURE.md draws (the table below is
//! that drawing as data). This reads the crate's sources and fails on an import that points up a
//! layer, or on any cycle between modules. An item the crate root re-exports (`crate::Server`)
//! counts as its own module's (`server`): a shortcut through the root is still an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer of a top-level module and the top-level modules it may use.
fn allowed(top: &str) -> Option<&'static [&'static str]> {
    Some(match top {
        "cfg" | "wire" | "outbound" => &[],
        "handler" => &["wire"],
        "request_state" => &["wire"],
        // Telemetry sits under everything that makes spans, and reads a step's journal.
        "otel" => &["wire", "request_state", "logging", "outbound"],
        "resume" => &["wire", "handler", "request_state", "otel"],
        "tasks" => &["wire", "handler", "request_state"],
        "server" => &[
            "wire",
            "handler",
            "request_state",
            "resume",
            "tasks",
            "skills",
            "metrics",
            "otel",
        ],
        "transport" => &[
            "wire",
            "handler",
            "request_state",
            "resume",
            "tasks",
            "server",
            "otel",
        ],
        "auth" => &["wire", "handler"],
        "http" => &[
            "wire",
            "handler",
            "request_state",
            "resume",
            "tasks",
            "server",
            "transport",
            "auth",
            "metrics",
            "otel",
        ],
        "stdio" => &[
            "wire",
            "handler",
            "request_state",
            "resume",
            "tasks",
            "server",
            "transport",
            "otel",
        ],
        // A host adapter: the HTTP transport behind another front.
        "lambda" => &[
            "wire",
            "request_state",
            "tasks",
            "server",
            "http",
            "handler",
        ],
        "redis" => &["wire", "request_state", "tasks"],
        "testing" => &[
            "wire",
            "handler",
            "request_state",
            "resume",
            "tasks",
            "server",
            "client",
        ],
        "client" => &["wire", "skills", "otel", "outbound"],
        "logging" | "metrics" => &[],
        "skills" => &["wire"],
        // The crate root and the guide re-export and document; they are above every layer.
        _ => return None,
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/server/mrtr.rs` -> ["server", "mrtr"]; `src/server/mod.rs` -> ["server"].
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code of a file without its test module and without comments.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    body.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The items the crate root re-exports (`pub use server::{Server, ...}`, `pub use oxmcp_macros::...`
/// excepted), by name, with the module each comes from.
fn root_reexports(lib: &str, modules: &BTreeSet<Vec<String>>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut rest = lib;
    while let Some(at) = rest.find("pub use ") {
        rest = &rest[at + "pub use ".len()..];
        let end = rest.find(';').unwrap_or(rest.len());
        let stmt = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        rest = &rest[end..];
        let (path, names) = match stmt.split_once("::{") {
            Some((path, names)) => (
                path.to_string(),
                names.trim().trim_end_matches('}').to_string(),
            ),
            None => match stmt.rsplit_once("::") {
                Some((path, name)) => (path.to_string(), name.to_string()),
                None => continue,
            },
        };
        let path: Vec<String> = path.split("::").map(str::to_string).collect();
        // The longest prefix of the path that is a module of this crate.
        let Some(module) = (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
        else {
            continue;
        };
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            out.insert(name.to_string(), module.clone());
        }
    }
    out
}

/// The module paths a file's code refers to (`crate::a::b::item`, `super::x`), resolved to the
/// longest prefix that is a module of the crate, or through a root re-export (`crate::Server`) to
/// the module the item comes from.
fn references(
    module: &[String],
    code: &str,
    modules: &BTreeSet<Vec<String>>,
    reexports: &BTreeMap<String, Vec<String>>,
) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent(module))] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let preceded_by_ident = rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            rest = &rest[at + prefix.len()..];
            if preceded_by_ident {
                continue;
            }
            let path: Vec<String> = rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let mut target = base.clone();
            let mut resolved = base.clone();
            if base.is_empty() {
                if let Some(from) = path.first().and_then(|first| reexports.get(first)) {
                    if from.as_slice() != module {
                        out.insert(from.clone());
                    }
                    continue;
                }
            }
            for seg in path {
                target.push(seg);
                if modules.contains(&target) {
                    resolved = target.clone();
                } else {
                    break;
                }
            }
            if resolved != module && !resolved.is_empty() {
                out.insert(resolved);
            }
        }
    }
    out
}

fn parent(module: &[String]) -> Vec<String> {
    module[..module.len().saturating_sub(1)].to_vec()
}

#[test]
fn modules_import_one_way_and_never_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(&src, f)).collect();
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let reexports = root_reexports(&code(&lib), &modules);
    assert_eq!(
        reexports.get("Server").map(Vec::as_slice),
        Some(&["server".to_string()][..]),
        "the root's re-exports are read: {reexports:?}"
    );
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let refs = references(&module, &code(&text), &modules, &reexports);
        edges.insert(module.clone(), refs);
    }
    assert!(
        edges.contains_key(&vec!["server".to_string(), "mrtr".to_string()]),
        "the scan sees the server's modules: {:?}",
        edges.keys().collect::<Vec<_>>()
    );

    let mut upward = Vec::new();
    for (from, tos) in &edges {
        let Some(top) = from.first() else { continue };
        let Some(may) = allowed(top) else { continue };
        for to in tos {
            let target = &to[0];
            if target != top && !may.contains(&target.as_str()) {
                upward.push(format!("{} uses {}", from.join("::"), to.join("::")));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the layering: {upward:#?}"
    );

    // No cycles: a depth-first search that finds no back edge.
    fn visit<'a>(
        m: &'a Vec<String>,
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<&'a Vec<String>, u8>,
        stack: &mut Vec<&'a Vec<String>>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(2) => return None,
            Some(1) => {
                let from = stack.iter().position(|s| *s == m).unwrap_or(0);
                return Some(stack[from..].iter().map(|s| s.join("::")).collect());
            }
            _ => {}
        }
        state.insert(m, 1);
        stack.push(m);
        for next in edges.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(m, 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        let cycle = visit(m, &edges, &mut state, &mut Vec::new());
        assert!(cycle.is_none(), "modules import each other: {cycle:?}");
    }
}
