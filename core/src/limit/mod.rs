//! Rate-limit bookkeeping behind one seam, [`RateLimiter`].
//!
//! The gate asks one question per request: "may this request pass every
//! limit that applies to it, at `now`?". The answer is all-or-none: when any
//! limit refuses, nothing is consumed anywhere; otherwise every limit is
//! charged once. The answer also carries what the response headers need: the
//! tightest limit the request passed (least remaining; tie → the one that
//! resets last) or the refusing limit and the instant it admits again.
//!
//! * [`fixed_window`]: the pure fixed-window transition (the default).
//! * [`memory`]: the in-process keyed store.

pub mod fixed_window;
pub mod memory;

pub use fixed_window::FixedWindowState;
pub use memory::InMemoryLimiter;

use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// A limit's size: `requests` per `window_ms` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// The state of one limit for one subject, as response headers show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitStatus {
    /// Index of the limit in the checks the decision was asked about.
    pub index: usize,
    /// Requests allowed per window (`RateLimit-Limit`).
    pub limit: u32,
    /// Requests left in the current window, after this request if admitted
    /// (`RateLimit-Remaining`).
    pub remaining: u32,
    /// Instant the current window ends (`RateLimit-Reset` is the delta to it).
    pub reset_at: UnixMillis,
}

impl LimitStatus {
    /// Whether `self` is tighter than `other` for headers: fewer remaining,
    /// or as many and resetting later.
    pub fn is_tighter_than(&self, other: &LimitStatus) -> bool {
        (self.remaining, std::cmp::Reverse(self.reset_at))
            < (other.remaining, std::cmp::Reverse(other.reset_at))
    }
}

/// The answer to one stacked check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum StackDecision {
    /// Every limit admitted the request and each was charged once.
    Admitted {
        /// The tightest limit passed; `None` when no limit applied.
        tightest: Option<LimitStatus>,
    },
    /// At least one limit refused; nothing was charged.
    Refused {
        /// The refusing limit that admits again last.
        refusing: LimitStatus,
        /// The earliest instant at which that limit would admit the request.
        retry_at: UnixMillis,
    },
}

impl StackDecision {
    /// The status that goes into `RateLimit-*` headers.
    pub fn header_status(&self) -> Option<LimitStatus> {
        match self {
            StackDecision::Admitted { tightest } => *tightest,
            StackDecision::Refused { refusing, .. } => Some(*refusing),
        }
    }
}

/// The seam between the gate and a rate-limit engine.
///
/// Implementations must be all-or-none (see the module documentation) and
/// must never read a clock: `now` is the only time there is.
pub trait RateLimiter: Send + Sync {
    /// Checks every limit in `checks` and charges all of them or none.
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision;
}
