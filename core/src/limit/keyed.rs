//! The in-process keyed engine: a sharded, bounded, thread-safe table of
//! per-key states driven by an [`Algorithm`].
//! The details are on [`KeyedLimiter`].

use super::algorithm::{Algorithm, PackedState, Verdict};
pub use super::config::{LimiterConfig, LimiterConfigError, WhenFull};
use super::fixed_window::FixedWindow;
use super::key::KeyRef;
use super::sync::{self, Mutex, MutexGuard};
use super::table::{Rehash, Table};
use crate::UnixMillis;
use std::marker::PhantomData;

/// A stacked check could not store a new key: its shard is full of live keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFull {
    /// Index of the key (in the request) that found no room.
    pub index: usize,
    /// A hint of when room may appear.
    pub retry_at: UnixMillis,
}

struct ShardState<K> {
    table: Table<K, KeyHasher>,
    latest: UnixMillis,
}

impl<K: Default> ShardState<K> {
    /// The shard's monotone clock: an earlier `now` counts as the latest
    /// instant seen, unless that instant is more than `window` ahead of
    /// `now` (a wrong reading, or a clock set back): then `now` is believed
    /// and the clock goes back to it.
    #[inline]
    fn clock(&mut self, now: UnixMillis, window: u64) -> UnixMillis {
        if now >= self.latest {
            self.latest = now;
        } else if self.latest.saturating_since(now) > window {
            self.set_back(now);
        }
        self.latest
    }

    /// Sets the clock back to `now`, and the table's bound of expiries with
    /// it (states written from now on may expire before the old bound).
    #[cold]
    fn set_back(&mut self, now: UnixMillis) {
        self.latest = now;
        self.table.rewind(now.as_millis());
    }
}

/// A shard on its own cache line, so shards do not share one.
#[repr(align(64))]
struct Shard<K>(Mutex<ShardState<K>>);

fn lock<K>(shard: &Shard<K>) -> MutexGuard<'_, ShardState<K>> {
    sync::lock(&shard.0)
}

/// A final mixing step over the hasher's output (a folded 128-bit
/// multiply), so that the shard (high half) and the home slot (low
/// half) are independent even for sequential keys.
#[inline]
#[allow(
    clippy::cast_possible_truncation,
    reason = "the two 64-bit halves of the product are taken on purpose"
)]
fn mix(hash: u64) -> u64 {
    let product = u128::from(hash) * 0x9E37_79B9_7F4A_7C15;
    (product as u64) ^ ((product >> 64) as u64)
}

/// The limiter's key hash (seeded foldhash, then [`mix`]); each shard's
/// table keeps a copy to place stored keys again when it grows.
#[derive(Debug, Clone)]
pub(crate) struct KeyHasher(foldhash::fast::FixedState);

impl KeyHasher {
    /// The hash of a borrowed key.
    #[inline]
    fn hash<K, Q: KeyRef<K> + ?Sized>(&self, key: &Q) -> u64 {
        mix(key.hash_with(&self.0))
    }
}

impl<K: KeyRef<K>> Rehash<K> for KeyHasher {
    #[inline]
    fn rehash(&self, key: &K) -> u64 {
        self.hash::<K, K>(key)
    }
}

fn expiry<A: Algorithm>(time: u64, extra: u32) -> u64 {
    <A::State as PackedState>::unpack(time, extra)
        .expires_at()
        .as_millis()
}

fn unpack<A: Algorithm>(packed: Option<(u64, u32)>) -> A::State {
    packed.map_or_else(A::State::default, |(time, extra)| {
        <A::State as PackedState>::unpack(time, extra)
    })
}

