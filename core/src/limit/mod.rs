//! Rate-limit bookkeeping behind one seam, [`RateLimiter`].
//!
//! The gate asks one question per request: "may this request pass every
//! limit that applies to it, at `now`?". The answer is all-or-none: when any
//! limit refuses, nothing is consumed anywhere; otherwise every limit is
//! charged once. The answer also carries what the response headers need: the
//! tightest limit the request passed (least remaining; tie → the one that
//! resets last) or the refusing limit and the instant it admits again.
//!
//! * The [`Algorithm`] trait; [`FixedWindow`] (the default) and [`Gcra`]
//!   implement it as pure transitions on 16-byte states.
//! * The all-or-none rule, written once ([`decide_stack`]), and the
//!   [`StateStore`] seam where per-key state lives.
//! * The in-process engine, a sharded bounded table ([`KeyedLimiter`]), and
//!   the gate's limiter on top of it ([`InMemoryLimiter`]).
//!
//! Every type lives at one path, `acd_core::limit::Name`; the files behind
//! them are private.
//!
//! # The arithmetic, exactly (for stores that mirror it, e.g. in Lua)
//!
//! All values are unsigned integers; `n` is the quota's requests, `w` its
//! window in ms (`0` counts as `1`), `now` Unix ms. A key with no state has
//! state `(0, 0)`. A store may forget a state once `expires_at <= now`
//! (never when `expires_at` is `u64::MAX`).
//!
//! **Fixed window**, state `(reset_at, count)`, `expires_at = reset_at`:
//!
//! ```text
//! if n == 0: refuse; reset_at = retry_at = now - now % w + w; state unchanged
//! if now < reset_at and reset_at - now > 2w:                    -- written by a wrong clock
//!       (end, used) = (now - now % w + w, 0)
//! elif now < reset_at:  (end, used) = (reset_at, count)        -- also time going backwards
//! else: e = now - now % w + w (saturating)
//!       (end, used) = e > reset_at ? (e, 0) : (reset_at, count)  -- the latter only at u64::MAX
//! if used < n: admit; state = (end, used + 1); remaining = n - used - 1; reset = end
//! else:        refuse; retry_at = end; remaining = 0; state unchanged
//! ```
//!
//! **GCRA**, state `(tat_ms, tat_frac)` meaning TAT = `tat_ms + tat_frac/n`,
//! `expires_at = tat_ms + (tat_frac > 0)`; emission interval `T = w/n` kept
//! as `q = w / n`, `r = w % n`:
//!
//! ```text
//! if n == 0: refuse; reset_at = retry_at = now + w; state unchanged
//! f = min(tat_frac, n - 1)
//! if tat_ms > now + 2w: (tat_ms, f) = (0, 0)                     -- written by a wrong clock
//! (b_ms, b_frac) = tat_ms >= now ? (tat_ms, f) : (now, 0)        -- max(TAT, now)
//! x_frac = b_frac + r; x_ms = b_ms + q; if x_frac >= n: x_frac -= n; x_ms += 1
//! if x_ms overflows u64: refuse; retry_at = u64::MAX
//! d = x_ms - now
//! if d < w or (d == w and x_frac == 0):                        -- X - now <= w
//!     admit; state = (x_ms, x_frac)
//!     remaining = ((w - d) * n - x_frac) / w   (128-bit product); reset = x_ms + (x_frac > 0)
//! else:
//!     refuse; retry_at = x_ms - w + (x_frac > 0); reset = tat_ms + (tat_frac > 0)
//! ```
//!
//! (`2w` saturates at `u64::MAX`.) A state written at `now` reaches at most
//! one window past it, and one written by a clock at most one window ahead
//! at most two: a state reaching further was written by a clock more than
//! one window ahead of the present, and is discarded ([`is_far_ahead`]).
//! So one wrong reading (a clock a day ahead, then set right) refuses a key
//! for at most one window more, while time going backwards by at most one
//! window (clock skew between instances, a reordered request) still counts
//! into the stored window and never admits twice.
//!
//! Every product above except `remaining`'s fits 64 bits; a Lua mirror on
//! doubles is exact while times stay below 2^53 ms (year 287 396).
//!
//! # Limit 0 and Retry-After
//!
//! A limit of `0` never admits and stores nothing. Its `retry_at` (hence
//! `Retry-After` and `RateLimit-Reset`) is the next window boundary (fixed
//! window) or one window away (GCRA): the earliest a changed configuration
//! could take effect, not a promise of admission. For every limit `>= 1` the
//! retry time is exact: a retry at `retry_at` is admitted if nothing else
//! was counted meanwhile, one ms earlier is not (away from `u64::MAX`).

