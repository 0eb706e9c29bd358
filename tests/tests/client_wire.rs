//! The driver protocol through the client's byte-level entries (the path
//! every binding takes): config JSON in, call-spec JSON in, batch JSON out,
//! responses as status + header block + body, errors as their JSON object.
//! Every expected value is written by hand from `docs/driver-protocol.md`.

#![allow(clippy::unwrap_used)]

use acd_core::client::{CallId, Client, Entropy, ErrorCategory};
use serde_json::{json, Value};

const NOW: u64 = 1_700_000_000_000;

const CONFIG: &str = r#"{"seed": 7, "credentials": [
    {"id": "main", "type": "api_key", "secret": "acd_live_demo_ada", "user": "ada"}]}"#;

fn client() -> Client {
    Client::from_config_json(CONFIG.as_bytes(), Entropy::from_seed(0)).unwrap()
}

fn poll(client: &mut Client, now: u64) -> Value {
    serde_json::from_str(&client.poll_json(now)).unwrap()
}

#[test]
fn a_request_goes_out_and_its_answer_comes_back_as_json() {
    let mut client = client();
    let call = client
        .start_json(
            br#"{"type": "request", "operation": "listTableRecords",
                 "path": {"id": "orders"}, "query": [["limit", "2"]]}"#,
        )
        .unwrap();
    assert_eq!(call, CallId(1));
    assert_eq!(
        poll(&mut client, NOW),
        json!({
            "transmits": [{
                "call": 1, "method": "GET",
                "url": "http://127.0.0.1:8080/api/v1/tables/orders?limit=2",
                "headers": [["Accept", "application/json"], ["X-API-Key", "acd_live_demo_ada"]],
                // The core's defaults: 30 s per exchange, a 32 MiB body.
                "body": null, "timeout_at": NOW + 30_000, "max_body_bytes": 32 * 1024 * 1024
            }],
            "events": [],
            "timeout": null
        })
    );
    client
        .respond(
            call,
            200,
            "Content-Type: application/json\r\nRateLimit-Limit: 5\r\n",
            br#"{"data":[{"id":1},{"id":2}]}"#.to_vec(),
            NOW + 30,
        )
        .unwrap();
    assert_eq!(
        poll(&mut client, NOW + 30),
        json!({
            "transmits": [],
            "events": [
                {"call": 1, "type": "response", "status": 200,
                 "headers": [["Content-Type", "application/json"], ["RateLimit-Limit", "5"]],
                 "body": [{"id": 1}, {"id": 2}]},
                {"call": 1, "type": "done"}
            ],
            "timeout": null
        })
    );
    assert!(client.is_idle());
}

#[test]
fn a_failed_call_carries_its_error_object() {
    let mut client = client();
    let call = client
        .start_json(
            br#"{"type": "request", "operation": "listTableRecords", "path": {"id": "nope"}}"#,
        )
        .unwrap();
    poll(&mut client, NOW);
    client
        .respond(
            call,
            404,
            "",
            br#"{"detail":"table nope does not exist","status":404}"#.to_vec(),
            NOW + 5,
        )
        .unwrap();
    let batch = poll(&mut client, NOW + 5);
    let events = batch["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{batch}");
    assert_eq!(events[0]["type"], "failed");
    let error = &events[0]["error"];
    assert_eq!(error["type"], "api");
    assert_eq!(error["category"], "not_found");
    assert_eq!(error["status"], 404);
    assert_eq!(
        error["message"],
        "the API answered 404: table nope does not exist"
    );
}

#[test]
fn a_malformed_spec_is_refused_as_a_request_error_before_any_io() {
    let mut client = client();
    let error = client
        .start_json(br#"{"type": "table_pages", "table": "orders", "pagesize": 10}"#)
        .unwrap_err();
    assert_eq!(error.category(), ErrorCategory::InvalidRequest);
    assert!(
        error
            .to_string()
            .starts_with("the call spec is not valid: unknown field `pagesize`, expected one of"),
        "{error}"
    );
    let error = client
        .start_json(br#"{"type": "fetch_everything"}"#)
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("unknown variant `fetch_everything`"),
        "{error}"
    );
    assert_eq!(poll(&mut client, NOW)["transmits"], json!([]));
}

#[test]
fn a_table_pager_pages_by_offset() {
    let mut client = client();
    let call = client
        .start_json(br#"{"type": "table_pages", "table": "orders", "page_size": 2}"#)
        .unwrap();
    let batch = poll(&mut client, NOW);
    assert_eq!(
        batch["transmits"][0]["url"],
        "http://127.0.0.1:8080/api/v1/tables/orders?limit=2&offset=0"
    );
    client
        .respond(
            call,
            200,
            "",
            br#"{"data":[{"id":1},{"id":2}]}"#.to_vec(),
            NOW + 1,
        )
        .unwrap();
    let batch = poll(&mut client, NOW + 1);
    assert_eq!(
        batch["events"],
        json!([{"call": 1, "type": "page", "page": 1, "last": false,
                "records": [{"id": 1}, {"id": 2}]}])
    );
    assert_eq!(
        batch["transmits"][0]["url"],
        "http://127.0.0.1:8080/api/v1/tables/orders?limit=2&offset=2"
    );
}

#[test]
fn misuse_of_the_byte_entries_is_a_typed_error() {
    let mut client = client();
    let header = client
        .respond(CallId(9), 200, "no colon here", Vec::new(), NOW)
        .unwrap_err();
    assert_eq!(
        header.to_string(),
        "the response header block is not valid: header line 1 has no ':'; \
         write each header as `Name: value` on its own line"
    );
    let kind = client.fail(CallId(9), "gremlins", NOW).unwrap_err();
    assert_eq!(
        kind.to_string(),
        "the transport failure is not valid: \"gremlins\" is not one of connect, timeout, \
         interrupted, refused, dns, connect_timeout, blocked, reset, unknown, protocol"
    );
    let config =
        Client::from_config_json(br#"{"base_url": 5}"#, Entropy::from_seed(0)).unwrap_err();
    assert_eq!(config.category(), ErrorCategory::Config);
}

#[test]
fn limits_show_the_throttles_view_of_each_limit() {
    let mut client = client();
    assert_eq!(client.limits_json(), "[]", "nothing modelled before a send");
    let call = client
        .start_json(
            br#"{"type": "request", "operation": "listTableRecords", "path": {"id": "orders"}}"#,
        )
        .unwrap();
    poll(&mut client, NOW);
    client
        .respond(
            call,
            200,
            "RateLimit-Limit: 5\nRateLimit-Remaining: 3\nRateLimit-Reset: 40",
            br#"{"data":[]}"#.to_vec(),
            NOW + 50,
        )
        .unwrap();
    let limits: Value = serde_json::from_str(&client.limits_json()).unwrap();
    // The credential's 100 per 60 s, its window opened by the send at NOW;
    // the user's table reads as the headers tell (3 left, reset 40 s after
    // the answer).
    assert_eq!(
        limits,
        json!([
            {"name": "credential", "requests": 100, "window_seconds": 60, "remaining": 99,
             "reset_at": NOW + 60_000},
            {"name": "user_table_reads", "requests": 5, "window_seconds": 60, "remaining": 3,
             "reset_at": NOW + 50 + 40_000}
        ])
    );
}
