//! A limit's size ([`Quota`]) and one limit applied to one request
//! ([`LimitCheck`]): plain facts both roles share. The client role models
//! the server's limits with them; the limiter (`crate::limit`) counts them.

use serde::{Deserialize, Serialize};

/// A limit's size: `requests` per `window_ms` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quota {
    /// Requests admitted per window. `0` refuses everything.
    pub requests: u32,
    /// Window length in milliseconds; `0` is treated as `1`.
    pub window_ms: u64,
}

impl Quota {
    /// `requests` per `seconds` seconds.
    pub const fn per_seconds(requests: u32, seconds: u64) -> Self {
        Self {
            requests,
            window_ms: seconds.saturating_mul(1_000),
        }
    }

    /// The window length, never zero.
    pub const fn window(&self) -> u64 {
        if self.window_ms == 0 {
            1
        } else {
            self.window_ms
        }
    }
}

/// One limit that applies to a request: which limit, how big, and whom it
/// counts (e.g. name `credential`, subject the credential's id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitCheck<'a> {
    /// The limit's name; state is kept per `(name, subject)`.
    pub name: &'a str,
    /// Its size.
    pub quota: Quota,
    /// Whom it counts: a credential id, a user, a client IP, an agent id.
    pub subject: &'a str,
}
