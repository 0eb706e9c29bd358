//! GCRA (the generic cell rate algorithm) as a pure transition on plain data.
//!
//! Smooth: a key may spend its whole burst (`requests`) at once, then earns
//! one request back every `window / requests` ms; there is no boundary where
//! two windows' worth pass back to back. The theoretical arrival time (TAT)
//! is kept exactly, as whole ms plus a fraction in units of `1/requests` ms,
//! so no rounding ever drifts and every number fits plain 64-bit integers.
//! The arithmetic is written out in the [module documentation of
//! `limit`](super).

use super::algorithm::{is_far_ahead, Algorithm, PackedState, Verdict};
use super::Quota;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// The GCRA algorithm: burst `requests`, refilled at `requests / window`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gcra;

/// A quota prepared for [`Gcra`]: the emission interval `T = window /
/// requests` as `q + r / requests` ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcraRule {
    /// Burst size and requests per window (`0` refuses everything).
    pub requests: u32,
    /// Window length in ms, never zero.
    pub window: u64,
    /// Whole ms of the emission interval: `window / requests`.
    pub interval_ms: u64,
    /// Remainder of the emission interval: `window % requests`, in units of
    /// `1/requests` ms.
    pub interval_frac: u64,
}

/// The state of one key: its theoretical arrival time `tat_ms + tat_frac /
/// requests`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcraState {
    /// Whole ms of the TAT (Unix ms).
    pub tat_ms: UnixMillis,
    /// Fraction of the TAT in units of `1/requests` ms (`< requests`).
    pub tat_frac: u32,
}

impl GcraState {
    /// `ceil(TAT)`: the instant the key is back to its full burst.
    pub const fn full_at(&self) -> UnixMillis {
        if self.tat_frac > 0 {
            self.tat_ms.saturating_add(1)
        } else {
            self.tat_ms
        }
    }
}

impl PackedState for GcraState {
    fn pack(self) -> (u64, u32) {
        (self.tat_ms.as_millis(), self.tat_frac)
    }

    fn unpack(time: u64, extra: u32) -> Self {
        Self {
            tat_ms: UnixMillis::new(time),
            tat_frac: extra,
        }
    }

    fn expires_at(&self) -> UnixMillis {
        self.full_at()
    }
}

/// [`is_far_ahead`] out of the hot path (a TAT at most one window ahead,
/// the usual case, never gets here).
#[cold]
fn is_far_ahead_cold(at: UnixMillis, now: UnixMillis, window: u64) -> bool {
    is_far_ahead(at, now, window)
}

impl Algorithm for Gcra {
    type State = GcraState;
    type Rule = GcraRule;

    fn rule(quota: Quota) -> GcraRule {
        let window = quota.window();
        let (interval_ms, interval_frac) =
            match std::num::NonZeroU64::new(u64::from(quota.requests)) {
                None => (window, 0),
                Some(n) => (window / n, window % n),
            };
        GcraRule {
            requests: quota.requests,
            window,
            interval_ms,
            interval_frac,
        }
    }

    fn quota(rule: &GcraRule) -> Quota {
        Quota {
            requests: rule.requests,
            window_ms: rule.window,
        }
    }

