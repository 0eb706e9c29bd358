//! Replays the client conformance vectors, `tests/vectors/client-*.json`
//! (format: tests/vectors/README.md, "Client vectors").
//!
//! Each case's `output` must equal what the Rust client produces, and its
//! hand-written `expect` must be contained in it. `ACD_BLESS=1 cargo test -p
//! acd-tests --test client_vectors` rewrites every `output` from the code
//! (never `expect`), refusing to write one that breaks its `expect`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    build_request, interpret, parse_deprecation, parse_rate_limit_headers, AttemptState,
    BudgetPolicy, ClientConfig, ClientCredential, ClientError, ClientRequest, EgressMode,
    HttpResponse, KeyStream, Outcome, RequestSpec, RetryBudget, RetryPlanner, RetryPolicy,
    SplitMix64, Throttle, TransportFailure,
};
use acd_core::model::{Catalogue, CredentialKind, Secret};
use acd_core::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VectorFile {
    format: String,
    description: String,
    cases: Vec<Case>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    input: Value,
    expect: Value,
    /// `None` when absent; `Some(Value::Null)` when the output is `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    output: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Whether `expected` is contained in `actual`: objects by key (recursively),
/// arrays element by element with equal length, anything else equal.
fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => expected
            .iter()
            .all(|(key, value)| actual.get(key).is_some_and(|found| contains(found, value))),
        (Value::Array(actual), Value::Array(expected)) => {
            actual.len() == expected.len()
                && actual.iter().zip(expected).all(|(a, e)| contains(a, e))
        }
        _ => actual == expected,
    }
}

fn text<'a>(input: &'a Value, key: &str) -> &'a str {
    input[key]
        .as_str()
        .unwrap_or_else(|| panic!("input.{key} must be a string"))
}

fn number(input: &Value, key: &str) -> u64 {
    input[key]
        .as_u64()
        .unwrap_or_else(|| panic!("input.{key} must be an unsigned integer"))
}

fn headers(input: &Value) -> Vec<(String, String)> {
    serde_json::from_value(input["headers"].clone()).unwrap_or_default()
}

fn result<T: Serialize>(result: Result<T, ClientError>) -> Value {
    match result {
        Ok(value) => json!({"ok": value}),
        Err(error) => json!({"error": error}),
    }
}

/// The client configuration every vector uses unless its input says
/// otherwise: `idempotency_keys` (default false) turns automatic keys on,
/// `honours_idempotency_key` (default false) marks createAgentRun as
/// honouring them.
fn client(input: &Value) -> ClientConfig {
    let flag = |key: &str| input.get(key).and_then(Value::as_bool).unwrap_or(false);
    let mut config = ClientConfig {
        idempotency_keys: flag("idempotency_keys"),
        seed: Some(0),
        ..ClientConfig::default()
    };
    let mut create = Catalogue::create_agent_run();
    create.honours_idempotency_key = flag("honours_idempotency_key");
    config.catalogue.add(create).unwrap();
    config.credentials = match input.get("credentials") {
        Some(list) => list
            .as_array()
            .unwrap()
            .iter()
            .map(|c| ClientCredential {
                id: text(c, "id").into(),
                kind: serde_json::from_value::<CredentialKind>(c["kind"].clone()).unwrap(),
                secret: Secret::new(text(c, "secret")),
                user: text(c, "user").into(),
            })
            .collect(),
        None => vec![
            ClientCredential::api_key("main", "acd_live_demo_ada", "ada"),
            ClientCredential::api_key("ci", "acd_live_demo_ada_ci", "ada"),
        ],
    };
    config.check().unwrap();
    config
}

/// Builds `spec` with keys drawn from `KeyStream::from_seed(0)`.
fn build(config: &ClientConfig, spec: &RequestSpec) -> Result<ClientRequest, ClientError> {
    build_request(config, spec, &mut KeyStream::from_seed(0))
}

