//! Placing new entries: Robin Hood insertion from a key's home or from
//! where its lookup stopped, and growth by a quarter that moves every entry
//! in one pass in the order of their homes.

use super::word::{at_distance, ctrl, step_farther};
use super::{home, Rehash, Slot, Table, Vacancy};

impl<K: Default, H: Rehash<K>> Table<K, H> {
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
        reason = "len <= cap and slot counts are Vec lengths of 16-byte slots: the products fit"
    )]
    pub(crate) fn insert_vacant(
        &mut self,
        vacancy: Option<Vacancy>,
        hash: u64,
        key: K,
        state: (u64, u32),
        expires_at: u64,
    ) {
        if !self.has_room(1) {
            return;
        }
        if self.len == 0 {
            self.start_epoch(state.0);
        }
        let mut vacancy = vacancy.filter(|v| v.slots == self.slots.len() && v.len == self.len);
        // Grow by a quarter (up to full size) past a 7/8 load.
        let n = self.slots.len();
        if (self.len + 1) * 8 > n * 7 {
            let grown = (n + n / 4).max(n + 8).min(self.max_slots);
            if grown > n {
                self.resize(grown);
                vacancy = None;
            }
        }
        let code = self.encode(state);
        let mut carried = Slot { key, word: code };
        let n = self.slots.len();
        let start = vacancy
            .filter(|v| v.at < n)
            .map_or((home(hash, n), 0), |v| (v.at, v.probed));
        self.place::<true>(&mut carried, start);
        self.note_expiry(expires_at);
        self.len += 1;
    }

    /// Robin Hood placement of `carried` into the current slots from slot
    /// `at`, `probed` slots past its home (its home, or where a lookup's
    /// probe stopped: the slots passed hold residents at least as far from
    /// their homes, so placement would pass them too); `LAP`: whether a lap
    /// is under way (not during a resize, which starts one). Returns the
    /// slot `carried` took.
    ///
    /// A run holds its entries in the order of their homes, so the new
    /// entry goes where the first resident closer to its home than the
    /// probe sits, and the residents from there up to the run's first free
    /// slot move one slot on (one rotation, each a step farther from its
    /// home): a Robin Hood table as valid as a chain of swaps leaves
    /// (entries of one home may keep another order), with each entry moved
    /// once.
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "probes and slot indices stay below the slot count"
    )]
    fn place<const LAP: bool>(
        &mut self,
        carried: &mut Slot<K>,
        (mut at, mut probed): (usize, usize),
    ) -> usize {
        let n = self.slots.len();
        // Where the entry goes: a free slot, or the first resident closer
        // to its home than the probe (`Some(occupied)` once found).
        let mut found = None;
        for _ in 0..n {
            let Some(slot) = self.slots.get(at) else {
                break;
            };
            if ctrl(slot.word) == 0 {
                found = Some(false);
                break;
            }
            if self.distance_at(at, slot.word, &slot.key) < probed {
                found = Some(true);
                break;
            }
            probed += 1;
            at += 1;
            if at == n {
                at = 0;
            }
        }
        let Some(occupied) = found else {
            return at;
        };
        carried.word = at_distance(carried.word, probed);
        if occupied && !self.shift_run::<LAP>(at) {
            return at;
        }
        if let Some(slot) = self.slots.get_mut(at) {
            std::mem::swap(slot, carried);
        }
        at
    }

    /// Moves the residents from `at` up to the first free slot after it
    /// (going round) one slot on, each a step farther from its home, so
    /// `at` is free. A lap under way that the move crosses the start of is
    /// no longer exact (a resident moved from the lap's end into its
    /// start). False, moving nothing, when no slot is free.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "slot indices stay below the slot count"
    )]
    fn shift_run<const LAP: bool>(&mut self, at: usize) -> bool {
        let n = self.slots.len();
        let mut free = at;
        let mut found = false;
        for _ in 0..n {
            free = if free + 1 == n { 0 } else { free + 1 };
            if self
                .slots
                .get(free)
                .is_some_and(|slot| ctrl(slot.word) == 0)
            {
                found = true;
                break;
            }
        }
        if !found {
            // No free slot: the table's load bound rules this out.
            return false;
        }
        let crosses_lap_start = if free > at {
            self.lap_start > at && self.lap_start <= free
        } else {
            self.lap_start > at || self.lap_start <= free
        };
        if LAP && crosses_lap_start {
            self.lap_exact = false;
        }
        if free > at {
            if let Some(run) = self.slots.get_mut(at..=free) {
                run.rotate_right(1);
                run.iter_mut().skip(1).for_each(step_farther);
            }
        } else {
            // The run wraps round: the slots from 0 to `free`, then the
            // last slot into slot 0, then the slots from `at` to the end.
            if let Some(head) = self.slots.get_mut(..=free) {
                head.rotate_right(1);
                head.iter_mut().skip(1).for_each(step_farther);
            }
            let last = n - 1;
            self.slots.swap(0, last);
            if let Some(first) = self.slots.first_mut() {
                step_farther(first);
            }
            if let Some(tail) = self.slots.get_mut(at..) {
                tail.rotate_right(1);
                tail.iter_mut().skip(1).for_each(step_farther);
            }
        }
        true
    }

    /// Moves every entry into `slots` new slots, in the order of their
    /// homes (from a slot that starts a run, so wrapped runs come last).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "indices stay below the old slot count"
    )]
    fn resize(&mut self, slots: usize) {
        let mut old = std::mem::replace(
            &mut self.slots,
            std::iter::repeat_with(Slot::default).take(slots).collect(),
        );
        let count = old.len();
        let start = old
            .iter()
            .position(|slot| ctrl(slot.word) <= 1)
            .unwrap_or(0);
        // Homes are monotone in the hash, so entries come in the order of
        // their new homes too (but within one old home, and where the old
        // table wrapped round): each goes right after the one before
        // unless its home lies further on or before it.
        let mut last = None;
        let (wrapped, from_start) = old.split_at_mut(start.min(count));
        for part in [from_start, wrapped] {
            for slot in part.iter_mut().filter(|slot| ctrl(slot.word) != 0) {
                last = Some(self.move_in(std::mem::take(slot), last));
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

    /// Places one entry of a resize: right after the entry placed before
    /// it (`last`: its slot and home) when its home allows, usually into a
    /// free slot without probing. Returns its slot and home.
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "slot indices stay below the slot count"
    )]
    fn move_in(&mut self, mut slot: Slot<K>, last: Option<(usize, usize)>) -> (usize, usize) {
        let slots = self.slots.len();
        let home = home(self.hasher.rehash(&slot.key), slots);
        let from = match last {
            Some((pos, prev)) if prev <= home && home <= pos + 1 && pos + 1 < slots => {
                (pos + 1, pos + 1 - home)
            }
            _ => (home, 0),
        };
        let landed = match self.slots.get_mut(from.0) {
            Some(free) if free.word == 0 => {
                slot.word = at_distance(slot.word, from.1);
                *free = slot;
                from.0
            }
            _ => self.place::<false>(&mut slot, from),
        };
        (landed, home)
    }
}
