//! The stacked-decision script (`stack.lua`) and the two ends of a call:
//! [`Prepared`] (keys and arguments of one request's checks), [`Batch`]
//! (several prepared decisions in one call) and [`Batch::outcomes`] /
//! [`parse_reply`] (the script's integers back into [`StackDecision`]s).
//!
//! The script is sent once per connection with `SCRIPT LOAD` and then run
//! with `EVALSHA` (the `redis` crate's [`Script`] reloads it transparently
//! after a server restart flushed the script cache).

use crate::error::StoreError;
use crate::keys::KeySpace;
use acd_core::limit::{LimitAlgorithm, LimitCheck, LimitStatus, StackDecision};
use acd_core::UnixMillis;
use redis::{Script, Value};
use std::collections::HashMap;

/// The Lua source of the stacked decision.
pub const STACK_LUA: &str = include_str!("stack.lua");

/// The largest `now` and window (ms) the script accepts: 2^51 ms (about
/// 71 000 years after 1970), so every intermediate value stays an integer
/// below 2^53, exact in Lua's doubles.
pub const MAX_EXACT_MS: u64 = 1 << 51;

/// The script, ready to run.
pub fn stack_script() -> Script {
    Script::new(STACK_LUA)
}

fn algorithm_arg(algorithm: LimitAlgorithm) -> &'static str {
    match algorithm {
        LimitAlgorithm::FixedWindow => "fw",
        LimitAlgorithm::Gcra => "gcra",
    }
}

/// The keys and arguments of one stacked decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The distinct keys, in the order of their first check.
    pub keys: Vec<Vec<u8>>,
    /// The decision's part of `ARGV`: now, check count, then per check its
    /// key index (1-based, into `keys`), requests and window.
    pub args: Vec<String>,
    algorithm: LimitAlgorithm,
    grace_ms: u64,
}

impl Prepared {
    /// The call for `checks` at `now`, or [`StoreError::OutOfDomain`] when a
    /// time or window is too large for the script's exact arithmetic.
    pub fn new(
        space: &KeySpace,
        algorithm: LimitAlgorithm,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
        grace_ms: u64,
    ) -> Result<Self, StoreError> {
        if now.as_millis() > MAX_EXACT_MS {
            return Err(StoreError::OutOfDomain(format!(
                "the time {now} ms is past the Redis store's range (2^51 ms)"
            )));
        }
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(checks.len());
        let mut args = Vec::with_capacity(checks.len().saturating_mul(3).saturating_add(2));
        args.push(now.to_string());
        args.push(checks.len().to_string());
        for check in checks {
            let window = check.quota.window();
            if window > MAX_EXACT_MS {
                return Err(StoreError::OutOfDomain(format!(
                    "the {} limit's window of {window} ms is past the Redis store's range \
                     (2^51 ms)",
                    check.name
                )));
            }
            // The same (name, subject) is the same key (the escaping is
            // injective): charged once per check, like `decide_stack`.
            let key = space.key(check.name, check.subject);
            let index = match keys.iter().position(|k| *k == key) {
                Some(index) => index,
                None => {
                    keys.push(key);
                    keys.len().saturating_sub(1)
                }
            };
            args.push(index.saturating_add(1).to_string());
            args.push(check.quota.requests.to_string());
            args.push(window.to_string());
        }
        Ok(Self {
            keys,
            args,
            algorithm,
            grace_ms: grace_ms.min(MAX_EXACT_MS),
        })
    }

    /// This decision alone as a batch of one.
    pub fn batch(&self) -> Batch {
        let mut batch = Batch::new(self.algorithm, self.grace_ms);
        batch.push(self);
        batch
    }

    /// Adds the keys and arguments to an invocation of [`stack_script`]
    /// (a batch of one).
    pub fn invocation<'a>(&self, script: &'a Script) -> redis::ScriptInvocation<'a> {
        self.batch().invocation(script)
    }

    /// The same call as a plain `EVALSHA` command (e.g. for a pipeline).
    pub fn evalsha(&self, script: &Script) -> redis::Cmd {
        self.batch().evalsha(script)
    }
}

/// Several decisions of one key space in one script call: decided in
/// order, each all or none, exactly as if sent one after the other. Every
/// key is read once and written at most once per call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    keys: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, usize>,
    head: [String; 2],
    args: Vec<String>,
    decisions: usize,
}

