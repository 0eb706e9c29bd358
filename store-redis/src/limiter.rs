//! [`RedisLimiter`]: the gate's [`RateLimiter`] over Redis, with a pool of
//! connections, timeouts, reconnection with backoff and the fault policy.

use crate::config::{FaultPolicy, RedisConfig};
use crate::error::StoreError;
use crate::event::{stderr_sink, EventSink, StoreEvent};
use crate::health::{Health, Permit};
use crate::keys::{KeySpace, NamespaceError};
use crate::script::{parse_reply, stack_script, Prepared};
use acd_core::limit::{
    in_memory, LimitCheck, LimitStatus, LimiterUnavailable, RateLimiter, StackDecision,
};
use acd_core::UnixMillis;
use redis::{Client, Connection, ConnectionLike, Script, Value};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Why a [`RedisLimiter`] cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The URL does not parse.
    #[error("the Redis URL {url} is not valid: {reason}")]
    Url {
        /// The URL, without credentials.
        url: String,
        /// Why.
        reason: String,
    },
    /// The namespace cannot be a hash tag.
    #[error(transparent)]
    Namespace(#[from] NamespaceError),
    /// A size or duration that must be positive is zero.
    #[error("{0} must be greater than zero")]
    Zero(&'static str),
    /// A duration past the script's exact range (2^51 ms).
    #[error("{name} of {ms} ms is past the Redis store's exact range (2^51 ms); use less")]
    OutOfDomain {
        /// The setting.
        name: &'static str,
        /// Its value in ms.
        ms: u128,
    },
    /// The in-memory fallback's configuration cannot work.
    #[error("the fallback limiter: {0}")]
    Fallback(#[from] acd_core::limit::LimiterConfigError),
}

/// Counters of how requests were decided (for tests and metrics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Decided by the script on Redis.
    pub redis: u64,
    /// Decided by the in-memory fallback (fail open).
    pub fallback: u64,
    /// Answered "unavailable" (fail closed).
    pub unavailable: u64,
    /// Attempts that failed for a reason concerning the server.
    pub outages: u64,
}

#[derive(Default)]
struct Counters {
    redis: AtomicU64,
    fallback: AtomicU64,
    unavailable: AtomicU64,
    outages: AtomicU64,
    suppressed: AtomicU64,
}

type Slot = Option<(u64, Connection)>;

/// A rate limiter whose per-key states live in Redis, shared by every gate
/// instance that uses the same Redis and namespace.
///
/// Each stacked decision is one `EVALSHA` of [`crate::script::STACK_LUA`]:
/// atomic and all-or-none across the request's keys. Blocking: a call waits
/// for Redis at most `connect_timeout + io_timeout`, then the
/// [`FaultPolicy`] answers.
pub struct RedisLimiter {
    config: RedisConfig,
    endpoint: String,
    client: Client,
    script: Script,
    space: KeySpace,
    slots: Box<[Mutex<Slot>]>,
    next_slot: AtomicUsize,
    health: Health,
    fallback: Arc<dyn RateLimiter>,
    events: EventSink,
    counters: Counters,
    last_report: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for RedisLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimiter")
            .field("config", &self.config)
            .field("up", &self.health.is_up())
            .field("stats", &self.stats())
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
        let endpoint = config.endpoint();
        let client = Client::open(config.url.as_str()).map_err(|error| ConfigError::Url {
            url: endpoint.clone(),
            reason: error.to_string(),
        })?;
        for (value, name) in [
            (config.connect_timeout, "connect_timeout"),
            (config.io_timeout, "io_timeout"),
            (config.backoff_min, "backoff_min"),
        ] {
            if value.is_zero() {
                return Err(ConfigError::Zero(name));
            }
        }
        if config.connections == 0 {
            return Err(ConfigError::Zero("connections"));
        }
        // The time domain of the script, checked once here: the grace added
        // to every expiry must stay exact (times and windows arrive per
        // request and are checked where they arrive).
        let grace = config.ttl_grace.as_millis();
        if grace > u128::from(crate::script::MAX_EXACT_MS) {
            return Err(ConfigError::OutOfDomain {
                name: "ttl_grace",
                ms: grace,
            });
        }
        config.fallback.check()?;
        let space = KeySpace::new(&config.namespace, config.algorithm)?;
        Ok(Self {
            endpoint,
            client,
            script: stack_script(),
            space,
            slots: (0..config.connections).map(|_| Mutex::new(None)).collect(),
            next_slot: AtomicUsize::new(0),
            health: Health::new(config.backoff_min, config.backoff_max),
            fallback: in_memory(config.algorithm, config.fallback),
            events,
            counters: Counters::default(),
            last_report: Mutex::new(None),
            config,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RedisConfig {
        &self.config
    }

    /// How keys are named.
    pub fn key_space(&self) -> &KeySpace {
        &self.space
    }

    /// The script every decision runs (e.g. for pipelining with
    /// [`Prepared::evalsha`]).
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// How requests were decided so far.
    pub fn stats(&self) -> StoreStats {
        let c = &self.counters;
        StoreStats {
            redis: c.redis.load(Ordering::Relaxed),
            fallback: c.fallback.load(Ordering::Relaxed),
            unavailable: c.unavailable.load(Ordering::Relaxed),
            outages: c.outages.load(Ordering::Relaxed),
        }
    }

    /// Whether the last attempts reached Redis.
    pub fn is_up(&self) -> bool {
        self.health.is_up()
    }

    /// Connects and loads the script now (e.g. at start-up, to report a
    /// misconfigured URL early). Not needed otherwise.
    pub fn ping(&self) -> Result<(), StoreError> {
        let timeout = u64::try_from(self.config.io_timeout.as_millis()).unwrap_or(u64::MAX);
        let mut connection = self.connect()?;
        self.script
            .load(&mut connection)
            .map_err(|e| StoreError::from_redis(&e, timeout))?;
        Ok(())
    }

    /// The keys and arguments of the decision about `checks` at `now`.
    pub fn prepare(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<Prepared, StoreError> {
        let grace = u64::try_from(self.config.ttl_grace.as_millis()).unwrap_or(u64::MAX);
        Prepared::new(&self.space, self.config.algorithm, checks, now, grace)
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
        let (probe, generation) = match self.health.permit(Instant::now()) {
            Permit::Go { probe, generation } => (probe, generation),
            Permit::Wait(wait) => {
                return Err(StoreError::BackingOff(
                    u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                ))
            }
        };
        let outcome = self
            .round_trip(&prepared, generation)
            .and_then(|reply| parse_reply(&reply, checks));
        let at = Instant::now();
        match &outcome {
            Err(error) if error.is_outage() => {
                self.counters.outages.fetch_add(1, Ordering::Relaxed);
                if let Some(failure) = self.health.failed(at, probe) {
                    (self.events)(&StoreEvent::Unavailable {
                        endpoint: self.endpoint.clone(),
                        error: error.clone(),
                        policy: self.config.fault_policy,
                        failures: failure.failures,
                        retry_in: failure.retry_in,
                    });
                }
            }
            _ => {
                if let Some(recovery) = self.health.succeeded(at, probe) {
                    (self.events)(&StoreEvent::Recovered {
                        endpoint: self.endpoint.clone(),
                        down_for: recovery.down_for,
                        failures: recovery.failures,
                    });
                }
            }
        }
        if outcome.is_ok() {
            self.counters.redis.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }

    fn connect(&self) -> Result<Connection, StoreError> {
        let io = self.config.io_timeout;
        let waited = self.config.connect_timeout.as_millis();
        let connect = |error: redis::RedisError| {
            StoreError::Connect(if error.is_timeout() {
                format!("no answer within {waited} ms")
            } else {
                error.to_string()
            })
        };
        let connection = self
            .client
            .get_connection_with_timeout(self.config.connect_timeout)
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

    fn round_trip(&self, prepared: &Prepared, generation: u64) -> Result<Value, StoreError> {
        let timeout = u64::try_from(self.config.io_timeout.as_millis()).unwrap_or(u64::MAX);
        let Some(mut slot) = self.slot() else {
            return Err(StoreError::Connect("no connection slots".to_owned()));
        };
        if slot
            .as_ref()
            .is_some_and(|(g, connection)| *g != generation || !connection.is_open())
        {
            *slot = None;
        }
        let connection = match &mut *slot {
            Some((_, connection)) => connection,
            empty => &mut empty.insert((generation, self.connect()?)).1,
        };
        match prepared
            .invocation(&self.script)
            .invoke::<Value>(connection)
        {
            Ok(reply) => Ok(reply),
            Err(error) => {
                let error = StoreError::from_redis(&error, timeout);
                if !error.is_bad_state() {
                    // A late reply would be read as the next call's answer.
                    *slot = None;
                }
                Err(error)
            }
        }
    }

    /// The fault policy's answer to a request Redis could not decide.
    fn on_failure(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
        error: StoreError,
    ) -> Result<StackDecision, LimiterUnavailable> {
        let retry_in = match &error {
            StoreError::BackingOff(ms) => *ms,
            _ if error.is_outage() => {
                u64::try_from(self.health.backoff(1).as_millis()).unwrap_or(u64::MAX)
            }
            _ => {
                self.report_request_failure(error);
                1_000
            }
        };
        match self.config.fault_policy {
            FaultPolicy::FailOpen => {
                self.counters.fallback.fetch_add(1, Ordering::Relaxed);
                Ok(self.fallback.acquire(checks, now))
            }
            FaultPolicy::FailClosed => {
                self.counters.unavailable.fetch_add(1, Ordering::Relaxed);
                Err(LimiterUnavailable::store_down(
                    now.saturating_add(retry_in.max(1)),
                ))
            }
        }
    }

    /// At most one line a second about requests Redis answered but could
    /// not decide.
    fn report_request_failure(&self, error: StoreError) {
        let now = Instant::now();
        let mut last = self
            .last_report
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last.is_some_and(|at| now.saturating_duration_since(at) < Duration::from_secs(1)) {
            self.counters.suppressed.fetch_add(1, Ordering::Relaxed);
            return;
        }
        *last = Some(now);
        drop(last);
        (self.events)(&StoreEvent::RequestFailed {
            endpoint: self.endpoint.clone(),
            error,
            policy: self.config.fault_policy,
            suppressed: self.counters.suppressed.swap(0, Ordering::Relaxed),
        });
    }
}

impl RateLimiter for RedisLimiter {
    /// As [`RateLimiter::try_acquire`], except that when the policy fails
    /// closed the "unavailable" answer becomes a refusal of the first limit
    /// until the next attempt (429): for callers that cannot answer 503.
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        match self.try_acquire(checks, now) {
            Ok(decision) => decision,
            Err(LimiterUnavailable { retry_at, .. }) => StackDecision::Refused {
                refusing: LimitStatus {
                    index: 0,
                    limit: checks.first().map_or(0, |c| c.quota.requests),
                    remaining: 0,
                    reset_at: retry_at,
                },
                retry_at,
            },
        }
    }

    fn try_acquire(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        match self.decide(checks, now) {
            Ok(decision) => Ok(decision),
            Err(error) => self.on_failure(checks, now, error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::limit::LimiterConfig;

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
    }
}
