//! CORS for a browser dashboard on another origin: preflights are answered
//! here (never counted by the gate), and every other response lets the page
//! read the rate-limit headers. Applied to every request by
//! [`crate::exchange`].
//!
//! A preflight is an `OPTIONS` request with `Origin` and
//! `Access-Control-Request-Method`; any other `OPTIONS` goes to the gate
//! (405 with `Allow`). Credentials travel in headers, not cookies, so
//! `Access-Control-Allow-Origin: *` is enough and no origin is echoed.
//!
//! The admin routes (`/_sandbox/...`) are the exception: they grant no CORS
//! at all, and their preflights are answered without any allow header, so
//! that no page can read them or send them a request a form could not.

use crate::handler::App;
use acd_core::model::header_names::{CORS_EXPOSED_HEADERS, CORS_REQUEST_HEADERS};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_METHOD, ORIGIN,
};
use axum::http::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use std::sync::LazyLock;

/// [`exposed_headers`], made once.
static EXPOSED: LazyLock<HeaderValue> = LazyLock::new(|| {
    HeaderValue::from_str(&exposed_headers()).unwrap_or_else(|_| HeaderValue::from_static(""))
});

/// Headers a page may read besides the CORS-safelisted ones: core's
/// [`CORS_EXPOSED_HEADERS`], every header a client reads.
pub fn exposed_headers() -> String {
    CORS_EXPOSED_HEADERS.join(", ")
}

/// Seconds a browser may cache a preflight answer.
pub const PREFLIGHT_MAX_AGE: &str = "600";

/// `Access-Control-Allow-Headers`: core's [`CORS_REQUEST_HEADERS`] (every
/// header a client sends) and the configured stable-egress header (a valid
/// header name: the gate's configuration checks it).
pub fn allow_headers(stable_egress_header: &str) -> HeaderValue {
    let mut names: Vec<&str> = CORS_REQUEST_HEADERS.to_vec();
    if !names
        .iter()
        .any(|name| name.eq_ignore_ascii_case(stable_egress_header))
    {
        names.push(stable_egress_header);
    }
    HeaderValue::from_str(&names.join(", "))
        .unwrap_or_else(|_| HeaderValue::from_static("Content-Type"))
}

/// Whether `request` is a CORS preflight.
pub fn is_preflight<B>(request: &Request<B>) -> bool {
    request.method() == Method::OPTIONS
        && request.headers().contains_key(ORIGIN)
        && request
            .headers()
            .contains_key(ACCESS_CONTROL_REQUEST_METHOD)
}

fn allow_any_origin(headers: &mut HeaderMap) {
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
}

/// The answer to a preflight (never counted by the gate).
pub fn preflight(app: &App) -> Response {
    let mut response = Response::default();
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    allow_any_origin(headers);
    headers.insert(
        ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST"),
    );
    headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, app.allow_headers().clone());
    headers.insert(
        ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static(PREFLIGHT_MAX_AGE),
    );
    response
}

/// The answer to a preflight for an admin route: `204` without a single
/// `Access-Control-Allow-*` header, so the browser sends nothing.
pub fn preflight_refused() -> Response {
    let mut response = Response::default();
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// The CORS headers of every answer that is not a preflight's (injected
/// faults included).
pub fn decorate(headers: &mut HeaderMap) {
    allow_any_origin(headers);
    headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED.clone());
}
