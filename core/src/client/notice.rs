//! The one sentence of each notice event ([`super::Event::Waiting`],
//! [`super::Event::Retrying`], [`super::Event::Deprecation`]): what happens,
//! for how long, because of which limit, with durations in seconds and
//! dates written out (ISO 8601, UTC) — the text every language logs as is.

use super::calls::CallId;
use super::deprecation::{Deprecated, DeprecationWarning};
use super::event::Event;
use super::event::{LimitInfo, LimitOrigin};
use super::http::TransportFailure;
use super::throttle::WaitReason;
use crate::UnixMillis;

/// A wait this long or longer is said where a user sees it with no
/// configuration (a warning); shorter waits and retries are informational.
pub const VISIBLE_WAIT_MS: u64 = 10_000;

/// How loudly a host says a notice event's sentence: every language logs
/// `warning` with no configuration, `info` and `debug` when asked
/// (`ACD_LOG=info|debug`).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    /// Said already by the event before it (a retry's wait): debug only.
    Debug,
    /// A short wait, or a retry that goes soon.
    Info,
    /// A wait of [`VISIBLE_WAIT_MS`] or more, or a deprecation notice.
    Warning,
}

/// The level of each of `events` drained at `now` (`None` for events that
/// are not notices). A `waiting` that follows its call's `retrying` for the
/// same instant repeats it, so it is `debug`: each wait or retry is said once.
pub fn notice_levels(events: &[(CallId, Event)], now: UnixMillis) -> Vec<Option<NoticeLevel>> {
    let loud = |until: UnixMillis| {
        if until.saturating_since(now) >= VISIBLE_WAIT_MS {
            NoticeLevel::Warning
        } else {
            NoticeLevel::Info
        }
    };
    let mut levels = Vec::with_capacity(events.len());
    let mut previous: Option<&(CallId, Event)> = None;
    for entry in events {
        let (call, event) = entry;
        let level = match event {
            Event::Retrying { at, .. } => Some(loud(*at)),
            Event::Waiting { until, .. } => match previous {
                Some((before, Event::Retrying { at, .. })) if before == call && at == until => {
                    Some(NoticeLevel::Debug)
                }
                _ => Some(loud(*until)),
            },
            Event::Deprecation(_) => Some(NoticeLevel::Warning),
            _ => None,
        };
        levels.push(level);
        previous = Some(entry);
    }
    levels
}

