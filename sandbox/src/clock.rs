//! The sandbox's only source of time: the system clock, or a manual clock
//! (`--clock manual`) that moves only through `POST /_sandbox/clock`, so
//! that a test drives a whole rate-limit window in milliseconds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Unix milliseconds of the system clock (0 before 1970).
pub fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// Where the sandbox's "now" comes from.
#[derive(Debug)]
pub enum Clock {
    /// The system clock.
    System,
    /// A clock that moves only when told to; holds Unix milliseconds.
    Manual(AtomicU64),
}

/// Why the clock could not be moved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// The sandbox runs on the system clock.
    #[error("the sandbox runs on the system clock; start it with --clock manual to move time")]
    NotManual,
    /// The new time does not fit in Unix milliseconds.
    #[error("advancing by {advance_ms} ms from {now_ms} overflows Unix milliseconds")]
    Overflow {
        /// The clock before.
        now_ms: u64,
        /// The advance asked for.
        advance_ms: u64,
    },
}

impl Clock {
    /// A manual clock starting at `start_ms`.
    pub fn manual(start_ms: u64) -> Self {
        Self::Manual(AtomicU64::new(start_ms))
    }

    /// Unix milliseconds now.
    pub fn now_ms(&self) -> u64 {
        match self {
            Self::System => system_now_ms(),
            Self::Manual(now) => now.load(Ordering::SeqCst),
        }
    }

    /// Whether this is the manual clock.
    pub fn is_manual(&self) -> bool {
        matches!(self, Self::Manual(_))
    }

    /// Moves the manual clock forward by `advance_ms`; returns the new time.
    pub fn advance(&self, advance_ms: u64) -> Result<u64, ClockError> {
        let Self::Manual(now) = self else {
            return Err(ClockError::NotManual);
        };
        now.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |current| {
            current.checked_add(advance_ms)
        })
        .map(|before| before.saturating_add(advance_ms))
        .map_err(|now_ms| ClockError::Overflow { now_ms, advance_ms })
    }

    /// Sets the manual clock to `now_ms` (earlier times are allowed: the
    /// limiter never admits extra when time goes back).
    pub fn set(&self, now_ms: u64) -> Result<u64, ClockError> {
        let Self::Manual(now) = self else {
            return Err(ClockError::NotManual);
        };
        now.store(now_ms, Ordering::SeqCst);
        Ok(now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = Clock::manual(1_000);
        assert_eq!(clock.now_ms(), 1_000);
        assert_eq!(clock.advance(250), Ok(1_250));
        assert_eq!(clock.now_ms(), 1_250);
        assert_eq!(clock.set(5), Ok(5));
        assert_eq!(clock.now_ms(), 5);
        assert_eq!(
            clock.advance(u64::MAX),
            Err(ClockError::Overflow {
                now_ms: 5,
                advance_ms: u64::MAX
            })
        );
        assert_eq!(clock.now_ms(), 5);
    }

    #[test]
    fn system_clock_refuses_to_move() {
        assert_eq!(Clock::System.advance(1), Err(ClockError::NotManual));
        assert_eq!(Clock::System.set(1), Err(ClockError::NotManual));
        assert!(Clock::System.now_ms() > 1_600_000_000_000);
    }
}
