//! The retry budget: an AWS-style token bucket per client instance.
//!
//! Retries spend tokens, successes earn a few back; when the bucket cannot
//! pay for a retry the planner gives up at once instead of waiting. So a burst
//! of failures can multiply traffic only by what the bucket holds: with the
//! defaults, 500 tokens pay for at most 100 retries of 5xx responses.
//! Integer arithmetic only; the state lives in the client instance (no global).

use serde::{Deserialize, Serialize};

/// Costs and capacity of the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetPolicy {
    /// Tokens when full (and at start).
    pub capacity: u32,
    /// Cost of retrying a 5xx, a 429 that does not say when, or a connect failure.
    pub retry_cost: u32,
    /// Cost of retrying a timeout or an interrupted connection.
    pub timeout_cost: u32,
    /// Cost of retrying a 429 that says when to return (`Retry-After`, or the
    /// reset of the limit it reports).
    pub throttled_cost: u32,
    /// Tokens earned by a call that succeeds on its first attempt.
    pub success_refund: u32,
}

impl Default for BudgetPolicy {
    fn default() -> Self {
        Self {
            capacity: 500,
            retry_cost: 5,
            timeout_cost: 10,
            throttled_cost: 1,
            success_refund: 1,
        }
    }
}

/// The bucket itself, with running totals for reports and assertions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryBudget {
    policy: BudgetPolicy,
    available: u32,
    spent_total: u64,
    refunded_total: u64,
}

impl RetryBudget {
    /// A full bucket.
    pub fn new(policy: BudgetPolicy) -> Self {
        Self {
            policy,
            available: policy.capacity,
            spent_total: 0,
            refunded_total: 0,
        }
    }

    /// The policy.
    pub fn policy(&self) -> &BudgetPolicy {
        &self.policy
    }

    /// Tokens available now.
    pub fn available(&self) -> u32 {
        self.available
    }

    /// Tokens spent on retries since creation.
    pub fn spent_total(&self) -> u64 {
        self.spent_total
    }

    /// Tokens earned back since creation (only what actually went back in).
    pub fn refunded_total(&self) -> u64 {
        self.refunded_total
    }

    /// Takes `cost` tokens if there are that many; never blocks.
    pub fn try_spend(&mut self, cost: u32) -> bool {
        match self.available.checked_sub(cost) {
            Some(left) => {
                self.available = left;
                self.spent_total = self.spent_total.saturating_add(u64::from(cost));
                true
            }
            None => false,
        }
    }

    /// Puts `tokens` back, never above capacity.
    pub fn refund(&mut self, tokens: u32) {
        let room = self.policy.capacity.saturating_sub(self.available);
        let added = tokens.min(room);
        self.available = self.available.saturating_add(added);
        self.refunded_total = self.refunded_total.saturating_add(u64::from(added));
    }
}

impl Default for RetryBudget {
    fn default() -> Self {
        Self::new(BudgetPolicy::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spends_exactly_and_refunds_up_to_capacity() {
        let mut budget = RetryBudget::default();
        assert_eq!(budget.available(), 500);
        let mut retries = 0;
        while budget.try_spend(5) {
            retries += 1;
        }
        assert_eq!((retries, budget.available()), (100, 0));
        assert!(!budget.try_spend(1));
        budget.refund(1);
        assert!(budget.try_spend(1));
        budget.refund(10_000);
        assert_eq!(budget.available(), 500);
        assert_eq!(budget.refunded_total(), 501);
        assert_eq!(budget.spent_total(), 501);
    }
}
