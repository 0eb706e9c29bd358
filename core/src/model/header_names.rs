//! Header names both roles send or read, written once. HTTP compares names
//! case-insensitively; these are the spellings acd sends.

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
