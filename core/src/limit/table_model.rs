//! Model-based test of the shard table against a `HashMap`: random
//! sequences of insert (from the home slot, or from where a lookup stopped,
//! also after an eviction made that spot stale), update, remove, sweep, scan
//! and evict (growth happens on the way), with states inline and in the
//! side list and the epoch moving on, checking after every step that the
//! table holds exactly the model's entries (time and companion), that only
//! expired entries were reclaimed, and that the sweep's expiry bound stays
//! below every live entry.

#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failure"
)]

use super::table::{Rehash, Table};
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Debug, Clone)]
enum Op {
    /// Insert (when absent and there is room) or update `key` to expire at
    /// `time` with companion `extra`; `hinted`: the insert starts where the
    /// lookup stopped.
    Put {
        key: u64,
        time: u64,
        extra: u32,
        hinted: bool,
    },
    /// Look `key` up; when absent, evict as a full table would (scan with
    /// `budget` at `now`, remove the soonest found), then insert it with the
    /// lookup's now stale vacancy.
    PutAfterEvict {
        key: u64,
        time: u64,
        budget: usize,
        now: u64,
    },
    /// Remove `key` if present.
    Remove { key: u64 },
    /// Incremental sweep with `budget` at `now`.
    Sweep { budget: usize, now: u64 },
    /// Bounded scan with `budget` at `now`, keeping `keep`.
    Scan { budget: usize, now: u64, keep: u64 },
    /// Scan, then evict the soonest live entry it found.
    Evict { budget: usize, now: u64 },
}

/// An instant near one of the scales the table's state words care about:
/// small, past the epoch's first move (2³¹ ms), past the inline span (2³²
/// ms and far beyond), and the end of time.
fn instant(spread: u64) -> impl Strategy<Value = u64> {
    (
        prop_oneof![
            6 => Just(0u64),
            1 => Just(1u64 << 31),
            1 => Just(1u64 << 32),
            1 => Just(1u64 << 40),
            1 => Just(u64::MAX - spread),
        ],
        0..spread,
    )
        .prop_map(|(base, offset)| base + offset)
}

/// A state companion: small, around the inline limit (2²³), or any.
fn extra() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0..8u32,
        1 => (1u32 << 23) - 2..(1u32 << 23) + 2,
        1 => any::<u32>(),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..64u64, instant(1_000), extra(), any::<bool>())
            .prop_map(|(key, time, extra, hinted)| Op::Put { key, time, extra, hinted }),
        1 => (0..64u64, instant(1_000), 1..16usize, instant(1_200))
            .prop_map(|(key, time, budget, now)| Op::PutAfterEvict { key, time, budget, now }),
        2 => (0..64u64).prop_map(|key| Op::Remove { key }),
        2 => (0..16usize, instant(1_200)).prop_map(|(budget, now)| Op::Sweep { budget, now }),
        1 => (0..16usize, instant(1_200), 0..64u64)
            .prop_map(|(budget, now, keep)| Op::Scan { budget, now, keep }),
        1 => (1..16usize, instant(1_200)).prop_map(|(budget, now)| Op::Evict { budget, now }),
    ]
}

/// A seeded hash that spreads sequential keys (as the limiter's mix does).
fn hash(key: u64, seed: u64) -> u64 {
    let product = u128::from(key ^ seed) * 0x9E37_79B9_7F4A_7C15;
    (product as u64) ^ ((product >> 64) as u64)
}

/// [`hash`] as the table's [`Rehash`].
#[derive(Debug)]
struct Seeded(u64);

impl Rehash<u64> for Seeded {
    fn rehash(&self, key: &u64) -> u64 {
        hash(*key, self.0)
    }
}

type Map = Table<u64, Seeded>;

fn expires(time: u64, _extra: u32) -> u64 {
    time
}

fn check(table: &Map, model: &HashMap<u64, (u64, u32)>, seed: u64) {
    assert_eq!(table.len(), model.len());
    for key in 0..64u64 {
        let stored = table
            .find(hash(key, seed), &key)
            .and_then(|at| table.state_at(at));
        assert_eq!(stored, model.get(&key).copied(), "key {key}");
    }
    if let Some(least) = model.values().map(|(time, _)| time).min() {
        assert!(table.earliest() <= *least, "bound above a live entry");
    }
}

