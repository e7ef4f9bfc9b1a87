//! The multi-round loop: a request run to completion through its `input_required` rounds.

use super::*;

impl Client {
    /// Run `method` to completion through any number of `input_required` rounds. A round whose
    /// reply was lost and whose resend is refused for its `requestState` (the instance that
    /// lost the reply had used the state once, and a state is single-use) starts the request
    /// over: the server asks its questions again.
    pub async fn request_mrtr(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.rounds(method, &params).await
    }

    /// [`Client::request_mrtr`] on borrowed parameters, which each round copies and adds its
    /// answers and state to.
    pub(super) async fn rounds(&self, method: &str, params: &Value) -> Result<Value, ClientError> {
        let mut state: Option<Value> = None;
        let mut responses: Option<Map<String, Value>> = None;
        for round in 0..self.max_rounds {
            let stateful = state.is_some();
            let mut p = params.clone();
            if let Value::Object(m) = &mut p {
                if let Some(r) = responses.take() {
                    m.insert("inputResponses".into(), Value::Object(r));
                }
                if let Some(s) = state.take() {
                    m.insert("requestState".into(), s);
                }
            }
            let resent = AtomicBool::new(false);
            let mut result = match self.request_noting(method, p, &resent).await {
                Err(ClientError::Rpc(e))
                    if stateful
                        && resent.load(Ordering::Relaxed)
                        && e.code == error_codes::INVALID_PARAMS =>
                {
                    tracing::debug!(method, "a resent round's state was refused; starting over");
                    continue;
                }
                other => other?,
            };
            let Some(asked) = result
                .as_object_mut()
                .filter(|r| r.get("resultType").and_then(Value::as_str) == Some("input_required"))
            else {
                // A missing resultType means complete.
                return Ok(result);
            };
            state = asked.remove("requestState");
            match asked.remove("inputRequests") {
                Some(Value::Object(reqs)) if !reqs.is_empty() => {
                    let mut answers = Map::new();
                    for (key, req) in reqs {
                        let request: InputRequest = serde_json::from_value(req).map_err(|e| {
                            ClientError::protocol(format!("input request `{key}`: {e}"))
                        })?;
                        let answer = self.handler.answer(&key, request).await?;
                        answers.insert(key, answer);
                    }
                    responses = Some(answers);
                }
                _ => {
                    // State only (load shedding): retry after a short, growing pause.
                    tokio::time::sleep(Duration::from_millis(20 * (round as u64 + 1))).await;
                }
            }
        }
        Err(ClientError::TooManyRounds {
            rounds: self.max_rounds,
        })
    }
}
