//! Redis key names: one hash tag per namespace, so every key of one stacked
//! decision lands in one Redis Cluster slot.
//!
//! A key is `{<namespace>}:<algorithm>:<limit>:<subject>`, e.g.
//! `{acd}:gcra:credential:key-ada`; a fixed-window key also names its
//! window by the window's end (Unix ms), e.g.
//! `{acd}:fw:credential:key-ada:1700000040000`, so each window has its own
//! counter and an older window's is never read. Redis Cluster hashes only the part between
//! the first `{` and the next `}`, so all of a namespace's keys share a slot
//! and a multi-key script never meets `CROSSSLOT`.
//!
//! Why not one tag per key (spreading keys over the cluster)? The keys that
//! meet in one decision are not a fixed group: Ada's per-user table-read key
//! meets each of her credentials' keys, an agent's key meets every credential
//! that starts its runs. A per-key tag would put them in different slots, and
//! no single script could then decide atomically. A namespace is the unit of
//! sharding: deployments that need more than one shard's throughput split
//! their traffic into namespaces whose keys never meet (e.g. one per region).
//!
//! The algorithm is part of the name because the two algorithms' states mean
//! different things: a gate switched from fixed window to GCRA starts fresh
//! instead of misreading old states. The limit name is escaped (`%` → `%25`,
//! `:` → `%3A`) so that `(limit, subject)` pairs never collide; the subject
//! is the last part and is taken as it is (any bytes).

use acd_core::limit::LimitAlgorithm;

/// Why a namespace cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamespaceError {
    /// Empty namespace.
    #[error("the Redis key namespace is empty; give a short name such as \"acd\"")]
    Empty,
    /// A brace would break the hash tag.
    #[error(
        "the Redis key namespace {0:?} contains '{{' or '}}', which would break its hash tag; \
         use letters, digits, '-', '_' or '.'"
    )]
    Brace(String),
}

/// How the keys of one namespace and algorithm are named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySpace {
    prefix: String,
    epoch: Vec<u8>,
}

impl KeySpace {
    /// The key space of `namespace` for `algorithm`.
    pub fn new(namespace: &str, algorithm: LimitAlgorithm) -> Result<Self, NamespaceError> {
        if namespace.is_empty() {
            return Err(NamespaceError::Empty);
        }
        if namespace.contains(['{', '}']) {
            return Err(NamespaceError::Brace(namespace.to_owned()));
        }
        let tag = match algorithm {
            LimitAlgorithm::FixedWindow => "fw",
            LimitAlgorithm::Gcra => "gcra",
        };
        Ok(Self {
            prefix: format!("{{{namespace}}}:{tag}:"),
            epoch: format!("{{{namespace}}}:epoch:{tag}").into_bytes(),
        })
    }

    /// Every key of this space starts with this (e.g. for `SCAN MATCH`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The key holding the state of `subject` under the limit `limit`.
    pub fn key(&self, limit: &str, subject: &str) -> Vec<u8> {
        let mut key = Vec::with_capacity(
            self.prefix
                .len()
                .saturating_add(limit.len())
                .saturating_add(subject.len())
                // ':' before the subject, and room for a window's end.
                .saturating_add(1 + 21),
        );
        key.extend_from_slice(self.prefix.as_bytes());
        if limit.bytes().any(|byte| byte == b'%' || byte == b':') {
            for byte in limit.bytes() {
                match byte {
                    b'%' => key.extend_from_slice(b"%25"),
                    b':' => key.extend_from_slice(b"%3A"),
                    other => key.push(other),
                }
            }
        } else {
            key.extend_from_slice(limit.as_bytes());
        }
        key.push(b':');
        key.extend_from_slice(subject.as_bytes());
        key
    }

    /// The key holding the namespace's epoch (`{ns}:epoch:<algorithm>`,
    /// no TTL, outside [`KeySpace::prefix`], in the namespace's slot): a
    /// random value set by the first instance that finds it absent. A
    /// changed epoch tells an instance that Redis lost the counts it had
    /// made (restarted empty, flushed).
    pub fn epoch_key(&self) -> Vec<u8> {
        self.epoch.clone()
    }

    /// The fixed-window key counting `subject` under `limit` in the window
    /// that ends at `window_end` (Unix ms): [`KeySpace::key`], `:` and the
    /// end in decimal. The end is the last part and has no `:`, so names
    /// stay distinct.
    pub fn window_key(&self, limit: &str, subject: &str, window_end: u64) -> Vec<u8> {
        with_window(self.key(limit, subject), window_end)
    }
}

/// `key`, `:` and `window_end` in decimal (see [`KeySpace::window_key`]).
pub fn with_window(mut key: Vec<u8>, window_end: u64) -> Vec<u8> {
    key.push(b':');
    key.extend_from_slice(itoa::Buffer::new().format(window_end).as_bytes());
    key
}

/// The Redis Cluster slot of `key` (CRC16/XMODEM of its hash tag, mod
/// 16384), as the cluster computes it.
pub fn cluster_slot(key: &[u8]) -> u16 {
    let tagged = key
        .iter()
        .position(|&b| b == b'{')
        .and_then(|open| {
            let rest = key.get(open.checked_add(1)?..)?;
            let close = rest.iter().position(|&b| b == b'}')?;
            (close > 0).then(|| rest.get(..close)).flatten()
        })
        .unwrap_or(key);
    crc16_xmodem(tagged) % 16_384
}

fn crc16_xmodem(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_share_the_namespace_tag_and_never_collide() {
        let space = KeySpace::new("acd", LimitAlgorithm::FixedWindow).unwrap();
        assert_eq!(
            space.key("credential", "key-ada"),
            b"{acd}:fw:credential:key-ada".to_vec()
        );
        assert_ne!(space.key("a:b", "c"), space.key("a", "b:c"));
        assert_ne!(space.key("a%3Ab", "c"), space.key("a:b", "c"));
        let slot = cluster_slot(&space.key("credential", "key-ada"));
        for (limit, subject) in [
            ("user_table_reads", "ada"),
            ("client_ip", "{x}"),
            ("a:b", ""),
        ] {
            assert_eq!(cluster_slot(&space.key(limit, subject)), slot);
        }
        let gcra = KeySpace::new("acd", LimitAlgorithm::Gcra).unwrap();
        assert_ne!(gcra.key("credential", "k"), space.key("credential", "k"));
    }

    #[test]
    fn slots_match_the_cluster_specification() {
        // Examples from the Redis Cluster specification.
        assert_eq!(crc16_xmodem(b"123456789"), 0x31C3);
        assert_eq!(
            cluster_slot(b"{user1000}.following"),
            cluster_slot(b"user1000")
        );
        assert_eq!(cluster_slot(b"foo{}{bar}"), cluster_slot(b"foo{}{bar}"));
        assert_ne!(cluster_slot(b"foo{}{bar}"), cluster_slot(b"bar"));
        assert_eq!(cluster_slot(b"foo{{bar}}zap"), cluster_slot(b"{bar"));
    }

    #[test]
    fn bad_namespaces_are_refused_with_a_reason() {
        assert_eq!(
            KeySpace::new("", LimitAlgorithm::Gcra),
            Err(NamespaceError::Empty)
        );
        let error = KeySpace::new("a{b", LimitAlgorithm::Gcra).unwrap_err();
        assert!(error.to_string().contains("hash tag"));
    }
}
