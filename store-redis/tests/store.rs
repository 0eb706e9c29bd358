//! The Redis store against a real redis-server: all-or-none, TTLs and
//! expiry, one Cluster slot per decision, exact sharing between limiter
//! instances and between gates.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::gate::demo::{ADA_KEY, ADA_SECOND_KEY};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer};
use acd_core::limit::{LimitAlgorithm, LimitCheck, Quota, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use acd_redis::keys::cluster_slot;
use acd_redis::{RedisConfig, RedisLimiter};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const NOW: u64 = 1_700_000_001_000;
/// The end of the 60 s window `NOW` falls in.
const END: u64 = 1_700_000_040_000;

fn limiter(url: &str, namespace: &str, algorithm: LimitAlgorithm) -> RedisLimiter {
    RedisLimiter::new(RedisConfig {
        namespace: namespace.to_owned(),
        algorithm,
        ..RedisConfig::new(url)
    })
    .unwrap()
}

fn check<'a>(name: &'a str, subject: &'a str, requests: u32) -> LimitCheck<'a> {
    LimitCheck {
        name,
        quota: Quota::per_seconds(requests, 60),
        subject,
    }
}

fn get(con: &mut redis::Connection, key: &[u8]) -> Option<String> {
    redis::cmd("GET").arg(key).query(con).unwrap()
}

fn pttl(con: &mut redis::Connection, key: &[u8]) -> i64 {
    redis::cmd("PTTL").arg(key).query(con).unwrap()
}

fn keys_of(con: &mut redis::Connection, limiter: &RedisLimiter) -> Vec<Vec<u8>> {
    let pattern = format!(
        "{}*",
        limiter
            .key_space()
            .prefix()
            .replace('{', "\\{")
            .replace('}', "\\}")
    );
    redis::cmd("KEYS").arg(pattern).query(con).unwrap()
}

#[test]
fn a_refused_stack_consumes_nothing() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let redis = limiter(
        &url,
        &support::unique_namespace("stack"),
        LimitAlgorithm::FixedWindow,
    );
    let checks = [check("credential", "key-ada", 100), check("user", "ada", 2)];
    for _ in 0..2 {
        assert!(matches!(
            redis.decide(&checks, UnixMillis::new(NOW)).unwrap(),
            StackDecision::Admitted { .. }
        ));
    }
    let credential = redis
        .key_space()
        .window_key("credential", "key-ada", 1_700_000_040_000);
    assert_eq!(get(&mut con, &credential).as_deref(), Some("2"));
    for _ in 0..5 {
        match redis.decide(&checks, UnixMillis::new(NOW)).unwrap() {
            StackDecision::Refused { refusing, retry_at } => {
                assert_eq!(
                    (refusing.index, refusing.limit, retry_at),
                    (1, 2, UnixMillis::new(1_700_000_040_000))
                );
            }
            other => panic!("{other:?}"),
        }
    }
    // The credential limit admitted each time but was charged nothing.
    assert_eq!(get(&mut con, &credential).as_deref(), Some("2"));
    // The next window admits again.
    assert!(matches!(
        redis
            .decide(&checks, UnixMillis::new(1_700_000_040_000))
            .unwrap(),
        StackDecision::Admitted { .. }
    ));
}

