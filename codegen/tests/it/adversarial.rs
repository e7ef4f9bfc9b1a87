//! Property tests with hostile input: schemas and tool lists no one would publish on purpose.
//! Whatever the generator is given, it returns a clear error or Rust that parses and declares no
//! item, field or variant twice; it never panics. The protocol generator reads the golden
//! schemas with parts replaced by hostile shapes (names that collide once converted, keywords,
//! dangling and cyclic references, empty unions, wrong types); the tool-client generator reads
//! `tools/list` results with any names, descriptions and input/output schemas, as a server it
//! is pointed at could send.

use std::collections::BTreeSet;
use std::path::Path;

use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any JSON value, small.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        name().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(name(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Names that make trouble once turned into Rust: keywords in both cases, names that convert
/// to the same identifier, digits first, empty, punctuation, non-ASCII.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "", "type", "Type", "self", "Self", "super", "crate", "fn", "r#fn", "_", "__", "0",
            "1st", "a-b", "a_b", "aB", "AB", "a b", "a/b", "b", "$ref", "$defs", "__private",
            "Value", "Option", "String", "Box", "Vec", "serde", "std", "core", "Result",
            "Ping", "Pong", "Message", "Text", "text", "TEXT", "_meta", "meta", "é", "名前",
            "\u{202e}", "a\"b", "a\\b", "*/", "/*", "\n", "#", "[", "{@link X}",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,8}",
    ]
}

/// A schema node of a hostile shape.
fn hostile(defs: Vec<String>) -> impl Strategy<Value = Value> {
    let refs = prop::sample::select(defs);
    prop_oneof![
        any_json(),
        refs.clone().prop_map(|d| json!({"$ref": format!("#/$defs/{d}")})),
        name().prop_map(|d| json!({"$ref": format!("#/$defs/{d}")})),
        name().prop_map(|r| json!({"$ref": r})),
        Just(json!({"anyOf": []})),
        Just(json!({"oneOf": []})),
        Just(json!({"allOf": []})),
        Just(json!({"enum": []})),
        Just(json!({"type": []})),
        Just(json!({"type": ["string", "null", 5]})),
        Just(json!({"type": "no-such-type"})),
        any_json().prop_map(|c| json!({"const": c})),
        proptest::collection::vec(any_json(), 0..4).prop_map(|e| json!({"enum": e})),
        proptest::collection::vec(refs.clone(), 0..4).prop_map(|r| {
            json!({"anyOf": r.iter().map(|d| json!({"$ref": format!("#/$defs/{d}")})).collect::<Vec<_>>()})
        }),
        proptest::collection::vec(refs, 0..4).prop_map(|r| {
            json!({"allOf": r.iter().map(|d| json!({"$ref": format!("#/$defs/{d}")})).collect::<Vec<_>>()})
        }),
        (proptest::collection::vec((name(), any_json()), 0..5), proptest::collection::vec(name(), 0..3))
            .prop_map(|(props, required)| {
                let props: Map<String, Value> = props.into_iter().collect();
                json!({"type": "object", "properties": props, "required": required})
            }),
        any_json().prop_map(|a| json!({"type": "object", "additionalProperties": a})),
        any_json().prop_map(|i| json!({"type": "array", "items": i})),
        name().prop_map(|p| json!({"type": "string", "pattern": p})),
        any_json().prop_map(|f| json!({"type": "string", "format": f})),
        (any_json(), any_json()).prop_map(|(a, b)| json!({"type": "integer", "minimum": a, "maximum": b})),
    ]
}

/// One change to a schema: where (a path of choices, taken modulo what is there) and what.
#[derive(Debug, Clone)]
enum Change {
    /// Replace the node at the path with this.
    Replace(Vec<usize>, Value),
    /// Remove the node at the path from its parent.
    Remove(Vec<usize>),
    /// Add a definition with this name.
    Define(String, Value),
    /// Rename a definition (the path picks it), leaving references to the old name.
    Rename(usize, String),
}

fn change(defs: Vec<String>) -> impl Strategy<Value = Change> {
    let path = proptest::collection::vec(any::<usize>(), 0..6);
    prop_oneof![
        4 => (path.clone(), hostile(defs.clone())).prop_map(|(p, v)| Change::Replace(p, v)),
        2 => path.prop_map(Change::Remove),
        2 => (name(), hostile(defs)).prop_map(|(n, v)| Change::Define(n, v)),
        1 => (any::<usize>(), name()).prop_map(|(i, n)| Change::Rename(i, n)),
    ]
}

