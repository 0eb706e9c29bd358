//! The in-process keyed engine: a sharded, bounded, thread-safe table of
//! per-key states driven by an [`Algorithm`].
//!
//! * **Shards**: `N` mutex-protected `Table`s; a key's shard comes from the
//!   high half of its (randomly seeded) hash. A stacked check locks the
//!   shards it needs in ascending order, so it cannot deadlock.
//! * **Bounded**: each shard holds at most `ceil(max_keys / N)` keys, 16
//!   bytes of state each besides the key, at a load of at most 4/5.
//! * **Swept incrementally**: every call examines `sweep_per_call` slots of
//!   each shard it locked and forgets expired states (up to four rounds while
//!   half of a round was expired); a shard that is full
//!   examines up to `scan_when_full` more before applying [`WhenFull`].
//! * **Monotone time**: each shard keeps the latest `now` it has seen and
//!   treats an earlier `now` as that instant. A state forgotten at `t` is
//!   therefore never needed by a request stamped before `t`.

use super::algorithm::{Algorithm, PackedState, Verdict};
use super::fixed_window::FixedWindow;
use super::key::KeyRef;
use super::table::Table;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// What happens when a new key arrives at a shard full of live keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhenFull {
    /// Refuse the request (429 for the limit whose key is new): known keys
    /// keep their exact counts, so nothing is ever over-admitted. The retry
    /// time is a hint: the soonest expiry among the entries examined.
    #[default]
    RefuseNewKeys,
    /// Forget the examined live key that expires soonest and admit the new
    /// one. New keys always get in, but the forgotten key may be admitted
    /// again before its window ends.
    EvictSoonest,
}

/// Sizing and policies of a [`KeyedLimiter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimiterConfig {
    /// Most keys held at once (split evenly over the shards; with a uniform
    /// hash the first shard fills a few percent before the total is reached).
    pub max_keys: usize,
    /// Number of shards; `0` picks one shard per 4096 keys (a power of two,
    /// at most 1024).
    pub shards: usize,
    /// The full-table policy.
    pub when_full: WhenFull,
    /// Slots the incremental sweep examines per call in each locked shard
    /// (up to four times as many while it keeps finding expired ones).
    pub sweep_per_call: usize,
    /// Extra slots examined, only when a new key meets a full shard.
    pub scan_when_full: usize,
}

impl Default for LimiterConfig {
    fn default() -> Self {
        Self {
            max_keys: 1 << 20,
            shards: 0,
            when_full: WhenFull::RefuseNewKeys,
            sweep_per_call: 2,
            scan_when_full: 32,
        }
    }
}

impl LimiterConfig {
    /// The default configuration holding at most `max_keys` keys.
    pub fn with_max_keys(max_keys: usize) -> Self {
        Self {
            max_keys,
            ..Self::default()
        }
    }

    fn shard_count(&self) -> usize {
        if self.shards > 0 {
            return self.shards;
        }
        self.max_keys
            .div_ceil(4096)
            .max(1)
            .next_power_of_two()
            .min(1024)
    }
}

/// A stacked check could not store a new key: its shard is full of live keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFull {
    /// Index of the key (in the request) that found no room.
    pub index: usize,
    /// A hint of when room may appear.
    pub retry_at: UnixMillis,
}

struct ShardState<K> {
    table: Table<K>,
    latest: UnixMillis,
}

impl<K> ShardState<K> {
    #[inline]
    fn clock(&mut self, now: UnixMillis) -> UnixMillis {
        self.latest = self.latest.max(now);
        self.latest
    }
}

/// A shard on its own cache line, so shards do not share one.
#[repr(align(64))]
struct Shard<K>(Mutex<ShardState<K>>);

fn lock<K>(shard: &Shard<K>) -> MutexGuard<'_, ShardState<K>> {
    shard.0.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A final mixing step over the hasher's output (a folded 128-bit
/// multiply), so that the shard (high half), the home slot and the tag (low
/// half) are independent even for sequential keys.
#[inline]
fn mix(hash: u64) -> u64 {
    let product = u128::from(hash) * 0x9E37_79B9_7F4A_7C15;
    (product as u64) ^ ((product >> 64) as u64)
}

fn expiry<A: Algorithm>(time: u64, extra: u32) -> UnixMillis {
    <A::State as PackedState>::unpack(time, extra).expires_at()
}

