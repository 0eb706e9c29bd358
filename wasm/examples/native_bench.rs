//! The native half of `wasm/bench/measure.mjs`: times the same calls the
//! JavaScript half makes through the wasm package, here as plain Rust, and
//! prints one JSON object (the workload it used and nanoseconds per call).
//!
//! `cargo run --release -p acd-wasm --example native_bench [--serve]`
//!
//! With `--serve`, it prints the workload without its own timings
//! (`ns_per_call` is null), then reads lines from standard input, `client`,
//! `client-read` (the client call, then every record parsed) or `gate`,
//! and for each runs one round of that workload and prints its
//! nanoseconds per call on a line: `wasm/bench/measure.mjs` interleaves
//! these rounds with its own, so a change in machine load weighs on both
//! sides alike.
//!
//! A measurement, not a test: nothing here asserts a duration.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::client::{
    Client, ClientConfig, ClientCredential, Entropy, Event, HttpResponse, Outcome, RequestSpec,
};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
use acd_core::model::ParamRole;
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

/// Iterations per round and rounds; the median round is reported.
const ITERATIONS: u32 = 20_000;
const ROUNDS: usize = 25;

const TARGET: &str = "/api/v1/tables/orders?limit=50&offset=100&order_by=created&direction=asc";
const PAYLOAD: &str = r#"[{"id":1,"name":"first"},{"id":2,"name":"second"}]"#;
const NOW: u64 = 1_700_000_000_000;
/// How far the clock moves per client call: 4 table reads per 60 s.
const CLIENT_STEP_MS: u64 = 15_000;
const ADA: &str = acd_core::gate::demo::ADA_KEY;

fn config() -> GateConfig {
    let mut config = GateConfig::default();
    // Limits large enough that every iteration takes the full 200 path.
    config.limits.credential.requests = u32::MAX;
    if let Some(tables) = config.catalogue.get_mut("listTableRecords") {
        for limit in &mut tables.extra_limits {
            limit.quota.requests = u32::MAX;
        }
    }
    config
}

fn decide_and_respond(gate: &Gate, request: &GateRequest) -> u16 {
    match gate.decide(request, NOW) {
        Decision::Reply(response) => response.status,
        Decision::FetchResource(admitted) => {
            admitted
                .respond(ResourceAnswer::Found(PAYLOAD.as_bytes().to_vec()))
                .status
        }
    }
}

/// One round: ITERATIONS calls, nanoseconds per call.
fn round_ns_per_call(call: &mut impl FnMut() -> u16) -> f64 {
    let start = Instant::now();
    for _ in 0..ITERATIONS {
        black_box(call());
    }
    start.elapsed().as_nanos() as f64 / f64::from(ITERATIONS)
}

fn median_ns_per_call(mut call: impl FnMut() -> u16) -> f64 {
    let mut rounds: Vec<f64> = (0..ROUNDS).map(|_| round_ns_per_call(&mut call)).collect();
    rounds.sort_by(f64::total_cmp);
    rounds[ROUNDS / 2]
}

fn main() {
    // With `--serve`, the caller times its own rounds: the standalone
    // medians below would only delay its start (and are left out).
    let serve = std::env::args().any(|arg| arg == "--serve");
    let config = config();
    let config_json = serde_json::to_value(&config).unwrap();
    let gate = Gate::demo(config).unwrap();
    let request = GateRequest::get(TARGET, "203.0.113.7")
        .with_header("X-API-Key", acd_core::gate::demo::ADA_KEY);
    assert_eq!(decide_and_respond(&gate, &request), 200);
    let mut gate_call = || decide_and_respond(&gate, black_box(&request));
    let gate_ns = (!serve).then(|| median_ns_per_call(&mut gate_call));
    // The client workload: one whole call through the driver, as the
    // JavaScript half makes it (start, pollTransmits, handle, pollEvents),
    // and no call ever waits: the clock moves CLIENT_STEP_MS per call, so
    // the table reads stay under their 5 per 60 s per user, and the
    // per-credential quota is unbounded. The catalogue is the default one,
    // the only one the size-first module (`acd/client`) builds, so it is
    // left out of the configuration sent to JavaScript.
    let mut client_config =
        ClientConfig::default().with_credential(ClientCredential::api_key("main", ADA, "ada"));
    client_config.credential_quota.requests = u32::MAX;
    let mut client_json = serde_json::to_value(&client_config).unwrap();
    if let Some(members) = client_json.as_object_mut() {
        members.remove("credentials");
        members.remove("catalogue");
    }
    let mut client = Client::new(client_config, Entropy::from_seed(1)).unwrap();
    let spec = RequestSpec::list_table_records("orders").param(ParamRole::Limit, "2");
    let response = HttpResponse::new(200, format!(r#"{{"data":{PAYLOAD}}}"#))
        .with_header("Content-Type", "application/json")
        .with_header("RateLimit-Limit", "1000000")
        .with_header("RateLimit-Remaining", "999999")
        .with_header("RateLimit-Reset", "60");
    let mut now = NOW;
    // `read_records`: parse every record into a `serde_json::Value` and
    // count them (the JavaScript half then reads `records`); otherwise count
    // the records responses and leave the records raw (`RawValue`s). The
    // JavaScript half's records are parsed (one `JSON.parse`) either way.
    let mut one_call = |read_records: bool| {
        now += CLIENT_STEP_MS;
        client.start(black_box(spec.clone())).unwrap();
        let transmit = client.poll_transmit(now).unwrap();
        client
            .handle(
                transmit.id,
                Outcome::Response(black_box(response.clone())),
                now,
            )
            .unwrap();
        let mut seen = 0;
        while let Some((_, event)) = client.poll_event() {
            if let Event::Response {
                response: result, ..
            } = event
            {
                let Some(records) = result.records() else {
                    continue;
                };
                if !read_records {
                    seen += 1;
                    continue;
                }
                for record in records {
                    let value: serde_json::Value = serde_json::from_str(record.get()).unwrap();
                    seen += u16::from(!black_box(value).is_null());
                }
            }
        }
        seen
    };
    // Outside the timed rounds: the call reads a page of 2 records.
    assert_eq!(one_call(true), 2);
    assert_eq!(one_call(false), 1);
    let client_ns = (!serve).then(|| median_ns_per_call(|| one_call(false)));
    let report = serde_json::json!({
        "iterations": ITERATIONS,
        "rounds": ROUNDS,
        "gate": {
            "config": config_json,
            "target": TARGET,
            "api_key": ADA,
            "payload": PAYLOAD,
            "now": NOW,
            "ns_per_call": gate_ns,
        },
        "client": {
            "config": client_json,
            "credential": {"id": "main", "kind": "api_key", "secret": ADA, "user": "ada"},
            "table": "orders",
            "limit": 2,
            "response": {
                "status": response.status,
                "headers": response.headers,
                "body": String::from_utf8_lossy(&response.body),
            },
            "now": NOW,
            "step_ms": CLIENT_STEP_MS,
            "ns_per_call": client_ns,
        },
    });
    println!("{report}");
    if serve {
        let mut out = std::io::stdout().lock();
        for line in std::io::stdin().lines() {
            let ns = match line.unwrap().trim() {
                "client" => round_ns_per_call(&mut || one_call(false)),
                "client-read" => round_ns_per_call(&mut || one_call(true)),
                "gate" => round_ns_per_call(&mut gate_call),
                other => panic!("unknown workload {other:?}: client, client-read or gate"),
            };
            writeln!(out, "{ns}").unwrap();
            out.flush().unwrap();
        }
    }
}
