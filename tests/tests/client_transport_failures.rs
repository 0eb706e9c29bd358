//! The transport-failure vocabulary of `fail(call, kind)`: from the
//! transport's facts (never sent, sent and the answer lost, timed out before
//! or after sending) core alone decides the category, the sentence and
//! whether a POST may be retried. Expected values are written by hand from
//! `docs/driver-protocol.md` ("Transport failures").

#![allow(clippy::unwrap_used)]

use acd_core::client::{url_origin, Client, Entropy};
use serde_json::Value;

const NOW: u64 = 1_700_000_000_000;

const CONFIG: &str = r#"{"seed": 7, "base_url": "http://127.0.0.1:9/",
    "credentials": [{"id": "main", "type": "api_key", "secret": "acd_live_demo_ada", "user": "ada"}]}"#;

const POST: &[u8] = br#"{"type": "request", "operation": "createAgentRun",
    "path": {"agent_id": "a1"}, "body": {"input": "x"}, "options": {"max_attempts": 2}}"#;

fn poll(client: &mut Client, now: u64) -> Value {
    serde_json::from_str(&client.poll_json(now)).unwrap()
}

/// Fails the first POST attempt with `kind`; returns the events after it.
fn post_failing_with(kind: &str) -> Vec<Value> {
    let mut client = Client::from_config_json(CONFIG.as_bytes(), Entropy::from_seed(0)).unwrap();
    let call = client.start_json(POST).unwrap();
    let batch = poll(&mut client, NOW);
    assert_eq!(batch["transmits"].as_array().unwrap().len(), 1);
    client.fail(call, kind, NOW + 1).unwrap();
    poll(&mut client, NOW + 1)["events"]
        .as_array()
        .unwrap()
        .clone()
}

fn retried(events: &[Value]) -> bool {
    events.iter().any(|event| event["type"] == "retrying")
}

fn failed(events: &[Value]) -> &Value {
    let event = events
        .iter()
        .find(|event| event["type"] == "failed")
        .unwrap();
    &event["error"]
}

#[test]
fn a_never_sent_post_is_retried_whatever_the_reason() {
    for (kind, said) in [
        ("connect", "could not connect"),
        ("refused", "could not connect (connection refused)"),
        ("dns", "could not connect (the host name did not resolve)"),
        ("connect_timeout", "timed out while connecting"),
        ("blocked", "could not connect (blocked by the HTTP client)"),
    ] {
        let events = post_failing_with(kind);
        assert!(retried(&events), "{kind}: {events:?}");
        let retrying = events.iter().find(|e| e["type"] == "retrying").unwrap();
        assert_eq!(retrying["failure"], kind);
        let message = retrying["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("createAgentRun: attempt 1 of 2 {said};")),
            "{message}"
        );
    }
}

#[test]
fn a_post_that_may_have_been_processed_is_never_retried() {
    for (kind, category) in [
        ("timeout", "timeout"),
        ("interrupted", "interrupted"),
        ("reset", "interrupted"),
        ("unknown", "connection"),
        ("protocol", "protocol"),
    ] {
        let events = post_failing_with(kind);
        assert!(!retried(&events), "{kind}: {events:?}");
        let error = failed(&events);
        assert_eq!(error["category"], category, "{kind}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("may have processed"), "{kind}: {message}");
    }
}

#[test]
fn a_connection_error_names_the_origin_and_the_reason_but_no_path() {
    let mut client = Client::from_config_json(CONFIG.as_bytes(), Entropy::from_seed(0)).unwrap();
    let call = client
        .start_json(
            br#"{"type": "request", "operation": "listTableRecords", "path": {"id": "t"},
                 "query": [["limit", "2"]], "options": {"max_attempts": 1}}"#,
        )
        .unwrap();
    poll(&mut client, NOW);
    client.fail(call, "refused", NOW + 1).unwrap();
    let events = poll(&mut client, NOW + 1)["events"].clone();
    let error = failed(events.as_array().unwrap()).clone();
    assert_eq!(error["category"], "connection");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(
            "the request to http://127.0.0.1:9 failed in transport: could not connect \
             (connection refused), so the request was never sent"
        ),
        "{message}"
    );
    assert!(
        !message.contains("limit=2") && !message.contains("/api/"),
        "{message}"
    );
}

#[test]
fn an_unknown_kind_is_refused_naming_every_kind() {
    let mut client = Client::from_config_json(CONFIG.as_bytes(), Entropy::from_seed(0)).unwrap();
    let call = client.start_json(POST).unwrap();
    poll(&mut client, NOW);
    let error = client.fail(call, "exploded", NOW).unwrap_err().to_string();
    assert!(
        error.contains(
            "connect, timeout, interrupted, refused, dns, connect_timeout, blocked, reset, \
             unknown, protocol"
        ),
        "{error}"
    );
}

#[test]
fn an_origin_is_scheme_host_and_port_only() {
    assert_eq!(
        url_origin("https://u:p@api.example.com/x?key=1").as_deref(),
        Some("https://api.example.com:443")
    );
    assert_eq!(
        url_origin("http://[::1]/a").as_deref(),
        Some("http://[::1]:80")
    );
    assert_eq!(
        url_origin("http://[::1]:8080/a").as_deref(),
        Some("http://[::1]:8080")
    );
    assert_eq!(url_origin("no scheme"), None);
}
