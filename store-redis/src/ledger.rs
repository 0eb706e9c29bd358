//! What a gate instance admitted on its own while Redis was away (fail
//! open, fixed window), kept so it can be added to the shared counts when
//! Redis is back: the windows still current then count those requests, so
//! the outage over-admits only what Redis lost, not a second full limit.
//!
//! GCRA states are not merged (see docs/limiter.md for that bound).

use crate::keys::{with_window, KeySpace};
use acd_core::limit::{is_far_ahead, LimitAlgorithm, LimitCheck};
use acd_core::UnixMillis;
use redis::Script;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

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

/// The fallback's admissions per key, in the latest window seen.
#[derive(Debug)]
pub(crate) struct Ledger {
    counts: Mutex<HashMap<Vec<u8>, Counted>>,
    max_keys: usize,
}

impl Ledger {
    /// An empty ledger holding at most `max_keys` keys (more are not
    /// merged: the outage's bound then applies to them).
    pub(crate) fn new(max_keys: usize) -> Self {
        Self {
            counts: Mutex::new(HashMap::new()),
            max_keys,
        }
    }

    /// Notes a fallback admission of `checks` at `now`.
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
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        for check in checks {
            let window = check.quota.window().max(1);
            let millis = now.as_millis();
            let window_end = millis
                .saturating_sub(millis.checked_rem(window).unwrap_or(0))
                .saturating_add(window);
            let key = space.key(check.name, check.subject);
            if counts.len() >= self.max_keys && !counts.contains_key(&key) {
                continue;
            }
            let entry = counts.entry(key).or_insert(Counted {
                window_end,
                admitted: 0,
            });
            // A newer window, or one noted by a clock more than one window
            // ahead (discarded, as the limiters do): start over.
            if window_end > entry.window_end
                || is_far_ahead(UnixMillis::new(entry.window_end), now, window)
            {
                *entry = Counted {
                    window_end,
                    admitted: 0,
                };
            }
            if window_end == entry.window_end {
                entry.admitted = entry.admitted.saturating_add(1);
            }
        }
    }

    /// Takes every count of a window still current at `now`, as merge
    /// calls of at most [`PER_CALL`] keys each.
    pub(crate) fn take(&self, now: UnixMillis, grace_ms: u64) -> Vec<Merge> {
        let counts =
            std::mem::take(&mut *self.counts.lock().unwrap_or_else(PoisonError::into_inner));
        let current: Vec<(Vec<u8>, Counted)> = counts
            .into_iter()
            .filter(|(_, counted)| counted.window_end > now.as_millis())
            .collect();
        current
            .chunks(PER_CALL)
            .map(|chunk| Merge {
                keys: chunk
                    .iter()
                    .map(|(key, counted)| with_window(key.clone(), counted.window_end))
                    .collect(),
                args: [now.as_millis(), grace_ms]
                    .into_iter()
                    .chain(chunk.iter().flat_map(|(_, c)| [c.window_end, c.admitted]))
                    .collect(),
            })
            .collect()
    }
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
            .keys
            .iter()
            .cloned()
            .zip(merges[0].args[2..].chunks(2).map(|c| [c[0], c[1]]))
            .collect();
        pairs.sort();
        assert_eq!(merges[0].args[..2], [119_000, 5]);
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
            merges[0].keys,
            [space.window_key("credential", "a", 120_000)]
        );
        assert_eq!(merges[0].args, [63_000, 5, 120_000, 2]);
    }
}
