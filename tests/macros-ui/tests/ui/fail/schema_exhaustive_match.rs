//! Unions are `#[non_exhaustive]`: a match without a wildcard arm would break when a spec
//! update adds a member, so it does not compile now.

use oxmcp::schema::InputRequest;

fn kind(r: &InputRequest) -> u8 {
    match r {
        InputRequest::ElicitRequest(_) => 0,
        InputRequest::CreateMessageRequest(_) => 1,
        InputRequest::ListRootsRequest(_) => 2,
    }
}

fn main() {
    let _ = kind;
}
