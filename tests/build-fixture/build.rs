//! Generates the 2026-07-28 bindings into OUT_DIR at build time, as a server crate would, and
//! the bindings of a small schema that states every kind of validation keyword.

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let builds = [
        oxmcp_codegen::Builder::new()
            .version("2026-07-28")
            .out_file(out.join("mcp_2026_07_28.rs")),
        oxmcp_codegen::Builder::new()
            .version("constraints")
            .schema("schema/constraints.json")
            .no_overlay()
            .out_file(out.join("constraints.rs")),
    ];
    for builder in builds {
        if let Err(e) = builder.generate() {
            // A build script reports failure by exiting non-zero with the reason on stderr.
            eprintln!("oxmcp-codegen: {e}");
            std::process::exit(1);
        }
    }
}
