//! Simulation scenarios about what a run reports and pages: duplicate order
//! values at page boundaries, the naive baseline's figures, and a whole
//! simulation from JSON to JSON (what the bindings expose).

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::TablePagerOptions;
use acd_core::sim::{self, Dataset, SimClientConfig, SimConfig, SimReport, TraceKind};
use acd_tests::client_support::{self, ada, page_size, pages, table};

fn run(name: &str, config: SimConfig) -> SimReport {
    client_support::run(name, config).expect("the simulation is configured correctly")
}

/// 23 rows whose `status` repeats across page boundaries (pages of 4).
fn statuses() -> Dataset {
    let mut dataset = Dataset::default();
    let rows = (1..=23u64)
        .map(|id| {
            let status = match id % 3 {
                0 => "done",
                1 => "queued",
                _ => "running",
            };
            serde_json::json!({"id": id, "status": status})
        })
        .collect();
    dataset.tables.insert("jobs".into(), rows);
    dataset
}

fn by_status(unique_order: bool) -> SimConfig {
    let options = TablePagerOptions {
        page_size: 4,
        order_by: Some("status".into()),
        unique_order,
        ..TablePagerOptions::default()
    };
    SimConfig {
        dataset: statuses(),
        naive_baseline: false,
        ..SimConfig::default()
    }
    .client(SimClientConfig::new("reader", ada()).task(table("jobs", options)))
}

#[test]
fn duplicate_order_values_at_page_boundaries_deliver_every_row_exactly_once() {
    // The default: offset paging, since `status` is not declared unique.
    let report = run("order_by=status, offsets", by_status(false));
    assert_eq!(report.violations, Vec::<String>::new());
    assert!(report.completed, "every row exactly once, in order");
    // 23 rows in pages of 4: 5 full pages and a short one (3 rows).
    assert_eq!(
        pages(&report, 0).iter().map(|p| p.1).collect::<Vec<_>>(),
        [4, 4, 4, 4, 4, 3]
    );
    let targets: Vec<String> = report
        .trace
        .iter()
        .filter_map(|event| match &event.what {
            TraceKind::Send { target, .. } => Some(target.clone()),
            _ => None,
        })
        .collect();
    assert!(targets
        .iter()
        .all(|t| t.contains("offset=") && !t.contains("after=")));
    // Declaring the column unique when it is not is what drops rows: the
    // harness sees the pager deliver fewer rows than the table holds.
    let wrong = run("order_by=status, declared unique", by_status(true));
    assert!(!wrong.completed);
    assert!(
        wrong
            .trace
            .iter()
            .any(|e| matches!(&e.what, TraceKind::Failed { error } if error.contains("not exactly the 23 expected"))),
        "{:?}",
        wrong.trace.last()
    );
}

#[test]
fn the_naive_baseline_measures_what_the_throttle_avoids() {
    // Ada's pager reads 6 pages against 5 table reads per minute, while a
    // second instance of hers reads too.
    let config = SimConfig {
        dataset: Dataset::default().with_table("orders", 550),
        ..SimConfig::default()
    }
    .client(SimClientConfig::new("reader", ada()).task(table("orders", page_size(100))));
    assert!(config.naive_baseline, "on by default");
    let report = run("six pages, with the naive baseline", config);
    assert!(report.completed);
    assert_eq!(report.responses_429, 0);
    let baseline = report.baseline.clone().expect("the baseline ran");
    // Without proactive throttling, the sixth page meets the 429 the
    // throttle avoided, and is retried after Retry-After.
    assert_eq!(baseline.responses_429, 1);
    assert_eq!(baseline.avoided_429, 1);
    assert_eq!(baseline.requests_sent, 7);
    assert!(baseline.completed);
    assert!(
        baseline.elapsed_ms >= 40_000,
        "it waited for the window too"
    );
    assert!(report
        .summary()
        .contains("naive baseline: 7 requests, 1 x 429"));
}

#[test]
fn a_simulation_runs_from_json_and_reports_json() {
    let config = serde_json::json!({
        "seed": 4,
        "naive_baseline": false,
        "dataset": {"tables": {"orders": [{"id": 1}, {"id": 2}, {"id": 3}]}},
        "credentials": [{"secret": "acd_live_json_key", "id": "key-json", "kind": "api_key", "user": "jo"}],
        "clients": [{
            "name": "json",
            "config": {"credentials": [{"id": "main", "kind": "api_key", "secret": "acd_live_json_key", "user": "jo"}]},
            "tasks": [{"type": "table", "table": "orders", "options": {"page_size": 2}}]
        }]
    });
    let report: serde_json::Value =
        serde_json::from_str(&sim::run_json(&config.to_string()).unwrap()).unwrap();
    assert_eq!(report["completed"], true, "{report}");
    assert_eq!(report["requests_sent"], 2);
    assert_eq!(report["responses_429"], 0);
    assert_eq!(report["baseline"], serde_json::Value::Null);
    let kinds: Vec<&str> = report["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["what"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["send", "response", "page", "send", "response", "page", "done"]
    );
    let error = sim::run_json(r#"{"clients": [{"tasks": []}]}"#).unwrap_err();
    assert!(error.to_string().contains("clients[0]"), "{error}");
    assert!(error.to_string().contains("name"), "{error}");
}
