//! The typed call kinds (`index`, `table_read`, `connection_read`,
//! `run_create`, `run_get`, `run_wait`): each JSON spec, with the caller's
//! arguments only, becomes the request of its catalogue operation. The
//! expected URLs and bodies are written by hand from the spec's parameter
//! table (`docs/driver-protocol.md`).

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{CallSpec, Client, ClientError, ErrorCategory};
use acd_tests::client_support::{self, send, NOW};

/// The method, URL and body of the first request of the spec `json`.
fn first(json: &str) -> (String, String, Option<String>) {
    let mut client: Client = client_support::client().unwrap();
    let spec = CallSpec::from_json(json.as_bytes()).unwrap_or_else(|e| panic!("{json}: {e}"));
    client.start(spec).unwrap();
    let transmit = send(&mut client, NOW).unwrap();
    let body = transmit
        .request
        .body
        .as_ref()
        .map(|body| String::from_utf8(body.clone()).unwrap());
    (
        transmit.request.method.clone(),
        transmit.request.url.clone(),
        body,
    )
}

fn url(json: &str) -> String {
    first(json).1
}

const BASE: &str = "http://127.0.0.1:8080/api/v1";

#[test]
fn index_reads_the_api_index() {
    assert_eq!(url(r#"{"type":"index"}"#), BASE);
}

#[test]
fn table_read_sends_the_arguments_by_the_catalogues_names() {
    assert_eq!(
        url(r#"{"type":"table_read","table":"orders"}"#),
        format!("{BASE}/tables/orders")
    );
    assert_eq!(
        url(
            r#"{"type":"table_read","table":"orders","page_size":2,"offset":4,"order_by":"amount","descending":true}"#
        ),
        format!("{BASE}/tables/orders?limit=2&offset=4&order_by=amount&direction=desc")
    );
    // Ascending is the spec's default: no direction is sent.
    assert_eq!(
        url(
            r#"{"type":"table_read","table":"orders","order_by":"id","descending":false,"after":"o-3"}"#
        ),
        format!("{BASE}/tables/orders?order_by=id&after=o-3")
    );
}

#[test]
fn connection_read_takes_the_filter_as_a_json_value_or_text() {
    let value = url(
        r#"{"type":"connection_read","connection":"crm","entity":"contacts","page_size":5,"filter":{"city":"Oslo"}}"#,
    );
    let text = url(
        r#"{"type":"connection_read","connection":"crm","entity":"contacts","page_size":5,"filter":"{\"city\":\"Oslo\"}"}"#,
    );
    assert_eq!(value, text);
    assert_eq!(
        value,
        format!(
            "{BASE}/connections/crm/records?entity_id=contacts&limit=5&filter=%7B%22city%22%3A%22Oslo%22%7D"
        )
    );
}

#[test]
fn connection_pages_takes_the_filter_as_a_json_value_too() {
    assert_eq!(
        url(
            r#"{"type":"connection_pages","connection":"crm","entity":"contacts","page_size":5,"filter":{"city":"Oslo"}}"#
        ),
        url(
            r#"{"type":"connection_pages","connection":"crm","entity":"contacts","page_size":5,"filter":"{\"city\":\"Oslo\"}"}"#
        ),
    );
}

#[test]
fn run_create_has_one_body_shape() {
    let (method, url, body) = first(r#"{"type":"run_create","agent_id":"a1","input":{"q":1}}"#);
    assert_eq!(method, "POST");
    assert_eq!(url, "http://127.0.0.1:8080/api/v1/agents/a1/runs");
    assert_eq!(body.as_deref(), Some(r#"{"input":{"q":1}}"#));
    let (_, _, body) = first(r#"{"type":"run_create","agent_id":"a1"}"#);
    assert_eq!(body.as_deref(), Some("{}"));
    let (_, _, body) = first(r#"{"type":"run_create","agent_id":"a1","input":null}"#);
    assert_eq!(body.as_deref(), Some("{}"));
}

#[test]
fn run_get_and_run_wait_read_the_run() {
    let run = "http://127.0.0.1:8080/api/v1/runs/r1";
    assert_eq!(url(r#"{"type":"run_get","run_id":"r1"}"#), run);
    assert_eq!(
        url(r#"{"type":"run_wait","run_id":"r1","interval_ms":500}"#),
        run
    );
    // The former name stays accepted.
    assert_eq!(url(r#"{"type":"run_poll","run_id":"r1"}"#), run);
    let spec = CallSpec::from_json(br#"{"type":"run_poll","run_id":"r1"}"#).unwrap();
    assert!(spec.to_json().starts_with(r#"{"type":"run_wait","#));
}

#[test]
fn unknown_members_of_a_typed_kind_are_refused_before_sending() {
    let error = CallSpec::from_json(br#"{"type":"table_read","table":"t","pagesize":2}"#)
        .err()
        .unwrap();
    assert!(
        error.to_string().contains("unknown field `pagesize`"),
        "{error}"
    );
    assert_eq!(error.category(), ErrorCategory::InvalidRequest);
    assert!(matches!(error, ClientError::InvalidInput { .. }));
}
