//! Retry planning: after every attempt, [`RetryPlanner::on_outcome`] answers
//! "done", "retry at T" or "give up, because…".
//!
//! Rules, in order:
//! 1. 2xx: done (the budget earns tokens back). 1xx/3xx and 4xx other than
//!    429: give up, the request itself must change.
//! 2. 429, 5xx and transport failures are retryable. A 429 means the server
//!    refused the request, so any method is retried; a request that may have
//!    been processed (5xx, timeout, broken connection) is retried only when
//!    idempotent (GET… or an idempotency key); a connect failure never left
//!    the client, so any method may be retried.
//! 3. At most `max_attempts` attempts. A 429 with `Retry-After` is the
//!    server saying when its quota admits again: it counts against
//!    `max_throttled` instead, and its backoff stays at the level of the
//!    call's real failures, so an instance that met a 429 competes for the
//!    next window on equal terms with instances that were merely throttled.
//! 4. `Retry-After` (on a 429, or a 5xx that sends it) is authoritative: the
//!    retry is never earlier, and the capped full-jitter backoff of the retry
//!    is added on top ("wait that many seconds, then retry with backoff and
//!    jitter"); a wait beyond `max_retry_after_ms` gives up at once, naming
//!    the server's time. Otherwise: full-jitter exponential backoff. Either
//!    way a retry is at least [`MIN_RETRY_DELAY_MS`] after the answer, so a
//!    `Retry-After: 0` never retries in the same millisecond.
//! 5. No attempt starts after `first attempt + deadline_ms`, plus the time
//!    the call spent waiting for the client's own throttle
//!    ([`AttemptState::throttled_ms`]): proactive waits are not the server
//!    failing, so they do not eat the deadline.
//! 6. Every retry is paid from the [`RetryBudget`]; an empty budget gives up.

use super::backoff::BackoffPolicy;
use super::budget::{BudgetPolicy, RetryBudget};
use super::error::{ClientError, GiveUpReason};
use super::http::{Outcome, TransportFailure};
use super::random::RandomSource;
use super::ratelimit_headers::parse_rate_limit_headers;
use super::request::ClientRequest;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// The shortest wait before any retry: 100 ms.
pub const MIN_RETRY_DELAY_MS: u64 = 100;

/// One logical call's attempt bookkeeping. The driver keeps it per call; it
/// is public for callers that use [`RetryPlanner`] directly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AttemptState {
    /// Attempts sent so far (0 before the first).
    pub attempts: u32,
    /// When the first attempt was sent.
    pub first_sent_at: Option<UnixMillis>,
    /// Budget tokens the last retry spent (refunded on success).
    pub held_retry_cost: u32,
    /// Time spent waiting for a quota — the client's own throttle, or a
    /// 429's `Retry-After` — which extends the deadline.
    pub throttled_ms: u64,
    /// Attempts answered 429 with `Retry-After` (they count against
    /// [`RetryPolicy::max_throttled`], not `max_attempts`).
    pub throttled: u32,
}

/// Retry rules of one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts per logical call, the first included; a 429 that carries
    /// `Retry-After` is a wait for a quota and does not count.
    pub max_attempts: u32,
    /// 429s with `Retry-After` one logical call accepts before giving up
    /// (quota waits; each also costs the budget its `throttled_cost`).
    pub max_throttled: u32,
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
            max_throttled: 20,
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
#[non_exhaustive]
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
#[non_exhaustive]
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
    /// Records the retry's cost in `state` so a later success refunds it.
    pub fn on_outcome(
        &mut self,
        request: &ClientRequest,
        state: &mut AttemptState,
        outcome: &Outcome,
        now: impl Into<UnixMillis>,
    ) -> RetryDecision {
        let now = now.into();
        let give_up = |reason| RetryDecision::GiveUp { reason };
        let attempts = state.attempts.max(1);
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
                            state.held_retry_cost
                        };
                        self.budget.refund(refund);
                        state.held_retry_cost = 0;
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
                        // Refused: the server did nothing, any method may retry.
                        (cause, cost, at, false)
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
        // A 429 that says when is a wait for a quota, not a failure: it
        // counts against `max_throttled`, not `max_attempts`, and its wait
        // extends the deadline like a throttle wait.
        let quota_wait = matches!(cause, RetryCause::Throttled { retry_after: true });
        let failures = attempts.saturating_sub(state.throttled).max(1);
        if quota_wait {
            if state.throttled >= self.policy.max_throttled {
                return give_up(GiveUpReason::MaxAttempts { attempts });
            }
        } else if failures >= self.policy.max_attempts {
            return give_up(GiveUpReason::MaxAttempts { attempts });
        }
        let at = match retry_at {
            Some(retry_at) => {
                let wait_ms = retry_at.saturating_since(now);
                if wait_ms > self.policy.max_retry_after_ms {
                    return give_up(GiveUpReason::RetryAfterTooLong {
                        retry_at,
                        wait_ms,
                        max_wait_ms: self.policy.max_retry_after_ms,
                    });
                }
                retry_at
                    .max(now)
                    .saturating_add(self.policy.backoff.delay(failures, &mut *self.random))
            }
            None => now.saturating_add(self.policy.backoff.delay(failures, &mut *self.random)),
        }
        .max(now.saturating_add(MIN_RETRY_DELAY_MS));
        let quota_ms = if quota_wait {
            retry_at.map_or(0, |retry_at| retry_at.saturating_since(now))
        } else {
            0
        };
        let deadline_at = state
            .first_sent_at
            .unwrap_or(now)
            .saturating_add(self.policy.deadline_ms)
            .saturating_add(state.throttled_ms)
            .saturating_add(quota_ms);
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
        state.held_retry_cost = cost;
        if quota_wait {
            state.throttled = state.throttled.saturating_add(1);
            state.throttled_ms = state.throttled_ms.saturating_add(quota_ms);
        }
        RetryDecision::Retry {
            at,
            attempt: attempts.saturating_add(1),
            cost,
            cause,
        }
    }
}
