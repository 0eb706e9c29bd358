//! The 8-byte word a slot keeps besides its key: the probe distance in the
//! top byte (`0` marks an empty slot) and the packed state `(time, extra)`
//! in the other 56 bits.
//!
//! A state is kept inline when its time lies within 2³² ms after the
//! table's epoch and its companion fits 23 bits; any other state (a window
//! of more than a few weeks, a count above 8 million, a time far from the
//! others) goes to a side list of the table and the word keeps its index,
//! so every state round-trips exactly. The epoch moves forward with the
//! shard's clock ([`Table::rebase`]), re-encoding every entry, once every
//! 2³¹ ms (about 25 days).

use super::Table;

/// Bits below the distance byte.
const CTRL_SHIFT: u32 = 56;
/// The state bits of a word.
pub(super) const STATE_MASK: u64 = (1 << CTRL_SHIFT) - 1;
/// Set in the state bits when the state is in the side list.
const SIDE_FLAG: u64 = 1 << 55;
/// Bits of an inline companion.
const EXTRA_BITS: u32 = 23;
/// Mask of an inline companion.
const EXTRA_MASK: u64 = (1 << EXTRA_BITS) - 1;
/// Span of inline times after the epoch, in ms.
const SPAN: u64 = 1 << 32;
/// How far back from the clock the epoch is put, in ms.
const BACK: u64 = 1 << 30;
/// The distance byte that means "this far or farther: hash the key".
pub(super) const FAR: u8 = u8::MAX;

/// The distance byte of a word (`0`: empty).
#[inline]
#[allow(
    clippy::cast_possible_truncation,
    reason = "the top byte of a u64 fits u8"
)]
pub(super) const fn ctrl(word: u64) -> u8 {
    (word >> CTRL_SHIFT) as u8
}

/// `state` (state bits of a word) placed at probe distance `distance`.
#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "distance < 254 here, so distance + 1 fits a byte"
)]
pub(super) const fn at_distance(state: u64, distance: usize) -> u64 {
    let ctrl = if distance < FAR as usize {
        distance as u64 + 1
    } else {
        FAR as u64
    };
    (ctrl << CTRL_SHIFT) | (state & STATE_MASK)
}

/// Moves a resident one slot farther from its home: its distance byte
/// goes up by one, up to [`FAR`] (which then means "hash the key").
#[inline]
#[allow(
    clippy::arithmetic_side_effects,
    reason = "the byte is below FAR, so it fits one more"
)]
pub(super) fn step_farther<K>(slot: &mut super::Slot<K>) {
    if ctrl(slot.word) < FAR {
        slot.word += 1 << CTRL_SHIFT;
    }
}

impl<K: Default, H> Table<K, H> {
    /// The state bits for `(time, extra)`: inline when they fit, else an
    /// entry of the side list.
    #[inline]
    pub(super) fn encode(&mut self, (time, extra): (u64, u32)) -> u64 {
        match self.encode_inline((time, extra)) {
            Some(code) => code,
            None => self.encode_side(time, extra),
        }
    }

    #[inline(never)]
    fn encode_side(&mut self, time: u64, extra: u32) -> u64 {
        let index = match self.free.pop() {
            Some(index) => {
                if let Some(entry) = self.side.get_mut(index) {
                    *entry = (time, extra);
                }
                index
            }
            None => {
                self.side.push((time, extra));
                self.side.len().saturating_sub(1)
            }
        };
        SIDE_FLAG | (index as u64 & (SIDE_FLAG - 1))
    }

    /// The inline state bits of `(time, extra)`, if it fits inline.
    #[inline]
    pub(super) fn encode_inline(&self, (time, extra): (u64, u32)) -> Option<u64> {
        let offset = time.wrapping_sub(self.epoch);
        (time >= self.epoch && offset < SPAN && u64::from(extra) <= EXTRA_MASK)
            .then_some((offset << EXTRA_BITS) | u64::from(extra))
    }

