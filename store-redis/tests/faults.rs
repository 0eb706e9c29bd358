//! Faults against real servers: Redis stopped and restarted mid-run,
//! frozen (SIGSTOP: every call times out), a fake server answering garbage,
//! a key holding garbage, a time out of range. Never a panic, never a hung
//! request; the configured policy answers (fail open: in-memory fallback;
//! fail closed: unavailable, 503 at the gate), one log line per outage,
//! reconnection with backoff.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::gate::demo::ADA_KEY;
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest};
use acd_core::limit::{LimitCheck, LimiterUnavailable, Quota, RateLimiter, StackDecision};
use acd_core::UnixMillis;
use acd_redis::{FaultPolicy, RedisConfig, RedisLimiter, StoreError, StoreEvent};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

const NOW: u64 = 1_700_000_001_000;

type Events = Arc<Mutex<Vec<StoreEvent>>>;

fn limiter(url: &str, policy: FaultPolicy, backoff_min: Duration) -> (Arc<RedisLimiter>, Events) {
    let events: Events = Arc::default();
    let sink = events.clone();
    let limiter = RedisLimiter::with_events(
        RedisConfig {
            namespace: support::unique_namespace("faults"),
            fault_policy: policy,
            io_timeout: Duration::from_millis(100),
            connect_timeout: Duration::from_millis(100),
            backoff_min,
            backoff_max: backoff_min * 4,
            ..RedisConfig::new(url)
        },
        Arc::new(move |event: &StoreEvent| {
            eprintln!("acd-redis: {event}");
            sink.lock().unwrap().push(event.clone());
        }),
    )
    .unwrap();
    (Arc::new(limiter), events)
}

fn check(subject: &str, requests: u32) -> LimitCheck<'_> {
    LimitCheck {
        name: "credential",
        quota: Quota::per_seconds(requests, 60),
        subject,
    }
}

fn admitted(decision: &StackDecision) -> bool {
    matches!(decision, StackDecision::Admitted { .. })
}

/// Runs `f` on another thread and fails the test if it has not returned
/// within a minute (a hang guard, not a speed requirement).
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("a limiter call hung")
}

