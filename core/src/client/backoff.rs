//! Backoff delays: exponential with full jitter. The same delay is put on
//! top of a server's `Retry-After` (see [`super::RetryPlanner`]).
//!
//! Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"):
//! retry `n` waits a uniform draw from `[0, min(cap, base · 2ⁿ⁻¹)]`. Every
//! delay is within `[0, cap]` for any `n`, overflow included.

use super::random::{uniform_inclusive, RandomSource};
use serde::{Deserialize, Serialize};

/// Default base delay: 1 s.
pub const DEFAULT_BASE_MS: u64 = 1_000;
/// Default cap on one delay: 20 s.
pub const DEFAULT_CAP_MS: u64 = 20_000;
/// Exponential backoff with full jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackoffPolicy {
    /// The ceiling of the first retry's delay, in ms.
    pub base_ms: u64,
    /// The largest delay, in ms.
    pub cap_ms: u64,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        Self {
            base_ms: DEFAULT_BASE_MS,
            cap_ms: DEFAULT_CAP_MS,
        }
    }
}

impl BackoffPolicy {
    /// The largest delay of retry number `retry` (1 for the first retry):
    /// `min(cap, base · 2^(retry-1))`, saturating instead of overflowing.
    pub fn ceiling(&self, retry: u32) -> u64 {
        let doublings = retry.saturating_sub(1);
        let factor = 1u64.checked_shl(doublings).filter(|_| doublings < 64);
        factor
            .and_then(|factor| self.base_ms.checked_mul(factor))
            .map_or(self.cap_ms, |delay| delay.min(self.cap_ms))
    }

    /// The delay of retry number `retry`: uniform in `[0, ceiling(retry)]`.
    pub fn delay(&self, retry: u32, random: &mut dyn RandomSource) -> u64 {
        uniform_inclusive(random, self.ceiling(retry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_double_then_cap() {
        let policy = BackoffPolicy::default();
        let ceilings: Vec<u64> = (0..7).map(|n| policy.ceiling(n)).collect();
        assert_eq!(
            ceilings,
            [1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 20_000]
        );
        assert_eq!(policy.ceiling(64), 20_000);
        assert_eq!(policy.ceiling(u32::MAX), 20_000);
        let huge = BackoffPolicy {
            base_ms: u64::MAX,
            cap_ms: u64::MAX,
        };
        assert_eq!(huge.ceiling(2), u64::MAX);
    }
}