impl Batch {
    /// An empty batch for `algorithm` with `grace_ms` added to every TTL.
    pub fn new(algorithm: LimitAlgorithm, grace_ms: u64) -> Self {
        Self {
            keys: Vec::new(),
            index: HashMap::new(),
            head: [
                algorithm_arg(algorithm).to_owned(),
                grace_ms.min(MAX_EXACT_MS).to_string(),
            ],
            args: Vec::new(),
            decisions: 0,
        }
    }

    /// Appends one decision (its keys are merged with the batch's).
    pub fn push(&mut self, prepared: &Prepared) {
        let mut local = Vec::with_capacity(prepared.keys.len());
        for key in &prepared.keys {
            let next = self.keys.len();
            let at = *self.index.entry(key.clone()).or_insert(next);
            if at == next {
                self.keys.push(key.clone());
            }
            local.push(at.saturating_add(1).to_string());
        }
        let mut args = prepared.args.iter();
        self.args.extend(args.by_ref().take(2).cloned());
        for (position, arg) in args.enumerate() {
            // The first of each check's three arguments is its key index.
            if position % 3 == 0 {
                let global = arg
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .and_then(|i| local.get(i));
                self.args
                    .push(global.cloned().unwrap_or_else(|| "0".to_owned()));
            } else {
                self.args.push(arg.clone());
            }
        }
        self.decisions = self.decisions.saturating_add(1);
    }

    /// How many decisions the batch holds.
    pub fn len(&self) -> usize {
        self.decisions
    }

    /// Whether the batch holds no decision.
    pub fn is_empty(&self) -> bool {
        self.decisions == 0
    }

    /// How many distinct keys the batch touches.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// `ARGV`, in order.
    fn argv(&self) -> impl Iterator<Item = String> + '_ {
        self.head
            .iter()
            .cloned()
            .chain(std::iter::once(self.decisions.to_string()))
            .chain(self.args.iter().cloned())
    }

    /// The call as an invocation of [`stack_script`].
    pub fn invocation<'a>(&self, script: &'a Script) -> redis::ScriptInvocation<'a> {
        let mut invocation = script.prepare_invoke();
        for key in &self.keys {
            invocation.key(key.as_slice());
        }
        for arg in self.argv() {
            invocation.arg(arg);
        }
        invocation
    }

    /// The call as a plain `EVALSHA` command (e.g. for a pipeline).
    pub fn evalsha(&self, script: &Script) -> redis::Cmd {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(script.get_hash()).arg(self.keys.len());
        for key in &self.keys {
            cmd.arg(key.as_slice());
        }
        for arg in self.argv() {
            cmd.arg(arg);
        }
        cmd
    }

    /// The script's reply as one outcome per decision, in order; a reply
    /// of the wrong shape is [`StoreError::Garbage`] for all of them.
    pub fn outcomes(&self, reply: &Value) -> Result<Vec<Outcome>, StoreError> {
        outcomes(reply, self.decisions)
    }

    /// The decision about `checks` (the ones this outcome's decision was
    /// prepared from).
    pub fn decision(
        &self,
        outcome: &Outcome,
        checks: &[LimitCheck<'_>],
    ) -> Result<StackDecision, StoreError> {
        self.readable(*outcome)
            .and_then(|outcome| outcome.decision(checks, |_| None))
    }

    /// The outcome, or the error naming the key whose state the script
    /// could not read (when that is why it failed).
    pub(crate) fn readable(&self, outcome: Outcome) -> Result<Outcome, StoreError> {
        let [admitted, ..] = outcome.0;
        if admitted != -1 {
            return Ok(outcome);
        }
        let name = |index: i64| {
            usize::try_from(index)
                .ok()
                .and_then(|i| self.keys.get(i))
                .map(|key| String::from_utf8_lossy(key).into_owned())
        };
        match outcome.decision(&[], name) {
            Err(error) => Err(error),
            Ok(_) => Err(garbage("has a bad outcome")),
        }
    }
}

/// One decision's five integers from the script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome([i64; 5]);

fn garbage(why: &str) -> StoreError {
    StoreError::Garbage(format!("the decision reply {why}"))
}

