//! The SDK conformance kit (`tests/vectors/sdk-scenarios.json`) through the
//! `acd` binary, against a scripted HTTP server on loopback (`FaultServer`).
//!
//! The binary runs on its virtual clock (`ACD_VIRTUAL_CLOCK`, set by the
//! support module): the waits the core plans (`Retry-After`, backoff,
//! quota windows) take no real time, while the exchanges with the scripted
//! server are real. So the instants of the expected requests are not
//! compared (the server sees real time), but the requests, their headers,
//! the values and the exit status of each error's category are: each
//! replayed scenario has one step (one process keeps no limits for the
//! next) of one call of a method the CLI has (`tables.read`,
//! `connections.read`, `runs.create`), and no answer that only a scripted
//! transport can give (a refused connection or a connect timeout on a
//! given attempt, an answer slower than a second).
//! `every_scenario_the_cli_skips_is_named` lists the others with the
//! reason, so a scenario added to the kit is either replayed here or named
//! as skipped.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::Value;
use support::{acd, FaultServer, Reply};

fn kit() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vectors/sdk-scenarios.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Why the CLI cannot replay `scenario` today, or `None` when it can.
fn skipped(scenario: &Value) -> Option<&'static str> {
    let steps = scenario["steps"].as_array().unwrap();
    if steps.len() != 1 {
        return Some("several steps: each acd process starts with no limits learned");
    }
    let calls = steps[0]["calls"].as_array().unwrap();
    if calls.len() != 1 {
        return Some("concurrent calls: one acd process makes one call");
    }
    if !matches!(
        calls[0]["method"].as_str(),
        Some("tables.read" | "connections.read" | "runs.create")
    ) {
        return Some("runs.wait alone: `acd runs wait` prints each status and exits by rules of its own (docs/cli.md)");
    }
    let answers: Vec<&Value> = scenario["server"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|list| list.as_array().unwrap())
        .collect();
    let needs_clock = answers.iter().any(|answer| {
        matches!(
            answer["fail"].as_str(),
            Some("refuse" | "timeout" | "connect_timeout")
        ) || answer["delay_ms"].as_u64().unwrap_or(0) > 1000
    });
    needs_clock.then_some(
        "needs a scripted transport: refused connections, connect timeouts and slow answers \
         are real on loopback",
    )
}

/// The scripted answers as the fault server's replies, in order (one route per replayed scenario).
fn replies(scenario: &Value) -> Vec<Reply> {
    let routes = scenario["server"].as_object().unwrap();
    assert_eq!(routes.len(), 1, "one route");
    routes
        .values()
        .next()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|answer| match answer["fail"].as_str() {
            Some("reset") => Reply::Drop,
            Some(other) => panic!("{other} is not replayed"),
            None => {
                let mut reply = Reply::Respond {
                    status: u16::try_from(answer["status"].as_u64().unwrap()).unwrap(),
                    headers: vec![],
                    body: match &answer["body"] {
                        Value::Null => String::new(),
                        body => body.to_string(),
                    },
                };
                for pair in answer["headers"].as_array().unwrap() {
                    reply = reply.header(pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
                }
                reply
            }
        })
        .collect()
}

/// The `acd` arguments of a kit call.
fn arguments(call: &Value, base: &str, key: &str) -> Vec<String> {
    let args = &call["args"];
    let mut line: Vec<String> = match call["method"].as_str().unwrap() {
        "tables.read" => vec![
            "tables".into(),
            "read".into(),
            args["table"].as_str().unwrap().into(),
        ],
        "connections.read" => vec![
            "connections".into(),
            "read".into(),
            args["connection"].as_str().unwrap().into(),
            "--entity".into(),
            args["entity"].as_str().unwrap().into(),
        ],
        "runs.create" => vec![
            "runs".into(),
            "create".into(),
            args["agent_id"].as_str().unwrap().into(),
            "--data".into(),
            args["input"].to_string(),
        ],
        other => panic!("{other}"),
    };
    if let Some(size) = args.get("page_size") {
        line.extend(["--limit".into(), size.to_string()]);
    }
    if let Some(attempts) = call["options"]["max_attempts"].as_u64() {
        line.extend(["--max-attempts".into(), attempts.to_string()]);
    }
    if let Some(timeout_ms) = call["options"]["timeout_ms"].as_u64() {
        line.extend([
            "--deadline".into(),
            format!("{}", timeout_ms as f64 / 1000.0),
        ]);
    }
    line.extend([
        "--base-url".into(),
        base.into(),
        "--api-key".into(),
        key.into(),
    ]);
    line
}

