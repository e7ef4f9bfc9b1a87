//! Generates the 2026-07-28 bindings into OUT_DIR at build time, as a server crate would.

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("mcp_2026_07_28.rs");
    if let Err(e) = oxmcp_codegen::Builder::new()
        .version("2026-07-28")
        .out_file(&out)
        .generate()
    {
        // A build script reports failure by exiting non-zero with the reason on stderr.
        eprintln!("oxmcp-codegen: {e}");
        std::process::exit(1);
    }
}
