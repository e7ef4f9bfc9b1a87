//! A struct whose required fields have no valid default (a protocol version, a name) has no
//! `Default`: it would write `"protocolVersion": ""`. `new` takes the required values instead.

use oxmcp::schema::{Implementation, RequestMetaObject};

fn main() {
    let _ = RequestMetaObject::default();
    let _ = Implementation {
        title: None,
        ..Default::default()
    };
}
