//! Recorded requests, for tests that assert on what a client sent
//! (`GET /_sandbox/requests`, `DELETE /_sandbox/requests`).
//!
//! With the admin routes on, every request that is not an admin route's is
//! kept in a ring of the last N (`--recorded-requests N`, default
//! [`DEFAULT_CAPACITY`]; 0 keeps none): its index (counting from 0 since the
//! start, never reused, so `since` stays meaningful across a clear), the
//! method, the path, the query, the headers, the status answered (`null`
//! for a dropped connection) and the time of arrival by the sandbox clock.
//!
//! The ring is bounded by size too: at most [`MAX_RING_BYTES`] (32 MiB) of
//! recorded requests, as counted by [`Recorded::weight`] (the text kept plus
//! a fixed overhead per request and per header); the oldest requests are
//! forgotten first. A listing takes a snapshot of the ring under a short
//! lock (each request is shared, not copied), then filters and writes the
//! JSON outside it, yielding to other tasks as it goes, so that no API
//! request waits for it; at most [`MAX_LISTINGS`] listings are written at
//! once.
//!
//! No secret is kept: a credential header (`X-API-Key`, `Authorization`,
//! `Proxy-Authorization`, `Cookie`) and any other header value holding a
//! credential prefix is kept as its kind and a fingerprint: the first 8 hex
//! digits of the SHA-256 of the credential (for `Authorization`, of the part
//! after the scheme, which is kept). A path segment or query pair holding a
//! credential prefix is written `<redacted>`, as in the request log.

use crate::reqlog::{RequestLog, REDACTED};
use acd_core::model::CredentialKind;
use axum::http::HeaderMap;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Requests kept by default.
pub const DEFAULT_CAPACITY: u32 = 1_000;
/// Most requests that can be kept.
pub const MAX_CAPACITY: u32 = 100_000;
/// Most bytes of recorded requests kept (see [`Recorded::weight`]).
pub const MAX_RING_BYTES: usize = 32 * 1024 * 1024;
/// Listings written at once; more wait their turn.
pub const MAX_LISTINGS: usize = 2;
/// Bytes counted for each request besides its text.
const ENTRY_OVERHEAD: usize = 160;
/// Bytes counted for each header besides its text.
const HEADER_OVERHEAD: usize = 96;

/// A credential as it is recorded: its kind and fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fingerprinted {
    /// `api_key`, `oauth2`, or `unknown` when no configured prefix fits.
    pub kind: &'static str,
    /// `sha256:` and the first 8 hex digits of the SHA-256 of the secret.
    pub fingerprint: String,
}

/// One header as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedHeader {
    /// The name, in lower case.
    pub name: String,
    /// The value (lossy UTF-8), absent for a credential.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The `Authorization` scheme (e.g. `Bearer`), for a credential sent so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    /// The credential, in place of the value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credential: Option<Fingerprinted>,
}

/// One recorded request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recorded {
    /// Its place among every request recorded since the start, from 0.
    pub index: u64,
    /// The method.
    pub method: String,
    /// The path (credential-holding segments redacted).
    pub path: String,
    /// The query without `?`, if any (credential-holding pairs redacted).
    pub query: Option<String>,
    /// The headers, in order.
    pub headers: Vec<RecordedHeader>,
    /// The status answered; `None`: the connection was dropped.
    pub status: Option<u16>,
    /// Arrival, Unix milliseconds by the sandbox clock.
    pub time_ms: u64,
}

/// A request as it arrived, before its answer.
#[derive(Debug)]
pub struct Arrival {
    method: String,
    path: String,
    query: Option<String>,
    headers: Vec<RecordedHeader>,
    time_ms: u64,
}

impl Recorded {
    /// The bytes this request counts against [`MAX_RING_BYTES`]: its text
    /// (method, path, query, header names, values and schemes) plus a fixed
    /// overhead per request and per header.
    pub fn weight(&self) -> usize {
        let headers: usize = self
            .headers
            .iter()
            .map(|header| {
                HEADER_OVERHEAD
                    + header.name.len()
                    + header.value.as_ref().map_or(0, String::len)
                    + header.scheme.as_ref().map_or(0, String::len)
                    + header
                        .credential
                        .as_ref()
                        .map_or(0, |credential| credential.fingerprint.len())
            })
            .sum();
        ENTRY_OVERHEAD
            + self.method.len()
            + self.path.len()
            + self.query.as_ref().map_or(0, String::len)
            + headers
    }
}

#[derive(Debug, Default)]
struct Ring {
    entries: VecDeque<Arc<Recorded>>,
    /// The sum of the entries' weights.
    bytes: usize,
    next: u64,
    /// Forgotten because the ring was full.
    evicted: u64,
}

/// The ring of recorded requests.
#[derive(Debug)]
pub struct Recorder {
    capacity: usize,
    max_bytes: usize,
    ring: Mutex<Ring>,
    listings: tokio::sync::Semaphore,
}

/// What `GET /_sandbox/requests` shows.
#[derive(Debug, Serialize)]
pub struct Listing {
    /// The requests that match, oldest first.
    pub requests: Vec<Arc<Recorded>>,
    /// The index the next request will get (`since` for "from now on").
    pub next: u64,
    /// How many requests are kept at most.
    pub capacity: usize,
    /// How many were forgotten because the ring was full.
    pub evicted: u64,
}

fn fingerprint(secret: &[u8]) -> String {
    let digest = Sha256::digest(secret);
    let hex: String = digest
        .iter()
        .take(4)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

fn kind_of(secret: &str, prefixes: &[(String, CredentialKind)]) -> &'static str {
    prefixes
        .iter()
        .find(|(prefix, _)| !prefix.is_empty() && secret.starts_with(prefix.as_str()))
        .map_or("unknown", |(_, kind)| kind.as_str())
}

