//! Compiles the version pins, every overlay file in `schema/overlays/` and every pinned
//! `schema/<version>/schema.json` into the crate, so a new version's overlay is a file dropped in
//! that folder (no Rust edit), and a build.rs user of the packaged generator needs no checkout
//! of this repository, no download and no environment variable for a pinned version.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("schema");
    println!("cargo:rerun-if-changed={}", root.display());
    let overlays_dir = root.join("overlays");
    println!("cargo:rerun-if-changed={}", overlays_dir.display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("versions.json").display()
    );
    let mut out = String::from(
        "/// Overlays compiled in, by version (one file per version in `schema/overlays/`).\nconst OVERLAYS: &[(&str, &str)] = &[\n",
    );
    for path in files(&overlays_dir, |p| {
        p.extension().is_some_and(|e| e == "json")
    }) {
        let version = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("overlay file names are versions");
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            out,
            "    ({version:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    out.push_str(
        "/// Schemas compiled in, by version (`schema/<version>/schema.json`; checked against the pins when used).\nconst SCHEMAS: &[(&str, &[u8])] = &[\n",
    );
    for dir in files(&root, |p| p.join("schema.json").is_file()) {
        let version = dir
            .file_name()
            .and_then(|s| s.to_str())
            .expect("schema folder names are versions");
        let file = dir.join("schema.json");
        println!("cargo:rerun-if-changed={}", file.display());
        let _ = writeln!(
            out,
            "    ({version:?}, include_bytes!({:?})),",
            file.display().to_string()
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("builtin.rs");
    std::fs::write(dest, out).expect("write builtin.rs");
}

/// The entries of `dir` that satisfy `keep`, sorted (none when `dir` is missing).
fn files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| keep(p));
    found.sort();
    found
}
