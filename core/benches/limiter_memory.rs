//! (e) Memory per key at 1 000 000 keys, counted by the global allocator:
//! acd's engine and governor's keyed stores, for `u64` keys and for 40-byte
//! string keys. Prints one line per case:
//! `memory <impl> <key> <bytes/key total> <bytes/key besides the key>`.
//!
//! "Besides the key" subtracts the key itself: 8 bytes for `u64`; for a
//! string, its 40 heap bytes plus its handle (16 for acd's `Box<str>`, 24 for
//! governor's `String`).

mod workloads;

use acd_core::limit::{FixedWindow, Gcra, LimiterConfig};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::fmt::Write;
use std::hint::black_box;
use workloads::{Acd, Subject};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const KEYS: u64 = 1_000_000;

fn live_bytes(region: &Region<'_, System>) -> f64 {
    let change = region.change();
    change.bytes_allocated as f64 - change.bytes_deallocated as f64
        + change.bytes_reallocated as f64
}

fn report(name: &str, key: &str, bytes: f64, key_bytes: f64) {
    let per_key = bytes / KEYS as f64;
    println!(
        "memory {name} {key} {per_key:.1} {:.1}",
        per_key - key_bytes
    );
}

fn u64_keys<S: Subject<u64>>(name: &str, make: impl Fn() -> S) {
    let region = Region::new(GLOBAL);
    let subject = make();
    let admitted = (0..KEYS).filter(|key| subject.check(key)).count();
    let bytes = live_bytes(&region);
    assert_eq!(admitted as u64, KEYS, "{name}: every key must be stored");
    report(name, "u64", bytes, 8.0);
    drop(black_box(subject));
}

fn string_keys<S: Subject<K>, K>(
    name: &str,
    make: impl Fn() -> S,
    key: impl Fn(&str) -> K,
    handle: f64,
) {
    let mut text = String::with_capacity(40);
    let region = Region::new(GLOBAL);
    let subject = make();
    let mut admitted = 0;
    for i in 0..KEYS {
        text.clear();
        let _ = write!(text, "{i:040}");
        let probe = key(&text);
        admitted += u64::from(subject.check(&probe));
    }
    let bytes = live_bytes(&region);
    assert_eq!(admitted, KEYS, "{name}: every key must be stored");
    report(name, "str40", bytes, 40.0 + handle);
    drop(black_box(subject));
}

fn acd_config() -> LimiterConfig {
    workloads::acd_config()
}

fn tight_config() -> LimiterConfig {
    LimiterConfig {
        max_keys: 1_020_000,
        shards: 16,
        ..LimiterConfig::default()
    }
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    u64_keys("acd-fw", || Acd::<u64, FixedWindow>::new(acd_config()));
    // The default configuration (room for 2^20 keys), then 2x and 10x the
    // keys held: tables grow with the keys, not with the room.
    for (name, room) in [
        ("acd-fw-default", LimiterConfig::default().max_keys),
        ("acd-fw-2x-room", 2 * KEYS as usize),
        ("acd-fw-10x-room", 10 * KEYS as usize),
    ] {
        u64_keys(name, || {
            Acd::<u64, FixedWindow>::new(LimiterConfig::with_max_keys(room))
        });
    }
    u64_keys("acd-gcra", || Acd::<u64, Gcra>::new(acd_config()));
    u64_keys("acd-fw-16-shards", || {
        Acd::<u64, FixedWindow>::new(tight_config())
    });
    u64_keys("governor-dashmap", workloads::governor_dashmap);
    u64_keys("governor-hashmap", workloads::governor_hashmap);
    string_keys(
        "acd-fw",
        || Acd::<Box<str>, FixedWindow>::new(acd_config()),
        |s| -> Box<str> { s.into() },
        16.0,
    );
    string_keys(
        "acd-fw-16-shards",
        || Acd::<Box<str>, FixedWindow>::new(tight_config()),
        |s| -> Box<str> { s.into() },
        16.0,
    );
    string_keys(
        "governor-dashmap",
        workloads::governor_dashmap,
        |s| s.to_owned(),
        24.0,
    );
    string_keys(
        "governor-hashmap",
        workloads::governor_hashmap,
        |s| s.to_owned(),
        24.0,
    );
}
