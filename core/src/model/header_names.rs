//! Header names both roles send or read, written once, and the one header
//! look-up both roles use. HTTP compares names case-insensitively; the
//! constants are the spellings acd sends.
//!
//! Every header list in acd is `[(name, value)]` in order: text values on
//! the client side and in gate responses, raw bytes in gate requests.
//! [`first_value`] and [`all_values`] read either kind:
//!
//! ```
//! use acd_core::model::header_names::{all_values, first_value, RETRY_AFTER};
//! let headers = vec![("retry-after".to_owned(), "7".to_owned())];
//! assert_eq!(first_value(&headers, RETRY_AFTER), Some("7"));
//! let raw = vec![("X-API-Key".to_owned(), b"k".to_vec())];
//! assert_eq!(all_values(&raw, "x-api-key").collect::<Vec<_>>(), [b"k".as_slice()]);
//! ```

/// `Content-Type`.
pub const CONTENT_TYPE: &str = "Content-Type";
/// `Allow` (on a 405).
pub const ALLOW: &str = "Allow";
/// `WWW-Authenticate` (on a 401 or 403).
pub const WWW_AUTHENTICATE: &str = "WWW-Authenticate";
/// `X-API-Key`: carries an API key.
pub const X_API_KEY: &str = "X-API-Key";
/// `Authorization`: carries `Bearer <API key or OAuth token>`.
pub const AUTHORIZATION: &str = "Authorization";
/// `X-Stable-Egress`: the default name of the header that asks for stable egress.
pub const X_STABLE_EGRESS: &str = "X-Stable-Egress";
/// `Idempotency-Key`.
pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
/// `RateLimit-Limit`: requests per window of the tightest limit.
pub const RATELIMIT_LIMIT: &str = "RateLimit-Limit";
/// `RateLimit-Remaining`: requests left in its window.
pub const RATELIMIT_REMAINING: &str = "RateLimit-Remaining";
/// `RateLimit-Reset`: seconds until its window ends (a delta).
pub const RATELIMIT_RESET: &str = "RateLimit-Reset";
/// `Retry-After`: seconds to wait (on a 429 or 503).
pub const RETRY_AFTER: &str = "Retry-After";
/// `x-ratelimit-limit` (legacy, on a 429).
pub const X_RATELIMIT_LIMIT: &str = "x-ratelimit-limit";
/// `x-ratelimit-remaining` (legacy, on a 429).
pub const X_RATELIMIT_REMAINING: &str = "x-ratelimit-remaining";
/// `x-ratelimit-reset` (legacy, on a 429): Unix seconds of the reset.
pub const X_RATELIMIT_RESET: &str = "x-ratelimit-reset";
/// `Deprecation` (RFC 9745): `@<Unix seconds>`.
pub const DEPRECATION: &str = "Deprecation";
/// `Sunset` (RFC 8594): an HTTP-date.
pub const SUNSET: &str = "Sunset";
/// `Link` (e.g. the deprecation or sunset documentation).
pub const LINK: &str = "Link";

/// The rate-limit headers the index advertises, in the order it lists them.
pub const RATE_LIMIT_HEADERS: [&str; 7] = [
    RATELIMIT_LIMIT,
    RATELIMIT_REMAINING,
    RATELIMIT_RESET,
    RETRY_AFTER,
    X_RATELIMIT_LIMIT,
    X_RATELIMIT_REMAINING,
    X_RATELIMIT_RESET,
];

/// `Prefer` (RFC 7240): asks the sandbox for a fault or an example.
pub const PREFER: &str = "Prefer";

/// Every request header a client may send across origins, besides the
/// configured stable-egress header: what a CORS preflight must allow
/// (`Access-Control-Allow-Headers`).
pub const CORS_REQUEST_HEADERS: [&str; 5] = [
    CONTENT_TYPE,
    IDEMPOTENCY_KEY,
    X_API_KEY,
    AUTHORIZATION,
    PREFER,
];

/// Every response header a client reads besides the CORS-safelisted ones:
/// what a cross-origin response must expose (`Access-Control-Expose-Headers`).
pub const CORS_EXPOSED_HEADERS: [&str; 12] = [
    RATELIMIT_LIMIT,
    RATELIMIT_REMAINING,
    RATELIMIT_RESET,
    RETRY_AFTER,
    X_RATELIMIT_LIMIT,
    X_RATELIMIT_REMAINING,
    X_RATELIMIT_RESET,
    WWW_AUTHENTICATE,
    ALLOW,
    DEPRECATION,
    SUNSET,
    LINK,
];

/// Whether `name` is a valid HTTP header name: one or more RFC 9110 token
/// characters (letters, digits, ``!#$%&'*+-.^_`|~``).
///
/// ```
/// use acd_core::model::header_names::is_header_name;
/// assert!(is_header_name("X-Stable-Egress"));
/// assert!(!is_header_name("X Stable"));
/// assert!(!is_header_name("X-Egress:"));
/// assert!(!is_header_name(""));
/// ```
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte))
}

/// Whether header names `a` and `b` are the same name (ASCII
/// case-insensitive, as HTTP compares them).
pub fn same_name(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// A header value as a list holds it: text (`String`, read as `&str`) or
/// raw bytes (`Vec<u8>`, read as `&[u8]`).
pub trait HeaderValue {
    /// What a look-up hands out: `str` or `[u8]`.
    type Target: ?Sized;
    /// The value, borrowed.
    fn view(&self) -> &Self::Target;
}

impl HeaderValue for String {
    type Target = str;
    fn view(&self) -> &str {
        self
    }
}

impl HeaderValue for Vec<u8> {
    type Target = [u8];
    fn view(&self) -> &[u8] {
        self
    }
}

/// Every value of header `name` in `headers`, in order (names compare
/// case-insensitively).
pub fn all_values<'a, V: HeaderValue>(
    headers: &'a [(String, V)],
    name: &'a str,
) -> impl Iterator<Item = &'a V::Target> + 'a {
    headers
        .iter()
        .filter(move |(candidate, _)| same_name(candidate, name))
        .map(|(_, value)| value.view())
}

/// The first value of header `name` in `headers` (names compare
/// case-insensitively), or `None` when it is absent.
pub fn first_value<'a, V: HeaderValue>(
    headers: &'a [(String, V)],
    name: &str,
) -> Option<&'a V::Target> {
    headers
        .iter()
        .find(|(candidate, _)| same_name(candidate, name))
        .map(|(_, value)| value.view())
}
