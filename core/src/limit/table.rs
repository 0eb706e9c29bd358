//! One shard's key table: open addressing with Robin Hood linear probing,
//! backward-shift deletion (no tombstones, so no rehash pauses under churn),
//! any number of slots (not only powers of two), a load of at most 7/8,
//! growth by a quarter (so the load stays above 7/10 once grown) and a hard
//! cap on entries.
//!
//! A slot is the key plus one 8-byte word: the entry's probe distance in
//! the top byte (`0` marks an empty slot, so new slots are zeroed memory)
//! and its packed state in the rest ([`word`]). The distance byte tells a
//! lookup where to stop and which slots can hold its key without hashing
//! any resident; only growth, and distances of 254 or more (which only a
//! flood of colliding keys makes), hash a stored key again, with the
//! table's [`Rehash`].

use super::algorithm::is_expired;
use super::key::KeyRef;
use word::{at_distance, ctrl, FAR, STATE_MASK};

/// The hash a table places a stored key by: the same its limiter looks the
/// key up with.
pub(crate) trait Rehash<K> {
    /// The hash of `key`.
    fn rehash(&self, key: &K) -> u64;
}

/// One slot: a key and its word (distance and state), or empty (word `0`).
#[derive(Debug, Default)]
pub(crate) struct Slot<K> {
    pub(crate) key: K,
    word: u64,
}

/// The table of one shard.
#[derive(Debug)]
pub(crate) struct Table<K, H> {
    slots: Vec<Slot<K>>,
    len: usize,
    /// Most entries ever held.
    cap: usize,
    /// Slots at full size: `ceil(cap · 8 / 7)` (load at most 7/8).
    max_slots: usize,
    /// Where the incremental sweep goes on.
    cursor: usize,
    /// A lower bound of every entry's expiry: while `now` is below it,
    /// nothing can be expired and the sweep costs one comparison.
    earliest: u64,
    /// The least expiry met during the current lap of the cursor (entries
    /// examined, or written, since the lap began).
    lap_min: u64,
    /// Slots the cursor still has to examine to finish the lap; when it
    /// does, `lap_min` becomes the new `earliest`.
    lap_left: usize,
    /// Where the current lap began.
    lap_start: usize,
    /// False once an entry was moved from the part of the lap still ahead
    /// of the cursor into the part behind it (so the lap may miss it); such
    /// a lap only lowers the bound.
    lap_exact: bool,
    /// Inline times are offsets from this instant (Unix ms).
    epoch: u64,
    /// When the shard's clock passes this instant the epoch moves forward.
    rebase_at: u64,
    /// The first instant at which [`Self::sweep`] has anything to do: the
    /// least of `earliest` and the instant after `rebase_at`.
    due: u64,
    /// States that do not fit inline.
    side: Vec<(u64, u32)>,
    /// Free entries of `side`.
    free: Vec<usize>,
    /// How stored keys are hashed again.
    hasher: H,
}

/// Most rounds of one incremental sweep.
pub(crate) const SWEEP_ROUNDS: usize = 4;

/// The home slot of `hash` among `slots`: multiply-shift of its low 32 bits.
#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "the low 32 bits times slots fits 128 bits and (h * slots) >> 32 < slots"
)]
fn home(hash: u64, slots: usize) -> usize {
    ((u128::from(hash as u32) * slots as u128) >> 32) as usize
}

#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    reason = "home < slots and at < slots, so neither side goes below 0 or past 2 * slots"
)]
fn distance(home: usize, at: usize, slots: usize) -> usize {
    if at >= home {
        at - home
    } else {
        at + slots - home
    }
}

/// Where a lookup for a missing key stopped: the slot the key would take,
/// its distance from the key's home, and the table's shape then (a vacancy
/// is used only while slot count and length are unchanged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Vacancy {
    at: usize,
    probed: usize,
    slots: usize,
    len: usize,
}

/// What a bounded scan for room found.
pub(crate) struct Scan {
    /// Entries removed because they had expired.
    pub(crate) reclaimed: usize,
    /// The live entry expiring soonest among those examined: (slot, expiry).
    pub(crate) soonest: Option<(usize, u64)>,
}

