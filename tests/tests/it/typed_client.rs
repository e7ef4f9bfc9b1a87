//! A typed client generated from a server's `tools/list` (`oxmcp-codegen client`, committed in
//! `typed_client/generated.rs` and kept fresh by `typed_client_golden.rs`): it compiles, and
//! calling the server through it gives back the handler's own values.

// Generated code is kept as the generator writes it (prettyplease), not reformatted.
#[rustfmt::skip]
#[path = "typed_client/generated.rs"]
mod generated;

use generated::plan_trip::{args, output};
use oxmcp::client::{Client, ClientError};
use std::sync::Arc;

#[tokio::test]
async fn the_generated_client_calls_the_server_with_its_own_types() {
    let server = Arc::new(mcp_tests::typed_tools::server());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(oxmcp::http::serve_listener(
        server,
        listener,
        Default::default(),
        std::future::pending(),
    ));
    let client = generated::TripClient::new(Client::http(format!("http://{addr}/mcp")));
    let plan = client
        .plan_trip(args::PlanTripArgs {
            stops: vec!["Oslo".into(), "Bergen".into(), "Tromsø".into()],
            travellers: vec![
                args::Traveller {
                    name: "Ada".into(),
                    age: Some(1),
                },
                args::Traveller {
                    name: "Bo".into(),
                    age: None,
                },
            ],
            class: Some(args::Class::Business),
        })
        .await
        .unwrap();
    assert_eq!(plan.price, 1600);
    assert_eq!(plan.legs.len(), 2);
    assert_eq!(plan.legs[1].to, "Tromsø");
    assert!(matches!(plan.legs[0].class, output::Class::Business));
    assert_eq!(plan.travellers[1].age, None);
    assert_eq!(
        plan.note.as_deref(),
        Some("an infant travels free of a seat")
    );
    // Without the optional argument, and a tool error surfaces as one.
    let cheap = client
        .plan_trip(args::PlanTripArgs {
            stops: vec!["A".into(), "B".into()],
            travellers: vec![],
            class: None,
        })
        .await
        .unwrap();
    assert!(matches!(cheap.legs[0].class, output::Class::Economy));
    let refused = client
        .plan_trip(args::PlanTripArgs {
            stops: vec!["A".into()],
            travellers: vec![],
            class: None,
        })
        .await;
    assert!(
        matches!(&refused, Err(e @ ClientError::Tool { .. }) if e.tool_text().unwrap().contains("two stops")),
        "{refused:?}"
    );
    // A tool without an output schema returns the whole result.
    let hello = client
        .hello(generated::hello::HelloArgs { name: "Ada".into() })
        .await
        .unwrap();
    assert_eq!(mcp_tests::support::text(&hello), "Hello, Ada!");
    // Its tool error is an error, as with an output schema.
    let nameless = client
        .hello(generated::hello::HelloArgs {
            name: String::new(),
        })
        .await;
    assert!(
        matches!(&nameless, Err(e @ ClientError::Tool { .. }) if e.tool_text().unwrap() == "a name, please"),
        "{nameless:?}"
    );
    // A tool that takes no argument is called with none.
    let pong = client.ping().await.unwrap();
    assert_eq!(mcp_tests::support::text(&pong), "pong");
}
