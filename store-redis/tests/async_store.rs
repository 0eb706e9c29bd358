//! The async store against a real redis-server: concurrent decisions on one
//! multiplexed connection are exact, the gate's pending limits resolve
//! through it, and a stopped server gets the fault policy's answer until it
//! is back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::gate::demo::ADA_KEY;
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest};
use acd_core::limit::{LimitCheck, LimiterUnavailable, Quota, StackDecision};
use acd_core::UnixMillis;
use acd_redis::{AsyncRedisLimiter, FaultPolicy, RedisConfig};
use std::sync::Arc;
use std::time::{Duration, Instant};

const NOW: UnixMillis = UnixMillis::new(1_700_000_001_000);

fn store(url: &str, policy: FaultPolicy) -> Arc<AsyncRedisLimiter> {
    Arc::new(
        AsyncRedisLimiter::with_events(
            RedisConfig {
                namespace: support::unique_namespace("async"),
                fault_policy: policy,
                io_timeout: Duration::from_millis(200),
                connect_timeout: Duration::from_millis(200),
                backoff_min: Duration::from_millis(20),
                backoff_max: Duration::from_millis(80),
                ..RedisConfig::new(url)
            },
            Arc::new(|event| eprintln!("acd-redis: {event}")),
        )
        .unwrap(),
    )
}

