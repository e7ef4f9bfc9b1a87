//! A server whose tools take and return structured types (nested objects, enums, optional
//! fields, arrays), for the typed client the generator makes from its `tools/list`: the test
//! calls it through the generated client and gets the handler's own values back.

use oxmcp::prelude::*;
use oxmcp::Server;
use serde::{Deserialize, Serialize};

/// How to travel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// The cheap seats.
    Economy,
    /// The good seats.
    Business,
}

/// One traveller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Traveller {
    /// Their name.
    pub name: String,
    /// Their age, if they say.
    pub age: Option<u32>,
}

/// One leg of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Leg {
    /// Where from.
    pub from: String,
    /// Where to.
    pub to: String,
    /// In which class.
    pub class: Class,
}

/// A trip, planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    /// The legs, in order.
    pub legs: Vec<Leg>,
    /// Who goes.
    pub travellers: Vec<Traveller>,
    /// What it costs, in euros.
    pub price: u64,
    /// A note, when there is one.
    pub note: Option<String>,
}

/// Plans a trip through `stops` for `travellers`.
#[mcp_tool]
pub async fn plan_trip(
    #[arg(description = "The cities, in order")] stops: Vec<String>,
    travellers: Vec<Traveller>,
    class: Option<Class>,
) -> Result<Json<Plan>, ToolError> {
    if stops.len() < 2 {
        return Err(ToolError::new("a trip needs two stops"));
    }
    let class = class.unwrap_or(Class::Economy);
    let legs: Vec<Leg> = stops
        .windows(2)
        .map(|w| Leg {
            from: w[0].clone(),
            to: w[1].clone(),
            class,
        })
        .collect();
    let per_leg = match class {
        Class::Economy => 100,
        Class::Business => 400,
    };
    Ok(Json(Plan {
        price: per_leg * legs.len() as u64 * travellers.len() as u64,
        note: travellers
            .iter()
            .any(|t| t.age.is_some_and(|a| a < 2))
            .then(|| "an infant travels free of a seat".to_string()),
        legs,
        travellers,
    }))
}

/// Says hello (no output schema: the client gets the whole result); an empty name is a tool
/// error.
#[mcp_tool]
pub async fn hello(name: String) -> Result<String, ToolError> {
    if name.is_empty() {
        return Err(ToolError::new("a name, please"));
    }
    Ok(format!("Hello, {name}!"))
}

/// Takes no argument (the typed client's method takes none either).
#[mcp_tool]
pub async fn ping() -> String {
    "pong".into()
}

/// The server the typed client test generates its client from.
pub fn server() -> Server {
    Server::builder()
        .name("typed-tools")
        .tool(plan_trip)
        .tool(hello)
        .tool(ping)
        .build()
        .expect("the typed tools server builds")
}
