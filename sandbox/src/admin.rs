//! The admin routes, off by default; not in the OpenAPI document:
//!
//! * `GET /_sandbox/clock` → `{"clock": "manual"|"system", "now_ms": T}`;
//! * `POST /_sandbox/clock` with `{"advance_ms": N}` or `{"now_ms": T}`
//!   moves the manual clock (`--clock manual`) and answers as the GET does;
//! * `POST /_sandbox/reset` clears every rate-limit counter and every run,
//!   and answers `{"cleared": ["rate_limits", "runs"]}`;
//! * `GET /_sandbox/requests[?path=PATTERN][&since=INDEX]` lists the
//!   recorded requests ([`crate::recorder`]), `DELETE /_sandbox/requests`
//!   forgets them and answers `{"cleared": N}`.
//!
//! They are on with `--admin`, `--admin-token` and with `--clock manual` (a
//! manual clock without them could never move).
//!
//! Who may use them ([`admit`]): loopback peers; with `--admin-token TOKEN`
//! also any peer sending `Authorization: Bearer TOKEN` (others get a 401);
//! without it, to other peers they do not exist (the gate's 404). And never
//! a web page: a request with an `Origin` header (which browsers add to
//! every cross-origin and every non-GET request) is a 403, a `POST` must be
//! `Content-Type: application/json` (which no form can send, and which a
//! page cannot send elsewhere without a CORS preflight) or it is a 415, and
//! the admin routes grant no CORS at all (see [`crate::cors`]).

use crate::clock::{Clock, ClockError};
use crate::faults::Pattern;
use crate::handler::{App, ClientAddr};
use acd_core::limit::{LimitCheck, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, ORIGIN, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
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

/// Whether `a` and `b` are equal, in a time that does not depend on where
/// they first differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// Whether `request` carries `Authorization: Bearer <token>`.
fn bears(request: &Request, token: &str) -> bool {
    request
        .headers()
        .get_all(AUTHORIZATION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .filter_map(|value| value.split_once(' '))
        .any(|(scheme, credentials)| {
            scheme.eq_ignore_ascii_case("bearer")
                && same_secret(credentials.trim().as_bytes(), token.as_bytes())
        })
}

/// Whether a `Content-Type` value is `application/json` (parameters such
/// as `charset` allowed).
fn is_json(value: &HeaderValue) -> bool {
    value
        .to_str()
        .ok()
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// What [`admit`] decides about an admin request.
pub enum Admission {
    /// Go on.
    Admitted,
    /// The peer may not know the admin routes exist: answer as the API would.
    Hidden,
    /// Refused with this answer.
    Refused(Response),
}

/// Whether `request` may use an admin route (see the module doc).
pub fn admit(app: &App, request: &Request) -> Admission {
    if !from_loopback(request) {
        match app.admin_token() {
            None => return Admission::Hidden,
            Some(token) if bears(request, token.expose()) => {}
            Some(_) => {
                let mut refused = problem(
                    StatusCode::UNAUTHORIZED,
                    "The admin routes answer other hosts only with the admin token: send \
                     Authorization: Bearer <the sandbox's --admin-token>.",
                );
                refused.headers_mut().insert(
                    WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"acd-sandbox admin\""),
                );
                return Admission::Refused(refused);
            }
        }
    }
    if request.headers().contains_key(ORIGIN) {
        return Admission::Refused(problem(
            StatusCode::FORBIDDEN,
            "The admin routes do not answer web pages (the request carries an Origin header); \
             call them from a test or a script, e.g. curl -X POST -H 'Content-Type: \
             application/json' -d '{\"advance_ms\": 60000}' http://127.0.0.1:8080/_sandbox/clock.",
        ));
    }
    if request.method() == Method::POST && !request.headers().get(CONTENT_TYPE).is_some_and(is_json)
    {
        return Admission::Refused(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "An admin POST must be sent with Content-Type: application/json (a web form cannot \
             send that, so a web page cannot drive the sandbox); the body may be empty where \
             the route takes none.",
        ));
    }
    Admission::Admitted
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
    match admit(&app, &request) {
        Admission::Admitted => {}
        Admission::Hidden => return crate::handler::api(State(app), request).await,
        Admission::Refused(response) => return response,
    }
    let clock = app.clock();
    if request.method() == Method::GET {
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
        Ok(now) => {
            // Webhook attempts due by the new time are sent before the answer.
            if let Some(hooks) = app.webhooks() {
                hooks.catch_up(now).await;
            }
            answer(StatusCode::OK, &clock_state(clock))
        }
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
    match admit(&app, &request) {
        Admission::Admitted => {}
        Admission::Hidden => return crate::handler::api(State(app), request).await,
        Admission::Refused(response) => return response,
    }
    match app.reset() {
        Ok(()) => answer(StatusCode::OK, &json!({"cleared": ["rate_limits", "runs"]})),
        Err(detail) => problem(StatusCode::CONFLICT, detail),
    }
}

/// Longest `path` filter of `GET /_sandbox/requests`, in bytes.
const MAX_FILTER_BYTES: usize = 1_024;

/// What `GET /_sandbox/requests` takes.
const REQUESTS_QUERY: &str = "GET /_sandbox/requests takes path=PATTERN (`*` within a \
     segment, `**` across, e.g. /api/v1/tables/*) and since=INDEX (a whole number: the \
     requests from that index on)";

/// The filters of `GET /_sandbox/requests`, or the sentence that says what
/// is wrong with them.
fn requests_filters(query: Option<&str>) -> Result<(u64, Option<Pattern>), String> {
    let (mut since, mut path) = (0, None);
    for pair in query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
    {
        let (name, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode_str(raw).decode_utf8_lossy();
        match name {
            "since" => {
                since = value
                    .parse()
                    .map_err(|_| format!("{REQUESTS_QUERY}; since={value:?} is not one."))?;
            }
            "path" if value.len() > MAX_FILTER_BYTES => {
                return Err(format!(
                    "{REQUESTS_QUERY}; the path pattern is longer than {MAX_FILTER_BYTES} bytes."
                ))
            }
            "path" => path = Some(Pattern::parse(&value)),
            other => {
                return Err(format!(
                    "{REQUESTS_QUERY}; {:?} is not one of them.",
                    percent_decode_str(other).decode_utf8_lossy()
                ))
            }
        }
    }
    Ok((since, path))
}

/// `GET`/`DELETE /_sandbox/requests`.
pub async fn requests(State(app): State<Arc<App>>, request: Request) -> Response {
    match admit(&app, &request) {
        Admission::Admitted => {}
        Admission::Hidden => return crate::handler::api(State(app), request).await,
        Admission::Refused(response) => return response,
    }
    if request.method() == Method::DELETE {
        let cleared = app.recorder().clear();
        return answer(StatusCode::OK, &json!({ "cleared": cleared }));
    }
    match requests_filters(request.uri().query()) {
        Ok((since, path)) => {
            let listing = app.recorder().list(since, path.as_ref());
            match serde_json::to_value(listing) {
                Ok(body) => answer(StatusCode::OK, &body),
                Err(error) => problem(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("The recorded requests cannot be written as JSON: {error}."),
                ),
            }
        }
        Err(detail) => problem(StatusCode::BAD_REQUEST, detail),
    }
}
