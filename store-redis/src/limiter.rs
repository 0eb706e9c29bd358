//! [`RedisLimiter`]: the gate's [`RateLimiter`] over Redis, blocking, with
//! a pool of connections, timeouts, reconnection with backoff and the fault
//! policy (shared with the async store).

use crate::config::RedisConfig;
use crate::error::StoreError;
use crate::event::{stderr_sink, EventSink};
use crate::keys::KeySpace;
use crate::policy::{unavailable_as_refusal, Attempt, ConfigError, Policy, StoreStats};
use crate::script::{Batch, Prepared};
use acd_core::limit::{LimitCheck, LimiterUnavailable, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use redis::{Client, Connection, ConnectionLike, Script, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

type Slot = Option<(u64, Connection)>;

/// A rate limiter whose per-key states live in Redis, shared by every gate
/// instance that uses the same Redis and namespace.
///
/// Each stacked decision is one `EVALSHA` of the algorithm's script ([`crate::script::stack_script`]):
/// atomic and all-or-none across the request's keys. Blocking: a call waits
/// for Redis at most `connect_timeout + io_timeout`, then the
/// [`FaultPolicy`](crate::FaultPolicy) answers. Async servers use
/// [`AsyncRedisLimiter`](crate::AsyncRedisLimiter) instead.
pub struct RedisLimiter {
    policy: Policy,
    client: Client,
    slots: Box<[Mutex<Slot>]>,
    next_slot: AtomicUsize,
    /// Held while a connection is checked and counts are merged.
    sync: Mutex<()>,
}

impl std::fmt::Debug for RedisLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimiter")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl RedisLimiter {
    /// A limiter for `config`, reporting to stderr. Does not connect yet:
    /// a gate may start while Redis is down (see [`RedisLimiter::ping`]).
    pub fn new(config: RedisConfig) -> Result<Self, ConfigError> {
        Self::with_events(config, stderr_sink())
    }

    /// A limiter for `config` reporting its events to `events`.
    pub fn with_events(config: RedisConfig, events: EventSink) -> Result<Self, ConfigError> {
        if config.cluster {
            return Err(ConfigError::Unsupported(
                "the blocking RedisLimiter talks to one Redis server; use AsyncRedisLimiter \
                 for a Redis Cluster",
            ));
        }
        let client = Client::open(config.url.as_str()).map_err(|e| Policy::bad_url(&config, &e))?;
        let policy = Policy::new(config, events)?;
        Ok(Self {
            slots: (0..policy.config.connections)
                .map(|_| Mutex::new(None))
                .collect(),
            next_slot: AtomicUsize::new(0),
            sync: Mutex::new(()),
            client,
            policy,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RedisConfig {
        &self.policy.config
    }

    /// How keys are named.
    pub fn key_space(&self) -> &KeySpace {
        &self.policy.space
    }

    /// The script every decision runs (e.g. for pipelining with
    /// [`Prepared::evalsha`]).
    pub fn script(&self) -> &Script {
        &self.policy.script
    }

    /// How requests were decided so far.
    pub fn stats(&self) -> StoreStats {
        self.policy.stats()
    }

    /// Whether the last attempts reached Redis.
    pub fn is_up(&self) -> bool {
        self.policy.is_up()
    }

    /// Connects and loads the script now (e.g. at start-up, to report a
    /// misconfigured URL early). Not needed otherwise.
    pub fn ping(&self) -> Result<(), StoreError> {
        let mut connection = self.connect()?;
        self.policy
            .script
            .load(&mut connection)
            .map_err(|e| StoreError::from_redis(&e, self.policy.io_timeout_ms()))?;
        Ok(())
    }

    /// The keys and arguments of the decision about `checks` at `now`.
    pub fn prepare(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<Prepared, StoreError> {
        self.policy.prepare(checks, now)
    }

    /// Decides through Redis only, without the fault policy: `Err` says why
    /// Redis could not decide (including [`StoreError::BackingOff`] while
    /// the store waits to reconnect). Nothing is charged on `Err`.
    pub fn decide(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, StoreError> {
        if checks.is_empty() {
            return Ok(StackDecision::Admitted { tightest: None });
        }
        let prepared = self.prepare(checks, now)?;
        let attempt = self.policy.permit()?;
        let batch = prepared.batch();
        let outcome = self
            .round_trip(&batch, attempt, now)
            .and_then(|reply| batch.outcomes(&reply))
            .and_then(|outcomes| match outcomes.first() {
                Some(outcome) => batch.decision(outcome, checks),
                None => Err(StoreError::Garbage(
                    "the decision reply is empty".to_owned(),
                )),
            });
        self.policy.record(attempt, &outcome);
        if let Ok(StackDecision::Admitted { .. }) = outcome {
            self.policy.counted(checks, now);
        }
        outcome
    }

    /// Makes Redis hold every count this instance knows of before it decides
    /// on `connection`: checks the namespace's epoch when `check_epoch` (a
    /// new connection, a probe) or never checked (a changed epoch: Redis
    /// lost what it had counted for this instance, which becomes pending),
    /// then merges every pending count at `now`.
    fn sync(
        &self,
        connection: &mut Connection,
        check_epoch: bool,
        now: UnixMillis,
    ) -> Result<(), StoreError> {
        let _marked = self.policy.syncing();
        let _one = self.sync.lock().unwrap_or_else(PoisonError::into_inner);
        let timeout = self.policy.io_timeout_ms();
        if check_epoch || self.policy.epoch_unknown() {
            let reply = self
                .policy
                .epoch_invocation()
                .invoke::<Value>(connection)
                .map_err(|e| StoreError::from_redis(&e, timeout))?;
            self.policy.epoch_seen(&reply)?;
        }
        let mut taken = self.policy.take_pending(now).into_iter();
        while let Some(merge) = taken.next() {
            let outcome = merge
                .merge
                .invocation(&self.policy.merge_script)
                .invoke::<Value>(connection);
            match outcome {
                Ok(_) => self.policy.merged(merge),
                Err(error) => {
                    self.policy.restore(merge);
                    taken.for_each(|rest| self.policy.restore(rest));
                    return Err(StoreError::from_redis(&error, timeout));
                }
            }
        }
        Ok(())
    }

    fn connect(&self) -> Result<Connection, StoreError> {
        let config = &self.policy.config;
        let io = config.io_timeout;
        let waited = config.connect_timeout.as_millis();
        let connect = |error: redis::RedisError| {
            StoreError::Connect(if error.is_timeout() {
                format!("no answer within {waited} ms")
            } else {
                error.to_string()
            })
        };
        let connection = self
            .client
            .get_connection_with_timeout(config.connect_timeout)
            .map_err(connect)?;
        connection.set_read_timeout(Some(io)).map_err(connect)?;
        connection.set_write_timeout(Some(io)).map_err(connect)?;
        Ok(connection)
    }

    /// A pooled connection slot: the first free one from a rotating start,
    /// else wait for the start one. `None` only without slots, which the
    /// constructor rules out.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "remainders by count.max(1); start and offset are below count"
    )]
    fn slot(&self) -> Option<MutexGuard<'_, Slot>> {
        let count = self.slots.len();
        let start = self.next_slot.fetch_add(1, Ordering::Relaxed) % count.max(1);
        for offset in 0..count {
            if let Some(Ok(guard)) = self
                .slots
                .get((start + offset) % count)
                .map(Mutex::try_lock)
            {
                return Some(guard);
            }
        }
        let slot = self.slots.get(start)?;
        Some(slot.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The decision's call on a pooled connection, after a sync when one is
    /// needed (a new connection, a probe, counts to merge).
    fn round_trip(
        &self,
        batch: &Batch,
        attempt: Attempt,
        now: UnixMillis,
    ) -> Result<Value, StoreError> {
        let timeout = self.policy.io_timeout_ms();
        let Some(mut slot) = self.slot() else {
            return Err(StoreError::Connect("no connection slots".to_owned()));
        };
        let generation = attempt.generation;
        if slot
            .as_ref()
            .is_some_and(|(g, connection)| *g != generation || !connection.is_open())
        {
            *slot = None;
        }
        let fresh = slot.is_none();
        let connection = match &mut *slot {
            Some((_, connection)) => connection,
            empty => &mut empty.insert((generation, self.connect()?)).1,
        };
        let result = if fresh || attempt.probe || self.policy.needs_sync() {
            self.sync(connection, fresh || attempt.probe, now)
        } else {
            Ok(())
        };
        let result = result.and_then(|()| {
            batch
                .invocation(&self.policy.script)
                .invoke::<Value>(connection)
                .map_err(|error| StoreError::from_redis(&error, timeout))
        });
        if let Err(error) = &result {
            if !error.is_bad_state() {
                // A late reply would be read as the next call's answer.
                *slot = None;
            }
        }
        result
    }
}

impl RateLimiter for RedisLimiter {
    /// As [`RateLimiter::try_acquire`], except that when the policy fails
    /// closed the "unavailable" answer becomes a refusal of the first limit
    /// until the next attempt (429): for callers that cannot answer 503.
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        unavailable_as_refusal(checks, self.try_acquire(checks, now))
    }

    fn try_acquire(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        match self.decide(checks, now) {
            Ok(decision) => Ok(decision),
            Err(error) => self.policy.on_failure(checks, now, error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::limit::LimiterConfig;
    use std::time::Duration;

    #[test]
    fn the_fallback_draws_its_hash_seed_from_the_os_and_an_explicit_one_is_kept() {
        let seed = |config: RedisConfig| {
            let limiter = RedisLimiter::new(config).unwrap();
            limiter.config().fallback.hash_seed
        };
        let (first, second) = (seed(RedisConfig::default()), seed(RedisConfig::default()));
        // Two draws of 64 random bits: equal (or 0) with probability 2^-64.
        assert_ne!(first, second);
        assert_ne!(first, 0);
        let mut explicit = RedisConfig::default();
        explicit.fallback.hash_seed = 7;
        assert_eq!(seed(explicit), 7);
        // The seed is secret: Debug does not show it.
        let mut config = RedisConfig::default();
        config.fallback.hash_seed = 0x0123_4567_89ab_cdef;
        let shown = format!("{config:?}");
        assert!(shown.contains("max_keys: 65536"), "{shown}");
        assert!(!shown.contains("hash_seed"), "{shown}");
        assert!(
            !shown.contains(&0x0123_4567_89ab_cdef_u64.to_string()),
            "{shown}"
        );
    }

    #[test]
    fn the_time_domain_and_the_fallback_are_checked_when_built() {
        let config = |f: fn(&mut RedisConfig)| {
            let mut config = RedisConfig::default();
            f(&mut config);
            RedisLimiter::new(config)
        };
        assert!(config(|_| {}).is_ok());
        let grace = config(|c| c.ttl_grace = Duration::from_millis((1 << 51) + 1));
        let Err(error) = grace else {
            panic!("a grace past 2^51 ms was accepted");
        };
        assert!(matches!(
            error,
            ConfigError::OutOfDomain {
                name: "ttl_grace",
                ..
            }
        ));
        assert!(error.to_string().contains("ttl_grace"));
        let fallback = config(|c| c.fallback = LimiterConfig::with_max_keys(0));
        assert!(matches!(fallback, Err(ConfigError::Fallback(_))));
        assert!(matches!(
            config(|c| c.max_batch = 0),
            Err(ConfigError::Zero("max_batch"))
        ));
        assert!(config(|c| c.max_batch = 1024).is_ok());
        let Err(error) = config(|c| c.max_batch = 1025) else {
            panic!("a batch past 1024 was accepted");
        };
        assert_eq!(
            error.to_string(),
            "max_batch of 1025 is above 1024, the most decisions one script call can carry"
        );
        assert!(matches!(
            config(|c| c.cluster = true),
            Err(ConfigError::Unsupported(_))
        ));
    }
}