/// Applies a reclaiming step's result to the model: every entry gone must
/// have been expired at `now`, and the count must match.
fn reclaimed(table: &Map, model: &mut HashMap<u64, (u64, u32)>, seed: u64, now: u64, count: usize) {
    let gone: Vec<u64> = model
        .keys()
        .copied()
        .filter(|key| table.find(hash(*key, seed), key).is_none())
        .collect();
    for key in &gone {
        let (time, _) = model.remove(key).unwrap_or_default();
        assert!(
            time <= now,
            "key {key} reclaimed at {now} but expires at {time}"
        );
    }
    assert_eq!(gone.len(), count);
}

/// What a full table does for room: a scan with `budget` at `now`, then
/// the removal of the soonest live entry it found; the model follows.
fn evict(
    table: &mut Map,
    model: &mut HashMap<u64, (u64, u32)>,
    seed: u64,
    budget: usize,
    now: u64,
) {
    let scan = table.scan(budget, now, &expires, &|_: &u64| false);
    reclaimed(table, model, seed, now, scan.reclaimed);
    if let Some((at, _)) = scan.soonest {
        let victim = model
            .keys()
            .copied()
            .find(|key| table.find(hash(*key, seed), key) == Some(at));
        table.remove_at(at);
        if let Some(victim) = victim {
            model.remove(&victim);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_table_behaves_like_a_map(
        cap in 1..48usize,
        seed in any::<u64>(),
        ops in proptest::collection::vec(op(), 1..200),
    ) {
        let mut table: Map = Table::new(cap, Seeded(seed));
        let mut model: HashMap<u64, (u64, u32)> = HashMap::new();
        for op in ops {
            match op {
                Op::Put { key, time, extra, hinted } => {
                    let h = hash(key, seed);
                    match table.lookup(h, &key) {
                        Ok(at) => {
                            // Updates never move an expiry earlier (the
                            // algorithms' promise the bound relies on).
                            let (old, _) = model.get(&key).copied().unwrap_or_default();
                            let time = time.max(old);
                            table.set_at(at, (time, extra));
                            model.insert(key, (time, extra));
                        }
                        Err(vacancy) if table.has_room(1) => {
                            if hinted {
                                table.insert_vacant(vacancy, h, key, (time, extra), time);
                            } else {
                                table.insert(h, key, (time, extra), time);
                            }
                            model.insert(key, (time, extra));
                        }
                        Err(_) => prop_assert_eq!(model.len(), cap),
                    }
                }
                Op::PutAfterEvict { key, time, budget, now } => {
                    let h = hash(key, seed);
                    if let Err(vacancy) = table.lookup(h, &key) {
                        evict(&mut table, &mut model, seed, budget, now);
                        if table.has_room(1) {
                            let time = time.max(now);
                            table.insert_vacant(vacancy, h, key, (time, 0), time);
                            model.insert(key, (time, 0));
                        }
                    }
                }
                Op::Remove { key } => {
                    if let Some(at) = table.find(hash(key, seed), &key) {
                        table.remove_at(at);
                    }
                    model.remove(&key);
                }
                Op::Sweep { budget, now } => {
                    let count = table.sweep(budget, now, expires);
                    prop_assert!(count <= budget * super::table::SWEEP_ROUNDS);
                    reclaimed(&table, &mut model, seed, now, count);
                }
                Op::Scan { budget, now, keep } => {
                    let kept = model.get(&keep).copied();
                    let scan = table.scan(budget, now, &expires, &|k: &u64| *k == keep);
                    reclaimed(&table, &mut model, seed, now, scan.reclaimed);
                    prop_assert_eq!(model.get(&keep).copied(), kept);
                    if let Some((at, expiry)) = scan.soonest {
                        prop_assert!(expiry > now);
                        prop_assert_eq!(table.state_at(at).map(|(t, _)| t), Some(expiry));
                    }
                }
                Op::Evict { budget, now } => evict(&mut table, &mut model, seed, budget, now),
            }
            check(&table, &model, seed);
        }
    }
}
