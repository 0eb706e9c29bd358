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
use crate::reply::{garbage, window_outcomes, BatchCheck, Decided, Outcome};
use acd_core::limit::{aligned_end, LimitAlgorithm, LimitCheck, StackDecision};
use acd_core::UnixMillis;
use hashbrown::HashTable;
use redis::{Script, Value};
use std::hash::BuildHasher;

/// One argument of a script call.
#[derive(Debug, Clone, Copy)]
enum Arg<'a> {
    Int(i64),
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl redis::ToRedisArgs for Arg<'_> {
    fn write_redis_args<W: ?Sized + redis::RedisWrite>(&self, out: &mut W) {
        match self {
            Arg::Int(n) => n.write_redis_args(out),
            Arg::Text(text) => text.write_redis_args(out),
            Arg::Bytes(bytes) => bytes.write_redis_args(out),
        }
    }
}

/// Numbers in decimal, separated by one space (one script argument).
fn spaced<N: itoa::Integer>(numbers: impl Iterator<Item = N>) -> Vec<u8> {
    let mut all = Vec::with_capacity(256);
    let mut digits = itoa::Buffer::new();
    for (i, n) in numbers.enumerate() {
        if i > 0 {
            all.push(b' ');
        }
        all.extend_from_slice(digits.format(n).as_bytes());
    }
    all
}

