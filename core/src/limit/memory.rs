//! The gate's in-process limiter: one keyed table per limit name, as a
//! [`StateStore`] and therefore as a [`RateLimiter`].
//!
//! Each limit name (interned to a one-byte id) has its own table of
//! `max_keys` subjects, so capacity is kept per limit: a flood of new
//! per-IP subjects can fill the `client_ip` table, never the credential
//! table. A stacked check locks the shards it needs across tables in one
//! global order, so it stays all-or-none.
//!
//! When a table has no room for a new subject, [`RateLimiter::try_acquire`]
//! says so ([`Unavailability::TableFull`]): the gate answers 503 with its
//! own detail, not a 429 blaming the limit. [`RateLimiter::acquire`], which
//! must decide, refuses that request instead.

use super::algorithm::Algorithm;
use super::fixed_window::FixedWindow;
use super::key::{Interner, MAX_LIMIT_NAMES};
use super::keyed::{transact_across, KeyedLimiter, LimiterConfig, LimiterConfigError, StoreFull};
use super::stack::{acquire, try_acquire, StateStore, StoreKey};
use super::{LimitCheck, LimiterUnavailable, RateLimiter, StackDecision, Unavailability};
use crate::UnixMillis;
use std::sync::OnceLock;

/// The table of one limit name: subjects to states.
pub type SubjectTable<A> = KeyedLimiter<Box<str>, A>;

/// The in-memory limiter of the gate, fixed window by default.
///
/// ```
/// use acd_core::limit::{Gcra, InMemoryLimiter, LimitCheck, LimiterConfig, Quota, RateLimiter};
/// let limiter = InMemoryLimiter::<Gcra>::with_config(LimiterConfig::with_max_keys(10_000));
/// let check = LimitCheck { name: "credential", quota: Quota::per_seconds(100, 60), subject: "key-ada" };
/// assert!(limiter.acquire(&[check], 1_700_000_000_000.into()).header_status().is_some());
/// ```
pub struct InMemoryLimiter<A: Algorithm = FixedWindow> {
    names: Interner,
    /// One table per limit id, made on first use.
    tables: Box<[OnceLock<SubjectTable<A>>]>,
    config: LimiterConfig,
}

impl<A: Algorithm> std::fmt::Debug for InMemoryLimiter<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryLimiter")
            .field("algorithm", &A::default())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<A: Algorithm> Default for InMemoryLimiter<A> {
    fn default() -> Self {
        Self::with_config(LimiterConfig::default())
    }
}

impl InMemoryLimiter {
    /// An empty fixed-window limiter with the default configuration.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<A: Algorithm> InMemoryLimiter<A> {
    /// An empty limiter with `config` (each limit name gets a table of
    /// `config.max_keys` subjects). An unchecked `config` is used as far as
    /// it can be (see [`KeyedLimiter::new`]); [`Self::try_with_config`]
    /// checks it first.
    pub fn with_config(config: LimiterConfig) -> Self {
        Self {
            names: Interner::default(),
            tables: (0..MAX_LIMIT_NAMES).map(|_| OnceLock::new()).collect(),
            config,
        }
    }

    /// An empty limiter after [checking](LimiterConfig::check) `config`.
    pub fn try_with_config(config: LimiterConfig) -> Result<Self, LimiterConfigError> {
        config.check()?;
        Ok(Self::with_config(config))
    }

    /// The configuration.
    pub fn config(&self) -> &LimiterConfig {
        &self.config
    }

    /// The table of the limit `name`, if it has been used.
    pub fn table(&self, name: &str) -> Option<&SubjectTable<A>> {
        let limit = self.names.intern(name)?;
        self.tables.get(usize::from(limit))?.get()
    }

    /// The stored state of `subject` under the limit `name`, if any.
    pub fn state(&self, name: &str, subject: &str) -> Option<A::State> {
        self.table(name)?.state(subject)
    }

    fn table_of(&self, name: &str) -> Option<&SubjectTable<A>> {
        let limit = self.names.intern(name)?;
        let slot = self.tables.get(usize::from(limit))?;
        Some(slot.get_or_init(|| KeyedLimiter::new(self.config)))
    }
}

impl<A: Algorithm> StateStore<A> for InMemoryLimiter<A> {
    fn transact(
        &self,
        keys: &[StoreKey<'_>],
        now: UnixMillis,
        step: &mut dyn FnMut(&mut [A::State], UnixMillis) -> bool,
    ) -> Result<(), StoreFull> {
        let mut parts = Vec::with_capacity(keys.len());
        let window = keys.iter().map(|key| key.window).min().unwrap_or(1);
        for (index, key) in keys.iter().enumerate() {
            let Some(table) = self.table_of(key.limit) else {
                // More distinct limit names than ids: fail closed.
                return Err(StoreFull {
                    index,
                    retry_at: now.saturating_add(1),
                });
            };
            parts.push((table, key.subject));
        }
        transact_across(&parts, window, now, step)
    }
}

impl<A: Algorithm> RateLimiter for InMemoryLimiter<A> {
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        acquire::<A, _>(self, checks, now)
    }

    fn try_acquire(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        try_acquire::<A, _>(self, checks, now).map_err(|full| LimiterUnavailable {
            retry_at: full.retry_at.max(now.saturating_add(1)),
            reason: Unavailability::TableFull { index: full.index },
        })
    }
}
