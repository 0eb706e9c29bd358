//! The client's building blocks for JavaScript, one by one: `Throttle`,
//! `RetryPlanner`, `parseRateLimitHeaders` and `parseDeprecation`. A
//! `Client` combines them; they are exposed for callers who assemble their
//! own loop, and so that every client conformance vector can be replayed.
//!
//! Their results are the core's JSON form (snake_case members, exactly as
//! in `tests/vectors/client-*.json`).

use crate::client::{outcome_from_js, response_from_js, JsClientRequest};
use crate::error::{ErrorClass, Failure};
use crate::js;
use acd_core::client::{
    parse_deprecation, parse_rate_limit_headers, BudgetPolicy, RetryBudget, RetryPlanner,
    RetryPolicy, SplitMix64, Throttle,
};
use wasm_bindgen::prelude::*;

/// The core's rate-limit headers parsed at `nowMs`: `{observations,
/// retry_at, ignored}` (standard, legacy and structured dialects).
#[wasm_bindgen(js_name = parseRateLimitHeaders, unchecked_return_type = "RateLimitHeadersJson")]
pub fn parse_rate_limit_headers_js(
    #[wasm_bindgen(unchecked_param_type = "HeadersInit")] headers: JsValue,
    #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
) -> Result<JsValue, JsValue> {
    let now = js::millis_from_js(now_ms, "nowMs")?;
    let headers = js::text_headers_from_js(&headers, "headers")?;
    Ok(js::serde_to_js(&parse_rate_limit_headers(&headers, now)))
}

/// The deprecation state one response of `operationId` reports, or `null`
/// when it has no deprecation headers.
#[wasm_bindgen(js_name = parseDeprecation, unchecked_return_type = "DeprecationWarningJson | null")]
pub fn parse_deprecation_js(
    #[wasm_bindgen(js_name = operationId)] operation_id: &str,
    #[wasm_bindgen(unchecked_param_type = "HeadersInit")] headers: JsValue,
) -> Result<JsValue, JsValue> {
    let headers = js::text_headers_from_js(&headers, "headers")?;
    Ok(js::serde_to_js(&parse_deprecation(operation_id, &headers)))
}

/// The throttle on its own: a model of every rate limit requests count
/// against, fed by sends and response headers.
#[wasm_bindgen(js_name = Throttle)]
pub struct JsThrottle {
    inner: Throttle,
}

#[wasm_bindgen(js_class = Throttle)]
impl JsThrottle {
    /// An empty throttle (limits are assumed from each request until the
    /// index or response headers tell).
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsThrottle {
        JsThrottle {
            inner: Throttle::new(),
        }
    }

    /// Records a send of `request` at `nowMs`.
    #[wasm_bindgen(js_name = onSent)]
    pub fn on_sent(
        &mut self,
        request: &JsClientRequest,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<(), JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        self.inner.on_sent(&request.inner.limits, now);
        Ok(())
    }

    /// Learns from a response `{status, headers}` to `request` received at `nowMs`.
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(
        &mut self,
        request: &JsClientRequest,
        #[wasm_bindgen(unchecked_param_type = "HttpResponseInit")] response: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<(), JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let response = response_from_js(&response, "response")?;
        let parsed = parse_rate_limit_headers(&response.headers, now);
        self.inner
            .on_response(&request.inner.limits, response.status, &parsed, now);
        Ok(())
    }

    /// "Send now" or "wait until" for `request` at `nowMs`.
    #[wasm_bindgen(unchecked_return_type = "Plan")]
    pub fn plan(
        &self,
        request: &JsClientRequest,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        Ok(js::serde_to_js(&self.inner.plan(&request.inner, now)))
    }

    /// The core's JSON form of every model.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> JsValue {
        js::serde_to_js(&self.inner)
    }
}

impl Default for JsThrottle {
    fn default() -> Self {
        Self::new()
    }
}

/// The retry planner on its own: policy, budget and a seeded random source.
#[wasm_bindgen(js_name = RetryPlanner)]
pub struct JsRetryPlanner {
    inner: RetryPlanner,
}