#![deny(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

pub(crate) mod algorithm;
pub(crate) mod config;
pub(crate) mod fixed_window;
pub(crate) mod gcra;
pub(crate) mod key;
pub(crate) mod keyed;
pub(crate) mod memory;
pub(crate) mod stack;
mod sync;
mod table;
#[cfg(test)]
mod table_model;

pub use algorithm::{is_expired, is_far_ahead, Algorithm, PackedState, Verdict};
pub use config::{LimiterConfig, LimiterConfigError, WhenFull, MAX_SHARDS};
pub use fixed_window::{aligned_end, FixedWindow, FixedWindowRule, FixedWindowState};
pub use gcra::{Gcra, GcraRule, GcraState};
pub use key::{Interner, KeyRef, LimitKey, LimitKeyRef, MAX_LIMIT_NAMES};
pub use keyed::{KeyedLimiter, StoreFull};
pub use memory::{InMemoryLimiter, SubjectTable};
pub use stack::{acquire, decide_stack, same_keys, try_acquire, StateStore, StoreKey};

/// The quota and the check live in [`crate::model`] (the client role uses
/// them without the limiter); re-exported here where they always were.
pub use crate::model::{LimitCheck, Quota};
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

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
        crate::model::limits::tightness(self.remaining, self.reset_at)
            < crate::model::limits::tightness(other.remaining, other.reset_at)
    }
}

/// The answer to one stacked check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
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

/// A limiter could not decide, and the gate answers `503 Service
/// Unavailable` with `Retry-After` instead of guessing: an external store is
/// down, slow or answering nonsense and its policy is to fail closed, or
/// the in-process table has no room for a new subject. Nothing was charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimiterUnavailable {
    /// When the limiter expects to be able to decide again (the gate sends
    /// `Retry-After` up to it, at least one second).
    pub retry_at: UnixMillis,
    /// Why it could not decide.
    #[serde(default)]
    pub reason: Unavailability,
}

impl LimiterUnavailable {
    /// The limit store cannot be reached (the fail-closed policy).
    pub const fn store_down(retry_at: UnixMillis) -> Self {
        Self {
            retry_at,
            reason: Unavailability::StoreDown,
        }
    }
}

/// Why a limiter could not decide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Unavailability {
    /// The external limit store is unavailable.
    #[default]
    StoreDown,
    /// The table of one limit is full of live subjects and cannot track a
    /// new one: `index` is the check (in the request's stack) whose subject
    /// found no room. Other limits keep their own room.
    TableFull {
        /// Index of the check whose new subject found no room.
        index: usize,
    },
}

/// The seam between the gate and a rate-limit engine.
///
/// Implementations must be all-or-none (see the module documentation) and
/// must never read a clock: `now` is the only time there is.
pub trait RateLimiter: Send + Sync {
    /// Checks every limit in `checks` and charges all of them or none.
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision;

    /// What the gate calls: like [`acquire`](Self::acquire), but a limiter
    /// whose store cannot answer may say so instead of deciding, and the
    /// gate then answers 503. The default (every in-process limiter) always
    /// decides.
    fn try_acquire(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        Ok(self.acquire(checks, now))
    }
}

/// Which algorithm a limiter runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitAlgorithm {
    /// Aligned fixed windows (the default): headers mean exactly what the
    /// spec says.
    #[default]
    FixedWindow,
    /// GCRA: the same quotas, spread smoothly, no boundary bursts.
    Gcra,
}

/// An in-memory limiter running `algorithm` with `config`, ready for the gate.
pub fn in_memory(
    algorithm: LimitAlgorithm,
    config: LimiterConfig,
) -> std::sync::Arc<dyn RateLimiter> {
    match algorithm {
        LimitAlgorithm::FixedWindow => {
            std::sync::Arc::new(InMemoryLimiter::<FixedWindow>::with_config(config))
        }
        LimitAlgorithm::Gcra => std::sync::Arc::new(InMemoryLimiter::<Gcra>::with_config(config)),
    }
}