impl<K: Default, H> Table<K, H> {
    /// An empty table that will hold at most `cap` entries, placing keys by
    /// `hasher`.
    pub(crate) fn new(cap: usize, hasher: H) -> Self {
        let max_slots = cap.saturating_mul(8).div_ceil(7).max(8);
        Self {
            slots: Vec::new(),
            len: 0,
            cap,
            max_slots,
            cursor: 0,
            earliest: u64::MAX,
            lap_min: u64::MAX,
            lap_left: 0,
            lap_start: 0,
            lap_exact: true,
            epoch: 0,
            rebase_at: u64::MAX,
            due: u64::MAX,
            side: Vec::new(),
            free: Vec::new(),
            hasher,
        }
    }

    /// Records that an entry expiring at `expires_at` is stored.
    #[inline]
    fn note_expiry(&mut self, expires_at: u64) {
        self.earliest = self.earliest.min(expires_at);
        self.lap_min = self.lap_min.min(expires_at);
        self.due = self.due.min(expires_at);
    }

    /// Recomputes [`Self::due`] after `earliest` or `rebase_at` moved.
    #[inline]
    fn refresh_due(&mut self) {
        self.due = self.earliest.min(self.rebase_at.saturating_add(1));
    }

    /// Counts one slot the cursor moved past (it is now at `next`); at the
    /// end of a lap the bound moves up to the least expiry the lap met.
    #[inline]
    fn lap_step(&mut self, next: usize) {
        self.lap_left = self.lap_left.saturating_sub(1);
        if self.lap_left == 0 {
            self.earliest = if self.lap_exact {
                self.lap_min
            } else {
                self.earliest.min(self.lap_min)
            };
            self.lap_min = u64::MAX;
            self.lap_left = self.slots.len();
            self.lap_start = next;
            self.lap_exact = true;
            self.refresh_due();
        }
    }