#[test]
fn every_key_carries_a_ttl_just_past_its_window() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    for algorithm in [LimitAlgorithm::FixedWindow, LimitAlgorithm::Gcra] {
        let redis = limiter(&url, &support::unique_namespace("ttl"), algorithm);
        let grace = redis.config().ttl_grace.as_millis() as i64;
        // Window ends at ...040_000 (fixed) / the TAT is NOW + 60 s (GCRA).
        let checks = [check("credential", "k", 1), check("ip", "203.0.113.7", 1)];
        redis.decide(&checks, UnixMillis::new(NOW)).unwrap();
        let expected = match algorithm {
            LimitAlgorithm::FixedWindow => 39_000 + grace,
            LimitAlgorithm::Gcra => 60_000 + grace,
        };
        for (name, subject) in [("credential", "k"), ("ip", "203.0.113.7")] {
            let key = match algorithm {
                LimitAlgorithm::FixedWindow => redis.key_space().window_key(name, subject, END),
                LimitAlgorithm::Gcra => redis.key_space().key(name, subject),
            };
            let ttl = pttl(&mut con, &key);
            // Set relative to the caller's now, not Redis's clock (which reads
            // whatever the machine says): at most `expected`,
            // and far more than the grace alone.
            assert!(
                ttl <= expected && ttl > grace,
                "{algorithm:?}: {ttl} vs {expected}"
            );
        }
        // After a mixed run no key lacks a TTL.
        for i in 0..50_u64 {
            let subject = format!("s{}", i % 7);
            let _ = redis.decide(
                &[check("user", &subject, 3), check("credential", "k2", 100)],
                UnixMillis::new(NOW + i),
            );
        }
        let keys = keys_of(&mut con, &redis);
        assert_eq!(keys.len(), 10);
        for key in keys {
            assert!(pttl(&mut con, &key) > 0);
        }
    }
}

#[test]
fn expired_keys_leave_redis_without_a_sweep() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let redis = RedisLimiter::new(RedisConfig {
        namespace: support::unique_namespace("expiry"),
        ttl_grace: Duration::from_millis(1),
        ..RedisConfig::new(&url)
    })
    .unwrap();
    let quota = Quota {
        requests: 5,
        window_ms: 50,
    };
    for i in 0..200 {
        let subject = format!("203.0.113.{i}");
        let checks = [LimitCheck {
            name: "ip",
            quota,
            subject: &subject,
        }];
        assert!(matches!(
            redis.decide(&checks, UnixMillis::new(1_000)).unwrap(),
            StackDecision::Admitted { .. }
        ));
        // Written with a TTL of the 50 ms left in the window plus 1 ms of
        // grace (or already gone on a slow machine); never without one.
        let ttl = pttl(
            &mut con,
            &redis.key_space().window_key("ip", &subject, 1_050),
        );
        assert!(ttl == -2 || (1..=51).contains(&ttl), "{ttl}");
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while !keys_of(&mut con, &redis).is_empty() {
        assert!(Instant::now() < deadline, "keys outlived their TTL");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn one_decision_touches_one_cluster_slot() {
    let mut server = support::RedisServer::start_with(&[
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
    ]);
    let mut con = server.connection();
    let _: () = redis::cmd("CLUSTER")
        .arg("ADDSLOTSRANGE")
        .arg(0)
        .arg(16_383)
        .query(&mut con)
        .unwrap();
    support::wait_cluster_ok(&mut con);
    let redis = limiter(&server.url(), "acd", LimitAlgorithm::FixedWindow);
    let checks = [
        check("credential", "key-ada", 100),
        check("user_table_reads", "ada", 5),
        check("client_ip", "203.0.113.7", 100),
    ];
    let mut slots = Vec::new();
    for c in &checks {
        let key = redis.key_space().window_key(c.name, c.subject, END);
        let slot: u16 = redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(&key)
            .query(&mut con)
            .unwrap();
        assert_eq!(slot, cluster_slot(&key));
        slots.push(slot);
    }
    slots.dedup();
    assert_eq!(slots.len(), 1);
    assert!(matches!(
        redis.decide(&checks, UnixMillis::new(NOW)).unwrap(),
        StackDecision::Admitted { .. }
    ));
    // Control: the same script over untagged keys is refused by the cluster.
    let untagged: redis::RedisResult<redis::Value> =
        redis::Script::new(acd_redis::script::WINDOW_LUA)
            .key("credential:key-ada:1700000040000")
            .key("user:ada:1700000040000")
            .arg(0)
            .arg(END)
            .arg(END)
            .arg(0)
            .invoke(&mut con);
    let error = untagged.unwrap_err();
    assert_eq!(error.code(), Some("CROSSSLOT"), "{error}");
    server.stop();
}

fn admitted(decision: &StackDecision) -> bool {
    matches!(decision, StackDecision::Admitted { .. })
}

#[test]
fn two_limiters_on_one_redis_admit_exactly_the_limit() {
    let (url, _server) = support::shared();
    let namespace = support::unique_namespace("pair");
    let instances = [
        Arc::new(limiter(&url, &namespace, LimitAlgorithm::FixedWindow)),
        Arc::new(limiter(&url, &namespace, LimitAlgorithm::FixedWindow)),
    ];
    let start = Arc::new(Barrier::new(160));
    let threads: Vec<_> = (0..160)
        .map(|i| {
            let instance = instances[i % 2].clone();
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                let decision =
                    instance.acquire(&[check("credential", "key-ada", 100)], UnixMillis::new(NOW));
                admitted(&decision)
            })
        })
        .collect();
    let admitted = threads
        .into_iter()
        .map(|t| t.join().unwrap())
        .filter(|a| *a)
        .count();
    assert_eq!(admitted, 100);
    for instance in &instances {
        assert_eq!(instance.stats().fallback, 0);
        assert_eq!(instance.stats().redis, 80);
    }
}

