//! The keyed engine under threads, floods and full tables: no over-admission
//! under any interleaving, memory bounded by the configured cap, the
//! full-table policies, and stacked checks across shards.

use acd_core::limit::{
    Algorithm, FixedWindow, Gcra, InMemoryLimiter, KeyedLimiter, LimitCheck, LimiterConfig, Quota,
    RateLimiter, StackDecision, WhenFull,
};
use acd_core::UnixMillis;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};

const THREADS: usize = 8;

#[test]
fn eight_threads_on_one_key_never_exceed_the_window_limit() {
    let limiter: KeyedLimiter<u64, FixedWindow> = KeyedLimiter::default();
    let rule = FixedWindow::rule(Quota {
        requests: 50,
        window_ms: 10,
    });
    // The threads step through time together, one ms per round (a barrier
    // between rounds), so readings are never more than one window out of
    // order: a reading more than one window late is believed and may
    // re-admit (see `limit_clock.rs`).
    let rounds = Barrier::new(THREADS);
    // Admitted requests per window, identified by the window's end.
    let per_window = Mutex::new(HashMap::<u64, u32>::new());
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                let mut mine = HashMap::<u64, u32>::new();
                for i in 0..5_000u64 {
                    if i % 40 == 0 {
                        rounds.wait();
                    }
                    let now = 1_000 + i / 40;
                    let verdict = limiter.check(&42, &rule, UnixMillis::new(now));
                    if verdict.admitted {
                        *mine.entry(u64::from(verdict.reset_at)).or_default() += 1;
                    }
                }
                let mut all = per_window.lock().unwrap();
                for (window, count) in mine {
                    *all.entry(window).or_default() += count;
                }
            });
        }
    });
    let per_window = per_window.into_inner().unwrap();
    assert!(per_window.values().all(|&count| count <= 50));
    assert!(per_window.values().sum::<u32>() >= 50);
}

