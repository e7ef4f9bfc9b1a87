/// Where a value sits in the message being validated: keys and indices from the root, built on
/// the stack as validation goes down and written out as a JSON Pointer only for an error.
#[derive(Debug, Clone, Copy)]
pub enum ValidationPath<'a> {
    /// The value validation started from.
    Root,
    /// The property `key` of the object at the parent path.
    Key(&'a ValidationPath<'a>, &'a str),
    /// The item at `index` of the array at the parent path.
    Index(&'a ValidationPath<'a>, usize),
}

impl ValidationPath<'_> {
    /// The path as a JSON Pointer (RFC 6901): `""` for the root, `/params/uri` below it.
    pub fn pointer(&self) -> ::std::string::String {
        let mut parts = ::std::vec::Vec::new();
        let mut at = self;
        loop {
            match at {
                ValidationPath::Root => break,
                ValidationPath::Key(parent, key) => {
                    parts.push(key.replace('~', "~0").replace('/', "~1"));
                    at = parent;
                }
                ValidationPath::Index(parent, index) => {
                    parts.push(index.to_string());
                    at = parent;
                }
            }
        }
        parts.iter().rev().map(|p| ::std::format!("/{p}")).collect()
    }
    /// An error at this path for the schema keyword `rule`.
    pub fn error(&self, rule: ::std::string::String, message: ::std::string::String) -> ValidationError {
        ValidationError { path: self.pointer(), rule, message }
    }
}

/// A value that breaks a rule its schema states (`maxLength`, `pattern`, `format`, `minimum`,
/// ...): where it is, as a JSON Pointer, and which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    path: ::std::string::String,
    rule: ::std::string::String,
    message: ::std::string::String,
}

impl ValidationError {
    /// Where the value is, as a JSON Pointer from the validated value (`""` for itself).
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The rule, as the schema states it, e.g. `maxLength 256` or `format uri`.
    pub fn rule(&self) -> &str {
        &self.rule
    }
    /// What is wrong with the value.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl ::core::fmt::Display for ValidationError {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let path = if self.path.is_empty() { "the value" } else { self.path.as_str() };
        ::core::write!(f, "{path}: {} ({})", self.message, self.rule)
    }
}

impl ::std::error::Error for ValidationError {}

/// Checks the rules the schema states for a value and everything in it (lengths, patterns,
/// formats, bounds, item counts), which parsing leaves to the caller: peers send values out of
/// range in the wild, so parsing is lenient and validation a separate step.
pub trait Validate {
    /// The first rule the value breaks, with where it is.
    fn validate(&self) -> ::core::result::Result<(), ValidationError> {
        self.validate_at(&ValidationPath::Root)
    }
    /// [`Validate::validate`] for a value at `at` inside a larger one.
    fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError>;
}

/// Values with no rules of their own.
macro_rules! no_rules {
    ($($ty:ty),*) => {
        $(impl Validate for $ty {
            #[inline]
            fn validate_at(&self, _: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
                ::core::result::Result::Ok(())
            }
        })*
    };
}
no_rules!(::std::string::String, bool, i64, (), ::serde_json::Number, ::serde_json::Value, ::serde_json::Map<::std::string::String, ::serde_json::Value>);

impl<T: Validate> Validate for ::core::option::Option<T> {
    #[inline]
    fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
        match self {
            ::core::option::Option::Some(value) => value.validate_at(at),
            ::core::option::Option::None => ::core::result::Result::Ok(()),
        }
    }
}

impl<T: Validate> Validate for ::std::boxed::Box<T> {
    #[inline]
    fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
        (**self).validate_at(at)
    }
}

impl<T: Validate> Validate for ::std::vec::Vec<T> {
    fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
        for (index, item) in self.iter().enumerate() {
            item.validate_at(&ValidationPath::Index(at, index))?;
        }
        ::core::result::Result::Ok(())
    }
}

impl<T: Validate> Validate for ::indexmap::IndexMap<::std::string::String, T> {
    fn validate_at(&self, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
        for (key, value) in self {
            value.validate_at(&ValidationPath::Key(at, key))?;
        }
        ::core::result::Result::Ok(())
    }
}

