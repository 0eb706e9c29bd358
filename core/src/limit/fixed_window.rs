//! The fixed-window algorithm as a pure transition on plain data.
//!
//! Windows are aligned to the Unix epoch (`[k·w, (k+1)·w)`), so every gate
//! instance and every store agrees on when a window resets, and
//! `RateLimit-Remaining`/`RateLimit-Reset` mean exactly what the spec says.

use super::Quota;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// The state of one key: the start of its window and the requests counted in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixedWindowState {
    /// Start of the window `count` belongs to (Unix ms).
    pub window_start: UnixMillis,
    /// Requests admitted in that window.
    pub count: u32,
}

/// What the transition says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowVerdict {
    /// Whether the request may pass.
    pub admitted: bool,
    /// Requests left in the window after this one (when admitted).
    pub remaining: u32,
    /// End of the current window.
    pub reset_at: UnixMillis,
    /// When refused: the first instant a request would be admitted.
    pub retry_at: UnixMillis,
}

impl FixedWindowState {
    /// Looks at a request at `now` without changing anything; returns the
    /// verdict and the state to store if the request is admitted.
    ///
    /// Time going backwards is treated as still inside the stored window, so
    /// it can never reset a window early.
    pub fn peek(self, quota: Quota, now: UnixMillis) -> (WindowVerdict, FixedWindowState) {
        let window = quota.window();
        let aligned = now - now % window;
        let (window_start, used) = if aligned > self.window_start {
            (aligned, 0)
        } else {
            (self.window_start, self.count)
        };
        let reset_at = window_start.saturating_add(window);
        let admitted = used < quota.requests;
        let verdict = WindowVerdict {
            admitted,
            remaining: if admitted {
                quota.requests - used - 1
            } else {
                0
            },
            reset_at,
            retry_at: if admitted { now } else { reset_at },
        };
        let next = FixedWindowState {
            window_start,
            count: if admitted { used + 1 } else { used },
        };
        (verdict, next)
    }

    /// Whether this state can be forgotten at `now` (its window is over).
    pub fn is_expired(&self, quota: Quota, now: UnixMillis) -> bool {
        self.window_start.saturating_add(quota.window()) <= now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_within_an_aligned_window_then_resets() {
        let quota = Quota::per_seconds(2, 60);
        let state = FixedWindowState::default();
        let (first, state) = state.peek(quota, 61_000);
        assert!(first.admitted);
        assert_eq!((first.remaining, first.reset_at), (1, 120_000));
        let (second, state) = state.peek(quota, 119_999);
        assert!(second.admitted);
        assert_eq!(second.remaining, 0);
        let (third, unchanged) = state.peek(quota, 119_999);
        assert!(!third.admitted);
        assert_eq!((third.retry_at, unchanged), (120_000, state));
        let (fourth, _) = state.peek(quota, 120_000);
        assert!(fourth.admitted);
        // time going backwards stays in the stored window
        let (back, _) = state.peek(quota, 1_000);
        assert!(!back.admitted);
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
                let (verdict, state) = FixedWindowState::default().peek(quota, now);
                assert_eq!(verdict.admitted, quota.requests > 0);
                let _ = state.peek(quota, now);
            }
        }
    }
}
