//! acd's keyed engine against governor on the same workloads, in one run:
//! (a) one key, one thread; (b) 1 000 000 keys round-robin; (c) first sight
//! of a new key; (d) two threads on one key and on disjoint keys.
//!
//! Every check must be admitted (the quota is far above the load): each
//! bench counts refusals and asserts, outside the timed region, that there
//! were none, so no silent refusal can make an engine look fast.
//!
//! `cargo bench -p acd-core --bench limiter`; `scripts/bench-limiter` runs it
//! with the memory and instruction-count comparisons and prints a table.

mod workloads;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::{Duration, Instant};
use workloads::{Subject, MANY_KEYS};

/// Fresh limiters for (c) take this many new keys each.
const NEW_KEYS_PER_LIMITER: u64 = 100_000;

fn one_key<S: Subject<u64>>(c: &mut Criterion, name: &str, subject: &S) {
    let mut refused = 0u64;
    c.bench_function(&format!("a_one_key/{name}"), |b| {
        let mut i = 0u64;
        b.iter(|| {
            i += 1;
            if i % workloads::TICK_EVERY == 0 {
                subject.tick();
            }
            refused += u64::from(!subject.check(black_box(&42)));
        });
    });
    assert_eq!(refused, 0, "{name}: (a) refused some checks");
}

fn round_robin<S: Subject<u64>>(c: &mut Criterion, name: &str, subject: &S) {
    workloads::prefill(subject, MANY_KEYS);
    let mut refused = 0u64;
    c.bench_function(&format!("b_round_robin_1m/{name}"), |b| {
        let mut cursor = 0u64;
        b.iter_custom(|iters| {
            let start = Instant::now();
            let admitted = workloads::round_robin(subject, MANY_KEYS, &mut cursor, iters);
            let elapsed = start.elapsed();
            refused += iters - admitted;
            elapsed
        });
    });
    assert_eq!(refused, 0, "{name}: (b) refused some checks");
}

fn new_keys<S: Subject<u64>>(c: &mut Criterion, name: &str, make: impl Fn() -> S) {
    let mut refused = 0u64;
    c.bench_function(&format!("c_new_key/{name}"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let chunk = left.min(NEW_KEYS_PER_LIMITER);
                let subject = make();
                let start = Instant::now();
                let admitted = workloads::new_keys(&subject, 0, chunk);
                total += start.elapsed();
                refused += chunk - admitted;
                drop(subject);
                left -= chunk;
            }
            total
        });
    });
    assert_eq!(refused, 0, "{name}: (c) refused some checks");
}

fn two_threads<S: Subject<u64>>(c: &mut Criterion, name: &str, subject: &S) {
    let mut group = c.benchmark_group("d_two_threads");
    for disjoint in [false, true] {
        let label = if disjoint { "disjoint_keys" } else { "one_key" };
        let mut refused = 0u64;
        group.bench_function(BenchmarkId::new(label, name), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                let lost: u64 = std::thread::scope(|scope| {
                    let threads: Vec<_> = (0..2u64)
                        .map(|thread| {
                            scope.spawn(move || {
                                let base = if disjoint { (thread + 1) << 32 } else { 0 };
                                let mut refused = 0u64;
                                for i in 0..iters / 2 {
                                    let key = if disjoint { base + i % 1_000 } else { 42 };
                                    refused += u64::from(!subject.check(black_box(&key)));
                                }
                                refused
                            })
                        })
                        .collect();
                    threads.into_iter().map(|t| t.join().unwrap_or(1)).sum()
                });
                let elapsed = start.elapsed();
                refused += lost;
                elapsed
            });
        });
        assert_eq!(refused, 0, "{name}: (d) {label} refused some checks");
    }
    group.finish();
}

fn all<S: Subject<u64>>(c: &mut Criterion, name: &str, make: impl Fn() -> S) {
    one_key(c, name, &make());
    round_robin(c, name, &make());
    new_keys(c, name, &make);
    two_threads(c, name, &make());
}

fn benches(c: &mut Criterion) {
    all(c, "acd-fw", workloads::acd_fixed_window);
    all(c, "acd-gcra", workloads::acd_gcra);
    all(c, "governor-dashmap", workloads::governor_dashmap);
    all(
        c,
        "governor-dashmap-foldhash",
        workloads::governor_dashmap_foldhash,
    );
    all(c, "governor-hashmap", workloads::governor_hashmap);
}

criterion_group! {
    name = limiter;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = benches
}
criterion_main!(limiter);
