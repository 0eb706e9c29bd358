//! The two-step credential form: the gate names the secret it needs, the
//! caller answers (from a remote or async store), and the decision is the
//! same as with an in-memory store holding that record.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::{credentials, ADA_KEY, ADA_TOKEN};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse, ResourceAnswer};
use acd_core::model::CredentialStore;

fn finish(decision: Decision) -> GateResponse {
    match decision {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

#[test]
fn the_gate_names_the_secret_and_decides_with_the_answer() {
    let in_memory = Gate::demo(GateConfig::default()).unwrap();
    let two_step = Gate::demo(GateConfig::default()).unwrap();
    let store = credentials();
    let now = 1_700_000_000_000;
    for request in [
        GateRequest::get("/api/v1/tables/t", "192.0.2.1").with_header("X-API-Key", ADA_KEY),
        GateRequest::get("/api/v1/tables/t", "192.0.2.1")
            .with_header("Authorization", format!("Bearer {ADA_TOKEN}")),
        GateRequest::get("/api/v1/connections/c/records?entity_id=e", "192.0.2.1")
            .with_header("Authorization", format!("Bearer {ADA_TOKEN}")),
        GateRequest::get("/api/v1/tables/t", "192.0.2.1")
            .with_header("X-API-Key", "acd_live_unknown"),
        GateRequest::get("/api/v1/tables/t", "192.0.2.1"),
        GateRequest::get("/api/v1", "192.0.2.1").with_header("X-API-Key", ADA_KEY),
    ] {
        let secret = two_step.credential_to_look_up(&request);
        let record = secret.and_then(|secret| store.lookup(secret));
        let expected = finish(in_memory.decide(&request, now));
        let actual = finish(two_step.decide_answered(&request, record, now));
        assert_eq!(actual, expected, "{request}");
    }
}

#[test]
fn no_secret_is_asked_for_public_or_unroutable_requests() {
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let public = GateRequest::get("/api/v1", "192.0.2.1").with_header("X-API-Key", ADA_KEY);
    assert_eq!(gate.credential_to_look_up(&public), None);
    let nowhere = GateRequest::get("/nowhere", "192.0.2.1").with_header("X-API-Key", ADA_KEY);
    assert_eq!(gate.credential_to_look_up(&nowhere), None);
    let malformed =
        GateRequest::get("/api/v1/tables/t", "192.0.2.1").with_header("X-API-Key", "bad key");
    assert_eq!(gate.credential_to_look_up(&malformed), None);
    let table = GateRequest::get("/api/v1/tables/t", "192.0.2.1").with_header("X-API-Key", ADA_KEY);
    assert_eq!(gate.credential_to_look_up(&table), Some(ADA_KEY));
}

#[test]
fn request_display_never_shows_headers_or_query() {
    let request =
        GateRequest::get("/api/v1/tables/t?after=x", "192.0.2.1").with_header("X-API-Key", ADA_KEY);
    assert_eq!(request.to_string(), "GET /api/v1/tables/t");
}
