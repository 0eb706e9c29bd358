//! Configuration read from user JSON is strict and bounded: a stray member
//! next to a quota (`window_seconds` beside `window_ms`) is refused with a
//! sentence naming it, and a simulation that would start too many calls or
//! check too many records is a typed error before anything is allocated.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{RequestSpec, TablePagerOptions};
use acd_core::limit::Quota;
use acd_core::model::ids;
use acd_core::sim::{
    self, Dataset, SimClientConfig, SimConfig, SimError, SimTask, MAX_SIM_CALLS,
    MAX_SIM_EXPECTED_RECORDS,
};
use acd_tests::client_support::ada;
use serde_json::json;

#[test]
fn a_quota_with_window_seconds_beside_window_ms_is_refused() {
    let stray = r#"{"requests": 5, "window_ms": 60000, "window_seconds": 60}"#;
    let error = serde_json::from_str::<Quota>(stray)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("unknown field `window_seconds`, expected `requests` or `window_ms`"),
        "{error}"
    );
    let exact: Quota = serde_json::from_str(r#"{"requests": 5, "window_ms": 60000}"#).unwrap();
    assert_eq!(exact, Quota::per_seconds(5, 60));
}

#[test]
fn a_simulation_names_the_stray_quota_member_and_where_it_is() {
    let config = json!({
        "gate": {"limits": {"credential": {"requests": 5, "window_ms": 60000, "window_seconds": 60}}}
    });
    let Err(SimError::Json(message)) = sim::run_json(&config.to_string()) else {
        panic!("a stray quota member must be refused")
    };
    assert!(
        message.contains("unknown field `window_seconds`"),
        "{message}"
    );
    assert!(message.contains("gate.limits.credential"), "{message}");
}

#[test]
fn caller_defined_operations_and_runs_refuse_unknown_members() {
    let operation = json!({
        "id": "getThing", "method": "GET", "path": "/things/{id}",
        "credential": {"type": "api_key_only"}, "envelope": "data",
        "params": [], "extra_limits": [], "stable_egress": false,
        "needs_resource": true, "deprecation": null,
        "honours_idempotency_key": false, "noun": "thing", "scopes": ["x"]
    });
    let error = serde_json::from_value::<acd_core::model::Operation>(operation)
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `scopes`"), "{error}");
    let run = json!({"finishes_after_ms": 10, "final_state": "succeeded", "state": "x"});
    let error = serde_json::from_value::<sim::SimRun>(run)
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `state`"), "{error}");
}

#[test]
fn a_huge_burst_is_a_typed_error_not_an_allocation() {
    let client = SimClientConfig::new("bursty", ada())
        .task(SimTask::Burst {
            spec: RequestSpec::new(ids::GET_API_INDEX),
            count: 2,
        })
        .task(SimTask::Burst {
            spec: RequestSpec::new(ids::GET_API_INDEX),
            count: u32::MAX,
        });
    let config = SimConfig::default().client(client);
    let Err(SimError::Config { field, problem }) = sim::run(config) else {
        panic!("a burst of u32::MAX calls must be refused")
    };
    assert_eq!(field, "clients[0].tasks[1]");
    assert_eq!(
        problem,
        format!(
            "the simulation would start {} calls or more; at most {MAX_SIM_CALLS} are allowed \
             (lower a burst's count or the number of tasks)",
            2 + u64::from(u32::MAX)
        )
    );
}

#[test]
fn the_call_bound_is_inclusive() {
    let at_bound = SimClientConfig::new("bursty", ada()).task(SimTask::Burst {
        spec: RequestSpec::new(ids::GET_API_INDEX),
        count: u32::try_from(MAX_SIM_CALLS).unwrap(),
    });
    assert_eq!(SimConfig::default().client(at_bound).check_sizes(), Ok(()));
    let one_more = SimClientConfig::new("bursty", ada()).task(SimTask::Burst {
        spec: RequestSpec::new(ids::GET_API_INDEX),
        count: u32::try_from(MAX_SIM_CALLS + 1).unwrap(),
    });
    assert!(matches!(
        SimConfig::default().client(one_more).check_sizes(),
        Err(SimError::Config { .. })
    ));
}

#[test]
fn too_many_records_to_check_is_a_typed_error() {
    // 1001 pagers over a table of 10_000 records: 10_010_000 > 10_000_000.
    let mut client = SimClientConfig::new("reader", ada());
    for _ in 0..1_001 {
        client = client.task(SimTask::Table {
            table: "big".into(),
            options: TablePagerOptions::default(),
        });
    }
    let config = SimConfig {
        dataset: Dataset::default().with_table("big", 10_000),
        ..SimConfig::default()
    }
    .client(client);
    let Err(SimError::Config { field, problem }) = config.check_sizes() else {
        panic!("too many records to check must be refused")
    };
    assert_eq!(field, "clients[0].tasks[1000]");
    assert_eq!(
        problem,
        format!(
            "the pagers would check 10010000 records or more; at most \
             {MAX_SIM_EXPECTED_RECORDS} are allowed (use smaller tables or fewer paging tasks)"
        )
    );
}
