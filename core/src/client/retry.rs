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
//! 3. At most [`RetryPolicy::max_attempts`] attempts per call, **every
//!    attempt counted, the first included, 429s included**: after attempt
//!    number `max_attempts` the call gives up, whatever the answer. Of those,
//!    at most [`RetryPolicy::max_throttled`] 429s that say when to return are
//!    retried (no separate cap by default).
//! 4. The server's time is authoritative: on a 429, `Retry-After`, else the
//!    latest reset the response reports (`RateLimit-Reset`,
//!    `x-ratelimit-reset`, `t=`); on a 5xx, `Retry-After`. The retry is never
//!    earlier, and the capped full-jitter backoff of the retry is added on
//!    top ("wait that many seconds, then retry with backoff and jitter").
//!    After a 429 that says when, that backoff stays at the level of the
//!    call's other failures, so an instance that met a 429 competes for the
//!    next window on equal terms with instances that were merely throttled.
//!    Otherwise: full-jitter exponential backoff. Either way a retry is at
//!    least [`MIN_RETRY_DELAY_MS`] after the answer, so a `Retry-After: 0`
//!    never retries in the same millisecond.
//! 5. **A server time more than [`RetryPolicy::max_retry_after_ms`] away is
//!    never waited for**: the call gives up at once with
//!    [`GiveUpReason::RetryAfterTooLong`], naming the server's time. The same
//!    bound caps what the throttle keeps (see `server_wait`), so no wait the
//!    client plans from a server's answer is longer.
//! 6. No attempt starts after `first attempt + deadline_ms +` the time the
//!    call spent waiting for the client's own proactive throttle
//!    ([`AttemptState::throttled_ms`]): those waits are the client pacing
//!    itself, not the server failing. Waits after an answer (backoff, a
//!    429's or 5xx's server time) do not extend it.
//! 7. Every retry is paid from the [`RetryBudget`]; an empty budget gives up.

use super::backoff::BackoffPolicy;
use super::budget::{BudgetPolicy, RetryBudget};
use super::error::{ClientError, GiveUpReason};
use super::http::{Outcome, TransportFailure};
use super::random::RandomSource;
use super::ratelimit_headers::parse_rate_limit_headers;
use super::request::ClientRequest;
use super::server_wait::ServerWait;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// The shortest wait before any retry: 100 ms.
pub const MIN_RETRY_DELAY_MS: u64 = 100;

/// The default of [`RetryPolicy::max_retry_after_ms`], and the bound of a
/// [`super::Throttle`] made with `Throttle::new`: 60 s.
pub const DEFAULT_MAX_RETRY_AFTER_MS: u64 = 60_000;

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
    /// Time spent waiting for the client's own proactive throttle before
    /// its attempts, which extends the deadline.
    pub throttled_ms: u64,
    /// Attempts answered 429 with a server time (`Retry-After` or a reset).
    /// They count against `max_attempts` like every attempt, and against
    /// [`RetryPolicy::max_throttled`].
    pub throttled: u32,
    /// This call's own attempt limit, replacing the policy's `max_attempts`
    /// (a per-call option).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
}

/// Retry rules of one client. With the defaults, a call that meets a 429
/// with `Retry-After: 1` on every attempt ends after 5 attempts, 4 to 9 s
/// after the first (4 × 1 s, plus a backoff of up to 1 s per retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts per logical call (one request, one page, one poll): every
    /// attempt counts, the first included, 429s included. Default 5.
    pub max_attempts: u32,
    /// Of those attempts, how many answered 429 with a server time
    /// (`Retry-After` or a reset) a call retries; the next such 429 ends it
    /// with [`GiveUpReason::MaxThrottled`]. Default `u32::MAX`: no cap of
    /// its own, `max_attempts` decides.
    pub max_throttled: u32,
    /// Backoff after a failed attempt (added on top of a server's time).
    pub backoff: BackoffPolicy,
    /// The longest wait a server may ask for: a `Retry-After`, reset or
    /// HTTP-date further away gives up at once, naming the server's time,
    /// and the throttle keeps no block, window end or window length from a
    /// server longer than this. Default 60 s.
    pub max_retry_after_ms: u64,
    /// No attempt starts later than this after the first attempt of the
    /// call's current request, plus the time that request waited for the
    /// client's own proactive throttle (pacing, not failure). Waits for a
    /// server's time and backoffs count. Default 120 s.
    pub deadline_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            max_throttled: u32::MAX,
            backoff: BackoffPolicy::default(),
            max_retry_after_ms: DEFAULT_MAX_RETRY_AFTER_MS,
            deadline_ms: 300_000,
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
        /// Whether it said when to return (`Retry-After`, or the reset of
        /// the limit it reports).
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
#[serde(tag = "type", rename_all = "snake_case")]
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
        let (cause, cost, server_until, reached_server) = match outcome {
            Outcome::Response(response) => {
                let status = response.status;
                let parsed = || parse_rate_limit_headers(&response.headers, now);
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
                        let until = parsed().refused_until();
                        let cost = if until.is_some() {
                            costs.throttled_cost
                        } else {
                            costs.retry_cost
                        };
                        let cause = RetryCause::Throttled {
                            retry_after: until.is_some(),
                        };
                        // Refused: the server did nothing, any method may retry.
                        (cause, cost, until, false)
                    }
                    500..=599 => (
                        RetryCause::ServerError { status },
                        costs.retry_cost,
                        parsed().retry_at,
                        true,
                    ),
                    _ => return give_up(GiveUpReason::NotRetryable { status }),
                }
            }
            Outcome::Transport(failure) => {
                let cost = if failure.never_sent() {
                    costs.retry_cost
                } else {
                    costs.timeout_cost
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
        // Every attempt counts, the first and 429s included.
        if attempts >= state.max_attempts.unwrap_or(self.policy.max_attempts) {
            return give_up(GiveUpReason::MaxAttempts { attempts });
        }
        let quota_wait = matches!(cause, RetryCause::Throttled { retry_after: true });
        if quota_wait && state.throttled >= self.policy.max_throttled {
            return give_up(GiveUpReason::MaxThrottled {
                refusals: state.throttled.saturating_add(1),
            });
        }
        // The backoff level: the attempts that were not a 429 saying when
        // (so such a 429 does not push the retry later in the next window).
        let failures = attempts.saturating_sub(state.throttled).max(1);
        let start = match server_until {
            Some(until) => {
                let wait = ServerWait::new(until, now, self.policy.max_retry_after_ms);
                if wait.is_too_long() {
                    return give_up(GiveUpReason::RetryAfterTooLong {
                        retry_at: wait.until,
                        wait_ms: wait.wait_ms,
                        max_wait_ms: wait.max_wait_ms,
                    });
                }
                until.max(now)
            }
            None => now,
        };
        let at = start
            .saturating_add(self.policy.backoff.delay(failures, &mut *self.random))
            .max(now.saturating_add(MIN_RETRY_DELAY_MS));
        let deadline_at = state
            .first_sent_at
            .unwrap_or(now)
            .saturating_add(self.policy.deadline_ms)
            .saturating_add(state.throttled_ms);
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
        }
        RetryDecision::Retry {
            at,
            attempt: attempts.saturating_add(1),
            cost,
            cause,
        }
    }
}
