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
    PackedState, Quota,
};
use acd_core::UnixMillis;
use acd_redis::script::WINDOW_LUA;
use acd_redis::{Batch, KeySpace, Prepared};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::HashMap;

const NAMES: [&str; 3] = ["credential", "user", "agent"];
const SUBJECTS: [&str; 3] = ["ada", "bob", "{x}"];

/// One decision: time step and (name, subject, requests override) checks.
type Decision = (u64, Vec<(usize, usize, Option<u32>)>);

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
    let space = KeySpace::new(
        &support::unique_namespace("batches"),
        LimitAlgorithm::FixedWindow,
    )
    .unwrap();
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
}