fn check(subject: &str, requests: u32) -> LimitCheck<'_> {
    LimitCheck {
        name: "credential",
        quota: Quota::per_seconds(requests, 60),
        subject,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn connected_clients(con: &mut redis::Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("clients").query(con).unwrap();
    info.lines()
        .find_map(|line| line.strip_prefix("connected_clients:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

#[test]
fn concurrent_decisions_on_one_connection_admit_exactly_the_limit() {
    let server = support::RedisServer::start();
    let mut con = server.connection();
    let store = store(&server.url(), FaultPolicy::FailClosed);
    let rt = runtime();
    let outcomes = rt.block_on(async {
        store.ping().await.unwrap();
        let tasks: Vec<_> = (0..250)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move {
                    matches!(
                        store.try_acquire(&[check("ada", 100)], NOW).await,
                        Ok(StackDecision::Admitted { .. })
                    )
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.unwrap());
        }
        outcomes
    });
    let admitted = outcomes.iter().filter(|&&a| a).count();
    assert_eq!((admitted, outcomes.len() - admitted), (100, 150));
    assert_eq!(store.stats().redis, 250);
    // This test's inspection connection and the store's one connection.
    assert_eq!(connected_clients(&mut con), 2);
}

#[test]
fn pending_limits_resolve_through_the_async_store() {
    let (url, _server) = support::shared();
    let store = store(&url, FaultPolicy::FailClosed);
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let read =
        GateRequest::get("/api/v1/tables/orders", "203.0.113.7").with_header("X-API-Key", ADA_KEY);
    let statuses: Vec<(u16, Option<String>)> = runtime().block_on(async {
        let mut statuses = Vec::new();
        for _ in 0..6 {
            let decision = store.resolve(gate.prepare(&read, NOW), NOW).await;
            statuses.push(match decision {
                Decision::FetchResource(admitted) => {
                    let response =
                        admitted.respond(acd_core::gate::ResourceAnswer::Found(b"[]".to_vec()));
                    (
                        response.status,
                        response.header("RateLimit-Remaining").map(str::to_owned),
                    )
                }
                Decision::Reply(response) => (
                    response.status,
                    response.header("RateLimit-Remaining").map(str::to_owned),
                ),
            });
        }
        statuses
    });
    let remaining = |n: &str| Some(n.to_owned());
    assert_eq!(
        statuses,
        [
            (200, remaining("4")),
            (200, remaining("3")),
            (200, remaining("2")),
            (200, remaining("1")),
            (200, remaining("0")),
            (429, remaining("0")),
        ]
    );
}

#[test]
fn a_stopped_server_gets_the_fault_policy_until_it_is_back() {
    let mut server = support::RedisServer::start();
    let open = store(&server.url(), FaultPolicy::FailOpen);
    let closed = store(&server.url(), FaultPolicy::FailClosed);
    let rt = runtime();
    rt.block_on(async {
        assert!(open.try_acquire(&[check("a", 2)], NOW).await.is_ok());
        assert!(closed.try_acquire(&[check("b", 2)], NOW).await.is_ok());
    });
    server.stop();
    rt.block_on(async {
        // Fail open: the in-memory fallback counts afresh (2 per window).
        let mut admitted = Vec::new();
        for _ in 0..3 {
            let decision = open.try_acquire(&[check("c", 2)], NOW).await.unwrap();
            admitted.push(matches!(decision, StackDecision::Admitted { .. }));
        }
        assert_eq!(admitted, [true, true, false]);
        assert_eq!(open.stats().fallback, 3);
        // Fail closed: unavailable, with a time to retry.
        for _ in 0..3 {
            let Err(LimiterUnavailable { retry_at, .. }) =
                closed.try_acquire(&[check("b", 2)], NOW).await
            else {
                panic!("decided without Redis while failing closed");
            };
            assert!(retry_at > NOW);
        }
        assert_eq!(closed.stats().unavailable, 3);
        assert!(!closed.is_up());
    });
    server.restart();
    rt.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(60);
        let before = closed.stats().redis;
        while closed.stats().redis == before {
            assert!(Instant::now() < deadline, "never reconnected");
            let _ = closed.try_acquire(&[check("probe", 100)], NOW).await;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(closed.is_up());
        // The restarted server lost b's count, but the store gave it back
        // before deciding (a new epoch): b's second and last of 2.
        match closed.try_acquire(&[check("b", 2)], NOW).await {
            Ok(StackDecision::Admitted { tightest }) => {
                assert_eq!(tightest.unwrap().remaining, 0)
            }
            other => panic!("{other:?}"),
        }
    });
}

#[test]
fn one_call_decides_a_batch_in_order_and_a_bad_key_fails_only_its_decision() {
    use acd_core::limit::LimitAlgorithm;
    use acd_redis::{Batch, KeySpace, Prepared};
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let space = KeySpace::new(
        &support::unique_namespace("batch"),
        LimitAlgorithm::FixedWindow,
    )
    .unwrap();
    let _: () = redis::cmd("SET")
        .arg(space.window_key("credential", "rotten", 1_700_000_040_000))
        .arg("ripe")
        .query(&mut con)
        .unwrap();
    let two = [check("ada", 2)];
    let rotten = [check("ada", 2), check("rotten", 2)];
    let prepare = |checks: &[LimitCheck<'_>]| {
        Prepared::new(&space, LimitAlgorithm::FixedWindow, checks, NOW, 2_000).unwrap()
    };
    let mut batch = Batch::new(LimitAlgorithm::FixedWindow, 2_000);
    for checks in [&two[..], &rotten, &two, &two] {
        batch.push(&prepare(checks));
    }
    let script = redis::Script::new(acd_redis::script::WINDOW_LUA);
    let reply: redis::Value = batch.invocation(&script).invoke(&mut con).unwrap();
    let outcomes = batch.outcomes(&reply).unwrap();
    let decided: Vec<Result<bool, bool>> = outcomes
        .iter()
        .zip([&two[..], &rotten, &two, &two])
        .map(|(outcome, checks)| match batch.decision(outcome, checks) {
            Ok(decision) => Ok(matches!(decision, StackDecision::Admitted { .. })),
            Err(error) => Err(error.is_bad_state()),
        })
        .collect();
    // Ada's 2 per window: first admitted, the rotten stack fails alone
    // (charging nothing), third admitted, fourth refused.
    assert_eq!(decided, [Ok(true), Err(true), Ok(true), Ok(false)]);
    let state: String = redis::cmd("GET")
        .arg(space.window_key("credential", "ada", 1_700_000_040_000))
        .query(&mut con)
        .unwrap();
    assert_eq!(state, "2");
}

#[test]
fn the_async_store_reloads_a_flushed_script_cache() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let store = store(&url, FaultPolicy::FailClosed);
    runtime().block_on(async {
        let ada = [check("ada", 2)];
        assert!(matches!(
            store.try_acquire(&ada, NOW).await,
            Ok(StackDecision::Admitted { .. })
        ));
        // The server forgets every script (as after a restart or a
        // failover): the next call gets NOSCRIPT, loads it and goes on.
        let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut con).unwrap();
        assert!(matches!(
            store.try_acquire(&ada, NOW).await,
            Ok(StackDecision::Admitted { .. })
        ));
        assert!(matches!(
            store.try_acquire(&ada, NOW).await,
            Ok(StackDecision::Refused { .. })
        ));
    });
    assert_eq!(store.stats().redis, 3);
}
