//! Header rules of every response: content type, rate-limit state,
//! 429 extras, `WWW-Authenticate`, `Allow`, `Deprecation`/`Sunset`.

use crate::http_date::format_http_date;
use crate::limit::{LimitStatus, StackDecision};
use crate::model::header_names::{
    CONTENT_TYPE, DEPRECATION, RATELIMIT_LIMIT, RATELIMIT_REMAINING, RATELIMIT_RESET, RETRY_AFTER,
    SUNSET, WWW_AUTHENTICATE, X_RATELIMIT_LIMIT, X_RATELIMIT_REMAINING, X_RATELIMIT_RESET,
};
use crate::model::operation::DeprecationNotice;
use crate::time::ceil_seconds;
use crate::UnixMillis;

/// Response headers under construction.
#[derive(Debug, Clone, Default)]
pub(crate) struct Headers(pub(crate) Vec<(String, String)>);

impl Headers {
    pub(crate) fn json() -> Self {
        Self(vec![(CONTENT_TYPE.into(), "application/json".into())])
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
                RETRY_AFTER,
                ceil_seconds(retry_at.saturating_since(now)).to_string(),
            );
            self.push(X_RATELIMIT_LIMIT, refusing.limit.to_string());
            self.push(X_RATELIMIT_REMAINING, refusing.remaining.to_string());
            self.push(
                X_RATELIMIT_RESET,
                refusing.reset_at.ceil_unix_seconds().to_string(),
            );
        }
    }

    fn standard_trio(&mut self, status: &LimitStatus, now: UnixMillis) {
        self.push(RATELIMIT_LIMIT, status.limit.to_string());
        self.push(RATELIMIT_REMAINING, status.remaining.to_string());
        self.push(
            RATELIMIT_RESET,
            ceil_seconds(status.reset_at.saturating_since(now)).to_string(),
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
        self.push(WWW_AUTHENTICATE, value);
    }

    /// RFC 9745 `Deprecation: @<seconds>` and RFC 8594 `Sunset: <HTTP-date>`.
    pub(crate) fn deprecation(&mut self, notice: Option<&DeprecationNotice>) {
        let Some(notice) = notice else { return };
        self.push(DEPRECATION, format!("@{}", notice.deprecated_at));
        if let Some(sunset) = notice.sunset_at.and_then(format_http_date) {
            self.push(SUNSET, sunset);
        }
    }
}
