//! How a [`RedisLimiter`](crate::RedisLimiter) connects, names its keys
//! and behaves when Redis fails.

use acd_core::limit::{LimitAlgorithm, LimiterConfig};
use std::time::Duration;

/// What a gate does when Redis cannot decide (down, slow, restarting,
/// answering garbage).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FaultPolicy {
    /// Decide with a per-process in-memory limiter (same algorithm, same
    /// quotas) until Redis is back. Requests keep flowing; each instance
    /// enforces the limits on its own, so N instances admit up to N times a
    /// limit while Redis is away. The default.
    #[default]
    FailOpen,
    /// Answer `503 Service Unavailable` with `Retry-After` (through
    /// [`RateLimiter::try_acquire`](acd_core::limit::RateLimiter::try_acquire))
    /// until Redis is back: never more than a limit, at the price of
    /// availability.
    FailClosed,
}

impl std::fmt::Display for FaultPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FaultPolicy::FailOpen => "fail open",
            FaultPolicy::FailClosed => "fail closed",
        })
    }
}

/// Configuration of a [`RedisLimiter`](crate::RedisLimiter).
#[derive(Clone, PartialEq, Eq)]
pub struct RedisConfig {
    /// `redis://[user:password@]host:port[/db]`; the password never appears
    /// in logs or `Debug` output.
    pub url: String,
    /// Whether `url` is one node of a Redis Cluster (the async store then
    /// discovers the others and routes each call to the master of its
    /// slot; every key of a namespace is in one slot, see [`crate::keys`]).
    /// The blocking store talks to one server and refuses this.
    pub cluster: bool,
    /// Key namespace, the hash tag of every key (see [`crate::keys`]).
    /// Gate instances that share limits use the same namespace.
    pub namespace: String,
    /// The algorithm (every instance of a namespace must use the same one;
    /// it is part of the key names).
    pub algorithm: LimitAlgorithm,
    /// Connections kept open by the blocking store; a request waits for a
    /// free one. (The async store uses one multiplexed connection.)
    pub connections: usize,
    /// The most decisions the async store sends in one script call: those
    /// waiting while earlier calls are under way leave together (1: one
    /// call per decision; at most 1024).
    pub max_batch: usize,
    /// Longest wait for a new connection, handshake included.
    pub connect_timeout: Duration,
    /// Longest wait for one decision's round trip; then the fault policy
    /// answers and the connection is dropped.
    pub io_timeout: Duration,
    /// Added to every key's TTL past the end of its window: set it at least
    /// to the largest clock skew between gate instances (see the crate
    /// documentation).
    pub ttl_grace: Duration,
    /// What to answer when Redis cannot decide.
    pub fault_policy: FaultPolicy,
    /// First wait before reconnecting after a failure; doubled on every
    /// failed attempt up to `backoff_max`.
    pub backoff_min: Duration,
    /// Longest wait between reconnection attempts (250 ms by default: Redis
    /// decides again at most `backoff_max + connect_timeout + io_timeout`
    /// after it answers again, see docs/limiter.md).
    pub backoff_max: Duration,
    /// Sizing of the in-memory fallback of [`FaultPolicy::FailOpen`]. By
    /// default its hash seed is drawn from the operating system, a new one
    /// per configuration.
    pub fallback: LimiterConfig,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self {
            url: "redis://127.0.0.1:6379".to_owned(),
            cluster: false,
            namespace: "acd".to_owned(),
            algorithm: LimitAlgorithm::FixedWindow,
            connections: 8,
            max_batch: 64,
            connect_timeout: Duration::from_millis(250),
            io_timeout: Duration::from_millis(250),
            ttl_grace: Duration::from_secs(2),
            fault_policy: FaultPolicy::FailOpen,
            backoff_min: Duration::from_millis(100),
            backoff_max: Duration::from_millis(250),
            fallback: fallback_config(),
        }
    }
}

/// The fallback's default sizing, with a hash seed drawn from the operating
/// system (set `fallback.hash_seed` for a run that must repeat exactly).
/// Should the OS have no generator, the seed comes from foldhash's
/// per-process random state instead (address-space layout and a counter):
/// never a fixed value.
fn fallback_config() -> LimiterConfig {
    let config = LimiterConfig::with_max_keys(1 << 16);
    config.with_os_seed().unwrap_or_else(|_| {
        use std::hash::BuildHasher;
        LimiterConfig {
            hash_seed: foldhash::fast::RandomState::default().hash_one(0u64),
            ..config
        }
    })
}

impl RedisConfig {
    /// The default configuration for the Redis at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            ..Self::default()
        }
    }

    /// `host:port` (or the socket path) of the URL, without credentials:
    /// what logs name.
    pub fn endpoint(&self) -> String {
        redact(&self.url)
    }
}

impl std::fmt::Debug for RedisConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisConfig")
            .field("url", &self.endpoint())
            .field("cluster", &self.cluster)
            .field("namespace", &self.namespace)
            .field("algorithm", &self.algorithm)
            .field("connections", &self.connections)
            .field("max_batch", &self.max_batch)
            .field("connect_timeout", &self.connect_timeout)
            .field("io_timeout", &self.io_timeout)
            .field("ttl_grace", &self.ttl_grace)
            .field("fault_policy", &self.fault_policy)
            .field("backoff_min", &self.backoff_min)
            .field("backoff_max", &self.backoff_max)
            .field("fallback", &self.fallback)
            .finish()
    }
}

/// The URL without its user-info part (`user:password@`) and its query.
fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split('?').next().unwrap_or_default();
    let rest = rest.rsplit_once('@').map_or(rest, |(_, after)| after);
    if scheme.is_empty() {
        rest.to_owned()
    } else {
        format!("{scheme}://{rest}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        let config = RedisConfig::new("redis://:s3cret@127.0.0.1:6390/2");
        assert_eq!(config.endpoint(), "redis://127.0.0.1:6390/2");
        assert!(!format!("{config:?}").contains("s3cret"));
        assert_eq!(
            RedisConfig::new("redis://u:p@h:1").endpoint(),
            "redis://h:1"
        );
        assert_eq!(
            RedisConfig::new("redis://:pa/ss@h:1?password=x").endpoint(),
            "redis://h:1"
        );
        assert_eq!(
            RedisConfig::new("unix:///tmp/r.sock").endpoint(),
            "unix:///tmp/r.sock"
        );
    }
}