    /// The lower bound of every stored entry's expiry (`u64::MAX` when
    /// empty).
    #[cfg(test)]
    pub(crate) fn earliest(&self) -> u64 {
        self.earliest
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Most entries ever held.
    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    /// Whether one more entry fits under the cap.
    pub(crate) fn has_room(&self, more: usize) -> bool {
        self.len.saturating_add(more) <= self.cap
    }

    /// Bytes of slot storage allocated (the side list included).
    pub(crate) fn slot_bytes(&self) -> usize {
        self.slots
            .capacity()
            .saturating_mul(std::mem::size_of::<Slot<K>>())
            .saturating_add(
                self.side
                    .capacity()
                    .saturating_mul(std::mem::size_of::<(u64, u32)>()),
            )
            .saturating_add(
                self.free
                    .capacity()
                    .saturating_mul(std::mem::size_of::<usize>()),
            )
    }

    /// The packed state at `at`.
    #[inline]
    pub(crate) fn state_at(&self, at: usize) -> Option<(u64, u32)> {
        let word = self.slots.get(at)?.word;
        (ctrl(word) != 0).then(|| self.decode(word))
    }

    /// Overwrites the packed state at `at`. The new state must not expire
    /// before the one it replaces (see [`super::Algorithm::decide`]), so the
    /// sweep's bound stays a bound.
    #[inline]
    pub(crate) fn set_at(&mut self, at: usize, state: (u64, u32)) {
        let Some(old) = self.slots.get(at).map(|slot| slot.word) else {
            return;
        };
        if ctrl(old) == 0 {
            return;
        }
        self.release(old);
        let code = self.encode(state);
        if let Some(slot) = self.slots.get_mut(at) {
            slot.word = (old & !STATE_MASK) | code;
        }
    }

    /// Reads the state at `at`, lets `f` decide, and stores the next state
    /// `f` gives, if any; `None` when `at` holds no entry.
    #[inline]
    pub(crate) fn update<R>(
        &mut self,
        at: usize,
        f: impl FnOnce((u64, u32)) -> (R, Option<(u64, u32)>),
    ) -> Option<R> {
        self.update_inline(at, f)
    }

    /// The shard's clock went back to `now`: states written from now on
    /// expire after `now` but may expire before the current bound, so the
    /// bound (and the current lap's) comes down to `now`.
    #[cold]
    pub(crate) fn rewind(&mut self, now: u64) {
        self.earliest = self.earliest.min(now);
        self.lap_min = self.lap_min.min(now);
        self.due = self.due.min(now);
    }

    /// Clocks the table at `now`: once the clock passes the epoch's
    /// half-life the epoch moves forward (see [`word`]).
    #[inline]
    pub(crate) fn tick(&mut self, now: u64) {
        if now > self.rebase_at {
            self.rebase(now);
        }
    }
}

impl<K: Default, H: Rehash<K>> Table<K, H> {
    /// The probe distance of the entry at `at` whose word is `word`.
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "an occupied slot's distance byte is at least 1"
    )]
    fn distance_at(&self, at: usize, word: u64, key: &K) -> usize {
        let c = ctrl(word);
        if c < FAR {
            usize::from(c) - 1
        } else {
            self.far_distance(at, key)
        }
    }

    /// The distance of a key at `at` from its home, from its hash.
    #[cold]
    fn far_distance(&self, at: usize, key: &K) -> usize {
        let n = self.slots.len();
        distance(home(self.hasher.rehash(key), n), at, n)
    }

    /// The slot holding `key`, if any.
    #[inline]
    pub(crate) fn find<Q: KeyRef<K> + ?Sized>(&self, hash: u64, key: &Q) -> Option<usize> {
        self.lookup(hash, key).ok()
    }

    /// The slot holding `key`, or where its probe stopped (the slot it
    /// would take), which [`Self::insert_vacant`] starts from instead of
    /// probing again.
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "probes and slot indices stay below the slot count"
    )]
    pub(crate) fn lookup<Q: KeyRef<K> + ?Sized>(
        &self,
        hash: u64,
        key: &Q,
    ) -> Result<usize, Option<Vacancy>> {
        let n = self.slots.len();
        if n == 0 {
            return Err(None);
        }
        let mut at = home(hash, n);
        let mut probed = 0;
        loop {
            let Some(slot) = self.slots.get(at) else {
                return Err(None);
            };
            let c = ctrl(slot.word);
            // Empty, or a resident closer to its home than we are to ours:
            // the key would have been placed here.
            let stop = if c == 0 {
                true
            } else if usize::from(c) == probed + 1 {
                if key.matches(&slot.key) {
                    return Ok(at);
                }
                false
            } else if c < FAR {
                usize::from(c) <= probed
            } else if probed < usize::from(FAR) {
                // The resident is at least 254 slots from its home.
                false
            } else {
                let resident = self.distance_at(at, slot.word, &slot.key);
                if resident == probed && key.matches(&slot.key) {
                    return Ok(at);
                }
                resident < probed
            };
            if stop {
                return Err(Some(Vacancy {
                    at,
                    probed,
                    slots: n,
                    len: self.len,
                }));
            }
            probed += 1;
            at += 1;
            if at == n {
                at = 0;
            }
            if probed > n {
                return Err(None);
            }
        }
    }

    /// Removes the entry at `at`, shifting its followers back. Returns the
    /// last slot the shift reached: the entries that were in the slots after
    /// `at` up to it (going round) now sit one slot earlier.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "a live entry was just removed (len >= 1); indices stay below the slot count"
    )]
    pub(crate) fn remove_at(&mut self, at: usize) -> usize {
        let n = self.slots.len();
        let old = match self.slots.get_mut(at) {
            Some(slot) if ctrl(slot.word) != 0 => std::mem::take(slot),
            _ => return at,
        };
        self.release(old.word);
        self.len -= 1;
        let mut hole = at;
        loop {
            let next = if hole + 1 == n { 0 } else { hole + 1 };
            let Some(slot) = self.slots.get(next) else {
                return hole;
            };
            if ctrl(slot.word) <= 1 {
                return hole;
            }
            let moved = self.distance_at(next, slot.word, &slot.key) - 1;
            if next == self.cursor {
                // The entry under the cursor moves behind it.
                self.lap_exact = false;
            }
            self.slots.swap(hole, next);
            if let Some(slot) = self.slots.get_mut(hole) {
                slot.word = at_distance(slot.word, moved);
            }
            hole = next;
        }
    }
}

mod expiry;
mod grow;
#[cfg(test)]
mod tests;
mod word;