/// Calls `try_acquire` with fresh subjects until a decision comes from
/// Redis again (bounded: the hang guard of a reconnection).
fn until_redis_decides(limiter: &RedisLimiter) {
    let before = limiter.stats().redis;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut i = 0;
    while limiter.stats().redis == before {
        assert!(
            Instant::now() < deadline,
            "never reconnected: {:?}",
            limiter.stats()
        );
        i += 1;
        let subject = format!("probe-{i}");
        let _ = limiter.try_acquire(&[check(&subject, 100)], UnixMillis::new(NOW));
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn fail_open_survives_a_stop_and_a_restart() {
    let mut server = support::RedisServer::start();
    let (redis, events) = limiter(
        &server.url(),
        FaultPolicy::FailOpen,
        Duration::from_millis(20),
    );
    for _ in 0..3 {
        assert!(admitted(
            &redis
                .try_acquire(&[check("ada", 100)], UnixMillis::new(NOW))
                .unwrap()
        ));
    }
    assert_eq!(redis.stats().redis, 3);

    server.stop();
    // Decided in memory, per process: a fresh count with the same quota.
    let two = [check("bob", 2)];
    let decisions: Vec<bool> = (0..3)
        .map(|_| admitted(&redis.try_acquire(&two, UnixMillis::new(NOW)).unwrap()))
        .collect();
    assert_eq!(decisions, [true, true, false]);
    assert!(redis.stats().fallback >= 3);
    assert!(!redis.is_up());
    {
        let events = events.lock().unwrap();
        let first = events.first().expect("an outage is logged");
        assert!(
            matches!(first, StoreEvent::Unavailable { failures: 1, .. }),
            "{first:?}"
        );
        let line = first.to_string();
        assert!(
            line.contains("is unavailable") && line.contains("failing open"),
            "{line}"
        );
    }

    server.restart();
    until_redis_decides(&redis);
    assert!(redis.is_up());
    let events = events.lock().unwrap();
    let last = events.last().unwrap();
    assert!(matches!(last, StoreEvent::Recovered { .. }), "{last:?}");
    assert!(last.to_string().contains("is back"));
    drop(events);
    // The restarted server had no data (a new epoch): the store gave it
    // back Ada's 3 before deciding, so her 4th of 100 leaves 96.
    match redis
        .try_acquire(&[check("ada", 100)], UnixMillis::new(NOW))
        .unwrap()
    {
        StackDecision::Admitted { tightest } => assert_eq!(tightest.unwrap().remaining, 96),
        other => panic!("{other:?}"),
    }
}

#[test]
fn fail_closed_answers_unavailable_and_the_gate_says_503() {
    let mut server = support::RedisServer::start();
    let (redis, events) = limiter(
        &server.url(),
        FaultPolicy::FailClosed,
        Duration::from_millis(20),
    );
    let gate = Gate::new(
        GateConfig::default(),
        Arc::new(acd_core::gate::demo::credentials()),
        redis.clone(),
    )
    .unwrap();
    let read =
        GateRequest::get("/api/v1/tables/orders", "203.0.113.7").with_header("X-API-Key", ADA_KEY);
    assert!(matches!(
        gate.decide(&read, NOW),
        Decision::FetchResource(_)
    ));

    server.stop();
    match gate.decide(&read, NOW) {
        Decision::Reply(response) => {
            assert_eq!(response.status, 503);
            assert_eq!(response.header("Retry-After"), Some("1"));
        }
        Decision::FetchResource(_) => panic!("admitted without Redis while failing closed"),
    }
    let Err(LimiterUnavailable { retry_at, .. }) =
        redis.try_acquire(&[check("ada", 100)], UnixMillis::new(NOW))
    else {
        panic!("decided without Redis while failing closed");
    };
    assert!(retry_at > UnixMillis::new(NOW));
    // Callers of the infallible `acquire` get a refusal until then.
    assert!(!admitted(
        &redis.acquire(&[check("ada", 100)], UnixMillis::new(NOW))
    ));
    assert_eq!(redis.stats().fallback, 0);
    assert!(redis.stats().unavailable >= 3);
    assert!(events.lock().unwrap()[0]
        .to_string()
        .contains("failing closed"));

    server.restart();
    until_redis_decides(&redis);
    assert!(matches!(
        gate.decide(&read, NOW),
        Decision::FetchResource(_)
    ));
}

#[test]
fn a_frozen_server_times_out_and_never_hangs_a_request() {
    let mut server = support::RedisServer::start();
    let (redis, events) = limiter(
        &server.url(),
        FaultPolicy::FailOpen,
        Duration::from_millis(20),
    );
    assert!(admitted(
        &redis
            .try_acquire(&[check("ada", 100)], UnixMillis::new(NOW))
            .unwrap()
    ));

    server.pause();
    for _ in 0..3 {
        let redis = redis.clone();
        let decision =
            within_a_minute(move || redis.try_acquire(&[check("ada", 100)], UnixMillis::new(NOW)));
        assert!(admitted(&decision.unwrap()));
        std::thread::sleep(Duration::from_millis(30)); // let a probe through
    }
    assert!(redis.stats().fallback >= 3);
    {
        let events = events.lock().unwrap();
        let StoreEvent::Unavailable { error, .. } = &events[0] else {
            panic!("{:?}", events[0]);
        };
        assert!(
            matches!(error, StoreError::Timeout(100) | StoreError::Connect(_)),
            "{error:?}"
        );
    }

    server.resume();
    until_redis_decides(&redis);
    assert!(redis.is_up());
}

#[test]
fn while_backing_off_requests_do_not_touch_redis_and_one_line_is_logged() {
    let mut server = support::RedisServer::start();
    // A backoff far longer than the test: no probe happens during it.
    let (redis, events) = limiter(
        &server.url(),
        FaultPolicy::FailOpen,
        Duration::from_secs(600),
    );
    server.stop();
    for i in 0..50 {
        let subject = format!("s{i}");
        assert!(admitted(
            &redis
                .try_acquire(&[check(&subject, 1)], UnixMillis::new(NOW))
                .unwrap()
        ));
    }
    assert_eq!(redis.stats().outages, 1);
    assert_eq!(redis.stats().fallback, 50);
    assert_eq!(events.lock().unwrap().len(), 1);
    assert!(matches!(
        redis.decide(&[check("x", 1)], UnixMillis::new(NOW)),
        Err(StoreError::BackingOff(_))
    ));
}

/// A fake "Redis" on loopback that answers every command it receives
/// (counted by the `*<n>` that starts a RESP command) with `answer`.
fn fake_server(answer: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut buffer = [0_u8; 4096];
                while let Ok(n) = stream.read(&mut buffer) {
                    let received = &buffer[..n];
                    let commands = received
                        .windows(3)
                        .filter(|w| w[0] == b'\n' && w[1] == b'*')
                        .count()
                        + usize::from(received.first() == Some(&b'*'));
                    let reply = answer.repeat(commands.max(1));
                    if n == 0 || stream.write_all(&reply).is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

#[test]
fn garbage_answers_are_outages_not_panics() {
    for answer in [
        &b"hello, this is not RESP\r\n"[..],
        b"+OK\r\n",
        b":42\r\n",
        b"*2\r\n:3\r\n:2\r\n",
        b"*2\r\n:1\r\n:-2\r\n",
        b"*2\r\n:1\r\n:100\r\n",
        b"*5\r\n:1\r\n:9\r\n:0\r\n:0\r\n:0\r\n",
        b"$-1\r\n",
        b"*5\r\n:7\r\n",
        b"\x00\xff\xfe garbage",
    ] {
        let url = fake_server(answer);
        for policy in [FaultPolicy::FailOpen, FaultPolicy::FailClosed] {
            let (redis, events) = limiter(&url, policy, Duration::from_millis(1));
            for _ in 0..3 {
                let redis = redis.clone();
                let result = within_a_minute(move || {
                    redis.try_acquire(&[check("ada", 100)], UnixMillis::new(NOW))
                });
                match (policy, result) {
                    (FaultPolicy::FailOpen, Ok(decision)) => assert!(admitted(&decision)),
                    (FaultPolicy::FailClosed, Err(_)) => {}
                    (policy, other) => panic!("{policy:?} {answer:?}: {other:?}"),
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            assert_eq!(redis.stats().redis, 0, "{answer:?}");
            assert!(!events.lock().unwrap().is_empty());
        }
    }
}

#[test]
fn a_key_holding_garbage_fails_only_its_requests() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    for policy in [FaultPolicy::FailOpen, FaultPolicy::FailClosed] {
        let (redis, events) = limiter(&url, policy, Duration::from_millis(20));
        // `subject`'s key in the window of NOW, holding `value`.
        let plant = |con: &mut redis::Connection, subject: &str, value: &str| {
            let key = redis
                .key_space()
                .window_key("credential", subject, 1_700_000_040_000);
            let _: () = redis::cmd("SET").arg(&key).arg(value).query(con).unwrap();
            key
        };
        let banana = plant(&mut con, "banana", "ripe");
        let huge = plant(&mut con, "huge", "4294967296");
        for subject in ["banana", "huge"] {
            let error = redis
                .decide(&[check(subject, 100)], UnixMillis::new(NOW))
                .unwrap_err();
            assert!(error.is_bad_state(), "{error:?}");
            assert!(error.to_string().contains("delete the key"), "{error}");
            let answer = redis.try_acquire(
                &[check("ada", 5), check(subject, 100)],
                UnixMillis::new(NOW),
            );
            assert_eq!(answer.is_ok(), policy == FaultPolicy::FailOpen);
        }
        // The bad keys hold exactly what they held: a count past u32::MAX
        // that the script's first pass added to is put back.
        let kept: (String, String) = redis::cmd("MGET")
            .arg(&banana)
            .arg(&huge)
            .query(&mut con)
            .unwrap();
        assert_eq!(kept, ("ripe".to_owned(), "4294967296".to_owned()));
        let negative = plant(&mut con, "negative", "-5");
        let error = redis
            .decide(
                &[check("ada", 5), check("negative", 100)],
                UnixMillis::new(NOW),
            )
            .unwrap_err();
        assert!(error.is_bad_state(), "{error:?}");
        let kept: String = redis::cmd("GET").arg(&negative).query(&mut con).unwrap();
        assert_eq!(kept, "-5");
        // A key of another type (not a string) reads as absent and is
        // replaced on admission: the namespace belongs to the limiter.
        let hash = redis
            .key_space()
            .window_key("credential", "hash", 1_700_000_040_000);
        let _: () = redis::cmd("HSET")
            .arg(&hash)
            .arg("a")
            .arg(1)
            .query(&mut con)
            .unwrap();
        assert!(admitted(
            &redis
                .decide(&[check("hash", 1)], UnixMillis::new(NOW))
                .unwrap()
        ));
        // Redis itself is fine: other keys are decided there.
        assert!(redis.is_up());
        assert!(admitted(
            &redis
                .try_acquire(&[check("ada", 5)], UnixMillis::new(NOW))
                .unwrap()
        ));
        assert_eq!(redis.stats().redis, 2);
        // Nothing was charged to Ada by the failed stacks.
        let ada = redis
            .key_space()
            .window_key("credential", "ada", 1_700_000_040_000);
        let state: String = redis::cmd("GET").arg(&ada).query(&mut con).unwrap();
        assert_eq!(state, "1");
        let events = events.lock().unwrap();
        // Two failing requests, reported at most once a second.
        assert!((1..=2).contains(&events.len()), "{events:?}");
        assert!(matches!(events[0], StoreEvent::RequestFailed { .. }));
    }
}

#[test]
fn times_out_of_range_fail_only_their_request() {
    let (url, _server) = support::shared();
    let (redis, _events) = limiter(&url, FaultPolicy::FailOpen, Duration::from_millis(20));
    let far = acd_redis::script::MAX_EXACT_MS + 1;
    assert!(matches!(
        redis.decide(&[check("ada", 1)], UnixMillis::new(far)),
        Err(StoreError::OutOfDomain(_))
    ));
    assert!(admitted(
        &redis
            .try_acquire(&[check("ada", 1)], UnixMillis::new(far))
            .unwrap()
    ));
    assert_eq!(redis.stats().fallback, 1);
    assert!(redis.is_up());
}