    /// Reads the state in `word` and, when `f` gives one, writes the next
    /// state into `slot` in place; a state in or going to the side list
    /// takes the general path.
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        clippy::cast_possible_truncation,
        reason = "inline offsets are below 2^32, so epoch + offset was a stored time"
    )]
    pub(super) fn update_inline<R>(
        &mut self,
        at: usize,
        f: impl FnOnce((u64, u32)) -> (R, Option<(u64, u32)>),
    ) -> Option<R> {
        let epoch = self.epoch;
        let slot = self.slots.get_mut(at)?;
        let word = slot.word;
        if word == 0 {
            return None;
        }
        if word & SIDE_FLAG != 0 {
            return Some(self.update_side(at, word, f));
        }
        let state = word & STATE_MASK;
        let time = epoch + (state >> EXTRA_BITS);
        let (result, next) = f((time, (state & EXTRA_MASK) as u32));
        if let Some(next) = next {
            if next.0 == time && u64::from(next.1) <= EXTRA_MASK {
                // Same time (a count within one window): only the
                // companion changes.
                slot.word = (word & !EXTRA_MASK) | u64::from(next.1);
            } else {
                self.store_moved(at, word, next);
            }
        }
        Some(result)
    }

    /// Stores a next state whose time differs from the stored one (a new
    /// window, a GCRA step): inline when it fits, else in the side list.
    #[inline]
    fn store_moved(&mut self, at: usize, word: u64, next: (u64, u32)) {
        match self.encode_inline(next) {
            Some(code) => {
                if let Some(slot) = self.slots.get_mut(at) {
                    slot.word = (word & !STATE_MASK) | code;
                }
            }
            None => self.set_at(at, next),
        }
    }

    /// [`Self::update_inline`] for a state kept in the side list (a state
    /// whose companion is 2²³ or more: a count above 8 million in one
    /// window, or the GCRA fraction of a quota above 8 million per window).
    /// Inline: out of line it was slower (docs/perf/limiter.md, "Tried
    /// this round and not kept").
    #[inline]
    fn update_side<R>(
        &mut self,
        at: usize,
        word: u64,
        f: impl FnOnce((u64, u32)) -> (R, Option<(u64, u32)>),
    ) -> R {
        let (result, next) = f(self.decode(word));
        if let Some(next) = next {
            self.set_at(at, next);
        }
        result
    }

    /// The state `(time, extra)` of the state bits of `word`.
    #[inline]
    #[allow(
        clippy::arithmetic_side_effects,
        clippy::cast_possible_truncation,
        reason = "inline offsets are below 2^32, so epoch + offset was a stored time; index < side.len()"
    )]
    pub(super) fn decode(&self, word: u64) -> (u64, u32) {
        if word & SIDE_FLAG == 0 {
            let state = word & STATE_MASK;
            return (
                self.epoch + (state >> EXTRA_BITS),
                (state & EXTRA_MASK) as u32,
            );
        }
        self.side
            .get((word & (SIDE_FLAG - 1)) as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Frees the side-list entry of `word`, if it has one.
    #[inline]
    #[allow(
        clippy::cast_possible_truncation,
        reason = "side indices are Vec indices"
    )]
    pub(super) fn release(&mut self, word: u64) {
        if word & SIDE_FLAG != 0 {
            self.free.push((word & (SIDE_FLAG - 1)) as usize);
        }
    }

    /// Puts the epoch for an empty table where `time` lies well inside the
    /// inline span.
    pub(super) fn start_epoch(&mut self, time: u64) {
        self.side.clear();
        self.free.clear();
        self.epoch = time.saturating_sub(BACK);
        self.rebase_at = self.epoch.saturating_add(2 * BACK);
        self.refresh_due();
    }

    /// Moves the epoch to `BACK` before `now` and re-encodes every entry
    /// (those that no longer fit go to the side list); at most once per
    /// 2³¹ ms of the shard's clock. Positions and expiries do not change.
    #[inline(never)]
    pub(super) fn rebase(&mut self, now: u64) {
        let old = std::mem::take(&mut self.slots);
        let mut slots = old;
        let states: Vec<(u64, u32)> = slots
            .iter()
            .filter(|slot| ctrl(slot.word) != 0)
            .map(|slot| self.decode(slot.word))
            .collect();
        self.side.clear();
        self.free.clear();
        self.epoch = now.saturating_sub(BACK);
        self.rebase_at = self.epoch.saturating_add(2 * BACK);
        self.refresh_due();
        let mut states = states.into_iter();
        for slot in slots.iter_mut().filter(|slot| ctrl(slot.word) != 0) {
            if let Some(state) = states.next() {
                let code = self.encode(state);
                slot.word = (slot.word & !STATE_MASK) | code;
            }
        }
        self.slots = slots;
    }
}