/// A keyed rate limiter: per-key state under algorithm `A` (fixed window by
/// default), sharded, bounded and safe to share across threads.
///
/// * **Shards**: `N` mutex-protected `Table`s; a key's shard comes from the
///   high half of its (randomly seeded) hash. A stacked check locks the
///   shards it needs in ascending order, so it cannot deadlock.
/// * **Bounded**: each shard holds at most `ceil(max_keys / N)` keys, 8
///   bytes of state and probe distance each besides the key, at a load of
///   at most 7/8 (tables grow by a quarter, so at least 7/10 once grown).
/// * **Swept incrementally**: every call examines `sweep_per_call` slots of
///   each shard it locked and forgets expired states (up to four rounds while
///   half of a round was expired); a shard that is full
///   examines up to `scan_when_full` more before applying [`WhenFull`].
/// * **Monotone time, within one window**: each shard keeps the latest
///   `now` it has seen and treats an earlier `now` as that instant, as long
///   as it is at most one window (of the rule at hand) earlier. A state
///   forgotten at `t` is therefore never needed by a request stamped at
///   most one window before `t`. A `now` more than one window earlier is
///   believed (the clock was wrong, or was set back) and the shard's clock
///   goes back to it; states more than one window ahead of it are discarded
///   by the algorithm ([`is_far_ahead`](super::is_far_ahead)), so one wrong
///   reading refuses a key for at most one window.
///
/// # Hash flooding
///
/// Keys are hashed with foldhash seeded by [`LimiterConfig::hash_seed`].
/// Someone who knows the seed (or guesses a fixed one) can pick subjects
/// that land in one shard and one probe run. What that buys is bounded:
/// a shard never holds more than its cap (`max_keys / shards`, 4096 keys at
/// the default), so the worst lookup walks one shard's slots, and the full
/// shard refuses or evicts per [`WhenFull`] instead of growing. Production
/// passes a random, secret seed, so the placement cannot be predicted from
/// outside; tests and simulations pass a fixed one and repeat exactly.
/// foldhash is not a keyed PRF: a secret seed makes flooding impractical,
/// not impossible, and the bounds above are what holds regardless.
///
/// ```
/// use acd_core::limit::{Algorithm, FixedWindow, KeyedLimiter, LimiterConfig, Quota};
/// use acd_core::UnixMillis;
/// let limiter: KeyedLimiter<u64> = KeyedLimiter::new(LimiterConfig::with_max_keys(1_000));
/// let rule = FixedWindow::rule(Quota::per_seconds(2, 60));
/// assert!(limiter.check(&7, &rule, UnixMillis::new(60_000)).admitted);
/// assert!(limiter.check(&7, &rule, UnixMillis::new(60_001)).admitted);
/// let third = limiter.check(&7, &rule, UnixMillis::new(60_002));
/// assert!(!third.admitted);
/// assert_eq!(third.retry_at, UnixMillis::new(120_000));
/// ```
pub struct KeyedLimiter<K, A: Algorithm = FixedWindow> {
    shards: Box<[Shard<K>]>,
    hasher: KeyHasher,
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
    /// An empty limiter after [checking](LimiterConfig::check) `config`.
    pub fn try_new(config: LimiterConfig) -> Result<Self, LimiterConfigError> {
        config.check()?;
        Ok(Self::new(config))
    }

    /// An empty limiter; tables grow on demand up to `config.max_keys`.
    /// An unchecked `config` is used as far as it can be: `max_keys = 0`
    /// refuses every new key, `shards` is capped at
    /// [`MAX_SHARDS`](super::MAX_SHARDS) (see [`Self::try_new`]).
    pub fn new(config: LimiterConfig) -> Self {
        let count = config.shard_count();
        let cap = config.max_keys.div_ceil(count);
        let hasher = KeyHasher(foldhash::fast::FixedState::with_seed(config.hash_seed));
        Self {
            shards: (0..count)
                .map(|_| {
                    Shard(Mutex::new(ShardState {
                        table: Table::new(cap, hasher.clone()),
                        latest: UnixMillis::ZERO,
                    }))
                })
                .collect(),
            hasher,
            config,
            algorithm: PhantomData,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LimiterConfig {
        &self.config
    }

    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        clippy::cast_possible_truncation,
        reason = "(hash >> 32) < 2^32 and shards <= 1024: the product fits, the result < shards"
    )]
    fn shard_of(&self, hash: u64) -> usize {
        (((hash >> 32) * self.shards.len() as u64) >> 32) as usize
    }
}

