//! Keys of the in-memory table: how a borrowed key is hashed, compared with
//! a stored one and turned into one; the gate's compact `(limit, subject)`
//! key; and the interner that turns limit names into one-byte ids.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::OnceLock;

/// A borrowed form of a stored key `K`: what a lookup is made with.
///
/// Every `K: Hash + Eq + Clone` is its own borrowed form; `str` is the
/// borrowed form of `Box<str>`; [`LimitKeyRef`] that of [`LimitKey`]. The
/// hash of a borrowed key must equal the hash of the key it matches.
pub trait KeyRef<K> {
    /// The key's hash under `build`.
    fn hash_with<S: BuildHasher>(&self, build: &S) -> u64;
    /// Whether `stored` is this key.
    fn matches(&self, stored: &K) -> bool;
    /// The key to store.
    fn to_key(&self) -> K;
}

impl<K: Hash + Eq + Clone> KeyRef<K> for K {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, build: &S) -> u64 {
        build.hash_one(self)
    }

    #[inline]
    fn matches(&self, stored: &K) -> bool {
        self == stored
    }

    fn to_key(&self) -> K {
        self.clone()
    }
}

impl KeyRef<Box<str>> for str {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, build: &S) -> u64 {
        build.hash_one(self)
    }

    #[inline]
    fn matches(&self, stored: &Box<str>) -> bool {
        self == &**stored
    }

    fn to_key(&self) -> Box<str> {
        self.into()
    }
}

/// The gate's stored key: a limit id byte followed by the subject's bytes,
/// in one 16-byte boxed slice (no separate allocation for the limit name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LimitKey(Box<[u8]>);

impl LimitKey {
    /// The interned limit id.
    pub fn limit(&self) -> Option<u8> {
        self.0.first().copied()
    }

    /// The subject's bytes.
    pub fn subject(&self) -> &[u8] {
        self.0.get(1..).unwrap_or_default()
    }
}

/// A borrowed [`LimitKey`]: an interned limit id and a subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitKeyRef<'a> {
    /// The limit's id from [`Interner::intern`].
    pub limit: u8,
    /// Whom the limit counts.
    pub subject: &'a str,
}

fn hash_limit_key<S: BuildHasher>(build: &S, limit: u8, subject: &[u8]) -> u64 {
    let mut hasher = build.build_hasher();
    hasher.write_u8(limit);
    hasher.write(subject);
    hasher.finish()
}

impl KeyRef<LimitKey> for LimitKeyRef<'_> {
    #[inline]
    fn hash_with<S: BuildHasher>(&self, build: &S) -> u64 {
        hash_limit_key(build, self.limit, self.subject.as_bytes())
    }

    #[inline]
    fn matches(&self, stored: &LimitKey) -> bool {
        stored.limit() == Some(self.limit) && stored.subject() == self.subject.as_bytes()
    }

    fn to_key(&self) -> LimitKey {
        let mut bytes = Vec::with_capacity(self.subject.len().saturating_add(1));
        bytes.push(self.limit);
        bytes.extend_from_slice(self.subject.as_bytes());
        LimitKey(bytes.into_boxed_slice())
    }
}

impl KeyRef<LimitKey> for LimitKey {
    fn hash_with<S: BuildHasher>(&self, build: &S) -> u64 {
        hash_limit_key(build, self.limit().unwrap_or(0), self.subject())
    }

    fn matches(&self, stored: &LimitKey) -> bool {
        self == stored
    }

    fn to_key(&self) -> LimitKey {
        self.clone()
    }
}

/// How many distinct limit names one limiter can tell apart.
pub const MAX_LIMIT_NAMES: usize = 255;

/// Turns limit names into one-byte ids, lock-free on the read path.
///
/// Slots are filled once, in order, and never change; a lookup scans the
/// filled slots (a gate has a handful of limit names).
#[derive(Debug)]
pub struct Interner {
    names: Box<[OnceLock<Box<str>>]>,
}

impl Default for Interner {
    fn default() -> Self {
        Self {
            names: (0..MAX_LIMIT_NAMES).map(|_| OnceLock::new()).collect(),
        }
    }
}

impl Interner {
    /// The id of `name`, assigning the next free one on first sight;
    /// `None` once [`MAX_LIMIT_NAMES`] names are taken.
    pub fn intern(&self, name: &str) -> Option<u8> {
        for (id, slot) in self.names.iter().enumerate() {
            let stored = match slot.get() {
                Some(stored) => stored,
                // First free slot: claim it, or learn who did meanwhile.
                None => slot.get_or_init(|| name.into()),
            };
            if &**stored == name {
                return u8::try_from(id).ok();
            }
        }
        None
    }

    /// The name behind `id`, if assigned.
    pub fn name(&self, id: u8) -> Option<&str> {
        self.names.get(usize::from(id))?.get().map(|name| &**name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_assigns_stable_ids() {
        let interner = Interner::default();
        assert_eq!(interner.intern("credential"), Some(0));
        assert_eq!(interner.intern("client_ip"), Some(1));
        assert_eq!(interner.intern("credential"), Some(0));
        assert_eq!(interner.name(1), Some("client_ip"));
        for i in 2..MAX_LIMIT_NAMES {
            assert!(interner.intern(&format!("n{i}")).is_some());
        }
        assert_eq!(interner.intern("one too many"), None);
        assert_eq!(interner.intern("client_ip"), Some(1));
    }

    #[test]
    fn limit_key_ref_matches_and_hashes_like_its_key() {
        let build = foldhash::fast::FixedState::with_seed(7);
        let borrowed = LimitKeyRef {
            limit: 3,
            subject: "203.0.113.7",
        };
        let key = borrowed.to_key();
        assert!(borrowed.matches(&key));
        assert_eq!(borrowed.hash_with(&build), key.hash_with(&build));
        assert!(!LimitKeyRef {
            limit: 4,
            ..borrowed
        }
        .matches(&key));
        assert!(!LimitKeyRef {
            subject: "203.0.113.70",
            ..borrowed
        }
        .matches(&key));
        assert_eq!(std::mem::size_of::<LimitKey>(), 16);
    }
}
