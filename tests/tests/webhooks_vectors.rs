//! Replays `tests/vectors/webhooks.json` (signatures from the Standard
//! Webhooks reference library) against acd-core's webhooks: verification
//! outcomes, signatures, and the delivery schedule.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::webhooks::{
    sign, AttemptOutcome, DeliveryPlanner, DeliveryState, Endpoint, OutgoingEvent, PlannerConfig,
    Secret, Verifier,
};
use acd_core::UnixMillis;
use serde_json::Value;
use std::sync::Arc;

fn vectors() -> Value {
    let path = acd_tests::vectors_dir().join("webhooks.json");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn verify_cases() {
    let vectors = vectors();
    let cases = vectors["verify"].as_array().unwrap();
    assert!(cases.len() >= 25);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let headers: Vec<(String, String)> = case["headers"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
            .collect();
        let body = case["body"].as_str().unwrap().as_bytes();
        let now = UnixMillis::new(case["now_ms"].as_u64().unwrap());
        let result = Verifier::from_strs(&strings(&case["secrets"])).and_then(|verifier| {
            let verifier = match case["tolerance_ms"].as_u64() {
                Some(tolerance) => verifier.with_tolerance_ms(tolerance),
                None => verifier,
            };
            verifier.verify(&headers, body, now)
        });
        match (&case["expect"]["error"], result) {
            (Value::String(code), Err(error)) => assert_eq!(error.code(), code, "{name}: {error}"),
            (Value::String(code), Ok(event)) => panic!("{name}: expected {code}, got {event:?}"),
            (_, Err(error)) => panic!("{name}: expected success, got {error}"),
            (_, Ok(event)) => {
                let ok = &case["expect"]["ok"];
                assert_eq!(event.id, ok["id"].as_str().unwrap(), "{name}");
                assert_eq!(
                    event.webhook_timestamp,
                    ok["webhook_timestamp"].as_u64().unwrap(),
                    "{name}"
                );
                assert_eq!(event.event_type, ok["type"].as_str().unwrap(), "{name}");
                let run = event.run_event().unwrap();
                assert_eq!(run.kind.as_str(), ok["type"].as_str().unwrap(), "{name}");
                assert_eq!(run.run.id, ok["run_id"].as_str().unwrap(), "{name}");
                assert_eq!(run.run.status, ok["run_status"].as_str().unwrap(), "{name}");
            }
        }
    }
}

#[test]
fn signatures_match_the_reference_library() {
    let vectors = vectors();
    for case in vectors["sign"].as_array().unwrap() {
        let secret = Secret::parse(case["secret"].as_str().unwrap()).unwrap();
        let signature = sign(
            &secret,
            case["id"].as_str().unwrap(),
            case["timestamp"].as_u64().unwrap(),
            case["body"].as_str().unwrap().as_bytes(),
        );
        assert_eq!(signature, case["signature"].as_str().unwrap());
    }
}

#[test]
fn delivery_schedule_cases() {
    let vectors = vectors();
    let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
    for case in vectors["schedule"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut planner = DeliveryPlanner::new(PlannerConfig::default()).unwrap();
        planner
            .add_endpoint(Endpoint {
                url: "http://127.0.0.1:1/hook".into(),
                secrets: vec![secret.clone()],
                event_types: vec![],
            })
            .unwrap();
        let t0 = 1_700_000_000_000u64;
        planner.enqueue(
            OutgoingEvent {
                id: "msg_1".into(),
                event_type: "run.queued".into(),
                body: Arc::from(b"{}".as_slice()),
            },
            UnixMillis::new(t0),
        );
        let mut sent = Vec::new();
        for response in case["responses"].as_array().unwrap() {
            let due = planner.poll_timeout().unwrap();
            let tx = planner.poll_transmit(due).unwrap();
            sent.push(due.as_millis() - t0);
            match response.as_u64() {
                Some(status) => {
                    let status = u16::try_from(status).unwrap();
                    planner.handle(tx.attempt, AttemptOutcome::Response(status), due);
                }
                None => {
                    assert_eq!(planner.poll_timeout(), Some(tx.deadline), "{name}");
                    planner.handle_timeout(tx.deadline);
                }
            }
        }
        let expected: Vec<u64> = case["expect_offsets_ms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(sent, expected, "{name}");
        let state = planner.deliveries()[0].state;
        let expected_state = match case["expect_state"].as_str().unwrap() {
            "succeeded" => DeliveryState::Succeeded,
            "gave_up" => DeliveryState::GaveUp,
            other => panic!("{name}: unknown state {other}"),
        };
        assert_eq!(state, expected_state, "{name}");
        assert_eq!(planner.poll_timeout(), None, "{name}: nothing left to send");
    }
}