/// The request a throttle or retry step talks about, by operation id.
fn spec(input: &Value) -> RequestSpec {
    let mut spec = match text(input, "operation") {
        "listTableRecords" => RequestSpec::list_table_records("t"),
        "listConnectionRecords" => RequestSpec::list_connection_records("c", "e"),
        "getApiIndex" => RequestSpec::get_api_index(),
        "createAgentRun" => RequestSpec::new("createAgentRun").path("agent_id", "a1"),
        other => panic!("no default request for {other}"),
    };
    if let Some(credential) = input.get("credential").and_then(Value::as_str) {
        spec = spec.credential(credential);
    }
    spec
}

fn run_interpret(input: &Value) -> Value {
    let operation = Catalogue::standard()
        .get(text(input, "operation"))
        .cloned()
        .unwrap();
    let response = HttpResponse {
        status: u16::try_from(number(input, "status")).unwrap(),
        headers: headers(input),
        body: text(input, "body").as_bytes().to_vec(),
    };
    result(interpret(&operation, &response))
}

fn run_ratelimit(input: &Value) -> Value {
    serde_json::to_value(parse_rate_limit_headers(
        &headers(input),
        number(input, "now"),
    ))
    .unwrap()
}

fn run_throttle(input: &Value) -> Value {
    let config = client(input);
    let mut throttle = Throttle::new();
    let mut outputs = Vec::new();
    for step in input["steps"].as_array().unwrap() {
        let (kind, body) = step.as_object().unwrap().iter().next().unwrap();
        let request = build(&config, &spec(body)).unwrap();
        let now = number(body, "now");
        outputs.push(match kind.as_str() {
            "send" => {
                for _ in 0..body.get("count").and_then(Value::as_u64).unwrap_or(1) {
                    throttle.on_sent(&request.limits, now);
                }
                Value::Null
            }
            "response" => {
                let parsed = parse_rate_limit_headers(&headers(body), now);
                let status = u16::try_from(number(body, "status")).unwrap();
                throttle.on_response(&request.limits, status, &parsed, now);
                Value::Null
            }
            "plan" => serde_json::to_value(throttle.plan(&request, now)).unwrap(),
            other => panic!("unknown throttle step {other}"),
        });
    }
    Value::Array(outputs)
}

fn run_retry(input: &Value) -> Value {
    let config = client(input);
    let mut spec = spec(input);
    if let Some(key) = input.get("idempotency_key").and_then(Value::as_str) {
        spec = spec.idempotency_key(key);
    }
    let request = build(&config, &spec).unwrap();
    let mut state = AttemptState {
        attempts: u32::try_from(number(input, "attempts")).unwrap(),
        first_sent_at: Some(UnixMillis::new(number(input, "first_sent_at"))),
        ..AttemptState::default()
    };
    let mut budget = RetryBudget::new(BudgetPolicy::default());
    if let Some(available) = input.get("budget_available").and_then(Value::as_u64) {
        assert!(budget.try_spend(500 - u32::try_from(available).unwrap()));
    }
    let mut planner = RetryPlanner::with_budget(
        RetryPolicy::default(),
        budget,
        Box::new(SplitMix64::new(number(input, "seed"))),
    );
    let outcome = match input["outcome"].get("transport") {
        Some(failure) => {
            Outcome::Transport(serde_json::from_value::<TransportFailure>(failure.clone()).unwrap())
        }
        None => Outcome::Response(HttpResponse {
            status: u16::try_from(number(&input["outcome"], "status")).unwrap(),
            headers: headers(&input["outcome"]),
            body: b"{}".to_vec(),
        }),
    };
    serde_json::to_value(planner.on_outcome(&request, &mut state, &outcome, number(input, "now")))
        .unwrap()
}

