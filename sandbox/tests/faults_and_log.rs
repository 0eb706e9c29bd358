//! Fault injection and the request log, against the real binary: `Prefer`
//! honoured with `--faults` only, fault rules (status, latency, dropped
//! connection, truncated body) drawn from a seeded generator, the banner,
//! and log lines (text and JSON) that never hold a secret.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Sandbox, ADA};
use serde_json::{json, Value};

const RECORDS: &str = "/api/v1/connections/crm/records?entity_id=contacts";

#[test]
fn prefer_is_ignored_without_faults() {
    let sandbox = Sandbox::start();
    let response = sandbox.get(RECORDS, &[("X-API-Key", ADA), ("Prefer", "code=503")]);
    assert_eq!(response.status, 200);
    assert!(!sandbox.banner().join("\n").contains("Faults"));
}

#[test]
fn prefer_asks_for_a_status_with_faults() {
    let sandbox = Sandbox::start_with(None, &["--faults"]);
    let banner = sandbox.banner().join("\n");
    assert!(banner.contains("Faults ON (--faults)"), "{banner}");
    let unavailable = sandbox.get(RECORDS, &[("X-API-Key", ADA), ("Prefer", "code=503")]);
    assert_eq!(unavailable.status, 503);
    assert_eq!(unavailable.header("Content-Type"), Some("application/json"));
    assert_eq!(unavailable.header("Access-Control-Allow-Origin"), Some("*"));
    assert_eq!(unavailable.header("Retry-After"), None);
    assert_eq!(
        unavailable.json(),
        json!({"detail": "Injected fault: status 503, as asked by the Prefer header or a fault rule (the sandbox runs with --faults).", "status": 503})
    );
    let limited = sandbox.get(
        RECORDS,
        &[("X-API-Key", ADA), ("Prefer", "code=429, retry-after=2")],
    );
    assert_eq!(limited.status, 429);
    assert_eq!(limited.int("Retry-After"), 2);
    assert_eq!(limited.json()["status"], 429);
    // Injected answers are not counted by any limit.
    let counted = sandbox.get_as_ada(RECORDS);
    assert_eq!(counted.status, 200);
    assert_eq!(counted.int("RateLimit-Remaining"), 99);
    let bad = sandbox.get(RECORDS, &[("X-API-Key", ADA), ("Prefer", "code=201")]);
    assert_eq!(bad.status, 400);
    assert_eq!(
        bad.json()["detail"],
        "Injected fault: status 400, the Prefer header cannot be honoured: Prefer code=201: listConnectionRecords (GET /api/v1/connections/{connection_id}/records) declares 200, 400, 401, 403, 404, 405, 429; any error status (400 to 599) can be asked for too (the sandbox runs with --faults)."
    );
}

const RULES: &str = r#"{"faults": {"seed": 42, "rules": [
    {"path": "/api/v1/tables/*", "status": 502},
    {"path": "/api/v1/connections/erp/**", "drop": true},
    {"path": "/openapi.json", "truncate": true},
    {"path": "/api/v1", "latency_ms": 1},
    {"path": "/api/v1/connections/crm/**", "probability": 0.5, "status": 503, "retry_after": 7}
]}}"#;

#[test]
fn rules_apply_only_with_faults() {
    let sandbox = Sandbox::with_config(RULES);
    let banner = sandbox.banner().join("\n");
    assert!(
        banner
            .contains("Faults off: the configuration's 5 fault rule(s) apply with --faults only."),
        "{banner}"
    );
    assert_eq!(sandbox.get_as_ada("/api/v1/tables/orders").status, 200);
}