fn respond(gate: &Gate, request: &GateRequest, now: u64) -> GateResponse {
    match gate.decide(request, now) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

#[test]
fn two_gates_share_the_per_user_table_read_limit() {
    let (url, _server) = support::shared();
    let namespace = support::unique_namespace("gates");
    let gates: Vec<Gate> = (0..2)
        .map(|_| {
            Gate::new(
                GateConfig::default(),
                Arc::new(acd_core::gate::demo::credentials()),
                Arc::new(limiter(&url, &namespace, LimitAlgorithm::FixedWindow)),
            )
            .unwrap()
        })
        .collect();
    // Ada's two keys, alternating gates: five table reads in all.
    for i in 0..5 {
        let key = if i % 2 == 0 { ADA_KEY } else { ADA_SECOND_KEY };
        let request =
            GateRequest::get("/api/v1/tables/orders", "203.0.113.7").with_header("X-API-Key", key);
        let response = respond(&gates[i % 2], &request, NOW);
        assert_eq!(response.status, 200);
        assert_eq!(
            response.header("RateLimit-Remaining"),
            Some((4 - i).to_string().as_str())
        );
    }
    for gate in &gates {
        let request = GateRequest::get("/api/v1/tables/orders", "203.0.113.7")
            .with_header("X-API-Key", ADA_KEY);
        let response = respond(gate, &request, NOW);
        assert_eq!(response.status, 429);
        assert_eq!(response.header("Retry-After"), Some("39"));
    }
}

#[test]
fn a_flushed_script_cache_is_reloaded() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let redis = limiter(
        &url,
        &support::unique_namespace("flush"),
        LimitAlgorithm::Gcra,
    );
    redis.ping().unwrap();
    let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut con).unwrap();
    assert!(admitted(
        &redis
            .decide(&[check("credential", "k", 1)], UnixMillis::new(NOW))
            .unwrap()
    ));
    assert!(!admitted(
        &redis
            .decide(&[check("credential", "k", 1)], UnixMillis::new(NOW))
            .unwrap()
    ));
}

