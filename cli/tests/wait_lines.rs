//! Wait lines name the window the server announced (its headers or its
//! index) when one is known, else the catalogue's.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use support::{as_ada, as_ada_real, FaultServer, Reply, Sandbox};

fn waits(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.contains(": waiting "))
        .collect()
}

#[test]
fn a_sandbox_at_5_reads_per_5_s_is_named_as_the_server_says_not_as_60_s() {
    let records: Vec<Value> = (1..=7).map(|id| json!({"id": id})).collect();
    let sandbox = Sandbox::start(&support::sandbox_config(&[("orders", records)], 5, 5));
    let run = as_ada_real(
        &sandbox.url,
        &["tables", "read", "orders", "--all", "--page-size", "1"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.records().len(), 7);
    let lines = waits(&run.stderr);
    assert!(!lines.is_empty(), "{}", run.stderr);
    for line in lines {
        // The headers give the count (5) but not the window's length.
        assert!(
            line.ends_with("for limit user_table_reads (5 per window, as the server announced)"),
            "{line}"
        );
    }
}

#[test]
fn a_window_given_by_the_structured_headers_is_named() {
    let page = |records: Value| {
        Reply::page(records)
            .header("RateLimit-Policy", "\"reads\";q=2;w=7")
            .header("RateLimit", "\"reads\";r=0;t=1")
    };
    let server = FaultServer::start(vec![page(json!([{"id": 1}])), page(json!([]))]);
    let run = as_ada(
        &server.url,
        &[
            "tables",
            "read",
            "t",
            "--all",
            "--page-size",
            "1",
            "--deadline",
            "30",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines = waits(&run.stderr);
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].ends_with("(2 per 7 s, as the server announced)"),
        "{}",
        lines[0]
    );
}

#[test]
fn without_anything_from_the_server_the_catalogue_window_is_named() {
    // Six pages and no rate-limit header: the client's own model (5 table
    // reads per 60 s) makes the sixth wait (in the CLI's virtual clock), and
    // the line names the catalogue's limit.
    let mut script = vec![Reply::page(json!([{"id": 1}])); 6];
    script.push(Reply::page(json!([])));
    let server = FaultServer::start(script);
    let run = as_ada(
        &server.url,
        &["tables", "read", "t", "--all", "--page-size", "1"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines = waits(&run.stderr);
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].ends_with("for limit user_table_reads (5 per 60 s)"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_wait_past_the_deadline_fails_at_once_naming_the_timeout() {
    // The same sixth read with --deadline 1: its wait would end past the
    // call's timeout, so it fails at once (exit 3) without waiting.
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let run = as_ada(
        &server.url,
        &[
            "tables",
            "read",
            "t",
            "--all",
            "--page-size",
            "1",
            "--deadline",
            "1",
        ],
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(run.stderr.contains("timeout of 1 s"), "{}", run.stderr);
    assert!(waits(&run.stderr).is_empty(), "{}", run.stderr);
}
