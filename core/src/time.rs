//! Time as data: instants are Unix milliseconds passed in by the caller.
//!
//! acd never reads a clock. Every function that depends on time takes `now`
//! as a [`UnixMillis`] argument, so the same inputs always give the same
//! outputs, in every language binding and in tests with a virtual clock.

/// An instant, in milliseconds since the Unix epoch (UTC).
pub type UnixMillis = u64;

/// Milliseconds in one second.
pub const MILLIS_PER_SECOND: u64 = 1_000;

/// Whole seconds covering `millis`, rounded up (`1` ms is `1` s, `0` is `0`).
///
/// Used for every header that carries seconds (`RateLimit-Reset`,
/// `Retry-After`), so a client that waits the advertised number of seconds
/// is never early.
pub fn ceil_seconds(millis: u64) -> u64 {
    millis.div_ceil(MILLIS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_seconds_rounds_up_and_keeps_zero() {
        assert_eq!(ceil_seconds(0), 0);
        assert_eq!(ceil_seconds(1), 1);
        assert_eq!(ceil_seconds(1_000), 1);
        assert_eq!(ceil_seconds(1_001), 2);
        assert_eq!(ceil_seconds(u64::MAX), u64::MAX / 1_000 + 1);
    }
}
