//! No decision of the async store waits on another's fate:
//!
//! * a caller that gives up on a decision (its HTTP request dropped because
//!   the client went away, a handler's own timeout) leaves the store as it
//!   found it. The probe after an outage is one such decision: while it is
//!   under way every other request is answered by the fault policy, so a
//!   probe dropped before its answer used to leave the store failing open
//!   (or answering 503 under fail closed) for good, with Redis healthy
//!   again. Seen in scripts/soak on a starved debug build: one sandbox
//!   reported Redis unavailable once and never tried it again;
//! * decisions that must sync first (a connection to open, the epoch to
//!   read, counts to merge) wait for the sync under way at most one timeout,
//!   not one timeout per decision ahead of them: 16 concurrent first
//!   decisions against a frozen Redis took 4 s to be answered (one connect
//!   timeout of 250 ms after the other), each deciding with the `now` it had read seconds before.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::{LimitCheck, Quota};
use acd_core::UnixMillis;
use acd_redis::{AsyncRedisLimiter, FaultPolicy, RedisConfig, StoreEvent};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const NOW: UnixMillis = UnixMillis::new(1_700_000_001_000);

fn ada() -> [LimitCheck<'static>; 1] {
    [LimitCheck {
        name: "credential",
        quota: Quota::per_seconds(1_000, 60),
        subject: "ada",
    }]
}

fn store(url: &str, policy: FaultPolicy) -> (AsyncRedisLimiter, Arc<Mutex<Vec<StoreEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let store = AsyncRedisLimiter::with_events(
        RedisConfig {
            namespace: support::unique_namespace("cancel"),
            fault_policy: policy,
            ..RedisConfig::new(url)
        },
        Arc::new(move |event| sink.lock().unwrap().push(event.clone())),
    )
    .unwrap();
    (store, events)
}

/// Redis paused: a decision times out and the store goes down; after the
/// backoff the next decision is the probe, which is dropped while it waits
/// on the paused server; then Redis answers again. The store must decide
/// through Redis again (before the fix: never, every request was told to
/// wait for the dropped probe).
fn a_dropped_probe_does_not_keep_the_store_from_redis(policy: FaultPolicy) {
    let mut server = support::RedisServer::start();
    let (store, events) = store(&server.url(), policy);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        assert!(store.try_acquire(&ada(), NOW).await.is_ok());
        assert_eq!(store.stats().redis, 1);
        server.pause();
        // Times out (connect_timeout + io_timeout): the store is down.
        let _ = store.try_acquire(&ada(), NOW).await;
        assert!(!store.is_up());
        // Past the backoff (100 ms), the next decision is the probe; its
        // caller gives up while it waits on the paused server.
        tokio::time::sleep(Duration::from_millis(150)).await;
        let outages = store.stats().outages;
        let dropped =
            tokio::time::timeout(Duration::from_millis(50), store.try_acquire(&ada(), NOW)).await;
        assert!(dropped.is_err(), "the probe answered before it was dropped");
        assert_eq!(
            store.stats().outages,
            outages,
            "the dropped probe was not recorded"
        );
    });
    server.resume();
    let back = Instant::now();
    let before = store.stats().redis;
    runtime.block_on(async {
        while store.stats().redis == before {
            assert!(
                back.elapsed() < Duration::from_secs(10),
                "never decided through Redis again after a dropped probe; events: {:?}",
                events.lock().unwrap()
            );
            let _ = store.try_acquire(&ada(), NOW).await;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    assert!(store.is_up());
}

/// 16 decisions at once on a fresh store (its connection and epoch not
/// made yet) while Redis is frozen: each is answered by the fault policy
/// within one wait for the sync ahead of it and its own, not after every
/// sync ahead of it timed out in turn.
#[test]
fn concurrent_first_decisions_against_a_frozen_redis_do_not_queue_behind_each_other() {
    let mut server = support::RedisServer::start();
    let (store, _events) = store(&server.url(), FaultPolicy::FailOpen);
    server.pause();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = Arc::new(store);
    let waits = runtime.block_on(async {
        let calls: Vec<_> = (0..16)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let answer = store.try_acquire(&ada(), NOW).await;
                    (started.elapsed(), answer.is_ok())
                })
            })
            .collect();
        let mut waits = Vec::new();
        for call in calls {
            waits.push(call.await.unwrap());
        }
        waits
    });
    server.resume();
    let longest = waits.iter().map(|(wait, _)| *wait).max().unwrap();
    assert!(
        waits.iter().all(|(_, admitted)| *admitted),
        "fail open admits"
    );
    assert_eq!(store.stats().fallback, 16);
    eprintln!(
        "the longest of 16 decisions took {} ms",
        longest.as_millis()
    );
    // Each step waits at most connect_timeout + io_timeout (500 ms): the
    // sync ahead, then this decision's own. 2 s is a generous multiple,
    // far below the 4 s of 16 syncs in turn.
    assert!(
        longest < Duration::from_secs(2),
        "the longest decision took {} ms",
        longest.as_millis()
    );
}

#[test]
fn fail_open_a_dropped_probe_does_not_keep_the_store_from_redis() {
    a_dropped_probe_does_not_keep_the_store_from_redis(FaultPolicy::FailOpen);
}

#[test]
fn fail_closed_a_dropped_probe_does_not_keep_the_store_from_redis() {
    a_dropped_probe_does_not_keep_the_store_from_redis(FaultPolicy::FailClosed);
}
