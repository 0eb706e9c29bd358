//! What the blocking and the async store share: the checked configuration,
//! key naming, the health state machine, the fault policy's answer, event
//! reporting and the counters. The two stores differ only in how one
//! prepared call reaches Redis.

use crate::config::{FaultPolicy, RedisConfig};
use crate::error::StoreError;
use crate::event::{EventSink, StoreEvent};
use crate::health::{Health, Permit};
use crate::keys::{KeySpace, NamespaceError};
use crate::ledger::{Ledger, Taken, MERGE_LUA};
use crate::script::{stack_script, Prepared};
use acd_core::limit::{
    in_memory, LimitCheck, LimitStatus, LimiterUnavailable, RateLimiter, StackDecision,
};
use acd_core::UnixMillis;
use redis::{Script, Value};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Why a Redis store cannot be built.
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
    /// More decisions per script call than the script can read at once.
    #[error("max_batch of {0} is above {MAX_BATCH}, the most decisions one script call can carry")]
    BatchTooLarge(usize),
    /// The store cannot talk to this kind of deployment.
    #[error("{0}")]
    Unsupported(&'static str),
    /// The in-memory fallback's configuration cannot work.
    #[error("the fallback limiter: {0}")]
    Fallback(#[from] acd_core::limit::LimiterConfigError),
}

/// The largest `RedisConfig::max_batch`: the script reads a call's group
/// bytes with one `string.byte`, and (when it decides one decision after
/// another) its keys with one `MGET` of `unpack(KEYS)`, both of which Lua
/// bounds at about 8000 values.
pub const MAX_BATCH: usize = 1024;

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

/// A permission to send one call to Redis (see [`Policy::permit`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attempt {
    /// Whether this is the one attempt after a backoff.
    pub(crate) probe: bool,
    /// The connection generation the call must use.
    pub(crate) generation: u64,
}

/// The part of a store that does no I/O.
pub(crate) struct Policy {
    pub(crate) config: RedisConfig,
    pub(crate) endpoint: String,
    pub(crate) script: Script,
    /// The script adding the fallback's counts after an outage.
    pub(crate) merge_script: Script,
    /// The script reading (and first setting) the namespace's epoch.
    pub(crate) epoch_script: Script,
    /// The epoch this instance last saw (`None` before the first check).
    epoch: Mutex<Option<String>>,
    /// Syncs under way ([`Policy::needs_sync`]).
    syncing: AtomicUsize,
    pub(crate) space: KeySpace,
    health: Health,
    ledger: Ledger,
    fallback: Arc<dyn RateLimiter>,
    events: EventSink,
    counters: Counters,
    last_report: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("config", &self.config)
            .field("up", &self.health.is_up())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Policy {
    /// Checks `config` (everything but the URL, which each store parses).
    pub(crate) fn new(config: RedisConfig, events: EventSink) -> Result<Self, ConfigError> {
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
        if config.max_batch == 0 {
            return Err(ConfigError::Zero("max_batch"));
        }
        if config.max_batch > MAX_BATCH {
            return Err(ConfigError::BatchTooLarge(config.max_batch));
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
            endpoint: config.endpoint(),
            script: stack_script(config.algorithm),
            merge_script: Script::new(MERGE_LUA),
            epoch_script: Script::new(EPOCH_LUA),
            epoch: Mutex::new(None),
            syncing: AtomicUsize::new(0),
            space,
            health: Health::new(config.backoff_min, config.backoff_max),
            ledger: Ledger::new(config.fallback.max_keys),
            fallback: in_memory(config.algorithm, config.fallback),
            events,
            counters: Counters::default(),
            last_report: Mutex::new(None),
            config,
        })
    }

    /// `ConfigError::Url` for a URL the `redis` crate refused.
    pub(crate) fn bad_url(config: &RedisConfig, error: &redis::RedisError) -> ConfigError {
        ConfigError::Url {
            url: config.endpoint(),
            reason: error.to_string(),
        }
    }

    /// The I/O timeout in whole ms, for error messages.
    pub(crate) fn io_timeout_ms(&self) -> u64 {
        u64::try_from(self.config.io_timeout.as_millis()).unwrap_or(u64::MAX)
    }

