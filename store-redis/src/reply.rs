//! The scripts' replies: five integers per decision from `stack.lua`
//! (GCRA); from `window.lua` (fixed window, whose reset and retry times the
//! caller knows) either each key's count before the call, when every
//! decision was admitted, or three integers per decision. Both are read
//! into [`Outcome`]s and then into [`StackDecision`]s; anything of the
//! wrong shape is [`StoreError::Garbage`].

use crate::error::StoreError;
use acd_core::limit::{
    decide_stack, FixedWindow, FixedWindowRule, FixedWindowState, LimitCheck, LimitStatus,
    StackDecision,
};
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

/// Where one decision of a batch finds its time and its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decided {
    pub(crate) now: u64,
    /// Its checks are `checks[first..first + count]` of the batch.
    pub(crate) first: usize,
    pub(crate) count: usize,
}

/// One fixed-window check of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchCheck {
    /// 0-based index into the batch's keys.
    pub(crate) key: usize,
    pub(crate) requests: u32,
    pub(crate) window: u64,
    /// The end of its window (Unix ms).
    pub(crate) end: u64,
    /// How many checks of the batch on the same key come before it.
    pub(crate) position: u64,
}

/// `window.lua`'s reply as one outcome per decision: `{1, count per key}`
/// when every decision was admitted (each decision is then computed here
/// by acd-core's `decide_stack` from the counts, as the script would
/// have), or `{0, 3 integers per decision}`.
pub(crate) fn window_outcomes(
    reply: &Value,
    decided: &[Decided],
    checks: &[BatchCheck],
    keys: usize,
) -> Result<Vec<Outcome>, StoreError> {
    let Value::Array(items) = reply else {
        return Err(garbage("is not an array"));
    };
    let ints = items
        .iter()
        .map(|item| match item {
            Value::Int(n) => Ok(*n),
            _ => Err(garbage("has a member that is not an integer")),
        })
        .collect::<Result<Vec<i64>, StoreError>>()?;
    let of = |d: &Decided| {
        checks
            .get(d.first..d.first.saturating_add(d.count))
            .ok_or_else(|| garbage("names no check"))
    };
    let time = |n: u64| i64::try_from(n).map_err(|_| garbage("has a bad time"));
    match ints.split_first() {
        Some((1, counts)) if counts.len() == keys => {
            let mut scratch = Scratch::default();
            decided
                .iter()
                .map(|d| all_admitted(of(d)?, counts, d.now, &mut scratch))
                .collect()
        }
        Some((0, rest)) if Some(rest.len()) == decided.len().checked_mul(3) => rest
            .chunks_exact(3)
            .zip(decided)
            .map(|(chunk, d)| {
                let &[admitted, index, remaining] = chunk else {
                    return Err(garbage("does not have three members per decision"));
                };
                let mine = of(d)?;
                let end = |index: i64| {
                    usize::try_from(index)
                        .ok()
                        .and_then(|i| mine.get(i))
                        .ok_or_else(|| garbage("names no check"))
                        .and_then(|check| time(check.end))
                };
                let now = time(d.now)?;
                Ok(Outcome::new(match admitted {
                    1 if index == -1 => [1, -1, 0, 0, now],
                    1 => [1, index, remaining, end(index)?, now],
                    0 => [0, index, remaining, end(index)?, end(index)?],
                    _ => [admitted, index, remaining, 0, 0],
                }))
            })
            .collect(),
        _ => Err(garbage("does not have the shape of a decision reply")),
    }
}

/// Buffers reused from one decision of a batch to the next.
#[derive(Default)]
struct Scratch {
    rules: Vec<FixedWindowRule>,
    same: Vec<usize>,
    states: Vec<FixedWindowState>,
}

/// One decision of a batch whose every decision was admitted, from the
/// keys' counts before the call: acd-core's own stacked decision over the
/// counts each check saw.
fn all_admitted(
    checks: &[BatchCheck],
    counts: &[i64],
    now: u64,
    scratch: &mut Scratch,
) -> Result<Outcome, StoreError> {
    let Scratch {
        rules,
        same,
        states,
    } = scratch;
    rules.clear();
    rules.extend(checks.iter().map(|c| FixedWindowRule {
        requests: c.requests,
        window: c.window,
    }));
    same.clear();
    same.extend(checks.iter().enumerate().map(|(i, c)| {
        checks
            .iter()
            .take(i)
            .position(|o| o.key == c.key)
            .unwrap_or(i)
    }));
    states.clear();
    for c in checks {
        let count = counts
            .get(c.key)
            .and_then(|&n| u64::try_from(n).ok())
            .and_then(|n| u32::try_from(n.saturating_add(c.position)).ok())
            .ok_or_else(|| garbage("has a bad count"))?;
        states.push(FixedWindowState {
            reset_at: UnixMillis::new(c.end),
            count,
        });
    }
    let now_ms = UnixMillis::new(now);
    let now = i64::try_from(now).map_err(|_| garbage("has a bad time"))?;
    let time = |t: UnixMillis| i64::try_from(t.as_millis()).map_err(|_| garbage("has a bad time"));
    match decide_stack::<FixedWindow>(rules, same, states, now_ms) {
        StackDecision::Admitted { tightest: None } => Ok(Outcome::new([1, -1, 0, 0, now])),
        StackDecision::Admitted {
            tightest: Some(status),
        } => Ok(Outcome::new([
            1,
            i64::try_from(status.index).map_err(|_| garbage("names no check"))?,
            i64::from(status.remaining),
            time(status.reset_at)?,
            now,
        ])),
        StackDecision::Refused { .. } => Err(garbage("disagrees with its own counts")),
    }
}
