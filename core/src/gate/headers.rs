//! Header rules of every response: content type, rate-limit state,
//! 429 extras, `WWW-Authenticate`, `Allow`, `Deprecation`/`Sunset`.

use crate::http_date::format_http_date;
use crate::limit::{LimitStatus, StackDecision};
use crate::model::operation::DeprecationNotice;
use crate::time::ceil_seconds;
use crate::UnixMillis;

/// Response headers under construction.
#[derive(Debug, Default)]
pub(crate) struct Headers(pub(crate) Vec<(String, String)>);

impl Headers {
    pub(crate) fn json() -> Self {
        Self(vec![("Content-Type".into(), "application/json".into())])
    }

    pub(crate) fn push(&mut self, name: &str, value: impl Into<String>) {
        self.0.push((name.to_owned(), value.into()));
    }

    /// `RateLimit-Limit/-Remaining/-Reset` of the tightest limit passed, and
    /// on a refusal also `Retry-After` and the legacy `x-ratelimit-*` trio.
    pub(crate) fn rate_limit(&mut self, decision: &StackDecision, now: UnixMillis) {
        if let Some(status) = decision.header_status() {
            self.standard_trio(&status, now);
        }
        if let StackDecision::Refused { refusing, retry_at } = decision {
            self.push(
                "Retry-After",
                ceil_seconds(retry_at.saturating_sub(now)).to_string(),
            );
            self.push("x-ratelimit-limit", refusing.limit.to_string());
            self.push("x-ratelimit-remaining", refusing.remaining.to_string());
            self.push(
                "x-ratelimit-reset",
                ceil_seconds(refusing.reset_at).to_string(),
            );
        }
    }

    fn standard_trio(&mut self, status: &LimitStatus, now: UnixMillis) {
        self.push("RateLimit-Limit", status.limit.to_string());
        self.push("RateLimit-Remaining", status.remaining.to_string());
        self.push(
            "RateLimit-Reset",
            ceil_seconds(status.reset_at.saturating_sub(now)).to_string(),
        );
    }

    /// RFC 6750 challenge; `error` is set when a credential was presented.
    pub(crate) fn challenge(&mut self, realm: &str, error: Option<&str>, scope: Option<&str>) {
        let mut value = format!("Bearer realm=\"{realm}\"");
        if let Some(error) = error {
            value.push_str(&format!(", error=\"{error}\""));
        }
        if let Some(scope) = scope {
            value.push_str(&format!(", scope=\"{scope}\""));
        }
        self.push("WWW-Authenticate", value);
    }

    /// RFC 9745 `Deprecation: @<seconds>` and RFC 8594 `Sunset: <HTTP-date>`.
    pub(crate) fn deprecation(&mut self, notice: Option<&DeprecationNotice>) {
        let Some(notice) = notice else { return };
        self.push("Deprecation", format!("@{}", notice.deprecated_at));
        if let Some(sunset) = notice.sunset_at.and_then(format_http_date) {
            self.push("Sunset", sunset);
        }
    }
}