#[test]
fn each_window_has_its_own_counter_and_a_new_one_always_gets_a_ttl() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let redis = RedisLimiter::new(RedisConfig {
        namespace: support::unique_namespace("turnover"),
        ttl_grace: Duration::from_secs(2),
        ..RedisConfig::new(&url)
    })
    .unwrap();
    let space = redis.key_space().clone();
    let checks = [check("credential", "k", 2)];
    let decide = |now: u64| redis.decide(&checks, UnixMillis::new(now)).unwrap();
    // Window [..., END): 2 admitted, the third refused until END.
    assert!(admitted(&decide(NOW)));
    assert!(admitted(&decide(NOW + 1_000)));
    assert_eq!(
        decide(NOW + 2_000),
        StackDecision::Refused {
            refusing: acd_core::limit::LimitStatus {
                index: 0,
                limit: 2,
                remaining: 0,
                reset_at: UnixMillis::new(END),
            },
            retry_at: UnixMillis::new(END),
        }
    );
    let first = space.window_key("credential", "k", END);
    assert_eq!(get(&mut con, &first).as_deref(), Some("2"));
    // Written at NOW (39 s before END) with 2 s of grace: at most 41 s,
    // and the INCRBY of the second decision did not renew it.
    let ttl = pttl(&mut con, &first);
    assert!((30_000..=41_000).contains(&ttl), "{ttl}");

    // The old window's key is never read again: garbage there harms no one.
    let _: () = redis::cmd("SET")
        .arg(&first)
        .arg("not a count")
        .arg("KEEPTTL")
        .query(&mut con)
        .unwrap();
    let next = END + 60_000;
    let second = space.window_key("credential", "k", next);
    assert_eq!(get(&mut con, &second), None);
    // The next window starts from zero at its first instant: 2 more.
    assert!(admitted(&decide(END)));
    assert!(admitted(&decide(END + 59_999)));
    assert!(!admitted(&decide(END + 59_999)));
    assert_eq!(get(&mut con, &second).as_deref(), Some("2"));
    assert_eq!(get(&mut con, &first).as_deref(), Some("not a count"));
    // Created at END, a full window before its end: 60 s + 2 s at most,
    // and never without a TTL (PTTL -1).
    let ttl = pttl(&mut con, &second);
    assert!((50_000..=62_000).contains(&ttl), "{ttl}");
    // A window whose key has expired (here: deleted) starts afresh too.
    let _: () = redis::cmd("DEL").arg(&second).query(&mut con).unwrap();
    assert!(admitted(&decide(END + 30_000)));
    assert_eq!(get(&mut con, &second).as_deref(), Some("1"));
    let ttl = pttl(&mut con, &second);
    assert!((20_000..=32_000).contains(&ttl), "{ttl}");
}

#[test]
fn a_batch_adds_to_each_window_counter_once() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let space = acd_redis::KeySpace::new(
        &support::unique_namespace("once"),
        LimitAlgorithm::FixedWindow,
    )
    .unwrap();
    let key = space.window_key("credential", "k", END);
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg(3)
        .arg("PX")
        .arg(100_000)
        .query(&mut con)
        .unwrap();
    // Seven decisions of one key, limit 8, in one call: 5 admitted (3 were
    // already counted), 2 refused; the counter ends at 8, its TTL kept.
    let checks = [check("credential", "k", 8)];
    let mut batch = acd_redis::Batch::new(LimitAlgorithm::FixedWindow, 0);
    for i in 0..7 {
        let prepared = acd_redis::Prepared::new(
            &space,
            LimitAlgorithm::FixedWindow,
            &checks,
            UnixMillis::new(NOW + i),
            0,
        )
        .unwrap();
        batch.push(&prepared);
    }
    let script = redis::Script::new(acd_redis::script::WINDOW_LUA);
    let reply: redis::Value = batch.invocation(&script).invoke(&mut con).unwrap();
    let remaining: Vec<Option<u32>> = batch
        .outcomes(&reply)
        .unwrap()
        .iter()
        .map(|outcome| match batch.decision(outcome, &checks).unwrap() {
            StackDecision::Admitted { tightest } => tightest.map(|t| t.remaining),
            StackDecision::Refused { .. } => None,
        })
        .collect();
    assert_eq!(
        remaining,
        [Some(4), Some(3), Some(2), Some(1), Some(0), None, None]
    );
    assert_eq!(get(&mut con, &key).as_deref(), Some("8"));
    let ttl = pttl(&mut con, &key);
    assert!((90_000..=100_000).contains(&ttl), "{ttl}");
}
