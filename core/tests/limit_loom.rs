//! Model check of the keyed engine's locking with loom: every interleaving
//! of two threads (up to `LOOM_MAX_PREEMPTIONS` preemptions) on a small
//! table, with the engine's own code and loom's `Mutex` in place of std's.
//!
//! Built only with `--cfg loom` (scripts/test-rust runs it):
//! `RUSTFLAGS="--cfg loom" cargo test -p acd-core --test limit_loom --release`.
#![cfg(loom)]

use acd_core::limit::{
    Algorithm, FixedWindow, FixedWindowState, KeyedLimiter, LimiterConfig, Quota, Verdict, WhenFull,
};
use acd_core::UnixMillis;
use loom::sync::Arc;
use loom::thread;

/// One request per 1-second window.
fn one_per_second() -> <FixedWindow as Algorithm>::Rule {
    FixedWindow::rule(Quota::per_seconds(1, 1))
}

fn config(max_keys: usize, shards: usize, when_full: WhenFull) -> LimiterConfig {
    LimiterConfig {
        max_keys,
        shards,
        when_full,
        sweep_per_call: 1,
        scan_when_full: 2,
        hash_seed: 0x5EED,
    }
}

/// A shared limiter with `config(max_keys, shards, when_full)`.
fn shared(max_keys: usize, shards: usize, when_full: WhenFull) -> Arc<KeyedLimiter<u64>> {
    Arc::new(KeyedLimiter::new(config(max_keys, shards, when_full)))
}

/// A thread checking one request for `key` at `now`.
fn spawn_check(
    limiter: &Arc<KeyedLimiter<u64>>,
    key: u64,
    now: u64,
) -> thread::JoinHandle<Verdict> {
    let limiter = Arc::clone(limiter);
    thread::spawn(move || limiter.check(&key, &one_per_second(), UnixMillis::new(now)))
}

/// Two keys that live in different shards of a two-shard limiter with
/// `config(2, 2, _)`: with one key of room per shard, the second key is
/// admitted only when its shard is not the first key's.
fn keys_in_two_shards() -> (u64, u64) {
    let probe: KeyedLimiter<u64> = KeyedLimiter::new(config(2, 2, WhenFull::RefuseNewKeys));
    let rule = one_per_second();
    assert!(probe.check(&0, &rule, UnixMillis::new(10)).admitted);
    let other = (1..64u64)
        .find(|key| probe.check(key, &rule, UnixMillis::new(10)).admitted)
        .unwrap_or(0);
    assert_ne!(other, 0, "no key among 1..64 fell in the second shard");
    (0, other)
}

/// All-or-none over `keys` with the fixed window: commits only when every
/// key admits. Returns whether it committed.
fn stacked(limiter: &KeyedLimiter<u64>, keys: [u64; 2], now: u64) -> bool {
    let rule = one_per_second();
    let refs = [&keys[0], &keys[1]];
    let mut admitted = false;
    let window = FixedWindow::window(&rule);
    let result = limiter.transact(&refs, window, UnixMillis::new(now), &mut |states, now| {
        let mut next = Vec::with_capacity(states.len());
        for state in states.iter() {
            let (verdict, state) = FixedWindow::decide(&rule, *state, now);
            if !verdict.admitted {
                return false;
            }
            next.push(state);
        }
        states.copy_from_slice(&next);
        admitted = true;
        true
    });
    assert_eq!(result, Ok(()));
    admitted
}

#[test]
fn two_threads_on_one_key_are_admitted_once_per_window() {
    loom::model(|| {
        let limiter = shared(4, 2, WhenFull::RefuseNewKeys);
        // One thread stamps the end of the first window, the other the start
        // of the next: whichever locks second sees the later time.
        let (early, late) = (
            spawn_check(&limiter, 7, 999),
            spawn_check(&limiter, 7, 1_000),
        );
        let verdicts: Vec<Verdict> = [early, late]
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect();
        let admitted: Vec<UnixMillis> = verdicts
            .iter()
            .filter(|v| v.admitted)
            .map(|v| v.reset_at)
            .collect();
        // Never two admissions in one window; the late stamp always gets in.
        assert!(admitted.contains(&UnixMillis::new(2_000)), "{verdicts:?}");
        let mut windows = admitted.clone();
        windows.dedup();
        assert_eq!(windows.len(), admitted.len(), "{verdicts:?}");
        assert_eq!(
            limiter.state(&7),
            Some(FixedWindowState {
                reset_at: UnixMillis::new(2_000),
                count: 1
            })
        );
    });
}

#[test]
fn a_full_table_takes_exactly_one_of_two_new_keys() {
    loom::model(|| {
        let limiter = shared(1, 1, WhenFull::RefuseNewKeys);
        let handles = [spawn_check(&limiter, 1, 10), spawn_check(&limiter, 2, 10)];
        let admitted: Vec<bool> = handles
            .into_iter()
            .map(|h| h.join().unwrap().admitted)
            .collect();
        assert_eq!(admitted.iter().filter(|a| **a).count(), 1, "{admitted:?}");
        assert_eq!(limiter.len(), 1);
        let kept = if admitted[0] { 1 } else { 2 };
        assert_eq!(limiter.state(&kept).map(|s| s.count), Some(1));
    });
}

#[test]
fn stacked_checks_in_opposite_orders_neither_deadlock_nor_over_admit() {
    loom::model(|| {
        let (a, b) = keys_in_two_shards();
        let limiter = shared(2, 2, WhenFull::RefuseNewKeys);
        let handles: Vec<_> = [[a, b], [b, a]]
            .into_iter()
            .map(|keys| {
                let limiter = Arc::clone(&limiter);
                thread::spawn(move || stacked(&limiter, keys, 10))
            })
            .collect();
        let committed: Vec<bool> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(committed.iter().filter(|c| **c).count(), 1, "{committed:?}");
        for key in [a, b] {
            assert_eq!(
                limiter.state(&key),
                Some(FixedWindowState {
                    reset_at: UnixMillis::new(1_000),
                    count: 1
                })
            );
        }
    });
}

#[test]
fn eviction_and_sweep_never_readmit_a_live_key() {
    loom::model(|| {
        let limiter = shared(1, 1, WhenFull::EvictSoonest);
        // Key 1 uses its one request of the window ending at 1000.
        assert!(
            limiter
                .check(&1, &one_per_second(), UnixMillis::new(10))
                .admitted
        );
        let again = spawn_check(&limiter, 1, 20);
        // A new key in the next window: it takes the only slot (key 1 has
        // expired by then) and moves the shard's clock on, less than one
        // window past key 1's reading at 20 (a reading more than one window
        // late is believed, and may re-admit: see limit_clock.rs).
        let newcomer = spawn_check(&limiter, 2, 1_010);
        let again = again.join().unwrap();
        let newcomer = newcomer.join().unwrap();
        assert!(newcomer.admitted);
        // Key 1 at 20 is admitted only if the newcomer moved time past its
        // window first, and then in the next window.
        if again.admitted {
            assert_eq!(again.reset_at, UnixMillis::new(2_000));
        } else {
            assert_eq!(again.retry_at, UnixMillis::new(1_000));
        }
        assert!(limiter.len() <= 1);
    });
}