fn outcomes(reply: &Value, decisions: usize) -> Result<Vec<Outcome>, StoreError> {
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
                "ACDGARBAGE the state at key {key} is not two integers \"T:E\"; delete the key \
                 or let it expire"
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

/// The script's reply to a batch of one (`{admitted, index, remaining,
/// reset_at, retry_at}`) as the decision about `checks`; anything else is
/// [`StoreError::Garbage`].
pub fn parse_reply(reply: &Value, checks: &[LimitCheck<'_>]) -> Result<StackDecision, StoreError> {
    let outcomes = outcomes(reply, 1)?;
    let outcome = outcomes.first().ok_or_else(|| garbage("is empty"))?;
    outcome.decision(checks, |_| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::limit::Quota;

    fn check<'a>(name: &'a str, subject: &'a str, requests: u32) -> LimitCheck<'a> {
        LimitCheck {
            name,
            quota: Quota::per_seconds(requests, 60),
            subject,
        }
    }

    #[test]
    fn repeated_keys_share_one_key_index() {
        let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
        let checks = [
            check("credential", "k", 100),
            check("user", "ada", 5),
            check("credential", "k", 100),
        ];
        let prepared = Prepared::new(
            &space,
            LimitAlgorithm::FixedWindow,
            &checks,
            UnixMillis::new(1_000),
            2,
        )
        .unwrap();
        assert_eq!(prepared.keys.len(), 2);
        assert_eq!(
            prepared.args,
            ["1000", "3", "1", "100", "60000", "2", "5", "60000", "1", "100", "60000"]
        );
        // In a batch, keys are shared and indices renumbered.
        let other = [check("user", "ada", 5), check("credential", "bob", 100)];
        let other = Prepared::new(
            &space,
            LimitAlgorithm::FixedWindow,
            &other,
            UnixMillis::new(2_000),
            2,
        )
        .unwrap();
        let mut batch = prepared.batch();
        batch.push(&other);
        assert_eq!((batch.len(), batch.key_count()), (2, 3));
        let argv: Vec<String> = batch.argv().collect();
        assert_eq!(
            argv,
            [
                "fw", "2", "2", "1000", "3", "1", "100", "60000", "2", "5", "60000", "1", "100",
                "60000", "2000", "2", "2", "5", "60000", "3", "100", "60000"
            ]
        );
    }

    #[test]
    fn times_past_the_exact_range_are_refused() {
        let space = KeySpace::new("t", LimitAlgorithm::Gcra).unwrap();
        let checks = [check("credential", "k", 1)];
        assert!(Prepared::new(
            &space,
            LimitAlgorithm::Gcra,
            &checks,
            UnixMillis::new(MAX_EXACT_MS),
            0
        )
        .is_ok());
        let late = Prepared::new(
            &space,
            LimitAlgorithm::Gcra,
            &checks,
            UnixMillis::new(MAX_EXACT_MS + 1),
            0,
        );
        assert!(matches!(late, Err(StoreError::OutOfDomain(_))));
        let long = [LimitCheck {
            quota: Quota {
                requests: 1,
                window_ms: MAX_EXACT_MS + 1,
            },
            ..checks[0]
        }];
        let long = Prepared::new(&space, LimitAlgorithm::Gcra, &long, UnixMillis::new(0), 0);
        assert!(matches!(long, Err(StoreError::OutOfDomain(_))));
    }

    #[test]
    fn replies_become_decisions_and_garbage_is_named() {
        let checks = [check("credential", "k", 100), check("user", "ada", 5)];
        let ints = |v: [i64; 5]| Value::Array(v.iter().map(|n| Value::Int(*n)).collect());
        assert_eq!(
            parse_reply(&ints([1, 1, 4, 60_000, 7]), &checks).unwrap(),
            StackDecision::Admitted {
                tightest: Some(LimitStatus {
                    index: 1,
                    limit: 5,
                    remaining: 4,
                    reset_at: UnixMillis::new(60_000)
                })
            }
        );
        assert_eq!(
            parse_reply(&ints([0, 0, 0, 60_000, 60_000]), &checks).unwrap(),
            StackDecision::Refused {
                refusing: LimitStatus {
                    index: 0,
                    limit: 100,
                    remaining: 0,
                    reset_at: UnixMillis::new(60_000)
                },
                retry_at: UnixMillis::new(60_000)
            }
        );
        for bad in [
            ints([1, 2, 0, 0, 0]),
            ints([1, -1, 0, 0, 0]),
            ints([2, 0, 0, 0, 0]),
            ints([0, 0, 3, 0, 0]),
            ints([1, 0, -1, 0, 0]),
            ints([1, 0, 0, -5, 0]),
            Value::Okay,
            Value::Array(vec![Value::Int(1)]),
            Value::Array(vec![Value::Nil; 5]),
        ] {
            let error = parse_reply(&bad, &checks).unwrap_err();
            assert!(matches!(error, StoreError::Garbage(_)), "{bad:?}");
        }
    }
}
