//! Sizing and policies of the in-process keyed limiter, and their check.

use serde::{Deserialize, Serialize};

/// Most shards a [`LimiterConfig`] may ask for.
pub const MAX_SHARDS: usize = 1024;

/// A [`LimiterConfig`] that cannot work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimiterConfigError {
    /// `max_keys` is 0.
    #[error(
        "limiter max_keys is 0: the table could hold no key, so every new subject would be \
         refused; set max_keys to at least 1"
    )]
    NoKeys,
    /// `shards` is above [`MAX_SHARDS`].
    #[error(
        "limiter shards is {shards}, above the most allowed ({MAX_SHARDS}); use at most \
         {MAX_SHARDS}, or 0 to size the shards from max_keys"
    )]
    TooManyShards {
        /// The number asked for.
        shards: usize,
    },
}

/// What happens when a new key arrives at a shard full of live keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhenFull {
    /// Refuse the request (429 for the limit whose key is new): known keys
    /// keep their exact counts, so nothing is ever over-admitted. The retry
    /// time is a hint: the soonest expiry among the entries examined.
    #[default]
    RefuseNewKeys,
    /// Forget the examined live key that expires soonest and admit the new
    /// one. New keys always get in, but the forgotten key may be admitted
    /// again before its window ends.
    EvictSoonest,
}

/// Sizing and policies of a [`KeyedLimiter`](super::KeyedLimiter).
///
/// `Debug` does not show the hash seed (it is secret in production).
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimiterConfig {
    /// Most keys held at once, at least 1 (split evenly over the shards;
    /// with a uniform hash the first shard fills a few percent before the
    /// total is reached).
    pub max_keys: usize,
    /// Number of shards, at most [`MAX_SHARDS`]; `0` picks one shard per
    /// 4096 keys (a power of two).
    pub shards: usize,
    /// The full-table policy.
    pub when_full: WhenFull,
    /// Slots the incremental sweep examines per call in each locked shard
    /// (up to four times as many while it keeps finding expired ones).
    pub sweep_per_call: usize,
    /// Extra slots examined, only when a new key meets a full shard.
    pub scan_when_full: usize,
    /// The seed of the key hash, which places keys in shards and slots.
    ///
    /// Fixed in tests and simulations, so runs repeat exactly; random and
    /// secret in production (the embedding edge passes OS randomness, e.g.
    /// with `with_os_seed`; the core never reads it). The default is `0`. See the [`KeyedLimiter`](super::KeyedLimiter) documentation
    /// for what a known seed allows.
    pub hash_seed: u64,
}

impl Default for LimiterConfig {
    fn default() -> Self {
        Self {
            max_keys: 1 << 20,
            shards: 0,
            when_full: WhenFull::RefuseNewKeys,
            sweep_per_call: 2,
            scan_when_full: 32,
            hash_seed: 0,
        }
    }
}

impl std::fmt::Debug for LimiterConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LimiterConfig")
            .field("max_keys", &self.max_keys)
            .field("shards", &self.shards)
            .field("when_full", &self.when_full)
            .field("sweep_per_call", &self.sweep_per_call)
            .field("scan_when_full", &self.scan_when_full)
            .finish_non_exhaustive()
    }
}

impl LimiterConfig {
    /// This configuration with a hash seed drawn from the operating
    /// system's generator (`getrandom`): what every default gate of an edge
    /// (the ffi and wasm gates, the Redis store's fallback, the sandbox)
    /// uses. Only with the `os-entropy` feature; the core itself never
    /// calls it.
    #[cfg(feature = "os-entropy")]
    pub fn with_os_seed(self) -> Result<Self, getrandom::Error> {
        Ok(Self {
            hash_seed: getrandom::u64()?,
            ..self
        })
    }

    /// The default configuration holding at most `max_keys` keys.
    pub fn with_max_keys(max_keys: usize) -> Self {
        Self {
            max_keys,
            ..Self::default()
        }
    }

    /// Checks the configuration: `max_keys` at least 1, `shards` at most
    /// [`MAX_SHARDS`].
    pub fn check(&self) -> Result<(), LimiterConfigError> {
        if self.max_keys == 0 {
            return Err(LimiterConfigError::NoKeys);
        }
        if self.shards > MAX_SHARDS {
            return Err(LimiterConfigError::TooManyShards {
                shards: self.shards,
            });
        }
        Ok(())
    }

    /// The number of shards used: `shards` (at most [`MAX_SHARDS`]), or
    /// for `0` one per 4096 keys, a power of two.
    pub(crate) fn shard_count(&self) -> usize {
        if self.shards > 0 {
            return self.shards.min(MAX_SHARDS);
        }
        self.max_keys
            .div_ceil(4096)
            .max(1)
            .next_power_of_two()
            .min(MAX_SHARDS)
    }
}
