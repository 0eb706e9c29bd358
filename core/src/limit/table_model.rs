//! Model-based test of the shard table against a `HashMap`: random
//! sequences of insert (from the home slot, or from where a lookup stopped,
//! also after an eviction made that spot stale), update, remove, sweep, scan
//! and evict (growth happens on the way), checking after every step that the table holds
//! exactly the model's entries, that only expired entries were reclaimed,
//! and that the sweep's expiry bound stays below every live entry.

#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failure"
)]

use super::table::Table;
use proptest::prelude::*;
use std::collections::HashMap;

#[derive(Debug, Clone)]
enum Op {
    /// Insert (when absent and there is room) or update `key` to expire at
    /// `time`; `hinted`: the insert starts where the lookup stopped.
    Put { key: u64, time: u64, hinted: bool },
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

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..64u64, 0..1_000u64, any::<bool>())
            .prop_map(|(key, time, hinted)| Op::Put { key, time, hinted }),
        1 => (0..64u64, 0..1_000u64, 1..16usize, 0..1_200u64)
            .prop_map(|(key, time, budget, now)| Op::PutAfterEvict { key, time, budget, now }),
        2 => (0..64u64).prop_map(|key| Op::Remove { key }),
        2 => (0..16usize, 0..1_200u64).prop_map(|(budget, now)| Op::Sweep { budget, now }),
        1 => (0..16usize, 0..1_200u64, 0..64u64)
            .prop_map(|(budget, now, keep)| Op::Scan { budget, now, keep }),
        1 => (1..16usize, 0..1_200u64).prop_map(|(budget, now)| Op::Evict { budget, now }),
    ]
}

/// A seeded hash that spreads sequential keys (as the limiter's mix does).
fn hash(key: u64, seed: u64) -> u64 {
    let product = u128::from(key ^ seed) * 0x9E37_79B9_7F4A_7C15;
    (product as u64) ^ ((product >> 64) as u64)
}

fn expires(time: u64, _extra: u32) -> u64 {
    time
}

fn check(table: &Table<u64>, model: &HashMap<u64, u64>, seed: u64) {
    assert_eq!(table.len(), model.len());
    for key in 0..64u64 {
        let stored = table
            .find(hash(key, seed), &key)
            .and_then(|at| table.state_at(at))
            .map(|(time, _)| time);
        assert_eq!(stored, model.get(&key).copied(), "key {key}");
    }
    if let Some(least) = model.values().min() {
        assert!(table.earliest() <= *least, "bound above a live entry");
    }
}

/// Applies a reclaiming step's result to the model: every entry gone must
/// have been expired at `now`, and the count must match.
fn reclaimed(table: &Table<u64>, model: &mut HashMap<u64, u64>, seed: u64, now: u64, count: usize) {
    let gone: Vec<u64> = model
        .keys()
        .copied()
        .filter(|key| table.find(hash(*key, seed), key).is_none())
        .collect();
    for key in &gone {
        let time = model.remove(key).unwrap_or_default();
        assert!(
            time <= now,
            "key {key} reclaimed at {now} but expires at {time}"
        );
    }
    assert_eq!(gone.len(), count);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_table_behaves_like_a_map(
        cap in 1..48usize,
        seed in any::<u64>(),
        ops in proptest::collection::vec(op(), 1..200),
    ) {
        let mut table: Table<u64> = Table::new(cap);
        let mut model: HashMap<u64, u64> = HashMap::new();
        for op in ops {
            match op {
                Op::Put { key, time, hinted } => {
                    let h = hash(key, seed);
                    match table.lookup(h, &key) {
                        Ok(at) => {
                            // Updates never move an expiry earlier (the
                            // algorithms' promise the bound relies on).
                            let old = model.get(&key).copied().unwrap_or_default();
                            let time = time.max(old);
                            table.set_at(at, (time, 0));
                            model.insert(key, time);
                        }
                        Err(vacancy) if table.has_room(1) => {
                            if hinted {
                                table.insert_vacant(vacancy, h, key, (time, 0), time);
                            } else {
                                table.insert(h, key, (time, 0), time);
                            }
                            model.insert(key, time);
                        }
                        Err(_) => prop_assert_eq!(model.len(), cap),
                    }
                }
                Op::PutAfterEvict { key, time, budget, now } => {
                    let h = hash(key, seed);
                    if let Err(vacancy) = table.lookup(h, &key) {
                        let scan = table.scan(budget, now, &expires, &|_: &u64| false);
                        reclaimed(&table, &mut model, seed, now, scan.reclaimed);
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
                        if table.has_room(1) {
                            let time = time.max(now);
                            table.insert_vacant(vacancy, h, key, (time, 0), time);
                            model.insert(key, time);
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
                Op::Evict { budget, now } => {
                    let scan = table.scan(budget, now, &expires, &|_: &u64| false);
                    reclaimed(&table, &mut model, seed, now, scan.reclaimed);
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
            }
            check(&table, &model, seed);
        }
    }
}
