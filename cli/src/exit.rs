//! Exit statuses and the final stderr line of a failed command.

use crate::interrupt::INTERRUPTED;
use crate::run::Failure;
use acd_core::client::{ClientError, GiveUpReason};
use std::io::ErrorKind;

/// Success.
pub const SUCCESS: u8 = 0;
/// The API answered an error that is not retried, or a response broke the spec.
pub const API_ERROR: u8 = 1;
/// Bad command line or configuration; nothing was sent.
pub const USAGE: u8 = 2;
/// Gave up: attempts or deadline used up, or a wait past the deadline.
pub const GAVE_UP: u8 = 3;

/// The exit status of `failure` and the line to print, if any.
pub fn describe(failure: &Failure) -> (u8, Option<String>) {
    match failure {
        Failure::Interrupted => (INTERRUPTED, Some("interrupted".to_owned())),
        // A closed pipe (`acd ... | head`) is how the reader says "enough".
        Failure::Output(error) if error.kind() == ErrorKind::BrokenPipe => (SUCCESS, None),
        Failure::Output(error) => (
            API_ERROR,
            Some(format!("error: could not write the output: {error}")),
        ),
        Failure::Client(error) => (code_of(error), Some(line_of(error))),
        Failure::RunEnded(status) => (API_ERROR, Some(format!("error: the run ended {status}"))),
        Failure::Jq(error) => (API_ERROR, Some(format!("error: {error}"))),
        Failure::Stalled => (
            GAVE_UP,
            Some("error: gave up: the client stopped before the call ended".to_owned()),
        ),
    }
}

/// The exit status of a client error.
pub fn code_of(error: &ClientError) -> u8 {
    match error {
        // The server's answer broke the contract: a redirect (never followed)
        // or a body above `ClientConfig::max_body_bytes` is a protocol error.
        ClientError::Api { .. }
        | ClientError::Protocol { .. }
        | ClientError::Redirect { .. }
        | ClientError::BodyTooLarge { .. } => API_ERROR,
        ClientError::KeysetValueMissing { .. } => API_ERROR,
        ClientError::GaveUp {
            reason: GiveUpReason::NotRetryable { .. },
            last,
            ..
        } => code_of(last),
        ClientError::GaveUp { .. }
        | ClientError::Transport { .. }
        | ClientError::PollDeadline { .. }
        | ClientError::RateLimitedTooLong { .. } => GAVE_UP,
        // Everything else is found while building the request: nothing was sent.
        _ => USAGE,
    }
}

