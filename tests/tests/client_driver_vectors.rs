//! Replays `tests/vectors/client-driver.json` through the client's
//! byte-level entries (`from_config_json`, `start_json`, `poll_json`,
//! `respond`, `fail`): the path every binding takes. The file's
//! `description` says how a step is run and compared.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{redact_headers, CallId, Client, Entropy, ErrorJson};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/client-driver.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Call ids as their aliases, credential header values redacted.
fn normalise(batch: &mut Value, aliases: &BTreeMap<u64, String>) {
    let alias = |value: &mut Value| {
        let id = value.as_u64().expect("a numeric call id");
        *value = Value::String(aliases.get(&id).cloned().unwrap_or_else(|| id.to_string()));
    };
    for transmit in batch["transmits"].as_array_mut().unwrap() {
        alias(&mut transmit["call"]);
        let headers: Vec<(String, String)> =
            serde_json::from_value(transmit["headers"].clone()).unwrap();
        transmit["headers"] = serde_json::to_value(redact_headers(&headers)).unwrap();
    }
    for event in batch["events"].as_array_mut().unwrap() {
        alias(&mut event["call"]);
    }
}

fn body_bytes(body: &Value) -> Vec<u8> {
    serde_json::to_vec(body).unwrap()
}

fn contains(actual: &Map<String, Value>, expected: &Map<String, Value>) -> bool {
    expected
        .iter()
        .all(|(name, value)| actual.get(name) == Some(value))
}

fn run_case(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let config = serde_json::to_vec(&case["config"]).unwrap();
    let mut client = Client::from_config_json(&config, Entropy::from_seed(0))
        .unwrap_or_else(|error| panic!("{name}: config refused: {error}"));
    let mut ids: BTreeMap<String, CallId> = BTreeMap::new();
    let mut aliases: BTreeMap<u64, String> = BTreeMap::new();
    for (index, step) in case["steps"].as_array().unwrap().iter().enumerate() {
        let at = step["at"].as_u64().unwrap();
        let here = format!("{name}, step {index}");
        let call = |key: &str| -> CallId {
            let alias = step[key]["call"].as_str().unwrap();
            *ids.get(alias)
                .unwrap_or_else(|| panic!("{here}: unknown call {alias}"))
        };
        if let Some(spec) = step.get("start") {
            let result = client.start_json(&serde_json::to_vec(spec).unwrap());
            match (step.get("error"), result) {
                (None, Ok(id)) => {
                    let alias = step["as"].as_str().unwrap().to_owned();
                    aliases.insert(id.0, alias.clone());
                    ids.insert(alias, id);
                }
                (Some(expected), Err(error)) => {
                    let actual: Value = serde_json::from_str(&ErrorJson(&error).to_json()).unwrap();
                    assert!(
                        contains(actual.as_object().unwrap(), expected.as_object().unwrap()),
                        "{here}: got {actual}, expected at least {expected}"
                    );
                }
                (expected, result) => {
                    panic!("{here}: expected {expected:?}, got {result:?}")
                }
            }
        } else if let Some(respond) = step.get("respond") {
            let id = call("respond");
            let status = u16::try_from(respond["status"].as_u64().unwrap()).unwrap();
            client
                .respond(
                    id,
                    status,
                    respond["headers"].as_str().unwrap(),
                    body_bytes(&respond["body"]),
                    at,
                )
                .unwrap_or_else(|error| panic!("{here}: {error}"));
        } else if let Some(fail) = step.get("fail") {
            let id = call("fail");
            client
                .fail(id, fail["kind"].as_str().unwrap(), at)
                .unwrap_or_else(|error| panic!("{here}: {error}"));
        } else if let Some(expected) = step.get("poll") {
            let mut actual: Value = serde_json::from_str(&client.poll_json(at)).unwrap();
            normalise(&mut actual, &aliases);
            assert_eq!(
                &actual, expected,
                "{here}:\n got      {actual}\n expected {expected}"
            );
        } else {
            panic!("{here}: unknown step {step}");
        }
    }
}

#[test]
fn every_case_replays() {
    let vectors = vectors();
    let cases = vectors["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 9, "the cases written");
    for case in cases {
        run_case(case);
    }
}

#[test]
fn the_vectors_name_only_protocol_event_types() {
    let known = [
        "response",
        "page",
        "run_status",
        "waiting",
        "retrying",
        "deprecation",
        "done",
        "failed",
    ];
    for case in vectors()["cases"].as_array().unwrap() {
        for step in case["steps"].as_array().unwrap() {
            for event in step["poll"]["events"].as_array().into_iter().flatten() {
                let kind = event["type"].as_str().unwrap();
                assert!(known.contains(&kind), "{kind}");
            }
        }
    }
}