    /// The keys and arguments of the decision about `checks` at `now`.
    pub(crate) fn prepare(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<Prepared, StoreError> {
        let grace = u64::try_from(self.config.ttl_grace.as_millis()).unwrap_or(u64::MAX);
        Prepared::new(&self.space, self.config.algorithm, checks, now, grace)
    }

    /// Whether a call may go to Redis now; [`StoreError::BackingOff`] while
    /// the store waits to reconnect.
    pub(crate) fn permit(&self) -> Result<Attempt, StoreError> {
        match self.health.permit(Instant::now()) {
            Permit::Go { probe, generation } => Ok(Attempt { probe, generation }),
            Permit::Wait(wait) => Err(StoreError::BackingOff(
                u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
            )),
        }
    }

    /// [`StoreError::BackingOff`] when the store went down after `attempt`
    /// was let through (a sync ahead of it failed): a decision that is not
    /// the probe then goes to the fault policy instead of trying Redis in
    /// turn.
    pub(crate) fn went_down(&self, attempt: Attempt) -> Result<(), StoreError> {
        match self.health.down_for_another(Instant::now()) {
            Some(wait) if !attempt.probe => Err(StoreError::BackingOff(
                u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
            )),
            _ => Ok(()),
        }
    }

    /// Watches `attempt` until its outcome is recorded: should its caller
    /// drop it before (a client gone, a handler's timeout), a probe hands
    /// the probe to the next request instead of keeping every request on
    /// the fault policy for good.
    pub(crate) fn watch(&self, attempt: Attempt) -> AttemptGuard<'_> {
        AttemptGuard {
            health: &self.health,
            probe: attempt.probe,
        }
    }