    #[inline]
    fn window(rule: &GcraRule) -> u64 {
        rule.window
    }

    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "bounds argued inline: n >= 1, fractions < n <= 2^32, x_ms >= now, ahead <= window"
    )]
    fn decide(rule: &GcraRule, state: GcraState, now: UnixMillis) -> (Verdict, GcraState) {
        let n = u64::from(rule.requests);
        if n == 0 {
            let at = now.saturating_add(rule.window);
            return (Verdict::refused(at, at), state);
        }
        // A fraction from another quota is clamped into range.
        let frac = u64::from(state.tat_frac).min(n - 1);
        // base = max(TAT, now); TAT >= now exactly when tat_ms >= now. A TAT
        // more than two windows ahead was written by a wrong clock reading:
        // discarded (base = now).
        let (base_ms, base_frac) = if state.tat_ms < now {
            (now, 0)
        } else if state.tat_ms.saturating_since(now) <= rule.window
            || !is_far_ahead_cold(state.tat_ms, now, rule.window)
        {
            (state.tat_ms, frac)
        } else {
            (now, 0)
        };
        // X = base + T, exactly.
        let mut x_frac = base_frac + rule.interval_frac;
        let mut carry = 0;
        if x_frac >= n {
            x_frac -= n;
            carry = 1;
        }
        let Some(x_ms) = base_ms
            .checked_add(rule.interval_ms)
            .and_then(|x| x.checked_add(carry))
        else {
            // The TAT would pass the end of time: nothing more is admitted.
            return (Verdict::refused(state.full_at(), UnixMillis::MAX), state);
        };
        // Admitted iff X - now <= window (x_ms >= base_ms >= now).
        let ahead = x_ms.saturating_since(now);
        if ahead < rule.window || (ahead == rule.window && x_frac == 0) {
            // Further requests that fit now: floor((now + w - X) / T).
            let slack = u128::from(rule.window - ahead) * u128::from(n) - u128::from(x_frac);
            let remaining = u32::try_from(slack / u128::from(rule.window)).unwrap_or(u32::MAX);
            let next = GcraState {
                tat_ms: x_ms,
                tat_frac: u32::try_from(x_frac).unwrap_or(u32::MAX),
            };
            let verdict = Verdict {
                admitted: true,
                remaining,
                reset_at: next.full_at(),
                retry_at: now,
            };
            (verdict, next)
        } else {
            // First t with X - t <= window: ceil(X - window).
            let retry_at = UnixMillis::new(x_ms.as_millis() - rule.window + u64::from(x_frac > 0));
            (Verdict::refused(state.full_at(), retry_at), state)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(quota: Quota, state: GcraState, now: u64) -> (Verdict, GcraState) {
        Gcra::decide(&Gcra::rule(quota), state, UnixMillis::new(now))
    }

    #[test]
    fn burst_then_one_per_interval() {
        let quota = Quota::per_seconds(3, 3); // T = 1000 ms, burst 3
        let mut state = GcraState::default();
        for expected in [2, 1, 0] {
            let (verdict, next) = decide(quota, state, 10_000);
            assert!(verdict.admitted);
            assert_eq!(verdict.remaining, expected);
            state = next;
        }
        assert_eq!(state.full_at(), UnixMillis::new(13_000));
        let (refused, same) = decide(quota, state, 10_000);
        assert_eq!(
            refused,
            Verdict::refused(UnixMillis::new(13_000), UnixMillis::new(11_000))
        );
        assert_eq!(same, state);
        assert!(!decide(quota, state, 10_999).0.admitted);
        let (again, _) = decide(quota, state, 11_000);
        assert!(again.admitted);
        assert_eq!(again.remaining, 0);
    }

    #[test]
    fn fractional_interval_is_exact() {
        let quota = Quota {
            requests: 3,
            window_ms: 1_000,
        }; // T = 333⅓ ms
        let mut state = GcraState::default();
        for _ in 0..3 {
            let (verdict, next) = decide(quota, state, 0);
            assert!(verdict.admitted);
            state = next;
        }
        assert_eq!(
            state,
            GcraState {
                tat_ms: UnixMillis::new(1_000),
                tat_frac: 0
            }
        );
        let (refused, _) = decide(quota, state, 0);
        assert_eq!(refused.retry_at, UnixMillis::new(334)); // ceil(333⅓)
        assert!(!decide(quota, state, 333).0.admitted);
        let (verdict, next) = decide(quota, state, 334);
        assert!(verdict.admitted);
        assert_eq!(
            next,
            GcraState {
                tat_ms: UnixMillis::new(1_333),
                tat_frac: 1
            }
        );
    }

    #[test]
    fn a_tat_more_than_two_windows_ahead_is_discarded() {
        let quota = Quota::per_seconds(3, 3); // T = 1000 ms, burst 3
        let stored = GcraState {
            tat_ms: UnixMillis::new(16_000),
            tat_frac: 0,
        };
        // At 10 000 the TAT is 6 s (two windows) ahead: kept, refused until
        // 16 000 + 1 000 - 3 000.
        let (kept, _) = decide(quota, stored, 10_000);
        assert_eq!(
            kept,
            Verdict::refused(UnixMillis::new(16_000), UnixMillis::new(14_000))
        );
        // At 9 999 it is more than two windows ahead: discarded, a full burst.
        let (fresh, next) = decide(quota, stored, 9_999);
        assert_eq!(
            fresh,
            Verdict {
                admitted: true,
                remaining: 2,
                reset_at: UnixMillis::new(10_999),
                retry_at: UnixMillis::new(9_999),
            }
        );
        assert_eq!(next.tat_ms, UnixMillis::new(10_999));
    }

    #[test]
    fn limit_zero_and_end_of_time() {
        let (verdict, _) = decide(Quota::per_seconds(0, 60), GcraState::default(), 5);
        let at = UnixMillis::new(60_005);
        assert_eq!(verdict, Verdict::refused(at, at));
        let quota = Quota {
            requests: u32::MAX,
            window_ms: u64::MAX,
        };
        let (first, state) = decide(quota, GcraState::default(), u64::MAX);
        assert!(!first.admitted || state.tat_ms == UnixMillis::MAX);
        let one = Quota {
            requests: 1,
            window_ms: 1,
        };
        let (verdict, state) = decide(one, GcraState::default(), u64::MAX - 1);
        assert!(verdict.admitted);
        assert!(!decide(one, state, u64::MAX).0.admitted);
    }
}
