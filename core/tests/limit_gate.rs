//! The gate on the new engine: the four limits stacked, all-or-none, with
//! fixed windows by default and GCRA on request.

use acd_core::gate::demo::{ADA_KEY, ADA_SECOND_KEY};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer};
use acd_core::limit::LimitAlgorithm;

const NOW: u64 = 1_700_000_080_000; // 40 s into a minute

fn send(gate: &Gate, request: &GateRequest, now: u64) -> GateResponse {
    match gate.decide(request, now) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

fn table_read(key: &str) -> GateRequest {
    GateRequest::get("/api/v1/tables/orders", "203.0.113.7").with_header("X-API-Key", key)
}

fn header<'a>(response: &'a GateResponse, name: &str) -> &'a str {
    response.header(name).unwrap_or("")
}

#[test]
fn table_reads_are_limited_per_user_and_a_refusal_charges_nothing() {
    let gate = Gate::demo(GateConfig::default()).unwrap();
    for expected in ["4", "3", "2", "1", "0"] {
        let response = send(&gate, &table_read(ADA_KEY), NOW);
        assert_eq!(response.status, 200);
        assert_eq!(header(&response, "RateLimit-Remaining"), expected);
        assert_eq!(header(&response, "RateLimit-Limit"), "5");
    }
    // Ada's second key shares her per-user limit.
    let refused = send(&gate, &table_read(ADA_SECOND_KEY), NOW);
    assert_eq!(refused.status, 429);
    assert_eq!(header(&refused, "Retry-After"), "20");
    assert_eq!(header(&refused, "RateLimit-Limit"), "5");
    assert_eq!(header(&refused, "x-ratelimit-reset"), "1700000100");
    // The refused request did not count against the second key's credential
    // limit: its next request (no per-user limit) leaves 99 of 100.
    let connection = GateRequest::get(
        "/api/v1/connections/crm/records?entity_id=e1",
        "203.0.113.7",
    )
    .with_header("X-API-Key", ADA_SECOND_KEY);
    let response = send(&gate, &connection, NOW);
    assert_eq!(
        response.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&response.body)
    );
    assert_eq!(header(&response, "RateLimit-Remaining"), "99");
}

#[test]
fn the_public_index_is_limited_per_client_ip() {
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let index = |ip: &str| GateRequest::get("/api/v1", ip);
    for _ in 0..100 {
        assert_eq!(send(&gate, &index("198.51.100.1"), NOW).status, 200);
    }
    let refused = send(&gate, &index("198.51.100.1"), NOW);
    assert_eq!(refused.status, 429);
    assert_eq!(header(&refused, "Retry-After"), "20");
    assert_eq!(send(&gate, &index("198.51.100.2"), NOW).status, 200);
    assert_eq!(
        send(&gate, &index("198.51.100.1"), NOW + 20_000).status,
        200
    );
}

#[test]
fn a_gcra_gate_spreads_the_quota_smoothly() {
    let gate = Gate::in_memory_with(
        GateConfig::default(),
        acd_core::gate::demo::credentials(),
        LimitAlgorithm::Gcra,
    )
    .unwrap();
    for _ in 0..5 {
        assert_eq!(send(&gate, &table_read(ADA_KEY), NOW).status, 200);
    }
    let refused = send(&gate, &table_read(ADA_KEY), NOW);
    assert_eq!(refused.status, 429);
    // One read back every 12 s, not at the minute boundary.
    assert_eq!(header(&refused, "Retry-After"), "12");
    assert_eq!(send(&gate, &table_read(ADA_KEY), NOW + 11_999).status, 429);
    assert_eq!(send(&gate, &table_read(ADA_KEY), NOW + 12_000).status, 200);
    // No boundary burst: 20 s later (a new fixed window) only one more.
    assert_eq!(send(&gate, &table_read(ADA_KEY), NOW + 24_000).status, 200);
    assert_eq!(send(&gate, &table_read(ADA_KEY), NOW + 24_000).status, 429);
}
