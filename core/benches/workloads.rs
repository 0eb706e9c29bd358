//! Workloads shared by the limiter benches and the callgrind driver
//! (`examples/limiter_ops.rs`): acd's keyed engine and governor's keyed
//! limiters on the same keys, quota and fake clock.
#![allow(dead_code)]

use acd_core::limit::{Algorithm, FixedWindow, Gcra, KeyedLimiter, LimiterConfig, Quota};
use acd_core::UnixMillis;
use governor::clock::FakeRelativeClock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::{DashMapStateStore, HashMapStateStore};
use std::hash::Hash;
use std::hint::black_box;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Requests per hour: high enough that no workload is ever refused, so both
/// engines do the same (admitting) work.
pub const REQUESTS_PER_HOUR: u32 = 1_000_000_000;
/// The fake clock's start (Unix ms) for acd.
pub const START_MS: u64 = 1_700_000_000_000;
/// Keys of the round-robin workload.
pub const MANY_KEYS: u64 = 1_000_000;
/// Both clocks move 1 ms every this many checks.
pub const TICK_EVERY: u64 = 1024;

/// A keyed limiter under test.
pub trait Subject<K>: Sync {
    /// Checks one request for `key`; true when admitted.
    fn check(&self, key: &K) -> bool;
    /// Moves the clock on by 1 ms.
    fn tick(&self);
}

/// acd's engine with algorithm `A`.
pub struct Acd<K, A: Algorithm> {
    limiter: KeyedLimiter<K, A>,
    rule: A::Rule,
    now: AtomicU64,
}

impl<K: Default, A: Algorithm> Acd<K, A> {
    /// An engine holding up to `config.max_keys` keys.
    pub fn new(config: LimiterConfig) -> Self {
        Self {
            limiter: KeyedLimiter::new(config),
            rule: A::rule(Quota::per_seconds(REQUESTS_PER_HOUR, 3_600)),
            now: AtomicU64::new(START_MS),
        }
    }

    /// The engine.
    pub fn limiter(&self) -> &KeyedLimiter<K, A> {
        &self.limiter
    }
}

impl<K: Default + Send + Hash + Eq + Clone, A: Algorithm> Subject<K> for Acd<K, A> {
    #[inline]
    fn check(&self, key: &K) -> bool {
        self.limiter
            .check(
                key,
                &self.rule,
                UnixMillis::new(self.now.load(Ordering::Relaxed)),
            )
            .admitted
    }

    fn tick(&self) {
        self.now.fetch_add(1, Ordering::Relaxed);
    }
}

/// governor's keyed limiter over store `S` with a fake clock.
pub struct Gov<K: Hash + Eq + Clone, S: governor::state::StateStore<Key = K>> {
    limiter: governor::RateLimiter<K, S, FakeRelativeClock, NoOpMiddleware<Nanos>>,
    clock: FakeRelativeClock,
}

fn governor_quota() -> governor::Quota {
    governor::Quota::per_hour(NonZeroU32::new(REQUESTS_PER_HOUR).unwrap_or(NonZeroU32::MIN))
}

/// governor with its default keyed store (DashMap, std hasher).
pub fn governor_dashmap<K: Hash + Eq + Clone>() -> Gov<K, DashMapStateStore<K>> {
    let clock = FakeRelativeClock::default();
    Gov {
        limiter: governor::RateLimiter::dashmap_with_clock(governor_quota(), clock.clone()),
        clock,
    }
}

/// governor with a DashMap store and foldhash (the hasher acd uses).
pub fn governor_dashmap_foldhash<K: Hash + Eq + Clone>(
) -> Gov<K, DashMapStateStore<K, foldhash::fast::RandomState>> {
    let clock = FakeRelativeClock::default();
    Gov {
        limiter: governor::RateLimiter::dashmap_with_clock_and_hasher(
            governor_quota(),
            clock.clone(),
            foldhash::fast::RandomState::default(),
        ),
        clock,
    }
}

/// governor with its Mutex<HashMap> store.
pub fn governor_hashmap<K: Hash + Eq + Clone>() -> Gov<K, HashMapStateStore<K>> {
    let clock = FakeRelativeClock::default();
    Gov {
        limiter: governor::RateLimiter::hashmap_with_clock(governor_quota(), clock.clone()),
        clock,
    }
}

impl<K, S> Subject<K> for Gov<K, S>
where
    K: Hash + Eq + Clone + Sync,
    S: governor::state::StateStore<Key = K> + Sync,
{
    #[inline]
    fn check(&self, key: &K) -> bool {
        self.limiter.check_key(key).is_ok()
    }

    fn tick(&self) {
        self.clock.advance(Duration::from_millis(1));
    }
}

/// acd's configuration for the workloads: room for the round-robin keys.
pub fn acd_config() -> LimiterConfig {
    LimiterConfig::with_max_keys(1_100_000)
}

/// acd, fixed window.
pub fn acd_fixed_window() -> Acd<u64, FixedWindow> {
    Acd::new(acd_config())
}

/// acd, GCRA.
pub fn acd_gcra() -> Acd<u64, Gcra> {
    Acd::new(acd_config())
}

/// (a) one key, one thread: `n` checks.
pub fn one_key<S: Subject<u64>>(subject: &S, n: u64) -> u64 {
    let mut admitted = 0;
    for i in 0..n {
        if i % TICK_EVERY == 0 {
            subject.tick();
        }
        admitted += u64::from(subject.check(black_box(&42)));
    }
    admitted
}

/// Makes every key of the round-robin workload known.
pub fn prefill<S: Subject<u64>>(subject: &S, keys: u64) {
    for key in 0..keys {
        black_box(subject.check(&key));
    }
}

/// (b) `n` checks cycling through `keys` known keys, from `*cursor` on.
pub fn round_robin<S: Subject<u64>>(subject: &S, keys: u64, cursor: &mut u64, n: u64) -> u64 {
    let mut admitted = 0;
    for i in 0..n {
        if i % TICK_EVERY == 0 {
            subject.tick();
        }
        admitted += u64::from(subject.check(black_box(cursor)));
        *cursor += 1;
        if *cursor == keys {
            *cursor = 0;
        }
    }
    admitted
}

/// (c) `n` keys seen for the first time, from `first` on.
pub fn new_keys<S: Subject<u64>>(subject: &S, first: u64, n: u64) -> u64 {
    let mut admitted = 0;
    for key in first..first + n {
        admitted += u64::from(subject.check(black_box(&key)));
    }
    admitted
}
