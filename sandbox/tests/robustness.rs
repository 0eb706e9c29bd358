//! Hostile and heavy traffic: oversized and malformed requests, half-sent
//! heads, long keep-alive runs and many connections. Every answer is a 4xx
//! (400, 408 or 431) or a success, never a 5xx, and other clients keep being
//! served throughout.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Conn, Sandbox, ADA, NO_LIMITS};
use serde_json::json;

const RECORDS: &str = "/api/v1/connections/crm/records?entity_id=contacts";

fn still_serving(sandbox: &Sandbox) {
    let response = sandbox.get_as_ada(RECORDS);
    assert_eq!(response.status, 200);
    assert_eq!(response.json().as_array().unwrap().len(), 5);
}

fn raw(sandbox: &Sandbox, bytes: &[u8]) -> (common::Response, Conn) {
    let mut conn = sandbox.connect();
    conn.send(bytes);
    let response = conn.read_response().expect("a response");
    (response, conn)
}

#[test]
fn a_64_kib_query_string_is_431_and_the_connection_closes() {
    let sandbox = Sandbox::start();
    let query = "a".repeat(64 * 1024);
    let request = format!(
        "GET /api/v1/tables/orders?{query} HTTP/1.1\r\nHost: x\r\nX-API-Key: {ADA}\r\n\r\n"
    );
    let (response, mut conn) = raw(&sandbox, request.as_bytes());
    assert_eq!(response.status, 431);
    assert!(conn.is_closed_by_server());
    still_serving(&sandbox);
}

#[test]
fn a_long_query_within_the_head_limit_reaches_the_gate() {
    let sandbox = Sandbox::start();
    let filter = format!("%7B%22k%22%3A%22{}%22%7D", "x".repeat(20_000));
    let response = sandbox.get_as_ada(&format!("{RECORDS}&filter={filter}"));
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json()["errors"],
        json!([{"parameter": "filter", "problem": "must be at most 8192 bytes of JSON; got 20008 bytes"}])
    );
}

#[test]
fn thousands_of_parameters_are_one_400_listing_the_first_twenty() {
    let sandbox = Sandbox::start();
    let params: Vec<String> = (0..3_000).map(|n| format!("p{n}=1")).collect();
    let response = sandbox.get_as_ada(&format!("{RECORDS}&{}", params.join("&")));
    assert_eq!(response.status, 400);
    let body = response.json();
    assert_eq!(
        body["detail"],
        "The request has 3000 invalid parameters: p0 is not a parameter of this operation; \
         accepted: entity_id, offset, limit, filter; p1 is not a parameter of this operation; \
         accepted: entity_id, offset, limit, filter; p2 is not a parameter of this operation; \
         accepted: entity_id, offset, limit, filter; and 2997 more (see errors)."
    );
    assert_eq!(body["errors"].as_array().unwrap().len(), 20);
    let repeated: Vec<&str> = (0..2_000).map(|_| "limit=1").collect();
    let response = sandbox.get_as_ada(&format!("{RECORDS}&{}", repeated.join("&")));
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json()["errors"],
        json!([{"parameter": "limit", "problem": "is given more than once; give it at most once"}])
    );
}

#[test]
fn invalid_percent_encoding_is_400() {
    let sandbox = Sandbox::start();
    let query = sandbox.get_as_ada("/api/v1/connections/crm/records?entity_id=%zz&limit=%4");
    assert_eq!(query.status, 400);
    assert_eq!(
        query.json()["errors"],
        json!([
            {"parameter": "entity_id", "problem": "value has a '%' that is not followed by two hex digits; encode '%' as %25"},
            {"parameter": "limit", "problem": "value has a '%' that is not followed by two hex digits; encode '%' as %25"},
            {"parameter": "entity_id", "problem": "is required"}
        ])
    );
    let bad_escape = sandbox.get_as_ada("/api/v1/tables/or%zzders");
    assert_eq!(bad_escape.status, 400);
    assert_eq!(
        bad_escape.json()["errors"],
        json!([{"parameter": "id", "problem": "path segment has a '%' that is not followed by two hex digits; encode '%' as %25"}])
    );
    let path = sandbox.get_as_ada("/api/v1/tables/%ff%fe");
    assert_eq!(path.status, 400);
    assert_eq!(
        path.json()["errors"],
        json!([{"parameter": "id", "problem": "path segment is not valid UTF-8 once percent-decoded"}])
    );
    let (raw_bytes, _) = raw(
        &sandbox,
        b"GET /api/v1/tables/\xff\xfe HTTP/1.1\r\nHost: x\r\nX-API-Key: acd_live_demo_ada\r\n\r\n",
    );
    assert_eq!(raw_bytes.status, 400);
    still_serving(&sandbox);
}

#[test]
fn malformed_requests_are_400() {
    let sandbox = Sandbox::start();
    for request in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET /api/v1 HTTP/9.9\r\n\r\n",
        b"GET /api/v1 HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
        b"GET /api/v1 HTTP/1.1\r\nHost: x\r\nX-Ctl: a\x01b\r\n\r\n",
        b"GET /api/v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
    ] {
        let (response, _) = raw(&sandbox, request);
        assert_eq!(response.status, 400, "{}", String::from_utf8_lossy(request));
    }
    still_serving(&sandbox);
}