/// The index of the child `choice` picks (modulo the children there are), or none for a leaf.
fn pick(node: &Value, choice: usize) -> Option<usize> {
    let n = match node {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => 0,
    };
    (n > 0).then(|| choice % n)
}

/// The `i`th child of a container [`pick`] chose.
fn nth_mut(node: &mut Value, i: usize) -> &mut Value {
    match node {
        Value::Object(m) => m.values_mut().nth(i).expect("a picked child"),
        Value::Array(a) => &mut a[i],
        _ => unreachable!("pick chooses children of containers only"),
    }
}

/// The indices a path of choices leads through from `root`, stopping at a leaf (or, if
/// `containers`, before one).
fn walk(root: &Value, path: &[usize], containers: bool) -> Vec<usize> {
    let mut node = root;
    let mut out = Vec::new();
    for &choice in path {
        let Some(i) = pick(node, choice) else { break };
        let next = match node {
            Value::Object(m) => m.values().nth(i),
            Value::Array(a) => a.get(i),
            _ => None,
        };
        let Some(next) = next else { break };
        if containers && !(next.is_object() || next.is_array()) {
            break;
        }
        out.push(i);
        node = next;
    }
    out
}

fn apply(schema: &mut Value, change: Change) {
    match change {
        Change::Replace(path, value) => {
            let indices = walk(&schema["$defs"], &path, false);
            let mut node = &mut schema["$defs"];
            for i in indices {
                node = nth_mut(node, i);
            }
            *node = value;
        }
        Change::Remove(path) => {
            let Some((last, path)) = path.split_last() else {
                return;
            };
            let indices = walk(&schema["$defs"], path, true);
            let mut node = &mut schema["$defs"];
            for i in indices {
                node = nth_mut(node, i);
            }
            match (pick(node, *last), node) {
                (Some(i), Value::Object(m)) => {
                    let key = m.keys().nth(i).cloned().expect("a picked key");
                    m.remove(&key);
                }
                (Some(i), Value::Array(a)) => {
                    a.remove(i);
                }
                _ => {}
            }
        }
        Change::Define(name, value) => {
            if let Some(defs) = schema["$defs"].as_object_mut() {
                defs.insert(name, value);
            }
        }
        Change::Rename(choice, name) => {
            if let Some(defs) = schema["$defs"].as_object_mut() {
                if !defs.is_empty() {
                    let old = defs.keys().nth(choice % defs.len()).cloned();
                    if let Some(value) = old.and_then(|k| defs.remove(&k)) {
                        defs.insert(name, value);
                    }
                }
            }
        }
    }
}

/// The golden schemas, with their definitions' names.
fn goldens() -> Vec<(Value, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the golden directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
        let defs = schema["$defs"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        out.push((schema, defs));
    }
    assert!(!out.is_empty(), "no golden schemas");
    out
}

/// A golden schema with changes applied.
fn mutated() -> impl Strategy<Value = Value> {
    prop::sample::select(goldens()).prop_flat_map(|(schema, defs)| {
        proptest::collection::vec(change(defs), 1..5).prop_map(move |changes| {
            let mut schema = schema.clone();
            for c in changes {
                apply(&mut schema, c);
            }
            schema
        })
    })
}

/// The generator for the schema at `path`, as published (no overlay), printing nothing for
/// cargo.
fn builder(path: &Path) -> oxmcp_codegen::Builder {
    oxmcp_codegen::Builder::new()
        .version("hostile")
        .schema(path)
        .no_overlay()
        .emit_rerun_if_changed(false)
}

