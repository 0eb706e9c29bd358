//! Whether Redis is usable, and when to try again after it failed.
//!
//! A small state machine driven by the instants it is given (never reading
//! a clock itself, so it is tested without sleeping):
//!
//! * **Up**: every request goes to Redis.
//! * **Down**: entered on the first failure. Requests do not touch Redis
//!   (the fault policy answers at once, so nobody waits on a dead server);
//!   once the backoff has passed, exactly one request is let through as a
//!   *probe*. A failed probe doubles the backoff (`backoff_min` up to
//!   `backoff_max`); a successful one brings the store back up.
//!
//! Every transition to Down starts a new *generation*: pooled connections of
//! older generations are dropped instead of reused, so a restarted server
//! costs one failure, not one per pooled connection.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The longest wait between attempts, whatever `backoff_max` says: a day.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(86_400);

/// `at + wait`, or the latest instant the platform can represent on the way
/// there (an `Instant` cannot hold every sum).
fn later(at: Instant, wait: Duration) -> Instant {
    at.checked_add(wait)
        .or_else(|| at.checked_add(MAX_BACKOFF))
        .unwrap_or(at)
}

/// May a request go to Redis now?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Permit {
    /// Yes; `probe` when it is the one attempt after a backoff.
    Go {
        /// Whether this request is the probe of a Down store.
        probe: bool,
        /// The generation connections must belong to.
        generation: u64,
    },
    /// No: Redis is down; the next attempt is in this long.
    Wait(Duration),
}

/// A failure that changed something worth a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failure {
    /// Failed attempts in a row, this one included.
    pub failures: u32,
    /// Wait before the next attempt.
    pub retry_in: Duration,
}

/// The store came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Recovery {
    /// How long it was down.
    pub down_for: Duration,
    /// Failed attempts while it was down.
    pub failures: u32,
}

#[derive(Debug, Clone, Copy)]
struct Down {
    since: Instant,
    failures: u32,
    next_attempt: Instant,
    probing: bool,
}

#[derive(Debug)]
struct State {
    down: Option<Down>,
    generation: u64,
}

/// The health of one store.
#[derive(Debug)]
pub(crate) struct Health {
    state: Mutex<State>,
    backoff_min: Duration,
    backoff_max: Duration,
}

