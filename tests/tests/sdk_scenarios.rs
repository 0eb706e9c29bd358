//! The reference replay of the SDK conformance kit (`tests/vectors/sdk-scenarios.json`):
//! each scenario's calls through the core's driver protocol (`Client::start_json`,
//! `poll_json`, `respond`, `fail`), with a host loop that does what
//! `docs/driver-protocol.md` asks of every language (send each transmit as soon
//! as it is handed out, deliver each outcome when it arrives, wake at the
//! batch's timeout) in virtual time, against the scenario's scripted server.
//! The language replays do the same through their public facades.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{CallId, Client, Entropy};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

fn kit() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/sdk-scenarios.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The core's call spec for one SDK call of the kit (what each facade builds).
fn call_spec(call: &Value) -> Value {
    let args = &call["args"];
    let text = |name: &str| args[name].as_str().unwrap().to_owned();
    let size = || args["page_size"].to_string();
    let mut spec = match call["method"].as_str().unwrap() {
        "tables.read" => json!({"type": "request", "operation": "listTableRecords",
            "path": {"id": text("table")}, "query": [["limit", size()]]}),
        "tables.pages" => {
            json!({"type": "table_pages", "table": text("table"), "page_size": args["page_size"]})
        }
        "connections.read" => json!({"type": "request", "operation": "listConnectionRecords",
            "path": {"connection_id": text("connection")},
            "query": [["entity_id", text("entity")], ["limit", size()]]}),
        "runs.create" => json!({"type": "request", "operation": "createAgentRun",
            "path": {"agent_id": text("agent_id")}, "body": {"input": args["input"]}}),
        "runs.wait" => json!({"type": "run_poll", "run_id": text("run_id")}),
        "index" => json!({"type": "request", "operation": "getApiIndex"}),
        other => panic!("unknown method {other}"),
    };
    if let Some(options) = call.get("options") {
        spec["options"] = options.clone();
    }
    spec
}

/// The core's client configuration for the kit's `client` member.
fn client_config(client: &Value) -> Value {
    json!({"api_key": client["api_key"], "base_url": client["base_url"], "seed": client["seed"],
        "retry": {"backoff": {"base_ms": client["backoff_base_ms"], "cap_ms": client["backoff_cap_ms"]}}})
}