/// Items declared twice in one scope of `file`: types and functions of a module, fields of a
/// struct, variants of an enum. The compiler would refuse any of them.
fn declared_twice(file: &syn::File) -> Vec<String> {
    fn scan(items: &[syn::Item], scope: &str, twice: &mut Vec<String>) {
        let mut types = BTreeSet::new();
        let mut values = BTreeSet::new();
        for item in items {
            let (ident, is_type) = match item {
                syn::Item::Struct(s) => {
                    let mut fields = BTreeSet::new();
                    for f in s.fields.iter().filter_map(|f| f.ident.as_ref()) {
                        if !fields.insert(f.to_string()) {
                            twice.push(format!("{scope}{}.{f}", s.ident));
                        }
                    }
                    (Some(&s.ident), true)
                }
                syn::Item::Enum(e) => {
                    let mut variants = BTreeSet::new();
                    for v in &e.variants {
                        if !variants.insert(v.ident.to_string()) {
                            twice.push(format!("{scope}{}::{}", e.ident, v.ident));
                        }
                    }
                    (Some(&e.ident), true)
                }
                syn::Item::Type(t) => (Some(&t.ident), true),
                syn::Item::Fn(f) => (Some(&f.sig.ident), false),
                syn::Item::Const(c) => (Some(&c.ident), false),
                syn::Item::Static(s) => (Some(&s.ident), false),
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        scan(inner, &format!("{scope}{}::", m.ident), twice);
                    }
                    (Some(&m.ident), true)
                }
                _ => (None, false),
            };
            if let Some(ident) = ident {
                let set = if is_type { &mut types } else { &mut values };
                if !set.insert(ident.to_string()) {
                    twice.push(format!("{scope}{ident}"));
                }
            }
        }
    }
    let mut twice = Vec::new();
    scan(&file.items, "", &mut twice);
    twice
}

/// A `tools/list` result with any names, descriptions and input/output schemas.
fn tool_list() -> impl Strategy<Value = Value> {
    proptest::collection::vec(
        (
            name(),
            prop::option::of(any_json()),
            prop::option::of(prop_oneof![any_json(), hostile(vec!["A".into()])]),
            prop::option::of(prop_oneof![any_json(), hostile(vec!["A".into()])]),
        ),
        0..4,
    )
    .prop_map(|tools| {
        let tools: Vec<Value> = tools
            .into_iter()
            .map(|(name, description, input, output)| {
                let mut tool = json!({"name": name});
                if let Some(d) = description {
                    tool["description"] = d;
                }
                if let Some(i) = input {
                    tool["inputSchema"] = i;
                }
                if let Some(o) = output {
                    tool["outputSchema"] = o;
                }
                tool
            })
            .collect();
        json!({"tools": tools})
    })
}

/// Runs `generate`, failing on a panic; on success checks that the code parses and declares
/// nothing twice.
fn check_output(
    generate: impl FnOnce() -> Result<String, String> + std::panic::UnwindSafe,
    input: &Value,
) -> Result<(), TestCaseError> {
    let code = match std::panic::catch_unwind(generate) {
        Err(_) => return Err(TestCaseError::fail(format!("panicked on {input}"))),
        Ok(Err(message)) => {
            prop_assert!(!message.trim().is_empty(), "an empty error for {input}");
            return Ok(());
        }
        Ok(Ok(code)) => code,
    };
    let file = syn::parse_file(&code)
        .map_err(|e| TestCaseError::fail(format!("output does not parse ({e}) for {input}")))?;
    let twice = declared_twice(&file);
    prop_assert!(twice.is_empty(), "declared twice: {twice:?} for {input}");
    Ok(())
}

/// `default` cases, or `PROPTEST_CASES` for a longer run.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// The protocol generator given a golden schema with hostile parts.
    #[test]
    fn a_hostile_schema_gets_an_error_or_sound_rust(schema in mutated()) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("schema.json");
        std::fs::write(&path, schema.to_string()).expect("written");
        let builder = builder(&path);
        check_output(
            move || builder.generate_string().map(|g| g.code).map_err(|e| e.to_string()),
            &schema,
        )?;
    }

    /// The tool-client generator given any `tools/list` result a server could send.
    #[test]
    fn any_tools_list_gets_an_error_or_sound_rust(list in tool_list()) {
        let builder = oxmcp_codegen::ClientBuilder::from_tools_list(list.clone());
        check_output(move || builder.generate_string().map_err(|e| e.to_string()), &list)?;
    }
}

