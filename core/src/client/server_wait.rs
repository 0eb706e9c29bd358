//! The one rule for every wait that comes from a server: `Retry-After`
//! (seconds or HTTP-date, read against `Date`), `RateLimit-Reset`,
//! `x-ratelimit-reset`, the structured `t=` member, and window lengths a
//! server reports (`w=`, the index's `window_seconds`).
//!
//! A wait longer than the bound ([`super::RetryPolicy::max_retry_after_ms`],
//! 60 s by default) is never planned. The retry planner gives up at once,
//! naming the server's time ([`ServerWait::is_too_long`]); the throttle
//! keeps no block, window end or window length further ahead than the bound
//! ([`ServerWait::bounded`], [`bound_window_ms`]). So a misbehaving server
//! (a broken proxy, a clock that is wrong, a quota misconfigured) can hold a
//! client for at most the bound at a time.

use crate::UnixMillis;

/// A server-supplied instant, read at `now`, against the caller's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerWait {
    /// The instant the server named (caller's clock).
    pub until: UnixMillis,
    /// How long that is from `now` (0 for an instant in the past).
    pub wait_ms: u64,
    /// The longest wait the caller accepts.
    pub max_wait_ms: u64,
    now: UnixMillis,
}

impl ServerWait {
    /// `until`, as the server named it, read at `now` against `max_wait_ms`.
    pub fn new(until: UnixMillis, now: UnixMillis, max_wait_ms: u64) -> Self {
        Self {
            until,
            wait_ms: until.saturating_since(now),
            max_wait_ms,
            now,
        }
    }

    /// Whether the server asks for more than the caller accepts: such a wait
    /// is never planned.
    pub fn is_too_long(&self) -> bool {
        self.wait_ms > self.max_wait_ms
    }

    /// The instant a model may keep: the server's, but never later than
    /// `now + max_wait_ms`.
    pub fn bounded(&self) -> UnixMillis {
        self.until.min(self.now.saturating_add(self.max_wait_ms))
    }
}

/// A window length a server reported, kept no longer than `max_wait_ms`
/// (and at least 1 ms), so that a window the client opens itself never
/// plans a longer wait than the bound either.
pub fn bound_window_ms(window_ms: u64, max_wait_ms: u64) -> u64 {
    window_ms.min(max_wait_ms).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_beyond_the_bound_are_too_long_and_kept_at_the_bound() {
        let now = UnixMillis::new(1_000);
        let within = ServerWait::new(UnixMillis::new(61_000), now, 60_000);
        assert!(!within.is_too_long());
        assert_eq!(
            (within.wait_ms, within.bounded()),
            (60_000, UnixMillis::new(61_000))
        );
        let far = ServerWait::new(UnixMillis::new(u64::MAX), now, 60_000);
        assert!(far.is_too_long());
        assert_eq!(far.bounded(), UnixMillis::new(61_000));
        let past = ServerWait::new(UnixMillis::new(10), now, 60_000);
        assert_eq!((past.wait_ms, past.bounded()), (0, UnixMillis::new(10)));
        assert_eq!(bound_window_ms(86_400_000, 60_000), 60_000);
        assert_eq!(bound_window_ms(0, 60_000), 1);
    }
}