/// A value whose properties `minProperties` and `maxProperties` count: a map, or a generated
/// struct (its fields present plus the properties it keeps unnamed).
pub trait Props {
    /// How many properties the value has on the wire.
    fn property_count(&self) -> usize;
}

impl<T> Props for ::indexmap::IndexMap<::std::string::String, T> {
    fn property_count(&self) -> usize {
        self.len()
    }
}

impl Props for ::serde_json::Map<::std::string::String, ::serde_json::Value> {
    fn property_count(&self) -> usize {
        self.len()
    }
}

/// A number a bound applies to.
pub trait Num {
    /// The value as a float, for comparing with a bound.
    fn as_f64(&self) -> f64;
    /// The value as an integer, when it is one.
    fn as_i128(&self) -> ::core::option::Option<i128>;
}

impl Num for i64 {
    fn as_f64(&self) -> f64 {
        *self as f64
    }
    fn as_i128(&self) -> ::core::option::Option<i128> {
        ::core::option::Option::Some(i128::from(*self))
    }
}

impl Num for ::serde_json::Number {
    fn as_f64(&self) -> f64 {
        ::serde_json::Number::as_f64(self).unwrap_or(f64::NAN)
    }
    fn as_i128(&self) -> ::core::option::Option<i128> {
        self.as_i64().map(i128::from).or_else(|| self.as_u64().map(i128::from))
    }
}

pub fn check_minimum(value: &impl Num, bound: f64, exclusive: bool, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    let v = value.as_f64();
    let ok = if exclusive { v > bound } else { v >= bound };
    if ok {
        return ::core::result::Result::Ok(());
    }
    let rule = if exclusive { "exclusiveMinimum" } else { "minimum" };
    ::core::result::Result::Err(at.error(::std::format!("{rule} {bound}"), ::std::format!("{v} is below the bound")))
}

pub fn check_maximum(value: &impl Num, bound: f64, exclusive: bool, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    let v = value.as_f64();
    let ok = if exclusive { v < bound } else { v <= bound };
    if ok {
        return ::core::result::Result::Ok(());
    }
    let rule = if exclusive { "exclusiveMaximum" } else { "maximum" };
    ::core::result::Result::Err(at.error(::std::format!("{rule} {bound}"), ::std::format!("{v} is above the bound")))
}

pub fn check_multiple_of(value: &impl Num, factor: f64, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    let ok = match (value.as_i128(), factor.fract() == 0.0 && factor.abs() < 1e18) {
        (::core::option::Option::Some(v), true) => v % (factor as i128) == 0,
        _ => {
            let q = value.as_f64() / factor;
            q.is_finite() && (q - q.round()).abs() < 1e-9
        }
    };
    if ok {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("multipleOf {factor}"), ::std::format!("{} is not a multiple", value.as_f64())))
}

pub fn check_min_length(value: &str, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    let len = value.chars().count();
    if len >= n {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("minLength {n}"), ::std::format!("{len} characters")))
}

pub fn check_max_length(value: &str, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    if value.len() <= n {
        return ::core::result::Result::Ok(());
    }
    let len = value.chars().count();
    if len <= n {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("maxLength {n}"), ::std::format!("{len} characters")))
}

pub fn check_min_items(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    if len >= n {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("minItems {n}"), ::std::format!("{len} items")))
}

pub fn check_max_items(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    if len <= n {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("maxItems {n}"), ::std::format!("{len} items")))
}

pub fn check_min_properties(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    if len >= n {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("minProperties {n}"), ::std::format!("{len} properties")))
}

pub fn check_max_properties(len: usize, n: usize, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    if len <= n {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("maxProperties {n}"), ::std::format!("{len} properties")))
}