/// The final stderr line: `error: <status> <detail>` for API errors.
pub fn line_of(error: &ClientError) -> String {
    match error {
        ClientError::Api { status, detail, .. } => format!("error: {status} {detail}"),
        ClientError::GaveUp {
            reason: GiveUpReason::NotRetryable { .. },
            last,
            ..
        } => line_of(last),
        ClientError::GaveUp {
            reason,
            attempts,
            last,
        } => {
            let reason = match reason {
                GiveUpReason::Deadline {
                    deadline_at,
                    next_at,
                } => format!(
                    "the next attempt would start {:.1} s after the deadline; raise --deadline to \
                     wait longer",
                    next_at.saturating_since(*deadline_at) as f64 / 1000.0
                ),
                GiveUpReason::RetryAfterTooLong {
                    wait_ms,
                    max_wait_ms,
                    ..
                } => format!(
                    "the server asked to wait {:.1} s, longer than the {:.1} s the retry policy \
                     accepts from a server (max_retry_after_ms); try again after that time, or \
                     give a --deadline that long",
                    *wait_ms as f64 / 1000.0,
                    *max_wait_ms as f64 / 1000.0
                ),
                GiveUpReason::MaxThrottled { refusals } => format!(
                    "the server refused {refusals} attempts with 429, more than the retry policy \
                     allows (max_throttled); the quota is in use elsewhere, so try again later"
                ),
                GiveUpReason::MaxAttempts { attempts } => {
                    format!("all {attempts} attempts were used; raise --max-attempts to try more")
                }
                other => other.to_string(),
            };
            let last = match last.as_ref() {
                ClientError::Api { status, detail, .. } => format!("{status} {detail}"),
                // The engine's note on a wait that was never slept.
                ClientError::InvalidConfig { problem, .. } => problem.clone(),
                other => other.to_string(),
            };
            if *attempts == 0 {
                format!("error: gave up: {reason}; {last}")
            } else {
                format!("error: gave up after {attempts} attempt(s): {reason}; last: {last}")
            }
        }
        ClientError::RateLimitedTooLong {
            limit,
            wait_ms,
            max_wait_ms,
            ..
        } => format!(
            "error: gave up: the server says the {limit} limit admits no request for {:.1} s, \
             longer than the {:.1} s the retry policy accepts from a server \
             (max_retry_after_ms); try again after that time, or give a --deadline that long",
            *wait_ms as f64 / 1000.0,
            *max_wait_ms as f64 / 1000.0
        ),
        ClientError::PollDeadline { last_status, .. } => format!(
            "error: gave up: the run was still {last_status:?} when the deadline passed; raise \
             --deadline to wait longer"
        ),
        ClientError::NoCredential { operation } => format!(
            "error: {operation} needs a credential; give --api-key KEY or --token TOKEN \
             (or set ACD_API_KEY or ACD_TOKEN)"
        ),
        other => format!("error: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::client::TransportFailure;

    #[test]
    fn statuses_follow_the_contract() {
        let api = ClientError::Api {
            status: 404,
            detail: "No table \"x\".".into(),
            extra: acd_core::client::ExtraMembers::empty(),
            retry_at: None,
        };
        assert_eq!(code_of(&api), 1);
        assert_eq!(line_of(&api), "error: 404 No table \"x\".");
        let gave_up = ClientError::GaveUp {
            reason: GiveUpReason::MaxAttempts { attempts: 2 },
            attempts: 2,
            last: Box::new(ClientError::Transport {
                failure: TransportFailure::Interrupted,
                origin: None,
            }),
        };
        assert_eq!(code_of(&gave_up), 3);
        let missing = ClientError::NoCredential {
            operation: "listTableRecords".into(),
        };
        assert_eq!(code_of(&missing), 2);
        let broken = ClientError::Protocol {
            status: 200,
            problem: "not JSON".into(),
        };
        assert_eq!(code_of(&broken), 1);
    }

    #[test]
    fn a_redirect_and_a_body_too_large_are_api_errors_not_usage() {
        let redirect = ClientError::Redirect {
            status: 302,
            location: Some("http://other.example/api/v1/tables/t".into()),
        };
        assert_eq!(code_of(&redirect), API_ERROR);
        assert!(line_of(&redirect).starts_with("error: the API answered 302"));
        let too_large = ClientError::BodyTooLarge {
            status: 200,
            limit: 1000,
        };
        assert_eq!(code_of(&too_large), API_ERROR);
        assert!(line_of(&too_large).contains("1000 bytes"));
        // Given up after retries whose last answer was one of them: still gave up.
        let gave_up = ClientError::GaveUp {
            reason: GiveUpReason::MaxAttempts { attempts: 5 },
            attempts: 5,
            last: Box::new(too_large),
        };
        assert_eq!(code_of(&gave_up), GAVE_UP);
    }

    #[test]
    fn waits_the_policy_refuses_and_persistent_429s_are_explained() {
        let too_long = ClientError::GaveUp {
            reason: GiveUpReason::RetryAfterTooLong {
                retry_at: 86_400_000.into(),
                wait_ms: 86_400_000,
                max_wait_ms: 60_000,
            },
            attempts: 1,
            last: Box::new(ClientError::Api {
                status: 429,
                detail: "Slow down.".into(),
                extra: acd_core::client::ExtraMembers::empty(),
                retry_at: None,
            }),
        };
        assert_eq!(code_of(&too_long), GAVE_UP);
        assert_eq!(
            line_of(&too_long),
            "error: gave up after 1 attempt(s): the server asked to wait 86400.0 s, longer than \
             the 60.0 s the retry policy accepts from a server (max_retry_after_ms); try again \
             after that time, or give a --deadline that long; last: 429 Slow down."
        );
        let throttled = ClientError::GaveUp {
            reason: GiveUpReason::MaxThrottled { refusals: 3 },
            attempts: 3,
            last: Box::new(ClientError::Api {
                status: 429,
                detail: "Slow down.".into(),
                extra: acd_core::client::ExtraMembers::empty(),
                retry_at: None,
            }),
        };
        assert_eq!(code_of(&throttled), GAVE_UP);
        assert_eq!(
            line_of(&throttled),
            "error: gave up after 3 attempt(s): the server refused 3 attempts with 429, more than \
             the retry policy allows (max_throttled); the quota is in use elsewhere, so try again \
             later; last: 429 Slow down."
        );
    }
}
