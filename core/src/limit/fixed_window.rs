//! The fixed-window algorithm (the default) as a pure transition on plain data.
//!
//! Windows are aligned to the Unix epoch (`[k·w, (k+1)·w)`), so every gate
//! instance and every store agrees on when a window resets, and
//! `RateLimit-Remaining`/`RateLimit-Reset` mean exactly what the spec says.
//! The state stores the window's *end*, so it tells by itself when it can be
//! forgotten. The arithmetic is written out in the [module documentation of
//! `limit`](super).

use super::algorithm::{is_far_ahead, Algorithm, PackedState, Verdict};
use super::Quota;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// The fixed-window algorithm: at most `requests` per aligned window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FixedWindow;

/// A quota prepared for [`FixedWindow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedWindowRule {
    /// Requests per window (`0` refuses everything).
    pub requests: u32,
    /// Window length in ms, never zero.
    pub window: u64,
}

/// The state of one key: the end of its window and the requests counted in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixedWindowState {
    /// End of the window `count` belongs to (Unix ms, exclusive).
    pub reset_at: UnixMillis,
    /// Requests admitted in that window.
    pub count: u32,
}

/// The end of the aligned window containing `now` (saturating at the end
/// of time); a `window` of `0` counts as `1`.
pub const fn aligned_end(now: UnixMillis, window: u64) -> UnixMillis {
    let window = if window == 0 { 1 } else { window };
    let into = match now.as_millis().checked_rem(window) {
        Some(into) => into,
        None => 0,
    };
    now.saturating_sub(into).saturating_add(window)
}

impl PackedState for FixedWindowState {
    fn pack(self) -> (u64, u32) {
        (self.reset_at.as_millis(), self.count)
    }

    fn unpack(time: u64, extra: u32) -> Self {
        Self {
            reset_at: UnixMillis::new(time),
            count: extra,
        }
    }

    fn expires_at(&self) -> UnixMillis {
        self.reset_at
    }
}

/// A stored window that ends more than one window after `now`: the next
/// window (time went back, kept) or one written by a wrong clock reading
/// (discarded). Out of the hot path.
#[cold]
fn ahead_of_now(
    rule: &FixedWindowRule,
    state: FixedWindowState,
    now: UnixMillis,
) -> (UnixMillis, u32) {
    if is_far_ahead(state.reset_at, now, rule.window) {
        (aligned_end(now, rule.window), 0)
    } else {
        (state.reset_at, state.count)
    }
}

impl Algorithm for FixedWindow {
    type State = FixedWindowState;
    type Rule = FixedWindowRule;

    fn rule(quota: Quota) -> FixedWindowRule {
        FixedWindowRule {
            requests: quota.requests,
            window: quota.window(),
        }
    }

    fn quota(rule: &FixedWindowRule) -> Quota {
        Quota {
            requests: rule.requests,
            window_ms: rule.window,
        }
    }

