//! [`AsyncRedisLimiter`]: the store for async servers. One multiplexed
//! connection (or a Redis Cluster connection) carries every decision, so
//! concurrent decisions pipeline on it instead of each holding a connection
//! and a thread; the gate hands over a [`PendingLimits`] and gets the
//! [`Decision`] back without blocking a worker.

use crate::config::RedisConfig;
use crate::error::StoreError;
use crate::event::{stderr_sink, EventSink};
use crate::keys::KeySpace;
use crate::policy::{ConfigError, Policy, StoreStats};
use crate::script::{parse_reply, Prepared};
use acd_core::gate::{Decision, PendingLimits};
use acd_core::limit::{LimitCheck, LimiterUnavailable, StackDecision};
use acd_core::UnixMillis;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::{ClusterClient, ClusterConfig};
use redis::cluster_async::ClusterConnection;
use redis::Value;
use std::sync::OnceLock;

/// Where the connection goes: parsed when the store is built, connected on
/// first use (inside the caller's Tokio runtime).
enum Target {
    Single(redis::Client),
    Cluster(Box<ClusterClient>),
}

impl Target {
    fn parse(config: &RedisConfig) -> Result<Self, ConfigError> {
        let bad = |e: redis::RedisError| Policy::bad_url(config, &e);
        if config.cluster {
            let client = ClusterClient::builder([config.url.as_str()])
                .retries(1)
                .build()
                .map_err(bad)?;
            return Ok(Target::Cluster(Box::new(client)));
        }
        redis::Client::open(config.url.as_str())
            .map(Target::Single)
            .map_err(bad)
    }

    /// The connection handle; needs a Tokio runtime (the caller checks).
    fn link(&self, config: &RedisConfig) -> Result<Link, StoreError> {
        let failed = |e: redis::RedisError| StoreError::Connect(e.to_string());
        match self {
            Target::Cluster(client) => {
                let cluster = ClusterConfig::new()
                    .set_connection_timeout(config.connect_timeout)
                    .set_response_timeout(config.io_timeout);
                Ok(Link::Cluster(
                    client.get_pending_async_connection_with_config(cluster),
                ))
            }
            Target::Single(client) => {
                // Reconnection is paced by the store's own backoff (one
                // probe per wait), so the manager tries once per call.
                let manager = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(config.connect_timeout))
                    .set_response_timeout(Some(config.io_timeout))
                    .set_number_of_retries(0);
                ConnectionManager::new_lazy_with_config(client.clone(), manager)
                    .map(Link::Single)
                    .map_err(failed)
            }
        }
    }
}

/// The connection every call goes through (cheap to clone: a handle).
#[derive(Clone)]
enum Link {
    /// One server, reconnected by the `redis` crate's manager.
    Single(ConnectionManager),
    /// A Redis Cluster: calls go to the master of their keys' slot.
    Cluster(ClusterConnection),
}

impl Link {
    async fn invoke(&mut self, prepared: &Prepared, policy: &Policy) -> redis::RedisResult<Value> {
        let invocation = prepared.invocation(&policy.script);
        match self {
            Link::Single(manager) => invocation.invoke_async(manager).await,
            Link::Cluster(cluster) => invocation.invoke_async(cluster).await,
        }
    }

    async fn load(&mut self, policy: &Policy) -> redis::RedisResult<String> {
        match self {
            Link::Single(manager) => policy.script.load_async(manager).await,
            Link::Cluster(cluster) => policy.script.load_async(cluster).await,
        }
    }
}

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
/// let now = 1_700_000_000_000;
/// let request = GateRequest::get("/api/v1/tables/orders", "203.0.113.7")
///     .with_header("X-API-Key", "acd_live_demo_ada");
/// let decision: Decision = store.resolve(gate.prepare(&request, now), now).await;
/// # Ok(()) }
/// ```
pub struct AsyncRedisLimiter {
    policy: Policy,
    target: Target,
    link: OnceLock<Link>,
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
            link: OnceLock::new(),
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
        let mut link = self.link()?;
        let loaded = self.bounded(link.load(&self.policy)).await?;
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
        let mut link = self.link()?;
        let attempt = self.policy.permit()?;
        let outcome = match self.bounded(link.invoke(&prepared, &self.policy)).await {
            Ok(Ok(reply)) => parse_reply(&reply, checks),
            Ok(Err(error)) => Err(self.error(&error)),
            Err(timeout) => Err(timeout),
        };
        self.policy.record(attempt, &outcome);
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

    /// The shared connection handle, made on first use. Outside a Tokio
    /// runtime there is none (an error, not a panic).
    fn link(&self) -> Result<Link, StoreError> {
        if let Some(link) = self.link.get() {
            return Ok(link.clone());
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(StoreError::Connect(
                "the async Redis store runs inside a Tokio runtime; none is running here"
                    .to_owned(),
            ));
        }
        let link = self.target.link(&self.policy.config)?;
        Ok(self.link.get_or_init(|| link).clone())
    }

    fn error(&self, error: &redis::RedisError) -> StoreError {
        StoreError::from_redis(error, self.policy.io_timeout_ms())
    }
}
