//! Batches against the sequential rule: random batches of stacked
//! fixed-window decisions, sent as one script call, must decide exactly as
//! `decide_stack` deciding them one after the other, and leave exactly the
//! counts it would. Small limits make both of the script's paths common:
//! the one pass when every decision of the batch fits, and the decision by
//! decision one when some do not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::limit::{
    decide_stack, same_keys, Algorithm, FixedWindow, FixedWindowState, LimitAlgorithm, LimitCheck,
    LimitStatus, PackedState, Quota, StackDecision,
};
use acd_core::UnixMillis;
use acd_redis::script::WINDOW_LUA;
use acd_redis::{Batch, KeySpace, Prepared};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls answered by the one pass, and decided one decision after another.
static ONE_PASS: AtomicUsize = AtomicUsize::new(0);
static ONE_BY_ONE: AtomicUsize = AtomicUsize::new(0);

const NAMES: [&str; 3] = ["credential", "user", "agent"];
const SUBJECTS: [&str; 3] = ["ada", "bob", "{x}"];

/// One decision: time step and (name, subject, requests override) checks.
type Decision = (u64, Vec<(usize, usize, Option<u32>)>);

/// A fresh fixed-window key space on the shared server.
fn window_space(label: &str) -> KeySpace {
    KeySpace::new(
        &support::unique_namespace(label),
        LimitAlgorithm::FixedWindow,
    )
    .unwrap()
}

fn batches() -> impl Strategy<Value = (u64, [Quota; 3], Vec<Vec<Decision>>)> {
    let quota = (0_u32..=6, 1_u64..=3_000).prop_map(|(requests, window_ms)| Quota {
        requests,
        window_ms,
    });
    let check = (
        0..NAMES.len(),
        0..SUBJECTS.len(),
        prop::option::weighted(0.1, 0_u32..=6),
    );
    let decision = (
        prop_oneof![3 => Just(0_u64), 2 => 0_u64..500, 1 => 500_u64..4_000],
        prop::collection::vec(check, 0..=3),
    );
    (
        prop_oneof![0_u64..10_000, 1_600_000_000_000_u64..1_900_000_000_000],
        [quota.clone(), quota.clone(), quota],
        prop::collection::vec(prop::collection::vec(decision, 1..=12), 1..=6),
    )
}

fn run(
    con: &mut redis::Connection,
    (start, quotas, batches): &(u64, [Quota; 3], Vec<Vec<Decision>>),
) -> Result<(), TestCaseError> {
    let space = window_space("batches");
    let script = redis::Script::new(WINDOW_LUA);
    let mut model: HashMap<(usize, usize), FixedWindowState> = HashMap::new();
    let mut now = *start;
    for (b, decisions) in batches.iter().enumerate() {
        let mut batch = Batch::new(LimitAlgorithm::FixedWindow, 600_000);
        let mut all = Vec::new();
        for (step, checks) in decisions {
            now += step;
            let checks: Vec<LimitCheck<'_>> = checks
                .iter()
                .map(|&(name, subject, requests)| LimitCheck {
                    name: NAMES[name],
                    quota: Quota {
                        requests: requests.unwrap_or(quotas[name].requests),
                        ..quotas[name]
                    },
                    subject: SUBJECTS[subject],
                })
                .collect();
            let prepared = Prepared::new(
                &space,
                LimitAlgorithm::FixedWindow,
                &checks,
                UnixMillis::new(now),
                600_000,
            )
            .unwrap();
            batch.push(&prepared);
            all.push((now, checks));
        }
        let reply: redis::Value = batch.invocation(&script).invoke(con).unwrap();
        match &reply {
            redis::Value::Array(items) if items.first() == Some(&redis::Value::Int(1)) => {
                ONE_PASS.fetch_add(1, Ordering::Relaxed)
            }
            _ => ONE_BY_ONE.fetch_add(1, Ordering::Relaxed),
        };
        let outcomes = batch.outcomes(&reply).unwrap();
        prop_assert_eq!(outcomes.len(), decisions.len());
        for (d, ((at, checks), outcome)) in all.iter().zip(&outcomes).enumerate() {
            let rules: Vec<_> = checks.iter().map(|c| FixedWindow::rule(c.quota)).collect();
            let keys: Vec<(usize, usize)> =
                decisions[d].1.iter().map(|&(n, s, _)| (n, s)).collect();
            let mut states: Vec<FixedWindowState> = keys
                .iter()
                .map(|k| model.get(k).copied().unwrap_or_default())
                .collect();
            let expected = decide_stack::<FixedWindow>(
                &rules,
                &same_keys(checks),
                &mut states,
                UnixMillis::new(*at),
            );
            for (k, state) in keys.iter().zip(&states) {
                model.insert(*k, *state);
            }
            prop_assert_eq!(
                batch.decision(outcome, checks).unwrap(),
                expected,
                "batch {} decision {} at {}",
                b,
                d,
                at
            );
        }
        for (&(n, s), state) in &model {
            let (end, count) = state.pack();
            let key = space.window_key(NAMES[n], SUBJECTS[s], end);
            let stored: Option<u32> = redis::cmd("GET").arg(&key).query(con).unwrap();
            prop_assert_eq!(stored.unwrap_or(0), count, "{}/{} in batch {}", n, s, b);
            // Every key that exists has a TTL (-2: absent; -1 would be a
            // key without one), including those the one pass created, and
            // none is left behind by a pass that was undone.
            let ttl: i64 = redis::cmd("PTTL").arg(&key).query(con).unwrap();
            prop_assert!(
                ttl == -2 || ttl > 0,
                "{}/{} in batch {}: PTTL {}",
                n,
                s,
                b,
                ttl
            );
            prop_assert_eq!(ttl == -2, stored.is_none());
        }
    }
    Ok(())
}

