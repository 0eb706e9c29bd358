//! Error bodies the gate sends: the generic error response, the 400 body
//! listing every parameter problem, the 429 body, and the 503 body of a
//! limiter that cannot decide.

use super::headers::Headers;
use super::response::GateResponse;
use crate::limit::{LimitCheck, LimiterUnavailable, StackDecision, Unavailability};
use crate::model::operation::DeprecationNotice;
use crate::model::query::MAX_REPORTED_PROBLEMS;
use crate::model::{ErrorBody, ParamProblem};
use crate::UnixMillis;
use serde_json::Value;

pub(crate) fn error_response(headers: Headers, body: ErrorBody) -> GateResponse {
    GateResponse {
        status: body.status.unwrap_or(500),
        headers: headers.0,
        body: body.to_bytes(),
    }
}

/// The 400 body: a sentence naming the first problems plus the `errors` array.
pub(crate) fn invalid_body(problems: &[ParamProblem]) -> ErrorBody {
    if problems.is_empty() {
        return ErrorBody::new(400, "The request's parameters do not fit this resource.")
            .with("errors", Value::Array(vec![]));
    }
    let shown: Vec<String> = problems
        .iter()
        .take(3)
        .map(|p| format!("{} {}", p.parameter, p.problem))
        .collect();
    let mut detail = format!(
        "The request has {} invalid parameter{}: {}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        shown.join("; ")
    );
    if problems.len() > shown.len() {
        detail.push_str(&format!(
            "; and {} more (see errors)",
            problems.len() - shown.len()
        ));
    }
    detail.push('.');
    let errors: Vec<Value> = problems
        .iter()
        .take(MAX_REPORTED_PROBLEMS)
        .map(|problem| serde_json::json!({"parameter": problem.parameter, "problem": problem.problem}))
        .collect();
    ErrorBody::new(400, detail).with("errors", Value::Array(errors))
}

/// The 429 response: headers already carry the refusing limit's state.
pub(crate) fn too_many(
    headers: Headers,
    decision: &StackDecision,
    checks: &[LimitCheck<'_>],
    now: UnixMillis,
) -> GateResponse {
    let StackDecision::Refused { refusing, retry_at } = decision else {
        return error_response(
            headers,
            ErrorBody::new(500, "rate-limit state is inconsistent"),
        );
    };
    let check = checks.get(refusing.index);
    let name = check.map_or("rate", |check| check.name);
    let window_seconds = check.map_or(0, |check| crate::time::ceil_seconds(check.quota.window()));
    let wait = crate::time::ceil_seconds(retry_at.saturating_sub(now));
    let body = ErrorBody::new(
        429,
        format!(
            "Rate limit exceeded: the {name} limit allows {} requests per {window_seconds} s; \
             retry in {wait} s.",
            refusing.limit
        ),
    )
    .with("limit", Value::String(name.to_owned()));
    error_response(headers, body)
}

/// The 503 answer when the limiter cannot decide (its store is down and it
/// fails closed, or its table has no room for a new subject): no
/// `RateLimit-*` headers (no limit was checked), `Retry-After` of at least
/// one second, nothing charged.
pub(crate) fn limiter_unavailable(
    unavailable: LimiterUnavailable,
    deprecation: Option<&DeprecationNotice>,
    now: UnixMillis,
) -> GateResponse {
    let wait = crate::time::ceil_seconds(unavailable.retry_at.saturating_sub(now)).max(1);
    let mut headers = Headers::json();
    headers.push("Retry-After", wait.to_string());
    headers.deprecation(deprecation);
    let detail = match unavailable.reason {
        Unavailability::TableFull { .. } => format!(
            "Rate limits cannot be checked right now (the limiter is tracking as many clients \
             as it can hold); retry in {wait} s."
        ),
        _ => format!(
            "Rate limits cannot be checked right now (the limit store is unavailable); \
             retry in {wait} s."
        ),
    };
    error_response(headers, ErrorBody::new(503, detail))
}