/// The exit code docs/cli.md (and docs/sdk.md's table) gives an error of
/// `category`.
fn exit_code(category: &str) -> i32 {
    match category {
        "protocol" | "bad_request" | "authentication" | "permission" | "not_found" => 1,
        "config" | "invalid_request" => 2,
        "cancelled" => 130,
        _ => 3,
    }
}

fn replay(kit: &Value, scenario: &Value) -> Vec<String> {
    let mut problems = vec![];
    let server = FaultServer::start(replies(scenario));
    let call = &scenario["steps"][0]["calls"][0];
    let key = kit["client"]["api_key"].as_str().unwrap();
    let line = arguments(call, &server.url, key);
    let run = acd(&line.iter().map(String::as_str).collect::<Vec<_>>());
    let seen = server.seen();
    let expected = scenario["expect_requests"].as_array().unwrap();
    if seen.len() != expected.len() {
        problems.push(format!(
            "{} requests expected, {} sent",
            expected.len(),
            seen.len()
        ));
    }
    for (want, got) in expected.iter().zip(&seen) {
        let target = format!(
            "{} {}",
            want["method"].as_str().unwrap(),
            want["url"].as_str().unwrap()
        );
        if !got.line.starts_with(&format!("{target} ")) {
            problems.push(format!("sent {:?}, expected {target}", got.line));
        }
        let every = kit["every_request_headers"].as_object().unwrap();
        for (name, value) in every
            .iter()
            .chain(want["headers"].as_object().into_iter().flatten())
        {
            if got.header(name) != value.as_str() {
                problems.push(format!("{target}: header {name} is {:?}", got.header(name)));
            }
        }
    }
    let outcome = &scenario["expect"][call["id"].as_str().unwrap()];
    if let Some(value) = outcome.get("value") {
        let records: Vec<Value> = run
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // A run is one document; records are one per line.
        let got = match (call["method"].as_str(), records.as_slice()) {
            (Some("runs.create"), [run]) => run.clone(),
            _ => Value::Array(records.clone()),
        };
        if run.code != Some(0) || &got != value {
            problems.push(format!(
                "exit {:?}, records {records:?}; stderr {}",
                run.code, run.stderr
            ));
        }
    }
    if let Some(error) = outcome.get("error") {
        let want = exit_code(error["category"].as_str().unwrap());
        if run.code != Some(want) {
            problems.push(format!(
                "exit {:?}, expected {want}; stderr {}",
                run.code, run.stderr
            ));
        }
        // The kit's origin is the scripted server's here.
        let host = |url: &str| url.split("://").nth(1).unwrap().to_owned();
        let origin = host(kit["client"]["base_url"].as_str().unwrap());
        for part in error["message_contains"].as_array().into_iter().flatten() {
            let part = part.as_str().unwrap().replace(&origin, &host(&server.url));
            if !run.stderr.contains(&part) {
                problems.push(format!("stderr {:?} lacks {part}", run.stderr));
            }
        }
    }
    problems
}

#[test]
fn every_single_call_scenario_replays_through_the_binary_on_its_virtual_clock() {
    let kit = kit();
    let known: Vec<&str> = kit["known_failures"]["cli"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| entry["scenario"].as_str().unwrap())
        .collect();
    let mut report = vec![];
    let mut replayed = 0;
    for scenario in kit["scenarios"].as_array().unwrap() {
        if skipped(scenario).is_some() {
            continue;
        }
        replayed += 1;
        let name = scenario["name"].as_str().unwrap();
        let problems = replay(&kit, scenario);
        match (problems.is_empty(), known.contains(&name)) {
            (true, true) => report.push(format!(
                "{name}: passes but is listed in known_failures.cli"
            )),
            (false, false) => report.push(format!("{name}:\n  {}", problems.join("\n  "))),
            _ => {}
        }
    }
    assert!(replayed >= 4, "the scenarios the CLI replays");
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn every_scenario_the_cli_skips_is_named() {
    let kit = kit();
    let skips: Vec<String> = kit["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| skipped(s).map(|why| format!("{}: {why}", s["name"].as_str().unwrap())))
        .collect();
    // Printed with --nocapture; the count pins the list the report names.
    println!("{}", skips.join("\n"));
    assert_eq!(skips.len(), 13, "{}", skips.join("\n"));
}