impl<K: Default + KeyRef<K>, A: Algorithm> KeyedLimiter<K, A> {
    /// Checks one request against `key` at `now`, counting it if admitted.
    #[inline]
    pub fn check<Q: KeyRef<K> + ?Sized>(
        &self,
        key: &Q,
        rule: &A::Rule,
        now: UnixMillis,
    ) -> Verdict {
        let hash = self.hasher.hash::<K, Q>(key);
        let Some(shard) = self.shards.get(self.shard_of(hash)) else {
            return Verdict::refused(now, now);
        };
        let mut guard = lock(shard);
        let shard = &mut *guard;
        let now = shard.clock(now, A::window(rule));
        let verdict = match shard.table.lookup(hash, key) {
            Ok(at) => shard
                .table
                .update(at, |packed| {
                    let (verdict, next) = A::decide(rule, unpack::<A>(Some(packed)), now);
                    (verdict, verdict.admitted.then(|| next.pack()))
                })
                .unwrap_or_else(|| Verdict::refused(now, now)),
            Err(vacancy) => {
                let (verdict, next) = A::decide(rule, A::State::default(), now);
                if verdict.admitted {
                    // Making room moves entries: the vacancy is then stale
                    // (and ignored by the table).
                    if !shard.table.has_room(1) {
                        if let Err(retry_at) = self.make_room(&mut shard.table, now, 1, &|_| false)
                        {
                            return Verdict::refused(retry_at, retry_at);
                        }
                    }
                    shard.table.insert_vacant(
                        vacancy,
                        hash,
                        key.to_key(),
                        next.pack(),
                        next.expires_at().as_millis(),
                    );
                }
                verdict
            }
        };
        shard
            .table
            .sweep(self.config.sweep_per_call, now.as_millis(), expiry::<A>);
        verdict
    }

