//! The Rust side of the overhead measurement (bindings/bench/run): one
//! driver cycle through the core's byte protocol, exactly as a binding
//! drives it (start a call spec's JSON, poll, respond with a page's bytes,
//! poll), for a 2-record and a 100-record page; and one gate decide of the
//! public index. Prints nanoseconds per cycle or decide.
//!
//! `cargo run --release -p acd-ffi --example overhead -- [iterations]`

use acd_core::client::{Client, Entropy};
use acd_core::gate::{demo, Gate, GateConfig, GateRequest};
use std::hint::black_box;
use std::time::Instant;

const NOW: u64 = 1_700_000_000_000;
const HEADERS: &str =
    "Content-Type: application/json\nRateLimit-Limit: 5\nRateLimit-Remaining: 4\nRateLimit-Reset: 60";
const SPEC: &[u8] = br#"{"type":"request","operation":"listTableRecords","path":{"id":"orders"}}"#;

/// A page of `records` records, as the API sends it.
pub fn page(records: usize) -> Vec<u8> {
    let rows: Vec<String> = (1..=records)
        .map(|i| format!(r#"{{"id":{i},"name":"row-{i}","total":{i}.5}}"#))
        .collect();
    format!(r#"{{"data":[{}]}}"#, rows.join(",")).into_bytes()
}

fn driver_cycles(iterations: u32, body: &[u8]) -> Result<f64, String> {
    let mut client =
        Client::from_config_json(br#"{"api_key":"acd_live_demo_ada"}"#, Entropy::from_seed(1))
            .map_err(|e| e.to_string())?;
    let started = Instant::now();
    for i in 0..u64::from(iterations) {
        // A minute apart: the per-user window (5 reads per 60 s) is fresh.
        let now = NOW + i * 60_000;
        let call = client.start_json(SPEC).map_err(|e| e.to_string())?;
        black_box(client.poll_json(now));
        client
            .respond(call, 200, HEADERS, body.to_vec(), now)
            .map_err(|e| e.to_string())?;
        black_box(client.poll_json(now));
    }
    Ok(started.elapsed().as_nanos() as f64 / f64::from(iterations))
}

fn gate_decides(iterations: u32) -> Result<f64, String> {
    let gate =
        Gate::in_memory(GateConfig::default(), demo::credentials()).map_err(|e| e.to_string())?;
    let request = GateRequest::get("/api/v1", "198.51.100.9");
    let started = Instant::now();
    for _ in 0..iterations {
        black_box(gate.decide(&request, NOW));
    }
    Ok(started.elapsed().as_nanos() as f64 / f64::from(iterations))
}

fn main() -> Result<(), String> {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200_000);
    for records in [2, 100] {
        let body = page(records);
        driver_cycles(iterations / 10, &body)?; // warm up
        let cycle = driver_cycles(iterations, &body)?;
        println!("rust core driver: {cycle:.0} ns per driver cycle ({records} records)");
    }
    let decide = gate_decides(iterations)?;
    println!("rust core gate: {decide:.0} ns per gate decide (index)");
    Ok(())
}
