//! Extreme `SimConfig` numbers (0, `u64::MAX`, `i64::MIN`, …) never make a
//! simulation panic: `sim::run` and `sim::run_json` give a report or a typed
//! error, and the JSON form gives the same report as the Rust form.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{RequestSpec, TablePagerOptions};
use acd_core::gate::demo::ADA_KEY;
use acd_core::model::ids;
use acd_core::sim::{
    self, Dataset, FaultKind, FaultRule, SimClientConfig, SimConfig, SimReport, SimTask,
};
use acd_core::UnixMillis;
use acd_tests::client_support::ada;
use proptest::prelude::*;

/// Mostly the edges of `u64`, sometimes an ordinary value.
fn edge_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0),
        Just(1),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(u64::MAX / 2),
        Just(1_700_000_000_000),
        0..100_000u64,
        any::<u64>(),
    ]
}

fn edge_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0),
        Just(i64::MIN),
        Just(i64::MAX),
        Just(-1_700_000_000_000),
        -100_000..100_000i64,
        any::<i64>(),
    ]
}

fn fault_kind() -> impl Strategy<Value = FaultKind> {
    prop_oneof![
        Just(FaultKind::Connect),
        Just(FaultKind::Timeout),
        any::<u16>().prop_map(|status| FaultKind::ServerError { status }),
    ]
}

prop_compose! {
    fn fault()(
        from_ms in edge_u64(),
        until_ms in edge_u64(),
        per_mille in prop_oneof![Just(0u32), Just(1_000), Just(u32::MAX), any::<u32>()],
        kind in fault_kind(),
    ) -> FaultRule {
        FaultRule { from_ms, until_ms, per_mille, kind, client: None }
    }
}

prop_compose! {
    fn extreme_config()(
        seed in any::<u64>(),
        start_ms in edge_u64(),
        latency_ms in edge_u64(),
        timeout_ms in edge_u64(),
        max_virtual_ms in edge_u64(),
        clock_skew_ms in edge_i64(),
        start_offset_ms in edge_u64(),
        faults in proptest::collection::vec(fault(), 0..3),
        page_size in 1..4u64,
        burst in 0..3u32,
        naive_baseline in any::<bool>(),
    ) -> SimConfig {
        let reader = SimClientConfig {
            clock_skew_ms,
            start_offset_ms,
            ..SimClientConfig::new("reader", ada())
        }
        .task(SimTask::Table {
            table: "orders".into(),
            options: TablePagerOptions { page_size, ..TablePagerOptions::default() },
        })
        .task(SimTask::Burst {
            spec: RequestSpec::new(ids::GET_API_INDEX),
            count: burst,
        });
        SimConfig {
            seed,
            start_ms: UnixMillis::new(start_ms),
            latency_ms,
            timeout_ms,
            max_virtual_ms,
            dataset: Dataset::default().with_table("orders", 5),
            faults,
            naive_baseline,
            ..SimConfig::default()
        }
        .client(reader)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn extreme_numbers_give_a_report_never_a_panic(config in extreme_config()) {
        let json = serde_json::to_string(&config).expect("a SimConfig serialises");
        let report: SimReport = sim::run(config).expect("one valid client: the run starts");
        prop_assert_eq!(report.clients.len(), 1);
        let summary = &report.clients[0];
        // One pager job plus at most two burst calls finished.
        let jobs = summary.jobs_done + summary.jobs_failed;
        prop_assert!(jobs <= 3, "{} jobs", jobs);
        prop_assert!(report.completed || !report.violations.is_empty() || summary.jobs_failed > 0);
        // The JSON form runs the same simulation and reports the same.
        let from_json = sim::run_json(&json).expect("the serialised config runs");
        prop_assert_eq!(from_json, serde_json::to_string(&report).unwrap());
    }
}

#[test]
fn the_largest_numbers_in_json_give_a_report() {
    let json = format!(
        r#"{{"seed": {max}, "start_ms": {max}, "latency_ms": {max}, "timeout_ms": {max},
            "max_virtual_ms": {max},
            "dataset": {{"tables": {{"orders": [{{"id": 1}}]}}}},
            "faults": [{{"from_ms": 0, "until_ms": {max}, "per_mille": {umax},
                        "kind": {{"type": "timeout"}}, "client": null}}],
            "clients": [{{"name": "reader", "clock_skew_ms": {imin}, "start_offset_ms": {max},
                          "config": {{"credentials": [{{"id": "main", "kind": "api_key", "secret": "{key}", "user": "ada"}}]}},
                          "tasks": [{{"type": "table", "table": "orders", "options": {{}}}}]}}]}}"#,
        max = u64::MAX,
        umax = u32::MAX,
        imin = i64::MIN,
        key = ADA_KEY,
    );
    let out = sim::run_json(&json);
    match out {
        Ok(report) => {
            let report: serde_json::Value = serde_json::from_str(&report).unwrap();
            assert_eq!(report["clients"].as_array().map(Vec::len), Some(1));
        }
        Err(error) => panic!("a typed error is acceptable only for a bad config: {error}"),
    }
}

#[test]
fn a_run_at_the_end_of_the_clock_stops_with_a_violation_instead_of_spinning() {
    let config = SimConfig {
        start_ms: UnixMillis::new(u64::MAX - 10),
        max_virtual_ms: u64::MAX,
        naive_baseline: false,
        dataset: Dataset::default().with_table("orders", 5),
        ..SimConfig::default()
    }
    .client(SimClientConfig::new("reader", ada()).task(SimTask::Table {
        table: "orders".into(),
        options: TablePagerOptions {
            page_size: 1,
            ..TablePagerOptions::default()
        },
    }));
    let report = sim::run(config).expect("the configuration is valid");
    assert!(!report.completed);
    assert!(
        report
            .violations
            .iter()
            .any(|violation| violation.starts_with("the simulation stopped at its limit")),
        "{:?}",
        report.violations
    );
}