fn run_request(input: &Value) -> Value {
    let config = client(input);
    let pairs = |key: &str| -> Vec<(String, String)> {
        serde_json::from_value(input.get(key).cloned().unwrap_or(json!([]))).unwrap()
    };
    let spec = RequestSpec {
        operation: text(input, "operation").into(),
        path: pairs("path"),
        query: pairs("query"),
        roles: Vec::new(),
        credential: input
            .get("credential")
            .and_then(Value::as_str)
            .map(str::to_owned),
        egress: serde_json::from_value::<EgressMode>(
            input.get("egress").cloned().unwrap_or(json!("default")),
        )
        .unwrap(),
        body: input
            .get("body")
            .and_then(Value::as_str)
            .map(|body| body.as_bytes().to_vec()),
        idempotency_key: input
            .get("idempotency_key")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    // The wire form: the exact bytes a transport sends, credentials included.
    match build(&config, &spec) {
        Ok(request) => json!({"ok": request.to_wire_value()}),
        Err(error) => json!({"error": error}),
    }
}

fn run_deprecation(input: &Value) -> Value {
    serde_json::to_value(parse_deprecation(text(input, "operation"), &headers(input))).unwrap()
}

/// A client error's category, sentence, flat members and the class each
/// language raises for it (core's one table).
fn run_errors(input: &Value) -> Value {
    let error: ClientError = serde_json::from_value(input.clone()).unwrap();
    let flat: Value = serde_json::from_str(&acd_core::client::ErrorJson(&error).to_json()).unwrap();
    let classes = error.category().classes();
    json!({"category": error.category(), "message": error.to_string(),
           "status": flat["status"], "sent": flat["sent"], "retry_at_ms": flat["retry_at_ms"],
           "classes": {"python": classes.python, "kotlin": classes.kotlin, "js": classes.js}})
}

fn replay(file: &str, run: fn(&Value) -> Value) {
    let path = vectors_dir().join(file);
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut vectors: VectorFile =
        serde_json::from_str(&source).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(
        vectors.format, "acd-client-vectors/1",
        "{file}: unknown format"
    );
    let bless = std::env::var("ACD_BLESS").is_ok_and(|value| value == "1");
    let mut failures = Vec::new();
    for case in &mut vectors.cases {
        let actual = run(&case.input);
        if !contains(&actual, &case.expect) {
            failures.push(format!(
                "{file} / {}: the output breaks the hand-written expectation\n  expect: {}\n  actual: {}",
                case.name, case.expect, actual
            ));
            continue;
        }
        if bless {
            case.output = Some(actual);
        } else if case.output.as_ref() != Some(&actual) {
            failures.push(format!(
                "{file} / {}: output differs (re-bless with ACD_BLESS=1 if the change is intended)\n  stored: {}\n  actual: {}",
                case.name,
                case.output.as_ref().map_or("(none)".into(), Value::to_string),
                actual
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if bless {
        let mut text = serde_json::to_string_pretty(&vectors).unwrap();
        text.push('\n');
        if text != source {
            std::fs::write(&path, text).unwrap();
        }
    }
}

#[test]
fn interpret_vectors() {
    replay("client-interpret.json", run_interpret);
}

#[test]
fn ratelimit_header_vectors() {
    replay("client-ratelimit.json", run_ratelimit);
}

#[test]
fn throttle_plan_vectors() {
    replay("client-throttle.json", run_throttle);
}

#[test]
fn retry_vectors() {
    replay("client-retry.json", run_retry);
}

#[test]
fn request_vectors() {
    replay("client-request.json", run_request);
}

#[test]
fn deprecation_vectors() {
    replay("client-deprecation.json", run_deprecation);
}

#[test]
fn error_vectors() {
    replay("client-errors.json", run_errors);
}

#[test]
fn every_client_vector_file_is_replayed() {
    let mut files: Vec<String> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("client-") && name.ends_with(".json"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "client-deprecation.json",
            // Replayed by client_driver_vectors.rs, through the byte level.
            "client-driver.json",
            "client-errors.json",
            "client-interpret.json",
            "client-ratelimit.json",
            "client-request.json",
            "client-retry.json",
            "client-throttle.json"
        ]
    );
}
