//! Instants at the boundary: signed Unix milliseconds (`Long` in Kotlin,
//! `int` in Python), converted to the core's unsigned [`UnixMillis`].
//!
//! Java's and Python's clocks give signed milliseconds, so the boundary
//! takes `i64`; a negative instant is refused with a typed error instead of
//! wrapping around.

use crate::AcdError;
use acd_core::UnixMillis;

/// The core's instant for `millis`, or [`AcdError::InvalidArgument`] naming
/// `what` when it is negative.
pub fn to_core(what: &str, millis: i64) -> Result<UnixMillis, AcdError> {
    u64::try_from(millis).map(UnixMillis::new).map_err(|_| {
        AcdError::InvalidArgument(format!(
            "{what} must be Unix milliseconds from 0 to {}; got {millis}",
            i64::MAX
        ))
    })
}

/// The boundary's instant for a core instant (saturating at `i64::MAX`).
pub fn from_core(millis: UnixMillis) -> i64 {
    i64::try_from(millis.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_instants_are_refused_and_large_ones_saturate() {
        assert_eq!(to_core("now_ms", 0), Ok(UnixMillis::ZERO));
        assert_eq!(
            to_core("now_ms", i64::MAX),
            Ok(UnixMillis::new(i64::MAX as u64))
        );
        assert_eq!(
            to_core("now_ms", -1),
            Err(AcdError::InvalidArgument(
                "now_ms must be Unix milliseconds from 0 to 9223372036854775807; got -1".into()
            ))
        );
        assert_eq!(from_core(UnixMillis::MAX), i64::MAX);
        assert_eq!(
            from_core(UnixMillis::new(1_700_000_000_000)),
            1_700_000_000_000
        );
    }
}
