//! The table's expiry work: the incremental sweep that reclaims expired
//! entries a budget at a time, and the full scan that is never gated.

use super::word::ctrl;
use super::{is_expired, Rehash, Scan, Table, SWEEP_ROUNDS};
use crate::UnixMillis;

impl<K: Default, H: Rehash<K>> Table<K, H> {
    /// The incremental sweep: once the table is at least half full and
    /// `now` has reached the lower bound of the entries' expiries, examines
    /// `budget` slots from the cursor and removes entries expired at `now`;
    /// while at least half of a round was expired it goes on, up to
    /// [`SWEEP_ROUNDS`] rounds (so expired entries never pile up ahead of the
    /// cursor). Returns how many it removed.
    ///
    /// The bound is exact except after [`Self::remove_at`] from outside the
    /// cursor (an eviction), whose backward shift may move one entry behind
    /// the cursor for a lap; such an entry stays until a later lap or a
    /// [`Self::scan`] (which is never gated) meets it. Expired entries
    /// mean the same as absent ones, so this only delays reclaiming memory.
    #[inline]
    pub(crate) fn sweep(
        &mut self,
        budget: usize,
        now: u64,
        expires: impl Fn(u64, u32) -> u64,
    ) -> usize {
        if now < self.due {
            return 0;
        }
        self.tick(now);
        let n = self.slots.len();
        if budget == 0 || self.len.saturating_mul(2) < n || now < self.earliest {
            return 0;
        }
        self.sweep_slow(budget, now, expires)
    }

    #[inline(never)]
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "counters are bounded by the budget and the slot count"
    )]
    fn sweep_slow(&mut self, budget: usize, now: u64, expires: impl Fn(u64, u32) -> u64) -> usize {
        let n = self.slots.len();
        let mut at = if self.cursor < n { self.cursor } else { 0 };
        self.cursor = at;
        let (mut removed, mut in_round, mut left_in_round) = (0, 0, budget);
        let mut rounds = SWEEP_ROUNDS;
        while let Some(word) = self.slots.get(at).map(|slot| slot.word) {
            let expiry = (ctrl(word) != 0).then(|| {
                let (time, extra) = self.decode(word);
                expires(time, extra)
            });
            match expiry {
                Some(expiry) if is_expired(UnixMillis::new(expiry), UnixMillis::new(now)) => {
                    // The follower shifted into `at` is examined next.
                    self.remove_at(at);
                    removed += 1;
                    in_round += 1;
                }
                _ => {
                    if let Some(expiry) = expiry {
                        self.lap_min = self.lap_min.min(expiry);
                    }
                    at += 1;
                    if at == n {
                        at = 0;
                    }
                    self.cursor = at;
                    self.lap_step(at);
                }
            }
            left_in_round -= 1;
            if left_in_round == 0 {
                rounds -= 1;
                if rounds == 0 || in_round * 2 < budget || self.len == 0 {
                    break;
                }
                (in_round, left_in_round) = (0, budget);
            }
        }
        self.cursor = at;
        removed
    }

    /// Like [`Self::sweep`], and also reports the live entry expiring
    /// soonest among those examined, leaving alone the keys `keep` names.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "counters are bounded by the budget and the slot count (n > 0 here)"
    )]
    pub(crate) fn scan(
        &mut self,
        budget: usize,
        now: u64,
        expires: &impl Fn(u64, u32) -> u64,
        keep: &impl Fn(&K) -> bool,
    ) -> Scan {
        let mut found = Scan {
            reclaimed: 0,
            soonest: None,
        };
        let n = self.slots.len();
        if n == 0 || self.len == 0 {
            return found;
        }
        for _ in 0..budget.min(n) {
            if self.cursor >= n {
                self.cursor = 0;
            }
            let at = self.cursor;
            let Some(slot) = self.slots.get(at) else {
                return found;
            };
            let word = slot.word;
            if ctrl(word) != 0 && !keep(&slot.key) {
                let (time, extra) = self.decode(word);
                let expiry = expires(time, extra);
                if is_expired(UnixMillis::new(expiry), UnixMillis::new(now)) {
                    // The follower shifted into `at` is examined next.
                    let last = self.remove_at(at);
                    found.reclaimed += 1;
                    // A shift that went round the table may have moved the
                    // soonest entry found so far one slot back.
                    if let Some((pos, expiry)) = found.soonest {
                        let (moved, reach) = ((pos + n - at) % n, (last + n - at) % n);
                        if moved > 0 && moved <= reach {
                            found.soonest = Some(((pos + n - 1) % n, expiry));
                        }
                    }
                    continue;
                }
                self.lap_min = self.lap_min.min(expiry);
                if found.soonest.is_none_or(|(_, best)| expiry < best) {
                    found.soonest = Some((at, expiry));
                }
            } else if ctrl(word) != 0 {
                // A kept key still counts towards the lap's bound.
                let (time, extra) = self.decode(word);
                let expiry = expires(time, extra);
                self.lap_min = self.lap_min.min(expiry);
            }
            self.cursor = at + 1;
            self.lap_step(self.cursor % n);
        }
        found
    }
}