    /// Makes room for `needed` new keys, per the full-table policy; `Err`
    /// carries the retry hint when there is none.
    fn make_room(
        &self,
        table: &mut Table<K, KeyHasher>,
        now: UnixMillis,
        needed: usize,
        keep: &impl Fn(&K) -> bool,
    ) -> Result<(), UnixMillis> {
        if table.has_room(needed) {
            return Ok(());
        }
        let budget = self.config.scan_when_full;
        let mut scan = table.scan(budget, now.as_millis(), &expiry::<A>, keep);
        while !table.has_room(needed) {
            match (self.config.when_full, scan.soonest) {
                (WhenFull::EvictSoonest, Some((at, _))) => {
                    table.remove_at(at);
                    scan = table.scan(budget, now.as_millis(), &expiry::<A>, keep);
                }
                (_, soonest) => {
                    let hint = soonest.map_or(now, |(_, at)| UnixMillis::new(at));
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
    ///
    /// `window` is the shortest window of the rules `step` applies: the
    /// shards' clock counts a `now` at most that much earlier than the
    /// latest instant seen as that instant, and believes an earlier one
    /// (see the [type's documentation](Self)).
    pub fn transact<Q: KeyRef<K> + ?Sized>(
        &self,
        keys: &[&Q],
        window: u64,
        now: UnixMillis,
        step: &mut dyn FnMut(&mut [A::State], UnixMillis) -> bool,
    ) -> Result<(), StoreFull> {
        let keys: Vec<(&Self, &Q)> = keys.iter().map(|key| (self, *key)).collect();
        transact_across(&keys, window, now, step)
    }

    /// Where this limiter sits in the global lock order.
    fn lock_rank(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// The stored state of `key`, if any (expired states may linger until
    /// swept).
    pub fn state<Q: KeyRef<K> + ?Sized>(&self, key: &Q) -> Option<A::State> {
        let hash = self.hasher.hash::<K, Q>(key);
        let shard = lock(self.shards.get(self.shard_of(hash))?);
        let at = shard.table.find(hash, key)?;
        shard
            .table
            .state_at(at)
            .map(|packed| unpack::<A>(Some(packed)))
    }
}

impl<K: Default, A: Algorithm> KeyedLimiter<K, A> {
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

/// [`KeyedLimiter::transact`] over keys that may live in different
/// limiters (of one key and state type): every shard involved is locked in
/// one global order (limiter, then shard), so concurrent calls cannot
/// deadlock, and the step is all-or-none across all of them. `window` is
/// the shortest window of the rules `step` applies (see
/// [`KeyedLimiter::transact`]).
#[allow(
    clippy::indexing_slicing,
    reason = "places, hashes, found and states hold one entry per key; i < keys.len()"
)]
pub(crate) fn transact_across<K: Default + KeyRef<K>, A: Algorithm, Q: KeyRef<K> + ?Sized>(
    keys: &[(&KeyedLimiter<K, A>, &Q)],
    window: u64,
    now: UnixMillis,
    step: &mut dyn FnMut(&mut [A::State], UnixMillis) -> bool,
) -> Result<(), StoreFull> {
    let hashes: Vec<u64> = keys
        .iter()
        .map(|(limiter, key)| limiter.hasher.hash::<K, Q>(*key))
        .collect();
    let places: Vec<(usize, usize)> = keys
        .iter()
        .zip(&hashes)
        .map(|((limiter, _), &hash)| (limiter.lock_rank(), limiter.shard_of(hash)))
        .collect();
    let mut order = places.clone();
    order.sort_unstable();
    order.dedup();
    let mut owners = Vec::with_capacity(order.len());
    let mut guards: Vec<MutexGuard<'_, ShardState<K>>> = Vec::with_capacity(order.len());
    for &(rank, shard) in &order {
        let owner = keys
            .iter()
            .map(|(limiter, _)| *limiter)
            .find(|limiter| limiter.lock_rank() == rank);
        let Some((owner, shard)) = owner.and_then(|o| Some((o, o.shards.get(shard)?))) else {
            return Err(StoreFull {
                index: 0,
                retry_at: now.saturating_add(1),
            });
        };
        owners.push(owner);
        guards.push(lock(shard));
    }
    let guard_at = |place: (usize, usize)| order.binary_search(&place).unwrap_or(0);
    // The shards' common clock: the latest instant any of them has seen,
    // unless that is more than `window` ahead of `now` (then `now`).
    let latest = guards.iter().map(|g| g.latest).fold(now, UnixMillis::max);
    let now = if latest.saturating_since(now) > window {
        now
    } else {
        latest
    };
    for guard in &mut guards {
        if guard.latest > now {
            guard.set_back(now);
        } else {
            guard.latest = now;
        }
    }

    let mut found = Vec::with_capacity(keys.len());
    let mut states = Vec::with_capacity(keys.len());
    for (i, (_, key)) in keys.iter().enumerate() {
        let at = guards.get(guard_at(places[i])).and_then(|g| {
            g.table
                .find(hashes[i], *key)
                .and_then(|at| g.table.state_at(at))
        });
        found.push(at.is_some());
        states.push(unpack::<A>(at));
    }
    let commit = step(&mut states, now);

    if commit {
        for (g, &place) in order.iter().enumerate() {
            let mine = |i: &usize| places[*i] == place;
            let new_keys = (0..keys.len()).filter(|i| mine(i) && !found[*i]).count();
            let (Some(guard), Some(owner)) = (guards.get_mut(g), owners.get(g)) else {
                continue;
            };
            let keep = |stored: &K| (0..keys.len()).any(|i| mine(&i) && keys[i].1.matches(stored));
            if let Err(retry_at) = owner.make_room(&mut guard.table, now, new_keys, &keep) {
                let index = (0..keys.len()).find(|i| mine(i) && !found[*i]).unwrap_or(0);
                return Err(StoreFull { index, retry_at });
            }
        }
        for (i, (_, key)) in keys.iter().enumerate() {
            let Some(guard) = guards.get_mut(guard_at(places[i])) else {
                continue;
            };
            let (packed, expires_at) = (states[i].pack(), states[i].expires_at().as_millis());
            match guard.table.find(hashes[i], *key) {
                Some(at) => guard.table.set_at(at, packed),
                None => guard
                    .table
                    .insert(hashes[i], key.to_key(), packed, expires_at),
            }
        }
    }
    for (guard, owner) in guards.iter_mut().zip(&owners) {
        guard
            .table
            .sweep(owner.config.sweep_per_call, now.as_millis(), expiry::<A>);
    }
    Ok(())
}
