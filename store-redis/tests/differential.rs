//! One rule, two engines, no drift: random multi-key timelines run through
//! the Rust transition (`decide_stack` over a map of states, and the
//! in-memory limiter) and through the Lua scripts on a real redis-server,
//! which must agree on every decision, remaining count, reset and retry
//! time, and on every stored state. Both algorithms.
//!
//! Fixed windows in Redis count per (limit, subject, window), the window in
//! the key's name, where the in-memory state keeps one window per key: the
//! two agree whenever a limit keeps one window length and time does not go
//! back into an earlier window, so the fixed-window timelines keep each
//! limit's window and a clock that never goes backwards (what an instance
//! whose clock is behind does instead is tested in `store.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::same_keys;
use acd_core::limit::{
    aligned_end, decide_stack, Algorithm, FixedWindow, FixedWindowState, Gcra, InMemoryLimiter,
    LimitAlgorithm, LimitCheck, LimiterConfig, PackedState, Quota, RateLimiter,
};
use acd_core::UnixMillis;
use acd_redis::script::MAX_EXACT_MS;
use acd_redis::{RedisConfig, RedisLimiter};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::HashMap;
use std::time::Duration;

const NAMES: [&str; 4] = ["credential", "user", "client:ip", "agent"];
const SUBJECTS: [&str; 3] = ["ada", "bob", "{x}"];

/// Timelines per algorithm, and the most steps in one.
const TIMELINES: u32 = 256;
const MAX_STEPS: usize = 48;
/// Single decisions from random states at the edges of the arithmetic.
const EDGE_CASES: u32 = 1_500;

#[derive(Debug, Clone)]
struct Step {
    /// Added to the clock (may go backwards).
    delta: i64,
    /// (name, subject, quota override) per check.
    checks: Vec<(usize, usize, Option<Quota>)>,
}

fn quota(max_requests: u32) -> impl Strategy<Value = Quota> {
    (0..=max_requests, 0_u64..=5_000).prop_map(|(requests, window_ms)| Quota {
        requests,
        window_ms,
    })
}

fn step() -> impl Strategy<Value = Step> {
    let delta = prop_oneof![
        3 => Just(0_i64),
        3 => 1_i64..100,
        3 => 100_i64..3_000,
        1 => 3_000_i64..20_000,
        1 => -3_000_i64..0,
    ];
    let check = (
        0..NAMES.len(),
        0..SUBJECTS.len(),
        prop::option::weighted(0.1, quota(7)),
    );
    (delta, prop::collection::vec(check, 1..=4)).prop_map(|(delta, checks)| Step { delta, checks })
}

fn timeline() -> impl Strategy<Value = (u64, [Quota; 4], Vec<Step>)> {
    let start = prop_oneof![0_u64..10_000, 1_600_000_000_000_u64..1_900_000_000_000];
    let quotas = [quota(7), quota(7), quota(7), quota(7)];
    (start, quotas, prop::collection::vec(step(), 1..=MAX_STEPS))
}

/// Fixed-window timelines: each limit keeps its window length (an
/// override changes its request count only) and time never goes back.
fn window_timeline() -> impl Strategy<Value = (u64, [Quota; 4], Vec<Step>)> {
    timeline().prop_map(|(start, quotas, steps)| {
        let steps = steps
            .into_iter()
            .map(|step| Step {
                delta: step.delta.abs(),
                checks: step
                    .checks
                    .into_iter()
                    .map(|(name, subject, over)| {
                        let over = over.map(|q| Quota {
                            requests: q.requests,
                            window_ms: quotas[name].window_ms,
                        });
                        (name, subject, over)
                    })
                    .collect(),
            })
            .collect();
        (start, quotas, steps)
    })
}

/// The timelines `algorithm` is held to.
fn timelines_of(algorithm: LimitAlgorithm) -> BoxedStrategy<(u64, [Quota; 4], Vec<Step>)> {
    match algorithm {
        LimitAlgorithm::FixedWindow => window_timeline().boxed(),
        LimitAlgorithm::Gcra => timeline().boxed(),
    }
}

fn limiter(url: &str, algorithm: LimitAlgorithm) -> RedisLimiter {
    RedisLimiter::new(RedisConfig {
        namespace: support::unique_namespace("diff"),
        algorithm,
        // No key may expire (in real time) while a timeline still needs it.
        ttl_grace: Duration::from_secs(600),
        connections: 1,
        ..RedisConfig::new(url)
    })
    .unwrap()
}