/// `value` as JSON with every object's keys sorted, so equal values (in JSON's sense) are equal
/// text.
fn canonical(value: &::serde_json::Value, out: &mut ::std::string::String) {
    match value {
        ::serde_json::Value::Object(map) => {
            let mut keys: ::std::vec::Vec<&::std::string::String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&::serde_json::Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        ::serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

pub fn check_unique_items<T: ::serde::Serialize>(items: &[T], at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    let mut seen = ::std::collections::HashMap::new();
    for (index, item) in items.iter().enumerate() {
        let mut text = ::std::string::String::new();
        if let ::core::result::Result::Ok(value) = ::serde_json::to_value(item) {
            canonical(&value, &mut text);
        }
        if let ::core::option::Option::Some(first) = seen.insert(text, index) {
            return ::core::result::Result::Err(at.error("uniqueItems".into(), ::std::format!("items {first} and {index} are equal")));
        }
    }
    ::core::result::Result::Ok(())
}

/// The outcome of a `pattern` rule: whether the value matched, or `None` when the pattern did
/// not compile (the regex crate is used by the rule's expansion alone, so a schema with no
/// `pattern` needs no regex).
pub fn check_pattern(matched: ::core::option::Option<bool>, source: &str, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    match matched {
        ::core::option::Option::Some(true) => ::core::result::Result::Ok(()),
        ::core::option::Option::Some(false) => ::core::result::Result::Err(at.error(::std::format!("pattern {source}"), "does not match".into())),
        ::core::option::Option::None => ::core::result::Result::Err(at.error(::std::format!("pattern {source}"), "the pattern does not compile".into())),
    }
}

/// Whether `bytes[i..]` starts with a percent-encoded octet.
fn pct(bytes: &[u8], i: usize) -> bool {
    bytes.get(i) == ::core::option::Option::Some(&b'%')
        && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// RFC 3986's characters of a URI after the scheme: unreserved, reserved, or percent-encoded.
fn uri_chars(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            if !pct(bytes, i) {
                return false;
            }
            i += 3;
            continue;
        }
        let ok = b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b);
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// An RFC 3986 scheme followed by `:`; the rest after it.
fn scheme(value: &str) -> ::core::option::Option<&str> {
    let (scheme, rest) = value.split_once(':')?;
    let mut bytes = scheme.bytes();
    let first = bytes.next()?;
    (first.is_ascii_alphabetic() && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')).then_some(rest)
}

/// An RFC 6570 URI template: literals, and expressions of variables with an optional operator,
/// prefix length or explode.
fn uri_template(value: &str) -> bool {
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                let ::core::option::Option::Some(end) = value[i..].find('}') else { return false };
                let mut body = &value[i + 1..i + end];
                if body.starts_with(|c: char| "+#./;?&=,!@|".contains(c)) {
                    body = &body[1..];
                }
                let varspec = |spec: &str| {
                    let (name, modifier) = match spec.find([':', '*']) {
                        ::core::option::Option::Some(at) => spec.split_at(at),
                        ::core::option::Option::None => (spec, ""),
                    };
                    let name_ok = !name.is_empty() && !name.starts_with('.') && !name.ends_with('.') && !name.contains("..") && {
                        let nb = name.as_bytes();
                        let mut j = 0;
                        let mut ok = true;
                        while j < nb.len() {
                            if nb[j] == b'%' {
                                ok &= pct(nb, j);
                                j += 3;
                            } else {
                                ok &= nb[j].is_ascii_alphanumeric() || nb[j] == b'_' || nb[j] == b'.';
                                j += 1;
                            }
                        }
                        ok
                    };
                    let modifier_ok = match modifier.strip_prefix(':') {
                        ::core::option::Option::Some(len) => (1..=4).contains(&len.len()) && !len.starts_with('0') && len.bytes().all(|b| b.is_ascii_digit()),
                        ::core::option::Option::None => modifier.is_empty() || modifier == "*",
                    };
                    name_ok && modifier_ok
                };
                if !body.split(',').all(varspec) {
                    return false;
                }
                i += end + 1;
            }
            b'%' if !pct(bytes, i) => return false,
            b if b <= 0x20 || b == 0x7f || b"\"'<>\\^`|}".contains(&b) => return false,
            _ => i += 1,
        }
    }
    true
}

fn digits(text: &str, n: usize) -> ::core::option::Option<u32> {
    (text.len() == n && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

/// RFC 3339 `full-date`.
fn date(value: &str) -> bool {
    let mut parts = value.split('-');
    let (::core::option::Option::Some(y), ::core::option::Option::Some(m), ::core::option::Option::Some(d), ::core::option::Option::None) = (parts.next(), parts.next(), parts.next(), parts.next()) else { return false };
    let (::core::option::Option::Some(y), ::core::option::Option::Some(m), ::core::option::Option::Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else { return false };
    let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `full-time`: `HH:MM:SS`, optional fraction, then `Z` or an offset.
fn time(value: &str) -> bool {
    let (clock, offset) = match value.find(['Z', 'z', '+', '-']) {
        ::core::option::Option::Some(at) => value.split_at(at),
        ::core::option::Option::None => return false,
    };
    let clock = match clock.split_once('.') {
        ::core::option::Option::Some((c, frac)) if !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit()) => c,
        ::core::option::Option::Some(_) => return false,
        ::core::option::Option::None => clock,
    };
    let hms: ::std::vec::Vec<_> = clock.split(':').map(|p| digits(p, 2)).collect();
    let [::core::option::Option::Some(h), ::core::option::Option::Some(m), ::core::option::Option::Some(s)] = hms[..] else { return false };
    if h > 23 || m > 59 || s > 60 {
        return false;
    }
    if offset.eq_ignore_ascii_case("z") {
        return true;
    }
    let hm: ::std::vec::Vec<_> = offset[1..].split(':').map(|p| digits(p, 2)).collect();
    matches!(hm[..], [::core::option::Option::Some(oh), ::core::option::Option::Some(om)] if oh <= 23 && om <= 59)
}

/// Whether `value` is in the closed `format` named `name`.
pub fn check_format(value: &str, name: &str, at: &ValidationPath<'_>) -> ::core::result::Result<(), ValidationError> {
    let ok = match name {
        "uri" => scheme(value).is_some_and(uri_chars),
        "uri-reference" => uri_chars(value),
        "uri-template" => uri_template(value),
        "byte" => {
            let body = value.trim_end_matches('=');
            value.len().is_multiple_of(4) && value.len() - body.len() <= 2 && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        }
        "date" => date(value),
        "time" => time(value),
        "date-time" => match value.find(['T', 't']) {
            ::core::option::Option::Some(at) => date(&value[..at]) && time(&value[at + 1..]),
            ::core::option::Option::None => false,
        },
        "ipv4" => value.parse::<::std::net::Ipv4Addr>().is_ok(),
        "ipv6" => value.parse::<::std::net::Ipv6Addr>().is_ok(),
        "uuid" => {
            let groups: ::std::vec::Vec<&str> = value.split('-').collect();
            groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12]) && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
        }
        "json-pointer" => (value.is_empty() || value.starts_with('/')) && {
            let bytes = value.as_bytes();
            bytes.iter().enumerate().all(|(i, b)| *b != b'~' || matches!(bytes.get(i + 1), ::core::option::Option::Some(b'0' | b'1')))
        },
        _ => true,
    };
    if ok {
        return ::core::result::Result::Ok(());
    }
    ::core::result::Result::Err(at.error(::std::format!("format {name}"), ::std::format!("not a valid {name}")))
}

/// The rules of one value, as the generated code lists them after its field.
macro_rules! rules {
    ($v:ident, $at:expr, ) => {};
    ($v:ident, $at:expr, minimum($n:expr) $($rest:tt)*) => { __private::check_minimum($v, $n as f64, false, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, exclusive_minimum($n:expr) $($rest:tt)*) => { __private::check_minimum($v, $n as f64, true, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, maximum($n:expr) $($rest:tt)*) => { __private::check_maximum($v, $n as f64, false, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, exclusive_maximum($n:expr) $($rest:tt)*) => { __private::check_maximum($v, $n as f64, true, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, multiple_of($n:expr) $($rest:tt)*) => { __private::check_multiple_of($v, $n as f64, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, min_length($n:literal) $($rest:tt)*) => { __private::check_min_length($v, $n, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, max_length($n:literal) $($rest:tt)*) => { __private::check_max_length($v, $n, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, format($f:literal) $($rest:tt)*) => { __private::check_format($v, $f, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, pattern($p:literal) $($rest:tt)*) => {
        {
            static REGEX: ::std::sync::OnceLock<::core::option::Option<::regex::Regex>> = ::std::sync::OnceLock::new();
            let matched = REGEX.get_or_init(|| ::regex::Regex::new($p).ok()).as_ref().map(|regex| regex.is_match($v));
            __private::check_pattern(matched, $p, $at)?;
        }
        __private::rules!($v, $at, $($rest)*);
    };
    ($v:ident, $at:expr, min_items($n:literal) $($rest:tt)*) => { __private::check_min_items($v.len(), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, max_items($n:literal) $($rest:tt)*) => { __private::check_max_items($v.len(), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, unique_items $($rest:tt)*) => { __private::check_unique_items($v, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, min_properties($n:literal) $($rest:tt)*) => { __private::check_min_properties(__private::Props::property_count($v), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, max_properties($n:literal) $($rest:tt)*) => { __private::check_max_properties(__private::Props::property_count($v), $n, $at)?; __private::rules!($v, $at, $($rest)*); };
    ($v:ident, $at:expr, each($($inner:tt)*) $($rest:tt)*) => {
        for (index, item) in $v.iter().enumerate() {
            let at = __private::ValidationPath::Index($at, index);
            __private::rules!(item, &at, $($inner)*);
        }
        __private::rules!($v, $at, $($rest)*);
    };
    ($v:ident, $at:expr, values($($inner:tt)*) $($rest:tt)*) => {
        for (key, item) in $v.iter() {
            let at = __private::ValidationPath::Key($at, key);
            __private::rules!(item, &at, $($inner)*);
        }
        __private::rules!($v, $at, $($rest)*);
    };
}
pub(crate) use rules;

/// One field of a struct: its rules, then whatever the value's own type checks.
macro_rules! field {
    (req $value:expr, $at:ident, $json:literal, [$($rule:tt)*]) => {{
        let at = __private::ValidationPath::Key($at, $json);
        let value = &$value;
        __private::rules!(value, &at, $($rule)*);
        __private::Validate::validate_at(value, &at)?;
    }};
    (opt $value:expr, $at:ident, $json:literal, [$($rule:tt)*]) => {{
        if let ::core::option::Option::Some(value) = &$value {
            let at = __private::ValidationPath::Key($at, $json);
            __private::rules!(value, &at, $($rule)*);
            __private::Validate::validate_at(value, &at)?;
        }
    }};
}
pub(crate) use field;

/// `Validate` (and the property count) for a generated struct: its own rules, then each field's.
macro_rules! validate_object {
    ($name:ident [$($trule:tt)*] { $($kind:ident $field:ident $json:literal [$($rule:tt)*])* } $($extra:ident)?) => {
        impl __private::Props for $name {
            fn property_count(&self) -> usize {
                0 $(+ __private::count!($kind self.$field))* $(+ self.$extra.len())?
            }
        }
        impl __private::Validate for $name {
            #[allow(unused_variables)]
            fn validate_at(&self, at: &__private::ValidationPath<'_>) -> ::core::result::Result<(), __private::ValidationError> {
                let this = self;
                __private::rules!(this, at, $($trule)*);
                $(__private::field!($kind this.$field, at, $json, [$($rule)*]);)*
                ::core::result::Result::Ok(())
            }
        }
    };
}
pub(crate) use validate_object;

/// `Validate` for a generated union: the member it holds.
macro_rules! validate_union {
    ($name:ident { $($variant:ident)* }) => {
        impl __private::Validate for $name {
            fn validate_at(&self, at: &__private::ValidationPath<'_>) -> ::core::result::Result<(), __private::ValidationError> {
                match self {
                    $(Self::$variant(value) => __private::Validate::validate_at(value, at),)*
                }
            }
        }
    };
}
pub(crate) use validate_union;

/// `Validate` for types with no rules (string enums, constants).
macro_rules! validate_none {
    ($name:ident) => {
        impl __private::Validate for $name {
            #[inline]
            fn validate_at(&self, _: &__private::ValidationPath<'_>) -> ::core::result::Result<(), __private::ValidationError> {
                ::core::result::Result::Ok(())
            }
        }
    };
}
pub(crate) use validate_none;
