//! Time as data: instants are Unix milliseconds passed in by the caller.
//!
//! acd never reads a clock. Every function that depends on time takes `now`
//! as a [`UnixMillis`] argument, so the same inputs always give the same
//! outputs, in every language binding and in tests with a virtual clock.
//! Amounts of time are plain `u64` milliseconds; whole seconds, as HTTP
//! headers carry them, are [`Seconds`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// Milliseconds in one second.
pub const MILLIS_PER_SECOND: u64 = 1_000;

/// An instant, in milliseconds since the Unix epoch (UTC).
///
/// Serialized as a plain JSON integer (`#[serde(transparent)]`), and
/// converted from and into `u64` freely, so callers holding plain numbers
/// pass them straight in: every public entry point that takes `now` accepts
/// `impl Into<UnixMillis>`.
///
/// ```
/// use acd_core::UnixMillis;
/// let now = UnixMillis::new(1_700_000_000_000);
/// let later = now.saturating_add(1_500);
/// assert_eq!(later.saturating_since(now), 1_500);
/// assert_eq!(later.to_string(), "1700000001500");
/// assert_eq!(u64::from(later), 1_700_000_001_500);
/// ```
#[derive(
    Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct UnixMillis(u64);

impl UnixMillis {
    /// The Unix epoch, `0`.
    pub const ZERO: Self = Self(0);
    /// The end of time: the largest instant, used for "never".
    pub const MAX: Self = Self(u64::MAX);

    /// The instant `millis` ms after the Unix epoch.
    pub const fn new(millis: u64) -> Self {
        Self(millis)
    }

    /// The instant `millis` ms after the Unix epoch (same as [`Self::new`]).
    pub const fn from_millis(millis: u64) -> Self {
        Self(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// The instant `millis` ms later, or `None` past the end of time.
    pub const fn checked_add(self, millis: u64) -> Option<Self> {
        match self.0.checked_add(millis) {
            Some(sum) => Some(Self(sum)),
            None => None,
        }
    }

    /// The instant `millis` ms later, stopping at [`Self::MAX`].
    #[must_use]
    pub const fn saturating_add(self, millis: u64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    /// The instant `millis` ms earlier, stopping at the epoch.
    #[must_use]
    pub const fn saturating_sub(self, millis: u64) -> Self {
        Self(self.0.saturating_sub(millis))
    }

    /// The instant `millis` ms later (or earlier, when negative), stopping
    /// at the epoch and at [`Self::MAX`]; used for a skewed clock.
    #[must_use]
    pub const fn saturating_add_signed(self, millis: i64) -> Self {
        Self(self.0.saturating_add_signed(millis))
    }

    /// Milliseconds from `earlier` to `self`; `0` when `earlier` is not
    /// before `self` (time going backwards never yields a negative wait).
    pub const fn saturating_since(self, earlier: Self) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// Whole Unix seconds covering this instant, rounded up.
    pub const fn ceil_unix_seconds(self) -> Seconds {
        ceil_seconds(self.0)
    }
}

impl From<u64> for UnixMillis {
    fn from(millis: u64) -> Self {
        Self(millis)
    }
}

impl From<UnixMillis> for u64 {
    fn from(instant: UnixMillis) -> Self {
        instant.0
    }
}

impl fmt::Display for UnixMillis {
    /// The plain number of milliseconds, as on the wire.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A whole number of seconds, as the `Retry-After` and `RateLimit-Reset`
/// headers and the index's `window_seconds` carry it.
///
/// Serialized as a plain JSON integer; displays as the bare number, so it
/// is written into a header value unchanged.
#[derive(
    Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Seconds(u64);

impl Seconds {
    /// `secs` whole seconds.
    pub const fn new(secs: u64) -> Self {
        Self(secs)
    }

    /// The number of whole seconds.
    pub const fn as_secs(self) -> u64 {
        self.0
    }

    /// The same span in milliseconds, stopping at `u64::MAX`.
    pub const fn as_millis(self) -> u64 {
        self.0.saturating_mul(MILLIS_PER_SECOND)
    }
}

impl From<u64> for Seconds {
    fn from(secs: u64) -> Self {
        Self(secs)
    }
}

impl From<Seconds> for u64 {
    fn from(secs: Seconds) -> Self {
        secs.0
    }
}

impl fmt::Display for Seconds {
    /// The plain number of seconds, as in a header value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Whole seconds covering `millis`, rounded up (`1` ms is `1` s, `0` is `0`).
///
/// Used for every header that carries seconds (`RateLimit-Reset`,
/// `Retry-After`), so a client that waits the advertised number of seconds
/// is never early.
pub const fn ceil_seconds(millis: u64) -> Seconds {
    Seconds(millis.div_ceil(MILLIS_PER_SECOND))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_seconds_rounds_up_and_keeps_zero() {
        assert_eq!(ceil_seconds(0), Seconds::new(0));
        assert_eq!(ceil_seconds(1), Seconds::new(1));
        assert_eq!(ceil_seconds(1_000), Seconds::new(1));
        assert_eq!(ceil_seconds(1_001), Seconds::new(2));
        assert_eq!(ceil_seconds(u64::MAX), Seconds::new(u64::MAX / 1_000 + 1));
    }

    #[test]
    fn instants_add_and_subtract_without_wrapping() {
        let t = UnixMillis::new(5_000);
        assert_eq!(t.checked_add(1), Some(UnixMillis::new(5_001)));
        assert_eq!(UnixMillis::MAX.checked_add(1), None);
        assert_eq!(
            UnixMillis::new(u64::MAX - 1).saturating_add(5),
            UnixMillis::MAX
        );
        assert_eq!(t.saturating_sub(9_000), UnixMillis::ZERO);
        assert_eq!(t.saturating_since(UnixMillis::new(3_500)), 1_500);
        assert_eq!(UnixMillis::new(3_500).saturating_since(t), 0);
        assert_eq!(UnixMillis::new(1_001).ceil_unix_seconds(), Seconds::new(2));
        assert_eq!(Seconds::new(3).as_millis(), 3_000);
        assert_eq!(Seconds::new(u64::MAX).as_millis(), u64::MAX);
    }

    #[test]
    fn both_serialize_as_bare_integers() {
        let t = UnixMillis::from_millis(1_700_000_000_123);
        assert_eq!(
            serde_json::to_string(&t).ok().as_deref(),
            Some("1700000000123")
        );
        let back: Result<UnixMillis, _> = serde_json::from_str("1700000000123");
        assert_eq!(back.ok(), Some(t));
        assert_eq!(
            serde_json::to_string(&Seconds::new(60)).ok().as_deref(),
            Some("60")
        );
        assert_eq!(t.to_string(), "1700000000123");
        assert_eq!(Seconds::new(7).to_string(), "7");
        assert!(serde_json::from_str::<UnixMillis>("-1").is_err());
    }
}
