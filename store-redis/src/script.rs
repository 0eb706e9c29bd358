//! The decision scripts (`window.lua` for fixed windows, `stack.lua` for
//! GCRA) and the two ends of a call: [`Prepared`] (keys and arguments of
//! one request's checks), [`Batch`] (several prepared decisions in one
//! call) and [`Batch::outcomes`] / [`Prepared::decision`] (the script's
//! integers back into [`StackDecision`]s, in `reply.rs`).
//!
//! A script is sent once per connection with `SCRIPT LOAD` and then run
//! with `EVALSHA` (the `redis` crate's [`Script`] reloads it transparently
//! after a server restart flushed the script cache).

use crate::error::StoreError;
use crate::keys::KeySpace;
use crate::reply::{garbage, Outcome};
use acd_core::limit::{aligned_end, LimitAlgorithm, LimitCheck, StackDecision};
use acd_core::UnixMillis;
use redis::{Script, Value};
use std::collections::HashMap;

/// The Lua source of the fixed-window decision (one integer counter per
/// limit, subject and window).
pub const WINDOW_LUA: &str = include_str!("window.lua");

/// The Lua source of the GCRA decision (a `"T:E"` state per key).
pub const STACK_LUA: &str = include_str!("stack.lua");

/// The largest `now` and window (ms) the scripts accept: 2^51 ms (about
/// 71 000 years after 1970), so every intermediate value stays an integer
/// below 2^53, exact in Lua's doubles.
pub const MAX_EXACT_MS: u64 = 1 << 51;

/// The script deciding for `algorithm`, ready to run.
pub fn stack_script(algorithm: LimitAlgorithm) -> Script {
    match algorithm {
        LimitAlgorithm::FixedWindow => Script::new(WINDOW_LUA),
        LimitAlgorithm::Gcra => Script::new(STACK_LUA),
    }
}

/// One check of a prepared decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Check {
    /// 0-based index into the decision's keys.
    key: usize,
    requests: u32,
    window: u64,
}

/// The keys and arguments of one stacked decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The distinct keys, in the order of their first check: for a fixed
    /// window, the key of the window `now` falls in.
    pub keys: Vec<Vec<u8>>,
    /// Fixed window: the end of each key's window (Unix ms).
    ends: Vec<u64>,
    checks: Vec<Check>,
    now: u64,
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
        let mut prepared = Self {
            keys: Vec::with_capacity(checks.len()),
            ends: Vec::new(),
            checks: Vec::with_capacity(checks.len()),
            now: now.as_millis(),
            algorithm,
            grace_ms: grace_ms.min(MAX_EXACT_MS),
        };
        for check in checks {
            let window = check.quota.window();
            if window > MAX_EXACT_MS {
                return Err(StoreError::OutOfDomain(format!(
                    "the {} limit's window of {window} ms is past the Redis store's range \
                     (2^51 ms)",
                    check.name
                )));
            }
            // The same key is charged once per check, like `decide_stack`.
            let key = match algorithm {
                LimitAlgorithm::FixedWindow => {
                    let end = aligned_end(now, window).as_millis();
                    let key = space.window_key(check.name, check.subject, end);
                    prepared.key_index(key, end)
                }
                LimitAlgorithm::Gcra => prepared.key_index(space.key(check.name, check.subject), 0),
            };
            prepared.checks.push(Check {
                key,
                requests: check.quota.requests,
                window,
            });
        }
        Ok(prepared)
    }

    fn key_index(&mut self, key: Vec<u8>, end: u64) -> usize {
        if let Some(index) = self.keys.iter().position(|k| *k == key) {
            return index;
        }
        self.keys.push(key);
        if self.algorithm == LimitAlgorithm::FixedWindow {
            self.ends.push(end);
        }
        self.keys.len().saturating_sub(1)
    }

    /// The decision's part of `ARGV`: now, the check count, then per check
    /// its key index (1-based, into [`Prepared::keys`]), requests and (GCRA
    /// only) window.
    pub fn args(&self) -> Vec<String> {
        let mut batch = Batch::new(self.algorithm, self.grace_ms);
        batch.push(self);
        batch.args
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

    /// The script's reply to this decision alone (its [`Prepared::evalsha`])
    /// as the decision about `checks`, the checks it was prepared from;
    /// anything else is [`StoreError::Garbage`].
    pub fn decision(
        &self,
        reply: &Value,
        checks: &[LimitCheck<'_>],
    ) -> Result<StackDecision, StoreError> {
        let batch = self.batch();
        let outcomes = batch.outcomes(reply)?;
        let outcome = outcomes.first().ok_or_else(|| garbage("is empty"))?;
        batch.decision(outcome, checks)
    }
}

/// Where one decision of a batch finds its time and its checks' window
/// ends (fixed window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decided {
    now: u64,
    /// Its checks' ends are `check_ends[first..first + count]`.
    first: usize,
    count: usize,
}