#[test]
fn eight_threads_at_one_instant_get_exactly_the_limit() {
    fn run<A: Algorithm>() -> u64 {
        let limiter: KeyedLimiter<u64, A> = KeyedLimiter::default();
        let rule = A::rule(Quota::per_seconds(1_000, 60));
        let admitted = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                scope.spawn(|| {
                    for _ in 0..500 {
                        if limiter.check(&7, &rule, UnixMillis::new(5_000)).admitted {
                            admitted.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        admitted.into_inner()
    }
    assert_eq!(run::<FixedWindow>(), 1_000);
    assert_eq!(run::<Gcra>(), 1_000);
}

#[test]
fn gcra_under_threads_stays_within_burst_plus_rate() {
    let limiter: KeyedLimiter<u64, Gcra> = KeyedLimiter::default();
    let quota = Quota {
        requests: 20,
        window_ms: 100,
    };
    let rule = Gcra::rule(quota);
    // One ms per round of 16 checks per thread, the rounds kept in step
    // (readings at most one window out of order, as above).
    let rounds = Barrier::new(THREADS);
    let admitted = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                for i in 0..4_000u64 {
                    if i % 16 == 0 {
                        rounds.wait();
                    }
                    let now = i / 16;
                    if limiter.check(&3, &rule, UnixMillis::new(now)).admitted {
                        admitted.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let elapsed = 4_000 / 16;
    // burst + rate * t, rate = 20 per 100 ms
    assert!(admitted.into_inner() <= 20 + elapsed * 20 / 100);
}

#[test]
fn stacked_checks_across_shards_are_all_or_none_under_threads() {
    let limiter = InMemoryLimiter::<FixedWindow>::with_config(LimiterConfig {
        shards: 64,
        ..LimiterConfig::default()
    });
    let quota = |requests| Quota::per_seconds(requests, 60);
    let check = |name, requests, subject| LimitCheck {
        name,
        quota: quota(requests),
        subject,
    };
    let first = [check("a", 1_000, "x"), check("b", 300, "shared")];
    let second = [check("b", 300, "shared"), check("c", 1_000, "y")];
    let counts = [AtomicU64::new(0), AtomicU64::new(0)];
    let shared = &limiter;
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (stack, count) = if thread % 2 == 0 {
                (&first, &counts[0])
            } else {
                (&second, &counts[1])
            };
            scope.spawn(move || {
                for _ in 0..200 {
                    if let StackDecision::Admitted { .. } =
                        shared.acquire(stack, UnixMillis::new(1_000))
                    {
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let [first_ok, second_ok] = counts.map(AtomicU64::into_inner);
    assert_eq!(first_ok + second_ok, 300);
    let count = |name, subject| {
        limiter
            .state(name, subject)
            .map_or(0, |s| u64::from(s.count))
    };
    assert_eq!(count("a", "x"), first_ok);
    assert_eq!(count("c", "y"), second_ok);
    assert_eq!(count("b", "shared"), 300);
}

#[test]
fn a_million_distinct_ips_do_not_grow_memory_past_the_cap() {
    let limiter: KeyedLimiter<Box<str>, FixedWindow> =
        KeyedLimiter::new(LimiterConfig::with_max_keys(10_000));
    let rule = FixedWindow::rule(Quota::per_seconds(100, 60));
    let mut ip = String::new();
    let mut check = |i: u32, now: u64| {
        ip.clear();
        let [a, b, c, d] = i.to_be_bytes();
        let _ = write!(ip, "10.{a}{b}.{c}.{d}");
        limiter
            .check(ip.as_str(), &rule, UnixMillis::new(now))
            .admitted
    };
    // A burst of 200 000 new IPs in one instant: the cap holds.
    let refused = (0..200_000).filter(|&i| !check(i, 0)).count();
    assert!(refused >= 190_000, "refused {refused}");
    let full_bytes = limiter.table_bytes();
    assert!(limiter.len() <= limiter.capacity());
    assert!(limiter.capacity() <= 10_000 + limiter.shard_count());
    // 32 bytes per slot, load <= 4/5, rounded up per shard.
    assert!(full_bytes <= (10_000 * 5 / 4 + 8 * limiter.shard_count()) * 32);
    // Then 800 000 more, one per 10 ms (6 000 per window): the sweep keeps
    // up, nearly all are admitted, and memory stays where it was.
    let refused = (200_000..1_000_000)
        .filter(|&i| !check(i, 60_000 + 10 * u64::from(i - 200_000)))
        .count();
    assert!(refused < 8_000, "refused {refused}");
    assert_eq!(limiter.table_bytes(), full_bytes);
    assert!(limiter.len() <= limiter.capacity());
}

#[test]
fn full_table_refuses_new_keys_then_recovers_after_the_window() {
    let limiter: KeyedLimiter<u64, FixedWindow> =
        KeyedLimiter::new(LimiterConfig::with_max_keys(100));
    let rule = FixedWindow::rule(Quota::per_seconds(5, 60));
    for key in 0..100 {
        assert!(limiter.check(&key, &rule, UnixMillis::new(1_000)).admitted);
    }
    let refused = limiter.check(&1_000, &rule, UnixMillis::new(1_000));
    assert!(!refused.admitted);
    assert!(
        refused.retry_at > UnixMillis::new(1_000) && refused.retry_at <= UnixMillis::new(60_000)
    );
    // known keys keep their exact counts
    for _ in 0..4 {
        assert!(limiter.check(&5, &rule, UnixMillis::new(2_000)).admitted);
    }
    assert!(!limiter.check(&5, &rule, UnixMillis::new(2_000)).admitted);
    // after the window, room is reclaimed on demand
    assert!(
        limiter
            .check(&1_000, &rule, UnixMillis::new(60_000))
            .admitted
    );
    assert!(limiter.len() <= 100);
}

#[test]
fn evict_policy_admits_new_keys_without_growing() {
    let limiter: KeyedLimiter<u64, Gcra> = KeyedLimiter::new(LimiterConfig {
        max_keys: 100,
        when_full: WhenFull::EvictSoonest,
        ..LimiterConfig::default()
    });
    let rule = Gcra::rule(Quota::per_seconds(5, 60));
    for key in 0..1_000 {
        assert!(
            limiter
                .check(&key, &rule, UnixMillis::new(1_000 + key))
                .admitted
        );
    }
    assert_eq!(limiter.len(), 100);
}

#[test]
fn stacked_refusal_for_room_charges_nothing() {
    // Room is kept per limit: one subject per limit name here.
    let limiter = InMemoryLimiter::<FixedWindow>::with_config(LimiterConfig::with_max_keys(1));
    let quota = Quota::per_seconds(5, 60);
    let check = |name, subject| LimitCheck {
        name,
        quota,
        subject,
    };
    assert!(matches!(
        limiter.acquire(&[check("credential", "key-ada")], UnixMillis::new(1_000)),
        StackDecision::Admitted { .. }
    ));
    // A second credential finds its table full; the table-read limit, in a
    // table of its own, has room but is not charged either.
    let stack = [check("table_reads", "ada"), check("credential", "key-bob")];
    let decision = limiter.acquire(&stack, UnixMillis::new(1_000));
    let StackDecision::Refused { refusing, .. } = decision else {
        panic!("expected a refusal for room, got {decision:?}");
    };
    assert_eq!(refusing.index, 1);
    assert_eq!(limiter.state("table_reads", "ada"), None);
    assert_eq!(limiter.state("credential", "key-bob"), None);
    assert_eq!(
        limiter.state("credential", "key-ada").map(|s| s.count),
        Some(1)
    );
}
