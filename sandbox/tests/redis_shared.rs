//! `acd-sandbox --redis URL`: two sandbox processes on different ports and
//! one real redis-server (or a three-master Redis Cluster, `--redis-cluster`)
//! share their limits exactly. Run by
//! `scripts/test-redis` (with `ACD_TEST_REDIS_URL`); on its own it starts a
//! redis-server of its own, and fails loudly when there is none.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "../../store-redis/tests/support/mod.rs"]
mod redis_support;

use acd_core::gate::demo::{ADA_KEY, ADA_SECOND_KEY};
use common::{Conn, Sandbox};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// Waits, if needed, so that the next 40 s stay in one aligned 60 s window.
fn in_one_window() {
    let into = common::unix_seconds() % 60;
    if into > 20 {
        std::thread::sleep(Duration::from_secs(60 - into));
    }
}

#[test]
fn two_sandboxes_on_one_redis_share_limits_exactly() {
    let (url, _server) = redis_support::shared();
    let namespace = redis_support::unique_namespace("sandboxes");
    let args = [
        "--redis",
        url.as_str(),
        "--redis-namespace",
        namespace.as_str(),
    ];
    let sandboxes = [
        Sandbox::start_with(None, &args),
        Sandbox::start_with(None, &args),
    ];
    assert_ne!(sandboxes[0].addr, sandboxes[1].addr);
    in_one_window();

    // 160 concurrent connection reads with one credential, split across both.
    let start = Arc::new(Barrier::new(160));
    let readers: Vec<_> = (0..160)
        .map(|i| {
            let addr = sandboxes[i % 2].addr;
            let start = start.clone();
            std::thread::spawn(move || {
                let mut conn = Conn::open(addr);
                start.wait();
                conn.get(
                    "/api/v1/connections/crm/records?entity_id=contacts",
                    &[("X-API-Key", ADA_SECOND_KEY)],
                )
                .status
            })
        })
        .collect();
    let statuses: Vec<u16> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    let admitted = statuses.iter().filter(|&&s| s == 200).count();
    let refused = statuses.iter().filter(|&&s| s == 429).count();
    assert_eq!((admitted, refused), (100, 60), "{statuses:?}");

    ada_reads_five_then_is_refused_by_both(&sandboxes);
}

/// Ada's table reads (5 per 60 s per user), alternating instances: five
/// admitted with the remaining count going down, then 429 from both.
fn ada_reads_five_then_is_refused_by_both(sandboxes: &[Sandbox; 2]) {
    for i in 0..5 {
        let response = sandboxes[i % 2].get("/api/v1/tables/orders", &[("X-API-Key", ADA_KEY)]);
        assert_eq!(response.status, 200, "read {i}");
        assert_eq!(response.int("RateLimit-Remaining"), 4 - i as u64);
    }
    for sandbox in sandboxes {
        let response = sandbox.get("/api/v1/tables/orders", &[("X-API-Key", ADA_KEY)]);
        assert_eq!(response.status, 429);
        assert!(response.header("Retry-After").is_some());
    }
}

/// A port nothing listens on (bound, then released).
fn dead_redis_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("redis://{}", listener.local_addr().unwrap())
}

#[test]
fn without_redis_a_sandbox_fails_open_or_closed_as_asked() {
    let url = dead_redis_url();
    let open = Sandbox::start_with(None, &["--redis", &url]);
    let closed = Sandbox::start_with(None, &["--redis", &url, "--redis-fail-closed"]);

    let response = open.get("/api/v1/tables/orders", &[("X-API-Key", ADA_KEY)]);
    assert_eq!(response.status, 200);
    assert_eq!(response.int("RateLimit-Remaining"), 4);

    let response = closed.get("/api/v1/tables/orders", &[("X-API-Key", ADA_KEY)]);
    assert_eq!(response.status, 503);
    assert!(response.int("Retry-After") >= 1);
    // Every response carries RateLimit-*: the base limit, spent until the retry.
    assert_eq!(response.int("RateLimit-Limit"), 100);
    assert_eq!(response.int("RateLimit-Remaining"), 0);
    assert_eq!(response.int("RateLimit-Reset"), response.int("Retry-After"));
    assert!(
        response.text().contains("unavailable"),
        "{}",
        response.text()
    );

    let (_, stderr) = open.stop_with("TERM");
    assert!(stderr.contains("does not answer yet"), "{stderr}");
    assert!(stderr.contains("failing open"), "{stderr}");
    let (_, stderr) = closed.stop_with("TERM");
    assert!(stderr.contains("failing closed"), "{stderr}");
}

/// Shared limits are awaited on the async workers: nothing in the sandbox
/// moves a decision to the blocking pool.
#[test]
fn no_decision_runs_on_the_blocking_pool() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut files = 0;
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files += 1;
            // The blocking store is not used either (only the async one).
            let text = std::fs::read_to_string(&path)
                .unwrap()
                .replace("AsyncRedisLimiter", "");
            for needle in ["spawn_blocking", "block_in_place", "RedisLimiter"] {
                assert!(!text.contains(needle), "{} uses {needle}", path.display());
            }
        }
    }
    assert!(files > 10, "only {files} source files found");
}

/// Its name starts as the first test's does, so scripts/test-rust (which
/// has no Redis and skips `two_sandboxes_on_one_redis`) skips it too;
/// scripts/test-redis runs it.
#[test]
fn two_sandboxes_on_one_redis_cluster_share_limits_exactly() {
    let cluster = redis_support::Cluster::start();
    let url = cluster.nodes[1].url();
    let namespace = redis_support::unique_namespace("sandbox-cluster");
    let args = [
        "--redis",
        url.as_str(),
        "--redis-cluster",
        "--redis-namespace",
        namespace.as_str(),
    ];
    let sandboxes = [
        Sandbox::start_with(None, &args),
        Sandbox::start_with(None, &args),
    ];
    in_one_window();
    ada_reads_five_then_is_refused_by_both(&sandboxes);
}