/// Several decisions of one key space in one script call: decided in
/// order, each all or none, exactly as if sent one after the other. Every
/// key is read once and written at most once per call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    algorithm: LimitAlgorithm,
    grace: String,
    keys: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, usize>,
    /// Fixed window: the end of each key's window.
    ends: Vec<u64>,
    args: Vec<String>,
    decided: Vec<Decided>,
    check_ends: Vec<u64>,
}

impl Batch {
    /// An empty batch for `algorithm` with `grace_ms` added to every TTL.
    pub fn new(algorithm: LimitAlgorithm, grace_ms: u64) -> Self {
        Self {
            algorithm,
            grace: grace_ms.min(MAX_EXACT_MS).to_string(),
            keys: Vec::new(),
            index: HashMap::new(),
            ends: Vec::new(),
            args: Vec::new(),
            decided: Vec::new(),
            check_ends: Vec::new(),
        }
    }

    /// Appends one decision (its keys are merged with the batch's).
    pub fn push(&mut self, prepared: &Prepared) {
        let mut local = Vec::with_capacity(prepared.keys.len());
        for (at, key) in prepared.keys.iter().enumerate() {
            let next = self.keys.len();
            let global = *self.index.entry(key.clone()).or_insert(next);
            if global == next {
                self.keys.push(key.clone());
                if let Some(end) = prepared.ends.get(at) {
                    self.ends.push(*end);
                }
            }
            local.push(global);
        }
        let first = self.check_ends.len();
        self.args.push(prepared.now.to_string());
        self.args.push(prepared.checks.len().to_string());
        for check in &prepared.checks {
            let global = local.get(check.key).copied().unwrap_or(usize::MAX);
            self.args.push(global.saturating_add(1).to_string());
            self.args.push(check.requests.to_string());
            match self.algorithm {
                LimitAlgorithm::FixedWindow => self
                    .check_ends
                    .push(prepared.ends.get(check.key).copied().unwrap_or(0)),
                LimitAlgorithm::Gcra => self.args.push(check.window.to_string()),
            }
        }
        self.decided.push(Decided {
            now: prepared.now,
            first,
            count: self.check_ends.len().saturating_sub(first),
        });
    }

    /// How many decisions the batch holds.
    pub fn len(&self) -> usize {
        self.decided.len()
    }

    /// Whether the batch holds no decision.
    pub fn is_empty(&self) -> bool {
        self.decided.is_empty()
    }