#[test]
fn rules_inject_statuses_drops_and_truncated_bodies() {
    let sandbox = Sandbox::start_with(Some(RULES), &["--faults"]);
    let banner = sandbox.banner().join("\n");
    assert!(
        banner.contains("5 fault rule(s) from the configuration apply"),
        "{banner}"
    );
    let bad_gateway = sandbox.get_as_ada("/api/v1/tables/orders");
    assert_eq!(bad_gateway.status, 502);
    assert_eq!(bad_gateway.json()["status"], 502);
    // Only the paths a rule names are touched.
    assert_eq!(sandbox.get_as_ada("/api/v1").status, 200);

    let mut dropped = sandbox.connect();
    dropped.send(
        b"GET /api/v1/connections/erp/records?entity_id=invoices HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    assert!(dropped.read_response().is_none());

    let mut truncated = sandbox.connect();
    truncated.send(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n");
    let raw = truncated.read_to_end();
    let head_end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .unwrap()
        .parse()
        .unwrap();
    let body = &raw[head_end + 4..];
    assert_eq!(body.len(), length / 2, "half of {length} bytes");
}

fn statuses(sandbox: &Sandbox, n: usize) -> Vec<u16> {
    (0..n).map(|_| sandbox.get_as_ada(RECORDS).status).collect()
}

#[test]
fn probabilities_come_from_the_seeded_generator() {
    let limits = r#""limits": {"credential": {"requests": 1000, "window_ms": 60000},
                             "client_ip": {"requests": 1000, "window_ms": 60000}}"#;
    let config = |seed: u64| {
        format!(
            r#"{{{limits}, "faults": {{"seed": {seed}, "rules": [
                {{"path": "/api/v1/connections/**", "probability": 0.5, "status": 503, "retry_after": 7}}]}}}}"#
        )
    };
    let first = Sandbox::start_with(Some(&config(42)), &["--faults"]);
    let again = Sandbox::start_with(Some(&config(42)), &["--faults"]);
    let other = Sandbox::start_with(Some(&config(43)), &["--faults"]);
    let seen = statuses(&first, 40);
    assert_eq!(seen, statuses(&again, 40));
    assert_ne!(seen, statuses(&other, 40));
    assert!(seen.iter().all(|status| *status == 200 || *status == 503));
    let injected = seen.iter().filter(|status| **status == 503).count();
    assert!((5..=35).contains(&injected), "{injected} of 40");
    let retry = (0..40)
        .map(|_| first.get_as_ada(RECORDS))
        .find(|response| response.status == 503)
        .unwrap();
    assert_eq!(retry.int("Retry-After"), 7);
}

fn stderr_lines(sandbox: Sandbox) -> Vec<String> {
    let (_, stderr) = sandbox.stop_with("TERM");
    stderr
        .lines()
        .filter(|line| !line.starts_with("acd-sandbox:"))
        .map(str::to_owned)
        .collect()
}

fn without_latency(line: &str) -> &str {
    line.rsplit_once(' ').unwrap().0
}

#[test]
fn the_text_log_has_one_line_per_request_and_no_secret() {
    let sandbox = Sandbox::start();
    sandbox.get_as_ada("/api/v1/tables/orders?order_by=total&after=secret-bound&limit=2");
    sandbox.get(
        "/api/v1/tables/orders",
        &[("Authorization", "Bearer acd_oat_demo_ada_tables")],
    );
    sandbox.get("/api/v1/tables/acd_live_demo_ada?x=acd_live_demo_bob", &[]);
    sandbox.get("/api/v1", &[]);
    let lines = stderr_lines(sandbox);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        without_latency(&lines[0]),
        "GET /api/v1/tables/orders?order_by&after&limit 200 remaining=4"
    );
    assert_eq!(
        without_latency(&lines[1]),
        "GET /api/v1/tables/orders 200 remaining=3"
    );
    assert_eq!(
        without_latency(&lines[2]),
        "GET /api/v1/tables/<redacted>?x 401 remaining=99"
    );
    assert_eq!(without_latency(&lines[3]), "GET /api/v1 200 remaining=98");
    for line in &lines {
        let latency = line.rsplit_once(' ').unwrap().1;
        assert!(latency.ends_with("ms"), "{line}");
        latency.trim_end_matches("ms").parse::<f64>().unwrap();
        for secret in ["acd_live_demo", "acd_oat_demo", "secret-bound"] {
            assert!(!line.contains(secret), "{line}");
        }
    }
}

#[test]
fn the_json_log_is_one_object_per_line() {
    let sandbox = Sandbox::start_with(Some(RULES), &["--faults", "--log", "json"]);
    sandbox.get_as_ada(RECORDS.replace("crm", "bob-has-none").as_str());
    let mut dropped = sandbox.connect();
    dropped.send(b"GET /api/v1/connections/erp/records?entity_id=x HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(dropped.read_response().is_none());
    let lines = stderr_lines(sandbox);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let mut first: Value = serde_json::from_str(&lines[0]).unwrap();
    assert!(first["latency_ms"].as_f64().unwrap() >= 0.0);
    first.as_object_mut().unwrap().remove("latency_ms");
    assert_eq!(
        first,
        json!({"method": "GET", "path": "/api/v1/connections/bob-has-none/records",
               "query": ["entity_id"], "status": 404, "remaining": 99})
    );
    let second: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(second["status"], Value::Null);
    assert_eq!(second["path"], "/api/v1/connections/erp/records");
}

#[test]
fn log_off_writes_nothing() {
    let sandbox = Sandbox::start_with(None, &["--log", "off"]);
    sandbox.get_as_ada(RECORDS);
    assert_eq!(stderr_lines(sandbox), Vec::<String>::new());
}