#[test]
fn a_16_kib_header_is_served_and_larger_heads_are_431() {
    let sandbox = Sandbox::start();
    let filler = "f".repeat(16 * 1024);
    let response = sandbox.get(RECORDS, &[("X-API-Key", ADA), ("X-Filler", &filler)]);
    assert_eq!(response.status, 200);
    let key = format!("acd_live_{}", "k".repeat(16 * 1024));
    let long_key = sandbox.get(RECORDS, &[("X-API-Key", &key)]);
    assert_eq!(long_key.status, 401);
    assert_eq!(
        long_key.json()["detail"],
        "The X-API-Key header is malformed; send the key as issued."
    );
    let huge = "h".repeat(40 * 1024);
    let request = format!("GET {RECORDS} HTTP/1.1\r\nHost: x\r\nX-Filler: {huge}\r\n\r\n");
    let (response, mut conn) = raw(&sandbox, request.as_bytes());
    assert_eq!(response.status, 431);
    assert!(conn.is_closed_by_server());
    let many: String = (0..150).map(|n| format!("X-H{n}: v\r\n")).collect();
    let request = format!("GET {RECORDS} HTTP/1.1\r\nHost: x\r\n{many}\r\n");
    let (response, _) = raw(&sandbox, request.as_bytes());
    assert_eq!(response.status, 431);
    still_serving(&sandbox);
}

#[test]
fn a_half_sent_request_gets_408_while_others_are_served() {
    let sandbox = Sandbox::start_with(None, &["--header-timeout", "1"]);
    let mut slow = sandbox.connect();
    slow.send(b"GET /api/v1/tables/orders HTTP/1.1\r\nHost: x\r\nX-API-Ke");
    let mut held = Vec::new();
    for _ in 0..20 {
        let mut conn = sandbox.connect();
        conn.send(b"GET /api/v1 HTTP/1.1\r\n");
        held.push(conn);
    }
    still_serving(&sandbox);
    let response = slow.read_response().expect("a 408");
    assert_eq!(response.status, 408);
    assert_eq!(response.header("Connection"), Some("close"));
    assert_eq!(
        response.json(),
        json!({"detail": "The request head was not received within 1 s; the connection is closed.", "status": 408})
    );
    assert!(slow.read_response().is_none());
    for mut conn in held {
        assert_eq!(conn.read_response().unwrap().status, 408);
    }
    still_serving(&sandbox);
}

#[test]
fn an_idle_keep_alive_connection_is_closed_quietly() {
    let sandbox = Sandbox::start_with(None, &["--idle-timeout", "1"]);
    let mut conn = sandbox.connect();
    assert_eq!(conn.get("/api/v1", &[]).status, 200);
    assert!(conn.read_response().is_none());
}

#[test]
fn a_thousand_keep_alive_requests_on_one_connection() {
    let sandbox = Sandbox::with_config(NO_LIMITS);
    let mut conn = sandbox.connect();
    for n in 0..1_000u64 {
        let response = conn.get(RECORDS, &[("X-API-Key", ADA)]);
        assert_eq!(response.status, 200, "request {n}");
        assert_eq!(response.int("RateLimit-Remaining"), 999_999 - n);
    }
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let sandbox = Sandbox::start();
    let mut conn = sandbox.connect();
    conn.send(b"GET /api/v1 HTTP/1.1\r\nHost: x\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1 HTTP/1.1\r\nHost: x\r\n\r\n");
    let statuses: Vec<u16> = (0..3)
        .map(|_| conn.read_response().unwrap().status)
        .collect();
    assert_eq!(statuses, [200, 404, 200]);
}

#[test]
fn a_request_body_is_not_read_and_does_not_break_the_server() {
    let sandbox = Sandbox::start();
    let (response, mut conn) = raw(
        &sandbox,
        b"POST /api/v1/tables/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert_eq!(response.status, 405);
    assert_eq!(response.header("Allow"), Some("GET"));
    assert_eq!(
        conn.get("/api/v1", &[]).status,
        200,
        "the connection is kept"
    );
    let (response, mut conn) = raw(
        &sandbox,
        b"POST /api/v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\nonly a little",
    );
    assert_eq!(response.status, 405);
    assert!(
        conn.is_closed_by_server(),
        "an unread body closes the connection"
    );
    still_serving(&sandbox);
}

#[test]
fn a_hundred_concurrent_connections_are_all_served() {
    let sandbox = Sandbox::with_config(NO_LIMITS);
    let addr = sandbox.addr;
    let workers: Vec<_> = (0..100)
        .map(|_| {
            std::thread::spawn(move || {
                let mut conn = Conn::open(addr);
                (0..10)
                    .map(|_| conn.get(RECORDS, &[("X-API-Key", ADA)]).status)
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for worker in workers {
        statuses.extend(worker.join().unwrap());
    }
    assert_eq!(statuses.len(), 1_000);
    assert!(statuses.iter().all(|&status| status == 200));
    still_serving(&sandbox);
}
