//! Reading the server's rate-limit state from response headers.
//!
//! Three dialects, all optional, malformed values ignored (with a note):
//! * the spec's trio `RateLimit-Limit` / `-Remaining` / `-Reset` (reset is a
//!   delta in seconds; a value that can only be a Unix time is read as one);
//! * the legacy `x-ratelimit-limit` / `-remaining` / `-reset`, whose reset is
//!   Unix seconds: it is converted against the response's `Date` header, not
//!   the local clock, so a skewed clock cannot cause a 429 right after the
//!   reset (octokit/plugin-throttling.js#599);
//! * the IETF draft's structured fields `RateLimit: "p";r=..;t=..` joined
//!   by name with `RateLimit-Policy: "p";q=..;w=..`.
//!
//! Plus `Retry-After` (seconds or HTTP-date, the latter also against `Date`).
//! Every instant is in the caller's clock: `now` plus the server's delta.

use super::structured::{parse_list, Item};
use crate::http_date::parse_http_date;
use crate::model::header_names::all_values;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// A reset value at or above this many seconds is a Unix time, not a delta
/// (about 31 years; no window is that long).
pub const UNIX_RESET_THRESHOLD_SECONDS: u64 = 1_000_000_000;

/// Which dialect an observation came from.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderDialect {
    /// `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`.
    Standard,
    /// `x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset`.
    Legacy,
    /// `RateLimit` with `RateLimit-Policy` (IETF draft structured fields).
    Structured,
}

/// The state of one limit as a response reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitObservation {
    /// Where it came from.
    pub dialect: HeaderDialect,
    /// The policy name (structured fields only).
    pub policy: Option<String>,
    /// Requests per window, when reported.
    pub limit: Option<u32>,
    /// The window length, when reported (`w` of the policy).
    pub window_ms: Option<u64>,
    /// Requests left in the current window.
    pub remaining: u32,
    /// When the window resets, in the caller's clock.
    pub reset_at: UnixMillis,
}

/// Everything rate-limit related one response said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimitHeaders {
    /// Observed limit states, in dialect order.
    pub observations: Vec<LimitObservation>,
    /// `Retry-After` as an instant in the caller's clock.
    pub retry_at: Option<UnixMillis>,
    /// One sentence per ignored (malformed) value.
    pub ignored: Vec<String>,
}

impl RateLimitHeaders {
    /// When a server that refused a request says it admits again:
    /// `Retry-After`, else the latest reset of a limit the response reports
    /// spent (remaining 0), else the latest reset it reports at all (a 429
    /// that carries only `RateLimit-Reset`, `x-ratelimit-reset` or `t=`).
    /// The instant as the server named it; the caller bounds it (see
    /// `server_wait`).
    pub fn refused_until(&self) -> Option<UnixMillis> {
        let latest = |spent_only: bool| {
            self.observations
                .iter()
                .filter(|o| !spent_only || o.remaining == 0)
                .map(|o| o.reset_at)
                .max()
        };
        self.retry_at
            .or_else(|| latest(true))
            .or_else(|| latest(false))
    }
}

