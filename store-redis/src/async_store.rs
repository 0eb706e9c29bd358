//! [`AsyncRedisLimiter`]: the store for async servers. One multiplexed
//! connection (or a Redis Cluster connection) carries every decision, so
//! concurrent decisions pipeline on it instead of each holding a connection
//! and a thread; the gate hands over a [`PendingLimits`] and gets the
//! [`Decision`] back without blocking a worker.

use crate::batcher::{Job, Sender};
use crate::config::RedisConfig;
use crate::error::StoreError;
use crate::event::{stderr_sink, EventSink};
use crate::keys::KeySpace;
use crate::link::{Link, Target};
use crate::policy::{ConfigError, Policy, StoreStats};
use acd_core::gate::{Decision, PendingLimits};
use acd_core::limit::{LimitCheck, LimiterUnavailable, StackDecision};
use acd_core::UnixMillis;
use std::sync::OnceLock;
use tokio::sync::{mpsc, oneshot};

/// A rate limiter whose per-key states live in Redis, for async servers.
///
/// The same script, keys, fault policy, backoff and events as the blocking
/// [`RedisLimiter`](crate::RedisLimiter); the difference is the transport:
/// one multiplexed connection shared by every caller (concurrent decisions
/// are pipelined on it), or a Redis Cluster connection when
/// [`RedisConfig::cluster`] is set. A call waits for Redis at most
/// `connect_timeout + io_timeout`, then the
/// [`FaultPolicy`](crate::FaultPolicy) answers. Its calls run inside a
/// Tokio runtime (the connection is made on first use).
///
/// ```no_run
/// # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
/// use acd_core::gate::{Decision, Gate, GateConfig, GateRequest};
/// use acd_redis::{AsyncRedisLimiter, RedisConfig};
/// let store = AsyncRedisLimiter::new(RedisConfig::new("redis://127.0.0.1:6379"))?;
/// let gate = Gate::demo(GateConfig::default())?;
/// let now = acd_core::UnixMillis::new(1_700_000_000_000);
/// let request = GateRequest::get("/api/v1/tables/orders", "203.0.113.7")
///     .with_header("X-API-Key", "acd_live_demo_ada");
/// let decision: Decision = store.resolve(gate.prepare(&request, now), now).await;
/// # Ok(()) }
/// ```
pub struct AsyncRedisLimiter {
    policy: Policy,
    target: Target,
    /// The connection and the queue of the task that sends decisions,
    /// made on first use.
    started: OnceLock<(Link, mpsc::UnboundedSender<Job>)>,
}

impl std::fmt::Debug for AsyncRedisLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncRedisLimiter")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl AsyncRedisLimiter {
    /// A store for `config`, reporting to stderr. Does not connect yet: a
    /// server may start while Redis is down (see [`Self::ping`]).
    pub fn new(config: RedisConfig) -> Result<Self, ConfigError> {
        Self::with_events(config, stderr_sink())
    }

    /// A store for `config` reporting its events to `events`.
    pub fn with_events(config: RedisConfig, events: EventSink) -> Result<Self, ConfigError> {
        let target = Target::parse(&config)?;
        Ok(Self {
            policy: Policy::new(config, events)?,
            target,
            started: OnceLock::new(),
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
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut link = self.started()?.0.clone();
        let loaded = self.bounded(link.load(&self.policy.script)).await?;
        loaded.map(drop).map_err(|e| self.error(&e))
    }

    /// Decides through Redis only, without the fault policy: `Err` says why
    /// Redis could not decide (including [`StoreError::BackingOff`] while
    /// the store waits to reconnect). Nothing is charged on `Err`.
    pub async fn decide(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, StoreError> {
        if checks.is_empty() {
            return Ok(StackDecision::Admitted { tightest: None });
        }
        let prepared = self.policy.prepare(checks, now)?;
        let (_, queue) = self.started()?;
        let attempt = self.policy.permit()?;
        let (reply, answer) = oneshot::channel();
        let outcome = if queue.send(Job { prepared, reply }).is_err() {
            Err(StoreError::Io(
                "the store's sending task has stopped (its Tokio runtime ended)".to_owned(),
            ))
        } else {
            match self.bounded(answer).await {
                Ok(Ok(Ok(outcome))) => outcome.decision(checks, |_| None),
                Ok(Ok(Err(error))) => Err(error),
                Ok(Err(_)) => Err(StoreError::Io(
                    "the store's sending task stopped before answering".to_owned(),
                )),
                Err(timeout) => Err(timeout),
            }
        };
        if self.policy.record(attempt, &outcome) {
            // Back after an outage: add the fallback's counts (best effort:
            // a failure here only leaves the outage's bound in force).
            if let Ok((link, _)) = self.started() {
                let mut link = link.clone();
                for merge in self.policy.merges(now) {
                    let invocation = merge.invocation(&self.policy.merge_script);
                    let _ = self.bounded(link.run(&invocation)).await;
                }
            }
        }
        outcome
    }

    /// The stacked decision about `checks` at `now`, with the fault policy
    /// answering when Redis cannot: fail open decides in memory, fail
    /// closed answers [`LimiterUnavailable`] (a 503 at the gate).
    pub async fn try_acquire(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        match self.decide(checks, now).await {
            Ok(decision) => Ok(decision),
            Err(error) => self.policy.on_failure(checks, now, error),
        }
    }

    /// Checks a request's pending limits and finishes the gate's decision.
    pub async fn resolve(&self, pending: PendingLimits, now: impl Into<UnixMillis>) -> Decision {
        let now = now.into();
        let answer = self.try_acquire(&pending.checks(), now).await;
        pending.resume(answer, now)
    }

    /// `future`, or [`StoreError::Timeout`] past `connect_timeout +
    /// io_timeout` (a guard over the connection's own timeouts).
    async fn bounded<T>(
        &self,
        future: impl std::future::Future<Output = T>,
    ) -> Result<T, StoreError> {
        let config = &self.policy.config;
        let limit = config.connect_timeout.saturating_add(config.io_timeout);
        tokio::time::timeout(limit, future)
            .await
            .map_err(|_| StoreError::Timeout(self.policy.io_timeout_ms()))
    }

    /// The connection and the sending task's queue, made on first use.
    /// Outside a Tokio runtime there are none (an error, not a panic).
    fn started(&self) -> Result<&(Link, mpsc::UnboundedSender<Job>), StoreError> {
        if let Some(started) = self.started.get() {
            return Ok(started);
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(StoreError::Connect(
                "the async Redis store runs inside a Tokio runtime; none is running here"
                    .to_owned(),
            ));
        }
        let config = &self.policy.config;
        let link = self.target.link(config)?;
        Ok(self.started.get_or_init(|| {
            let queue = Sender {
                link: link.clone(),
                script: self.policy.script.clone(),
                algorithm: config.algorithm,
                grace_ms: u64::try_from(config.ttl_grace.as_millis()).unwrap_or(u64::MAX),
                io_timeout_ms: self.policy.io_timeout_ms(),
                max_batch: config.max_batch,
            }
            .spawn();
            (link, queue)
        }))
    }

    fn error(&self, error: &redis::RedisError) -> StoreError {
        StoreError::from_redis(error, self.policy.io_timeout_ms())
    }
}
