//! A bounded replay guard for idempotent handlers: it remembers the
//! `webhook-id`s seen within a window, so a second delivery of the same
//! message (a retry whose answer was lost, a redelivery, a replay) is
//! recognised.
//!
//! Bounds: at most `capacity` ids (each at most
//! [`super::MAX_ID_BYTES`] bytes, as `verify` enforces) are kept; an id is
//! forgotten `window_ms` after it was first seen, and when the guard is
//! full the oldest id is forgotten first. A duplicate arriving after its id
//! was forgotten is reported [`Seen::First`] again, so size the window to
//! at least twice the verifier's tolerance (the default) and the capacity
//! to the messages expected within that window.

use crate::UnixMillis;
use std::collections::{HashMap, VecDeque};

/// The default number of ids kept.
pub const DEFAULT_REPLAY_CAPACITY: usize = 10_000;
/// The default window: twice the default tolerance (10 minutes), since a
/// verified timestamp can be up to the tolerance on either side of now.
pub const DEFAULT_REPLAY_WINDOW_MS: u64 = 2 * super::DEFAULT_TOLERANCE_MS;

/// Whether an id was seen before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Not seen within the window: handle the message.
    First,
    /// Seen within the window (first at the given time): skip it.
    Again {
        /// When the id was first seen.
        first_seen: UnixMillis,
    },
}

/// Remembers recent `webhook-id`s, bounded in count and time.
#[derive(Debug, Clone)]
pub struct ReplayGuard {
    capacity: usize,
    window_ms: u64,
    seen: HashMap<String, UnixMillis>,
    order: VecDeque<(UnixMillis, String)>,
}

impl Default for ReplayGuard {
    fn default() -> Self {
        Self::new(DEFAULT_REPLAY_CAPACITY, DEFAULT_REPLAY_WINDOW_MS)
    }
}

impl ReplayGuard {
    /// A guard keeping at most `capacity` ids (at least 1) for `window_ms`.
    pub fn new(capacity: usize, window_ms: u64) -> Self {
        Self {
            capacity: capacity.max(1),
            window_ms,
            seen: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Ids remembered now.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Records `id` as seen at `now`; returns whether it was seen before
    /// within the window. Call it after `verify` succeeded, never before
    /// (an unverified id must not block the real message).
    pub fn check(&mut self, id: &str, now: UnixMillis) -> Seen {
        self.expire(now);
        if let Some(first_seen) = self.seen.get(id) {
            return Seen::Again {
                first_seen: *first_seen,
            };
        }
        while self.seen.len() >= self.capacity {
            let Some((_, oldest)) = self.order.pop_front() else {
                break;
            };
            self.seen.remove(&oldest);
        }
        self.seen.insert(id.to_owned(), now);
        self.order.push_back((now, id.to_owned()));
        Seen::First
    }

    fn expire(&mut self, now: UnixMillis) {
        while let Some((at, _)) = self.order.front() {
            if at.saturating_add(self.window_ms) > now {
                break;
            }
            if let Some((_, id)) = self.order.pop_front() {
                self.seen.remove(&id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_within_the_window_is_seen_again() {
        let mut guard = ReplayGuard::new(10, 1_000);
        assert_eq!(guard.check("msg_1", UnixMillis::new(5_000)), Seen::First);
        assert_eq!(
            guard.check("msg_1", UnixMillis::new(5_999)),
            Seen::Again {
                first_seen: UnixMillis::new(5_000)
            }
        );
        assert_eq!(guard.check("msg_1", UnixMillis::new(6_000)), Seen::First);
    }

    #[test]
    fn memory_is_capped_oldest_first() {
        let mut guard = ReplayGuard::new(3, u64::MAX);
        for n in 0..100 {
            assert_eq!(
                guard.check(&format!("msg_{n}"), UnixMillis::new(n)),
                Seen::First
            );
            assert!(guard.len() <= 3);
        }
        assert_eq!(guard.check("msg_0", UnixMillis::new(200)), Seen::First);
        assert!(matches!(
            guard.check("msg_99", UnixMillis::new(201)),
            Seen::Again { .. }
        ));
    }
}
