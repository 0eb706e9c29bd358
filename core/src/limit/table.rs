//! One shard's key table: open addressing with Robin Hood linear probing,
//! backward-shift deletion (no tombstones, so no rehash pauses under churn),
//! any number of slots (not only powers of two), a load of at most 4/5 and
//! a hard cap on entries.
//!
//! A slot is the key plus 16 bytes: the packed state `(time, extra)` and a
//! 32-bit tag from the key's hash (`0` marks an empty slot). The tag picks the
//! home slot (`tag · slots / 2³²`), so an entry's probe distance is known
//! without hashing its key again, and it filters key comparisons.

use super::algorithm::is_expired;
use super::key::KeyRef;

/// One slot: a key and its packed state, or empty (`tag == 0`).
#[derive(Debug, Default)]
pub(crate) struct Slot<K> {
    pub(crate) key: K,
    pub(crate) time: u64,
    pub(crate) extra: u32,
    tag: u32,
}

/// The table of one shard.
#[derive(Debug)]
pub(crate) struct Table<K> {
    slots: Vec<Slot<K>>,
    len: usize,
    /// Most entries ever held.
    cap: usize,
    /// Slots at full size: `ceil(cap · 5 / 4)` (load at most 4/5).
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
}

/// Most rounds of one incremental sweep.
pub(crate) const SWEEP_ROUNDS: usize = 4;

/// The tag of a hash: its low 32 bits, never zero.
#[inline]
#[allow(
    clippy::cast_possible_truncation,
    reason = "the low 32 bits are the tag"
)]
pub(crate) const fn tag_of(hash: u64) -> u32 {
    (hash as u32) | 1
}

#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "tag < 2^32, so the 128-bit product fits and (tag * slots) >> 32 < slots"
)]
fn home(tag: u32, slots: usize) -> usize {
    ((u128::from(tag) * slots as u128) >> 32) as usize
}

