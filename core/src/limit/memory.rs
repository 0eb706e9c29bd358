//! The gate's in-process limiter: the keyed engine over `(limit, subject)`
//! keys, as a [`StateStore`] and therefore as a [`RateLimiter`].
//!
//! Limit names are interned to one-byte ids, so a key is one allocation of
//! `1 + subject.len()` bytes behind a 16-byte handle.

use super::algorithm::Algorithm;
use super::fixed_window::FixedWindow;
use super::key::{Interner, LimitKey, LimitKeyRef};
use super::keyed::{KeyedLimiter, LimiterConfig, StoreFull};
use super::stack::{acquire, StateStore, StoreKey};
use super::{LimitCheck, RateLimiter, StackDecision};
use crate::UnixMillis;

/// The in-memory limiter of the gate, fixed window by default.
///
/// ```
/// use acd_core::limit::{Gcra, InMemoryLimiter, LimitCheck, LimiterConfig, Quota, RateLimiter};
/// let limiter = InMemoryLimiter::<Gcra>::with_config(LimiterConfig::with_max_keys(10_000));
/// let check = LimitCheck { name: "credential", quota: Quota::per_seconds(100, 60), subject: "key-ada" };
/// assert!(limiter.acquire(&[check], 1_700_000_000_000).header_status().is_some());
/// ```
#[derive(Debug, Default)]
pub struct InMemoryLimiter<A: Algorithm = FixedWindow> {
    names: Interner,
    keys: KeyedLimiter<LimitKey, A>,
}

impl InMemoryLimiter {
    /// An empty fixed-window limiter with the default configuration.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<A: Algorithm> InMemoryLimiter<A> {
    /// An empty limiter with `config`.
    pub fn with_config(config: LimiterConfig) -> Self {
        Self {
            names: Interner::default(),
            keys: KeyedLimiter::new(config),
        }
    }

    /// The keyed table underneath.
    pub fn keys(&self) -> &KeyedLimiter<LimitKey, A> {
        &self.keys
    }

    /// The stored state of `subject` under the limit `name`, if any.
    pub fn state(&self, name: &str, subject: &str) -> Option<A::State> {
        let limit = self.names.intern(name)?;
        self.keys.state(&LimitKeyRef { limit, subject })
    }
}

impl<A: Algorithm> StateStore<A> for InMemoryLimiter<A> {
    fn transact(
        &self,
        keys: &[StoreKey<'_>],
        now: UnixMillis,
        step: &mut dyn FnMut(&mut [A::State], UnixMillis) -> bool,
    ) -> Result<(), StoreFull> {
        let mut refs = Vec::with_capacity(keys.len());
        for (index, key) in keys.iter().enumerate() {
            let Some(limit) = self.names.intern(key.limit) else {
                // More distinct limit names than ids: fail closed.
                return Err(StoreFull {
                    index,
                    retry_at: now.saturating_add(1),
                });
            };
            refs.push(LimitKeyRef {
                limit,
                subject: key.subject,
            });
        }
        let borrowed: Vec<&LimitKeyRef<'_>> = refs.iter().collect();
        self.keys.transact(&borrowed, now, step)
    }
}

impl<A: Algorithm> RateLimiter for InMemoryLimiter<A> {
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        acquire::<A, _>(self, checks, now)
    }
}
