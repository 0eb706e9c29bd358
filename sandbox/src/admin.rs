//! The admin routes, off by default and answered to loopback clients only
//! (to anyone else they do not exist); not in the OpenAPI document:
//!
//! * `GET /_sandbox/clock` → `{"clock": "manual"|"system", "now_ms": T}`;
//! * `POST /_sandbox/clock` with `{"advance_ms": N}` or `{"now_ms": T}`
//!   moves the manual clock (`--clock manual`) and answers as the GET does;
//! * `POST /_sandbox/reset` clears every rate-limit counter and every run,
//!   and answers `{"cleared": ["rate_limits", "runs"]}`.
//!
//! They are on with `--admin`, and with `--clock manual` (a manual clock
//! without them could never move).

use crate::clock::{Clock, ClockError};
use crate::handler::{App, ClientAddr};
use acd_core::limit::{LimitCheck, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::{Arc, RwLock};

/// What `POST /_sandbox/clock` takes.
const CLOCK_BODY: &str = "The body must be {\"advance_ms\": N} (milliseconds to move forward) \
     or {\"now_ms\": T} (the Unix milliseconds to set)";

/// Largest admin request body.
const MAX_BODY_BYTES: usize = 4 * 1024;

/// An in-memory limiter that `POST /_sandbox/reset` can empty: the state
/// lives in a limiter that is swapped for a fresh one.
pub struct ResettableLimiter {
    current: RwLock<Arc<dyn RateLimiter>>,
    fresh: fn() -> Arc<dyn RateLimiter>,
}

impl std::fmt::Debug for ResettableLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResettableLimiter").finish_non_exhaustive()
    }
}

impl ResettableLimiter {
    /// A limiter made by `fresh`, and made again on each reset.
    pub fn new(fresh: fn() -> Arc<dyn RateLimiter>) -> Self {
        Self {
            current: RwLock::new(fresh()),
            fresh,
        }
    }

    /// Forgets every counter.
    pub fn reset(&self) {
        let fresh = (self.fresh)();
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = fresh;
    }

    fn current(&self) -> Arc<dyn RateLimiter> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl RateLimiter for ResettableLimiter {
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        self.current().acquire(checks, now)
    }
}

fn answer(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body.to_string(),
    )
        .into_response()
}

fn problem(status: StatusCode, detail: impl Into<String>) -> Response {
    let body = acd_core::model::ErrorBody::new(status.as_u16(), detail).to_bytes();
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response()
}

fn from_loopback(request: &Request) -> bool {
    request
        .extensions()
        .get::<ClientAddr>()
        .is_some_and(|addr| addr.0.ip().is_loopback())
}

fn clock_state(clock: &Clock) -> Value {
    json!({
        "clock": if clock.is_manual() { "manual" } else { "system" },
        "now_ms": clock.now_ms(),
    })
}

/// How the clock is to move.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockChange {
    advance_ms: Option<u64>,
    now_ms: Option<u64>,
}

/// `GET`/`POST /_sandbox/clock`.
pub async fn clock(State(app): State<Arc<App>>, request: Request) -> Response {
    if !from_loopback(&request) {
        return crate::handler::api(State(app), request).await;
    }
    let clock = app.clock();
    if request.method() == axum::http::Method::GET {
        return answer(StatusCode::OK, &clock_state(clock));
    }
    let body = match axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(_) => {
            return problem(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("The body must be a JSON object of at most {MAX_BODY_BYTES} bytes."),
            )
        }
    };
    let change = match serde_json::from_slice::<ClockChange>(&body) {
        Ok(change) => change,
        Err(error) => return problem(StatusCode::BAD_REQUEST, format!("{CLOCK_BODY}: {error}.")),
    };
    let moved = match (change.advance_ms, change.now_ms) {
        (Some(advance), None) => clock.advance(advance),
        (None, Some(now)) => clock.set(now),
        _ => return problem(StatusCode::BAD_REQUEST, format!("{CLOCK_BODY}, not both.")),
    };
    match moved {
        Ok(_) => answer(StatusCode::OK, &clock_state(clock)),
        Err(error) => {
            let status = match error {
                ClockError::NotManual => StatusCode::CONFLICT,
                ClockError::Overflow { .. } => StatusCode::BAD_REQUEST,
            };
            problem(status, format!("{}.", capitalise(&error.to_string())))
        }
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `POST /_sandbox/reset`.
pub async fn reset(State(app): State<Arc<App>>, request: Request) -> Response {
    if !from_loopback(&request) {
        return crate::handler::api(State(app), request).await;
    }
    match app.reset() {
        Ok(()) => answer(StatusCode::OK, &json!({"cleared": ["rate_limits", "runs"]})),
        Err(detail) => problem(StatusCode::CONFLICT, detail),
    }
}
