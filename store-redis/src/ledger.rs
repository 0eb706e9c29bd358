//! What a gate instance knows Redis must count: the requests Redis
//! admitted for it in the windows still current, and the requests its
//! in-memory fallback admitted on its own while Redis was away (fail open,
//! fixed window). Both are kept per key and window so that they can be
//! added to Redis's counts:
//!
//! * the fallback's admissions (*pending*) are added when Redis is back,
//!   before Redis decides anything again, so an outage over-admits only what
//!   Redis lost, not a second full limit;
//! * when Redis has lost its data (restarted without persistence, flushed:
//!   its epoch key, [`crate::keys::KeySpace::epoch_key`], changed), the
//!   admissions it had counted for this instance (*counted*) are pending
//!   again, so the restart costs no extra admission either.
//!
//! GCRA states are not merged (see docs/limiter.md for that bound).

use crate::keys::{with_window, KeySpace};
use acd_core::limit::{is_far_ahead, LimitAlgorithm, LimitCheck};
use acd_core::UnixMillis;
use redis::Script;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The Lua source of the merge.
pub const MERGE_LUA: &str = include_str!("merge.lua");

/// Keys merged per script call.
const PER_CALL: usize = 512;

/// One key's count in one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counted {
    /// Unix ms.
    window_end: u64,
    admitted: u64,
}

type Counts = HashMap<Vec<u8>, Counted>;

#[derive(Debug, Default)]
struct Books {
    /// Admitted through Redis (in the present epoch), per key, latest window.
    counted: Counts,
    /// Admitted by the fallback and not yet added to Redis.
    pending: Counts,
}

/// The fallback's and Redis's admissions per key, in the latest window seen.
#[derive(Debug)]
pub(crate) struct Ledger {
    books: Mutex<Books>,
    /// Whether `pending` may hold counts (read on every decision).
    pending: AtomicBool,
    max_keys: usize,
}

/// The window end of `check` at `now` (Unix ms).
fn window_end(check: &LimitCheck<'_>, now: UnixMillis) -> (u64, u64) {
    let window = check.quota.window().max(1);
    let millis = now.as_millis();
    let end = millis
        .saturating_sub(millis.checked_rem(window).unwrap_or(0))
        .saturating_add(window);
    (end, window)
}

/// Where a count goes: the end of its window, the window's length when
/// known (a count noted by a clock more than one window ahead of `now` is
/// then discarded), and the present.
#[derive(Clone, Copy)]
struct At {
    window_end: u64,
    window: Option<u64>,
    now: UnixMillis,
}

/// Adds `admitted` to `key`'s count of the window ending `window_end`, in a
/// book of at most `max_keys` keys (ended windows are dropped to make room;
/// past that, a key is not noted: the outage's bound then applies to it).
fn note(counts: &mut Counts, max_keys: usize, key: Vec<u8>, at: At, admitted: u64) {
    let At {
        window_end,
        window,
        now,
    } = at;
    if counts.len() >= max_keys && !counts.contains_key(&key) {
        let present = now.as_millis();
        counts.retain(|_, counted| counted.window_end > present);
        if counts.len() >= max_keys {
            return;
        }
    }
    let entry = counts.entry(key).or_insert(Counted {
        window_end,
        admitted: 0,
    });
    // A newer window, or one noted by a clock more than one window ahead
    // (discarded, as the limiters do): start over.
    let far_ahead =
        window.is_some_and(|window| is_far_ahead(UnixMillis::new(entry.window_end), now, window));
    if window_end > entry.window_end || far_ahead {
        *entry = Counted {
            window_end,
            admitted: 0,
        };
    }
    if window_end == entry.window_end {
        entry.admitted = entry.admitted.saturating_add(admitted);
    }
}

