//! The in-process keyed limiter: fixed-window state per `(limit, subject)`.
//!
//! All-or-none across the limits of one request is guaranteed by checking
//! every limit under one lock and writing only when all admit.

use super::{FixedWindowState, LimitCheck, LimitStatus, RateLimiter, StackDecision};
use crate::UnixMillis;
use std::collections::HashMap;
use std::sync::Mutex;

/// A simple, thread-safe in-memory limiter.
#[derive(Debug, Default)]
pub struct InMemoryLimiter {
    state: Mutex<HashMap<(String, String), FixedWindowState>>,
}

impl InMemoryLimiter {
    /// An empty limiter.
    pub fn new() -> Self {
        Self::default()
    }
}

impl RateLimiter for InMemoryLimiter {
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        let mut table = match self.state.lock() {
            Ok(table) => table,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut next_states = Vec::with_capacity(checks.len());
        let mut tightest: Option<LimitStatus> = None;
        let mut refusal: Option<(LimitStatus, UnixMillis)> = None;
        for (index, check) in checks.iter().enumerate() {
            let key = (check.name.to_owned(), check.subject.to_owned());
            let current = table.get(&key).copied().unwrap_or_default();
            let (verdict, next) = current.peek(check.quota, now);
            let status = LimitStatus {
                index,
                limit: check.quota.requests,
                remaining: verdict.remaining,
                reset_at: verdict.reset_at,
            };
            if verdict.admitted {
                if tightest.is_none_or(|t| status.is_tighter_than(&t)) {
                    tightest = Some(status);
                }
                next_states.push((key, next));
            } else if refusal.is_none_or(|(_, retry_at)| verdict.retry_at > retry_at) {
                refusal = Some((status, verdict.retry_at));
            }
        }
        if let Some((refusing, retry_at)) = refusal {
            return StackDecision::Refused { refusing, retry_at };
        }
        for (key, next) in next_states {
            table.insert(key, next);
        }
        StackDecision::Admitted { tightest }
    }
}
