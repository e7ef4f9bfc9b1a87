//! Compile-time diagnostics of the macros: each misuse fails with a message that says why.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