fn unpack<A: Algorithm>(packed: Option<(u64, u32)>) -> A::State {
    packed.map_or_else(A::State::default, |(time, extra)| {
        <A::State as PackedState>::unpack(time, extra)
    })
}

/// A keyed rate limiter: per-key state under algorithm `A` (fixed window by
/// default), sharded, bounded and safe to share across threads.
///
/// ```
/// use acd_core::limit::{Algorithm, FixedWindow, KeyedLimiter, LimiterConfig, Quota};
/// let limiter: KeyedLimiter<u64> = KeyedLimiter::new(LimiterConfig::with_max_keys(1_000));
/// let rule = FixedWindow::rule(Quota::per_seconds(2, 60));
/// assert!(limiter.check(&7, &rule, 60_000).admitted);
/// assert!(limiter.check(&7, &rule, 60_001).admitted);
/// let third = limiter.check(&7, &rule, 60_002);
/// assert!(!third.admitted);
/// assert_eq!(third.retry_at, 120_000);
/// ```
pub struct KeyedLimiter<K, A: Algorithm = FixedWindow> {
    shards: Box<[Shard<K>]>,
    hasher: foldhash::fast::RandomState,
    config: LimiterConfig,
    algorithm: PhantomData<A>,
}

impl<K, A: Algorithm> std::fmt::Debug for KeyedLimiter<K, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyedLimiter")
            .field("algorithm", &A::default())
            .field("shards", &self.shards.len())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<K: Default, A: Algorithm> Default for KeyedLimiter<K, A> {
    fn default() -> Self {
        Self::new(LimiterConfig::default())
    }
}

