//! Stacked limits, all-or-none, written once for every store.
//!
//! [`decide_stack`] is the pure rule: given each key's state, either every
//! limit admits (all are charged) or none is charged. [`StateStore`] is the
//! seam where states live: a store only loads the states of some keys and
//! saves them back atomically. [`acquire`] joins the two and is the whole
//! [`RateLimiter`](super::RateLimiter) behaviour of any store; the in-memory
//! table is one store, a Redis store (a later issue) is another.

use super::algorithm::Algorithm;
use super::keyed::StoreFull;
use super::{LimitCheck, LimitStatus, StackDecision};
use crate::UnixMillis;

/// One key of a stacked request as a store sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StoreKey<'a> {
    /// The limit's name.
    pub limit: &'a str,
    /// Whom the limit counts.
    pub subject: &'a str,
    /// The window of the key's quota in ms (never zero): a store that keeps
    /// a monotone clock believes a `now` more than the shortest window of a
    /// call earlier than its clock (see [`KeyedLimiter`](super::KeyedLimiter)).
    pub window: u64,
}

/// Where per-key state lives.
///
/// A store must make [`StateStore::transact`] atomic with respect to every
/// other call on the same keys: load, `step`, save, with no interleaving.
/// The in-memory table does it with shard locks; a Redis store would run the
/// same arithmetic in a Lua script, or load with `WATCH` and save with
/// `MULTI`/`EXEC`, retrying on conflict.
pub trait StateStore<A: Algorithm>: Send + Sync {
    /// Loads the state of every key in `keys` (`A::State::default()` when
    /// absent or expired), calls `step` with them and the store's `now`
    /// (an in-process store passes the latest `now` it has used when that is
    /// at most the shortest [`StoreKey::window`] ahead of `now`), and when
    /// `step` returns `true` saves the states it left in the slice, each
    /// until its [`expires_at`](super::PackedState::expires_at). Keys may
    /// repeat; `step` leaves the same state at every position of one key.
    ///
    /// `Err` when a new key has no room: nothing is saved.
    fn transact(
        &self,
        keys: &[StoreKey<'_>],
        now: UnixMillis,
        step: &mut dyn FnMut(&mut [A::State], UnixMillis) -> bool,
    ) -> Result<(), StoreFull>;
}

/// The all-or-none rule on loaded states.
///
/// Check `i` is `rules[i]` against `states[i]`; `same[i]` is the first
/// index holding the same key (`same[i] == i` for a key's first
/// occurrence), so a key named twice is charged twice. When every check
/// admits, `states` receives the new states; otherwise it is left exactly as
/// it was.
///
/// The decision names, when admitted, the tightest limit passed (least
/// remaining; tie → the one resetting last; tie again → the first); when
/// refused, the refusing limit that admits again last (tie → the first),
/// with that exact instant.
pub fn decide_stack<A: Algorithm>(
    rules: &[A::Rule],
    same: &[usize],
    states: &mut [A::State],
    now: UnixMillis,
) -> StackDecision {
    let mut tentative = states.to_vec();
    let mut tightest: Option<LimitStatus> = None;
    let mut refusal: Option<(LimitStatus, UnixMillis)> = None;
    for (index, rule) in rules.iter().enumerate() {
        let slot = same.get(index).copied().unwrap_or(index);
        let Some(current) = tentative.get(slot).copied() else {
            continue;
        };
        let (verdict, next) = A::decide(rule, current, now);
        let status = LimitStatus {
            index,
            limit: A::quota(rule).requests,
            remaining: verdict.remaining,
            reset_at: verdict.reset_at,
        };
        if verdict.admitted {
            if let Some(state) = tentative.get_mut(slot) {
                *state = next;
            }
            if tightest.is_none_or(|t| status.is_tighter_than(&t)) {
                tightest = Some(status);
            }
        } else if refusal.is_none_or(|(_, retry_at)| verdict.retry_at > retry_at) {
            refusal = Some((status, verdict.retry_at));
        }
    }
    if let Some((refusing, retry_at)) = refusal {
        return StackDecision::Refused { refusing, retry_at };
    }
    for (index, state) in states.iter_mut().enumerate() {
        let slot = same.get(index).copied().unwrap_or(index);
        if let Some(next) = tentative.get(slot) {
            *state = *next;
        }
    }
    StackDecision::Admitted { tightest }
}

/// The first index naming the same `(name, subject)` as each check.
pub fn same_keys(checks: &[LimitCheck<'_>]) -> Vec<usize> {
    checks
        .iter()
        .enumerate()
        .map(|(i, check)| {
            checks
                .iter()
                .take(i)
                .position(|c| c.name == check.name && c.subject == check.subject)
                .unwrap_or(i)
        })
        .collect()
}

/// A stacked check of `checks` at `now` against `store`: the complete
/// behaviour of a [`RateLimiter`](super::RateLimiter) over any store. A new
/// key that finds no room is refused (see [`try_acquire`] to tell it
/// apart).
pub fn acquire<A: Algorithm, S: StateStore<A> + ?Sized>(
    store: &S,
    checks: &[LimitCheck<'_>],
    now: UnixMillis,
) -> StackDecision {
    try_acquire::<A, S>(store, checks, now).unwrap_or_else(|full| full_refusal(checks, full))
}

/// Like [`acquire`], but a new key that finds no room is reported as
/// [`StoreFull`] (nothing charged) instead of refused.
pub fn try_acquire<A: Algorithm, S: StateStore<A> + ?Sized>(
    store: &S,
    checks: &[LimitCheck<'_>],
    now: UnixMillis,
) -> Result<StackDecision, StoreFull> {
    if checks.is_empty() {
        return Ok(StackDecision::Admitted { tightest: None });
    }
    let rules: Vec<A::Rule> = checks.iter().map(|c| A::rule(c.quota)).collect();
    let same = same_keys(checks);
    let keys: Vec<StoreKey<'_>> = checks
        .iter()
        .map(|c| StoreKey {
            limit: c.name,
            subject: c.subject,
            window: c.quota.window(),
        })
        .collect();
    let mut decision = None;
    store.transact(&keys, now, &mut |states, now| {
        let decided = decide_stack::<A>(&rules, &same, states, now);
        let admitted = matches!(decided, StackDecision::Admitted { .. });
        decision = Some(decided);
        admitted
    })?;
    decision.ok_or(StoreFull {
        index: 0,
        retry_at: now,
    })
}

fn full_refusal(checks: &[LimitCheck<'_>], full: StoreFull) -> StackDecision {
    let limit = checks.get(full.index).map_or(0, |c| c.quota.requests);
    StackDecision::Refused {
        refusing: LimitStatus {
            index: full.index,
            limit,
            remaining: 0,
            reset_at: full.retry_at,
        },
        retry_at: full.retry_at,
    }
}
