//! The limits step handed to the caller: `Gate::prepare` names every limit
//! a request must pass, the caller checks them in its own store (here a
//! second in-process limiter standing in for a remote one) and resumes;
//! the responses are exactly those of `Gate::decide`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::{credentials, ADA_KEY, ADA_TOKEN, ADA_TOKEN_NO_SCOPE};
use acd_core::gate::{
    Decision, Gate, GateConfig, GateRequest, GateResponse, PendingLimits, ResourceAnswer,
};
use acd_core::limit::{self, LimitAlgorithm, LimiterConfig, LimiterUnavailable};
use acd_core::model::{Catalogue, CredentialStore};
use acd_core::UnixMillis;

const NOW: u64 = 1_700_000_000_000;

fn finish(decision: Decision) -> GateResponse {
    match decision {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

fn config() -> GateConfig {
    let mut config = GateConfig::default();
    config.catalogue.add(Catalogue::create_agent_run()).unwrap();
    config
}

fn requests() -> Vec<GateRequest> {
    let post = |target: &str| GateRequest {
        method: "POST".into(),
        ..GateRequest::get(target, "192.0.2.1").with_header("X-API-Key", ADA_KEY)
    };
    vec![
        GateRequest::get("/api/v1/tables/t", "192.0.2.1").with_header("X-API-Key", ADA_KEY),
        GateRequest::get("/api/v1/tables/t?limit=0&bogus=1", "192.0.2.1")
            .with_header("X-API-Key", ADA_KEY),
        GateRequest::get("/api/v1/tables/t", "192.0.2.1")
            .with_header("Authorization", format!("Bearer {ADA_TOKEN_NO_SCOPE}")),
        GateRequest::get("/api/v1/tables/t", "192.0.2.1")
            .with_header("X-API-Key", "acd_live_nobody"),
        GateRequest::get("/api/v1/nowhere", "192.0.2.1"),
        GateRequest::get("/api/v1", "192.0.2.1"),
        post("/api/v1/agents/a%31/runs"),
        post("/api/v1/agents/a1/runs"),
        post("/api/v1/tables/t"),
    ]
}

fn names(pending: &PendingLimits) -> Vec<(String, u32, String)> {
    pending
        .limits()
        .iter()
        .map(|limit| {
            (
                limit.name.clone(),
                limit.quota.requests,
                limit.subject.clone(),
            )
        })
        .collect()
}

#[test]
fn prepare_names_every_limit_with_decoded_subjects() {
    let gate = Gate::demo(config()).unwrap();
    let expected: [&[(&str, u32, &str)]; 9] = [
        &[
            ("credential", 100, "key-ada"),
            ("user_table_reads", 5, "ada"),
        ],
        &[
            ("credential", 100, "key-ada"),
            ("user_table_reads", 5, "ada"),
        ],
        // A valid token lacking the scope: its credential is charged (403).
        &[("credential", 100, "token-ada-noscope")],
        // Unknown credential: the client IP is charged (401).
        &[("client_ip", 100, "192.0.2.1")],
        &[("client_ip", 100, "192.0.2.1")],
        &[("client_ip", 100, "192.0.2.1")],
        &[("credential", 100, "key-ada"), ("agent_runs", 30, "a1")],
        &[("credential", 100, "key-ada"), ("agent_runs", 30, "a1")],
        // 405 on a known path.
        &[("client_ip", 100, "192.0.2.1")],
    ];
    for (request, expected) in requests().iter().zip(expected) {
        let shown: Vec<(String, u32, String)> = expected
            .iter()
            .map(|(name, requests, subject)| ((*name).into(), *requests, (*subject).into()))
            .collect();
        assert_eq!(names(&gate.prepare(request, NOW)), shown, "{request}");
    }
}

#[test]
fn resuming_with_any_store_gives_the_responses_of_decide() {
    let in_process = Gate::demo(config()).unwrap();
    let sans_io = Gate::demo(config()).unwrap();
    let answered = Gate::demo(config()).unwrap();
    let store = limit::in_memory(LimitAlgorithm::FixedWindow, LimiterConfig::default());
    let second_store = limit::in_memory(LimitAlgorithm::FixedWindow, LimiterConfig::default());
    let secrets = credentials();
    for round in 0..7u64 {
        for request in requests() {
            let now = NOW + round;
            let expected = finish(in_process.decide(&request, now));
            let pending = sans_io.prepare(&request, now);
            let answer = store.try_acquire(&pending.checks(), UnixMillis::new(now));
            assert_eq!(finish(pending.resume(answer, now)), expected, "{request}");
            // The credential answered by the caller too.
            let record = answered
                .credential_to_look_up(&request)
                .and_then(|secret| secrets.lookup(secret));
            let pending = answered.prepare_answered(&request, record, now);
            let answer = second_store.try_acquire(&pending.checks(), UnixMillis::new(now));
            assert_eq!(finish(pending.resume(answer, now)), expected, "{request}");
        }
    }
    // The seventh table read by ada is refused by her 5 per 60 s, in both.
    let request =
        GateRequest::get("/api/v1/tables/t", "192.0.2.1").with_header("X-API-Key", ADA_KEY);
    assert_eq!(finish(in_process.decide(&request, NOW + 10)).status, 429);
}

#[test]
fn both_look_ups_answered_by_the_caller() {
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let store = limit::in_memory(LimitAlgorithm::FixedWindow, LimiterConfig::default());
    let secrets = credentials();
    let request = GateRequest::get("/api/v1/tables/t", "192.0.2.1")
        .with_header("Authorization", format!("Bearer {ADA_TOKEN}"));
    let record = gate
        .credential_to_look_up(&request)
        .and_then(|secret| secrets.lookup(secret));
    let pending = gate.prepare_answered(&request, record, NOW);
    assert_eq!(
        names(&pending),
        [
            ("credential".into(), 100, "token-ada".into()),
            ("user_table_reads".into(), 5, "ada".into())
        ]
    );
    let response = finish(pending.resume(store.try_acquire(&[], UnixMillis::new(NOW)), NOW));
    // The store was asked about nothing, so no limit shows: the caller owns
    // what it checks.
    assert_eq!(response.status, 200);
}

#[test]
fn a_store_that_cannot_decide_gives_503_and_pending_values_are_owned() {
    fn owned<T: Send + Sync + 'static>(_: &T) {}
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let request =
        GateRequest::get("/api/v1/tables/t", "192.0.2.1").with_header("X-API-Key", ADA_KEY);
    let pending = gate.prepare(&request, NOW);
    owned(&pending);
    let response = finish(pending.resume(
        Err(LimiterUnavailable::store_down(UnixMillis::new(NOW + 1_500))),
        NOW,
    ));
    assert_eq!(response.status, 503);
    assert_eq!(response.header("Retry-After"), Some("2"));
    assert_eq!(response.header("RateLimit-Remaining"), Some("0"));
}