/// Compiles `modules` (name, code), the ones the generator accepted of `tried` inputs, as one
/// crate with these `[dependencies]` lines and these other files (path, text), with cargo,
/// offline, against this workspace's lockfile, in a target directory of its own; the crate is
/// kept for a look when it does not compile.
fn compile(modules: &[(String, String)], tried: usize, dependencies: &str, files: &[(&str, &str)]) {
    assert!(
        modules.len() >= 50,
        "only {} of {tried} hostile inputs were accepted; the corpus tests too little",
        modules.len()
    );
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let krate = tempfile::tempdir().expect("a temporary directory");
    let src = krate.path().join("src");
    std::fs::create_dir(&src).expect("src");
    let mut lib = String::from("//! Generated from hostile input.\n");
    for (name, code) in modules {
        std::fs::write(src.join(format!("{name}.rs")), code).expect("written");
        lib.push_str(&format!("pub mod {name};\n"));
    }
    std::fs::write(src.join("lib.rs"), lib).expect("written");
    for (path, text) in files {
        let path = krate.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(path, text).expect("written");
    }
    let manifest = format!(
        "[package]\nname = \"hostile\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [workspace]\n\n[dependencies]\n{dependencies}"
    );
    std::fs::write(krate.path().join("Cargo.toml"), manifest).expect("written");
    std::fs::copy(
        workspace.join("Cargo.lock"),
        krate.path().join("Cargo.lock"),
    )
    .expect("the lockfile");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .current_dir(krate.path())
        .env("CARGO_TARGET_DIR", workspace.join("target/hostile-input"))
        .output()
        .expect("cargo runs");
    let errors = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = errors
        .lines()
        .filter(|l| l.contains("error"))
        .take(20)
        .collect();
    let kept = krate.keep();
    assert!(
        out.status.success(),
        "the generated code does not compile (crate kept at {}):\n{}",
        kept.display(),
        errors.join("\n")
    );
    std::fs::remove_dir_all(kept).ok();
}

/// What the generator accepts, rustc accepts: the modules generated from many hostile schemas
/// (the same ones every run: a fixed seed) compile together, with the bindings' dependencies.
#[test]
fn hostile_schemas_the_generator_accepts_compile() {
    use proptest::strategy::ValueTree;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut modules = Vec::new();
    for i in 0..200 {
        let schema = mutated().new_tree(&mut runner).expect("a schema").current();
        let path = dir.path().join(format!("m{i}.json"));
        std::fs::write(&path, schema.to_string()).expect("written");
        let generated = builder(&path).generate_string();
        if let Ok(generated) = generated {
            modules.push((format!("m{i}"), generated.code));
        }
    }
    compile(
        &modules,
        200,
        "serde = { package = \"serde_core\", version = \"1.0.220\" }\n\
         serde_json = \"1\"\n\
         indexmap = { version = \"2\", features = [\"serde\"] }\n\
         regex = { version = \"1\", default-features = false, features = [\"std\", \"unicode-perl\", \"unicode-case\"] }\n",
        &[],
    );
}

/// A stand-in for the runtime's client with the signatures the typed client module calls (the
/// real one compiles the corpus of real servers' tools in the workspace's `tests` crate), so
/// many hostile tool lists compile in seconds without building the runtime.
const CLIENT_STAND_IN: &str = r#"pub mod client {
    pub use crate::typed_stand_in::typed;
    pub struct ClientError;
    pub struct Client;
    impl Client {
        pub async fn call_tool_checked<A: serde::Serialize + ?Sized>(
            &self,
            _name: &str,
            _args: &A,
        ) -> Result<crate::schema::CallToolResult, ClientError> {
            Err(ClientError)
        }
        pub async fn call_tool_typed<A: serde::Serialize + ?Sized, T: serde::de::DeserializeOwned>(
            &self,
            _name: &str,
            _args: &A,
        ) -> Result<T, ClientError> {
            Err(ClientError)
        }
    }
}
pub mod schema {
    pub struct CallToolResult;
}
pub mod __private {
    pub use serde;
    pub use serde_json;
}
pub mod typed_stand_in {
    pub mod typed {
        #[derive(Debug, Clone)]
        pub struct ConversionError(String);
        impl std::fmt::Display for ConversionError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl std::error::Error for ConversionError {}
        impl From<&'static str> for ConversionError {
            fn from(m: &'static str) -> Self {
                ConversionError(m.into())
            }
        }
        impl From<String> for ConversionError {
            fn from(m: String) -> Self {
                ConversionError(m)
            }
        }
    }
}
"#;

