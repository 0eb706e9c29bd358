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
use crate::link::{Channel, Link, Target};
use crate::policy::{Attempt, ConfigError, Policy, StoreStats};
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
    /// Held while a connection is opened and checked, and counts are merged.
    sync: tokio::sync::Mutex<()>,
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
            sync: tokio::sync::Mutex::new(()),
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
        let (link, _) = self.started()?;
        let mut channel = self.sync(link, None, None).await?;
        let loaded = self.bounded(channel.load(&self.policy.script)).await?;
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
        let (link, queue) = self.started()?;
        let attempt = self.policy.permit()?;
        // Dropped before the outcome is recorded (the caller gave up), a
        // probe lets the next request probe.
        let watch = self.policy.watch(attempt);
        let outcome = self.send(link, queue, attempt, prepared, now).await;
        let outcome = outcome.and_then(|outcome| outcome.decision(checks, |_| None));
        self.policy.record(attempt, &outcome);
        watch.recorded();
        if let Ok(StackDecision::Admitted { .. }) = outcome {
            self.policy.counted(checks, now);
        }
        outcome
    }

    /// Syncs first when needed (a probe, a connection to open, counts to
    /// merge), then sends the decision and awaits its outcome.
    async fn send(
        &self,
        link: &Link,
        queue: &mpsc::UnboundedSender<Job>,
        attempt: Attempt,
        prepared: crate::script::Prepared,
        now: UnixMillis,
    ) -> Result<crate::reply::Outcome, StoreError> {
        if attempt.probe || link.current().is_none() || self.policy.needs_sync() {
            self.sync(link, Some(attempt), Some(now)).await?;
        }
        let (reply, answer) = oneshot::channel();
        if queue.send(Job { prepared, reply }).is_err() {
            return Err(StoreError::Io(
                "the store's sending task has stopped (its Tokio runtime ended)".to_owned(),
            ));
        }
        match self.bounded(answer).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(StoreError::Io(
                "the store's sending task stopped before answering".to_owned(),
            )),
            Err(timeout) => Err(timeout),
        }
    }

    /// Makes Redis hold every count this instance knows of before it decides
    /// again: opens a connection if there is none (awaited, so a probe
    /// reports what Redis says now), checks the namespace's epoch on a new
    /// connection, on a probe and the first time (a changed epoch: Redis
    /// lost the counts it had made for this instance, which become pending),
    /// and merges every pending count (with `now`; none without it). A new
    /// connection is used by decisions only once this succeeded.
    ///
    /// The wait for a sync under way is bounded like a call (a queue of
    /// syncs each timing out in turn kept the last decision for seconds,
    /// deciding with the `now` it had read before), and a decision that
    /// finds the store gone down meanwhile, the probe aside, does not try
    /// Redis in turn: the fault policy answers it.
    async fn sync(
        &self,
        link: &Link,
        attempt: Option<Attempt>,
        now: Option<UnixMillis>,
    ) -> Result<Channel, StoreError> {
        let probe = attempt.is_some_and(|attempt| attempt.probe);
        let _marked = self.policy.syncing();
        let _one = self.bounded(self.sync.lock()).await?;
        if let Some(attempt) = attempt {
            self.policy.went_down(attempt)?;
        }
        let (mut channel, fresh) = match link.current() {
            Some(channel) => (channel, false),
            None => self
                .bounded(link.open())
                .await?
                .map_err(|e| StoreError::Connect(self.error(&e).to_string()))?,
        };
        let failed = |channel: &Channel, error: &redis::RedisError| {
            link.failed(channel, error);
            self.error(error)
        };
        if fresh || probe || self.policy.epoch_unknown() {
            let reply = self
                .bounded(channel.run(&self.policy.epoch_invocation()))
                .await?
                .map_err(|e| failed(&channel, &e))?;
            self.policy.epoch_seen(&reply)?;
        }
        if let Some(now) = now {
            let mut taken = self.policy.take_pending(now).into_iter();
            while let Some(merge) = taken.next() {
                let invocation = merge.merge.invocation(&self.policy.merge_script);
                let outcome = match self.bounded(channel.run(&invocation)).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(failed(&channel, &e)),
                    Err(timeout) => Err(timeout),
                };
                drop(invocation);
                match outcome {
                    Ok(()) => self.policy.merged(merge),
                    Err(error) => {
                        self.policy.restore(merge);
                        taken.for_each(|rest| self.policy.restore(rest));
                        return Err(error);
                    }
                }
            }
        }
        if fresh {
            link.install(&channel);
        }
        Ok(channel)
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
        let link = self.target.link(config);
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