    /// How many distinct keys the batch touches.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// `ARGV`, in order: fixed window: grace, each key's window end, the
    /// decision count, the decisions; GCRA: `"gcra"`, grace, the decision
    /// count, the decisions.
    fn argv(&self) -> impl Iterator<Item = String> + '_ {
        let head: Vec<String> = match self.algorithm {
            LimitAlgorithm::FixedWindow => std::iter::once(self.grace.clone())
                .chain(self.ends.iter().map(u64::to_string))
                .collect(),
            LimitAlgorithm::Gcra => vec!["gcra".to_owned(), self.grace.clone()],
        };
        head.into_iter()
            .chain(std::iter::once(self.decided.len().to_string()))
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
        match self.algorithm {
            LimitAlgorithm::Gcra => crate::reply::outcomes(reply, self.decided.len()),
            LimitAlgorithm::FixedWindow => {
                let short = crate::reply::short_outcomes(reply, self.decided.len())?;
                short
                    .iter()
                    .zip(&self.decided)
                    .map(|(&[admitted, index, remaining], decided)| {
                        let end = |index: i64| {
                            usize::try_from(index)
                                .ok()
                                .filter(|&i| i < decided.count)
                                .and_then(|i| self.check_ends.get(decided.first.saturating_add(i)))
                                .and_then(|&end| i64::try_from(end).ok())
                                .ok_or_else(|| garbage("names no check"))
                        };
                        let now = i64::try_from(decided.now).map_err(|_| garbage("bad time"))?;
                        Ok(Outcome::new(match admitted {
                            1 if index == -1 => [1, -1, 0, 0, now],
                            1 => [1, index, remaining, end(index)?, now],
                            0 => [0, index, remaining, end(index)?, end(index)?],
                            _ => [admitted, index, remaining, 0, 0],
                        }))
                    })
                    .collect()
            }
        }
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
        if !outcome.unreadable() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::limit::{LimitStatus, Quota};

    fn check<'a>(name: &'a str, subject: &'a str, requests: u32) -> LimitCheck<'a> {
        LimitCheck {
            name,
            quota: Quota::per_seconds(requests, 60),
            subject,
        }
    }

    fn argv(batch: &Batch) -> Vec<String> {
        batch.argv().collect()
    }

