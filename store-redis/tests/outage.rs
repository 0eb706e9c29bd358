//! After an outage: what a fail-open instance admitted on its own is added
//! to Redis's counts when Redis is back, for the windows still current. A
//! server that kept its data (frozen, then resumed) ends the window at
//! exactly the limit; so does a restarted empty server: the instance
//! counts again what Redis had counted for it (the namespace's epoch
//! changed) and what its fallback admitted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::{LimitCheck, Quota, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use acd_redis::{AsyncRedisLimiter, FaultPolicy, RedisConfig, RedisLimiter};
use std::sync::Arc;
use std::time::{Duration, Instant};

const NOW: UnixMillis = UnixMillis::new(1_700_000_001_000);

fn config(url: &str) -> RedisConfig {
    RedisConfig {
        namespace: support::unique_namespace("outage"),
        fault_policy: FaultPolicy::FailOpen,
        io_timeout: Duration::from_millis(100),
        connect_timeout: Duration::from_millis(100),
        backoff_min: Duration::from_millis(20),
        backoff_max: Duration::from_millis(80),
        ..RedisConfig::new(url)
    }
}

fn ada() -> [LimitCheck<'static>; 1] {
    [LimitCheck {
        name: "credential",
        quota: Quota::per_seconds(10, 60),
        subject: "ada",
    }]
}

fn admitted(decision: &StackDecision) -> bool {
    matches!(decision, StackDecision::Admitted { .. })
}

/// (admitted, refused) of `count` decisions about Ada.
fn tally(limiter: &RedisLimiter, count: usize) -> (usize, usize) {
    let admitted = (0..count)
        .filter(|_| admitted(&limiter.acquire(&ada(), NOW)))
        .count();
    (admitted, count - admitted)
}

/// Probes with other subjects until a decision comes from Redis again
/// (bounded: a hang guard, not a speed requirement).
fn until_back(limiter: &RedisLimiter) {
    let before = limiter.stats().redis;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut i = 0;
    while limiter.stats().redis == before {
        assert!(Instant::now() < deadline, "never reconnected");
        i += 1;
        let probe = format!("probe-{i}");
        let check = LimitCheck {
            subject: &probe,
            ..ada()[0]
        };
        let _ = limiter.acquire(&[check], NOW);
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn state(server: &support::RedisServer, limiter_key: &[u8]) -> Option<String> {
    let mut con = server.connection();
    redis::cmd("GET").arg(limiter_key).query(&mut con).unwrap()
}

#[test]
fn a_frozen_server_that_kept_its_counts_ends_the_window_at_exactly_the_limit() {
    let mut server = support::RedisServer::start();
    let limiter =
        Arc::new(RedisLimiter::with_events(config(&server.url()), Arc::new(|_| {})).unwrap());
    let key = limiter
        .key_space()
        .window_key("credential", "ada", 1_700_000_040_000);
    assert_eq!(tally(&limiter, 3), (3, 0));
    server.pause();
    // Calls time out; the in-memory fallback admits 4 more on its own.
    assert_eq!(tally(&limiter, 4), (4, 0));
    assert_eq!(limiter.stats().fallback, 4);
    server.resume();
    until_back(&limiter);
    // Redis now holds 3 + 4: three more, then refused. 10 in the window.
    assert_eq!(state(&server, &key).as_deref(), Some("7"));
    assert_eq!(tally(&limiter, 5), (3, 2));
}

#[test]
fn a_restarted_empty_server_gets_the_fallback_counts() {
    let mut server = support::RedisServer::start();
    let limiter = RedisLimiter::with_events(config(&server.url()), Arc::new(|_| {})).unwrap();
    let key = limiter
        .key_space()
        .window_key("credential", "ada", 1_700_000_040_000);
    assert_eq!(tally(&limiter, 3), (3, 0));
    server.stop();
    assert_eq!(tally(&limiter, 4), (4, 0));
    server.restart();
    until_back(&limiter);
    // The restart lost Redis's 3 (a new epoch says so): the instance adds
    // them and its fallback's 4 before deciding: 3 more, exactly 10 in the
    // window (13 with the fallback's count alone, 17 without any merge).
    assert_eq!(state(&server, &key).as_deref(), Some("7"));
    assert_eq!(tally(&limiter, 8), (3, 5));
}

#[test]
fn the_async_store_merges_too() {
    let mut server = support::RedisServer::start();
    let store = AsyncRedisLimiter::with_events(config(&server.url()), Arc::new(|_| {})).unwrap();
    let key = store
        .key_space()
        .window_key("credential", "ada", 1_700_000_040_000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tally = |count: usize| {
        runtime.block_on(async {
            let mut admitted = 0;
            for _ in 0..count {
                if let Ok(StackDecision::Admitted { .. }) = store.try_acquire(&ada(), NOW).await {
                    admitted += 1;
                }
            }
            (admitted, count - admitted)
        })
    };
    assert_eq!(tally(2), (2, 0));
    // Killed, not frozen: a frozen server would still run the call that
    // timed out when it wakes (counted twice, toward refusing: see
    // docs/limiter.md), which the multiplexed connection keeps open.
    server.stop();
    assert_eq!(tally(5), (5, 0));
    server.restart();
    runtime.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(60);
        let before = store.stats().redis;
        let mut i = 0;
        while store.stats().redis == before {
            assert!(Instant::now() < deadline, "never reconnected");
            i += 1;
            let probe = format!("probe-{i}");
            let check = LimitCheck {
                subject: &probe,
                ..ada()[0]
            };
            let _ = store.try_acquire(&[check], NOW).await;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    // The restart lost Redis's 2: they and the fallback's 5 are counted
    // again before Redis decides: 3 more, exactly 10 in the window.
    assert_eq!(state(&server, &key).as_deref(), Some("7"));
    assert_eq!(tally(7), (3, 4));
}
