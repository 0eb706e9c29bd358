//! `--max-attempts N`, the CLI's contract: at most N attempts per request,
//! the first try included, 429s included, whatever mix of 429s, 5xx and
//! transport failures a server answers.
//!
//! The core's retry policy is set from N (see `setup::apply_max_attempts`);
//! this count is the backstop that makes the contract exact: it counts the
//! sends of the current request (a 2xx answer starts a new one) and, when
//! the core plans a retry after the N-th, ends the call there.

use acd_core::client::{interpret, ClientConfig, ClientError, GiveUpReason, Outcome, WaitReason};

/// Attempts of the request in progress.
#[derive(Debug)]
pub struct AttemptCount {
    max: u32,
    tries: u32,
    operation: String,
    last: Option<ClientError>,
}

impl AttemptCount {
    /// A count bounded by `max` attempts per request.
    pub fn new(max: u32) -> Self {
        Self {
            max,
            tries: 0,
            operation: String::new(),
            last: None,
        }
    }

    /// A request of `operation` was sent.
    pub fn sent(&mut self, operation: &str) {
        self.tries = self.tries.saturating_add(1);
        operation.clone_into(&mut self.operation);
    }

    /// Its attempt ended with `outcome`: a 2xx ends the request, anything
    /// else is kept as the failure a give-up names.
    pub fn answered(&mut self, outcome: &Outcome, config: &ClientConfig) {
        match outcome {
            Outcome::Response(response) if (200..300).contains(&response.status) => {
                self.tries = 0;
                self.last = None;
            }
            Outcome::Response(response) => {
                self.last = config
                    .catalogue
                    .get(&self.operation)
                    .and_then(|operation| interpret(operation, response).err());
            }
            Outcome::Transport(failure) => {
                self.last = Some(ClientError::Transport { failure: *failure });
            }
        }
    }

    /// The error that ends the call when the core plans a wait for `reason`
    /// although this request has had its N attempts.
    pub fn exhausted(&self, reason: WaitReason) -> Option<ClientError> {
        let retry = matches!(reason, WaitReason::RetryAfter | WaitReason::Backoff { .. });
        if !retry || self.tries < self.max {
            return None;
        }
        let last = self.last.clone()?;
        Some(ClientError::GaveUp {
            reason: GiveUpReason::MaxAttempts {
                attempts: self.tries,
            },
            attempts: self.tries,
            last: Box::new(last),
        })
    }
}