/// The stored count of a fixed-window key (`0` when absent).
fn count(con: &mut redis::Connection, key: &[u8]) -> u32 {
    let value: Option<String> = redis::cmd("GET").arg(key).query(con).unwrap();
    value.map_or(0, |v| v.parse().unwrap())
}

/// The stored state of a GCRA key, as two integers (`(0, 0)` when absent).
fn stored(con: &mut redis::Connection, key: &[u8]) -> (u64, u32) {
    let value: Option<String> = redis::cmd("GET").arg(key).query(con).unwrap();
    value.map_or((0, 0), |v| {
        let (t, e) = v.split_once(':').unwrap();
        (t.parse().unwrap(), e.parse().unwrap())
    })
}

fn run_timeline<A: Algorithm>(
    url: &str,
    algorithm: LimitAlgorithm,
    (start, quotas, steps): &(u64, [Quota; 4], Vec<Step>),
) -> Result<(), TestCaseError> {
    let redis = limiter(url, algorithm);
    let mut con = support::connect(url);
    let mut model: HashMap<(usize, usize), A::State> = HashMap::new();
    let mut now = *start;
    for (at, step) in steps.iter().enumerate() {
        now = now.saturating_add_signed(step.delta);
        let checks: Vec<LimitCheck<'_>> = step
            .checks
            .iter()
            .map(|&(name, subject, over)| LimitCheck {
                name: NAMES[name],
                quota: over.unwrap_or(quotas[name]),
                subject: SUBJECTS[subject],
            })
            .collect();
        let rules: Vec<A::Rule> = checks.iter().map(|c| A::rule(c.quota)).collect();
        let mut states: Vec<A::State> = step
            .checks
            .iter()
            .map(|&(n, s, _)| model.get(&(n, s)).copied().unwrap_or_default())
            .collect();
        let expected = decide_stack::<A>(
            &rules,
            &same_keys(&checks),
            &mut states,
            UnixMillis::new(now),
        );
        for (&(n, s, _), state) in step.checks.iter().zip(&states) {
            model.insert((n, s), *state);
        }
        let got = redis.decide(&checks, UnixMillis::new(now)).unwrap();
        prop_assert_eq!(got, expected, "step {} at {}: {:?}", at, now, checks);
        for (&(n, s), state) in &model {
            let (time, extra) = state.pack();
            let space = redis.key_space();
            match algorithm {
                LimitAlgorithm::FixedWindow => {
                    // The count of the window the state is in, under that
                    // window's key.
                    let key = space.window_key(NAMES[n], SUBJECTS[s], time);
                    prop_assert_eq!(count(&mut con, &key), extra, "count of {}/{}", n, s);
                }
                LimitAlgorithm::Gcra => {
                    let key = space.key(NAMES[n], SUBJECTS[s]);
                    prop_assert_eq!(
                        stored(&mut con, &key),
                        (time, extra),
                        "state of {}/{}",
                        n,
                        s
                    );
                }
            }
        }
    }
    Ok(())
}

fn timelines<A: Algorithm>(algorithm: LimitAlgorithm) {
    let (url, _server) = support::shared();
    let mut runner = runner(TIMELINES);
    runner
        .run(&timelines_of(algorithm), |case| {
            run_timeline::<A>(&url, algorithm, &case)
        })
        .unwrap();
}

#[test]
fn fixed_window_timelines_agree_with_decide_stack() {
    timelines::<FixedWindow>(LimitAlgorithm::FixedWindow);
}

#[test]
fn gcra_timelines_agree_with_decide_stack() {
    timelines::<Gcra>(LimitAlgorithm::Gcra);
}

