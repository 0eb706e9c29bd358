//! The test server (`acd_core::testing::TestServer`) at byte level, as the
//! Python, Kotlin and JavaScript helpers drive it: every expected status,
//! header, body and instant below is written by hand from the spec's
//! limits and the server's documented behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::client::TransportFailure;
use acd_core::testing::{Exchange, Fault, TestServer, TestServerError};
use acd_core::UnixMillis;
use serde_json::{json, Value};

/// 2023-11-14T22:13:20Z; the aligned 60 s window holding it ends 40 s later.
const T0: u64 = 1_700_000_000_000;
const ADA: &str = "X-API-Key: acd_live_demo_ada\nAccept: application/json";
const BASE: &str = "http://127.0.0.1:8080/api/v1";

fn at(offset_ms: u64) -> UnixMillis {
    UnixMillis::new(T0 + offset_ms)
}

fn server(config: Value) -> TestServer {
    TestServer::from_json(config.to_string().as_bytes()).unwrap()
}

fn get(server: &mut TestServer, path: &str, offset_ms: u64) -> Exchange {
    server
        .exchange("GET", &format!("{BASE}{path}"), ADA, None, at(offset_ms))
        .unwrap()
}

/// Status, headers and the body as JSON of a response.
fn parts(exchange: &Exchange) -> (u16, Vec<(String, String)>, Value) {
    match exchange {
        Exchange::Response {
            status,
            headers,
            body,
            ..
        } => (
            *status,
            headers.clone(),
            serde_json::from_slice(body).unwrap(),
        ),
        Exchange::Failure { failure, .. } => panic!("expected a response, got {failure:?}"),
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(candidate, _)| candidate.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

#[test]
fn a_table_is_served_page_by_page_in_the_order_asked() {
    let mut server = server(json!({
        "tables": {"orders": [
            {"id": 1, "total": 30}, {"id": 2, "total": 10}, {"id": 3, "total": 50},
            {"id": 4, "total": 20}, {"id": 5, "total": 40}
        ]},
        "date_header": false
    }));
    let pages: Vec<Value> = [0, 2, 4]
        .iter()
        .map(|offset| {
            parts(&get(
                &mut server,
                &format!("/tables/orders?limit=2&offset={offset}"),
                0,
            ))
            .2
        })
        .collect();
    assert_eq!(
        pages,
        [
            json!({"data": [{"id": 1, "total": 30}, {"id": 2, "total": 10}]}),
            json!({"data": [{"id": 3, "total": 50}, {"id": 4, "total": 20}]}),
            json!({"data": [{"id": 5, "total": 40}]}),
        ]
    );
    let sorted = parts(&get(
        &mut server,
        "/tables/orders?limit=3&order_by=total&direction=desc",
        0,
    ));
    assert_eq!(
        sorted.2,
        json!({"data": [{"id": 3, "total": 50}, {"id": 5, "total": 40}, {"id": 1, "total": 30}]})
    );
    let missing = parts(&get(&mut server, "/tables/nope", 0));
    assert_eq!(missing.0, 404);
    assert_eq!(server.statuses(), [200, 200, 200, 200, 404]);
}

#[test]
fn a_count_serves_sample_records_and_connections_filter() {
    let mut server = server(json!({
        "tables": {"big": 3},
        "connections": {"crm": {"contacts": [
            {"id": 1, "city": "Paris"}, {"id": 2, "city": "Oslo"}, {"id": 3, "city": "Paris"}
        ]}}
    }));
    assert_eq!(
        parts(&get(&mut server, "/tables/big?limit=2&offset=2", 0)).2,
        json!({"data": [{"id": 3, "name": "row-00003", "score": 757}]})
    );
    let filter = "%7B%22city%22%3A%22Paris%22%7D"; // {"city":"Paris"}
    assert_eq!(
        parts(&get(
            &mut server,
            &format!("/connections/crm/records?entity_id=contacts&filter={filter}"),
            0
        ))
        .2,
        // Connection reads answer a top-level array (no `data` envelope).
        json!([{"id": 1, "city": "Paris"}, {"id": 3, "city": "Paris"}])
    );
}

#[test]
fn an_overridden_limit_answers_429_with_its_headers() {
    let mut server = server(json!({
        "tables": {"orders": 1},
        "limits": {"user_table_reads": {"requests": 2, "window_ms": 60000}},
        "date_header": false
    }));
    let first = parts(&get(&mut server, "/tables/orders", 0));
    assert_eq!(first.0, 200);
    assert_eq!(header(&first.1, "RateLimit-Limit"), Some("2"));
    assert_eq!(header(&first.1, "RateLimit-Remaining"), Some("1"));
    assert_eq!(get(&mut server, "/tables/orders", 0).status(), Some(200));
    let refused = parts(&get(&mut server, "/tables/orders", 0));
    assert_eq!(refused.0, 429);
    let expected: Vec<(String, String)> = [
        ("Content-Type", "application/json"),
        ("RateLimit-Limit", "2"),
        ("RateLimit-Remaining", "0"),
        ("RateLimit-Reset", "40"),
        ("Retry-After", "40"),
        ("x-ratelimit-limit", "2"),
        ("x-ratelimit-remaining", "0"),
        ("x-ratelimit-reset", "1700000040"),
    ]
    .iter()
    .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
    .collect();
    assert_eq!(refused.1, expected);
    assert_eq!(
        refused.2,
        json!({
            "status": 429,
            "detail": "Rate limit exceeded: the user_table_reads limit allows 2 requests per 60 s; retry in 40 s.",
            "limit": "user_table_reads"
        })
    );
    // The window ends 40 s after T0: the next read passes.
    assert_eq!(
        get(&mut server, "/tables/orders", 40_000).status(),
        Some(200)
    );
    assert_eq!(server.statuses(), [200, 200, 429, 200]);
}

#[test]
fn a_created_run_goes_queued_running_then_final_as_configured() {
    let mut server = server(json!({
        "new_runs": {"queued_ms": 1000, "finishes_after_ms": 3000, "final_state": "failed"},
        "runs": {"nightly": {"finishes_after_ms": 500, "final_state": "succeeded"}},
        "start_ms": T0
    }));
    let created = server
        .exchange(
            "POST",
            &format!("{BASE}/agents/a1/runs"),
            "X-API-Key: acd_live_demo_ada\nContent-Type: application/json",
            Some(br#"{"input": "go"}"#),
            at(100),
        )
        .unwrap();
    let (status, _, body) = parts(&created);
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"data": {"id": "run_1", "agent_id": "a1", "status": "queued"}})
    );
    // Created at T0 + 100: queued until + 1100, running until + 3100.
    let status_at = |server: &mut TestServer, run: &str, offset| {
        parts(&get(server, &format!("/runs/{run}"), offset)).2["data"]["status"].clone()
    };
    assert_eq!(status_at(&mut server, "run_1", 1_099), "queued");
    assert_eq!(status_at(&mut server, "run_1", 1_100), "running");
    assert_eq!(status_at(&mut server, "run_1", 3_099), "running");
    assert_eq!(status_at(&mut server, "run_1", 3_100), "failed");
    // A scripted run starts with the server (start_ms): running, then final.
    assert_eq!(status_at(&mut server, "nightly", 499), "running");
    assert_eq!(status_at(&mut server, "nightly", 500), "succeeded");
    let second = server
        .exchange(
            "POST",
            &format!("{BASE}/agents/a2/runs"),
            ADA,
            None,
            at(5_000),
        )
        .unwrap();
    assert_eq!(
        parts(&second).2,
        json!({"data": {"id": "run_2", "agent_id": "a2", "status": "queued"}})
    );
    assert_eq!(parts(&get(&mut server, "/runs/run_9", 5_000)).0, 404);
}