impl Health {
    /// An Up store with the given backoff bounds.
    pub(crate) fn new(backoff_min: Duration, backoff_max: Duration) -> Self {
        Self {
            state: Mutex::new(State {
                down: None,
                generation: 0,
            }),
            backoff_min,
            backoff_max: backoff_max.max(backoff_min).min(MAX_BACKOFF),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The wait after `failures` failed attempts in a row (at most
    /// [`MAX_BACKOFF`]).
    pub(crate) fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(30);
        self.backoff_min
            .saturating_mul(1_u32 << doublings)
            .min(self.backoff_max)
    }

    /// Whether a request at `at` may go to Redis.
    pub(crate) fn permit(&self, at: Instant) -> Permit {
        let mut state = self.lock();
        let generation = state.generation;
        match state.down.as_mut() {
            None => Permit::Go {
                probe: false,
                generation,
            },
            Some(down) if !down.probing && at >= down.next_attempt => {
                down.probing = true;
                Permit::Go {
                    probe: true,
                    generation,
                }
            }
            Some(down) => Permit::Wait(
                down.next_attempt
                    .saturating_duration_since(at)
                    .max(Duration::from_millis(1)),
            ),
        }
    }

    /// An attempt failed for a reason that concerns the server. `Some` when
    /// it counted: the first failure (Up → Down) or a failed probe; a
    /// request that was already under way when another one failed does not
    /// count again.
    pub(crate) fn failed(&self, at: Instant, probe: bool) -> Option<Failure> {
        let mut state = self.lock();
        match state.down.as_mut() {
            None => {
                let retry_in = self.backoff(1);
                state.generation = state.generation.wrapping_add(1);
                state.down = Some(Down {
                    since: at,
                    failures: 1,
                    next_attempt: later(at, retry_in),
                    probing: false,
                });
                Some(Failure {
                    failures: 1,
                    retry_in,
                })
            }
            Some(down) if probe => {
                down.failures = down.failures.saturating_add(1);
                let retry_in = self.backoff(down.failures);
                down.next_attempt = later(at, retry_in);
                down.probing = false;
                Some(Failure {
                    failures: down.failures,
                    retry_in,
                })
            }
            Some(_) => None,
        }
    }

    /// An attempt reached Redis and got an answer. `Some` when this ended an
    /// outage (only a probe can).
    pub(crate) fn succeeded(&self, at: Instant, probe: bool) -> Option<Recovery> {
        let mut state = self.lock();
        match state.down {
            Some(down) if probe => {
                state.down = None;
                Some(Recovery {
                    down_for: at.saturating_duration_since(down.since),
                    failures: down.failures,
                })
            }
            _ => None,
        }
    }

    /// While Down: the wait until the next attempt (at least 1 ms).
    pub(crate) fn down_for_another(&self, at: Instant) -> Option<Duration> {
        self.lock().down.map(|down| {
            down.next_attempt
                .saturating_duration_since(at)
                .max(Duration::from_millis(1))
        })
    }

    /// The probe under way was dropped before its outcome was known (its
    /// caller gave up): the next request probes instead, at once (the
    /// backoff has passed). Only one probe is ever under way, so a probing
    /// store is waiting on this one.
    pub(crate) fn abandoned(&self) {
        if let Some(down) = self.lock().down.as_mut() {
            down.probing = false;
        }
    }

    /// Whether the store is Up.
    pub(crate) fn is_up(&self) -> bool {
        self.lock().down.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn down_then_one_probe_per_backoff_doubling_up_to_the_cap() {
        let health = Health::new(100 * MS, 350 * MS);
        let t0 = Instant::now();
        assert_eq!(
            health.permit(t0),
            Permit::Go {
                probe: false,
                generation: 0
            }
        );
        let first = health.failed(t0, false).unwrap();
        assert_eq!((first.failures, first.retry_in), (1, 100 * MS));
        // Requests already under way that fail too do not count again.
        assert_eq!(health.failed(t0 + MS, false), None);
        assert_eq!(health.permit(t0 + 40 * MS), Permit::Wait(60 * MS));
        // After the backoff exactly one probe goes; the others keep waiting.
        let probe = health.permit(t0 + 100 * MS);
        assert_eq!(
            probe,
            Permit::Go {
                probe: true,
                generation: 1
            }
        );
        assert!(matches!(health.permit(t0 + 100 * MS), Permit::Wait(_)));
        let second = health.failed(t0 + 101 * MS, true).unwrap();
        assert_eq!((second.failures, second.retry_in), (2, 200 * MS));
        assert!(matches!(
            health.permit(t0 + 301 * MS),
            Permit::Go { probe: true, .. }
        ));
        let third = health.failed(t0 + 301 * MS, true).unwrap();
        assert_eq!(third.retry_in, 350 * MS); // capped
        assert!(!health.is_up());
        // A straggler's success does not end the outage; the probe's does.
        assert_eq!(health.succeeded(t0 + 302 * MS, false), None);
        assert!(matches!(
            health.permit(t0 + 651 * MS),
            Permit::Go { probe: true, .. }
        ));
        let back = health.succeeded(t0 + 700 * MS, true).unwrap();
        assert_eq!((back.down_for, back.failures), (700 * MS, 3));
        assert!(health.is_up());
        // The next outage starts a new generation.
        health.failed(t0 + 800 * MS, false).unwrap();
        assert!(matches!(
            health.permit(t0 + 900 * MS),
            Permit::Go { generation: 2, .. }
        ));
    }

    #[test]
    fn an_abandoned_probe_hands_the_probe_to_the_next_request() {
        let health = Health::new(100 * MS, 250 * MS);
        let t0 = Instant::now();
        health.failed(t0, false).unwrap();
        assert!(matches!(
            health.permit(t0 + 100 * MS),
            Permit::Go { probe: true, .. }
        ));
        assert!(matches!(health.permit(t0 + 110 * MS), Permit::Wait(_)));
        health.abandoned();
        assert!(matches!(
            health.permit(t0 + 120 * MS),
            Permit::Go { probe: true, .. }
        ));
        assert!(matches!(health.permit(t0 + 130 * MS), Permit::Wait(_)));
        // Up: nothing to abandon.
        health.succeeded(t0 + 140 * MS, true).unwrap();
        health.abandoned();
        assert!(health.is_up());
    }

    #[test]
    fn huge_failure_counts_saturate() {
        let health = Health::new(MS, Duration::from_secs(5));
        assert_eq!(health.backoff(u32::MAX), Duration::from_secs(5));
        assert_eq!(health.backoff(0), MS);
    }

    #[test]
    fn a_huge_backoff_max_neither_overflows_nor_panics() {
        // Both bounds huge: `Instant + backoff` used to overflow and panic.
        let health = Health::new(Duration::MAX / 2, Duration::MAX);
        let t0 = Instant::now();
        assert_eq!(
            health.failed(t0, false).map(|f| f.retry_in),
            Some(MAX_BACKOFF)
        );
        for step in 1..40u32 {
            let at = t0 + MS * step;
            if let Permit::Go { probe: true, .. } = health.permit(at) {
                assert!(health.failed(at, true).is_some());
            }
        }
        assert_eq!(health.backoff(40), MAX_BACKOFF);
        let Permit::Wait(wait) = health.permit(t0 + 40 * MS) else {
            panic!("expected to wait");
        };
        assert!(wait <= MAX_BACKOFF);
    }
}