    #[inline]
    fn window(rule: &FixedWindowRule) -> u64 {
        rule.window
    }

    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "used < requests <= u32::MAX here, so used + 1 and requests - used - 1 fit"
    )]
    fn decide(
        rule: &FixedWindowRule,
        state: FixedWindowState,
        now: UnixMillis,
    ) -> (Verdict, FixedWindowState) {
        if rule.requests == 0 {
            let end = aligned_end(now, rule.window);
            return (Verdict::refused(end, end), state);
        }
        // Time going backwards (now < reset_at) stays in the stored window:
        // a window never reopens early. A window more than one window ahead
        // was written by a wrong clock reading: discarded.
        let (reset_at, used) = if now < state.reset_at {
            if state.reset_at.saturating_since(now) <= rule.window {
                // The window `now` is in (the hot path: one compare).
                (state.reset_at, state.count)
            } else {
                ahead_of_now(rule, state, now)
            }
        } else {
            let end = aligned_end(now, rule.window);
            if end > state.reset_at {
                (end, 0)
            } else {
                // Only at the end of time, where the window cannot move on.
                (state.reset_at, state.count)
            }
        };
        if used < rule.requests {
            let verdict = Verdict {
                admitted: true,
                remaining: rule.requests - used - 1,
                reset_at,
                retry_at: now,
            };
            let next = FixedWindowState {
                reset_at,
                count: used + 1,
            };
            (verdict, next)
        } else {
            (Verdict::refused(reset_at, reset_at), state)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peek(quota: Quota, state: FixedWindowState, now: u64) -> (Verdict, FixedWindowState) {
        FixedWindow::decide(&FixedWindow::rule(quota), state, UnixMillis::new(now))
    }

    #[test]
    fn counts_within_an_aligned_window_then_resets() {
        let quota = Quota::per_seconds(2, 60);
        let state = FixedWindowState::default();
        let (first, state) = peek(quota, state, 61_000);
        assert!(first.admitted);
        assert_eq!(
            (first.remaining, first.reset_at),
            (1, UnixMillis::new(120_000))
        );
        let (second, state) = peek(quota, state, 119_999);
        assert!(second.admitted);
        assert_eq!(second.remaining, 0);
        let (third, unchanged) = peek(quota, state, 119_999);
        assert!(!third.admitted);
        assert_eq!(
            (third.retry_at, unchanged),
            (UnixMillis::new(120_000), state)
        );
        let (fourth, _) = peek(quota, state, 120_000);
        assert!(fourth.admitted);
        // time going backwards stays in the stored window
        let (back, _) = peek(quota, state, 1_000);
        assert!(!back.admitted);
    }

    #[test]
    fn a_window_more_than_one_window_ahead_is_discarded() {
        let quota = Quota::per_seconds(2, 60);
        // Two requests counted in the window ending at 180 000 (a clock
        // reading at 125 000 or later).
        let stored = FixedWindowState {
            reset_at: UnixMillis::new(180_000),
            count: 2,
        };
        // From 60 000 on, that window is at most one window ahead: kept.
        let (kept, _) = peek(quota, stored, 60_000);
        assert_eq!(
            kept,
            Verdict::refused(UnixMillis::new(180_000), UnixMillis::new(180_000))
        );
        // At 59 999 it ends more than two windows later: discarded, and the
        // request counts as the first of the window ending at 60 000.
        let (fresh, next) = peek(quota, stored, 59_999);
        assert_eq!(
            fresh,
            Verdict {
                admitted: true,
                remaining: 1,
                reset_at: UnixMillis::new(60_000),
                retry_at: UnixMillis::new(59_999),
            }
        );
        assert_eq!(
            next,
            FixedWindowState {
                reset_at: UnixMillis::new(60_000),
                count: 1
            }
        );
    }

    #[test]
    fn limit_zero_refuses_until_the_next_boundary() {
        let quota = Quota::per_seconds(0, 60);
        let (verdict, state) = peek(quota, FixedWindowState::default(), 61_000);
        let end = UnixMillis::new(120_000);
        assert_eq!(verdict, Verdict::refused(end, end));
        assert_eq!(state, FixedWindowState::default());
    }

    #[test]
    fn end_of_time_never_reopens() {
        let quota = Quota {
            requests: 1,
            window_ms: 1,
        };
        let (first, state) = peek(quota, FixedWindowState::default(), u64::MAX);
        assert!(first.admitted);
        let (second, _) = peek(quota, state, u64::MAX);
        assert!(!second.admitted);
        assert_eq!(state.expires_at(), UnixMillis::MAX);
    }

    #[test]
    fn extremes_never_panic() {
        for quota in [
            Quota {
                requests: 0,
                window_ms: 0,
            },
            Quota {
                requests: u32::MAX,
                window_ms: u64::MAX,
            },
        ] {
            for now in [0, 1, u64::MAX - 1, u64::MAX] {
                let (verdict, state) = peek(quota, FixedWindowState::default(), now);
                assert_eq!(verdict.admitted, quota.requests > 0);
                let _ = peek(quota, state, now);
            }
        }
    }
}
