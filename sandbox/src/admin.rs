//! The admin routes, off by default; not in the OpenAPI document:
//!
//! * `GET /_sandbox/clock` → `{"clock": "manual"|"system", "now_ms": T}`;
//! * `POST /_sandbox/clock` with `{"advance_ms": N}` or `{"now_ms": T}`
//!   moves the manual clock (`--clock manual`) and answers as the GET does;
//! * `POST /_sandbox/reset` clears every rate-limit counter and every run,
//!   and answers `{"cleared": ["rate_limits", "runs"]}`;
//! * `GET /_sandbox/requests[?path=PATTERN][&since=INDEX][&limit=N]` lists the
//!   recorded requests ([`crate::recorder`]), `DELETE /_sandbox/requests`
//!   forgets them and answers `{"cleared": N}`.
//!
//! They are on with `--admin`, `--admin-token` and with `--clock manual` (a
//! manual clock without them could never move).
//!
//! Who may use them ([`admit`]): loopback peers (`::ffff:127.0.0.1` too)
//! whose `Host` names this machine (`localhost`, `*.localhost` or a loopback
//! address, any port; else a 403, against DNS rebinding); with `--admin-token TOKEN`
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
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, HOST, ORIGIN, WWW_AUTHENTICATE};
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

/// Whether the peer is on loopback (`::ffff:127.0.0.1`, an IPv4 address
/// seen on a dual-stack socket, included).
fn from_loopback(request: &Request) -> bool {
    request
        .extensions()
        .get::<ClientAddr>()
        .is_some_and(|addr| addr.0.ip().to_canonical().is_loopback())
}

/// Whether `host` (a `Host` value: a name or address and an optional port)
/// names this machine: `localhost`, a name under `.localhost`, or a loopback
/// address (`127.0.0.1`, `[::1]`, `[::ffff:127.0.0.1]`).
pub fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((address, port)) if port.is_empty() || port.starts_with(':') => address,
            _ => return false,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            Some(_) => return false,
            None => host,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    name.parse::<std::net::IpAddr>()
        .is_ok_and(|address| address.to_canonical().is_loopback())
}

/// Whether the request's `Host` (or, absent, the target's authority) names
/// this machine: a page on another name that resolves to 127.0.0.1 (DNS
/// rebinding) sends its own name.
fn to_loopback_host(request: &Request) -> bool {
    match request.headers().get(HOST) {
        Some(value) => value.to_str().is_ok_and(is_loopback_host),
        None => request
            .uri()
            .authority()
            .is_some_and(|authority| is_loopback_host(authority.as_str())),
    }
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
    let token_sent = app
        .admin_token()
        .is_some_and(|token| bears(request, token.expose()));
    if from_loopback(request) && !token_sent && !to_loopback_host(request) {
        return Admission::Refused(problem(
            StatusCode::FORBIDDEN,
            "The admin routes answer loopback clients only when Host names this machine \
             (localhost, 127.0.0.1 or [::1], with any port), so that a web page on another \
             name cannot reach them (DNS rebinding); send Host: 127.0.0.1, or the admin \
             token as Authorization: Bearer <token>.",
        ));
    }
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
const MAX_FILTER_BYTES: usize = crate::faults::pattern::MAX_PATTERN_BYTES;

/// What `GET /_sandbox/requests` takes.
const REQUESTS_QUERY: &str = "GET /_sandbox/requests takes path=PATTERN (`*` within a \
     segment, `**` across, e.g. /api/v1/tables/*), since=INDEX (a whole number: the \
     requests from that index on) and limit=N (at most N requests, N at least 1)";

/// The filters of `GET /_sandbox/requests`.
struct Filters {
    since: u64,
    path: Option<Pattern>,
    limit: usize,
}

/// The filters of `GET /_sandbox/requests`, or the sentence that says what
/// is wrong with them.
fn requests_filters(query: Option<&str>) -> Result<Filters, String> {
    let (mut since, mut path, mut limit) = (0, None, usize::MAX);
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
            "limit" => {
                limit = value
                    .parse()
                    .ok()
                    .filter(|limit| *limit >= 1)
                    .ok_or_else(|| format!("{REQUESTS_QUERY}; limit={value:?} is not one."))?;
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
    Ok(Filters { since, path, limit })
}

/// Requests matched between two yields to the other tasks.
const MATCHES_PER_YIELD: usize = 16;

/// The listing of `filters` as JSON: matched outside the ring's lock, in
/// steps that let the worker serve other requests in between.
async fn listing_json(app: &Arc<App>, filters: Filters) -> Result<Vec<u8>, String> {
    let _turn = app.recorder().listing_turn().await;
    let mut listing = app.recorder().snapshot(filters.since);
    if let Some(pattern) = &filters.path {
        let candidates = std::mem::take(&mut listing.requests);
        for chunk in candidates.chunks(MATCHES_PER_YIELD) {
            if listing.requests.len() >= filters.limit {
                break;
            }
            listing.requests.extend(
                chunk
                    .iter()
                    .filter(|entry| pattern.matches(&entry.path))
                    .cloned(),
            );
            tokio::task::yield_now().await;
        }
    }
    listing.requests.truncate(filters.limit);
    serde_json::to_vec(&listing)
        .map_err(|error| format!("The recorded requests cannot be written as JSON: {error}."))
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
    let filters = match requests_filters(request.uri().query()) {
        Ok(filters) => filters,
        Err(detail) => return problem(StatusCode::BAD_REQUEST, detail),
    };
    match listing_json(&app, filters).await {
        Ok(body) => (
            StatusCode::OK,
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            body,
        )
            .into_response(),
        Err(detail) => problem(StatusCode::INTERNAL_SERVER_ERROR, detail),
    }
}
