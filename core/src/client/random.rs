//! The injectable random source used for jitter and idempotency keys.
//!
//! Everything random in the client role goes through [`RandomSource`], so a
//! seeded source makes every decision reproducible (tests, the simulation
//! harness, the conformance vectors). [`SplitMix64`] is the small, fast,
//! dependency-free default; it is not for cryptography.

/// A source of uniformly distributed 64-bit values.
pub trait RandomSource: Send + Sync {
    /// The next value.
    fn next_u64(&mut self) -> u64;
}

/// SplitMix64 (Steele, Lea and Flood, 2014): one `u64` of state, passes
/// BigCrush, and the same seed gives the same sequence on every platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }
}

impl RandomSource for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A value uniformly drawn from `0..=max` (Lemire's multiply-shift, so no
/// overflow and no modulo; the bias is below 2⁻⁶⁴ per value).
pub fn uniform_inclusive(random: &mut dyn RandomSource, max: u64) -> u64 {
    let span = u128::from(max) + 1;
    let product = u128::from(random.next_u64()) * span;
    // `product >> 64` is below `span`, so it fits in u64.
    u64::try_from(product >> 64).unwrap_or(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // Reference values of SplitMix64 seeded with 0.
        let mut random = SplitMix64::new(0);
        assert_eq!(random.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(random.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(random.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn uniform_stays_in_range_at_the_extremes() {
        let mut random = SplitMix64::new(7);
        for _ in 0..1_000 {
            assert!(uniform_inclusive(&mut random, 10) <= 10);
            assert_eq!(uniform_inclusive(&mut random, 0), 0);
            let _ = uniform_inclusive(&mut random, u64::MAX);
        }
    }
}
