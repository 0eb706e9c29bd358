//! Error bodies the gate sends: the generic error response, the 400 body
//! listing every parameter problem, the 429 body, and the 503 body of a
//! limiter that cannot decide.

use super::headers::Headers;
use super::response::GateResponse;
use crate::limit::{LimiterUnavailable, StackDecision, Unavailability};
use crate::model::header_names::{
    RATELIMIT_LIMIT, RATELIMIT_REMAINING, RATELIMIT_RESET, RETRY_AFTER,
};
use crate::model::limits::AppliedLimit;
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
    checks: &[AppliedLimit],
    now: UnixMillis,
) -> GateResponse {
    let StackDecision::Refused { refusing, retry_at } = decision else {
        return error_response(
            headers,
            ErrorBody::new(500, "rate-limit state is inconsistent"),
        );
    };
    let check = checks.get(refusing.index);
    let name = check.map_or("rate", |check| check.name.as_str());
    let window_seconds = check.map_or(crate::time::Seconds::new(0), |check| {
        crate::time::ceil_seconds(check.quota.window())
    });
    let wait = crate::time::ceil_seconds(retry_at.saturating_since(now));
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
/// fails closed, or its table has no room for a new subject): `Retry-After`
/// of at least one second, nothing charged. Every response
/// carries `RateLimit-*`: as no limit could be read, they describe the
/// request's base limit (`quota` requests) as spent until the retry time
/// (`Remaining: 0`, `Reset` = `Retry-After`), which tells a throttling
/// client the same as `Retry-After`.
pub(crate) fn limiter_unavailable(
    unavailable: LimiterUnavailable,
    quota: Option<u32>,
    deprecation: Option<&DeprecationNotice>,
    now: UnixMillis,
) -> GateResponse {
    let wait = crate::time::ceil_seconds(unavailable.retry_at.saturating_since(now))
        .max(crate::time::Seconds::new(1));
    let mut headers = Headers::json();
    if let Some(quota) = quota {
        headers.push(RATELIMIT_LIMIT, quota.to_string());
        headers.push(RATELIMIT_REMAINING, "0");
        headers.push(RATELIMIT_RESET, wait.to_string());
    }
    headers.push(RETRY_AFTER, wait.to_string());
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
