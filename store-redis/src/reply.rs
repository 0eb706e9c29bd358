//! The scripts' replies: five integers per decision from `stack.lua`
//! (GCRA), three from `window.lua` (fixed window, whose reset and retry
//! times the caller knows), read into [`Outcome`]s and then into
//! [`StackDecision`]s; anything of the wrong shape is
//! [`StoreError::Garbage`].

use crate::error::StoreError;
use acd_core::limit::{LimitCheck, LimitStatus, StackDecision};
use acd_core::UnixMillis;
use redis::Value;

/// One decision's outcome: admitted (1, 0, or -1 for an unreadable key),
/// the check or key index, remaining, reset and retry time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome([i64; 5]);

pub(crate) fn garbage(why: &str) -> StoreError {
    StoreError::Garbage(format!("the decision reply {why}"))
}

pub(crate) fn outcomes(reply: &Value, decisions: usize) -> Result<Vec<Outcome>, StoreError> {
    let Value::Array(items) = reply else {
        return Err(garbage("is not an array"));
    };
    if Some(items.len()) != decisions.checked_mul(5) {
        return Err(garbage("does not have five members per decision"));
    }
    items
        .chunks_exact(5)
        .map(|chunk| {
            let mut numbers = [0_i64; 5];
            for (slot, item) in numbers.iter_mut().zip(chunk) {
                match item {
                    Value::Int(n) => *slot = *n,
                    _ => return Err(garbage("has a member that is not an integer")),
                }
            }
            Ok(Outcome(numbers))
        })
        .collect()
}

impl Outcome {
    /// An outcome from its five integers.
    pub(crate) fn new(numbers: [i64; 5]) -> Self {
        Self(numbers)
    }

    /// Whether the script could not read a key of this decision.
    pub(crate) fn unreadable(&self) -> bool {
        let [admitted, ..] = self.0;
        admitted == -1
    }

    /// The decision about `checks`, the checks this outcome's decision was
    /// prepared from; `key_name` names a key by its batch index.
    pub(crate) fn decision(
        &self,
        checks: &[LimitCheck<'_>],
        key_name: impl Fn(i64) -> Option<String>,
    ) -> Result<StackDecision, StoreError> {
        let [admitted, index, remaining, reset_at, retry_at] = self.0;
        if admitted == -1 {
            let key = key_name(index).unwrap_or_else(|| format!("number {index}"));
            return Err(StoreError::Garbage(format!(
                "ACDGARBAGE the state at key {key} is not one this store writes (a count, or \
                 two integers \"T:E\" for GCRA); delete the key or let it expire"
            )));
        }
        let time = |n: i64| u64::try_from(n).map_err(|_| garbage("has a negative time"));
        let (reset_at, retry_at) = (
            UnixMillis::new(time(reset_at)?),
            UnixMillis::new(time(retry_at)?),
        );
        let remaining =
            u32::try_from(remaining).map_err(|_| garbage("has a bad remaining count"))?;
        let status = |index: i64| -> Result<LimitStatus, StoreError> {
            let index = usize::try_from(index).map_err(|_| garbage("names no check"))?;
            let check = checks.get(index).ok_or_else(|| garbage("names no check"))?;
            Ok(LimitStatus {
                index,
                limit: check.quota.requests,
                remaining,
                reset_at,
            })
        };
        match admitted {
            1 if index == -1 && checks.is_empty() => Ok(StackDecision::Admitted { tightest: None }),
            1 => Ok(StackDecision::Admitted {
                tightest: Some(status(index)?),
            }),
            0 if remaining == 0 => Ok(StackDecision::Refused {
                refusing: status(index)?,
                retry_at,
            }),
            _ => Err(garbage("has a bad outcome")),
        }
    }
}

/// Three integers per decision (`window.lua`).
pub(crate) fn short_outcomes(reply: &Value, decisions: usize) -> Result<Vec<[i64; 3]>, StoreError> {
    let Value::Array(items) = reply else {
        return Err(garbage("is not an array"));
    };
    if Some(items.len()) != decisions.checked_mul(3) {
        return Err(garbage("does not have three members per decision"));
    }
    items
        .chunks_exact(3)
        .map(|chunk| {
            let mut numbers = [0_i64; 3];
            for (slot, item) in numbers.iter_mut().zip(chunk) {
                match item {
                    Value::Int(n) => *slot = *n,
                    _ => return Err(garbage("has a member that is not an integer")),
                }
            }
            Ok(numbers)
        })
        .collect()
}
