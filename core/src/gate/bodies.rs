//! Error bodies the gate sends: the generic error response, the 400 body
//! listing every parameter problem, the 429 body, and the 503 body of a
//! limiter that cannot decide.

use super::headers::Headers;
use super::response::GateResponse;
use crate::limit::{LimitCheck, LimiterUnavailable, StackDecision};
use crate::model::header_names::RETRY_AFTER;
use crate::model::operation::DeprecationNotice;
use crate::model::ErrorBody;
use crate::UnixMillis;
use serde_json::Value;

pub(crate) fn error_response(headers: Headers, body: ErrorBody) -> GateResponse {
    GateResponse {
        status: body.status.unwrap_or(500),
        headers: headers.0,
        body: body.to_bytes(),
    }
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

/// The 503 answer when the limiter cannot decide and fails closed: no
/// `RateLimit-*` headers (no limit was checked), `Retry-After` of at least
/// one second, nothing charged.
pub(crate) fn limiter_unavailable(
    unavailable: LimiterUnavailable,
    deprecation: Option<&DeprecationNotice>,
    now: UnixMillis,
) -> GateResponse {
    let wait = crate::time::ceil_seconds(unavailable.retry_at.saturating_sub(now)).max(1);
    let mut headers = Headers::json();
    headers.push(RETRY_AFTER, wait.to_string());
    headers.deprecation(deprecation);
    error_response(
        headers,
        ErrorBody::new(
            503,
            format!(
                "Rate limits cannot be checked right now (the limit store is unavailable); \
                 retry in {wait} s."
            ),
        ),
    )
}
