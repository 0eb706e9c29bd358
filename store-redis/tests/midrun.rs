//! Under load: threads keep deciding while the real server is stopped and
//! restarted under them (every call returns, first through Redis, then the
//! fallback, then Redis again); and instances whose clocks disagree still
//! never admit more than a limit per stored window.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::{LimitCheck, Quota, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use acd_redis::{FaultPolicy, RedisConfig, RedisLimiter, StoreEvent, StoreStats};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const NOW: u64 = 1_700_000_001_000;

/// Waits (bounded: a hang guard, not a speed requirement) until `done`.
fn wait_for(what: &str, limiter: &RedisLimiter, done: impl Fn(StoreStats) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(limiter.stats()) {
        assert!(Instant::now() < deadline, "{what}: {:?}", limiter.stats());
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn threads_keep_deciding_while_redis_stops_and_restarts() {
    let mut server = support::RedisServer::start();
    let events: Arc<Mutex<Vec<StoreEvent>>> = Arc::default();
    let sink = events.clone();
    let limiter = Arc::new(
        RedisLimiter::with_events(
            RedisConfig {
                namespace: support::unique_namespace("midrun"),
                fault_policy: FaultPolicy::FailOpen,
                connections: 4,
                io_timeout: Duration::from_millis(100),
                connect_timeout: Duration::from_millis(100),
                backoff_min: Duration::from_millis(10),
                backoff_max: Duration::from_millis(40),
                ..RedisConfig::new(server.url())
            },
            Arc::new(move |event: &StoreEvent| sink.lock().unwrap().push(event.clone())),
        )
        .unwrap(),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..8)
        .map(|w| {
            let (limiter, stop) = (limiter.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut calls = 0_u64;
                while !stop.load(Ordering::SeqCst) {
                    let subject = format!("w{w}-{}", calls % 50);
                    let check = LimitCheck {
                        name: "credential",
                        quota: Quota::per_seconds(1_000_000, 60),
                        subject: &subject,
                    };
                    let decision = limiter.try_acquire(&[check], UnixMillis::new(NOW + calls));
                    assert!(matches!(decision, Ok(StackDecision::Admitted { .. })));
                    calls += 1;
                }
                calls
            })
        })
        .collect();

    wait_for("decisions through Redis", &limiter, |s| s.redis >= 200);
    server.stop();
    wait_for("fallback decisions", &limiter, |s| s.fallback >= 200);
    server.restart();
    let before = limiter.stats();
    wait_for("decisions through Redis again", &limiter, |s| {
        s.redis >= before.redis + 200
    });
    stop.store(true, Ordering::SeqCst);
    let calls: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();

    let stats = limiter.stats();
    assert!(limiter.is_up());
    assert_eq!(stats.redis + stats.fallback, calls);
    assert!(stats.fallback >= before.fallback);
    let events = events.lock().unwrap();
    assert!(matches!(
        events.first(),
        Some(StoreEvent::Unavailable { failures: 1, .. })
    ));
    assert!(matches!(events.last(), Some(StoreEvent::Recovered { .. })));
    // One outage: one "unavailable" line, then only failed probes.
    let firsts = events
        .iter()
        .filter(|e| matches!(e, StoreEvent::Unavailable { failures: 1, .. }))
        .count();
    assert_eq!(firsts, 1, "{events:?}");
}

#[test]
fn skewed_clocks_never_admit_more_than_the_limit_per_window() {
    let (url, _server) = support::shared();
    let namespace = support::unique_namespace("skew");
    let instance = || {
        RedisLimiter::new(RedisConfig {
            namespace: namespace.clone(),
            ..RedisConfig::new(&url)
        })
        .unwrap()
    };
    let (fast, slow) = (instance(), instance());
    let skew = 5_000; // the fast instance's clock is 5 s ahead
    let check = [LimitCheck {
        name: "credential",
        quota: Quota::per_seconds(10, 60),
        subject: "key-ada",
    }];
    let admitted = |d: StackDecision| matches!(d, StackDecision::Admitted { .. });
    // Real time runs from 56 s to 64 s past a window boundary at 60 s.
    let boundary = 1_700_000_040_000;
    let mut per_window = std::collections::BTreeMap::<u64, u32>::new();
    for step in 0..160_u64 {
        let real = boundary - 4_000 + step * 50;
        let (limiter, now) = if step % 2 == 0 {
            (&fast, real + skew)
        } else {
            (&slow, real)
        };
        if let StackDecision::Admitted {
            tightest: Some(status),
        } = limiter.decide(&check, UnixMillis::new(now)).unwrap()
        {
            *per_window.entry(u64::from(status.reset_at)).or_default() += 1;
        }
    }
    // Every stored window admitted at most its limit; the fast clock opened
    // the next window and the slow one counted into it.
    assert!(per_window.values().all(|&n| n <= 10), "{per_window:?}");
    assert_eq!(per_window.get(&(boundary + 60_000)), Some(&10));
    assert!(!admitted(
        slow.decide(&check, UnixMillis::new(boundary + 1_000))
            .unwrap()
    ));
}