impl<K: Default, A: Algorithm> KeyedLimiter<K, A> {
    /// An empty limiter; tables grow on demand up to `config.max_keys`.
    pub fn new(config: LimiterConfig) -> Self {
        let count = config.shard_count();
        let cap = config.max_keys.div_ceil(count);
        Self {
            shards: (0..count)
                .map(|_| {
                    Shard(Mutex::new(ShardState {
                        table: Table::new(cap),
                        latest: 0,
                    }))
                })
                .collect(),
            hasher: foldhash::fast::RandomState::default(),
            config,
            algorithm: PhantomData,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LimiterConfig {
        &self.config
    }

    #[inline]
    fn shard_of(&self, hash: u64) -> usize {
        (((hash >> 32) * self.shards.len() as u64) >> 32) as usize
    }

    /// Checks one request against `key` at `now`, counting it if admitted.
    #[inline]
    pub fn check<Q: KeyRef<K> + ?Sized>(
        &self,
        key: &Q,
        rule: &A::Rule,
        now: UnixMillis,
    ) -> Verdict {
        let hash = mix(key.hash_with(&self.hasher));
        let Some(shard) = self.shards.get(self.shard_of(hash)) else {
            return Verdict::refused(now, now);
        };
        let mut guard = lock(shard);
        let shard = &mut *guard;
        let now = shard.clock(now);
        let verdict = match shard.table.find(hash, key) {
            Some(at) => {
                let (verdict, next) = A::decide(rule, unpack::<A>(shard.table.state_at(at)), now);
                if verdict.admitted {
                    shard.table.set_at(at, next.pack());
                }
                verdict
            }
            None => {
                let (verdict, next) = A::decide(rule, A::State::default(), now);
                if verdict.admitted {
                    let room = if shard.table.has_room(1) {
                        Ok(())
                    } else {
                        self.make_room(&mut shard.table, now, 1, &|_| false)
                    };
                    match room {
                        Ok(()) => {
                            shard
                                .table
                                .insert(hash, key.to_key(), next.pack(), next.expires_at())
                        }
                        Err(retry_at) => return Verdict::refused(retry_at, retry_at),
                    }
                }
                verdict
            }
        };
        shard
            .table
            .sweep(self.config.sweep_per_call, now, expiry::<A>);
        verdict
    }

    /// Makes room for `needed` new keys, per the full-table policy; `Err`
    /// carries the retry hint when there is none.
    fn make_room(
        &self,
        table: &mut Table<K>,
        now: UnixMillis,
        needed: usize,
        keep: &impl Fn(&K) -> bool,
    ) -> Result<(), UnixMillis> {
        if table.has_room(needed) {
            return Ok(());
        }
        let budget = self.config.scan_when_full;
        let mut scan = table.scan(budget, now, &expiry::<A>, keep);
        while !table.has_room(needed) {
            match (self.config.when_full, scan.soonest) {
                (WhenFull::EvictSoonest, Some((at, _))) => {
                    table.remove_at(at);
                    scan = table.scan(budget, now, &expiry::<A>, keep);
                }
                (_, soonest) => {
                    let hint = soonest.map_or(now, |(_, at)| at);
                    return Err(hint.max(now.saturating_add(1)));
                }
            }
        }
        Ok(())
    }

    /// The one atomic step behind stacked checks: locks the shards of
    /// `keys` (ascending), loads each key's state (default when absent),
    /// calls `step` with them and the shards' monotone `now`, and if `step`
    /// returns `true` stores the states it left in the slice. Nothing is
    /// stored when `step` returns `false` or when a new key finds no room.
    pub fn transact<Q: KeyRef<K> + ?Sized>(
        &self,
        keys: &[&Q],
        now: UnixMillis,
        step: &mut dyn FnMut(&mut [A::State], UnixMillis) -> bool,
    ) -> Result<(), StoreFull> {
        let hashes: Vec<u64> = keys
            .iter()
            .map(|k| mix(k.hash_with(&self.hasher)))
            .collect();
        let shard_ids: Vec<usize> = hashes.iter().map(|&h| self.shard_of(h)).collect();
        let mut order = shard_ids.clone();
        order.sort_unstable();
        order.dedup();
        let mut guards: Vec<MutexGuard<'_, ShardState<K>>> = order
            .iter()
            .filter_map(|&id| self.shards.get(id).map(lock))
            .collect();
        let guard_at = |shard: usize| order.binary_search(&shard).unwrap_or(0);
        let latest = guards.iter().map(|g| g.latest).fold(now, u64::max);
        for guard in &mut guards {
            guard.latest = latest;
        }
        let now = latest;

        let mut found = Vec::with_capacity(keys.len());
        let mut states = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            let at = guards.get(guard_at(shard_ids[i])).and_then(|g| {
                g.table
                    .find(hashes[i], *key)
                    .and_then(|at| g.table.state_at(at))
            });
            found.push(at.is_some());
            states.push(unpack::<A>(at));
        }
        let commit = step(&mut states, now);

        if commit {
            for (g, &shard) in order.iter().enumerate() {
                let mine = |i: &usize| shard_ids[*i] == shard;
                let new_keys = (0..keys.len()).filter(|i| mine(i) && !found[*i]).count();
                let Some(guard) = guards.get_mut(g) else {
                    continue;
                };
                let keep =
                    |stored: &K| (0..keys.len()).any(|i| mine(&i) && keys[i].matches(stored));
                if let Err(retry_at) = self.make_room(&mut guard.table, now, new_keys, &keep) {
                    let index = (0..keys.len()).find(|i| mine(i) && !found[*i]).unwrap_or(0);
                    return Err(StoreFull { index, retry_at });
                }
            }
            for (i, key) in keys.iter().enumerate() {
                let Some(guard) = guards.get_mut(guard_at(shard_ids[i])) else {
                    continue;
                };
                let (packed, expires_at) = (states[i].pack(), states[i].expires_at());
                match guard.table.find(hashes[i], *key) {
                    Some(at) => guard.table.set_at(at, packed),
                    None => guard
                        .table
                        .insert(hashes[i], key.to_key(), packed, expires_at),
                }
            }
        }
        for guard in &mut guards {
            guard
                .table
                .sweep(self.config.sweep_per_call, now, expiry::<A>);
        }
        Ok(())
    }

    /// The stored state of `key`, if any (expired states may linger until
    /// swept).
    pub fn state<Q: KeyRef<K> + ?Sized>(&self, key: &Q) -> Option<A::State> {
        let hash = mix(key.hash_with(&self.hasher));
        let shard = lock(self.shards.get(self.shard_of(hash))?);
        let at = shard.table.find(hash, key)?;
        shard
            .table
            .state_at(at)
            .map(|packed| unpack::<A>(Some(packed)))
    }

    /// Keys held (expired ones included until swept). Locks every shard.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| lock(s).table.len()).sum()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Most keys ever held: the sum of the shards' caps.
    pub fn capacity(&self) -> usize {
        self.shards.iter().map(|s| lock(s).table.cap()).sum()
    }

    /// Bytes of slot storage allocated by the tables (keys' own heap bytes
    /// not included).
    pub fn table_bytes(&self) -> usize {
        self.shards.iter().map(|s| lock(s).table.slot_bytes()).sum()
    }

    /// Number of shards.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }
}