/// With time never going backwards, the in-memory limiter (whose shards
/// clamp time to the latest seen) and Redis agree too.
fn monotone_against_in_memory<A: Algorithm>(algorithm: LimitAlgorithm) {
    let (url, _server) = support::shared();
    let mut runner = runner(TIMELINES / 4);
    runner
        .run(&timelines_of(algorithm), |(start, quotas, steps)| {
            let redis = limiter(&url, algorithm);
            let memory = InMemoryLimiter::<A>::with_config(LimiterConfig::with_max_keys(1_000));
            let mut now = start;
            for step in &steps {
                now = now.saturating_add(step.delta.unsigned_abs());
                let checks: Vec<LimitCheck<'_>> = step
                    .checks
                    .iter()
                    .map(|&(name, subject, over)| LimitCheck {
                        name: NAMES[name],
                        quota: over.unwrap_or(quotas[name]),
                        subject: SUBJECTS[subject],
                    })
                    .collect();
                prop_assert_eq!(
                    redis.decide(&checks, UnixMillis::new(now)).unwrap(),
                    memory.acquire(&checks, UnixMillis::new(now))
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn monotone_fixed_window_timelines_agree_with_the_in_memory_limiter() {
    monotone_against_in_memory::<FixedWindow>(LimitAlgorithm::FixedWindow);
}

#[test]
fn monotone_gcra_timelines_agree_with_the_in_memory_limiter() {
    monotone_against_in_memory::<Gcra>(LimitAlgorithm::Gcra);
}

/// Where an edge case's stored time lies.
#[derive(Debug, Clone, Copy)]
enum Seed {
    At(u64),
    NearNow(i64),
    NearEnd(i64),
}

/// A property runner of `cases` cases that keeps no failure files.
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// The Rust rule's decision about `checks` from `states` at `now`.
fn in_order<A: Algorithm>(
    checks: &[LimitCheck<'_>],
    states: &mut [A::State],
    now: u64,
) -> acd_core::limit::StackDecision {
    let rules: Vec<A::Rule> = checks.iter().map(|c| A::rule(c.quota)).collect();
    decide_stack::<A>(&rules, &same_keys(checks), states, UnixMillis::new(now))
}

/// Request counts at the edges: none, one, a few, any, the largest.
fn edge_requests() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0_u32),
        Just(1_u32),
        2_u32..10,
        any::<u32>(),
        Just(u32::MAX),
        Just(u32::MAX - 1)
    ]
}

/// Windows from 1 ms to the end of the exact range (2^51 ms).
fn edge_window() -> impl Strategy<Value = u64> {
    prop_oneof![
        1_u64..10,
        1_u64..100_000,
        1_u64..=MAX_EXACT_MS,
        Just(MAX_EXACT_MS),
        Just(60_000_u64)
    ]
}

/// Times from the epoch to the end of the exact range.
fn edge_now() -> impl Strategy<Value = u64> {
    prop_oneof![0_u64..=MAX_EXACT_MS, Just(MAX_EXACT_MS), 0_u64..100]
}

/// Quotas, times and states at the edges of the exact range (windows up to
/// 2^51 ms, up to u32::MAX requests, fractions out of range): one or two
/// checks from a random stored state.
fn edges<A: Algorithm>(algorithm: LimitAlgorithm) {
    let (url, _server) = support::shared();
    let redis = limiter(&url, algorithm);
    let con = std::cell::RefCell::new(support::connect(&url));
    let (requests, window, now) = (edge_requests(), edge_window(), edge_now());
    // A stored time anywhere, or just around `now` or `now + window`, where
    // the admission boundary is.
    let time = prop_oneof![
        (0_u64..=(MAX_EXACT_MS * 2)).prop_map(Seed::At),
        (-40_i64..40).prop_map(Seed::NearNow),
        (-40_i64..40).prop_map(Seed::NearEnd),
    ];
    let state = (time, prop_oneof![0_u32..10, any::<u32>()]);
    let case = (
        prop::collection::vec((requests, window), 1..=2),
        now,
        prop::collection::vec(state, 2),
        any::<bool>(),
    );
    let mut runner = runner(EDGE_CASES);
    runner
        .run(&case, |(quotas, now, seeds, same)| {
            let mut con = con.borrow_mut();
            let subjects = if same { ["s", "s"] } else { ["s", "t"] };
            let checks: Vec<LimitCheck<'_>> = quotas
                .iter()
                .zip(subjects)
                .map(|(&(requests, window_ms), subject)| LimitCheck {
                    name: "edge",
                    quota: Quota {
                        requests,
                        window_ms,
                    },
                    subject,
                })
                .collect();
            let mut states: Vec<A::State> = Vec::new();
            for (i, check) in checks.iter().enumerate() {
                let (seed, extra) = if same { seeds[0] } else { seeds[i] };
                // One key (same) holds one state: seeded from the first check.
                let window = if same { checks[0] } else { *check }.quota.window();
                let time = match seed {
                    Seed::At(time) => time,
                    Seed::NearNow(off) => now.saturating_add_signed(off),
                    Seed::NearEnd(off) => (now + window).saturating_add_signed(off),
                }
                .min(MAX_EXACT_MS * 2);
                let key = redis.key_space().key(check.name, check.subject);
                let _: () = redis::cmd("SET")
                    .arg(&key)
                    .arg(format!("{time}:{extra}"))
                    .query(&mut *con)
                    .unwrap();
                states.push(A::State::unpack(time, extra));
            }
            let expected = in_order::<A>(&checks, &mut states, now);
            prop_assert_eq!(
                redis.decide(&checks, UnixMillis::new(now)).unwrap(),
                expected
            );
            for (check, state) in checks.iter().zip(&states) {
                let key = redis.key_space().key(check.name, check.subject);
                prop_assert_eq!(stored(&mut con, &key), state.pack());
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn fixed_window_edges_agree() {
    window_edges();
}

#[test]
fn gcra_edges_agree() {
    edges::<Gcra>(LimitAlgorithm::Gcra);
}

/// Fixed window at the edges of the exact range: one or two checks (the
/// same key, or two) against a count seeded in the current window's key
/// (absent, small, or anything up to u32::MAX), with garbage in the
/// previous window's key, which must never be read.
fn window_edges() {
    let (url, _server) = support::shared();
    let redis = limiter(&url, LimitAlgorithm::FixedWindow);
    let con = std::cell::RefCell::new(support::connect(&url));
    let (requests, window, now) = (edge_requests(), edge_window(), edge_now());
    let seeded = prop_oneof![
        Just(0_u32),
        1_u32..10,
        any::<u32>(),
        Just(u32::MAX),
        Just(u32::MAX - 1)
    ];
    let case = (
        prop::collection::vec(requests, 1..=2),
        prop::collection::vec(window, 2),
        now,
        prop::collection::vec(seeded, 2),
        any::<bool>(),
    );
    let mut runner = runner(EDGE_CASES);
    runner
        .run(&case, |(requests, windows, now, seeds, same)| {
            let mut con = con.borrow_mut();
            let subjects = if same { ["s", "s"] } else { ["s", "t"] };
            // One key keeps one window length.
            let checks: Vec<LimitCheck<'_>> = requests
                .iter()
                .zip(subjects)
                .enumerate()
                .map(|(i, (&requests, subject))| LimitCheck {
                    name: "edge",
                    quota: Quota {
                        requests,
                        window_ms: if same { windows[0] } else { windows[i] },
                    },
                    subject,
                })
                .collect();
            let mut states: Vec<FixedWindowState> = Vec::new();
            for (i, check) in checks.iter().enumerate() {
                let seed = if same { seeds[0] } else { seeds[i] };
                let window = check.quota.window();
                let end = aligned_end(UnixMillis::new(now), window).as_millis();
                let space = redis.key_space();
                let key = space.window_key(check.name, check.subject, end);
                let _: () = redis::cmd("DEL").arg(&key).query(&mut *con).unwrap();
                if seed > 0 {
                    let _: () = redis::cmd("SET")
                        .arg(&key)
                        .arg(seed)
                        .arg("PX")
                        .arg(600_000)
                        .query(&mut *con)
                        .unwrap();
                }
                if end > window {
                    let previous = space.window_key(check.name, check.subject, end - window);
                    let _: () = redis::cmd("SET")
                        .arg(&previous)
                        .arg("garbage")
                        .arg("PX")
                        .arg(600_000)
                        .query(&mut *con)
                        .unwrap();
                }
                states.push(FixedWindowState::unpack(end, seed));
            }
            let expected = in_order::<FixedWindow>(&checks, &mut states, now);
            prop_assert_eq!(
                redis.decide(&checks, UnixMillis::new(now)).unwrap(),
                expected
            );
            for (check, state) in checks.iter().zip(&states) {
                let key = redis.key_space().window_key(
                    check.name,
                    check.subject,
                    state.reset_at.as_millis(),
                );
                prop_assert_eq!(count(&mut con, &key), state.count);
            }
            Ok(())
        })
        .unwrap();
}