/// What reaches the driver for one exchange, and when.
enum Outcome {
    Respond(u16, String, Vec<u8>),
    Fail(&'static str),
}

/// One request the server received: when, method, URL after the base, headers, body.
type Sent = (u64, String, String, Vec<(String, String)>, Option<String>);

#[derive(Default)]
struct CallResult {
    value: Option<Value>,
    pages: Vec<Value>,
    error: Option<Value>,
    ends_at: Option<u64>,
}

fn within(expected: &Value, actual: u64) -> bool {
    match expected {
        Value::Object(range) => {
            range["min"].as_u64().unwrap() <= actual && actual <= range["max"].as_u64().unwrap()
        }
        exact => exact.as_u64() == Some(actual),
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Replays one scenario; returns every mismatch.
fn replay(kit: &Value, scenario: &Value) -> Vec<String> {
    let mut client_json = kit["client"].clone();
    if let Some(own) = scenario.get("client").and_then(Value::as_object) {
        for (name, value) in own {
            client_json[name] = value.clone();
        }
    }
    let base = client_json["base_url"].as_str().unwrap().to_owned();
    let exchange_timeout = client_json["exchange_timeout_ms"].as_u64().unwrap();
    let config = serde_json::to_vec(&client_config(&client_json)).unwrap();
    let mut client = Client::from_config_json(&config, Entropy::from_seed(0)).unwrap();
    let mut answers: HashMap<String, std::collections::VecDeque<Value>> = scenario["server"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(route, list)| {
            (
                route.clone(),
                list.as_array().unwrap().iter().cloned().collect(),
            )
        })
        .collect();
    let mut requests: Vec<Sent> = vec![];
    let mut results: BTreeMap<String, CallResult> = BTreeMap::new();
    let mut aliases: HashMap<u64, String> = HashMap::new();
    let mut pending: BTreeMap<(u64, u64), (CallId, Outcome)> = BTreeMap::new();
    let mut seq = 0_u64;
    let mut now = scenario["start_ms"].as_u64().unwrap();
    let mut problems = vec![];
    for step in scenario["steps"].as_array().unwrap() {
        if let Some(at) = step.get("at").and_then(Value::as_u64) {
            now = now.max(at);
        }
        let mut open = 0;
        for call in step["calls"].as_array().unwrap() {
            let id = call["id"].as_str().unwrap().to_owned();
            match client.start_json(&serde_json::to_vec(&call_spec(call)).unwrap()) {
                Ok(call_id) => {
                    aliases.insert(call_id.0, id.clone());
                    results.insert(id, CallResult::default());
                    open += 1;
                }
                Err(error) => problems.push(format!("{id}: refused at start: {error}")),
            }
        }
        let mut guard = 0;
        while open > 0 {
            guard += 1;
            assert!(guard < 10_000, "no end in sight");
            let batch: Value = serde_json::from_str(&client.poll_json(now)).unwrap();
            for transmit in batch["transmits"].as_array().unwrap() {
                let call = CallId(transmit["call"].as_u64().unwrap());
                let url = transmit["url"].as_str().unwrap();
                let relative = url.strip_prefix(&base).unwrap_or(url).to_owned();
                let method = transmit["method"].as_str().unwrap().to_owned();
                let headers: Vec<(String, String)> =
                    serde_json::from_value(transmit["headers"].clone()).unwrap();
                let body = transmit["body"].as_str().map(str::to_owned);
                requests.push((now, method.clone(), relative.clone(), headers, body));
                let deadline = transmit["timeout_at"]
                    .as_u64()
                    .map_or(now + exchange_timeout, |at| at.min(now + exchange_timeout));
                let answer = answers
                    .get_mut(&format!("{method} {relative}"))
                    .and_then(std::collections::VecDeque::pop_front)
                    .unwrap_or_else(|| json!({"status": 599, "headers": [], "body": null}));
                let delay = answer["delay_ms"].as_u64().unwrap_or(0);
                let (at, outcome) = match answer["fail"].as_str() {
                    Some("refuse") => (now, Outcome::Fail("connect")),
                    Some("connect_timeout") => {
                        ((now + delay).min(deadline), Outcome::Fail("connect"))
                    }
                    Some("reset") if now + delay <= deadline => {
                        (now + delay, Outcome::Fail("interrupted"))
                    }
                    Some("reset" | "timeout") => (deadline, Outcome::Fail("timeout")),
                    Some(other) => panic!("unknown failure {other}"),
                    None if now + delay > deadline => (deadline, Outcome::Fail("timeout")),
                    None => {
                        let block = answer["headers"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|pair| {
                                format!(
                                    "{}: {}",
                                    pair[0].as_str().unwrap(),
                                    pair[1].as_str().unwrap()
                                )
                            })
                            .collect::<Vec<_>>()
                            .join("\n");
                        let body = match &answer["body"] {
                            Value::Null => vec![],
                            value => serde_json::to_vec(value).unwrap(),
                        };
                        let status = u16::try_from(answer["status"].as_u64().unwrap()).unwrap();
                        (now + delay, Outcome::Respond(status, block, body))
                    }
                };
                seq += 1;
                pending.insert((at, seq), (call, outcome));
            }
            for event in batch["events"].as_array().unwrap() {
                let Some(alias) = event["call"].as_u64().and_then(|id| aliases.get(&id)) else {
                    continue;
                };
                let result = results.get_mut(alias).unwrap();
                match event["type"].as_str().unwrap() {
                    "response" => result.value = Some(event["body"].clone()),
                    "page" => result.pages.push(event["records"].clone()),
                    "run_status" => result.value = Some(event["run"].clone()),
                    "done" | "failed" => {
                        if event["type"] == "failed" {
                            result.error = Some(event["error"].clone());
                        }
                        result.ends_at = Some(now);
                        open -= 1;
                    }
                    _ => {}
                }
            }
            if open == 0 {
                break;
            }
            let due = pending.keys().next().map(|(at, _)| *at);
            let wake = batch["timeout"].as_u64();
            let next = match (due, wake) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => {
                    problems.push(format!("no call can make progress at {now}"));
                    break;
                }
            };
            now = now.max(next);
            if due.is_some_and(|at| at <= now) {
                let (_, (call, outcome)) = pending.pop_first().unwrap();
                let handled = match outcome {
                    Outcome::Respond(status, block, body) => {
                        client.respond(call, status, &block, body, now)
                    }
                    Outcome::Fail(kind) => client.fail(call, kind, now),
                };
                if let Err(error) = handled {
                    problems.push(format!("outcome refused: {error}"));
                }
            }
        }
    }
    check_requests(kit, scenario, &requests, &mut problems);
    check_outcomes(scenario, &results, &mut problems);
    problems
}

fn check_requests(kit: &Value, scenario: &Value, requests: &[Sent], problems: &mut Vec<String>) {
    let expected = scenario["expect_requests"].as_array().unwrap();
    let seen: Vec<String> = requests
        .iter()
        .map(|r| format!("{} {} {}", r.0, r.1, r.2))
        .collect();
    if expected.len() != requests.len() {
        problems.push(format!(
            "{} requests expected, {} sent: {seen:?}",
            expected.len(),
            requests.len()
        ));
    }
    let mut used = vec![false; requests.len()];
    for want in expected {
        let found = requests.iter().enumerate().position(|(index, r)| {
            !used[index]
                && r.1 == want["method"].as_str().unwrap()
                && r.2 == want["url"].as_str().unwrap()
                && within(&want["at"], r.0)
        });
        let Some(index) = found else {
            problems.push(format!("no request matches {want}; sent {seen:?}"));
            continue;
        };
        used[index] = true;
        let (_, _, _, headers, body) = &requests[index];
        let every = kit["every_request_headers"].as_object().unwrap();
        for (name, value) in every
            .iter()
            .chain(want["headers"].as_object().into_iter().flatten())
        {
            if header(headers, name) != value.as_str() {
                problems.push(format!(
                    "{want}: header {name} is {:?}",
                    header(headers, name)
                ));
            }
        }
        for name in want["absent_headers"].as_array().into_iter().flatten() {
            if header(headers, name.as_str().unwrap()).is_some() {
                problems.push(format!("{want}: header {name} should be absent"));
            }
        }
        if let Some(expected_body) = want.get("body") {
            let actual: Value = body
                .as_deref()
                .map_or(Value::Null, |text| serde_json::from_str(text).unwrap());
            if &actual != expected_body {
                problems.push(format!("{want}: body {actual}"));
            }
        }
    }
}

fn check_outcomes(
    scenario: &Value,
    results: &BTreeMap<String, CallResult>,
    problems: &mut Vec<String>,
) {
    for (id, want) in scenario["expect"].as_object().unwrap() {
        let result = &results[id];
        let pager = scenario["steps"].as_array().unwrap().iter().any(|step| {
            step["calls"]
                .as_array()
                .unwrap()
                .iter()
                .any(|call| call["id"] == id.as_str() && call["method"] == "tables.pages")
        });
        if let Some(value) = want.get("value") {
            let actual = if pager {
                Some(Value::Array(result.pages.clone()))
            } else {
                result.value.clone()
            };
            if result.error.is_some() || actual.as_ref() != Some(value) {
                problems.push(format!(
                    "{id}: value {actual:?}, error {:?}; expected {value}",
                    result.error
                ));
            }
        }
        if let Some(error) = want.get("error") {
            match &result.error {
                None => problems.push(format!("{id}: no error; value {:?}", result.value)),
                Some(actual) => {
                    if actual["category"] != error["category"] {
                        problems.push(format!(
                            "{id}: category {} (error {actual})",
                            actual["category"]
                        ));
                    }
                    if actual.get("status").unwrap_or(&Value::Null) != &error["status"] {
                        problems.push(format!(
                            "{id}: status {:?} (error {actual})",
                            actual.get("status")
                        ));
                    }
                    if let Some(retry_at) = error.get("retry_at") {
                        if actual.get("retry_at_ms") != Some(retry_at) {
                            problems.push(format!(
                                "{id}: retry_at {:?} (error {actual})",
                                actual.get("retry_at_ms")
                            ));
                        }
                    }
                    let message = actual["message"].as_str().unwrap_or_default();
                    for part in error["message_contains"].as_array().into_iter().flatten() {
                        if !message.contains(part.as_str().unwrap()) {
                            problems.push(format!("{id}: message {message:?} lacks {part}"));
                        }
                    }
                }
            }
        }
        if let Some(ends_at) = want.get("ends_at") {
            if !result.ends_at.is_some_and(|at| within(ends_at, at)) {
                problems.push(format!(
                    "{id}: ended at {:?}, expected {ends_at}",
                    result.ends_at
                ));
            }
        }
    }
    if let Some(multiset) = scenario["expect_ends_at"]["multiset"].as_array() {
        let mut expected: Vec<u64> = multiset.iter().map(|v| v.as_u64().unwrap()).collect();
        let mut actual: Vec<u64> = results.values().filter_map(|r| r.ends_at).collect();
        expected.sort_unstable();
        actual.sort_unstable();
        if expected != actual {
            problems.push(format!("calls ended at {actual:?}, expected {expected:?}"));
        }
    }
}

#[test]
fn every_scenario_replays_through_the_core_driver() {
    let kit = kit();
    let known: Vec<&str> = kit["known_failures"]["rust"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| entry["scenario"].as_str().unwrap())
        .collect();
    let mut report = vec![];
    for scenario in kit["scenarios"].as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        let problems = replay(&kit, scenario);
        match (problems.is_empty(), known.contains(&name)) {
            (true, true) => report.push(format!(
                "{name}: passes but is listed in known_failures.rust"
            )),
            (false, false) => report.push(format!("{name}:\n  {}", problems.join("\n  "))),
            _ => {}
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_kit_covers_what_issue_47_asks() {
    let kit = kit();
    let scenarios = kit["scenarios"].as_array().unwrap();
    assert!(scenarios.len() >= 16, "the scenarios written");
    let methods: Vec<&str> = scenarios
        .iter()
        .flat_map(|s| s["steps"].as_array().unwrap())
        .flat_map(|step| step["calls"].as_array().unwrap())
        .map(|call| call["method"].as_str().unwrap())
        .collect();
    for method in [
        "tables.read",
        "tables.pages",
        "connections.read",
        "runs.create",
        "runs.wait",
    ] {
        assert!(methods.contains(&method), "{method}");
    }
}