impl Ledger {
    /// An empty ledger holding at most `max_keys` keys in each book.
    pub(crate) fn new(max_keys: usize) -> Self {
        Self {
            books: Mutex::new(Books::default()),
            pending: AtomicBool::new(false),
            max_keys,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Books> {
        self.books.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn note_checks(
        &self,
        book: impl Fn(&mut Books) -> &mut Counts,
        space: &KeySpace,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) {
        let mut books = self.lock();
        let counts = book(&mut books);
        for check in checks {
            let (end, window) = window_end(check, now);
            let key = space.key(check.name, check.subject);
            let at = At {
                window_end: end,
                window: Some(window),
                now,
            };
            note(counts, self.max_keys, key, at, 1);
        }
    }

    /// Notes a fallback admission of `checks` at `now` (pending).
    pub(crate) fn admitted(
        &self,
        space: &KeySpace,
        algorithm: LimitAlgorithm,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) {
        if algorithm != LimitAlgorithm::FixedWindow {
            return;
        }
        self.note_checks(|books| &mut books.pending, space, checks, now);
        self.pending.store(true, Ordering::SeqCst);
    }

    /// Notes an admission of `checks` at `now` decided through Redis.
    pub(crate) fn counted(
        &self,
        space: &KeySpace,
        algorithm: LimitAlgorithm,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) {
        if algorithm == LimitAlgorithm::FixedWindow {
            self.note_checks(|books| &mut books.counted, space, checks, now);
        }
    }

    /// Redis lost what it had counted: every count is pending again.
    pub(crate) fn lost(&self) {
        let mut books = self.lock();
        let counted = std::mem::take(&mut books.counted);
        for (key, c) in counted {
            let at = At {
                window_end: c.window_end,
                window: None,
                now: UnixMillis::new(0),
            };
            note(&mut books.pending, self.max_keys, key, at, c.admitted);
        }
        if !books.pending.is_empty() {
            self.pending.store(true, Ordering::SeqCst);
        }
    }

    /// Whether counts wait to be added to Redis.
    pub(crate) fn has_pending(&self) -> bool {
        self.pending.load(Ordering::SeqCst)
    }

    /// Takes every pending count of a window still current at `now`, as
    /// merge calls of at most [`PER_CALL`] keys each.
    pub(crate) fn take(&self, now: UnixMillis, grace_ms: u64) -> Vec<Taken> {
        let pending = {
            let mut books = self.lock();
            self.pending.store(false, Ordering::SeqCst);
            std::mem::take(&mut books.pending)
        };
        let current: Vec<(Vec<u8>, Counted)> = pending
            .into_iter()
            .filter(|(_, counted)| counted.window_end > now.as_millis())
            .collect();
        current
            .chunks(PER_CALL)
            .map(|chunk| Taken {
                merge: Merge {
                    keys: chunk
                        .iter()
                        .map(|(key, counted)| with_window(key.clone(), counted.window_end))
                        .collect(),
                    args: [now.as_millis(), grace_ms]
                        .into_iter()
                        .chain(chunk.iter().flat_map(|(_, c)| [c.window_end, c.admitted]))
                        .collect(),
                },
                entries: chunk.to_vec(),
                now,
            })
            .collect()
    }

    /// `taken` reached Redis: its counts are counted there now.
    pub(crate) fn merged(&self, taken: Taken) {
        let mut books = self.lock();
        for (key, c) in taken.entries {
            let at = At {
                window_end: c.window_end,
                window: None,
                now: taken.now,
            };
            note(&mut books.counted, self.max_keys, key, at, c.admitted);
        }
    }

    /// `taken` did not reach Redis: its counts are pending again.
    pub(crate) fn restore(&self, taken: Taken) {
        let mut books = self.lock();
        for (key, c) in taken.entries {
            let at = At {
                window_end: c.window_end,
                window: None,
                now: taken.now,
            };
            note(&mut books.pending, self.max_keys, key, at, c.admitted);
        }
        self.pending.store(true, Ordering::SeqCst);
    }
}

/// Counts taken from the ledger, and their merge call.
#[derive(Debug)]
pub(crate) struct Taken {
    /// The call adding them to Redis.
    pub(crate) merge: Merge,
    entries: Vec<(Vec<u8>, Counted)>,
    now: UnixMillis,
}

/// One merge call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merge {
    keys: Vec<Vec<u8>>,
    args: Vec<u64>,
}

impl Merge {
    /// The call as an invocation of the merge script.
    pub(crate) fn invocation<'a>(&self, script: &'a Script) -> redis::ScriptInvocation<'a> {
        let mut invocation = script.prepare_invoke();
        for key in &self.keys {
            invocation.key(key.as_slice());
        }
        for arg in &self.args {
            invocation.arg(*arg);
        }
        invocation
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;
    use acd_core::limit::Quota;

    #[test]
    fn only_fixed_windows_still_current_are_merged() {
        let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
        let ledger = Ledger::new(2);
        let check = |subject| LimitCheck {
            name: "credential",
            quota: Quota::per_seconds(10, 60),
            subject,
        };
        // Window [60 000, 120 000): two admissions for a, one for b.
        for subject in ["a", "a", "b"] {
            ledger.admitted(
                &space,
                LimitAlgorithm::FixedWindow,
                &[check(subject)],
                UnixMillis::new(61_000),
            );
        }
        // A third key is past the ledger's size; GCRA is never noted.
        ledger.admitted(
            &space,
            LimitAlgorithm::FixedWindow,
            &[check("c")],
            UnixMillis::new(61_000),
        );
        ledger.admitted(
            &space,
            LimitAlgorithm::Gcra,
            &[check("a")],
            UnixMillis::new(61_000),
        );
        // b moves on to the next window: its old count is dropped.
        ledger.admitted(
            &space,
            LimitAlgorithm::FixedWindow,
            &[check("b")],
            UnixMillis::new(125_000),
        );
        let merges = ledger.take(UnixMillis::new(119_000), 5);
        assert_eq!(merges.len(), 1);
        let mut pairs: Vec<(Vec<u8>, [u64; 2])> = merges[0]
            .merge
            .keys
            .iter()
            .cloned()
            .zip(merges[0].merge.args[2..].chunks(2).map(|c| [c[0], c[1]]))
            .collect();
        pairs.sort();
        assert_eq!(merges[0].merge.args[..2], [119_000, 5]);
        assert_eq!(
            pairs,
            [
                (space.window_key("credential", "a", 120_000), [120_000, 2]),
                (space.window_key("credential", "b", 180_000), [180_000, 1]),
            ]
        );
        // Taken once; a later take finds nothing, and ended windows go.
        assert!(ledger.take(UnixMillis::new(119_000), 5).is_empty());
        ledger.admitted(
            &space,
            LimitAlgorithm::FixedWindow,
            &[check("a")],
            UnixMillis::new(61_000),
        );
        assert!(ledger.take(UnixMillis::new(120_000), 5).is_empty());
    }

    #[test]
    fn a_window_noted_by_a_clock_a_day_ahead_gives_way_to_the_present() {
        let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
        let ledger = Ledger::new(4);
        let check = [LimitCheck {
            name: "credential",
            quota: Quota::per_seconds(10, 60),
            subject: "a",
        }];
        let note = |now| {
            ledger.admitted(
                &space,
                LimitAlgorithm::FixedWindow,
                &check,
                UnixMillis::new(now),
            );
        };
        note(86_461_000); // a day ahead: window ending 86 520 000
        note(61_000);
        note(62_000);
        let merges = ledger.take(UnixMillis::new(63_000), 5);
        assert_eq!(merges.len(), 1);
        assert_eq!(
            merges[0].merge.keys,
            [space.window_key("credential", "a", 120_000)]
        );
        assert_eq!(merges[0].merge.args, [63_000, 5, 120_000, 2]);
    }

    #[test]
    fn counts_redis_lost_are_pending_again_and_a_failed_merge_is_kept() {
        let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
        let ledger = Ledger::new(8);
        let check = [LimitCheck {
            name: "credential",
            quota: Quota::per_seconds(10, 60),
            subject: "a",
        }];
        let fw = LimitAlgorithm::FixedWindow;
        for _ in 0..3 {
            ledger.counted(&space, fw, &check, UnixMillis::new(61_000));
        }
        // Counted through Redis: nothing to merge while Redis keeps them.
        assert!(!ledger.has_pending());
        assert!(ledger.take(UnixMillis::new(62_000), 5).is_empty());
        ledger.admitted(&space, fw, &check, UnixMillis::new(62_000));
        assert!(ledger.has_pending());
        // Redis lost its data: the 3 it counted join the fallback's 1.
        ledger.lost();
        let taken = ledger.take(UnixMillis::new(63_000), 5);
        assert!(!ledger.has_pending());
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].merge.args, [63_000, 5, 120_000, 4]);
        // The merge failed: all 4 wait again, and a later note adds to them.
        for t in taken {
            ledger.restore(t);
        }
        ledger.admitted(&space, fw, &check, UnixMillis::new(63_500));
        let taken = ledger.take(UnixMillis::new(64_000), 5);
        assert_eq!(taken[0].merge.args, [64_000, 5, 120_000, 5]);
        // Merged: counted there now, so a second loss brings all 5 back.
        for t in taken {
            ledger.merged(t);
        }
        assert!(ledger.take(UnixMillis::new(64_000), 5).is_empty());
        ledger.lost();
        let taken = ledger.take(UnixMillis::new(65_000), 5);
        assert_eq!(taken[0].merge.args, [65_000, 5, 120_000, 5]);
    }
}
