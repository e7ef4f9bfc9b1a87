//! Prints the public API of a crate, one item a line, from the JSON rustdoc wrote for it
//! (`cargo rustdoc -- -Z unstable-options --output-format json`), leaving out blanket and
//! auto-trait impls: what `.ci/public-api.sh` compares with a crate's `public-api.txt`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(json) = std::env::args_os().nth(1) else {
        eprintln!("usage: public-api-listing RUSTDOC_JSON");
        return ExitCode::from(2);
    };
    match public_api::Builder::from_rustdoc_json(json)
        .omit_blanket_impls(true)
        .omit_auto_trait_impls(true)
        .build()
    {
        Ok(api) => {
            print!("{api}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("public-api-listing: {e}");
            ExitCode::FAILURE
        }
    }
}
