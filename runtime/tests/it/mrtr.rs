//! End-to-end MRTR through JSON-RPC messages: a tool that asks, samples, lists roots and runs a
//! side effect completes over three rounds, with the journal replayed and the step run once.

use crate::common;

use common::*;
use oxmcp::prelude::*;
use oxmcp::request_state::{KeyRing, SealingKey};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

static RESERVATIONS: AtomicUsize = AtomicUsize::new(0);

#[derive(ElicitForm, Debug)]
struct Contact {
    /// Your name.
    name: String,
    #[elicit(format = "email")]
    email: String,
    seats_outside: Option<bool>,
}

/// Book a table.
#[mcp_tool(annotations(destructive = false))]
async fn book_table(restaurant: String, party: u8) -> Result<String, ToolError> {
    let who = match elicit::<Contact>("Who is the booking for?")
        .key("contact")
        .await?
    {
        Elicited::Accept(c) => c,
        Elicited::Decline | Elicited::Cancel => return Ok("Booking cancelled.".into()),
    };
    let id = step("reserve", async {
        let n = RESERVATIONS.fetch_add(1, Ordering::SeqCst) + 1;
        Ok::<_, ToolError>(format!("R{n}-{restaurant}-{party}"))
    })
    .await?;
    let (note, roots) = join!(
        sample(Sampling::user("Write a one-line greeting").max_tokens(50)),
        list_roots()
    );
    let note = note?;
    let roots = roots?;
    Ok(format!(
        "Booked {id} for {} <{}> outside={:?}; {} ({} roots)",
        who.name,
        who.email,
        who.seats_outside,
        note.text().unwrap_or(""),
        roots.len()
    ))
}

fn server() -> Server {
    Server::builder()
        .name("test")
        .version("1.0.0")
        .tool(book_table)
        .request_state_keys(KeyRing::new(vec![SealingKey::new(1, &[42u8; 32]).unwrap()]).unwrap())
        .build()
        .unwrap()
}

fn input_required(reply: &Value) -> (&serde_json::Map<String, Value>, String) {
    let r = &reply["result"];
    assert_eq!(r["resultType"], "input_required", "{reply}");
    let reqs = r["inputRequests"].as_object().expect("inputRequests");
    (
        reqs,
        r["requestState"]
            .as_str()
            .expect("requestState")
            .to_string(),
    )
}

#[tokio::test]
async fn three_rounds_with_replay_and_one_step() {
    let s = server();
    let args = json!({"restaurant": "Chez Rust", "party": 4});

    // Round 1: the form.
    let r1 = send(
        &s,
        1,
        "tools/call",
        call("book_table", args.clone(), all_caps()),
    )
    .await;
    let (reqs, state1) = input_required(&r1);
    assert_eq!(reqs.keys().collect::<Vec<_>>(), ["contact"]);
    let form = &reqs["contact"];
    assert_eq!(form["method"], "elicitation/create");
    let schema = &form["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["email"]["format"], "email");
    assert_eq!(schema["properties"]["name"]["description"], "Your name.");
    assert_eq!(schema["required"], json!(["name", "email"]));
    assert_eq!(RESERVATIONS.load(Ordering::SeqCst), 0);

    // Round 2: answer the form; the step runs, then sampling and roots are asked together.
    let mut p = call("book_table", args.clone(), all_caps());
    p["inputResponses"] =
        json!({"contact": accept(json!({"name": "Ada", "email": "ada@example.com"}))});
    p["requestState"] = json!(state1);
    let r2 = send(&s, 2, "tools/call", p).await;
    let (reqs, state2) = input_required(&r2);
    let mut keys: Vec<_> = reqs
        .values()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        ["roots/list", "sampling/createMessage"],
        "one round for the join"
    );
    assert_eq!(RESERVATIONS.load(Ordering::SeqCst), 1);
    let sample_key = reqs
        .iter()
        .find(|(_, r)| r["method"] == "sampling/createMessage")
        .unwrap()
        .0
        .clone();
    let roots_key = reqs
        .iter()
        .find(|(_, r)| r["method"] == "roots/list")
        .unwrap()
        .0
        .clone();
    assert_eq!(reqs[&sample_key]["params"]["maxTokens"], 50);

    // Round 3: answer both; the form answer comes from the journal, the step is replayed.
    let mut p = call("book_table", args.clone(), all_caps());
    p["inputResponses"] = json!({
        sample_key: {"role": "assistant", "content": {"type": "text", "text": "Welcome!"}, "model": "m"},
        roots_key: {"roots": [{"uri": "file:///home/ada"}]},
    });
    p["requestState"] = json!(state2);
    let r3 = send(&s, 3, "tools/call", p).await;
    assert_eq!(r3["result"]["resultType"], "complete", "{r3}");
    let text = r3["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        "Booked R1-Chez Rust-4 for Ada <ada@example.com> outside=None; Welcome! (1 roots)"
    );
    assert_eq!(
        RESERVATIONS.load(Ordering::SeqCst),
        1,
        "the step ran exactly once"
    );
}
