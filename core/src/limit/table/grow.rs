//! Placing new entries: Robin Hood insertion from a key's home or from
//! where its lookup stopped, and growth by a quarter that moves every entry
//! in one pass in the order of their homes.

use super::word::{at_distance, ctrl};
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
        let mut landed = None;
        let mut displaced = false;
        for _ in 0..n {
            let Some(word) = self.slots.get(at).map(|slot| slot.word) else {
                break;
            };
            if ctrl(word) == 0 {
                carried.word = at_distance(carried.word, probed);
                if let Some(slot) = self.slots.get_mut(at) {
                    std::mem::swap(slot, carried);
                }
                return landed.unwrap_or(at);
            }
            let resident = match self.slots.get(at) {
                Some(slot) => self.distance_at(at, word, &slot.key),
                None => break,
            };
            if resident < probed {
                carried.word = at_distance(carried.word, probed);
                if let Some(slot) = self.slots.get_mut(at) {
                    std::mem::swap(slot, carried);
                }
                probed = resident;
                displaced = true;
                landed = landed.or(Some(at));
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
        landed.unwrap_or(at)
    }

    /// Moves every entry into `slots` new slots, in the order of their
    /// homes (from a slot that starts a run, so wrapped runs come last).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "indices stay below the old slot count"
    )]
    fn resize(&mut self, slots: usize) {
        let old = std::mem::replace(
            &mut self.slots,
            std::iter::repeat_with(Slot::default).take(slots).collect(),
        );
        let start = old
            .iter()
            .position(|slot| ctrl(slot.word) <= 1)
            .unwrap_or(0);
        let mut old = old;
        let count = old.len();
        // Homes are monotone in the hash, so entries come in the order of
        // their new homes too (but within one old home, and where the old
        // table wrapped round): each goes right after the one before
        // unless its home lies further on or before it.
        let mut last: Option<(usize, usize)> = None;
        for i in (start..count).chain(0..start) {
            let Some(slot) = old.get_mut(i) else {
                continue;
            };
            if ctrl(slot.word) != 0 {
                let mut slot = std::mem::take(slot);
                let home = home(self.hasher.rehash(&slot.key), slots);
                let from = match last {
                    Some((pos, prev)) if prev <= home && home <= pos + 1 && pos + 1 < slots => {
                        (pos + 1, pos + 1 - home)
                    }
                    _ => (home, 0),
                };
                // Usually that slot is still free: no probing.
                let landed = match self.slots.get_mut(from.0) {
                    Some(free) if free.word == 0 => {
                        slot.word = at_distance(slot.word, from.1);
                        *free = slot;
                        from.0
                    }
                    _ => self.place::<false>(&mut slot, from),
                };
                last = Some((landed, home));
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
}