#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    reason = "home < slots and at < slots, so neither side goes below 0 or past 2 * slots"
)]
fn distance(tag: u32, at: usize, slots: usize) -> usize {
    let home = home(tag, slots);
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

impl<K: Default> Table<K> {
    /// An empty table that will hold at most `cap` entries.
    pub(crate) fn new(cap: usize) -> Self {
        let max_slots = cap.saturating_mul(5).div_ceil(4).max(8);
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
        }
    }

    /// Records that an entry expiring at `expires_at` is stored.
    #[inline]
    fn note_expiry(&mut self, expires_at: u64) {
        self.earliest = self.earliest.min(expires_at);
        self.lap_min = self.lap_min.min(expires_at);
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

    /// Bytes of slot storage allocated.
    pub(crate) fn slot_bytes(&self) -> usize {
        self.slots
            .capacity()
            .saturating_mul(std::mem::size_of::<Slot<K>>())
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
        let tag = tag_of(hash);
        let mut at = home(tag, n);
        let mut probed = 0;
        loop {
            let Some(slot) = self.slots.get(at) else {
                return Err(None);
            };
            if slot.tag == tag && key.matches(&slot.key) {
                return Ok(at);
            }
            // Empty, or a resident closer to its home than we are to ours:
            // the key would have been placed here.
            if slot.tag == 0 || distance(slot.tag, at, n) < probed {
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

    /// The packed state at `at`.
    #[inline]
    pub(crate) fn state_at(&self, at: usize) -> Option<(u64, u32)> {
        self.slots.get(at).map(|slot| (slot.time, slot.extra))
    }

    /// Overwrites the packed state at `at`. The new state must not expire
    /// before the one it replaces (see [`super::Algorithm::decide`]), so the
    /// sweep's bound stays a bound.
    #[inline]
    pub(crate) fn set_at(&mut self, at: usize, (time, extra): (u64, u32)) {
        if let Some(slot) = self.slots.get_mut(at) {
            slot.time = time;
            slot.extra = extra;
        }
    }

    /// Inserts a key known to be absent, with a state expiring at
    /// `expires_at`. The caller has checked [`Self::has_room`]; without room
    /// nothing is inserted.
    pub(crate) fn insert(&mut self, hash: u64, key: K, state: (u64, u32), expires_at: u64) {
        self.insert_vacant(None, hash, key, state, expires_at);
    }

    /// [`Self::insert`] starting at the slot [`Self::lookup`] found for the
    /// key. A vacancy the table has changed since (another entry inserted
    /// or removed, or the table grown) is ignored: the probe starts over.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "len <= cap and slot counts are Vec lengths of 24-byte slots: the products fit"
    )]
    pub(crate) fn insert_vacant(
        &mut self,
        vacancy: Option<Vacancy>,
        hash: u64,
        key: K,
        (time, extra): (u64, u32),
        expires_at: u64,
    ) {
        if !self.has_room(1) {
            return;
        }
        let mut vacancy = vacancy.filter(|v| v.slots == self.slots.len() && v.len == self.len);
        // Grow (doubling up to full size) past a 4/5 load.
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            let grown = (self.slots.len() * 2).clamp(8, self.max_slots);
            if grown > self.slots.len() {
                self.resize(grown);
                vacancy = None;
            }
        }
        let mut carried = Slot {
            key,
            time,
            extra,
            tag: tag_of(hash),
        };
        self.place::<true>(&mut carried, vacancy);
        self.note_expiry(expires_at);
        self.len += 1;
    }

    /// Robin Hood placement of `carried` into the current slots, from its
    /// home or from where a lookup's probe stopped; `LAP`: whether a lap is
    /// under way (not during a resize, which starts one).
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "probes and slot indices stay below the slot count"
    )]
    fn place<const LAP: bool>(&mut self, carried: &mut Slot<K>, from: Option<Vacancy>) {
        let n = self.slots.len();
        if n == 0 {
            return;
        }
        // The slots a lookup passed hold residents at least as far from
        // their homes as the key: placement would pass them too.
        let (mut at, mut probed) = from
            .filter(|v| v.at < n)
            .map_or((home(carried.tag, n), 0), |v| (v.at, v.probed));
        let mut displaced = false;
        for _ in 0..n {
            let Some(slot) = self.slots.get_mut(at) else {
                return;
            };
            if slot.tag == 0 {
                std::mem::swap(slot, carried);
                return;
            }
            let resident = distance(slot.tag, at, n);
            if resident < probed {
                std::mem::swap(slot, carried);
                probed = resident;
                displaced = true;
            }
            probed += 1;
            at += 1;
            if at == n {
                at = 0;
            }
            if LAP && displaced && at == self.lap_start {
                // A resident moves past the lap's end into its start.
                self.lap_exact = false;
            }
        }
    }

    fn resize(&mut self, slots: usize) {
        let old = std::mem::replace(
            &mut self.slots,
            (0..slots).map(|_| Slot::default()).collect(),
        );
        for mut slot in old {
            if slot.tag != 0 {
                self.place::<false>(&mut slot, None);
            }
        }
        // Slot positions changed: the cursor starts a new lap; `earliest`
        // still bounds every entry.
        self.cursor = 0;
        self.lap_min = u64::MAX;
        self.lap_left = slots;
        self.lap_start = 0;
        self.lap_exact = true;
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
        match self.slots.get_mut(at) {
            Some(slot) if slot.tag != 0 => *slot = Slot::default(),
            _ => return at,
        }
        self.len -= 1;
        let mut hole = at;
        loop {
            let next = if hole + 1 == n { 0 } else { hole + 1 };
            match self.slots.get(next) {
                Some(slot) if slot.tag != 0 && distance(slot.tag, next, n) > 0 => {
                    if next == self.cursor {
                        // The entry under the cursor moves behind it.
                        self.lap_exact = false;
                    }
                    self.slots.swap(hole, next);
                    hole = next;
                }
                _ => return hole,
            }
        }
    }
}

mod expiry;
#[cfg(test)]
mod tests;
