//! Compiles the version pins and every overlay file in `schema/overlays/` into the crate, so a
//! new version's overlay is a file dropped in that folder (no Rust edit), and a build.rs user of
//! the packaged generator needs no checkout of this repository.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("schema").join("overlays");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!(
        "cargo:rerun-if-changed={}",
        Path::new(&manifest).join("schema/versions.json").display()
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    let mut out = String::from("/// Overlays compiled in, by version (one file per version in `schema/overlays/`).\nconst OVERLAYS: &[(&str, &str)] = &[\n");
    for path in &files {
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
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("overlays.rs");
    std::fs::write(dest, out).expect("write overlays.rs");
}