/// `ms` as seconds with one decimal, rounded up: `1.0 s`, `0.3 s`.
pub(crate) fn seconds_text(ms: u64) -> String {
    let tenths = ms.div_ceil(100);
    format!("{}.{} s", tenths / 10, tenths % 10)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Unix seconds as an ISO 8601 date (UTC), e.g. `2026-06-30`, read off
/// the IMF-fixdate `httpdate` writes; past year 9999 the Unix seconds.
pub(crate) fn iso_date(unix_seconds: u64) -> String {
    let date = crate::http_date::format_http_date(unix_seconds).and_then(|text| {
        // `Sun, 06 Nov 1994 08:49:37 GMT`
        let mut parts = text.split_ascii_whitespace().skip(1);
        let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
        let month = MONTHS.iter().position(|name| *name == month)?;
        Some(format!("{year}-{:02}-{day}", month.saturating_add(1)))
    });
    date.unwrap_or_else(|| format!("{unix_seconds} (Unix seconds)"))
}

/// ` for limit NAME (N per W s)`, saying when the server announced the
/// numbers, and `per window` when it gave the count but not the window.
fn limit_clause(limit: Option<&LimitInfo>) -> String {
    let Some(limit) = limit else {
        return String::new();
    };
    let (name, requests, window) = (&limit.name, limit.requests, limit.window_seconds);
    match limit.origin {
        LimitOrigin::Assumed => format!(" for limit {name} ({requests} per {window} s)"),
        LimitOrigin::ServerCount => {
            format!(" for limit {name} ({requests} per window, as the server announced)")
        }
        LimitOrigin::ServerWindow => {
            format!(" for limit {name} ({requests} per {window} s, as the server announced)")
        }
    }
}

/// The sentence of a wait of `operation` from `now` until `until`.
pub(crate) fn waiting_message(
    operation: &str,
    now: UnixMillis,
    until: UnixMillis,
    limit: Option<&LimitInfo>,
    reason: WaitReason,
) -> String {
    let wait = seconds_text(until.saturating_since(now));
    match reason {
        WaitReason::Quota => match limit {
            Some(_) => format!("{operation}: waiting {wait}{}", limit_clause(limit)),
            None => format!("{operation}: waiting {wait} for its rate limits"),
        },
        WaitReason::RetryAfter => format!(
            "{operation}: waiting {wait} as the server asked (Retry-After){}",
            limit_clause(limit)
        ),
        WaitReason::Backoff { attempt } => format!(
            "{operation}: waiting {wait} before attempt {attempt} (backoff after a failed attempt)"
        ),
        WaitReason::PollInterval => {
            format!("{operation}: waiting {wait} before polling the run again")
        }
    }
}

/// The sentence of a planned retry: attempt `failed` of `max_attempts`
/// ended with `status` or `failure`; the next goes at `at`.
pub(crate) fn retrying_message(
    operation: &str,
    failed: u32,
    max_attempts: u32,
    status: Option<u16>,
    failure: Option<TransportFailure>,
    now: UnixMillis,
    at: UnixMillis,
) -> String {
    let what = match (status, failure) {
        (Some(status), _) => format!("was answered with status {status}"),
        (None, Some(failure)) => failure.attempt_text().to_owned(),
        (None, None) => "failed".to_owned(),
    };
    format!(
        "{operation}: attempt {failed} of {max_attempts} {what}; attempt {} goes in {}",
        failed.saturating_add(1),
        seconds_text(at.saturating_since(now))
    )
}

/// The sentence of a deprecation notice, its dates written out.
pub(crate) fn deprecation_message(warning: &DeprecationWarning) -> String {
    let mut text = format!("operation {}", warning.operation_id);
    match warning.deprecated {
        Some(Deprecated::At { unix_seconds }) => {
            text.push_str(&format!(" is deprecated since {}", iso_date(unix_seconds)));
        }
        Some(Deprecated::Yes) => text.push_str(" is deprecated"),
        None => text.push_str(" is announced for removal"),
    }
    if let Some(sunset) = warning.sunset_at {
        let joint = if warning.deprecated.is_some() {
            " and"
        } else {
            ""
        };
        text.push_str(&format!(
            "{joint} stops working on {} (sunset)",
            iso_date(sunset)
        ));
    }
    if let Some(link) = &warning.deprecation_link {
        text.push_str(&format!("; see {link}"));
    }
    if let Some(link) = warning
        .sunset_link
        .as_ref()
        .filter(|link| warning.deprecation_link.as_ref() != Some(*link))
    {
        text.push_str(&format!("; sunset details: {link}"));
    }
    if !warning.malformed.is_empty() {
        text.push_str(&format!(
            "; part of the notice could not be read: {}",
            warning.malformed.join("; ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_durations_are_written_out() {
        assert_eq!(iso_date(0), "1970-01-01");
        // 2000-02-29 00:00:00 UTC = 951782400.
        assert_eq!(iso_date(951_782_400), "2000-02-29");
        // 2026-11-27 19:09:40 UTC = 1795806580.
        assert_eq!(iso_date(1_795_806_580), "2026-11-27");
        assert_eq!(seconds_text(1_000), "1.0 s");
        assert_eq!(seconds_text(1), "0.1 s");
        assert_eq!(seconds_text(0), "0.0 s");
        assert_eq!(seconds_text(61_250), "61.3 s");
    }

    #[test]
    fn a_quota_wait_says_whether_the_server_announced_the_limit() {
        let wait = |origin| {
            let limit = LimitInfo {
                name: "user_table_reads".into(),
                requests: 5,
                window_seconds: crate::time::Seconds::new(60),
                origin,
            };
            waiting_message(
                "listTableRecords",
                UnixMillis::new(1_000),
                UnixMillis::new(3_800),
                Some(&limit),
                WaitReason::Quota,
            )
        };
        assert_eq!(
            wait(LimitOrigin::Assumed),
            "listTableRecords: waiting 2.8 s for limit user_table_reads (5 per 60 s)"
        );
        assert_eq!(
            wait(LimitOrigin::ServerCount),
            "listTableRecords: waiting 2.8 s for limit user_table_reads \
             (5 per window, as the server announced)"
        );
        assert_eq!(
            wait(LimitOrigin::ServerWindow),
            "listTableRecords: waiting 2.8 s for limit user_table_reads \
             (5 per 60 s, as the server announced)"
        );
    }

    #[test]
    fn a_deprecation_names_its_dates() {
        let warning = DeprecationWarning {
            operation_id: "listTableRecords".into(),
            deprecated: Some(Deprecated::At {
                unix_seconds: 1_767_225_600,
            }),
            sunset_at: Some(1_782_864_000),
            deprecation_link: Some("https://docs.example/deprecations".into()),
            sunset_link: None,
            malformed: Vec::new(),
        };
        assert_eq!(
            deprecation_message(&warning),
            "operation listTableRecords is deprecated since 2026-01-01 and stops working on \
             2026-07-01 (sunset); see https://docs.example/deprecations"
        );
    }
}