/// What the tool-client generator accepts from a server, rustc accepts with only serde and
/// serde_json beside the runtime: many hostile tool lists (a fixed seed), and the shapes that
/// would make typify reach for other crates (a nullable string with a format, a pattern or a
/// format with no type), that name properties like keywords of a schema, or that carry text
/// direction controls, which rustc refuses in comments.
#[test]
fn hostile_tool_lists_the_generator_accepts_compile() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut lists = vec![
        json!({"tools": [{"name": "shapes", "description": "a \u{202e}reversed\u{2066} text", "inputSchema": {
            "type": "object",
            "properties": {
                "when": {"type": ["string", "null"], "format": "date-time", "description": "\u{202e}"},
                "id": {"format": "uuid"},
                "code": {"type": ["string", "null"], "pattern": "^[a-z]+$"},
                "loose": {"pattern": "^a+$"},
                "ip": {"anyOf": [{"type": "string", "format": "ipv4"}, {"type": "null"}]},
                "format": {"type": "string"},
                "pattern": {"type": "integer", "format": "int32"},
            },
            "required": ["format"],
        }, "outputSchema": {
            "type": "object",
            "properties": {"at": {"type": ["string", "null"], "format": "date"}},
        }}]}),
    ];
    for _ in 0..150 {
        lists.push(tool_list().new_tree(&mut runner).expect("a list").current());
    }
    let mut modules = Vec::new();
    for (i, list) in lists.into_iter().enumerate() {
        if let Ok(code) = oxmcp_codegen::ClientBuilder::from_tools_list(list).generate_string() {
            modules.push((format!("m{i}"), code));
        }
    }
    compile(
        &modules,
        151,
        "serde = { version = \"1\", features = [\"derive\"] }\n\
         serde_json = \"1\"\n\
         oxmcp = { path = \"oxmcp\" }\n",
        &[
            (
                "oxmcp/Cargo.toml",
                "[package]\nname = \"oxmcp\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\nserde = \"1\"\nserde_json = \"1\"\n",
            ),
            ("oxmcp/src/lib.rs", CLIENT_STAND_IN),
        ],
    );
}

/// The generator's error for one schema (its `$defs`), which must fail.
fn refused(defs: Value) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("schema.json");
    std::fs::write(&path, json!({"$defs": defs}).to_string()).expect("written");
    match builder(&path).generate_string() {
        Ok(_) => panic!("generated code for {defs}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn schemas_that_never_bottom_out_or_accept_nothing_are_refused_by_name() {
    // A union that is its own member, directly or through another.
    let e = refused(json!({"A": {"anyOf": [{"$ref": "#/$defs/A"}]}}));
    assert!(e.contains("alias of itself"), "{e}");
    let e = refused(json!({
        "A": {"type": "array", "items": {"$ref": "#/$defs/B"}},
        "B": {"$ref": "#/$defs/A"},
    }));
    assert!(e.contains("alias of itself"), "{e}");
    let e = refused(json!({"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}}));
    assert!(e.contains("$ref cycle"), "{e}");
    let e = refused(json!({
        "A": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "string"}]},
        "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "integer"}]},
    }));
    assert!(e.contains("$ref cycle"), "{e}");
    // An object whose property is an allOf of the object itself, inlined without end.
    let e = refused(json!({
        "A": {"type": "object", "properties": {"p": {"allOf": [{"$ref": "#/$defs/A"}]}}},
    }));
    assert!(e.contains("$ref cycle"), "{e}");
    for keyword in ["enum", "anyOf", "oneOf"] {
        let e = refused(json!({"A": {"type": "object", "properties": {"p": {keyword: []}}}}));
        assert!(
            e.contains(&format!("`{keyword}`")) && e.contains("empty"),
            "{e}"
        );
    }
    let e = refused(json!({"": {"type": "string"}, "é": {"type": "integer"}}));
    assert!(e.contains("both become the Rust type `Empty`"), "{e}");
}

#[test]
fn schema_names_that_rust_or_the_generated_code_uses_are_renamed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("schema.json");
    let defs: Map<String, Value> = ["Self", "i64", "__private", "__D", "Validate"]
        .iter()
        .map(|n| {
            let schema = json!({"type": "object", "properties": {"x": {"type": "string"}}});
            (n.to_string(), schema)
        })
        .collect();
    std::fs::write(&path, json!({"$defs": defs}).to_string()).expect("written");
    let code = builder(&path).generate_string().expect("generated").code;
    for renamed in ["Self_", "i64_", "__private_", "__D_", "Validate_"] {
        assert!(
            code.contains(&format!("pub struct {renamed} ")),
            "no `{renamed}` in the output"
        );
    }
}

#[test]
fn a_tool_schema_whose_names_collide_in_rust_falls_back_to_json() {
    let list = json!({"tools": [{
        "name": "t",
        "inputSchema": {"type": "object", "properties": {"a-b": {"type": "string"}, "a\"b": {"type": "string"}}},
    }]});
    let code = oxmcp_codegen::ClientBuilder::from_tools_list(list)
        .generate_string()
        .expect("generated");
    assert!(
        code.contains("pub type TArgs = ::oxmcp::__private::serde_json::Value;"),
        "{code}"
    );
    assert!(code.contains("declared twice"), "{code}");
}