#[test]
fn answers_are_due_after_the_latency_and_timeouts_after_the_timeout() {
    let mut server = server(json!({
        "latency_ms": 250,
        "timeout_ms": 7000,
        "faults": [{"failure": "timeout", "operation": "getRun"}]
    }));
    let index = get(&mut server, "", 1_000);
    assert_eq!(index.status(), Some(200));
    assert_eq!(index.deliver_at(), at(1_250));
    let lost = get(&mut server, "/runs/run_1", 2_000);
    assert_eq!(
        lost,
        Exchange::Failure {
            failure: TransportFailure::Timeout,
            deliver_at: at(9_000),
        }
    );
    assert_eq!(
        lost.to_json(),
        format!(r#"{{"failure":"timeout","deliver_at":{}}}"#, T0 + 9_000)
    );
}

#[test]
fn a_status_rule_fails_every_second_matching_request_after_the_gate_charged_it() {
    let mut server = server(json!({
        "tables": {"orders": 1},
        "faults": [{"status": 503, "every": 2, "operation": "listTableRecords"}],
        "date_header": false
    }));
    let statuses: Vec<Option<u16>> = ["/tables/orders", "", "/tables/orders", "/tables/orders"]
        .iter()
        .map(|path| get(&mut server, path, 0).status())
        .collect();
    assert_eq!(statuses, [Some(200), Some(200), Some(503), Some(200)]);
    // The 503s keep the gate's headers and spend quota: the per-user table
    // limit (5 per 60 s) has 1 left after the fourth read.
    let failed = server
        .log()
        .iter()
        .map(|entry| (entry.path.as_str(), entry.status, entry.injected))
        .collect::<Vec<_>>();
    assert_eq!(
        failed,
        [
            ("/api/v1/tables/orders", Some(200), false),
            ("/api/v1", Some(200), false),
            ("/api/v1/tables/orders", Some(503), true),
            ("/api/v1/tables/orders", Some(200), false),
        ]
    );
    let fifth = parts(&get(&mut server, "/tables/orders", 0));
    assert_eq!(fifth.0, 503, "the 4th matching request fails too");
    assert_eq!(header(&fifth.1, "RateLimit-Remaining"), Some("1"));
    assert_eq!(
        fifth.2,
        json!({"status": 503, "detail": "The backend failed (injected by the test server)."})
    );
}

#[test]
fn a_connect_failure_never_reaches_the_gate_and_times_caps_a_rule() {
    let mut server = server(json!({
        "tables": {"orders": 1},
        "latency_ms": 30,
        "faults": [{"failure": "connect", "times": 1}]
    }));
    let refused = get(&mut server, "/tables/orders", 0);
    assert_eq!(
        refused,
        Exchange::Failure {
            failure: TransportFailure::Connect,
            deliver_at: at(30),
        }
    );
    // Nothing was charged: the first read that arrives sees 4 of 5 left.
    let (status, headers, _) = parts(&get(&mut server, "/tables/orders", 0));
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "RateLimit-Remaining"), Some("4"));
    let log: Value = serde_json::from_str(&server.log_json()).unwrap();
    assert_eq!(log[0]["failure"], "connect");
    assert_eq!(log[0]["status"], Value::Null);
    assert_eq!(log[1]["status"], 200);
    assert_eq!(server.statuses(), [200]);
}