/// Parses the rate-limit headers of a response received at `now`.
pub fn parse_rate_limit_headers(
    headers: &[(String, String)],
    now: impl Into<UnixMillis>,
) -> RateLimitHeaders {
    let now = now.into();
    let mut out = RateLimitHeaders::default();
    let date = all_values(headers, "date").next().and_then(parse_http_date);
    // Seconds from the server's "now" to a Unix instant, in the caller's clock.
    let absolute = |unix_seconds: u64| match date {
        Some(date) => now.saturating_add(unix_seconds.saturating_sub(date).saturating_mul(1_000)),
        None => UnixMillis::new(unix_seconds.saturating_mul(1_000)).max(now),
    };
    let reset_at = |seconds: u64| {
        if seconds >= UNIX_RESET_THRESHOLD_SECONDS {
            absolute(seconds)
        } else {
            now.saturating_add(seconds.saturating_mul(1_000))
        }
    };

    // Lower-case names, as the messages about ignored values print them;
    // written out so that reading a response builds no header name.
    for (dialect, prefix, [limit_name, remaining_name, reset_name]) in [
        (
            HeaderDialect::Standard,
            "ratelimit-",
            ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"],
        ),
        (
            HeaderDialect::Legacy,
            "x-ratelimit-",
            [
                "x-ratelimit-limit",
                "x-ratelimit-remaining",
                "x-ratelimit-reset",
            ],
        ),
    ] {
        let read = |name: &str, out: &mut RateLimitHeaders, pick: fn(u64, u64) -> u64| {
            let mut found: Option<u64> = None;
            for value in all_values(headers, name) {
                match leading_integer(value) {
                    Some(number) => found = Some(found.map_or(number, |f| pick(f, number))),
                    None => out.ignored.push(format!(
                        "{name}: {value:?} is not a non-negative integer, so it was ignored"
                    )),
                }
            }
            found
        };
        let limit = read(limit_name, &mut out, u64::min);
        let remaining = read(remaining_name, &mut out, u64::min);
        let reset = read(reset_name, &mut out, u64::max);
        match (remaining, reset) {
            (Some(remaining), Some(reset)) => {
                let limit = limit.map(saturate_u32);
                let remaining = saturate_u32(remaining);
                let reset_at = match dialect {
                    HeaderDialect::Legacy => absolute(reset),
                    _ => reset_at(reset),
                };
                out.observations.push(LimitObservation {
                    dialect,
                    policy: None,
                    limit,
                    window_ms: None,
                    remaining: limit.map_or(remaining, |limit| remaining.min(limit)),
                    reset_at,
                });
            }
            (None, None) => {}
            _ => out.ignored.push(format!(
                "{prefix}remaining and {prefix}reset must come together; the incomplete set was ignored"
            )),
        }
    }

    structured(headers, now, &mut out);

    for value in all_values(headers, "retry-after") {
        let trimmed = value.trim();
        let at = if let Some(seconds) = crate::model::params::parse_canonical_u64(trimmed) {
            Some(now.saturating_add(seconds.saturating_mul(1_000)))
        } else if trimmed.len() > 20
            && !trimmed.starts_with('0')
            && trimmed.bytes().all(|byte| byte.is_ascii_digit())
        {
            // Whole seconds too many for 64 bits: the furthest instant, so
            // the wait is refused as too long like `u64::MAX` is.
            Some(UnixMillis::MAX)
        } else {
            parse_http_date(trimmed).map(absolute)
        };
        match at {
            Some(at) => out.retry_at = Some(out.retry_at.map_or(at, |before| before.max(at))),
            None => out.ignored.push(format!(
                "Retry-After: {value:?} is neither whole seconds nor an HTTP-date, so it was ignored"
            )),
        }
    }
    out
}

fn structured(headers: &[(String, String)], now: UnixMillis, out: &mut RateLimitHeaders) {
    let mut policies: Vec<Item> = Vec::new();
    for value in all_values(headers, "ratelimit-policy") {
        match parse_list(value) {
            Some(items) => policies.extend(items),
            None => out.ignored.push(format!(
                "RateLimit-Policy: {value:?} is not a structured-field list, so it was ignored"
            )),
        }
    }
    for value in all_values(headers, "ratelimit") {
        let Some(items) = parse_list(value) else {
            out.ignored.push(format!(
                "RateLimit: {value:?} is not a structured-field list, so it was ignored"
            ));
            continue;
        };
        for item in items {
            let policy = policies.iter().find(|policy| policy.name == item.name);
            let window_s = policy.and_then(|policy| policy.integer("w"));
            let (Some(remaining), Some(reset_s)) =
                (item.integer("r"), item.integer("t").or(window_s))
            else {
                out.ignored.push(format!(
                    "RateLimit item {:?} lacks a usable r (remaining) or t (reset), so it was ignored",
                    item.name
                ));
                continue;
            };
            let limit = policy
                .and_then(|policy| policy.integer("q"))
                .map(saturate_u32);
            let remaining = saturate_u32(remaining);
            out.observations.push(LimitObservation {
                dialect: HeaderDialect::Structured,
                policy: Some(item.name.clone()),
                limit,
                window_ms: window_s.map(|w| w.saturating_mul(1_000)),
                remaining: limit.map_or(remaining, |limit| remaining.min(limit)),
                reset_at: now.saturating_add(reset_s.saturating_mul(1_000)),
            });
        }
    }
}

