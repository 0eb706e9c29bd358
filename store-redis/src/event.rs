//! What the store reports about itself: one line per outage, recovery or
//! unreadable request, to a sink the caller chooses (stderr by default).

use crate::config::FaultPolicy;
use crate::error::StoreError;
use std::sync::Arc;
use std::time::Duration;

/// Something an operator should see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreEvent {
    /// Redis stopped answering (first failure) or a reconnection attempt
    /// failed again.
    Unavailable {
        /// The server, without credentials.
        endpoint: String,
        /// What went wrong.
        error: StoreError,
        /// What requests get meanwhile.
        policy: FaultPolicy,
        /// Failed attempts in a row.
        failures: u32,
        /// Wait before the next attempt.
        retry_in: Duration,
    },
    /// Redis answers again.
    Recovered {
        /// The server, without credentials.
        endpoint: String,
        /// How long it was unavailable.
        down_for: Duration,
        /// Failed attempts meanwhile.
        failures: u32,
    },
    /// One request could not be decided although Redis answered (a key
    /// holds an unreadable state, a time is out of range); the fault policy
    /// answered it. Reported at most once a second, with a count.
    RequestFailed {
        /// The server, without credentials.
        endpoint: String,
        /// What went wrong.
        error: StoreError,
        /// What the request got.
        policy: FaultPolicy,
        /// Such failures not reported since the last line.
        suppressed: u64,
    },
}

/// The error on one line: control characters (a server's multi-line
/// message, raw garbage) become spaces.
fn one_line(error: &StoreError) -> String {
    error
        .to_string()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn meanwhile(policy: FaultPolicy) -> &'static str {
    match policy {
        FaultPolicy::FailOpen => {
            "failing open: each gate instance now enforces the limits on its own (in-memory)"
        }
        FaultPolicy::FailClosed => "failing closed: requests are answered 503 with Retry-After",
    }
}

impl std::fmt::Display for StoreEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreEvent::Unavailable {
                endpoint,
                error,
                policy,
                failures: 1,
                retry_in,
            } => write!(
                f,
                "rate-limit store {endpoint} is unavailable ({}); {}; reconnecting in {} ms",
                one_line(error),
                meanwhile(*policy),
                retry_in.as_millis()
            ),
            StoreEvent::Unavailable {
                endpoint,
                error,
                policy,
                failures,
                retry_in,
            } => write!(
                f,
                "rate-limit store {endpoint} still unavailable after {failures} attempts \
                 ({}); still {}; next attempt in {} ms",
                one_line(error),
                policy,
                retry_in.as_millis()
            ),
            StoreEvent::Recovered {
                endpoint,
                down_for,
                failures,
            } => write!(
                f,
                "rate-limit store {endpoint} is back after {} ms and {failures} failed \
                 attempt(s); limits are shared again",
                down_for.as_millis()
            ),
            StoreEvent::RequestFailed {
                endpoint,
                error,
                policy,
                suppressed,
            } => {
                write!(
                    f,
                    "rate-limit store {endpoint} could not decide a request ({}); {policy} \
                     for it",
                    one_line(error)
                )?;
                if *suppressed > 0 {
                    write!(
                        f,
                        " ({suppressed} more such failures since the last report)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// Where events go.
pub type EventSink = Arc<dyn Fn(&StoreEvent) + Send + Sync>;

/// The default sink: one line on stderr, prefixed `acd-redis:`.
pub fn stderr_sink() -> EventSink {
    Arc::new(|event: &StoreEvent| eprintln!("acd-redis: {event}"))
}
