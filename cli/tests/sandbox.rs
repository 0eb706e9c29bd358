//! `acd` against the real acd-sandbox: paging a table larger than one
//! window's allowance with zero 429s and every record exactly once, the
//! output formats, the wait lines, API errors and the index.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use support::{acd_real, as_ada_real, Sandbox, ADA};

/// 23 orders whose `customer` repeats (so ordering by it has ties).
fn orders() -> Vec<Value> {
    (1..=23)
        .map(|id| json!({"id": id, "customer": format!("c{}", id % 4), "total": id * 10}))
        .collect()
}

fn ids(records: &[Value]) -> Vec<i64> {
    records.iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

#[test]
fn all_pages_past_the_window_with_zero_429s_and_each_record_once_despite_ties() {
    // 5 table reads per 2 s; 23 records by 2 = 12 pages: three windows.
    let sandbox = Sandbox::start(&support::sandbox_config(&[("big", orders())], 5, 2));
    let run = acd_real(&[
        "tables",
        "read",
        "big",
        "--all",
        "--page-size",
        "2",
        "--order-by",
        "customer",
        "--base-url",
        &sandbox.url,
        "--api-key",
        ADA,
        "-v",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = run.records();
    let got = ids(&records);
    assert_eq!(got.len(), 23);
    assert_eq!(
        got.iter().collect::<BTreeSet<_>>().len(),
        23,
        "duplicates: {got:?}"
    );
    let exchanges: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET "))
        .collect();
    assert_eq!(exchanges.len(), 12, "{}", run.stderr);
    assert!(
        exchanges.iter().all(|l| l.contains("-> 200")),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("429"), "{}", run.stderr);
    // Offset paging by default (ties in `customer`), sent as the API's names.
    assert!(
        exchanges[1].contains("limit=2") && exchanges[1].contains("offset=2"),
        "{}",
        exchanges[1]
    );
    assert!(!run.stderr.contains("after="), "{}", run.stderr);
    // The sixth request waited for the window, and said so on one line.
    let waits: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains(": waiting "))
        .collect();
    assert!(!waits.is_empty(), "{}", run.stderr);
    assert!(
        waits[0].contains(" s for limit user_table_reads ("),
        "{}",
        waits[0]
    );
    // In the server's order: customer ascending.
    let customers: Vec<&str> = records
        .iter()
        .map(|r| r["customer"].as_str().unwrap())
        .collect();
    let mut sorted = customers.clone();
    sorted.sort();
    assert_eq!(customers, sorted);
}

#[test]
fn unique_order_pages_by_keyset_and_reads_everything() {
    let sandbox = Sandbox::start(&support::sandbox_config(&[("big", orders())], 100, 60));
    let run = acd_real(&[
        "--base-url",
        &sandbox.url,
        "--api-key",
        ADA,
        "-v",
        "tables",
        "read",
        "big",
        "--all",
        "--page-size",
        "5",
        "--order-by",
        "id",
        "--unique-order",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(ids(&run.records()), (1..=23).collect::<Vec<_>>());
    let exchanges: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET "))
        .collect();
    assert_eq!(exchanges.len(), 5, "{}", run.stderr);
    assert!(exchanges[1].contains("after=5"), "{}", exchanges[1]);
    assert!(!exchanges[1].contains("offset="), "{}", exchanges[1]);
}

#[test]
fn one_request_without_all_with_the_given_parameters() {
    let sandbox = Sandbox::start(&support::sandbox_config(&[("big", orders())], 100, 60));
    let run = acd_real(&[
        "tables",
        "read",
        "big",
        "--limit",
        "3",
        "--offset",
        "4",
        "--order-by",
        "total",
        "--desc",
        "--base-url",
        &sandbox.url,
        "--api-key",
        ADA,
        "-v",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(ids(&run.records()), [19, 18, 17]);
    assert_eq!(
        run.stderr.lines().filter(|l| l.starts_with("GET ")).count(),
        1
    );
}

#[test]
fn formats_json_and_csv() {
    let rows = vec![
        json!({"id": 1, "name": "a, b", "note": null}),
        json!({"id": 2, "name": "c", "extra": true}),
    ];
    let sandbox = Sandbox::start(&support::sandbox_config(&[("t", rows)], 100, 60));
    let base = ["--base-url", sandbox.url.as_str(), "--api-key", ADA];
    let json = acd_real(
        &[
            &base[..],
            &["tables", "read", "t", "--all", "--format", "json"],
        ]
        .concat(),
    );
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let parsed: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(parsed.as_array().unwrap().len(), 2);
    let csv = acd_real(&[&base[..], &["tables", "read", "t", "--format", "csv"]].concat());
    assert_eq!(csv.code, Some(0), "{}", csv.stderr);
    // The sandbox serialises members in its own key order; the header is
    // the first record's keys, then later ones appended.
    let first: Vec<&str> = csv.stdout.lines().next().unwrap().split(',').collect();
    assert_eq!(first.len(), 4, "{}", csv.stdout);
    assert_eq!(*first.last().unwrap(), "extra", "{}", csv.stdout);
    assert!(csv.stdout.contains("\"a, b\""), "{}", csv.stdout);
    assert_eq!(csv.stdout.lines().count(), 3);
}

#[test]
fn api_errors_exit_1_with_status_and_detail() {
    let sandbox = Sandbox::start(&support::sandbox_config(&[], 100, 60));
    let run = acd_real(&[
        "tables",
        "read",
        "invoices",
        "--base-url",
        &sandbox.url,
        "--api-key",
        ADA,
    ]);
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.starts_with("error: the API answered 404: "),
        "{}",
        run.stderr
    );
}

#[test]
fn index_and_raw_api_print_the_body() {
    let sandbox = Sandbox::start(&support::sandbox_config(&[], 100, 60));
    let index = acd_real(&["index", "--base-url", &sandbox.url]);
    assert_eq!(index.code, Some(0), "{}", index.stderr);
    let parsed: Value = serde_json::from_str(&index.stdout).unwrap();
    assert_eq!(parsed["base_url"], sandbox.url.as_str());
    let raw = acd_real(&[
        "api",
        "GET",
        "/api/v1/tables/orders?limit=1",
        "--base-url",
        &sandbox.url,
        "--api-key",
        ADA,
    ]);
    assert_eq!(raw.code, Some(0), "{}", raw.stderr);
    let body: Value = serde_json::from_str(&raw.stdout).unwrap();
    assert_eq!(body["data"].as_array().unwrap().len(), 1);
}

#[test]
fn connections_read_filters_and_pages() {
    let sandbox = Sandbox::start(&support::sandbox_config(&[], 100, 60));
    let base = ["--base-url", sandbox.url.as_str(), "--api-key", ADA];
    let paris = acd_real(
        &[
            &base[..],
            &[
                "connections",
                "read",
                "crm",
                "--entity",
                "contacts",
                "--filter",
                r#"{"city":"Paris"}"#,
                "--stable-egress",
            ],
        ]
        .concat(),
    );
    assert_eq!(paris.code, Some(0), "{}", paris.stderr);
    assert!(paris.records().iter().all(|r| r["city"] == "Paris"));
    assert!(!paris.records().is_empty());
    let all = acd_real(
        &[
            &base[..],
            &[
                "connections",
                "read",
                "crm",
                "--entity",
                "contacts",
                "--all",
                "--page-size",
                "2",
            ],
        ]
        .concat(),
    );
    let once = acd_real(
        &[
            &base[..],
            &[
                "connections",
                "read",
                "crm",
                "--entity",
                "contacts",
                "--limit",
                "500",
            ],
        ]
        .concat(),
    );
    assert_eq!(all.code, Some(0), "{}", all.stderr);
    assert_eq!(all.records(), once.records());
}

#[test]
fn learn_limits_reads_the_index_first_and_paces_to_the_advertised_limit() {
    // 120 pages: past the 100 per 60 s the client assumes per credential
    // until told otherwise. The headers of a table read describe the
    // table-read limit (the tightest); the index advertises the credential's.
    let rows: Vec<Value> = (1..=120).map(|id| json!({ "id": id })).collect();
    let sandbox = Sandbox::start(&support::sandbox_config(&[("wide", rows)], 900_000, 60));
    let args = [
        "tables",
        "read",
        "wide",
        "--all",
        "--page-size",
        "1",
        "--deadline",
        "5",
        "-v",
    ];
    let assumed = as_ada_real(&sandbox.url, &args);
    // Paced to the assumed 100 per 60 s: 100 pages, then the wait for the
    // next window does not fit in the call's 5 s timeout, which ends it at once.
    assert_eq!(assumed.code, Some(3), "{}", assumed.stderr);
    assert!(
        assumed
            .stderr
            .contains("did not finish within its timeout of 5 s"),
        "{}",
        assumed.stderr
    );
    let sent = assumed
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET "))
        .count();
    assert_eq!(sent, 100, "{}", assumed.stderr);
    let learned = as_ada_real(&sandbox.url, &[&["--learn-limits"][..], &args[..]].concat());
    assert_eq!(learned.code, Some(0), "{}", learned.stderr);
    assert_eq!(ids(&learned.records()), (1..=120).collect::<Vec<_>>());
    let exchanges: Vec<&str> = learned
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET "))
        .collect();
    assert_eq!(
        exchanges.len(),
        122,
        "the index, 120 pages and the empty one"
    );
    assert!(
        exchanges[0].starts_with("GET /api/v1 -> 200"),
        "{}",
        exchanges[0]
    );
}
