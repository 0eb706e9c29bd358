//! Randomness of the client role: the caller's seed material ([`Entropy`]),
//! the injectable [`RandomSource`] and two independent streams drawn from it.
//!
//! The core never reads OS entropy: the caller passes 32 bytes (an edge takes
//! them from the OS, a test from [`Entropy::from_seed`]). Jitter comes from
//! one stream and idempotency keys (UUIDv4) from another, so knowing the keys
//! tells nothing about the jitter and the other way round. [`SplitMix64`] is
//! small, fast and dependency-free; it is not for cryptography (keys only need
//! to be unique, jitter only needs to spread clients apart).

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

/// 32 bytes of seed material from the caller (the core never reads OS entropy).
///
/// Bytes `0..8` seed the jitter stream; bytes `8..32` seed the idempotency-key
/// stream. `Debug` does not show the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Entropy(pub [u8; 32]);

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Entropy(<32 bytes>)")
    }
}

impl Entropy {
    /// Deterministic seed material expanded from `seed` with [`SplitMix64`]
    /// (tests, vectors, the simulation): the same seed, the same bytes.
    pub fn from_seed(seed: u64) -> Self {
        let mut random = SplitMix64::new(seed);
        let mut bytes = [0u8; 32];
        for chunk in bytes.chunks_exact_mut(8) {
            chunk.copy_from_slice(&random.next_u64().to_le_bytes());
        }
        Self(bytes)
    }

    /// Seed material from the operating system's generator (`getrandom`).
    /// Only with the `os-entropy` feature, which edges (CLI, ffi, sandbox)
    /// turn on; the core itself never calls it.
    #[cfg(feature = "os-entropy")]
    pub fn from_os() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(Self(bytes))
    }

    fn word(&self, index: usize) -> u64 {
        let mut word = [0u8; 8];
        let start = index.saturating_mul(8);
        if let Some(bytes) = self.0.get(start..start.saturating_add(8)) {
            word.copy_from_slice(bytes);
        }
        u64::from_le_bytes(word)
    }

    /// The jitter stream (bytes `0..8`).
    pub fn jitter_stream(&self) -> SplitMix64 {
        SplitMix64::new(self.word(0))
    }

    /// The idempotency-key stream (bytes `8..32`), independent of the jitter.
    pub fn key_stream(&self) -> KeyStream {
        KeyStream {
            high: SplitMix64::new(self.word(1) ^ self.word(3).rotate_left(32)),
            low: SplitMix64::new(self.word(2)),
        }
    }
}

/// Two SplitMix64 generators (128 bits of state) whose outputs make the
/// 16 bytes of each idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyStream {
    high: SplitMix64,
    low: SplitMix64,
}

impl KeyStream {
    /// A stream whose keys are exactly those `Entropy::from_seed(seed)` gives.
    pub fn from_seed(seed: u64) -> Self {
        Entropy::from_seed(seed).key_stream()
    }

    /// The next idempotency key: a UUIDv4 (RFC 9562) in its hyphenated form.
    pub fn next_key(&mut self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.high.next_u64().to_be_bytes());
        bytes[8..].copy_from_slice(&self.low.next_u64().to_be_bytes());
        uuid::Builder::from_random_bytes(bytes)
            .into_uuid()
            .hyphenated()
            .to_string()
    }
}

/// A value uniformly drawn from `0..=max` (Lemire's multiply-shift, so no
/// overflow and no modulo; the bias is below 2⁻⁶⁴ per value).
pub fn uniform_inclusive(random: &mut dyn RandomSource, max: u64) -> u64 {
    let span = u128::from(max).saturating_add(1);
    // Both factors are at most 2⁶⁴, so the product fits in u128.
    let product = u128::from(random.next_u64()).saturating_mul(span);
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
    fn keys_are_uuid_v4_and_independent_of_the_jitter_stream() {
        let entropy = Entropy::from_seed(5);
        let mut keys = entropy.key_stream();
        let first = keys.next_key();
        let second = keys.next_key();
        assert_ne!(first, second);
        for key in [&first, &second] {
            let parsed = uuid::Uuid::parse_str(key).unwrap();
            assert_eq!(parsed.get_version_num(), 4);
            assert_eq!(key.len(), 36);
        }
        // The same seed gives the same keys; another seed other keys.
        assert_eq!(KeyStream::from_seed(5).next_key(), first);
        assert_ne!(KeyStream::from_seed(6).next_key(), first);
        // The jitter stream does not produce the key's bits.
        let jitter = entropy.jitter_stream().next_u64().to_be_bytes();
        assert!(!first.replace('-', "").contains(&format!(
            "{:02x}{:02x}{:02x}{:02x}",
            jitter[0], jitter[1], jitter[2], jitter[3]
        )));
        assert!(!format!("{entropy:?}").contains('5'));
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