impl Recorder {
    /// A ring of the last `capacity` requests.
    pub fn new(capacity: u32) -> Self {
        Self::with_budget(capacity, MAX_RING_BYTES)
    }

    /// A ring of the last `capacity` requests, at most `max_bytes` of them.
    pub fn with_budget(capacity: u32, max_bytes: usize) -> Self {
        Self {
            capacity: usize::try_from(capacity).unwrap_or(usize::MAX),
            max_bytes,
            ring: Mutex::new(Ring::default()),
            listings: tokio::sync::Semaphore::new(MAX_LISTINGS),
        }
    }

    /// Waits for a turn to write a listing ([`MAX_LISTINGS`] at once).
    pub async fn listing_turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.listings.acquire().await.ok()
    }

    /// Whether anything is kept.
    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    fn ring(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The request as it will be recorded, taken before it is answered;
    /// `log` redacts and `prefixes` name the credential kinds.
    pub fn arrival(
        log: &RequestLog,
        prefixes: &[(String, CredentialKind)],
        method: &str,
        uri: &axum::http::Uri,
        headers: &HeaderMap,
        time_ms: u64,
    ) -> Arrival {
        let path = uri
            .path()
            .split('/')
            .map(|segment| {
                if log.holds_credential(segment) {
                    REDACTED
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let query = uri.query().map(|query| {
            query
                .split('&')
                .map(|pair| {
                    if !log.holds_credential(pair) {
                        return pair.to_owned();
                    }
                    match pair.split_once('=') {
                        Some((name, _)) if !log.holds_credential(name) => {
                            format!("{name}={REDACTED}")
                        }
                        _ => REDACTED.to_owned(),
                    }
                })
                .collect::<Vec<_>>()
                .join("&")
        });
        let headers = headers
            .iter()
            .map(|(name, value)| {
                let name = name.as_str().to_owned();
                let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
                record_header(log, prefixes, name, text)
            })
            .collect();
        Arrival {
            method: if log.holds_credential(method) {
                REDACTED.to_owned()
            } else {
                method.to_owned()
            },
            path,
            query,
            headers,
            time_ms,
        }
    }

    /// Keeps `arrival`, answered with `status`, forgetting the oldest
    /// request when the ring is full.
    pub fn record(&self, arrival: Arrival, status: Option<u16>) {
        if !self.enabled() {
            return;
        }
        let mut entry = Recorded {
            index: 0,
            method: arrival.method,
            path: arrival.path,
            query: arrival.query,
            headers: arrival.headers,
            status,
            time_ms: arrival.time_ms,
        };
        let weight = entry.weight();
        let mut ring = self.ring();
        entry.index = ring.next;
        ring.next += 1;
        while ring.entries.len() >= self.capacity
            || (!ring.entries.is_empty() && ring.bytes + weight > self.max_bytes)
        {
            if let Some(oldest) = ring.entries.pop_front() {
                ring.bytes = ring.bytes.saturating_sub(oldest.weight());
            }
            ring.evicted += 1;
        }
        if weight > self.max_bytes {
            // Larger than the whole budget (cannot happen with the bounded
            // request head): counted, not kept.
            ring.evicted += 1;
            return;
        }
        ring.bytes += weight;
        ring.entries.push_back(Arc::new(entry));
    }

    /// The bytes of the requests kept (see [`Recorded::weight`]).
    pub fn bytes(&self) -> usize {
        self.ring().bytes
    }

    /// The requests kept whose index is at least `since`, shared (not
    /// copied), with the ring's counters: the lock is held only for this.
    pub fn snapshot(&self, since: u64) -> Listing {
        let ring = self.ring();
        let start = ring.entries.partition_point(|entry| entry.index < since);
        Listing {
            requests: ring.entries.range(start..).cloned().collect(),
            next: ring.next,
            capacity: self.capacity,
            evicted: ring.evicted,
        }
    }

    /// The requests kept whose index is at least `since` and whose path
    /// matches `path` (a pattern: `*` within a segment, `**` across), the
    /// first `limit` of them. The pattern runs outside the lock.
    pub fn list(&self, since: u64, path: Option<&crate::faults::Pattern>, limit: usize) -> Listing {
        let mut listing = self.snapshot(since);
        listing.requests = std::mem::take(&mut listing.requests)
            .into_iter()
            .filter(|entry| path.is_none_or(|pattern| pattern.matches(&entry.path)))
            .take(limit)
            .collect();
        listing
    }

    /// Forgets every request kept; returns how many there were. Indexes go
    /// on from where they were.
    pub fn clear(&self) -> usize {
        let mut ring = self.ring();
        let cleared = ring.entries.len();
        ring.entries.clear();
        ring.bytes = 0;
        cleared
    }
}

fn record_header(
    log: &RequestLog,
    prefixes: &[(String, CredentialKind)],
    name: String,
    text: String,
) -> RecordedHeader {
    let is_credential = acd_core::model::is_credential_header(&name)
        || name == "proxy-authorization"
        || name == "cookie";
    if !is_credential && !log.holds_credential(&text) {
        return RecordedHeader {
            name,
            value: Some(text),
            scheme: None,
            credential: None,
        };
    }
    let authorization = name == "authorization" || name == "proxy-authorization";
    let (scheme, secret) = match text.trim().split_once(' ') {
        Some((scheme, secret)) if authorization => (Some(scheme.to_owned()), secret.trim()),
        _ => (None, text.trim()),
    };
    RecordedHeader {
        name,
        value: None,
        scheme,
        credential: Some(Fingerprinted {
            kind: kind_of(secret, prefixes),
            fingerprint: fingerprint(secret.as_bytes()),
        }),
    }
}

#[cfg(test)]
mod tests;