    #[test]
    fn fixed_window_keys_name_their_window_and_repeats_share_an_index() {
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
            UnixMillis::new(61_000),
            2,
        )
        .unwrap();
        assert_eq!(
            prepared.keys,
            [
                b"{t}:fw:credential:k:120000".to_vec(),
                b"{t}:fw:user:ada:120000".to_vec()
            ]
        );
        assert_eq!(
            prepared.args(),
            ["61000", "3", "1", "100", "2", "5", "1", "100"]
        );
        // In a batch, keys are shared and indices renumbered; a decision in
        // the next window has keys of its own.
        let other = [check("user", "ada", 5), check("credential", "bob", 100)];
        let later = [check("user", "ada", 5)];
        let prepare = |checks: &[LimitCheck<'_>], now| {
            Prepared::new(
                &space,
                LimitAlgorithm::FixedWindow,
                checks,
                UnixMillis::new(now),
                2,
            )
            .unwrap()
        };
        let mut batch = prepared.batch();
        batch.push(&prepare(&other, 62_000));
        batch.push(&prepare(&later, 120_000));
        assert_eq!((batch.len(), batch.key_count()), (3, 4));
        assert_eq!(
            argv(&batch),
            [
                "2", "120000", "120000", "120000", "180000", "3", "61000", "3", "1", "100", "2",
                "5", "1", "100", "62000", "2", "2", "5", "3", "100", "120000", "1", "4", "5"
            ]
        );
    }

    #[test]
    fn gcra_keys_and_arguments_carry_the_window() {
        let space = KeySpace::new("t", LimitAlgorithm::Gcra).unwrap();
        let checks = [check("credential", "k", 100), check("credential", "k", 100)];
        let prepared = Prepared::new(
            &space,
            LimitAlgorithm::Gcra,
            &checks,
            UnixMillis::new(1_000),
            2,
        )
        .unwrap();
        assert_eq!(prepared.keys, [b"{t}:gcra:credential:k".to_vec()]);
        assert_eq!(
            argv(&prepared.batch()),
            ["gcra", "2", "1", "1000", "2", "1", "100", "60000", "1", "100", "60000"]
        );
    }

    #[test]
    fn times_past_the_exact_range_are_refused() {
        for algorithm in [LimitAlgorithm::FixedWindow, LimitAlgorithm::Gcra] {
            let space = KeySpace::new("t", algorithm).unwrap();
            let checks = [check("credential", "k", 1)];
            let at = |checks: &[LimitCheck<'_>], now| {
                Prepared::new(&space, algorithm, checks, UnixMillis::new(now), 0)
            };
            assert!(at(&checks, MAX_EXACT_MS).is_ok());
            assert!(matches!(
                at(&checks, MAX_EXACT_MS + 1),
                Err(StoreError::OutOfDomain(_))
            ));
            let long = [LimitCheck {
                quota: Quota {
                    requests: 1,
                    window_ms: MAX_EXACT_MS + 1,
                },
                ..checks[0]
            }];
            assert!(matches!(at(&long, 0), Err(StoreError::OutOfDomain(_))));
        }
    }

    fn ints(v: &[i64]) -> Value {
        Value::Array(v.iter().map(|n| Value::Int(*n)).collect())
    }

    #[test]
    fn fixed_window_replies_take_reset_and_retry_from_the_window() {
        let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
        // Windows of 60 s and 1 s: at 61 500 they end at 120 000 and 62 000.
        let checks = [
            check("credential", "k", 100),
            LimitCheck {
                quota: Quota::per_seconds(5, 1),
                ..check("user", "ada", 5)
            },
        ];
        let prepared = Prepared::new(
            &space,
            LimitAlgorithm::FixedWindow,
            &checks,
            UnixMillis::new(61_500),
            0,
        )
        .unwrap();
        let status = |index, limit, remaining, reset| LimitStatus {
            index,
            limit,
            remaining,
            reset_at: UnixMillis::new(reset),
        };
        assert_eq!(
            prepared.decision(&ints(&[1, 1, 4]), &checks).unwrap(),
            StackDecision::Admitted {
                tightest: Some(status(1, 5, 4, 62_000))
            }
        );
        assert_eq!(
            prepared.decision(&ints(&[0, 0, 0]), &checks).unwrap(),
            StackDecision::Refused {
                refusing: status(0, 100, 0, 120_000),
                retry_at: UnixMillis::new(120_000)
            }
        );
        let error = prepared.decision(&ints(&[-1, 1, 0]), &checks).unwrap_err();
        assert!(error.is_bad_state(), "{error:?}");
        assert!(
            error.to_string().contains("{t}:fw:user:ada:62000"),
            "{error}"
        );
        for bad in [
            ints(&[1, 2, 0]),
            ints(&[0, -1, 0]),
            ints(&[2, 0, 0]),
            ints(&[0, 0, 3]),
            ints(&[1, 0, -1]),
            ints(&[1, 0, 0, 0, 0]),
            Value::Okay,
            Value::Array(vec![Value::Nil; 3]),
        ] {
            let error = prepared.decision(&bad, &checks).unwrap_err();
            assert!(matches!(error, StoreError::Garbage(_)), "{bad:?}");
        }
    }

    #[test]
    fn gcra_replies_become_decisions_and_garbage_is_named() {
        let space = KeySpace::new("t", LimitAlgorithm::Gcra).unwrap();
        let checks = [check("credential", "k", 100), check("user", "ada", 5)];
        let prepared =
            Prepared::new(&space, LimitAlgorithm::Gcra, &checks, UnixMillis::new(7), 0).unwrap();
        assert_eq!(
            prepared
                .decision(&ints(&[1, 1, 4, 60_000, 7]), &checks)
                .unwrap(),
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
            prepared
                .decision(&ints(&[0, 0, 0, 60_000, 60_000]), &checks)
                .unwrap(),
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
            ints(&[1, 2, 0, 0, 0]),
            ints(&[1, -1, 0, 0, 0]),
            ints(&[2, 0, 0, 0, 0]),
            ints(&[0, 0, 3, 0, 0]),
            ints(&[1, 0, -1, 0, 0]),
            ints(&[1, 0, 0, -5, 0]),
            ints(&[1, 0, 0]),
            Value::Okay,
            Value::Array(vec![Value::Nil; 5]),
        ] {
            let error = prepared.decision(&bad, &checks).unwrap_err();
            assert!(matches!(error, StoreError::Garbage(_)), "{bad:?}");
        }
    }
}