#[test]
fn batches_decide_as_one_decision_after_another() {
    let (url, _server) = support::shared();
    let con = std::cell::RefCell::new(support::connect(&url));
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&batches(), |case| run(&mut con.borrow_mut(), &case))
        .unwrap();
    // Both paths ran often (in a typical run, several hundred calls each).
    let (fast, slow) = (
        ONE_PASS.load(Ordering::Relaxed),
        ONE_BY_ONE.load(Ordering::Relaxed),
    );
    assert!(
        fast >= 50 && slow >= 50,
        "one pass {fast}, one by one {slow}"
    );
}

/// A call with more (ceiling, demand) groups than one byte can name skips
/// the one pass and is decided one decision after another, with the same
/// answers: 300 keys, key n with limit n, charged twice.
#[test]
fn a_call_of_more_than_255_groups_is_decided_one_by_one() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let space = window_space("groups");
    let script = redis::Script::new(WINDOW_LUA);
    let subjects: Vec<String> = (1..=300).map(|n| format!("s{n}")).collect();
    let checks: Vec<[LimitCheck<'_>; 1]> = (1..=300_u32)
        .map(|n| {
            [LimitCheck {
                name: "credential",
                quota: Quota::per_seconds(n, 60),
                subject: &subjects[n as usize - 1],
            }]
        })
        .collect();
    let now = 1_700_000_001_000;
    for round in 1..=2_u32 {
        let mut batch = Batch::new(LimitAlgorithm::FixedWindow, 1_000);
        for decision in &checks {
            batch.push(
                &Prepared::new(
                    &space,
                    LimitAlgorithm::FixedWindow,
                    decision,
                    UnixMillis::new(now),
                    1_000,
                )
                .unwrap(),
            );
        }
        let reply: redis::Value = batch.invocation(&script).invoke(&mut con).unwrap();
        let redis::Value::Array(items) = &reply else {
            panic!("{reply:?}")
        };
        assert_eq!(items.first(), Some(&redis::Value::Int(0)), "one by one");
        let outcomes = batch.outcomes(&reply).unwrap();
        for (n, (outcome, decision)) in (1..=300_u32).zip(outcomes.iter().zip(&checks)) {
            let answer = batch.decision(outcome, decision).unwrap();
            // Round 1 admits every key (n - 1 left); round 2 refuses the
            // key of limit 1 and leaves n - 2 on the others.
            let admitted = round == 1 || n >= 2;
            let status = LimitStatus {
                index: 0,
                limit: n,
                remaining: if admitted { n - round } else { 0 },
                reset_at: UnixMillis::new(1_700_000_040_000),
            };
            let expected = if admitted {
                StackDecision::Admitted {
                    tightest: Some(status),
                }
            } else {
                StackDecision::Refused {
                    refusing: status,
                    retry_at: UnixMillis::new(1_700_000_040_000),
                }
            };
            assert_eq!(answer, expected, "limit {n}, round {round}");
            let key = space.window_key("credential", &subjects[n as usize - 1], 1_700_000_040_000);
            let stored: u32 = redis::cmd("GET").arg(&key).query(&mut con).unwrap();
            assert_eq!(stored, if admitted { round } else { 1 });
            let ttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut con).unwrap();
            assert!(ttl > 0 && ttl <= 40_000, "PTTL {ttl}");
        }
    }
}

/// A call the script rejects as malformed after its first pass has counted
/// on some keys (here a decision list it cannot read) leaves every key as
/// it was: counts, absences and TTLs.
#[test]
fn a_malformed_call_leaves_every_key_as_it_was() {
    let (url, _server) = support::shared();
    let mut con = support::connect(&url);
    let space = window_space("malformed");
    let key = |subject: &str| space.window_key("credential", subject, 1_700_000_040_000);
    let (counted, absent, full) = (key("counted"), key("absent"), key("full"));
    let _: () = redis::cmd("SET")
        .arg(&counted)
        .arg("5")
        .arg("PX")
        .arg(50_000)
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg(&full)
        .arg("50")
        .query(&mut con)
        .unwrap();
    let script = redis::Script::new(WINDOW_LUA);
    let windows = "1700000040000 60000 1700000040000 60000 1700000040000 60000";
    // Groups: 1 = (ceiling 100, demand 1) for the first two keys, 2 =
    // (ceiling 10, demand 1) for the full one, which stops the pass after
    // it has counted on the other two (creating "absent").
    let error = script
        .key(&counted)
        .key(&absent)
        .key(&full)
        .arg(1_000)
        .arg(windows)
        .arg(1)
        .arg("garbage")
        .arg(&[1_u8, 1, 2][..])
        .arg(100)
        .arg(1)
        .arg(10)
        .arg(1)
        .invoke::<redis::Value>(&mut con)
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("ACDARGS") && text.contains("malformed decision"),
        "{text}"
    );
    let values: (Option<String>, Option<String>, Option<String>) = redis::cmd("MGET")
        .arg(&counted)
        .arg(&absent)
        .arg(&full)
        .query(&mut con)
        .unwrap();
    assert_eq!(values, (Some("5".to_owned()), None, Some("50".to_owned())));
    let ttl: i64 = redis::cmd("PTTL").arg(&counted).query(&mut con).unwrap();
    assert!(ttl > 0 && ttl <= 50_000, "PTTL {ttl}");
}