#[wasm_bindgen(js_class = RetryPlanner)]
impl JsRetryPlanner {
    /// A planner with `policy` and `budget` (the core's JSON forms; every
    /// member optional), jitter drawn from SplitMix64 seeded with `seed`, and
    /// a budget holding `available` tokens (full when omitted).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "RetryPolicyInit | null")] policy: Option<JsValue>,
        #[wasm_bindgen(unchecked_param_type = "BudgetPolicyInit | null")] budget: Option<JsValue>,
        seed: Option<f64>,
        available: Option<u32>,
    ) -> Result<JsRetryPlanner, JsValue> {
        let config =
            |failure: Failure| Failure::new(ErrorClass::Config, "INVALID_CONFIG", failure.message);
        let policy: RetryPolicy =
            js::from_json_like(&policy.unwrap_or(JsValue::UNDEFINED), "retry policy")
                .map_err(config)?
                .unwrap_or_default();
        policy
            .check()
            .map_err(|error| crate::client::client_error(&error))?;
        let budget: BudgetPolicy =
            js::from_json_like(&budget.unwrap_or(JsValue::UNDEFINED), "budget policy")
                .map_err(config)?
                .unwrap_or_default();
        let seed = match seed {
            Some(seed) => js::millis_from_js(seed, "seed")?,
            None => 0,
        };
        let mut budget = RetryBudget::new(budget);
        if let Some(available) = available {
            let capacity = budget.available();
            if available > capacity || !budget.try_spend(capacity - available) {
                return Err(Failure::argument(format!(
                    "available must be at most the budget's capacity ({capacity})"
                ))
                .into());
            }
        }
        Ok(JsRetryPlanner {
            inner: RetryPlanner::with_budget(policy, budget, Box::new(SplitMix64::new(seed))),
        })
    }

    /// Tokens left in the budget.
    #[wasm_bindgen(getter, js_name = budgetAvailable)]
    pub fn budget_available(&self) -> u32 {
        self.inner.budget().available()
    }

    /// Decides after an attempt of `request` ended with `outcome` at `nowMs`:
    /// the core's JSON form of the decision (`{decision: "done" | "retry" |
    /// "give_up", ...}`).
    #[wasm_bindgen(js_name = onOutcome, unchecked_return_type = "RetryDecisionJson")]
    pub fn on_outcome(
        &mut self,
        request: &mut JsClientRequest,
        #[wasm_bindgen(unchecked_param_type = "Outcome")] outcome: JsValue,
        #[wasm_bindgen(js_name = nowMs)] now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let now = js::millis_from_js(now_ms, "nowMs")?;
        let outcome = outcome_from_js(&outcome)?;
        Ok(js::serde_to_js(&self.inner.on_outcome(
            &request.inner,
            &mut request.attempt,
            &outcome,
            now,
        )))
    }
}

/// The error a client error in the core's JSON form (`{kind, ...}`, as in the
/// conformance vectors) becomes: its class from its category, `category`,
/// `code`, the core's sentence as `message`, and `data`. Returns it (throws
/// `AcdArgumentError` if `json` is not a client error).
#[wasm_bindgen(js_name = clientErrorFromJSON)]
pub fn client_error_from_json(json: &str) -> Result<JsValue, JsValue> {
    serde_json::from_str::<acd_core::client::ClientError>(json)
        .map(|error| crate::client::client_error(&error))
        .map_err(|error| Failure::argument(format!("client error JSON: {error}")).into())
}

/// Interprets `response` as an answer to operation `operationId` of the
/// standard catalogue (plus `createAgentRun`), without any client: the
/// core's JSON form of the result (`{kind, status, ...}`, as in the
/// conformance vectors), or throws `AcdApiError` / `AcdProtocolError`.
#[wasm_bindgen(js_name = interpretResponse)]
pub fn interpret_response(
    #[wasm_bindgen(js_name = operationId)] operation_id: &str,
    #[wasm_bindgen(unchecked_param_type = "HttpResponseInit")] response: JsValue,
) -> Result<JsValue, JsValue> {
    let response = response_from_js(&response, "response")?;
    let create = acd_core::model::Catalogue::create_agent_run();
    let catalogue = acd_core::model::Catalogue::standard();
    let operation = catalogue
        .get(operation_id)
        .or((create.id == operation_id).then_some(&create))
        .ok_or_else(|| {
            crate::client::client_error(&acd_core::client::ClientError::UnknownOperation {
                operation: operation_id.to_owned(),
            })
        })?;
    acd_core::client::interpret(operation, &response)
        .map(|result| js::serde_to_js(&result))
        .map_err(|error| crate::client::client_error(&error))
}

/// The three specified operations (the core's JSON form), e.g. to extend
/// into a `catalogue` member of a client or gate configuration.
#[wasm_bindgen(js_name = standardCatalogue, unchecked_return_type = "unknown[]")]
pub fn standard_catalogue() -> JsValue {
    js::serde_to_js(&acd_core::model::Catalogue::standard())
}

/// `createAgentRun` (POST /agents/{agent_id}/runs, 30 per 60 s per agent),
/// the operation the spec names without detail (the core's JSON form).
#[wasm_bindgen(js_name = agentRunOperation)]
pub fn agent_run_operation() -> JsValue {
    js::serde_to_js(&acd_core::model::Catalogue::create_agent_run())
}