    /// Records how an attempt ended: health, one event per outage or
    /// recovery, counters. `true` when this attempt ended an outage (the
    /// caller then sends [`Policy::merges`]).
    pub(crate) fn record<T>(&self, attempt: Attempt, outcome: &Result<T, StoreError>) -> bool {
        let mut recovered = false;
        let at = Instant::now();
        match outcome {
            Err(error) if error.is_outage() => {
                self.counters.outages.fetch_add(1, Ordering::Relaxed);
                if let Some(failure) = self.health.failed(at, attempt.probe) {
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
                if let Some(recovery) = self.health.succeeded(at, attempt.probe) {
                    recovered = true;
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
        recovered
    }

    /// The pending counts (what the fallback admitted, and what Redis lost)
    /// of windows still current at `now`, as merge calls; each must end in
    /// [`Policy::merged`] or [`Policy::restore`].
    pub(crate) fn take_pending(&self, now: UnixMillis) -> Vec<Taken> {
        let grace = u64::try_from(self.config.ttl_grace.as_millis()).unwrap_or(u64::MAX);
        self.ledger.take(now, grace)
    }

    /// A taken merge reached Redis.
    pub(crate) fn merged(&self, taken: Taken) {
        self.ledger.merged(taken);
    }

    /// A taken merge did not reach Redis: its counts wait for the next sync.
    pub(crate) fn restore(&self, taken: Taken) {
        self.ledger.restore(taken);
    }

    /// Notes a decision through Redis that admitted `checks` at `now` (what
    /// is merged again should Redis lose it).
    pub(crate) fn counted(&self, checks: &[LimitCheck<'_>], now: UnixMillis) {
        self.ledger
            .counted(&self.space, self.config.algorithm, checks, now);
    }

    /// Whether a decision must wait for a sync before it goes to Redis:
    /// the epoch was never checked, counts wait to be merged, or a sync is
    /// under way. Redis never decides while it lacks counts this instance
    /// knows of.
    pub(crate) fn needs_sync(&self) -> bool {
        self.ledger.has_pending() || self.syncing.load(Ordering::SeqCst) > 0 || self.epoch_unknown()
    }

    /// Whether the epoch was never checked.
    pub(crate) fn epoch_unknown(&self) -> bool {
        self.epoch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }

    /// Marks a sync under way until the guard is dropped.
    pub(crate) fn syncing(&self) -> SyncGuard<'_> {
        self.syncing.fetch_add(1, Ordering::SeqCst);
        SyncGuard(&self.syncing)
    }

    /// The epoch script's call: reads the namespace's epoch, setting a new
    /// random one when it is absent.
    pub(crate) fn epoch_invocation(&self) -> redis::ScriptInvocation<'_> {
        let mut invocation = self.epoch_script.prepare_invoke();
        invocation.key(self.space.epoch_key()).arg(fresh_epoch());
        invocation
    }

    /// The epoch script answered `reply`. A changed epoch means Redis lost
    /// what it had counted for this instance: those counts are pending again
    /// (merged before the next decision).
    pub(crate) fn epoch_seen(&self, reply: &Value) -> Result<(), StoreError> {
        let now = match reply {
            Value::BulkString(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Value::SimpleString(text) => text.clone(),
            other => {
                return Err(StoreError::Garbage(format!(
                    "the epoch script answered {other:?}"
                )))
            }
        };
        let mut epoch = self.epoch.lock().unwrap_or_else(PoisonError::into_inner);
        if epoch.as_ref().is_some_and(|seen| *seen != now) {
            self.ledger.lost();
        }
        *epoch = Some(now);
        Ok(())
    }

    /// How requests were decided so far.
    pub(crate) fn stats(&self) -> StoreStats {
        let c = &self.counters;
        StoreStats {
            redis: c.redis.load(Ordering::Relaxed),
            fallback: c.fallback.load(Ordering::Relaxed),
            unavailable: c.unavailable.load(Ordering::Relaxed),
            outages: c.outages.load(Ordering::Relaxed),
        }
    }

    /// Whether the last attempts reached Redis.
    pub(crate) fn is_up(&self) -> bool {
        self.health.is_up()
    }

    /// The fault policy's answer to a request Redis could not decide.
    pub(crate) fn on_failure(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
        error: StoreError,
    ) -> Result<StackDecision, LimiterUnavailable> {
        let error_was_outage = error.is_outage();
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
                let decision = self.fallback.acquire(checks, now);
                // Only an outage's admissions are added to Redis later: a
                // request Redis refused to decide (a key holding garbage,
                // a time out of range) charges nothing there.
                let outage = error_was_outage;
                if let (StackDecision::Admitted { .. }, true) = (&decision, outage) {
                    self.ledger
                        .admitted(&self.space, self.config.algorithm, checks, now);
                }
                Ok(decision)
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

/// The Lua source of the epoch check.
pub const EPOCH_LUA: &str = include_str!("epoch.lua");

/// An attempt under way ([`Policy::watch`]); [`AttemptGuard::recorded`]
/// once its outcome went to [`Policy::record`].
pub(crate) struct AttemptGuard<'a> {
    health: &'a Health,
    probe: bool,
}

impl AttemptGuard<'_> {
    /// The outcome was recorded: nothing to hand over.
    pub(crate) fn recorded(mut self) {
        self.probe = false;
    }
}

impl Drop for AttemptGuard<'_> {
    fn drop(&mut self) {
        if self.probe {
            self.health.abandoned();
        }
    }
}

/// Ends a sync's mark when dropped.
pub(crate) struct SyncGuard<'a>(&'a AtomicUsize);

impl Drop for SyncGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A new epoch: 64 random bits in hex (from foldhash's per-process random
/// state, the time and a counter: distinct from the previous epoch but with
/// probability 2^-64).
fn fresh_epoch() -> String {
    use std::hash::BuildHasher;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let bits = foldhash::fast::RandomState::default().hash_one((
        std::process::id(),
        nanos,
        NEXT.fetch_add(1, Ordering::Relaxed),
    ));
    format!("{bits:016x}")
}

/// An "unavailable" answer as a refusal of the first limit until the next
/// attempt (429), for callers that cannot answer 503.
pub(crate) fn unavailable_as_refusal(
    checks: &[LimitCheck<'_>],
    answer: Result<StackDecision, LimiterUnavailable>,
) -> StackDecision {
    match answer {
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
