//! The one trait every rate-limit algorithm implements, and the verdict it
//! gives about one request.
//!
//! An algorithm is a pure transition on plain data: `(rule, state, now) ->
//! (verdict, next state)`. It never reads a clock and never allocates, so the
//! same arithmetic can run in process, in a Lua script next to the state, or
//! in a test with a virtual clock.

use super::Quota;
use crate::UnixMillis;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// What an algorithm says about one request against one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the request may pass (and was counted, if the caller stores
    /// the next state).
    pub admitted: bool,
    /// Requests that would still be admitted right now, after this one when
    /// admitted; `0` when refused.
    pub remaining: u32,
    /// When the key is fully replenished: the end of the fixed window, or
    /// the instant a GCRA key is back to its full burst.
    pub reset_at: UnixMillis,
    /// When refused: the first instant at which the same request would be
    /// admitted, provided nothing else is counted meanwhile. `now` when
    /// admitted.
    pub retry_at: UnixMillis,
}

impl Verdict {
    /// A refusal with nothing remaining.
    pub const fn refused(reset_at: UnixMillis, retry_at: UnixMillis) -> Self {
        Self {
            admitted: false,
            remaining: 0,
            reset_at,
            retry_at,
        }
    }
}

/// A per-key state packed into the two integers every store keeps:
/// a time (Unix ms) and a 32-bit companion.
///
/// Both built-in states have this shape, which is what lets the in-memory
/// table keep most states in 56 bits of one 8-byte word (a time relative to
/// the shard's epoch and a 23-bit companion) and lets an external store
/// keep two integers per key.
pub trait PackedState: Copy + Default + PartialEq + Debug + Send + Sync + 'static {
    /// The two integers `(time, extra)`.
    fn pack(self) -> (u64, u32);
    /// The state back from its two integers.
    fn unpack(time: u64, extra: u32) -> Self;
    /// From this instant on the state means the same as no state at all, so
    /// a store may forget it (see [`is_expired`]). `u64::MAX` means never.
    fn expires_at(&self) -> UnixMillis;
}

/// Whether a state that expires at `expires_at` may be forgotten at `now`.
///
/// A state expiring at the end of time (`u64::MAX`) is never forgotten:
/// at that instant time cannot move on, so forgetting it would re-admit.
pub const fn is_expired(expires_at: UnixMillis, now: UnixMillis) -> bool {
    expires_at.as_millis() <= now.as_millis() && expires_at.as_millis() != u64::MAX
}

/// Whether a stored instant `at` lies more than two windows after `now`.
///
/// A state written at `now` never reaches further than one window ahead (a
/// fixed window ends at most `window` after `now`, a GCRA theoretical
/// arrival time is at most `window` ahead), and one written by a clock at
/// most one window ahead of `now` never further than two. A state beyond
/// that was written by a clock reading more than one window ahead of the
/// present: the algorithms discard it (treat it as no state), so one wrong
/// reading refuses a key for at most one window, not for as long as the
/// error. `false` when `at <= now`.
#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    reason = "at - now - 1 is computed only when at > now"
)]
pub const fn is_far_ahead(at: UnixMillis, now: UnixMillis, window: u64) -> bool {
    // ahead > 2 * window, without overflow: (ahead - 1) / 2 >= window.
    let (at, now) = (at.as_millis(), now.as_millis());
    at > now && (at - now - 1) / 2 >= window
}

/// A rate-limit algorithm: a pure transition on a small plain-data state.
///
/// Implemented by zero-sized markers ([`super::FixedWindow`],
/// [`super::Gcra`]); every function is associated, nothing holds data.
pub trait Algorithm: Copy + Default + Debug + Send + Sync + 'static {
    /// The per-key state: plain data, serialisable, 16 bytes in memory.
    type State: PackedState + Serialize + DeserializeOwned;
    /// A [`Quota`] prepared for this algorithm (divisions done once).
    type Rule: Copy + Debug + PartialEq + Send + Sync + 'static;

    /// Prepares `quota` (a window of `0` ms counts as `1`).
    fn rule(quota: Quota) -> Self::Rule;

    /// The quota a rule was prepared from (window never zero).
    fn quota(rule: &Self::Rule) -> Quota;

    /// The rule's window in ms, never zero: how far back a clock may go
    /// before a store believes it (see [`is_far_ahead`]).
    #[inline]
    fn window(rule: &Self::Rule) -> u64 {
        Self::quota(rule).window()
    }

    /// The transition: what happens to a request at `now` against a key in
    /// `state`. Returns the verdict and the state to store if the request is
    /// admitted (the input state, unchanged, when refused).
    ///
    /// An admitted request's next state never expires before `state` does,
    /// unless `state` had already expired at `now` or lay [far
    /// ahead](is_far_ahead) of it (a wrong clock reading, discarded): stores
    /// rely on it to bound expiries without re-reading every entry, and
    /// lower their bound when their clock goes back.
    fn decide(rule: &Self::Rule, state: Self::State, now: UnixMillis) -> (Verdict, Self::State);
}
