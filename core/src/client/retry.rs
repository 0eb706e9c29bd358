//! Retry planning: after every attempt, [`RetryPlanner::on_outcome`] answers
//! "done", "retry at T" or "give up, because…".
//!
//! Rules, in order:
//! 1. 2xx: done (the budget earns tokens back). 1xx/3xx and 4xx other than
//!    429: give up, the request itself must change.
//! 2. 429, 5xx and transport failures are retryable; a request that may have
//!    reached the server is retried only when idempotent (GET… or an
//!    idempotency key); a connect failure never left the client, so any
//!    method may be retried.
//! 3. At most `max_attempts` attempts.
//! 4. `Retry-After` (on a 429, or a 5xx that sends it) is authoritative: the
//!    retry is never earlier, and gets a positive jitter of up to
//!    `min(10 %, 5 s)`; a wait beyond `max_retry_after_ms` gives up at once,
//!    naming the server's time. Otherwise: full-jitter exponential backoff.
//! 5. No attempt starts after `first attempt + deadline_ms`.
//! 6. Every retry is paid from the [`RetryBudget`]; an empty budget gives up.

use super::backoff::{retry_after_jitter, BackoffPolicy};
use super::budget::{BudgetPolicy, RetryBudget};
use super::error::{ClientError, GiveUpReason};
use super::http::{Outcome, TransportFailure};
use super::random::RandomSource;
use super::ratelimit_headers::parse_rate_limit_headers;
use super::request::ClientRequest;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// Retry rules of one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts per logical call, the first included.
    pub max_attempts: u32,
    /// Backoff when the server does not say when to retry.
    pub backoff: BackoffPolicy,
    /// The longest `Retry-After` the caller is willing to wait.
    pub max_retry_after_ms: u64,
    /// No attempt starts later than this after the first one.
    pub deadline_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            backoff: BackoffPolicy::default(),
            max_retry_after_ms: 60_000,
            deadline_ms: 120_000,
        }
    }
}

impl RetryPolicy {
    /// Checks the values.
    pub fn check(&self) -> Result<(), ClientError> {
        if self.max_attempts == 0 {
            return Err(ClientError::InvalidConfig {
                field: "retry.max_attempts".into(),
                problem: "must be at least 1 (the first attempt counts)".into(),
            });
        }
        Ok(())
    }
}

/// What made an attempt worth retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RetryCause {
    /// A 429.
    Throttled {
        /// Whether it carried `Retry-After`.
        retry_after: bool,
    },
    /// A 5xx.
    ServerError {
        /// The status.
        status: u16,
    },
    /// No response.
    Transport {
        /// How it failed.
        failure: TransportFailure,
    },
}

/// The planner's answer after one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum RetryDecision {
    /// The call succeeded.
    Done,
    /// Send attempt number `attempt` at `at` (not earlier).
    Retry {
        /// The instant (caller's clock).
        at: UnixMillis,
        /// The number of the next attempt (2 for the first retry).
        attempt: u32,
        /// Budget tokens this retry spent.
        cost: u32,
        /// Why it is retried.
        cause: RetryCause,
    },
    /// Stop.
    GiveUp {
        /// Why.
        reason: GiveUpReason,
    },
}

/// Plans retries for one client: its policy, budget and random source.
pub struct RetryPlanner {
    policy: RetryPolicy,
    budget: RetryBudget,
    random: Box<dyn RandomSource>,
}

impl std::fmt::Debug for RetryPlanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetryPlanner")
            .field("policy", &self.policy)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl RetryPlanner {
    /// A planner with a full budget.
    pub fn new(policy: RetryPolicy, budget: BudgetPolicy, random: Box<dyn RandomSource>) -> Self {
        Self {
            policy,
            budget: RetryBudget::new(budget),
            random,
        }
    }

    /// A planner starting from an existing budget (e.g. one carried over,
    /// or a partly spent one in a test).
    pub fn with_budget(
        policy: RetryPolicy,
        budget: RetryBudget,
        random: Box<dyn RandomSource>,
    ) -> Self {
        Self {
            policy,
            budget,
            random,
        }
    }

    /// The policy.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// The budget.
    pub fn budget(&self) -> &RetryBudget {
        &self.budget
    }

    /// The random source (jitter elsewhere in the client draws from it too,
    /// so one seed fixes every decision).
    pub fn random(&mut self) -> &mut dyn RandomSource {
        &mut *self.random
    }

    /// Decides after an attempt of `request` ended with `outcome` at `now`.
    /// Records the retry's cost on the request so a later success refunds it.
    pub fn on_outcome(
        &mut self,
        request: &mut ClientRequest,
        outcome: &Outcome,
        now: UnixMillis,
    ) -> RetryDecision {
        let give_up = |reason| RetryDecision::GiveUp { reason };
        let attempts = request.attempts.max(1);
        let costs = *self.budget.policy();
        let (cause, cost, retry_at, reached_server) = match outcome {
            Outcome::Response(response) => {
                let status = response.status;
                let retry_at = || parse_rate_limit_headers(&response.headers, now).retry_at;
                match status {
                    200..=299 => {
                        let refund = if attempts <= 1 {
                            costs.success_refund
                        } else {
                            request.held_retry_cost
                        };
                        self.budget.refund(refund);
                        request.held_retry_cost = 0;
                        return RetryDecision::Done;
                    }
                    429 => {
                        let at = retry_at();
                        let cost = if at.is_some() {
                            costs.throttled_cost
                        } else {
                            costs.retry_cost
                        };
                        let cause = RetryCause::Throttled {
                            retry_after: at.is_some(),
                        };
                        (cause, cost, at, true)
                    }
                    500..=599 => (
                        RetryCause::ServerError { status },
                        costs.retry_cost,
                        retry_at(),
                        true,
                    ),
                    _ => return give_up(GiveUpReason::NotRetryable { status }),
                }
            }
            Outcome::Transport(failure) => {
                let cost = match failure {
                    TransportFailure::Connect => costs.retry_cost,
                    TransportFailure::Timeout | TransportFailure::Interrupted => costs.timeout_cost,
                };
                let cause = RetryCause::Transport { failure: *failure };
                (cause, cost, None, !failure.never_sent())
            }
        };
        if reached_server && !request.is_idempotent() {
            return give_up(GiveUpReason::UnsafeToRetry {
                method: request.method.clone(),
            });
        }
        if attempts >= self.policy.max_attempts {
            return give_up(GiveUpReason::MaxAttempts { attempts });
        }
        let at = match retry_at {
            Some(retry_at) => {
                let wait_ms = retry_at.saturating_sub(now);
                if wait_ms > self.policy.max_retry_after_ms {
                    return give_up(GiveUpReason::RetryAfterTooLong {
                        retry_at,
                        wait_ms,
                        max_wait_ms: self.policy.max_retry_after_ms,
                    });
                }
                retry_at.saturating_add(retry_after_jitter(wait_ms, &mut *self.random))
            }
            None => now.saturating_add(self.policy.backoff.delay(attempts, &mut *self.random)),
        };
        let deadline_at = request
            .first_sent_at
            .unwrap_or(now)
            .saturating_add(self.policy.deadline_ms);
        if at > deadline_at {
            return give_up(GiveUpReason::Deadline {
                deadline_at,
                next_at: at,
            });
        }
        if !self.budget.try_spend(cost) {
            return give_up(GiveUpReason::BudgetExhausted {
                available: self.budget.available(),
                cost,
            });
        }
        request.held_retry_cost = cost;
        RetryDecision::Retry {
            at,
            attempt: attempts.saturating_add(1),
            cost,
            cause,
        }
    }
}
