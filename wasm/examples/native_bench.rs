//! The native half of `wasm/bench/measure.mjs`: times the same calls the
//! JavaScript half makes through the wasm package, here as plain Rust, and
//! prints one JSON object (the workload it used and nanoseconds per call).
//!
//! `cargo run --release -p acd-wasm --example native_bench [--serve]`
//!
//! With `--serve`, it prints the workload without its own timings
//! (`ns_per_call` is null), then reads lines from standard input, `client`
//! (a driver cycle over a page of 2 records, every record parsed),
//! `client-100` (the same over 100 records) or `gate`,
//! and for each runs one round of that workload and prints its
//! nanoseconds per call on a line: `wasm/bench/measure.mjs` interleaves
//! these rounds with its own, so a change in machine load weighs on both
//! sides alike.
//!
//! A measurement, not a test: nothing here asserts a duration.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::client::wire::CallSpec;
use acd_core::client::{Client, Entropy, Event, RequestSpec};
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
    // The client workload: one driver cycle, as the JavaScript half makes it
    // through `Driver` (start, poll, respond, poll), here through the
    // core's typed calls (a `CallSpec`, a `Batch`), and no call ever waits:
    // the clock moves CLIENT_STEP_MS per call, so the table reads stay under
    // their 5 per 60 s per user, and the per-credential quota is unbounded.
    // `records` is the page's size: 2 or 100.
    let client_json = serde_json::json!({
        "api_key": ADA,
        "credential_quota": {"requests": u32::MAX, "window_ms": 60_000},
        "seed": 1,
    });
    let cycle = |records: usize| {
        let mut client =
            Client::from_config_json(client_json.to_string().as_bytes(), Entropy::from_seed(1))
                .unwrap();
        let spec = CallSpec::request(
            RequestSpec::list_table_records("orders").param(ParamRole::Limit, records.to_string()),
        );
        let page: Vec<String> = (0..records)
            .map(|i| format!(r#"{{"id":{i},"name":"row {i}"}}"#))
            .collect();
        let body = format!(r#"{{"data":[{}]}}"#, page.join(","));
        let headers = "Content-Type: application/json\nRateLimit-Limit: 1000000\n\
                       RateLimit-Remaining: 999999\nRateLimit-Reset: 60\n";
        let text = body.clone();
        let mut now = NOW;
        // Every record parsed into a `serde_json::Value` (the JavaScript
        // half's records come out of one JSON.parse of the batch).
        let call = move || {
            now += CLIENT_STEP_MS;
            let id = client.start(black_box(spec.clone())).unwrap();
            let batch = client.poll(now);
            assert_eq!(batch.transmits.len(), 1);
            client
                .respond(id, 200, headers, black_box(text.clone().into_bytes()), now)
                .unwrap();
            let mut seen = 0u16;
            for (_, event) in client.poll(now).events {
                if let Event::Response {
                    response: result, ..
                } = event
                {
                    for record in result.records().unwrap_or_default() {
                        let value: serde_json::Value = serde_json::from_str(record.get()).unwrap();
                        seen += u16::from(!black_box(value).is_null());
                    }
                }
            }
            seen
        };
        (call, body, headers)
    };
    let (mut small, small_body, headers) = cycle(2);
    let (mut large, large_body, _) = cycle(100);
    // Outside the timed rounds: each call reads its page.
    assert_eq!(small(), 2);
    assert_eq!(large(), 100);
    let client_ns = (!serve).then(|| median_ns_per_call(&mut small));
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
            "table": "orders",
            "headers": headers,
            "bodies": {"2": small_body, "100": large_body},
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
                "client" => round_ns_per_call(&mut small),
                "client-100" => round_ns_per_call(&mut large),
                "gate" => round_ns_per_call(&mut gate_call),
                other => panic!("unknown workload {other:?}: client, client-100 or gate"),
            };
            writeln!(out, "{ns}").unwrap();
            out.flush().unwrap();
        }
    }
}
