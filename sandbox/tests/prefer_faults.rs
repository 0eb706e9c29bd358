//! `Prefer` as Prism reads it, against the real binary with `--faults`:
//! `code=` for any declared status (2xx included), `example=NAME` from the
//! configuration, per-request `latency=MS`, `drop` and `truncate`; unknown
//! preferences ignored; a malformed one a 400 naming it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Sandbox, ADA};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const ORDERS: &str = "/api/v1/tables/orders";

const EXAMPLES: &str = r#"{"faults": {"examples": [
    {"name": "no-orders", "path": "/api/v1/tables/*", "body": {"data": []}},
    {"name": "maintenance", "status": 503, "body": {"status": 503, "detail": "Down for maintenance."}}
]}}"#;

fn faults() -> Sandbox {
    Sandbox::start_with(Some(EXAMPLES), &["--faults"])
}

#[test]
fn code_asks_for_any_declared_status_2xx_included() {
    let sandbox = faults();
    let plain = sandbox.get_as_ada(ORDERS);
    assert_eq!(plain.status, 200);
    // A valid request: the configured data, counted as usual.
    let configured = sandbox.get(ORDERS, &[("X-API-Key", ADA), ("Prefer", "code=200")]);
    assert_eq!(configured.status, 200);
    assert_eq!(configured.json(), plain.json());
    assert_eq!(configured.int("RateLimit-Remaining"), 3);
    // A request that would be refused: the document's example for 200.
    let document = sandbox.get("/openapi.json", &[]).json();
    let example = document
        .pointer(
            "/paths/~1api~1v1~1tables~1{id}/get/responses/200/content/application~1json/example",
        )
        .unwrap()
        .clone();
    assert!(example["data"].is_array(), "{example}");
    let exampled = sandbox.get(ORDERS, &[("Prefer", "code=200")]);
    assert_eq!(exampled.status, 200);
    assert_eq!(exampled.header("Content-Type"), Some("application/json"));
    assert_eq!(exampled.json(), example);
    // A status the operation does not declare, and a path with no operation.
    let undeclared = sandbox.get(ORDERS, &[("Prefer", "code=201")]);
    assert_eq!(undeclared.status, 400);
    assert_eq!(
        undeclared.json()["detail"],
        "Injected fault: status 400, the Prefer header cannot be honoured: Prefer code=201: \
         listTableRecords (GET /api/v1/tables/{id}) declares 200, 400, 401, 403, 404, 405, 429; \
         any error status (400 to 599) can be asked for too (the sandbox runs with --faults)."
    );
    assert_eq!(
        sandbox.get("/nowhere", &[("Prefer", "code=200")]).status,
        400
    );
    assert_eq!(
        sandbox.get("/nowhere", &[("Prefer", "code=504")]).status,
        504
    );
}

#[test]
fn example_answers_a_configured_example() {
    let sandbox = faults();
    let empty = sandbox.get(
        ORDERS,
        &[("X-API-Key", ADA), ("Prefer", "example=no-orders")],
    );
    assert_eq!(empty.status, 200);
    assert_eq!(empty.json(), json!({"data": []}));
    let down = sandbox.get("/api/v1", &[("Prefer", "example=maintenance")]);
    assert_eq!(down.status, 503);
    assert_eq!(
        down.json(),
        json!({"status": 503, "detail": "Down for maintenance."})
    );
    for (prefer, detail) in [
        ("example=nope", "Prefer example=nope: the configuration has no such example (its examples: no-orders, maintenance)"),
        ("example=no-orders", "Prefer example=no-orders: the example is for paths /api/v1/tables/*, not /api/v1"),
    ] {
        let refused = sandbox.get("/api/v1", &[("Prefer", prefer)]);
        assert_eq!(refused.status, 400, "{prefer}");
        assert!(
            refused.json()["detail"].as_str().unwrap().contains(detail),
            "{}",
            refused.text()
        );
    }
}

#[test]
fn latency_drop_and_truncate_per_request() {
    let sandbox = faults();
    let started = Instant::now();
    let slow = sandbox.get(ORDERS, &[("X-API-Key", ADA), ("Prefer", "latency=300")]);
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(slow.status, 200);
    assert_eq!(slow.json()["data"].as_array().unwrap().len(), 8);

    let mut dropped = sandbox.connect();
    dropped.send(b"GET /api/v1 HTTP/1.1\r\nHost: x\r\nPrefer: drop\r\n\r\n");
    assert!(dropped.read_response().is_none());

    let mut truncated = sandbox.connect();
    truncated.send(
        format!("GET {ORDERS} HTTP/1.1\r\nHost: x\r\nX-API-Key: {ADA}\r\nPrefer: truncate\r\n\r\n")
            .as_bytes(),
    );
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
    assert_eq!(
        raw.len() - head_end - 4,
        length / 2,
        "half of {length} bytes"
    );
}

#[test]
fn unknown_preferences_are_ignored_and_malformed_ones_named() {
    let sandbox = faults();
    let ignored = sandbox.get(
        ORDERS,
        &[
            ("X-API-Key", ADA),
            ("Prefer", "return=minimal, respond-async, wait=5"),
        ],
    );
    assert_eq!(ignored.status, 200);
    assert_eq!(ignored.json()["data"].as_array().unwrap().len(), 8);
    for (prefer, named) in [
        (
            "latency=abc",
            "Prefer latency=abc: the value must be whole milliseconds from 0 to 60000",
        ),
        (
            "code=2000",
            "Prefer code=2000: the value must be a status from 100 to 599",
        ),
        (
            "wait=1, drop=yes",
            "Prefer drop=yes: it takes no value (write drop or truncate)",
        ),
    ] {
        let refused = sandbox.get(ORDERS, &[("X-API-Key", ADA), ("Prefer", prefer)]);
        assert_eq!(refused.status, 400, "{prefer}");
        let body: Value = refused.json();
        assert_eq!(
            body["detail"],
            format!(
                "Injected fault: status 400, the Prefer header cannot be honoured: {named} (the \
                 sandbox runs with --faults)."
            )
        );
    }
}