#[test]
fn per_mille_rules_are_seeded() {
    let run = |seed: u64| {
        let mut server = server(json!({
            "tables": {"t": 1},
            "limits": {"user_table_reads": {"requests": 100, "window_ms": 60000}},
            "faults": [{"status": 500, "per_mille": 500}],
            "seed": seed
        }));
        (0..40)
            .map(|n| get(&mut server, "/tables/t", n).status().unwrap())
            .collect::<Vec<u16>>()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
    let failed = run(3).iter().filter(|status| **status == 500).count();
    assert!(
        (5..=35).contains(&failed),
        "{failed} of 40 at 500 per mille"
    );
}

#[test]
fn status_faults_spare_what_the_gate_answers_itself() {
    // The index and a 401 need no backend, so a backend failure cannot hit them.
    let mut server = server(json!({"faults": [{"status": 503}]}));
    assert_eq!(get(&mut server, "", 0).status(), Some(200));
    let unauthenticated = server
        .exchange("GET", &format!("{BASE}/tables/t"), "", None, at(0))
        .unwrap();
    assert_eq!(unauthenticated.status(), Some(401));
    assert_eq!(get(&mut server, "/tables/t", 0).status(), Some(503));
}

#[test]
fn the_rust_hook_comes_before_the_rules() {
    let mut server = TestServer::from_json(br#"{"tables": {"t": 1}, "faults": [{"status": 502}]}"#)
        .unwrap()
        .with_fault_hook(|request| match request.sequence {
            1 => Some(Fault::Transport(TransportFailure::Interrupted)),
            2 if request.operation == Some("listTableRecords")
                && request.path == "/api/v1/tables/t" =>
            {
                Some(Fault::Status(504))
            }
            _ => None,
        });
    let got: Vec<Option<u16>> = (0..3)
        .map(|_| get(&mut server, "/tables/t", 0).status())
        .collect();
    assert_eq!(got, [None, Some(504), Some(502)]);
}

#[test]
fn the_exchange_json_is_the_documented_shape() {
    let mut server =
        server(json!({"tables": {"t": [{"id": 1}]}, "latency_ms": 5, "date_header": false}));
    let answer = get(&mut server, "/tables/t", 0).to_json();
    let parsed: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        parsed,
        json!({
            "status": 200,
            "headers": [
                ["Content-Type", "application/json"],
                ["RateLimit-Limit", "5"],
                ["RateLimit-Remaining", "4"],
                ["RateLimit-Reset", "40"]
            ],
            "body": "{\"data\":[{\"id\":1}]}",
            "deliver_at": T0 + 5
        })
    );
    let with_date = TestServer::from_json(b"{}")
        .unwrap()
        .exchange("GET", "/api/v1", "", None, at(0))
        .unwrap();
    let (_, headers, _) = parts(&with_date);
    assert_eq!(
        header(&headers, "Date"),
        Some("Tue, 14 Nov 2023 22:13:20 GMT")
    );
}

#[test]
fn configurations_and_requests_it_cannot_use_are_typed_errors_with_sentences() {
    let config_error = |json: Value| match TestServer::from_json(json.to_string().as_bytes()) {
        Err(TestServerError::Config { problem }) => problem,
        other => panic!("expected a configuration error, got {other:?}"),
    };
    let problem = config_error(json!({"tabels": {}}));
    assert!(problem.contains("unknown field `tabels`"), "{problem}");
    assert_eq!(
        config_error(json!({"limits": {"table_reads": {"requests": 1, "window_ms": 1000}}})),
        "limits: the gate has no limit named table_reads; its limits are agent_runs, client_ip, credential, user_table_reads"
    );
    assert_eq!(
        config_error(json!({"faults": [{"status": 503, "operation": "listTables"}]})),
        "faults[0]: the gate serves no operation \"listTables\"; it serves getApiIndex, listTableRecords, listConnectionRecords, createAgentRun, getRun"
    );
    assert_eq!(
        config_error(json!({"faults": [{"status": 503, "per_mille": 10, "every": 2}]})),
        "faults[0]: give per_mille or every, not both"
    );
    let problem =
        config_error(json!({"limits": {"credential": {"requests": 0, "window_ms": 1000}}}));
    assert!(problem.contains("limits.credential"), "{problem}");
    let mut server = server(json!({}));
    let error = server
        .exchange("GET", "/api/v1", "X-API-Key acd_live_demo_ada", None, at(0))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the test server cannot read the request: header line 1 has no ':'; write each header as `Name: value` on its own line"
    );
    assert!(server.log().is_empty());
}
