//! A real Redis Cluster: three masters on loopback ports joined with
//! `redis-cli --cluster create`. The async store decides against it with
//! every key of a decision in one slot, and when the master of a
//! namespace's slot dies mid-run the configured fault policy answers: fail
//! closed admits nothing more, fail open admits at most one limit per
//! window per process beyond what Redis had counted (the bound written in
//! docs/limiter.md), and namespaces on the surviving masters keep deciding
//! through Redis.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::{LimitAlgorithm, LimitCheck, Quota, StackDecision};
use acd_core::UnixMillis;
use acd_redis::keys::cluster_slot;
use acd_redis::{AsyncRedisLimiter, FaultPolicy, KeySpace, RedisConfig};
use std::time::Duration;

const NOW: UnixMillis = UnixMillis::new(1_700_000_001_000);

fn store(url: &str, namespace: &str, policy: FaultPolicy) -> AsyncRedisLimiter {
    AsyncRedisLimiter::with_events(
        RedisConfig {
            cluster: true,
            namespace: namespace.to_owned(),
            fault_policy: policy,
            io_timeout: Duration::from_millis(300),
            connect_timeout: Duration::from_millis(300),
            backoff_min: Duration::from_millis(50),
            backoff_max: Duration::from_millis(200),
            ..RedisConfig::new(url)
        },
        std::sync::Arc::new(|event| eprintln!("acd-redis: {event}")),
    )
    .unwrap()
}

/// A three-limit stack (credential, user, client IP), 10 per minute each.
fn stack() -> [LimitCheck<'static>; 3] {
    let check = |name, subject| LimitCheck {
        name,
        quota: Quota::per_seconds(10, 60),
        subject,
    };
    [
        check("credential", "key-ada"),
        check("user", "ada"),
        check("client_ip", "203.0.113.7"),
    ]
}

fn slot_of(namespace: &str) -> u16 {
    let space = KeySpace::new(namespace, LimitAlgorithm::FixedWindow).unwrap();
    cluster_slot(space.prefix().as_bytes())
}

/// `count` decisions of the stack: (admitted, refused, unavailable).
async fn decide(store: &AsyncRedisLimiter, count: usize) -> (usize, usize, usize) {
    let mut tally = (0, 0, 0);
    for _ in 0..count {
        match store.try_acquire(&stack(), NOW).await {
            Ok(StackDecision::Admitted { .. }) => tally.0 += 1,
            Ok(StackDecision::Refused { .. }) => tally.1 += 1,
            Err(_) => tally.2 += 1,
        }
    }
    tally
}

#[test]
fn a_three_master_cluster_keeps_one_slot_per_decision_and_the_fault_policy() {
    let mut cluster = support::Cluster::start();
    let url = cluster.nodes[0].url();
    // Two namespaces served by different masters.
    let base = support::unique_namespace("cluster");
    let victim_ns = format!("{base}-a");
    let victim = cluster.owner(slot_of(&victim_ns));
    let survivor_ns = (0..)
        .map(|i| format!("{base}-b{i}"))
        .find(|ns| cluster.owner(slot_of(ns)) != victim)
        .unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let open = store(&url, &victim_ns, FaultPolicy::FailOpen);
    let closed = store(&url, &victim_ns, FaultPolicy::FailClosed);
    let survivor = store(&url, &survivor_ns, FaultPolicy::FailClosed);

    // Through the cluster: 4 of the stack, shared by both stores of the
    // namespace (2 each), and 2 in the other namespace.
    runtime.block_on(async {
        assert_eq!(decide(&open, 2).await, (2, 0, 0));
        assert_eq!(decide(&closed, 2).await, (2, 0, 0));
        assert_eq!(decide(&survivor, 2).await, (2, 0, 0));
    });
    assert_eq!(open.stats().redis + closed.stats().redis, 4);

    // The three keys of one decision: one slot, all on the master serving it.
    let space = open.key_space();
    let keys: Vec<Vec<u8>> = stack()
        .iter()
        .map(|c| space.window_key(c.name, c.subject, 1_700_000_040_000))
        .collect();
    let mut owner = cluster.nodes[victim].connection();
    for key in &keys {
        let slot: u16 = redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(key)
            .query(&mut owner)
            .unwrap();
        assert_eq!(slot, slot_of(&victim_ns));
    }
    let present: usize = redis::cmd("EXISTS").arg(&keys).query(&mut owner).unwrap();
    assert_eq!(present, 3);
    let counted: String = redis::cmd("GET").arg(&keys[0]).query(&mut owner).unwrap();
    assert_eq!(counted, "4");

    // The master of the namespace's slot dies mid-run.
    cluster.nodes[victim].stop();
    runtime.block_on(async {
        // Fail closed: nothing more is admitted.
        assert_eq!(decide(&closed, 5).await, (0, 0, 5));
        // Fail open: the process's in-memory fallback counts afresh, so
        // the window admits 4 (Redis) + 10 (fallback) = 14, never more.
        assert_eq!(decide(&open, 20).await, (10, 10, 0));
        // The other master still decides its namespace through Redis.
        assert_eq!(decide(&survivor, 9).await, (8, 1, 0));
    });
    assert_eq!(open.stats().fallback, 20);
    assert_eq!(closed.stats().unavailable, 5);
    assert_eq!(survivor.stats().redis, 11);
    assert_eq!(survivor.stats().fallback + survivor.stats().unavailable, 0);
}