/// The integer at the start of a header value (`"100"`, `" 100 "`, and the
/// older draft's `"100, 100;w=60"`); `None` for anything else.
fn leading_integer(value: &str) -> Option<u64> {
    let first = value.split([',', ';']).next()?.trim();
    crate::model::params::parse_canonical_u64(first)
}

fn saturate_u32(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn reads_the_trio_and_retry_after() {
        let parsed = parse_rate_limit_headers(
            &headers(&[
                ("RateLimit-Limit", "5"),
                ("ratelimit-remaining", "0"),
                ("RateLimit-Reset", "42"),
                ("Retry-After", "42"),
            ]),
            1_000_000,
        );
        assert_eq!(parsed.observations.len(), 1);
        let observation = &parsed.observations[0];
        assert_eq!(
            (
                observation.limit,
                observation.remaining,
                observation.reset_at
            ),
            (Some(5), 0, UnixMillis::new(1_042_000))
        );
        assert_eq!(parsed.retry_at, Some(UnixMillis::new(1_042_000)));
    }

    #[test]
    fn a_refusal_is_timed_by_retry_after_else_the_spent_limits_reset() {
        let at =
            |pairs: &[(&str, &str)]| parse_rate_limit_headers(&headers(pairs), 0).refused_until();
        let spent = [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "7")];
        let other = [("x-ratelimit-remaining", "3"), ("x-ratelimit-reset", "90")];
        let both: Vec<(&str, &str)> = spent.iter().chain(&other).copied().collect();
        assert_eq!(at(&both), Some(UnixMillis::new(7_000)));
        assert_eq!(at(&other), Some(UnixMillis::new(90_000)));
        let mut told = both.clone();
        told.push(("Retry-After", "2"));
        assert_eq!(at(&told), Some(UnixMillis::new(2_000)));
        assert_eq!(at(&[]), None);
    }

    #[test]
    fn legacy_reset_is_read_against_the_date_header() {
        // The local clock is 100 s ahead of the server's.
        let now = UnixMillis::new(1_700_000_100_000);
        let parsed = parse_rate_limit_headers(
            &headers(&[
                ("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), // 1_700_000_000
                ("x-ratelimit-limit", "100"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1700000030"),
            ]),
            now,
        );
        assert_eq!(parsed.observations[0].reset_at, now.saturating_add(30_000));
    }

    #[test]
    fn malformed_values_are_ignored_with_a_note() {
        let parsed = parse_rate_limit_headers(
            &headers(&[
                ("RateLimit-Remaining", "-1"),
                ("RateLimit-Reset", "soon"),
                ("Retry-After", "1.5"),
            ]),
            0,
        );
        assert!(parsed.observations.is_empty());
        assert_eq!(parsed.retry_at, None);
        assert_eq!(parsed.ignored.len(), 3);
    }

    #[test]
    fn structured_fields_join_policy_by_name() {
        let parsed = parse_rate_limit_headers(
            &headers(&[
                (
                    "RateLimit-Policy",
                    r#""user_table_reads";q=5;w=60, "credential";q=100;w=60"#,
                ),
                ("RateLimit", r#""user_table_reads";r=2;t=17"#),
            ]),
            0,
        );
        let observation = &parsed.observations[0];
        assert_eq!(observation.policy.as_deref(), Some("user_table_reads"));
        assert_eq!(
            (
                observation.limit,
                observation.window_ms,
                observation.remaining,
                observation.reset_at
            ),
            (Some(5), Some(60_000), 2, UnixMillis::new(17_000))
        );
    }
}