/// A count or time as the scripts' argument (every one is below 2^53, so
/// the cap never applies).
fn int<N: TryInto<i64>>(n: N) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

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
            ends: Vec::with_capacity(match algorithm {
                LimitAlgorithm::FixedWindow => checks.len(),
                LimitAlgorithm::Gcra => 0,
            }),
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

    /// How many checks the decision holds (e.g. for [`Batch::with_capacity`]).
    pub fn check_count(&self) -> usize {
        self.checks.len()
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
    pub fn args(&self) -> Vec<i64> {
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

/// Several decisions of one key space in one script call: decided in
/// order, each all or none, exactly as if sent one after the other. Every
/// key is read once and written at most once per call.
#[derive(Debug, Clone)]
pub struct Batch {
    algorithm: LimitAlgorithm,
    keys: Vec<Vec<u8>>,
    /// Each key's position in `keys`, found by the key's hash (so a key is
    /// stored once).
    index: HashTable<usize>,
    hasher: foldhash::fast::RandomState,
    /// Fixed window, per key: its window's end, and what the script needs
    /// to admit every decision at once (see `window.lua`).
    ends: Vec<u64>,
    ttls: Vec<u64>,
    thresholds: Vec<i64>,
    demands: Vec<u64>,
    grace_ms: u64,
    /// The decisions' part of `ARGV`.
    args: Vec<i64>,
    decided: Vec<Decided>,
    checks: Vec<BatchCheck>,
}

/// Two batches are equal when they would send the same call and read its
/// reply the same way (the index is derived from the keys).
impl PartialEq for Batch {
    fn eq(&self, other: &Self) -> bool {
        self.algorithm == other.algorithm
            && self.keys == other.keys
            && self.ends == other.ends
            && self.ttls == other.ttls
            && self.thresholds == other.thresholds
            && self.demands == other.demands
            && self.grace_ms == other.grace_ms
            && self.args == other.args
            && self.decided == other.decided
            && self.checks == other.checks
    }
}

impl Eq for Batch {}

impl Batch {
    /// An empty batch for `algorithm` with `grace_ms` added to every TTL.
    pub fn new(algorithm: LimitAlgorithm, grace_ms: u64) -> Self {
        Self::with_capacity(algorithm, grace_ms, 0, 0)
    }

    /// As [`Batch::new`], with room for `decisions` decisions of `checks`
    /// checks in all (so that filling it does not reallocate).
    pub fn with_capacity(
        algorithm: LimitAlgorithm,
        grace_ms: u64,
        decisions: usize,
        checks: usize,
    ) -> Self {
        Self {
            algorithm,
            keys: Vec::with_capacity(checks),
            index: HashTable::with_capacity(checks),
            hasher: foldhash::fast::RandomState::default(),
            ends: Vec::with_capacity(checks),
            ttls: Vec::with_capacity(checks),
            thresholds: Vec::with_capacity(checks),
            demands: Vec::with_capacity(checks),
            grace_ms: grace_ms.min(MAX_EXACT_MS),
            // Per decision: now and its check count; per check: key,
            // requests and (GCRA) window.
            args: Vec::with_capacity(
                decisions
                    .saturating_mul(2)
                    .saturating_add(checks.saturating_mul(3)),
            ),
            decided: Vec::with_capacity(decisions),
            checks: Vec::with_capacity(checks),
        }
    }

    /// Appends one decision (its keys are merged with the batch's).
    pub fn push(&mut self, prepared: &Prepared) {
        self.push_keys(prepared, prepared.keys.iter().cloned());
    }

    /// As [`Batch::push`], taking the decision's keys instead of copying them.
    pub fn push_owned(&mut self, mut prepared: Prepared) {
        let keys = std::mem::take(&mut prepared.keys);
        self.push_keys(&prepared, keys.into_iter());
    }

    fn push_keys(&mut self, prepared: &Prepared, keys: impl Iterator<Item = Vec<u8>>) {
        let mut local = Vec::with_capacity(prepared.checks.len());
        for (at, key) in keys.enumerate() {
            let next = self.keys.len();
            let keys = &mut self.keys;
            let hasher = &self.hasher;
            let hash = hasher.hash_one(&key);
            let global = *self
                .index
                .entry(
                    hash,
                    |&at| keys.get(at) == Some(&key),
                    |&at| keys.get(at).map_or(0, |known| hasher.hash_one(known)),
                )
                .or_insert_with(|| {
                    keys.push(key);
                    next
                })
                .get();
            if global == next {
                if let Some(&end) = prepared.ends.get(at) {
                    // Created by its first decision if all are admitted.
                    let ttl = end
                        .saturating_sub(prepared.now)
                        .saturating_add(self.grace_ms)
                        .max(1);
                    self.ends.push(end);
                    self.ttls.push(ttl);
                    self.thresholds.push(i64::MAX);
                    self.demands.push(0);
                }
            }
            local.push(global);
        }
        let first = self.checks.len();
        self.args.push(int(prepared.now));
        self.args.push(int(prepared.checks.len()));
        for check in &prepared.checks {
            let global = local.get(check.key).copied().unwrap_or(usize::MAX);
            self.args.push(int(global.saturating_add(1)));
            self.args.push(i64::from(check.requests));
            let mut position = 0;
            match self.algorithm {
                LimitAlgorithm::FixedWindow => {
                    // Every decision is admitted if the key's count is
                    // below requests - position for each of its checks.
                    if let Some(demand) = self.demands.get_mut(global) {
                        position = *demand;
                        *demand = demand.saturating_add(1);
                    }
                    if let Some(threshold) = self.thresholds.get_mut(global) {
                        let room = i64::from(check.requests)
                            .saturating_sub(i64::try_from(position).unwrap_or(i64::MAX));
                        *threshold = (*threshold).min(room);
                    }
                }
                LimitAlgorithm::Gcra => self.args.push(int(check.window)),
            }
            self.checks.push(BatchCheck {
                key: global,
                requests: check.requests,
                window: check.window,
                end: prepared.ends.get(check.key).copied().unwrap_or(0),
                position,
            });
        }
        self.decided.push(Decided {
            now: prepared.now,
            first,
            count: self.checks.len().saturating_sub(first),
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

    /// `ARGV`, in order: fixed window: grace, every key's window end and
    /// TTL (one argument), the decision count, the decisions (one
    /// argument), each key's group (one byte per key), then each group's
    /// ceiling and demand; GCRA: `"gcra"`, grace, the decision count, the
    /// decisions.
    fn write_argv(&self, out: &mut impl FnMut(Arg<'_>)) {
        match self.algorithm {
            LimitAlgorithm::FixedWindow => {
                out(Arg::Int(int(self.grace_ms)));
                // Read by the script only when a key is new or the call is
                // decided one decision after another.
                let windows = self.ends.iter().zip(&self.ttls).flat_map(|(e, t)| [*e, *t]);
                out(Arg::Bytes(&spaced(windows)));
                out(Arg::Int(int(self.decided.len())));
                // One argument for every decision: the script reads it only
                // when it decides one decision after another.
                out(Arg::Bytes(&spaced(self.args.iter().copied())));
                let (of, groups) = self.groups();
                out(Arg::Bytes(&of));
                for (ceiling, demand) in groups {
                    out(Arg::Int(ceiling));
                    out(Arg::Int(int(demand)));
                }
            }
            LimitAlgorithm::Gcra => {
                out(Arg::Text("gcra"));
                out(Arg::Int(int(self.grace_ms)));
                out(Arg::Int(int(self.decided.len())));
                for &n in &self.args {
                    out(Arg::Int(n));
                }
            }
        }
    }

    /// Fixed window: each key's group (a byte, 1-based) and the groups'
    /// (ceiling, demand), where a key's ceiling is its threshold plus its
    /// demand (with one limit on the key, the limit plus one). With more
    /// than 255 groups the bytes are empty, and the script decides the
    /// call one decision after another.
    fn groups(&self) -> (Vec<u8>, Vec<(i64, u64)>) {
        let mut groups: Vec<(i64, u64)> = Vec::new();
        let mut of = Vec::with_capacity(self.keys.len());
        for (&threshold, &demand) in self.thresholds.iter().zip(&self.demands) {
            let group = (threshold.saturating_add(int(demand)), demand);
            // 1-based: the first group is byte 1.
            let number = match groups.iter().position(|known| *known == group) {
                Some(at) => at.saturating_add(1),
                None => {
                    groups.push(group);
                    groups.len()
                }
            };
            match u8::try_from(number) {
                Ok(byte) => of.push(byte),
                Err(_) => return (Vec::new(), Vec::new()),
            }
        }
        (of, groups)
    }

    /// `ARGV` as numbers in decimal (the tests' view).
    #[cfg(test)]
    pub(crate) fn argv(&self) -> Vec<String> {
        let mut all = Vec::new();
        self.write_argv(&mut |arg| {
            all.push(match arg {
                Arg::Int(n) => n.to_string(),
                Arg::Text(text) => text.to_owned(),
                Arg::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            })
        });
        all
    }

    /// The call as an invocation of [`stack_script`].
    pub fn invocation<'a>(&self, script: &'a Script) -> redis::ScriptInvocation<'a> {
        let mut invocation = script.prepare_invoke();
        for key in &self.keys {
            invocation.key(key.as_slice());
        }
        self.write_argv(&mut |arg| {
            invocation.arg(arg);
        });
        invocation
    }

    /// The call as a plain `EVALSHA` command (e.g. for a pipeline): one
    /// buffer for every argument, numbers written in place.
    pub fn evalsha(&self, script: &Script) -> redis::Cmd {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(script.get_hash()).arg(self.keys.len());
        for key in &self.keys {
            cmd.arg(key.as_slice());
        }
        self.write_argv(&mut |arg| {
            cmd.arg(arg);
        });
        cmd
    }

    /// The script's reply as one outcome per decision, in order; a reply
    /// of the wrong shape is [`StoreError::Garbage`] for all of them.
    pub fn outcomes(&self, reply: &Value) -> Result<Vec<Outcome>, StoreError> {
        match self.algorithm {
            LimitAlgorithm::Gcra => crate::reply::outcomes(reply, self.decided.len()),
            LimitAlgorithm::FixedWindow => {
                window_outcomes(reply, &self.decided, &self.checks, self.keys.len())
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
mod tests;
