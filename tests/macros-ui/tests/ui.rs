//! Compile-time behaviour of the macros: each misuse fails with a message that says why
//! (`ui/fail`), and what must compile does (`ui/pass`: hygiene, `crate = "..."`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
